//! Namespaces, as Kubernetes scopes names and selectors by them.
//!
//! **Identity.** Deployments, DaemonSets, bare Pods, PodDisruptionBudgets and
//! Services are namespaced; Nodes and PriorityClasses are cluster-scoped. A
//! namespaced object's name in the engine is its *key*: `NAME` in the
//! namespace `default`, `NAMESPACE/NAME` in any other (the way kubectl writes
//! a namespaced name, `types.NamespacedName`). So `web` and `shop/web` are two
//! Deployments, a pod of `shop/web` is `shop/web-0`, and everything that
//! existed before namespaces (scenarios, links, events) keeps its names. A
//! lookup also takes the explicit `default/NAME`. A namespace is a DNS-1123
//! label (`ValidateNamespaceName`), as Kubernetes requires.
//!
//! **Selectors.** Kubernetes matches a PodDisruptionBudget's, a Service's and
//! a topology spread constraint's selector against the pods of the object's
//! own namespace only, and an inter-pod (anti-)affinity term against the
//! pods of the namespaces the term names (below). The engine does this with
//! labels that nobody can write: when a pod template is admitted, it gets
//! `~ns:kubernetes.io/metadata.name=<its namespace>` and, for each label of
//! its Namespace, `~ns:<key>=<value>` (a label key cannot contain `~`, so
//! label validation refuses them anywhere a user writes labels); when a
//! selector is admitted, it gets the requirement that says which namespaces
//! it reaches. Every matcher (the scheduler's plugins and indexes, the
//! budgets, the Services, the verifiers) then applies Kubernetes' rule
//! without knowing about namespaces. The reserved labels are removed from
//! everything shown ([`strip_template`], [`strip_selector`], a selector's
//! `Display`).
//!
//! **Affinity terms** (`PodAffinityTerm`, Kubernetes API reference): the
//! term applies to the union of the namespaces listed in `namespaces` and
//! those whose Namespace labels `namespaceSelector` matches; with neither
//! (an empty list and no selector) it applies to the pod's own namespace,
//! and an empty `namespaceSelector` (`{}`) selects every namespace. Every
//! Namespace carries the label `kubernetes.io/metadata.name` with its name
//! (the NamespaceDefaultLabelName feature, GA in Kubernetes 1.22). A
//! namespaceSelector alone, or a list alone, is evaluated for every pod as
//! it is (a Namespace's labels are fixed when it is created, before the
//! objects in it). A term with both a list and a non-empty selector (a
//! union of two label conditions, which is not one selector) is written as
//! the list of the namespaces it reaches: those listed and those that exist
//! whose labels the selector matches; and when a Namespace is created
//! later, every admitted term whose selector matches it takes it into its
//! list (`Cluster::namespace_created`), so such a term reaches the
//! Namespace's pods as Kubernetes' selector, evaluated against the
//! namespaces as they are, does. This is exact because a Namespace exists
//! before any object in it, its labels never change, and no Namespace is
//! deleted: when one appears no pod of it exists yet, so widening the lists
//! changes no count, only what later pods of it will match.

use alloc::collections::BTreeMap;
use alloc::format;
use alloc::string::{String, ToString};
use alloc::vec::Vec;

use crate::model::{
    validate_name_as, AffinityTerm, LabelSelectorRequirement, Labels, NameRule, PodTemplate,
    Selector, SelectorOperator,
};
use crate::util::error::Error;
use crate::util::limits::quoted;

/// The namespace of an object that names none.
pub const DEFAULT_NAMESPACE: &str = "default";

/// The label every Namespace carries with its own name.
pub const NAMESPACE_NAME_LABEL: &str = "kubernetes.io/metadata.name";

/// The prefix of the labels only admission writes (see the module doc).
/// `~` sorts after every character a label key may hold, so these come last
/// in a label map and never become a selector's first pair.
pub(crate) const RESERVED_PREFIX: &str = "~ns:";

/// Whether a label key is one only admission writes.
pub fn is_reserved(key: &str) -> bool {
    key.starts_with(RESERVED_PREFIX)
}

