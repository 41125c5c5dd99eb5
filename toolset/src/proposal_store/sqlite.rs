//! The SQLite proposal store: a real database file in WAL mode, shared safely by the
//! processes of one machine (SQLite is compiled in; no system library is needed).

use super::{Decision, ProposalStore, Resolution, StoreError, Stored};
use crate::{Proposal, ProposalId};
use rusqlite::{Connection, OptionalExtension, params};
use std::path::Path;
use std::sync::Mutex;
use std::time::Duration;

/// Proposals in a SQLite database file. Resolving is one `UPDATE … WHERE resolution IS
/// NULL`, which SQLite serializes across connections and processes, so exactly one
/// resolver wins.
#[derive(Debug)]
pub struct SqliteStore {
    connection: Mutex<Connection>,
}

fn failed(what: &str) -> impl Fn(rusqlite::Error) -> StoreError + '_ {
    move |error| StoreError::new(format!("{what}: {error}"))
}

impl SqliteStore {
    /// Opens (or creates) the database at `path`, in WAL mode, with the proposals table.
    pub fn open(path: impl AsRef<Path>) -> Result<SqliteStore, StoreError> {
        let path = path.as_ref();
        let connection = Connection::open(path).map_err(|error| {
            StoreError::new(format!(
                "could not open the database {}: {error}",
                path.display()
            ))
        })?;
        // Concurrent writers wait for each other instead of failing at once.
        connection
            .busy_timeout(Duration::from_secs(10))
            .map_err(failed("could not set the busy timeout"))?;
        let mode: String = connection
            .query_row("PRAGMA journal_mode = WAL", [], |row| row.get(0))
            .map_err(failed("could not switch to WAL mode"))?;
        if !mode.eq_ignore_ascii_case("wal") {
            return Err(StoreError::new(format!(
                "the database {} stays in `{mode}` mode, not WAL: is it on a network file system?",
                path.display()
            )));
        }
        connection
            .execute_batch(
                "CREATE TABLE IF NOT EXISTS toolset_proposals (
                     id TEXT PRIMARY KEY NOT NULL,
                     proposal TEXT NOT NULL,
                     decision TEXT,
                     resolved_at_ms INTEGER
                 );",
            )
            .map_err(failed("could not create the proposals table"))?;
        Ok(SqliteStore {
            connection: Mutex::new(connection),
        })
    }

    fn connection(&self) -> Result<std::sync::MutexGuard<'_, Connection>, StoreError> {
        self.connection
            .lock()
            .map_err(|_| StoreError::new("a thread panicked while using the database"))
    }
}

fn decision(text: &str) -> Result<Decision, StoreError> {
    match text {
        "approved" => Ok(Decision::Approved),
        "declined" => Ok(Decision::Declined),
        other => Err(StoreError::new(format!(
            "the database holds an unknown decision `{other}`"
        ))),
    }
}

fn resolution(
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

impl ProposalStore for SqliteStore {
    fn insert(&self, proposal: &Proposal) -> Result<(), StoreError> {
        let json = serde_json::to_string(proposal).map_err(|error| {
            StoreError::new(format!("could not serialize the proposal: {error}"))
        })?;
        self.connection()?
            .execute(
                "INSERT INTO toolset_proposals (id, proposal) VALUES (?1, ?2)",
                params![proposal.id().as_str(), json],
            )
            .map_err(failed("could not insert the proposal"))?;
        Ok(())
    }

    fn get(&self, id: &ProposalId) -> Result<Option<Stored>, StoreError> {
        let row: Option<(String, Option<String>, Option<i64>)> = self
            .connection()?
            .query_row(
                "SELECT proposal, decision, resolved_at_ms FROM toolset_proposals WHERE id = ?1",
                params![id.as_str()],
                |row| Ok((row.get(0)?, row.get(1)?, row.get(2)?)),
            )
            .optional()
            .map_err(failed("could not read the proposal"))?;
        let Some((json, decision_text, at)) = row else {
            return Ok(None);
        };
        let proposal = serde_json::from_str(&json).map_err(|error| {
            StoreError::new(format!("the stored proposal {id} is not readable: {error}"))
        })?;
        Ok(Some(Stored {
            proposal,
            resolution: resolution(decision_text, at)?,
        }))
    }

    fn resolve(
        &self,
        id: &ProposalId,
        resolution_now: &Resolution,
    ) -> Result<Option<Resolution>, StoreError> {
        let connection = self.connection()?;
        let at = i64::try_from(resolution_now.at_ms).unwrap_or(i64::MAX);
        let changed = connection
            .execute(
                "UPDATE toolset_proposals SET decision = ?1, resolved_at_ms = ?2
                 WHERE id = ?3 AND decision IS NULL",
                params![resolution_now.decision.as_str(), at, id.as_str()],
            )
            .map_err(failed("could not resolve the proposal"))?;
        if changed == 1 {
            return Ok(None);
        }
        let earlier: Option<(Option<String>, Option<i64>)> = connection
            .query_row(
                "SELECT decision, resolved_at_ms FROM toolset_proposals WHERE id = ?1",
                params![id.as_str()],
                |row| Ok((row.get(0)?, row.get(1)?)),
            )
            .optional()
            .map_err(failed("could not read the proposal"))?;
        match earlier {
            None => Err(StoreError::new(format!("no proposal {id} is stored"))),
            Some((text, at)) => resolution(text, at)?
                .map(Some)
                .ok_or_else(|| StoreError::new(format!("the proposal {id} could not be resolved"))),
        }
    }
}
