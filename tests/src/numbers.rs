//! A tool set of numbers, for the tests of junk on the wire (`tests/mcp_junk.rs`): served
//! on stdio by `src/bin/mcp_numbers.rs` and over HTTP by the test itself, so that a number
//! no reader can hold (`1e400`) in a `tools/call`'s arguments reaches the gate, at the top
//! level and nested.

use schemars::JsonSchema;
use serde::Deserialize;
use toolset::{tool, toolset};

/// The state: none is needed.
#[derive(Debug, Default)]
pub struct Nothing;

/// Record numbers of three widths.
#[tool(tier = "read_only")]
pub async fn record(
    /// An unsigned 64-bit count.
    count: u64,
    /// A byte.
    byte: u8,
    /// A single-precision ratio.
    ratio: f32,
) -> String {
    format!("recorded {count} {byte} {ratio}")
}

/// A factor to scale by.
#[derive(Debug, Deserialize, JsonSchema)]
pub struct Factor {
    /// The factor.
    pub factor: f64,
}

/// Scale by a factor, given in an object of its own.
#[tool(tier = "read_only")]
pub async fn scale(
    /// What to scale by.
    by: Factor,
) -> String {
    format!("scaled by {}", by.factor)
}

toolset! {
    /// Tools taking numbers.
    pub NumberTools<Nothing> = [record, scale];
}
