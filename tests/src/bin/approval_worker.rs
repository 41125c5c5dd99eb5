//! A second process for the approval tests: approves and runs proposals waiting in a
//! store (a SQLite file, or a PostgreSQL database), recording each run in the ledger file.
//!
//! `approval_worker <store> <ledger> <id>...`: `<store>` is a PostgreSQL URL
//! (`postgres://…` or `postgresql://…`) or else a SQLite file's path. Approves each id
//! once (in the order given, again and again while `--loop` is given and some are
//! pending), and prints one line per attempt: `ran <id>` or `refused <id>: <why>`.

use std::process::ExitCode;

use toolset::approval::{ApprovalError, Approved, ProposalId};
use toolset::store::Store;
use toolset::{Approvals, Policy, PostgresStore, SqliteStore, ToolContext};
use toolset_tests::ledger::{Ledger, LedgerTools};

fn main() -> ExitCode {
    let mut args: Vec<String> = std::env::args().skip(1).collect();
    let looping = args.first().is_some_and(|arg| arg == "--loop");
    if looping {
        args.remove(0);
    }
    let [store, ledger, ids @ ..] = args.as_slice() else {
        eprintln!("usage: approval_worker [--loop] <store> <ledger> <id>...");
        return ExitCode::from(2);
    };
    let opened = if store.starts_with("postgres://") || store.starts_with("postgresql://") {
        PostgresStore::connect(store).map(|store| work(Approvals::new(store), ledger, ids, looping))
    } else {
        SqliteStore::open(store).map(|store| work(Approvals::new(store), ledger, ids, looping))
    };
    opened.unwrap_or_else(|error| {
        eprintln!("{error}");
        ExitCode::FAILURE
    })
}

fn work<S: Store>(
    approvals: Approvals<S>,
    ledger: &str,
    ids: &[String],
    looping: bool,
) -> ExitCode {
    let Some(ids) = ids
        .iter()
        .map(|id| ProposalId::parse(id))
        .collect::<Option<Vec<_>>>()
    else {
        eprintln!("an id is not a proposal id");
        return ExitCode::from(2);
    };
    let runtime = match tokio::runtime::Builder::new_current_thread().build() {
        Ok(runtime) => runtime,
        Err(error) => {
            eprintln!("no runtime: {error}");
            return ExitCode::FAILURE;
        }
    };
    let mut state = Ledger {
        file: ledger.into(),
    };
    let policy = Policy::<LedgerTools>::new(toolset::Autonomy::Off);
    loop {
        let mut pending = false;
        for id in &ids {
            let approval = match approvals.pending(id) {
                Ok(proposal) => proposal.reviewed(),
                Err(ApprovalError::AlreadyResolved(_)) => continue,
                Err(error) => {
                    println!("refused {id}: {error}");
                    continue;
                }
            };
            pending = true;
            match approvals.approve(&approval, &toolset::request::Request::new(&policy)) {
                Ok(Approved::Run(call)) => {
                    runtime.block_on(call.apply(&mut state, &ToolContext::default()));
                    println!("ran {id}");
                }
                Ok(Approved::Handoff(_)) => {
                    println!("refused {id}: pay has a handler")
                }
                Err(error) => println!("refused {id}: {error}"),
            }
        }
        if !looping || !pending {
            return ExitCode::SUCCESS;
        }
    }
}
