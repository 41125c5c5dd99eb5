//! The PostgreSQL proposal store: one database shared by every replica of a host.
//!
//! [`ProposalStore`] is a blocking trait, called from plain threads and from async code
//! alike (the MCP server, hosts on any tokio runtime). A client that started its own
//! runtime inside the caller's would panic there, so the store owns a thread of its own
//! running a current-thread tokio runtime with the connection; each call is sent to it
//! through a channel and waits for the reply on a blocking channel, which is valid in
//! any context (it blocks the calling thread for one round trip, as SQLite's file lock
//! does).

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
use std::sync::mpsc as reply;
use std::time::Duration;
use tokio::sync::mpsc;
use tokio_postgres::error::SqlState;
use tokio_postgres::{Client, Config, IsolationLevel, NoTls};

/// Proposals in a PostgreSQL database, shared by every process and replica that connects
/// to it.
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
/// which the same statement raises ([`RunStore`]).
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
const SCHEMA_VERSION: i32 = 6;

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
    Insert {
        id: String,
        json: String,
        owner: String,
        expires_ms: Option<i64>,
    },
    Get {
        id: String,
    },
    Resolve {
        id: String,
        decision: Decision,
        at: i64,
        /// A decline's journal record: its ending, result and time.
        declined: Option<(String, String, i64)>,
    },
    /// The run `id`'s stored copy: its generation, JSON and seal.
    LoadRun {
        id: String,
    },
    /// The run `id`'s mark, the highest generation saved.
    RunMark {
        id: String,
    },
    /// One journal statement; answers how many rows it changed.
    Execute {
        sql: &'static str,
        params: Vec<Param>,
    },
    /// One query's rows.
    Query {
        sql: &'static str,
        params: Vec<Param>,
    },
    /// The journal entries `WHERE call_id IS NOT NULL AND <clause>`.
    Entries {
        clause: &'static str,
        params: Vec<Param>,
    },
}

/// A journal statement's parameter.
enum Param {
    Text(String),
    MaybeText(Option<String>),
    Int(i64),
}

enum Answer {
    Inserted,
    Row(Option<Row>),
    Resolved(ResolveOutcome),
    Changed(u64),
    Entries(Vec<EntryRow>),
    Run(Option<(i64, String, Option<String>)>),
    Mark(Option<i64>),
    Rows(Vec<tokio_postgres::Row>),
}

