//! Cluster Autoscaler, simulated in cluster time (one tick is one second).
//!
//! Node groups are read as CA's kwok cloud provider reads them
//! ([`nodegroup`]). Every `--scan-interval` (10 s) the autoscaler runs one
//! loop, as CA's `RunOnce`:
//!
//! 1. **Scale-up.** The Pending pods (priority at or above the expendable
//!    cutoff, -10) that would not fit on the nodes already asked for are
//!    tried on each group's template node with the scheduler's filters
//!    ([`estimate`]); the binpacking estimate says how many nodes each group
//!    needs within its max, `--max-nodes-per-scaleup`, `--max-nodes-total`,
//!    `--cores-total` and `--memory-total`; the expander chain
//!    ([`expander`]) picks one option. The new nodes register after the
//!    provisioning delay and are then scheduled on by the real profile.
//!    Events: `TriggeredScaleUp` on the pods the option is for,
//!    `NotTriggerScaleUp` on the pods no group helps.
//! 2. **Scale-down** ([`scaledown`]): a group's node is unneeded when its
//!    requests are under the utilisation threshold and every pod on it can
//!    move elsewhere; after `--scale-down-unneeded-time` it is drained and
//!    deleted (empty nodes in bulk, others one a loop), unless a scale-up
//!    happened within `--scale-down-delay-after-add`.
//!
//! With no node groups configured, nothing of this runs: the simulation is
//! exactly the one without an autoscaler.

pub mod capacity;
pub mod estimate;
pub mod expander;
pub mod karpenter;
pub mod nodegroup;
pub mod nodegroupset;
pub mod scaledown;
pub mod snapshot;

use alloc::collections::{BTreeMap, BTreeSet};
use alloc::format;
use alloc::string::{String, ToString};
use alloc::vec::Vec;

pub use expander::{Choice, ScaleUpOption};
pub use nodegroup::{
    AutoscalerConfig, AutoscalerOptions, Expander, GroupBy, KwokProviderConfig, NodeGroup,
    ReadNodesFrom,
};
pub use scaledown::{Blocker, NodeVerdict};

use crate::cluster::{Cluster, NodeId, PodPhase};
use crate::error::Error;
use crate::events::{EventType, ObjectRef, Reason};
use crate::model::{NodeSpec, PodTemplate};
use crate::scheduler::Profile;
use crate::util::prng::Prng;
use estimate::{Room, TemplateNode};

/// A scale-up the autoscaler made.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ScaleUp {
    pub tick: u64,
    pub group: String,
    /// The group's size before and after (registered and asked-for nodes).
    pub from: u32,
    pub to: u32,
    /// The nodes asked for, by name.
    pub nodes: Vec<String>,
    /// The pods the estimate placed on them.
    pub pods: Vec<String>,
    /// The expander chain's reasoning, one line per expander.
    pub reasoning: Vec<String>,
}

/// A node the autoscaler removed.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ScaleDown {
    pub tick: u64,
    pub node: String,
    pub group: String,
    pub empty: bool,
    /// The pods it evicted first.
    pub evicted: Vec<String>,
}

/// Why a Pending pod triggered no scale-up at the last loop: per group, the
/// reason it does not help.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct NoScaleUp {
    pub pod: String,
    pub groups: Vec<(String, String)>,
}

/// A pending pod as one loop sees it.
#[derive(Clone, Debug)]
struct Pending {
    name: String,
    obj: ObjectRef,
    template: PodTemplate,
    /// Its class: the pods of one owner and revision, which are identical
    /// (CA's equivalence groups, core/scaleup/equivalence/groups.go).
    class: usize,
}

/// The simulated Cluster Autoscaler: its configuration and its memory
/// between loops.
#[derive(Clone, Debug)]
pub struct Autoscaler {
    config: AutoscalerConfig,
    rng: Prng,
    /// Group of every node it knows of (registered or asked for), by name.
    members: BTreeMap<String, usize>,
    /// Nodes asked for, not yet registered: (tick they register, group, name).
    upcoming: Vec<(u64, usize, String)>,
    /// Since when each unneeded node has been unneeded.
    unneeded_since: BTreeMap<String, u64>,
    last_scale_up: Option<u64>,
    scale_ups: Vec<ScaleUp>,
    scale_downs: Vec<ScaleDown>,
    no_scale_up: Vec<NoScaleUp>,
    /// The last loop's verdict on every group node.
    verdicts: Vec<NodeVerdict>,
    /// Loops run.
    loops: u64,
    /// Event texts said so far, each kept once in the cluster's table: a
    /// pod told the same thing every loop adds to its record's count.
    texts: BTreeMap<String, crate::events::TextId>,
}

