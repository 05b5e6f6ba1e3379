#![cfg_attr(not(feature = "std"), no_std)]
extern crate alloc;
pub fn version() -> &'static str { "0.1.0" }
