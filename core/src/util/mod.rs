//! Leaves: containers, arithmetic, the PRNG, the error type and the limits.
//! Nothing here imports another module of the crate (see `tests/layers.rs`).

pub mod chunked;
pub mod error;
pub mod limits;
pub mod math;
pub(crate) mod ordinals;
pub(crate) mod podname;
pub mod prng;
