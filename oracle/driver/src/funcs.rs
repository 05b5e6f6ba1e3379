//! The pure functions, and the exports' validation.
//!
//! Each check draws its inputs from SHEPHERD_ORACLE_SEED on, asks the oracle
//! for Kubernetes' answer in one request, and compares Shepherd's.

use serde_json::{json, Value};
use shepherd::model::NameRule;
use shepherd::model::{LabelSelectorRequirement, Labels, SelectorOperator};
use shepherd::quantity::{self, Quantity};
use shepherd::simulator::Prng;
use shepherd::{IntOrPercent, RollingUpdate, Selector, Taint, TaintEffect, Toleration};

use crate::gen::{self, Avoid};
use crate::oracle::Oracle;

#[derive(Default)]
struct Tally {
    pass: u64,
    fail: u64,
    /// Mismatches by class: (count, printed).
    classes: std::collections::BTreeMap<String, (u64, u64)>,
}

impl Tally {
    fn check(&mut self, ok: bool, class: &str, what: impl FnOnce() -> String) {
        if ok {
            self.pass += 1;
            return;
        }
        self.fail += 1;
        let e = self.classes.entry(class.to_string()).or_default();
        e.0 += 1;
        // A few of each class in full; the counts at the end.
        if e.1 < 8 {
            e.1 += 1;
            println!("MISMATCH [{class}] {}", what());
        }
    }

    fn done(self) -> (u64, u64) {
        if !self.classes.is_empty() {
            eprintln!("mismatches by class:");
            for (c, (n, _)) in &self.classes {
                eprintln!("  {c}: {n}");
            }
        }
        (self.pass, self.fail)
    }
}

const SUFFIXES: [&str; 30] = [
    "", "", "", "m", "k", "M", "G", "T", "P", "E", "Ki", "Mi", "Gi", "Ti", "Pi", "Ei", "u", "n",
    "e3", "E2", "e-3", "e+2", "e-9", "E-10", // Not Kubernetes suffixes.
    "Kb", "mi", "K", "e", "i", "E+",
];

/// The inputs of Kubernetes' own quantity tests (apimachinery v0.37.2
/// resource/quantity_test.go: TestQuantityParse with its invalid list,
/// TestParseQuantityString, TestQuantityParseEmit, TestParseQuantity),
/// drawn as they are and, as those tests do, with a "-" or "+" in front.
const K8S_QUANTITIES: &[&str] = &[
    "0",
    "0n",
    "0u",
    "0m",
    "0Ki",
    "0k",
    "0Mi",
    "0M",
    "0Gi",
    "0G",
    "0Ti",
    "0T",
    "1",
    "1Ki",
    "8Ki",
    "7Mi",
    "6Gi",
    "5Ti",
    "4Pi",
    "3Ei",
    "10Ti",
    "100Ti",
    "5n",
    "4u",
    "3m",
    "9",
    "8k",
    "50k",
    "7M",
    "6G",
    "5T",
    "40T",
    "300T",
    "2P",
    "1E",
    "1E-3",
    "1e3",
    "1E6",
    "1e9",
    "1E12",
    "1e15",
    "1E18",
    "1e14",
    "1e13",
    "100.035k",
    "0.001",
    "0.0005k",
    "0.005",
    "0.05",
    "0.5",
    "0.00050k",
    "0.00500",
    "0.05000",
    "0.50000",
    "0.5e0",
    "0.5e-1",
    "0.5e-2",
    "10.035M",
    "1.2e3",
    "1.3E+6",
    "1.40e9",
    "1.53E12",
    "1.6e15",
    "1.7E18",
    "9.01",
    "8.1k",
    "7.123456M",
    "6.987654321G",
    "5.444T",
    "40.1T",
    "300.2T",
    "2.5P",
    "1.01E",
    "3.001n",
    "1.1E-9",
    "0.0000000001",
    "0.0000000005",
    "0.00000000050",
    "0.5e-9",
    "0.9n",
    "0.00000012345",
    "0.00000012354",
    "9Ei",
    "9223372036854775807Ki",
    "12E",
    "100.035Ki",
    "0.5Mi",
    "0.05Gi",
    "0.025Ti",
    "0.000000000001Ki",
    ".001",
    ".0001k",
    "1.",
    "1.G",
    "1.1.M",
    "1+1.0M",
    "0.1mi",
    "0.1am",
    "aoeu",
    ".5i",
    "1i",
    "-3.01i",
    "-3.01e-",
    " 1",
    "1 ",
    "1.025Ti",
    ".",
    "-.",
    ".001Ki",
    ".000001Ki",
    ".000000001Ki",
    ".000000000001Ki",
    "1024Mi",
    "1000M",
    "999999999999999999",
    "999999999999999999.0",
    "999999999999999999.1",
    "9999999999999999999",
    "1000000000000000000",
    "9999999999999999999.0",
    "1.0E",
    "1000000000000000000.0",
    "9999999999999999999000m",
    "9999999999999999999.1",
    "1.0000000000000000001E",
    "1000000000000000000.1",
    "1.000000000000000001E",
    "1000000000000000001",
    "10E",
    "10000000000000000000",
    "10.0E",
    "10000000000000000000000m",
    "10.0000000000000000001E",
    "10.000000000000000001E",
    "9223372036854775806",
    "9223372036854775806.0",
    "9223372036854775806000m",
    "9223372036854775806.1",
    "9223372036854775807",
    "9223372036854775807.0",
    "9223372036854775807000m",
    "9223372036854775807.1",
    "9223372036854775808",
    "9223372036854775808.0",
    "9223372036854775808000m",
    "9223372036854775808.1",
];

