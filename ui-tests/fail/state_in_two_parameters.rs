use serde::Deserialize;
use schemars::JsonSchema;
use toolset::{tool, toolset};

/// The issue tracker every triage tool shares.
#[derive(Deserialize, JsonSchema)]
pub struct Tracker {
    pub issues: Vec<String>,
}

/// Merge two trackers.
#[tool(tier = "reversible")]
pub async fn merge(into: Tracker, from: Tracker) -> String {
    format!("{} {}", into.issues.len(), from.issues.len())
}

toolset! {
    /// The triage agent's tools.
    pub TriageTools<Tracker> = [merge];
}

fn main() {}