impl Autoscaler {
    /// An autoscaler over `config`, its random expander seeded from `seed`.
    pub fn new(config: AutoscalerConfig, seed: u64) -> Result<Self, Error> {
        config.validate()?;
        let mut members = BTreeMap::new();
        for (node, g) in &config.members {
            let i = config
                .groups
                .iter()
                .position(|x| &x.name == g)
                .ok_or_else(|| {
                    Error::Invalid(format!(
                        "node {node} is in node group {g}, which is not declared; expected one of the groups"
                    ))
                })?;
            members.insert(node.clone(), i);
        }
        Ok(Autoscaler {
            config,
            rng: Prng::new(seed ^ 0x6361_7574_6f73_6361),
            members,
            upcoming: Vec::new(),
            unneeded_since: BTreeMap::new(),
            last_scale_up: None,
            scale_ups: Vec::new(),
            scale_downs: Vec::new(),
            no_scale_up: Vec::new(),
            verdicts: Vec::new(),
            loops: 0,
            texts: BTreeMap::new(),
        })
    }

    /// Takes over what `old` asked for and knew: the nodes asked for and
    /// not yet registered (a cloud delivers them whatever the autoscaler's
    /// new settings) and the group of every node it made, for each group
    /// that `self` still has by name. A configuration edited mid-run thus
    /// does not ask again for nodes already on their way.
    pub fn carry_over(&mut self, old: &Autoscaler) {
        let index = |name: &str| self.config.groups.iter().position(|g| g.name == name);
        for (node, &g) in &old.members {
            if let Some(i) = index(&old.config.groups[g].name) {
                self.members.entry(node.clone()).or_insert(i);
            }
        }
        for (tick, g, node) in &old.upcoming {
            if let Some(i) = index(&old.config.groups[*g].name) {
                self.upcoming.push((*tick, i, node.clone()));
            }
        }
        self.last_scale_up = old.last_scale_up;
    }

    pub fn config(&self) -> &AutoscalerConfig {
        &self.config
    }

    pub fn options_mut(&mut self) -> &mut AutoscalerOptions {
        &mut self.config.options
    }

    pub fn scale_ups(&self) -> &[ScaleUp] {
        &self.scale_ups
    }

    pub fn scale_downs(&self) -> &[ScaleDown] {
        &self.scale_downs
    }

    /// The last loop's Pending pods that no group helps, with the reasons.
    pub fn no_scale_up(&self) -> &[NoScaleUp] {
        &self.no_scale_up
    }

    /// The last loop's verdict on each group node (unneeded, or why not).
    pub fn verdicts(&self) -> &[NodeVerdict] {
        &self.verdicts
    }

