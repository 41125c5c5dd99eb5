//! The three stores give the same answers to the same operations: random sequences of
//! proposal, journal, run and pin operations over the public store API (every method of
//! [`Store`]), run on the
//! [`MemoryStore`] (the reference), a [`SqliteStore`] and, when the throwaway server of
//! `scripts/postgres` runs, a [`PostgresStore`] (without it PostgreSQL is skipped, saying
//! so, and memory is compared with SQLite alone: see `src/postgres.rs`). Every answer is
//! compared, then what each store holds at the end.
//!
//! The operations use a few ids, keys and runs, so they collide: a journal start under a
//! proposal's id, a proposal declined, swept and inserted again, a run saved over a stale
//! generation. `PROPTEST_CASES` sets the number of sequences (96 by default).

use proptest::prelude::*;
use proptest::test_runner::{Config, TestCaseError, TestError, TestRunner};
use serde_json::{Value, json};
use toolset::approval::ProposalId;
use toolset::call::Caller;
use toolset::prelude::*;
use toolset::store::{
    CallEnd, CallStart, Decision, EndOutcome, Ending, JournalEntry, Pin, Resolution,
    ResolveOutcome, RunId, SaveRunOutcome, StartOutcome, Store, StoreError, Stored, StoredRun,
    Usage, sweep,
};
use toolset::{
    Autonomy, MemoryStore, PostgresStore, Proposal, SqliteStore, Tier, ToolCall, ToolOutput,
};
use toolset_tests::ledger::LedgerTools;
use toolset_tests::postgres;

/// The proposals' ids: few, so that operations meet on them.
const IDS: [&str; 4] = [
    "0a0a0a0a0a0a0a0a0a0a0a0a0a0a0a0a",
    "5b5b5b5b5b5b5b5b5b5b5b5b5b5b5b5b",
    "ca11ca11ca11ca11ca11ca11ca11ca11",
    "ffffffffffffffffffffffffffffffff",
];

/// The journal's keys: the proposals' ids (an approval's start is its journal entry) and
/// keys of calls without a proposal, sorting among them.
const KEYS: [&str; 7] = [IDS[0], IDS[1], IDS[2], IDS[3], "call-a", "call-b", "ca"];

/// The proposals' owners.
const OWNERS: [&str; 3] = ["", "ann", "bob"];

/// The runs' ids.
const RUNS: [&str; 3] = ["run-1", "run-2", "r"];

/// The sources of pins, and the tools and fingerprints pinned.
const SOURCES: [&str; 2] = ["fix", "other"];
const PINNED: [&str; 2] = ["echo", "note"];
const FINGERPRINTS: [&str; 3] = ["a", "b", "c"];

/// A time: few of them, so that times tie and expiries fall on the boundary.
fn time() -> impl Strategy<Value = u64> {
    0u64..24
}

/// One operation of the public store API, its arguments drawn from the sets above.
#[derive(Debug, Clone)]
enum Op {
    Insert {
        id: usize,
        owner: usize,
        created: u64,
        expires: Option<u64>,
        note: usize,
        from_code: bool,
    },
    Get(usize),
    Resolve {
        id: usize,
        approve: bool,
        at: u64,
    },
    Decline {
        id: usize,
        at: u64,
        reason: usize,
    },
    Usage {
        owner: usize,
        now: u64,
    },
    Expired(u64),
    Forget(usize),
    Sweep(u64),
    Start {
        key: usize,
        call: usize,
        tier: usize,
        from_code: bool,
        at: u64,
    },
    End {
        key: usize,
        ending: usize,
        text: usize,
        at: u64,
    },
    Entry(usize),
    InDoubt,
    Rerun {
        key: usize,
        attempts: u32,
    },
    Undelivered,
    MarkDelivered {
        key: usize,
        at: u64,
    },
    MarkDone {
        key: usize,
        at: u64,
    },
    MarkFailed {
        key: usize,
        at: u64,
    },
    SaveRun {
        run: usize,
        generation: u64,
        expected: Option<u64>,
        text: usize,
        sealed: bool,
    },
    LoadRun(usize),
    NewestGeneration(usize),
    Waiting,
    Pins(usize),
    Pin {
        source: usize,
        tool: usize,
        fingerprint: usize,
        replacing: Option<usize>,
    },
}

