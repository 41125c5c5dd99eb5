//! The PostgreSQL store: one database shared by every replica of a host.
//!
//! [`Store`] is a blocking trait, called from plain threads and from async code
//! alike (the MCP server, hosts on any tokio runtime). A client that started its own
//! runtime inside the caller's would panic there, so the store owns a thread of its own
//! running a current-thread tokio runtime with the connection; each call is sent to it
//! through a channel and waits for the reply on a blocking channel, which is valid in
//! any context (it blocks the calling thread for one round trip, as SQLite's file lock
//! does).

use super::row::{Cell, Cells, ProposalRow};
use super::sql::{self, Database, Param, Statement, ms, written_once};
use super::{
    CallEnd, Ending, Resolution, ResolveOutcome, SaveRunOutcome, Store, StoreError, StoredRun,
};
use crate::output::ToolOutput;
use crate::proposal::ProposalId;
use std::sync::mpsc as reply;
use std::time::Duration;
use tokio::sync::mpsc;
use tokio_postgres::error::SqlState;
use tokio_postgres::types::{ToSql, Type};
use tokio_postgres::{Client, Config, IsolationLevel, NoTls};

/// All a [`Store`] keeps, in a PostgreSQL database shared by every process and replica
/// that connects to it.
///
/// Resolving is one transaction at `READ COMMITTED` (set explicitly, whatever the
/// server's default): the proposal's row is locked (`SELECT … FOR UPDATE`), so concurrent
/// resolvers on any connection wait for each other and each then reads the winner's
/// committed resolution; the winner's `UPDATE … WHERE decision IS NULL` and, approving,
/// the `INSERT` of its effect into the table `toolset_effects` (keyed by the proposal's
/// id, never removed) commit together or not at all. Exactly one resolver wins, and none
/// after an effect is on record. A decline writes its journal entry in the same
/// transaction. Saved runs are in the table `toolset_runs`, each written by one statement
/// conditioned on the generation expected and on the run's mark in `toolset_run_marks`,
/// which the same statement raises ([`Store::save_run`]). The pins of proxied tools are in
/// the table `toolset_pins`, each written by one statement conditioned on the pin it
/// replaces.
///
/// The store creates its tables itself and migrates an older schema, under a transaction
/// holding an advisory lock, so replicas starting together do not race; the version is in
/// the table `toolset_schema_version`.
///
/// One store is one connection, driven by a thread of its own: calls from several threads
/// are served one at a time. A lost connection is opened again at the next call. Plain TCP
/// and Unix sockets are supported; TLS is not (connect through a local TLS proxy, or on
/// the server's own network).
#[derive(Debug)]
pub struct PostgresStore {
    jobs: mpsc::UnboundedSender<Job>,
    /// Where the server is, for messages (never the password).
    server: String,
}

/// The schema this version of toolset writes. Each migration takes a database from the
/// version before it to its own; a database at a later version is refused.
const SCHEMA_VERSION: i32 = 7;

