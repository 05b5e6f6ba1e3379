//! A pod's host ports: `containers[].ports[]` entries with a `hostPort`
//! (and those of restartable "sidecar" init containers), as kube-scheduler
//! gathers them (`util.GetHostPorts`, pkg/scheduler/util/utils.go) for the
//! NodePorts plugin.

use alloc::format;
use alloc::string::{String, ToString};
use alloc::vec::Vec;
use core::fmt;

use crate::error::Error;

/// `ContainerPort.protocol` (core/v1 `Protocol`); TCP when unset, as the
/// API server defaults it.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum Protocol {
    #[default]
    Tcp,
    Udp,
    Sctp,
}

impl Protocol {
    /// The name Kubernetes writes.
    pub fn as_str(self) -> &'static str {
        match self {
            Protocol::Tcp => "TCP",
            Protocol::Udp => "UDP",
            Protocol::Sctp => "SCTP",
        }
    }

    /// The protocol named `s` (Kubernetes' names, case as written).
    pub fn parse(s: &str) -> Result<Protocol, Error> {
        match s {
            "TCP" => Ok(Protocol::Tcp),
            "UDP" => Ok(Protocol::Udp),
            "SCTP" => Ok(Protocol::Sctp),
            _ => Err(Error::invalid("port protocol", s, "one of TCP, UDP, SCTP")),
        }
    }
}

/// The host IP that binds every address (`DefaultBindAllHostIP`,
/// kube-scheduler framework/types.go): an empty `hostIP` means it.
pub const BIND_ALL_HOST_IP: &str = "0.0.0.0";

/// One host port a pod takes on its node: (protocol, hostIP, hostPort).
#[derive(Clone, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct HostPort {
    pub protocol: Protocol,
    /// The address as written, [`BIND_ALL_HOST_IP`] when none was given
    /// (kube-scheduler compares addresses as strings: only `0.0.0.0`
    /// stands for every address).
    pub host_ip: String,
    /// 1..=65535 (`hostPort: 0` is no host port).
    pub port: u16,
}

impl HostPort {
    /// A host port on every address.
    pub fn new(protocol: Protocol, port: u16) -> HostPort {
        HostPort {
            protocol,
            host_ip: BIND_ALL_HOST_IP.to_string(),
            port,
        }
    }

    /// The same port on one address (an empty one is every address).
    pub fn on(mut self, host_ip: &str) -> HostPort {
        self.host_ip = if host_ip.is_empty() {
            BIND_ALL_HOST_IP.to_string()
        } else {
            host_ip.to_string()
        };
        self
    }

    /// Whether it binds every address.
    pub fn binds_all(&self) -> bool {
        self.host_ip == BIND_ALL_HOST_IP
    }

    /// Whether this port and `other` cannot both be taken on one node
    /// (`HostPortInfo.CheckConflict`): the same protocol and port, and the
    /// same address or either of them on every address.
    pub fn conflicts(&self, other: &HostPort) -> bool {
        self.protocol == other.protocol
            && self.port == other.port
            && (self.host_ip == other.host_ip || self.binds_all() || other.binds_all())
    }

    /// Kubernetes' validation: a port in 1..=65535 and an IP address.
    pub fn validate(&self, app: &str) -> Result<(), Error> {
        if self.port == 0 {
            return Err(Error::Invalid(format!(
                "app {app}: host port 0; expected a hostPort in 1..=65535 (0 is no host port)"
            )));
        }
        if self.host_ip.parse::<core::net::IpAddr>().is_err() {
            return Err(Error::Invalid(format!(
                "app {app}: hostIP {:?} of host port {}; expected an IP address",
                self.host_ip, self.port
            )));
        }
        Ok(())
    }
}

impl fmt::Debug for HostPort {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        fmt::Display::fmt(self, f)
    }
}

/// `TCP/0.0.0.0/8080`, as kube-scheduler's tests write them.
impl fmt::Display for HostPort {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "{}/{}/{}",
            self.protocol.as_str(),
            self.host_ip,
            self.port
        )
    }
}

/// The host ports the pods bound to one node take (kube-scheduler's
/// `HostPortInfo`), each with how many pods take it. Kubernetes keeps a
/// set, so a port two pods bound by nodeName both take is freed when the
/// first leaves; counting keeps it taken until the last leaves (the two
/// agree whenever no two pods of a node conflict, which the filter keeps).
/// Empty (no allocation) on a node without such pods.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct UsedPorts(Vec<(HostPort, u32)>);

impl UsedPorts {
    /// A pod taking `ports` came to the node (`HostPortInfo.Add`).
    pub fn add(&mut self, ports: &[HostPort]) {
        for p in ports {
            match self.0.iter_mut().find(|(q, _)| q == p) {
                Some((_, n)) => *n += 1,
                None => self.0.push((p.clone(), 1)),
            }
        }
    }

    /// A pod taking `ports` left the node (`HostPortInfo.Remove`).
    pub fn remove(&mut self, ports: &[HostPort]) {
        for p in ports {
            if let Some(at) = self.0.iter().position(|(q, _)| q == p) {
                self.0[at].1 -= 1;
                if self.0[at].1 == 0 {
                    self.0.swap_remove(at);
                }
            }
        }
    }

    /// Whether `p` conflicts with a port taken (`HostPortInfo.CheckConflict`).
    pub fn conflicts(&self, p: &HostPort) -> bool {
        self.0.iter().any(|(q, _)| q.conflicts(p))
    }

    /// Distinct (protocol, hostIP, port) entries taken (`HostPortInfo.Len`).
    pub fn len(&self) -> usize {
        self.0.len()
    }

    pub fn is_empty(&self) -> bool {
        self.0.is_empty()
    }

    /// The ports taken, each with how many pods take it.
    pub fn iter(&self) -> impl Iterator<Item = (&HostPort, u32)> {
        self.0.iter().map(|(p, n)| (p, *n))
    }
}
