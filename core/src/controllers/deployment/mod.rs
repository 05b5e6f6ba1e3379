//! The Deployment controller (`pkg/controller/deployment`): replicas,
//! rolling updates over revisions (each revision is a ReplicaSet) and the
//! rollout status.

pub mod rollout;
