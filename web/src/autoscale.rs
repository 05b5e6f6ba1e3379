//! What the page shows of the simulated Cluster Autoscaler
//! (`shepherd::autoscaler`, docs/autoscaling.md): the node groups with
//! their min/current/max, the scale-ups and scale-downs so far, and, for
//! one Pending pod, the scale-up it triggered or why no group helps. Read
//! from the simulator as it is; nothing here decides anything.

use serde::Serialize;
use shepherd::autoscaler::nodegroup::format_price_micros;
use shepherd::autoscaler::Autoscaler;
use shepherd::simulator::Simulator;

/// One node group as the node list shows it.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct GroupRow {
    pub name: String,
    pub min: u32,
    pub max: u32,
    /// Registered nodes of the group now.
    pub current: u32,
    /// Nodes asked for that have not registered yet.
    pub upcoming: u32,
    /// Registered nodes of the group that are Ready.
    pub ready: u32,
    /// The template node's allocatable, e.g. "cpu 4, memory 16Gi".
    pub template: String,
    /// The price of one node per hour (`shepherd.dev/price-per-hour`), as
    /// a decimal string; `None` without one.
    pub price_per_hour: Option<String>,
}

/// One scale-up, as the page lists it.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct ScaleUpRow {
    pub tick: u64,
    pub group: String,
    pub from: u32,
    pub to: u32,
    /// The tick the new nodes register (the provisioning delay later).
    pub joins_at: u64,
    pub nodes: Vec<String>,
    pub pods: Vec<String>,
    /// The expander chain's reasoning, one line per expander.
    pub reasoning: Vec<String>,
}

/// One node removed by scale-down.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct ScaleDownRow {
    pub tick: u64,
    pub node: String,
    pub group: String,
    pub empty: bool,
    pub evicted: Vec<String>,
}

/// The autoscaler now: `None` from [`view`] when no node groups are
/// configured.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct AutoscaleView {
    pub groups: Vec<GroupRow>,
    /// The expander chain, e.g. "priority,least-waste".
    pub expander: String,
    pub scan_interval: u64,
    pub provisioning_delay: u64,
    /// The registered nodes' cost per hour (priced ones), as a decimal.
    pub cost_per_hour: String,
    /// Registered nodes without a price.
    pub unpriced_nodes: u32,
    pub loops: u64,
    /// The newest first, at most [`SHOWN`].
    pub scale_ups: Vec<ScaleUpRow>,
    pub scale_downs: Vec<ScaleDownRow>,
    pub scale_up_count: u32,
    pub scale_down_count: u32,
}

/// Scale-ups and scale-downs listed, newest first.
pub const SHOWN: usize = 20;

fn scale_up_row(a: &Autoscaler, u: &shepherd::autoscaler::ScaleUp) -> ScaleUpRow {
    ScaleUpRow {
        tick: u.tick,
        group: u.group.clone(),
        from: u.from,
        to: u.to,
        joins_at: u.tick + a.config().options.provisioning_delay,
        nodes: u.nodes.clone(),
        pods: u.pods.clone(),
        reasoning: u.reasoning.clone(),
    }
}

/// The autoscaler of `sim` as the page shows it, `None` without one.
pub fn view(sim: &Simulator) -> Option<AutoscaleView> {
    let a = sim.autoscaler()?;
    let c = sim.cluster();
    let cfg = a.config();
    let mut current = vec![0u32; cfg.groups.len()];
    let mut ready = vec![0u32; cfg.groups.len()];
    for n in c.nodes() {
        if let Some(g) = a.group_of(n.spec) {
            current[g] += 1;
            ready[g] += n.ready as u32;
        }
    }
    let mut upcoming = vec![0u32; cfg.groups.len()];
    for (_, g, _) in a.upcoming() {
        if let Some(i) = cfg.groups.iter().position(|x| x.name == g) {
            upcoming[i] += 1;
        }
    }
    let groups = cfg
        .groups
        .iter()
        .enumerate()
        .map(|(i, g)| GroupRow {
            name: g.name.clone(),
            min: g.min_size,
            max: g.max_size,
            current: current[i],
            upcoming: upcoming[i],
            ready: ready[i],
            template: g.template.capacity.to_string(),
            price_per_hour: g.price_micros.map(format_price_micros),
        })
        .collect();
    let (cost, unpriced) = a.cost_per_hour_micros(c);
    Some(AutoscaleView {
        groups,
        expander: cfg
            .options
            .expanders
            .iter()
            .map(|e| e.as_str())
            .collect::<Vec<_>>()
            .join(","),
        scan_interval: cfg.options.scan_interval,
        provisioning_delay: cfg.options.provisioning_delay,
        cost_per_hour: format_price_micros(cost),
        unpriced_nodes: unpriced,
        loops: a.loops(),
        scale_ups: a
            .scale_ups()
            .iter()
            .rev()
            .take(SHOWN)
            .map(|u| scale_up_row(a, u))
            .collect(),
        scale_downs: a
            .scale_downs()
            .iter()
            .rev()
            .take(SHOWN)
            .map(|d| ScaleDownRow {
                tick: d.tick,
                node: d.node.clone(),
                group: d.group.clone(),
                empty: d.empty,
                evicted: d.evicted.clone(),
            })
            .collect(),
        scale_up_count: a.scale_ups().len() as u32,
        scale_down_count: a.scale_downs().len() as u32,
    })
}

