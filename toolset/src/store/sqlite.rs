//! The SQLite proposal store: a real database file in WAL mode, shared safely by the
//! processes of one machine (SQLite is compiled in; no system library is needed).

use super::row::{
    ENTRY_COLUMNS, EntryRow, caller_column, effect, journal_entry, resolution, stored,
};
use super::{
    CallEnd, CallStart, Decision, EndOutcome, Ending, Journal, JournalEntry, ProposalStore,
    Resolution, ResolveOutcome, RunId, RunStore, SaveRunOutcome, StartOutcome, StoreError, Stored,
    StoredRun, Tally, Usage,
};
use crate::digest::hex;
use crate::output::ToolOutput;
use crate::proposal::Proposal;
use crate::proposal::ProposalId;
use rusqlite::{Connection, OptionalExtension, TransactionBehavior, params};
use std::path::Path;
use std::sync::Mutex;
use std::time::Duration;

/// Proposals in a SQLite database file. Resolving is one write transaction (`UPDATE …
/// WHERE decision IS NULL`, and approving, the `INSERT` of the proposal's effect into the
/// table `toolset_effects`, keyed by its id), which SQLite serializes across connections
/// and processes, so exactly one resolver wins, and none after an effect is on record.
/// A decline writes its journal entry in the same transaction. Saved runs are in the table
/// `toolset_runs`, each written by an `UPDATE … WHERE generation = <expected>` (or an
/// `INSERT` that does nothing when the id is taken), its mark in `toolset_run_marks`
/// raised in the same transaction.
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
        let mut connection = Connection::open(path).map_err(|error| {
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
        migrate(&mut connection)?;
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

/// The schema version this store writes, kept in SQLite's `user_version`: 1 adds the
/// effect journal's columns to `toolset_effects`; 2 adds the table `toolset_runs` (saved
/// runs) and records declines in `toolset_effects` (`ended = 'declined'`, which an older
/// toolset cannot read: it refuses the database by its version); 3 adds the table
/// `toolset_run_marks` (each run's highest generation saved, apart from its row), marking
/// each stored run at its generation; 4 adds to `toolset_proposals` the columns the
/// limits and the sweep read (`owner`, `expires_ms`, `bytes`), filled in for the rows there.
const SCHEMA_VERSION: i64 = 4;

/// Takes a database from before the journal to [`SCHEMA_VERSION`], in one write
/// transaction (a process opening it at the same time waits, then finds it done). The
/// effects recorded before hold no call (`call_id` stays `NULL`): they are not journal
/// entries, so they are never listed in doubt.
fn migrate(connection: &mut Connection) -> Result<(), StoreError> {
    let transaction = connection
        .transaction_with_behavior(TransactionBehavior::Immediate)
        .map_err(failed("could not start migrating the database"))?;
    let version: i64 = transaction
        .query_row("PRAGMA user_version", [], |row| row.get(0))
        .map_err(failed("could not read the schema version"))?;
    if version > SCHEMA_VERSION {
        return Err(StoreError::new(format!(
            "the database's schema version ({version}) is newer than this toolset's \
             ({SCHEMA_VERSION}): upgrade toolset, or open another file"
        )));
    }
    if version == SCHEMA_VERSION {
        return Ok(());
    }
    if version < 1 {
        transaction
            .execute_batch(
                "-- The effect journal: what ran (call id, tool, tier, arguments as the model
             -- wrote them, canonical action key in hex), how often it was let start, a
             -- re-run the host asked for, how it ended and when its result was delivered.
             ALTER TABLE toolset_effects ADD COLUMN call_id TEXT;
             ALTER TABLE toolset_effects ADD COLUMN tool TEXT;
             ALTER TABLE toolset_effects ADD COLUMN tier TEXT;
             ALTER TABLE toolset_effects ADD COLUMN arguments TEXT;
             ALTER TABLE toolset_effects ADD COLUMN caller TEXT;
             ALTER TABLE toolset_effects ADD COLUMN action_key TEXT;
             ALTER TABLE toolset_effects ADD COLUMN attempts INTEGER NOT NULL DEFAULT 1;
             ALTER TABLE toolset_effects ADD COLUMN rerun INTEGER NOT NULL DEFAULT 0;
             ALTER TABLE toolset_effects ADD COLUMN ended TEXT;
             ALTER TABLE toolset_effects ADD COLUMN result TEXT;
             ALTER TABLE toolset_effects ADD COLUMN ended_at_ms INTEGER;
             ALTER TABLE toolset_effects ADD COLUMN delivered_at_ms INTEGER;",
            )
            .map_err(failed("could not add the effect journal to the database"))?;
    }
    transaction
        .execute_batch(
            "-- Saved runs: each run's newest copy (its JSON as written, its seal) and its
             -- generation, which every save and resume raises by one, written only over
             -- the generation the writer loaded.
             CREATE TABLE IF NOT EXISTS toolset_runs (
                 id TEXT PRIMARY KEY NOT NULL,
                 generation INTEGER NOT NULL,
                 run TEXT NOT NULL,
                 seal TEXT
             );",
        )
        .map_err(failed("could not add the runs table to the database"))?;
    transaction
        .execute_batch(
            "-- Each run's mark: the highest generation ever saved of it, raised with each
             -- save and never lowered, so a run's row put back whole is seen as old.
             CREATE TABLE IF NOT EXISTS toolset_run_marks (
                 id TEXT PRIMARY KEY NOT NULL,
                 generation INTEGER NOT NULL
             );
             INSERT INTO toolset_run_marks (id, generation)
                 SELECT id, generation FROM toolset_runs WHERE true
             ON CONFLICT (id) DO NOTHING;",
        )
        .map_err(failed("could not add the run marks to the database"))?;
    // Added only where missing: a database whose version was set back keeps its columns.
    let has_owner: i64 = transaction
        .query_row(
            "SELECT count(*) FROM pragma_table_info('toolset_proposals') WHERE name = 'owner'",
            [],
            |row| row.get(0),
        )
        .map_err(failed("could not read the proposals table's columns"))?;
    if has_owner == 0 {
        transaction
            .execute_batch(
                "-- What the limits count and the sweep finds, out of the proposal's JSON:
                 -- who submitted it, when it expires, and its size as stored.
                 ALTER TABLE toolset_proposals ADD COLUMN owner TEXT NOT NULL DEFAULT '';
                 ALTER TABLE toolset_proposals ADD COLUMN expires_ms INTEGER;
                 ALTER TABLE toolset_proposals ADD COLUMN bytes INTEGER NOT NULL DEFAULT 0;
                 UPDATE toolset_proposals SET
                     owner = coalesce(json_extract(proposal, '$.owner'), ''),
                     expires_ms = json_extract(proposal, '$.expires_ms'),
                     bytes = length(CAST(proposal AS BLOB));
                 CREATE INDEX IF NOT EXISTS toolset_proposals_expiry
                     ON toolset_proposals (expires_ms) WHERE expires_ms IS NOT NULL;",
            )
            .map_err(failed(
                "could not add the proposals' limit columns to the database",
            ))?;
    }
    transaction
        .execute_batch("PRAGMA user_version = 4;")
        .map_err(failed("could not record the schema version"))?;
    transaction
        .commit()
        .map_err(failed("could not commit the database's migration"))
}

/// A millisecond time as SQLite stores it.
fn ms(at_ms: u64) -> i64 {
    i64::try_from(at_ms).unwrap_or(i64::MAX)
}

/// The journal entry `key` (`None` when absent, or an effect from before the journal).
fn entry(connection: &Connection, key: &str) -> Result<Option<JournalEntry>, StoreError> {
    let row = connection
        .query_row(
            &format!(
                "SELECT {ENTRY_COLUMNS} FROM toolset_effects
                 WHERE proposal_id = ?1 AND call_id IS NOT NULL"
            ),
            params![key],
            entry_row,
        )
        .optional()
        .map_err(failed("could not read the journal"))?;
    row.map(journal_entry).transpose()
}

/// The entries a `WHERE … ORDER BY …` clause selects.
fn entries(connection: &Connection, clause: &str) -> Result<Vec<JournalEntry>, StoreError> {
    let mut statement = connection
        .prepare(&format!(
            "SELECT {ENTRY_COLUMNS} FROM toolset_effects WHERE call_id IS NOT NULL AND {clause}"
        ))
        .map_err(failed("could not read the journal"))?;
    let rows = statement
        .query_map([], entry_row)
        .map_err(failed("could not read the journal"))?;
    rows.map(|row| {
        row.map_err(failed("could not read the journal"))
            .and_then(journal_entry)
    })
    .collect()
}

fn entry_row(row: &rusqlite::Row<'_>) -> rusqlite::Result<EntryRow> {
    Ok(EntryRow {
        key: row.get(0)?,
        call_id: row.get(1)?,
        tool: row.get(2)?,
        tier: row.get(3)?,
        arguments: row.get(4)?,
        caller: row.get(5)?,
        started_at_ms: row.get(6)?,
        attempts: row.get(7)?,
        rerun: row.get::<_, i64>(8)? != 0,
        ended: row.get(9)?,
        result: row.get(10)?,
        ended_at_ms: row.get(11)?,
        delivered_at_ms: row.get(12)?,
    })
}

/// A proposal's row, with its effect's if it has one (`NULL`s while it waits), or the
/// time of its decline on record in the journal.
struct Row {
    proposal: String,
    decision: Option<String>,
    resolved_at_ms: Option<i64>,
    started_at_ms: Option<i64>,
    declined_at_ms: Option<i64>,
}

fn row(connection: &Connection, id: &ProposalId) -> Result<Option<Row>, StoreError> {
    connection
        .query_row(
            "SELECT p.proposal, p.decision, p.resolved_at_ms,
                 CASE WHEN e.ended = 'declined' THEN NULL ELSE e.started_at_ms END,
                 CASE WHEN e.ended = 'declined' THEN e.ended_at_ms END
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
                    declined_at_ms: row.get(4)?,
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
        let bytes = json.len() as i64;
        let expires = proposal.expires_ms.map(ms);
        self.connection()?
            .execute(
                "INSERT INTO toolset_proposals (id, proposal, owner, expires_ms, bytes)
                 VALUES (?1, ?2, ?3, ?4, ?5)",
                params![proposal.id().as_str(), json, proposal.owner, expires, bytes],
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

    fn as_journal(&self) -> Option<&dyn Journal> {
        Some(self)
    }

    fn usage(&self, owner: &str, now_ms: u64) -> Result<Usage, StoreError> {
        let (owner_count, owner_bytes, count, bytes): (i64, i64, i64, i64) = self
            .connection()?
            .query_row(
                &format!(
                    "SELECT coalesce(sum(owner = ?1), 0),
                         coalesce(sum(CASE WHEN owner = ?1 THEN bytes ELSE 0 END), 0),
                         count(*), coalesce(sum(bytes), 0)
                     FROM toolset_proposals WHERE {COUNTED}"
                ),
                params![owner, ms(now_ms)],
                |row| Ok((row.get(0)?, row.get(1)?, row.get(2)?, row.get(3)?)),
            )
            .map_err(failed("could not count the proposals"))?;
        let tally = |count: i64, bytes: i64| {
            Tally::new(
                u64::try_from(count).unwrap_or(0),
                u64::try_from(bytes).unwrap_or(0),
            )
        };
        Ok(Usage {
            owner: tally(owner_count, owner_bytes),
            overall: tally(count, bytes),
        })
    }

    fn expired(&self, now_ms: u64) -> Result<Vec<ProposalId>, StoreError> {
        let connection = self.connection()?;
        let mut statement = connection
            .prepare(
                "SELECT id FROM toolset_proposals
                 WHERE expires_ms IS NOT NULL AND expires_ms <= ?1
                     AND (decision IS NULL OR decision = 'declined')",
            )
            .map_err(failed("could not find the expired proposals"))?;
        let ids = statement
            .query_map(params![ms(now_ms)], |row| row.get::<_, String>(0))
            .map_err(failed("could not find the expired proposals"))?;
        ids.map(|id| {
            let id = id.map_err(failed("could not find the expired proposals"))?;
            ProposalId::parse(&id).ok_or_else(|| {
                StoreError::new(format!(
                    "the stored proposal id {id:?} is not a proposal id"
                ))
            })
        })
        .collect()
    }

    fn forget(&self, id: &ProposalId) -> Result<bool, StoreError> {
        let mut connection = self.connection()?;
        let transaction = connection
            .transaction_with_behavior(TransactionBehavior::Immediate)
            .map_err(failed("could not start removing the proposal"))?;
        let removed = transaction
            .execute(
                "DELETE FROM toolset_proposals WHERE id = ?1 AND decision = 'declined'",
                params![id.as_str()],
            )
            .map_err(failed("could not remove the proposal"))?;
        if removed == 1 {
            transaction
                .execute(
                    "UPDATE toolset_effects SET arguments = '{}'
                     WHERE proposal_id = ?1 AND ended = 'declined'",
                    params![id.as_str()],
                )
                .map_err(failed("could not remove the declined call's arguments"))?;
        }
        transaction
            .commit()
            .map_err(failed("could not commit the proposal's removal"))?;
        Ok(removed == 1)
    }
}

/// The proposals that count against the limits at `?2` (ms): waiting unexpired, or
/// declined and not yet expired (not yet swept).
const COUNTED: &str = "(decision IS NULL AND (expires_ms IS NULL OR expires_ms > ?2))
     OR (decision = 'declined' AND expires_ms > ?2)";

impl SqliteStore {
    /// Resolves `id`; a decline with its journal record `declined`, when given, in the same
    /// transaction.
    fn resolve_with(
        &self,
        id: &ProposalId,
        resolution_now: &Resolution,
        declined: Option<&CallEnd>,
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
        if let Some(at) = row.declined_at_ms {
            // A decline on record, though the resolution was reset: it stays declined.
            return Ok(ResolveOutcome::AlreadyResolved(Resolution {
                decision: Decision::Declined,
                at_ms: u64::try_from(at).unwrap_or(0),
            }));
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
            // The effect is the start of the call's journal entry: the call's facts come
            // from the proposal. A primary key: a second effect for one id is refused by
            // the database too.
            let proposal = stored(id, &row.proposal, None, None, None)?.proposal;
            let call = &proposal.call;
            transaction
                .execute(
                    "INSERT INTO toolset_effects (proposal_id, started_at_ms, call_id, tool,
                         tier, arguments, action_key, caller)
                     VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8)",
                    params![
                        id.as_str(),
                        at,
                        call.id,
                        call.name,
                        proposal.tier.as_str(),
                        call.arguments.to_string(),
                        hex(&call.action_key()),
                        caller_column(call)
                    ],
                )
                .map_err(failed("could not record the proposal's effect"))?;
        }
        if let (Decision::Declined, Some(end)) = (resolution_now.decision, declined) {
            // The decline's journal entry: never started (no attempts), ended with the
            // answer the model reads, waiting to be delivered.
            let proposal = stored(id, &row.proposal, None, None, None)?.proposal;
            let call = &proposal.call;
            transaction
                .execute(
                    "INSERT INTO toolset_effects (proposal_id, started_at_ms, call_id, tool,
                         tier, arguments, action_key, caller, attempts, ended, result,
                         ended_at_ms)
                     VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, 0, ?9, ?10, ?11)",
                    params![
                        id.as_str(),
                        at,
                        call.id,
                        call.name,
                        proposal.tier.as_str(),
                        call.arguments.to_string(),
                        hex(&call.action_key()),
                        caller_column(call),
                        end.ending.as_str(),
                        end.result,
                        ms(end.at_ms)
                    ],
                )
                .map_err(failed("could not record the proposal's decline"))?;
        }
        transaction
            .commit()
            .map_err(failed("could not commit the proposal's resolution"))?;
        Ok(ResolveOutcome::Resolved)
    }
}

