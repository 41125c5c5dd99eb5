//! The inbox agent's tools, served over MCP.
//!
//! ```text
//! cargo run -p inbox-mcp                                   # stdio
//! cargo run -p inbox-mcp -- --http 127.0.0.1:8931          # streamable HTTP at /mcp
//! cargo run -p inbox-mcp -- --autonomy reversible          # let reversible tools run too
//! INBOX_MCP_TOKEN=... cargo run -p inbox-mcp -- --http 0.0.0.0:8931 --token-env INBOX_MCP_TOKEN
//! INBOX_MCP_APPROVAL_KEY=... cargo run -p inbox-mcp -- --approval-key-env INBOX_MCP_APPROVAL_KEY
//! ```
//!
//! Over HTTP, a non-loopback address is refused unless requests must carry a bearer
//! token (`--token-env NAME`: the token is read from that environment variable, never
//! from the command line) or `--allow-unauthenticated-remote` is given.
//!
//! By default only read-only tools (`search`, `read_item`) run; `set_due_date` and
//! `archive` answer that they need a human's approval, and `send_reply` (irreversible,
//! propose-only) always does. A client that can show forms is asked for that approval: by
//! elicitation before the 2026-07-28 protocol, and from 2026-07-28 on by `input_required`
//! once `--approval-key-env NAME` names the environment variable holding the seal key (at
//! least 32 bytes) of the proposals waiting for an answer (kept in memory).

use inbox_agent::{Inbox, InboxTools};
use std::process::ExitCode;
use toolset::mcp::{HttpConfig, McpServer};
use toolset::{Autonomy, MemoryStore, SealKey};

const USAGE: &str =
    "usage: inbox-mcp [--http HOST:PORT [--token-env NAME] [--allow-unauthenticated-remote]]
                 [--autonomy off|read_only|reversible|external_reversible]
                 [--approval-key-env NAME]

Serves the inbox agent's tools over MCP: stdio by default, or streamable HTTP at
http://HOST:PORT/mcp with --http. --autonomy sets the highest tier that runs without a
human (default read_only); irreversible tools never do. Over HTTP, --token-env NAME
requires `Authorization: Bearer <token>` with the token from the environment variable
NAME; a non-loopback HOST needs it, or --allow-unauthenticated-remote.
--approval-key-env NAME lets clients on the 2026-07-28 protocol approve withheld calls
(input_required), their proposals sealed with the key in the environment variable NAME
(at least 32 bytes).";

/// What the command line asked for.
struct Options {
    http: Option<String>,
    autonomy: Autonomy,
    /// The environment variable holding the bearer token.
    token_env: Option<String>,
    unauthenticated_remote: bool,
    /// The environment variable holding the approvals' seal key.
    approval_key_env: Option<String>,
}

fn parse(args: impl IntoIterator<Item = String>) -> Result<Options, String> {
    let mut options = Options {
        http: None,
        autonomy: Autonomy::ReadOnly,
        token_env: None,
        unauthenticated_remote: false,
        approval_key_env: None,
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
            "--token-env" => {
                options.token_env = Some(
                    args.next()
                        .ok_or("--token-env needs the name of an environment variable")?,
                );
            }
            "--allow-unauthenticated-remote" => options.unauthenticated_remote = true,
            "--approval-key-env" => {
                options.approval_key_env = Some(
                    args.next()
                        .ok_or("--approval-key-env needs the name of an environment variable")?,
                );
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
    let server = match &options.approval_key_env {
        None => server,
        Some(name) => {
            let key = std::env::var(name)
                .map_err(|_| format!("the environment variable {name} holds no approval key"));
            match key.and_then(|key| SealKey::new(key).map_err(|error| error.to_string())) {
                Ok(key) => server.with_proposal_store(MemoryStore::new(), key),
                Err(problem) => {
                    eprintln!("inbox-mcp: {problem}");
                    return ExitCode::from(2);
                }
            }
        }
    };
    let served = match options.http {
        Some(addr) => {
            let mut config = HttpConfig::new();
            if let Some(name) = &options.token_env {
                match std::env::var(name) {
                    Ok(token) if !token.is_empty() => config = config.with_bearer_token(token),
                    _ => {
                        eprintln!("inbox-mcp: the environment variable {name} holds no token");
                        return ExitCode::from(2);
                    }
                }
            }
            if options.unauthenticated_remote {
                config = config.allow_unauthenticated_remote();
            }
            match tokio::net::TcpListener::bind(&addr).await {
                Ok(listener) => {
                    eprintln!("inbox-mcp: starting MCP over streamable HTTP at http://{addr}/mcp");
                    server.serve_http(listener, config).await
                }
                Err(error) => Err(error),
            }
        }
        None => server.serve(toolset::mcp::rmcp::transport::stdio()).await,
    };
    match served {
        Ok(()) => ExitCode::SUCCESS,
        Err(error) => {
            eprintln!("inbox-mcp: {error}");
            ExitCode::FAILURE
        }
    }
}
