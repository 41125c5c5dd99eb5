//! What SQLite and PostgreSQL run alike, written once: the statements, in PostgreSQL's
//! `$1` placeholders (which SQLite reads as named parameters and `sqlite.rs` binds by
//! name, so one text serves both dialects), and the sequencing of every operation that is
//! one statement at a time, each atomic on its own: inserting, reading and counting
//! proposals, the whole journal, reading runs and their marks, the pins of proxied tools. A resolution's checks and
//! writes are here too ([`settled`], [`resolution_writes`]); each store runs them in a
//! transaction of its own, with its own lock. What stays in each store's file: its schema
//! and migrations, its transactions, and the statements only its dialect can write
//! (PostgreSQL's data-modifying `WITH`).

use super::pins::Pin;
use super::row::{Cells, ProposalRow, caller_column, effect, journal_entry, resolution};
use super::runs::{RunId, StoredRun, mark_from_row};
use super::{
    CallEnd, CallStart, Decision, EndOutcome, JournalEntry, Resolution, ResolveOutcome,
    StartOutcome, StoreError, Stored, Tally, Usage,
};
use crate::call::ToolCall;
use crate::digest::hex;
use crate::proposal::Proposal;
use crate::proposal::ProposalId;
use crate::tier::Tier;

/// A statement's parameter, `$1` first.
#[derive(Debug, Clone)]
pub(super) enum Param {
    Text(String),
    MaybeText(Option<String>),
    Int(i64),
    MaybeInt(Option<i64>),
}

/// One statement, its parameters, and what failed should it fail (for the error).
pub(super) struct Statement {
    pub(super) what: &'static str,
    pub(super) sql: &'static str,
    pub(super) params: Vec<Param>,
}

/// A database one statement at a time, each atomic on its own: the one seam between the
/// logic written here and each store's driver.
pub(super) trait Database {
    /// Runs `statement`; how many rows it changed.
    fn run(&self, statement: Statement) -> Result<u64, StoreError>;

    /// Runs `statement`; its rows.
    fn rows(&self, statement: Statement) -> Result<Vec<Cells>, StoreError>;

    /// Runs `sql`; how many rows it changed.
    fn execute(
        &self,
        what: &'static str,
        sql: &'static str,
        params: Vec<Param>,
    ) -> Result<u64, StoreError> {
        self.run(Statement { what, sql, params })
    }

    /// Runs `sql`; its rows.
    fn query(
        &self,
        what: &'static str,
        sql: &'static str,
        params: Vec<Param>,
    ) -> Result<Vec<Cells>, StoreError> {
        self.rows(Statement { what, sql, params })
    }

    /// Runs `sql`; its first row, if any.
    fn query_first(
        &self,
        what: &'static str,
        sql: &'static str,
        params: Vec<Param>,
    ) -> Result<Option<Cells>, StoreError> {
        Ok(self.query(what, sql, params)?.into_iter().next())
    }
}

/// A millisecond time (or a generation) as both databases store it: a signed 64-bit
/// integer, saturated.
pub(super) fn ms(at_ms: u64) -> i64 {
    i64::try_from(at_ms).unwrap_or(i64::MAX)
}

/// A journal entry's columns, in the order `row::journal_entry` reads them.
macro_rules! entry_columns {
    () => {
        "SELECT proposal_id, call_id, tool, tier, arguments, caller, started_at_ms, attempts,
             rerun, ended, result, ended_at_ms, delivered_at_ms
         FROM toolset_effects WHERE call_id IS NOT NULL AND "
    };
}

/// Stores a proposal, pending: its id, JSON, owner, expiry and size.
const INSERT_PROPOSAL: &str =
    "INSERT INTO toolset_proposals (id, proposal, owner, expires_ms, bytes)
     VALUES ($1, $2, $3, $4, $5)";

/// A proposal's row ([`ProposalRow`]), with its effect's start, or the time of its
/// decline on record in the journal.
pub(super) const PROPOSAL: &str = "SELECT p.proposal, p.decision, p.resolved_at_ms,
         CASE WHEN e.ended = 'declined' THEN NULL ELSE e.started_at_ms END,
         CASE WHEN e.ended = 'declined' THEN e.ended_at_ms END
     FROM toolset_proposals AS p
     LEFT JOIN toolset_effects AS e ON e.proposal_id = p.id
     WHERE p.id = $1";

