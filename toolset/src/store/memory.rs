//! The in-memory proposal store: one process, gone when it exits.

use super::{Decision, Effect, ProposalStore, Resolution, ResolveOutcome, StoreError, Stored};
use crate::{Proposal, ProposalId};
use std::collections::HashMap;
use std::sync::Mutex;

/// Proposals kept in memory, resolved once under a lock. For tests and for hosts whose
/// proposals need not outlive the process.
#[derive(Debug, Default)]
pub struct MemoryStore {
    inner: Mutex<Inner>,
}

/// The proposals, and apart from them the effects on record (never removed), as a
/// database keeps them in a table of their own.
#[derive(Debug, Default)]
struct Inner {
    proposals: HashMap<ProposalId, Stored>,
    effects: HashMap<ProposalId, Effect>,
}

impl MemoryStore {
    /// An empty store.
    pub fn new() -> Self {
        MemoryStore::default()
    }

    fn locked(&self) -> Result<std::sync::MutexGuard<'_, Inner>, StoreError> {
        self.inner
            .lock()
            .map_err(|_| StoreError::new("a thread panicked while holding the store's lock"))
    }
}

impl ProposalStore for MemoryStore {
    fn insert(&self, proposal: &Proposal) -> Result<(), StoreError> {
        let mut inner = self.locked()?;
        if inner.proposals.contains_key(proposal.id()) {
            return Err(StoreError::new(format!(
                "the proposal {} is already stored",
                proposal.id()
            )));
        }
        inner.proposals.insert(
            proposal.id().clone(),
            Stored {
                proposal: proposal.clone(),
                resolution: None,
                effect: None,
            },
        );
        Ok(())
    }

    fn get(&self, id: &ProposalId) -> Result<Option<Stored>, StoreError> {
        let inner = self.locked()?;
        Ok(inner.proposals.get(id).map(|stored| Stored {
            effect: inner.effects.get(id).cloned(),
            ..stored.clone()
        }))
    }

    fn resolve(
        &self,
        id: &ProposalId,
        resolution: &Resolution,
    ) -> Result<ResolveOutcome, StoreError> {
        let mut inner = self.locked()?;
        let Inner { proposals, effects } = &mut *inner;
        let stored = proposals
            .get_mut(id)
            .ok_or_else(|| StoreError::new(format!("no proposal {id} is stored")))?;
        if let Some(earlier) = &stored.resolution {
            return Ok(ResolveOutcome::AlreadyResolved(earlier.clone()));
        }
        if let Some(effect) = effects.get(id) {
            return Ok(ResolveOutcome::EffectRecorded(effect.clone()));
        }
        stored.resolution = Some(resolution.clone());
        if resolution.decision == Decision::Approved {
            effects.insert(id.clone(), Effect::started_at(resolution.at_ms));
        }
        Ok(ResolveOutcome::Resolved)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::{Tier, ToolCall};

    fn proposal() -> Proposal {
        Proposal {
            id: ProposalId::parse("0123456789abcdef0123456789abcdef").unwrap(),
            set: "Set".to_owned(),
            set_fingerprint: "f".to_owned(),
            call: ToolCall::new("c1", "pay", "{}"),
            tier: Tier::Irreversible,
            escalation: None,
            propose_only: false,
            created_ms: 1,
            expires_ms: None,
            seal: None,
        }
    }

    fn at(decision: Decision, at_ms: u64) -> Resolution {
        Resolution { decision, at_ms }
    }

    #[test]
    fn an_approval_records_its_effect_and_a_reset_resolution_never_resolves_again() {
        let store = MemoryStore::new();
        let proposal = proposal();
        let id = proposal.id().clone();
        store.insert(&proposal).unwrap();
        assert_eq!(
            store.resolve(&id, &at(Decision::Approved, 5)).unwrap(),
            ResolveOutcome::Resolved
        );
        assert_eq!(
            store.get(&id).unwrap().unwrap().effect,
            Some(Effect::started_at(5))
        );
        // Someone with the lock sets the resolution back to pending.
        store
            .locked()
            .unwrap()
            .proposals
            .get_mut(&id)
            .unwrap()
            .resolution = None;
        for decision in [Decision::Approved, Decision::Declined] {
            assert_eq!(
                store.resolve(&id, &at(decision, 9)).unwrap(),
                ResolveOutcome::EffectRecorded(Effect::started_at(5))
            );
        }
    }

    #[test]
    fn a_decline_records_no_effect() {
        let store = MemoryStore::new();
        let proposal = proposal();
        store.insert(&proposal).unwrap();
        assert_eq!(
            store
                .resolve(proposal.id(), &at(Decision::Declined, 5))
                .unwrap(),
            ResolveOutcome::Resolved
        );
        assert_eq!(store.get(proposal.id()).unwrap().unwrap().effect, None);
    }
}
