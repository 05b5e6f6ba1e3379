//! Issue 42's input rows, each with the smallest input that showed it, built
//! here: the refusal names the document, the field path and the figure, and
//! for the cost rows a counting allocator holds the bytes an import may
//! take (the large versions run natively in `scripts/limits-check.sh`).
//!
//! The allocator counts per thread, so tests running side by side do not
//! see each other's bytes.

use std::alloc::{GlobalAlloc, Layout, System};
use std::cell::Cell;

use shepherd::limits::{MAX_ANNOTATION_BYTES, MAX_LIST, MAX_TEMPLATE_ENTRIES, MAX_VALUES};
use shepherd_k8s::{import, import_with, ImportError, Limits, Options};

struct Counting;

thread_local! {
    static LIVE: Cell<usize> = const { Cell::new(0) };
    static PEAK: Cell<usize> = const { Cell::new(0) };
}

fn grew(n: usize) {
    let _ = LIVE.try_with(|l| {
        let v = l.get() + n;
        l.set(v);
        let _ = PEAK.try_with(|p| p.set(p.get().max(v)));
    });
}

fn shrank(n: usize) {
    let _ = LIVE.try_with(|l| l.set(l.get().saturating_sub(n)));
}

// SAFETY: every call is forwarded to the system allocator unchanged; the
// counters are plain thread-local cells that never allocate.
unsafe impl GlobalAlloc for Counting {
    unsafe fn alloc(&self, layout: Layout) -> *mut u8 {
        grew(layout.size());
        System.alloc(layout)
    }
    unsafe fn dealloc(&self, ptr: *mut u8, layout: Layout) {
        shrank(layout.size());
        System.dealloc(ptr, layout)
    }
    unsafe fn realloc(&self, ptr: *mut u8, layout: Layout, new_size: usize) -> *mut u8 {
        grew(new_size);
        shrank(layout.size());
        System.realloc(ptr, layout, new_size)
    }
}

#[global_allocator]
static ALLOC: Counting = Counting;

/// The most bytes live at once during `f`, beyond those live before it.
fn peak_bytes<T>(f: impl FnOnce() -> T) -> (T, usize) {
    let base = LIVE.with(|l| l.get());
    PEAK.with(|p| p.set(base));
    let out = f();
    (out, PEAK.with(|p| p.get()) - base)
}

fn refused(text: &str) -> ImportError {
    match import(text) {
        Ok(_) => panic!("accepted:\n{}", &text[..text.len().min(400)]),
        Err(e) => e,
    }
}

const NODE: &str = "apiVersion: v1\nkind: Node\nmetadata:\n  name: n1\nstatus:\n  allocatable:\n    cpu: \"4\"\n    memory: 8Gi\n";

/// A Deployment whose pod spec ends with `extra` (indented under `spec:`).
fn deployment(extra: &str) -> String {
    format!(
        "apiVersion: apps/v1\nkind: Deployment\nmetadata:\n  name: web\nspec:\n  replicas: 2\n  selector:\n    matchLabels:\n      app: web\n  template:\n    metadata:\n      labels:\n        app: web\n    spec:\n      containers:\n      - name: c\n{extra}"
    )
}

/// Row 1: aliases repeating one long scalar grew toward 33 GB (serde_yaml_ng's
/// repetition limit counts aliases, not bytes). They are counted against
/// the input limit, here 1 MiB: the read stops there, having held about
/// that much.
#[test]
fn row_1_aliases_are_counted_against_the_input_limit() {
    let limit = 1 << 20;
    let opts = Options {
        limits: Limits {
            max_bytes: limit,
            ..Limits::default()
        },
        ..Options::default()
    };
    let long = "x".repeat(1000);
    let aliases = vec!["*a"; 2000].join(",");
    let text = format!("apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: a\ndata:\n  k: &a {long}\n  l: [{aliases}]\n");
    assert!(text.len() < 10_000);
    let (r, peak) = peak_bytes(|| import_with(&text, &opts));
    let e = r.unwrap_err();
    // 1,032 bytes a copy (32 and its text): the 1,015th passes 1 MiB,
    // counting the values read before the list.
    assert_eq!(
        e.to_string(),
        "document 1: data.l[1014]: its aliases expand the values read past 1048576 bytes; expected at most 1048576 (Limits::max_bytes, each value counting 32 bytes and its text)"
    );
    assert!(peak < 4 * limit, "{peak} bytes held");

    // Aliases of a collection of small values are counted alike.
    let nulls = format!("[{}]", vec!["~"; 1000].join(","));
    let text = format!("a: &a {nulls}\nl: [{}]\n", vec!["*a"; 200].join(","));
    let (r, peak) = peak_bytes(|| import_with(&text, &opts));
    let e = r.unwrap_err();
    assert!(
        e.to_string().starts_with("document 1: l[31][")
            && e.to_string().contains("past 1048576 bytes"),
        "{e}"
    );
    assert!(peak < 4 * limit, "{peak} bytes held");

    // Within the limit, aliases read as the values they name.
    let ok = format!("{NODE}---\n{}", deployment("        resources: &r {requests: {cpu: 100m}}\n      - name: d\n        resources: *r\n"));
    let im = import(&ok).expect("a small alias reads");
    assert_eq!(im.scenario.deployments[0].template.requests.cpu_millis, 200);
}