fn digits(rng: &mut Prng, s: &mut String, n: u64) {
    for _ in 0..n {
        s.push(char::from(b'0' + rng.below(10) as u8));
    }
}

/// An exponent after `e`/`E`: small ones, ones with a sign and leading
/// zeros, ones that Kubernetes truncates to 32 bits (`int32(parsed)`: a
/// small exponent plus a multiple of 2^32), ones beyond int64 (refused).
/// After truncation every exponent stays within ±100000: far below that,
/// Kubernetes' arbitrary-precision rounding takes seconds or more.
fn random_exponent(rng: &mut Prng) -> String {
    let small = rng.range(0, 40) as i64 - 20;
    let e: i128 = match rng.below(8) {
        0 => {
            i128::from(small)
                + i128::from(rng.range(1, 3)) * (1 << 32) * (if rng.chance(50) { 1 } else { -1 })
        }
        1 => i128::from(small) + i128::from(rng.range(1, (1 << 31) - 1)) * (1 << 32),
        2 => *rng.pick(&[
            i128::from(i64::MAX),
            i128::from(i64::MIN),
            i128::from(i64::MAX) + 1,
            i128::from(i64::MIN) - 1,
            (1 << 32) + 3,
            (1 << 32) - 10,
        ]),
        3 => rng.range(0, 200_000) as i128 - 100_000,
        _ => i128::from(small),
    };
    let mut s = String::new();
    if e < 0 {
        s.push('-');
    } else if rng.chance(30) {
        s.push('+');
    }
    for _ in 0..rng.below(3) {
        s.push('0');
    }
    s.push_str(&e.unsigned_abs().to_string());
    s
}