/// One group's answer for a Pending pod that triggered no scale-up.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct GroupReason {
    pub group: String,
    pub reason: String,
}

/// What the autoscaler did about one pod, for the explain dialog.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct PodAutoscale {
    /// One line: "triggered scale-up of m-large by 2 at tick 10 (nodes
    /// register at tick 40)", "no node group helps", or "not considered
    /// yet".
    pub summary: String,
    /// The newest scale-up made for the pod, when there is one.
    pub scale_up: Option<ScaleUpRow>,
    /// At the last loop, per group, why it does not help (empty when the
    /// pod triggered a scale-up or was not considered).
    pub no_scale_up: Vec<GroupReason>,
}

/// The autoscaler's word on `pod`: `None` without node groups.
pub fn for_pod(sim: &Simulator, pod: &str) -> Option<PodAutoscale> {
    let a = sim.autoscaler()?;
    let up = a
        .scale_ups()
        .iter()
        .rev()
        .find(|u| u.pods.iter().any(|p| p == pod))
        .map(|u| scale_up_row(a, u));
    let none: Vec<GroupReason> = a
        .no_scale_up()
        .iter()
        .find(|n| n.pod == pod)
        .map(|n| {
            n.groups
                .iter()
                .map(|(g, r)| GroupReason {
                    group: g.clone(),
                    reason: r.clone(),
                })
                .collect()
        })
        .unwrap_or_default();
    let now = sim.cluster().now();
    let summary = match (&up, none.is_empty()) {
        (_, false) => format!(
            "no node group helps: at its last loop no template node of Cluster Autoscaler's {} node group(s) takes the pod (NotTriggerScaleUp)",
            none.len()
        ),
        (Some(u), true) => {
            let joins = if u.joins_at > now {
                format!("the nodes register at tick {}", u.joins_at)
            } else {
                format!("the nodes registered at tick {}", u.joins_at)
            };
            format!(
                "triggered scale-up of {} by {} at tick {} ({} -> {}); {joins}",
                u.group,
                u.to - u.from,
                u.tick,
                u.from,
                u.to
            )
        }
        (None, true) => format!(
            "no scale-up for it yet: Cluster Autoscaler looks at Pending pods every {} s",
            a.config().options.scan_interval
        ),
    };
    Some(PodAutoscale {
        summary,
        scale_up: up,
        no_scale_up: none,
    })
}

