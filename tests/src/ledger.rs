//! A tool set whose one tool appends to a file, for the tests that approve proposals in
//! other processes (`src/bin/approval_worker.rs`): the file is the record of what ran,
//! written with `O_APPEND` so every process's lines land whole.

use std::io::Write;
use std::path::PathBuf;
use toolset::{ToolError, tool, toolset};

/// Where `pay` records each run: one line per call, its note.
#[derive(Debug)]
pub struct Ledger {
    /// The append-only file.
    pub file: PathBuf,
}

/// Pay a bill for good; each run appends its note to the ledger file.
#[tool(tier = "irreversible")]
pub async fn pay(ledger: &mut Ledger, note: String) -> Result<String, ToolError> {
    let mut file = std::fs::OpenOptions::new()
        .create(true)
        .append(true)
        .open(&ledger.file)?;
    file.write_all(format!("{note}\n").as_bytes())?;
    file.sync_data()?;
    Ok(format!("paid {note}"))
}

toolset! {
    /// The ledger's tools.
    pub LedgerTools<Ledger> = [pay];
}

/// The seal key the MCP replicas (`src/bin/mcp_replica.rs`) share.
pub const REPLICA_KEY: [u8; 32] = *b"the replicas' shared secret key!";

/// The notes of the ledger file, one per run, in order (none when it does not exist).
pub fn runs(file: &std::path::Path) -> Vec<String> {
    std::fs::read_to_string(file)
        .map(|text| text.lines().map(str::to_owned).collect())
        .unwrap_or_default()
}
