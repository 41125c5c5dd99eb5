use std::sync::Mutex;
use toolset::{tool, toolset};

/// The notes every tool of the notebook agent shares.
pub struct Notebook {
    pub notes: Vec<String>,
}

/// Add a note.
#[tool(tier = "reversible")]
pub async fn add(notebook: &Mutex<Notebook>, note: String) {
    notebook.lock().expect("not poisoned").notes.push(note);
}

toolset! {
    /// The notebook agent's tools.
    pub Notes<Notebook> = [add];
}

fn main() {}
