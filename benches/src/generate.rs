//! Source generator for the benchmark tool sets.
//!
//! One generator writes the same `n` tools three ways, so every implementation does the
//! same work: each tool takes `id: u32, text: String, flag: Option<bool>`, bumps the
//! state's counters and returns `text`.
//!
//! - [`toolset_module`]: `#[toolset::tool]` handlers and one `toolset!` set;
//! - [`hand_module`]: a typed args struct per tool and a hand-written `match name`
//!   dispatcher over `serde_json::from_str` (the floor); [`hand_program_module`] adds
//!   the parse-all-then-run-all counterpart of gate + apply;
//! - [`rmcp_module`]: rmcp's `#[tool_router]` / `#[tool]` / `#[tool_handler]` on a server
//!   struct, as rmcp's documentation writes them.
//!
//! `build.rs` includes this file to write the modules the benchmarks compile (so the
//! generated code never goes stale), and the `gen_tools` binary uses it to write the
//! throwaway crates `compile_cost.sh` builds. Each module is self-contained: it declares
//! its own state type and uses only absolute paths.

use std::fmt::Write;

/// The tool-set sizes the benchmarks compile.
pub const SIZES: [usize; 3] = [10, 100, 1000];

/// The name of tool `k`: `tool_k`.
pub fn tool_name(k: usize) -> String {
    format!("tool_{k}")
}

