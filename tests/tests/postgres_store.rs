//! The PostgreSQL proposal store against a real server (the throwaway cluster of
//! `scripts/postgres`, which `scripts/test` runs every test beside; without it these tests
//! say so and are skipped, unless `TOOLSET_REQUIRE_POSTGRES` is set: see `src/postgres.rs`).
//! Across processes: `approval_processes.rs`.

use std::sync::{Arc, Barrier};
use toolset::prelude::*;
use toolset::store::{Decision, Effect, Resolution, ResolveOutcome, Store};
use toolset::{Approvals, Autonomy, PostgresStore, Proposal, ToolCall, ToolContext};
use toolset_tests::ledger::{Ledger, LedgerTools, runs};
use toolset_tests::postgres;

/// A fresh database on the test server for `test`, or `None` when there is no server.
fn database(test: &str) -> Option<String> {
    let url = postgres::url(test)?;
    Some(postgres::fresh_database(&url, test))
}

fn proposal(note: &str) -> Proposal {
    let call = ToolCall::new("call_1", "pay", format!("{{\"note\":\"{note}\"}}"));
    let plan = LedgerTools::gate([call], Autonomy::ExternalReversible).expect("valid");
    plan.proposals()[0].clone()
}

fn at(decision: Decision, at_ms: u64) -> Resolution {
    Resolution { decision, at_ms }
}

/// 16 resolvers, each on its own connection (its own store), released together on each
/// of `rounds` proposals: exactly one resolves it, every other is told it was resolved,
/// and an effect is on record exactly when the winner approved.
fn sixteen_resolvers(url: &str, rounds: usize) {
    let stores: Vec<Arc<PostgresStore>> = (0..16)
        .map(|_| Arc::new(PostgresStore::connect(url).expect("connects")))
        .collect();
    for round in 0..rounds {
        let proposal = proposal(&format!("bill-{round}"));
        stores[0].insert(&proposal).expect("stored");
        let barrier = Arc::new(Barrier::new(stores.len()));
        let threads: Vec<_> = stores
            .iter()
            .enumerate()
            .map(|(index, store)| {
                let (store, barrier, id) = (store.clone(), barrier.clone(), proposal.id().clone());
                std::thread::spawn(move || {
                    let decision = if index % 2 == 0 {
                        Decision::Approved
                    } else {
                        Decision::Declined
                    };
                    barrier.wait();
                    (
                        decision,
                        store.resolve(&id, &at(decision, 1000 + index as u64)),
                    )
                })
            })
            .collect();
        let outcomes: Vec<_> = threads
            .into_iter()
            .map(|thread| thread.join().expect("no resolver panicked"))
            .collect();
        let winners: Vec<_> = outcomes
            .iter()
            .filter(|(_, outcome)| outcome == &Ok(ResolveOutcome::Resolved))
            .collect();
        assert_eq!(winners.len(), 1, "round {round}: {outcomes:?}");
        let stored = stores[1]
            .get(proposal.id())
            .expect("readable")
            .expect("stored");
        let resolution = stored.resolution.clone().expect("resolved");
        assert_eq!(resolution.decision, winners[0].0);
        for (_, outcome) in &outcomes {
            assert!(
                outcome == &Ok(ResolveOutcome::Resolved)
                    || outcome == &Ok(ResolveOutcome::AlreadyResolved(resolution.clone())),
                "round {round}: {outcome:?}"
            );
        }
        assert_eq!(
            stored.effect.is_some(),
            resolution.decision == Decision::Approved,
            "round {round}: an effect exactly when approved"
        );
    }
}

#[test]
fn sixteen_concurrent_resolvers_on_separate_connections_exactly_one_wins() {
    let Some(url) = database("sixteen") else {
        return;
    };
    sixteen_resolvers(&url, 12);
}

/// The store sets READ COMMITTED on its resolving transaction: a server whose default is
/// SERIALIZABLE (or REPEATABLE READ) would otherwise fail the resolvers that waited for the
/// winner's lock with a serialization error, instead of telling them it was resolved.
#[test]
fn exactly_one_wins_whatever_the_servers_default_isolation_level() {
    for level in ["serializable", "repeatable read"] {
        let name = format!("isolation_{}", level.replace(' ', "_"));
        let Some(url) = database(&name) else {
            return;
        };
        let database = format!("toolset_{name}_{}", std::process::id());
        postgres::execute(
            &url,
            &format!("ALTER DATABASE {database} SET default_transaction_isolation = '{level}'"),
        );
        sixteen_resolvers(&url, 6);
    }
}