/// A proposal's row, with its effect's if it has one (`NULL`s while it waits).
struct Row {
    proposal: String,
    decision: Option<String>,
    resolved_at_ms: Option<i64>,
    /// The effect's start; `None` for a decline on record (no effect).
    started_at_ms: Option<i64>,
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
        Request::Insert {
            id,
            json,
            owner,
            expires_ms,
        } => {
            let bytes = i64::try_from(json.len()).unwrap_or(i64::MAX);
            client
                .execute(
                    "INSERT INTO toolset_proposals (id, proposal, owner, expires_ms, bytes)
                     VALUES ($1, $2, $3, $4, $5)",
                    &[&id, &json, &owner, &expires_ms, &bytes],
                )
                .await
                .map_err(|error| {
                    if error.code() == Some(&SqlState::UNIQUE_VIOLATION) {
                        StoreError::new(format!("the proposal {id} is already stored"))
                    } else {
                        failed("could not insert the proposal")(error)
                    }
                })?;
            Ok(Answer::Inserted)
        }
        Request::Get { id } => Ok(Answer::Row(row(client, &id).await?)),
        Request::Resolve {
            id,
            decision,
            at,
            declined,
        } => Ok(Answer::Resolved(
            resolve(client, &id, decision, at, declined).await?,
        )),
        Request::LoadRun { id } => {
            let found = client
                .query_opt(
                    "SELECT generation, run, seal FROM toolset_runs WHERE id = $1",
                    &[&id],
                )
                .await
                .map_err(failed("could not read the run"))?;
            let read =
                |error| StoreError::new(format!("the run {id}'s row is not readable: {error}"));
            let Some(found) = found else {
                return Ok(Answer::Run(None));
            };
            Ok(Answer::Run(Some((
                found.try_get(0).map_err(read)?,
                found.try_get(1).map_err(read)?,
                found.try_get(2).map_err(read)?,
            ))))
        }
        Request::RunMark { id } => {
            let found = client
                .query_opt(
                    "SELECT generation FROM toolset_run_marks WHERE id = $1",
                    &[&id],
                )
                .await
                .map_err(failed("could not read the run's mark"))?;
            let mark = found
                .map(|found| found.try_get(0))
                .transpose()
                .map_err(|error| {
                    StoreError::new(format!("the run {id}'s mark is not readable: {error}"))
                })?;
            Ok(Answer::Mark(mark))
        }
        Request::Query { sql, params } => {
            let params = bound(&params);
            let rows = client
                .query(sql, &params)
                .await
                .map_err(failed("could not read the proposals"))?;
            Ok(Answer::Rows(rows))
        }
        Request::Execute { sql, params } => {
            let params = bound(&params);
            let changed = client
                .execute(sql, &params)
                .await
                .map_err(failed("could not write the journal or the run"))?;
            Ok(Answer::Changed(changed))
        }
        Request::Entries { clause, params } => {
            let params = bound(&params);
            let rows = client
                .query(
                    &format!(
                        "SELECT {ENTRY_COLUMNS} FROM toolset_effects
                         WHERE call_id IS NOT NULL AND {clause}"
                    ),
                    &params,
                )
                .await
                .map_err(failed("could not read the journal"))?;
            let read = |error| StoreError::new(format!("a journal row is not readable: {error}"));
            let rows = rows
                .iter()
                .map(|row| {
                    Ok(EntryRow {
                        key: row.try_get(0).map_err(read)?,
                        call_id: row.try_get(1).map_err(read)?,
                        tool: row.try_get(2).map_err(read)?,
                        tier: row.try_get(3).map_err(read)?,
                        arguments: row.try_get(4).map_err(read)?,
                        caller: row.try_get(5).map_err(read)?,
                        started_at_ms: row.try_get(6).map_err(read)?,
                        attempts: row.try_get(7).map_err(read)?,
                        rerun: row.try_get(8).map_err(read)?,
                        ended: row.try_get(9).map_err(read)?,
                        result: row.try_get(10).map_err(read)?,
                        ended_at_ms: row.try_get(11).map_err(read)?,
                        delivered_at_ms: row.try_get(12).map_err(read)?,
                    })
                })
                .collect::<Result<Vec<_>, StoreError>>()?;
            Ok(Answer::Entries(rows))
        }
    }
}

/// The parameters as the client takes them.
fn bound(params: &[Param]) -> Vec<&(dyn tokio_postgres::types::ToSql + Sync)> {
    params
        .iter()
        .map(|param| match param {
            Param::Text(text) => text as &(dyn tokio_postgres::types::ToSql + Sync),
            Param::MaybeText(text) => text as &(dyn tokio_postgres::types::ToSql + Sync),
            Param::Int(int) => int as &(dyn tokio_postgres::types::ToSql + Sync),
        })
        .collect()
}

async fn row(client: &Client, id: &str) -> Result<Option<Row>, StoreError> {
    let found = client
        .query_opt(
            "SELECT p.proposal, p.decision, p.resolved_at_ms,
                 CASE WHEN e.ended = 'declined' THEN NULL ELSE e.started_at_ms END
             FROM toolset_proposals AS p
             LEFT JOIN toolset_effects AS e ON e.proposal_id = p.id
             WHERE p.id = $1",
            &[&id],
        )
        .await
        .map_err(failed("could not read the proposal"))?;
    let Some(found) = found else {
        return Ok(None);
    };
    let read = |error| StoreError::new(format!("the proposal {id}'s row is not readable: {error}"));
    Ok(Some(Row {
        proposal: found.try_get(0).map_err(read)?,
        decision: found.try_get(1).map_err(read)?,
        resolved_at_ms: found.try_get(2).map_err(read)?,
        started_at_ms: found.try_get(3).map_err(read)?,
    }))
}

