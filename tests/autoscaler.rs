//! The simulated Cluster Autoscaler against its documented rules, each
//! expectation computed by hand (cluster-autoscaler FAQ; estimator/
//! binpacking_estimator.go; expander/; core/scaledown/;
//! cloudprovider/kwok/). One tick is one second; loops run every 10 s.

use shepherd::autoscaler::{
    Autoscaler, AutoscalerConfig, AutoscalerOptions, Blocker, Expander, GroupBy,
    KwokProviderConfig, NodeGroup,
};
use shepherd::quantity::MIB;
use shepherd::simulator::{Event, Prng, Simulator};
use shepherd::{
    BarePodSpec, Budget, DaemonSetSpec, DeploymentSpec, IntOrPercent, NodeSpec, PdbSpec,
    PodTemplate, PriorityClass, Resources, ScorePolicy, Selector, Taint, TaintEffect, Toleration,
};

const GIB: u64 = 1024 * MIB;

fn group(name: &str, cpu: u64, mem_gib: u64, min: u32, max: u32) -> NodeGroup {
    let t = NodeSpec::new(&format!("kwok-fake-{name}"), cpu, mem_gib * GIB)
        .with_label("kwok-nodegroup", name);
    NodeGroup::new(name, t, min, max)
}

fn config(groups: Vec<NodeGroup>) -> AutoscalerConfig {
    AutoscalerConfig {
        provider: Some(KwokProviderConfig {
            group_by: GroupBy::Label("kwok-nodegroup".into()),
            skip_taint: true,
            ..Default::default()
        }),
        groups,
        options: AutoscalerOptions {
            provisioning_delay: 30,
            ..Default::default()
        },
        ..Default::default()
    }
}

fn sim(cfg: AutoscalerConfig, seed: u64) -> Simulator {
    let mut s = Simulator::new(seed, ScorePolicy::LeastLoaded);
    s.set_autoscaler(Some(Autoscaler::new(cfg, seed).unwrap()));
    s
}

fn deploy(s: &mut Simulator, name: &str, n: u32, cpu: u64, mem_mib: u64) {
    s.submit(Event::Deploy(DeploymentSpec::new(
        name,
        n,
        Resources::new(cpu, mem_mib * MIB),
    )))
    .unwrap();
}

fn events(s: &Simulator, reason: &str) -> Vec<(String, String, String)> {
    s.cluster()
        .rendered_events()
        .into_iter()
        .filter(|e| e.reason == reason)
        .map(|e| (e.object.clone(), e.source_column(), e.message.clone()))
        .collect()
}

// ----- binpacking estimate -------------------------------------------------

/// 5 pods of 1500m on a 4-core template: kube-proxy takes 100m, 3900m
/// holds two pods, so 3 nodes (2+2+1).
#[test]
fn binpacking_counts_kube_proxy_and_packs_two_a_node() {
    let mut s = sim(config(vec![group("m-large", 4000, 16, 0, 10)]), 1);
    deploy(&mut s, "web", 5, 1500, 1024);
    s.run(10);
    let a = s.autoscaler().unwrap();
    assert_eq!(a.scale_ups().len(), 1);
    let up = &a.scale_ups()[0];
    assert_eq!(
        (up.group.as_str(), up.from, up.to, up.nodes.len()),
        ("m-large", 0, 3, 3)
    );
    assert_eq!(up.pods.len(), 5);
    let trig = events(&s, "TriggeredScaleUp");
    assert_eq!(trig.len(), 5);
    assert_eq!(trig[0].1, "cluster-autoscaler");
    assert_eq!(
        trig[0].2,
        "pod triggered scale-up: [{m-large 0->3 (max: 10)}]"
    );
    // The nodes register after the 30 s delay; then every pod is bound.
    s.run(29);
    assert_eq!(s.cluster().node_count(), 0);
    s.run(1);
    assert_eq!(s.cluster().node_count(), 3);
    assert_eq!(s.cluster().pending_count(), 0);
}

/// A DaemonSet of 1000m lands on every new node: 2900m is left, one pod of
/// 1500m a node, so 5 nodes.
#[test]
fn binpacking_counts_the_daemonset_pods_a_new_node_gets() {
    let mut s = sim(config(vec![group("m-large", 4000, 16, 0, 10)]), 1);
    s.submit(Event::CreateDaemonSet(DaemonSetSpec::new(
        "agent",
        PodTemplate::new(Resources::new(1000, 100 * MIB)),
    )))
    .unwrap();
    deploy(&mut s, "web", 5, 1500, 1024);
    s.run(10);
    let up = &s.autoscaler().unwrap().scale_ups()[0];
    assert_eq!(up.to, 5);
}

/// max-count bounds the estimate; the pods left say why.
#[test]
fn max_size_caps_the_scale_up_and_the_rest_did_not_trigger() {
    let mut s = sim(config(vec![group("small", 2000, 4, 0, 2)]), 1);
    // 1900m left a node: one pod of 1500m each, 4 pods, 2 nodes at most.
    deploy(&mut s, "web", 4, 1500, 100);
    s.run(10);
    let a = s.autoscaler().unwrap();
    assert_eq!(a.scale_ups()[0].to, 2);
    assert_eq!(a.scale_ups()[0].pods.len(), 2);
    assert_eq!(a.no_scale_up().len(), 2);
    let not = events(&s, "NotTriggerScaleUp");
    assert_eq!(not.len(), 2);
    assert_eq!(
        not[0].2,
        "pod didn't trigger scale-up: 1 max node group size reached"
    );
}

/// --max-nodes-total counts registered and asked-for nodes.
#[test]
fn max_nodes_total_limits_across_groups() {
    let mut cfg = config(vec![group("small", 2000, 4, 0, 10)]);
    cfg.options.max_nodes_total = 3;
    let mut s = sim(cfg, 1);
    s.submit(Event::AddNode(NodeSpec::new("fixed", 100, GIB)))
        .unwrap();
    deploy(&mut s, "web", 5, 1500, 100);
    s.run(10);
    let a = s.autoscaler().unwrap();
    assert_eq!(a.scale_ups()[0].to, 2, "3 total less the fixed node");
    assert_eq!(
        a.no_scale_up()[0].groups,
        vec![(
            "small".to_string(),
            "max cluster nodes limit reached".to_string()
        )]
    );
}

/// --cores-total: 10 cores in all; 2 registered leave 8, two 4-core nodes.
#[test]
fn cores_total_limits_the_nodes_added() {
    let mut cfg = config(vec![group("big", 4000, 8, 0, 10)]);
    cfg.options.cores_total = (0, 10);
    let mut s = sim(cfg, 1);
    s.submit(Event::AddNode(NodeSpec::new("fixed", 2000, GIB)))
        .unwrap();
    deploy(&mut s, "web", 6, 3000, 100);
    s.run(10);
    assert_eq!(s.autoscaler().unwrap().scale_ups()[0].to, 2);
}

/// --max-nodes-per-scaleup caps one scale-up; the next loop asks for more,
/// counting the nodes on their way.
#[test]
fn max_nodes_per_scaleup_then_next_loop_adds_the_rest() {
    let mut cfg = config(vec![group("small", 2000, 4, 0, 10)]);
    cfg.options.max_nodes_per_scaleup = 2;
    let mut s = sim(cfg, 1);
    deploy(&mut s, "web", 3, 1500, 100);
    s.run(20);
    let ups = s.autoscaler().unwrap().scale_ups();
    assert_eq!(ups.len(), 2);
    assert_eq!((ups[0].from, ups[0].to), (0, 2));
    assert_eq!((ups[1].from, ups[1].to, ups[1].tick), (2, 3, 20));
}