/// The steps through which every database reaches [`SCHEMA_VERSION`], run once each, in
/// order, in the transaction that holds the schema's advisory lock.
const MIGRATIONS: [&str; SCHEMA_VERSION as usize] = [
    // 1: the proposals, each with its resolution (`NULL`s while it waits).
    "CREATE TABLE IF NOT EXISTS toolset_proposals (
         id TEXT PRIMARY KEY NOT NULL,
         proposal TEXT NOT NULL,
         decision TEXT CHECK (decision IN ('approved', 'declined')),
         resolved_at_ms BIGINT
     )",
    // 2: one row per approved proposal, written with its resolution and never removed: the
    // record that its call was let run; the proposals approved before it get theirs.
    "CREATE TABLE IF NOT EXISTS toolset_effects (
         proposal_id TEXT PRIMARY KEY NOT NULL,
         started_at_ms BIGINT NOT NULL
     );
     INSERT INTO toolset_effects (proposal_id, started_at_ms)
         SELECT id, resolved_at_ms FROM toolset_proposals
         WHERE decision = 'approved' AND resolved_at_ms IS NOT NULL
     ON CONFLICT (proposal_id) DO NOTHING",
    // 3: the effect journal: what ran (call id, tool, tier, arguments as the model wrote
    // them, who made the call, canonical action key in hex), how often it was let start, a re-run the host
    // asked for, how it ended and when its result was delivered. The effects recorded
    // before hold no call (`call_id` stays `NULL`): they are never listed in doubt.
    "ALTER TABLE toolset_effects
         ADD COLUMN IF NOT EXISTS call_id TEXT,
         ADD COLUMN IF NOT EXISTS tool TEXT,
         ADD COLUMN IF NOT EXISTS tier TEXT,
         ADD COLUMN IF NOT EXISTS arguments TEXT,
         ADD COLUMN IF NOT EXISTS caller TEXT,
         ADD COLUMN IF NOT EXISTS action_key TEXT,
         ADD COLUMN IF NOT EXISTS attempts BIGINT NOT NULL DEFAULT 1,
         ADD COLUMN IF NOT EXISTS rerun BOOLEAN NOT NULL DEFAULT FALSE,
         ADD COLUMN IF NOT EXISTS ended TEXT CHECK (ended IN ('done', 'failed')),
         ADD COLUMN IF NOT EXISTS result TEXT,
         ADD COLUMN IF NOT EXISTS ended_at_ms BIGINT,
         ADD COLUMN IF NOT EXISTS delivered_at_ms BIGINT",
    // 4: declines on record in the journal (`ended = 'declined'`: a call that never
    // started, whose result is the human's refusal), and saved runs: each run's newest
    // copy (its JSON as written, its seal) and its generation, which every save and resume
    // raises by one, written only over the generation the writer loaded.
    "ALTER TABLE toolset_effects DROP CONSTRAINT IF EXISTS toolset_effects_ended_check;
     ALTER TABLE toolset_effects ADD CONSTRAINT toolset_effects_ended_check
         CHECK (ended IN ('done', 'failed', 'declined'));
     CREATE TABLE IF NOT EXISTS toolset_runs (
         id TEXT PRIMARY KEY NOT NULL,
         generation BIGINT NOT NULL,
         run TEXT NOT NULL,
         seal TEXT
     )",
    // 5: each run's mark: the highest generation ever saved of it, raised with each save
    // and never lowered, so a run's row put back whole is seen as old; each stored run is
    // marked at its generation.
    "CREATE TABLE IF NOT EXISTS toolset_run_marks (
         id TEXT PRIMARY KEY NOT NULL,
         generation BIGINT NOT NULL
     );
     INSERT INTO toolset_run_marks (id, generation)
         SELECT id, generation FROM toolset_runs
     ON CONFLICT (id) DO NOTHING",
    // 6: what the limits count and the sweep finds, out of the proposal's JSON: who
    // submitted it, when it expires, and its size as stored; filled in for the rows there.
    "ALTER TABLE toolset_proposals
         ADD COLUMN IF NOT EXISTS owner TEXT NOT NULL DEFAULT '',
         ADD COLUMN IF NOT EXISTS expires_ms BIGINT,
         ADD COLUMN IF NOT EXISTS bytes BIGINT NOT NULL DEFAULT 0;
     UPDATE toolset_proposals SET
         owner = coalesce(proposal::jsonb ->> 'owner', ''),
         expires_ms = (proposal::jsonb ->> 'expires_ms')::bigint,
         bytes = octet_length(proposal);
     CREATE INDEX IF NOT EXISTS toolset_proposals_expiry
         ON toolset_proposals (expires_ms) WHERE expires_ms IS NOT NULL",
    // 7: the pins of proxied tools: each tool's accepted definition (JSON) and its
    // fingerprint, by source (a namespace's label) and tool (its name on its server),
    // replaced only over the fingerprint its writer read.
    "CREATE TABLE IF NOT EXISTS toolset_pins (
         source TEXT NOT NULL,
         tool TEXT NOT NULL,
         fingerprint TEXT NOT NULL,
         definition TEXT NOT NULL,
         PRIMARY KEY (source, tool)
     )",
];

/// The advisory lock held while the schema is created or migrated: `toolset` in ASCII.
const SCHEMA_LOCK: i64 = 0x0074_6f6f_6c73_6574;

/// How long one call may wait for the server before it fails.
const CALL_TIMEOUT: Duration = Duration::from_secs(30);

/// How long connecting may take when the URL sets no `connect_timeout`.
const CONNECT_TIMEOUT: Duration = Duration::from_secs(10);

/// One call to the store's thread, and where its answer goes.
struct Job {
    request: Request,
    reply: reply::SyncSender<Result<Answer, StoreError>>,
}

enum Request {
    /// Resolves the proposal `id` ([`resolve`]); a decline with its journal record.
    Resolve {
        id: ProposalId,
        resolution: Resolution,
        declined: Option<CallEnd>,
    },
    /// One statement; answers how many rows it changed.
    Execute(Statement),
    /// One query's rows.
    Query(Statement),
}

