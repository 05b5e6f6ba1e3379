//! Behaviour pinned by fingerprint: a change that means to keep behaviour
//! (a refactor, a speed change) must leave every placement and every event
//! exactly as it was.
//!
//! Each case runs a cluster (the tour, the bench's workloads at a smaller
//! size, random scripts of node failures, drains, scales, rolls and
//! budgets) under each built-in profile and writes a transcript: every event
//! as it is recorded or counted again (tick, type, reason, object, count,
//! source, message) and, at the end and at checkpoints, every pod with its
//! node and phase. The transcript's FNV-1a hash and line count are compared
//! with `tests/golden/fingerprints.txt`.
//!
//! - `cargo test -p shepherd --release --test golden` checks.
//! - `SHEPHERD_GOLDEN_DUMP=DIR` also writes each transcript to `DIR/<case>.txt`,
//!   to diff a changed case against a run of the parent commit.
//! - `SHEPHERD_GOLDEN_RECORD=1` rewrites the fingerprints: only when a change
//!   of behaviour is meant, said in the commit, with the diff of transcripts
//!   looked at.

use std::fmt::Write as _;

use shepherd::simulator::{Event, Prng, Simulator};
use shepherd::workload::{generate, WorkloadConfig};
use shepherd::{
    Budget, Cluster, DeploymentSpec, EventCursor, IntOrPercent, PdbSpec, Profile, Resources,
    Selector,
};

const FINGERPRINTS: &str = "tests/golden/fingerprints.txt";

fn profiles() -> [Profile; 3] {
    [
        Profile::kube_scheduler(),
        Profile::bin_pack(),
        Profile::least_loaded(),
    ]
}

/// A transcript being written.
#[derive(Default)]
struct Transcript {
    text: String,
    lines: u64,
    seen: EventCursor,
}

impl Transcript {
    fn line(&mut self, s: &str) {
        self.text.push_str(s);
        self.text.push('\n');
        self.lines += 1;
    }

    /// The events recorded or counted again since the last call.
    fn events(&mut self, c: &Cluster) {
        let recs: Vec<_> = c.events().since(self.seen).collect();
        for (i, rec) in recs {
            let e = c.render_event(&rec);
            let mut s = String::new();
            let _ = write!(
                s,
                "ev {i} t{}..{} {} {} {} x{} [{}{}] {}",
                e.tick,
                e.last_tick,
                e.type_,
                e.reason,
                e.object,
                e.count,
                e.source,
                if e.host.is_empty() {
                    String::new()
                } else {
                    format!(" {}", e.host)
                },
                e.message
            );
            self.line(&s);
        }
        self.seen = c.events().cursor();
    }

    /// Every pod: its name, node and phase.
    fn pods(&mut self, c: &Cluster, label: &str) {
        self.line(&format!("pods {label}"));
        let rows: Vec<String> = c
            .pods()
            .map(|p| {
                let node = p
                    .node
                    .and_then(|n| c.node_by_id(n))
                    .map(|n| n.name().to_string())
                    .unwrap_or_else(|| "-".into());
                format!("  {} {} {:?} r{}", p.name(), node, p.phase, p.revision)
            })
            .collect();
        for r in rows {
            self.line(&r);
        }
    }

    fn fingerprint(&self) -> String {
        let mut h: u64 = 0xcbf2_9ce4_8422_2325;
        for b in self.text.bytes() {
            h ^= b as u64;
            h = h.wrapping_mul(0x0000_0100_0000_01b3);
        }
        format!("{h:016x} {}", self.lines)
    }
}

/// Steps `sim` for `ticks` ticks, writing events each tick and every pod
/// each `every` ticks and at the end.
fn run(mut sim: Simulator, ticks: u64, every: u64) -> Transcript {
    let mut t = Transcript::default();
    for _ in 0..ticks {
        name_evicted_pods(&mut sim);
        let r = sim.step();
        t.events(sim.cluster());
        if r.tick % every == 0 {
            t.pods(sim.cluster(), &format!("at {}", r.tick));
        }
    }
    t.pods(sim.cluster(), "at the end");
    t
}

/// The random scripts name the pod to evict by its owner and ordinal
/// (`app#3`): the name Kubernetes would give it (`app-<hash>-<5 chars>`)
/// depends on the revision it was created under, known only when it fires.
/// Names are resolved just before the tick they fire in; an ordinal no pod
/// has becomes the old `app-3`, which no pod has either.
fn name_evicted_pods(sim: &mut Simulator) {
    let next = sim.tick() + 1;
    if !sim
        .pending_script()
        .iter()
        .any(|(t, e)| *t == next && matches!(e, Event::Evict(p) if p.contains('#')))
    {
        return;
    }
    let script: Vec<(u64, Event)> = sim
        .pending_script()
        .iter()
        .map(|(t, e)| match e {
            Event::Evict(p) if *t == next && p.contains('#') => {
                let (app, o) = p.split_once('#').unwrap();
                let o: u32 = o.parse().unwrap();
                let name = sim
                    .cluster()
                    .pods()
                    .find(|v| v.app == app && v.ordinal == o)
                    .map_or_else(|| format!("{app}-{o}"), |v| v.name());
                (*t, Event::Evict(name))
            }
            _ => (*t, e.clone()),
        })
        .collect();
    sim.reschedule(&script);
}

/// The tour, as `shepherd demo` and the page run it.
fn tour_cases(out: &mut Vec<(String, Transcript)>) {
    for p in profiles() {
        let name = format!("tour-{}", p.scheduler_name);
        let sim = Simulator::with_script(1, p, shepherd::simulator::tour());
        out.push((name, run(sim, 760, 100)));
    }
}

