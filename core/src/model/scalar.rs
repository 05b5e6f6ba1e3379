//! Scalar resources: every resource NodeResourcesFit counts besides cpu,
//! memory and pods. Extended resources (`nvidia.com/gpu`, `amd.com/gpu`:
//! any domain-qualified name outside the `kubernetes.io` domains),
//! `ephemeral-storage` and `hugepages-<size>`, as kube-scheduler's
//! `Resource.ScalarResources` keeps them (framework/types.go), except that
//! ephemeral storage is kept here with them (Kubernetes gives it a field of
//! its own; the filter checks it the same way).
//!
//! The common pod and node have none, so a [`Scalars`] is a small list
//! sorted by name that costs one empty `Vec` (no allocation) when empty.

use alloc::string::{String, ToString};
use alloc::vec::Vec;
use core::fmt;

/// The resource name of ephemeral storage (`v1.ResourceEphemeralStorage`).
pub const EPHEMERAL_STORAGE: &str = "ephemeral-storage";
/// The prefix of a huge page resource (`v1.ResourceHugePagesPrefix`).
pub const HUGEPAGES_PREFIX: &str = "hugepages-";
/// The most scalar resources one node or pod may name (Kubernetes has no
/// such bound; this keeps a list's cost small and known).
pub const MAX_SCALARS: usize = 64;

/// Amounts of scalar resources, in their own units (bytes for
/// ephemeral-storage and huge pages, whole units for extended resources),
/// sorted by name, each name once, no zero amounts kept.
#[derive(Clone, Default, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct Scalars(Vec<(String, u64)>);

impl fmt::Debug for Scalars {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_map()
            .entries(self.0.iter().map(|(k, v)| (k, v)))
            .finish()
    }
}

impl fmt::Display for Scalars {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        for (i, (k, v)) in self.0.iter().enumerate() {
            if i > 0 {
                f.write_str(", ")?;
            }
            write!(f, "{k} {}", format_amount(k, *v))?;
        }
        Ok(())
    }
}

/// An amount as kubectl would print it: bytes resources in binary units,
/// counts as numbers.
pub fn format_amount(name: &str, v: u64) -> String {
    if is_bytes(name) {
        crate::model::quantity::format_memory_bytes(v)
    } else {
        v.to_string()
    }
}

/// Whether the resource is measured in bytes (ephemeral storage, huge pages).
pub fn is_bytes(name: &str) -> bool {
    name == EPHEMERAL_STORAGE || name.starts_with(HUGEPAGES_PREFIX)
}

impl Scalars {
    pub const fn new() -> Self {
        Scalars(Vec::new())
    }

    pub fn is_empty(&self) -> bool {
        self.0.is_empty()
    }

    pub fn len(&self) -> usize {
        self.0.len()
    }

    /// The resources and their amounts, sorted by name.
    pub fn iter(&self) -> impl Iterator<Item = (&str, u64)> + '_ {
        self.0.iter().map(|(k, v)| (k.as_str(), *v))
    }

    pub fn get(&self, name: &str) -> u64 {
        match self.0.binary_search_by(|(k, _)| k.as_str().cmp(name)) {
            Ok(i) => self.0[i].1,
            Err(_) => 0,
        }
    }

    /// Sets `name` to `v` (removes it at 0).
    pub fn set(&mut self, name: &str, v: u64) {
        match self.0.binary_search_by(|(k, _)| k.as_str().cmp(name)) {
            Ok(i) if v == 0 => {
                self.0.remove(i);
            }
            Ok(i) => self.0[i].1 = v,
            Err(_) if v == 0 => {}
            Err(i) => self.0.insert(i, (name.to_string(), v)),
        }
    }

    pub fn with(mut self, name: &str, v: u64) -> Self {
        self.set(name, v);
        self
    }

    /// Adds `o` to these, saturating.
    pub fn add(&mut self, o: &Scalars) {
        for (k, v) in o.iter() {
            let cur = self.get(k);
            self.set(k, cur.saturating_add(v));
        }
    }

    /// Takes `o` from these, saturating at 0.
    pub fn sub(&mut self, o: &Scalars) {
        for (k, v) in o.iter() {
            let cur = self.get(k);
            self.set(k, cur.saturating_sub(v));
        }
    }

    /// Each resource the larger of the two (`max` per resource, as
    /// computePodResourceRequest takes init containers).
    pub fn max_with(&mut self, o: &Scalars) {
        for (k, v) in o.iter() {
            if v > self.get(k) {
                self.set(k, v);
            }
        }
    }

    /// The resources of `self` (requests) for which `used + self` exceeds
    /// `alloc`, in name order (the order kube-scheduler's fitsRequest walks
    /// `ScalarResources`, a Go map, is not fixed; sorted is the stable choice).
    pub fn insufficient<'a>(
        &'a self,
        used: &'a Scalars,
        alloc: &'a Scalars,
    ) -> impl Iterator<Item = &'a str> + 'a {
        self.iter()
            .filter(move |(k, v)| used.get(k).saturating_add(*v) > alloc.get(k))
            .map(|(k, _)| k)
    }

    /// Every resource of `self` fits: `used + self <= alloc`.
    #[inline]
    pub fn fits(&self, used: &Scalars, alloc: &Scalars) -> bool {
        self.is_empty() || self.insufficient(used, alloc).next().is_none()
    }
}