fn op() -> impl Strategy<Value = Op> {
    let id = 0..IDS.len();
    let key = 0..KEYS.len();
    let run = 0..RUNS.len();
    prop_oneof![
        6 => (id.clone(), 0..OWNERS.len(), 0u64..4, proptest::option::of(time()), 0usize..300, any::<bool>())
            .prop_map(|(id, owner, created, expires, note, from_code)| Op::Insert {
                id, owner, created, expires, note, from_code,
            }),
        2 => id.clone().prop_map(Op::Get),
        3 => (id.clone(), any::<bool>(), time())
            .prop_map(|(id, approve, at)| Op::Resolve { id, approve, at }),
        3 => (id.clone(), time(), 0usize..3)
            .prop_map(|(id, at, reason)| Op::Decline { id, at, reason }),
        2 => (0..OWNERS.len(), time()).prop_map(|(owner, now)| Op::Usage { owner, now }),
        1 => time().prop_map(Op::Expired),
        2 => id.clone().prop_map(Op::Forget),
        2 => time().prop_map(Op::Sweep),
        4 => (key.clone(), 0usize..3, 0..Tier::ALL.len(), any::<bool>(), time())
            .prop_map(|(key, call, tier, from_code, at)| Op::Start { key, call, tier, from_code, at }),
        4 => (key.clone(), 0usize..3, 0usize..3, time())
            .prop_map(|(key, ending, text, at)| Op::End { key, ending, text, at }),
        2 => key.clone().prop_map(Op::Entry),
        1 => Just(Op::InDoubt),
        2 => (key.clone(), 0u32..3).prop_map(|(key, attempts)| Op::Rerun { key, attempts }),
        1 => Just(Op::Undelivered),
        2 => (key.clone(), time()).prop_map(|(key, at)| Op::MarkDelivered { key, at }),
        1 => (key.clone(), time()).prop_map(|(key, at)| Op::MarkDone { key, at }),
        1 => (key, time()).prop_map(|(key, at)| Op::MarkFailed { key, at }),
        4 => (run.clone(), 0u64..6, proptest::option::of(0u64..6), 0usize..3, any::<bool>())
            .prop_map(|(run, generation, expected, text, sealed)| Op::SaveRun {
                run, generation, expected, text, sealed,
            }),
        2 => run.clone().prop_map(Op::LoadRun),
        1 => run.prop_map(Op::NewestGeneration),
        1 => Just(Op::Waiting),
        1 => (0..SOURCES.len()).prop_map(Op::Pins),
        3 => (0..SOURCES.len(), 0..PINNED.len(), 0..FINGERPRINTS.len(),
              proptest::option::of(0..FINGERPRINTS.len()))
            .prop_map(|(source, tool, fingerprint, replacing)| Op::Pin {
                source, tool, fingerprint, replacing,
            }),
    ]
}

/// What a store answered, each operation's result as its type has it. A failure is
/// compared by kind only: the trait says when an operation fails, not in which words.
#[derive(Debug, PartialEq)]
enum Answer {
    Done,
    Stored(Option<Stored>),
    Resolved(ResolveOutcome),
    Usage(Usage),
    /// Expired or waiting proposals: a set, which the trait lists in no particular order.
    Ids(Vec<ProposalId>),
    /// A source's pins: a set too.
    Pins(Vec<Pin>),
    Flag(bool),
    Count(usize),
    Started(StartOutcome),
    Ended(EndOutcome),
    Entry(Option<JournalEntry>),
    Entries(Vec<JournalEntry>),
    Saved(SaveRunOutcome),
    Run(Option<StoredRun>),
    Generation(Option<u64>),
    Failed {
        full: bool,
    },
}

/// The stored form of a `pay` proposal, whose fields each operation changes.
fn template() -> Value {
    let call = ToolCall::new("call_1", "pay", "{\"note\":\"\"}");
    let plan = LedgerTools::gate([call], Autonomy::ExternalReversible).expect("valid");
    serde_json::to_value(&plan.proposals()[0]).expect("a proposal serializes")
}

fn caller(from_code: bool) -> Caller {
    if from_code {
        Caller::code("code_execution_20260120", "srvtoolu_1")
    } else {
        Caller::Direct
    }
}

fn proposal(template: &Value, op: &Op) -> Proposal {
    let Op::Insert {
        id,
        owner,
        created,
        expires,
        note,
        from_code,
    } = *op
    else {
        unreachable!("only an insert makes a proposal")
    };
    let mut value = template.clone();
    let call = ToolCall::new(
        format!("call_{id}"),
        "pay",
        json!({ "note": "ü".repeat(note) }).to_string(),
    )
    .with_caller(caller(from_code));
    value["id"] = json!(IDS[id]);
    value["owner"] = json!(OWNERS[owner]);
    value["created_ms"] = json!(created);
    value["expires_ms"] = json!(expires);
    value["call"] = serde_json::to_value(&call).expect("a call serializes");
    serde_json::from_value(value).expect("the template with other fields is a proposal")
}

