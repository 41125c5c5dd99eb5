//! The SQLite proposal store: a real database file in WAL mode, shared safely by the
//! processes of one machine (SQLite is compiled in; no system library is needed).

use super::row::{effect, resolution, stored};
use super::{Decision, ProposalStore, Resolution, ResolveOutcome, StoreError, Stored};
use crate::{Proposal, ProposalId};
use rusqlite::{Connection, OptionalExtension, TransactionBehavior, params};
use std::path::Path;
use std::sync::Mutex;
use std::time::Duration;

/// Proposals in a SQLite database file. Resolving is one write transaction (`UPDATE …
/// WHERE decision IS NULL`, and approving, the `INSERT` of the proposal's effect into the
/// table `toolset_effects`, keyed by its id), which SQLite serializes across connections
/// and processes, so exactly one resolver wins, and none after an effect is on record.
#[derive(Debug)]
pub struct SqliteStore {
    connection: Mutex<Connection>,
}

fn failed(what: &str) -> impl Fn(rusqlite::Error) -> StoreError + '_ {
    move |error| StoreError::new(format!("{what}: {error}"))
}

impl SqliteStore {
    /// Opens (or creates) the database at `path`, in WAL mode, with the proposals and
    /// effects tables. A database from before the effects table gets one, with an effect
    /// for every proposal it had approved.
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
                "BEGIN IMMEDIATE;
                 CREATE TABLE IF NOT EXISTS toolset_proposals (
                     id TEXT PRIMARY KEY NOT NULL,
                     proposal TEXT NOT NULL,
                     decision TEXT,
                     resolved_at_ms INTEGER
                 );
                 -- One row per approved proposal, written with its resolution and never
                 -- removed: the record that its call was let run (an effect journal adds
                 -- columns for how it ended).
                 CREATE TABLE IF NOT EXISTS toolset_effects (
                     proposal_id TEXT PRIMARY KEY NOT NULL,
                     started_at_ms INTEGER NOT NULL
                 );
                 INSERT OR IGNORE INTO toolset_effects (proposal_id, started_at_ms)
                     SELECT id, resolved_at_ms FROM toolset_proposals
                     WHERE decision = 'approved' AND resolved_at_ms IS NOT NULL;
                 COMMIT;",
            )
            .map_err(failed("could not create the proposals and effects tables"))?;
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

/// A proposal's row, with its effect's if it has one (`NULL`s while it waits).
struct Row {
    proposal: String,
    decision: Option<String>,
    resolved_at_ms: Option<i64>,
    started_at_ms: Option<i64>,
}

fn row(connection: &Connection, id: &ProposalId) -> Result<Option<Row>, StoreError> {
    connection
        .query_row(
            "SELECT p.proposal, p.decision, p.resolved_at_ms, e.started_at_ms
             FROM toolset_proposals AS p
             LEFT JOIN toolset_effects AS e ON e.proposal_id = p.id
             WHERE p.id = ?1",
            params![id.as_str()],
            |row| {
                Ok(Row {
                    proposal: row.get(0)?,
                    decision: row.get(1)?,
                    resolved_at_ms: row.get(2)?,
                    started_at_ms: row.get(3)?,
                })
            },
        )
        .optional()
        .map_err(failed("could not read the proposal"))
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
        let Some(row) = row(&*self.connection()?, id)? else {
            return Ok(None);
        };
        stored(
            id,
            &row.proposal,
            row.decision,
            row.resolved_at_ms,
            row.started_at_ms,
        )
        .map(Some)
    }

    fn resolve(
        &self,
        id: &ProposalId,
        resolution_now: &Resolution,
    ) -> Result<ResolveOutcome, StoreError> {
        let mut connection = self.connection()?;
        // One write transaction, taken at once: no other resolver reads between our
        // checks and our writes, and a crash leaves all of it or none.
        let transaction = connection
            .transaction_with_behavior(TransactionBehavior::Immediate)
            .map_err(failed("could not start resolving the proposal"))?;
        let Some(row) = row(&transaction, id)? else {
            return Err(StoreError::new(format!("no proposal {id} is stored")));
        };
        if let Some(earlier) = resolution(row.decision, row.resolved_at_ms)? {
            return Ok(ResolveOutcome::AlreadyResolved(earlier));
        }
        if let Some(started) = row.started_at_ms {
            return Ok(ResolveOutcome::EffectRecorded(effect(started)));
        }
        let at = i64::try_from(resolution_now.at_ms).unwrap_or(i64::MAX);
        let changed = transaction
            .execute(
                "UPDATE toolset_proposals SET decision = ?1, resolved_at_ms = ?2
                 WHERE id = ?3 AND decision IS NULL",
                params![resolution_now.decision.as_str(), at, id.as_str()],
            )
            .map_err(failed("could not resolve the proposal"))?;
        if changed != 1 {
            return Err(StoreError::new(format!(
                "the proposal {id} could not be resolved"
            )));
        }
        if resolution_now.decision == Decision::Approved {
            // A primary key: a second effect for one id is refused by the database too.
            transaction
                .execute(
                    "INSERT INTO toolset_effects (proposal_id, started_at_ms) VALUES (?1, ?2)",
                    params![id.as_str(), at],
                )
                .map_err(failed("could not record the proposal's effect"))?;
        }
        transaction
            .commit()
            .map_err(failed("could not commit the proposal's resolution"))?;
        Ok(ResolveOutcome::Resolved)
    }
}
