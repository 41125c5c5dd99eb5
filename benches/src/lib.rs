//! Benchmarks of `toolset` side by side with a hand-written dispatcher and rmcp's tool
//! router. See `BENCHMARKS.md` at the repository root for the commands and the results.
//!
//! The same tools are generated three ways by [`generate`] (at build time, by
//! `build.rs`, into `OUT_DIR`) and compiled here, once, as the modules `toolset_N`,
//! `hand_N` and `rmcp_N` every benchmark target uses: a 1000-tool module costs minutes of
//! release compile, and a copy in each of the targets that drive it multiplied that (the
//! 1000-tool sets are compiled only with `TOOLSET_BENCH_LARGE=1`, under `cfg(large_sets)`).

pub mod generate;
pub mod mcp_load;
pub mod rmcp_cached;

use rmcp::RoleServer;
use rmcp::model::{JsonObject, NumberOrString, ProgressToken};
use rmcp::service::{Peer, RequestContext, RunningService};

/// Declares a module holding one generated tool set from `OUT_DIR`, e.g.
/// `fixture!(toolset_100)` for 100 tools with `#[toolset::tool]`.
///
/// Generated files: `toolset_{10,100,1000}`, `hand_{10,100,1000}`, `rmcp_{10,100,1000}`
/// (the 1000s only with `TOOLSET_BENCH_LARGE=1`, under `cfg(large_sets)`; see `build.rs`)
/// and `hand_program_{10,100,1000}`, the hand-written parse-all-then-run-all dispatcher,
/// which uses the items of `hand_N` and so is declared inside it:
/// `fixture!(hand_100 { fixture!(hand_program_100); })`. This crate declares them all
/// (below); a benchmark target `use`s them.
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

// The generated sets, each compiled once, here, for every target that drives it.
fixture!(toolset_10);
fixture!(hand_10 {
    fixture!(hand_program_10);
});
fixture!(rmcp_10);
fixture!(toolset_100);
fixture!(hand_100 {
    fixture!(hand_program_100);
});
fixture!(rmcp_100);
#[cfg(large_sets)]
fixture!(toolset_1000);
#[cfg(large_sets)]
fixture!(hand_1000 {
    fixture!(hand_program_1000);
});
#[cfg(large_sets)]
fixture!(rmcp_1000);

/// The configuration of every criterion target: short (1 s of warm-up, 3 s of
/// measurement, 30 samples), so that the whole run of BENCHMARKS.md stays within minutes;
/// the ratios compare implementations measured in the same run, which the short
/// measurement does not bias.
pub fn criterion() -> criterion::Criterion {
    criterion::Criterion::default()
        .warm_up_time(std::time::Duration::from_secs(1))
        .measurement_time(std::time::Duration::from_secs(3))
        .sample_size(30)
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

    /// A fresh request context carrying the `progressToken` rmcp's client puts on every
    /// request it sends: what an in-process `tools/call` benchmark hands the server.
    pub fn client_context(&self, id: i64) -> RequestContext<RoleServer> {
        let mut context = self.context(id);
        context
            .meta
            .set_progress_token(ProgressToken(NumberOrString::Number(id)));
        context
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

/// [`spread_calls`] as MCP `tools/call` parameters: each name with its arguments parsed
/// into the JSON object rmcp's client sends.
pub fn spread_requests(n: usize) -> Vec<(&'static str, JsonObject)> {
    spread_calls(n)
        .into_iter()
        .map(|(name, args)| {
            let args = serde_json::from_str(&args).expect("generated arguments are a JSON object");
            (name, args)
        })
        .collect()
}

/// The text of an MCP `tools/call` result, which must not be an error: what a benchmark
/// checks every server answers, with the same text, before it times anything.
pub fn result_text(result: &rmcp::model::CallToolResult) -> String {
    assert_ne!(result.is_error, Some(true), "the call failed: {result:?}");
    result
        .content
        .iter()
        .filter_map(|part| part.as_text().map(|text| text.text.clone()))
        .collect::<Vec<_>>()
        .join("\n")
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