fn random_quantity(rng: &mut Prng) -> String {
    let mut s = String::new();
    match rng.below(10) {
        0 => s.push('-'),
        1 => s.push('+'),
        _ => {}
    }
    match rng.below(10) {
        // Kubernetes' own test inputs.
        0..=2 => {
            let q: &&str = rng.pick(K8S_QUANTITIES);
            s.push_str(q);
            return s;
        }
        // A number without digits ("", ".", "Mi", "E2", ".e+2", "e-10").
        3 => {
            if rng.chance(50) {
                s.push('.');
            }
            if rng.chance(40) {
                s.push(*rng.pick(&['e', 'E']));
                s.push_str(&random_exponent(rng));
            } else {
                s.push_str(SUFFIXES[rng.below(SUFFIXES.len() as u64) as usize]);
            }
            return s;
        }
        // Decimal exponents of every shape.
        4 => {
            let n = rng.range(0, 4);
            digits(rng, &mut s, n);
            if rng.chance(40) {
                s.push('.');
                let n = rng.below(4);
                digits(rng, &mut s, n);
            }
            s.push(*rng.pick(&['e', 'E']));
            s.push_str(&random_exponent(rng));
            return s;
        }
        // Long numbers around int64's digits.
        5 => {
            let n = rng.range(15, 22);
            digits(rng, &mut s, n);
            if rng.chance(30) {
                s.push('.');
                let n = rng.below(3);
                digits(rng, &mut s, n);
            }
            s.push_str(SUFFIXES[rng.below(16) as usize]);
            return s;
        }
        _ => {}
    }
    let int_digits = rng.below(5);
    digits(rng, &mut s, int_digits);
    if rng.chance(30) {
        s.push('.');
        let n = rng.below(4);
        digits(rng, &mut s, n);
    }
    s.push_str(SUFFIXES[rng.below(SUFFIXES.len() as u64) as usize]);
    if rng.chance(2) {
        s.push(' ');
    }
    s
}

fn random_name(rng: &mut Prng) -> String {
    const ALPHABET: &[u8] = b"abcxyz0123456789---..A_/";
    let len = match rng.below(10) {
        0 => rng.range(60, 66),
        1 => rng.range(250, 256),
        _ => rng.range(0, 12),
    };
    let mut s: String = (0..len).map(|_| char::from(*rng.pick(ALPHABET))).collect();
    if rng.chance(30) && !s.is_empty() {
        // Mostly valid shapes: lowercase words joined by '-' or '.'.
        s = (0..rng.range(1, 3))
            .map(|_| {
                let n = rng.range(1, 8);
                (0..n)
                    .map(|_| char::from(b'a' + rng.below(26) as u8))
                    .collect::<String>()
            })
            .collect::<Vec<_>>()
            .join(if rng.chance(50) { "-" } else { "." });
    }
    s
}

fn taint_effect(s: &str) -> Option<TaintEffect> {
    match s {
        "NoSchedule" => Some(TaintEffect::NoSchedule),
        "PreferNoSchedule" => Some(TaintEffect::PreferNoSchedule),
        "NoExecute" => Some(TaintEffect::NoExecute),
        _ => None,
    }
}

/// Shepherd's toleration for one written as Kubernetes JSON.
fn toleration_of(v: &Value) -> Toleration {
    let key = v["key"].as_str().unwrap_or("");
    let effect = v["effect"].as_str().and_then(taint_effect);
    if v["operator"].as_str() == Some("Exists") {
        Toleration::exists(key, effect)
    } else {
        Toleration::equal(key, v["value"].as_str().unwrap_or(""), effect)
    }
}

const TAINTS: [(&str, &str, &str); 6] = [
    ("dedicated", "gpu", "NoSchedule"),
    ("dedicated", "infra", "NoSchedule"),
    ("dedicated", "gpu", "NoExecute"),
    ("spot", "true", "PreferNoSchedule"),
    ("maintenance", "true", "NoExecute"),
    ("maintenance", "", "NoSchedule"),
];

fn random_toleration(rng: &mut Prng) -> Value {
    let keys = ["dedicated", "spot", "maintenance", ""];
    let values = ["gpu", "infra", "true", ""];
    let effects = ["NoSchedule", "PreferNoSchedule", "NoExecute", ""];
    let key = *rng.pick(&keys);
    let mut t = json!({"key": key});
    if key.is_empty() || rng.chance(40) {
        t["operator"] = json!("Exists");
    } else {
        t["operator"] = json!("Equal");
        t["value"] = json!(*rng.pick(&values));
    }
    let e = *rng.pick(&effects);
    if !e.is_empty() {
        t["effect"] = json!(e);
    }
    t
}

fn int_or_percent(rng: &mut Prng) -> (Value, IntOrPercent) {
    if rng.chance(50) {
        let n = rng.range(0, 5) as u32;
        (json!(n), IntOrPercent::Int(n))
    } else {
        let p = *rng.pick(&[0u32, 1, 10, 25, 33, 50, 99, 100]);
        (json!(format!("{p}%")), IntOrPercent::Percent(p))
    }
}

