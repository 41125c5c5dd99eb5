//! The MCP HTTP load test: `clients` sessions at once, each making `calls` mixed writes
//! and reads over streamable HTTP on loopback, every answer checked, against
//! `toolset::mcp::McpServer` or a server written with rmcp's own `#[tool_router]` doing
//! the same calls. Used by `tests/mcp_load.rs` (bounded, in the suite) and
//! `src/bin/mcp_load.rs` (the side-by-side figures in `BENCHMARKS.md`).

use rmcp::handler::server::wrapper::Parameters;
use rmcp::transport::streamable_http_server::session::local::LocalSessionManager;
use rmcp::transport::{StreamableHttpServerConfig, StreamableHttpService};
use rmcp::{tool, tool_handler, tool_router};
use schemars::JsonSchema;
use serde::Deserialize;
use serde_json::{Value, json};
use std::collections::HashMap;
use std::net::SocketAddr;
use std::sync::{Arc, Mutex, PoisonError};
use std::time::{Duration, Instant};
use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::net::{TcpListener, TcpStream};
use toolset::mcp::{HttpConfig, McpServer};
use toolset::{Autonomy, tool as toolset_tool, toolset};

/// Per client, the sequence numbers appended, in order.
#[derive(Default)]
pub struct Ledger {
    /// Entries by client.
    pub entries: HashMap<u64, Vec<u64>>,
}

/// Append `seq` to `client`'s entries; answers how many it has.
#[toolset_tool(tier = "reversible")]
pub async fn append(ledger: &mut Ledger, client: u64, seq: u64) -> String {
    let entries = ledger.entries.entry(client).or_default();
    entries.push(seq);
    entries.len().to_string()
}

/// How many entries `client` has.
#[toolset_tool(tier = "read_only")]
pub async fn count(ledger: &Ledger, client: u64) -> String {
    ledger.entries.get(&client).map_or(0, Vec::len).to_string()
}

toolset! {
    /// The load test's tools.
    pub LedgerTools<Ledger> = [append, count];
}

/// `append`'s arguments, for the rmcp server.
#[derive(Debug, Deserialize, JsonSchema)]
pub struct AppendArgs {
    /// The client.
    pub client: u64,
    /// Its sequence number.
    pub seq: u64,
}

/// `count`'s arguments, for the rmcp server.
#[derive(Debug, Deserialize, JsonSchema)]
pub struct CountArgs {
    /// The client.
    pub client: u64,
}

/// The same two tools written with rmcp's macros, state behind a mutex (rmcp hands
/// tools `&self`).
#[derive(Clone)]
pub struct RmcpLedger {
    /// Entries by client.
    pub entries: Arc<Mutex<HashMap<u64, Vec<u64>>>>,
}

#[tool_router]
impl RmcpLedger {
    /// An empty ledger.
    pub fn new() -> Self {
        RmcpLedger {
            entries: Arc::default(),
        }
    }

    /// Append `seq` to `client`'s entries; answers how many it has.
    #[tool]
    async fn append(&self, Parameters(args): Parameters<AppendArgs>) -> String {
        let mut entries = self.entries.lock().unwrap_or_else(PoisonError::into_inner);
        let entries = entries.entry(args.client).or_default();
        entries.push(args.seq);
        entries.len().to_string()
    }

    /// How many entries `client` has.
    #[tool]
    async fn count(&self, Parameters(args): Parameters<CountArgs>) -> String {
        let entries = self.entries.lock().unwrap_or_else(PoisonError::into_inner);
        entries.get(&args.client).map_or(0, Vec::len).to_string()
    }
}

impl Default for RmcpLedger {
    fn default() -> Self {
        RmcpLedger::new()
    }
}

#[tool_handler]
impl rmcp::ServerHandler for RmcpLedger {}

/// Starts `toolset`'s server on a loopback port; its address and state.
pub async fn start_toolset() -> (SocketAddr, McpServer<LedgerTools>) {
    let listener = TcpListener::bind("127.0.0.1:0")
        .await
        .expect("a loopback port");
    let addr = listener.local_addr().expect("a bound address");
    let server =
        McpServer::<LedgerTools>::new(Ledger::default()).with_autonomy(Autonomy::Reversible);
    let serving = server.clone();
    let config = HttpConfig::new()
        .with_max_connections(4096)
        .with_max_sessions(4096);
    tokio::spawn(async move {
        let _ = serving.serve_http(listener, config).await;
    });
    (addr, server)
}

