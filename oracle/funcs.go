package main

// The pure functions Shepherd's engine mirrors, each answered by the
// Kubernetes function it mirrors (named on each op).

import (
	"context"
	"encoding/json"
	"fmt"
	"time"

	appsv1 "k8s.io/api/apps/v1"
	v1 "k8s.io/api/core/v1"
	policyv1 "k8s.io/api/policy/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/labels"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/util/intstr"
	"k8s.io/apimachinery/pkg/util/validation"
	utilfeature "k8s.io/apiserver/pkg/util/feature"
	"k8s.io/client-go/informers"
	clientsetfake "k8s.io/client-go/kubernetes/fake"
	"k8s.io/klog/v2"
	"k8s.io/kubernetes/pkg/controller/deployment/util"
	disruptionctl "k8s.io/kubernetes/pkg/controller/disruption"
	"k8s.io/kubernetes/pkg/scheduler/framework"
	plfeature "k8s.io/kubernetes/pkg/scheduler/framework/plugins/feature"
)

// quantity: resource.ParseQuantity, then MilliValue, Value (rounded up) and
// the canonical String.
func quantity(line []byte) (any, error) {
	var req struct {
		Values []string `json:"values"`
	}
	if err := json.Unmarshal(line, &req); err != nil {
		return nil, err
	}
	type out struct {
		Value  string `json:"value"`
		Error  string `json:"error,omitempty"`
		Milli  int64  `json:"milli"`
		Int    int64  `json:"int"`
		String string `json:"string,omitempty"`
	}
	var res []out
	for _, s := range req.Values {
		q, err := resource.ParseQuantity(s)
		if err != nil {
			res = append(res, out{Value: s, Error: err.Error()})
			continue
		}
		res = append(res, out{Value: s, Milli: q.MilliValue(), Int: q.Value(), String: q.String()})
	}
	return res, nil
}

// selector: metav1.LabelSelectorAsSelector and Selector.Matches, per label set.
func selector(line []byte) (any, error) {
	var req struct {
		Selector *metav1.LabelSelector `json:"selector"`
		Labels   []map[string]string   `json:"labels"`
	}
	if err := json.Unmarshal(line, &req); err != nil {
		return nil, err
	}
	sel, err := metav1.LabelSelectorAsSelector(req.Selector)
	if err != nil {
		return map[string]any{"invalid": err.Error()}, nil
	}
	matches := make([]bool, len(req.Labels))
	for i, l := range req.Labels {
		matches[i] = sel.Matches(labels.Set(l))
	}
	return map[string]any{"matches": matches}, nil
}

// names: k8s.io/apimachinery/pkg/util/validation's checks; each answer is
// the list of messages (empty: valid).
func names(line []byte) (any, error) {
	var req struct {
		Values []string `json:"values"`
	}
	if err := json.Unmarshal(line, &req); err != nil {
		return nil, err
	}
	nz := func(x []string) []string {
		if x == nil {
			return []string{}
		}
		return x
	}
	var res []map[string]any
	for _, s := range req.Values {
		res = append(res, map[string]any{
			"value":            s,
			"dns1123Subdomain": nz(validation.IsDNS1123Subdomain(s)),
			"dns1123Label":     nz(validation.IsDNS1123Label(s)),
			"dns1035Label":     nz(validation.IsDNS1035Label(s)),
			"labelKey":         nz(validation.IsQualifiedName(s)),
			"labelValue":       nz(validation.IsValidLabelValue(s)),
		})
	}
	return res, nil
}

// requests: the scheduler's view of a pod's requests,
// framework.PodInfo.CalculateResource (component-helpers' PodRequests, and
// again with the non-zero defaults for containers that set none).
func requests(line []byte) (any, error) {
	var req struct {
		Pod *v1.Pod `json:"pod"`
	}
	if err := json.Unmarshal(line, &req); err != nil {
		return nil, err
	}
	pi, err := framework.NewPodInfo(req.Pod)
	if err != nil {
		return nil, err
	}
	r := pi.CalculateResource()
	return map[string]any{
		"milliCPU": r.Resource.GetMilliCPU(),
		"memory":   r.Resource.GetMemory(),
		"non0CPU":  r.Non0CPU,
		"non0Mem":  r.Non0Mem,
	}, nil
}

