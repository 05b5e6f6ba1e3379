//! The selector and affinity vocabulary of a pod spec, as Kubernetes defines it:
//! label selector requirements (`matchExpressions`), node selector terms with
//! their six operators, preferred (weighted) node and pod affinity terms, and
//! topology spread constraints. Plain data with `matches` and `validate`;
//! nothing here knows how the scheduler counts.

use alloc::format;
use alloc::string::{String, ToString};
use alloc::vec::Vec;
use core::fmt;

use crate::model::{AffinityTerm, Labels, Selector};
use crate::util::error::Error;

/// The operators of a label selector requirement (pod selectors).
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum SelectorOperator {
    In,
    NotIn,
    Exists,
    DoesNotExist,
}

impl SelectorOperator {
    pub fn as_str(&self) -> &'static str {
        match self {
            SelectorOperator::In => "In",
            SelectorOperator::NotIn => "NotIn",
            SelectorOperator::Exists => "Exists",
            SelectorOperator::DoesNotExist => "DoesNotExist",
        }
    }

    pub fn parse(s: &str) -> Result<Self, Error> {
        match s {
            "In" => Ok(SelectorOperator::In),
            "NotIn" => Ok(SelectorOperator::NotIn),
            "Exists" => Ok(SelectorOperator::Exists),
            "DoesNotExist" => Ok(SelectorOperator::DoesNotExist),
            _ => Err(Error::invalid(
                "label selector operator",
                s,
                "In, NotIn, Exists or DoesNotExist",
            )),
        }
    }
}

/// One `matchExpressions` entry of a label selector.
#[derive(Clone, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct LabelSelectorRequirement {
    pub key: String,
    pub operator: SelectorOperator,
    pub values: Vec<String>,
}

impl LabelSelectorRequirement {
    pub fn new(key: &str, operator: SelectorOperator, values: &[&str]) -> Self {
        LabelSelectorRequirement {
            key: key.to_string(),
            operator,
            values: values.iter().map(|v| v.to_string()).collect(),
        }
    }

    /// Kubernetes' rule: NotIn and DoesNotExist match a missing label.
    pub fn matches(&self, labels: &Labels) -> bool {
        let v = labels.get(&self.key);
        match self.operator {
            SelectorOperator::In => v.is_some_and(|v| self.values.iter().any(|x| x == v)),
            SelectorOperator::NotIn => v.is_none_or(|v| !self.values.iter().any(|x| x == v)),
            SelectorOperator::Exists => v.is_some(),
            SelectorOperator::DoesNotExist => v.is_none(),
        }
    }

    pub fn validate(&self, what: &str) -> Result<(), Error> {
        crate::model::validate_label_key(&self.key, what)?;
        crate::model::validate_values(
            self.values.len(),
            &format!("{what} {}", crate::util::limits::quoted(&self.key)),
        )?;
        match self.operator {
            SelectorOperator::In | SelectorOperator::NotIn if self.values.is_empty() => {
                Err(Error::Invalid(format!(
                    "{what} {:?} {}: values is empty; expected at least one value for In and NotIn",
                    self.key,
                    self.operator.as_str()
                )))
            }
            SelectorOperator::Exists | SelectorOperator::DoesNotExist
                if !self.values.is_empty() =>
            {
                Err(Error::Invalid(format!(
                    "{what} {:?} {}: values must be empty for Exists and DoesNotExist",
                    self.key,
                    self.operator.as_str()
                )))
            }
            _ => {
                for v in &self.values {
                    crate::model::validate_label_value(v, what)?;
                }
                Ok(())
            }
        }
    }
}

impl fmt::Display for LabelSelectorRequirement {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self.operator {
            SelectorOperator::In => write!(f, "{} in ({})", self.key, self.values.join(",")),
            SelectorOperator::NotIn => write!(f, "{} notin ({})", self.key, self.values.join(",")),
            SelectorOperator::Exists => write!(f, "{}", self.key),
            SelectorOperator::DoesNotExist => write!(f, "!{}", self.key),
        }
    }
}