enum Answer {
    Resolved(ResolveOutcome),
    Changed(u64),
    Rows(Vec<Cells>),
}

impl PostgresStore {
    /// Connects to the database at `url` (`postgres://user:password@host:port/database`,
    /// or the key-value form `host=… user=… dbname=…`; a Unix socket's directory as the
    /// host, percent-encoded in a URL), creating the proposals and effects tables or
    /// migrating older ones. Blocks until connected; callable from any thread, inside a
    /// tokio runtime or not.
    ///
    /// A URL that does not parse, a server that cannot be reached or refuses the login,
    /// and a schema newer than this toolset's are [`StoreError`]s saying what to check.
    pub fn connect(url: &str) -> Result<PostgresStore, StoreError> {
        let mut config: Config = url.parse().map_err(|error| {
            StoreError::new(format!(
                "the PostgreSQL URL is not valid ({error}): write it as \
                 postgres://user:password@host:port/database"
            ))
        })?;
        if config.get_connect_timeout().is_none() {
            config.connect_timeout(CONNECT_TIMEOUT);
        }
        let server = describe(&config);
        let (jobs, receiver) = mpsc::unbounded_channel();
        let (ready_sender, ready) = reply::sync_channel(1);
        let thread_server = server.clone();
        std::thread::Builder::new()
            .name("toolset-postgres".to_owned())
            .spawn(move || serve(config, thread_server, receiver, ready_sender))
            .map_err(|error| {
                StoreError::new(format!(
                    "could not start the PostgreSQL store's thread: {error}"
                ))
            })?;
        match ready.recv() {
            Ok(Ok(())) => Ok(PostgresStore { jobs, server }),
            Ok(Err(error)) => Err(error),
            Err(_) => Err(StoreError::new(format!(
                "the PostgreSQL store's thread for {server} stopped while connecting"
            ))),
        }
    }

    fn call(&self, request: Request) -> Result<Answer, StoreError> {
        let (sender, answer) = reply::sync_channel(1);
        let gone = || {
            StoreError::new(format!(
                "the PostgreSQL store's thread for {} stopped; connect a new store",
                self.server
            ))
        };
        self.jobs
            .send(Job {
                request,
                reply: sender,
            })
            .map_err(|_| gone())?;
        answer.recv().map_err(|_| gone())?
    }
}

/// `user@host:port/database`, for messages.
fn describe(config: &Config) -> String {
    let host = config
        .get_hosts()
        .first()
        .map(|host| match host {
            tokio_postgres::config::Host::Tcp(name) => name.clone(),
            #[cfg(unix)]
            tokio_postgres::config::Host::Unix(path) => path.display().to_string(),
        })
        .unwrap_or_else(|| "localhost".to_owned());
    let port = config.get_ports().first().copied().unwrap_or(5432);
    let user = config.get_user().unwrap_or("(the default user)");
    let database = config.get_dbname().unwrap_or("(the user's database)");
    format!("{user}@{host}:{port}/{database}")
}

/// The store's thread: its runtime, its connection, and the calls one at a time.
fn serve(
    config: Config,
    server: String,
    mut jobs: mpsc::UnboundedReceiver<Job>,
    ready: reply::SyncSender<Result<(), StoreError>>,
) {
    let runtime = match tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
    {
        Ok(runtime) => runtime,
        Err(error) => {
            let _ = ready.send(Err(StoreError::new(format!(
                "could not start the PostgreSQL store's runtime: {error}"
            ))));
            return;
        }
    };
    runtime.block_on(async move {
        let mut client = match open(&config, &server).await {
            Ok(client) => client,
            Err(error) => {
                let _ = ready.send(Err(error));
                return;
            }
        };
        if let Err(error) = timed(&server, migrate(&mut client, &server)).await {
            let _ = ready.send(Err(error));
            return;
        }
        let _ = ready.send(Ok(()));
        let mut client = Some(client);
        while let Some(job) = jobs.recv().await {
            let answer = run(&config, &server, &mut client, job.request).await;
            // The caller may have gone; its answer is then nobody's.
            let _ = job.reply.send(answer);
        }
    });
}

/// A connection, its driver spawned on the store's runtime.
async fn open(config: &Config, server: &str) -> Result<Client, StoreError> {
    let (client, connection) = config.connect(NoTls).await.map_err(|error| {
        StoreError::new(format!(
            "could not connect to PostgreSQL at {server} ({error}): check the URL (host, \
             port, user, password, database) and that the server is running and accepts \
             connections from here"
        ))
    })?;
    tokio::spawn(async move {
        // Its end (an error or the server closing) shows as `Client::is_closed`.
        let _ = connection.await;
    });
    Ok(client)
}

