//! NodePorts (kube-scheduler `framework/plugins/nodeports/node_ports.go`).
//! Filter: a pod's host ports (protocol, hostIP, hostPort) must not
//! conflict with those the pods on the node already take; `0.0.0.0` (an
//! empty hostIP) conflicts with every address. PreFilter skips a pod
//! without host ports, so for most pods the plugin does nothing. No Score.
//!
//! The node's book ([`UsedPorts`], kube-scheduler's `NodeInfo.UsedPorts`)
//! is kept by the cluster when a pod binds or leaves (`state.rs`); the
//! filter on a node is `filtering.rs`.

mod filtering;
mod state;

/// Why the Filter refused a node: this host port of the pod's (the first,
/// in its order) conflicts with one taken there. Kubernetes' reason does
/// not name it ([`REASON`]); the detail does. Preemption may free it:
/// Unschedulable (node_ports.go).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Taken(pub HostPort);

impl super::FilterReason for Taken {
    fn reasons(&self) -> alloc::vec::Vec<alloc::string::String> {
        alloc::vec![alloc::string::String::from(REASON)]
    }
    fn code(&self) -> crate::scheduler::Code {
        crate::scheduler::Code::Unschedulable
    }
    fn detail(&self) -> Option<alloc::string::String> {
        Some(alloc::format!("host port {} is taken", self.0))
    }
}

use crate::model::ports::HostPort;
/// The node's book (kube-scheduler's `HostPortInfo`), kept with the
/// model's ports so that the cluster's books can hold it.
pub use crate::model::ports::UsedPorts;

/// The filter's reason (`ErrReason`), with status Unschedulable: removing
/// the pods that hold the port frees it, so DefaultPreemption considers
/// the node.
pub const REASON: &str = "node(s) didn't have free ports for the requested pod ports";

/// Whether a pod wanting `want` fits a node whose pods take `used`
/// (`fitsPorts`): no wanted port conflicts with a used one.
pub fn fits(want: &[HostPort], used: &UsedPorts) -> bool {
    first_conflict(want, used).is_none()
}

/// The first of the pod's ports that conflicts with one taken (what
/// explain names; Kubernetes' reason does not).
pub fn first_conflict<'a>(want: &'a [HostPort], used: &UsedPorts) -> Option<&'a HostPort> {
    want.iter().find(|p| used.conflicts(p))
}

#[cfg(test)]
mod tests {
    //! kube-scheduler's tables: `TestNodePorts` and `TestFits`
    //! (nodeports/node_ports_test.go), and `TestHostPortInfo_AddRemove` and
    //! `TestHostPortInfo_Check` (kube-scheduler framework/types_test.go),
    //! row by row with their names.

    use super::*;
    use crate::model::ports::{HostPort, Protocol};
    use alloc::vec::Vec;

    /// `"UDP/127.0.0.1/8080"` as the Go tests' `newPod` reads it (an empty
    /// protocol is TCP and an empty address every address, as sanitize
    /// makes them).
    fn port(s: &str) -> HostPort {
        let mut it = s.split('/');
        let (proto, ip, port) = (it.next().unwrap(), it.next().unwrap(), it.next().unwrap());
        let protocol = if proto.is_empty() {
            Protocol::Tcp
        } else {
            Protocol::parse(proto).unwrap()
        };
        HostPort::new(protocol, port.parse().unwrap()).on(ip)
    }

    fn ports(v: &[&str]) -> Vec<HostPort> {
        v.iter().map(|s| port(s)).collect()
    }

    fn node(v: &[&str]) -> UsedPorts {
        let mut u = UsedPorts::default();
        u.add(&ports(v));
        u
    }