/// The bench's workloads (`shepherd bench`), at 300 nodes and 9,000 pods,
/// converged from empty as the bench does.
fn bench_cases(out: &mut Vec<(String, Transcript)>) {
    let shapes: [(&str, bool, bool); 3] = [
        ("envelope", false, false),
        ("envelope-constrained", true, false),
        ("zipf", false, true),
    ];
    for (shape, constrained, zipf) in shapes {
        for p in profiles() {
            let (ns, ds) = if zipf {
                shepherd::workload::zipf(42, 300, 9_000, 180)
            } else {
                shepherd::workload::envelope(42, 300, 9_000, 30, constrained)
            };
            let mut c = Cluster::new();
            for n in ns {
                c.add_node(n).expect("bench node");
            }
            for d in ds {
                c.deploy(d).expect("bench deployment");
            }
            let fp = c.reconcile_to_fixed_point(&p);
            let mut t = Transcript::default();
            t.line(&format!("fixed point {fp:?}"));
            t.events(&c);
            t.pods(&c, "converged");
            out.push((format!("bench-{shape}-{}", p.scheduler_name), t));
        }
    }
}

/// A random script over a random cluster: nodes fail and recover, nodes are
/// drained, cordoned and uncordoned, Deployments scale and roll, budgets come
/// and go, pods are evicted, a zone fails.
fn random_script(seed: u64) -> Vec<(u64, Event)> {
    let mut rng = Prng::new(seed);
    let cfg = WorkloadConfig {
        nodes: rng.range(4, 14) as u32,
        apps: rng.range(2, 7) as u32,
        min_replicas: 1,
        max_replicas: 9,
        constraints: rng.chance(60),
    };
    let w = generate(&mut rng, &cfg);
    let mut s: Vec<(u64, Event)> = Vec::new();
    let nodes: Vec<String> = w.nodes.iter().map(|n| n.name.clone()).collect();
    let apps: Vec<DeploymentSpec> = w.apps.clone();
    for n in w.nodes {
        s.push((1, Event::AddNode(n)));
    }
    for d in w.apps {
        s.push((2, Event::Deploy(d)));
    }
    let mut t = 3;
    for _ in 0..rng.range(6, 16) {
        t += rng.range(1, 60);
        let node = rng.pick(&nodes).clone();
        let app = rng.pick(&apps).clone();
        let ev = match rng.below(11) {
            0 => Event::FailNode(node),
            1 => Event::RecoverNode(node),
            2 => Event::Drain(node),
            3 => Event::Cordon(node),
            4 => Event::Uncordon(node),
            5 => Event::Scale {
                app: app.name.clone(),
                replicas: rng.range(0, 12) as u32,
            },
            6 => {
                let r = &app.template.requests;
                let cpu = (r.cpu_millis + rng.range(0, 3) * 125).max(125);
                Event::Roll {
                    app: app.name.clone(),
                    template: app
                        .template
                        .clone()
                        .with_requests(Resources::new(cpu, r.memory_bytes)),
                }
            }
            7 => Event::AddPdb(PdbSpec {
                name: format!("{}-pdb", app.name),
                selector: Selector::new(&[("app", &app.name)]),
                budget: if rng.chance(50) {
                    Budget::MinAvailable(IntOrPercent::Int(rng.range(0, 4) as u32))
                } else {
                    Budget::MaxUnavailable(IntOrPercent::Percent(rng.range(0, 60) as u32))
                },
            }),
            8 => Event::Evict(format!("{}#{}", app.name, rng.below(4))),
            9 => Event::FailZone {
                key: "topology.kubernetes.io/zone".into(),
                value: rng.pick(&shepherd::workload::ZONES).to_string(),
            },
            _ => Event::Rollback(app.name.clone()),
        };
        s.push((t, ev));
    }
    s
}

fn random_cases(out: &mut Vec<(String, Transcript)>) {
    for seed in 0..12u64 {
        for p in profiles() {
            let sim = Simulator::with_script(seed, p.clone(), random_script(seed));
            out.push((
                format!("random-{seed}-{}", p.scheduler_name),
                run(sim, 900, 150),
            ));
        }
    }
}

#[test]
fn placements_and_events_unchanged() {
    let mut cases = Vec::new();
    tour_cases(&mut cases);
    bench_cases(&mut cases);
    random_cases(&mut cases);

    let root = concat!(env!("CARGO_MANIFEST_DIR"), "/..");
    if let Ok(dir) = std::env::var("SHEPHERD_GOLDEN_DUMP") {
        std::fs::create_dir_all(&dir).expect("SHEPHERD_GOLDEN_DUMP directory");
        for (name, t) in &cases {
            std::fs::write(format!("{dir}/{name}.txt"), &t.text).expect("write transcript");
        }
    }
    let got: Vec<String> = cases
        .iter()
        .map(|(name, t)| format!("{name} {}", t.fingerprint()))
        .collect();
    let path = format!("{root}/{FINGERPRINTS}");
    if std::env::var("SHEPHERD_GOLDEN_RECORD").is_ok_and(|v| v == "1") {
        std::fs::write(&path, got.join("\n") + "\n").expect("write fingerprints");
        return;
    }
    let want = std::fs::read_to_string(&path).expect("tests/golden/fingerprints.txt");
    let want: Vec<&str> = want.lines().collect();
    let changed: Vec<String> = got
        .iter()
        .zip(want.iter())
        .filter(|(g, w)| g != w)
        .map(|(g, w)| format!("  got  {g}\n  want {w}"))
        .collect();
    assert!(
        changed.is_empty() && got.len() == want.len(),
        "{} of {} cases changed (cases: {} now, {} recorded):\n{}\n\
         Diff a case's transcript (SHEPHERD_GOLDEN_DUMP=DIR) against the parent commit's.",
        changed.len(),
        got.len(),
        got.len(),
        want.len(),
        changed.join("\n")
    );
}