/// Row 2: 2 MB of `[[[[` took 106 s to reach the parser's recursion limit
/// (libyaml walks every open flow level per token). The scan refuses it
/// before the parser runs: the import holds a few times the text, where the
/// parser would have held an event per bracket.
#[test]
fn row_2_deep_nesting_is_refused_before_the_parser_runs() {
    let depth = 100_000;
    for (text, line, column) in [
        (
            format!("a: {}{}\n", "[".repeat(depth), "]".repeat(depth)),
            1,
            131,
        ),
        (
            format!("a:\n  b: {}x{}\n", "{c: ".repeat(depth), "}".repeat(depth)),
            2,
            5 + 4 * 126 + 1,
        ),
        (format!("---\n{}x\n", "- ".repeat(depth)), 2, 257),
    ] {
        let (r, peak) = peak_bytes(|| import(&text));
        let e = r.unwrap_err();
        assert_eq!(
            e.to_string(),
            format!("document 1: collections nest deeper than 128 levels at line {line}, column {column}; expected at most 128 (the YAML parser's recursion limit)")
        );
        assert!(
            peak < 4 * text.len(),
            "{peak} bytes held for {} of text",
            text.len()
        );
    }
    // JSON at that depth: its parser stops at its own limit at once.
    let json = format!("{}{}", "[".repeat(depth), "]".repeat(depth));
    let (r, peak) = peak_bytes(|| import(&json));
    assert!(r
        .unwrap_err()
        .to_string()
        .contains("recursion limit exceeded"));
    assert!(peak < 4 * json.len(), "{peak}");
    // At the limit, it reads.
    let ok = format!("a: {}{}\n", "[".repeat(127), "]".repeat(127));
    assert!(!refused(&ok).to_string().contains("nest deeper"));
}

/// Row 3: the 64-entry limit did not cover preferred terms, spread
/// constraints, matchExpressions or their values, and 3,000 pods with many
/// preferred anti-affinity terms took 154 s. Every list is bounded, with its
/// path; a template's lists together are bounded too.
#[test]
fn row_3_every_list_of_a_pod_template_is_bounded() {
    let n = MAX_LIST + 1;
    let term = "          - weight: 1\n            podAffinityTerm:\n              topologyKey: kubernetes.io/hostname\n              labelSelector:\n                matchLabels:\n                  app: web\n";
    let e = refused(&deployment(&format!(
        "      affinity:\n        podAntiAffinity:\n          preferredDuringSchedulingIgnoredDuringExecution:\n{}",
        term.repeat(n)
    )));
    assert_eq!(
        e.to_string(),
        format!("document 1 (Deployment web): spec.template.spec.affinity.podAntiAffinity.preferredDuringSchedulingIgnoredDuringExecution: {n} entries; expected at most {MAX_LIST} (shepherd::limits::MAX_LIST)")
    );
    let pref = "          - weight: 1\n            preference:\n              matchExpressions:\n              - {key: zone, operator: In, values: [a]}\n";
    let e = refused(&deployment(&format!(
        "      affinity:\n        nodeAffinity:\n          preferredDuringSchedulingIgnoredDuringExecution:\n{}",
        pref.repeat(n)
    )));
    assert!(e.to_string().contains("nodeAffinity.preferredDuringSchedulingIgnoredDuringExecution: 65 entries; expected at most 64"), "{e}");
    let spread = "      - {maxSkew: 1, topologyKey: zone, whenUnsatisfiable: ScheduleAnyway}\n";
    let e = refused(&deployment(&format!(
        "      topologySpreadConstraints:\n{}",
        spread.repeat(n)
    )));
    assert!(
        e.to_string()
            .contains("spec.template.spec.topologySpreadConstraints: 65 entries"),
        "{e}"
    );
    let expr = "                - {key: k, operator: Exists}\n";
    let e = refused(&deployment(&format!(
        "      affinity:\n        podAffinity:\n          requiredDuringSchedulingIgnoredDuringExecution:\n          - topologyKey: zone\n            labelSelector:\n              matchExpressions:\n{}",
        expr.repeat(n)
    )));
    assert!(
        e.to_string()
            .contains("labelSelector.matchExpressions: 65 entries"),
        "{e}"
    );
    let values: Vec<String> = (0..=MAX_VALUES).map(|i| format!("v{i}")).collect();
    let e = refused(&deployment(&format!(
        "      affinity:\n        nodeAffinity:\n          requiredDuringSchedulingIgnoredDuringExecution:\n            nodeSelectorTerms:\n            - matchExpressions:\n              - key: zone\n                operator: In\n                values: [{}]\n",
        values.join(", ")
    )));
    assert_eq!(
        e.to_string(),
        format!("document 1 (Deployment web): spec.template.spec.affinity.nodeAffinity.requiredDuringSchedulingIgnoredDuringExecution.nodeSelectorTerms[0].matchExpressions[0].values: {} entries; expected at most {MAX_VALUES} (shepherd::limits::MAX_VALUES)", MAX_VALUES + 1)
    );
    // Each list within its limit, but 64 terms of 20 values each: 64 x 22
    // entries (a term, its requirement, its values) and a label.
    let wide: Vec<String> = (0..20).map(|i| format!("v{i}")).collect();
    let term = format!("          - weight: 1\n            preference:\n              matchExpressions:\n              - {{key: zone, operator: In, values: [{}]}}\n", wide.join(", "));
    let e = refused(&deployment(&format!(
        "      affinity:\n        nodeAffinity:\n          preferredDuringSchedulingIgnoredDuringExecution:\n{}",
        term.repeat(MAX_LIST)
    )));
    assert_eq!(
        e.to_string(),
        format!("document 1 (Deployment web): the engine refused it: app web: the pod template carries 1409 list entries (labels, tolerations, terms, selectors and their values together); expected at most {MAX_TEMPLATE_ENTRIES}")
    );
}