/// A pod that fits no template: NotTriggerScaleUp with the filter's reason
/// per group; nothing is added.
#[test]
fn a_pod_no_template_fits_names_every_groups_reason() {
    let mut tainted = group("gpu", 8000, 32, 0, 10);
    tainted
        .template
        .taints
        .push(Taint::new("gpu", "true", TaintEffect::NoSchedule));
    let mut s = sim(config(vec![group("small", 2000, 4, 0, 10), tainted]), 1);
    deploy(&mut s, "web", 1, 3000, 100);
    s.run(10);
    let a = s.autoscaler().unwrap();
    assert!(a.scale_ups().is_empty());
    let not = events(&s, "NotTriggerScaleUp");
    assert_eq!(
        not[0].2,
        "pod didn't trigger scale-up: 1 Insufficient cpu, 1 node(s) had untolerated taint(s)"
    );
}

/// The kwok provider's own taint unless skipTaint: nothing tolerates it.
#[test]
fn without_skip_taint_the_kwok_taint_blocks_scale_up() {
    let mut cfg = config(vec![]);
    let mut g = group("small", 2000, 4, 0, 10);
    g.template
        .taints
        .push(shepherd::autoscaler::nodegroup::kwok_provider_taint());
    cfg.groups.push(g);
    let mut s = sim(cfg, 1);
    deploy(&mut s, "web", 1, 100, 100);
    s.run(10);
    assert!(s.autoscaler().unwrap().scale_ups().is_empty());
    // A pod that tolerates it makes the group usable.
    let mut cfg = config(vec![]);
    let mut g = group("small", 2000, 4, 0, 10);
    g.template
        .taints
        .push(shepherd::autoscaler::nodegroup::kwok_provider_taint());
    cfg.groups.push(g);
    let mut s = sim(cfg, 1);
    s.submit(Event::Deploy(
        DeploymentSpec::new("web", 1, Resources::new(100, 100 * MIB))
            .with_template(|t| t.with_toleration(Toleration::exists("kwok-provider", None))),
    ))
    .unwrap();
    s.run(10);
    assert_eq!(s.autoscaler().unwrap().scale_ups().len(), 1);
}

/// Pods under the expendable cutoff (-10) trigger nothing.
#[test]
fn expendable_pods_never_trigger_a_scale_up() {
    let mut s = sim(config(vec![group("small", 2000, 4, 0, 10)]), 1);
    s.submit(Event::AddPriorityClass(PriorityClass::new("low", -11)))
        .unwrap();
    s.submit(Event::Deploy(
        DeploymentSpec::new("batch", 2, Resources::new(1000, 100 * MIB))
            .with_template(|t| t.with_priority_class("low")),
    ))
    .unwrap();
    s.run(30);
    assert!(s.autoscaler().unwrap().scale_ups().is_empty());
    assert!(events(&s, "NotTriggerScaleUp").is_empty());
}

// ----- expanders ------------------------------------------------------------

/// Two groups for 4 pods of 1000m / 1 GiB:
/// - small (2 cores, 4 GiB): 1900m left, one pod a node, 4 nodes;
///   waste (over capacity, as waste.go) cpu (8000-4000)/8000 = 50%,
///   memory (16-4)/16 = 75%: 1.25.
/// - large (8 cores, 8 GiB): 7900m, 4 pods on one node;
///   waste cpu 4000/8000 = 50%, memory 4/8 = 50%: 1.00.
fn two_groups() -> Vec<NodeGroup> {
    vec![
        group("small", 2000, 4, 0, 10).with_price_micros(50_000),
        group("large", 8000, 8, 0, 10).with_price_micros(300_000),
    ]
}

fn first_choice(expanders: &[Expander], priorities: Vec<(i32, Vec<String>)>) -> String {
    let mut cfg = config(two_groups());
    cfg.options.expanders = expanders.to_vec();
    cfg.priorities = priorities;
    let mut s = sim(cfg, 7);
    deploy(&mut s, "web", 4, 1000, 1024);
    s.run(10);
    s.autoscaler().unwrap().scale_ups()[0].group.clone()
}

#[test]
fn least_waste_picks_the_lower_idle_share() {
    assert_eq!(first_choice(&[Expander::LeastWaste], vec![]), "large");
}

#[test]
fn most_pods_ties_fall_to_random() {
    // Both take all 4 pods: a tie, decided by the seeded random fallback;
    // the same seed decides the same way.
    let a = first_choice(&[Expander::MostPods], vec![]);
    let b = first_choice(&[Expander::MostPods], vec![]);
    assert_eq!(a, b);
}

/// price: small costs 4 x 0.05 = 0.2 for 4 pods (0.05 a pod), large 0.3
/// (0.075 a pod).
#[test]
fn price_picks_the_cheaper_per_pod() {
    assert_eq!(first_choice(&[Expander::Price], vec![]), "small");
}

#[test]
fn priority_picks_the_highest_matching_tier_then_chains() {
    let tiers = vec![
        (50, vec!["^sm.*".to_string()]),
        (10, vec![".*".to_string()]),
    ];
    assert_eq!(first_choice(&[Expander::Priority], tiers.clone()), "small");
    // Both in one tier: least-waste decides.
    let tie = vec![(10, vec!["small|large".to_string()])];
    assert_eq!(
        first_choice(&[Expander::Priority, Expander::LeastWaste], tie),
        "large"
    );
}

#[test]
fn random_is_seeded() {
    let picks: Vec<String> = (0..2)
        .map(|_| first_choice(&[Expander::Random], vec![]))
        .collect();
    assert_eq!(picks[0], picks[1]);
}

// ----- scale-down -------------------------------------------------------------

/// A node group of 2 nodes with one small pod each: both under 50%; the
/// first found unneeded at the first loop after the scale-up delay is
/// removed 10 min later, its pod moving to the other.
fn two_nodes_one_pod_each(min: u32) -> Simulator {
    let g = group("small", 2000, 4, min, 10);
    let mut cfg = config(vec![g.clone()]);
    for n in ["small-a", "small-b"] {
        cfg.members.insert(n.into(), "small".into());
    }
    let mut s = sim(cfg, 3);
    for n in ["small-a", "small-b"] {
        let mut spec = g.template.clone();
        spec.name = n.into();
        s.submit(Event::AddNode(spec)).unwrap();
    }
    deploy(&mut s, "web", 2, 200, 100);
    s
}

#[test]
fn an_unneeded_node_goes_after_scale_down_unneeded_time() {
    let mut s = two_nodes_one_pod_each(0);
    // Spread puts one pod on each node. Unneeded from the loop at tick 10.
    s.run(10);
    let a = s.autoscaler().unwrap();
    let v = a.verdicts();
    assert_eq!(v.len(), 2);
    assert!(v[0].blocker.is_none(), "{:?}", v[0]);
    // small-b's pod could only move to small-a, which is already going.
    assert!(
        matches!(v[1].blocker, Some(Blocker::NoPlaceToMovePods(_))),
        "{:?}",
        v[1]
    );
    assert_eq!(a.unneeded_since("small-a"), Some(10));
    s.run(599);
    assert_eq!(s.cluster().node_count(), 2, "not before 600 s");
    s.run(1);
    assert_eq!(s.cluster().node_count(), 1);
    let a = s.autoscaler().unwrap();
    assert_eq!(a.scale_downs()[0].node, "small-a");
    assert_eq!(a.scale_downs()[0].tick, 610);
    assert_eq!(s.cluster().pending_count(), 0);
    let down = events(&s, "ScaleDown");
    assert_eq!(
        down[0],
        (
            "node/small-a".into(),
            "cluster-autoscaler".into(),
            "marked the node as toBeDeleted/unschedulable".into()
        )
    );
    assert_eq!(down[1].2, "deleting pod for node scale down");
}

#[test]
fn min_size_keeps_the_nodes() {
    let mut s = two_nodes_one_pod_each(2);
    s.run(700);
    assert_eq!(s.cluster().node_count(), 2);
    assert_eq!(
        s.autoscaler().unwrap().verdicts()[0].blocker,
        Some(Blocker::MinSize)
    );
}

