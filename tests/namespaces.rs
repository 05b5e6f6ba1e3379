//! Pinned scenarios for namespaces as Kubernetes scopes them: names are
//! unique within a namespace, PodDisruptionBudgets and Services select the
//! pods of their own namespace, and inter-pod (anti-)affinity terms count
//! the pods of the pod's own namespace, of the namespaces they list, or of
//! those their namespaceSelector matches (`{}`: all), as the PodAffinityTerm
//! API reference defines. The expected placements are worked out by hand
//! in the comments.
//!
//! ```text
//! cargo test -p shepherd --test namespaces
//! ```

use shepherd::quantity::MIB;
use shepherd::simulator::{Event, Simulator};
use shepherd::verify::{verify_capacity, verify_constraints};
use shepherd::{
    AffinityTerm, DeploymentSpec, Error, IntOrPercent, LabelSelectorRequirement, NamespaceSpec,
    NodeSpec, PdbSpec, Resources, ScorePolicy, Selector, SelectorOperator, ServiceSpec,
};

fn run(events: Vec<Event>, ticks: u64) -> Simulator {
    let mut sim = Simulator::new(1, ScorePolicy::BinPack);
    for e in events {
        sim.schedule(1, e).unwrap();
    }
    for _ in 0..ticks {
        let r = sim.step();
        assert!(r.errors.is_empty(), "{:?}", r.errors);
    }
    verify_capacity(sim.cluster()).unwrap();
    verify_constraints(sim.cluster()).unwrap();
    sim
}

/// (pod, node) for every pod, sorted by pod name.
fn placement(sim: &Simulator) -> Vec<(String, Option<String>)> {
    let c = sim.cluster();
    let mut v: Vec<(String, Option<String>)> = c
        .pods()
        .map(|p| {
            let n = p
                .node
                .and_then(|id| c.nodes().find(|n| n.id == id))
                .map(|n| n.name().to_string());
            (c.short_pod_names(&p.name()), n)
        })
        .collect();
    v.sort();
    v
}

fn web(ns_name: &str, replicas: u32) -> DeploymentSpec {
    DeploymentSpec::new(ns_name, replicas, Resources::new(100, 64 * MIB))
}

#[test]
fn same_names_in_two_namespaces_and_selectors_stay_in_their_namespace() {
    let app_web = Selector::new(&[("app", "web")]);
    let pdb = |name: &str| PdbSpec {
        name: name.into(),
        selector: app_web.clone(),
        budget: shepherd::Budget::MinAvailable(IntOrPercent::Int(1)),
    };
    let svc = |name: &str| ServiceSpec {
        name: name.into(),
        selector: app_web.clone(),
    };
    let sim = run(
        vec![
            Event::AddNode(NodeSpec::new("n1", 8000, 16384 * MIB)),
            Event::Deploy(web("shop/web", 3)),
            Event::Deploy(web("blog/web", 2)),
            Event::Deploy(web("web", 1)),
            Event::AddPdb(pdb("shop/web")),
            Event::AddPdb(pdb("blog/web")),
            Event::AddPdb(pdb("web")),
            Event::AddService(svc("shop/web")),
            Event::AddService(svc("blog/web")),
            Event::AddService(svc("web")),
        ],
        4,
    );
    let c = sim.cluster();
    // Three Deployments named web coexist, one per namespace; each pod
    // carries its namespace in its name.
    let names: Vec<String> = placement(&sim).into_iter().map(|(p, _)| p).collect();
    assert_eq!(
        names,
        [
            "blog/web-0",
            "blog/web-1",
            "shop/web-0",
            "shop/web-1",
            "shop/web-2",
            "web-0"
        ]
    );
    // Each budget counts the Ready pods of its own namespace: 3, 2 and 1,
    // so minAvailable 1 allows 2, 1 and 0 disruptions.
    for (name, healthy) in [("shop/web", 3), ("blog/web", 2), ("web", 1)] {
        let s = c.pdb_status(name).unwrap();
        assert_eq!(
            (s.current_healthy, s.expected_pods, s.disruptions_allowed),
            (healthy, healthy, healthy - 1),
            "{name}"
        );
        // The namespace requirement admission added is not shown.
        assert_eq!(s.selector, "app=web");
    }
    assert_eq!(c.pdb_status("default/web").unwrap().current_healthy, 1);
    // Each Service's endpoints are its own namespace's pods.
    assert_eq!(
        c.service_endpoints("shop/web")
            .unwrap()
            .iter()
            .map(|v| c.short_pod_names(v))
            .collect::<Vec<_>>(),
        ["shop/web-0", "shop/web-1", "shop/web-2"]
    );
    assert_eq!(
        c.service_endpoints("blog/web")
            .unwrap()
            .iter()
            .map(|v| c.short_pod_names(v))
            .collect::<Vec<_>>(),
        ["blog/web-0", "blog/web-1"]
    );
    let endpoints = c.service_endpoints("web").unwrap();
    let endpoints: Vec<String> = endpoints.iter().map(|p| c.short_pod_names(p)).collect();
    assert_eq!(endpoints, ["web-0"]);
    // The declared template comes back without the reserved labels.
    assert_eq!(
        c.template("shop/web").unwrap().labels,
        shepherd::labels(&[("app", "web")])
    );
    // The event names the namespace as kubectl does.
    assert!(c.rendered_events().iter().any(|e| c
        .short_pod_names(&e.message)
        .starts_with("Successfully assigned shop/web-0 to n1")));
    assert!(c.rendered_events().iter().any(|e| c
        .short_pod_names(&e.message)
        .starts_with("Successfully assigned default/web-0 to n1")));
}

