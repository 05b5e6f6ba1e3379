package main

// The "validate" op: what the API server does with a create request's body,
// from decoding to validation: strict decoding (kubectl's default field
// validation), defaulting of the versioned object, conversion to the
// internal type, and the resource's registry strategy through
// rest.BeforeCreate (PrepareForCreate, then Validate with the hand-written
// and the declarative rules, which need the request info in the context).
// A KubeSchedulerConfiguration goes through kube-scheduler's config loading.

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"strings"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/meta"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/runtime/serializer"
	utilyaml "k8s.io/apimachinery/pkg/util/yaml"
	genericapirequest "k8s.io/apiserver/pkg/endpoints/request"
	"k8s.io/apiserver/pkg/registry/rest"
	"k8s.io/kubernetes/pkg/api/legacyscheme"
	_ "k8s.io/kubernetes/pkg/apis/apps/install"
	_ "k8s.io/kubernetes/pkg/apis/core/install"
	_ "k8s.io/kubernetes/pkg/apis/policy/install"
	_ "k8s.io/kubernetes/pkg/apis/scheduling/install"
	"k8s.io/kubernetes/pkg/registry/apps/daemonset"
	"k8s.io/kubernetes/pkg/registry/apps/deployment"
	"k8s.io/kubernetes/pkg/registry/apps/replicaset"
	"k8s.io/kubernetes/pkg/registry/apps/statefulset"
	"k8s.io/kubernetes/pkg/registry/core/configmap"
	"k8s.io/kubernetes/pkg/registry/core/namespace"
	"k8s.io/kubernetes/pkg/registry/core/node"
	"k8s.io/kubernetes/pkg/registry/core/pod"
	"k8s.io/kubernetes/pkg/registry/core/service"
	"k8s.io/kubernetes/pkg/registry/policy/poddisruptionbudget"
	"k8s.io/kubernetes/pkg/registry/scheduling/priorityclass"
)

type kindInfo struct {
	resource string
	strategy rest.RESTCreateStrategy
}

var kinds = map[schema.GroupKind]kindInfo{
	{Group: "", Kind: "Node"}:                           {"nodes", node.Strategy},
	{Group: "", Kind: "Pod"}:                            {"pods", pod.Strategy},
	{Group: "", Kind: "Service"}:                        {"services", service.Strategy},
	{Group: "", Kind: "Namespace"}:                      {"namespaces", namespace.Strategy},
	{Group: "", Kind: "ConfigMap"}:                      {"configmaps", configmap.Strategy},
	{Group: "apps", Kind: "Deployment"}:                 {"deployments", deployment.Strategy},
	{Group: "apps", Kind: "DaemonSet"}:                  {"daemonsets", daemonset.Strategy},
	{Group: "apps", Kind: "StatefulSet"}:                {"statefulsets", statefulset.Strategy},
	{Group: "apps", Kind: "ReplicaSet"}:                 {"replicasets", replicaset.Strategy},
	{Group: "policy", Kind: "PodDisruptionBudget"}:      {"poddisruptionbudgets", poddisruptionbudget.Strategy},
	{Group: "scheduling.k8s.io", Kind: "PriorityClass"}: {"priorityclasses", priorityclass.Strategy},
}

var strictCodecs = serializer.NewCodecFactory(legacyscheme.Scheme, serializer.EnableStrict)

type fieldErr struct {
	Field   string `json:"field,omitempty"`
	Type    string `json:"type,omitempty"`
	Message string `json:"message"`
}

