//! The MCP HTTP load comparison of `BENCHMARKS.md`: the same load (N sessions at once ×
//! M mixed `append`/`count` calls, every answer checked) against `toolset`'s server and
//! against rmcp's own, on loopback, in R rounds that alternate between the two (so a slower
//! stretch of a shared machine falls on both); prints each server's p50, p99, max and mean
//! over all its rounds, how many calls took over 500 ms, its throughput, the process's CPU
//! time per call (clients and that server), and the machine's load average before and after.
//!
//! ```text
//! cargo run --release -p toolset-benches --bin mcp_load -- [CLIENTS] [CALLS] [ROUNDS] [SERVER]
//! ```
//!
//! The defaults are 200 clients, 20 calls, 3 rounds and both servers; `SERVER` `toolset`
//! or `rmcp` loads that one alone (for a profiler: `valgrind --tool=callgrind
//! target/release/mcp_load 50 20 1 toolset`).

use std::process::ExitCode;
use toolset_benches::mcp_load;

fn main() -> ExitCode {
    let mut args = std::env::args().skip(1);
    let clients = args.next().and_then(|n| n.parse().ok()).unwrap_or(200);
    let calls = args.next().and_then(|n| n.parse().ok()).unwrap_or(20);
    let rounds: u64 = args.next().and_then(|n| n.parse().ok()).unwrap_or(3);
    let only = args.next();
    if let Some(server) = only
        .as_deref()
        .filter(|name| !["toolset", "rmcp"].contains(name))
    {
        eprintln!("mcp_load: SERVER is `toolset` or `rmcp`, not `{server}`");
        return ExitCode::FAILURE;
    }
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
        let servers: Vec<_> = [("toolset", toolset_addr), ("rmcp", rmcp_addr)]
            .into_iter()
            .filter(|(name, _)| only.as_deref().is_none_or(|only| only == *name))
            .collect();
        // A warm-up round for each, then the measured ones.
        for (_, addr) in &servers {
            let _ = mcp_load::run_from(*addr, 1_000_000, 20, 4).await;
        }
        let load_before = load_average();
        let mut reports: Vec<_> = servers
            .iter()
            .map(|_| mcp_load::LoadReport::default())
            .collect();
        for round in 0..rounds {
            for ((_, addr), report) in servers.iter().zip(&mut reports) {
                // Each round's clients are new ones, so no round reads another's writes.
                let one = mcp_load::run_from(*addr, round * clients, clients, calls).await;
                report.absorb(one);
            }
        }
        println!(
            "{clients} clients x {calls} calls (half append, half count), HTTP on loopback, \
             {rounds} rounds alternating; load average before: {load_before}, after: {}\n",
            load_average()
        );
        println!(
            "| server  | calls | wrong | lost | p50 | p99 | max | mean | over 500 ms | throughput | CPU a call |"
        );
        println!(
            "|---------|------:|------:|-----:|----:|----:|----:|-----:|------------:|-----------:|-----------:|"
        );
        let mut ok = true;
        for ((name, _), report) in servers.iter().zip(&reports) {
            ok &= report.wrong.is_empty() && report.lost == 0;
            let cpu = report.cpu_per_call().map_or_else(
                || "unknown".to_owned(),
                |cpu| format!("{:.0} µs", cpu.as_secs_f64() * 1e6),
            );
            println!(
                "| {name:<7} | {} | {} | {} | {:.2} ms | {:.2} ms | {:.2} ms | {:.2} ms | {} | {:.0} calls/s | {cpu} |",
                report.latencies.len(),
                report.wrong.len(),
                report.lost,
                report.quantile(0.5).as_secs_f64() * 1e3,
                report.quantile(0.99).as_secs_f64() * 1e3,
                report.quantile(1.0).as_secs_f64() * 1e3,
                report.mean().as_secs_f64() * 1e3,
                report.slower_than(std::time::Duration::from_millis(500)),
                report.throughput()
            );
        }
        for message in reports
            .iter()
            .flat_map(|report| report.wrong.iter().take(3))
        {
            eprintln!("mcp_load: {message}");
        }
        if ok {
            ExitCode::SUCCESS
        } else {
            ExitCode::FAILURE
        }
    })
}

/// The machine's 1, 5 and 15 minute load averages, as `/proc/loadavg` says them.
fn load_average() -> String {
    std::fs::read_to_string("/proc/loadavg").map_or_else(
        |_| "unknown".to_owned(),
        |text| {
            text.split_whitespace()
                .take(3)
                .collect::<Vec<_>>()
                .join(" ")
        },
    )
}