fn id(index: usize) -> ProposalId {
    ProposalId::parse(IDS[index]).expect("a proposal id")
}

fn run_id(index: usize) -> RunId {
    RunId::parse(RUNS[index]).expect("a run id")
}

fn answer<T>(result: Result<T, StoreError>, into: impl FnOnce(T) -> Answer) -> Answer {
    match result {
        Ok(value) => into(value),
        Err(error) => Answer::Failed {
            full: error.is_full(),
        },
    }
}

/// Runs `op` on `store`.
fn apply(store: &dyn Store, template: &Value, op: &Op) -> Answer {
    match *op {
        Op::Insert { .. } => answer(store.insert(&proposal(template, op)), |()| Answer::Done),
        Op::Get(index) => answer(store.get(&id(index)), Answer::Stored),
        Op::Resolve {
            id: index,
            approve,
            at,
        } => {
            let decision = if approve {
                Decision::Approved
            } else {
                Decision::Declined
            };
            let resolution = Resolution {
                decision,
                at_ms: at,
            };
            answer(store.resolve(&id(index), &resolution), Answer::Resolved)
        }
        Op::Decline {
            id: index,
            at,
            reason,
        } => {
            let output = ToolOutput::error(format!("declined: reason {reason}"));
            answer(store.decline(&id(index), at, &output), Answer::Resolved)
        }
        Op::Usage { owner, now } => answer(store.usage(OWNERS[owner], now), Answer::Usage),
        Op::Expired(now) => answer(store.expired(now), |mut ids| {
            ids.sort();
            Answer::Ids(ids)
        }),
        Op::Forget(index) => answer(store.forget(&id(index)), Answer::Flag),
        Op::Sweep(now) => answer(sweep(store, now), Answer::Count),
        Op::Start {
            key,
            call,
            tier,
            from_code,
            at,
        } => {
            let arguments = ["{}", "{\"a\":1}", "{\"note\":\"é\"}"][call];
            let call = ToolCall::new(format!("c{call}"), ["pay", "note", "pay"][call], arguments)
                .with_caller(caller(from_code));
            let start = CallStart::under(KEYS[key].to_owned(), &call, Tier::ALL[tier], at);
            answer(store.start(&start), Answer::Started)
        }
        Op::End {
            key,
            ending,
            text,
            at,
        } => {
            let ending = [Ending::Done, Ending::Failed, Ending::Declined][ending];
            let output = ToolOutput::text(format!("result {text}"));
            let end = CallEnd::with_output(ending, &output, at);
            answer(store.end(KEYS[key], &end), Answer::Ended)
        }
        Op::Entry(key) => answer(store.entry(KEYS[key]), Answer::Entry),
        Op::InDoubt => answer(store.in_doubt(), Answer::Entries),
        Op::Rerun { key, attempts } => answer(store.rerun(KEYS[key], attempts), Answer::Flag),
        Op::Undelivered => answer(store.undelivered(), Answer::Entries),
        Op::MarkDelivered { key, at } => answer(store.mark_delivered(KEYS[key], at), Answer::Flag),
        Op::MarkDone { key, at } => answer(store.mark_done(KEYS[key], at), Answer::Ended),
        Op::MarkFailed { key, at } => answer(store.mark_failed(KEYS[key], at), Answer::Ended),
        Op::SaveRun {
            run,
            generation,
            expected,
            text,
            sealed,
        } => {
            let copy = StoredRun::new(
                run_id(run),
                generation,
                format!("{{\"run\":{text}}}"),
                sealed.then(|| format!("seal-{generation}")),
            );
            answer(store.save_run(&copy, expected), Answer::Saved)
        }
        Op::LoadRun(run) => answer(store.load_run(&run_id(run)), Answer::Run),
        Op::NewestGeneration(run) => {
            answer(store.newest_generation(&run_id(run)), Answer::Generation)
        }
        Op::Waiting => answer(store.waiting(), |mut ids| {
            ids.sort();
            Answer::Ids(ids)
        }),
        Op::Pins(source) => answer(store.pins(SOURCES[source]), |mut pins| {
            pins.sort_by(|a, b| a.tool.cmp(&b.tool));
            Answer::Pins(pins)
        }),
        Op::Pin {
            source,
            tool,
            fingerprint,
            replacing,
        } => {
            let fingerprint = FINGERPRINTS[fingerprint];
            let pin = Pin::new(
                PINNED[tool],
                fingerprint,
                format!("{{\"v\":\"{fingerprint}\"}}"),
            );
            let replacing = replacing.map(|index| FINGERPRINTS[index]);
            answer(store.pin(SOURCES[source], &pin, replacing), Answer::Flag)
        }
    }
}

