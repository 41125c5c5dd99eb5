#![allow(unused_variables)] // The handler exists to be refused.
use serde::Deserialize;
use schemars::JsonSchema;
use toolset::{tool, toolset};

/// The issue tracker every triage tool shares.
#[derive(Deserialize, JsonSchema)]
pub struct Tracker {
    pub issues: Vec<String>,
}

/// Twenty-nine arguments of twenty-nine types, then the state by value: the check reaches it.
#[tool(tier = "reversible")]
#[allow(clippy::too_many_arguments)]
pub async fn wide(
    a0: u8,
    a1: u16,
    a2: u32,
    a3: u64,
    a4: u128,
    a5: usize,
    a6: i8,
    a7: i16,
    a8: i32,
    a9: i64,
    a10: i128,
    a11: isize,
    a12: bool,
    a13: char,
    a14: String,
    a15: Option<u8>,
    a16: Option<u16>,
    a17: Option<u32>,
    a18: Option<u64>,
    a19: Option<u128>,
    a20: Option<usize>,
    a21: Option<i8>,
    a22: Option<i16>,
    a23: Option<i32>,
    a24: Option<i64>,
    a25: Option<i128>,
    a26: Option<isize>,
    a27: Option<bool>,
    a28: Option<char>,
    tracker: Tracker,
) -> String {
    tracker.issues.len().to_string()
}

toolset! {
    /// The triage agent's tools.
    pub TriageTools<Tracker> = [wide];
}

fn main() {}
