//! The one error type. Every variant says what was wrong and what was expected;
//! an operation that returns an error has changed nothing.

use alloc::format;
use alloc::string::String;
use alloc::vec::Vec;
use core::fmt;

#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Error {
    /// A declaration or argument is malformed; the text says what and why.
    Invalid(String),
    /// A name that must be new is taken.
    AlreadyExists { kind: &'static str, name: String },
    /// A name that must exist does not.
    NotFound { kind: &'static str, name: String },
    /// A voluntary eviction refused because a PodDisruptionBudget allows no
    /// more disruptions (Kubernetes answers 429 Too Many Requests here).
    DisruptionBudget {
        pod: String,
        pdb: String,
        message: String,
    },
    /// A voluntary eviction refused because more than one
    /// PodDisruptionBudget selects the pod: Kubernetes' eviction subresource
    /// does not support that and answers 500, whatever the budgets allow
    /// (pkg/registry/core/pod/storage/eviction.go).
    MultipleDisruptionBudgets { pod: String, pdbs: Vec<String> },
}

impl Error {
    pub(crate) fn invalid(what: &str, got: &str, expected: &str) -> Error {
        Error::Invalid(format!(
            "{what} {} is not valid; expected {expected}",
            crate::util::limits::quoted(got)
        ))
    }
    pub(crate) fn not_found(kind: &'static str, name: &str) -> Error {
        Error::NotFound {
            kind,
            name: name.into(),
        }
    }
}

impl fmt::Display for Error {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Error::Invalid(s) => f.write_str(s),
            Error::AlreadyExists { kind, name } => {
                write!(
                    f,
                    "{kind} {} already exists; expected a name not in use",
                    crate::util::limits::quoted(name)
                )
            }
            Error::NotFound { kind, name } => write!(
                f,
                "{kind} {} not found; expected the name of an existing {kind}",
                crate::util::limits::quoted(name)
            ),
            Error::DisruptionBudget { pod, pdb, message } => {
                write!(
                    f,
                    "Cannot evict pod {} as it would violate the pod's disruption budget {}: {message}",
                    crate::util::limits::shown(pod),
                    crate::util::limits::shown(pdb)
                )
            }
            Error::MultipleDisruptionBudgets { pod, pdbs } => {
                write!(
                    f,
                    "Cannot evict pod {}: it has more than one PodDisruptionBudget, which the eviction subresource does not support (",
                    crate::util::limits::shown(pod)
                )?;
                for (i, p) in pdbs.iter().enumerate() {
                    if i > 0 {
                        f.write_str(", ")?;
                    }
                    f.write_str(&crate::util::limits::shown(p))?;
                }
                f.write_str("); expected at most one budget selecting the pod")
            }
        }
    }
}

#[cfg(feature = "std")]
impl std::error::Error for Error {}
