//! A second process for the approval tests: approves and runs proposals waiting in a
//! SQLite file, recording each run in the ledger file.
//!
//! `approval_worker <db> <ledger> <id>...`: approves each id once (in the order given,
//! again and again while `--loop` is given and some are pending), and prints one line per
//! attempt: `ran <id>` or `refused <id>: <why>`.

use std::process::ExitCode;
use toolset::prelude::*;
use toolset::{ApprovalError, Approvals, Approved, Policy, ProposalId, SqliteStore, ToolContext};
use toolset_tests::ledger::{Ledger, LedgerTools};

fn main() -> ExitCode {
    let mut args: Vec<String> = std::env::args().skip(1).collect();
    let looping = args.first().is_some_and(|arg| arg == "--loop");
    if looping {
        args.remove(0);
    }
    let [db, ledger, ids @ ..] = args.as_slice() else {
        eprintln!("usage: approval_worker [--loop] <db> <ledger> <id>...");
        return ExitCode::from(2);
    };
    let approvals = match SqliteStore::open(db) {
        Ok(store) => Approvals::new(store),
        Err(error) => {
            eprintln!("{error}");
            return ExitCode::FAILURE;
        }
    };
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
                Ok(proposal) => proposal.sign(),
                Err(ApprovalError::AlreadyResolved(_)) => continue,
                Err(error) => {
                    println!("refused {id}: {error}");
                    continue;
                }
            };
            pending = true;
            match approvals.approve(&approval, &toolset::Request::new(&policy)) {
                Ok(Approved::Run(plan)) => {
                    runtime.block_on(LedgerTools::apply(
                        &mut state,
                        &ToolContext::default(),
                        plan,
                    ));
                    println!("ran {id}");
                }
                Ok(Approved::Handoff { .. } | Approved::RuntimeHandoff { .. }) => {
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
