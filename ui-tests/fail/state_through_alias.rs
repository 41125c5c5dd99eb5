use serde::Deserialize;
use schemars::JsonSchema;
use toolset::{tool, toolset};

/// The issue tracker every triage tool shares.
#[derive(Deserialize, JsonSchema)]
pub struct Tracker {
    pub issues: Vec<String>,
}

/// Another name for the tracker: the check compares types, not spellings.
pub type Board = Tracker;

/// Count the open issues.
#[tool(tier = "read_only")]
pub async fn count(board: Board) -> String {
    board.issues.len().to_string()
}

toolset! {
    /// The triage agent's tools.
    pub TriageTools<Tracker> = [count];
}

fn main() {}
