//! The words: a typed line into argv, argv into a [`Command`], with
//! kubectl's flags (pflag: `-n NS`, `-nNS`, `--namespace=NS`, flags before
//! or after the arguments, `--` ends the flags) and its resource names
//! (plural, singular, short name, `TYPE/NAME`).

use shepherd::model::{Labels, Taint, TaintEffect};
use shepherd::Cluster;

/// A resource type kubectl knows and the engine simulates (or, for
/// StatefulSets, lists as empty: the engine has none).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Kind {
    Pods,
    Nodes,
    Deployments,
    ReplicaSets,
    StatefulSets,
    DaemonSets,
    PodDisruptionBudgets,
    Services,
    Events,
    Namespaces,
    PriorityClasses,
}

/// (kind, the words that name it: plural first, as `kubectl api-resources`
/// lists them, the API group for messages)
const KINDS: &[(Kind, &[&str], &str)] = &[
    (Kind::Pods, &["pods", "pod", "po"], ""),
    (Kind::Nodes, &["nodes", "node", "no"], ""),
    (
        Kind::Deployments,
        &[
            "deployments",
            "deployment",
            "deploy",
            "deployments.apps",
            "deployment.apps",
        ],
        "apps",
    ),
    (
        Kind::ReplicaSets,
        &[
            "replicasets",
            "replicaset",
            "rs",
            "replicasets.apps",
            "replicaset.apps",
        ],
        "apps",
    ),
    (
        Kind::StatefulSets,
        &[
            "statefulsets",
            "statefulset",
            "sts",
            "statefulsets.apps",
            "statefulset.apps",
        ],
        "apps",
    ),
    (
        Kind::DaemonSets,
        &[
            "daemonsets",
            "daemonset",
            "ds",
            "daemonsets.apps",
            "daemonset.apps",
        ],
        "apps",
    ),
    (
        Kind::PodDisruptionBudgets,
        &[
            "poddisruptionbudgets",
            "poddisruptionbudget",
            "pdb",
            "poddisruptionbudgets.policy",
        ],
        "policy",
    ),
    (Kind::Services, &["services", "service", "svc"], ""),
    (Kind::Events, &["events", "event", "ev"], ""),
    (Kind::Namespaces, &["namespaces", "namespace", "ns"], ""),
    (
        Kind::PriorityClasses,
        &[
            "priorityclasses",
            "priorityclass",
            "pc",
            "priorityclasses.scheduling.k8s.io",
        ],
        "scheduling.k8s.io",
    ),
];

impl Kind {
    /// Reads a resource word, as kubectl's RESTMapper does (case-insensitive).
    pub fn parse(word: &str) -> Result<Kind, String> {
        let w = word.to_ascii_lowercase();
        KINDS
            .iter()
            .find(|(_, names, _)| names.contains(&w.as_str()))
            .map(|(k, _, _)| *k)
            .ok_or_else(|| format!("error: the server doesn't have a resource type {word:?}"))
    }

    fn entry(self) -> &'static (Kind, &'static [&'static str], &'static str) {
        KINDS
            .iter()
            .find(|(k, _, _)| *k == self)
            .expect("every kind has an entry in KINDS")
    }

    /// The plural: `pods`, `deployments`.
    pub fn plural(self) -> &'static str {
        self.entry().1[0]
    }

    /// As the API server names it in errors: `pods`, `deployments.apps`.
    pub fn resource(self) -> String {
        match self.entry().2 {
            "" => self.plural().to_string(),
            g => format!("{}.{g}", self.plural()),
        }
    }

    /// As `-o name` and confirmations write it: `pod`, `deployment.apps`.
    pub fn singular(self) -> String {
        match self.entry().2 {
            "" => self.entry().1[1].to_string(),
            g => format!("{}.{g}", self.entry().1[1]),
        }
    }

    /// Whether its objects live in a namespace.
    pub fn namespaced(self) -> bool {
        !matches!(self, Kind::Nodes | Kind::Namespaces | Kind::PriorityClasses)
    }

    /// kubectl's answer for a name that does not exist.
    pub fn not_found(self, name: &str) -> String {
        format!(
            "Error from server (NotFound): {} {name:?} not found",
            self.resource()
        )
    }
}

/// `-n`/`-A`: the namespace a command reads or writes.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Scope {
    /// `-n NS`; none: `default`.
    pub namespace: Option<String>,
    /// `-A`/`--all-namespaces` (lists only).
    pub all: bool,
}

impl Scope {
    pub fn namespace(&self) -> &str {
        self.namespace.as_deref().unwrap_or("default")
    }
}

/// `-o`.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum Output {
    #[default]
    Table,
    Wide,
    Yaml,
    Json,
    Name,
}

/// One requirement of a label selector (k8s.io/apimachinery/pkg/labels).
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Requirement {
    Equals(String, String),
    NotEquals(String, String),
    In(String, Vec<String>),
    NotIn(String, Vec<String>),
    Exists(String),
    DoesNotExist(String),
}

