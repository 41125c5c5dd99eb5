//! Where a conversation's records are kept: its proposals, each resolved exactly once, the
//! effect journal of its calls, its saved runs and the pins of its proxied tools, all
//! behind one trait, [`Store`], that a store implements once.
//!
//! A store keeps proposals and resolves each one (approved or declined) atomically, once,
//! even with concurrent resolvers in several processes: the resolver that wins runs the
//! call, every other is told "already approved at …". Approving records the proposal's
//! [`Effect`] in the same atomic step, and a store never resolves a proposal whose effect
//! is on record again, so a resolution reset to pending (someone writing the database)
//! cannot replay an approval. The crate ships [`MemoryStore`] (one process, and the
//! reference the others are tested against); with the `sqlite` feature, `SqliteStore` (a
//! real database file in WAL mode, shared by processes on one machine); and with the
//! `postgres` feature, `PostgresStore` (one PostgreSQL database shared by every replica of
//! a host: `PostgresStore::connect("postgres://user@host/database")`, the row locked with
//! `SELECT … FOR UPDATE` while it is resolved, the tables created and migrated by the
//! store itself). Another database implements the same trait with an `UPDATE … WHERE
//! decision IS NULL` and the effect's `INSERT` in one transaction of its own.
//!
//! [`Approvals`](crate::Approvals) (in `approval.rs`) is what a host holds: a store, an
//! optional seal key and an optional expiry, where proposals are approved and declined.
//!
//! The same store keeps the effect journal (`journal.rs`) and saved runs (`runs.rs`, for
//! [`Runs`](crate::run::Runs)): one database holds a conversation's proposals, the calls
//! they became and the run waiting on them. It keeps the pins of proxied tools too
//! (`pins.rs`, for `toolbox::McpTools` with the feature `mcp-client`): the definitions of
//! another server's tools the host accepted.

mod journal;
mod memory;
mod pins;
#[cfg(feature = "postgres")]
mod postgres;
#[cfg(any(feature = "sqlite", feature = "postgres"))]
mod row;
mod runs;
#[cfg(any(feature = "sqlite", feature = "postgres"))]
mod sql;
#[cfg(feature = "sqlite")]
mod sqlite;
mod store_trait;
mod sweep;

pub use journal::{
    CallEnd, CallStart, EndOutcome, Ending, JournalEntry, StartOutcome, auto_key, auto_key_in,
};
pub use memory::MemoryStore;
pub use pins::Pin;
#[cfg(feature = "postgres")]
pub use postgres::PostgresStore;
pub use runs::{RunId, SaveRunOutcome, StoredRun};
#[cfg(feature = "sqlite")]
pub use sqlite::SqliteStore;
pub use store_trait::Store;
pub use sweep::sweep;

use crate::proposal::Proposal;
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
    /// Declined at `at_ms`.
    pub(crate) fn declined(at_ms: u64) -> Resolution {
        Resolution {
            decision: Decision::Declined,
            at_ms,
        }
    }

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
/// journal ([`Store::start`]): the same record, keyed by the proposal's id, which the store
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

/// What [`Store::resolve`] did.
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

/// A number of proposals and the bytes they take (each proposal as its stored JSON): what
/// waits in a store ([`Usage`]), or the most that may ([`ProposalLimits`]).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Tally {
    /// How many proposals.
    pub proposals: u64,
    /// Their bytes, as stored.
    pub bytes: u64,
}

impl Tally {
    /// `proposals` proposals of `bytes` bytes in all.
    pub const fn new(proposals: u64, bytes: u64) -> Self {
        Tally { proposals, bytes }
    }
}

/// What a store holds that counts against its limits: the proposals that wait for a human
/// and the declined ones not yet expired, whose rows the store still keeps (an approved
/// proposal is a record of what ran, never counted or removed). Expired ones are not
/// counted: [`sweep`] removes them.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Usage {
    /// Of the owner asked about ([`Proposal::owner`]).
    pub owner: Tally,
    /// Of every owner.
    pub overall: Tally,
}

/// The most a store may hold for one owner and for everyone ([`Approvals::limited_to`](crate::Approvals::limited_to)):
/// counted over the proposals that wait for a human and the declined ones not yet expired
/// ([`Usage`]), each as many bytes as its stored JSON. A proposal
/// beyond either is refused with [`StoreError::is_full`], before it is stored: a client
/// that floods a server with calls that need a human fills its own share and no more.
///
/// A process counts and stores its submissions one at a time, so calls in flight together
/// cannot each pass the same count; processes sharing a database count apart, so it may
/// go over by one proposal per other process submitting at that moment.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct ProposalLimits {
    /// One owner's share ([`Proposal::owner`]): a run, an MCP session or client.
    pub per_owner: Tally,
    /// Everyone's together.
    pub overall: Tally,
}

impl Default for ProposalLimits {
    /// 1,000 proposals and 16 MiB per owner; 10,000 proposals and 256 MiB in all.
    fn default() -> Self {
        ProposalLimits {
            per_owner: Tally::new(1_000, 16 << 20),
            overall: Tally::new(10_000, 256 << 20),
        }
    }
}

impl ProposalLimits {
    /// Why `usage` has no room for `asked` more; `None` when it has.
    pub(crate) fn refusal(&self, owner: &str, usage: Usage, asked: Tally) -> Option<String> {
        let over = |held: Tally, limit: Tally| {
            held.proposals.saturating_add(asked.proposals) > limit.proposals
                || held.bytes.saturating_add(asked.bytes) > limit.bytes
        };
        let whose = if owner.is_empty() {
            "the host's own".to_owned()
        } else {
            format!("those of {owner}")
        };
        let (held, limit, scope) = if over(usage.owner, self.per_owner) {
            (usage.owner, self.per_owner, whose)
        } else if over(usage.overall, self.overall) {
            (
                usage.overall,
                self.overall,
                "all owners' together".to_owned(),
            )
        } else {
            return None;
        };
        Some(format!(
            "{} proposals of {} bytes wait for a human or were declined recently, {scope}, \
             and the limit is {} proposals of {} bytes: {} more of {} bytes are refused \
             and not stored. Have the waiting ones approved or declined, or let them \
             expire (`Approvals::expiring_after`); raise the limits with \
             `Approvals::limited_to` if they are too low",
            held.proposals, held.bytes, limit.proposals, limit.bytes, asked.proposals, asked.bytes
        ))
    }
}

/// A store that failed (I/O, a locked or corrupt database), or refused a proposal because
/// it holds as many as it may ([`is_full`](Self::is_full)).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct StoreError {
    message: String,
    full: bool,
}

impl StoreError {
    /// An error with a message saying what failed and what to check.
    pub fn new(message: impl fmt::Display) -> Self {
        StoreError {
            message: message.to_string(),
            full: false,
        }
    }

    /// A proposal refused because the store holds as many as its limits allow, the message
    /// saying which limit and what to do.
    pub(crate) fn full(message: impl fmt::Display) -> Self {
        StoreError {
            message: message.to_string(),
            full: true,
        }
    }

    /// Whether the store refused a proposal for its limits
    /// ([`ProposalLimits`]) rather than failing: nothing is wrong
    /// with the store; the proposals waiting must be decided, or expire, first.
    pub fn is_full(&self) -> bool {
        self.full
    }
}

impl fmt::Display for StoreError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if self.full {
            write!(f, "the proposal store is full: {}", self.message)
        } else {
            write!(f, "the proposal store failed: {}", self.message)
        }
    }
}

impl std::error::Error for StoreError {}

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