/// Starts the rmcp server (rmcp's `StreamableHttpService` under `axum::serve`, as rmcp
/// documents it) on a loopback port; its address and state.
pub async fn start_rmcp() -> (SocketAddr, RmcpLedger) {
    let listener = TcpListener::bind("127.0.0.1:0")
        .await
        .expect("a loopback port");
    let addr = listener.local_addr().expect("a bound address");
    let ledger = RmcpLedger::new();
    let serving = ledger.clone();
    let service = StreamableHttpService::new(
        move || Ok(serving.clone()),
        Arc::new(LocalSessionManager::default()),
        StreamableHttpServerConfig::default(),
    );
    let router = axum::Router::new().nest_service("/mcp", service);
    tokio::spawn(async move {
        let _ = axum::serve(listener, router).await;
    });
    (addr, ledger)
}

/// What a load run saw.
#[derive(Debug, Default)]
pub struct LoadReport {
    /// Calls answered with the expected text.
    pub correct: usize,
    /// Calls answered with anything else (described).
    pub wrong: Vec<String>,
    /// Calls never answered.
    pub lost: usize,
    /// Each answered call's latency.
    pub latencies: Vec<Duration>,
    /// Wall time of the whole run.
    pub elapsed: Duration,
    /// CPU time this process spent during the run (clients and server together: the
    /// rounds against one server run alone, so the difference between two servers' figures
    /// is the servers'); `None` where `/proc/self/stat` cannot be read.
    pub cpu: Option<Duration>,
}

impl LoadReport {
    /// The `q`-quantile latency (0.5, 0.99).
    pub fn quantile(&self, q: f64) -> Duration {
        let mut sorted = self.latencies.clone();
        sorted.sort();
        let index = ((sorted.len() as f64 - 1.0) * q).round() as usize;
        sorted.get(index).copied().unwrap_or_default()
    }

    /// The mean latency. In a closed loop (each client sends its next call when the last is
    /// answered) it is the number of clients over the throughput, whatever the spread.
    pub fn mean(&self) -> Duration {
        let total: Duration = self.latencies.iter().sum();
        total / u32::try_from(self.latencies.len().max(1)).unwrap_or(u32::MAX)
    }

    /// How many calls took longer than `limit`.
    pub fn slower_than(&self, limit: Duration) -> usize {
        self.latencies
            .iter()
            .filter(|latency| **latency > limit)
            .count()
    }

    /// CPU time per answered call, clients' and server's; `None` without `/proc`.
    pub fn cpu_per_call(&self) -> Option<Duration> {
        let calls = u32::try_from(self.latencies.len().max(1)).unwrap_or(u32::MAX);
        self.cpu.map(|cpu| cpu / calls)
    }

    /// Adds `other`'s calls and wall time to this report's (one more round of the same load).
    pub fn absorb(&mut self, other: LoadReport) {
        // An empty report (the default) takes the round's CPU time as it is.
        let empty = self.elapsed.is_zero() && self.latencies.is_empty();
        self.cpu = match (self.cpu, other.cpu) {
            (Some(mine), Some(theirs)) => Some(mine + theirs),
            (None, theirs) if empty => theirs,
            _ => None,
        };
        self.correct += other.correct;
        self.wrong.extend(other.wrong);
        self.lost += other.lost;
        self.latencies.extend(other.latencies);
        self.elapsed += other.elapsed;
    }

    /// Calls per second.
    pub fn throughput(&self) -> f64 {
        self.latencies.len() as f64 / self.elapsed.as_secs_f64().max(f64::EPSILON)
    }
}

/// `clients` sessions at once, each `calls` calls alternating `append` and `count`,
/// every answer checked against what the client wrote so far.
pub async fn run(addr: SocketAddr, clients: u64, calls: u64) -> LoadReport {
    run_from(addr, 0, clients, calls).await
}

/// [`run`] with client numbers from `first` on, so runs against one server do not see
/// each other's writes.
pub async fn run_from(addr: SocketAddr, first: u64, clients: u64, calls: u64) -> LoadReport {
    let started = Instant::now();
    let cpu_before = process_cpu();
    let tasks: Vec<_> = (first..first + clients)
        .map(|client| tokio::spawn(one_client(addr, client, calls)))
        .collect();
    let mut report = LoadReport::default();
    for task in tasks {
        match task.await {
            Ok(client) => {
                report.correct += client.correct;
                report.wrong.extend(client.wrong);
                report.lost += client.lost;
                report.latencies.extend(client.latencies);
            }
            Err(error) => report.wrong.push(format!("a client task failed: {error}")),
        }
    }
    report.elapsed = started.elapsed();
    report.cpu = process_cpu()
        .zip(cpu_before)
        .map(|(after, before)| after.saturating_sub(before));
    report
}

