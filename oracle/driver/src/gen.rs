//! Random scheduling cases from a seed, as Kubernetes objects.
//!
//! The vocabulary is the gate's (tests/gate.rs): zones a/b/c, the app names,
//! disktype/pool labels, the dedicated/spot/maintenance taints and their
//! tolerations, affinity terms over app and tier labels. A case is a few
//! nodes, the pods already bound to them (each fits its node, so the
//! kubelet admits it), PriorityClasses, sometimes PodDisruptionBudgets and
//! Services, sometimes a KubeSchedulerConfiguration, and one incoming pod.
//! Every quantity is written in one of the forms Kubernetes accepts for its
//! value ("1", "1.5", "1500m", "1500e-3", "1Gi", "1G", "1e9", "0.5Ki" ...).
//!
//! [`Avoid`] turns off the inputs of each known deviation class, so that a
//! run can be green while the deviation is open (docs/oracle.md).

use serde_json::{json, Map, Value};
use shepherd::simulator::Prng;

pub const ZONE: &str = "topology.kubernetes.io/zone";
pub const HOSTNAME: &str = "kubernetes.io/hostname";
const ZONES: [&str; 3] = ["zone-a", "zone-b", "zone-c"];
const APPS: [&str; 6] = ["web", "api", "cache", "worker", "db", "queue"];
const MIB: u64 = 1 << 20;
const GPU: &str = "nvidia.com/gpu";
const EPHEMERAL: &str = "ephemeral-storage";

/// The known deviation classes a run can steer clear of (docs/oracle.md).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Avoid {
    // None is known today: memory-mib, explicit-zero, balanced-allocation
    // and non-zero-per-container (issue 43, items 1 and 2) are fixed. A
    // new class adds a field here, a name to CLASSES and the generator's
    // or the comparison's steering.
}

pub const CLASSES: [&str; 0] = [];

impl Avoid {
    pub fn all() -> Avoid {
        Avoid {}
    }

    /// `all` or `none` (and, once there are classes, their names).
    pub fn parse(s: &str) -> Result<Avoid, String> {
        let mut a = Avoid::default();
        for w in s.split(',').map(str::trim).filter(|w| !w.is_empty()) {
            match w {
                "all" => a = Avoid::all(),
                "none" => a = Avoid::default(),
                _ => {
                    return Err(format!(
                        "--avoid: unknown class {w:?}; expected all, none or some of {}",
                        CLASSES.join(", ")
                    ))
                }
            }
        }
        Ok(a)
    }
}

/// One case: everything but the incoming pod is already in the cluster.
#[derive(Clone, Debug)]
pub struct Case {
    pub seed: u64,
    pub nodes: Vec<Value>,
    /// Bound pods (spec.nodeName set), Ready and Running.
    pub pods: Vec<Value>,
    pub priority_classes: Vec<Value>,
    pub pdbs: Vec<Value>,
    pub services: Vec<Value>,
    /// A KubeSchedulerConfiguration, or None for the default profile.
    pub config: Option<Value>,
    pub incoming: Value,
}

/// PriorityClasses: name, value, preemptionPolicy.
const CLASSES_PRIO: [(&str, i32, &str); 4] = [
    ("low", 10, "PreemptLowerPriority"),
    ("mid", 100, "PreemptLowerPriority"),
    ("high", 1000, "PreemptLowerPriority"),
    ("polite", 1000, "Never"),
];

pub fn priority_of(class: Option<&str>) -> (i32, &'static str) {
    match class.and_then(|c| CLASSES_PRIO.iter().find(|x| x.0 == c)) {
        Some(&(_, v, p)) => (v, p),
        None => (0, "PreemptLowerPriority"),
    }
}

/// A cpu amount in millicores written in a random form that means exactly it.
pub fn cpu_text(rng: &mut Prng, m: u64) -> String {
    let mut forms = vec![format!("{m}m"), format!("{m}e-3")];
    if m.is_multiple_of(1000) {
        forms.push(format!("{}", m / 1000));
        forms.push(format!("{}.0", m / 1000));
        if m >= 1000 && (m / 1000).is_multiple_of(10) {
            forms.push(format!("{}e1", m / 10000));
        }
    } else if m.is_multiple_of(100) {
        forms.push(format!("{}.{}", m / 1000, (m % 1000) / 100));
    } else if m.is_multiple_of(10) {
        forms.push(format!("{}.{:02}", m / 1000, (m % 1000) / 10));
    }
    forms.push(format!("{}u", m * 1000));
    forms.push(format!("{}n", m * 1_000_000));
    rng.pick(&forms).clone()
}