/// The operators of a node selector requirement.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum NodeSelectorOperator {
    In,
    NotIn,
    Exists,
    DoesNotExist,
    /// The label's value, read as an integer, is greater than the one value given.
    Gt,
    /// The label's value, read as an integer, is less than the one value given.
    Lt,
}

impl NodeSelectorOperator {
    pub fn as_str(&self) -> &'static str {
        match self {
            NodeSelectorOperator::In => "In",
            NodeSelectorOperator::NotIn => "NotIn",
            NodeSelectorOperator::Exists => "Exists",
            NodeSelectorOperator::DoesNotExist => "DoesNotExist",
            NodeSelectorOperator::Gt => "Gt",
            NodeSelectorOperator::Lt => "Lt",
        }
    }

    pub fn parse(s: &str) -> Result<Self, Error> {
        match s {
            "In" => Ok(NodeSelectorOperator::In),
            "NotIn" => Ok(NodeSelectorOperator::NotIn),
            "Exists" => Ok(NodeSelectorOperator::Exists),
            "DoesNotExist" => Ok(NodeSelectorOperator::DoesNotExist),
            "Gt" => Ok(NodeSelectorOperator::Gt),
            "Lt" => Ok(NodeSelectorOperator::Lt),
            _ => Err(Error::invalid(
                "node selector operator",
                s,
                "In, NotIn, Exists, DoesNotExist, Gt or Lt",
            )),
        }
    }
}

/// One requirement of a node selector term: on a label (`matchExpressions`)
/// or on a field (`matchFields`, where Kubernetes supports `metadata.name`).
#[derive(Clone, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct NodeSelectorRequirement {
    pub key: String,
    pub operator: NodeSelectorOperator,
    pub values: Vec<String>,
}

/// The one field a `matchFields` requirement may name.
pub const NODE_NAME_FIELD: &str = "metadata.name";

impl NodeSelectorRequirement {
    pub fn new(key: &str, operator: NodeSelectorOperator, values: &[&str]) -> Self {
        NodeSelectorRequirement {
            key: key.to_string(),
            operator,
            values: values.iter().map(|v| v.to_string()).collect(),
        }
    }

    fn matches_value(&self, v: Option<&str>) -> bool {
        match self.operator {
            NodeSelectorOperator::In => v.is_some_and(|v| self.values.iter().any(|x| x == v)),
            NodeSelectorOperator::NotIn => v.is_none_or(|v| !self.values.iter().any(|x| x == v)),
            NodeSelectorOperator::Exists => v.is_some(),
            NodeSelectorOperator::DoesNotExist => v.is_none(),
            NodeSelectorOperator::Gt | NodeSelectorOperator::Lt => {
                // Both sides must read as integers, or the requirement fails.
                let (Some(v), Some(bound)) = (v, self.values.first()) else {
                    return false;
                };
                match (v.parse::<i64>(), bound.parse::<i64>()) {
                    (Ok(v), Ok(b)) if self.operator == NodeSelectorOperator::Gt => v > b,
                    (Ok(v), Ok(b)) => v < b,
                    _ => false,
                }
            }
        }
    }