// validate answers, for an "object" (one JSON object) or a "manifest" (a
// YAML or JSON stream of documents, `kind: List`s flattened), one entry per
// object: its kind, name and field errors (empty: the API server takes it).
func validate(line []byte) (any, error) {
	var req struct {
		Object   json.RawMessage `json:"object"`
		Manifest string          `json:"manifest"`
	}
	if err := json.Unmarshal(line, &req); err != nil {
		return nil, err
	}
	var docs []json.RawMessage
	if req.Object != nil {
		docs = append(docs, req.Object)
	}
	if req.Manifest != "" {
		d := utilyaml.NewYAMLOrJSONDecoder(strings.NewReader(req.Manifest), 4096)
		for {
			var raw json.RawMessage
			if err := d.Decode(&raw); err != nil {
				if err == io.EOF {
					break
				}
				return nil, fmt.Errorf("manifest: %w", err)
			}
			if len(raw) == 0 || string(raw) == "null" {
				continue
			}
			var list struct {
				Kind  string            `json:"kind"`
				Items []json.RawMessage `json:"items"`
			}
			if json.Unmarshal(raw, &list) == nil && list.Kind == "List" {
				docs = append(docs, list.Items...)
			} else {
				docs = append(docs, raw)
			}
		}
	}
	var out []map[string]any
	for _, doc := range docs {
		var tm struct {
			Kind     string `json:"kind"`
			Metadata struct {
				Name string `json:"name"`
			} `json:"metadata"`
		}
		if err := json.Unmarshal(doc, &tm); err != nil {
			return nil, err
		}
		var errs []fieldErr
		if tm.Kind == "KubeSchedulerConfiguration" {
			if _, err := loadConfig(string(doc)); err != nil {
				errs = []fieldErr{{Message: err.Error()}}
			}
		} else {
			var err error
			errs, err = validateObject(doc)
			if err != nil {
				errs = []fieldErr{{Type: "Unsupported", Message: err.Error()}}
			}
		}
		if errs == nil {
			errs = []fieldErr{}
		}
		out = append(out, map[string]any{"kind": tm.Kind, "name": tm.Metadata.Name, "errors": errs, "object": doc})
	}
	return out, nil
}

func validateObject(data []byte) ([]fieldErr, error) {
	var out []fieldErr
	obj, gvk, err := strictCodecs.UniversalDeserializer().Decode(data, nil, nil)
	if err != nil && runtime.IsNotRegisteredError(err) && customGroup(data) {
		// A custom resource (Karpenter's karpenter.sh/v1 NodePool...): its
		// schema is its CustomResourceDefinition's, which Kubernetes' own
		// scheme does not hold; the API server would validate it against
		// that CRD. Not checked here.
		return nil, nil
	}
	if err != nil {
		if obj == nil || !runtime.IsStrictDecodingError(err) {
			return []fieldErr{{Type: "Decode", Message: err.Error()}}, nil
		}
		// Unknown or duplicate fields: kubectl's default (Strict) refuses them.
		out = append(out, fieldErr{Type: "StrictDecoding", Message: err.Error()})
	}
	info, ok := kinds[gvk.GroupKind()]
	if !ok {
		return nil, fmt.Errorf("kind %s is not one the oracle validates", gvk)
	}
	legacyscheme.Scheme.Default(obj)
	internal, err := legacyscheme.Scheme.ConvertToVersion(obj, schema.GroupVersion{Group: gvk.Group, Version: runtime.APIVersionInternal})
	if err != nil {
		return append(out, fieldErr{Type: "Conversion", Message: err.Error()}), nil
	}
	m, err := meta.Accessor(internal)
	if err != nil {
		return nil, err
	}
	ns := ""
	if info.strategy.NamespaceScoped() {
		ns = m.GetNamespace()
		if ns == "" {
			// kubectl sends the object to its context's namespace.
			ns = "default"
			m.SetNamespace(ns)
		}
	}
	ctx := genericapirequest.WithNamespace(context.Background(), ns)
	ctx = genericapirequest.WithRequestInfo(ctx, &genericapirequest.RequestInfo{
		IsResourceRequest: true,
		Verb:              "create",
		APIPrefix:         "apis",
		APIGroup:          gvk.Group,
		APIVersion:        gvk.Version,
		Namespace:         ns,
		Resource:          info.resource,
		Name:              m.GetName(),
	})
	rest.FillObjectMetaSystemFields(m)
	if err := rest.BeforeCreate(info.strategy, ctx, internal); err != nil {
		var se *apierrors.StatusError
		if errors.As(err, &se) && se.ErrStatus.Details != nil && len(se.ErrStatus.Details.Causes) > 0 {
			for _, c := range se.ErrStatus.Details.Causes {
				out = append(out, fieldErr{Field: c.Field, Type: string(c.Type), Message: c.Message})
			}
		} else {
			out = append(out, fieldErr{Message: err.Error()})
		}
	}
	return out, nil
}

// customGroup: the object's apiVersion names an API group that only a
// CustomResourceDefinition serves: a dotted group outside Kubernetes' own
// *.k8s.io groups (built-in groups are either undotted, as apps and batch,
// or end in .k8s.io).
func customGroup(data []byte) bool {
	var tm struct {
		APIVersion string `json:"apiVersion"`
	}
	if json.Unmarshal(data, &tm) != nil {
		return false
	}
	group, _, found := strings.Cut(tm.APIVersion, "/")
	return found && strings.Contains(group, ".") && !strings.HasSuffix(group, ".k8s.io")
}
