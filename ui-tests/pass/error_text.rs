#![deny(warnings)]
//! Errors that are just text: a handler returns `Result<T, String>`, `Result<T, &'static
//! str>` or `Result<T, E>` with its own `E: Display`, and the model reads the text as a
//! failure; and `ToolError::retry`, which asks the model to call the tool again.

use std::fmt;
use toolset::prelude::*;
use toolset::report::Outcome;
use toolset::{Autonomy, Json, ToolCall, ToolContext, ToolError, tool, toolset};

/// The notes the tools read.
pub struct Notes {
    /// The notes, by position.
    pub notes: Vec<String>,
}

/// Reads one note.
#[tool(tier = "read_only")]
pub async fn read(
    notes: &Notes,
    /** The note's position. */
    index: u32,
) -> Result<String, String> {
    let at = usize::try_from(index).map_err(|error| error.to_string())?;
    notes
        .notes
        .get(at)
        .cloned()
        .ok_or_else(|| format!("there is no note {index}"))
}

/// Counts the notes.
#[tool(tier = "read_only")]
pub async fn count(notes: &Notes) -> Result<Json<u32>, &'static str> {
    u32::try_from(notes.notes.len())
        .map(Json)
        .map_err(|_| "too many notes to count")
}

/// Why a note cannot be written.
#[derive(Debug)]
pub enum WriteError {
    /// The note is empty.
    Empty,
}

impl fmt::Display for WriteError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            WriteError::Empty => f.write_str("a note needs some text"),
        }
    }
}

/// Adds a note.
#[tool(tier = "reversible")]
pub async fn write(
    notes: &mut Notes,
    /** The note. */
    text: String,
) -> Result<String, WriteError> {
    if text.is_empty() {
        return Err(WriteError::Empty);
    }
    notes.notes.push(text);
    Ok(format!("{} notes", notes.notes.len()))
}

/// Finds the notes of a day.
#[tool(tier = "read_only")]
pub async fn on_day(
    notes: &Notes,
    /** The day, `YYYY-MM-DD`. */
    day: String,
) -> Result<String, ToolError> {
    if day.len() != 10 {
        return Err(ToolError::retry(format!(
            "\"{day}\" is not a day; write it as YYYY-MM-DD"
        )));
    }
    Ok(notes
        .notes
        .iter()
        .filter(|note| note.starts_with(&day))
        .count()
        .to_string())
}

toolset! {
    /// Notes whose tools fail in words.
    pub NoteTools<Notes> = [read, count, write, on_day];
}

pub fn main() {
    let mut notes = Notes {
        notes: vec!["2026-12-02 milk".to_owned()],
    };
    let calls = vec![
        ToolCall::new("1", "read", r#"{"index": 4}"#),
        ToolCall::new("2", "count", "{}"),
        ToolCall::new("3", "write", r#"{"text": ""}"#),
        ToolCall::new("4", "on_day", r#"{"day": "tuesday"}"#),
    ];
    let plan = NoteTools::gate(calls, Autonomy::Reversible).expect("valid calls");
    let report = tokio::runtime::Builder::new_current_thread()
        .build()
        .expect("a current-thread runtime")
        .block_on(NoteTools::apply(&mut notes, &ToolContext::default(), plan));
    let outcomes: Vec<&Outcome> = report
        .entries()
        .iter()
        .map(|entry| entry.outcome.as_ref().expect("every call ran"))
        .collect();
    assert!(matches!(outcomes[0], Outcome::Failed { message } if message == "there is no note 4"));
    assert!(outcomes[1].is_done());
    assert!(
        matches!(outcomes[2], Outcome::Failed { message } if message == "a note needs some text")
    );
    assert!(matches!(outcomes[3], Outcome::Retry { hint } if hint.contains("YYYY-MM-DD")));
}