    /// TestNodePorts: (name, pod's ports, node's pod's ports, fits). A pod
    /// without ports is skipped at PreFilter (the first row); the init
    /// container rows are the manifest reader's (`k8s` crate tests): a
    /// sidecar's ports count, an ordinary init container's do not.
    #[test]
    fn node_ports_table() {
        let rows: &[(&str, &[&str], &[&str], bool)] = &[
            ("skip filter", &[], &[], true),
            (
                "other port",
                &["UDP/127.0.0.1/8080"],
                &["UDP/127.0.0.1/9090"],
                true,
            ),
            (
                "same udp port",
                &["UDP/127.0.0.1/8080"],
                &["UDP/127.0.0.1/8080"],
                false,
            ),
            (
                "same tcp port",
                &["TCP/127.0.0.1/8080"],
                &["TCP/127.0.0.1/8080"],
                false,
            ),
            (
                "different host ip",
                &["TCP/127.0.0.1/8080"],
                &["TCP/127.0.0.2/8080"],
                true,
            ),
            (
                "different protocol",
                &["UDP/127.0.0.1/8080"],
                &["TCP/127.0.0.1/8080"],
                true,
            ),
            (
                "second udp port conflict",
                &["UDP/127.0.0.1/8000", "UDP/127.0.0.1/8080"],
                &["UDP/127.0.0.1/8080"],
                false,
            ),
            (
                "first tcp port conflict",
                &["TCP/127.0.0.1/8001", "UDP/127.0.0.1/8080"],
                &["TCP/127.0.0.1/8001", "UDP/127.0.0.1/8081"],
                false,
            ),
            (
                "first tcp port conflict due to 0.0.0.0 hostIP",
                &["TCP/0.0.0.0/8001"],
                &["TCP/127.0.0.1/8001"],
                false,
            ),
            (
                "TCP hostPort conflict due to 0.0.0.0 hostIP",
                &["TCP/10.0.10.10/8001", "TCP/0.0.0.0/8001"],
                &["TCP/127.0.0.1/8001"],
                false,
            ),
            (
                "second tcp port conflict to 0.0.0.0 hostIP",
                &["TCP/127.0.0.1/8001"],
                &["TCP/0.0.0.0/8001"],
                false,
            ),
            (
                "second different protocol",
                &["UDP/127.0.0.1/8001"],
                &["TCP/0.0.0.0/8001"],
                true,
            ),
            (
                "UDP hostPort conflict due to 0.0.0.0 hostIP",
                &["UDP/127.0.0.1/8001"],
                &["TCP/0.0.0.0/8001", "UDP/0.0.0.0/8001"],
                false,
            ),
        ];
        for &(name, want, used, ok) in rows {
            assert_eq!(fits(&ports(want), &node(used)), ok, "{name}");
        }
    }

    /// TestFits.
    #[test]
    fn fits_table() {
        let rows: &[(&str, &[&str], &[&str], bool)] = &[
            (
                "non-conflicting ports",
                &["TCP/127.0.0.1/80"],
                &["TCP/127.0.0.1/9090"],
                true,
            ),
            (
                "multiple non-conflicting ports",
                &[
                    "TCP/127.0.0.1/80",
                    "TCP/127.0.1.1/80",
                    "TCP/127.0.1.1/90",
                    "TCP/127.0.1.1/100",
                ],
                &[
                    "TCP/127.0.0.1/9090",
                    "TCP/127.0.0.1/9191",
                    "TCP/127.0.1.1/8080",
                ],
                true,
            ),
            (
                "same ports on different protocols",
                &["TCP/127.0.0.1/80"],
                &["UDP/127.0.0.1/80"],
                true,
            ),
            (
                "conflicting ports",
                &["TCP/127.0.0.1/80"],
                &["TCP/127.0.0.1/80"],
                false,
            ),
            (
                "multiple ports, some conflicting",
                &[
                    "TCP/127.0.0.1/80",
                    "TCP/127.0.1.1/80",
                    "TCP/127.0.1.1/90",
                    "TCP/127.0.1.1/100",
                ],
                &[
                    "TCP/127.0.0.1/9090",
                    "TCP/127.0.1.1/90",
                    "TCP/127.0.1.1/8080",
                ],
                false,
            ),
        ];
        for &(name, want, used, ok) in rows {
            assert_eq!(fits(&ports(want), &node(used)), ok, "{name}");
        }
    }

