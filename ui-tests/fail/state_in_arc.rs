use std::sync::Arc;
use serde::Deserialize;
use schemars::JsonSchema;
use toolset::{tool, toolset};

/// The issue tracker every triage tool shares.
#[derive(Deserialize, JsonSchema)]
pub struct Tracker {
    pub issues: Vec<String>,
}

/// Label an issue.
#[tool(tier = "reversible")]
pub async fn label(issue: u32, label: String, tracker: Arc<Tracker>) -> String {
    format!("{issue}: {label} of {}", tracker.issues.len())
}

toolset! {
    /// The triage agent's tools.
    pub TriageTools<Tracker> = [label];
}

fn main() {}
