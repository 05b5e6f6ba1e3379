#!/usr/bin/env python3
"""Writes www/examples/mid-sized-cluster.yaml (and its copy in tests/manifests/):
what `kubectl get nodes,deployments,replicasets,statefulsets,daemonsets,pods,pdb,
svc,priorityclasses -A -o yaml` prints for a mid-sized cluster (issue 45 item 4).

Three zones, twelve general nodes and a GPU pool of three (nvidia.com/gpu in
allocatable, a taint), Deployments (checkout mid-rollout: two ReplicaSets with
their revisions and pod-template-hash, old and new pods), a StatefulSet,
DaemonSets, PDBs, Services and PriorityClasses; every pod bound where it runs,
named as Kubernetes names them. Deterministic (a fixed seed): run it again and
the file is the same. kubectl prints keys sorted and, since 1.21, no
managedFields; so does this.
"""
import random
import sys
import yaml

rng = random.Random(45)
# The characters Kubernetes' rand.String and SafeEncodeString draw from
# (k8s.io/apimachinery/pkg/util/rand): no vowels, no 0, 1, 3.
ALPHA = "bcdfghjklmnpqrstvwxz2456789"


def rand(n):
    return "".join(rng.choice(ALPHA) for _ in range(n))


def uid():
    h = "%032x" % rng.getrandbits(128)
    return f"{h[:8]}-{h[8:12]}-4{h[13:16]}-8{h[17:20]}-{h[20:32]}"


rv = [100000]


def version():
    rv[0] += rng.randint(1, 900)
    return str(rv[0])