/// A probe: one pod that may only go to `slot` and must not share a node
/// with a pod labelled `app=db` that its term reaches.
fn probe(name: &str, slot: &str, term: AffinityTerm) -> Event {
    Event::Deploy(
        DeploymentSpec::new(name, 1, Resources::new(100, 64 * MIB))
            .with_template(|t| t.with_node_selector("slot", slot).with_anti_affinity(term)),
    )
}

#[test]
fn anti_affinity_counts_the_namespaces_its_term_names() {
    let db = Selector::new(&[("app", "db")]);
    let term = || AffinityTerm::new(db.clone(), None);
    let team = |v: &str| Selector::new(&[("team", v)]);
    let sim = run(
        vec![
            Event::AddNamespace(NamespaceSpec::new("shop").with_label("team", "a")),
            Event::AddNamespace(NamespaceSpec::new("blog").with_label("team", "b")),
            Event::AddNamespace(NamespaceSpec::new("ops").with_label("team", "a")),
            Event::AddNode(NodeSpec::new("n1", 8000, 16384 * MIB).with_label("slot", "1")),
            Event::AddNode(NodeSpec::new("n2", 8000, 16384 * MIB).with_label("slot", "2")),
            // The one app=db pod: shop's, on n1 (the only slot=1 node).
            Event::Deploy(
                DeploymentSpec::new("shop/db", 1, Resources::new(100, 64 * MIB))
                    .with_template(|t| t.with_node_selector("slot", "1")),
            ),
            // Every probe may only go to n1, where shop/db-0 runs.
            // No namespaces: its own namespace, blog, has no db: n1.
            probe("blog/own", "1", term()),
            // shop's own probe sees shop/db-0: Pending.
            probe("shop/own", "1", term()),
            // namespaces [shop]: Pending; [ops]: n1.
            probe("blog/listed", "1", term().in_namespaces(&["shop"])),
            probe("blog/listed-ops", "1", term().in_namespaces(&["ops"])),
            // namespaceSelector {}: every namespace, shop included: Pending.
            probe(
                "blog/all",
                "1",
                term().with_namespace_selector(Selector::default()),
            ),
            // team=a is shop and ops: Pending; team=b is blog alone: n1.
            probe(
                "blog/team-a",
                "1",
                term().with_namespace_selector(team("a")),
            ),
            probe(
                "blog/team-b",
                "1",
                term().with_namespace_selector(team("b")),
            ),
            // The automatic label kubernetes.io/metadata.name: Pending.
            probe(
                "blog/by-name",
                "1",
                term().with_namespace_selector(Selector::new(&[(
                    "kubernetes.io/metadata.name",
                    "shop",
                )])),
            ),
            // A matchExpressions namespaceSelector, NotIn [a]: blog only: n1.
            probe(
                "blog/not-a",
                "1",
                term().with_namespace_selector(Selector::default().with_expression(
                    LabelSelectorRequirement::new("team", SelectorOperator::NotIn, &["a"]),
                )),
            ),
            // The union: [ops] or team=b (ops, blog): n1; [ops] or the
            // namespace named shop: Pending.
            probe(
                "blog/union-free",
                "1",
                term()
                    .in_namespaces(&["ops"])
                    .with_namespace_selector(team("b")),
            ),
            probe(
                "blog/union-shop",
                "1",
                term()
                    .in_namespaces(&["ops"])
                    .with_namespace_selector(Selector::new(&[(
                        "kubernetes.io/metadata.name",
                        "shop",
                    )])),
            ),
            // An existing pod's term is read with its own namespaces: guard
            // (ops, on n2) keeps app=victim pods of blog off n2, not shop's.
            Event::Deploy(
                DeploymentSpec::new("ops/guard", 1, Resources::new(100, 64 * MIB)).with_template(
                    |t| {
                        t.with_node_selector("slot", "2").with_anti_affinity(
                            AffinityTerm::new(Selector::new(&[("app", "victim")]), None)
                                .in_namespaces(&["blog"]),
                        )
                    },
                ),
            ),
            Event::Deploy(
                DeploymentSpec::new("blog/victim", 1, Resources::new(100, 64 * MIB))
                    .with_template(|t| t.with_node_selector("slot", "2")),
            ),
            Event::Deploy(
                DeploymentSpec::new("shop/victim", 1, Resources::new(100, 64 * MIB))
                    .with_template(|t| t.with_node_selector("slot", "2")),
            ),
        ],
        3,
    );
    let on = |n: &str| Some(n.to_string());
    assert_eq!(
        placement(&sim),
        vec![
            ("blog/all-0".to_string(), None),
            ("blog/by-name-0".to_string(), None),
            ("blog/listed-0".to_string(), None),
            ("blog/listed-ops-0".to_string(), on("n1")),
            ("blog/not-a-0".to_string(), on("n1")),
            ("blog/own-0".to_string(), on("n1")),
            ("blog/team-a-0".to_string(), None),
            ("blog/team-b-0".to_string(), on("n1")),
            ("blog/union-free-0".to_string(), on("n1")),
            ("blog/union-shop-0".to_string(), None),
            ("blog/victim-0".to_string(), None),
            ("ops/guard-0".to_string(), on("n2")),
            ("shop/db-0".to_string(), on("n1")),
            ("shop/own-0".to_string(), None),
            ("shop/victim-0".to_string(), on("n2")),
        ]
    );
}