/// `work`, or an error once [`CALL_TIMEOUT`] has passed without an answer.
async fn timed<T>(
    server: &str,
    work: impl Future<Output = Result<T, StoreError>>,
) -> Result<T, StoreError> {
    tokio::time::timeout(CALL_TIMEOUT, work)
        .await
        .unwrap_or_else(|_| {
            Err(StoreError::new(format!(
                "PostgreSQL at {server} did not answer within {} s: check that the server \
                 is running and not overloaded",
                CALL_TIMEOUT.as_secs()
            )))
        })
}

fn failed(what: &str) -> impl Fn(tokio_postgres::Error) -> StoreError + '_ {
    move |error| StoreError::new(format!("{what}: {}", detailed(&error)))
}

/// The server's message when there is one (tokio-postgres's `Display` says only `db
/// error`).
fn detailed(error: &tokio_postgres::Error) -> String {
    match error.as_db_error() {
        Some(db) => format!("{error}: {}", db.message()),
        None => error.to_string(),
    }
}

/// Creates or migrates the schema, in one transaction holding the schema's advisory lock:
/// two stores connecting at once create it once, and the second finds it done.
async fn migrate(client: &mut Client, server: &str) -> Result<(), StoreError> {
    let could_not = |what: &'static str| failed(what);
    let transaction = client
        .transaction()
        .await
        .map_err(could_not("could not start creating the tables"))?;
    transaction
        .execute("SELECT pg_advisory_xact_lock($1)", &[&SCHEMA_LOCK])
        .await
        .map_err(could_not("could not take the schema's advisory lock"))?;
    transaction
        .batch_execute(
            "CREATE TABLE IF NOT EXISTS toolset_schema_version (
                 version INTEGER NOT NULL
             )",
        )
        .await
        .map_err(could_not(
            "could not create the table toolset_schema_version",
        ))?;
    let version: Option<i32> = transaction
        .query_one("SELECT max(version) FROM toolset_schema_version", &[])
        .await
        .and_then(|row| row.try_get(0))
        .map_err(could_not("could not read the schema's version"))?;
    let version = version.unwrap_or(0);
    if version > SCHEMA_VERSION {
        return Err(StoreError::new(format!(
            "the database {server} has toolset's schema version {version}, newer than this \
             toolset's ({SCHEMA_VERSION}): upgrade toolset, or connect to another database"
        )));
    }
    if version == SCHEMA_VERSION {
        return Ok(());
    }
    let from = usize::try_from(version.max(0)).unwrap_or(0);
    for step in &MIGRATIONS[from..] {
        transaction
            .batch_execute(step)
            .await
            .map_err(could_not("could not migrate the proposals' tables"))?;
    }
    transaction
        .execute("DELETE FROM toolset_schema_version", &[])
        .await
        .map_err(could_not("could not record the schema's version"))?;
    transaction
        .execute(
            "INSERT INTO toolset_schema_version (version) VALUES ($1)",
            &[&SCHEMA_VERSION],
        )
        .await
        .map_err(could_not("could not record the schema's version"))?;
    transaction
        .commit()
        .await
        .map_err(could_not("could not commit the proposals' tables"))
}

/// One call: the connection opened again first if it was lost.
async fn run(
    config: &Config,
    server: &str,
    client: &mut Option<Client>,
    request: Request,
) -> Result<Answer, StoreError> {
    if client.as_ref().is_none_or(Client::is_closed) {
        *client = None;
        *client = Some(open(config, server).await?);
    }
    let Some(connected) = client.as_mut() else {
        return Err(StoreError::new("no connection to PostgreSQL"));
    };
    let answer = timed(server, handle(connected, request)).await;
    if answer.is_err() {
        // The connection may be gone without its driver having noticed yet (a server
        // ending it says why first): the next call connects again.
        *client = None;
    }
    answer
}