const SEL_KEYS: [&str; 3] = ["app", "tier", "env"];
const SEL_VALUES: [&str; 3] = ["web", "db", "prod"];

/// A label selector as Kubernetes JSON and as Shepherd's (None when
/// Shepherd's validation refuses it).
fn random_selector(rng: &mut Prng) -> (Value, Selector) {
    let mut j = json!({});
    let mut sel = Selector::new(&[]);
    if rng.chance(50) {
        let mut m = serde_json::Map::new();
        for _ in 0..rng.range(1, 2) {
            let (k, v) = (*rng.pick(&SEL_KEYS), *rng.pick(&SEL_VALUES));
            m.insert(k.into(), json!(v));
        }
        let pairs: Vec<(&str, &str)> = m
            .iter()
            .map(|(k, v)| (k.as_str(), v.as_str().unwrap_or("")))
            .collect();
        sel = Selector::new(&pairs);
        j["matchLabels"] = Value::Object(m);
    }
    if rng.chance(70) {
        let mut exprs = Vec::new();
        for _ in 0..rng.range(1, 3) {
            let op = *rng.pick(&[
                SelectorOperator::In,
                SelectorOperator::NotIn,
                SelectorOperator::Exists,
                SelectorOperator::DoesNotExist,
            ]);
            let key = *rng.pick(&SEL_KEYS);
            let values: Vec<&str> = match op {
                SelectorOperator::In | SelectorOperator::NotIn => (0..rng.range(0, 2))
                    .map(|_| *rng.pick(&SEL_VALUES))
                    .collect(),
                _ if rng.chance(10) => vec!["web"],
                _ => vec![],
            };
            exprs.push(json!({"key": key, "operator": op.as_str(), "values": values}));
            sel = sel.with_expression(LabelSelectorRequirement::new(key, op, &values));
        }
        j["matchExpressions"] = Value::Array(exprs);
    }
    (j, sel)
}

fn random_labels(rng: &mut Prng) -> Labels {
    let mut l = Labels::new();
    for k in SEL_KEYS {
        if rng.chance(60) {
            l.insert(k.to_string(), rng.pick(&SEL_VALUES).to_string());
        }
    }
    l
}

