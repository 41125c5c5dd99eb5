//! The inbox agent's tools, served over MCP.
//!
//! ```text
//! cargo run -p inbox-mcp                                   # stdio
//! cargo run -p inbox-mcp -- --http 127.0.0.1:8931          # streamable HTTP at /mcp
//! cargo run -p inbox-mcp -- --autonomy reversible          # let reversible tools run too
//! ```
//!
//! By default only read-only tools (`search`, `read_item`) run; `set_due_date` and
//! `archive` answer that they need a human's approval, and `send_reply` (irreversible,
//! propose-only) always does.

use inbox_agent::{Inbox, InboxTools};
use std::process::ExitCode;
use toolset::Autonomy;
use toolset::mcp::McpServer;

const USAGE: &str =
    "usage: inbox-mcp [--http HOST:PORT] [--autonomy off|read_only|reversible|external_reversible]

Serves the inbox agent's tools over MCP: stdio by default, or streamable HTTP at
http://HOST:PORT/mcp with --http. --autonomy sets the highest tier that runs without a
human (default read_only); irreversible tools never do.";

/// What the command line asked for.
struct Options {
    http: Option<String>,
    autonomy: Autonomy,
}

fn parse(args: impl IntoIterator<Item = String>) -> Result<Options, String> {
    let mut options = Options {
        http: None,
        autonomy: Autonomy::ReadOnly,
    };
    let mut args = args.into_iter();
    while let Some(arg) = args.next() {
        match arg.as_str() {
            "--http" => {
                options.http = Some(
                    args.next()
                        .ok_or("--http needs an address, e.g. 127.0.0.1:8931")?,
                );
            }
            "--autonomy" => {
                let level = args.next().ok_or("--autonomy needs a level")?;
                options.autonomy = match level.as_str() {
                    "off" => Autonomy::Off,
                    "read_only" => Autonomy::ReadOnly,
                    "reversible" => Autonomy::Reversible,
                    "external_reversible" => Autonomy::ExternalReversible,
                    other => return Err(format!("unknown autonomy level {other:?}")),
                };
            }
            "-h" | "--help" => return Err(String::new()),
            other => return Err(format!("unknown argument {other:?}")),
        }
    }
    Ok(options)
}

#[tokio::main]
async fn main() -> ExitCode {
    let options = match parse(std::env::args().skip(1)) {
        Ok(options) => options,
        Err(problem) => {
            if !problem.is_empty() {
                eprintln!("inbox-mcp: {problem}\n");
            }
            eprintln!("{USAGE}");
            return ExitCode::from(2);
        }
    };
    let server = McpServer::<InboxTools>::new(Inbox::sample())
        .with_autonomy(options.autonomy)
        .with_server_info("inbox-mcp", env!("CARGO_PKG_VERSION"))
        .with_instructions(
            "Tools over the user's inbox. Search, then read items by id. Writes may need the \
             user's approval; replies are only ever prepared, never sent by you.",
        );
    let served = match options.http {
        Some(addr) => {
            eprintln!("inbox-mcp: serving MCP over streamable HTTP at http://{addr}/mcp");
            server.serve_http(addr).await
        }
        None => server.serve_stdio().await,
    };
    match served {
        Ok(()) => ExitCode::SUCCESS,
        Err(error) => {
            eprintln!("inbox-mcp: {error}");
            ExitCode::FAILURE
        }
    }
}
