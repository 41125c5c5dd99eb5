use std::sync::Arc;
use toolset::{tool, toolset};

/// The notes every tool of the notebook agent shares.
pub struct Notebook {
    pub notes: Vec<String>,
}

/// The notebook as the host keeps it between runs.
pub type Shared = Arc<Notebook>;

/// Count the notes.
#[tool(tier = "read_only")]
pub async fn count(notebook: Shared) -> String {
    notebook.notes.len().to_string()
}

toolset! {
    /// The notebook agent's tools.
    pub Notes<Shared> = [count];
}

fn main() {}