/// The disruption controller's status for a budget over a Deployment's pods
/// (pkg/controller/disruption, run by the oracle) against
/// `Cluster::pdb_status` after Shepherd's import and reconcile.
fn disruption_case(o: &mut Oracle, rng: &mut Prng, t: &mut Tally) -> Result<(), String> {
    let replicas = rng.range(0, 6);
    let app = "web";
    let budget = {
        let v = if rng.chance(50) {
            json!(rng.range(0, 6))
        } else {
            json!(format!("{}%", rng.pick(&[0, 10, 25, 50, 75, 100])))
        };
        if rng.chance(50) {
            ("minAvailable", v)
        } else {
            ("maxUnavailable", v)
        }
    };
    let pdb = json!({"apiVersion": "policy/v1", "kind": "PodDisruptionBudget",
        "metadata": {"name": "budget", "namespace": "default", "uid": "pdb-uid"},
        "spec": {budget.0: budget.1, "selector": {"matchLabels": {"app": app}}}});
    let template = json!({"metadata": {"labels": {"app": app}},
        "spec": {"containers": [{"name": "main", "image": "registry.k8s.io/pause:3.10", "resources": {"requests": {"cpu": "10m", "memory": "16Mi"}}}]}});
    let deployment = json!({"apiVersion": "apps/v1", "kind": "Deployment",
        "metadata": {"name": app, "namespace": "default", "uid": "deploy-uid"},
        "spec": {"replicas": replicas, "selector": {"matchLabels": {"app": app}}, "template": template}});
    // Shepherd: the Deployment and the budget on one roomy node.
    let node = json!({"apiVersion": "v1", "kind": "Node", "metadata": {"name": "n1", "labels": {"kubernetes.io/hostname": "n1"}},
        "status": {"allocatable": {"cpu": "64", "memory": "256Gi", "pods": "110"}}});
    let text =
        json!({"apiVersion": "v1", "kind": "List", "items": [node, deployment, pdb]}).to_string();
    let im = shepherd_k8s::import(&text).map_err(|e| format!("disruption case: {e}"))?;
    let profile = im.scenario.profile_or_default();
    let mut c = im.scenario.to_cluster().map_err(|e| e.to_string())?;
    c.reconcile_to_fixed_point(&profile);
    let delay = im
        .scenario
        .deployments
        .iter()
        .map(|d| d.template.ready_after as u64)
        .max()
        .unwrap_or(0);
    c.set_now(c.now() + delay + 1);
    c.reconcile_to_fixed_point(&profile);
    let st = c.pdb_status("budget").map_err(|e| e.to_string())?;
    // Kubernetes: the ReplicaSet and its pods, Ready, owned as the
    // Deployment controller makes them.
    let rs = json!({"apiVersion": "apps/v1", "kind": "ReplicaSet",
        "metadata": {"name": "web-1", "namespace": "default", "uid": "rs-uid", "labels": {"app": app},
                     "ownerReferences": [{"apiVersion": "apps/v1", "kind": "Deployment", "name": app, "uid": "deploy-uid", "controller": true}]},
        "spec": {"replicas": replicas, "selector": {"matchLabels": {"app": app}}, "template": template}});
    let pods: Vec<Value> = (0..replicas).map(|i| json!({"apiVersion": "v1", "kind": "Pod",
        "metadata": {"name": format!("web-1-{i}"), "namespace": "default", "uid": format!("pod-{i}"), "labels": {"app": app},
                     "ownerReferences": [{"apiVersion": "apps/v1", "kind": "ReplicaSet", "name": "web-1", "uid": "rs-uid", "controller": true}]},
        "spec": {"nodeName": "n1", "containers": [{"name": "main", "image": "registry.k8s.io/pause:3.10"}]},
        "status": {"phase": "Running", "conditions": [{"type": "Ready", "status": "True"}]}})).collect();
    let mut dep = deployment.clone();
    dep["status"] = json!({"replicas": replicas});
    let k = o.ask(&json!({"op": "disruption", "pdb": pdb, "pods": pods, "deployments": [dep], "replicaSets": [rs]}))?;
    let got = (
        st.expected_pods as i64,
        st.desired_healthy as i64,
        st.current_healthy as i64,
        st.disruptions_allowed as i64,
    );
    let want = (
        k["expectedPods"].as_i64().unwrap_or(-1),
        k["desiredHealthy"].as_i64().unwrap_or(-1),
        k["currentHealthy"].as_i64().unwrap_or(-1),
        k["disruptionsAllowed"].as_i64().unwrap_or(-1),
    );
    t.check(got == want, "disruption", || {
        format!("{replicas} replicas, {}: {:?}: (expected, desired, healthy, allowed) {want:?} in Kubernetes, {got:?} in Shepherd", budget.0, budget.1)
    });
    Ok(())
}