#[test]
fn a_pdb_with_no_disruption_allowed_blocks() {
    let mut s = two_nodes_one_pod_each(0);
    s.submit(Event::AddPdb(PdbSpec {
        name: "web".into(),
        selector: Selector::new(&[("app", "web")]),
        budget: Budget::MinAvailable(IntOrPercent::Int(2)),
    }))
    .unwrap();
    s.run(700);
    assert_eq!(s.cluster().node_count(), 2);
    assert!(matches!(
        s.autoscaler().unwrap().verdicts()[0].blocker,
        Some(Blocker::NotEnoughPdb(..))
    ));
}

#[test]
fn a_bare_pod_and_safe_to_evict_false_and_local_storage_block() {
    let mut s = two_nodes_one_pod_each(0);
    s.submit(Event::CreatePod(BarePodSpec {
        name: "lonely".into(),
        template: PodTemplate::new(Resources::new(100, MIB)),
        node_name: Some("small-a".into()),
    }))
    .unwrap();
    s.run(700);
    let v = s.autoscaler().unwrap().verdicts().to_vec();
    assert_eq!(v[0].blocker, Some(Blocker::NotReplicated("lonely".into())));
    // Marked safe to evict: nothing blocks any more.
    let mut s2 = two_nodes_one_pod_each(0);
    let mut cfg = s2.autoscaler().unwrap().config().clone();
    cfg.not_safe_to_evict.insert("web".into());
    s2.set_autoscaler(Some(Autoscaler::new(cfg.clone(), 3).unwrap()));
    s2.run(700);
    assert_eq!(s2.cluster().node_count(), 2);
    assert!(matches!(
        s2.autoscaler().unwrap().verdicts()[0].blocker,
        Some(Blocker::NotSafeToEvict(_))
    ));
    cfg.not_safe_to_evict.clear();
    cfg.local_storage.insert("web".into());
    let mut s3 = two_nodes_one_pod_each(0);
    s3.set_autoscaler(Some(Autoscaler::new(cfg, 3).unwrap()));
    s3.run(700);
    assert!(matches!(
        s3.autoscaler().unwrap().verdicts()[0].blocker,
        Some(Blocker::LocalStorageRequested(_))
    ));
}

#[test]
fn a_busy_node_is_not_unneeded() {
    let mut s = two_nodes_one_pod_each(0);
    // 1100m of 2000m on each node: 55%.
    s.submit(Event::Scale {
        app: "web".into(),
        replicas: 2,
    })
    .unwrap();
    deploy(&mut s, "big", 2, 900, 100);
    s.run(10);
    let v = s.autoscaler().unwrap().verdicts().to_vec();
    assert_eq!(v[0].blocker, Some(Blocker::NotUnderutilized(550)));
}

/// After a scale-up, no scale-down for --scale-down-delay-after-add.
#[test]
fn scale_down_waits_after_a_scale_up() {
    let mut s = sim(config(vec![group("small", 2000, 4, 0, 10)]), 1);
    deploy(&mut s, "web", 2, 1500, 100);
    s.run(40);
    assert_eq!(s.cluster().node_count(), 2);
    s.submit(Event::Scale {
        app: "web".into(),
        replicas: 0,
    })
    .unwrap();
    // Empty from tick 41: unneeded from the loop at 50; delay-after-add
    // ends at 10 + 600 = 610; unneeded-time at 50 + 600 = 650.
    s.run(608);
    assert_eq!(s.cluster().node_count(), 2);
    s.run(2);
    assert_eq!(
        s.cluster().node_count(),
        0,
        "both empty nodes go in bulk at 650"
    );
    let a = s.autoscaler().unwrap();
    assert!(a.scale_downs().iter().all(|d| d.empty && d.tick == 650));
    assert_eq!(events(&s, "ScaleDownEmpty").len(), 2);
}

// ----- determinism and the property -------------------------------------------

/// After settling: every Pending pod fits no group's template (or its group
/// is full), and no node CA would find unneeded is left past its time.
#[test]
fn randomized_settled_state_satisfies_cas_rules() {
    let runs = std::env::var("SHEPHERD_FUZZ_OPS")
        .ok()
        .and_then(|s| s.parse().ok())
        .unwrap_or(12u64);
    let seed0 = std::env::var("SHEPHERD_SEED")
        .ok()
        .and_then(|s| s.parse().ok())
        .unwrap_or(0xa5ca1e);
    let (mut ups, mut downs) = (0usize, 0usize);
    for k in 0..runs {
        let seed = seed0 + k;
        eprintln!("seed {seed} (SHEPHERD_SEED={seed} SHEPHERD_FUZZ_OPS=1 cargo test -p shepherd --test autoscaler randomized)");
        let mut r = Prng::new(seed);
        let mut groups = Vec::new();
        for i in 0..r.range(1, 3) {
            groups.push(group(
                &format!("g{i}"),
                r.range(1, 8) * 1000,
                r.range(1, 16),
                0,
                r.range(1, 6) as u32,
            ));
        }
        let mut cfg = config(groups);
        cfg.options.provisioning_delay = r.range(0, 60);
        cfg.options.expanders =
            vec![[Expander::Random, Expander::MostPods, Expander::LeastWaste][r.below(3) as usize]];
        let mut s = sim(cfg, seed);
        for i in 0..r.range(1, 5) {
            // A pod bigger than every template is refused: fine.
            let _ = s.submit(Event::Deploy(DeploymentSpec::new(
                &format!("app{i}"),
                r.range(1, 12) as u32,
                Resources::new(r.range(1, 40) * 100, r.range(1, 40) * 256 * MIB),
            )));
        }
        s.run(300);
        // Shrink and let it settle past the unneeded time.
        for i in 0..2 {
            let _ = s.submit(Event::Scale {
                app: format!("app{i}"),
                replicas: r.range(0, 3) as u32,
            });
        }
        s.run(1500);
        let a = s.autoscaler().unwrap();
        let c = s.cluster();
        ups += a.scale_ups().len();
        downs += a.scale_downs().len();
        let sizes = a.sizes(c);
        let templates = a.template_nodes(c);
        for p in c.pending_pods() {
            for (gi, g) in a.config().groups.iter().enumerate() {
                let fits =
                    shepherd::autoscaler::estimate::static_reason(&g.template, false, p.template)
                        .is_none()
                        && templates[gi].room.short(p.template).is_none();
                assert!(
                    !fits || sizes[gi] >= g.max_size,
                    "seed {seed}: pending {} fits group {} ({} of max {})",
                    p.name(),
                    g.name,
                    sizes[gi],
                    g.max_size
                );
            }
        }
        let now = c.now();
        for v in a.verdicts() {
            if v.blocker.is_none() {
                let since = a.unneeded_since(&v.node).unwrap();
                assert!(
                    now < since + a.config().options.scale_down_unneeded_time + 10,
                    "seed {seed}: {} unneeded since {since}, still there at {now}",
                    v.node
                );
            }
        }
        // Independently, from the pods: a group node that CA's rules would
        // let go on its own (under half used in cpu and memory, its group
        // above min, each of its pods fitting another node) is found
        // unneeded, or another node is (the pass takes them in turn).
        let any_unneeded = a.verdicts().iter().any(|v| v.blocker.is_none());
        for n in c.nodes() {
            let Some(g) = a.group_of(n.spec) else {
                continue;
            };
            let (mut cpu, mut mem) = (0u64, 0u64);
            let pods: Vec<_> = c.pods_on(n.id).collect();
            for p in &pods {
                cpu += p.template.requests.cpu_millis;
                mem += p.template.requests.memory_bytes;
            }
            let under =
                cpu * 2 < n.spec.capacity.cpu_millis && mem * 2 < n.spec.capacity.memory_bytes;
            if !under || sizes[g] <= a.config().groups[g].min_size {
                continue;
            }
            let mut free: Vec<(u64, u64, u32, &str)> = c
                .nodes()
                .filter(|o| o.id != n.id && o.ready)
                .map(|o| {
                    (
                        o.spec.capacity.cpu_millis - o.allocated.cpu_millis,
                        o.spec.capacity.memory_bytes - o.allocated.memory_bytes,
                        o.spec.max_pods - o.pod_count,
                        o.spec.name.as_str(),
                    )
                })
                .collect();
            let movable = pods.iter().all(|p| {
                let r = p.template.requests;
                match free
                    .iter_mut()
                    .find(|f| f.0 >= r.cpu_millis && f.1 >= r.memory_bytes && f.2 > 0)
                {
                    Some(f) => {
                        f.0 -= r.cpu_millis;
                        f.1 -= r.memory_bytes;
                        f.2 -= 1;
                        true
                    }
                    None => false,
                }
            });
            if movable {
                assert!(
                    any_unneeded,
                    "seed {seed}: {} could go by CA's rules but no node is unneeded at {now}: {:?}",
                    n.spec.name,
                    a.verdicts()
                );
            }
        }
    }
    eprintln!("{runs} runs: {ups} scale-ups, {downs} scale-downs");
    if runs >= 12 {
        assert!(ups > 0 && downs > 0, "the sweep exercises both directions");
    }
}

