//! The bounded load test of the suite: 200 sessions at once × 20 mixed calls over
//! streamable HTTP on loopback, against `toolset::mcp::McpServer`: no call lost or run
//! twice, every answer right.

use toolset_benches::mcp_load;

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn two_hundred_clients_times_twenty_calls_lose_nothing_and_duplicate_nothing() {
    const CLIENTS: u64 = 200;
    const CALLS: u64 = 20;
    let (addr, server) = mcp_load::start_toolset().await;
    let report = mcp_load::run(addr, CLIENTS, CALLS).await;
    assert_eq!(
        report.lost,
        0,
        "lost calls; wrong: {:?}",
        report.wrong.first()
    );
    assert!(
        report.wrong.is_empty(),
        "{} wrong, e.g. {:?}",
        report.wrong.len(),
        report.wrong.first()
    );
    assert_eq!(report.correct as u64, CLIENTS * CALLS);
    // Each client's writes are in the state exactly once, in order.
    let state = server.state().read().await;
    for client in 0..CLIENTS {
        let expected: Vec<u64> = (0..CALLS / 2).collect();
        assert_eq!(
            state.entries.get(&client),
            Some(&expected),
            "client {client}"
        );
    }
    println!(
        "{} calls in {:?}: p50 {:?}, p99 {:?}, {:.0} calls/s",
        report.latencies.len(),
        report.elapsed,
        report.quantile(0.5),
        report.quantile(0.99),
        report.throughput()
    );
}
