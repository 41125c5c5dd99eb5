//! The in-memory store: one process, gone when it exits; the reference the database
//! stores are tested against (`tests/tests/store_model.rs`).

use super::journal::{CallEnd, CallStart, EndOutcome, Ending, JournalEntry, StartOutcome};
use super::pins::Pin;
use super::runs::{RunId, SaveRunOutcome, StoredRun};
use super::{Decision, Resolution, ResolveOutcome, Store, StoreError, Stored, Tally, Usage};
use crate::call::Arguments;
use crate::output::ToolOutput;
use crate::proposal::Proposal;
use crate::proposal::ProposalId;
use std::collections::HashMap;
use std::sync::Mutex;

/// All a [`Store`] keeps, in memory, each operation under one lock. For tests and for
/// hosts whose proposals, journal, runs and pins need not outlive the process.
#[derive(Debug, Default)]
pub struct MemoryStore {
    inner: Mutex<Inner>,
}

/// The proposals, and apart from them the effects on record (never removed), as a
/// database keeps them in a table of their own: each one a journal entry, keyed by its
/// proposal's id or, for a call without a proposal, its idempotency key.
#[derive(Debug, Default)]
struct Inner {
    proposals: HashMap<ProposalId, Stored>,
    /// Each proposal's size as stored JSON, counted against the limits.
    bytes: HashMap<ProposalId, u64>,
    effects: HashMap<String, JournalEntry>,
    runs: HashMap<RunId, StoredRun>,
    /// Each run's mark: the highest generation saved, never lowered.
    run_marks: HashMap<RunId, u64>,
    /// The pins of proxied tools, by source and tool.
    pins: HashMap<(String, String), Pin>,
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

impl Store for MemoryStore {
    // Proposals.
    fn insert(&self, proposal: &Proposal) -> Result<(), StoreError> {
        let mut inner = self.locked()?;
        if inner.proposals.contains_key(proposal.id()) {
            return Err(StoreError::new(format!(
                "the proposal {} is already stored",
                proposal.id()
            )));
        }
        let bytes = serde_json::to_string(proposal)
            .map_err(|error| StoreError::new(format!("could not serialize the proposal: {error}")))?
            .len();
        inner.bytes.insert(proposal.id().clone(), bytes as u64);
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
            effect: inner
                .effects
                .get(id.as_str())
                .filter(|entry| !entry.is_declined())
                .map(JournalEntry::effect),
            ..stored.clone()
        }))
    }

    fn resolve(
        &self,
        id: &ProposalId,
        resolution: &Resolution,
    ) -> Result<ResolveOutcome, StoreError> {
        self.resolve_with(id, resolution, None)
    }

    fn decline(
        &self,
        id: &ProposalId,
        at_ms: u64,
        answer: &ToolOutput,
    ) -> Result<ResolveOutcome, StoreError> {
        let end = CallEnd::with_output(Ending::Declined, answer, at_ms);
        self.resolve_with(id, &Resolution::declined(at_ms), Some(&end))
    }

    fn waiting(&self) -> Result<Vec<ProposalId>, StoreError> {
        let inner = self.locked()?;
        Ok(inner
            .proposals
            .values()
            .filter(|stored| stored.resolution.is_none())
            .map(|stored| stored.proposal.id().clone())
            .collect())
    }

    fn usage(&self, owner: &str, now_ms: u64) -> Result<Usage, StoreError> {
        let inner = self.locked()?;
        let mut usage = Usage::default();
        for (id, stored) in &inner.proposals {
            if !counted(stored, now_ms) {
                continue;
            }
            let bytes = inner.bytes.get(id).copied().unwrap_or(0);
            let add = |tally: &mut Tally| {
                tally.proposals += 1;
                tally.bytes = tally.bytes.saturating_add(bytes);
            };
            add(&mut usage.overall);
            if stored.proposal.owner == owner {
                add(&mut usage.owner);
            }
        }
        Ok(usage)
    }

    fn expired(&self, now_ms: u64) -> Result<Vec<ProposalId>, StoreError> {
        let inner = self.locked()?;
        Ok(inner
            .proposals
            .iter()
            .filter(|(_, stored)| {
                let ended = stored
                    .resolution
                    .as_ref()
                    .is_some_and(|resolution| resolution.decision == Decision::Approved);
                !ended
                    && stored
                        .proposal
                        .expires_ms
                        .is_some_and(|expires_ms| now_ms >= expires_ms)
            })
            .map(|(id, _)| id.clone())
            .collect())
    }

    fn forget(&self, id: &ProposalId) -> Result<bool, StoreError> {
        let mut inner = self.locked()?;
        let declined = inner.proposals.get(id).is_some_and(|stored| {
            stored
                .resolution
                .as_ref()
                .is_some_and(|resolution| resolution.decision == Decision::Declined)
        });
        if !declined {
            return Ok(false);
        }
        inner.proposals.remove(id);
        inner.bytes.remove(id);
        if let Some(entry) = inner.effects.get_mut(id.as_str())
            && entry.is_declined()
        {
            entry.call.arguments = Arguments::from("{}");
        }
        Ok(true)
    }

    // The journal.
    fn start(&self, start: &CallStart) -> Result<StartOutcome, StoreError> {
        let mut inner = self.locked()?;
        match inner.effects.get_mut(&start.key) {
            Some(entry) if entry.rerun => {
                entry.rerun = false;
                entry.attempts = entry.attempts.saturating_add(1);
                entry.started_at_ms = start.at_ms;
                entry.end = None;
                Ok(StartOutcome::Started)
            }
            Some(entry) => Ok(StartOutcome::AlreadyStarted(Box::new(entry.clone()))),
            None => {
                inner.effects.insert(
                    start.key.clone(),
                    JournalEntry {
                        key: start.key.clone(),
                        call: start.call.clone(),
                        tier: start.tier,
                        started_at_ms: start.at_ms,
                        attempts: 1,
                        rerun: false,
                        end: None,
                        delivered_at_ms: None,
                    },
                );
                Ok(StartOutcome::Started)
            }
        }
    }

    fn end(&self, key: &str, end: &CallEnd) -> Result<EndOutcome, StoreError> {
        let mut inner = self.locked()?;
        let Some(entry) = inner.effects.get_mut(key) else {
            return Ok(EndOutcome::Unknown);
        };
        if let Some(earlier) = &entry.end {
            return Ok(EndOutcome::AlreadyEnded(earlier.clone()));
        }
        entry.end = Some(end.clone());
        entry.rerun = false;
        Ok(EndOutcome::Ended)
    }

    fn entry(&self, key: &str) -> Result<Option<JournalEntry>, StoreError> {
        Ok(self.locked()?.effects.get(key).cloned())
    }

    fn in_doubt(&self) -> Result<Vec<JournalEntry>, StoreError> {
        let inner = self.locked()?;
        let entries = inner.effects.values().filter(|entry| entry.in_doubt());
        Ok(sorted(entries.cloned().collect(), |entry| {
            entry.started_at_ms
        }))
    }

    fn rerun(&self, key: &str, attempts: u32) -> Result<bool, StoreError> {
        let mut inner = self.locked()?;
        match inner.effects.get_mut(key) {
            Some(entry) if entry.in_doubt() && !entry.rerun && entry.attempts == attempts => {
                entry.rerun = true;
                Ok(true)
            }
            _ => Ok(false),
        }
    }

    fn undelivered(&self) -> Result<Vec<JournalEntry>, StoreError> {
        let inner = self.locked()?;
        let entries = inner
            .effects
            .values()
            .filter(|entry| entry.end.is_some() && entry.delivered_at_ms.is_none());
        Ok(sorted(entries.cloned().collect(), |entry| {
            entry.end.as_ref().map_or(0, |end| end.at_ms)
        }))
    }

    fn mark_delivered(&self, key: &str, at_ms: u64) -> Result<bool, StoreError> {
        let mut inner = self.locked()?;
        match inner.effects.get_mut(key) {
            Some(entry) if entry.end.is_some() && entry.delivered_at_ms.is_none() => {
                entry.delivered_at_ms = Some(at_ms);
                Ok(true)
            }
            _ => Ok(false),
        }
    }

    // Runs.
    fn load_run(&self, id: &RunId) -> Result<Option<StoredRun>, StoreError> {
        Ok(self.locked()?.runs.get(id).cloned())
    }

    fn save_run(
        &self,
        run: &StoredRun,
        expected: Option<u64>,
    ) -> Result<SaveRunOutcome, StoreError> {
        let mut inner = self.locked()?;
        let stored = inner.runs.get(&run.id).map(|stored| stored.generation);
        let mark = inner.run_marks.get(&run.id).copied();
        if stored != expected || mark.is_some_and(|mark| run.generation <= mark) {
            return Ok(SaveRunOutcome::Conflict { stored });
        }
        inner.runs.insert(run.id.clone(), run.clone());
        inner.run_marks.insert(run.id.clone(), run.generation);
        Ok(SaveRunOutcome::Saved)
    }

    fn newest_generation(&self, id: &RunId) -> Result<Option<u64>, StoreError> {
        Ok(self.locked()?.run_marks.get(id).copied())
    }

    // Pins.
    fn pins(&self, source: &str) -> Result<Vec<Pin>, StoreError> {
        let inner = self.locked()?;
        Ok(inner
            .pins
            .iter()
            .filter(|((of, _), _)| of == source)
            .map(|(_, pin)| pin.clone())
            .collect())
    }

    fn pin(&self, source: &str, pin: &Pin, replacing: Option<&str>) -> Result<bool, StoreError> {
        let mut inner = self.locked()?;
        let key = (source.to_owned(), pin.tool.clone());
        let stored = inner.pins.get(&key).map(|pin| pin.fingerprint.as_str());
        if stored != replacing {
            return Ok(false);
        }
        inner.pins.insert(key, pin.clone());
        Ok(true)
    }
}

