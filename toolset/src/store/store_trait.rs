//! [`Store`]: the one trait a store implements, for all a conversation keeps (its
//! proposals, the effect journal of its calls, its saved runs and the pins of proxied
//! tools), with the forwarding impls for a store borrowed (`&`) or shared (`Arc`).
//!
//! One trait, not one per kind of record: the records are kept together (a proposal's
//! approval is its call's journal entry, written in one atomic step; a decline's answer is
//! a journal entry too), so a store that kept one kind without the others could not keep
//! the promises that join them. Each kind's types live apart: the proposals' in `mod.rs`
//! (and their `sweep` in `sweep.rs`), the others in `journal.rs`, `runs.rs` and `pins.rs`.

use super::journal::{CallEnd, CallStart, EndOutcome, Ending, JournalEntry, StartOutcome};
use super::pins::Pin;
use super::runs::{RunId, SaveRunOutcome, StoredRun};
use super::{Resolution, ResolveOutcome, StoreError, Stored, Usage};
use crate::messages;
use crate::output::ToolOutput;
use crate::proposal::{Proposal, ProposalId};
use std::sync::Arc;

/// All a conversation keeps, in one store: the proposals that wait for a human, each
/// resolved exactly once; the effect journal of its calls; its saved runs; and the pins of
/// the proxied tools it accepted. Implemented by [`MemoryStore`](super::MemoryStore) (the
/// reference the others are tested against), and with their features `SqliteStore` and
/// `PostgresStore`; a store of a host's own implements it once, every method. Each
/// operation is atomic, across processes for the database stores.
///
/// Where code holds a store it may not name (the MCP server, `apply`, a proxied tool's
/// pins), it takes `&dyn Store` or `Arc<dyn Store>`: the trait is dyn-compatible.
///
/// The methods are short blocking calls (an embedded database, a lock, a round trip to a
/// database server); callable from async code as they are (they never start a runtime of
/// their own on the caller's thread), or from `spawn_blocking` where the caller must not
/// block its worker thread.
pub trait Store: Send + Sync {
    // Proposals: where they wait for a human, each resolved exactly once (`mod.rs`).

    /// Keeps `proposal`, pending. Inserting an id twice is an error.
    fn insert(&self, proposal: &Proposal) -> Result<(), StoreError>;

    /// The proposal `id` with its resolution and its effect, if the store has it.
    fn get(&self, id: &ProposalId) -> Result<Option<Stored>, StoreError>;

    /// Resolves the pending proposal `id`, atomically, and when `resolution` approves it,
    /// records its [`Effect`](super::Effect) (started at `resolution.at_ms`) in the same
    /// atomic step: the start of its call's journal entry, keyed by `id`.
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
    /// and records the decline in the journal in the same atomic step: an entry keyed by
    /// the id that never started ([`Ending::Declined`]), ended at `at_ms` with `answer`
    /// (what the model reads), waiting in [`undelivered`](Self::undelivered) until it is
    /// marked delivered. So a run resumed in another process finds the answer, once
    /// ([`Run::collect`](crate::run::Run::collect)).
    fn decline(
        &self,
        id: &ProposalId,
        at_ms: u64,
        answer: &ToolOutput,
    ) -> Result<ResolveOutcome, StoreError>;

    /// What counts against the limits at `now_ms` ([`Usage`]): the proposals of `owner`
    /// ([`Proposal::owner`]) and of everyone that wait unexpired, or were declined and
    /// have not expired yet, with their bytes as stored.
    fn usage(&self, owner: &str, now_ms: u64) -> Result<Usage, StoreError>;

    /// The proposals expired at `now_ms` that are pending or declined (never an approved
    /// one): what [`sweep`](super::sweep) ends and removes.
    fn expired(&self, now_ms: u64) -> Result<Vec<ProposalId>, StoreError>;

