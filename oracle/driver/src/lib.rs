//! The differential check of Shepherd against Kubernetes' own code: case
//! generation ([`gen`]), the oracle process ([`oracle`]), both sides of a
//! scheduling case and their comparison ([`sched`]), the pure functions and
//! the exports ([`funcs`]), Cluster Autoscaler's template-node check
//! ([`autoscale`]). The binary (`main.rs`) runs them; the tests in
//! `tests/deviations.rs` pin the deviations the oracle found that are still
//! open (docs/oracle.md).

pub mod autoscale;
pub mod funcs;
pub mod gen;
pub mod oracle;
pub mod sched;

/// A whole number from the environment, or `default` when unset.
pub fn env_u64(name: &str, default: u64) -> Result<u64, String> {
    match std::env::var(name) {
        Ok(s) if !s.trim().is_empty() => s
            .trim()
            .parse()
            .map_err(|_| format!("{name}={s:?}; expected a whole number")),
        _ => Ok(default),
    }
}