async fn handle(client: &mut Client, request: Request) -> Result<Answer, StoreError> {
    match request {
        Request::Resolve {
            id,
            resolution,
            declined,
        } => Ok(Answer::Resolved(
            resolve(client, &id, &resolution, declined.as_ref()).await?,
        )),
        Request::Query(Statement { what, sql, params }) => {
            let rows = client
                .query(sql, &bound(&params))
                .await
                .map_err(failed(what))?;
            Ok(Answer::Rows(
                rows.iter().map(cells).collect::<Result<_, _>>()?,
            ))
        }
        Request::Execute(Statement { what, sql, params }) => {
            let changed = client
                .execute(sql, &bound(&params))
                .await
                .map_err(|error| {
                    if error.code() == Some(&SqlState::UNIQUE_VIOLATION) {
                        StoreError::new(format!("{what}: its key is already stored"))
                    } else {
                        failed(what)(error)
                    }
                })?;
            Ok(Answer::Changed(changed))
        }
    }
}

/// The parameters as the client takes them.
fn bound(params: &[Param]) -> Vec<&(dyn ToSql + Sync)> {
    params
        .iter()
        .map(|param| match param {
            Param::Text(text) => text as &(dyn ToSql + Sync),
            Param::MaybeText(text) => text as &(dyn ToSql + Sync),
            Param::Int(int) => int as &(dyn ToSql + Sync),
            Param::MaybeInt(int) => int as &(dyn ToSql + Sync),
        })
        .collect()
}

/// A row's columns as the stores read them: text, integers (a boolean as 0 or 1), `NULL`.
fn cells(row: &tokio_postgres::Row) -> Result<Cells, StoreError> {
    let cell = |index: usize, kind: &Type| -> Result<Cell, tokio_postgres::Error> {
        let or_null = |cell: Option<Cell>| cell.unwrap_or(Cell::Null);
        Ok(match *kind {
            Type::INT8 => or_null(row.try_get::<_, Option<i64>>(index)?.map(Cell::Int)),
            Type::INT4 => or_null(
                row.try_get::<_, Option<i32>>(index)?
                    .map(|int| Cell::Int(i64::from(int))),
            ),
            Type::BOOL => or_null(
                row.try_get::<_, Option<bool>>(index)?
                    .map(|flag| Cell::Int(i64::from(flag))),
            ),
            _ => or_null(row.try_get::<_, Option<String>>(index)?.map(Cell::Text)),
        })
    };
    row.columns()
        .iter()
        .enumerate()
        .map(|(index, column)| {
            cell(index, column.type_()).map_err(|error| {
                StoreError::new(format!(
                    "the column {} is not readable: {error}",
                    column.name()
                ))
            })
        })
        .collect::<Result<_, _>>()
        .map(Cells)
}

/// The resolution's transaction (see [`PostgresStore`]): the row locked, then what
/// `sql.rs` checks and writes.
async fn resolve(
    client: &mut Client,
    id: &ProposalId,
    resolution_now: &Resolution,
    declined: Option<&CallEnd>,
) -> Result<ResolveOutcome, StoreError> {
    // READ COMMITTED whatever the server's default: a resolver that waited for the row's
    // lock then reads the winner's committed row, where REPEATABLE READ or SERIALIZABLE
    // would fail it with a serialization error instead.
    let transaction = client
        .build_transaction()
        .isolation_level(IsolationLevel::ReadCommitted)
        .start()
        .await
        .map_err(failed("could not start resolving the proposal"))?;
    let locked = transaction
        .query_opt(
            "SELECT 1 FROM toolset_proposals WHERE id = $1 FOR UPDATE",
            &[&id.as_str()],
        )
        .await
        .map_err(failed("could not lock the proposal"))?;
    if locked.is_none() {
        return Err(StoreError::new(format!("no proposal {id} is stored")));
    }
    // A statement of its own, after the lock: under READ COMMITTED it sees every
    // resolution and effect committed before it, those of a resolver we waited for
    // included.
    let found = transaction
        .query_opt(sql::PROPOSAL, &[&id.as_str()])
        .await
        .map_err(failed("could not read the proposal"))?
        .ok_or_else(|| StoreError::new(format!("no proposal {id} is stored")))?;
    let row = ProposalRow::read(cells(&found)?)?;
    if let Some(outcome) = sql::settled(&row)? {
        return Ok(outcome);
    }
    for write in sql::resolution_writes(id, &row.proposal, resolution_now, declined)? {
        let Statement { what, sql, params } = write.statement;
        let changed = transaction
            .execute(sql, &bound(&params))
            .await
            .map_err(failed(what))?;
        if changed != 1 {
            return Err(StoreError::new(write.unchanged));
        }
    }
    transaction.commit().await.map_err(|error| {
        StoreError::new(format!(
            "could not commit the proposal {id}'s resolution ({}): it may or may not be \
             recorded; read it again before acting on it",
            detailed(&error)
        ))
    })?;
    Ok(ResolveOutcome::Resolved)
}

