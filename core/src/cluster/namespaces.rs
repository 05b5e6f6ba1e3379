//! The cluster's namespaces: those declared and those made by an object
//! created in them, with their labels (the rules are `model/namespace.rs`).

use alloc::format;
use alloc::rc::Rc;
use alloc::string::{String, ToString};
use alloc::vec::Vec;

use crate::model::{Labels, PodTemplate};
use crate::util::error::Error;

/// The namespace of an object that names none.
use crate::model::namespace::*;

impl crate::cluster::Cluster {
    /// Creates a Namespace with its labels (`kubectl apply` of a
    /// Namespace). A namespace's labels are fixed once it exists (declared,
    /// or made by an object created in it with no labels): applying it
    /// again with the same labels changes nothing, with other labels it is
    /// refused. So a Namespace is declared before the objects in it (an
    /// import applies the Namespaces first).
    pub fn add_namespace(&mut self, spec: NamespaceSpec) -> Result<(), Error> {
        spec.validate()?;
        let mut labels = spec.labels;
        labels.remove(NAMESPACE_NAME_LABEL);
        self.check_namespace_labels(&spec.name, &labels)?;
        if let alloc::collections::btree_map::Entry::Vacant(e) =
            self.namespaces.entry(spec.name.clone())
        {
            e.insert(labels);
            self.namespace_created(&spec.name);
        }
        Ok(())
    }

    /// Whether namespace `name` may be declared with `labels` (without the
    /// automatic one): it does not exist, or has exactly these labels.
    pub(crate) fn check_namespace_labels(&self, name: &str, labels: &Labels) -> Result<(), Error> {
        match self.namespaces.get(name) {
            Some(have) if have != labels => {
                let show = |l: &Labels| {
                    if l.is_empty() {
                        String::from("no labels")
                    } else {
                        l.iter()
                            .map(|(k, v)| format!("{k}={v}"))
                            .collect::<Vec<_>>()
                            .join(",")
                    }
                };
                Err(Error::Invalid(format!(
                    "namespace {name} exists with {}; a namespace's labels are fixed when it is created (declare the Namespace before the objects in it); expected the same labels",
                    show(have)
                )))
            }
            _ => Ok(()),
        }
    }

    /// The namespaces that exist, with their labels (the automatic
    /// `kubernetes.io/metadata.name` included), by name.
    pub fn namespaces(&self) -> Vec<NamespaceSpec> {
        self.namespaces
            .iter()
            .map(|(n, l)| NamespaceSpec {
                name: n.clone(),
                labels: l.clone(),
            })
            .collect()
    }

    /// Makes the namespace of object key `key` exist (with no labels) if it
    /// does not yet.
    pub(crate) fn use_namespace(&mut self, key: &str) {
        let ns = split(key).0;
        if !self.namespaces.contains_key(ns) {
            self.namespaces.insert(ns.to_string(), Labels::new());
            self.namespace_created(ns);
        }
    }

    /// A Namespace has just been created (no object is in it yet): every
    /// admitted term with both `namespaces` and a namespaceSelector that
    /// matches it takes it into the list it was written as (see the module
    /// doc), and each revision whose template changed carries the terms of
    /// its new template from now on: its bound pods' carried counts move
    /// from the old terms to the new ones. What the pods of other namespaces
    /// match does not change, so no matching count does.
    pub(crate) fn namespace_created(&mut self, name: &str) {
        let mut labels = self.namespaces.get(name).cloned().unwrap_or_default();
        labels.insert(NAMESPACE_NAME_LABEL.to_string(), name.to_string());
        let mut changed: Vec<(usize, usize)> = Vec::new();
        for (c, ctl) in self.controllers.iter_mut().enumerate() {
            for (r, rev) in ctl.revisions.iter_mut().enumerate() {
                // Copied first when a snapshot or a batch shares it.
                let t = &mut Rc::make_mut(rev).template;
                let mut any = false;
                for term in t
                    .affinity
                    .iter_mut()
                    .chain(t.anti_affinity.iter_mut())
                    .chain(t.preferred_affinity.iter_mut().map(|w| &mut w.term))
                    .chain(t.preferred_anti_affinity.iter_mut().map(|w| &mut w.term))
                {
                    any |= widen_term(term, name, &labels);
                }
                if any {
                    changed.push((c, r));
                }
            }
        }
        for (c, r) in changed {
            let template = self.controllers[c].revisions[r].template.clone();
            let (aff, anti, pref, pref_anti) = self.carried_term_ids(&template);
            let bound: Vec<(u32, crate::cluster::NodeId)> = self.controllers[c]
                .pods
                .values()
                .filter_map(|&k| {
                    let p = self.pod(k);
                    (p.revision as usize == r + 1).then_some((k, p.node()?))
                })
                .collect();
            // The matching counts stay: new terms counted the pods that
            // match them when they were created, old ones keep theirs.
            let matching = core::mem::take(
                &mut Rc::make_mut(&mut self.controllers[c].revisions[r]).matching_terms,
            );
            for &(k, n) in &bound {
                self.affinity_count(k, n, false);
            }
            let rev = Rc::make_mut(&mut self.controllers[c].revisions[r]);
            rev.affinity_ids = aff;
            rev.anti_ids = anti;
            rev.preferred_ids = pref;
            rev.preferred_anti_ids = pref_anti;
            for &(k, n) in &bound {
                self.affinity_count(k, n, true);
            }
            Rc::make_mut(&mut self.controllers[c].revisions[r]).matching_terms = matching;
        }
    }

    /// `t` as the engine keeps it for the pods of controller `id`.
    pub(crate) fn admit(&self, id: crate::cluster::OwnerId, t: &PodTemplate) -> PodTemplate {
        let ns = split(&self.controllers[id.0 as usize].name).0;
        let empty = Labels::new();
        let labels = self.namespaces.get(ns).unwrap_or(&empty);
        admit_template(t, ns, labels, &self.namespaces)
    }
}
