//! The page's kubectl prompt: a typed line through shepherd_k8s::kubectl
//! over the session's cluster. A read answers at once (a page of rows); a
//! change becomes the script's actions (`Action::from_event`, or one
//! `apply` action for `apply -f -`), submitted as the forms submit theirs,
//! so Back, the link and the export keep it.

use serde::Serialize;
use shepherd_k8s::kubectl::{parse, run_deciding, tokenize, Command, Page, Reply};

use crate::scenario::Action;
use crate::session::Session;

/// What the prompt shows for one command.
#[derive(Clone, Debug, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct KubectlAnswer {
    /// What kubectl prints on standard output.
    pub text: String,
    /// What it prints on standard error after a part that happened (a
    /// drain that cordoned, then refused).
    pub error: Option<String>,
    /// Whether actions were queued (the page then steps, as after a form).
    pub changed: bool,
    /// For a list: the first row shown, the rows shown and how many match.
    pub offset: usize,
    pub rows: usize,
    pub total: usize,
    /// What the session said it queued, e.g. "cordon node node-1 (queued for tick 5)".
    pub queued: Vec<String>,
}

/// Runs `line` over the session. `stdin`: the text `apply -f -` reads.
/// An `Err` is kubectl's error text (`Error from server (NotFound): ...`);
/// an engine refusal of a queued action is `Error from server: ...`, and
/// the actions of the command queued before it stay queued.
pub fn run_line(
    session: &mut Session,
    line: &str,
    stdin: Option<&str>,
    page: Page,
) -> Result<KubectlAnswer, String> {
    let cmd: Command = parse(&tokenize(line)?)?;
    let s: &Session = session;
    let sim = s.simulator();
    // describe pod explains a bound pod as of the cycle that bound it: the
    // session replays its run to that bind.
    let decide = |pod: &str| s.decision(pod).ok().flatten();
    let reply = run_deciding(
        sim.cluster(),
        sim.profile(),
        Some(&decide),
        &cmd,
        stdin,
        page,
    )?;
    match reply {
        Reply::Text {
            text,
            offset,
            rows,
            total,
        } => Ok(KubectlAnswer {
            text,
            error: None,
            changed: false,
            offset,
            rows,
            total,
            queued: Vec::new(),
        }),
        Reply::Change {
            events,
            manifests,
            message,
            error,
        } => {
            let mut queued = Vec::new();
            for e in &events {
                let said = session
                    .submit(Action::from_event(e))
                    .map_err(|x| format!("Error from server: {x}"))?;
                queued.push(said);
            }
            if let Some(text) = manifests {
                let (said, _) = crate::manifests::apply_to_session(session, &text)
                    .map_err(|x| format!("Error from server: {x}"))?;
                queued.push(said);
            }
            Ok(KubectlAnswer {
                text: message,
                error,
                changed: !queued.is_empty(),
                offset: 0,
                rows: 0,
                total: 0,
                queued,
            })
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn all() -> Page {
        Page::ALL
    }

    #[test]
    fn a_typed_change_is_the_scripts_action() {
        let mut s = Session::tour();
        s.run(12);
        let node = s
            .simulator()
            .cluster()
            .nodes()
            .next()
            .unwrap()
            .name()
            .to_string();
        let before = s.log().len();
        let a = run_line(&mut s, &format!("kubectl cordon {node}"), None, all()).unwrap();
        assert_eq!(a.text, format!("node/{node} cordoned"));
        assert!(a.changed);
        assert_eq!(s.log().len(), before + 1);
        let tick = s.tick() + 1;
        assert!(
            s.log()
                .iter()
                .any(|e| e.tick == tick && e.action == Action::Cordon { node: node.clone() }),
            "queued for the next tick, as a form's action"
        );
        s.run(1);
        let t = run_line(&mut s, &format!("get nodes {node}"), None, all()).unwrap();
        assert!(t.text.contains("Ready,SchedulingDisabled"), "{}", t.text);
        // The export's script holds it, so a link replays it.
        let sc = s.scenario();
        assert!(sc
            .actions
            .iter()
            .any(|x| x.action == Action::Cordon { node: node.clone() }));
    }

    #[test]
    fn a_read_queues_nothing_and_errors_are_kubectls() {
        let mut s = Session::tour();
        s.run(12);
        let before = s.log().len();
        let a = run_line(
            &mut s,
            "get pods -o wide",
            None,
            Page {
                offset: 0,
                limit: 2,
            },
        )
        .unwrap();
        assert_eq!(a.rows, 2);
        assert!(a.total >= 2);
        assert_eq!(s.log().len(), before);
        assert_eq!(
            run_line(&mut s, "get pods nope", None, all()).unwrap_err(),
            "Error from server (NotFound): pods \"nope\" not found"
        );
    }

    #[test]
    fn apply_from_stdin_is_one_apply_action() {
        let mut s = Session::tour();
        s.run(3);
        let yaml = "apiVersion: v1\nkind: Node\nmetadata:\n  name: extra\nstatus:\n  allocatable: {cpu: '4', memory: 8Gi, pods: '110'}\n";
        let a = run_line(&mut s, "apply -f -", Some(yaml), all()).unwrap();
        assert_eq!(a.text, "node/extra created");
        let tick = s.tick() + 1;
        assert!(s
            .log()
            .iter()
            .any(|e| e.tick == tick && matches!(e.action, Action::Apply { .. })));
    }
}

#[cfg(test)]
mod describe_pending {
    use super::*;

    #[test]
    fn a_pending_pod_is_described_with_its_failed_scheduling_event_and_explain() {
        let mut s = Session::tour();
        s.run(12);
        let pending = s
            .simulator()
            .cluster()
            .pending_pods()
            .next()
            .expect("the tour has a Pending pod at tick 12")
            .name();
        let a = run_line(&mut s, &format!("describe pod {pending}"), None, Page::ALL).unwrap();
        assert!(a.text.contains("Status:             Pending"), "{}", a.text);
        assert!(a.text.contains("Warning  FailedScheduling"), "{}", a.text);
        assert!(a.text.contains("default-scheduler"), "{}", a.text);
        assert!(a.text.contains("Explain ("), "{}", a.text);
    }
}