#[test]
fn same_seed_same_decisions() {
    let run = || {
        let mut cfg = config(two_groups());
        cfg.options.expanders = vec![Expander::Random];
        let mut s = sim(cfg, 11);
        deploy(&mut s, "web", 9, 700, 512);
        s.run(100);
        (
            s.autoscaler().unwrap().scale_ups().to_vec(),
            s.cluster().rendered_events(),
        )
    };
    assert_eq!(run(), run());
}

/// One loop's scale-up decision at 5,000 full nodes, 10,000 Pending pods
/// and five groups (issue 46 asks for under 500 ms natively). Run with
/// `cargo test -p shepherd --release --test autoscaler -- --ignored --nocapture one_scan`.
#[test]
#[ignore]
fn one_scan_at_5000_nodes_10000_pending_five_groups() {
    let groups: Vec<NodeGroup> = (0..5)
        .map(|i| group(&format!("g{i}"), (i + 1) * 2000, (i + 1) * 4, 0, 5000))
        .collect();
    let mut s = sim(config(groups), 1);
    for i in 0..5000 {
        s.submit(Event::AddNode(NodeSpec::new(
            &format!("n{i}"),
            1000,
            2 * GIB,
        )))
        .unwrap();
    }
    // Fill every node, then 10,000 pods more, in 100 Deployments.
    deploy(&mut s, "fill", 5000, 1000, 100);
    for k in 0..100 {
        deploy(
            &mut s,
            &format!("app{k}"),
            100,
            100 + (k % 7) * 100,
            128 + (k % 5) * 256,
        );
    }
    s.run(9);
    assert_eq!(s.cluster().pending_count(), 10_000);
    let t = std::time::Instant::now();
    s.step(); // tick 10: the loop
    let took = t.elapsed();
    let a = s.autoscaler().unwrap();
    eprintln!(
        "one loop (with its tick) at 5,000 nodes / 10,000 Pending / 5 groups: {took:.2?}; scale-up {:?}",
        a.scale_ups().iter().map(|u| (&u.group, u.to)).collect::<Vec<_>>()
    );
    assert_eq!(a.scale_ups().len(), 1);
    // Its template-node check alone (a copy of the cluster, five template
    // nodes, 100 pod classes filtered on each).
    let t = std::time::Instant::now();
    let v = a.template_verdicts(s.cluster(), s.profile());
    eprintln!(
        "the template-node check of 100 pod classes on 5 groups: {:.2?}",
        t.elapsed()
    );
    assert_eq!(v.len(), 100);
}

/// The same loop where 10 of the 100 Deployments (1,000 pods) spread over
/// the hostname with maxSkew 1 (DoNotSchedule): the estimate filters each
/// pod on the new nodes (a copy of the cluster per group). Run with
/// `cargo test -p shepherd --release --test autoscaler -- --ignored --nocapture one_scan`.
#[test]
#[ignore]
fn one_scan_at_5000_nodes_with_spread_pods_filtered() {
    let groups: Vec<NodeGroup> = (0..5)
        .map(|i| group(&format!("g{i}"), (i + 1) * 2000, (i + 1) * 4, 0, 5000))
        .collect();
    let mut s = sim(config(groups), 1);
    for i in 0..5000 {
        let n = format!("n{i}");
        s.submit(Event::AddNode(
            NodeSpec::new(&n, 1000, 2 * GIB).with_label("kubernetes.io/hostname", &n),
        ))
        .unwrap();
    }
    deploy(&mut s, "fill", 5000, 1000, 100);
    for k in 0..100 {
        let app = format!("app{k}");
        let spec = DeploymentSpec::new(
            &app,
            100,
            Resources::new(100 + (k % 7) * 100, (128 + (k % 5) * 256) * MIB),
        );
        let spec = if k % 10 == 0 {
            let sel = Selector::new(&[("app", app.as_str())]);
            spec.with_template(|t| {
                t.with_label("app", &app).with_topology_spread(
                    shepherd::TopologySpreadConstraint::new(
                        1,
                        "kubernetes.io/hostname",
                        shepherd::WhenUnsatisfiable::DoNotSchedule,
                        sel.clone(),
                    ),
                )
            })
        } else {
            spec
        };
        s.submit(Event::Deploy(spec)).unwrap();
    }
    s.run(9);
    assert_eq!(s.cluster().pending_count(), 10_000);
    let t = std::time::Instant::now();
    s.step();
    let took = t.elapsed();
    let a = s.autoscaler().unwrap();
    eprintln!(
        "one loop at 5,000 nodes / 10,000 Pending (1,000 with hostname spread) / 5 groups: {took:.2?}; scale-up {:?}",
        a.scale_ups().iter().map(|u| (&u.group, u.to, u.pods.len())).collect::<Vec<_>>()
    );
    assert_eq!(a.scale_ups().len(), 1);
}

/// A kube-system pod blocks its node unless a budget covers it.
#[test]
fn a_kube_system_pod_without_a_pdb_blocks() {
    let mut s = two_nodes_one_pod_each(0);
    s.submit(Event::AddNamespace(shepherd::NamespaceSpec::new(
        "kube-system",
    )))
    .unwrap();
    s.submit(Event::CreatePod(BarePodSpec {
        name: "kube-system/dns".into(),
        template: PodTemplate::new(Resources::new(100, MIB)),
        node_name: None,
    }))
    .unwrap();
    s.run(10);
    let blockers: Vec<_> = s
        .autoscaler()
        .unwrap()
        .verdicts()
        .iter()
        .map(|v| v.blocker.clone())
        .collect();
    // The bare pod is NotReplicated before the kube-system rule is asked;
    // a Deployment's pod in kube-system is the rule's case.
    assert!(
        blockers.contains(&Some(Blocker::NotReplicated("kube-system/dns".into()))),
        "{blockers:?}"
    );
    let mut s = two_nodes_one_pod_each(0);
    s.submit(Event::Deploy(DeploymentSpec::new(
        "kube-system/dns",
        1,
        Resources::new(100, MIB),
    )))
    .unwrap();
    s.run(10);
    let v = s.autoscaler().unwrap().verdicts().to_vec();
    assert!(
        v.iter().any(|v| matches!(&v.blocker, Some(Blocker::UnmovableKubeSystemPod(p)) if p.starts_with("kube-system/dns"))),
        "{v:?}"
    );
    // A budget that allows the disruption lifts it.
    s.submit(Event::AddPdb(PdbSpec {
        name: "kube-system/dns".into(),
        selector: Selector::new(&[("app", "dns")]),
        budget: Budget::MaxUnavailable(IntOrPercent::Int(1)),
    }))
    .unwrap();
    s.run(10);
    let v = s.autoscaler().unwrap().verdicts().to_vec();
    assert!(
        !v.iter()
            .any(|v| matches!(&v.blocker, Some(Blocker::UnmovableKubeSystemPod(_)))),
        "{v:?}"
    );
}

