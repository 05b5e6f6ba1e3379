// Large manifest streams for the browser tests and tests/browser/import-perf.mjs.
//
// A cluster as `kubectl get nodes,deployments -o yaml` prints it, one
// document per object, with the status and managedFields a real one has
// (about 1.9 KB a node and 2.4 KB a Deployment).
export function bigStream(nodes, deployments, replicas = 3) {
  const docs = [];
  for (let i = 1; i <= nodes; i++) {
    const zone = ['a', 'b', 'c'][i % 3];
    docs.push(`apiVersion: v1
kind: Node
metadata:
  annotations:
    kubeadm.alpha.kubernetes.io/cri-socket: unix:///run/containerd/containerd.sock
    node.alpha.kubernetes.io/ttl: "0"
  creationTimestamp: "2024-05-01T10:00:00Z"
  labels:
    kubernetes.io/arch: amd64
    kubernetes.io/hostname: node-${i}
    kubernetes.io/os: linux
    topology.kubernetes.io/zone: zone-${zone}
  name: node-${i}
  resourceVersion: "${1000 + i}"
  uid: 6f1c2a0e-0000-4000-8000-${String(i).padStart(12, '0')}
spec:
  podCIDR: 10.244.${i % 256}.0/24
  podCIDRs:
  - 10.244.${i % 256}.0/24
status:
  addresses:
  - address: 172.18.${i % 256}.${i % 200 + 2}
    type: InternalIP
  allocatable:
    cpu: "16"
    ephemeral-storage: 102626232Ki
    memory: 65776800Ki
    pods: "110"
  capacity:
    cpu: "16"
    memory: 65879200Ki
    pods: "110"
  conditions:
  - lastHeartbeatTime: "2024-05-01T12:00:00Z"
    lastTransitionTime: "2024-05-01T10:00:00Z"
    message: kubelet has sufficient memory available
    reason: KubeletHasSufficientMemory
    status: "False"
    type: MemoryPressure
  - lastHeartbeatTime: "2024-05-01T12:00:00Z"
    lastTransitionTime: "2024-05-01T10:00:30Z"
    message: kubelet is posting ready status
    reason: KubeletReady
    status: "True"
    type: Ready
  nodeInfo:
    kubeletVersion: v1.30.0
    osImage: Debian GNU/Linux 12 (bookworm)
`);
  }
  for (let i = 1; i <= deployments; i++) {
    docs.push(`apiVersion: apps/v1
kind: Deployment
metadata:
  annotations:
    deployment.kubernetes.io/revision: "1"
  creationTimestamp: "2024-05-01T10:05:00Z"
  generation: 1
  labels:
    app: app-${i}
  managedFields:
  - apiVersion: apps/v1
    fieldsType: FieldsV1
    fieldsV1:
      f:spec:
        f:replicas: {}
        f:template:
          f:spec:
            f:containers:
              k:{"name":"main"}:
                .: {}
                f:image: {}
    manager: kubectl-client-side-apply
    operation: Update
    time: "2024-05-01T10:05:00Z"
  name: app-${i}
  namespace: default
  resourceVersion: "${200000 + i}"
spec:
  progressDeadlineSeconds: 600
  replicas: ${replicas}
  selector:
    matchLabels:
      app: app-${i}
  strategy:
    rollingUpdate:
      maxSurge: 25%
      maxUnavailable: 25%
    type: RollingUpdate
  template:
    metadata:
      labels:
        app: app-${i}
    spec:
      containers:
      - image: registry.example/app-${i}:1.0
        imagePullPolicy: IfNotPresent
        name: main
        resources:
          requests:
            cpu: 100m
            memory: 128Mi
      restartPolicy: Always
      securityContext: {}
status:
  availableReplicas: ${replicas}
  conditions:
  - lastTransitionTime: "2024-05-01T10:05:10Z"
    lastUpdateTime: "2024-05-01T10:05:10Z"
    message: Deployment has minimum availability.
    reason: MinimumReplicasAvailable
    status: "True"
    type: Available
  observedGeneration: 1
  readyReplicas: ${replicas}
  replicas: ${replicas}
`);
  }
  return docs.join('---\n');
}
