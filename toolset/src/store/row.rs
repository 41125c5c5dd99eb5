//! What a database store reads back from its rows, written once for SQLite and PostgreSQL:
//! a row as either driver hands it back ([`Cells`]), a stored proposal from its JSON, a
//! resolution from its decision text and time, an effect from its start time, a journal
//! entry from its columns.

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

/// A column's value as either database hands it back: an integer (a PostgreSQL boolean
/// as 0 or 1), text, or `NULL`.
#[derive(Debug)]
pub(super) enum Cell {
    Null,
    Int(i64),
    Text(String),
}

/// A row as either database hands it back, its columns in the statement's order, read
/// once each by position: what both stores decode, whatever the driver.
#[derive(Debug)]
pub(super) struct Cells(pub(super) Vec<Cell>);

impl Cells {
    /// The column `index`, taken out of the row.
    fn take(&mut self, index: usize) -> Result<Cell, StoreError> {
        self.0
            .get_mut(index)
            .map(|cell| std::mem::replace(cell, Cell::Null))
            .ok_or_else(|| StoreError::new(format!("a row has no column {index}")))
    }

    /// The text in column `index`, `None` for `NULL`.
    pub(super) fn maybe_text(&mut self, index: usize) -> Result<Option<String>, StoreError> {
        match self.take(index)? {
            Cell::Null => Ok(None),
            Cell::Text(text) => Ok(Some(text)),
            Cell::Int(int) => Err(StoreError::new(format!(
                "column {index} holds the number {int} where text was expected"
            ))),
        }
    }

    /// The integer in column `index`, `None` for `NULL`.
    pub(super) fn maybe_int(&mut self, index: usize) -> Result<Option<i64>, StoreError> {
        match self.take(index)? {
            Cell::Null => Ok(None),
            Cell::Int(int) => Ok(Some(int)),
            Cell::Text(_) => Err(StoreError::new(format!(
                "column {index} holds text where a number was expected"
            ))),
        }
    }

    /// The text in column `index`, which may not be `NULL`.
    pub(super) fn text(&mut self, index: usize) -> Result<String, StoreError> {
        self.maybe_text(index)?.ok_or_else(|| {
            StoreError::new(format!("column {index} is NULL where text was expected"))
        })
    }

    /// The integer in column `index`, which may not be `NULL`.
    pub(super) fn int(&mut self, index: usize) -> Result<i64, StoreError> {
        self.maybe_int(index)?.ok_or_else(|| {
            StoreError::new(format!(
                "column {index} is NULL where a number was expected"
            ))
        })
    }
}

/// A proposal's row as `sql::PROPOSAL` reads it: its JSON, its
/// resolution's columns, its effect's start (`None` for a decline on record, which is no
/// effect) and the time of a decline on record in the journal.
pub(super) struct ProposalRow {
    pub(super) proposal: String,
    pub(super) decision: Option<String>,
    pub(super) resolved_at_ms: Option<i64>,
    pub(super) started_at_ms: Option<i64>,
    pub(super) declined_at_ms: Option<i64>,
}

impl ProposalRow {
    /// The row's five columns.
    pub(super) fn read(mut cells: Cells) -> Result<ProposalRow, StoreError> {
        Ok(ProposalRow {
            proposal: cells.text(0)?,
            decision: cells.maybe_text(1)?,
            resolved_at_ms: cells.maybe_int(2)?,
            started_at_ms: cells.maybe_int(3)?,
            declined_at_ms: cells.maybe_int(4)?,
        })
    }

    /// The proposal `id` this row holds, with its resolution and effect.
    pub(super) fn stored(self, id: &ProposalId) -> Result<Stored, StoreError> {
        stored(
            id,
            &self.proposal,
            self.decision,
            self.resolved_at_ms,
            self.started_at_ms,
        )
    }
}

/// How a call's maker is stored: `None` for the model itself, else its JSON.
pub(super) fn caller_column(call: &ToolCall) -> Option<String> {
    match call.caller {
        Caller::Direct => None,
        // A `Caller` is strings in an enum: it always serializes.
        ref code => serde_json::to_string(code).ok(),
    }
}

/// The entry a row of a journal entry's columns holds (`entry_columns!` in `sql.rs`, in
/// that order); a tier or ending the store cannot read is an error, never a guess.
pub(super) fn journal_entry(mut row: Cells) -> Result<JournalEntry, StoreError> {
    let time = |ms: i64| u64::try_from(ms).unwrap_or(0);
    let key = row.text(0)?;
    let (call_id, tool, tier, arguments) = (row.text(1)?, row.text(2)?, row.text(3)?, row.text(4)?);
    let (caller, started_at_ms, attempts) = (row.maybe_text(5)?, row.int(6)?, row.int(7)?);
    let rerun = row.int(8)? != 0;
    let (ended, result, ended_at_ms) =
        (row.maybe_text(9)?, row.maybe_text(10)?, row.maybe_int(11)?);
    let delivered_at_ms = row.maybe_int(12)?;
    let tier = Tier::parse(&tier).ok_or_else(|| {
        StoreError::new(format!(
            "the journal entry {key} holds an unknown tier `{tier}`"
        ))
    })?;
    let end = match (ended, result, ended_at_ms) {
        (Some(ended), Some(result), Some(at)) => Some(CallEnd {
            ending: Ending::parse(&ended).ok_or_else(|| {
                StoreError::new(format!(
                    "the journal entry {key} holds an unknown ending `{ended}`"
                ))
            })?,
            result,
            at_ms: time(at),
        }),
        _ => None,
    };
    let caller = match caller {
        None => Caller::Direct,
        Some(json) => serde_json::from_str(&json).map_err(|error| {
            StoreError::new(format!(
                "the journal entry {key} holds an unreadable caller: {error}"
            ))
        })?,
    };
    Ok(JournalEntry {
        call: ToolCall::new(call_id, tool, arguments).with_caller(caller),
        key,
        tier,
        started_at_ms: time(started_at_ms),
        attempts: u32::try_from(attempts).unwrap_or(u32::MAX),
        rerun,
        end,
        delivered_at_ms: delivered_at_ms.map(time),
    })
}
