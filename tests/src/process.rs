//! Running another program from a test (a Python client, a second server) with a bound on
//! how long it may take, so a hung child fails the test instead of hanging the suite.

use std::process::{Command, Output, Stdio};
use std::time::{Duration, Instant};

/// Runs `command` to completion with its output captured, killing it if it outlives
/// `limit`; panics (failing the test) with what it printed if it does, or if it cannot
/// be started.
pub fn run_bounded(command: &mut Command, limit: Duration) -> Output {
    let mut child = command
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap_or_else(|error| panic!("cannot run {command:?}: {error}"));
    let started = Instant::now();
    loop {
        match child.try_wait() {
            Ok(Some(_)) => break,
            Ok(None) if started.elapsed() > limit => {
                let _ = child.kill();
                let output = child.wait_with_output().ok();
                let stdout = output
                    .map(|output| String::from_utf8_lossy(&output.stdout).into_owned())
                    .unwrap_or_default();
                panic!("{command:?} did not finish within {limit:?}; its output:\n{stdout}");
            }
            Ok(None) => std::thread::sleep(Duration::from_millis(50)),
            Err(error) => panic!("waiting for {command:?} failed: {error}"),
        }
    }
    child
        .wait_with_output()
        .unwrap_or_else(|error| panic!("reading the output of {command:?} failed: {error}"))
}