/// What counts against the limits at `$2` (ms), of the owner `$1` and of everyone:
/// waiting unexpired, or declined and not yet expired (not yet swept).
const USAGE: &str = "SELECT count(*) FILTER (WHERE owner = $1),
         CAST(coalesce(sum(bytes) FILTER (WHERE owner = $1), 0) AS BIGINT),
         count(*), CAST(coalesce(sum(bytes), 0) AS BIGINT)
     FROM toolset_proposals
     WHERE (decision IS NULL AND (expires_ms IS NULL OR expires_ms > $2))
         OR (decision = 'declined' AND expires_ms > $2)";

/// The proposals expired at `$1` that are pending or declined.
const EXPIRED: &str = "SELECT id FROM toolset_proposals
     WHERE expires_ms IS NOT NULL AND expires_ms <= $1
         AND (decision IS NULL OR decision = 'declined')";

/// The proposals that wait for a human.
const WAITING: &str = "SELECT id FROM toolset_proposals WHERE decision IS NULL";

/// Resolves the pending proposal `$3` as `$1` at `$2`.
const RESOLVE: &str = "UPDATE toolset_proposals SET decision = $1, resolved_at_ms = $2
     WHERE id = $3 AND decision IS NULL";

/// A call's start under a new key ([`start_params`]): a journaled call's, or an approved
/// proposal's effect. Nothing when the key is taken.
const START: &str = "INSERT INTO toolset_effects (proposal_id, started_at_ms, call_id, tool, tier,
         arguments, action_key, caller)
     VALUES ($1, $2, $3, $4, $5, $6, $7, $8)
     ON CONFLICT (proposal_id) DO NOTHING";

/// A decline's journal entry: never started (no attempts), ended with the answer the model
/// reads (`$9` to `$11`), waiting to be delivered. Nothing when the key is taken.
const DECLINE: &str =
    "INSERT INTO toolset_effects (proposal_id, started_at_ms, call_id, tool, tier,
         arguments, action_key, caller, attempts, ended, result, ended_at_ms)
     VALUES ($1, $2, $3, $4, $5, $6, $7, $8, 0, $9, $10, $11)
     ON CONFLICT (proposal_id) DO NOTHING";

/// The start of a call handed back for a re-run, at `$2`.
const RESTART: &str = "UPDATE toolset_effects SET rerun = FALSE, attempts = attempts + 1,
         started_at_ms = $2, ended = NULL, result = NULL, ended_at_ms = NULL
     WHERE proposal_id = $1 AND call_id IS NOT NULL AND rerun";

/// A call's end, unless it ended already.
const END: &str =
    "UPDATE toolset_effects SET ended = $2, result = $3, ended_at_ms = $4, rerun = FALSE
     WHERE proposal_id = $1 AND call_id IS NOT NULL AND ended IS NULL";

const ENTRY: &str = concat!(entry_columns!(), "proposal_id = $1");

const IN_DOUBT: &str = concat!(
    entry_columns!(),
    "ended IS NULL ORDER BY started_at_ms, proposal_id"
);

const UNDELIVERED: &str = concat!(
    entry_columns!(),
    "ended IS NOT NULL AND delivered_at_ms IS NULL ORDER BY ended_at_ms, proposal_id"
);

/// Hands the in-doubt call `$1` back for a re-run, if it is at `$2` attempts.
const RERUN: &str = "UPDATE toolset_effects SET rerun = TRUE
     WHERE proposal_id = $1 AND call_id IS NOT NULL AND ended IS NULL
         AND NOT rerun AND attempts = $2";

const MARK_DELIVERED: &str = "UPDATE toolset_effects SET delivered_at_ms = $2
     WHERE proposal_id = $1 AND call_id IS NOT NULL AND ended IS NOT NULL
         AND delivered_at_ms IS NULL";

/// A run's stored copy: its generation, JSON and seal.
const LOAD_RUN: &str = "SELECT generation, run, seal FROM toolset_runs WHERE id = $1";

/// A run's mark, the highest generation saved.
const RUN_MARK: &str = "SELECT generation FROM toolset_run_marks WHERE id = $1";

