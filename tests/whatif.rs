//! What-if answered as a diff (core/src/whatif.rs).

use shepherd::quantity::MIB;
use shepherd::whatif::{what_if, Action, Cause, WhatIf};
use shepherd::{
    Budget, Cluster, DeploymentSpec, IntOrPercent, NodeSpec, PdbSpec, Profile, Resources, Selector,
    TopologySpreadConstraint, WhenUnsatisfiable,
};

fn node(name: &str, cpu: u64, zone: &str) -> NodeSpec {
    NodeSpec::new(name, cpu, 8192 * MIB).with_label("topology.kubernetes.io/zone", zone)
}

fn converge(c: &mut Cluster) {
    let fp = c.reconcile_to_fixed_point(&Profile::kube_scheduler());
    assert!(fp.converged);
}

fn on(c: &Cluster, node: &str) -> Vec<String> {
    let id = c.node(node).unwrap().id;
    let mut v: Vec<String> = c.pods_on(id).map(|p| p.name()).collect();
    v.sort();
    v
}

fn run(c: &Cluster, actions: &[Action]) -> WhatIf {
    what_if(c, &Profile::kube_scheduler(), actions).expect("the what-if should run")
}

#[test]
fn explore() {
    let mut c = Cluster::new();
    c.add_node(node("n1", 4000, "a")).unwrap();
    c.add_node(node("n2", 4000, "b")).unwrap();
    c.cordon("n2").unwrap();
    c.deploy(DeploymentSpec::new("web", 2, Resources::new(1000, 512 * MIB))).unwrap();
    c.add_pdb(PdbSpec {
        name: "web-pdb".into(),
        selector: Selector::new(&[("app", "web")]),
        budget: Budget::MinAvailable(IntOrPercent::Int(1)),
    })
    .unwrap();
    converge(&mut c);
    c.uncordon("n2").unwrap();
    c.set_now(c.now() + 1);
    converge(&mut c);
    println!("before now {} n1 {:?} n2 {:?}", c.now(), on(&c, "n1"), on(&c, "n2"));
    let w = run(&c, &[Action::Drain("n1".into())]);
    println!("{:#?}", WhatIfDbg(&w));
}

struct WhatIfDbg<'a>(&'a WhatIf);
impl std::fmt::Debug for WhatIfDbg<'_> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let w = self.0;
        f.debug_struct("WhatIf")
            .field("actions", &w.actions)
            .field("start", &w.start)
            .field("end", &w.end)
            .field("settled", &w.settled)
            .field("deleted", &w.deleted)
            .field("moves", &w.moves)
            .field("created", &w.created)
            .field("pending", &w.pending)
            .field("blocked", &w.blocked)
            .field("drains", &w.drains)
            .field("deployments", &w.deployments)
            .field("zones", &w.zones)
            .finish()
    }
}