/// The resolution's transaction (see [`PostgresStore`]).
async fn resolve(
    client: &mut Client,
    id: &str,
    decision_now: Decision,
    at: i64,
    declined: Option<(String, String, i64)>,
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
            "SELECT decision, resolved_at_ms, proposal FROM toolset_proposals
             WHERE id = $1 FOR UPDATE",
            &[&id],
        )
        .await
        .map_err(failed("could not lock the proposal"))?;
    let Some(locked) = locked else {
        return Err(StoreError::new(format!("no proposal {id} is stored")));
    };
    let read = |error| StoreError::new(format!("the proposal {id}'s row is not readable: {error}"));
    let decision_then: Option<String> = locked.try_get(0).map_err(read)?;
    let at_then: Option<i64> = locked.try_get(1).map_err(read)?;
    let json: String = locked.try_get(2).map_err(read)?;
    if let Some(earlier) = resolution(decision_then, at_then)? {
        return Ok(ResolveOutcome::AlreadyResolved(earlier));
    }
    // A statement of its own: under READ COMMITTED it sees every effect committed before
    // it, the one of a resolver we waited for included.
    let effect_then = transaction
        .query_opt(
            "SELECT started_at_ms, ended, ended_at_ms FROM toolset_effects
             WHERE proposal_id = $1",
            &[&id],
        )
        .await
        .map_err(failed("could not read the proposal's effect"))?;
    if let Some(effect_then) = effect_then {
        let started: i64 = effect_then.try_get(0).map_err(read)?;
        let ended: Option<String> = effect_then.try_get(1).map_err(read)?;
        let ended_at: Option<i64> = effect_then.try_get(2).map_err(read)?;
        if ended.as_deref() == Some("declined") {
            // A decline on record, though the resolution was reset: it stays declined.
            return Ok(ResolveOutcome::AlreadyResolved(Resolution {
                decision: Decision::Declined,
                at_ms: u64::try_from(ended_at.unwrap_or(started)).unwrap_or(0),
            }));
        }
        return Ok(ResolveOutcome::EffectRecorded(effect(started)));
    }
    let changed = transaction
        .execute(
            "UPDATE toolset_proposals SET decision = $1, resolved_at_ms = $2
             WHERE id = $3 AND decision IS NULL",
            &[&decision_now.as_str(), &at, &id],
        )
        .await
        .map_err(failed("could not resolve the proposal"))?;
    if changed != 1 {
        return Err(StoreError::new(format!(
            "the proposal {id} could not be resolved"
        )));
    }
    if decision_now == Decision::Approved {
        // The effect is the start of the call's journal entry: the call's facts come from
        // the proposal. A primary key: a second effect for one id is refused by the
        // database too, and then nothing of this transaction is kept.
        let proposal_id = ProposalId::parse(id)
            .ok_or_else(|| StoreError::new(format!("`{id}` is not a proposal id")))?;
        let proposal = stored(&proposal_id, &json, None, None, None)?.proposal;
        let call = &proposal.call;
        let recorded = transaction
            .execute(
                "INSERT INTO toolset_effects (proposal_id, started_at_ms, call_id, tool, tier,
                     arguments, action_key, caller)
                 VALUES ($1, $2, $3, $4, $5, $6, $7, $8)
                 ON CONFLICT (proposal_id) DO NOTHING",
                &[
                    &id,
                    &at,
                    &call.id,
                    &call.name,
                    &proposal.tier.as_str(),
                    &call.arguments.to_string(),
                    &hex(&call.action_key()),
                    &caller_column(call),
                ],
            )
            .await
            .map_err(failed("could not record the proposal's effect"))?;
        if recorded != 1 {
            return Err(StoreError::new(format!(
                "the proposal {id}'s effect was recorded by someone else: it was not resolved"
            )));
        }
    }
    if let (Decision::Declined, Some((ending, result, ended_at))) = (decision_now, declined) {
        // The decline's journal entry: never started (no attempts), ended with the answer
        // the model reads, waiting to be delivered.
        let proposal_id = ProposalId::parse(id)
            .ok_or_else(|| StoreError::new(format!("`{id}` is not a proposal id")))?;
        let proposal = stored(&proposal_id, &json, None, None, None)?.proposal;
        let call = &proposal.call;
        let recorded = transaction
            .execute(
                "INSERT INTO toolset_effects (proposal_id, started_at_ms, call_id, tool, tier,
                     arguments, action_key, caller, attempts, ended, result, ended_at_ms)
                 VALUES ($1, $2, $3, $4, $5, $6, $7, $8, 0, $9, $10, $11)
                 ON CONFLICT (proposal_id) DO NOTHING",
                &[
                    &id,
                    &at,
                    &call.id,
                    &call.name,
                    &proposal.tier.as_str(),
                    &call.arguments.to_string(),
                    &hex(&call.action_key()),
                    &caller_column(call),
                    &ending,
                    &result,
                    &ended_at,
                ],
            )
            .await
            .map_err(failed("could not record the proposal's decline"))?;
        if recorded != 1 {
            return Err(StoreError::new(format!(
                "the proposal {id}'s journal entry was recorded by someone else: it was not declined"
            )));
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

impl ProposalStore for PostgresStore {
    fn insert(&self, proposal: &Proposal) -> Result<(), StoreError> {
        let json = serde_json::to_string(proposal).map_err(|error| {
            StoreError::new(format!("could not serialize the proposal: {error}"))
        })?;
        match self.call(Request::Insert {
            id: proposal.id().as_str().to_owned(),
            json,
            owner: proposal.owner.clone(),
            expires_ms: proposal.expires_ms.map(ms),
        })? {
            Answer::Inserted => Ok(()),
            _ => Err(unexpected()),
        }
    }

    fn get(&self, id: &ProposalId) -> Result<Option<Stored>, StoreError> {
        let Answer::Row(row) = self.call(Request::Get {
            id: id.as_str().to_owned(),
        })?
        else {
            return Err(unexpected());
        };
        let Some(row) = row else {
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
        match self.call(Request::Resolve {
            id: id.as_str().to_owned(),
            decision: resolution_now.decision,
            at: i64::try_from(resolution_now.at_ms).unwrap_or(i64::MAX),
            declined: None,
        })? {
            Answer::Resolved(outcome) => Ok(outcome),
            _ => Err(unexpected()),
        }
    }

    fn decline(
        &self,
        id: &ProposalId,
        at_ms: u64,
        answer: &ToolOutput,
    ) -> Result<ResolveOutcome, StoreError> {
        let end = &CallEnd::with_output(Ending::Declined, answer, at_ms);
        match self.call(Request::Resolve {
            id: id.as_str().to_owned(),
            decision: Decision::Declined,
            at: ms(at_ms),
            declined: Some((
                end.ending.as_str().to_owned(),
                end.result.clone(),
                ms(end.at_ms),
            )),
        })? {
            Answer::Resolved(outcome) => Ok(outcome),
            _ => Err(unexpected()),
        }
    }

    fn as_journal(&self) -> Option<&dyn Journal> {
        Some(self)
    }

    fn usage(&self, owner: &str, now_ms: u64) -> Result<Usage, StoreError> {
        let rows = self.query(
            "SELECT count(*) FILTER (WHERE owner = $1),
                 coalesce(sum(bytes) FILTER (WHERE owner = $1), 0)::BIGINT,
                 count(*), coalesce(sum(bytes), 0)::BIGINT
             FROM toolset_proposals
             WHERE (decision IS NULL AND (expires_ms IS NULL OR expires_ms > $2))
                 OR (decision = 'declined' AND expires_ms > $2)",
            vec![Param::Text(owner.to_owned()), Param::Int(ms(now_ms))],
        )?;
        let row = rows.first().ok_or_else(unexpected)?;
        let read = |index: usize| -> Result<u64, StoreError> {
            let value: i64 = row.try_get(index).map_err(|error| {
                StoreError::new(format!("the proposals' count is not readable: {error}"))
            })?;
            Ok(u64::try_from(value).unwrap_or(0))
        };
        Ok(Usage {
            owner: Tally::new(read(0)?, read(1)?),
            overall: Tally::new(read(2)?, read(3)?),
        })
    }

    fn expired(&self, now_ms: u64) -> Result<Vec<ProposalId>, StoreError> {
        let rows = self.query(
            "SELECT id FROM toolset_proposals
             WHERE expires_ms IS NOT NULL AND expires_ms <= $1
                 AND (decision IS NULL OR decision = 'declined')",
            vec![Param::Int(ms(now_ms))],
        )?;
        rows.iter()
            .map(|row| {
                let id: String = row.try_get(0).map_err(|error| {
                    StoreError::new(format!("an expired proposal's id is not readable: {error}"))
                })?;
                ProposalId::parse(&id).ok_or_else(|| {
                    StoreError::new(format!(
                        "the stored proposal id {id:?} is not a proposal id"
                    ))
                })
            })
            .collect()
    }

    fn forget(&self, id: &ProposalId) -> Result<bool, StoreError> {
        // One statement, so one transaction: the row goes and its decline's arguments with it.
        let rows = self.query(
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
        let removed: i64 = rows
            .first()
            .ok_or_else(unexpected)?
            .try_get(0)
            .map_err(|error| {
                StoreError::new(format!("the removal's count is not readable: {error}"))
            })?;
        Ok(removed == 1)
    }
}

/// A millisecond time as PostgreSQL stores it.
fn ms(at_ms: u64) -> i64 {
    i64::try_from(at_ms).unwrap_or(i64::MAX)
}

impl PostgresStore {
    /// Runs one query; its rows.
    fn query(
        &self,
        sql: &'static str,
        params: Vec<Param>,
    ) -> Result<Vec<tokio_postgres::Row>, StoreError> {
        match self.call(Request::Query { sql, params })? {
            Answer::Rows(rows) => Ok(rows),
            _ => Err(unexpected()),
        }
    }

    /// Runs one journal statement; how many rows it changed.
    fn execute(&self, sql: &'static str, params: Vec<Param>) -> Result<u64, StoreError> {
        match self.call(Request::Execute { sql, params })? {
            Answer::Changed(changed) => Ok(changed),
            _ => Err(unexpected()),
        }
    }

    /// The journal entries a clause selects.
    fn entries(
        &self,
        clause: &'static str,
        params: Vec<Param>,
    ) -> Result<Vec<JournalEntry>, StoreError> {
        match self.call(Request::Entries { clause, params })? {
            Answer::Entries(rows) => rows.into_iter().map(journal_entry).collect(),
            _ => Err(unexpected()),
        }
    }
}

/// Each operation is one statement, atomic on its own (a start is an `INSERT … ON
/// CONFLICT DO NOTHING`, then a re-run's `UPDATE … WHERE rerun`): concurrent callers on
/// any connection see one winner.
impl Journal for PostgresStore {
    fn start(&self, start: &CallStart) -> Result<StartOutcome, StoreError> {
        let call = &start.call;
        let inserted = self.execute(
            "INSERT INTO toolset_effects (proposal_id, started_at_ms, call_id, tool, tier,
                 arguments, action_key, caller)
             VALUES ($1, $2, $3, $4, $5, $6, $7, $8)
             ON CONFLICT (proposal_id) DO NOTHING",
            vec![
                Param::Text(start.key.clone()),
                Param::Int(ms(start.at_ms)),
                Param::Text(call.id.clone()),
                Param::Text(call.name.clone()),
                Param::Text(start.tier.as_str().to_owned()),
                Param::Text(call.arguments.to_string()),
                Param::Text(hex(&call.action_key())),
                Param::MaybeText(caller_column(call)),
            ],
        )?;
        if inserted == 1 {
            return Ok(StartOutcome::Started);
        }
        let restarted = self.execute(
            "UPDATE toolset_effects SET rerun = FALSE, attempts = attempts + 1,
                 started_at_ms = $2, ended = NULL, result = NULL, ended_at_ms = NULL
             WHERE proposal_id = $1 AND call_id IS NOT NULL AND rerun",
            vec![Param::Text(start.key.clone()), Param::Int(ms(start.at_ms))],
        )?;
        if restarted == 1 {
            return Ok(StartOutcome::Started);
        }
        match self.entry(&start.key)? {
            Some(earlier) => Ok(StartOutcome::AlreadyStarted(Box::new(earlier))),
            None => Err(StoreError::new(format!(
                "the key {} holds an effect from before the journal",
                start.key
            ))),
        }
    }

    fn end(&self, key: &str, end: &CallEnd) -> Result<EndOutcome, StoreError> {
        let ended = self.execute(
            "UPDATE toolset_effects SET ended = $2, result = $3, ended_at_ms = $4, rerun = FALSE
             WHERE proposal_id = $1 AND call_id IS NOT NULL AND ended IS NULL",
            vec![
                Param::Text(key.to_owned()),
                Param::Text(end.ending.as_str().to_owned()),
                Param::Text(end.result.clone()),
                Param::Int(ms(end.at_ms)),
            ],
        )?;
        if ended == 1 {
            return Ok(EndOutcome::Ended);
        }
        match self.entry(key)? {
            None => Ok(EndOutcome::Unknown),
            Some(JournalEntry { end: Some(end), .. }) => Ok(EndOutcome::AlreadyEnded(end)),
            Some(_) => Err(StoreError::new(format!(
                "the call {key}'s end could not be recorded"
            ))),
        }
    }

    fn entry(&self, key: &str) -> Result<Option<JournalEntry>, StoreError> {
        Ok(self
            .entries("proposal_id = $1", vec![Param::Text(key.to_owned())])?
            .into_iter()
            .next())
    }

    fn in_doubt(&self) -> Result<Vec<JournalEntry>, StoreError> {
        self.entries(
            "ended IS NULL ORDER BY started_at_ms, proposal_id",
            Vec::new(),
        )
    }

    fn rerun(&self, key: &str, attempts: u32) -> Result<bool, StoreError> {
        let changed = self.execute(
            "UPDATE toolset_effects SET rerun = TRUE
             WHERE proposal_id = $1 AND call_id IS NOT NULL AND ended IS NULL
                 AND NOT rerun AND attempts = $2",
            vec![Param::Text(key.to_owned()), Param::Int(i64::from(attempts))],
        )?;
        Ok(changed == 1)
    }

    fn undelivered(&self) -> Result<Vec<JournalEntry>, StoreError> {
        self.entries(
            "ended IS NOT NULL AND delivered_at_ms IS NULL ORDER BY ended_at_ms, proposal_id",
            Vec::new(),
        )
    }

    fn mark_delivered(&self, key: &str, at_ms: u64) -> Result<bool, StoreError> {
        let changed = self.execute(
            "UPDATE toolset_effects SET delivered_at_ms = $2
             WHERE proposal_id = $1 AND call_id IS NOT NULL AND ended IS NOT NULL
                 AND delivered_at_ms IS NULL",
            vec![Param::Text(key.to_owned()), Param::Int(ms(at_ms))],
        )?;
        Ok(changed == 1)
    }
}

/// A save is one statement, atomic on its own: an `INSERT … ON CONFLICT DO NOTHING` for a
/// new run, an `UPDATE … WHERE generation = <expected>` for the others, each only above
/// the run's mark, and the mark raised by the same statement; of concurrent writers
/// expecting one generation, one changes the row.
impl RunStore for PostgresStore {
    fn load_run(&self, id: &RunId) -> Result<Option<StoredRun>, StoreError> {
        let Answer::Run(row) = self.call(Request::LoadRun {
            id: id.as_str().to_owned(),
        })?
        else {
            return Err(unexpected());
        };
        row.map(|(generation, run, seal)| StoredRun::from_row(id, generation, run, seal))
            .transpose()
    }

    fn save_run(
        &self,
        run: &StoredRun,
        expected: Option<u64>,
    ) -> Result<SaveRunOutcome, StoreError> {
        let generation = |at: u64| i64::try_from(at).unwrap_or(i64::MAX);
        let mut params = vec![
            Param::Text(run.id.as_str().to_owned()),
            Param::Int(generation(run.generation)),
            Param::Text(run.run.clone()),
            Param::MaybeText(run.seal.clone()),
        ];
        // The rows the `saved` step changed raise the mark: one row, or none.
        let changed = match expected {
            None => self.execute(
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
                params.push(Param::Int(generation(expected)));
                self.execute(
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

    fn newest_generation(&self, id: &RunId) -> Result<Option<u64>, StoreError> {
        let Answer::Mark(mark) = self.call(Request::RunMark {
            id: id.as_str().to_owned(),
        })?
        else {
            return Err(unexpected());
        };
        super::runs::mark_from_row(id, mark)
    }
}