/// A memory amount in bytes written in a random form that means exactly it.
pub fn mem_text(rng: &mut Prng, b: u64) -> String {
    let mut forms = vec![format!("{b}")];
    for (suffix, unit) in [("Ki", 1u64 << 10), ("Mi", 1 << 20), ("Gi", 1 << 30)] {
        if b.is_multiple_of(unit) {
            forms.push(format!("{}{suffix}", b / unit));
        } else if (2 * b).is_multiple_of(unit) {
            forms.push(format!("{}.5{suffix}", b / unit));
        }
    }
    for (suffix, unit, exp) in [
        ("k", 1000u64, 3),
        ("M", 1_000_000, 6),
        ("G", 1_000_000_000, 9),
    ] {
        if b.is_multiple_of(unit) {
            forms.push(format!("{}{suffix}", b / unit));
            forms.push(format!("{}e{exp}", b / unit));
        }
    }
    // Milli-bytes: legal, if odd.
    forms.push(format!("{b}000m"));
    rng.pick(&forms).clone()
}

/// A memory size near `mib` MiB: whole MiB, decimal megabytes, an odd byte
/// count, or now and then below one MiB (Kubernetes counts bytes, so a node
/// of 512Ki takes a pod of 100Ki).
fn mem_bytes(rng: &mut Prng, mib: u64) -> u64 {
    if rng.chance(50) {
        return mib * MIB;
    }
    match rng.below(8) {
        0..=1 => (mib * MIB / 1_000_000).max(1) * 1_000_000,
        2..=4 => mib * MIB - rng.range(1, 4096),
        5..=6 => mib * MIB + rng.range(1, 512) * 1024,
        _ => rng.range(1, MIB - 1),
    }
}

fn labels(pairs: &[(&str, &str)]) -> Value {
    let mut m = Map::new();
    for (k, v) in pairs {
        m.insert(k.to_string(), json!(v));
    }
    Value::Object(m)
}

fn random_toleration(rng: &mut Prng) -> Value {
    match rng.below(9) {
        0 => {
            json!({"key": "dedicated", "operator": "Equal", "value": "gpu", "effect": "NoSchedule"})
        }
        1 => json!({"key": "dedicated", "operator": "Equal", "value": "gpu"}),
        2 => {
            json!({"key": "dedicated", "operator": "Equal", "value": "infra", "effect": "NoExecute"})
        }
        3 => json!({"key": "dedicated", "operator": "Exists"}),
        4 => json!({"key": "maintenance", "operator": "Exists", "effect": "NoExecute"}),
        5 => json!({"key": "maintenance", "value": "true", "effect": "NoSchedule"}),
        6 => json!({"key": "spot", "operator": "Exists", "effect": "PreferNoSchedule"}),
        7 => {
            json!({"key": "dedicated", "operator": "Equal", "value": "infra", "effect": "NoSchedule"})
        }
        _ => json!({"operator": "Exists"}),
    }
}

fn app_selector(rng: &mut Prng, own: &str) -> Value {
    match rng.below(5) {
        0 | 1 => json!({"matchLabels": {"app": own}}),
        2 => json!({"matchLabels": {"app": *rng.pick(&APPS)}}),
        3 => {
            json!({"matchExpressions": [{"key": "tier", "operator": "In", "values": [*rng.pick(&["frontend", "backend"])]}]})
        }
        _ => {
            json!({"matchExpressions": [{"key": "app", "operator": "NotIn", "values": [own]}, {"key": "app", "operator": "Exists"}]})
        }
    }
}

fn term(rng: &mut Prng, own: &str) -> Value {
    let key = if rng.chance(50) { HOSTNAME } else { ZONE };
    json!({"labelSelector": app_selector(rng, own), "topologyKey": key})
}

