//! Benchmarks of `toolset` side by side with a hand-written dispatcher and rmcp's tool
//! router. See `BENCHMARKS.md` at the repository root for the commands and the results.
//!
//! The same tools are generated three ways by [`generate`] (at build time, by
//! `build.rs`, into `OUT_DIR`). Each benchmark target pulls in only the generated modules
//! it drives with [`fixture!`]: a 1000-tool module costs a minute or more of compile
//! time, so nothing compiles one that does not use it (and `cargo test` compiles none).

pub mod generate;
pub mod mcp_load;
pub mod rmcp_cached;

use rmcp::RoleServer;
use rmcp::model::NumberOrString;
use rmcp::service::{Peer, RequestContext, RunningService};

/// Declares a module holding one generated tool set from `OUT_DIR`, e.g.
/// `fixture!(toolset_100)` for 100 tools with `#[toolset::tool]`.
///
/// Generated files: `toolset_{10,100,1000}`, `hand_{10,100,1000}`, `rmcp_{10,100,1000}`
/// (the 1000s only with `TOOLSET_BENCH_LARGE=1`, under `cfg(large_sets)`; see `build.rs`)
/// and `hand_program_100`, the hand-written parse-all-then-run-all dispatcher, which uses
/// the items of `hand_100` and so is declared inside it:
/// `fixture!(hand_100 { toolset_benches::fixture!(hand_program_100); })`.
#[macro_export]
macro_rules! fixture {
    ($name:ident $({ $($inner:tt)* })?) => {
        #[allow(missing_docs, dead_code)]
        pub mod $name {
            include!(concat!(env!("OUT_DIR"), "/", stringify!($name), ".rs"));
            $($($inner)*)?
        }
    };
}

/// A single-threaded tokio runtime: every implementation is driven by the same one.
pub fn runtime() -> tokio::runtime::Runtime {
    tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .expect("a current-thread tokio runtime builds")
}

/// What an rmcp request needs besides its parameters: a peer, which only a running
/// service hands out.
///
/// The service is started with `serve_directly` on an in-memory pipe nobody writes to,
/// so it idles; the benchmarks call the handler directly with contexts built from its
/// peer, as rmcp's service loop does for each `tools/call` request.
pub struct RmcpPeer<S: rmcp::ServerHandler> {
    service: RunningService<RoleServer, S>,
    _client_end: tokio::io::DuplexStream,
}

impl<S: rmcp::ServerHandler> RmcpPeer<S> {
    /// Starts `server` on an idle in-memory transport. Call inside `runtime`.
    pub fn start(server: S) -> Self {
        let (server_end, client_end) = tokio::io::duplex(4096);
        let service = rmcp::service::serve_directly(server, server_end, None);
        RmcpPeer {
            service,
            _client_end: client_end,
        }
    }

    /// The running server.
    pub fn server(&self) -> &S {
        self.service.service()
    }

    /// The peer requests are answered through.
    pub fn peer(&self) -> &Peer<RoleServer> {
        self.service.peer()
    }

    /// A fresh request context, as rmcp builds one per incoming request.
    pub fn context(&self, id: i64) -> RequestContext<RoleServer> {
        RequestContext::new(NumberOrString::Number(id), self.peer().clone())
    }
}

/// The calls a dispatch benchmark makes per iteration: `CALLS` tools spread evenly over
/// a set of `n`, with their JSON arguments. Names are `'static` so that rmcp requests can
/// borrow them.
pub fn spread_calls(n: usize) -> Vec<(&'static str, String)> {
    (0..CALLS)
        .map(|i| {
            let k = i * n / CALLS;
            let name: &'static str = Box::leak(generate::tool_name(k).into_boxed_str());
            (name, generate::tool_args(k))
        })
        .collect()
}

/// How many calls one dispatch iteration makes.
pub const CALLS: usize = 16;

/// A program of `len` calls on a set of `n` tools, cycling through the tools with a
/// stride so consecutive calls go to different tools.
pub fn program(n: usize, len: usize) -> Vec<toolset::ToolCall> {
    (0..len)
        .map(|i| {
            let k = (i * 37) % n;
            toolset::ToolCall::new(
                format!("call_{i}"),
                generate::tool_name(k),
                generate::tool_args(k),
            )
        })
        .collect()
}
