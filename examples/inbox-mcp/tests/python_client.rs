//! The official MCP Python SDK, as a real client, against the built `inbox-mcp` binary
//! over stdio (`tests/mcp/test_stdio_client.py`).
//!
//! Needs `python3` with the `mcp` package: `pip install -r tests/mcp/requirements.txt`.

use std::path::PathBuf;
use std::process::{Command, Stdio};
use std::time::Duration;
use toolset_tests::process::run_bounded;

const INSTALL: &str = "install the MCP client: pip install -r tests/mcp/requirements.txt";

/// The whole script gets this long; it bounds each of its sessions itself too.
const LIMIT: Duration = Duration::from_secs(240);

fn workspace_root() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../..")
}

#[test]
fn the_official_python_client_lists_and_calls_the_tools_over_stdio() {
    let probe = Command::new("python3")
        .args(["-c", "import mcp"])
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .status();
    assert!(
        probe.is_ok_and(|status| status.success()),
        "python3 cannot import the MCP SDK; {INSTALL}"
    );

    let script = workspace_root().join("tests/mcp/test_stdio_client.py");
    let binary = env!("CARGO_BIN_EXE_inbox-mcp");
    let output = run_bounded(
        Command::new("python3")
            .arg(&script)
            .arg(binary)
            .current_dir(workspace_root()),
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
