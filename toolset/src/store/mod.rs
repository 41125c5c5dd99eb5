//! Where proposals wait for a human, and the rule that each is resolved exactly once.
//!
//! A [`ProposalStore`] keeps proposals and resolves each one (approved or declined)
//! atomically, once, even with concurrent resolvers in several processes: the resolver
//! that wins runs the call, every other is told "already approved at …". Approving
//! records the proposal's [`Effect`] in the same atomic step, and a store never resolves
//! a proposal whose effect is on record again, so a resolution reset to pending (someone
//! writing the database) cannot replay an approval. The crate ships
//! [`MemoryStore`] (one process); with the `sqlite` feature, `SqliteStore` (a real
//! database file in WAL mode, shared by processes on one machine); and with the
//! `postgres` feature, `PostgresStore` (one PostgreSQL database shared by every replica of
//! a host: `PostgresStore::connect("postgres://user@host/database")`, the row locked with
//! `SELECT … FOR UPDATE` while it is resolved, the tables created and migrated by the
//! store itself). Another database implements the same trait with an `UPDATE … WHERE
//! decision IS NULL` and the effect's `INSERT` in one transaction of its own.
//!
//! [`Approvals`](crate::Approvals) (in `approval.rs`) is what a host holds: a store, an
//! optional seal key and an optional expiry, where proposals are approved and declined.
//!
//! The same stores keep the effect journal ([`Journal`]) and saved runs ([`RunStore`],
//! for [`Runs`](crate::Runs)): one database holds a conversation's proposals, the calls
//! they became and the run waiting on them.

mod journal;
mod memory;
#[cfg(feature = "postgres")]
mod postgres;
#[cfg(any(feature = "sqlite", feature = "postgres"))]
mod row;
mod runs;
#[cfg(feature = "sqlite")]
mod sqlite;

pub use journal::{
    CallEnd, CallStart, EndOutcome, Ending, Journal, JournalEntry, StartOutcome, auto_key,
};
pub use memory::MemoryStore;
#[cfg(feature = "postgres")]
pub use postgres::PostgresStore;
pub use runs::{RunId, RunStore, SaveRunOutcome, StoredRun};
#[cfg(feature = "sqlite")]
pub use sqlite::SqliteStore;

use crate::{Proposal, ProposalId, ToolOutput};
use serde::{Deserialize, Serialize};
use std::fmt;

/// How a human resolved a proposal.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Decision {
    /// Approved: the call ran (or was handed to the host) once.
    Approved,
    /// Declined: the call never runs.
    Declined,
}

impl Decision {
    /// `"approved"` or `"declined"`.
    pub fn as_str(self) -> &'static str {
        match self {
            Decision::Approved => "approved",
            Decision::Declined => "declined",
        }
    }
}

/// A proposal's resolution: the decision and when it was taken.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Resolution {
    /// Approved or declined.
    pub decision: Decision,
    /// When, in milliseconds since the Unix epoch.
    pub at_ms: u64,
}

impl Resolution {
    /// When, as `YYYY-MM-DDTHH:MM:SSZ`.
    pub fn time(&self) -> String {
        utc(self.at_ms)
    }
}

impl fmt::Display for Resolution {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{} at {}", self.decision.as_str(), self.time())
    }
}

/// `ms` since the epoch as `YYYY-MM-DDTHH:MM:SSZ` (proleptic Gregorian calendar).
fn utc(ms: u64) -> String {
    let seconds = ms / 1000;
    let (days, rest) = ((seconds / 86_400) as i64, seconds % 86_400);
    // Days to a civil date (Howard Hinnant's algorithm).
    let z = days + 719_468;
    let era = z.div_euclid(146_097);
    let doe = z.rem_euclid(146_097);
    let yoe = (doe - doe / 1460 + doe / 36_524 - doe / 146_096) / 365;
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    let mp = (5 * doy + 2) / 153;
    let day = doy - (153 * mp + 2) / 5 + 1;
    let month = if mp < 10 { mp + 3 } else { mp - 9 };
    let year = yoe + era * 400 + i64::from(month <= 2);
    format!(
        "{year:04}-{month:02}-{day:02}T{:02}:{:02}:{:02}Z",
        rest / 3600,
        rest % 3600 / 60,
        rest % 60
    )
}

