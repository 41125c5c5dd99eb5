//! The SQLite store: a real database file in WAL mode, shared safely by the processes of
//! one machine (SQLite is compiled in; no system library is needed).

use super::row::{Cell, Cells};
use super::sql::{self, Database, Param, Statement, ms, written_once};
use super::{
    CallEnd, Ending, Resolution, ResolveOutcome, SaveRunOutcome, Store, StoreError, StoredRun,
};
use crate::output::ToolOutput;
use crate::proposal::ProposalId;
use rusqlite::types::{ToSqlOutput, ValueRef};
use rusqlite::{Connection, TransactionBehavior, params};
use std::path::Path;
use std::sync::Mutex;
use std::time::Duration;

/// All a [`Store`] keeps, in a SQLite database file. Resolving is one write transaction
/// (`UPDATE … WHERE decision IS NULL`, and approving, the `INSERT` of the proposal's effect
/// into the table `toolset_effects`, keyed by its id), which SQLite serializes across
/// connections and processes, so exactly one resolver wins, and none after an effect is on
/// record.
/// A decline writes its journal entry in the same transaction. Saved runs are in the table
/// `toolset_runs`, each written by an `UPDATE … WHERE generation = <expected>` (or an
/// `INSERT` that does nothing when the id is taken), its mark in `toolset_run_marks`
/// raised in the same transaction. The pins of proxied tools are in the table
/// `toolset_pins`, each written by one statement conditioned on the pin it replaces.
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
/// limits and the sweep read (`owner`, `expires_ms`, `bytes`), filled in for the rows there;
/// 5 adds the table `toolset_pins` (the accepted definitions of proxied tools).
const SCHEMA_VERSION: i64 = 5;

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
        .execute_batch(
            "-- The pins of proxied tools: each tool's accepted definition (JSON) and its
             -- fingerprint, by source (a namespace's label) and tool (its name on its
             -- server), replaced only over the fingerprint its writer read.
             CREATE TABLE IF NOT EXISTS toolset_pins (
                 source TEXT NOT NULL,
                 tool TEXT NOT NULL,
                 fingerprint TEXT NOT NULL,
                 definition TEXT NOT NULL,
                 PRIMARY KEY (source, tool)
             );",
        )
        .map_err(failed("could not add the pins table to the database"))?;
    transaction
        .execute_batch("PRAGMA user_version = 5;")
        .map_err(failed("could not record the schema version"))?;
    transaction
        .commit()
        .map_err(failed("could not commit the database's migration"))
}

/// A parameter as SQLite binds it.
impl rusqlite::ToSql for Param {
    fn to_sql(&self) -> rusqlite::Result<ToSqlOutput<'_>> {
        match self {
            Param::Text(text) => text.to_sql(),
            Param::MaybeText(text) => text.to_sql(),
            Param::Int(int) => int.to_sql(),
            Param::MaybeInt(int) => int.to_sql(),
        }
    }
}

/// `sql` prepared on `connection`, `params` bound to `$1`, `$2`, … by name: SQLite numbers
/// named parameters in the order they first appear, which need not be theirs.
fn prepared<'c>(
    connection: &'c Connection,
    sql: &str,
    params: &[Param],
) -> rusqlite::Result<rusqlite::CachedStatement<'c>> {
    let mut statement = connection.prepare_cached(sql)?;
    if statement.parameter_count() != params.len() {
        return Err(rusqlite::Error::InvalidParameterCount(
            params.len(),
            statement.parameter_count(),
        ));
    }
    for (number, param) in params.iter().enumerate() {
        let name = format!("${}", number + 1);
        let index = statement
            .parameter_index(&name)?
            .ok_or(rusqlite::Error::InvalidParameterName(name))?;
        statement.raw_bind_parameter(index, param)?;
    }
    Ok(statement)
}

/// A connection one statement at a time: the store's, or a transaction's (which derefs to
/// its connection).
impl Database for Connection {
    fn run(&self, statement: Statement) -> Result<u64, StoreError> {
        let changed = prepared(self, statement.sql, &statement.params)
            .and_then(|mut prepared| prepared.raw_execute())
            .map_err(failed(statement.what))?;
        Ok(changed as u64)
    }