/// The CPU time (user and system) this process has spent, from `/proc/self/stat`, whose
/// clock ticks are 1/100 s on Linux.
fn process_cpu() -> Option<Duration> {
    let stat = std::fs::read_to_string("/proc/self/stat").ok()?;
    // The command name (field 2) may hold spaces; the fields after its `)` are fixed.
    let fields: Vec<&str> = stat.rsplit_once(')')?.1.split_whitespace().collect();
    let ticks = |at: usize| fields.get(at)?.parse::<u64>().ok();
    // utime and stime are fields 14 and 15, the 12th and 13th after the name.
    Some(Duration::from_millis((ticks(11)? + ticks(12)?) * 10))
}

async fn one_client(addr: SocketAddr, client: u64, calls: u64) -> LoadReport {
    let mut report = LoadReport::default();
    let session = match open_session(addr).await {
        Ok(session) => session,
        Err(problem) => {
            report.wrong.push(format!("client {client}: {problem}"));
            report.lost += calls as usize;
            return report;
        }
    };
    for i in 0..calls {
        let (tool, arguments, expected) = if i % 2 == 0 {
            ("append", json!({"client": client, "seq": i / 2}), i / 2 + 1)
        } else {
            ("count", json!({"client": client}), i.div_ceil(2))
        };
        let started = Instant::now();
        let id = i + 1;
        let body = json!({"jsonrpc": "2.0", "id": id, "method": "tools/call",
            "params": {"name": tool, "arguments": arguments}});
        match post(addr, Some(&session), &body.to_string()).await {
            Ok((_, messages)) => {
                report.latencies.push(started.elapsed());
                match messages.iter().find(|message| message["id"] == json!(id)) {
                    Some(answer) => {
                        let text = &answer["result"]["content"][0]["text"];
                        if *text == json!(expected.to_string()) {
                            report.correct += 1;
                        } else {
                            report
                                .wrong
                                .push(format!("client {client} call {i} ({tool}): {answer}"));
                        }
                    }
                    None => report.lost += 1,
                }
            }
            Err(_) => report.lost += 1,
        }
    }
    report
}

/// Opens a session; its id.
async fn open_session(addr: SocketAddr) -> Result<String, String> {
    let initialize = json!({"jsonrpc": "2.0", "id": 0, "method": "initialize", "params": {
        "protocolVersion": "2025-06-18", "capabilities": {},
        "clientInfo": {"name": "load", "version": "0"}}});
    let (headers, _) = post(addr, None, &initialize.to_string()).await?;
    let session = headers
        .get("mcp-session-id")
        .cloned()
        .ok_or("no session id")?;
    let initialized = json!({"jsonrpc": "2.0", "method": "notifications/initialized"});
    post(addr, Some(&session), &initialized.to_string()).await?;
    Ok(session)
}

/// One JSON-RPC POST on a fresh connection; the answer's headers (lower-case names) and
/// JSON-RPC messages.
async fn post(
    addr: SocketAddr,
    session: Option<&str>,
    body: &str,
) -> Result<(HashMap<String, String>, Vec<Value>), String> {
    let mut stream = TcpStream::connect(addr)
        .await
        .map_err(|error| error.to_string())?;
    let mut head = format!(
        "POST /mcp HTTP/1.1\r\nhost: {addr}\r\nconnection: close\r\n\
         content-type: application/json\r\naccept: application/json, text/event-stream\r\n\
         content-length: {}\r\n",
        body.len()
    );
    if let Some(session) = session {
        head.push_str(&format!(
            "mcp-session-id: {session}\r\nmcp-protocol-version: 2025-06-18\r\n"
        ));
    }
    stream
        .write_all(format!("{head}\r\n{body}").as_bytes())
        .await
        .map_err(|error| error.to_string())?;
    let mut raw = Vec::new();
    tokio::time::timeout(Duration::from_secs(60), stream.read_to_end(&mut raw))
        .await
        .map_err(|_| "no answer within 60 s".to_owned())?
        .map_err(|error| error.to_string())?;
    let raw = String::from_utf8_lossy(&raw);
    let (head, body) = raw.split_once("\r\n\r\n").ok_or("no HTTP head")?;
    let headers = head
        .lines()
        .skip(1)
        .filter_map(|line| line.split_once(':'))
        .map(|(name, value)| (name.trim().to_ascii_lowercase(), value.trim().to_owned()))
        .collect();
    // SSE `data:` lines (chunk-size lines and comments are not JSON and are skipped).
    let messages = body
        .lines()
        .filter_map(|line| line.strip_prefix("data:"))
        .filter_map(|data| serde_json::from_str(data.trim()).ok())
        .chain(serde_json::from_str::<Value>(body.trim()).ok())
        .collect();
    Ok((headers, messages))
}