fn reserved(key: &str) -> String {
    format!("{RESERVED_PREFIX}{key}")
}

/// `(namespace, name)` of an object key: `shop/web` is `("shop", "web")`,
/// `web` is `("default", "web")`.
pub fn split(key: &str) -> (&str, &str) {
    match key.split_once('/') {
        Some((ns, name)) => (ns, name),
        None => (DEFAULT_NAMESPACE, key),
    }
}

/// The key of `name` in `namespace`: the name alone in `default` (or an
/// empty namespace), else `namespace/name`.
pub fn qualify(namespace: &str, name: &str) -> String {
    if namespace.is_empty() || namespace == DEFAULT_NAMESPACE {
        name.to_string()
    } else {
        format!("{namespace}/{name}")
    }
}

/// The key a lookup means: `default/web` is `web`; anything else as given.
pub fn canonical(key: &str) -> &str {
    key.strip_prefix("default/").unwrap_or(key)
}

/// The namespaced name as kubectl prints it in messages: always with the
/// namespace (`default/web-0`).
pub fn full_name(key: &str) -> String {
    let (ns, name) = split(key);
    format!("{ns}/{name}")
}

/// Kubernetes' rule for a namespace's name (ValidateNamespaceName: a
/// DNS-1123 label).
pub fn validate_namespace(ns: &str) -> Result<(), Error> {
    validate_name_as(ns, "namespace", NameRule::Dns1123Label)
}

/// Checks an object key: its namespace (when it has one) is a DNS-1123
/// label and its name follows `rule`; `default/NAME` is refused, since the
/// default namespace is written without a prefix.
pub fn validate_key(key: &str, kind: &str, rule: NameRule) -> Result<(), Error> {
    if let Some((ns, name)) = key.split_once('/') {
        if ns == DEFAULT_NAMESPACE {
            return Err(Error::Invalid(format!(
                "{kind} name {}: an object of the namespace default is named without the prefix; expected {}",
                quoted(key),
                quoted(name)
            )));
        }
        validate_namespace(ns).map_err(|e| match e {
            Error::Invalid(m) => Error::Invalid(format!("{kind} {}: {m}", quoted(key))),
            e => e,
        })?;
        validate_name_as(name, kind, rule)
    } else {
        validate_name_as(key, kind, rule)
    }
}

/// A `v1 Namespace`: a name and the labels that namespaceSelectors read.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct NamespaceSpec {
    pub name: String,
    /// Its labels, without `kubernetes.io/metadata.name` (every Namespace
    /// has that one, with its name).
    pub labels: Labels,
}

impl NamespaceSpec {
    pub fn new(name: &str) -> Self {
        NamespaceSpec {
            name: name.to_string(),
            labels: Labels::new(),
        }
    }

    pub fn with_label(mut self, k: &str, v: &str) -> Self {
        self.labels.insert(k.to_string(), v.to_string());
        self
    }

    pub fn validate(&self) -> Result<(), Error> {
        validate_namespace(&self.name)?;
        crate::model::validate_labels(&self.labels, "namespace label")?;
        if let Some(v) = self.labels.get(NAMESPACE_NAME_LABEL) {
            if v != &self.name {
                return Err(Error::Invalid(format!(
                    "namespace {}: label {NAMESPACE_NAME_LABEL} is {}; expected the namespace's own name (Kubernetes sets it)",
                    self.name,
                    quoted(v)
                )));
            }
        }
        Ok(())
    }

    /// The labels a namespaceSelector sees: its own and the automatic one.
    pub fn effective_labels(&self) -> Labels {
        let mut l = self.labels.clone();
        l.insert(NAMESPACE_NAME_LABEL.to_string(), self.name.clone());
        l
    }
}