/// `-l`: every requirement must hold.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct LabelQuery(pub Vec<Requirement>);

impl LabelQuery {
    /// Parses `app=web,tier!=db,env in (a,b),!legacy,track`.
    pub fn parse(s: &str) -> Result<LabelQuery, String> {
        let mut reqs = Vec::new();
        for part in split_outside_parens(s) {
            let p = part.trim();
            if p.is_empty() {
                continue;
            }
            reqs.push(requirement(p)?);
        }
        Ok(LabelQuery(reqs))
    }

    pub fn matches(&self, labels: &Labels) -> bool {
        self.0.iter().all(|r| match r {
            Requirement::Equals(k, v) => labels.get(k) == Some(v),
            // Kubernetes: != and notin also match an object without the key.
            Requirement::NotEquals(k, v) => labels.get(k) != Some(v),
            Requirement::In(k, vs) => labels.get(k).is_some_and(|x| vs.contains(x)),
            Requirement::NotIn(k, vs) => labels.get(k).is_none_or(|x| !vs.contains(x)),
            Requirement::Exists(k) => labels.contains_key(k),
            Requirement::DoesNotExist(k) => !labels.contains_key(k),
        })
    }
}

fn split_outside_parens(s: &str) -> Vec<&str> {
    let (mut out, mut depth, mut from) = (Vec::new(), 0i32, 0);
    for (i, ch) in s.char_indices() {
        match ch {
            '(' => depth += 1,
            ')' => depth -= 1,
            ',' if depth == 0 => {
                out.push(&s[from..i]);
                from = i + 1;
            }
            _ => {}
        }
    }
    out.push(&s[from..]);
    out
}

fn label_key(k: &str, whole: &str) -> Result<String, String> {
    let ok = !k.is_empty()
        && k.chars()
            .all(|c| c.is_ascii_alphanumeric() || matches!(c, '-' | '_' | '.' | '/'));
    if ok {
        Ok(k.to_string())
    } else {
        Err(format!(
            "error: unable to parse requirement: {whole:?}: key {k:?} is not a label key; expected letters, digits, '-', '_', '.' and one '/'"
        ))
    }
}

fn requirement(p: &str) -> Result<Requirement, String> {
    if let Some(k) = p.strip_prefix('!') {
        return Ok(Requirement::DoesNotExist(label_key(k.trim(), p)?));
    }
    for (op, notin) in [(" notin ", true), (" in ", false)] {
        if let Some((k, rest)) = p.split_once(op) {
            let rest = rest.trim();
            let inner = rest
                .strip_prefix('(')
                .and_then(|r| r.strip_suffix(')'))
                .ok_or_else(|| {
                    format!("error: unable to parse requirement: {p:?}: expected a list of values in parentheses, e.g. (a,b)")
                })?;
            let vs: Vec<String> = inner.split(',').map(|v| v.trim().to_string()).collect();
            let k = label_key(k.trim(), p)?;
            return Ok(if notin {
                Requirement::NotIn(k, vs)
            } else {
                Requirement::In(k, vs)
            });
        }
    }
    if let Some((k, v)) = p.split_once("!=") {
        return Ok(Requirement::NotEquals(
            label_key(k.trim(), p)?,
            v.trim().into(),
        ));
    }
    if let Some((k, v)) = p.split_once("==").or_else(|| p.split_once('=')) {
        return Ok(Requirement::Equals(
            label_key(k.trim(), p)?,
            v.trim().into(),
        ));
    }
    Ok(Requirement::Exists(label_key(p, p)?))
}

/// One `--field-selector` term: `field=value`, `field==value` or `field!=value`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct FieldReq {
    pub field: String,
    pub value: String,
    pub equal: bool,
}

fn field_selector(s: &str) -> Result<Vec<FieldReq>, String> {
    let mut out = Vec::new();
    for p in s.split(',').map(str::trim).filter(|p| !p.is_empty()) {
        let (field, value, equal) = if let Some((f, v)) = p.split_once("!=") {
            (f, v, false)
        } else if let Some((f, v)) = p.split_once("==").or_else(|| p.split_once('=')) {
            (f, v, true)
        } else {
            return Err(format!(
                "error: invalid field selector: {p:?}: expected field=value, field==value or field!=value"
            ));
        };
        out.push(FieldReq {
            field: field.trim().into(),
            value: value.trim().into(),
            equal,
        });
    }
    Ok(out)
}

/// `kubectl taint`'s argument: add `key[=value]:Effect`, or remove `key[:Effect]-`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum TaintChange {
    Add(Taint),
    Remove {
        key: String,
        effect: Option<TaintEffect>,
    },
}

/// `kubectl rollout`'s subcommands.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Rollout {
    Undo,
    Restart,
}