#[test]
fn topology_spread_counts_its_own_namespace() {
    // Two zones of one node each. shop/web has 2 pods on z1's node (a
    // nodeSelector); blog/web spreads app=web with maxSkew 1 over zones:
    // shop's pods do not count, so blog's 2 pods go one per zone.
    let zone = "topology.kubernetes.io/zone";
    let spread = shepherd::TopologySpreadConstraint::new(
        1,
        zone,
        shepherd::WhenUnsatisfiable::DoNotSchedule,
        Selector::new(&[("app", "web")]),
    );
    let sim = run(
        vec![
            Event::AddNode(NodeSpec::new("a", 8000, 16384 * MIB).with_label(zone, "z1")),
            Event::AddNode(NodeSpec::new("b", 8000, 16384 * MIB).with_label(zone, "z2")),
            Event::Deploy(web("shop/web", 2).with_template(|t| t.with_node_selector(zone, "z1"))),
            Event::Deploy(web("blog/web", 2).with_template(|t| t.with_topology_spread(spread))),
        ],
        3,
    );
    let p = placement(&sim);
    let blog: Vec<_> = p.iter().filter(|(n, _)| n.starts_with("blog/")).collect();
    let mut nodes: Vec<_> = blog.iter().map(|(_, n)| n.clone().unwrap()).collect();
    nodes.sort();
    assert_eq!(nodes, ["a", "b"]);
}

