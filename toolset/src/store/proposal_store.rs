//! [`ProposalStore`]: where proposals wait, resolving each exactly once, with the forwarding
//! impls for a store shared (`Arc`) or borrowed (`&`), and [`sweep`], which ends the
//! expired ones and frees what they held.

use super::{Decision, Journal, Resolution, ResolveOutcome, StoreError, Stored, Usage};
use crate::messages;
use crate::output::ToolOutput;
use crate::proposal::{Proposal, ProposalId};

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
    /// records its [`Effect`](super::Effect) (started at `resolution.at_ms`) in the same atomic step.
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
    /// keyed by the id that never started ([`Ending::Declined`](super::Ending::Declined)), ended at `at_ms` with
    /// `answer` (what the model reads), waiting in [`Journal::undelivered`] until it is marked
    /// delivered. So a run resumed in another process finds the answer, once
    /// ([`Run::collect`](crate::run::Run::collect)).
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
        self.resolve(id, &Resolution::declined(at_ms))
    }

    /// The effect journal kept over the same records, when the store keeps one (the three
    /// stores of this crate do): code that holds only a proposal store (the MCP server's
    /// approvals by `input_required`) marks through it what it delivered itself. `None`
    /// by default.
    fn as_journal(&self) -> Option<&dyn Journal> {
        None
    }

    /// What counts against the limits at `now_ms` ([`Usage`]): the proposals of `owner`
    /// ([`Proposal::owner`]) and of everyone that wait unexpired, or were declined and
    /// have not expired yet, with their bytes as stored.
    fn usage(&self, owner: &str, now_ms: u64) -> Result<Usage, StoreError>;

    /// The proposals expired at `now_ms` that are pending or declined (never an approved
    /// one): what [`sweep`] ends and removes.
    fn expired(&self, now_ms: u64) -> Result<Vec<ProposalId>, StoreError>;

    /// Removes the declined proposal `id` and the arguments kept with its decline in the
    /// journal (its entry stays, with the call's id, tool and the answer the model reads):
    /// what a decline held is freed. `false`, changing nothing, when `id` is not stored or
    /// not declined. Called by [`sweep`] once a declined proposal has expired, so approving
    /// or declining it again is answered "unknown", as an expired one would be refused.
    fn forget(&self, id: &ProposalId) -> Result<bool, StoreError>;

    /// The ids of the proposals that wait for a human (not resolved; expired ones
    /// included until [`sweep`] ends them), in no particular order: what a review screen
    /// lists ([`Approvals::waiting`](crate::Approvals::waiting) reads and checks each).
    ///
    /// The three stores of this crate list them. The provided method refuses, so a store of
    /// a host's own keeps compiling and a console over it says what is missing rather than
    /// showing an empty list.
    fn waiting(&self) -> Result<Vec<ProposalId>, StoreError> {
        Err(StoreError::new(
            "this proposal store cannot list the proposals that wait: implement ProposalStore::waiting for it",
        ))
    }
}

/// Ends every proposal of `store` expired at `now_ms` and frees what it held: a pending one
/// is declined with the expiry as the model's answer ([`ProposalStore::decline`], so a run
/// waiting on it gathers that answer once), then every expired declined one is removed
/// ([`ProposalStore::forget`]) where the journal keeps its decline's answer. An approval racing the sweep either won (the call is the
/// approver's, left alone) or is refused. Returns how many proposals were removed.
///
/// [`Approvals::submit`](crate::Approvals::submit) sweeps before it counts a new proposal
/// against the limits; a host may also sweep on a timer.
pub fn sweep<S: ProposalStore + ?Sized>(store: &S, now_ms: u64) -> Result<usize, StoreError> {
    let answer = ToolOutput::error(messages::EXPIRED);
    let mut removed = 0;
    for id in store.expired(now_ms)? {
        let declined = match store.decline(&id, now_ms, &answer)? {
            ResolveOutcome::Resolved => true,
            ResolveOutcome::AlreadyResolved(resolution) => {
                resolution.decision == Decision::Declined
            }
            ResolveOutcome::EffectRecorded(_) => false,
        };
        // Removed only where the decline's answer is kept in the journal: a run waiting on it
        // finds its answer there (a store that records no decline keeps its rows).
        let answer_kept = match store.as_journal() {
            Some(journal) => journal
                .entry(id.as_str())?
                .is_some_and(|entry| entry.is_declined()),
            None => false,
        };
        if declined && answer_kept && store.forget(&id)? {
            removed += 1;
        }
    }
    Ok(removed)
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

    fn usage(&self, owner: &str, now_ms: u64) -> Result<Usage, StoreError> {
        (**self).usage(owner, now_ms)
    }

    fn expired(&self, now_ms: u64) -> Result<Vec<ProposalId>, StoreError> {
        (**self).expired(now_ms)
    }

    fn forget(&self, id: &ProposalId) -> Result<bool, StoreError> {
        (**self).forget(id)
    }

    fn waiting(&self) -> Result<Vec<ProposalId>, StoreError> {
        (**self).waiting()
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

    fn usage(&self, owner: &str, now_ms: u64) -> Result<Usage, StoreError> {
        (**self).usage(owner, now_ms)
    }

    fn expired(&self, now_ms: u64) -> Result<Vec<ProposalId>, StoreError> {
        (**self).expired(now_ms)
    }

    fn forget(&self, id: &ProposalId) -> Result<bool, StoreError> {
        (**self).forget(id)
    }

    fn waiting(&self) -> Result<Vec<ProposalId>, StoreError> {
        (**self).waiting()
    }
}