/// Validates a term's `namespaces` and `namespaceSelector` (`what` names the term).
pub(crate) fn validate_term_scope(t: &AffinityTerm, what: &str) -> Result<(), Error> {
    if t.namespaces.len() > crate::model::MAX_LIST {
        return Err(Error::Invalid(format!(
            "{what}: {} namespaces is more than the limit of {}; expected at most {}",
            t.namespaces.len(),
            crate::model::MAX_LIST,
            crate::model::MAX_LIST
        )));
    }
    for ns in &t.namespaces {
        validate_namespace(ns)?;
    }
    if let Some(s) = &t.namespace_selector {
        s.validate("namespaceSelector")?;
    }
    Ok(())
}

/// The selector without the reserved requirements admission added.
pub fn strip_selector(s: &Selector) -> Selector {
    Selector {
        match_labels: s
            .match_labels
            .iter()
            .filter(|(k, _)| !is_reserved(k))
            .map(|(k, v)| (k.clone(), v.clone()))
            .collect(),
        match_expressions: s
            .match_expressions
            .iter()
            .filter(|r| !is_reserved(&r.key))
            .cloned()
            .collect(),
    }
}

/// The template as it was declared: without the reserved labels and
/// requirements admission added.
pub fn strip_template(t: &PodTemplate) -> PodTemplate {
    let mut t = t.clone();
    t.labels.retain(|k, _| !is_reserved(k));
    for term in t.affinity.iter_mut().chain(t.anti_affinity.iter_mut()) {
        term.selector = strip_selector(&term.selector);
    }
    for w in t
        .preferred_affinity
        .iter_mut()
        .chain(t.preferred_anti_affinity.iter_mut())
    {
        w.term.selector = strip_selector(&w.term.selector);
    }
    for c in &mut t.topology_spread {
        c.selector = strip_selector(&c.selector);
    }
    t
}

/// `sel` restricted to the pods of `namespace` (a budget's, a Service's, a
/// spread constraint's selector).
pub(crate) fn own_namespace(sel: &Selector, namespace: &str) -> Selector {
    let mut s = strip_selector(sel);
    s.match_labels
        .insert(reserved(NAMESPACE_NAME_LABEL), namespace.to_string());
    s
}

/// The term with the requirement that says which namespaces' pods it counts.
fn admit_term(
    term: &AffinityTerm,
    namespace: &str,
    known: &BTreeMap<String, Labels>,
) -> AffinityTerm {
    let mut t = term.clone();
    let mut s = strip_selector(&term.selector);
    match (&term.namespace_selector, term.namespaces.is_empty()) {
        // Neither: the pod's own namespace.
        (None, true) => {
            s.match_labels
                .insert(reserved(NAMESPACE_NAME_LABEL), namespace.to_string());
        }
        // `{}` selects every namespace: the union is every namespace too.
        (Some(ns_sel), _) if ns_sel.is_empty() => {}
        (None, false) => s.match_expressions.push(in_names(&term.namespaces)),
        (Some(ns_sel), true) => {
            for (k, v) in &ns_sel.match_labels {
                s.match_labels.insert(reserved(k), v.clone());
            }
            for r in &ns_sel.match_expressions {
                let mut r = r.clone();
                r.key = reserved(&r.key);
                s.match_expressions.push(r);
            }
        }
        (Some(ns_sel), false) => {
            // The union of a list and a label condition, resolved against
            // the namespaces that exist now (see the module doc).
            let mut names: Vec<String> = term.namespaces.clone();
            for (name, labels) in known {
                let mut l = labels.clone();
                l.insert(NAMESPACE_NAME_LABEL.to_string(), name.clone());
                if ns_sel.matches(&l) {
                    names.push(name.clone());
                }
            }
            names.sort();
            names.dedup();
            s.match_expressions.push(in_names(&names));
        }
    }
    t.selector = s;
    t
}