fn node_requirement(rng: &mut Prng) -> Value {
    match rng.below(7) {
        0 => {
            json!({"key": ZONE, "operator": "In", "values": [*rng.pick(&ZONES), *rng.pick(&ZONES)]})
        }
        1 => json!({"key": ZONE, "operator": "NotIn", "values": [*rng.pick(&ZONES)]}),
        2 => json!({"key": "disktype", "operator": "Exists"}),
        3 => json!({"key": "pool", "operator": "DoesNotExist"}),
        4 => json!({"key": "rank", "operator": "Gt", "values": [format!("{}", rng.range(0, 5))]}),
        5 => json!({"key": "rank", "operator": "Lt", "values": [format!("{}", rng.range(1, 6))]}),
        _ => json!({"key": "disktype", "operator": "In", "values": ["ssd"]}),
    }
}

fn requests(rng: &mut Prng, cpu_m: u64, mem_b: u64) -> Value {
    let mut r = Map::new();
    // A missing request gets the scheduler's non-zero default for the
    // scores (each container's own); an explicit "0" stays 0.
    let cpu = match rng.below(10) {
        0 => None,
        1 => Some("0".to_string()),
        _ => Some(cpu_text(rng, cpu_m)),
    };
    let mem = match rng.below(10) {
        0 => None,
        1 => Some("0".to_string()),
        _ => Some(mem_text(rng, mem_b)),
    };
    if let Some(c) = cpu {
        r.insert("cpu".into(), json!(c));
    }
    if let Some(m) = mem {
        r.insert("memory".into(), json!(m));
    }
    Value::Object(r)
}

/// The exact requests a pod object asks for (cpu millicores, memory bytes),
/// reading back what `requests` wrote (0 for a missing one), by
/// Kubernetes' rule: the containers plus the sidecars (restartable init
/// containers), or an ordinary init container plus the sidecars started
/// before it, whichever is larger.
fn requested(pod: &Value) -> (u64, u64) {
    let of = |c: &Value| {
        let r = &c["resources"]["requests"];
        (
            r["cpu"]
                .as_str()
                .map_or(0, |s| shepherd::quantity::parse_cpu_millis(s).unwrap_or(0)),
            r["memory"].as_str().map_or(0, |s| {
                shepherd::quantity::parse_memory_bytes(s).unwrap_or(0)
            }),
        )
    };
    let (mut cpu, mut mem) = (0, 0);
    for c in pod["spec"]["containers"].as_array().into_iter().flatten() {
        let (c, m) = of(c);
        cpu += c;
        mem += m;
    }
    let (mut side_c, mut side_m, mut peak_c, mut peak_m) = (0, 0, 0, 0);
    for c in pod["spec"]["initContainers"]
        .as_array()
        .into_iter()
        .flatten()
    {
        let (ic, im) = of(c);
        if c["restartPolicy"] == "Always" {
            side_c += ic;
            side_m += im;
            (peak_c, peak_m) = (peak_c.max(side_c), peak_m.max(side_m));
        } else {
            (peak_c, peak_m) = (peak_c.max(side_c + ic), peak_m.max(side_m + im));
        }
    }
    ((cpu + side_c).max(peak_c), (mem + side_m).max(peak_m))
}

fn pod_object(name: &str, labels_v: Value, spec: Map<String, Value>) -> Value {
    json!({
        "apiVersion": "v1",
        "kind": "Pod",
        "metadata": {"name": name, "namespace": "default", "labels": labels_v},
        "spec": Value::Object(spec),
    })
}

/// The pod spec's containers (one, or two that split the requests) and
/// sometimes an init container, ordinary or a sidecar, of about half the
/// requests: each request set, set to "0" or missing.
pub(crate) fn containers(rng: &mut Prng, cpu_m: u64, mem_b: u64, spec: &mut Map<String, Value>) {
    let image = "registry.k8s.io/pause:3.10";
    let list = if rng.chance(80) || cpu_m < 2 || mem_b < 2 * MIB {
        json!([{"name": "main", "image": image, "resources": {"requests": requests(rng, cpu_m, mem_b)}}])
    } else {
        let (c1, m1) = (cpu_m / 2, (mem_b / 2 / MIB) * MIB);
        json!([
            {"name": "main", "image": image, "resources": {"requests": requests(rng, c1, m1)}},
            {"name": "side", "image": image, "resources": {"requests": requests(rng, cpu_m - c1, mem_b - m1)}}
        ])
    };
    spec.insert("containers".into(), list);
    if rng.chance(15) {
        let (c, m) = ((cpu_m / 2).max(1), (mem_b / 2 / MIB).max(1) * MIB);
        let mut init =
            json!({"name": "init", "image": image, "resources": {"requests": requests(rng, c, m)}});
        if rng.chance(40) {
            init["restartPolicy"] = json!("Always");
        }
        spec.insert("initContainers".into(), json!([init]));
    }
}