/// A pod told the same thing every loop adds to its event's count, not to
/// the log.
#[test]
fn repeated_not_trigger_scale_up_is_counted_not_repeated() {
    let mut s = sim(config(vec![group("small", 2000, 4, 0, 10)]), 1);
    deploy(&mut s, "web", 1, 100, 100);
    s.submit(Event::Deploy(
        DeploymentSpec::new("huge", 1, Resources::new(1500, 100 * MIB))
            .with_template(|t| t.with_node_selector("disk", "ssd")),
    ))
    .unwrap();
    s.run(50);
    let recs: Vec<_> = s
        .cluster()
        .events()
        .iter()
        .filter(|e| e.reason.as_str() == "NotTriggerScaleUp")
        .collect();
    assert_eq!(recs.len(), 1, "one record");
    assert_eq!(recs[0].count, 5, "five loops");
}

// ----- Karpenter's preview ----------------------------------------------------

mod karpenter {
    use super::*;
    use shepherd::autoscaler::karpenter::{
        consolidation, provision, Consolidation, InstanceType, NodePool, INSTANCE_TYPE_LABEL,
        NODEPOOL_LABEL,
    };
    use shepherd::{NodeSelectorOperator, NodeSelectorRequirement};

    fn it(name: &str, cpu: u64, mem_gib: u64, price: u64) -> InstanceType {
        InstanceType {
            name: name.into(),
            node: NodeSpec::new(name, cpu, mem_gib * GIB).with_label(INSTANCE_TYPE_LABEL, name),
            price_micros: price,
        }
    }

    fn pool(types: &[&str]) -> NodePool {
        NodePool {
            name: "default".into(),
            requirements: vec![NodeSelectorRequirement::new(
                INSTANCE_TYPE_LABEL,
                NodeSelectorOperator::In,
                types,
            )],
            instance_types: vec![it("small", 2000, 4, 50_000), it("large", 8000, 16, 300_000)],
            limit_cpu_millis: None,
        }
    }

    /// 4 pods of 1500m: the first claim could be either type; the second
    /// pod narrows it to large (small keeps 400m after kube-proxy and the
    /// first pod), which then takes all four (7900m).
    #[test]
    fn first_fit_decreasing_packs_one_claim_and_launches_the_cheapest_type_left() {
        let mut s = Simulator::new(1, ScorePolicy::LeastLoaded);
        deploy(&mut s, "web", 4, 1500, 512);
        s.run(1);
        let p = provision(s.cluster(), &pool(&["small", "large"]));
        assert_eq!(p.claims.len(), 1);
        assert_eq!(p.claims[0].instance_type, "large");
        assert_eq!(p.claims[0].pods.len(), 4);
        // Requirements that allow small alone: one small a pod.
        let p = provision(s.cluster(), &pool(&["small"]));
        assert_eq!(p.claims.len(), 4);
        assert!(p.claims.iter().all(|c| c.instance_type == "small"));
    }

    #[test]
    fn consolidation_deletes_replaces_or_says_why_not() {
        let mut s = Simulator::new(1, ScorePolicy::BinPack);
        for n in ["a", "b"] {
            s.submit(Event::AddNode(
                NodeSpec::new(n, 8000, 16 * GIB)
                    .with_label(NODEPOOL_LABEL, "default")
                    .with_label(INSTANCE_TYPE_LABEL, "large"),
            ))
            .unwrap();
        }
        s.submit(Event::CreatePod(BarePodSpec {
            name: "one".into(),
            template: PodTemplate::new(Resources::new(500, MIB)),
            node_name: Some("a".into()),
        }))
        .unwrap();
        for k in 0..3 {
            s.submit(Event::CreatePod(BarePodSpec {
                name: format!("big-{k}"),
                template: PodTemplate::new(Resources::new(2500, MIB)),
                node_name: Some("b".into()),
            }))
            .unwrap();
        }
        s.run(2);
        let v = consolidation(s.cluster(), &pool(&["small", "large"]));
        // a (1 pod) first: its pod fits on b. Then b: 7500m fits nowhere
        // (a is going) and no small holds it.
        assert_eq!(v[0], ("a".to_string(), Consolidation::Delete));
        assert_eq!(
            v[1],
            (
                "b".to_string(),
                Consolidation::Unconsolidatable("can't replace with a cheaper node".into())
            )
        );
    }

    #[test]
    fn consolidation_replaces_with_a_cheaper_type() {
        let mut s = Simulator::new(1, ScorePolicy::BinPack);
        s.submit(Event::AddNode(
            NodeSpec::new("a", 8000, 16 * GIB)
                .with_label(NODEPOOL_LABEL, "default")
                .with_label(INSTANCE_TYPE_LABEL, "large"),
        ))
        .unwrap();
        s.submit(Event::CreatePod(BarePodSpec {
            name: "one".into(),
            template: PodTemplate::new(Resources::new(500, MIB)),
            node_name: Some("a".into()),
        }))
        .unwrap();
        s.run(2);
        let v = consolidation(s.cluster(), &pool(&["small", "large"]));
        assert_eq!(
            v[0].1,
            Consolidation::Replace {
                instance_type: "small".into(),
                saving_micros: 250_000
            }
        );
    }
}

/// A tick run in slices (the page's way) is the tick `step` makes, the
/// autoscaler's loop included.
#[test]
fn sliced_ticks_decide_as_whole_ticks() {
    let run = |sliced: bool| {
        let mut cfg = config(two_groups());
        cfg.options.expanders = vec![Expander::Random];
        cfg.options.provisioning_delay = 5;
        let mut s = sim(cfg, 5);
        deploy(&mut s, "web", 9, 700, 512);
        for _ in 0..1400 {
            if sliced {
                while s.step_slice(3).is_none() {}
            } else {
                s.step();
            }
            if s.tick() == 60 {
                s.submit(Event::Scale {
                    app: "web".into(),
                    replicas: 0,
                })
                .unwrap();
            }
        }
        (
            s.autoscaler().unwrap().scale_ups().to_vec(),
            s.autoscaler().unwrap().scale_downs().to_vec(),
            s.cluster().rendered_events(),
        )
    };
    let whole = run(false);
    assert!(
        !whole.0.is_empty() && !whole.1.is_empty(),
        "it scales up and down"
    );
    assert_eq!(whole, run(true));
}

/// The fewest-nodes answer (open-simulator's question) at the envelope's
/// scale: (a) 5,000 full nodes and 10,000 Pending pods in 100
/// Deployments; (b) a 5,000-node cluster's workload, 150,000 Pending pods
/// in 1,000 Deployments, on template nodes alone (the answer is thousands
/// of nodes). Issue 46 asks for under 2 s natively. Run with
/// `cargo test -p shepherd --release --test autoscaler -- --ignored --nocapture fewest_nodes_at`.
#[test]
#[ignore]
fn fewest_nodes_at_5000_nodes() {
    use shepherd::autoscaler::capacity::fewest_nodes;
    let template = NodeSpec::new("kwok-fake-m", 16_000, 64 * GIB).with_label("kwok-nodegroup", "m");
    // (a)
    let mut s = sim(config(vec![group("m", 16_000, 64, 0, 10_000)]), 1);
    for i in 0..5000 {
        s.submit(Event::AddNode(NodeSpec::new(
            &format!("n{i}"),
            1000,
            2 * GIB,
        )))
        .unwrap();
    }
    deploy(&mut s, "fill", 5000, 1000, 100);
    for k in 0..100 {
        deploy(
            &mut s,
            &format!("app{k}"),
            100,
            100 + (k % 7) * 100,
            128 + (k % 5) * 256,
        );
    }
    s.run(2);
    assert_eq!(s.cluster().pending_count(), 10_000);
    let t = std::time::Instant::now();
    let (n, left) = fewest_nodes(s.cluster(), &template);
    let took_a = t.elapsed();
    assert!(left.is_empty());
    // By hand: 10,000 pods of 100..700m in 100 Deployments, 400m on
    // average (14 apps of each size x 100 pods, 15 of 100m and 200m):
    // 100 x (15x100 + 15x200 + 14x(300+400+500+600+700)) = 3,950,000m,
    // on 15,900m a node (kube-proxy's 100m): at least 249 nodes.
    assert!(n >= 249, "{n}");
    eprintln!("fewest nodes, 5,000 full nodes + 10,000 Pending: {n} nodes in {took_a:.2?}");
    // (b)
    let mut s = sim(config(vec![group("m", 16_000, 64, 0, 10_000)]), 1);
    for k in 0..1000 {
        deploy(
            &mut s,
            &format!("app{k}"),
            150,
            100 + (k % 7) * 100,
            128 + (k % 5) * 256,
        );
    }
    s.run(2);
    assert_eq!(s.cluster().pending_count(), 150_000);
    let t = std::time::Instant::now();
    let (n, left) = fewest_nodes(s.cluster(), &template);
    let took_b = t.elapsed();
    assert!(left.is_empty());
    eprintln!("fewest nodes, 150,000 Pending on template nodes alone: {n} nodes in {took_b:.2?}");
    assert!(n >= 3_700, "{n}");
}