#[test]
fn an_empty_spread_selector_counts_every_pod_of_its_own_namespace_only() {
    // metav1.LabelSelectorAsSelector turns `labelSelector: {}` into
    // labels.Everything(), and podtopologyspread's countPodsMatchSelector
    // skips pods of other namespaces: blog/web's `{}` counts blog/db's two
    // pods in z1 (they do not carry app=web) and not shop/x's three in z2.
    // So z1 holds 2 and z2 0 (the pod matches `{}` itself): web-0 in z1
    // would make a skew of 3 - 0 = 3 > maxSkew 1, so it goes to z2; web-1 in
    // z1 would make 3 - 1 = 2, in z2 2 - 2 = 0: z2 again. Were shop's pods
    // counted (z2: 3), both would go to z1.
    let zone = "topology.kubernetes.io/zone";
    let spread = shepherd::TopologySpreadConstraint::new(
        1,
        zone,
        shepherd::WhenUnsatisfiable::DoNotSchedule,
        Selector::default(),
    );
    let sim = run(
        vec![
            Event::AddNode(NodeSpec::new("a", 8000, 16384 * MIB).with_label(zone, "z1")),
            Event::AddNode(NodeSpec::new("b", 8000, 16384 * MIB).with_label(zone, "z2")),
            Event::Deploy(web("shop/x", 3).with_template(|t| t.with_node_selector(zone, "z2"))),
            Event::Deploy(web("blog/db", 2).with_template(|t| t.with_node_selector(zone, "z1"))),
            Event::Deploy(web("blog/web", 2).with_template(|t| t.with_topology_spread(spread))),
        ],
        3,
    );
    let p = placement(&sim);
    let on = |prefix: &str| -> Vec<String> {
        p.iter()
            .filter(|(n, _)| n.starts_with(prefix))
            .map(|(_, node)| node.clone().unwrap_or_default())
            .collect()
    };
    assert_eq!(on("blog/web-"), ["b", "b"]);
    assert_eq!(on("blog/db-"), ["a", "a"]);
    assert_eq!(on("shop/x-"), ["b", "b", "b"]);
}

#[test]
fn namespaces_are_validated_on_every_declaration() {
    let mut c = shepherd::Cluster::new();
    for bad in ["Shop/web", "default/web", "a.b/web", "/web", "shop/"] {
        let e = c.deploy(web(bad, 1)).unwrap_err();
        assert!(matches!(e, Error::Invalid(_)), "{bad}: {e}");
        assert!(e.to_string().contains("expected"), "{bad}: {e}");
    }
    let e = c
        .add_service(ServiceSpec {
            name: "UP/web".into(),
            selector: Selector::new(&[("app", "web")]),
        })
        .unwrap_err();
    assert!(e.to_string().contains("namespace"), "{e}");
    let bad_term = AffinityTerm::new(Selector::new(&[("app", "db")]), None).in_namespaces(&["No"]);
    let e = c
        .deploy(web("shop/x", 1).with_template(|t| t.with_anti_affinity(bad_term)))
        .unwrap_err();
    assert!(e.to_string().contains("namespace"), "{e}");
    // A user cannot write the reserved labels.
    let e = c
        .deploy(
            web("shop/y", 1)
                .with_template(|t| t.with_label("~ns:kubernetes.io/metadata.name", "blog")),
        )
        .unwrap_err();
    assert!(e.to_string().contains("not valid"), "{e}");
    // A namespace's labels are fixed when it is created.
    c.add_namespace(NamespaceSpec::new("shop").with_label("team", "a"))
        .unwrap();
    // Applied again with the same labels: nothing changes; with others: refused.
    c.add_namespace(NamespaceSpec::new("shop").with_label("team", "a"))
        .unwrap();
    let e = c.add_namespace(NamespaceSpec::new("shop")).unwrap_err();
    assert!(e.to_string().contains("fixed when it is created"), "{e}");
    c.deploy(web("blog/web", 1)).unwrap();
    let e = c
        .add_namespace(NamespaceSpec::new("blog").with_label("team", "b"))
        .unwrap_err();
    assert!(e.to_string().contains("exists with no labels"), "{e}");
    c.add_namespace(NamespaceSpec::new("blog")).unwrap();
    let e = c
        .add_namespace(NamespaceSpec::new("ops").with_label("kubernetes.io/metadata.name", "x"))
        .unwrap_err();
    assert!(e.to_string().contains("own name"), "{e}");
    // Nothing refused changed the cluster.
    assert_eq!(c.apps().count(), 1);
}