// fenceposts: the deployment controller's ResolveFenceposts.
func fenceposts(line []byte) (any, error) {
	var req struct {
		MaxSurge       *intstr.IntOrString `json:"maxSurge"`
		MaxUnavailable *intstr.IntOrString `json:"maxUnavailable"`
		Desired        int32               `json:"desired"`
	}
	if err := json.Unmarshal(line, &req); err != nil {
		return nil, err
	}
	s, u, err := util.ResolveFenceposts(req.MaxSurge, req.MaxUnavailable, req.Desired)
	if err != nil {
		return map[string]any{"invalid": err.Error()}, nil
	}
	return map[string]any{"surge": s, "unavailable": u}, nil
}

// newRSReplicas: the deployment controller's NewRSNewReplicas.
func newRSReplicas(line []byte) (any, error) {
	var req struct {
		Deployment *appsv1.Deployment   `json:"deployment"`
		All        []*appsv1.ReplicaSet `json:"all"`
		New        *appsv1.ReplicaSet   `json:"new"`
	}
	if err := json.Unmarshal(line, &req); err != nil {
		return nil, err
	}
	n, err := util.NewRSNewReplicas(req.Deployment, req.All, req.New)
	if err != nil {
		return map[string]any{"invalid": err.Error()}, nil
	}
	return map[string]any{"replicas": n}, nil
}

// tolerates: v1.Toleration.ToleratesTaint, with the comparison operators as
// the feature gate sets them.
func tolerates(line []byte) (any, error) {
	var req struct {
		Toleration v1.Toleration `json:"toleration"`
		Taints     []v1.Taint    `json:"taints"`
	}
	if err := json.Unmarshal(line, &req); err != nil {
		return nil, err
	}
	fts := plfeature.NewSchedulerFeaturesFromGates(utilfeature.DefaultFeatureGate)
	out := make([]bool, len(req.Taints))
	for i := range req.Taints {
		out[i] = req.Toleration.ToleratesTaint(klog.Background(), &req.Taints[i], fts.EnableTaintTolerationComparisonOperators)
	}
	return out, nil
}

// disruption: the disruption controller itself (pkg/controller/disruption)
// syncs one PodDisruptionBudget over the given pods and their controllers
// on a fake API; the answer is the status it writes (expectedPods,
// desiredHealthy, currentHealthy, disruptionsAllowed).
func disruption(line []byte) (any, error) {
	var req struct {
		PDB          *policyv1.PodDisruptionBudget `json:"pdb"`
		Pods         []*v1.Pod                     `json:"pods"`
		Deployments  []*appsv1.Deployment          `json:"deployments"`
		ReplicaSets  []*appsv1.ReplicaSet          `json:"replicaSets"`
		StatefulSets []*appsv1.StatefulSet         `json:"statefulSets"`
	}
	if err := json.Unmarshal(line, &req); err != nil {
		return nil, err
	}
	if req.PDB == nil {
		return nil, fmt.Errorf("disruption needs a pdb")
	}
	req.PDB.Generation = 1
	objs := []runtime.Object{req.PDB}
	for _, o := range req.Pods {
		objs = append(objs, o)
	}
	for _, o := range req.Deployments {
		objs = append(objs, o)
	}
	for _, o := range req.ReplicaSets {
		objs = append(objs, o)
	}
	for _, o := range req.StatefulSets {
		objs = append(objs, o)
	}
	cs := clientsetfake.NewClientset(objs...)
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	f := informers.NewSharedInformerFactory(cs, 0)
	// Stop the controller and the informers first, then wait for them.
	defer f.Shutdown()
	defer cancel()
	dc := disruptionctl.NewDisruptionController(ctx,
		f.Core().V1().Pods(),
		f.Policy().V1().PodDisruptionBudgets(),
		f.Core().V1().ReplicationControllers(),
		f.Apps().V1().ReplicaSets(),
		f.Apps().V1().Deployments(),
		f.Apps().V1().StatefulSets(),
		cs, nil, nil, cs.Discovery())
	f.Start(ctx.Done())
	f.WaitForCacheSync(ctx.Done())
	go dc.Run(ctx, 1)
	for {
		p, err := cs.PolicyV1().PodDisruptionBudgets(req.PDB.Namespace).Get(ctx, req.PDB.Name, metav1.GetOptions{})
		if err != nil {
			return nil, err
		}
		if p.Status.ObservedGeneration >= 1 {
			return map[string]any{
				"expectedPods":       p.Status.ExpectedPods,
				"desiredHealthy":     p.Status.DesiredHealthy,
				"currentHealthy":     p.Status.CurrentHealthy,
				"disruptionsAllowed": p.Status.DisruptionsAllowed,
			}, nil
		}
		select {
		case <-ctx.Done():
			return nil, fmt.Errorf("the disruption controller wrote no status in time")
		case <-time.After(2 * time.Millisecond):
		}
	}
}
