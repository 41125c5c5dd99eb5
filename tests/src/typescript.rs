//! Running a test client written with the official MCP TypeScript SDK
//! (`@modelcontextprotocol/sdk`, pinned in `tests/mcp/typescript/package-lock.json`)
//! against a server binary, over stdio or streamable HTTP. Each script prints one line a
//! check and `N passed, M failed`, and exits non-zero when any failed.
//!
//! Needs `node` and the SDK: `npm ci --prefix tests/mcp/typescript` (scripts/test runs it).

use crate::process::run_bounded;
use std::io::{BufRead, BufReader};
use std::path::PathBuf;
use std::process::{Command, Stdio};
use std::time::Duration;

const INSTALL: &str = "install the MCP TypeScript SDK: npm ci --prefix tests/mcp/typescript";

/// The whole script gets this long; each of its requests has its own time limit too.
const LIMIT: Duration = Duration::from_secs(120);

/// Runs `tests/mcp/typescript/{script}` against `server` (a binary it starts and speaks
/// to over stdio, or a URL) and checks that it ran all `checks` and each passed.
pub fn client_passes(script: &str, server: &std::ffi::OsStr, checks: usize) {
    let root = PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .parent()
        .expect("the tests crate is in the workspace")
        .to_path_buf();
    let output = run_bounded(
        Command::new("node")
            .arg(root.join("tests/mcp/typescript").join(script))
            .arg(server)
            .current_dir(&root),
        LIMIT,
    );
    let stdout = String::from_utf8_lossy(&output.stdout);
    let stderr = String::from_utf8_lossy(&output.stderr);
    println!("{stdout}");
    assert!(
        !stderr.contains("ERR_MODULE_NOT_FOUND"),
        "the TypeScript SDK is not installed; {INSTALL}\n{stderr}"
    );
    assert!(
        output.status.success(),
        "the TypeScript MCP client reported failures ({}):\n{stdout}\n--- stderr ---\n{stderr}",
        output.status
    );
    // Every check ran: a script that stopped early or checked nothing fails here.
    assert!(
        stdout.contains(&format!("{checks} passed, 0 failed")),
        "{stdout}"
    );
}

/// Starts `binary --http`, which prints `listening on <url>` first, runs `test` with the
/// URL, and stops the server whether `test` passed or panicked.
pub fn over_http(binary: &str, test: impl FnOnce(&str)) {
    let mut server = Command::new(binary)
        .arg("--http")
        .stdout(Stdio::piped())
        .spawn()
        .expect("the server starts");
    let mut first = String::new();
    BufReader::new(server.stdout.take().expect("its stdout is piped"))
        .read_line(&mut first)
        .expect("the server says where it listens");
    let url = first
        .trim()
        .strip_prefix("listening on ")
        .map(str::to_owned);
    let passed = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
        let url = url.unwrap_or_else(|| panic!("not an address: {first:?}"));
        test(&url);
    }));
    let _ = server.kill();
    let _ = server.wait();
    if let Err(failure) = passed {
        std::panic::resume_unwind(failure);
    }
}
