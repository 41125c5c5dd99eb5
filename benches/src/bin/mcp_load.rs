//! The MCP HTTP load comparison of `BENCHMARKS.md`: the same load (N sessions at once ×
//! M mixed `append`/`count` calls, every answer checked) against `toolset`'s server and
//! against rmcp's own, one after the other, on loopback; prints p50, p99 and throughput.
//!
//! ```text
//! cargo run --release -p toolset-benches --bin mcp_load -- [CLIENTS] [CALLS]   # 200 20
//! ```

use std::process::ExitCode;
use toolset_benches::mcp_load;

fn main() -> ExitCode {
    let mut args = std::env::args().skip(1);
    let clients = args.next().and_then(|n| n.parse().ok()).unwrap_or(200);
    let calls = args.next().and_then(|n| n.parse().ok()).unwrap_or(20);
    let runtime = match tokio::runtime::Builder::new_multi_thread()
        .enable_all()
        .build()
    {
        Ok(runtime) => runtime,
        Err(error) => {
            eprintln!("mcp_load: no tokio runtime: {error}");
            return ExitCode::FAILURE;
        }
    };
    runtime.block_on(async {
        let (toolset_addr, _server) = mcp_load::start_toolset().await;
        let (rmcp_addr, _ledger) = mcp_load::start_rmcp().await;
        // A warm-up round for each, then the measured one.
        let _ = mcp_load::run_from(toolset_addr, 1_000_000, 20, 4).await;
        let _ = mcp_load::run_from(rmcp_addr, 1_000_000, 20, 4).await;
        println!("{clients} clients x {calls} calls (half append, half count), HTTP on loopback\n");
        println!("| server  | calls | wrong | lost | p50 | p99 | throughput |");
        println!("|---------|------:|------:|-----:|----:|----:|-----------:|");
        let mut ok = true;
        for (name, addr) in [("toolset", toolset_addr), ("rmcp", rmcp_addr)] {
            let report = mcp_load::run(addr, clients, calls).await;
            ok &= report.wrong.is_empty() && report.lost == 0;
            println!(
                "| {name:<7} | {} | {} | {} | {:.2} ms | {:.2} ms | {:.0} calls/s |",
                report.latencies.len(),
                report.wrong.len(),
                report.lost,
                report.quantile(0.5).as_secs_f64() * 1e3,
                report.quantile(0.99).as_secs_f64() * 1e3,
                report.throughput()
            );
        }
        if ok {
            ExitCode::SUCCESS
        } else {
            ExitCode::FAILURE
        }
    })
}
