//! Running a Python validator of `tests/validators/` on JSON a test wrote: the third-party
//! SDKs' own types judging what toolset renders.

use serde_json::Value;
use std::path::{Path, PathBuf};
use std::process::Command;

/// The workspace's root, where `tests/validators/` is.
pub fn workspace_root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .parent()
        .expect("tests/ sits in the workspace")
        .to_path_buf()
}

/// What `python3 <script> <file>` says of `value`, written to `file` first (a path in the
/// test's target tmp dir); fails the test when the SDKs are not installed or the script
/// does not exit 0.
pub fn judged_by_python(script: &str, value: &Value, file: &Path) -> String {
    let root = workspace_root();
    let text = serde_json::to_string_pretty(value).expect("JSON serializes");
    std::fs::write(file, text).expect("the target's tmp dir is writable");
    let output = Command::new("python3")
        .arg(root.join(script))
        .arg(file)
        .current_dir(&root)
        .output()
        .unwrap_or_else(|error| {
            panic!("cannot run python3: {error}; install tests/validators/requirements.txt")
        });
    let mut said = String::from_utf8_lossy(&output.stdout).into_owned();
    said.push_str(&String::from_utf8_lossy(&output.stderr));
    assert!(
        !said.contains("ModuleNotFoundError"),
        "install tests/validators/requirements.txt\n{said}"
    );
    assert_eq!(output.status.code(), Some(0), "{said}");
    said
}
