//! The official MCP Python SDK, as a real client, against the built `inbox-hub` binary over
//! stdio (`tests/hub_client.py`), the hub aggregating the built `inbox-mcp` and
//! `calendar-mcp`.
//!
//! Needs `python3` with the `mcp` package: `pip install -r tests/mcp/requirements.txt`, and
//! the `inbox-mcp` binary: `cargo test --workspace` builds it; alone, build it first
//! (`cargo build -p inbox-mcp`) or name it with `INBOX_MCP_BIN`.

use std::path::PathBuf;
use std::process::{Command, Stdio};
use std::time::Duration;
use toolset_tests::process::run_bounded;

const INSTALL: &str = "install the MCP client: pip install -r tests/mcp/requirements.txt";

/// The whole script gets this long; it bounds each of its sessions itself too.
const LIMIT: Duration = Duration::from_secs(240);

/// `inbox-mcp`: `INBOX_MCP_BIN`, else beside this package's binaries, where cargo builds
/// every binary of the workspace.
fn inbox_mcp() -> PathBuf {
    if let Some(path) = std::env::var_os("INBOX_MCP_BIN") {
        return PathBuf::from(path);
    }
    let beside = PathBuf::from(env!("CARGO_BIN_EXE_inbox-hub"))
        .with_file_name(format!("inbox-mcp{}", std::env::consts::EXE_SUFFIX));
    assert!(
        beside.is_file(),
        "no inbox-mcp at {}: build it first (cargo build -p inbox-mcp) or set INBOX_MCP_BIN",
        beside.display()
    );
    beside
}

#[test]
fn the_official_python_client_lists_and_calls_through_the_hub() {
    let probe = Command::new("python3")
        .args(["-c", "import mcp"])
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .status();
    assert!(
        probe.is_ok_and(|status| status.success()),
        "python3 cannot import the MCP SDK; {INSTALL}"
    );
    let script = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("tests/hub_client.py");
    let output = run_bounded(
        Command::new("python3")
            .arg(&script)
            .arg(env!("CARGO_BIN_EXE_inbox-hub"))
            .arg(inbox_mcp())
            .arg(env!("CARGO_BIN_EXE_calendar-mcp")),
        LIMIT,
    );
    let stdout = String::from_utf8_lossy(&output.stdout);
    let stderr = String::from_utf8_lossy(&output.stderr);
    println!("{stdout}");
    assert!(
        output.status.success(),
        "the Python MCP client reported failures ({}):\n{stdout}\n--- stderr ---\n{stderr}",
        output.status
    );
    assert!(stdout.contains(" passed, 0 failed"), "{stdout}");
}
