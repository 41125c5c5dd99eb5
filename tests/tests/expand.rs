//! `cargo expand` snapshots of representative inputs (`tests/expand/*.rs`, next to their
//! `.expanded.rs`): what `#[tool]` and `toolset!` generate, kept readable and reviewed in
//! diffs. Needs `cargo expand` (`cargo install cargo-expand --locked`). After a deliberate
//! change to the generated code: `MACROTEST=overwrite cargo test -p toolset-tests --test
//! expand`, then read the new snapshots.

#[test]
fn expansions_match_their_snapshots() {
    // macrotest passes when its glob matches nothing; make sure the inputs are found.
    let inputs = std::fs::read_dir("tests/expand")
        .expect("tests/expand exists")
        .filter_map(Result::ok)
        .filter(|entry| {
            let name = entry.file_name();
            let name = name.to_string_lossy();
            name.ends_with(".rs") && !name.ends_with(".expanded.rs")
        })
        .count();
    assert!(inputs >= 2, "no inputs found in tests/expand");
    macrotest::expand("tests/expand/*.rs");
}