/// What kind of resource a name is, for the scheduler and the import.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ScalarKind {
    EphemeralStorage,
    HugePages,
    Extended,
}

/// Classifies a resource name that is not cpu, memory or pods, by
/// Kubernetes' rules (pkg/apis/core/helper: `IsExtendedResourceName`:
/// qualified with a domain, not in the `kubernetes.io` domains, and
/// `requests.<name>` a valid qualified name; `IsHugePageResourceName`).
/// The error says what is wrong with the name.
pub fn classify(name: &str) -> Result<ScalarKind, String> {
    if name == EPHEMERAL_STORAGE {
        return Ok(ScalarKind::EphemeralStorage);
    }
    if let Some(size) = name.strip_prefix(HUGEPAGES_PREFIX) {
        return match crate::model::quantity::parse_memory_bytes(size) {
            Ok(n) if n > 0 => Ok(ScalarKind::HugePages),
            _ => Err(alloc::format!(
                "{name:?} is not a huge page resource; expected hugepages-<page size> such as hugepages-2Mi or hugepages-1Gi"
            )),
        };
    }
    let Some((domain, rest)) = name.split_once('/') else {
        return Err(alloc::format!(
            "{name:?} is not a resource Kubernetes knows; expected cpu, memory, pods, ephemeral-storage, hugepages-<size> or an extended resource such as nvidia.com/gpu"
        ));
    };
    if domain == "kubernetes.io" || domain.ends_with(".kubernetes.io") {
        return Err(alloc::format!(
            "{name:?} is in the kubernetes.io domain; expected an extended resource in a domain of its own, such as nvidia.com/gpu"
        ));
    }
    // A qualified name: a DNS subdomain prefix and a name of at most 63
    // characters, alphanumerics with '-', '_' or '.' inside.
    let subdomain_ok = !domain.is_empty()
        && domain.len() <= 253
        && domain.split('.').all(|l| {
            !l.is_empty()
                && l.len() <= 63
                && l.bytes()
                    .all(|b| b.is_ascii_lowercase() || b.is_ascii_digit() || b == b'-')
                && !l.starts_with('-')
                && !l.ends_with('-')
        });
    let name_ok = !rest.is_empty()
        && rest.len() <= 63
        && rest
            .bytes()
            .all(|b| b.is_ascii_alphanumeric() || b == b'-' || b == b'_' || b == b'.')
        && rest.as_bytes()[0].is_ascii_alphanumeric()
        && rest.as_bytes()[rest.len() - 1].is_ascii_alphanumeric();
    if !subdomain_ok || !name_ok {
        return Err(alloc::format!(
            "{name:?} is not a valid extended resource name; expected <domain>/<name> such as nvidia.com/gpu"
        ));
    }
    Ok(ScalarKind::Extended)
}

#[cfg(test)]
mod tests {
    use super::*;
    use alloc::format;
    use alloc::string::ToString;

    #[test]
    fn sorted_set_add_sub_and_fit() {
        let mut a = Scalars::new()
            .with("nvidia.com/gpu", 2)
            .with("amd.com/gpu", 1);
        assert_eq!(
            a.iter().collect::<Vec<_>>(),
            [("amd.com/gpu", 1), ("nvidia.com/gpu", 2)]
        );
        a.set("amd.com/gpu", 0);
        assert_eq!(a.len(), 1);
        let alloc = Scalars::new().with("nvidia.com/gpu", 4);
        let mut used = Scalars::new().with("nvidia.com/gpu", 2);
        assert!(a.fits(&used, &alloc));
        used.add(&a);
        assert!(!a.fits(&used, &alloc));
        assert_eq!(
            a.insufficient(&used, &alloc).collect::<Vec<_>>(),
            ["nvidia.com/gpu"]
        );
        used.sub(&a);
        used.sub(&a);
        used.sub(&a);
        assert!(used.is_empty());
        assert!(Scalars::new().fits(&used, &Scalars::new()));
        assert_eq!(alloc.to_string(), "nvidia.com/gpu 4");
        assert_eq!(format!("{:?}", Scalars::new()), "{}");
    }

    #[test]
    fn names_classified_as_kubernetes_does() {
        assert_eq!(classify("nvidia.com/gpu"), Ok(ScalarKind::Extended));
        assert_eq!(
            classify("alibabacloud.com/gpu-count"),
            Ok(ScalarKind::Extended)
        );
        assert_eq!(
            classify("ephemeral-storage"),
            Ok(ScalarKind::EphemeralStorage)
        );
        assert_eq!(classify("hugepages-2Mi"), Ok(ScalarKind::HugePages));
        assert!(classify("hugepages-x").is_err());
        assert!(classify("gpu").is_err());
        assert!(classify("kubernetes.io/gpu").is_err());
        assert!(classify("node.kubernetes.io/x").is_err());
        assert!(classify("Nvidia.com/gpu").is_err());
        assert!(classify("nvidia.com/-gpu").is_err());
    }
}
