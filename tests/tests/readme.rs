//! The README's Rust fragments compile: each `rust,ignore` block of README.md is, line for
//! line, the visible part of a block of `readme_snippets.md` (or
//! `readme_snippets_mcp_client.md`), which the doc tests of this crate compile with what
//! the fragment names declared in hidden lines. A README fragment changed alone fails
//! here, naming it.

use std::path::Path;

/// The fenced blocks of `text` whose info string is `info`, with the line each starts on.
fn blocks(text: &str, info: &str) -> Vec<(usize, Vec<String>)> {
    let mut found = Vec::new();
    let mut open: Option<(usize, Vec<String>)> = None;
    let mut other_fence = false;
    for (index, line) in text.lines().enumerate() {
        let trimmed = line.trim();
        if let Some((start, body)) = open.take() {
            if trimmed == "```" {
                found.push((start, body));
            } else {
                let mut body = body;
                body.push(line.to_owned());
                open = Some((start, body));
            }
        } else if other_fence {
            other_fence = trimmed != "```";
        } else if let Some(rest) = trimmed.strip_prefix("```") {
            if rest == info {
                open = Some((index + 1, Vec::new()));
            } else {
                other_fence = true;
            }
        }
    }
    found
}

/// A doc-test block's lines as rustdoc shows them: hidden `# ` lines (and a lone `#`) left
/// out.
fn visible(lines: &[String]) -> Vec<String> {
    lines
        .iter()
        .filter(|line| {
            let trimmed = line.trim_start();
            !(trimmed.starts_with("# ") || trimmed == "#")
        })
        .cloned()
        .collect()
}

fn read(path: &Path) -> String {
    std::fs::read_to_string(path)
        .unwrap_or_else(|error| panic!("cannot read {}: {error}", path.display()))
}

#[test]
fn every_ignored_readme_fragment_is_compiled_as_written() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let readme = read(&root.join("../README.md"));
    let mut compiled = Vec::new();
    for file in ["readme_snippets.md", "readme_snippets_mcp_client.md"] {
        let text = read(&root.join(file));
        compiled.extend(
            blocks(&text, "rust,no_run")
                .into_iter()
                .map(|(_, lines)| visible(&lines)),
        );
    }
    let fragments = blocks(&readme, "rust,ignore");
    assert!(!fragments.is_empty(), "the README has no rust,ignore block");
    for (line, fragment) in &fragments {
        assert!(
            compiled.contains(fragment),
            "README.md line {line}: this `rust,ignore` fragment is not compiled as written in \
             tests/readme_snippets*.md; copy it there (with what it names in hidden lines):\n{}",
            fragment.join("\n")
        );
    }
    assert_eq!(
        compiled.len(),
        fragments.len(),
        "tests/readme_snippets*.md compile a fragment the README no longer has"
    );
}