/// The binpacking estimate's shortcut (a pod like the one before starts
/// its first fit where that one went) gives exactly plain first fit's
/// answer: random pods from a few shapes, labels and anti-affinity,
/// against first fit written out here. Seeded; `SHEPHERD_FUZZ_OPS` cases.
#[test]
fn binpack_equals_plain_first_fit() {
    use shepherd::autoscaler::estimate::{anti_affine, binpack, template_node, Room};
    let runs = std::env::var("SHEPHERD_FUZZ_OPS")
        .ok()
        .and_then(|s| s.parse().ok())
        .unwrap_or(200u64);
    let seed0 = std::env::var("SHEPHERD_SEED")
        .ok()
        .and_then(|s| s.parse().ok())
        .unwrap_or(0xb1a);
    for k in 0..runs {
        let seed = seed0 + k;
        let mut r = Prng::new(seed);
        let t = NodeSpec::new("kwok-fake-t", 1000 * r.range(2, 8), GIB * r.range(2, 16));
        let base = template_node(&t, &[]);
        let mut pods = Vec::new();
        for _ in 0..r.range(0, 60) {
            let shape = r.below(4);
            let mut p = PodTemplate::new(Resources::new(
                250 * (shape + 1),
                256 * MIB * (shape % 3 + 1),
            ));
            p = p.with_label("app", &format!("a{}", r.below(3)));
            if r.below(5) == 0 {
                p.anti_affinity.push(shepherd::AffinityTerm::new(
                    Selector::new(&[("app", &format!("a{}", r.below(3)))]),
                    Some(shepherd::model::HOSTNAME_KEY),
                ));
            }
            pods.push(p);
        }
        let list: Vec<(usize, &PodTemplate)> = pods.iter().enumerate().collect();
        let max = r.range(1, 40) as u32;
        // Plain first fit in binpack's order.
        let alloc = Room::of(&t);
        let score = |p: &PodTemplate| {
            p.requests.cpu_millis as u128 * 1_000_000 / alloc.cpu as u128
                + p.requests.memory_bytes as u128 * 1_000_000 / alloc.mem as u128
        };
        let mut order: Vec<&(usize, &PodTemplate)> = list.iter().collect();
        order.sort_by(|a, b| score(b.1).cmp(&score(a.1)));
        let mut nodes: Vec<(Room, Vec<&PodTemplate>)> = Vec::new();
        let mut want = Vec::new();
        for &&(i, p) in &order {
            if let Some(n) = nodes
                .iter_mut()
                .find(|n| n.0.short(p).is_none() && !anti_affine(p, &n.1))
            {
                n.0.take(p);
                n.1.push(p);
                want.push(i);
            } else if (nodes.len() as u32) < max && base.room.short(p).is_none() {
                let mut room = base.room;
                room.take(p);
                nodes.push((room, vec![p]));
                want.push(i);
            }
        }
        want.sort_unstable();
        assert_eq!(
            binpack(&t, &base, &list, max),
            (nodes.len() as u32, want),
            "seed {seed} (SHEPHERD_SEED={seed} SHEPHERD_FUZZ_OPS=1 cargo test -p shepherd --test autoscaler binpack_equals)"
        );
    }
}

// ----- the template-node check with every filter ---------------------------

const ZONE: &str = "topology.kubernetes.io/zone";

fn zoned_group(name: &str, zone: &str) -> NodeGroup {
    let mut g = group(name, 4000, 8, 0, 10);
    g.template = g
        .template
        .with_label(ZONE, zone)
        .with_label("kubernetes.io/hostname", name);
    g
}

fn zoned_node(s: &mut Simulator, name: &str, zone: &str, cpu: u64) {
    s.submit(Event::AddNode(
        NodeSpec::new(name, cpu, 8 * GIB)
            .with_label(ZONE, zone)
            .with_label("kubernetes.io/hostname", name),
    ))
    .unwrap();
}

/// A `db` pod on each of the two nodes (not in a group); `web` refuses
/// every node holding a `db` pod (required anti-affinity over the
/// hostname), so it is Pending with room to spare. The template node holds
/// no `db` pod: the group helps, one node.
#[test]
fn required_anti_affinity_against_every_node_scales_up_a_group_that_fits() {
    let mut s = sim(config(vec![zoned_group("g", "a")]), 1);
    zoned_node(&mut s, "n1", "a", 4000);
    zoned_node(&mut s, "n2", "a", 4000);
    let db = Selector::new(&[("app", "db")]);
    s.submit(Event::Deploy(
        DeploymentSpec::new("db", 2, Resources::new(100, 100 * MIB)).with_template(|t| {
            t.with_label("app", "db")
                .with_anti_affinity(shepherd::AffinityTerm::new(db.clone(), None))
        }),
    ))
    .unwrap();
    s.run(2);
    assert_eq!(s.cluster().pending_count(), 0, "one db pod a node");
    s.submit(Event::Deploy(
        DeploymentSpec::new("web", 1, Resources::new(100, 100 * MIB)).with_template(|t| {
            t.with_label("app", "web")
                .with_anti_affinity(shepherd::AffinityTerm::new(db.clone(), None))
        }),
    ))
    .unwrap();
    s.run(8);
    let a = s.autoscaler().unwrap();
    assert_eq!(a.scale_ups().len(), 1);
    assert_eq!(
        (a.scale_ups()[0].group.as_str(), a.scale_ups()[0].to),
        ("g", 1)
    );
    assert!(a.scale_ups()[0].pods[0].starts_with("web-"));
    s.run(30);
    assert_eq!(s.cluster().pending_count(), 0, "web runs on the new node");
}

/// The same `web` refusing `db` over the zone: the zone-a template node
/// is in the zone of both `db` pods (InterPodAffinity rejects it, which a
/// check of the template alone would miss); the zone-b group is chosen.
#[test]
fn required_anti_affinity_over_the_zone_rejects_the_template_in_that_zone() {
    let mut cfg = config(vec![zoned_group("in-a", "a"), zoned_group("in-b", "b")]);
    cfg.options.expanders = vec![Expander::Priority];
    cfg.priorities = vec![(20, vec!["in-a".into()]), (10, vec!["in-b".into()])];
    let mut s = sim(cfg, 1);
    zoned_node(&mut s, "n1", "a", 4000);
    zoned_node(&mut s, "n2", "a", 4000);
    let db = Selector::new(&[("app", "db")]);
    s.submit(Event::Deploy(
        DeploymentSpec::new("db", 2, Resources::new(100, 100 * MIB)).with_template(|t| {
            t.with_label("app", "db")
                .with_anti_affinity(shepherd::AffinityTerm::new(db.clone(), None))
        }),
    ))
    .unwrap();
    s.run(2);
    s.submit(Event::Deploy(
        DeploymentSpec::new("web", 1, Resources::new(100, 100 * MIB)).with_template(|t| {
            t.with_anti_affinity(shepherd::AffinityTerm::new(db.clone(), Some(ZONE)))
        }),
    ))
    .unwrap();
    s.run(7);
    let v = s
        .autoscaler()
        .unwrap()
        .template_verdicts(s.cluster(), s.profile());
    assert_eq!(v.len(), 1);
    let r = v[0].1[0].as_ref().expect("in-a is rejected");
    assert_eq!(r.plugin, "InterPodAffinity");
    assert_eq!(
        r.reasons,
        vec!["node(s) didn't match pod anti-affinity rules"]
    );
    assert_eq!(v[0].1[1], None, "in-b fits");
    s.run(1);
    let a = s.autoscaler().unwrap();
    assert_eq!(a.scale_ups().len(), 1);
    assert_eq!(
        a.scale_ups()[0].group,
        "in-b",
        "priority prefers in-a, which cannot help"
    );
}