    /// Nodes asked for that have not registered yet: (tick, group, name).
    pub fn upcoming(&self) -> impl Iterator<Item = (u64, &str, &str)> + '_ {
        self.upcoming
            .iter()
            .map(|(t, g, n)| (*t, self.config.groups[*g].name.as_str(), n.as_str()))
    }

    pub fn loops(&self) -> u64 {
        self.loops
    }

    /// Since when `node` has been unneeded, if it is.
    pub fn unneeded_since(&self, node: &str) -> Option<u64> {
        self.unneeded_since.get(node).copied()
    }

    /// The group a node belongs to: one the autoscaler made or was told of,
    /// else (grouping by label) the group its label names.
    pub fn group_of(&self, node: &NodeSpec) -> Option<usize> {
        if let Some(&g) = self.members.get(&node.name) {
            return Some(g);
        }
        match self.config.provider.as_ref().map(|p| &p.group_by) {
            Some(GroupBy::Label(k)) => {
                let v = node.labels.get(k)?;
                self.config.groups.iter().position(|g| &g.name == v)
            }
            _ => None,
        }
    }

    /// Each group's size: its registered nodes and those asked for.
    pub fn sizes(&self, c: &Cluster) -> Vec<u32> {
        let mut s = alloc::vec![0u32; self.config.groups.len()];
        for n in c.nodes() {
            if let Some(g) = self.group_of(n.spec) {
                s[g] += 1;
            }
        }
        for (_, g, _) in &self.upcoming {
            s[*g] += 1;
        }
        s
    }

    /// The cluster's cost per hour in millionths: the priced nodes' sum,
    /// and how many registered nodes have no price.
    pub fn cost_per_hour_micros(&self, c: &Cluster) -> (u64, u32) {
        let mut sum = 0u64;
        let mut unpriced = 0u32;
        for n in c.nodes() {
            match self
                .group_of(n.spec)
                .and_then(|g| self.config.groups[g].price_micros)
            {
                Some(p) => sum = sum.saturating_add(p),
                None => unpriced += 1,
            }
        }
        (sum, unpriced)
    }

    /// Registers the nodes whose provisioning delay is over. Returns
    /// whether any registered.
    pub fn join_due(&mut self, c: &mut Cluster) -> bool {
        let now = c.now();
        let mut any = false;
        let mut i = 0;
        while i < self.upcoming.len() {
            if self.upcoming[i].0 <= now {
                let (_, g, name) = self.upcoming.remove(i);
                let mut spec = self.config.groups[g].template.clone();
                spec.name = name.clone();
                if spec.labels.contains_key(crate::model::HOSTNAME_KEY) {
                    spec.labels
                        .insert(crate::model::HOSTNAME_KEY.to_string(), name.clone());
                }
                // A name taken meanwhile (by the script) loses the node.
                if c.add_node(spec).is_ok() {
                    any = true;
                } else {
                    self.members.remove(&name);
                }
            } else {
                i += 1;
            }
        }
        any
    }

    /// Whether a loop is due at the cluster's tick.
    pub fn loop_due(&self, now: u64) -> bool {
        !self.config.groups.is_empty() && now % self.config.options.scan_interval == 0
    }

    /// One loop (CA's RunOnce): scale-up, then scale-down. Returns whether
    /// it changed the cluster (a node registered, a pod evicted, a node
    /// removed), so that the caller reconciles again.
    pub fn run_once(&mut self, c: &mut Cluster, profile: &Profile) -> bool {
        self.loops += 1;
        let scaled_up = self.scale_up(c, profile);
        let mut changed = false;
        if scaled_up && self.config.options.provisioning_delay == 0 {
            changed |= self.join_due(c);
        }
        changed |= self.scale_down(c, scaled_up);
        changed
    }

    /// The Pending pods a loop considers: not expendable, not waiting for a
    /// nominated node, in the cluster's order; and a sample pod's name per
    /// class.
    fn pending(&self, c: &Cluster) -> (Vec<Pending>, Vec<String>) {
        let cutoff = self.config.options.expendable_pods_priority_cutoff;
        let mut classes: BTreeMap<(u32, u32), usize> = BTreeMap::new();
        let mut samples = Vec::new();
        let pods = c
            .pending_pods()
            .filter(|p| p.phase == PodPhase::Pending && p.nominated.is_none())
            .filter(|p| p.priority >= cutoff)
            .map(|p| {
                let name = p.name();
                let class = *classes
                    .entry((p.controller.0, p.revision))
                    .or_insert_with(|| {
                        samples.push(name.clone());
                        samples.len() - 1
                    });
                Pending {
                    name,
                    obj: ObjectRef::Pod(p.controller, p.ordinal),
                    template: p.template.clone(),
                    class,
                }
            })
            .collect();
        (pods, samples)
    }

    /// The template-node check of the loop ([`snapshot`]) for the Pending
    /// pods it considers: per pod (by name, the first of each class) and
    /// per group, `None` when the pod passes every filter of `profile` on
    /// the group's template node, else the filter's rejection.
    pub fn template_verdicts(
        &self,
        c: &Cluster,
        profile: &Profile,
    ) -> Vec<(String, Vec<Option<snapshot::Rejection>>)> {
        let (_, samples) = self.pending(c);
        let templates = self.template_nodes(c);
        let names: Vec<&str> = samples.iter().map(|s| s.as_str()).collect();
        let v = snapshot::check_templates(c, &self.config.groups, &templates, &names, profile);
        samples.into_iter().zip(v).collect()
    }

    /// The template NodeInfo of every group.
    pub fn template_nodes(&self, c: &Cluster) -> Vec<TemplateNode> {
        let ds: Vec<&crate::DaemonSetSpec> = c.daemonset_specs().collect();
        self.config
            .groups
            .iter()
            .map(|g| estimate::template_node(&g.template, &ds))
            .collect()
    }

    fn scale_up(&mut self, c: &mut Cluster, profile: &Profile) -> bool {
        let now = c.now();
        let (mut pods, samples) = self.pending(c);
        self.no_scale_up.clear();
        if pods.is_empty() {
            return false;
        }
        let templates = self.template_nodes(c);
        let names: Vec<&str> = samples.iter().map(|s| s.as_str()).collect();
        // checks[class][group]: every filter of the profile on the group's
        // template node.
        let checks = snapshot::check_templates(c, &self.config.groups, &templates, &names, profile);
        // Pods the nodes already asked for will take (CA counts upcoming
        // nodes as template nodes in its snapshot).
        let mut rooms: Vec<(usize, Room, Vec<usize>)> = self
            .upcoming
            .iter()
            .map(|(_, g, _)| (*g, templates[*g].room, Vec::new()))
            .collect();
        let mut on_upcoming = alloc::vec![false; pods.len()];
        for (i, p) in pods.iter().enumerate() {
            for (g, room, on) in rooms.iter_mut() {
                if checks[p.class][*g].is_some() || room.short(&p.template).is_some() {
                    continue;
                }
                let anti = !p.template.anti_affinity.is_empty()
                    || on
                        .iter()
                        .any(|&k| !pods[k].template.anti_affinity.is_empty());
                if anti {
                    let others: Vec<&PodTemplate> = on.iter().map(|&k| &pods[k].template).collect();
                    if estimate::anti_affine(&p.template, &others) {
                        continue;
                    }
                }
                room.take(&p.template);
                on.push(i);
                on_upcoming[i] = true;
                break;
            }
        }
        let mut k = 0;
        pods.retain(|_| {
            k += 1;
            !on_upcoming[k - 1]
        });
        if pods.is_empty() {
            return false;
        }
        let sizes = self.sizes(c);
        let o = &self.config.options;
        let total_nodes: u32 = c.nodes().count() as u32 + self.upcoming.len() as u32;
        let (mut cores, mut mem) = (0u64, 0u64);
        for n in c.nodes() {
            cores += n.spec.capacity.cpu_millis;
            mem += n.spec.capacity.memory_bytes;
        }
        for (_, g, _) in &self.upcoming {
            cores += self.config.groups[*g].template.capacity.cpu_millis;
            mem += self.config.groups[*g].template.capacity.memory_bytes;
        }
        let cores_left = (o.cores_total.1.saturating_mul(1000)).saturating_sub(cores);
        let mem_left = o
            .memory_total_gib
            .1
            .saturating_mul(1u64 << 30)
            .saturating_sub(mem);
        let nodes_left = if o.max_nodes_total == 0 {
            u32::MAX
        } else {
            o.max_nodes_total.saturating_sub(total_nodes)
        };
        let mut options = Vec::new();
        // Per pod, per group: why the group does not help.
        let mut why: Vec<Vec<(usize, Vec<String>)>> = alloc::vec![Vec::new(); pods.len()];
        let similar = self.similar_groups(&sizes, &templates, &checks, &pods);
        for (gi, g) in self.config.groups.iter().enumerate() {
            let t = &g.template;
            // With similar groups, the estimate may use their room too
            // (estimator/sng_capacity_threshold.go).
            let mut max = similar[gi]
                .iter()
                .fold(g.max_size.saturating_sub(sizes[gi]), |m, &j| {
                    m.saturating_add(self.config.groups[j].max_size.saturating_sub(sizes[j]))
                });
            let mut limit_reason = "max node group size reached";
            if max > o.max_nodes_per_scaleup {
                max = o.max_nodes_per_scaleup;
                limit_reason = "max nodes per scale-up reached";
            }
            if nodes_left < max {
                max = nodes_left;
                limit_reason = "max cluster nodes limit reached";
            }
            let per_cpu = t.capacity.cpu_millis.max(1);
            let per_mem = t.capacity.memory_bytes.max(1);
            let by_cpu = (cores_left / per_cpu).min(u32::MAX as u64) as u32;
            if by_cpu < max {
                max = by_cpu;
                limit_reason = "max cluster cpu limit reached";
            }
            let by_mem = (mem_left / per_mem).min(u32::MAX as u64) as u32;
            if by_mem < max {
                max = by_mem;
                limit_reason = "max cluster memory limit reached";
            }
            // The pods the template node takes (SchedulablePodGroups),
            // binpacked.
            let list: Vec<(usize, &PodTemplate)> = pods
                .iter()
                .enumerate()
                .filter(|(_, p)| checks[p.class][gi].is_none())
                .map(|(i, p)| (i, &p.template))
                .collect();
            // With inter-pod (anti-)affinity, zonal spread or host ports
            // among them, every filter on the growing set of new nodes
            // (CA's estimator); else the resource count, the same answer.
            let (nodes, taken) = if estimate::needs_filters(list.iter().map(|l| l.1)) {
                let named: Vec<(usize, usize, &str, &PodTemplate)> = list
                    .iter()
                    .map(|&(i, t)| (i, pods[i].class, pods[i].name.as_str(), t))
                    .collect();
                snapshot::binpack_filtered(c, g, &templates[gi], &named, max, profile)
            } else {
                estimate::binpack(t, &templates[gi], &list, max)
            };
            let taken_set: BTreeSet<usize> = taken.iter().copied().collect();
            for (i, p) in pods.iter().enumerate() {
                if taken_set.contains(&i) {
                    continue;
                }
                let r = match &checks[p.class][gi] {
                    Some(r) if !r.reasons.is_empty() => r.reasons.clone(),
                    Some(r) => alloc::vec![r.plugin.to_string()],
                    None => alloc::vec![templates[gi]
                        .room
                        .short(&p.template)
                        .unwrap_or(limit_reason)
                        .to_string()],
                };
                why[i].push((gi, r));
            }
            if nodes > 0 && !taken.is_empty() {
                let mut req = (0u64, 0u64);
                for &i in &taken {
                    req.0 += pods[i].template.requests.cpu_millis;
                    req.1 += pods[i].template.requests.memory_bytes;
                }
                // least-waste compares with the nodes' whole capacity
                // (expander/waste/waste.go, resourcesForNode).
                let cap = t.capacity;
                options.push(ScaleUpOption {
                    group: gi,
                    nodes,
                    pods: taken,
                    requested: req,
                    allocatable: (
                        cap.cpu_millis * nodes as u64,
                        cap.memory_bytes * nodes as u64,
                    ),
                });
            }
        }
        // Pods no option helps.
        let helped: BTreeSet<usize> = options
            .iter()
            .flat_map(|o| o.pods.iter().copied())
            .collect();
        let mut notes = Vec::new();
        for (i, p) in pods.iter().enumerate() {
            if helped.contains(&i) {
                continue;
            }
            let mut counts: BTreeMap<&str, u32> = BTreeMap::new();
            for (_, rs) in &why[i] {
                for r in rs {
                    *counts.entry(r).or_insert(0) += 1;
                }
            }
            let msg = if counts.is_empty() {
                "pod didn't trigger scale-up: no node groups".to_string()
            } else {
                let parts: Vec<String> = counts.iter().map(|(r, n)| format!("{n} {r}")).collect();
                format!("pod didn't trigger scale-up: {}", parts.join(", "))
            };
            notes.push((p.obj, msg));
            self.no_scale_up.push(NoScaleUp {
                pod: p.name.clone(),
                groups: why[i]
                    .iter()
                    .map(|(g, r)| (self.config.groups[*g].name.clone(), r.join(", ")))
                    .collect(),
            });
        }
        for (obj, msg) in notes {
            self.say(c, Reason::NotTriggerScaleUp, obj, msg);
        }
        if options.is_empty() {
            return false;
        }
        let choice = expander::choose(
            &self.config.options.expanders,
            &options,
            &self.config.groups,
            &self.config.priorities,
            &mut self.rng,
        );
        let best = &options[choice.option];
        // The groups that grow: the chosen one, or it and its similar
        // groups with the nodes spread by balance (orchestrator.go,
        // `balanceScaleUps`), in the order of their current sizes.
        let mut targets: Vec<usize> = alloc::vec![best.group];
        targets.extend(similar[best.group].iter().copied());
        targets.sort_by_key(|&g| sizes[g]);
        let shape: Vec<(u32, u32)> = targets
            .iter()
            .map(|&g| (sizes[g], self.config.groups[g].max_size))
            .collect();
        let grown = nodegroupset::balance(&shape, best.nodes);
        let mut infos = Vec::new();
        let mut records = Vec::new();
        for (k, &gi) in targets.iter().enumerate() {
            let (from, to) = (sizes[gi], grown[k]);
            if to <= from {
                continue;
            }
            let g = self.config.groups[gi].clone();
            let mut names = Vec::new();
            for _ in from..to {
                let name = self.fresh_name(c, &g.name);
                self.members.insert(name.clone(), gi);
                self.upcoming.push((
                    now + self.config.options.provisioning_delay,
                    gi,
                    name.clone(),
                ));
                names.push(name);
            }
            infos.push(format!(
                "{{{} {}->{} (max: {})}}",
                g.name, from, to, g.max_size
            ));
            records.push((g.name, from, to, names));
        }
        let msg = format!("pod triggered scale-up: [{}]", infos.join(" "));
        let balanced = (records.len() > 1).then(|| {
            let names: Vec<&str> = records.iter().map(|r| r.0.as_str()).collect();
            format!(
                "balanced over the similar groups {} (--balance-similar-node-groups)",
                names.join(", ")
            )
        });
        let mut reasoning = Some(choice.reasoning);
        for (group, from, to, names) in records {
            let first = reasoning.take();
            let mut why = first.clone().unwrap_or_default();
            why.extend(balanced.clone());
            self.scale_ups.push(ScaleUp {
                tick: now,
                group,
                from,
                to,
                nodes: names,
                // The pods go with the first record of the scale-up.
                pods: if first.is_some() {
                    best.pods.iter().map(|&i| pods[i].name.clone()).collect()
                } else {
                    Vec::new()
                },
                reasoning: why,
            });
        }
        let objs: Vec<ObjectRef> = best.pods.iter().map(|&i| pods[i].obj).collect();
        for obj in objs {
            self.say(c, Reason::TriggeredScaleUp, obj, msg.clone());
        }
        self.last_scale_up = Some(now);
        true
    }

    /// Per group, the groups similar to it when `--balance-similar-node-groups`
    /// is on ([`nodegroupset::similar`]) that can still grow and whose
    /// template node takes the same Pending pods (orchestrator.go,
    /// `ComputeSimilarNodeGroups`); empty lists otherwise.
    fn similar_groups(
        &self,
        sizes: &[u32],
        templates: &[TemplateNode],
        checks: &[Vec<Option<snapshot::Rejection>>],
        pods: &[Pending],
    ) -> Vec<Vec<usize>> {
        let groups = &self.config.groups;
        let o = &self.config.options;
        if !o.balance_similar_node_groups {
            return alloc::vec![Vec::new(); groups.len()];
        }
        let mut present = alloc::vec![false; checks.len()];
        for p in pods {
            present[p.class] = true;
        }
        let same_pods = |a: usize, b: usize| {
            (0..checks.len())
                .filter(|&k| present[k])
                .all(|k| checks[k][a].is_none() == checks[k][b].is_none())
        };
        (0..groups.len())
            .map(|a| {
                (0..groups.len())
                    .filter(|&b| {
                        b != a
                            && sizes[b] < groups[b].max_size
                            && nodegroupset::similar(
                                &groups[a].template,
                                &templates[a].room,
                                &groups[b].template,
                                &templates[b].room,
                                &o.balancing_ignore_labels,
                            )
                            && same_pods(a, b)
                    })
                    .collect()
            })
            .collect()
    }

    /// Records an event of the autoscaler's (Normal, source
    /// cluster-autoscaler).
    fn say(&mut self, c: &mut Cluster, reason: Reason, obj: ObjectRef, msg: String) {
        let id = match self.texts.get(&msg) {
            Some(&t) => t,
            None => {
                let t = c.text(msg.clone());
                self.texts.insert(msg, t);
                t
            }
        };
        c.record(
            EventType::Normal,
            reason,
            obj,
            crate::events::Message::Text(id),
        );
    }

    /// `<group>-<5 random characters>`, as the kwok provider names a new
    /// node (IncreaseSize), from the autoscaler's seeded PRNG.
    fn fresh_name(&mut self, c: &Cluster, group: &str) -> String {
        const ALPHABET: &[u8] = b"bcdfghjklmnpqrstvwxz2456789";
        loop {
            let mut s = String::from(group);
            s.push('-');
            for _ in 0..5 {
                s.push(ALPHABET[self.rng.below(ALPHABET.len() as u64) as usize] as char);
            }
            if c.node(&s).is_err() && !self.members.contains_key(&s) {
                return s;
            }
        }
    }

    fn scale_down(&mut self, c: &mut Cluster, scaled_up: bool) -> bool {
        let now = c.now();
        let o = self.config.options.clone();
        self.verdicts = scaledown::verdicts(self, c);
        let unneeded: BTreeSet<&str> = self
            .verdicts
            .iter()
            .filter(|v| v.blocker.is_none())
            .map(|v| v.node.as_str())
            .collect();
        self.unneeded_since
            .retain(|n, _| unneeded.contains(n.as_str()));
        for n in &unneeded {
            self.unneeded_since.entry(n.to_string()).or_insert(now);
        }
        if !o.scale_down_enabled || scaled_up {
            return false;
        }
        if let Some(t) = self.last_scale_up {
            if now < t + o.scale_down_delay_after_add {
                return false;
            }
        }
        let ripe = |v: &NodeVerdict| {
            v.blocker.is_none()
                && self
                    .unneeded_since
                    .get(&v.node)
                    .is_some_and(|&s| now >= s + o.scale_down_unneeded_time)
        };
        let empty: Vec<NodeVerdict> = self
            .verdicts
            .iter()
            .filter(|v| ripe(v) && v.to_move.is_empty())
            .take(o.max_empty_bulk_delete as usize)
            .cloned()
            .collect();
        let chosen: Vec<NodeVerdict> = if !empty.is_empty() {
            empty
        } else {
            self.verdicts
                .iter()
                .filter(|v| ripe(v))
                .take(1)
                .cloned()
                .collect()
        };
        let mut changed = false;
        for v in chosen {
            changed |= self.remove(c, &v);
        }
        changed
    }

    /// Drains and deletes one unneeded node.
    fn remove(&mut self, c: &mut Cluster, v: &NodeVerdict) -> bool {
        let Ok(id) = c.node(&v.node).map(|n| n.id) else {
            return false;
        };
        let empty = v.to_move.is_empty();
        if empty {
            c.note(
                EventType::Normal,
                Reason::ScaleDownEmpty,
                ObjectRef::Node(id),
                format!("removing empty node {:?}", v.node),
            );
        } else {
            c.note(
                EventType::Normal,
                Reason::ScaleDown,
                ObjectRef::Node(id),
                "marked the node as toBeDeleted/unschedulable".to_string(),
            );
        }
        let mut evicted = Vec::new();
        let objs: Vec<(String, ObjectRef)> = c
            .pods_on(id)
            .filter(|p| v.to_move.contains(&p.name()))
            .map(|p| (p.name(), ObjectRef::Pod(p.controller, p.ordinal)))
            .collect();
        for (name, obj) in objs {
            self.say(
                c,
                Reason::ScaleDown,
                obj,
                "deleting pod for node scale down".to_string(),
            );
            if c.evict(&name).is_err() {
                // A budget changed since the loop looked: CA gives up on
                // the node and tries again later.
                let _ = c.uncordon(&v.node);
                return !evicted.is_empty();
            }
            evicted.push(name);
        }
        let group = self.config.groups[v.group].name.clone();
        if c.remove_node(&v.node).is_ok() {
            self.members.remove(&v.node);
            self.unneeded_since.remove(&v.node);
            self.scale_downs.push(ScaleDown {
                tick: c.now(),
                node: v.node.clone(),
                group,
                empty,
                evicted,
            });
            return true;
        }
        !evicted.is_empty()
    }
}

/// Every node id a group holds (for the scale-down pass).
pub(crate) fn group_nodes(a: &Autoscaler, c: &Cluster) -> Vec<(NodeId, usize)> {
    c.nodes()
        .filter_map(|n| a.group_of(n.spec).map(|g| (n.id, g)))
        .collect()
}