/// The JSON arguments the benchmarks send to tool `k`.
pub fn tool_args(k: usize) -> String {
    format!(r#"{{"id":{k},"text":"hello world","flag":true}}"#)
}

const TOOL_DOC: &str = "records one call in the state and echoes `text` (a benchmark fixture).";

/// The state type and its `touch` method, shared by the toolset and hand-written modules.
fn plain_state(out: &mut String) {
    out.push_str(
        "/// The per-run state every tool touches.\n\
         #[derive(Debug, Default)]\n\
         pub struct State {\n\
         \x20   /// Calls made so far.\n\
         \x20   pub calls: u64,\n\
         \x20   /// A mix of the last tool and id.\n\
         \x20   pub last: u64,\n\
         \x20   /// Calls made with `flag: true`.\n\
         \x20   pub flagged: u64,\n\
         }\n\n\
         impl State {\n\
         \x20   /// Records one call of tool `tool`.\n\
         \x20   #[inline]\n\
         \x20   pub fn touch(&mut self, tool: u64, id: u32, flag: ::std::option::Option<bool>) {\n\
         \x20       self.calls += 1;\n\
         \x20       self.last = tool ^ u64::from(id);\n\
         \x20       self.flagged += u64::from(flag.unwrap_or(false));\n\
         \x20   }\n\
         }\n\n",
    );
}

/// A module body declaring `n` tools with `#[toolset::tool]` and the set `Tools<State>`.
pub fn toolset_module(n: usize) -> String {
    let mut out = String::new();
    plain_state(&mut out);
    for k in 0..n {
        let _ = write!(
            out,
            "/// Tool {k}: {TOOL_DOC}\n\
             #[::toolset::tool(tier = \"reversible\")]\n\
             pub async fn tool_{k}(\n\
             \x20   state: &mut State,\n\
             \x20   /// The item id.\n\
             \x20   id: u32,\n\
             \x20   /// Free text.\n\
             \x20   text: ::std::string::String,\n\
             \x20   /// An optional flag.\n\
             \x20   flag: ::std::option::Option<bool>,\n\
             ) -> ::std::string::String {{\n\
             \x20   state.touch({k}, id, flag);\n\
             \x20   text\n\
             }}\n\n"
        );
    }
    let _ = write!(
        out,
        "::toolset::toolset! {{\n    /// The {n} benchmark tools.\n    pub Tools<State> = ["
    );
    for k in 0..n {
        if k % 10 == 0 {
            out.push_str("\n        ");
        } else {
            out.push(' ');
        }
        let _ = write!(out, "tool_{k},");
    }
    out.push_str("\n    ];\n}\n");
    out
}

/// The typed arguments struct of tool `k`, deriving what `derives` lists.
fn args_struct(out: &mut String, k: usize, derives: &str) {
    let _ = write!(
        out,
        "/// The arguments of `tool_{k}`.\n\
         #[derive({derives})]\n\
         #[serde(deny_unknown_fields)]\n\
         pub struct Tool{k}Args {{\n\
         \x20   /// The item id.\n\
         \x20   pub id: u32,\n\
         \x20   /// Free text.\n\
         \x20   pub text: ::std::string::String,\n\
         \x20   /// An optional flag.\n\
         \x20   pub flag: ::std::option::Option<bool>,\n\
         }}\n\n"
    );
}

/// A module body with `n` hand-written tools: a typed args struct and an async handler
/// each, and `dispatch`, one `match name { "tool_7" => { let args: Tool7Args =
/// serde_json::from_str(args)?; tool_7(state, args).await } ... }`.
pub fn hand_module(n: usize) -> String {
    let mut out = String::new();
    plain_state(&mut out);
    out.push_str(
        "/// Why a hand-written dispatch failed.\n\
         #[derive(Debug)]\n\
         pub enum Error {\n\
         \x20   /// No tool has that name.\n\
         \x20   UnknownTool,\n\
         \x20   /// The arguments did not deserialize.\n\
         \x20   Args(::serde_json::Error),\n\
         }\n\n\
         impl ::std::convert::From<::serde_json::Error> for Error {\n\
         \x20   fn from(error: ::serde_json::Error) -> Self {\n\
         \x20       Error::Args(error)\n\
         \x20   }\n\
         }\n\n",
    );
    for k in 0..n {
        args_struct(&mut out, k, "::serde::Deserialize");
        let _ = write!(
            out,
            "/// Tool {k}: {TOOL_DOC}\n\
             pub async fn tool_{k}(state: &mut State, args: Tool{k}Args) -> ::std::string::String {{\n\
             \x20   state.touch({k}, args.id, args.flag);\n\
             \x20   args.text\n\
             }}\n\n"
        );
    }
    out.push_str(
        "/// Deserializes `args` for the tool `name` and runs its handler.\n\
         pub async fn dispatch(\n\
         \x20   state: &mut State,\n\
         \x20   name: &str,\n\
         \x20   args: &str,\n\
         ) -> ::std::result::Result<::std::string::String, Error> {\n\
         \x20   match name {\n",
    );
    for k in 0..n {
        let _ = writeln!(
            out,
            "        \"tool_{k}\" => {{\n\
             \x20           let args: Tool{k}Args = ::serde_json::from_str(args)?;\n\
             \x20           ::std::result::Result::Ok(tool_{k}(state, args).await)\n\
             \x20       }}"
        );
    }
    out.push_str(
        "        _ => ::std::result::Result::Err(Error::UnknownTool),\n\
         \x20   }\n\
         }\n",
    );
    out
}

/// The hand-written counterpart of gate + apply for the `n` tools of [`hand_module`]
/// (declared inside that module): a `Call` enum, `parse` (name + JSON to typed call, all
/// calls before any runs) and `run`.
pub fn hand_program_module(n: usize) -> String {
    let mut out = String::from("use super::*;\n\n");
    out.push_str("/// A parsed call to one of the tools.\npub enum Call {\n");
    for k in 0..n {
        let _ = writeln!(
            out,
            "    /// A call to `tool_{k}`.\n    Tool{k}(Tool{k}Args),"
        );
    }
    out.push_str(
        "}\n\n\
         /// Parses the JSON `args` of the tool `name` into its typed call.\n\
         pub fn parse(name: &str, args: &str) -> ::std::result::Result<Call, Error> {\n\
         \x20   ::std::result::Result::Ok(match name {\n",
    );
    for k in 0..n {
        let _ = writeln!(
            out,
            "        \"tool_{k}\" => Call::Tool{k}(::serde_json::from_str(args)?),"
        );
    }
    out.push_str(
        "        _ => return ::std::result::Result::Err(Error::UnknownTool),\n\
         \x20   })\n\
         }\n\n\
         /// Runs a parsed call.\n\
         pub async fn run(state: &mut State, call: Call) -> ::std::string::String {\n\
         \x20   match call {\n",
    );
    for k in 0..n {
        let _ = writeln!(
            out,
            "        Call::Tool{k}(args) => tool_{k}(state, args).await,"
        );
    }
    out.push_str("    }\n}\n");
    out
}

/// A module body with `n` tools written the way rmcp documents them: `#[tool_router]` on
/// an impl of the server struct, `#[tool]` on each method taking `Parameters<Args>`, and
/// `#[tool_handler]` on `impl ServerHandler` (whose default rebuilds the router with
/// `Self::tool_router()` on every request). `Server::cached_router` exposes the router
/// for the build-once variant.
pub fn rmcp_module(n: usize) -> String {
    let mut out = String::new();
    out.push_str(
        "use ::std::sync::atomic::{AtomicU64, Ordering};\n\n\
         /// The MCP server: rmcp hands tools `&self`, so the state is atomics.\n\
         #[derive(Debug, Default)]\n\
         pub struct Server {\n\
         \x20   /// Calls made so far.\n\
         \x20   pub calls: AtomicU64,\n\
         \x20   /// A mix of the last tool and id.\n\
         \x20   pub last: AtomicU64,\n\
         \x20   /// Calls made with `flag: true`.\n\
         \x20   pub flagged: AtomicU64,\n\
         }\n\n\
         impl Server {\n\
         \x20   /// Records one call of tool `tool`.\n\
         \x20   #[inline]\n\
         \x20   pub fn touch(&self, tool: u64, id: u32, flag: ::std::option::Option<bool>) {\n\
         \x20       self.calls.fetch_add(1, Ordering::Relaxed);\n\
         \x20       self.last.store(tool ^ u64::from(id), Ordering::Relaxed);\n\
         \x20       self.flagged.fetch_add(u64::from(flag.unwrap_or(false)), Ordering::Relaxed);\n\
         \x20   }\n\n\
         \x20   /// The tool router, built once by the caller and kept.\n\
         \x20   pub fn cached_router() -> ::rmcp::handler::server::router::tool::ToolRouter<Self> {\n\
         \x20       Self::tool_router()\n\
         \x20   }\n\
         }\n\n",
    );
    for k in 0..n {
        args_struct(&mut out, k, "::serde::Deserialize, ::schemars::JsonSchema");
    }
    out.push_str("#[::rmcp::tool_router]\nimpl Server {\n");
    for k in 0..n {
        let _ = write!(
            out,
            "    /// Tool {k}: {TOOL_DOC}\n\
             \x20   #[::rmcp::tool]\n\
             \x20   async fn tool_{k}(\n\
             \x20       &self,\n\
             \x20       ::rmcp::handler::server::wrapper::Parameters(args): ::rmcp::handler::server::wrapper::Parameters<Tool{k}Args>,\n\
             \x20   ) -> ::std::string::String {{\n\
             \x20       self.touch({k}, args.id, args.flag);\n\
             \x20       args.text\n\
             \x20   }}\n\n"
        );
    }
    out.push_str("}\n\n#[::rmcp::tool_handler]\nimpl ::rmcp::ServerHandler for Server {}\n");
    out
}