/// The record that an approved proposal's call was let happen (run, or handed to the
/// host): written by the store when it resolves the proposal as approved, in the same
/// atomic step, keyed by the proposal's id, and never removed. A proposal with an effect
/// on record is never approved, declined or run again, whatever its resolution says.
///
/// A declined proposal has none: its decline is on record in the journal as an entry that
/// never started ([`Ending::Declined`]), which is no effect.
///
/// It says when the effect started. It is the start of the call's entry in the effect
/// journal ([`Journal`]): the same record, keyed by the proposal's id, which the store
/// fills in with the call's id, tool, tier and action key from the proposal, and which
/// `apply` ends with the call's outcome ([`JournalEntry`] is the whole record).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[non_exhaustive]
pub struct Effect {
    /// When the approved call was let run, in milliseconds since the Unix epoch.
    pub started_at_ms: u64,
}

impl Effect {
    /// An effect that started at `started_at_ms` (ms since the Unix epoch): what a store
    /// reads back from its record.
    pub fn started_at(started_at_ms: u64) -> Self {
        Effect { started_at_ms }
    }

    /// When it started, as `YYYY-MM-DDTHH:MM:SSZ`.
    pub fn time(&self) -> String {
        utc(self.started_at_ms)
    }
}

/// A stored proposal, its resolution and its effect, if it has them.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Stored {
    /// The proposal as stored (to be checked again before it is trusted).
    pub proposal: Proposal,
    /// `None` while it waits.
    pub resolution: Option<Resolution>,
    /// The record that its approved call was let run; `None` until it is approved.
    pub effect: Option<Effect>,
}

/// What [`ProposalStore::resolve`] did.
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub enum ResolveOutcome {
    /// This call resolved the proposal (and, approving it, recorded its [`Effect`]).
    Resolved,
    /// It was already resolved (approved or declined); nothing changed.
    AlreadyResolved(Resolution),
    /// Its effect is on record, though it was not resolved (its resolution was reset):
    /// nothing changed, and it never runs again.
    EffectRecorded(Effect),
}

/// A store that failed (I/O, a locked or corrupt database).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct StoreError {
    message: String,
}

impl StoreError {
    /// An error with a message saying what failed and what to check.
    pub fn new(message: impl fmt::Display) -> Self {
        StoreError {
            message: message.to_string(),
        }
    }
}

impl fmt::Display for StoreError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "the proposal store failed: {}", self.message)
    }
}

impl std::error::Error for StoreError {}

/// Where proposals wait, resolving each exactly once.
///
/// The methods are short blocking calls (an embedded database, a lock, a round trip to a
/// database server); callable from async code as they are (they never start a runtime of
/// their own on the caller's thread), or from `spawn_blocking` where the caller must not
/// block its worker thread.
pub trait ProposalStore {
    /// Keeps `proposal`, pending. Inserting an id twice is an error.
    fn insert(&self, proposal: &Proposal) -> Result<(), StoreError>;

    /// The proposal `id` with its resolution and its effect, if the store has it.
    fn get(&self, id: &ProposalId) -> Result<Option<Stored>, StoreError>;

    /// Resolves the pending proposal `id`, atomically, and when `resolution` approves it,
    /// records its [`Effect`] (started at `resolution.at_ms`) in the same atomic step.
    ///
    /// [`Resolved`](ResolveOutcome::Resolved) when this call resolved it;
    /// [`AlreadyResolved`](ResolveOutcome::AlreadyResolved) when it was resolved before;
    /// [`EffectRecorded`](ResolveOutcome::EffectRecorded) when its effect is on record
    /// though it was not resolved (someone reset its resolution): nothing changes in
    /// either case. Of any number of concurrent calls, in any number of processes, exactly
    /// one gets `Resolved`, and once an effect is recorded for an id none ever does again:
    /// keep effects where rewriting a proposal's row does not remove them (their own
    /// table, keyed by the id).
    fn resolve(
        &self,
        id: &ProposalId,
        resolution: &Resolution,
    ) -> Result<ResolveOutcome, StoreError>;

