//! `shepherd autoscale` on tests/manifests/autoscaler.yaml: one fixed node
//! of 2 cores takes 2 of the 6 pods of 1 core; the other 4 need a group.
//! By hand: m-small (2 cores, 4 GiB) keeps 1900m after kube-proxy, one pod
//! a node, 4 nodes; over their capacity (waste.go) idle cpu (8000-4000)/8000
//! = 50%, memory (16-4)/16 = 75%; m-large (8 cores, 8 GiB) takes all 4 on
//! one node, idle 50% cpu and 50% memory. least-waste sums the two:
//! m-large (1.00 < 1.25);
//! price per pod: m-small 4 x 0.05 / 4 = 0.05, m-large 0.3 / 4 = 0.075.

use std::process::Command;

const FILE: &str = concat!(
    env!("CARGO_MANIFEST_DIR"),
    "/../tests/manifests/autoscaler.yaml"
);

fn autoscale(extra: &[&str]) -> (i32, String, String) {
    let out = Command::new(env!("CARGO_BIN_EXE_shepherd"))
        .arg("autoscale")
        .arg(FILE)
        .args(extra)
        .output()
        .expect("the shepherd binary should start");
    (
        out.status.code().unwrap_or(-1),
        String::from_utf8_lossy(&out.stdout).into_owned(),
        String::from_utf8_lossy(&out.stderr).into_owned(),
    )
}

fn json(extra: &[&str]) -> serde_json::Value {
    let mut args = vec!["--output", "json"];
    args.extend_from_slice(extra);
    let (code, out, err) = autoscale(&args);
    assert_eq!(code, 0, "{err}");
    serde_json::from_str(&out).expect("JSON")
}

#[test]
fn least_waste_scales_up_m_large_by_one() {
    let v = json(&["--expander", "least-waste"]);
    assert_eq!(v["settled"], true);
    let up = &v["scaleUp"][0];
    assert_eq!(up["nodeGroup"], "m-large");
    assert_eq!(up["nodes"], 1);
    assert_eq!(up["pods"].as_array().unwrap().len(), 4);
    assert!(up["expander"][0]
        .as_str()
        .unwrap()
        .starts_with("least-waste: m-large 50% idle cpu, 50% idle memory against m-small 50% idle cpu, 75% idle memory"));
    assert_eq!(v["pending"].as_array().unwrap().len(), 0);
    assert_eq!(v["cost"]["after"]["perHour"], "0.3");
    assert_eq!(v["pods"].as_array().unwrap().len(), 6);
}

#[test]
fn price_scales_up_m_small_by_four() {
    let v = json(&["--expander", "price"]);
    let up = &v["scaleUp"][0];
    assert_eq!(up["nodeGroup"], "m-small");
    assert_eq!(up["nodes"], 4);
    assert_eq!(v["cost"]["after"]["perHour"], "0.2");
}

#[test]
fn capacity_answers() {
    let v = json(&["--fewest-nodes", "m-large", "--fit", "web", "--compress"]);
    assert_eq!(v["fewestNodes"]["nodes"], 1);
    assert_eq!(v["replicasThatFit"]["replicas"], 0, "fixed-1 is full");
    assert_eq!(v["removableNodes"].as_array().unwrap().len(), 0);
}

#[test]
fn text_output_and_mistakes() {
    let (code, out, _) = autoscale(&["--expander", "least-waste"]);
    assert_eq!(code, 0);
    assert!(
        out.contains("tick 10: m-large 0 -> 1 (+1) for 4 pod(s)"),
        "{out}"
    );
    let (code, _, err) = autoscale(&["--expander", "cheapest"]);
    assert_eq!(code, 2);
    assert!(err.contains("\"cheapest\" is not an expander"), "{err}");
    let (code, _, err) = autoscale(&["--fewest-nodes", "nope"]);
    assert_eq!(code, 2);
    assert!(err.contains("no such node group"), "{err}");
}

/// tests/manifests/karpenter.yaml by hand: the 3 batch pods (1500m each)
/// select m-small, whose 2 cores keep 1900m after kube-proxy: one a
/// NodeClaim, 3 m-small. big-1 (m-large, 0.3/h) holds one 500m pod that
/// fits no other node but fits an m-small (0.05/h): replace, saving 0.25.
#[test]
fn karpenter_preview_provisions_and_consolidates() {
    let out = Command::new(env!("CARGO_BIN_EXE_shepherd"))
        .args([
            "autoscale",
            concat!(
                env!("CARGO_MANIFEST_DIR"),
                "/../tests/manifests/karpenter.yaml"
            ),
        ])
        .args(["--karpenter", "--output", "json"])
        .output()
        .expect("the shepherd binary should start");
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let v: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    let k = &v["karpenter"][0];
    assert_eq!(k["nodePool"], "default");
    let claims = k["nodeClaims"].as_array().unwrap();
    assert_eq!(claims.len(), 3);
    assert!(claims.iter().all(|c| c["instanceType"] == "m-small"));
    assert_eq!(k["consolidation"][0]["action"], "replace");
    assert_eq!(k["consolidation"][0]["instanceType"], "m-small");
    assert_eq!(k["consolidation"][0]["savingPerHour"], "0.25");
}