    pub fn validate(&self, what: &str, field: bool) -> Result<(), Error> {
        if field {
            if self.key != NODE_NAME_FIELD {
                return Err(Error::invalid(
                    &format!("{what} matchFields key"),
                    &self.key,
                    "metadata.name, the one field Kubernetes supports",
                ));
            }
            if !matches!(
                self.operator,
                NodeSelectorOperator::In | NodeSelectorOperator::NotIn
            ) || self.values.len() != 1
            {
                return Err(Error::Invalid(format!(
                    "{what} matchFields {}: expected operator In or NotIn with exactly one node name",
                    self.key
                )));
            }
            return Ok(());
        }
        crate::model::validate_label_key(&self.key, what)?;
        crate::model::validate_values(
            self.values.len(),
            &format!("{what} {}", crate::util::limits::quoted(&self.key)),
        )?;
        let n = self.values.len();
        let ok = match self.operator {
            NodeSelectorOperator::In | NodeSelectorOperator::NotIn => n > 0,
            NodeSelectorOperator::Exists | NodeSelectorOperator::DoesNotExist => n == 0,
            NodeSelectorOperator::Gt | NodeSelectorOperator::Lt => {
                n == 1 && self.values[0].parse::<i64>().is_ok()
            }
        };
        if !ok {
            let expected = match self.operator {
                NodeSelectorOperator::In | NodeSelectorOperator::NotIn => "at least one value",
                NodeSelectorOperator::Exists | NodeSelectorOperator::DoesNotExist => "no values",
                _ => "exactly one value, an integer",
            };
            return Err(Error::Invalid(format!(
                "{what} {:?} {} has {n} value(s); expected {expected}",
                self.key,
                self.operator.as_str()
            )));
        }
        for v in &self.values {
            crate::model::validate_label_value(v, what)?;
        }
        Ok(())
    }
}

impl fmt::Display for NodeSelectorRequirement {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "{} {} [{}]",
            self.key,
            self.operator.as_str(),
            self.values.join(",")
        )
    }
}

/// A node selector term: every requirement must hold. An empty term matches
/// no node, as in Kubernetes.
#[derive(Clone, Debug, Default, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct NodeSelectorTerm {
    pub match_expressions: Vec<NodeSelectorRequirement>,
    pub match_fields: Vec<NodeSelectorRequirement>,
}

impl NodeSelectorTerm {
    pub fn matches(&self, node_name: &str, labels: &Labels) -> bool {
        if self.match_expressions.is_empty() && self.match_fields.is_empty() {
            return false;
        }
        self.match_expressions
            .iter()
            .all(|r| r.matches_value(labels.get(&r.key).map(|s| s.as_str())))
            && self
                .match_fields
                .iter()
                .all(|r| r.matches_value(Some(node_name)))
    }

    pub fn validate(&self, what: &str) -> Result<(), Error> {
        crate::model::validate_count(
            self.match_expressions.len(),
            &format!("{what} matchExpressions"),
        )?;
        crate::model::validate_count(self.match_fields.len(), &format!("{what} matchFields"))?;
        for r in &self.match_expressions {
            r.validate(what, false)?;
        }
        for r in &self.match_fields {
            r.validate(what, true)?;
        }
        Ok(())
    }

    /// Its list entries: itself, its requirements and their values.
    pub fn list_entries(&self) -> usize {
        1 + self
            .match_expressions
            .iter()
            .chain(self.match_fields.iter())
            .map(|r| 1 + r.values.len())
            .sum::<usize>()
    }
}

/// A preferred node affinity term and its weight (1 to 100).
#[derive(Clone, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct PreferredSchedulingTerm {
    pub weight: i32,
    pub preference: NodeSelectorTerm,
}

/// `affinity.nodeAffinity`: required terms (any one must match) and
/// preferred terms (weights summed by the NodeAffinity score).
#[derive(Clone, Debug, Default, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct NodeAffinity {
    /// `requiredDuringSchedulingIgnoredDuringExecution.nodeSelectorTerms`;
    /// `None` when the pod has no requirement.
    pub required: Option<Vec<NodeSelectorTerm>>,
    pub preferred: Vec<PreferredSchedulingTerm>,
}

impl NodeAffinity {
    /// Whether the required terms let the pod on the node (terms are ORed).
    pub fn required_matches(&self, node_name: &str, labels: &Labels) -> bool {
        match &self.required {
            None => true,
            Some(terms) => terms.iter().any(|t| t.matches(node_name, labels)),
        }
    }

    /// The NodeAffinity score's raw value: the sum of the weights of the
    /// preferred terms the node matches.
    pub fn preferred_score(&self, node_name: &str, labels: &Labels) -> i64 {
        self.preferred
            .iter()
            .filter(|p| p.preference.matches(node_name, labels))
            .map(|p| p.weight as i64)
            .sum()
    }

    pub fn is_empty(&self) -> bool {
        self.required.is_none() && self.preferred.is_empty()
    }