/// The pins of the source `$1`: each tool's name, fingerprint and accepted definition.
const PINS: &str = "SELECT tool, fingerprint, definition FROM toolset_pins WHERE source = $1";

/// Pins the tool `$2` of the source `$1`, unless it has a pin.
const PIN_NEW: &str = "INSERT INTO toolset_pins (source, tool, fingerprint, definition)
     VALUES ($1, $2, $3, $4)
     ON CONFLICT (source, tool) DO NOTHING";

/// Replaces the pin of the tool `$2` of the source `$1`, if its fingerprint is `$5`.
const REPIN: &str = "UPDATE toolset_pins SET fingerprint = $3, definition = $4
     WHERE source = $1 AND tool = $2 AND fingerprint = $5";

/// [`INSERT_PROPOSAL`].
pub(super) fn insert(db: &impl Database, proposal: &Proposal) -> Result<(), StoreError> {
    let json = serde_json::to_string(proposal)
        .map_err(|error| StoreError::new(format!("could not serialize the proposal: {error}")))?;
    let bytes = i64::try_from(json.len()).unwrap_or(i64::MAX);
    let params = vec![
        Param::Text(proposal.id().as_str().to_owned()),
        Param::Text(json),
        Param::Text(proposal.owner.clone()),
        Param::MaybeInt(proposal.expires_ms.map(ms)),
        Param::Int(bytes),
    ];
    db.execute("could not insert the proposal", INSERT_PROPOSAL, params)?;
    Ok(())
}

/// The proposal `id`'s row ([`PROPOSAL`]).
pub(super) fn proposal_row(
    db: &impl Database,
    id: &ProposalId,
) -> Result<Option<ProposalRow>, StoreError> {
    let params = vec![Param::Text(id.as_str().to_owned())];
    db.query_first("could not read the proposal", PROPOSAL, params)?
        .map(ProposalRow::read)
        .transpose()
}

/// The proposal `id` with its resolution and effect.
pub(super) fn get(db: &impl Database, id: &ProposalId) -> Result<Option<Stored>, StoreError> {
    proposal_row(db, id)?.map(|row| row.stored(id)).transpose()
}

/// [`USAGE`].
pub(super) fn usage(db: &impl Database, owner: &str, now_ms: u64) -> Result<Usage, StoreError> {
    let params = vec![Param::Text(owner.to_owned()), Param::Int(ms(now_ms))];
    let mut row = db
        .query_first("could not count the proposals", USAGE, params)?
        .ok_or_else(|| StoreError::new("counting the proposals gave no row"))?;
    let mut count = |index: usize| {
        row.int(index)
            .map(|value| u64::try_from(value).unwrap_or(0))
    };
    Ok(Usage {
        owner: Tally::new(count(0)?, count(1)?),
        overall: Tally::new(count(2)?, count(3)?),
    })
}

/// [`EXPIRED`].
pub(super) fn expired(db: &impl Database, now_ms: u64) -> Result<Vec<ProposalId>, StoreError> {
    let rows = db.query(
        "could not find the expired proposals",
        EXPIRED,
        vec![Param::Int(ms(now_ms))],
    )?;
    ids(rows)
}

/// [`WAITING`].
pub(super) fn waiting(db: &impl Database) -> Result<Vec<ProposalId>, StoreError> {
    ids(db.query("could not list the waiting proposals", WAITING, Vec::new())?)
}

/// The proposal ids in the first column of `rows`.
fn ids(rows: Vec<Cells>) -> Result<Vec<ProposalId>, StoreError> {
    rows.into_iter()
        .map(|mut row| {
            let id = row.text(0)?;
            ProposalId::parse(&id).ok_or_else(|| {
                StoreError::new(format!(
                    "the stored proposal id {id:?} is not a proposal id"
                ))
            })
        })
        .collect()
}