/// Smaller: a 20 MB annotation was accepted; the API server caps an
/// object's annotations at 256 KiB (TotalAnnotationSizeLimitB).
#[test]
fn annotations_are_held_to_kubernetes_256_kib() {
    let big = "x".repeat(MAX_ANNOTATION_BYTES);
    let text = NODE.replacen(
        "  name: n1\n",
        &format!("  name: n1\n  annotations:\n    a: {big}\n"),
        1,
    );
    let e = refused(&text);
    assert_eq!(
        e.to_string(),
        format!("document 1 (Node n1): metadata.annotations: {} bytes of keys and values; expected at most 262144 (Kubernetes' TotalAnnotationSizeLimitB, 256 KiB)", MAX_ANNOTATION_BYTES + 1)
    );
    // In a pod template too, and a key must be a qualified name.
    let e = refused(&deployment("").replacen(
        "      labels:\n        app: web\n",
        &format!("      labels:\n        app: web\n      annotations:\n        b: {big}\n"),
        1,
    ));
    assert!(
        e.to_string()
            .contains("spec.template.metadata.annotations: 262145 bytes"),
        "{e}"
    );
    let e = refused(&NODE.replacen(
        "  name: n1\n",
        "  name: n1\n  annotations:\n    a/b/c: x\n",
        1,
    ));
    assert!(
        e.to_string()
            .contains("metadata.annotations[\"a/b/c\"]: annotation key \"a/b/c\" is not valid"),
        "{e}"
    );
    let e = refused(&NODE.replacen("  name: n1\n", "  name: n1\n  annotations:\n    a: 1\n", 1));
    assert!(
        e.to_string()
            .contains("metadata.annotations.a: found an integer (1); expected a string"),
        "{e}"
    );
    // Exactly the limit is taken (key "a" and its value).
    let fits = "x".repeat(MAX_ANNOTATION_BYTES - 1);
    import(&NODE.replacen(
        "  name: n1\n",
        &format!("  name: n1\n  annotations:\n    a: {fits}\n"),
        1,
    ))
    .expect("256 KiB of annotations");
}

/// Kubernetes' label rules (apimachinery IsQualifiedName, IsValidLabelValue).
#[test]
fn labels_follow_kubernetes_rules() {
    for (key, value, ok) in [
        ("app", "web", true),
        ("example.com/tier", "front-end_1.2", true),
        ("app", "", true),
        ("a/b/c", "x", false),
        ("/app", "x", false),
        ("Example.com/app", "x", false),
        ("-app", "x", false),
        ("app", "-web", false),
        ("app", "web.", false),
        (&"k".repeat(64), "x", false),
        ("app", &"v".repeat(64), false),
    ] {
        let text = NODE.replacen(
            "  name: n1\n",
            &format!("  name: n1\n  labels:\n    {key:?}: {value:?}\n"),
            1,
        );
        assert_eq!(
            import(&text).is_ok(),
            ok,
            "{key}={value}: {:?}",
            import(&text).err()
        );
    }
}

/// Beyond the table: the fast reader listed a document's lines (24 bytes
/// each), so 20 MB of empty lines held 490 MB. It now reads them in place.
#[test]
fn empty_lines_are_read_in_place() {
    let text = format!(
        "{}{NODE}{}",
        "\n".repeat(1_000_000),
        "# note\n".repeat(100_000)
    );
    let (r, peak) = peak_bytes(|| import(&text));
    assert_eq!(r.expect("a node after empty lines").scenario.nodes.len(), 1);
    assert!(
        peak < 2 * text.len(),
        "{peak} bytes held for {} of text",
        text.len()
    );
}