    /// Removes the declined proposal `id` and the arguments kept with its decline in the
    /// journal (its entry stays, with the call's id, tool and the answer the model reads):
    /// what a decline held is freed. `false`, changing nothing, when `id` is not stored or
    /// not declined. Called by [`sweep`](super::sweep) once a declined proposal has
    /// expired, so approving or declining it again is answered "unknown", as an expired one
    /// would be refused.
    fn forget(&self, id: &ProposalId) -> Result<bool, StoreError>;

    /// The ids of the proposals that wait for a human (not resolved; expired ones
    /// included until [`sweep`](super::sweep) ends them), in no particular order: what a
    /// review screen lists ([`Approvals::waiting`](crate::Approvals::waiting) reads and
    /// checks each).
    fn waiting(&self) -> Result<Vec<ProposalId>, StoreError>;

    // The effect journal: each call that is not read-only, its start, its end and whether
    // its result was delivered (`journal.rs`).

    /// Records the start of a call without a proposal. [`StartOutcome::Started`] when its
    /// key is new, or was handed back for a re-run ([`rerun`](Self::rerun): the attempt
    /// count grows and the end is cleared); otherwise
    /// [`StartOutcome::AlreadyStarted`], and nothing changes.
    fn start(&self, start: &CallStart) -> Result<StartOutcome, StoreError>;

    /// Records how the call `key` ended, unless it ended already.
    fn end(&self, key: &str, end: &CallEnd) -> Result<EndOutcome, StoreError>;

    /// The journal entry `key`, if the store has it.
    fn entry(&self, key: &str) -> Result<Option<JournalEntry>, StoreError>;

    /// Every entry started and never ended, oldest first.
    fn in_doubt(&self) -> Result<Vec<JournalEntry>, StoreError>;

    /// Hands the in-doubt call `key` back for one more run, if it is still in doubt at
    /// `attempts` (what the host saw): `true` when this call did it (of concurrent
    /// callers, one). The next [`start`](Self::start) of the key then runs it. Prefer
    /// [`Approvals::rerun`](crate::Approvals::rerun), which checks the call again first.
    fn rerun(&self, key: &str, attempts: u32) -> Result<bool, StoreError>;

    /// Every ended entry whose result is not marked delivered, oldest end first.
    fn undelivered(&self) -> Result<Vec<JournalEntry>, StoreError>;

    /// Marks the result of the ended call `key` delivered: `true` the first time, `false`
    /// when it was marked before (or has not ended): a result is delivered once.
    fn mark_delivered(&self, key: &str, at_ms: u64) -> Result<bool, StoreError>;

    /// Ends the in-doubt call `key` as done: the host found its effect happened. The model
    /// will read that it ran and its result was lost.
    fn mark_done(&self, key: &str, at_ms: u64) -> Result<EndOutcome, StoreError> {
        let output = ToolOutput::text(messages::MARKED_DONE);
        self.end(key, &CallEnd::with_output(Ending::Done, &output, at_ms))
    }

    /// Ends the in-doubt call `key` as failed: the host found its effect did not happen.
    /// The model will read that it did not complete.
    fn mark_failed(&self, key: &str, at_ms: u64) -> Result<EndOutcome, StoreError> {
        let output = ToolOutput::error(messages::MARKED_FAILED);
        self.end(key, &CallEnd::with_output(Ending::Failed, &output, at_ms))
    }

    // Saved runs: each written only over the generation its writer loaded (`runs.rs`).

    /// The newest copy of the run `id`, if the store has one.
    fn load_run(&self, id: &RunId) -> Result<Option<StoredRun>, StoreError>;

    /// Stores `run` in place of the copy at generation `expected` (`None`: the store must
    /// have no copy of the run yet), atomically: [`SaveRunOutcome::Saved`] when the stored
    /// generation was `expected`, [`SaveRunOutcome::Conflict`] otherwise, and nothing
    /// changes. Of concurrent writes expecting one generation, exactly one is saved.
    ///
    /// A write whose generation is not above the run's mark
    /// ([`newest_generation`](Self::newest_generation)) is a conflict too, whatever the
    /// row holds; a saved write raises the mark to its generation in the same transaction.
    fn save_run(
        &self,
        run: &StoredRun,
        expected: Option<u64>,
    ) -> Result<SaveRunOutcome, StoreError>;