/// Host ports (NodePorts) on a pod's first container: one or two from a
/// small set of ports, protocols and addresses, so that cases conflict
/// often. Those conflicting with `taken` (for a bound pod, its node's
/// other pods' ports, which the kubelet would refuse; for the incoming
/// pod, empty) or with each other are left out; the ports given are added
/// to `taken`.
pub(crate) fn host_ports(
    rng: &mut Prng,
    spec: &mut Map<String, Value>,
    taken: &mut Vec<(&'static str, &'static str, u64)>,
) {
    let mut ports = Vec::new();
    for _ in 0..rng.range(1, 2) {
        let port = *rng.pick(&[80u64, 443, 9100]);
        let protocol = if rng.chance(25) { "UDP" } else { "TCP" };
        let ip = *rng.pick(&["", "", "10.0.0.1", "10.0.0.2", "0.0.0.0"]);
        let all = |ip: &str| ip.is_empty() || ip == "0.0.0.0";
        let clash = |&(p, i, n): &(&str, &str, u64)| {
            p == protocol && n == port && (i == ip || all(i) || all(ip))
        };
        if taken.iter().any(clash) {
            continue;
        }
        taken.push((protocol, ip, port));
        ports.push((protocol, ip, port, rng.range(1000, 9000)));
    }
    let list: Vec<Value> = ports
        .into_iter()
        .map(|(protocol, ip, port, container)| {
            let mut m = json!({"containerPort": container, "hostPort": port});
            if protocol != "TCP" || rng.chance(30) {
                m["protocol"] = json!(protocol);
            }
            if !ip.is_empty() {
                m["hostIP"] = json!(ip);
            }
            m
        })
        .collect();
    if list.is_empty() {
        return;
    }
    if let Some(c) = spec
        .get_mut("containers")
        .and_then(|c| c.get_mut(0))
        .and_then(|c| c.as_object_mut())
    {
        c.insert("ports".into(), Value::Array(list));
    }
}

