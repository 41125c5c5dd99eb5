

use toolset::{tool, toolset};

/// The issue tracker every triage tool shares.

pub struct Tracker {
    pub issues: Vec<String>,
}

/// Count the open issues.
#[tool(tier = "read_only")]
pub async fn count(tracker: Tracker) -> String {
    tracker.issues.len().to_string()
}

toolset! {
    /// The triage agent's tools.
    pub TriageTools<Tracker> = [count];
}

fn main() {}
