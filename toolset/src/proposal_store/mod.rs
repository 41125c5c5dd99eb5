//! Where proposals wait for a human, and the rule that each is resolved exactly once.
//!
//! A [`ProposalStore`] keeps proposals and resolves each one (approved or declined)
//! atomically, once, even with concurrent resolvers in several processes: the resolver
//! that wins runs the call, every other is told "already approved at …". Approving
//! records the proposal's [`Effect`] in the same atomic step, and a store never resolves
//! a proposal whose effect is on record again, so a resolution reset to pending (someone
//! writing the database) cannot replay an approval. The crate ships
//! [`MemoryStore`] (one process) and, with the `sqlite` feature, [`SqliteStore`] (a real
//! database file in WAL mode, shared by processes on one machine); a shared database for
//! hosts with many replicas (PostgreSQL, say) implements the same trait with an
//! `UPDATE … WHERE resolution IS NULL` of its own.
//!
//! [`Approvals`] is what a host holds: a store, an optional [`SealKey`] and an optional
//! expiry.

mod memory;
#[cfg(feature = "sqlite")]
mod sqlite;

pub use memory::MemoryStore;
#[cfg(feature = "sqlite")]
pub use sqlite::SqliteStore;

use crate::proposal::now_ms;
use crate::{Proposal, ProposalId, SealKey, ToolResult};
use serde::{Deserialize, Serialize};
use std::fmt;
use std::time::Duration;

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
/// It says when the effect started; an effect journal (when the call ended, and how)
/// grows from it.
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
/// The methods are short blocking calls (an embedded database, a lock); a store backed by
/// a remote database should keep them short too, or be called from `spawn_blocking`.
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
}

/// What a host holds for human approval: a store, an optional seal key, an optional
/// expiry. Submit each proposal of a plan here; approve with `Set::approve(&approvals,
/// &approval, &policy)`, decline with [`Approvals::decline`].
#[derive(Debug)]
pub struct Approvals<S: ProposalStore> {
    store: S,
    key: Option<SealKey>,
    lifetime: Option<Duration>,
}

impl<S: ProposalStore> Approvals<S> {
    /// Approvals kept in `store`, unsealed, never expiring.
    pub fn new(store: S) -> Self {
        Approvals {
            store,
            key: None,
            lifetime: None,
        }
    }

    /// Seals every submitted proposal with `key` and refuses, at approval, any proposal
    /// that is not sealed with it: for stores others can write (see [`SealKey`]).
    pub fn sealed_with(mut self, key: SealKey) -> Self {
        self.key = Some(key);
        self
    }

    /// Proposals submitted from now on can be approved for `lifetime` after they were
    /// made, and are refused as expired afterwards.
    pub fn expiring_after(mut self, lifetime: Duration) -> Self {
        self.lifetime = Some(lifetime);
        self
    }

    /// The store.
    pub fn store(&self) -> &S {
        &self.store
    }

    /// Stores `proposal` (with its expiry and seal) to wait for a human; returns its id.
    pub fn submit(&self, proposal: &Proposal) -> Result<ProposalId, StoreError> {
        let mut proposal = proposal.clone();
        proposal.expires_ms = self.lifetime.map(|lifetime| {
            let lifetime = u64::try_from(lifetime.as_millis()).unwrap_or(u64::MAX);
            proposal.created_ms.saturating_add(lifetime)
        });
        proposal.seal = self.key.as_ref().map(|key| {
            key.seal(
                proposal.id.as_str(),
                &proposal.digest(),
                proposal.created_ms,
                proposal.expires_ms,
            )
        });
        self.store.insert(&proposal)?;
        Ok(proposal.id)
    }

    /// The proposal `id`, checked (seal, expiry, pending) as approval would, to show the
    /// human. Show its [`preview`](Proposal::preview), computed from the arguments.
    pub fn pending(&self, id: &ProposalId) -> Result<Proposal, crate::ApprovalError> {
        let stored = self.checked(id)?;
        match stored.resolution {
            Some(resolution) => Err(crate::ApprovalError::AlreadyResolved(resolution)),
            None => Ok(stored.proposal),
        }
    }

    /// Declines the proposal `id`, once; returns the result to send the model under the
    /// call's id (or as a follow-up). A proposal already resolved answers
    /// [`AlreadyResolved`](crate::ApprovalError::AlreadyResolved).
    pub fn decline(
        &self,
        id: &ProposalId,
        reason: &str,
    ) -> Result<ToolResult, crate::ApprovalError> {
        let proposal = self.pending(id)?;
        self.resolve(id, Decision::Declined)?;
        Ok(proposal.declined_result(reason))
    }

    /// The stored proposal, its seal checked when a key is set, its expiry, and that its
    /// effect is not on record while it says it waits.
    pub(crate) fn checked(&self, id: &ProposalId) -> Result<Stored, crate::ApprovalError> {
        use crate::ApprovalError;
        let stored = self
            .store
            .get(id)
            .map_err(ApprovalError::Store)?
            .ok_or_else(|| ApprovalError::UnknownProposal(id.clone()))?;
        let proposal = &stored.proposal;
        if proposal.id != *id {
            return Err(ApprovalError::Forged);
        }
        if let Some(key) = &self.key {
            let Some(seal) = proposal.seal.as_deref() else {
                return Err(ApprovalError::Forged);
            };
            if !key.verifies(
                seal,
                proposal.id.as_str(),
                &proposal.digest(),
                proposal.created_ms,
                proposal.expires_ms,
            ) {
                return Err(ApprovalError::Altered);
            }
        }
        if stored.resolution.is_none()
            && let Some(effect) = &stored.effect
        {
            return Err(ApprovalError::AlreadyRan(effect.clone()));
        }
        if stored.resolution.is_none()
            && let Some(expires_ms) = proposal.expires_ms
            && now_ms() >= expires_ms
        {
            return Err(ApprovalError::Expired { at_ms: expires_ms });
        }
        Ok(stored)
    }

    /// Resolves `id` as `decision`, once.
    pub(crate) fn resolve(
        &self,
        id: &ProposalId,
        decision: Decision,
    ) -> Result<(), crate::ApprovalError> {
        let resolution = Resolution {
            decision,
            at_ms: now_ms(),
        };
        match self
            .store
            .resolve(id, &resolution)
            .map_err(crate::ApprovalError::Store)?
        {
            ResolveOutcome::Resolved => Ok(()),
            ResolveOutcome::AlreadyResolved(earlier) => {
                Err(crate::ApprovalError::AlreadyResolved(earlier))
            }
            ResolveOutcome::EffectRecorded(effect) => Err(crate::ApprovalError::AlreadyRan(effect)),
        }
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