pub fn run(o: &mut Oracle, avoid: &Avoid) -> Result<(u64, u64), String> {
    let n = crate::env_u64("SHEPHERD_FUZZ_OPS", 2000)?;
    let seed = crate::env_u64("SHEPHERD_ORACLE_SEED", 1)?;
    let mut rng = Prng::new(seed ^ 0x6675_6e63);
    let rng = &mut rng;
    let mut t = Tally::default();

    // Quantities: validity, millis and bytes rounded up, canonical forms.
    let values: Vec<String> = (0..n).map(|_| random_quantity(rng)).collect();
    let ans = o.ask(&json!({"op": "quantity", "values": values}))?;
    for (s, k) in values
        .iter()
        .zip(ans.as_array().ok_or("quantity: no list")?)
    {
        let k_ok = k.get("error").is_none();
        let sq = Quantity::parse(s);
        t.check(sq.is_ok() == k_ok, "quantity-grammar", || {
            format!(
                "{s:?}: Kubernetes {} ({}), Shepherd {} ({:?})",
                if k_ok { "accepts" } else { "refuses" },
                k["error"].as_str().unwrap_or("ok"),
                if sq.is_ok() { "accepts" } else { "refuses" },
                sq.as_ref().err()
            )
        });
        if !k_ok || s.starts_with('-') {
            continue;
        }
        let (km, ki) = (
            k["milli"].as_i64().unwrap_or(0),
            k["int"].as_i64().unwrap_or(0),
        );
        // Shepherd refuses quantities above its limit (MAX_VALUE): not compared.
        if let Ok(r) = quantity::cpu_millis(s) {
            t.check(r.value as i64 == km, "quantity-milli", || {
                format!(
                    "{s:?}: MilliValue {km} in Kubernetes, cpu_millis {} in Shepherd",
                    r.value
                )
            });
        }
        if let Ok(b) = quantity::parse_memory_bytes(s) {
            t.check(b as i64 == ki, "quantity-value", || {
                format!("{s:?}: Value {ki} in Kubernetes, parse_memory_bytes {b} in Shepherd")
            });
        }
    }
    // Canonical forms of millicores and bytes, as kubectl prints them. A
    // byte count is asked as Kubernetes would hold it: a multiple of 1024
    // as a binary quantity (`{b/1024}Ki`), any other as a decimal one
    // (`{b}`), and below 1024 also as a binary one (`{b/1024}Ki` exactly,
    // which Kubernetes prints in decimal), the forms `format_memory_bytes`
    // writes (see its doc).
    let millis: Vec<u64> = (0..200)
        .map(|_| rng.range(0, 5) * 1000 + rng.below(3) * rng.range(1, 999))
        .collect();
    let bytes: Vec<u64> = (0..300)
        .map(|_| match rng.below(6) {
            0 => rng.range(0, 64 * 1024) * quantity::MIB,
            1 => rng.range(1, 1 << 30) * 1024,
            2 => rng.range(0, 1023),
            3 => rng.range(1, 1_000_000) * 1000u64.pow(rng.range(1, 5) as u32),
            4 => rng.range(1, 1 << 50),
            _ => (1u64 << rng.range(10, 50)) * rng.range(1, 3),
        })
        .map(|b| b.min(shepherd::model::MAX_MEMORY_BYTES))
        .collect();
    let binary = |b: u64| {
        // b / 1024 exactly: 1024 = 2^10, so ten decimal places suffice.
        let frac = (b % 1024) * 9_765_625; // (b % 1024) / 1024 * 10^10
        format!("{}.{frac:010}Ki", b / 1024)
    };
    let asked: Vec<(u64, String)> = bytes
        .iter()
        .flat_map(|&b| {
            let mut v = vec![(
                b,
                if b % 1024 == 0 && b > 0 {
                    format!("{}Ki", b / 1024)
                } else {
                    format!("{b}")
                },
            )];
            if b > 0 && b < 1024 {
                v.push((b, binary(b)));
            }
            v
        })
        .collect();
    let texts: Vec<String> = millis
        .iter()
        .map(|m| format!("{m}m"))
        .chain(asked.iter().map(|(_, t)| t.clone()))
        .collect();
    let ans = o.ask(&json!({"op": "quantity", "values": texts}))?;
    let ans = ans.as_array().ok_or("quantity: no list")?;
    for (i, m) in millis.iter().enumerate() {
        let k = ans[i]["string"].as_str().unwrap_or("");
        let s = quantity::format_cpu_millis(*m);
        t.check(s == k, "quantity-string", || {
            format!("{m}m: canonical {k:?} in Kubernetes, format_cpu_millis {s:?}")
        });
    }
    for (i, (b, text)) in asked.iter().enumerate() {
        let k = ans[millis.len() + i]["string"].as_str().unwrap_or("");
        let s = quantity::format_memory_bytes(*b);
        t.check(s == k, "quantity-string", || {
            format!("{text} ({b} bytes): canonical {k:?} in Kubernetes, format_memory_bytes {s:?}")
        });
    }

    // Names and label keys/values.
    let names: Vec<String> = (0..n / 2).map(|_| random_name(rng)).collect();
    let ans = o.ask(&json!({"op": "names", "values": names}))?;
    for (s, k) in names.iter().zip(ans.as_array().ok_or("names: no list")?) {
        for (rule, field) in [
            (NameRule::Dns1123Label, "dns1123Label"),
            (NameRule::Dns1123Subdomain, "dns1123Subdomain"),
            (NameRule::Dns1035Label, "dns1035Label"),
        ] {
            let k_ok = k[field].as_array().is_some_and(|a| a.is_empty());
            let s_ok = rule.accepts(s);
            t.check(k_ok == s_ok, "names", || {
                format!(
                    "{s:?} as {field}: Kubernetes {}, Shepherd {}",
                    ok_word(k_ok),
                    ok_word(s_ok)
                )
            });
        }
        // Label keys and values (IsQualifiedName, IsValidLabelValue).
        let k_key = k["labelKey"].as_array().is_some_and(|a| a.is_empty());
        let s_key = Selector::new(&[(s.as_str(), "v")])
            .validate("oracle")
            .is_ok();
        t.check(k_key == s_key, "label-syntax", || {
            format!(
                "{s:?} as a label key: Kubernetes {}, Shepherd {}",
                ok_word(k_key),
                ok_word(s_key)
            )
        });
        let k_val = k["labelValue"].as_array().is_some_and(|a| a.is_empty());
        let s_val = Selector::new(&[("k", s.as_str())])
            .validate("oracle")
            .is_ok();
        t.check(k_val == s_val, "label-syntax", || {
            format!(
                "{s:?} as a label value: Kubernetes {}, Shepherd {}",
                ok_word(k_val),
                ok_word(s_val)
            )
        });
    }

    // Tolerations against taints.
    let taints: Vec<Value> = TAINTS
        .iter()
        .map(|&(k, v, e)| json!({"key": k, "value": v, "effect": e}))
        .collect();
    for _ in 0..(n / 10).max(10) {
        let tol = random_toleration(rng);
        let ans = o.ask(&json!({"op": "tolerates", "toleration": tol, "taints": taints}))?;
        let st = toleration_of(&tol);
        for (i, &(k, v, e)) in TAINTS.iter().enumerate() {
            let kk = ans[i].as_bool().unwrap_or(false);
            let ss = st.tolerates(&Taint::new(k, v, taint_effect(e).expect("an effect")));
            t.check(kk == ss, "tolerates", || {
                format!("toleration {tol} and taint {k}={v}:{e}: Kubernetes {kk}, Shepherd {ss}")
            });
        }
    }

    // Label selectors: validity and matching.
    for _ in 0..(n / 10).max(10) {
        let (sj, sel) = random_selector(rng);
        let sets: Vec<Labels> = (0..8).map(|_| random_labels(rng)).collect();
        let ans = o.ask(&json!({"op": "selector", "selector": sj, "labels": sets}))?;
        let s_ok = sel.validate("oracle").is_ok();
        if let Some(why) = ans.get("invalid") {
            t.check(!s_ok, "selector", || {
                format!("selector {sj}: Kubernetes refuses it ({why}), Shepherd takes it")
            });
            continue;
        }
        t.check(s_ok, "selector", || {
            format!("selector {sj}: Kubernetes takes it, Shepherd refuses it")
        });
        for (i, l) in sets.iter().enumerate() {
            let k = ans["matches"][i].as_bool().unwrap_or(false);
            let s = sel.matches(l);
            t.check(k == s, "selector", || {
                format!("selector {sj} and labels {l:?}: Kubernetes {k}, Shepherd {s}")
            });
        }
    }

    // The disruption controller's arithmetic, the controller itself running.
    for _ in 0..(n / 100).clamp(5, 40) {
        disruption_case(o, rng, &mut t)?;
    }

    // Rollout arithmetic: ResolveFenceposts.
    for _ in 0..(n / 4).max(10) {
        let (sj, s) = int_or_percent(rng);
        let (uj, u) = int_or_percent(rng);
        let replicas = rng.range(0, 30) as u32;
        let ans = o.ask(
            &json!({"op": "fenceposts", "maxSurge": sj, "maxUnavailable": uj, "desired": replicas}),
        )?;
        let (ks, ku) = (
            ans["surge"].as_i64().unwrap_or(-1),
            ans["unavailable"].as_i64().unwrap_or(-1),
        );
        let (ss, su) = RollingUpdate {
            max_surge: s,
            max_unavailable: u,
        }
        .resolve(replicas);
        t.check((ks, ku) == (ss as i64, su as i64), "fenceposts", || {
            format!("maxSurge {sj} maxUnavailable {uj} replicas {replicas}: ResolveFenceposts ({ks}, {ku}), Shepherd ({ss}, {su})")
        });
    }

    // A pod's requests as the scheduler counts them (with and without the
    // non-zero defaults), through Shepherd's manifest import.
    for i in 0..(n / 4).max(10) {
        let c = gen::generate(seed.wrapping_add(i), avoid);
        let pod = &c.incoming;
        let ans = o.ask(&json!({"op": "requests", "pod": pod}))?;
        let text = json!({"apiVersion": "v1", "kind": "List", "items": [pod]}).to_string();
        let imported = match shepherd_k8s::import(&text) {
            Ok(im) => im,
            Err(e) => {
                t.check(false, "import-refused", || {
                    format!("pod {pod}: refused: {e}")
                });
                continue;
            }
        };
        let Some(p) = imported.scenario.pods.first() else {
            continue;
        };
        let r = p.template.requests;
        let nz = p.template.non_zero();
        let kcpu = ans["milliCPU"].as_u64().unwrap_or(0);
        let kmem = ans["memory"].as_u64().unwrap_or(0);
        let k0cpu = ans["non0CPU"].as_u64().unwrap_or(0);
        let k0mem = ans["non0Mem"].as_u64().unwrap_or(0);
        let containers = format!(
            "{}{}",
            pod["spec"]["containers"],
            match &pod["spec"]["initContainers"] {
                Value::Null => String::new(),
                i => format!(" init {i}"),
            }
        );
        t.check(r.cpu_millis == kcpu, "requests", || {
            format!(
                "{containers}: cpu {kcpu}m in Kubernetes, {}m in Shepherd",
                r.cpu_millis
            )
        });
        t.check(r.memory_bytes == kmem, "requests", || {
            format!(
                "{containers}: memory {kmem} bytes in Kubernetes, {} in Shepherd",
                r.memory_bytes
            )
        });
        let class = "non-zero-requests";
        t.check(nz.cpu_millis == k0cpu, class, || {
            format!(
                "{containers}: non-zero cpu {k0cpu}m in Kubernetes, {}m in Shepherd",
                nz.cpu_millis
            )
        });
        t.check(nz.memory_bytes == k0mem, class, || {
            format!(
                "{containers}: non-zero memory {k0mem} bytes in Kubernetes, {} in Shepherd",
                nz.memory_bytes
            )
        });
    }
    Ok(t.done())
}