/// Zone b's node is full; `web` spreads over zones with maxSkew 1
/// (DoNotSchedule). Its first pod runs in zone a; the next two would make
/// zone a 2 against zone b's 0, so they are Pending. A template node in
/// zone a gives the same skew: no scale-up, and the event says why. A
/// zone-b group would help (skew 1).
#[test]
fn topology_spread_unsatisfiable_in_the_templates_zone_does_not_scale_up() {
    let run = |groups: Vec<NodeGroup>| {
        let mut s = sim(config(groups), 1);
        zoned_node(&mut s, "a1", "a", 4000);
        zoned_node(&mut s, "b1", "b", 1000);
        s.submit(Event::Deploy(
            DeploymentSpec::new("fill", 1, Resources::new(1000, 100 * MIB))
                .with_template(|t| t.with_node_selector(ZONE, "b")),
        ))
        .unwrap();
        s.run(1);
        let web = Selector::new(&[("app", "web")]);
        s.submit(Event::Deploy(
            DeploymentSpec::new("web", 3, Resources::new(500, 100 * MIB)).with_template(|t| {
                t.with_label("app", "web").with_topology_spread(
                    shepherd::TopologySpreadConstraint::new(
                        1,
                        ZONE,
                        shepherd::WhenUnsatisfiable::DoNotSchedule,
                        web.clone(),
                    ),
                )
            }),
        ))
        .unwrap();
        s.run(9);
        s
    };
    let s = run(vec![zoned_group("in-a", "a")]);
    assert_eq!(s.cluster().pending_count(), 2);
    let a = s.autoscaler().unwrap();
    assert!(a.scale_ups().is_empty());
    let not = events(&s, "NotTriggerScaleUp");
    assert_eq!(not.len(), 2);
    assert_eq!(
        not[0].2,
        "pod didn't trigger scale-up: 1 node(s) didn't match pod topology spread constraints"
    );
    let s = run(vec![zoned_group("in-a", "a"), zoned_group("in-b", "b")]);
    let a = s.autoscaler().unwrap();
    assert_eq!(a.scale_ups().len(), 1);
    assert_eq!(
        (a.scale_ups()[0].group.as_str(), a.scale_ups()[0].pods.len()),
        ("in-b", 2)
    );
}

// ----- the estimate with every filter on the new nodes ----------------------

/// Zone b's node `b1` (4000m) runs two `old` pods (1500m, `app=web`);
/// `web`'s 8 pods of 1500m (`app=web`, spread over zones with maxSkew 1,
/// DoNotSchedule) find no room. Only zone a has a group (template 4000m,
/// 3900m left after kube-proxy: two pods a node). By hand, with zone b at
/// 2: zone a may take a 1st (skew 0+1-0 = 1), a 2nd (1+1-1 = 1), a
/// 3rd (2+1-2 = 1), not a 4th (3+1-2 = 2). So 3 pods on 2 nodes, where the
/// resource count alone would say 8 pods on 4 nodes (CA's estimator filters
/// each pod on the new nodes holding the pods placed before it).
#[test]
fn estimate_stops_where_a_zonal_spread_would_break() {
    // Nodes join in the loop that asks for them (the later loops see
    // them as nodes, not as upcoming).
    let mut cfg = config(vec![zoned_group("in-a", "a")]);
    cfg.options.provisioning_delay = 0;
    let mut s = sim(cfg, 1);
    zoned_node(&mut s, "b1", "b", 4000);
    s.submit(Event::Deploy(
        DeploymentSpec::new("old", 2, Resources::new(1500, 100 * MIB))
            .with_template(|t| t.with_label("app", "web").with_node_selector(ZONE, "b")),
    ))
    .unwrap();
    s.run(1);
    assert_eq!(s.cluster().pending_count(), 0);
    let web = Selector::new(&[("app", "web")]);
    s.submit(Event::Deploy(
        DeploymentSpec::new("web", 8, Resources::new(1500, 100 * MIB)).with_template(|t| {
            t.with_label("app", "web").with_topology_spread(
                shepherd::TopologySpreadConstraint::new(
                    1,
                    ZONE,
                    shepherd::WhenUnsatisfiable::DoNotSchedule,
                    web.clone(),
                ),
            )
        }),
    ))
    .unwrap();
    s.run(9);
    let a = s.autoscaler().unwrap();
    assert_eq!(a.scale_ups().len(), 1);
    let up = &a.scale_ups()[0];
    assert_eq!(
        (up.group.as_str(), up.from, up.to, up.pods.len()),
        ("in-a", 0, 2, 3)
    );
    s.run(40);
    // The real scheduler agrees: 3 pods in zone a, 5 still Pending, and
    // no further scale-up (a 4th pod in zone a breaks the skew).
    assert_eq!(s.cluster().pending_count(), 5);
    assert_eq!(s.autoscaler().unwrap().scale_ups().len(), 1);
}

/// `web`'s 5 pods of 3000m refuse each other over the zone (required
/// anti-affinity, `topology.kubernetes.io/zone`). The zone-a template
/// passes for the first; on the new nodes the second is refused by the
/// first's zone, and so would it be on a further node of the same zone.
/// One new node (one pod), not five (the resource count, one pod a node).
#[test]
fn estimate_with_zone_anti_affinity_asks_for_one_node() {
    // Nodes join in the loop that asks for them (the later loops see
    // them as nodes, not as upcoming).
    let mut cfg = config(vec![zoned_group("in-a", "a")]);
    cfg.options.provisioning_delay = 0;
    let mut s = sim(cfg, 1);
    let web = Selector::new(&[("app", "web")]);
    s.submit(Event::Deploy(
        DeploymentSpec::new("web", 5, Resources::new(3000, 100 * MIB)).with_template(|t| {
            t.with_label("app", "web")
                .with_anti_affinity(shepherd::AffinityTerm::new(web.clone(), Some(ZONE)))
        }),
    ))
    .unwrap();
    s.run(10);
    let a = s.autoscaler().unwrap();
    assert_eq!(a.scale_ups().len(), 1);
    let up = &a.scale_ups()[0];
    assert_eq!(
        (up.group.as_str(), up.from, up.to, up.pods.len()),
        ("in-a", 0, 1, 1)
    );
    s.run(40);
    assert_eq!(s.cluster().pending_count(), 4);
    assert_eq!(s.autoscaler().unwrap().scale_ups().len(), 1);
}

