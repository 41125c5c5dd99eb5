//! A `toolset!` whose tools take the set's per-run state: one borrowing it to read, one to
//! write, one taking none, so the expansion shows the state checks beside the dispatch.

use toolset::{ToolError, tool, toolset};

pub struct Notebook {
    pub notes: Vec<String>,
}

/// Count the notes.
#[tool(tier = "read_only")]
pub async fn count(notebook: &Notebook) -> String {
    notebook.notes.len().to_string()
}

/// Add a note.
#[tool(tier = "reversible")]
pub async fn add_note(notebook: &mut Notebook, text: String) -> Result<(), ToolError> {
    notebook.notes.push(text);
    Ok(())
}

/// Tell the current time.
#[tool(tier = "read_only")]
pub async fn now() -> &'static str {
    "2026-11-30T00:00:00Z"
}

toolset! {
    /// The notebook's tools.
    pub NotebookTools<Notebook> = [count, add_note, now];
}
