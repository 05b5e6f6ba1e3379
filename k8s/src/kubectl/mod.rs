//! kubectl's words over the simulated cluster: one grammar for the CLI
//! (`shepherd kubectl FILE -- get pods -o wide`) and the page's prompt.
//!
//! [`parse`] reads argv-like words (after [`tokenize`] for a typed line)
//! into a [`Command`], with kubectl's flag semantics (`-n`, `-A`, `-l` with
//! equality- and set-based requirements, `-o wide|yaml|json|name`,
//! `--field-selector`). [`run`] answers it over a [`Cluster`]: a read
//! (`get`, `describe`, `top nodes`, `rollout status`) is text in kubectl's
//! column layout, paged ([`Page`]); a change is the engine's
//! [`Event`]s (or manifests for `apply -f -`) with kubectl's confirmation,
//! for the caller to submit as the page's forms and the CLI's script do. A
//! verb the engine has no action for is refused in kubectl's words, not
//! faked. docs/kubectl.md lists what is supported.
//!
//! Tables follow kubectl's printers (kubernetes
//! pkg/printers/internalversion/printers.go: the column sets, `<none>`,
//! `<unknown>`) and its tab writer (cli-runtime: minimum width 6, padding
//! 3; a list printed in chunks, as `--chunk-size` pages it, aligns each
//! chunk with the widths seen so far). AGE is kubectl's HumanDuration of
//! ticks (a tick is a second).

mod change;
mod describe;
mod get;
mod grammar;
mod table;

pub(crate) use get::pod_status;
pub use grammar::{parse, tokenize, Command, Kind, LabelQuery, Output, Scope};

use shepherd::simulator::Event;
use shepherd::{Cluster, Explanation, Profile};

/// Where `describe pod` finds the scheduling cycle that bound a pod, as of
/// that bind, and the tick it ran in (the page replays its run; the CLI its
/// input and commands). `None`: not bound by the scheduler, or not known;
/// the pod is then explained as if it were scheduled now.
pub type Decide<'a> = &'a dyn Fn(&str) -> Option<(u64, Explanation)>;

/// Which rows of a list to print: `offset` rows skipped, at most `limit`
/// printed (a page of the prompt, or a chunk of the CLI's output).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Page {
    pub offset: usize,
    pub limit: usize,
}

impl Page {
    /// Every row.
    pub const ALL: Page = Page {
        offset: 0,
        limit: usize::MAX,
    };
}

/// What a command gives back.
#[derive(Clone, Debug, PartialEq)]
pub enum Reply {
    /// What kubectl prints. For a list: `rows` printed of `total` matching,
    /// from `offset`; the rest is the next [`Page`].
    Text {
        text: String,
        offset: usize,
        rows: usize,
        total: usize,
    },
    /// A change to submit: the engine's events in order, or `manifests` for
    /// `kubectl apply -f -` (applied as the import applies them), and what
    /// kubectl prints once the server accepted it. `error`: what kubectl
    /// printed after a part that did happen (a drain that cordoned the node
    /// and then refused to evict DaemonSet pods).
    Change {
        events: Vec<Event>,
        manifests: Option<String>,
        message: String,
        error: Option<String>,
    },
}

impl Reply {
    fn text(mut text: String) -> Reply {
        if !text.is_empty() && !text.ends_with('\n') {
            text.push('\n');
        }
        let rows = text.lines().count();
        Reply::Text {
            text,
            offset: 0,
            rows,
            total: rows,
        }
    }
}

/// Runs one command over the cluster. `profile` is the scheduler's (for
/// `describe pod`'s explanation); `stdin` is what `-f -` reads. An `Err`
/// is what kubectl prints on standard error (`Error from server
/// (NotFound): pods "x" not found`, `error: ...`).
pub fn run(
    c: &Cluster,
    profile: &Profile,
    cmd: &Command,
    stdin: Option<&str>,
    page: Page,
) -> Result<Reply, String> {
    run_deciding(c, profile, None, cmd, stdin, page)
}

/// [`run`], with `decide` for `describe pod`'s explanation of a bound pod
/// as of its scheduling cycle (issue 47: explain as of the decision).
pub fn run_deciding(
    c: &Cluster,
    profile: &Profile,
    decide: Option<Decide<'_>>,
    cmd: &Command,
    stdin: Option<&str>,
    page: Page,
) -> Result<Reply, String> {
    match cmd {
        Command::Get { .. } => get::get(c, cmd, page),
        Command::Describe { .. } => describe::describe(c, profile, decide, cmd),
        Command::TopNodes { .. } => get::top_nodes(c, cmd, page),
        Command::RolloutStatus { name, scope } => change::rollout_status(c, name, scope),
        _ => change::change(c, cmd, stdin),
    }
}

/// [`tokenize`], [`parse`] and [`run`] of one typed line; a leading
/// `kubectl` is optional.
pub fn run_line(
    c: &Cluster,
    profile: &Profile,
    line: &str,
    stdin: Option<&str>,
    page: Page,
) -> Result<Reply, String> {
    let words = tokenize(line)?;
    let cmd = parse(&words)?;
    run(c, profile, &cmd, stdin, page)
}

/// Completions of the last word of a typed line: verbs, resource types,
/// flags and the names of the objects of the type already given, sorted.
pub fn complete(c: &Cluster, line: &str) -> Vec<String> {
    grammar::complete(c, line)
}

/// The engine's key of a namespaced object (`NAME` in `default`,
/// `NAMESPACE/NAME` elsewhere).
pub(crate) fn key(ns: &str, name: &str) -> String {
    shepherd::namespace::qualify(ns, name)
}

/// kubectl's HumanDuration (k8s.io/apimachinery/pkg/util/duration) of a
/// number of seconds.
pub fn human_duration(seconds: u64) -> String {
    let s = seconds;
    if s < 120 {
        return format!("{s}s");
    }
    let minutes = s / 60;
    if minutes < 10 {
        return match s % 60 {
            0 => format!("{minutes}m"),
            r => format!("{minutes}m{r}s"),
        };
    }
    if minutes < 180 {
        return format!("{minutes}m");
    }
    let hours = s / 3600;
    if hours < 8 {
        return match minutes % 60 {
            0 => format!("{hours}h"),
            m => format!("{hours}h{m}m"),
        };
    }
    if hours < 48 {
        return format!("{hours}h");
    }
    if hours < 24 * 8 {
        return match hours % 24 {
            0 => format!("{}d", hours / 24),
            h => format!("{}d{h}h", hours / 24),
        };
    }
    if hours < 24 * 365 * 2 {
        return format!("{}d", hours / 24);
    }
    if hours < 24 * 365 * 8 {
        return match (hours / 24) % 365 {
            0 => format!("{}y", hours / 24 / 365),
            d => format!("{}y{d}d", hours / 24 / 365),
        };
    }
    format!("{}y", hours / 24 / 365)
}

#[cfg(test)]
mod tests {
    use super::human_duration;

    #[test]
    fn ages_read_as_kubectl_writes_them() {
        for (s, want) in [
            (0, "0s"),
            (119, "119s"),
            (120, "2m"),
            (125, "2m5s"),
            (600, "10m"),
            (3 * 3600, "3h"),
            (3 * 3600 + 60 * 7, "3h7m"),
            (9 * 3600, "9h"),
            (50 * 3600, "2d2h"),
            (48 * 3600, "2d"),
            (30 * 86400, "30d"),
            (3 * 365 * 86400 + 86400, "3y1d"),
            (9 * 365 * 86400, "9y"),
        ] {
            assert_eq!(human_duration(s), want, "{s}s");
        }
    }
}