pub fn generate(seed: u64, _avoid: &Avoid) -> Case {
    let mut rng = Prng::new(seed ^ 0x6f72_6163_6c65);
    // Host ports draw from a stream of their own, so that the rest of a
    // seed's case is what it was before they were generated.
    let mut ports_rng = Prng::new(seed ^ 0x706f_7274_73);
    let ports_rng = &mut ports_rng;
    let rng = &mut rng;
    // Scalar resources (issue 45) from a stream of their own, so the rest
    // of a seed's case stays: in some cases nodes offer nvidia.com/gpu and
    // ephemeral-storage, pods request them, and the profile may score them.
    let mut scalar_rng = Prng::new(seed ^ 0x5ca1_a125_6770);
    let sr = &mut scalar_rng;
    let scalar_case = sr.chance(30);
    // Per node: GPUs and ephemeral storage (bytes) still free.
    let mut gpu_room: Vec<u64> = Vec::new();
    let mut eph_room: Vec<u64> = Vec::new();
    let n_nodes = if rng.chance(10) {
        rng.range(9, 16)
    } else {
        rng.range(1, 8)
    };
    let tight = rng.chance(50);
    let mut nodes = Vec::new();
    // (name, cpu m, mem b, pods, NoExecute keys)
    let mut room: Vec<(String, u64, u64, u64, Vec<String>)> = Vec::new();
    for i in 0..n_nodes {
        let name = format!("node-{i}");
        let cpu_m = if tight {
            rng.range(1, 8) * 250
        } else {
            rng.range(2, 32) * 250
        };
        let cpu_m = if rng.chance(10) {
            cpu_m + rng.range(1, 99)
        } else {
            cpu_m
        };
        let mem_mib = if tight {
            rng.range(1, 16) * 256
        } else {
            rng.range(2, 64) * 256
        };
        let mut mem_b = mem_bytes(rng, mem_mib);
        let mut cpu_m = cpu_m;
        if rng.chance(3) {
            if rng.chance(50) {
                cpu_m = 0;
            } else {
                mem_b = 0;
            }
        }
        let pods = if rng.chance(15) { rng.range(1, 4) } else { 110 };
        let mut l = Map::new();
        let host_label = if rng.chance(90) {
            Some(name.clone())
        } else if rng.chance(50) {
            None
        } else {
            Some("shared-host".to_string())
        };
        if let Some(h) = host_label {
            l.insert(HOSTNAME.into(), json!(h));
        }
        if rng.chance(90) {
            l.insert(ZONE.into(), json!(*rng.pick(&ZONES)));
        }
        if rng.chance(40) {
            l.insert("disktype".into(), json!("ssd"));
        }
        if rng.chance(30) {
            l.insert("pool".into(), json!("batch"));
        }
        if rng.chance(30) {
            l.insert("rank".into(), json!(format!("{}", rng.range(0, 6))));
        }
        let mut taints = Vec::new();
        let mut no_exec = Vec::new();
        if rng.chance(30) {
            for _ in 0..rng.range(1, 2) {
                let t = match rng.below(4) {
                    0 => {
                        l.insert("accelerator".into(), json!("gpu"));
                        json!({"key": "dedicated", "value": "gpu", "effect": "NoSchedule"})
                    }
                    1 => json!({"key": "dedicated", "value": "infra", "effect": "NoSchedule"}),
                    2 => json!({"key": "spot", "value": "true", "effect": "PreferNoSchedule"}),
                    _ => {
                        no_exec.push("maintenance".to_string());
                        json!({"key": "maintenance", "value": "true", "effect": "NoExecute"})
                    }
                };
                if !taints.contains(&t) {
                    taints.push(t);
                }
            }
        }
        let mut spec = Map::new();
        if rng.chance(10) {
            spec.insert("unschedulable".into(), json!(true));
            // The taint the node lifecycle controller keeps on a cordoned
            // node (TaintNodesByCondition), which nodeTaintsPolicy Honor
            // reads; Shepherd keeps it as node state (its import drops it).
            taints.push(json!({"key": "node.kubernetes.io/unschedulable", "effect": "NoSchedule"}));
        }
        if !taints.is_empty() {
            spec.insert("taints".into(), Value::Array(taints));
        }
        let mut alloc = Map::new();
        alloc.insert("cpu".into(), json!(cpu_text(rng, cpu_m)));
        alloc.insert("memory".into(), json!(mem_text(rng, mem_b)));
        alloc.insert("pods".into(), json!(format!("{pods}")));
        let gpus = if scalar_case && sr.chance(50) {
            *sr.pick(&[1u64, 2, 4, 8])
        } else {
            0
        };
        if gpus > 0 {
            alloc.insert(GPU.into(), json!(format!("{gpus}")));
        }
        let eph = if scalar_case && sr.chance(40) {
            sr.range(10, 100) << 30
        } else {
            0
        };
        if eph > 0 {
            alloc.insert(EPHEMERAL.into(), json!(mem_text(sr, eph)));
        }
        gpu_room.push(gpus);
        eph_room.push(eph);
        let node = json!({
            "apiVersion": "v1",
            "kind": "Node",
            "metadata": {"name": name, "labels": Value::Object(l)},
            "spec": Value::Object(spec),
            "status": {
                "capacity": Value::Object(alloc.clone()),
                "allocatable": Value::Object(alloc),
                "conditions": [{"type": "Ready", "status": "True"}],
            },
        });
        nodes.push(node);
        room.push((name, cpu_m, mem_b, pods, no_exec));
    }

    let priority_classes: Vec<Value> = CLASSES_PRIO
        .iter()
        .map(|&(n, v, p)| {
            json!({"apiVersion": "scheduling.k8s.io/v1", "kind": "PriorityClass",
                   "metadata": {"name": n}, "value": v, "preemptionPolicy": p})
        })
        .collect();

    // Bound pods: each fits what is left of its node.
    let mut pods = Vec::new();
    let mut serial = 0;
    for (at, (name, cpu_m, mem_b, max_pods, no_exec)) in room.iter_mut().enumerate() {
        let count = rng.range(0, 4).min(*max_pods);
        let mut taken = Vec::new();
        for _ in 0..count {
            if *cpu_m < 50 || *mem_b < 32 * MIB {
                break;
            }
            let app = *rng.pick(&APPS);
            let want_c = (rng.range(1, 8) * 125).min(*cpu_m);
            let want_m = (rng.range(1, 16) * 128 * MIB).min(*mem_b / MIB * MIB);
            let want_m = mem_bytes(rng, want_m / MIB).min(*mem_b);
            let mut l = vec![("app", app)];
            let tier = *rng.pick(&["frontend", "backend"]);
            if rng.chance(40) {
                l.push(("tier", tier));
            }
            let mut spec = Map::new();
            spec.insert("nodeName".into(), json!(name.clone()));
            containers(rng, want_c, want_m, &mut spec);
            if let Some(c) = [None, Some("low"), Some("mid"), Some("high")][rng.below(4) as usize] {
                spec.insert("priorityClassName".into(), json!(c));
            }
            let mut tols: Vec<Value> = no_exec
                .iter()
                .map(|k| json!({"key": k, "operator": "Exists", "effect": "NoExecute"}))
                .collect();
            if rng.chance(10) {
                tols.push(random_toleration(rng));
            }
            if !tols.is_empty() {
                spec.insert("tolerations".into(), Value::Array(tols));
            }
            let mut aff = Map::new();
            if rng.chance(15) {
                aff.insert(
                    "podAntiAffinity".into(),
                    json!({"requiredDuringSchedulingIgnoredDuringExecution": [term(rng, app)]}),
                );
            }
            if rng.chance(15) {
                let k = if rng.chance(50) {
                    "podAffinity"
                } else {
                    "podAntiAffinity"
                };
                let mut inner = aff.remove(k).unwrap_or_else(|| json!({}));
                inner["preferredDuringSchedulingIgnoredDuringExecution"] =
                    json!([{"weight": rng.range(1, 100), "podAffinityTerm": term(rng, app)}]);
                aff.insert(k.into(), inner);
            }
            if !aff.is_empty() {
                spec.insert("affinity".into(), Value::Object(aff));
            }
            if ports_rng.chance(25) {
                host_ports(ports_rng, &mut spec, &mut taken);
            }
            let pname = format!("{app}-{serial}");
            serial += 1;
            let mut pod = pod_object(&pname, labels(&l), spec);
            let (c, m) = requested(&pod);
            if c > *cpu_m || m > *mem_b {
                continue;
            }
            *cpu_m -= c;
            *mem_b -= m;
            let gpus = if gpu_room[at] > 0 && sr.chance(50) {
                sr.range(1, gpu_room[at])
            } else {
                0
            };
            let eph = if eph_room[at] >= 1 << 30 && sr.chance(40) {
                sr.range(1, eph_room[at] >> 30) << 30
            } else {
                0
            };
            gpu_room[at] -= gpus;
            eph_room[at] -= eph;
            add_scalars(sr, &mut pod, gpus, eph);
            pods.push(pod);
        }
    }

    // The incoming pod.
    let app = *rng.pick(&APPS);
    let mut l = vec![("app", app)];
    if rng.chance(40) {
        l.push(("tier", *rng.pick(&["frontend", "backend"])));
    }
    let (cpu_m, mem_b) = if rng.chance(20) {
        let (c, m) = (rng.range(4, 40) * 250, rng.range(4, 64) * 256);
        (c, mem_bytes(rng, m))
    } else {
        let (c, m) = (rng.range(1, 12) * 50, rng.range(1, 16) * 64);
        (c, mem_bytes(rng, m))
    };
    let mut spec = Map::new();
    containers(rng, cpu_m, mem_b, &mut spec);
    if let Some(c) = [
        None,
        Some("low"),
        Some("mid"),
        Some("high"),
        Some("high"),
        Some("polite"),
    ][rng.below(6) as usize]
    {
        spec.insert("priorityClassName".into(), json!(c));
    }
    if rng.chance(12) {
        let sel = match rng.below(3) {
            0 => json!({"disktype": "ssd"}),
            1 => json!({"pool": "batch"}),
            _ => json!({"accelerator": "gpu"}),
        };
        spec.insert("nodeSelector".into(), sel);
    }
    if rng.chance(35) {
        let tols: Vec<Value> = (0..rng.range(1, 3))
            .map(|_| random_toleration(rng))
            .collect();
        spec.insert("tolerations".into(), Value::Array(tols));
    }
    let mut aff = Map::new();
    let mut na = Map::new();
    if rng.chance(20) {
        let terms: Vec<Value> = (0..rng.range(1, 2))
            .map(|_| {
                let reqs: Vec<Value> = (0..rng.range(1, 2))
                    .map(|_| node_requirement(rng))
                    .collect();
                json!({"matchExpressions": reqs})
            })
            .collect();
        na.insert(
            "requiredDuringSchedulingIgnoredDuringExecution".into(),
            json!({"nodeSelectorTerms": terms}),
        );
    }
    if rng.chance(25) {
        let prefs: Vec<Value> = (0..rng.range(1, 3))
            .map(|_| json!({"weight": rng.range(1, 100), "preference": {"matchExpressions": [node_requirement(rng)]}}))
            .collect();
        na.insert(
            "preferredDuringSchedulingIgnoredDuringExecution".into(),
            Value::Array(prefs),
        );
    }
    if !na.is_empty() {
        aff.insert("nodeAffinity".into(), Value::Object(na));
    }
    for k in ["podAffinity", "podAntiAffinity"] {
        let mut inner = Map::new();
        if rng.chance(7) {
            inner.insert(
                "requiredDuringSchedulingIgnoredDuringExecution".into(),
                json!([term(rng, app)]),
            );
        }
        if rng.chance(20) {
            let prefs: Vec<Value> = (0..rng.range(1, 2))
                .map(|_| json!({"weight": rng.range(1, 100), "podAffinityTerm": term(rng, app)}))
                .collect();
            inner.insert(
                "preferredDuringSchedulingIgnoredDuringExecution".into(),
                Value::Array(prefs),
            );
        }
        if !inner.is_empty() {
            aff.insert(k.into(), Value::Object(inner));
        }
    }
    if !aff.is_empty() {
        spec.insert("affinity".into(), Value::Object(aff));
    }
    let mut has_spread = false;
    if rng.chance(30) {
        has_spread = true;
        let n = rng.range(1, 2);
        let mut keys = vec![ZONE, HOSTNAME];
        let mut cs = Vec::new();
        for _ in 0..n {
            let key = keys.remove(rng.below(keys.len() as u64) as usize);
            let hard = rng.chance(50);
            let mut c = json!({
                "maxSkew": rng.range(1, 3),
                "topologyKey": key,
                "whenUnsatisfiable": if hard { "DoNotSchedule" } else { "ScheduleAnyway" },
                "labelSelector": {"matchLabels": {"app": app}},
            });
            if hard && rng.chance(20) {
                c["minDomains"] = json!(rng.range(1, 4));
            }
            if rng.chance(20) {
                c["nodeTaintsPolicy"] = json!(*rng.pick(&["Honor", "Ignore"]));
            }
            if rng.chance(20) {
                c["nodeAffinityPolicy"] = json!(*rng.pick(&["Honor", "Ignore"]));
            }
            cs.push(c);
        }
        spec.insert("topologySpreadConstraints".into(), Value::Array(cs));
    }
    if ports_rng.chance(30) {
        host_ports(ports_rng, &mut spec, &mut Vec::new());
    }
    let mut incoming = pod_object("incoming", labels(&l), spec);
    if scalar_case {
        let gpus = if sr.chance(55) { sr.range(1, 4) } else { 0 };
        let eph = if sr.chance(30) {
            sr.range(1, 40) << 30
        } else {
            0
        };
        add_scalars(sr, &mut incoming, gpus, eph);
    }

    // Budgets over the bound pods: minAvailable as a number (a bare pod's
    // budget; percentages and maxUnavailable need the pods' controllers).
    let mut pdbs = Vec::new();
    if rng.chance(20) {
        for i in 0..rng.range(1, 2) {
            pdbs.push(json!({
                "apiVersion": "policy/v1", "kind": "PodDisruptionBudget",
                "metadata": {"name": format!("pdb-{i}"), "namespace": "default"},
                "spec": {"minAvailable": rng.range(0, 3), "selector": {"matchLabels": {"app": *rng.pick(&APPS)}}},
            }));
        }
    }
    let mut services = Vec::new();
    if rng.chance(25) {
        let sel = if rng.chance(70) {
            app
        } else {
            *rng.pick(&APPS)
        };
        services.push(json!({
            "apiVersion": "v1", "kind": "Service",
            "metadata": {"name": format!("svc-{sel}"), "namespace": "default"},
            "spec": {"selector": {"app": sel}, "ports": [{"port": 80}]},
        }));
    }

    let mut config = random_config(rng);
    if scalar_case && sr.chance(45) {
        config = Some(scalar_config(sr));
    }
    let _ = has_spread;

    Case {
        seed,
        nodes,
        pods,
        priority_classes,
        pdbs,
        services,
        config,
        incoming,
    }
}