fn ok_word(b: bool) -> &'static str {
    if b {
        "accepts"
    } else {
        "refuses"
    }
}

/// Every object of every file through the API server's validation.
pub fn exports(o: &mut Oracle, files: &[String]) -> Result<(u64, u64), String> {
    let mut t = Tally::default();
    for f in files {
        let text = std::fs::read_to_string(f).map_err(|e| format!("{f}: {e}"))?;
        let ans = o.ask(&json!({"op": "validate", "manifest": text}))?;
        for obj in ans.as_array().ok_or("validate: no list")? {
            let errs = obj["errors"].as_array().cloned().unwrap_or_default();
            let what = format!(
                "{f}: {} {}",
                obj["kind"].as_str().unwrap_or("?"),
                obj["name"].as_str().unwrap_or("?")
            );
            t.check(errs.is_empty(), "export-invalid", || {
                let list: Vec<String> = errs
                    .iter()
                    .map(|e| {
                        format!(
                            "{} {}: {}",
                            e["field"].as_str().unwrap_or(""),
                            e["type"].as_str().unwrap_or(""),
                            e["message"].as_str().unwrap_or("")
                        )
                    })
                    .collect();
                format!("{what}: {}\n    object: {}", list.join("; "), obj["object"])
            });
        }
    }
    Ok(t.done())
}