/// An attacker with write access resetting an approved proposal's resolution (or deleting
/// its row and writing it again as it waited) cannot replay it: its effect is in a table
/// of its own, and the ledger shows one run.
#[tokio::test]
async fn a_resolution_reset_to_pending_never_runs_the_call_a_second_time() {
    let Some(url) = database("reset") else {
        return;
    };
    let dir = std::env::temp_dir().join(format!("toolset-pg-reset-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).expect("a temp dir");
    let mut ledger = Ledger {
        file: dir.join("ledger.txt"),
    };
    // Called from inside a current-thread runtime, as a host's handler would.
    let approvals = Approvals::new(PostgresStore::connect(&url).expect("connects"));
    let policy = LedgerTools::policy(Autonomy::Off);
    let proposal = proposal("rent");
    let id = approvals.submit(&proposal).expect("stored");
    let approval = proposal.reviewed();
    match approvals.approve(&approval, &toolset::request::Request::new(&policy)) {
        Ok(toolset::approval::Approved::Run(call)) => {
            call.apply(&mut ledger, &ToolContext::default()).await;
        }
        Ok(_) => panic!("pay has a handler: it runs"),
        Err(error) => panic!("not approved: {error}"),
    }
    let effect = approvals
        .store()
        .get(&id)
        .expect("readable")
        .expect("stored")
        .effect
        .expect("an effect is on record");
    let waiting = serde_json::to_string(&proposal).expect("serializes");
    let resets = [
        format!(
            "UPDATE toolset_proposals SET decision = NULL, resolved_at_ms = NULL WHERE id = '{id}'"
        ),
        format!(
            "DELETE FROM toolset_proposals WHERE id = '{id}';
             INSERT INTO toolset_proposals (id, proposal) VALUES ('{id}', $${waiting}$$)"
        ),
    ];
    for reset in &resets {
        postgres::execute(&url, reset);
        let stored = approvals
            .store()
            .get(&id)
            .expect("readable")
            .expect("stored");
        assert_eq!(stored.resolution, None, "the row says it waits again");
        for decision in [Decision::Approved, Decision::Declined] {
            assert_eq!(
                approvals.store().resolve(&id, &at(decision, 9)),
                Ok(ResolveOutcome::EffectRecorded(effect.clone())),
                "after `{reset}`"
            );
        }
        let again = approvals.approve(&approval, &toolset::request::Request::new(&policy));
        assert!(
            again
                .as_ref()
                .err()
                .is_some_and(|error| error.to_string().contains("already ran")),
            "after `{reset}` the approval was replayed: {again:?}"
        );
    }
    assert_eq!(runs(&ledger.file), ["rent"], "the call ran exactly once");
    let _ = std::fs::remove_dir_all(&dir);
}

/// Stores connecting at once to an empty database create the schema once, under the
/// schema's advisory lock: none fails on a table another is creating.
#[test]
fn stores_connecting_at_once_to_an_empty_database_create_the_schema_once() {
    let Some(url) = database("schema_race") else {
        return;
    };
    let barrier = Arc::new(Barrier::new(8));
    let threads: Vec<_> = (0..8)
        .map(|_| {
            let (url, barrier) = (url.clone(), barrier.clone());
            std::thread::spawn(move || {
                barrier.wait();
                PostgresStore::connect(&url).map(|_| ())
            })
        })
        .collect();
    for thread in threads {
        assert_eq!(thread.join().expect("no panic"), Ok(()));
    }
    let store = PostgresStore::connect(&url).expect("connects");
    let proposal = proposal("after the race");
    store.insert(&proposal).expect("the tables work");
    postgres::execute(
        &url,
        "DO $$ BEGIN
             IF (SELECT count(*) FROM toolset_schema_version) <> 1
                OR (SELECT max(version) FROM toolset_schema_version) <> 7 THEN
                 RAISE EXCEPTION 'the schema version is not one row of 7';
             END IF;
         END $$",
    );
}

/// A database at schema version 1 (proposals only, before effects had a table) is
/// migrated when a store connects: every proposal it had approved gets its effect, so
/// none can be replayed, and a waiting one is resolved as usual.
#[test]
fn a_database_at_schema_version_1_is_migrated_and_its_approvals_cannot_be_replayed() {
    let Some(url) = database("migration") else {
        return;
    };
    let (approved, waiting) = (proposal("approved before"), proposal("waiting"));
    let json = |proposal: &Proposal| serde_json::to_string(proposal).expect("serializes");
    postgres::execute(
        &url,
        &format!(
            "CREATE TABLE toolset_schema_version (version INTEGER NOT NULL);
             INSERT INTO toolset_schema_version VALUES (1);
             CREATE TABLE toolset_proposals (
                 id TEXT PRIMARY KEY NOT NULL,
                 proposal TEXT NOT NULL,
                 decision TEXT CHECK (decision IN ('approved', 'declined')),
                 resolved_at_ms BIGINT
             );
             INSERT INTO toolset_proposals VALUES ('{}', $${}$$, 'approved', 77);
             INSERT INTO toolset_proposals (id, proposal) VALUES ('{}', $${}$$);",
            approved.id(),
            json(&approved),
            waiting.id(),
            json(&waiting)
        ),
    );
    let store = PostgresStore::connect(&url).expect("connects and migrates");
    assert_eq!(
        store
            .get(approved.id())
            .expect("readable")
            .expect("kept")
            .effect,
        Some(Effect::started_at(77))
    );
    postgres::execute(
        &url,
        &format!(
            "UPDATE toolset_proposals SET decision = NULL, resolved_at_ms = NULL
             WHERE id = '{}'",
            approved.id()
        ),
    );
    assert_eq!(
        store.resolve(approved.id(), &at(Decision::Approved, 90)),
        Ok(ResolveOutcome::EffectRecorded(Effect::started_at(77)))
    );
    assert_eq!(
        store.resolve(waiting.id(), &at(Decision::Approved, 91)),
        Ok(ResolveOutcome::Resolved)
    );
    // Connecting again finds the schema current and changes nothing.
    drop(PostgresStore::connect(&url).expect("connects again"));
    assert_eq!(
        store
            .get(waiting.id())
            .expect("readable")
            .expect("kept")
            .effect,
        Some(Effect::started_at(91))
    );
}

/// A schema written by a later toolset is refused, saying so, rather than misread.
#[test]
fn a_newer_schema_is_refused_with_a_message_saying_so() {
    let Some(url) = database("newer") else {
        return;
    };
    postgres::execute(
        &url,
        "CREATE TABLE toolset_schema_version (version INTEGER NOT NULL);
         INSERT INTO toolset_schema_version VALUES (99);",
    );
    let error = PostgresStore::connect(&url)
        .expect_err("refused")
        .to_string();
    assert!(
        error.contains("version 99") && error.contains("upgrade toolset"),
        "{error}"
    );
}

/// A server that is not there, and a URL that does not parse, are `StoreError`s saying
/// what to check (and never echoing a password); nothing panics. Needs no server.
#[test]
fn a_connection_failure_is_a_store_error_saying_what_to_check() {
    let refused = PostgresStore::connect("postgres://toolset:secret@127.0.0.1:1/proposals")
        .expect_err("nothing listens on port 1")
        .to_string();
    assert!(
        refused.contains("toolset@127.0.0.1:1/proposals")
            && refused.contains("check the URL")
            && refused.contains("server is running"),
        "{refused}"
    );
    assert!(
        !refused.contains("secret"),
        "the password is not shown: {refused}"
    );
    let no_socket = PostgresStore::connect("postgresql://postgres@%2Fnonexistent%2Fdir/db")
        .expect_err("no socket there")
        .to_string();
    assert!(no_socket.contains("/nonexistent/dir"), "{no_socket}");
    let invalid = PostgresStore::connect("postgres://user@host:notaport/db")
        .expect_err("not a URL")
        .to_string();
    assert!(invalid.contains("URL is not valid"), "{invalid}");
}

/// Every call works from inside a multi-thread runtime's task, a current-thread runtime's
/// and a plain thread (the store's own thread drives the connection; nothing starts a
/// runtime on the caller's).
#[test]
fn the_store_works_from_a_multi_thread_runtime_a_current_thread_runtime_and_plain_threads() {
    let Some(url) = database("runtimes") else {
        return;
    };
    let round_trip = |url: &str, note: &str| {
        let store = PostgresStore::connect(url).expect("connects");
        let proposal = proposal(note);
        store.insert(&proposal).expect("stored");
        assert!(store.insert(&proposal).is_err(), "an id is stored once");
        assert_eq!(
            store.resolve(proposal.id(), &at(Decision::Declined, 5)),
            Ok(ResolveOutcome::Resolved)
        );
        let stored = store.get(proposal.id()).expect("readable").expect("stored");
        assert_eq!(stored.proposal, proposal);
        assert_eq!(stored.effect, None, "a decline records no effect");
        drop(store);
    };
    let multi = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(2)
        .enable_all()
        .build()
        .expect("a runtime");
    let task_url = url.clone();
    multi
        .block_on(async { tokio::spawn(async move { round_trip(&task_url, "multi") }).await })
        .expect("no panic in the multi-thread runtime");
    let current = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .expect("a runtime");
    current.block_on(async { round_trip(&url, "current") });
    std::thread::scope(|scope| {
        scope.spawn(|| round_trip(&url, "plain"));
    });
}

/// A connection the server ends (an administrator, a restart) is opened again: the call
/// that finds it gone may fail with a `StoreError`, and the next one works.
#[test]
fn a_lost_connection_is_opened_again_at_the_next_call() {
    let Some(url) = database("reconnect") else {
        return;
    };
    let store = PostgresStore::connect(&url).expect("connects");
    let proposal = proposal("reconnect");
    store.insert(&proposal).expect("stored");
    let database = format!("toolset_reconnect_{}", std::process::id());
    postgres::execute(
        &url,
        &format!(
            "SELECT pg_terminate_backend(pid) FROM pg_stat_activity
             WHERE datname = '{database}' AND pid <> pg_backend_pid()"
        ),
    );
    // The server ends the backend when it reads the signal; give it that moment.
    std::thread::sleep(std::time::Duration::from_millis(200));
    let _ = store.get(proposal.id());
    assert!(
        store.get(proposal.id()).expect("connected again").is_some(),
        "the proposal is still there"
    );
}