/// What a resolution finds already on record for the proposal in `row`, which the
/// resolver has locked: its resolution, its effect (though its resolution was reset), or
/// a decline on record in the journal (it stays declined). `None`: it is pending, and the
/// resolver writes [`resolution_writes`].
pub(super) fn settled(row: &ProposalRow) -> Result<Option<ResolveOutcome>, StoreError> {
    if let Some(earlier) = resolution(row.decision.clone(), row.resolved_at_ms)? {
        return Ok(Some(ResolveOutcome::AlreadyResolved(earlier)));
    }
    if let Some(started) = row.started_at_ms {
        return Ok(Some(ResolveOutcome::EffectRecorded(effect(started))));
    }
    Ok(row.declined_at_ms.map(|at| {
        ResolveOutcome::AlreadyResolved(Resolution {
            decision: Decision::Declined,
            at_ms: u64::try_from(at).unwrap_or(0),
        })
    }))
}

/// One statement of a transaction, which must change exactly one row.
pub(super) struct Write {
    pub(super) statement: Statement,
    /// What it means when it changes no row.
    pub(super) unchanged: String,
}

/// What resolving the pending proposal `id` (stored as `json`) writes, in order, in one
/// transaction: its resolution; approving, its effect, the start of its call's journal
/// entry with the call's facts from the proposal; declining with `declined`, the decline's
/// journal entry. A second effect or entry for one id is refused by the primary key, and
/// then nothing of the transaction is kept.
pub(super) fn resolution_writes(
    id: &ProposalId,
    json: &str,
    resolution_now: &Resolution,
    declined: Option<&CallEnd>,
) -> Result<Vec<Write>, StoreError> {
    let at = ms(resolution_now.at_ms);
    let mut writes = vec![Write {
        statement: Statement {
            what: "could not resolve the proposal",
            sql: RESOLVE,
            params: vec![
                Param::Text(resolution_now.decision.as_str().to_owned()),
                Param::Int(at),
                Param::Text(id.as_str().to_owned()),
            ],
        },
        unchanged: format!("the proposal {id} could not be resolved"),
    }];
    let proposal = || -> Result<Proposal, StoreError> {
        Ok(super::row::stored(id, json, None, None, None)?.proposal)
    };
    match (resolution_now.decision, declined) {
        (Decision::Approved, _) => {
            let proposal = proposal()?;
            writes.push(Write {
                statement: Statement {
                    what: "could not record the proposal's effect",
                    sql: START,
                    params: start_params(id.as_str(), at, &proposal.call, proposal.tier),
                },
                unchanged: format!(
                    "the proposal {id}'s effect was recorded by someone else: it was not resolved"
                ),
            });
        }
        (Decision::Declined, Some(end)) => {
            let proposal = proposal()?;
            let mut params = start_params(id.as_str(), at, &proposal.call, proposal.tier);
            params.extend([
                Param::Text(end.ending.as_str().to_owned()),
                Param::Text(end.result.clone()),
                Param::Int(ms(end.at_ms)),
            ]);
            writes.push(Write {
                statement: Statement {
                    what: "could not record the proposal's decline",
                    sql: DECLINE,
                    params,
                },
                unchanged: format!(
                    "the proposal {id}'s journal entry was recorded by someone else: it was \
                     not declined"
                ),
            });
        }
        (Decision::Declined, None) => {}
    }
    Ok(writes)
}

/// [`START`]'s parameters: the key, the time, and the call's id, tool, tier, arguments,
/// canonical action key (in hex) and maker.
fn start_params(key: &str, at: i64, call: &ToolCall, tier: Tier) -> Vec<Param> {
    vec![
        Param::Text(key.to_owned()),
        Param::Int(at),
        Param::Text(call.id.clone()),
        Param::Text(call.name.clone()),
        Param::Text(tier.as_str().to_owned()),
        Param::Text(call.arguments.to_string()),
        Param::Text(hex(&call.action_key())),
        Param::MaybeText(caller_column(call)),
    ]
}

/// A start is an `INSERT … ON CONFLICT DO NOTHING`, then a re-run's `UPDATE … WHERE
/// rerun`: of concurrent callers on any connection, one wins.
pub(super) fn start(db: &impl Database, start: &CallStart) -> Result<StartOutcome, StoreError> {
    let at = ms(start.at_ms);
    let params = start_params(&start.key, at, &start.call, start.tier);
    if db.execute("could not journal the call's start", START, params)? == 1 {
        return Ok(StartOutcome::Started);
    }
    let params = vec![Param::Text(start.key.clone()), Param::Int(at)];
    if db.execute("could not journal the call's start", RESTART, params)? == 1 {
        return Ok(StartOutcome::Started);
    }
    match entry(db, &start.key)? {
        Some(earlier) => Ok(StartOutcome::AlreadyStarted(Box::new(earlier))),
        None => Err(StoreError::new(format!(
            "the key {} holds an effect from before the journal",
            start.key
        ))),
    }
}