def ts(minute):
    return "2026-11-%02dT%02d:%02d:%02dZ" % (2 + minute // 1440, (minute // 60) % 24, minute % 60, rng.randint(0, 59))


ZONES = ["us-east-1a", "us-east-1b", "us-east-1c"]
objects = []
nodes = []  # dicts: name, zone, gpu, cpu, mem, pods, used_cpu, used_mem, used_pods, used_gpu


def node(name, zone, pool, itype, cpu_m, mem_ki, pods, gpu, ip):
    labels = {
        "beta.kubernetes.io/arch": "amd64",
        "beta.kubernetes.io/instance-type": itype,
        "beta.kubernetes.io/os": "linux",
        "failure-domain.beta.kubernetes.io/region": "us-east-1",
        "failure-domain.beta.kubernetes.io/zone": zone,
        "kubernetes.io/arch": "amd64",
        "kubernetes.io/hostname": name,
        "kubernetes.io/os": "linux",
        "node.kubernetes.io/instance-type": itype,
        "topology.kubernetes.io/region": "us-east-1",
        "topology.kubernetes.io/zone": zone,
        "pool": pool,
    }
    alloc = {
        "cpu": f"{cpu_m}m",
        "ephemeral-storage": "95491281146",
        "hugepages-1Gi": "0",
        "hugepages-2Mi": "0",
        "memory": f"{mem_ki}Ki",
        "pods": str(pods),
    }
    cap = {
        "cpu": str((cpu_m + 999) // 1000),
        "ephemeral-storage": "104845292Ki",
        "hugepages-1Gi": "0",
        "hugepages-2Mi": "0",
        "memory": f"{mem_ki + 1280000}Ki",
        "pods": str(pods),
    }
    spec = {"providerID": f"aws:///{zone}/i-0{rand(16)}"}
    if gpu:
        labels["nvidia.com/gpu.present"] = "true"
        labels["nvidia.com/gpu.product"] = "NVIDIA-A10G"
        alloc["nvidia.com/gpu"] = str(gpu)
        cap["nvidia.com/gpu"] = str(gpu)
        spec["taints"] = [{"effect": "NoSchedule", "key": "nvidia.com/gpu", "value": "present"}]
    created = rng.randint(0, 600)
    cond = lambda t, s, r, m: {
        "lastHeartbeatTime": "2026-12-07T16:40:12Z",
        "lastTransitionTime": ts(created + 1),
        "message": m,
        "reason": r,
        "status": s,
        "type": t,
    }
    obj = {
        "apiVersion": "v1",
        "kind": "Node",
        "metadata": {
            "annotations": {
                "alpha.kubernetes.io/provided-node-ip": ip,
                "node.alpha.kubernetes.io/ttl": "0",
                "volumes.kubernetes.io/controller-managed-attach-detach": "true",
            },
            "creationTimestamp": ts(created),
            "labels": labels,
            "name": name,
            "resourceVersion": version(),
            "uid": uid(),
        },
        "spec": spec,
        "status": {
            "addresses": [
                {"address": ip, "type": "InternalIP"},
                {"address": name, "type": "Hostname"},
            ],
            "allocatable": alloc,
            "capacity": cap,
            "conditions": [
                cond("MemoryPressure", "False", "KubeletHasSufficientMemory", "kubelet has sufficient memory available"),
                cond("DiskPressure", "False", "KubeletHasNoDiskPressure", "kubelet has no disk pressure"),
                cond("PIDPressure", "False", "KubeletHasSufficientPID", "kubelet has sufficient PID available"),
                cond("Ready", "True", "KubeletReady", "kubelet is posting ready status"),
            ],
            "daemonEndpoints": {"kubeletEndpoint": {"Port": 10250}},
            "nodeInfo": {
                "architecture": "amd64",
                "containerRuntimeVersion": "containerd://1.7.27",
                "kernelVersion": "6.1.141-155.222.amzn2023.x86_64",
                "kubeProxyVersion": "v1.37.2",
                "kubeletVersion": "v1.37.2",
                "operatingSystem": "linux",
                "osImage": "Amazon Linux 2023.8.20251101",
            },
        },
    }
    objects.append(obj)
    nodes.append(dict(name=name, zone=zone, gpu=gpu, cpu=cpu_m, mem=mem_ki * 1024, pods=pods,
                      ucpu=0, umem=0, upods=0, ugpu=0, ip=ip, pool=pool))


for i, zone in enumerate(ZONES):
    for j in range(4):
        ip = f"10.0.{16 * i + j}.{rng.randint(10, 250)}"
        node(f"ip-{ip.replace('.', '-')}.ec2.internal", zone, "general", "m6i.2xlarge", 7910, 31792988, 58, 0, ip)
for i, zone in enumerate(ZONES):
    ip = f"10.0.{16 * i + 8}.{rng.randint(10, 250)}"
    node(f"ip-{ip.replace('.', '-')}.ec2.internal", zone, "gpu", "g5.2xlarge", 7910, 31792988, 58, 1, ip)


def mem(q):
    units = {"Mi": 1 << 20, "Gi": 1 << 30}
    return int(q[:-2]) * units[q[-2:]]


def cpu(q):
    return int(q[:-1]) if q.endswith("m") else int(q) * 1000


def fits(n, req):
    return (n["ucpu"] + cpu(req["cpu"]) <= n["cpu"] and n["umem"] + mem(req["memory"]) <= n["mem"]
            and n["upods"] < n["pods"] and n["ugpu"] + req.get("gpu", 0) <= n["gpu"])


def take(n, req):
    n["ucpu"] += cpu(req["cpu"])
    n["umem"] += mem(req["memory"])
    n["upods"] += 1
    n["ugpu"] += req.get("gpu", 0)


def meta(name, ns, labels=None, annotations=None, owner=None, created=0):
    m = {
        "creationTimestamp": ts(created),
        "name": name,
        "namespace": ns,
        "resourceVersion": version(),
        "uid": uid(),
    }
    if labels:
        m["labels"] = dict(labels)
    if annotations:
        m["annotations"] = dict(annotations)
    if owner:
        m["ownerReferences"] = [{
            "apiVersion": "apps/v1",
            "blockOwnerDeletion": True,
            "controller": True,
            "kind": owner[0],
            "name": owner[1],
            "uid": owner[2],
        }]
    return m


def container(name, image, req, limits=None, ports=(), env=None, mounts=None):
    c = {
        "image": image,
        "imagePullPolicy": "IfNotPresent",
        "name": name,
        "resources": {"requests": {k: v for k, v in req.items() if k != "gpu"}},
        "terminationMessagePath": "/dev/termination-log",
        "terminationMessagePolicy": "File",
    }
    if limits:
        c["resources"]["limits"] = limits
    if req.get("gpu"):
        c["resources"]["limits"] = dict(c["resources"].get("limits", {}), **{"nvidia.com/gpu": str(req["gpu"])})
    if ports:
        c["ports"] = [{"containerPort": p, "name": pn, "protocol": "TCP"} for pn, p in ports]
    if env:
        c["env"] = [{"name": k, "value": v} for k, v in env]
    if mounts:
        c["volumeMounts"] = mounts
    return c


def pod_spec(containers, extra=None):
    s = {
        "containers": containers,
        "dnsPolicy": "ClusterFirst",
        "enableServiceLinks": True,
        "preemptionPolicy": "PreemptLowerPriority",
        "priority": 0,
        "restartPolicy": "Always",
        "schedulerName": "default-scheduler",
        "securityContext": {},
        "serviceAccount": "default",
        "serviceAccountName": "default",
        "terminationGracePeriodSeconds": 30,
    }
    s.update(extra or {})
    return s


def template(labels, spec):
    t_spec = {k: v for k, v in spec.items() if k not in ("preemptionPolicy", "priority", "serviceAccount", "enableServiceLinks")}
    return {"metadata": {"labels": dict(labels)}, "spec": t_spec}


def pod(name, ns, labels, spec, node_, owner, created, annotations=None):
    n = node_
    spec = dict(spec)
    spec["nodeName"] = n["name"]
    spec["tolerations"] = spec.get("tolerations", []) + [
        {"effect": "NoExecute", "key": "node.kubernetes.io/not-ready", "operator": "Exists", "tolerationSeconds": 300},
        {"effect": "NoExecute", "key": "node.kubernetes.io/unreachable", "operator": "Exists", "tolerationSeconds": 300},
    ]
    start = ts(created)
    cs = [{
        "containerID": "containerd://" + "%064x" % rng.getrandbits(256),
        "image": c["image"],
        "imageID": c["image"].split(":")[0] + "@sha256:" + "%064x" % rng.getrandbits(256),
        "lastState": {},
        "name": c["name"],
        "ready": True,
        "restartCount": 0,
        "started": True,
        "state": {"running": {"startedAt": start}},
    } for c in spec["containers"]]
    ip = "10.0.%d.%d" % (rng.randint(64, 127), rng.randint(2, 254))
    objects.append({
        "apiVersion": "v1",
        "kind": "Pod",
        "metadata": meta(name, ns, labels, annotations, owner, created),
        "spec": spec,
        "status": {
            "conditions": [
                {"lastProbeTime": None, "lastTransitionTime": start, "status": "True", "type": t}
                for t in ("PodReadyToStartContainers", "Initialized", "Ready", "ContainersReady", "PodScheduled")
            ],
            "containerStatuses": cs,
            "hostIP": n["ip"],
            "hostIPs": [{"ip": n["ip"]}],
            "phase": "Running",
            "podIP": ip,
            "podIPs": [{"ip": ip}],
            "qosClass": "Burstable",
            "startTime": start,
        },
    })


def place(req, ok, spread=None):
    """The node a pod runs on: the least loaded node that fits (and `ok`),
    within the zone `spread` names when given."""
    cands = [n for n in nodes if ok(n) and fits(n, req) and (spread is None or n["zone"] == spread)]
    cands.sort(key=lambda n: (n["upods"], n["ucpu"], n["name"]))
    if not cands:
        sys.exit(f"nothing fits {req}")
    take(cands[0], req)
    return cands[0]


general = lambda n: n["pool"] == "general"
gpu_nodes = lambda n: n["gpu"] > 0

# PriorityClasses as every cluster has them, and one of the user's.
for name, value, desc in [
    ("shop-critical", 100000, "Checkout and cart: preempt batch work."),
    ("system-cluster-critical", 2000000000, "Used for system critical pods that must run in the cluster, but can be moved to another node if necessary."),
    ("system-node-critical", 2000001000, "Used for system critical pods that must not be moved from their current node."),
]:
    objects.append({
        "apiVersion": "scheduling.k8s.io/v1",
        "description": desc,
        "kind": "PriorityClass",
        "metadata": {"creationTimestamp": ts(0), "generation": 1, "name": name, "resourceVersion": version(), "uid": uid()},
        "preemptionPolicy": "PreemptLowerPriority",
        "value": value,
    })

# DaemonSets: a pod on every node each selects and tolerates.
daemonsets = [
    ("kube-system", "kube-proxy", "registry.k8s.io/kube-proxy:v1.37.2", {"cpu": "100m", "memory": "64Mi"}, None,
     [{"operator": "Exists"}], "system-node-critical", True),
    ("monitoring", "node-exporter", "quay.io/prometheus/node-exporter:v1.9.1", {"cpu": "50m", "memory": "50Mi"}, None,
     [{"operator": "Exists"}], None, True),
    ("kube-system", "nvidia-device-plugin-daemonset", "nvcr.io/nvidia/k8s-device-plugin:v0.17.2", {"cpu": "50m", "memory": "64Mi"},
     {"nvidia.com/gpu.present": "true"}, [{"effect": "NoSchedule", "key": "nvidia.com/gpu", "operator": "Exists"}],
     "system-node-critical", False),
]
for ns, name, image, req, sel, tols, prio, host_net in daemonsets:
    labels = {"app.kubernetes.io/name": name}
    extra = {"tolerations": tols}
    if sel:
        extra["nodeSelector"] = sel
    if prio:
        extra["priorityClassName"] = prio
    if host_net:
        extra["hostNetwork"] = True
    spec = pod_spec([container(name, image, req)], extra)
    ds_uid = uid()
    hash_ = rand(10)
    chosen = [n for n in nodes if not sel or n["gpu"]]
    objects.append({
        "apiVersion": "apps/v1",
        "kind": "DaemonSet",
        "metadata": dict(meta(name, ns, labels, {"deprecated.daemonset.template.generation": "1"}, created=5), generation=1, uid=ds_uid),
        "spec": {
            "revisionHistoryLimit": 10,
            "selector": {"matchLabels": labels},
            "template": template(labels, spec),
            "updateStrategy": {"rollingUpdate": {"maxSurge": 0, "maxUnavailable": 1}, "type": "RollingUpdate"},
        },
        "status": {"currentNumberScheduled": len(chosen), "desiredNumberScheduled": len(chosen), "numberAvailable": len(chosen),
                   "numberMisscheduled": 0, "numberReady": len(chosen), "observedGeneration": 1, "updatedNumberScheduled": len(chosen)},
    })
    for n in chosen:
        take(n, req)
        pspec = dict(spec)
        pspec["affinity"] = {"nodeAffinity": {"requiredDuringSchedulingIgnoredDuringExecution": {"nodeSelectorTerms": [
            {"matchFields": [{"key": "metadata.name", "operator": "In", "values": [n["name"]]}]}]}}}
        if prio:
            pspec["priority"] = 2000001000
        pod(f"{name}-{rand(5)}", ns, dict(labels, **{"controller-revision-hash": hash_, "pod-template-generation": "1"}),
            pspec, n, ("DaemonSet", name, ds_uid), 10)


def deployment(ns, name, replicas, revisions, req, extra=None, spread=False, strategy=None, annotations=None):
    """`revisions`: [(revision, image, pods)], oldest first; the last is the
    Deployment's template."""
    labels = {"app.kubernetes.io/name": name}
    dep_uid = uid()
    strategy = strategy or {"rollingUpdate": {"maxSurge": "25%", "maxUnavailable": "25%"}, "type": "RollingUpdate"}
    specs = []
    for rev, image, _ in revisions:
        env = [("LOG_LEVEL", "info"), ("OTEL_SERVICE_NAME", name)]
        specs.append(pod_spec([container(name, image, req, limits={"memory": req["memory"]}, ports=[("http", 8080)], env=env)], extra))
    latest = revisions[-1][0]
    total = sum(p for _, _, p in revisions)
    objects.append({
        "apiVersion": "apps/v1",
        "kind": "Deployment",
        "metadata": dict(meta(name, ns, labels, dict({"deployment.kubernetes.io/revision": str(latest)}, **(annotations or {})), created=30),
                         generation=latest, uid=dep_uid),
        "spec": {
            "progressDeadlineSeconds": 600,
            "replicas": replicas,
            "revisionHistoryLimit": 10,
            "selector": {"matchLabels": labels},
            "strategy": strategy,
            "template": template(labels, specs[-1]),
        },
        "status": {"availableReplicas": min(total, replicas), "observedGeneration": latest, "readyReplicas": total,
                   "replicas": total, "updatedReplicas": revisions[-1][2],
                   "conditions": [{"lastTransitionTime": ts(31), "lastUpdateTime": ts(31), "message": "Deployment has minimum availability.",
                                   "reason": "MinimumReplicasAvailable", "status": "True", "type": "Available"},
                                  {"lastTransitionTime": ts(31), "lastUpdateTime": ts(900),
                                   "message": f'ReplicaSet "{name}-..." is progressing.' if len(revisions) > 1 else f'ReplicaSet "{name}" has successfully progressed.',
                                   "reason": "ReplicaSetUpdated" if len(revisions) > 1 else "NewReplicaSetAvailable", "status": "True", "type": "Progressing"}]},
    })
    zone_i = rng.randrange(3)
    for (rev, image, count), spec in zip(revisions, specs):
        h = rand(10)
        rs = f"{name}-{h}"
        rs_uid = uid()
        rs_labels = dict(labels, **{"pod-template-hash": h})
        objects.append({
            "apiVersion": "apps/v1",
            "kind": "ReplicaSet",
            "metadata": dict(meta(rs, ns, rs_labels, {
                "deployment.kubernetes.io/desired-replicas": str(replicas),
                "deployment.kubernetes.io/max-replicas": str(replicas + 1 if len(revisions) > 1 else replicas + max(1, replicas // 4)),
                "deployment.kubernetes.io/revision": str(rev),
            }, ("Deployment", name, dep_uid), created=30 + rev), generation=1),
            "spec": {
                "replicas": count,
                "selector": {"matchLabels": rs_labels},
                "template": template(rs_labels, spec),
            },
            "status": {"availableReplicas": count, "fullyLabeledReplicas": count, "observedGeneration": 1,
                       "readyReplicas": count, "replicas": count},
        })
        for _ in range(count):
            zone = ZONES[zone_i % 3] if spread else None
            zone_i += 1
            ok = gpu_nodes if req.get("gpu") else general
            n = place(req, ok, zone)
            pod(f"{rs}-{rand(5)}", ns, rs_labels, spec, n, ("ReplicaSet", rs, rs_uid), 40 + rev)


zone_spread = lambda: {"topologySpreadConstraints": [{
    "labelSelector": {"matchLabels": {}}, "matchLabelKeys": ["pod-template-hash"], "maxSkew": 1,
    "topologyKey": "topology.kubernetes.io/zone", "whenUnsatisfiable": "DoNotSchedule"}]}


def spread_for(name):
    s = zone_spread()
    s["topologySpreadConstraints"][0]["labelSelector"]["matchLabels"] = {"app.kubernetes.io/name": name}
    return s


deployment("kube-system", "coredns", 2, [(1, "registry.k8s.io/coredns/coredns:v1.12.1", 2)], {"cpu": "100m", "memory": "70Mi"},
           dict({"priorityClassName": "system-cluster-critical", "priority": 2000000000,
                 "tolerations": [{"key": "CriticalAddonsOnly", "operator": "Exists"}]}, **spread_for("coredns")), spread=True)
deployment("shop", "frontend", 6, [(7, "ghcr.io/acme/frontend:4.12.0", 6)], {"cpu": "250m", "memory": "256Mi"},
           spread_for("frontend"), spread=True)
# Mid-rollout: revision 3 (1.8.2) down to 2 pods, revision 4 (1.9.0) up to 3,
# under maxSurge 1 and maxUnavailable 1 of 4 replicas.
deployment("shop", "checkout", 4, [(3, "ghcr.io/acme/checkout:1.8.2", 2), (4, "ghcr.io/acme/checkout:1.9.0", 3)],
           {"cpu": "500m", "memory": "512Mi"}, {"priorityClassName": "shop-critical", "priority": 100000},
           strategy={"rollingUpdate": {"maxSurge": 1, "maxUnavailable": 1}, "type": "RollingUpdate"},
           annotations={"kubernetes.io/change-cause": "kubectl set image deployment/checkout checkout=ghcr.io/acme/checkout:1.9.0"})
deployment("shop", "cart", 3, [(2, "ghcr.io/acme/cart:2.3.4", 3)], {"cpu": "250m", "memory": "384Mi"},
           {"priorityClassName": "shop-critical", "priority": 100000}, spread=True)
deployment("ml", "inference", 2, [(5, "ghcr.io/acme/inference:0.9.3", 2)], {"cpu": "3", "memory": "12Gi", "gpu": 1},
           {"nodeSelector": {"nvidia.com/gpu.present": "true"},
            "tolerations": [{"effect": "NoSchedule", "key": "nvidia.com/gpu", "operator": "Exists"}]})

# A StatefulSet: postgres-0..2, one per zone, with its volume claims.
labels = {"app.kubernetes.io/name": "postgres"}
sts_uid = uid()
req = {"cpu": "1", "memory": "2Gi"}
spec = pod_spec([container("postgres", "docker.io/library/postgres:17.5", req, limits={"memory": "2Gi"}, ports=[("postgres", 5432)],
                           env=[("PGDATA", "/var/lib/postgresql/data/pgdata")],
                           mounts=[{"mountPath": "/var/lib/postgresql/data", "name": "data"}])],
                {"affinity": {"podAntiAffinity": {"requiredDuringSchedulingIgnoredDuringExecution": [
                    {"labelSelector": {"matchLabels": labels}, "topologyKey": "topology.kubernetes.io/zone"}]}}})
rev_hash = f"postgres-{rand(10)}"
objects.append({
    "apiVersion": "apps/v1",
    "kind": "StatefulSet",
    "metadata": dict(meta("postgres", "data", labels, created=20), generation=1, uid=sts_uid),
    "spec": {
        "persistentVolumeClaimRetentionPolicy": {"whenDeleted": "Retain", "whenScaled": "Retain"},
        "podManagementPolicy": "OrderedReady",
        "replicas": 3,
        "revisionHistoryLimit": 10,
        "selector": {"matchLabels": labels},
        "serviceName": "postgres",
        "template": template(labels, spec),
        "updateStrategy": {"rollingUpdate": {"partition": 0}, "type": "RollingUpdate"},
        "volumeClaimTemplates": [{
            "apiVersion": "v1",
            "kind": "PersistentVolumeClaim",
            "metadata": {"name": "data"},
            "spec": {"accessModes": ["ReadWriteOnce"], "resources": {"requests": {"storage": "100Gi"}},
                     "storageClassName": "gp3", "volumeMode": "Filesystem"},
            "status": {"phase": "Pending"},
        }],
    },
    "status": {"availableReplicas": 3, "collisionCount": 0, "currentReplicas": 3, "currentRevision": rev_hash,
               "observedGeneration": 1, "readyReplicas": 3, "replicas": 3, "updateRevision": rev_hash, "updatedReplicas": 3},
})
for i in range(3):
    n = place(req, general, ZONES[i])
    pspec = dict(spec, hostname=f"postgres-{i}", subdomain="postgres",
                 volumes=[{"name": "data", "persistentVolumeClaim": {"claimName": f"data-postgres-{i}"}}])
    pod(f"postgres-{i}", "data", dict(labels, **{"apps.kubernetes.io/pod-index": str(i), "controller-revision-hash": rev_hash,
                                                  "statefulset.kubernetes.io/pod-name": f"postgres-{i}"}),
        pspec, n, ("StatefulSet", "postgres", sts_uid), 21 + i)

# Budgets and Services.
for ns, name, sel, key, val, healthy in [
    ("kube-system", "coredns", "coredns", "maxUnavailable", 1, 2),
    ("shop", "frontend", "frontend", "maxUnavailable", 1, 6),
    ("shop", "cart", "cart", "minAvailable", 2, 3),
    ("data", "postgres", "postgres", "maxUnavailable", 1, 3),
]:
    objects.append({
        "apiVersion": "policy/v1",
        "kind": "PodDisruptionBudget",
        "metadata": dict(meta(name, ns, created=50), generation=1),
        "spec": {key: val, "selector": {"matchLabels": {"app.kubernetes.io/name": sel}}},
        "status": {"currentHealthy": healthy, "desiredHealthy": healthy - 1 if key == "maxUnavailable" else val,
                   "disruptionsAllowed": 1, "expectedPods": healthy, "observedGeneration": 1},
    })
for ns, name, sel, port, headless in [
    ("kube-system", "kube-dns", "coredns", 53, False),
    ("shop", "frontend", "frontend", 80, False),
    ("shop", "checkout", "checkout", 80, False),
    ("shop", "cart", "cart", 80, False),
    ("ml", "inference", "inference", 8080, False),
    ("data", "postgres", "postgres", 5432, True),
]:
    ip = "None" if headless else "172.20.%d.%d" % (rng.randint(0, 255), rng.randint(1, 254))
    objects.append({
        "apiVersion": "v1",
        "kind": "Service",
        "metadata": meta(name, ns, {"app.kubernetes.io/name": sel}, created=50),
        "spec": {
            "clusterIP": ip,
            "clusterIPs": [ip],
            "internalTrafficPolicy": "Cluster",
            "ipFamilies": ["IPv4"],
            "ipFamilyPolicy": "SingleStack",
            "ports": [{"name": "tcp", "port": port, "protocol": "TCP", "targetPort": port if port != 80 else 8080}],
            "selector": {"app.kubernetes.io/name": sel},
            "sessionAffinity": "None",
            "type": "ClusterIP",
        },
        "status": {"loadBalancer": {}},
    })

# kubectl lists by resource in the order asked, each sorted by namespace and name.
ORDER = ["Node", "Deployment", "ReplicaSet", "StatefulSet", "DaemonSet", "Pod", "PodDisruptionBudget", "Service", "PriorityClass"]
objects.sort(key=lambda o: (ORDER.index(o["kind"]), o["metadata"].get("namespace", ""), o["metadata"]["name"]))
doc = {"apiVersion": "v1", "items": objects, "kind": "List", "metadata": {"resourceVersion": ""}}
head = ("# `kubectl get nodes,deployments,replicasets,statefulsets,daemonsets,pods,pdb,svc,priorityclasses -A -o yaml`\n"
        "# of a mid-sized cluster: three zones, 12 general nodes and a GPU pool of 3 (nvidia.com/gpu,\n"
        "# tainted), shop/checkout mid-rollout (revisions 3 and 4), a StatefulSet, DaemonSets, PDBs;\n"
        "# every pod bound where it runs. Written by scripts/example-cluster.py.\n")
text = head + yaml.safe_dump(doc, sort_keys=True, default_flow_style=False, width=1000)
for path in sys.argv[1:]:
    with open(path, "w") as f:
        f.write(text)
print(f"{len(nodes)} nodes, {sum(1 for o in objects if o['kind'] == 'Pod')} pods, {len(text)} bytes", file=sys.stderr)
for n in nodes:
    print(f"  {n['name']} {n['zone']} {n['pool']}: {n['upods']} pods, {n['ucpu']}m, {n['umem'] >> 20}Mi, gpu {n['ugpu']}/{n['gpu']}", file=sys.stderr)