    /// Its list entries: every term, required and preferred, with theirs.
    pub fn list_entries(&self) -> usize {
        self.required
            .iter()
            .flatten()
            .chain(self.preferred.iter().map(|p| &p.preference))
            .map(NodeSelectorTerm::list_entries)
            .sum()
    }

    pub fn validate(&self, app: &str) -> Result<(), Error> {
        if let Some(terms) = &self.required {
            crate::model::validate_count(terms.len(), "required node affinity term")?;
        }
        crate::model::validate_count(self.preferred.len(), "preferred node affinity term")?;
        if let Some(terms) = &self.required {
            if terms.is_empty() {
                return Err(Error::Invalid(format!(
                    "app {app}: requiredDuringSchedulingIgnoredDuringExecution has no nodeSelectorTerms; expected at least one term"
                )));
            }
            for t in terms {
                t.validate("node affinity")?;
            }
        }
        for p in &self.preferred {
            validate_weight(app, "preferred node affinity", p.weight)?;
            p.preference.validate("preferred node affinity")?;
        }
        Ok(())
    }
}

/// A preferred pod (anti-)affinity term and its weight (1 to 100).
#[derive(Clone, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct WeightedAffinityTerm {
    pub weight: i32,
    pub term: AffinityTerm,
}

pub(crate) fn validate_weight(app: &str, what: &str, w: i32) -> Result<(), Error> {
    if !(1..=100).contains(&w) {
        return Err(Error::Invalid(format!(
            "app {app}: {what} weight {w} is out of range; expected 1 to 100"
        )));
    }
    Ok(())
}

/// `whenUnsatisfiable` of a topology spread constraint.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum WhenUnsatisfiable {
    /// A filter: nodes that would break maxSkew are infeasible.
    DoNotSchedule,
    /// A score: nodes that keep the skew low are preferred.
    ScheduleAnyway,
}

impl WhenUnsatisfiable {
    pub fn as_str(&self) -> &'static str {
        match self {
            WhenUnsatisfiable::DoNotSchedule => "DoNotSchedule",
            WhenUnsatisfiable::ScheduleAnyway => "ScheduleAnyway",
        }
    }

    pub fn parse(s: &str) -> Result<Self, Error> {
        match s {
            "DoNotSchedule" => Ok(WhenUnsatisfiable::DoNotSchedule),
            "ScheduleAnyway" => Ok(WhenUnsatisfiable::ScheduleAnyway),
            _ => Err(Error::invalid(
                "whenUnsatisfiable",
                s,
                "DoNotSchedule or ScheduleAnyway",
            )),
        }
    }
}

/// `nodeAffinityPolicy` and `nodeTaintsPolicy` of a topology spread
/// constraint (`v1.NodeInclusionPolicy`): whether the pod's node affinity,
/// or its tolerations, decide which nodes count for the constraint's domains
/// and skew (podtopologyspread/common.go, `matchNodeInclusionPolicies`).
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum NodeInclusionPolicy {
    /// Only nodes that the rule admits count.
    Honor,
    /// Every node counts, whatever the rule says.
    Ignore,
}

impl NodeInclusionPolicy {
    pub fn as_str(&self) -> &'static str {
        match self {
            NodeInclusionPolicy::Honor => "Honor",
            NodeInclusionPolicy::Ignore => "Ignore",
        }
    }

    pub fn parse(s: &str) -> Result<Self, Error> {
        match s {
            "Honor" => Ok(NodeInclusionPolicy::Honor),
            "Ignore" => Ok(NodeInclusionPolicy::Ignore),
            _ => Err(Error::invalid(
                "node inclusion policy",
                s,
                "Honor or Ignore",
            )),
        }
    }
}