/// [`END`], and what stood when it changed nothing.
pub(super) fn end(db: &impl Database, key: &str, end: &CallEnd) -> Result<EndOutcome, StoreError> {
    let params = vec![
        Param::Text(key.to_owned()),
        Param::Text(end.ending.as_str().to_owned()),
        Param::Text(end.result.clone()),
        Param::Int(ms(end.at_ms)),
    ];
    if db.execute("could not journal the call's end", END, params)? == 1 {
        return Ok(EndOutcome::Ended);
    }
    match entry(db, key)? {
        None => Ok(EndOutcome::Unknown),
        Some(JournalEntry { end: Some(end), .. }) => Ok(EndOutcome::AlreadyEnded(end)),
        Some(_) => Err(StoreError::new(format!(
            "the call {key}'s end could not be recorded"
        ))),
    }
}

/// The journal entries `sql` selects.
fn entries(
    db: &impl Database,
    sql: &'static str,
    params: Vec<Param>,
) -> Result<Vec<JournalEntry>, StoreError> {
    db.query("could not read the journal", sql, params)?
        .into_iter()
        .map(journal_entry)
        .collect()
}

/// The entry `key` (`None` when absent, or an effect from before the journal).
pub(super) fn entry(db: &impl Database, key: &str) -> Result<Option<JournalEntry>, StoreError> {
    Ok(entries(db, ENTRY, vec![Param::Text(key.to_owned())])?
        .into_iter()
        .next())
}

/// Every entry started and never ended, oldest first.
pub(super) fn in_doubt(db: &impl Database) -> Result<Vec<JournalEntry>, StoreError> {
    entries(db, IN_DOUBT, Vec::new())
}

/// [`RERUN`].
pub(super) fn rerun(db: &impl Database, key: &str, attempts: u32) -> Result<bool, StoreError> {
    let params = vec![Param::Text(key.to_owned()), Param::Int(i64::from(attempts))];
    Ok(db.execute("could not hand the call back for a re-run", RERUN, params)? == 1)
}

/// Every ended entry not marked delivered, oldest end first.
pub(super) fn undelivered(db: &impl Database) -> Result<Vec<JournalEntry>, StoreError> {
    entries(db, UNDELIVERED, Vec::new())
}

/// [`MARK_DELIVERED`].
pub(super) fn mark_delivered(
    db: &impl Database,
    key: &str,
    at_ms: u64,
) -> Result<bool, StoreError> {
    let params = vec![Param::Text(key.to_owned()), Param::Int(ms(at_ms))];
    Ok(db.execute(
        "could not mark the result delivered",
        MARK_DELIVERED,
        params,
    )? == 1)
}

/// [`LOAD_RUN`].
pub(super) fn load_run(db: &impl Database, id: &RunId) -> Result<Option<StoredRun>, StoreError> {
    let params = vec![Param::Text(id.as_str().to_owned())];
    db.query_first("could not read the run", LOAD_RUN, params)?
        .map(|mut row| StoredRun::from_row(id, row.int(0)?, row.text(1)?, row.maybe_text(2)?))
        .transpose()
}

/// The run `id`'s mark as its column holds it ([`RUN_MARK`]); `None` when it has none.
pub(super) fn run_mark(db: &impl Database, id: &RunId) -> Result<Option<i64>, StoreError> {
    let params = vec![Param::Text(id.as_str().to_owned())];
    db.query_first("could not read the run's mark", RUN_MARK, params)?
        .map(|mut row| row.int(0))
        .transpose()
}

/// The run `id`'s mark, the highest generation saved.
pub(super) fn newest_generation(db: &impl Database, id: &RunId) -> Result<Option<u64>, StoreError> {
    mark_from_row(id, run_mark(db, id)?)
}