    /// The run `id`'s mark: the highest generation this store ever saved of it (`None`:
    /// never saved). Kept apart from the run's row, so that a row written back whole
    /// cannot lower it: [`Runs`](crate::run::Runs) reads it before the row and refuses a row
    /// below it ([`RunError::RolledBack`](crate::run::RunError::RolledBack)), and a row
    /// without a mark. A store of a host's own must keep it where whoever can write the
    /// rows cannot put an old mark back with an old row.
    fn newest_generation(&self, id: &RunId) -> Result<Option<u64>, StoreError>;

    // Pins: the accepted definitions of proxied tools, each written only over the
    // fingerprint its writer read (`pins.rs`).

    /// Every pin of the source `source`, in no particular order.
    fn pins(&self, source: &str) -> Result<Vec<Pin>, StoreError>;

    /// Stores `pin` for the tool `pin.tool` of `source`, atomically, if the tool's pin is
    /// `replacing` now: `None`, the tool must have no pin yet; `Some(fingerprint)`, its
    /// pin must have that fingerprint. `true` when it was stored; `false` when the stored
    /// pin is another (someone else pinned or accepted first), and nothing changed.
    fn pin(&self, source: &str, pin: &Pin, replacing: Option<&str>) -> Result<bool, StoreError>;
}

/// Every method of [`Store`] sent on to the store `**self`: the body of the two forwarding
/// impls below, written once. (The provided `mark_done` and `mark_failed` are forwarded
/// too, in case the store overrides them.)
macro_rules! forward {
    () => {
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
        fn start(&self, start: &CallStart) -> Result<StartOutcome, StoreError> {
            (**self).start(start)
        }
        fn end(&self, key: &str, end: &CallEnd) -> Result<EndOutcome, StoreError> {
            (**self).end(key, end)
        }
        fn entry(&self, key: &str) -> Result<Option<JournalEntry>, StoreError> {
            (**self).entry(key)
        }
        fn in_doubt(&self) -> Result<Vec<JournalEntry>, StoreError> {
            (**self).in_doubt()
        }
        fn rerun(&self, key: &str, attempts: u32) -> Result<bool, StoreError> {
            (**self).rerun(key, attempts)
        }
        fn undelivered(&self) -> Result<Vec<JournalEntry>, StoreError> {
            (**self).undelivered()
        }
        fn mark_delivered(&self, key: &str, at_ms: u64) -> Result<bool, StoreError> {
            (**self).mark_delivered(key, at_ms)
        }
        fn mark_done(&self, key: &str, at_ms: u64) -> Result<EndOutcome, StoreError> {
            (**self).mark_done(key, at_ms)
        }
        fn mark_failed(&self, key: &str, at_ms: u64) -> Result<EndOutcome, StoreError> {
            (**self).mark_failed(key, at_ms)
        }
        fn load_run(&self, id: &RunId) -> Result<Option<StoredRun>, StoreError> {
            (**self).load_run(id)
        }
        fn save_run(
            &self,
            run: &StoredRun,
            expected: Option<u64>,
        ) -> Result<SaveRunOutcome, StoreError> {
            (**self).save_run(run, expected)
        }
        fn newest_generation(&self, id: &RunId) -> Result<Option<u64>, StoreError> {
            (**self).newest_generation(id)
        }
        fn pins(&self, source: &str) -> Result<Vec<Pin>, StoreError> {
            (**self).pins(source)
        }
        fn pin(
            &self,
            source: &str,
            pin: &Pin,
            replacing: Option<&str>,
        ) -> Result<bool, StoreError> {
            (**self).pin(source, pin, replacing)
        }
    };
}

/// A store borrowed: [`Approvals`](crate::Approvals) or a [`Driver`](crate::Driver) over
/// `&store`, where the host keeps the store itself.
impl<S: Store + ?Sized> Store for &S {
    forward!();
}

/// A store shared by its owners (an MCP server's clones, replicas in one process): each
/// call goes to the one store.
impl<S: Store + ?Sized> Store for Arc<S> {
    forward!();
}