/// Adds namespace `name` (with `labels`, its own name label included) to
/// the namespace list of an admitted term written from both `namespaces` and
/// a non-empty namespaceSelector that matches it. Whether it changed.
pub(crate) fn widen_term(term: &mut AffinityTerm, name: &str, labels: &Labels) -> bool {
    let Some(ns_sel) = &term.namespace_selector else {
        return false;
    };
    if term.namespaces.is_empty() || ns_sel.is_empty() || !ns_sel.matches(labels) {
        return false;
    }
    let key = reserved(NAMESPACE_NAME_LABEL);
    let Some(req) = term
        .selector
        .match_expressions
        .iter_mut()
        .find(|r| r.key == key && r.operator == SelectorOperator::In)
    else {
        return false;
    };
    match req.values.binary_search_by(|v| v.as_str().cmp(name)) {
        Ok(_) => false,
        Err(at) => {
            req.values.insert(at, name.to_string());
            true
        }
    }
}

fn in_names(names: &[String]) -> LabelSelectorRequirement {
    LabelSelectorRequirement {
        key: reserved(NAMESPACE_NAME_LABEL),
        operator: SelectorOperator::In,
        values: names.to_vec(),
    }
}

/// The template of a pod in `namespace` (whose Namespace has `ns_labels`)
/// as the engine keeps it: the reserved labels added, every selector scoped.
/// Admitting an admitted template gives it back unchanged.
pub(crate) fn admit_template(
    t: &PodTemplate,
    namespace: &str,
    ns_labels: &Labels,
    known: &BTreeMap<String, Labels>,
) -> PodTemplate {
    let mut t = strip_template(t);
    for (k, v) in ns_labels {
        t.labels.insert(reserved(k), v.clone());
    }
    t.labels
        .insert(reserved(NAMESPACE_NAME_LABEL), namespace.to_string());
    for term in t.affinity.iter_mut().chain(t.anti_affinity.iter_mut()) {
        *term = admit_term(term, namespace, known);
    }
    for w in t
        .preferred_affinity
        .iter_mut()
        .chain(t.preferred_anti_affinity.iter_mut())
    {
        w.term = admit_term(&w.term, namespace, known);
    }
    // PodTopologySpread counts the pods of the pod's own namespace
    // (countPodsMatchSelector in kube-scheduler's podtopologyspread skips
    // pods whose namespace differs).
    for c in &mut t.topology_spread {
        c.selector = own_namespace(&c.selector, namespace);
    }
    t
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::quantity::MIB;
    use crate::model::{labels, Resources};

    #[test]
    fn keys_split_and_qualify() {
        assert_eq!(split("web"), ("default", "web"));
        assert_eq!(split("shop/web-0"), ("shop", "web-0"));
        assert_eq!(qualify("default", "web"), "web");
        assert_eq!(qualify("shop", "web"), "shop/web");
        assert_eq!(canonical("default/web"), "web");
        assert_eq!(full_name("web-0"), "default/web-0");
        assert!(validate_key("shop/web", "app", NameRule::Dns1123Subdomain).is_ok());
        for bad in [
            "default/web",
            "Shop/web",
            "a.b/web",
            "/web",
            "shop/",
            "a/b/c",
        ] {
            let e = validate_key(bad, "app", NameRule::Dns1123Subdomain).unwrap_err();
            assert!(e.to_string().contains("expected"), "{bad}: {e}");
        }
    }

    #[test]
    fn admission_scopes_selectors_and_strips_back() {
        let sel = Selector::new(&[("app", "web")]);
        let t = PodTemplate::new(Resources::new(1, MIB))
            .with_label("app", "web")
            .with_anti_affinity(AffinityTerm::new(sel.clone(), None));
        let a = admit_template(&t, "shop", &labels(&[("team", "x")]), &BTreeMap::new());
        assert_eq!(a.labels.len(), 3);
        assert_eq!(strip_template(&a), t);
        assert_eq!(
            admit_template(&a, "shop", &labels(&[("team", "x")]), &BTreeMap::new()),
            a
        );
        let term = &a.anti_affinity[0].selector;
        assert!(term.matches(&a.labels));
        let other = admit_template(&t, "blog", &Labels::new(), &BTreeMap::new());
        assert!(!term.matches(&other.labels));
        assert_eq!(term.to_string(), "app=web");
    }
}