/// Everything a store holds, read through the API: each proposal, entry and run, the
/// lists, and what counts against the limits before, at and after the expiries.
fn holdings() -> Vec<Op> {
    let mut reads: Vec<Op> = (0..IDS.len()).map(Op::Get).collect();
    reads.extend((0..KEYS.len()).map(Op::Entry));
    reads.extend((0..RUNS.len()).flat_map(|run| [Op::LoadRun(run), Op::NewestGeneration(run)]));
    reads.extend([Op::InDoubt, Op::Undelivered, Op::Waiting]);
    reads.extend((0..SOURCES.len()).map(Op::Pins));
    for now in [0, 12, 30] {
        reads.push(Op::Expired(now));
        reads.extend((0..OWNERS.len()).map(|owner| Op::Usage { owner, now }));
    }
    reads
}

/// A fresh SQLite database file for one sequence, in `dir`, which the test removes.
fn sqlite(dir: &std::path::Path) -> SqliteStore {
    use std::sync::atomic::{AtomicUsize, Ordering};
    static NEXT: AtomicUsize = AtomicUsize::new(0);
    let file = dir.join(format!("case-{}.db", NEXT.fetch_add(1, Ordering::Relaxed)));
    SqliteStore::open(file).expect("a fresh SQLite database opens")
}

/// The same sequence on the reference and each candidate: every answer equal, and every
/// holding at the end.
fn same_answers(
    template: &Value,
    candidates: &[(&'static str, &dyn Store)],
    ops: &[Op],
) -> Result<(), TestCaseError> {
    let reference = MemoryStore::new();
    let holdings = holdings();
    let steps = ops
        .iter()
        .map(|op| ("operation", op))
        .chain(holdings.iter().map(|op| ("at the end", op)));
    for (index, (when, op)) in steps.enumerate() {
        let expected = apply(&reference, template, op);
        for (name, store) in candidates {
            let got = apply(*store, template, op);
            prop_assert_eq!(
                &got,
                &expected,
                "{} {} ({:?}): {} answered otherwise than the memory store",
                when,
                index,
                op,
                name
            );
        }
    }
    Ok(())
}

fn cases() -> u32 {
    std::env::var("PROPTEST_CASES")
        .ok()
        .and_then(|cases| cases.parse().ok())
        .unwrap_or(96)
}

#[test]
fn memory_sqlite_and_postgresql_give_the_same_answers_to_the_same_random_operations() {
    let dir = std::env::temp_dir().join(format!("toolset-store-model-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).expect("a temp dir");
    let postgres =
        postgres::url("store_model (PostgreSQL only; memory and SQLite still run)").map(|url| {
            let url = postgres::fresh_database(&url, "store_model");
            let store = PostgresStore::connect(&url).expect("connects");
            (url, store)
        });
    let template = template();
    let mut runner = TestRunner::new(Config {
        cases: cases(),
        failure_persistence: None,
        ..Config::default()
    });
    let result = runner.run(&proptest::collection::vec(op(), 1..64), |ops| {
        let sqlite = sqlite(&dir);
        let mut candidates: Vec<(&'static str, &dyn Store)> = vec![("SQLite", &sqlite)];
        if let Some((url, store)) = &postgres {
            // One database for the test, emptied before each sequence: the sequences
            // never see each other's rows.
            postgres::execute(
                url,
                "TRUNCATE toolset_proposals, toolset_effects, toolset_runs, toolset_run_marks, \
                 toolset_pins",
            );
            candidates.push(("PostgreSQL", store));
        }
        same_answers(&template, &candidates, &ops)
    });
    let _ = std::fs::remove_dir_all(&dir);
    match result {
        Ok(()) => {}
        Err(TestError::Fail(reason, ops)) => {
            panic!("{reason}\nthe smallest sequence found:\n{ops:#?}")
        }
        Err(TestError::Abort(reason)) => panic!("aborted: {reason}"),
    }
}
