//! Prints the `lib.rs` of a throwaway crate declaring `n` generated tools, for
//! `benches/compile_cost.sh`: `gen_tools toolset|hand|rmcp N`.

use std::process::ExitCode;
use toolset_benches::generate;

fn main() -> ExitCode {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let (Some(kind), Some(Ok(n))) = (args.first(), args.get(1).map(|n| n.parse::<usize>())) else {
        eprintln!("usage: gen_tools toolset|hand|rmcp N");
        return ExitCode::FAILURE;
    };
    let body = match kind.as_str() {
        "toolset" => generate::toolset_module(n),
        "hand" => generate::hand_module(n),
        "rmcp" => generate::rmcp_module(n),
        _ => {
            eprintln!("unknown kind {kind}: expected toolset, hand or rmcp");
            return ExitCode::FAILURE;
        }
    };
    println!(
        "//! {n} generated tools ({kind}), for measuring compile time.\n#![allow(missing_docs)]\n\n{body}"
    );
    ExitCode::SUCCESS
}