fn unexpected() -> StoreError {
    StoreError::new("the PostgreSQL store's thread answered another call")
}

impl Store for PostgresStore {
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
        self.resolve_with(id, &Resolution::declined(at_ms), Some(end))
    }

    fn forget(&self, id: &ProposalId) -> Result<bool, StoreError> {
        // One statement, so one transaction: the row goes and its decline's arguments with it.
        let rows = self.query(
            "could not remove the proposal",
            "WITH gone AS (
                 DELETE FROM toolset_proposals WHERE id = $1 AND decision = 'declined'
                 RETURNING id
             ), cleared AS (
                 UPDATE toolset_effects SET arguments = '{}'
                 WHERE proposal_id IN (SELECT id FROM gone) AND ended = 'declined'
             )
             SELECT count(*) FROM gone",
            vec![Param::Text(id.as_str().to_owned())],
        )?;
        let removed = rows.into_iter().next().ok_or_else(unexpected)?.int(0)?;
        Ok(removed == 1)
    }

    // A save is one statement, atomic on its own: an `INSERT … ON CONFLICT DO NOTHING` for
    // a new run, an `UPDATE … WHERE generation = <expected>` for the others, each only
    // above the run's mark, and the mark raised by the same statement; of concurrent
    // writers expecting one generation, one changes the row.
    fn save_run(
        &self,
        run: &StoredRun,
        expected: Option<u64>,
    ) -> Result<SaveRunOutcome, StoreError> {
        let mut params = vec![
            Param::Text(run.id.as_str().to_owned()),
            Param::Int(ms(run.generation)),
            Param::Text(run.run.clone()),
            Param::MaybeText(run.seal.clone()),
        ];
        // The rows the `saved` step changed raise the mark: one row, or none.
        let changed = match expected {
            None => self.execute(
                "could not save the run",
                "WITH saved AS (
                     INSERT INTO toolset_runs (id, generation, run, seal)
                     SELECT $1::TEXT, $2::BIGINT, $3::TEXT, $4::TEXT
                     WHERE NOT EXISTS (SELECT 1 FROM toolset_run_marks
                                       WHERE id = $1 AND generation >= $2)
                     ON CONFLICT (id) DO NOTHING
                     RETURNING id, generation
                 )
                 INSERT INTO toolset_run_marks (id, generation) SELECT id, generation FROM saved
                 ON CONFLICT (id) DO UPDATE SET generation = EXCLUDED.generation",
                params,
            )?,
            Some(expected) => {
                params.push(Param::Int(ms(expected)));
                self.execute(
                    "could not save the run",
                    "WITH saved AS (
                         UPDATE toolset_runs SET generation = $2, run = $3, seal = $4
                         WHERE id = $1 AND generation = $5
                         AND NOT EXISTS (SELECT 1 FROM toolset_run_marks
                                         WHERE id = $1 AND generation >= $2)
                         RETURNING id, generation
                     )
                     INSERT INTO toolset_run_marks (id, generation)
                     SELECT id, generation FROM saved
                     ON CONFLICT (id) DO UPDATE SET generation = EXCLUDED.generation",
                    params,
                )?
            }
        };
        if changed == 1 {
            return Ok(SaveRunOutcome::Saved);
        }
        let stored = self.load_run(&run.id)?.map(|stored| stored.generation);
        Ok(SaveRunOutcome::Conflict { stored })
    }
}

impl PostgresStore {
    /// Resolves `id` on the store's thread ([`resolve`]); a decline with its journal
    /// record `declined`, when given, in the same transaction.
    fn resolve_with(
        &self,
        id: &ProposalId,
        resolution: &Resolution,
        declined: Option<CallEnd>,
    ) -> Result<ResolveOutcome, StoreError> {
        match self.call(Request::Resolve {
            id: id.clone(),
            resolution: resolution.clone(),
            declined,
        })? {
            Answer::Resolved(outcome) => Ok(outcome),
            _ => Err(unexpected()),
        }
    }
}

impl Database for PostgresStore {
    fn run(&self, statement: Statement) -> Result<u64, StoreError> {
        match self.call(Request::Execute(statement))? {
            Answer::Changed(changed) => Ok(changed),
            _ => Err(unexpected()),
        }
    }

    fn rows(&self, statement: Statement) -> Result<Vec<Cells>, StoreError> {
        match self.call(Request::Query(statement))? {
            Answer::Rows(rows) => Ok(rows),
            _ => Err(unexpected()),
        }
    }
}