/// A `topologySpreadConstraints` entry. Its `Debug` form leaves out the
/// inclusion policies at Kubernetes' defaults: a template's hash (its
/// ReplicaSet's name) reads that form, and stays what it was before the
/// policies were simulated.
#[derive(Clone, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct TopologySpreadConstraint {
    pub max_skew: u32,
    pub topology_key: String,
    pub when_unsatisfiable: WhenUnsatisfiable,
    pub selector: Selector,
    /// Only with DoNotSchedule: fewer eligible domains than this count the
    /// global minimum as 0.
    pub min_domains: Option<u32>,
    /// `nodeAffinityPolicy`: Honor (Kubernetes' default) counts only the
    /// nodes the pod's nodeSelector and required node affinity admit.
    pub node_affinity_policy: NodeInclusionPolicy,
    /// `nodeTaintsPolicy`: Ignore (Kubernetes' default) counts tainted
    /// nodes too; Honor only nodes whose NoSchedule and NoExecute taints the
    /// pod tolerates (a cordoned or not Ready node's included).
    pub node_taints_policy: NodeInclusionPolicy,
}

impl TopologySpreadConstraint {
    pub fn new(
        max_skew: u32,
        topology_key: &str,
        when: WhenUnsatisfiable,
        selector: Selector,
    ) -> Self {
        TopologySpreadConstraint {
            max_skew,
            topology_key: topology_key.to_string(),
            when_unsatisfiable: when,
            selector,
            min_domains: None,
            node_affinity_policy: NodeInclusionPolicy::Honor,
            node_taints_policy: NodeInclusionPolicy::Ignore,
        }
    }

    /// The same constraint with `nodeAffinityPolicy` and `nodeTaintsPolicy`.
    pub fn with_policies(
        mut self,
        affinity: NodeInclusionPolicy,
        taints: NodeInclusionPolicy,
    ) -> Self {
        self.node_affinity_policy = affinity;
        self.node_taints_policy = taints;
        self
    }

    pub fn validate(&self, app: &str) -> Result<(), Error> {
        if self.max_skew == 0 || self.max_skew > 1_000_000 {
            return Err(Error::Invalid(format!(
                "app {app}: topology spread maxSkew {} is out of range; expected 1 to 1000000",
                self.max_skew
            )));
        }
        crate::model::validate_label_key(&self.topology_key, "topology spread topologyKey")?;
        if let Some(m) = self.min_domains {
            if self.when_unsatisfiable != WhenUnsatisfiable::DoNotSchedule {
                return Err(Error::Invalid(format!(
                    "app {app}: topology spread minDomains is set with whenUnsatisfiable ScheduleAnyway; expected it only with DoNotSchedule"
                )));
            }
            if m == 0 || m > 1_000_000 {
                return Err(Error::Invalid(format!(
                    "app {app}: topology spread minDomains {m} is out of range; expected 1 to 1000000"
                )));
            }
        }
        self.selector.validate("topology spread labelSelector")
    }
}

impl fmt::Debug for TopologySpreadConstraint {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let mut d = f.debug_struct("TopologySpreadConstraint");
        d.field("max_skew", &self.max_skew)
            .field("topology_key", &self.topology_key)
            .field("when_unsatisfiable", &self.when_unsatisfiable)
            .field("selector", &self.selector)
            .field("min_domains", &self.min_domains);
        if self.node_affinity_policy != NodeInclusionPolicy::Honor
            || self.node_taints_policy != NodeInclusionPolicy::Ignore
        {
            d.field("node_affinity_policy", &self.node_affinity_policy)
                .field("node_taints_policy", &self.node_taints_policy);
        }
        d.finish()
    }
}

impl fmt::Display for TopologySpreadConstraint {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "maxSkew {} over {} ({}) of pods {}",
            self.max_skew,
            self.topology_key,
            self.when_unsatisfiable.as_str(),
            self.selector
        )?;
        if self.node_affinity_policy != NodeInclusionPolicy::Honor {
            write!(
                f,
                ", nodeAffinityPolicy {}",
                self.node_affinity_policy.as_str()
            )?;
        }
        if self.node_taints_policy != NodeInclusionPolicy::Ignore {
            write!(f, ", nodeTaintsPolicy {}", self.node_taints_policy.as_str())?;
        }
        Ok(())
    }
}
