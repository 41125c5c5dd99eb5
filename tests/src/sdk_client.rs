//! Running a test client written with an official MCP SDK against a server binary, over
//! stdio or streamable HTTP: the TypeScript SDK (`@modelcontextprotocol/sdk`, pinned in
//! `tests/mcp/typescript/package-lock.json`) or the Python SDK (`mcp`, pinned in
//! `tests/mcp/requirements.txt`). Each script prints one line a check and
//! `N passed, M failed`, and exits non-zero when any failed or none ran.
//!
//! Needs `node` with `npm ci --prefix tests/mcp/typescript`, and `python3` with
//! `pip install -r tests/mcp/requirements.txt` (scripts/test runs both).

use crate::process::run_bounded;
use std::ffi::OsStr;
use std::io::{BufRead, BufReader};
use std::path::PathBuf;
use std::process::{Command, Stdio};
use std::time::Duration;

/// The whole script gets this long; each of its requests has its own time limit too.
const LIMIT: Duration = Duration::from_secs(120);

/// An SDK a client script is written with: how to run it, and how to tell it is missing.
struct Sdk {
    /// The interpreter.
    program: &'static str,
    /// The scripts' folder, from the workspace root.
    folder: &'static str,
    /// What the interpreter prints on stderr when the SDK is not installed.
    missing: &'static str,
    /// How to install it.
    install: &'static str,
}

const TYPESCRIPT: Sdk = Sdk {
    program: "node",
    folder: "tests/mcp/typescript",
    missing: "ERR_MODULE_NOT_FOUND",
    install: "install the MCP TypeScript SDK: npm ci --prefix tests/mcp/typescript",
};

const PYTHON: Sdk = Sdk {
    program: "python3",
    folder: "tests/mcp",
    missing: "cannot import the MCP client",
    install: "install the MCP Python SDK: pip install -r tests/mcp/requirements.txt",
};

/// Runs `tests/mcp/typescript/{script}` with node against `server` (a binary it starts and
/// speaks to over stdio, or a URL) and checks that it ran all `checks` and each passed.
pub fn typescript_passes(script: &str, server: &OsStr, checks: usize) {
    passes(&TYPESCRIPT, script, server, checks);
}

/// Runs `tests/mcp/{script}` with python3 against `server` (a binary it starts and speaks
/// to over stdio, or a URL) and checks that it ran all `checks` and each passed.
pub fn python_passes(script: &str, server: &OsStr, checks: usize) {
    passes(&PYTHON, script, server, checks);
}

fn passes(sdk: &Sdk, script: &str, server: &OsStr, checks: usize) {
    let root = PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .parent()
        .expect("the tests crate is in the workspace")
        .to_path_buf();
    let output = run_bounded(
        Command::new(sdk.program)
            .arg(root.join(sdk.folder).join(script))
            .arg(server)
            .current_dir(&root),
        LIMIT,
    );
    let stdout = String::from_utf8_lossy(&output.stdout);
    let stderr = String::from_utf8_lossy(&output.stderr);
    println!("{stdout}");
    assert!(
        !stderr.contains(sdk.missing) && !stdout.contains(sdk.missing),
        "the SDK is not installed; {}\n{stdout}\n{stderr}",
        sdk.install
    );
    assert!(
        output.status.success(),
        "the {} MCP client reported failures ({}):\n{stdout}\n--- stderr ---\n{stderr}",
        sdk.program,
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
