//! What a database store reads back from its rows, written once for SQLite and PostgreSQL:
//! a resolution from its decision text and time, an effect from its start time.

use super::{Decision, Effect, Resolution, StoreError};

/// The decision a row spells `text`; anything else is a store error, never a guess.
fn decision(text: &str) -> Result<Decision, StoreError> {
    match text {
        "approved" => Ok(Decision::Approved),
        "declined" => Ok(Decision::Declined),
        other => Err(StoreError::new(format!(
            "the database holds an unknown decision `{other}`"
        ))),
    }
}

/// A row's resolution: `None` while it waits (no decision or no time).
pub(super) fn resolution(
    decision_text: Option<String>,
    at: Option<i64>,
) -> Result<Option<Resolution>, StoreError> {
    match (decision_text, at) {
        (Some(text), Some(at)) => Ok(Some(Resolution {
            decision: decision(&text)?,
            at_ms: u64::try_from(at).unwrap_or(0),
        })),
        _ => Ok(None),
    }
}

/// An effect row's start time as an [`Effect`].
pub(super) fn effect(started_at_ms: i64) -> Effect {
    Effect::started_at(u64::try_from(started_at_ms).unwrap_or(0))
}
