//! What a database store reads back from its rows, written once for SQLite and PostgreSQL:
//! a stored proposal from its JSON, a resolution from its decision text and time, an effect
//! from its start time, a journal entry from its columns.

use super::{CallEnd, Decision, Effect, Ending, JournalEntry, Resolution, StoreError, Stored};
use crate::call::Caller;
use crate::call::ToolCall;
use crate::proposal::ProposalId;
use crate::tier::Tier;

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

/// A journal entry's columns, as both database stores read them from `toolset_effects`.
pub(super) struct EntryRow {
    pub(super) key: String,
    pub(super) call_id: String,
    pub(super) tool: String,
    pub(super) tier: String,
    pub(super) arguments: String,
    /// Who made the call, as JSON ([`Caller`](crate::Caller)); `NULL` for the model itself.
    pub(super) caller: Option<String>,
    pub(super) started_at_ms: i64,
    pub(super) attempts: i64,
    pub(super) rerun: bool,
    pub(super) ended: Option<String>,
    pub(super) result: Option<String>,
    pub(super) ended_at_ms: Option<i64>,
    pub(super) delivered_at_ms: Option<i64>,
}

/// The columns of a journal entry, in [`EntryRow`]'s order, for a `SELECT`.
pub(super) const ENTRY_COLUMNS: &str = "proposal_id, call_id, tool, tier, arguments, \
     caller, started_at_ms, attempts, rerun, ended, result, ended_at_ms, delivered_at_ms";

/// How a call's maker is stored: `None` for the model itself, else its JSON.
pub(super) fn caller_column(call: &ToolCall) -> Option<String> {
    match call.caller {
        Caller::Direct => None,
        // A `Caller` is strings in an enum: it always serializes.
        ref code => serde_json::to_string(code).ok(),
    }
}

/// The entry a row holds; a tier or ending the store cannot read is an error, never a guess.
pub(super) fn journal_entry(row: EntryRow) -> Result<JournalEntry, StoreError> {
    let time = |ms: i64| u64::try_from(ms).unwrap_or(0);
    let tier = Tier::parse(&row.tier).ok_or_else(|| {
        StoreError::new(format!(
            "the journal entry {} holds an unknown tier `{}`",
            row.key, row.tier
        ))
    })?;
    let end = match (row.ended, row.result, row.ended_at_ms) {
        (Some(ended), Some(result), Some(at)) => Some(CallEnd {
            ending: Ending::parse(&ended).ok_or_else(|| {
                StoreError::new(format!(
                    "the journal entry {} holds an unknown ending `{ended}`",
                    row.key
                ))
            })?,
            result,
            at_ms: time(at),
        }),
        _ => None,
    };
    let caller = match row.caller {
        None => Caller::Direct,
        Some(json) => serde_json::from_str(&json).map_err(|error| {
            StoreError::new(format!(
                "the journal entry {} holds an unreadable caller: {error}",
                row.key
            ))
        })?,
    };
    Ok(JournalEntry {
        call: ToolCall::new(row.call_id, row.tool, row.arguments).with_caller(caller),
        key: row.key,
        tier,
        started_at_ms: time(row.started_at_ms),
        attempts: u32::try_from(row.attempts).unwrap_or(u32::MAX),
        rerun: row.rerun,
        end,
        delivered_at_ms: row.delivered_at_ms.map(time),
    })
}