    /// Declines the pending proposal `id` at `at_ms` as [`resolve`](Self::resolve) does,
    /// and records the decline in the effect journal in the same atomic step: an entry
    /// keyed by the id that never started ([`Ending::Declined`]), ended at `at_ms` with
    /// `answer` (what the model reads), waiting in [`Journal::undelivered`] until it is marked
    /// delivered. So a run resumed in another process finds the answer, once
    /// ([`Run::collect`](crate::Run::collect)).
    ///
    /// The three stores of this crate record it. The provided method only resolves: a
    /// store of a host's own keeps compiling, and a run then finds its declines by the
    /// proposal's resolution, without the human's reason, and cannot mark them delivered.
    fn decline(
        &self,
        id: &ProposalId,
        at_ms: u64,
        answer: &ToolOutput,
    ) -> Result<ResolveOutcome, StoreError> {
        let _ = answer;
        self.resolve(
            id,
            &Resolution {
                decision: Decision::Declined,
                at_ms,
            },
        )
    }

    /// The effect journal kept over the same records, when the store keeps one (the three
    /// stores of this crate do): code that holds only a proposal store (the MCP server's
    /// approvals by `input_required`) marks through it what it delivered itself. `None`
    /// by default.
    fn as_journal(&self) -> Option<&dyn Journal> {
        None
    }
}

/// A store shared by its owners (an MCP server's clones, replicas in one process): each
/// call goes to the one store.
impl<P: ProposalStore + ?Sized> ProposalStore for std::sync::Arc<P> {
    fn insert(&self, proposal: &Proposal) -> Result<(), StoreError> {
        (**self).insert(proposal)
    }

    fn get(&self, id: &ProposalId) -> Result<Option<Stored>, StoreError> {
        (**self).get(id)
    }

    fn resolve(
        &self,
        id: &ProposalId,
        resolution: &Resolution,
    ) -> Result<ResolveOutcome, StoreError> {
        (**self).resolve(id, resolution)
    }

    fn decline(
        &self,
        id: &ProposalId,
        at_ms: u64,
        answer: &ToolOutput,
    ) -> Result<ResolveOutcome, StoreError> {
        (**self).decline(id, at_ms, answer)
    }

    fn as_journal(&self) -> Option<&dyn Journal> {
        (**self).as_journal()
    }
}

/// A store borrowed: [`Approvals`](crate::Approvals) over `&store`, where the host keeps
/// the store itself (to hand it to `apply` as its journal too).
impl<P: ProposalStore + ?Sized> ProposalStore for &P {
    fn insert(&self, proposal: &Proposal) -> Result<(), StoreError> {
        (**self).insert(proposal)
    }

    fn get(&self, id: &ProposalId) -> Result<Option<Stored>, StoreError> {
        (**self).get(id)
    }

    fn resolve(
        &self,
        id: &ProposalId,
        resolution: &Resolution,
    ) -> Result<ResolveOutcome, StoreError> {
        (**self).resolve(id, resolution)
    }

    fn decline(
        &self,
        id: &ProposalId,
        at_ms: u64,
        answer: &ToolOutput,
    ) -> Result<ResolveOutcome, StoreError> {
        (**self).decline(id, at_ms, answer)
    }

    fn as_journal(&self) -> Option<&dyn Journal> {
        (**self).as_journal()
    }
}

#[cfg(test)]
mod tests {
    use super::utc;

    #[test]
    fn times_print_as_utc() {
        assert_eq!(utc(0), "1970-01-01T00:00:00Z");
        assert_eq!(utc(1_796_119_800_000), "2026-12-01T10:10:00Z");
        assert_eq!(utc(951_782_400_000), "2000-02-29T00:00:00Z");
    }
}