/// Whether `stored` counts against the limits at `now_ms`: waiting unexpired, or declined
/// and not yet expired (its row not yet swept).
fn counted(stored: &Stored, now_ms: u64) -> bool {
    let unexpired = stored
        .proposal
        .expires_ms
        .is_none_or(|expires_ms| now_ms < expires_ms);
    match &stored.resolution {
        None => unexpired,
        Some(resolution) => {
            resolution.decision == Decision::Declined
                && stored.proposal.expires_ms.is_some()
                && unexpired
        }
    }
}

impl MemoryStore {
    /// Resolves `id`; a decline with its journal record `declined`, when given.
    fn resolve_with(
        &self,
        id: &ProposalId,
        resolution: &Resolution,
        declined: Option<&CallEnd>,
    ) -> Result<ResolveOutcome, StoreError> {
        let mut inner = self.locked()?;
        let Inner {
            proposals, effects, ..
        } = &mut *inner;
        let stored = proposals
            .get_mut(id)
            .ok_or_else(|| StoreError::new(format!("no proposal {id} is stored")))?;
        if let Some(earlier) = &stored.resolution {
            return Ok(ResolveOutcome::AlreadyResolved(earlier.clone()));
        }
        if let Some(entry) = effects.get(id.as_str()) {
            // A decline on record, though the resolution was reset: it stays declined.
            if let Some(end) = entry.end.as_ref().filter(|_| entry.is_declined()) {
                return Ok(ResolveOutcome::AlreadyResolved(Resolution {
                    decision: Decision::Declined,
                    at_ms: end.at_ms,
                }));
            }
            return Ok(ResolveOutcome::EffectRecorded(entry.effect()));
        }
        stored.resolution = Some(resolution.clone());
        let record = |attempts, end: Option<CallEnd>| JournalEntry {
            key: id.as_str().to_owned(),
            call: stored.proposal.call.clone(),
            tier: stored.proposal.tier,
            started_at_ms: resolution.at_ms,
            attempts,
            rerun: false,
            end,
            delivered_at_ms: None,
        };
        let entry = match (resolution.decision, declined) {
            (Decision::Approved, _) => Some(record(1, None)),
            (Decision::Declined, Some(end)) => Some(record(0, Some(end.clone()))),
            (Decision::Declined, None) => None,
        };
        if let Some(entry) = entry {
            effects.insert(id.as_str().to_owned(), entry);
        }
        Ok(ResolveOutcome::Resolved)
    }
}

/// Entries sorted oldest first by `at`, then by key.
fn sorted(mut entries: Vec<JournalEntry>, at: impl Fn(&JournalEntry) -> u64) -> Vec<JournalEntry> {
    entries.sort_by(|a, b| at(a).cmp(&at(b)).then_with(|| a.key.cmp(&b.key)));
    entries
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::call::ToolCall;
    use crate::store::Effect;
    use crate::tier::Tier;

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
            labels: crate::spec::Labels::NONE,
            owner: String::new(),
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
