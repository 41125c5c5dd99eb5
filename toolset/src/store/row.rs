//! What a database store reads back from its rows, written once for SQLite and PostgreSQL:
//! a stored proposal from its JSON, a resolution from its decision text and time, an effect
//! from its start time.

use super::{Decision, Effect, Resolution, StoreError, Stored};
use crate::ProposalId;

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

/// The proposal `id` as its row holds it: its JSON, its resolution's columns and its
/// effect's start time (`None`s while it waits).
pub(super) fn stored(
    id: &ProposalId,
    proposal: &str,
    decision: Option<String>,
    resolved_at_ms: Option<i64>,
    started_at_ms: Option<i64>,
) -> Result<Stored, StoreError> {
    let proposal = serde_json::from_str(proposal).map_err(|error| {
        StoreError::new(format!("the stored proposal {id} is not readable: {error}"))
    })?;
    Ok(Stored {
        proposal,
        resolution: resolution(decision, resolved_at_ms)?,
        effect: started_at_ms.map(effect),
    })
}