/// A term with both `namespaces` and a namespaceSelector reaches the
/// namespaces its selector matches as they are (Kubernetes evaluates the
/// selector against the Namespaces that exist when it schedules), so a
/// Namespace created after the term's pod counts, both for an existing pod's
/// term and for a later pod of the same template.
#[test]
fn a_union_term_reaches_a_namespace_created_after_it() {
    use shepherd::Cluster;
    let union = |app: &str| {
        AffinityTerm::new(Selector::new(&[("app", app)]), None)
            .in_namespaces(&["ops"])
            .with_namespace_selector(Selector::new(&[("team", "late")]))
    };
    let pinned = |name: &str, replicas: u32, slot: &str| {
        DeploymentSpec::new(name, replicas, Resources::new(100, 64 * MIB)).with_template(|t| {
            t.with_label("app", name.rsplit('/').next().unwrap())
                .with_node_selector("slot", slot)
        })
    };
    let mut c = Cluster::new();
    c.add_node(
        NodeSpec::new("n1", 8000, 16384 * MIB)
            .with_label("slot", "1")
            .with_label("zone", "z"),
    )
    .unwrap();
    c.add_node(
        NodeSpec::new("n2", 8000, 16384 * MIB)
            .with_label("slot", "2")
            .with_label("zone", "z"),
    )
    .unwrap();
    // guard (blog, on n1) keeps app=victim pods of ops and of team=late
    // namespaces off its node; probe (blog, none yet) avoids app=db pods of
    // the same namespaces. Neither namespace "late" nor "other" exists yet.
    c.deploy(
        DeploymentSpec::new("blog/guard", 1, Resources::new(100, 64 * MIB)).with_template(|t| {
            t.with_node_selector("slot", "1")
                .with_anti_affinity(union("victim"))
        }),
    )
    .unwrap();
    c.deploy(
        DeploymentSpec::new("blog/probe", 0, Resources::new(100, 64 * MIB)).with_template(|t| {
            t.with_node_selector("zone", "z")
                .with_anti_affinity(union("db"))
        }),
    )
    .unwrap();
    assert!(c.reconcile_to_fixed_point(ScorePolicy::BinPack).converged);
    c.add_namespace(NamespaceSpec::new("late").with_label("team", "late"))
        .unwrap();
    // "other" is made by its first object, with no labels.
    c.deploy(pinned("other/victim", 1, "1")).unwrap();
    c.deploy(pinned("late/victim", 1, "1")).unwrap();
    // A big db: n2 is the fuller node, where bin packing sends the probes.
    c.deploy(
        DeploymentSpec::new("late/db", 1, Resources::new(6000, 64 * MIB))
            .with_template(|t| t.with_label("app", "db").with_node_selector("slot", "2")),
    )
    .unwrap();
    assert!(c.reconcile_to_fixed_point(ScorePolicy::BinPack).converged);
    // Two probes now, of the template admitted before "late" existed: n2
    // runs late/db, so both go to n1 (bin packing alone would pick n2).
    c.scale("blog/probe", 2).unwrap();
    assert!(c.reconcile_to_fixed_point(ScorePolicy::BinPack).converged);
    let sim_like: Vec<(String, Option<String>)> = {
        let mut v: Vec<(String, Option<String>)> = c
            .pods()
            .map(|p| {
                let n = p
                    .node
                    .and_then(|id| c.node_by_id(id))
                    .map(|n| n.name().to_string());
                (c.short_pod_names(&p.name()), n)
            })
            .collect();
        v.sort();
        v
    };
    let on = |n: &str| Some(n.to_string());
    assert_eq!(
        sim_like,
        vec![
            ("blog/guard-0".to_string(), on("n1")),
            ("blog/probe-0".to_string(), on("n1")),
            ("blog/probe-1".to_string(), on("n1")),
            ("late/db-0".to_string(), on("n2")),
            ("late/victim-0".to_string(), None),
            ("other/victim-0".to_string(), on("n1")),
        ]
    );
    let why = c.pending_reason("late/victim-0").unwrap().unwrap();
    assert!(why.contains("anti-affinity"), "{why}");
    verify_capacity(&c).unwrap();
    verify_constraints(&c).unwrap();
    // The declared terms are unchanged: what the user wrote, not the list.
    let t = c.template("blog/guard").unwrap();
    assert_eq!(t.anti_affinity[0], union("victim"));
}