/// A parsed command.
#[derive(Clone, Debug, PartialEq)]
pub enum Command {
    Get {
        kind: Kind,
        names: Vec<String>,
        scope: Scope,
        selector: Option<LabelQuery>,
        fields: Vec<FieldReq>,
        output: Output,
        show_labels: bool,
    },
    Describe {
        kind: Kind,
        names: Vec<String>,
        scope: Scope,
        selector: Option<LabelQuery>,
    },
    TopNodes {
        names: Vec<String>,
        selector: Option<LabelQuery>,
    },
    Scale {
        kind: Kind,
        name: String,
        scope: Scope,
        replicas: u32,
    },
    Cordon {
        node: String,
    },
    Uncordon {
        node: String,
    },
    Drain {
        node: String,
        ignore_daemonsets: bool,
        delete_emptydir_data: bool,
        force: bool,
        disable_eviction: bool,
    },
    Taint {
        node: String,
        changes: Vec<TaintChange>,
        overwrite: bool,
    },
    Label {
        kind: Kind,
        name: String,
        scope: Scope,
        changes: Vec<(String, Option<String>)>,
        overwrite: bool,
    },
    Delete {
        kind: Kind,
        names: Vec<String>,
        scope: Scope,
    },
    RolloutStatus {
        name: String,
        scope: Scope,
    },
    Rollout {
        what: Rollout,
        name: String,
        scope: Scope,
    },
    SetImage {
        name: String,
        scope: Scope,
        container: String,
        image: String,
    },
    CreateDeployment {
        name: String,
        scope: Scope,
        image: String,
        replicas: u32,
    },
    Apply {
        scope: Scope,
    },
}

/// Splits a typed line into words as a POSIX shell does for kubectl's
/// arguments: whitespace separates, '...' is literal, "..." keeps spaces
/// (a backslash escapes `"` and `\`), a backslash outside quotes escapes
/// the next character.
pub fn tokenize(line: &str) -> Result<Vec<String>, String> {
    let mut words = Vec::new();
    let mut cur = String::new();
    let mut started = false;
    let mut chars = line.chars();
    while let Some(ch) = chars.next() {
        match ch {
            c if c.is_whitespace() => {
                if started {
                    words.push(std::mem::take(&mut cur));
                    started = false;
                }
            }
            '\'' => {
                started = true;
                loop {
                    match chars.next() {
                        Some('\'') => break,
                        Some(c) => cur.push(c),
                        None => {
                            return Err("error: unterminated ' quote; expected a closing '".into())
                        }
                    }
                }
            }
            '"' => {
                started = true;
                loop {
                    match chars.next() {
                        Some('"') => break,
                        Some('\\') => match chars.next() {
                            Some(c @ ('"' | '\\')) => cur.push(c),
                            Some(c) => {
                                cur.push('\\');
                                cur.push(c);
                            }
                            None => break,
                        },
                        Some(c) => cur.push(c),
                        None => {
                            return Err("error: unterminated \" quote; expected a closing \"".into())
                        }
                    }
                }
            }
            '\\' => {
                started = true;
                if let Some(c) = chars.next() {
                    cur.push(c);
                }
            }
            c => {
                started = true;
                cur.push(c);
            }
        }
    }
    if started {
        words.push(cur);
    }
    Ok(words)
}

/// A verb's flags: (long name, short letter, takes a value).
type FlagSpec = &'static [(&'static str, Option<char>, bool)];

const NS_FLAGS: FlagSpec = &[("namespace", Some('n'), true)];
const GET_FLAGS: FlagSpec = &[
    ("namespace", Some('n'), true),
    ("all-namespaces", Some('A'), false),
    ("selector", Some('l'), true),
    ("output", Some('o'), true),
    ("field-selector", None, true),
    ("show-labels", None, false),
];
const DESCRIBE_FLAGS: FlagSpec = &[
    ("namespace", Some('n'), true),
    ("all-namespaces", Some('A'), false),
    ("selector", Some('l'), true),
];
const TOP_FLAGS: FlagSpec = &[("selector", Some('l'), true)];
const SCALE_FLAGS: FlagSpec = &[("namespace", Some('n'), true), ("replicas", None, true)];
const DRAIN_FLAGS: FlagSpec = &[
    ("ignore-daemonsets", None, false),
    ("delete-emptydir-data", None, false),
    ("force", None, false),
    ("disable-eviction", None, false),
    ("timeout", None, true),
    ("grace-period", None, true),
];
const TAINT_FLAGS: FlagSpec = &[("overwrite", None, false)];
const LABEL_FLAGS: FlagSpec = &[("namespace", Some('n'), true), ("overwrite", None, false)];
const CREATE_FLAGS: FlagSpec = &[
    ("namespace", Some('n'), true),
    ("image", None, true),
    ("replicas", Some('r'), true),
];
const APPLY_FLAGS: FlagSpec = &[
    ("namespace", Some('n'), true),
    ("filename", Some('f'), true),
];

/// The verbs, as completion offers them.
pub const VERBS: &[&str] = &[
    "get", "describe", "top", "scale", "cordon", "uncordon", "drain", "taint", "label", "delete",
    "rollout", "set", "create", "apply",
];

