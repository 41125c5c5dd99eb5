//! A second (and third) process for the MCP approval tests: one replica of an MCP server
//! serving the ledger's tools on stdio, approving withheld calls of 2026-07-28 clients by
//! `input_required` through a SQLite proposal store that the replicas share, sealed with
//! one key ([`REPLICA_KEY`]).
//!
//! `mcp_replica <store.sqlite> <ledger>`: serves until stdin closes; each run of `pay`
//! appends its note to the ledger file, so the test counts runs across processes.

use std::process::ExitCode;
use toolset::mcp::McpServer;
use toolset::{Autonomy, SealKey, SqliteStore};
use toolset_tests::ledger::{Ledger, LedgerTools, REPLICA_KEY};

fn main() -> ExitCode {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let [store, ledger] = args.as_slice() else {
        eprintln!("usage: mcp_replica <store.sqlite> <ledger>");
        return ExitCode::from(2);
    };
    let store = match SqliteStore::open(store) {
        Ok(store) => store,
        Err(error) => {
            eprintln!("{error}");
            return ExitCode::FAILURE;
        }
    };
    let Ok(key) = SealKey::new(REPLICA_KEY) else {
        eprintln!("the replica key is too short");
        return ExitCode::FAILURE;
    };
    let server = McpServer::<LedgerTools>::new(Ledger {
        file: ledger.into(),
    })
    .with_autonomy(Autonomy::ReadOnly)
    .with_proposal_store(store, key);
    toolset_tests::serving::served(|| server.serve(toolset::mcp::stdio()))
}