    /// TestHostPortInfo_AddRemove (ports 0 and -1, which Add ignores, are
    /// no host port at all here: a template cannot hold them).
    #[test]
    fn add_remove_table() {
        let all = [
            "TCP/127.0.0.1/79",
            "UDP/127.0.0.1/80",
            "TCP/127.0.0.1/81",
            "TCP/127.0.0.1/82",
            "TCP/0.0.0.0/79",
            "UDP/0.0.0.0/80",
            "TCP/0.0.0.0/81",
            "TCP/0.0.0.0/82",
        ];
        let empty_names = [
            "/127.0.0.1/79",
            "UDP/127.0.0.1/80",
            "/127.0.0.1/81",
            "/127.0.0.1/82",
            "//79",
            "UDP//80",
            "//81",
            "//82",
        ];
        let rows: &[(&str, &[&str], &[&str], usize)] = &[
            ("normal add case", &all, &[], 8),
            (
                "empty ip and protocol add should work",
                &empty_names,
                &[],
                8,
            ),
            ("normal remove case", &all, &all, 0),
            (
                "empty ip and protocol remove should work",
                &all,
                &[
                    "/127.0.0.1/79",
                    "/127.0.0.1/81",
                    "/127.0.0.1/82",
                    "UDP/127.0.0.1/80",
                    "//79",
                    "//81",
                    "//82",
                    "UDP//80",
                ],
                0,
            ),
        ];
        for &(name, added, removed, len) in rows {
            let mut u = UsedPorts::default();
            for p in added {
                u.add(&[port(p)]);
            }
            for p in removed {
                u.remove(&[port(p)]);
            }
            assert_eq!(u.len(), len, "{name}");
        }
    }

    /// TestHostPortInfo_Check (the row whose port is 0 checks no port: a
    /// template cannot hold it).
    #[test]
    fn check_conflict_table() {
        let rows: &[(&str, &[&str], &str, bool)] = &[
            (
                "empty check should check 0.0.0.0 and TCP",
                &["TCP/127.0.0.1/80"],
                "//81",
                false,
            ),
            (
                "empty check should check 0.0.0.0 and TCP (conflicted)",
                &["TCP/127.0.0.1/80"],
                "//80",
                true,
            ),
            (
                "0.0.0.0 should check all registered IPs",
                &["TCP/127.0.0.1/80"],
                "TCP/0.0.0.0/80",
                true,
            ),
            (
                "0.0.0.0 with different protocol should be allowed",
                &["UDP/127.0.0.1/80"],
                "TCP/0.0.0.0/80",
                false,
            ),
            (
                "0.0.0.0 with different port should be allowed",
                &["TCP/127.0.0.1/79", "TCP/127.0.0.1/81", "TCP/127.0.0.1/82"],
                "TCP/0.0.0.0/80",
                false,
            ),
            (
                "normal ip should check all registered 0.0.0.0",
                &["TCP/0.0.0.0/80"],
                "TCP/127.0.0.1/80",
                true,
            ),
            (
                "normal ip with different port/protocol should be allowed (0.0.0.0)",
                &[
                    "TCP/0.0.0.0/79",
                    "UDP/0.0.0.0/80",
                    "TCP/0.0.0.0/81",
                    "TCP/0.0.0.0/82",
                ],
                "TCP/127.0.0.1/80",
                false,
            ),
            (
                "normal ip with different port/protocol should be allowed",
                &[
                    "TCP/127.0.0.1/79",
                    "UDP/127.0.0.1/80",
                    "TCP/127.0.0.1/81",
                    "TCP/127.0.0.1/82",
                ],
                "TCP/127.0.0.1/80",
                false,
            ),
        ];
        for &(name, added, check, conflict) in rows {
            assert_eq!(node(added).conflicts(&port(check)), conflict, "{name}");
        }
    }

    /// Counting, not a set: a port two pods take stays taken until both left.
    #[test]
    fn a_port_stays_taken_until_its_last_pod_leaves() {
        let p = ports(&["TCP/0.0.0.0/80"]);
        let mut u = UsedPorts::default();
        u.add(&p);
        u.add(&p);
        u.remove(&p);
        assert!(!fits(&p, &u));
        u.remove(&p);
        assert!(fits(&p, &u) && u.is_empty());
    }
}