    fn rows(&self, statement: Statement) -> Result<Vec<Cells>, StoreError> {
        let read = || -> rusqlite::Result<Vec<Cells>> {
            let mut prepared = prepared(self, statement.sql, &statement.params)?;
            let columns = prepared.column_count();
            let mut rows = prepared.raw_query();
            let mut cells = Vec::new();
            while let Some(row) = rows.next()? {
                let row = (0..columns)
                    .map(|index| cell(row.get_ref(index)?, index))
                    .collect::<rusqlite::Result<Vec<Cell>>>()?;
                cells.push(Cells(row));
            }
            Ok(cells)
        };
        read().map_err(failed(statement.what))
    }
}

/// Column `index`'s value; a real number or a blob, which no statement reads, is an error.
fn cell(value: ValueRef<'_>, index: usize) -> rusqlite::Result<Cell> {
    match value {
        ValueRef::Null => Ok(Cell::Null),
        ValueRef::Integer(int) => Ok(Cell::Int(int)),
        ValueRef::Text(text) => Ok(Cell::Text(String::from_utf8_lossy(text).into_owned())),
        ValueRef::Real(_) | ValueRef::Blob(_) => Err(rusqlite::Error::InvalidColumnType(
            index,
            format!("column {index}"),
            value.data_type(),
        )),
    }
}

impl Database for SqliteStore {
    fn run(&self, statement: Statement) -> Result<u64, StoreError> {
        self.connection()?.run(statement)
    }

    fn rows(&self, statement: Statement) -> Result<Vec<Cells>, StoreError> {
        self.connection()?.rows(statement)
    }
}

impl Store for SqliteStore {
    written_once!();

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

    fn save_run(
        &self,
        run: &StoredRun,
        expected: Option<u64>,
    ) -> Result<SaveRunOutcome, StoreError> {
        let mut connection = self.connection()?;
        let transaction = connection
            .transaction_with_behavior(TransactionBehavior::Immediate)
            .map_err(failed("could not start saving the run"))?;
        let mark = sql::run_mark(&*transaction, &run.id)?;
        let above_mark = mark.is_none_or(|mark| ms(run.generation) > mark);
        let changed = match expected {
            _ if !above_mark => 0,
            None => transaction
                .execute(
                    "INSERT INTO toolset_runs (id, generation, run, seal)
                     VALUES (?1, ?2, ?3, ?4) ON CONFLICT (id) DO NOTHING",
                    params![run.id.as_str(), ms(run.generation), run.run, run.seal],
                )
                .map_err(failed("could not save the run"))?,
            Some(expected) => transaction
                .execute(
                    "UPDATE toolset_runs SET generation = ?2, run = ?3, seal = ?4
                     WHERE id = ?1 AND generation = ?5",
                    params![
                        run.id.as_str(),
                        ms(run.generation),
                        run.run,
                        run.seal,
                        ms(expected)
                    ],
                )
                .map_err(failed("could not save the run"))?,
        };
        if changed != 1 {
            let stored = sql::load_run(&*transaction, &run.id)?.map(|stored| stored.generation);
            return Ok(SaveRunOutcome::Conflict { stored });
        }
        transaction
            .execute(
                "INSERT INTO toolset_run_marks (id, generation) VALUES (?1, ?2)
                 ON CONFLICT (id) DO UPDATE SET generation = excluded.generation",
                params![run.id.as_str(), ms(run.generation)],
            )
            .map_err(failed("could not raise the run's mark"))?;
        transaction
            .commit()
            .map_err(failed("could not commit the run"))?;
        Ok(SaveRunOutcome::Saved)
    }
}

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
        let row = sql::proposal_row(&*transaction, id)?
            .ok_or_else(|| StoreError::new(format!("no proposal {id} is stored")))?;
        if let Some(outcome) = sql::settled(&row)? {
            return Ok(outcome);
        }
        for write in sql::resolution_writes(id, &row.proposal, resolution_now, declined)? {
            if transaction.run(write.statement)? != 1 {
                return Err(StoreError::new(write.unchanged));
            }
        }
        transaction
            .commit()
            .map_err(failed("could not commit the proposal's resolution"))?;
        Ok(ResolveOutcome::Resolved)
    }
}
