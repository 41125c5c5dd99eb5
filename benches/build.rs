//! Writes the generated tool sets (three implementations each) into `OUT_DIR`, where
//! the benchmark targets include them. Generated at build time so the benchmarked code
//! can never drift from its generator.
//!
//! The 10- and 100-tool sets are always generated. The 1000-tool sets cost many minutes
//! of (release) compile time, so they are generated, and the code using them compiled
//! (`cfg(large_sets)`), only when `TOOLSET_BENCH_LARGE=1` is set: the full run of
//! BENCHMARKS.md sets it; `cargo bench --no-run` in the test command and clippy do not.

#[allow(dead_code)]
#[path = "src/generate.rs"]
mod generate;

use std::path::PathBuf;

fn main() {
    println!("cargo::rerun-if-changed=src/generate.rs");
    println!("cargo::rerun-if-changed=build.rs");
    println!("cargo::rerun-if-env-changed=TOOLSET_BENCH_LARGE");
    println!("cargo::rustc-check-cfg=cfg(large_sets)");
    let large = std::env::var("TOOLSET_BENCH_LARGE").is_ok_and(|v| !v.is_empty() && v != "0");
    if large {
        println!("cargo::rustc-cfg=large_sets");
    }
    let out = PathBuf::from(std::env::var_os("OUT_DIR").expect("cargo sets OUT_DIR"));
    for n in generate::SIZES.into_iter().filter(|&n| large || n < 1000) {
        for (kind, source) in [
            ("toolset", generate::toolset_module(n)),
            ("hand", generate::hand_module(n)),
            ("rmcp", generate::rmcp_module(n)),
        ] {
            let path = out.join(format!("{kind}_{n}.rs"));
            std::fs::write(&path, source).expect("OUT_DIR is writable");
        }
    }
    for n in generate::SIZES.into_iter().filter(|&n| large || n < 1000) {
        let program = generate::hand_program_module(n);
        let path = out.join(format!("hand_program_{n}.rs"));
        std::fs::write(path, program).expect("OUT_DIR is writable");
    }
}
