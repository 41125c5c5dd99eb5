//! A run saved and resumed (issue 27 item 2): three processes over one store (one gates
//! and saves the run with pending proposals, a second approves or declines them, a third
//! resumes and gives the model exactly one answer per call id), in both conversation
//! styles, over SQLite and PostgreSQL (the server `scripts/postgres` starts); a resume
//! after a crash never gives an answer again; a run resumed twice, a stale copy and a
//! tampered, stripped or foreign copy are refused. The processes are
//! `src/bin/run_worker.rs`.

use serde_json::Value;
use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::Duration;
use toolset::prelude::*;
use toolset::run::{Run, RunError, Runs};
use toolset::store::RunId;
use toolset::store::{
    Decision, Ending, MemoryStore, Resolution, ResolveOutcome, SaveRunOutcome, Store, StoredRun,
};
use toolset::{Autonomy, PostgresStore, Proposal, SealKey, SqliteStore, ToolCall, ToolOutput};
use toolset_tests::ledger::LedgerTools;
use toolset_tests::postgres;
use toolset_tests::process::run_bounded;

const WORKER: &str = env!("CARGO_BIN_EXE_run_worker");

/// The key the worker seals with (`run_worker.rs`'s `KEY`).
const KEY: [u8; 32] = [42; 32];

