//! The in-memory proposal store: one process, gone when it exits.

use super::{ProposalStore, Resolution, StoreError, Stored};
use crate::{Proposal, ProposalId};
use std::collections::HashMap;
use std::sync::Mutex;

/// Proposals kept in memory, resolved once under a lock. For tests and for hosts whose
/// proposals need not outlive the process.
#[derive(Debug, Default)]
pub struct MemoryStore {
    proposals: Mutex<HashMap<ProposalId, Stored>>,
}

impl MemoryStore {
    /// An empty store.
    pub fn new() -> Self {
        MemoryStore::default()
    }

    fn locked(&self) -> Result<std::sync::MutexGuard<'_, HashMap<ProposalId, Stored>>, StoreError> {
        self.proposals
            .lock()
            .map_err(|_| StoreError::new("a thread panicked while holding the store's lock"))
    }
}

impl ProposalStore for MemoryStore {
    fn insert(&self, proposal: &Proposal) -> Result<(), StoreError> {
        let mut proposals = self.locked()?;
        if proposals.contains_key(proposal.id()) {
            return Err(StoreError::new(format!(
                "the proposal {} is already stored",
                proposal.id()
            )));
        }
        proposals.insert(
            proposal.id().clone(),
            Stored {
                proposal: proposal.clone(),
                resolution: None,
            },
        );
        Ok(())
    }

    fn get(&self, id: &ProposalId) -> Result<Option<Stored>, StoreError> {
        Ok(self.locked()?.get(id).cloned())
    }

    fn resolve(
        &self,
        id: &ProposalId,
        resolution: &Resolution,
    ) -> Result<Option<Resolution>, StoreError> {
        let mut proposals = self.locked()?;
        let stored = proposals
            .get_mut(id)
            .ok_or_else(|| StoreError::new(format!("no proposal {id} is stored")))?;
        match &stored.resolution {
            Some(earlier) => Ok(Some(earlier.clone())),
            None => {
                stored.resolution = Some(resolution.clone());
                Ok(None)
            }
        }
    }
}