/// Where no pod needs it (no pod affinity, no anti-affinity but over the
/// hostname, no DoNotSchedule spread, no host port), the filtered estimate
/// on the growing snapshot and the resource count agree: random
/// Deployments (hostname anti-affinity on some), no node, one group.
#[test]
fn filtered_estimate_equals_the_resource_count_where_no_pod_needs_it() {
    use shepherd::autoscaler::estimate::{binpack, needs_filters, template_node};
    use shepherd::autoscaler::snapshot::binpack_filtered;
    let runs = std::env::var("SHEPHERD_FUZZ_OPS")
        .ok()
        .and_then(|s| s.parse().ok())
        .unwrap_or(30u64);
    let seed0 = std::env::var("SHEPHERD_SEED")
        .ok()
        .and_then(|s| s.parse().ok())
        .unwrap_or(0xf17);
    let mut packed = 0;
    for k in 0..runs {
        let seed = seed0 + k;
        let mut r = Prng::new(seed);
        let mut s = Simulator::new(seed, ScorePolicy::LeastLoaded);
        for d in 0..r.range(1, 6) {
            let shape = r.below(4);
            let anti = r.below(3) == 0;
            let other = format!("a{}", r.below(3));
            s.submit(Event::Deploy(
                DeploymentSpec::new(
                    &format!("a{d}"),
                    r.range(1, 9) as u32,
                    Resources::new(250 * (shape + 1), 256 * MIB * (shape % 3 + 1)),
                )
                .with_template(|t| {
                    let t = t.with_label("app", &format!("a{d}"));
                    if anti {
                        t.with_anti_affinity(shepherd::AffinityTerm::new(
                            Selector::new(&[("app", &other)]),
                            None,
                        ))
                    } else {
                        t
                    }
                }),
            ))
            .unwrap();
        }
        s.run(1);
        let c = s.cluster();
        let t = NodeSpec::new("kwok-fake-t", 1000 * r.range(2, 8), GIB * r.range(2, 16));
        let g = NodeGroup::new("t", t.clone(), 0, 100);
        let base = template_node(&t, &[]);
        let pods: Vec<(String, u32, PodTemplate)> = c
            .pending_pods()
            .map(|p| (p.name(), p.controller.0, p.template.clone()))
            .collect();
        assert!(!needs_filters(pods.iter().map(|p| &p.2)), "seed {seed}");
        let list: Vec<(usize, &PodTemplate)> =
            pods.iter().enumerate().map(|(i, p)| (i, &p.2)).collect();
        let named: Vec<(usize, usize, &str, &PodTemplate)> = pods
            .iter()
            .enumerate()
            .map(|(i, p)| (i, p.1 as usize, p.0.as_str(), &p.2))
            .collect();
        let max = r.range(1, 30) as u32;
        let want = binpack(&t, &base, &list, max);
        let got = binpack_filtered(c, &g, &base, &named, max, s.profile());
        assert_eq!(got, want, "seed {seed}: filtered vs resource count");
        assert!(!pods.is_empty(), "seed {seed}: the pods are Pending");
        packed += want.1.len();
    }
    assert!(packed > 0);
    eprintln!(
        "filtered estimate = resource count: {runs} runs from seed {seed0}, {packed} pods packed"
    );
}

/// A DaemonSet holding host port 8080 on every node: its pod on the
/// template node takes the port, so a pod asking for 8080 fits no new node
/// (NodePorts, with the DaemonSet pods the new node would get).
#[test]
fn a_daemonset_pods_host_port_on_the_template_node_counts() {
    use shepherd::{HostPort, Protocol};
    let mut s = sim(config(vec![group("g", 4000, 8, 0, 10)]), 1);
    s.submit(Event::CreateDaemonSet(DaemonSetSpec::new(
        "agent",
        PodTemplate::new(Resources::new(100, 100 * MIB))
            .with_host_port(HostPort::new(Protocol::Tcp, 8080)),
    )))
    .unwrap();
    s.submit(Event::Deploy(
        DeploymentSpec::new("web", 1, Resources::new(100, 100 * MIB))
            .with_template(|t| t.with_host_port(HostPort::new(Protocol::Tcp, 8080))),
    ))
    .unwrap();
    s.run(10);
    assert!(s.autoscaler().unwrap().scale_ups().is_empty());
    assert_eq!(
        events(&s, "NotTriggerScaleUp")[0].2,
        "pod didn't trigger scale-up: 1 node(s) didn't have free ports for the requested pod ports"
    );
}

// ----- --balance-similar-node-groups ---------------------------------------

fn balanced(ignore_group_label: bool, max_a: u32) -> Simulator {
    let mut a = zoned_group("a", "zone-a");
    a.max_size = max_a;
    let b = zoned_group("b", "zone-b");
    // Twice the cpu: never similar.
    let mut c = zoned_group("c", "zone-c");
    c.template.capacity.cpu_millis = 8000;
    let mut cfg = config(vec![a, b, c]);
    cfg.options.expanders = vec![Expander::Priority];
    cfg.priorities = vec![
        (30, vec!["a".into()]),
        (20, vec!["b".into()]),
        (10, vec!["c".into()]),
    ];
    cfg.options.balance_similar_node_groups = true;
    if ignore_group_label {
        cfg.options.balancing_ignore_labels = vec!["kwok-nodegroup".into()];
    }
    let mut s = sim(cfg, 1);
    // 5 pods of 1500m: 3900m a new node holds two, so 3 nodes.
    deploy(&mut s, "web", 5, 1500, 100);
    s.run(10);
    s
}

/// a and b differ only in their zone and the provider's group label: with
/// that label ignored (`--balancing-ignore-label`) they are similar, and
/// the 3 nodes go 2 to a (chosen, first among equal sizes) and 1 to b; c
/// has twice the cpu and takes none. Without it, a takes all 3.
#[test]
fn balance_similar_node_groups_spreads_the_scale_up() {
    let s = balanced(true, 10);
    let ups: Vec<(String, u32, u32, usize)> = s
        .autoscaler()
        .unwrap()
        .scale_ups()
        .iter()
        .map(|u| (u.group.clone(), u.from, u.to, u.pods.len()))
        .collect();
    assert_eq!(ups, vec![("a".into(), 0, 2, 5), ("b".into(), 0, 1, 0)]);
    assert_eq!(
        events(&s, "TriggeredScaleUp")[0].2,
        "pod triggered scale-up: [{a 0->2 (max: 10)} {b 0->1 (max: 10)}]"
    );
    let s = balanced(false, 10);
    let up = &s.autoscaler().unwrap().scale_ups();
    assert_eq!(up.len(), 1);
    assert_eq!((up[0].group.as_str(), up[0].to), ("a", 3));
}

/// a's max is 1: the estimate counts b's room too (3 nodes), and the
/// balance gives a its one node and b the other two.
#[test]
fn balance_respects_each_max_and_the_estimate_uses_the_similar_groups_room() {
    let s = balanced(true, 1);
    let ups: Vec<(String, u32, u32)> = s
        .autoscaler()
        .unwrap()
        .scale_ups()
        .iter()
        .map(|u| (u.group.clone(), u.from, u.to))
        .collect();
    assert_eq!(ups, vec![("a".into(), 0, 1), ("b".into(), 0, 2)]);
}

/// CA's settings changed mid-run (`Event::SetAutoscaler`, as the page's
/// form sends it) while nodes are on their way: they still come, and the
/// new autoscaler does not ask for them again.
#[test]
fn a_new_configuration_keeps_the_nodes_already_asked_for() {
    let cfg = config(vec![group("m-large", 4000, 16, 0, 10)]);
    let mut s = sim(cfg.clone(), 1);
    deploy(&mut s, "web", 5, 1500, 1024);
    s.run(12);
    assert_eq!(s.autoscaler().unwrap().upcoming().count(), 3);
    let mut edited = cfg;
    edited.options.expanders = vec![Expander::MostPods];
    s.submit(Event::SetAutoscaler(Box::new(edited))).unwrap();
    s.run(10); // the loop at tick 20
    let a = s.autoscaler().unwrap();
    assert_eq!(a.config().options.expanders, vec![Expander::MostPods]);
    assert!(a.scale_ups().is_empty(), "nothing asked again");
    assert_eq!(a.upcoming().count(), 3);
    s.run(20); // tick 40: the nodes asked for at tick 10 register
    assert_eq!(s.cluster().node_count(), 3);
    assert_eq!(s.cluster().pending_count(), 0);
    assert_eq!(s.autoscaler().unwrap().sizes(s.cluster()), vec![3]);
}