/// A fresh directory under the target dir for one test's files.
fn tempdir(name: &str) -> PathBuf {
    let dir = Path::new(env!("CARGO_TARGET_TMPDIR"))
        .join(format!("run-resume-{name}-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).expect("the target dir is writable");
    dir
}

/// One worker process over `db`: its JSON line, or a panic with what it printed.
fn worker(db: &str, args: &[&str]) -> Value {
    let output = run_bounded(
        Command::new(WORKER)
            .arg(db)
            .args(args)
            // A PostgreSQL worker's outbox is in its working directory.
            .current_dir(env!("CARGO_TARGET_TMPDIR"))
            .stdin(Stdio::null()),
        Duration::from_secs(60),
    );
    assert!(
        output.status.success(),
        "run_worker {args:?} failed: {}",
        String::from_utf8_lossy(&output.stderr)
    );
    serde_json::from_slice(&output.stdout).unwrap_or_else(|error| {
        panic!(
            "run_worker {args:?} printed no JSON ({error}): {}",
            String::from_utf8_lossy(&output.stdout)
        )
    })
}

/// What a worker sent the model: `(call id, text)` in order.
fn sent(line: &Value) -> Vec<(String, String)> {
    serde_json::from_value(line["sent"].clone()).expect("`sent` is a list of pairs")
}

/// How many answers each call id got, over every line.
fn answers(lines: &[&Value]) -> HashMap<String, usize> {
    let mut counts = HashMap::new();
    for line in lines {
        for (call_id, _) in sent(line) {
            *counts.entry(call_id).or_insert(0) += 1;
        }
    }
    counts
}

/// The store of a test: a SQLite file in its directory, or a fresh PostgreSQL database.
fn sqlite(dir: &Path) -> String {
    dir.join("runs.db").display().to_string()
}

fn proposals(gated: &Value) -> Vec<String> {
    serde_json::from_value(gated["proposals"].clone()).expect("the proposals' ids")
}

/// Continue style: the gate's process answers `c1` and says `c2`, `c3` await approval;
/// another approves both; a third resumes and sends each late result once, as a follow-up;
/// a fourth has nothing left to send.
fn continue_style_across_three_processes(db: &str, outbox: Option<&Path>) {
    let gated = worker(db, &["gate", "continue"]);
    let run = gated["run"].as_str().expect("a run id");
    let sent_first = sent(&gated);
    assert_eq!(sent_first.len(), 3);
    assert_eq!(sent_first[0], ("c1".to_owned(), "notes on ann".to_owned()));
    assert!(sent_first[1].1.starts_with("Awaiting approval"));
    let ids = proposals(&gated);
    assert_eq!(ids.len(), 2);
    for id in &ids {
        let approved = worker(db, &["approve", id]);
        assert!(
            approved["result"][0][1]
                .as_str()
                .is_some_and(|text| text.starts_with("sent to"))
        );
    }
    let resumed = worker(db, &["resume", "continue", run]);
    assert_eq!(
        sent(&resumed),
        [
            ("c2".to_owned(), "sent to ann".to_owned()),
            ("c3".to_owned(), "sent to bob".to_owned())
        ]
    );
    assert_eq!(resumed["pending"], 0);
    let again = worker(db, &["resume", "continue", run]);
    assert_eq!(sent(&again), []);
    // One answer per call id over the whole conversation after the first: c1 once at the
    // gate, c2 and c3 once each when resumed.
    assert_eq!(
        answers(&[&resumed, &again]),
        HashMap::from([("c2".to_owned(), 1), ("c3".to_owned(), 1)])
    );
    if let Some(outbox) = outbox {
        let sends = std::fs::read_to_string(outbox).expect("send ran");
        assert_eq!(
            sends.lines().count(),
            2,
            "each approved call ran once: {sends}"
        );
    }
}

#[test]
fn continue_style_three_processes_one_answer_per_call_id() {
    let dir = tempdir("continue");
    continue_style_across_three_processes(&sqlite(&dir), Some(&dir.join("outbox")));
}

#[test]
fn continue_style_three_processes_over_postgres() {
    let Some(url) = postgres::url("run_resume continue over PostgreSQL") else {
        return;
    };
    let db = postgres::fresh_database(&url, "run_resume_continue");
    continue_style_across_three_processes(&db, None);
}

/// Pause style: nothing is sent for the batch while a call of it waits; once both are
/// approved (in other processes), the resumed run sends the whole batch, each call
/// answered once by its real result; a later resume sends nothing.
#[test]
fn pause_style_three_processes_one_answer_per_call_id() {
    let dir = tempdir("pause");
    let db = sqlite(&dir);
    let gated = worker(&db, &["gate", "pause"]);
    let run = gated["run"].as_str().expect("a run id");
    assert_eq!(sent(&gated), []);
    let ids = proposals(&gated);
    worker(&db, &["approve", &ids[0]]);
    // One still waits: the batch is held, nothing sent.
    let early = worker(&db, &["resume", "pause", run]);
    assert_eq!(sent(&early), []);
    assert_eq!(early["pending"], 1);
    worker(&db, &["approve", &ids[1]]);
    let resumed = worker(&db, &["resume", "pause", run]);
    assert_eq!(
        sent(&resumed),
        [
            ("c1".to_owned(), "notes on ann".to_owned()),
            ("c2".to_owned(), "sent to ann".to_owned()),
            ("c3".to_owned(), "sent to bob".to_owned())
        ]
    );
    let again = worker(&db, &["resume", "pause", run]);
    assert_eq!(sent(&again), []);
    assert_eq!(
        answers(&[&gated, &early, &resumed, &again]),
        HashMap::from([
            ("c1".to_owned(), 1),
            ("c2".to_owned(), 1),
            ("c3".to_owned(), 1)
        ])
    );
}

/// A decline made in another process reaches the resumed run once, with the human's
/// reason, in `style`.
fn a_decline_made_elsewhere(db: &str, style: &str, outbox: Option<&Path>) {
    let gated = worker(db, &["gate", style]);
    let run = gated["run"].as_str().expect("a run id");
    let ids = proposals(&gated);
    worker(db, &["approve", &ids[0]]);
    let declined = worker(db, &["decline", &ids[1], "bob is on holiday"]);
    let refusal = "Declined by the user: bob is on holiday. The call did not run; do not make it again or ask for it again unless the user asks you to.";
    assert_eq!(declined["result"][0][1], refusal);
    let resumed = worker(db, &["resume", style, run]);
    let mut expected = vec![
        ("c2".to_owned(), "sent to ann".to_owned()),
        ("c3".to_owned(), refusal.to_owned()),
    ];
    if style == "pause" {
        expected.insert(0, ("c1".to_owned(), "notes on ann".to_owned()));
    }
    assert_eq!(sent(&resumed), expected, "{style}");
    let again = worker(db, &["resume", style, run]);
    assert_eq!(sent(&again), [], "{style}");
    if let Some(outbox) = outbox {
        let sends = std::fs::read_to_string(outbox).expect("send ran");
        assert_eq!(sends.lines().count(), 1, "the declined call never ran");
    }
}

#[test]
fn a_decline_made_elsewhere_is_delivered_once() {
    for style in ["continue", "pause"] {
        let dir = tempdir(&format!("decline-{style}"));
        a_decline_made_elsewhere(&sqlite(&dir), style, Some(&dir.join("outbox")));
    }
}

/// Over PostgreSQL: the pause style with a decline (the decline's record is written in the
/// resolution's transaction there too).
#[test]
fn pause_style_with_a_decline_over_postgres() {
    let Some(url) = postgres::url("run_resume pause over PostgreSQL") else {
        return;
    };
    let db = postgres::fresh_database(&url, "run_resume_pause");
    a_decline_made_elsewhere(&db, "pause", None);
}

/// A host that gave the model its answers, marked them and died before saving: the copy
/// resumed next (still waiting on the proposals) gives them again to nobody, since the
/// journal says they were delivered.
#[test]
fn a_resume_after_a_crash_never_delivers_again() {
    for style in ["continue", "pause"] {
        let dir = tempdir(&format!("crash-{style}"));
        let db = sqlite(&dir);
        let gated = worker(&db, &["gate", style]);
        let run = gated["run"].as_str().expect("a run id");
        for id in proposals(&gated) {
            worker(&db, &["approve", &id]);
        }
        let crashed = worker(&db, &["resume", style, run, "--no-save"]);
        assert_eq!(sent(&crashed).len(), if style == "pause" { 3 } else { 2 });
        let after = worker(&db, &["resume", style, run]);
        assert_eq!(sent(&after), [], "{style}: nothing is given twice");
        assert_eq!(after["pending"], 0);
    }
}

/// Two processes load the same copy and both claim it: one resumes it, the other is
/// refused; never both.
#[test]
fn a_run_resumed_twice_is_refused() {
    let dir = tempdir("twice");
    let db = sqlite(&dir);
    let gated = worker(&db, &["gate", "continue"]);
    let run = gated["run"].as_str().expect("a run id").to_owned();
    for round in 0..3 {
        let barrier = dir.join(format!("barrier-{round}"));
        std::fs::create_dir_all(&barrier).expect("the target dir is writable");
        let claimants: Vec<_> = (0..2)
            .map(|_| {
                let (db, run, barrier) = (db.clone(), run.clone(), barrier.clone());
                std::thread::spawn(move || {
                    worker(&db, &["claim", &run, barrier.to_str().expect("utf-8"), "2"])
                })
            })
            .collect();
        let lines: Vec<Value> = claimants
            .into_iter()
            .map(|claimant| claimant.join().expect("no panic"))
            .collect();
        let claimed = lines.iter().filter(|line| line.get("claimed").is_some());
        assert_eq!(claimed.count(), 1, "one claim wins: {lines:?}");
        let refused: Vec<&str> = lines
            .iter()
            .filter_map(|line| line.get("refused").and_then(Value::as_str))
            .collect();
        assert_eq!(refused.len(), 1, "{lines:?}");
        assert!(
            refused[0].contains("saved or resumed elsewhere since this copy"),
            "{}",
            refused[0]
        );
    }
}

/// An old copy is refused after a newer one: resumed at its generation, or saved.
#[test]
fn a_stale_copy_is_refused() {
    let dir = tempdir("stale");
    let db = sqlite(&dir);
    let gated = worker(&db, &["gate", "continue"]);
    let run = gated["run"].as_str().expect("a run id");
    assert_eq!(gated["generation"], 1);
    // A copy held from before the resume.
    let store = SqliteStore::open(dir.join("runs.db")).expect("the database opens");
    let runs = Runs::new(&store).sealed_with(SealKey::new(KEY).expect("32 bytes"));
    let id = RunId::parse(run).expect("a run id");
    let mut old = runs.load(&id).expect("the run is stored");
    let resumed = worker(&db, &["resume", "continue", run]);
    assert_eq!(resumed["generation"], 3, "claimed at 2, saved at 3");
    let refused = worker(&db, &["resume-at", run, "1"]);
    assert!(
        refused["refused"]
            .as_str()
            .is_some_and(|text| text.contains("copy at generation 1, stored at 3")),
        "{refused}"
    );
    assert_eq!(
        runs.save(&mut old),
        Err(RunError::Superseded {
            copy: 1,
            stored: Some(3)
        })
    );
    assert_eq!(old.generation(), 1, "a refused copy is unchanged");
    let current = worker(&db, &["resume-at", run, "3"]);
    assert_eq!(current["generation"], 4);
}

/// A copy altered in the store, stripped of its seal, sealed with another key or moved
/// under another run's id is refused.
#[test]
fn a_tampered_or_foreign_copy_is_refused() {
    let dir = tempdir("tampered");
    let db = sqlite(&dir);
    let first = worker(&db, &["gate", "continue"]);
    let second = worker(&db, &["gate", "continue"]);
    let (run, other) = (
        first["run"].as_str().expect("a run id"),
        second["run"].as_str().expect("a run id"),
    );
    let id = RunId::parse(run).expect("a run id");
    let path = dir.join("runs.db");
    let store = SqliteStore::open(&path).expect("the database opens");
    let key = SealKey::new(KEY).expect("32 bytes");
    let runs = Runs::new(&store).sealed_with(key.clone());
    let edit = |sql: &str| {
        let connection = rusqlite::Connection::open(&path).expect("the database opens");
        connection
            .execute(sql, rusqlite::params![run, other])
            .expect("the row is written");
    };
    let original: StoredRun = store
        .load_run(&id)
        .expect("the store reads")
        .expect("the run is stored");
    let restore = || {
        let connection = rusqlite::Connection::open(&path).expect("the database opens");
        connection
            .execute(
                "UPDATE toolset_runs SET run = ?2, seal = ?3, generation = ?4 WHERE id = ?1",
                rusqlite::params![
                    run,
                    original.run,
                    original.seal,
                    i64::try_from(original.generation).expect("small")
                ],
            )
            .expect("the row is written");
    };
    // The waiting proposals taken out of the copy: what a replay would want.
    edit(
        "UPDATE toolset_runs SET run = replace(run, '\"pending\"', '\"pendinX\"') WHERE id = ?1 AND ?2 IS NOT NULL",
    );
    assert_eq!(runs.resume(&id), Err(RunError::Altered));
    restore();
    // An older generation's number with the same copy.
    edit("UPDATE toolset_runs SET generation = generation + 1 WHERE id = ?1 AND ?2 IS NOT NULL");
    assert_eq!(runs.resume(&id), Err(RunError::Altered));
    restore();
    // The seal stripped.
    edit("UPDATE toolset_runs SET seal = NULL WHERE id = ?1 AND ?2 IS NOT NULL");
    assert_eq!(runs.resume(&id), Err(RunError::Forged));
    restore();
    // Another run's copy under this id.
    edit(
        "UPDATE toolset_runs SET (run, seal) = (SELECT run, seal FROM toolset_runs WHERE id = ?2)
         WHERE id = ?1",
    );
    assert_eq!(runs.resume(&id), Err(RunError::Altered));
    restore();
    // A copy sealed with another key (another host's, or after a key rotation).
    let foreign = Runs::new(&store).sealed_with(SealKey::new([7u8; 32]).expect("32 bytes"));
    assert_eq!(foreign.resume(&id), Err(RunError::Altered));
    // Untouched, it resumes; nothing above moved it on.
    let resumed = runs.resume(&id).expect("the original copy resumes");
    assert_eq!(resumed.generation(), 2);
    assert_eq!(resumed.pending().len(), 2);
}

/// In one process, on the memory store: the same promises without processes, and what a
/// host sees of the parts.
#[test]
fn a_run_in_memory_keeps_the_same_promises() {
    let store = MemoryStore::new();
    let runs = Runs::new(&store);
    let mut run = Run::new();
    assert_eq!(run.generation(), 0);
    runs.save(&mut run).expect("a new run saves");
    assert_eq!(run.generation(), 1);
    // A second new run under the same id is refused.
    let mut twin = Run::with_id(run.id().clone());
    assert_eq!(
        runs.save(&mut twin),
        Err(RunError::Superseded {
            copy: 0,
            stored: Some(1)
        })
    );
    let mut first = runs.load(run.id()).expect("stored");
    let mut second = runs.load(run.id()).expect("stored");
    runs.save(&mut first)
        .expect("the first save of generation 1 wins");
    assert!(matches!(
        runs.save(&mut second),
        Err(RunError::Superseded {
            copy: 1,
            stored: Some(2)
        })
    ));
    assert!(matches!(
        runs.resume(&RunId::parse("nobody").expect("an id")),
        Err(RunError::NotFound(_))
    ));
    assert!(store.undelivered().expect("reads").is_empty());
    // Its parts travel with it.
    let mut parts = Run::new();
    parts.activations_mut().activate("archive");
    parts
        .exposure_mut()
        .read("read_inbox", toolset::Labels::NONE.reading_private());
    runs.save(&mut parts).expect("saves");
    let resumed = runs.resume(parts.id()).expect("resumes");
    assert_eq!(resumed.activations().names(), ["archive"]);
    assert_eq!(resumed.exposure().private_from(), ["read_inbox"]);
    assert!(RunId::parse("").is_none());
    assert!(RunId::parse("white space").is_none());
}

// ---------------------------------------------------------------------------------------
// The stores.

fn proposal(note: &str) -> Proposal {
    let call = ToolCall::new("call_1", "pay", format!("{{\"note\":\"{note}\"}}"));
    let plan = LedgerTools::gate([call], Autonomy::ExternalReversible).expect("valid");
    plan.proposals()[0].clone()
}

/// What every store promises of runs and declines, on a fresh store.
fn a_store_keeps_its_promises<S: Store>(store: &S) {
    // Runs: written only over the generation expected.
    let id = RunId::random();
    let copy = |generation: u64, text: &str| {
        StoredRun::new(
            id.clone(),
            generation,
            text.to_owned(),
            Some("seal".to_owned()),
        )
    };
    assert_eq!(store.load_run(&id).expect("reads"), None);
    assert_eq!(
        store.save_run(&copy(1, "one"), Some(0)).expect("writes"),
        SaveRunOutcome::Conflict { stored: None }
    );
    assert_eq!(
        store.save_run(&copy(1, "one"), None).expect("writes"),
        SaveRunOutcome::Saved
    );
    assert_eq!(
        store.save_run(&copy(1, "again"), None).expect("writes"),
        SaveRunOutcome::Conflict { stored: Some(1) }
    );
    assert_eq!(
        store.save_run(&copy(2, "two"), Some(1)).expect("writes"),
        SaveRunOutcome::Saved
    );
    assert_eq!(
        store.save_run(&copy(2, "stale"), Some(1)).expect("writes"),
        SaveRunOutcome::Conflict { stored: Some(2) }
    );
    assert_eq!(store.load_run(&id).expect("reads"), Some(copy(2, "two")));
    // A decline is on record in the journal, undelivered, never in doubt, no effect.
    let declined = proposal("declined");
    store.insert(&declined).expect("stored");
    let answer = ToolOutput::error("Declined by the user: no. The call did not run.");
    assert_eq!(
        store.decline(declined.id(), 50, &answer).expect("resolves"),
        ResolveOutcome::Resolved
    );
    let entry = store
        .entry(declined.id().as_str())
        .expect("reads")
        .expect("the decline is on record");
    assert!(entry.is_declined());
    assert_eq!(entry.attempts, 0);
    assert_eq!(entry.call, *declined.call());
    let end = entry.end.clone().expect("ended");
    assert_eq!((end.ending, end.at_ms), (Ending::Declined, 50));
    assert_eq!(entry.reply().expect("readable").output, answer);
    let stored = store.get(declined.id()).expect("reads").expect("stored");
    assert_eq!(stored.effect, None, "a decline is no effect");
    assert_eq!(
        stored.resolution.map(|resolution| resolution.decision),
        Some(Decision::Declined)
    );
    assert!(store.in_doubt().expect("reads").is_empty());
    assert!(!store.rerun(declined.id().as_str(), 0).expect("writes"));
    let keys: Vec<String> = store
        .undelivered()
        .expect("reads")
        .into_iter()
        .map(|entry| entry.key)
        .collect();
    assert_eq!(keys, [declined.id().as_str()]);
    assert_eq!(
        store.decline(declined.id(), 60, &answer).expect("resolves"),
        ResolveOutcome::AlreadyResolved(Resolution {
            decision: Decision::Declined,
            at_ms: 50
        })
    );
    assert!(
        store
            .mark_delivered(declined.id().as_str(), 70)
            .expect("writes")
    );
    assert!(
        !store
            .mark_delivered(declined.id().as_str(), 71)
            .expect("writes")
    );
}

#[test]
fn each_store_keeps_runs_and_declines() {
    a_store_keeps_its_promises(&MemoryStore::new());
    let dir = tempdir("stores");
    a_store_keeps_its_promises(&SqliteStore::open(dir.join("store.db")).expect("opens"));
    if let Some(url) = postgres::url("run_resume stores over PostgreSQL") {
        let db = postgres::fresh_database(&url, "run_resume_stores");
        a_store_keeps_its_promises(&PostgresStore::connect(&db).expect("connects"));
    }
}

/// A decline whose resolution someone reset to pending in the database stays declined:
/// its record in the journal answers, and it is never approved.
#[test]
fn a_reset_decline_stays_declined() {
    let dir = tempdir("reset-decline");
    let path = dir.join("store.db");
    let store = SqliteStore::open(&path).expect("opens");
    let declined = proposal("reset");
    store.insert(&declined).expect("stored");
    store
        .decline(declined.id(), 50, &ToolOutput::error("no"))
        .expect("resolves");
    rusqlite::Connection::open(&path)
        .expect("opens")
        .execute(
            "UPDATE toolset_proposals SET decision = NULL, resolved_at_ms = NULL",
            [],
        )
        .expect("the row is written");
    let approve = Resolution {
        decision: Decision::Approved,
        at_ms: 60,
    };
    assert_eq!(
        store.resolve(declined.id(), &approve).expect("resolves"),
        ResolveOutcome::AlreadyResolved(Resolution {
            decision: Decision::Declined,
            at_ms: 50
        })
    );
}

/// A SQLite database at schema version 1 (the journal, no runs) is migrated when opened:
/// runs are kept, declines recorded.
#[test]
fn a_sqlite_database_at_version_1_gets_runs() {
    let dir = tempdir("sqlite-v1");
    let path = dir.join("store.db");
    drop(SqliteStore::open(&path).expect("opens"));
    rusqlite::Connection::open(&path)
        .expect("opens")
        .execute_batch(
            "DROP TABLE toolset_runs; DROP TABLE toolset_run_marks; PRAGMA user_version = 1;",
        )
        .expect("the schema is set back");
    let store = SqliteStore::open(&path).expect("opens and migrates");
    a_store_keeps_its_promises(&store);
    let version: i64 = rusqlite::Connection::open(&path)
        .expect("opens")
        .query_row("PRAGMA user_version", [], |row| row.get(0))
        .expect("reads");
    assert_eq!(version, 5);
}

/// A SQLite database at schema version 2 (runs, no marks) is migrated when opened: each
/// stored run is marked at its generation, so it resumes, and an older row put back is
/// refused from then on.
#[test]
fn a_sqlite_database_at_version_2_marks_its_runs() {
    let dir = tempdir("sqlite-v2");
    let path = dir.join("store.db");
    let store = SqliteStore::open(&path).expect("opens");
    let runs = Runs::new(&store);
    let (id, old) = a_run_that_read_private_data(&runs, &store);
    drop(store);
    rusqlite::Connection::open(&path)
        .expect("opens")
        .execute_batch("DROP TABLE toolset_run_marks; PRAGMA user_version = 2;")
        .expect("the schema is set back");
    let store = SqliteStore::open(&path).expect("opens and migrates");
    let runs = Runs::new(&store);
    assert_eq!(runs.load(&id).expect("the run is marked").generation(), 3);
    rusqlite::Connection::open(&path)
        .expect("opens")
        .execute(
            "UPDATE toolset_runs SET run = ?2, generation = 1 WHERE id = ?1",
            rusqlite::params![id.as_str(), old.run],
        )
        .expect("the row is written");
    the_old_copy_is_refused(&runs, &id);
}

/// A PostgreSQL database at schema version 3 (the journal; `ended` checked to be done or
/// failed) is migrated when a store connects: runs are kept, declines recorded.
#[test]
fn a_postgres_database_at_version_3_gets_runs_and_declines() {
    let Some(url) = postgres::url("run_resume PostgreSQL migration") else {
        return;
    };
    let db = postgres::fresh_database(&url, "run_resume_v3");
    drop(PostgresStore::connect(&db).expect("connects"));
    postgres::execute(
        &db,
        "DROP TABLE toolset_runs;
         DROP TABLE toolset_run_marks;
         ALTER TABLE toolset_effects DROP CONSTRAINT toolset_effects_ended_check;
         ALTER TABLE toolset_effects ADD CONSTRAINT toolset_effects_ended_check
             CHECK (ended IN ('done', 'failed'));
         UPDATE toolset_schema_version SET version = 3;",
    );
    let store = PostgresStore::connect(&db).expect("connects and migrates");
    a_store_keeps_its_promises(&store);
}

/// A PostgreSQL database at schema version 4 (runs, no marks) is migrated when a store
/// connects: each stored run is marked at its generation, so it resumes, and an older
/// row put back is refused from then on.
#[test]
fn a_postgres_database_at_version_4_marks_its_runs() {
    let Some(url) = postgres::url("run_resume PostgreSQL migration to marks") else {
        return;
    };
    let db = postgres::fresh_database(&url, "run_resume_v4");
    let store = PostgresStore::connect(&db).expect("connects");
    let (id, _) = a_run_that_read_private_data(&Runs::new(&store), &store);
    drop(store);
    postgres::execute(
        &db,
        "DROP TABLE toolset_run_marks; UPDATE toolset_schema_version SET version = 4;",
    );
    let store = PostgresStore::connect(&db).expect("connects and migrates");
    let runs = Runs::new(&store);
    assert_eq!(runs.load(&id).expect("the run is marked").generation(), 3);
    postgres::execute(
        &db,
        "UPDATE toolset_runs SET generation = 1 WHERE generation = 3",
    );
    assert_eq!(
        runs.load(&id).err(),
        Some(RunError::RolledBack {
            copy: 1,
            newest: Some(3)
        })
    );
}

/// A store of a host's own whose decline records nothing in the journal (it only resolves):
/// a resumed run still answers the declined call, once, from the proposal's resolution,
/// without the reason.
#[test]
fn a_store_without_decline_records_still_answers_a_decline_once() {
    struct Plain(MemoryStore);
    impl Store for Plain {
        fn decline(
            &self,
            id: &toolset::approval::ProposalId,
            at_ms: u64,
            _answer: &ToolOutput,
        ) -> Result<ResolveOutcome, toolset::store::StoreError> {
            let declined = Resolution {
                decision: Decision::Declined,
                at_ms,
            };
            self.0.resolve(id, &declined)
        }
        toolset_tests::forward_store!(0: insert, get, resolve, usage, expired, forget, waiting,
            start, end, entry, in_doubt, rerun, undelivered, mark_delivered,
            load_run, save_run, newest_generation, pins, pin);
    }
    let store = Plain(MemoryStore::new());
    let approvals = toolset::Approvals::new(&store);
    let proposal = proposal("plain");
    approvals.submit(&proposal).expect("stored");
    let mut run = Run::new();
    run.await_approval(&proposal);
    approvals
        .decline(&proposal.reviewed(), "not now")
        .expect("declines");
    assert_eq!(store.0.entry(proposal.id().as_str()).expect("reads"), None);
    assert_eq!(run.collect(&store).expect("reads"), 1);
    let late = run.late_results();
    assert_eq!(late.len(), 1);
    assert_eq!(late[0].call_id, "call_1");
    assert!(
        late[0]
            .output
            .text_content()
            .contains("no reason was recorded")
    );
    assert_eq!(run.delivered(&store).expect("marks"), Vec::<String>::new());
    assert!(run.pending().is_empty() && run.late().is_empty());
    assert_eq!(run.collect(&store).expect("reads"), 0);
}

// ---------------------------------------------------------------------------------------
// A row put back whole (issue 38 item 2).

/// A run saved unexposed (generation 1), then resumed and saved having read private data
/// (generation 3): what someone with write access to the store would put back to send
/// unattended. Returns the run's id and the generation-1 row, exactly as stored.
fn a_run_that_read_private_data<S: Store>(runs: &Runs<&S>, store: &S) -> (RunId, StoredRun) {
    let mut run = Run::new();
    runs.save(&mut run).expect("a new run saves");
    let old = store
        .load_run(run.id())
        .expect("the store reads")
        .expect("the run is stored");
    assert_eq!(old.generation, 1);
    let mut resumed = runs.resume(run.id()).expect("resumes");
    resumed
        .exposure_mut()
        .read("read_inbox", toolset::Labels::NONE.reading_private());
    runs.save(&mut resumed).expect("saves");
    assert_eq!(resumed.generation(), 3);
    (run.id().clone(), old)
}

/// After a row was put back: the old copy is never taken up, and the run is refused as
/// rolled back until the newest copy is back.
fn the_old_copy_is_refused<S: Store>(runs: &Runs<S>, id: &RunId) {
    let rolled_back = RunError::RolledBack {
        copy: 1,
        newest: Some(3),
    };
    assert_eq!(runs.load(id).err(), Some(rolled_back.clone()));
    assert_eq!(runs.resume(id).err(), Some(rolled_back));
}

/// After the generation-1 row was put back: a holder of that old copy cannot save over
/// it either (generation 2 is not above the mark), and the mark stays.
fn no_save_builds_on_the_old_row<S: Store>(store: &S, old: &StoredRun) {
    let over_it = StoredRun::new(old.id.clone(), 2, old.run.clone(), old.seal.clone());
    assert_eq!(
        store
            .save_run(&over_it, Some(1))
            .expect("the store answers"),
        SaveRunOutcome::Conflict { stored: Some(1) }
    );
    assert_eq!(store.newest_generation(&old.id).expect("reads"), Some(3));
}

/// A run's generation-1 row put back whole in SQLite (its old JSON, its old seal, its old
/// generation, all as this host wrote them) is refused by the next load and resume: the
/// seal cannot tell, the run's mark kept apart from its row can.
#[test]
fn a_row_put_back_whole_in_sqlite_is_refused() {
    let dir = tempdir("put-back");
    let path = dir.join("runs.db");
    let store = SqliteStore::open(&path).expect("the database opens");
    let runs = Runs::new(&store).sealed_with(SealKey::new(KEY).expect("32 bytes"));
    let (id, old) = a_run_that_read_private_data(&runs, &store);
    rusqlite::Connection::open(&path)
        .expect("the database opens")
        .execute(
            "UPDATE toolset_runs SET run = ?2, seal = ?3, generation = 1 WHERE id = ?1",
            rusqlite::params![id.as_str(), old.run, old.seal],
        )
        .expect("the row is written");
    the_old_copy_is_refused(&runs, &id);
    no_save_builds_on_the_old_row(&store, &old);
    // The mark taken away too: a run without one cannot be told from an old copy.
    rusqlite::Connection::open(&path)
        .expect("the database opens")
        .execute(
            "DELETE FROM toolset_run_marks WHERE id = ?1",
            rusqlite::params![id.as_str()],
        )
        .expect("the mark is removed");
    assert_eq!(
        runs.resume(&id).err(),
        Some(RunError::RolledBack {
            copy: 1,
            newest: None
        })
    );
}

/// The same over PostgreSQL (the server `scripts/postgres` starts).
#[test]
fn a_row_put_back_whole_in_postgres_is_refused() {
    let Some(url) = postgres::url("run_resume row put back over PostgreSQL") else {
        return;
    };
    let db = postgres::fresh_database(&url, "run_resume_put_back");
    let store = PostgresStore::connect(&db).expect("connects");
    let runs = Runs::new(&store).sealed_with(SealKey::new(KEY).expect("32 bytes"));
    let (id, old) = a_run_that_read_private_data(&runs, &store);
    let quoted = |text: &str| format!("'{}'", text.replace('\'', "''"));
    postgres::execute(
        &db,
        &format!(
            "UPDATE toolset_runs SET run = {}, seal = {}, generation = 1 WHERE id = {}",
            quoted(&old.run),
            quoted(old.seal.as_deref().expect("sealed")),
            quoted(id.as_str()),
        ),
    );
    the_old_copy_is_refused(&runs, &id);
    no_save_builds_on_the_old_row(&store, &old);
}

/// In memory, the only writer is the store's own `save_run`: the old row written over the
/// newest generation is refused by the store, and the run resumes as it was last saved,
/// exposed.
#[test]
fn a_row_put_back_whole_in_memory_is_refused() {
    let store = MemoryStore::new();
    let runs = Runs::new(&store);
    let (id, old) = a_run_that_read_private_data(&runs, &store);
    assert_eq!(
        store.save_run(&old, Some(3)).expect("writes"),
        SaveRunOutcome::Conflict { stored: Some(3) }
    );
    let resumed = runs.resume(&id).expect("the newest copy resumes");
    assert_eq!(resumed.generation(), 4);
    assert_eq!(resumed.exposure().private_from(), ["read_inbox"]);
}

// ---------------------------------------------------------------------------------------
// How a late result came to be late (issue 38 item 5).

/// The continue style's follow-up, as OpenAI Chat's text.
fn follow_up_text(run: &Run) -> String {
    let message = toolset::consumer::openai_chat::follow_up(&run.late_results());
    message["content"].as_str().expect("a text").to_owned()
}

/// A call a human approved whose host died after its start was journaled (no end: in
/// doubt), then run again by the host (`resolve <key> rerun`, `Approvals::rerun`): the
/// follow-up tells the model a crash cut the call off and it was run again, not that it
/// was awaiting approval. An approved call that ran at once is told as before.
#[tokio::test]
async fn the_follow_up_of_a_call_run_again_after_a_crash_says_a_crash_cut_it_off() {
    let dir = tempdir("rerun-follow-up");
    let store = MemoryStore::new();
    let approvals = toolset::Approvals::new(&store);
    let policy = LedgerTools::policy(Autonomy::ExternalReversible);
    let mut ledger = toolset_tests::ledger::Ledger {
        file: dir.join("ledger"),
    };
    let ctx = toolset::ToolContext::default();
    let mut run = Run::new();
    let calls = [
        ToolCall::new("crashed", "pay", r#"{"note":"rent"}"#),
        ToolCall::new("ran", "pay", r#"{"note":"gas"}"#),
    ];
    let plan = toolset::request::Request::new(&policy)
        .gate(calls)
        .expect("valid");
    for proposal in plan.proposals() {
        approvals.submit(proposal).expect("stored");
        run.await_approval(proposal);
    }
    let approve = |proposal: &toolset::approval::ProposalId| {
        let reviewed = approvals.pending(proposal).expect("pending").reviewed();
        match approvals.approve(&reviewed, &toolset::request::Request::new(&policy)) {
            Ok(toolset::approval::Approved::Run(call)) => call,
            other => panic!("pay runs once approved: {other:?}"),
        }
    };
    // The host dies once the approval journaled the call's start: never ended.
    drop(approve(&run.pending()[0].proposal));
    approve(&run.pending()[1].proposal)
        .apply(&mut ledger, &ctx)
        .await;
    let in_doubt = store.in_doubt().expect("the journal reads");
    assert_eq!(in_doubt.len(), 1, "{in_doubt:?}");
    match approvals.rerun(&in_doubt[0], &toolset::request::Request::new(&policy)) {
        Ok(toolset::approval::Approved::Run(call)) => {
            call.apply(&mut ledger, &ctx).await;
        }
        other => panic!("the rerun runs: {other:?}"),
    }
    run.collect(&store).expect("the answers are gathered");
    let text = follow_up_text(&run);
    let paragraphs: Vec<&str> = text.split("\n\n").collect();
    assert_eq!(paragraphs.len(), 2, "{text}");
    let crashed = paragraphs
        .iter()
        .find(|paragraph| paragraph.contains("crashed"))
        .expect("the crashed call is answered");
    assert!(
        crashed.contains("cut off")
            && crashed.contains("run again")
            && !crashed.contains("awaiting approval"),
        "{crashed}"
    );
    assert!(crashed.ends_with("paid rent"), "{crashed}");
    let ran = paragraphs
        .iter()
        .find(|paragraph| paragraph.contains("call ran to"))
        .expect("the other call is answered");
    assert!(
        ran.contains("awaiting approval") && !ran.contains("cut off"),
        "{ran}"
    );
}