fn flags_of(verb: &str) -> FlagSpec {
    match verb {
        "get" => GET_FLAGS,
        "describe" => DESCRIBE_FLAGS,
        "top" => TOP_FLAGS,
        "scale" => SCALE_FLAGS,
        "drain" => DRAIN_FLAGS,
        "taint" => TAINT_FLAGS,
        "label" => LABEL_FLAGS,
        "create" => CREATE_FLAGS,
        "apply" => APPLY_FLAGS,
        "delete" | "rollout" | "set" => NS_FLAGS,
        _ => &[],
    }
}

/// Arguments and flag values of one command line.
struct Parsed {
    args: Vec<String>,
    /// (long name, value; "true" for a boolean)
    flags: Vec<(&'static str, String)>,
}

impl Parsed {
    fn get(&self, name: &str) -> Option<&str> {
        self.flags
            .iter()
            .rev()
            .find(|(n, _)| *n == name)
            .map(|(_, v)| v.as_str())
    }
    fn on(&self, name: &str) -> bool {
        self.get(name).is_some_and(|v| v != "false")
    }
    fn scope(&self) -> Result<Scope, String> {
        let namespace = match self.get("namespace") {
            Some(ns) => {
                shepherd::namespace::validate_namespace(ns)
                    .map_err(|e| format!("error: invalid namespace {ns:?}: {e}"))?;
                Some(ns.to_string())
            }
            None => None,
        };
        Ok(Scope {
            namespace,
            all: self.on("all-namespaces"),
        })
    }
}

fn split_flags(verb: &str, words: &[String], spec: FlagSpec) -> Result<Parsed, String> {
    let help = format!("\nSee 'kubectl {verb} --help' for usage.");
    let mut p = Parsed {
        args: Vec::new(),
        flags: Vec::new(),
    };
    let mut i = 0;
    while i < words.len() {
        let w = &words[i];
        i += 1;
        if w == "--" {
            p.args.extend(words[i..].iter().cloned());
            break;
        }
        if let Some(long) = w.strip_prefix("--") {
            let (name, inline) = match long.split_once('=') {
                Some((n, v)) => (n, Some(v.to_string())),
                None => (long, None),
            };
            let Some(&(n, _, valued)) = spec.iter().find(|(n, _, _)| *n == name) else {
                return Err(format!("error: unknown flag: --{name}{help}"));
            };
            let v = if valued {
                match inline {
                    Some(v) => v,
                    None => {
                        let v = words
                            .get(i)
                            .cloned()
                            .ok_or_else(|| format!("error: flag needs an argument: --{n}{help}"))?;
                        i += 1;
                        v
                    }
                }
            } else {
                inline.unwrap_or_else(|| "true".into())
            };
            p.flags.push((n, v));
        } else if w.len() > 1
            && w.starts_with('-')
            && !w[1..].starts_with(|c: char| c.is_ascii_digit())
        {
            // Shorthand flags: `-A`, `-n ns`, `-nns`, `-owide`, `-o=wide`.
            let mut rest = &w[1..];
            while let Some(c) = rest.chars().next() {
                rest = &rest[c.len_utf8()..];
                let Some(&(n, _, valued)) = spec.iter().find(|(_, s, _)| *s == Some(c)) else {
                    return Err(format!("error: unknown shorthand flag: '{c}' in {w}{help}"));
                };
                if valued {
                    let v = if !rest.is_empty() {
                        rest.strip_prefix('=').unwrap_or(rest).to_string()
                    } else {
                        let v = words.get(i).cloned().ok_or_else(|| {
                            format!("error: flag needs an argument: '{c}' in -{c}{help}")
                        })?;
                        i += 1;
                        v
                    };
                    p.flags.push((n, v));
                    break;
                }
                p.flags.push((n, "true".into()));
            }
        } else {
            p.args.push(w.clone());
        }
    }
    Ok(p)
}

/// A kind and names from `TYPE NAME...` or `TYPE/NAME...`.
fn kind_and_names(verb: &str, args: &[String]) -> Result<(Kind, Vec<String>), String> {
    let Some(first) = args.first() else {
        return Err(format!(
            "error: you must specify the type of resource to {verb}. Use \"kubectl api-resources\" for a complete list of supported resources."
        ));
    };
    if first.contains('/') {
        let mut kind = None;
        let mut names = Vec::new();
        for a in args {
            let Some((t, n)) = a.split_once('/') else {
                return Err(format!(
                    "error: there is no need to specify a resource type as a separate argument when passing arguments in resource/name form (e.g. 'kubectl {verb} resource/<resource_name>' instead of 'kubectl {verb} resource resource/<resource_name>'"
                ));
            };
            let k = Kind::parse(t)?;
            if kind.is_some_and(|x| x != k) {
                return Err(format!(
                    "error: {verb} of several resource types at once is not supported here; expected one type, e.g. {}/{n}",
                    kind.map(Kind::plural).unwrap_or_default()
                ));
            }
            kind = Some(k);
            names.push(n.to_string());
        }
        let kind = kind.expect("args holds at least one TYPE/NAME");
        return Ok((kind, names));
    }
    if first.contains(',') {
        return Err(format!(
            "error: {verb} of several resource types at once ({first}) is not supported here; expected one type"
        ));
    }
    Ok((Kind::parse(first)?, args[1..].to_vec()))
}

/// One name for a verb on a Deployment: `deployment/NAME` or `deployment NAME`.
fn one_deployment(verb: &str, args: &[String]) -> Result<String, String> {
    let (kind, names) = kind_and_names(verb, args)?;
    if kind != Kind::Deployments {
        return Err(format!(
            "error: {verb} of {} is not simulated; expected a deployment (the engine's replica owner)",
            kind.plural()
        ));
    }
    match names.as_slice() {
        [n] => Ok(n.clone()),
        [] => Err(format!(
            "error: {verb} needs a deployment name, e.g. deployment/web"
        )),
        _ => Err(format!(
            "error: {verb} takes one deployment; got {}",
            names.len()
        )),
    }
}

fn replicas_of(v: Option<&str>, verb: &str) -> Result<Option<u32>, String> {
    match v {
        None => Ok(None),
        Some(s) => s
            .parse::<u32>()
            .ok()
            .filter(|n| *n <= shepherd::model::MAX_REPLICAS)
            .map(Some)
            .ok_or_else(|| {
                format!(
                    "error: invalid argument {s:?} for \"--replicas\" flag of {verb}; expected a whole number from 0 to {}",
                    shepherd::model::MAX_REPLICAS
                )
            }),
    }
}

fn output_of(v: Option<&str>) -> Result<Output, String> {
    Ok(match v {
        None => Output::Table,
        Some("wide") => Output::Wide,
        Some("yaml") => Output::Yaml,
        Some("json") => Output::Json,
        Some("name") => Output::Name,
        Some(other) => {
            return Err(format!(
                "error: unable to match a printer suitable for the output format {other:?}, allowed formats are: json,name,wide,yaml"
            ))
        }
    })
}

fn taint_change(s: &str) -> Result<TaintChange, String> {
    let bad = |why: &str| format!("error: invalid taint spec: {s}, {why}");
    if let Some(body) = s.strip_suffix('-') {
        let (key, effect) = match body.split_once(':') {
            Some((k, e)) => (
                k,
                Some(TaintEffect::parse(e).map_err(|_| {
                    bad("expected an effect of NoSchedule, PreferNoSchedule or NoExecute")
                })?),
            ),
            None => (body, None),
        };
        let key = key.split_once('=').map_or(key, |(k, _)| k);
        return Ok(TaintChange::Remove {
            key: key.to_string(),
            effect,
        });
    }
    let (kv, effect) = s
        .rsplit_once(':')
        .ok_or_else(|| bad("expected key=value:Effect or key:Effect"))?;
    let effect = TaintEffect::parse(effect)
        .map_err(|_| bad("expected an effect of NoSchedule, PreferNoSchedule or NoExecute"))?;
    let (k, v) = kv.split_once('=').unwrap_or((kv, ""));
    shepherd::model::validate_label_key(k, "taint key").map_err(|e| bad(&e.to_string()))?;
    shepherd::model::validate_label_value(v, "taint value").map_err(|e| bad(&e.to_string()))?;
    let t = Taint::new(k, v, effect);
    Ok(TaintChange::Add(t))
}

/// Reads argv (a leading `kubectl` is skipped) into a command.
pub fn parse(words: &[String]) -> Result<Command, String> {
    let words = match words.first().map(String::as_str) {
        Some("kubectl") => &words[1..],
        _ => words,
    };
    let Some(verb) = words.first() else {
        return Err("error: no command given; expected one of: ".to_string() + &VERBS.join(", "));
    };
    let verb = verb.as_str();
    let rest = &words[1..];
    // `set image` and `create deployment` and `rollout status` name a
    // subcommand first.
    let (sub, rest) = match verb {
        "set" | "create" | "rollout" | "top" => match rest.first() {
            Some(s) if !s.starts_with('-') => (Some(s.as_str()), &rest[1..]),
            _ => (None, rest),
        },
        _ => (None, rest),
    };
    if !VERBS.contains(&verb) {
        return Err(format!(
            "error: unknown command {verb:?} for \"kubectl\"; expected one of: {}",
            VERBS.join(", ")
        ));
    }
    let p = split_flags(verb, rest, flags_of(verb))?;
    let selector = p.get("selector").map(LabelQuery::parse).transpose()?;
    match verb {
        "get" => {
            let (kind, names) = kind_and_names("get", &p.args)?;
            Ok(Command::Get {
                kind,
                names,
                scope: p.scope()?,
                selector,
                fields: p.get("field-selector").map(field_selector).transpose()?.unwrap_or_default(),
                output: output_of(p.get("output"))?,
                show_labels: p.on("show-labels"),
            })
        }
        "describe" => {
            let (kind, names) = kind_and_names("describe", &p.args)?;
            Ok(Command::Describe {
                kind,
                names,
                scope: p.scope()?,
                selector,
            })
        }
        "top" => match sub {
            Some("node" | "nodes" | "no") => Ok(Command::TopNodes {
                names: p.args.clone(),
                selector,
            }),
            Some("pod" | "pods" | "po") => Err(
                "error: Metrics API not available: the simulation has requests, not usage; expected kubectl top nodes (requests against allocatable)".into(),
            ),
            _ => Err("error: kubectl top needs a resource; expected nodes".into()),
        },
        "scale" => {
            let (kind, names) = kind_and_names("scale", &p.args)?;
            let replicas = replicas_of(p.get("replicas"), "scale")?
                .ok_or("error: required flag(s) \"replicas\" not set")?;
            if kind != Kind::Deployments {
                return Err(format!(
                    "error: scaling {} is not simulated; expected a deployment",
                    kind.plural()
                ));
            }
            let [name] = names.as_slice() else {
                return Err("error: scale takes one deployment here, e.g. deployment/web".into());
            };
            Ok(Command::Scale {
                kind,
                name: name.clone(),
                scope: p.scope()?,
                replicas,
            })
        }
        "cordon" | "uncordon" | "drain" => {
            let node = match p.args.as_slice() {
                [n] => n.clone(),
                [] => return Err(format!("error: USAGE: {verb} NODE [flags]")),
                _ => return Err(format!("error: {verb} takes one node here; got {}", p.args.len())),
            };
            Ok(match verb {
                "cordon" => Command::Cordon { node },
                "uncordon" => Command::Uncordon { node },
                _ => Command::Drain {
                    node,
                    ignore_daemonsets: p.on("ignore-daemonsets"),
                    delete_emptydir_data: p.on("delete-emptydir-data"),
                    force: p.on("force"),
                    disable_eviction: p.on("disable-eviction"),
                },
            })
        }
        "taint" => {
            let mut args = p.args.iter();
            let kind = args.next().map(|k| Kind::parse(k)).transpose()?;
            if kind != Some(Kind::Nodes) {
                return Err("error: USAGE: taint nodes NODE KEY_1=VAL_1:TAINT_EFFECT_1 ... (only nodes carry taints)".into());
            }
            let node = args
                .next()
                .ok_or("error: USAGE: taint nodes NODE KEY_1=VAL_1:TAINT_EFFECT_1 ...")?
                .clone();
            let changes = args.map(|a| taint_change(a)).collect::<Result<Vec<_>, _>>()?;
            if changes.is_empty() {
                return Err("error: at least one taint update is required".into());
            }
            Ok(Command::Taint {
                node,
                changes,
                overwrite: p.on("overwrite"),
            })
        }
        "label" => {
            let (kind, names) = kind_and_names("label", &p.args)?;
            let mut it = names.into_iter();
            let name = it.next().ok_or("error: one or more resources must be specified as <resource> <name> or <resource>/<name>")?;
            let mut changes = Vec::new();
            for a in it {
                if let Some(k) = a.strip_suffix('-') {
                    changes.push((k.to_string(), None));
                } else if let Some((k, v)) = a.split_once('=') {
                    changes.push((k.to_string(), Some(v.to_string())));
                } else {
                    return Err(format!(
                        "error: invalid label spec: {a}; expected key=value or key-"
                    ));
                }
            }
            if changes.is_empty() {
                return Err("error: at least one label update is required".into());
            }
            Ok(Command::Label {
                kind,
                name,
                scope: p.scope()?,
                changes,
                overwrite: p.on("overwrite"),
            })
        }
        "delete" => {
            let (kind, names) = kind_and_names("delete", &p.args)?;
            if names.is_empty() {
                return Err("error: resource(s) were provided, but no name was specified".into());
            }
            Ok(Command::Delete {
                kind,
                names,
                scope: p.scope()?,
            })
        }
        "rollout" => {
            let name = one_deployment("rollout", &p.args)?;
            let scope = p.scope()?;
            match sub {
                Some("status") => Ok(Command::RolloutStatus { name, scope }),
                Some("undo") => Ok(Command::Rollout { what: Rollout::Undo, name, scope }),
                Some("restart") => Ok(Command::Rollout { what: Rollout::Restart, name, scope }),
                Some(other) => Err(format!(
                    "error: unknown command {other:?} for \"kubectl rollout\"; expected status, undo or restart"
                )),
                None => Err("error: kubectl rollout needs a subcommand; expected status, undo or restart".into()),
            }
        }
        "set" => {
            if sub != Some("image") {
                return Err("error: kubectl set: only `set image` is simulated".into());
            }
            let mut args = p.args.clone();
            // `deployment/web app=img` or `deployment web app=img`.
            let split = args.iter().position(|a| a.contains('=')).ok_or(
                "error: at least one image update is required, e.g. app=nginx:1.27",
            )?;
            let updates = args.split_off(split);
            let name = one_deployment("set image", &args)?;
            let [u] = updates.as_slice() else {
                return Err("error: set image takes one CONTAINER=IMAGE here (the engine's pods have one container)".into());
            };
            let (container, image) = u.split_once('=').expect("found by contains('=')");
            if image.is_empty() {
                return Err(format!("error: invalid image update {u:?}; expected CONTAINER=IMAGE"));
            }
            Ok(Command::SetImage {
                name,
                scope: p.scope()?,
                container: container.into(),
                image: image.into(),
            })
        }
        "create" => {
            if !matches!(sub, Some("deployment" | "deploy")) {
                return Err("error: kubectl create: only `create deployment NAME --image=IMAGE` is simulated (use apply -f - for other objects)".into());
            }
            let [name] = p.args.as_slice() else {
                return Err("error: exactly one NAME is required, got ".to_string() + &p.args.len().to_string());
            };
            let image = p
                .get("image")
                .ok_or("error: required flag(s) \"image\" not set")?
                .to_string();
            Ok(Command::CreateDeployment {
                name: name.clone(),
                scope: p.scope()?,
                image,
                replicas: replicas_of(p.get("replicas"), "create deployment")?.unwrap_or(1),
            })
        }
        "apply" => match p.get("filename") {
            Some("-") => Ok(Command::Apply { scope: p.scope()? }),
            Some(f) => Err(format!(
                "error: apply -f {f}: the simulation reads no files; expected -f - with the manifests given (pasted in the page, standard input in the CLI)"
            )),
            None => Err("error: must specify one of -f and -k".into()),
        },
        _ => unreachable!("every verb of VERBS is matched"),
    }
}

/// Completions of the line's last word (see [`super::complete`]).
pub(super) fn complete(c: &Cluster, line: &str) -> Vec<String> {
    let mut words = tokenize(line).unwrap_or_default();
    if words.first().map(String::as_str) == Some("kubectl") {
        words.remove(0);
    }
    let ends_open = line.ends_with(char::is_whitespace) || line.is_empty();
    let current = if ends_open {
        String::new()
    } else {
        words.pop().unwrap_or_default()
    };
    let starts = |xs: Vec<String>| -> Vec<String> {
        let mut v: Vec<String> = xs.into_iter().filter(|x| x.starts_with(&current)).collect();
        v.sort();
        v.dedup();
        v
    };
    let Some(verb) = words.first().cloned() else {
        return starts(VERBS.iter().map(|s| s.to_string()).collect());
    };
    let prev = words.last().map(String::as_str).unwrap_or("");
    if matches!(prev, "-n" | "--namespace") {
        return starts(namespaces(c));
    }
    if matches!(prev, "-o" | "--output") {
        return starts(["wide", "yaml", "json", "name"].map(String::from).to_vec());
    }
    if current.starts_with('-') {
        return starts(
            flags_of(&verb)
                .iter()
                .map(|(n, _, _)| format!("--{n}"))
                .collect(),
        );
    }
    let args: Vec<&String> = words[1..].iter().filter(|w| !w.starts_with('-')).collect();
    let kinds = || {
        KINDS
            .iter()
            .map(|(_, names, _)| names[0].to_string())
            .collect::<Vec<_>>()
    };
    match verb.as_str() {
        "get" | "describe" | "delete" | "label" | "scale" => match args.first() {
            None => {
                if let Some((t, typed)) = current.split_once('/') {
                    if let Ok(k) = Kind::parse(t) {
                        return starts(
                            names_of(c, k, typed)
                                .into_iter()
                                .map(|n| format!("{t}/{n}"))
                                .collect(),
                        );
                    }
                }
                starts(kinds())
            }
            Some(k) => match Kind::parse(k) {
                Ok(kind) => starts(names_of(c, kind, &current)),
                Err(_) => Vec::new(),
            },
        },
        "cordon" | "uncordon" | "drain" => starts(names_of(c, Kind::Nodes, &current)),
        "taint" => match args.len() {
            0 => starts(vec!["nodes".into()]),
            _ => starts(names_of(c, Kind::Nodes, &current)),
        },
        "top" => starts(vec!["nodes".into()]),
        "rollout" => match args.len() {
            0 => starts(["status", "undo", "restart"].map(String::from).to_vec()),
            _ => starts(
                names_of(c, Kind::Deployments, &current)
                    .into_iter()
                    .map(|n| format!("deployment/{n}"))
                    .collect(),
            ),
        },
        "set" => match args.len() {
            0 => starts(vec!["image".into()]),
            _ => starts(
                names_of(c, Kind::Deployments, &current)
                    .into_iter()
                    .map(|n| format!("deployment/{n}"))
                    .collect(),
            ),
        },
        "create" => match args.len() {
            0 => starts(vec!["deployment".into()]),
            _ => Vec::new(),
        },
        "apply" => starts(vec!["-f".into()]),
        _ => starts(VERBS.iter().map(|s| s.to_string()).collect()),
    }
}

fn namespaces(c: &Cluster) -> Vec<String> {
    let mut v: Vec<String> = c.namespaces().into_iter().map(|n| n.name).collect();
    v.push("default".into());
    v
}

/// The names (within their namespace) of one kind's objects, for completion.
fn names_of(c: &Cluster, kind: Kind, prefix: &str) -> Vec<String> {
    let short = |k: &str| shepherd::namespace::split(k).1.to_string();
    let owners = |w: shepherd::WorkloadKind| -> Vec<String> {
        c.owners()
            .filter(|(_, _, k)| *k == w)
            .map(|(_, n, _)| short(n))
            .collect()
    };
    match kind {
        Kind::Nodes => c.nodes().map(|n| n.name().to_string()).collect(),
        Kind::Deployments => owners(shepherd::WorkloadKind::Deployment),
        Kind::DaemonSets => owners(shepherd::WorkloadKind::DaemonSet),
        // At most a few hundred pods, those whose name starts with what is
        // typed (a cluster may hold 150,000).
        Kind::Pods => c
            .pods()
            .map(|p| short(&p.name()))
            .filter(|n| n.starts_with(prefix))
            .take(200)
            .collect(),
        Kind::PodDisruptionBudgets => c.pdb_names().iter().map(|n| short(n)).collect(),
        Kind::Services => c.service_specs().map(|s| short(&s.name)).collect(),
        Kind::Namespaces => namespaces(c),
        Kind::PriorityClasses => c.priority_classes().into_iter().map(|p| p.name).collect(),
        Kind::ReplicaSets | Kind::StatefulSets | Kind::Events => Vec::new(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn words(s: &str) -> Vec<String> {
        tokenize(s).unwrap()
    }

    #[test]
    fn a_line_splits_as_a_shell_splits_it() {
        assert_eq!(
            words("get pods  -l 'app in (a, b)'"),
            ["get", "pods", "-l", "app in (a, b)"]
        );
        assert_eq!(
            words(r#"label no n1 "a=b c""#),
            ["label", "no", "n1", "a=b c"]
        );
        assert!(tokenize("get 'pods").is_err());
    }

    #[test]
    fn flags_go_anywhere_in_kubectls_forms() {
        for line in [
            "get pods -n shop -o wide",
            "get -nshop pods -owide",
            "get pods --namespace=shop --output wide",
            "kubectl get po -o=wide -n shop",
        ] {
            let Command::Get {
                kind,
                scope,
                output,
                ..
            } = parse(&words(line)).unwrap()
            else {
                panic!("{line}: not a get");
            };
            assert_eq!(kind, Kind::Pods, "{line}");
            assert_eq!(scope.namespace(), "shop", "{line}");
            assert_eq!(output, Output::Wide, "{line}");
        }
    }

    #[test]
    fn unknown_words_are_refused_in_kubectls_words() {
        let e = |l: &str| parse(&words(l)).unwrap_err();
        assert_eq!(
            e("get foo"),
            "error: the server doesn't have a resource type \"foo\""
        );
        assert!(e("get pods --bogus").starts_with("error: unknown flag: --bogus"));
        assert!(e("get pods -x").starts_with("error: unknown shorthand flag: 'x' in -x"));
        assert!(
            e("frobnicate").starts_with("error: unknown command \"frobnicate\" for \"kubectl\"")
        );
        assert!(e("get pods -o table").starts_with("error: unable to match a printer"));
        assert_eq!(
            e("scale deploy/web"),
            "error: required flag(s) \"replicas\" not set"
        );
    }

    #[test]
    fn set_based_selectors_match_as_kubernetes_matches() {
        let q = LabelQuery::parse("app in (web,api),tier!=db,!legacy,env").unwrap();
        let l = |pairs: &[(&str, &str)]| shepherd::labels(pairs);
        assert!(q.matches(&l(&[("app", "web"), ("env", "p")])));
        assert!(q.matches(&l(&[("app", "api"), ("env", "p"), ("tier", "front")])));
        assert!(!q.matches(&l(&[("app", "db"), ("env", "p")])));
        assert!(!q.matches(&l(&[("app", "web"), ("env", "p"), ("tier", "db")])));
        assert!(!q.matches(&l(&[("app", "web"), ("env", "p"), ("legacy", "")])));
        assert!(!q.matches(&l(&[("app", "web")])));
        let q = LabelQuery::parse("app notin (web)").unwrap();
        assert!(
            q.matches(&l(&[])),
            "notin matches an object without the key"
        );
        assert!(LabelQuery::parse("app in web").is_err());
    }

    #[test]
    fn taint_arguments_read_as_kubectl_reads_them() {
        let Command::Taint { changes, .. } = parse(&words(
            "taint nodes n1 gpu=true:NoSchedule dedicated:NoExecute- spot-",
        ))
        .unwrap() else {
            panic!("not a taint");
        };
        assert_eq!(
            changes[0],
            TaintChange::Add(Taint::new("gpu", "true", TaintEffect::NoSchedule))
        );
        assert_eq!(
            changes[1],
            TaintChange::Remove {
                key: "dedicated".into(),
                effect: Some(TaintEffect::NoExecute)
            }
        );
        assert_eq!(
            changes[2],
            TaintChange::Remove {
                key: "spot".into(),
                effect: None
            }
        );
        assert!(parse(&words("taint nodes n1 gpu=true:Sometimes")).is_err());
    }
}