impl Journal for SqliteStore {
    fn start(&self, start: &CallStart) -> Result<StartOutcome, StoreError> {
        let mut connection = self.connection()?;
        let transaction = connection
            .transaction_with_behavior(TransactionBehavior::Immediate)
            .map_err(failed("could not start journaling the call"))?;
        let outcome = match entry(&transaction, &start.key)? {
            Some(earlier) if earlier.rerun => {
                transaction
                    .execute(
                        "UPDATE toolset_effects SET rerun = 0, attempts = attempts + 1,
                             started_at_ms = ?2, ended = NULL, result = NULL,
                             ended_at_ms = NULL
                         WHERE proposal_id = ?1 AND rerun = 1",
                        params![start.key, ms(start.at_ms)],
                    )
                    .map_err(failed("could not journal the call's start"))?;
                StartOutcome::Started
            }
            Some(earlier) => return Ok(StartOutcome::AlreadyStarted(Box::new(earlier))),
            None => {
                let call = &start.call;
                transaction
                    .execute(
                        "INSERT INTO toolset_effects (proposal_id, started_at_ms, call_id, tool,
                             tier, arguments, action_key, caller)
                         VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8)",
                        params![
                            start.key,
                            ms(start.at_ms),
                            call.id,
                            call.name,
                            start.tier.as_str(),
                            call.arguments.to_string(),
                            hex(&call.action_key()),
                            caller_column(call)
                        ],
                    )
                    .map_err(failed("could not journal the call's start"))?;
                StartOutcome::Started
            }
        };
        transaction
            .commit()
            .map_err(failed("could not commit the call's start"))?;
        Ok(outcome)
    }

    fn end(&self, key: &str, end: &CallEnd) -> Result<EndOutcome, StoreError> {
        let mut connection = self.connection()?;
        let transaction = connection
            .transaction_with_behavior(TransactionBehavior::Immediate)
            .map_err(failed("could not start journaling the call's end"))?;
        let Some(earlier) = entry(&transaction, key)? else {
            return Ok(EndOutcome::Unknown);
        };
        if let Some(end) = earlier.end {
            return Ok(EndOutcome::AlreadyEnded(end));
        }
        transaction
            .execute(
                "UPDATE toolset_effects SET ended = ?2, result = ?3, ended_at_ms = ?4, rerun = 0
                 WHERE proposal_id = ?1 AND ended IS NULL",
                params![key, end.ending.as_str(), end.result, ms(end.at_ms)],
            )
            .map_err(failed("could not journal the call's end"))?;
        transaction
            .commit()
            .map_err(failed("could not commit the call's end"))?;
        Ok(EndOutcome::Ended)
    }

    fn entry(&self, key: &str) -> Result<Option<JournalEntry>, StoreError> {
        entry(&*self.connection()?, key)
    }

    fn in_doubt(&self) -> Result<Vec<JournalEntry>, StoreError> {
        entries(
            &*self.connection()?,
            "ended IS NULL ORDER BY started_at_ms, proposal_id",
        )
    }

    fn rerun(&self, key: &str, attempts: u32) -> Result<bool, StoreError> {
        let changed = self
            .connection()?
            .execute(
                "UPDATE toolset_effects SET rerun = 1
                 WHERE proposal_id = ?1 AND call_id IS NOT NULL AND ended IS NULL
                     AND rerun = 0 AND attempts = ?2",
                params![key, i64::from(attempts)],
            )
            .map_err(failed("could not hand the call back for a re-run"))?;
        Ok(changed == 1)
    }

    fn undelivered(&self) -> Result<Vec<JournalEntry>, StoreError> {
        entries(
            &*self.connection()?,
            "ended IS NOT NULL AND delivered_at_ms IS NULL ORDER BY ended_at_ms, proposal_id",
        )
    }

    fn mark_delivered(&self, key: &str, at_ms: u64) -> Result<bool, StoreError> {
        let changed = self
            .connection()?
            .execute(
                "UPDATE toolset_effects SET delivered_at_ms = ?2
                 WHERE proposal_id = ?1 AND call_id IS NOT NULL AND ended IS NOT NULL
                     AND delivered_at_ms IS NULL",
                params![key, ms(at_ms)],
            )
            .map_err(failed("could not mark the result delivered"))?;
        Ok(changed == 1)
    }
}