fn random_config(rng: &mut Prng) -> Option<Value> {
    if rng.chance(70) {
        return None;
    }
    let mut prof = json!({"schedulerName": "default-scheduler"});
    let mut plugin_config = Vec::new();
    match rng.below(5) {
        0 => plugin_config.push(json!({"name": "NodeResourcesFit", "args": {"scoringStrategy": {
            "type": "MostAllocated", "resources": [{"name": "cpu", "weight": 1}, {"name": "memory", "weight": 1}]}}})),
        1 => plugin_config.push(json!({"name": "NodeResourcesFit", "args": {"scoringStrategy": {
            "type": "LeastAllocated", "resources": [{"name": "cpu", "weight": rng.range(1, 3)}, {"name": "memory", "weight": rng.range(1, 3)}]}}})),
        2 => plugin_config.push(json!({"name": "InterPodAffinity", "args": {"hardPodAffinityWeight": rng.range(0, 10)}})),
        3 => prof["percentageOfNodesToScore"] = json!(rng.range(1, 100)),
        _ => {
            prof["plugins"] = json!({"score": {"enabled": [
                {"name": "NodeAffinity", "weight": rng.range(1, 5)},
                {"name": "TaintToleration", "weight": rng.range(1, 5)},
            ]}});
        }
    }
    if !plugin_config.is_empty() {
        prof["pluginConfig"] = Value::Array(plugin_config);
    }
    Some(
        json!({"apiVersion": "kubescheduler.config.k8s.io/v1", "kind": "KubeSchedulerConfiguration", "profiles": [prof]}),
    )
}

