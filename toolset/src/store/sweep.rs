//! [`sweep`]: ends the expired proposals of a [`Store`] and frees what they held. (The
//! proposals' types, [`Stored`](super::Stored), [`Resolution`](super::Resolution) and the
//! limits, are in `mod.rs`, shared by the whole module.)

use super::{Decision, ResolveOutcome, Store, StoreError};
use crate::messages;
use crate::output::ToolOutput;

/// Ends every proposal of `store` expired at `now_ms` and frees what it held: a pending one
/// is declined with the expiry as the model's answer ([`Store::decline`], so a run
/// waiting on it gathers that answer once), then every expired declined one is removed
/// ([`Store::forget`]) where the journal keeps its decline's answer. An approval racing the
/// sweep either won (the call is the approver's, left alone) or is refused. Returns how
/// many proposals were removed.
///
/// [`Approvals::submit`](crate::Approvals::submit) sweeps before it counts a new proposal
/// against the limits; a host may also sweep on a timer.
pub fn sweep<S: Store + ?Sized>(store: &S, now_ms: u64) -> Result<usize, StoreError> {
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
        // finds its answer there (a store whose decline records none keeps its rows).
        let answer_kept = store
            .entry(id.as_str())?
            .is_some_and(|entry| entry.is_declined());
        if declined && answer_kept && store.forget(&id)? {
            removed += 1;
        }
    }
    Ok(removed)
}