impl RunStore for SqliteStore {
    fn load_run(&self, id: &RunId) -> Result<Option<StoredRun>, StoreError> {
        let row = self
            .connection()?
            .query_row(
                "SELECT generation, run, seal FROM toolset_runs WHERE id = ?1",
                params![id.as_str()],
                |row| {
                    Ok((
                        row.get::<_, i64>(0)?,
                        row.get::<_, String>(1)?,
                        row.get::<_, Option<String>>(2)?,
                    ))
                },
            )
            .optional()
            .map_err(failed("could not read the run"))?;
        row.map(|(generation, run, seal)| StoredRun::from_row(id, generation, run, seal))
            .transpose()
    }

    fn save_run(
        &self,
        run: &StoredRun,
        expected: Option<u64>,
    ) -> Result<SaveRunOutcome, StoreError> {
        let mut connection = self.connection()?;
        let transaction = connection
            .transaction_with_behavior(TransactionBehavior::Immediate)
            .map_err(failed("could not start saving the run"))?;
        let generation = |at: u64| i64::try_from(at).unwrap_or(i64::MAX);
        let above_mark =
            run_mark(&transaction, &run.id)?.is_none_or(|mark| generation(run.generation) > mark);
        let changed = match expected {
            _ if !above_mark => 0,
            None => transaction
                .execute(
                    "INSERT INTO toolset_runs (id, generation, run, seal)
                     VALUES (?1, ?2, ?3, ?4) ON CONFLICT (id) DO NOTHING",
                    params![
                        run.id.as_str(),
                        generation(run.generation),
                        run.run,
                        run.seal
                    ],
                )
                .map_err(failed("could not save the run"))?,
            Some(expected) => transaction
                .execute(
                    "UPDATE toolset_runs SET generation = ?2, run = ?3, seal = ?4
                     WHERE id = ?1 AND generation = ?5",
                    params![
                        run.id.as_str(),
                        generation(run.generation),
                        run.run,
                        run.seal,
                        generation(expected)
                    ],
                )
                .map_err(failed("could not save the run"))?,
        };
        if changed != 1 {
            let stored = transaction
                .query_row(
                    "SELECT generation FROM toolset_runs WHERE id = ?1",
                    params![run.id.as_str()],
                    |row| row.get::<_, i64>(0),
                )
                .optional()
                .map_err(failed("could not read the run"))?;
            return Ok(SaveRunOutcome::Conflict {
                stored: stored.map(|at| u64::try_from(at).unwrap_or(0)),
            });
        }
        transaction
            .execute(
                "INSERT INTO toolset_run_marks (id, generation) VALUES (?1, ?2)
                 ON CONFLICT (id) DO UPDATE SET generation = excluded.generation",
                params![run.id.as_str(), generation(run.generation)],
            )
            .map_err(failed("could not raise the run's mark"))?;
        transaction
            .commit()
            .map_err(failed("could not commit the run"))?;
        Ok(SaveRunOutcome::Saved)
    }

    fn newest_generation(&self, id: &RunId) -> Result<Option<u64>, StoreError> {
        let mark = run_mark(&*self.connection()?, id)?;
        super::runs::mark_from_row(id, mark)
    }
}

/// The run `id`'s mark as its column holds it; `None` when it has none.
fn run_mark(connection: &Connection, id: &RunId) -> Result<Option<i64>, StoreError> {
    connection
        .query_row(
            "SELECT generation FROM toolset_run_marks WHERE id = ?1",
            params![id.as_str()],
            |row| row.get::<_, i64>(0),
        )
        .optional()
        .map_err(failed("could not read the run's mark"))
}