/// Adds `gpus` nvidia.com/gpu (requests equal to limits, as the API
/// server's defaulting leaves an extended resource given as a limit) and
/// `eph` bytes of ephemeral-storage requests to the pod's first container.
fn add_scalars(rng: &mut Prng, pod: &mut Value, gpus: u64, eph: u64) {
    let c = &mut pod["spec"]["containers"][0]["resources"];
    if gpus > 0 {
        c["requests"][GPU] = json!(format!("{gpus}"));
        c["limits"][GPU] = json!(format!("{gpus}"));
    }
    if eph > 0 {
        c["requests"][EPHEMERAL] = json!(mem_text(rng, eph));
    }
}

/// A profile that scores scalar resources: NodeResourcesFit's strategy
/// (any type) over cpu, memory, nvidia.com/gpu and sometimes
/// ephemeral-storage, with weights, and BalancedAllocation over cpu,
/// memory and sometimes the GPU or ephemeral-storage.
fn scalar_config(rng: &mut Prng) -> Value {
    let mut resources = vec![
        json!({"name": "cpu", "weight": rng.range(1, 3)}),
        json!({"name": "memory", "weight": rng.range(1, 3)}),
        json!({"name": GPU, "weight": rng.range(1, 6)}),
    ];
    if rng.chance(30) {
        resources.push(json!({"name": EPHEMERAL, "weight": rng.range(1, 3)}));
    }
    let mut strategy = json!({"resources": resources});
    match rng.below(3) {
        0 => strategy["type"] = json!("LeastAllocated"),
        1 => strategy["type"] = json!("MostAllocated"),
        _ => {
            strategy["type"] = json!("RequestedToCapacityRatio");
            strategy["requestedToCapacityRatio"] = if rng.chance(50) {
                json!({"shape": [{"utilization": 0, "score": 0}, {"utilization": 100, "score": 10}]})
            } else {
                json!({"shape": [{"utilization": 0, "score": 10}, {"utilization": 40, "score": 3}, {"utilization": 100, "score": 0}]})
            };
        }
    }
    let mut balanced = vec![json!({"name": "cpu"}), json!({"name": "memory"})];
    if rng.chance(60) {
        balanced.push(json!({"name": GPU}));
    }
    if rng.chance(25) {
        balanced.push(json!({"name": EPHEMERAL}));
    }
    json!({"apiVersion": "kubescheduler.config.k8s.io/v1", "kind": "KubeSchedulerConfiguration", "profiles": [{
        "schedulerName": "default-scheduler",
        "pluginConfig": [
            {"name": "NodeResourcesFit", "args": {"scoringStrategy": strategy}},
            {"name": "NodeResourcesBalancedAllocation", "args": {"resources": balanced}},
        ],
    }]})
}