/// [`PINS`].
pub(super) fn pins(db: &impl Database, source: &str) -> Result<Vec<Pin>, StoreError> {
    let params = vec![Param::Text(source.to_owned())];
    db.query("could not read the pins of proxied tools", PINS, params)?
        .into_iter()
        .map(|mut row| Ok(Pin::new(row.text(0)?, row.text(1)?, row.text(2)?)))
        .collect()
}

/// [`PIN_NEW`] when `replacing` is `None`, else [`REPIN`]: one statement, so of
/// concurrent writers on any connection one changes the row.
pub(super) fn pin(
    db: &impl Database,
    source: &str,
    pin: &Pin,
    replacing: Option<&str>,
) -> Result<bool, StoreError> {
    let mut params = vec![
        Param::Text(source.to_owned()),
        Param::Text(pin.tool.clone()),
        Param::Text(pin.fingerprint.clone()),
        Param::Text(pin.definition.clone()),
    ];
    let sql = match replacing {
        None => PIN_NEW,
        Some(fingerprint) => {
            params.push(Param::Text(fingerprint.to_owned()));
            REPIN
        }
    };
    Ok(db.execute("could not pin the proxied tool", sql, params)? == 1)
}

/// The methods of [`Store`](super::Store) that are the same for both database stores,
/// each the function written above, as items of a store's `impl Store` (which adds its
/// own transactions: `resolve`, `decline`, `forget`, `save_run`).
macro_rules! written_once {
    () => {
        fn insert(&self, proposal: &$crate::proposal::Proposal) -> Result<(), StoreError> {
            super::sql::insert(self, proposal)
        }
        fn get(
            &self,
            id: &$crate::proposal::ProposalId,
        ) -> Result<Option<$crate::store::Stored>, StoreError> {
            super::sql::get(self, id)
        }
        fn usage(&self, owner: &str, now_ms: u64) -> Result<$crate::store::Usage, StoreError> {
            super::sql::usage(self, owner, now_ms)
        }
        fn expired(&self, now_ms: u64) -> Result<Vec<$crate::proposal::ProposalId>, StoreError> {
            super::sql::expired(self, now_ms)
        }
        fn waiting(&self) -> Result<Vec<$crate::proposal::ProposalId>, StoreError> {
            super::sql::waiting(self)
        }
        // Each journal operation is one statement, atomic on its own: concurrent callers
        // on any connection see one winner.
        fn start(
            &self,
            start: &$crate::store::CallStart,
        ) -> Result<$crate::store::StartOutcome, StoreError> {
            super::sql::start(self, start)
        }
        fn end(
            &self,
            key: &str,
            end: &$crate::store::CallEnd,
        ) -> Result<$crate::store::EndOutcome, StoreError> {
            super::sql::end(self, key, end)
        }
        fn entry(&self, key: &str) -> Result<Option<$crate::store::JournalEntry>, StoreError> {
            super::sql::entry(self, key)
        }
        fn in_doubt(&self) -> Result<Vec<$crate::store::JournalEntry>, StoreError> {
            super::sql::in_doubt(self)
        }
        fn rerun(&self, key: &str, attempts: u32) -> Result<bool, StoreError> {
            super::sql::rerun(self, key, attempts)
        }
        fn undelivered(&self) -> Result<Vec<$crate::store::JournalEntry>, StoreError> {
            super::sql::undelivered(self)
        }
        fn mark_delivered(&self, key: &str, at_ms: u64) -> Result<bool, StoreError> {
            super::sql::mark_delivered(self, key, at_ms)
        }
        fn load_run(
            &self,
            id: &$crate::store::RunId,
        ) -> Result<Option<$crate::store::StoredRun>, StoreError> {
            super::sql::load_run(self, id)
        }
        fn newest_generation(&self, id: &$crate::store::RunId) -> Result<Option<u64>, StoreError> {
            super::sql::newest_generation(self, id)
        }
        // A pin is one statement, atomic on its own.
        fn pins(&self, source: &str) -> Result<Vec<$crate::store::Pin>, StoreError> {
            super::sql::pins(self, source)
        }
        fn pin(
            &self,
            source: &str,
            pin: &$crate::store::Pin,
            replacing: Option<&str>,
        ) -> Result<bool, StoreError> {
            super::sql::pin(self, source, pin, replacing)
        }
    };
}
pub(super) use written_once;
