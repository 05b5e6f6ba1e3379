#!/usr/bin/env python3
"""Writes a kubectl-shaped dump (`kubectl get nodes,deployments,replicasets,pods
-A -o json` as a List) of a large running cluster, for timing the import of a
cluster as it is (issue 45, Speed): NODES nodes in three zones and DEPLOYMENTS
Deployments of PODS pods each, every pod bound to a node and owned by its
Deployment's ReplicaSet, named as Kubernetes names them.

    scripts/big-dump.py NODES DEPLOYMENTS PODS [yaml] > dump.json

Deterministic; compact JSON (kubectl indents, which only adds bytes), and
the pods without status, so 150,000 pods fit the import limit of 64 MiB."""
import json
import random
import sys

nodes, deps, per = (int(a) for a in sys.argv[1:4])
as_yaml = len(sys.argv) > 4 and sys.argv[4] == "yaml"
rng = random.Random(45)
ALPHA = "bcdfghjklmnpqrstvwxz2456789"


def rand(n):
    return "".join(rng.choice(ALPHA) for _ in range(n))


items = []
for i in range(nodes):
    z = "abc"[i % 3]
    name = f"node-{i:05d}"
    items.append({
        "apiVersion": "v1", "kind": "Node",
        "metadata": {"name": name, "labels": {"kubernetes.io/hostname": name,
                                               "topology.kubernetes.io/zone": f"z-{z}"}},
        "spec": {},
        "status": {"allocatable": {"cpu": "32", "memory": "128Gi", "pods": "110"},
                   "conditions": [{"type": "Ready", "status": "True"}]},
    })
slot = 0
for d in range(deps):
    app = f"app-{d:05d}"
    h = rand(10)
    tpl = {"metadata": {"labels": {"app": app}},
           "spec": {"containers": [{"name": "c", "image": "nginx",
                                    "resources": {"requests": {"cpu": "100m", "memory": "128Mi"}}}]}}
    items.append({
        "apiVersion": "apps/v1", "kind": "Deployment",
        "metadata": {"name": app, "namespace": "default", "annotations": {"deployment.kubernetes.io/revision": "1"}},
        "spec": {"replicas": per, "selector": {"matchLabels": {"app": app}}, "template": tpl},
    })
    rs = f"{app}-{h}"
    rtpl = json.loads(json.dumps(tpl))
    rtpl["metadata"]["labels"]["pod-template-hash"] = h
    items.append({
        "apiVersion": "apps/v1", "kind": "ReplicaSet",
        "metadata": {"name": rs, "namespace": "default",
                     "labels": {"app": app, "pod-template-hash": h},
                     "annotations": {"deployment.kubernetes.io/revision": "1"},
                     "ownerReferences": [{"apiVersion": "apps/v1", "kind": "Deployment", "name": app,
                                          "uid": "u", "controller": True}]},
        "spec": {"replicas": per, "selector": {"matchLabels": {"app": app, "pod-template-hash": h}},
                 "template": rtpl},
    })
    for p in range(per):
        node = f"node-{slot % nodes:05d}"
        slot += 1
        items.append({
            "apiVersion": "v1", "kind": "Pod",
            "metadata": {"name": f"{rs}-{rand(5)}", "namespace": "default",
                         "labels": {"app": app, "pod-template-hash": h},
                         "ownerReferences": [{"apiVersion": "apps/v1", "kind": "ReplicaSet", "name": rs}]},
            "spec": {"containers": [{"name": "c",
                                     "resources": {"requests": {"cpu": "100m", "memory": "128Mi"}}}],
                     "nodeName": node},
        })
doc = {"apiVersion": "v1", "kind": "List", "items": items}
if as_yaml:
    import yaml
    yaml.safe_dump(doc, sys.stdout, sort_keys=True)
else:
    json.dump(doc, sys.stdout, separators=(",", ":"))