/// The registered nodes and the cluster's cost per hour in dollars (priced
/// nodes; 0 without node groups), for the charts.
pub fn nodes_and_cost(sim: &Simulator) -> (u32, f64) {
    let c = sim.cluster();
    let cost = sim.autoscaler().map_or(0, |a| a.cost_per_hour_micros(c).0);
    (c.node_count() as u32, cost as f64 / 1_000_000.0)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::manifests::{export_session, import_session};

    const EXAMPLE: &str = include_str!("../../www/examples/autoscaling.yaml");

    fn pending(s: &crate::session::Session, prefix: &str) -> Vec<String> {
        s.simulator()
            .cluster()
            .pending_pods()
            .map(|p| p.name())
            .filter(|n| n.starts_with(prefix))
            .collect()
    }

    #[test]
    fn the_example_scales_up_in_the_session_and_the_page_sees_it() {
        let (mut s, _) = import_session(EXAMPLE, 7).unwrap();
        let v = view(s.simulator()).expect("node groups");
        let names: Vec<&str> = v.groups.iter().map(|g| g.name.as_str()).collect();
        assert_eq!(names, ["c5.xlarge", "m5.large", "r5.large"]);
        assert_eq!(
            (v.groups[1].min, v.groups[1].current, v.groups[1].max),
            (1, 2, 6)
        );
        assert_eq!(v.expander, "least-waste");
        assert_eq!(v.cost_per_hour, "0.192");
        // The two fixed nodes hold one api pod each (1 cpu of 2, with the
        // web pod, node-exporter and cluster-autoscaler); four wait.
        let api = pending(&s, "api-");
        assert_eq!(api.len(), 4);
        let before = for_pod(s.simulator(), &api[0]).unwrap();
        assert!(
            before.summary.starts_with("no scale-up for it yet"),
            "{}",
            before.summary
        );

        // Tick 10: the first loop asks for nodes of one group for them.
        s.run(10 - s.tick());
        let v = view(s.simulator()).unwrap();
        assert_eq!(v.scale_up_count, 1);
        let up = &v.scale_ups[0];
        // By hand: a c5.xlarge (4 cpu, 8Gi) less kube-proxy's 100m and
        // node-exporter's 50m/64Mi holds two api pods (1 cpu, 3Gi) by
        // memory: 2 nodes, 50% idle cpu and 25% idle memory; m5.large takes
        // one pod a node (4 nodes, 63% idle memory), r5.large too (81%).
        assert_eq!((up.group.as_str(), up.from, up.to), ("c5.xlarge", 0, 2));
        assert_eq!(
            up.reasoning,
            ["least-waste: c5.xlarge 50% idle cpu, 25% idle memory against m5.large 50% idle cpu, 63% idle memory; r5.large 50% idle cpu, 81% idle memory"]
        );
        // By hand: a c5.xlarge (4 cpu, 8Gi) less kube-proxy's 100m and
        // node-exporter's 50m/64Mi holds two api pods (1 cpu, 3Gi) by
        // memory: 2 nodes, 50% idle cpu and 25% idle memory; m5.large takes
        // one pod a node (4 nodes, 63% idle memory), r5.large too (81%).
        assert_eq!((up.group.as_str(), up.from, up.to), ("c5.xlarge", 0, 2));
        assert_eq!(
            up.reasoning,
            ["least-waste: c5.xlarge 50% idle cpu, 25% idle memory against m5.large 50% idle cpu, 63% idle memory; r5.large 50% idle cpu, 81% idle memory"]
        );
        assert_eq!((up.tick, up.joins_at), (10, 40));
        let mut pods = up.pods.clone();
        pods.sort();
        let mut want = api.clone();
        want.sort();
        assert_eq!(pods, want);
        let g = v.groups.iter().find(|g| g.name == up.group).unwrap();
        assert_eq!((g.current, g.upcoming), (0, up.to - up.from));
        let said = for_pod(s.simulator(), &api[0]).unwrap();
        assert!(
            said.summary.starts_with(&format!(
                "triggered scale-up of {} by {} at tick 10",
                up.group,
                up.to - up.from
            )),
            "{}",
            said.summary
        );
        // The report pod asks for an instance type no group offers.
        let report = pending(&s, "report-");
        let no = for_pod(s.simulator(), &report[0]).unwrap();
        assert!(
            no.summary.starts_with("no node group helps"),
            "{}",
            no.summary
        );
        assert_eq!(no.no_scale_up.len(), 3);
        assert!(no
            .no_scale_up
            .iter()
            .all(|r| r.reason == "node(s) didn't match Pod's node affinity/selector"));

        // Tick 40: the nodes register and the api pods bind on them.
        s.run(39 - s.tick());
        assert_eq!(s.simulator().cluster().node_count(), 2);
        s.run(1);
        let added = (up.to - up.from) as usize;
        assert_eq!(s.simulator().cluster().node_count(), 2 + added);
        assert!(pending(&s, "api-").is_empty());
        let price: f64 = g.price_per_hour.as_deref().unwrap().parse().unwrap();
        let series = s.series();
        assert_eq!(series.nodes[39], 2);
        assert_eq!(series.nodes[40] as usize, 2 + added);
        assert!((series.cost_per_hour[39] - 0.192).abs() < 1e-9);
        assert!((series.cost_per_hour[40] - (0.192 + added as f64 * price)).abs() < 1e-9);
        // The node cards name each node's group.
        let snap = s.snapshot(true);
        let cards = snap.nodes.unwrap();
        assert!(cards
            .iter()
            .filter(|c| c.name.starts_with(&format!("{}-", up.group)))
            .all(|c| c.node_group.as_deref() == Some(up.group.as_str())));
        assert_eq!(
            cards
                .iter()
                .filter(|c| c.node_group.as_deref() == Some("m5.large"))
                .count(),
            2
        );

        // Back replays the same: the autoscaler starts again from the script.
        let at_40 = view(s.simulator()).unwrap();
        s.replay_to(5).unwrap();
        assert_eq!(view(s.simulator()).unwrap().scale_up_count, 0);
        s.replay_to(40).unwrap();
        assert_eq!(view(s.simulator()).unwrap(), at_40);
    }

    #[test]
    fn export_writes_the_kwok_configmaps_back_as_imported() {
        let (mut s, _) = import_session(EXAMPLE, 7).unwrap();
        s.run(45);
        let (out, _) = export_session(&s).unwrap();
        let im = shepherd_k8s::import(&out).unwrap();
        let first = shepherd_k8s::import(EXAMPLE).unwrap();
        assert_eq!(im.scenario.autoscaler, first.scenario.autoscaler);
        // And again, the same text: nothing drifts through the session
        // (the walk of www/examples/ in k8s/src/kept_tests.rs checks the
        // export of the import equals the input object by object).
        let (s2, _) = import_session(&out, 7).unwrap();
        assert_eq!(
            export_session(&s2)
                .unwrap()
                .0
                .matches("kind: ConfigMap")
                .count(),
            2
        );
    }
}
