//! The inbox agent's tools, served over MCP.
//!
//! ```text
//! cargo run -p inbox-mcp                                   # stdio
//! cargo run -p inbox-mcp -- --http 127.0.0.1:8931          # streamable HTTP at /mcp
//! cargo run -p inbox-mcp -- --autonomy reversible          # let reversible tools run too
//! INBOX_MCP_TOKEN=... cargo run -p inbox-mcp -- --http 0.0.0.0:8931 --token-env INBOX_MCP_TOKEN
//! INBOX_MCP_APPROVAL_KEY=... cargo run -p inbox-mcp -- --approval-key-env INBOX_MCP_APPROVAL_KEY
//!
//! # one replica of several, sharing a PostgreSQL store (cargo feature `postgres`)
//! INBOX_MCP_APPROVAL_KEY=... INBOX_MCP_STORE=postgres://... cargo run -p inbox-mcp \
//!     --features postgres -- --http 127.0.0.1:8931 \
//!     --approval-key-env INBOX_MCP_APPROVAL_KEY --store-env INBOX_MCP_STORE
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
//! least 32 bytes) of the proposals waiting for an answer, kept in memory unless
//! `--store` (or `--store-env`) names a SQLite file or a PostgreSQL database. Replicas
//! behind one load balancer share that store and that key: the retry of an approval may
//! reach any of them, and the call runs once (README, "Deploying replicas").
//! `--change-log FILE` records each change to the inbox, one line each, before it is
//! made.

use inbox_agent::{Inbox, InboxTools};
use std::process::ExitCode;
use toolset::mcp::{HttpConfig, McpServer};
use toolset::{Autonomy, MemoryStore, SealKey, SqliteStore};

const USAGE: &str =
    "usage: inbox-mcp [--http HOST:PORT [--token-env NAME] [--allow-unauthenticated-remote]]
                 [--autonomy off|read_only|reversible|external_reversible]
                 [--approval-key-env NAME [--store URL | --store-env NAME]]
                 [--change-log FILE]

Serves the inbox agent's tools over MCP: stdio by default, or streamable HTTP at
http://HOST:PORT/mcp with --http. --autonomy sets the highest tier that runs without a
human (default read_only); irreversible tools never do. Over HTTP, --token-env NAME
requires `Authorization: Bearer <token>` with the token from the environment variable
NAME; a non-loopback HOST needs it, or --allow-unauthenticated-remote.
--approval-key-env NAME lets clients on the 2026-07-28 protocol approve withheld calls
(input_required), their proposals sealed with the key in the environment variable NAME
(at least 32 bytes). The proposals wait in memory, or in the store --store URL names
(sqlite:PATH, or postgres://... with the cargo feature postgres); --store-env NAME reads
the URL from the environment variable NAME (a URL holding a password belongs there).
Replicas sharing one store must share the key too.
--change-log FILE appends each change to the inbox to FILE before making it.";

/// What the command line asked for.
struct Options {
    http: Option<String>,
    autonomy: Autonomy,
    /// The environment variable holding the bearer token.
    token_env: Option<String>,
    unauthenticated_remote: bool,
    /// The environment variable holding the approvals' seal key.
    approval_key_env: Option<String>,
    /// Where the proposals wait: `None` in memory.
    store: Option<StoreUrl>,
    /// The inbox's change log.
    change_log: Option<String>,
}

/// Where the proposals of approvals by `input_required` wait, as `--store` named it.
enum StoreUrl {
    /// The URL itself.
    Given(String),
    /// The environment variable holding it.
    Env(String),
}

fn parse(args: impl IntoIterator<Item = String>) -> Result<Options, String> {
    let mut options = Options {
        http: None,
        autonomy: Autonomy::ReadOnly,
        token_env: None,
        unauthenticated_remote: false,
        approval_key_env: None,
        store: None,
        change_log: None,
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
            "--store" => {
                options.store = Some(StoreUrl::Given(args.next().ok_or(
                    "--store needs a URL: memory, sqlite:PATH or postgres://USER@HOST/DATABASE",
                )?));
            }
            "--store-env" => {
                options.store = Some(StoreUrl::Env(
                    args.next()
                        .ok_or("--store-env needs the name of an environment variable")?,
                ));
            }
            "--change-log" => {
                options.change_log = Some(args.next().ok_or("--change-log needs a file")?);
            }
            "-h" | "--help" => return Err(String::new()),
            other => return Err(format!("unknown argument {other:?}")),
        }
    }
    if options.store.is_some() && options.approval_key_env.is_none() {
        return Err(
            "--store keeps the proposals of approvals by input_required, which need \
             --approval-key-env NAME (the seal key every replica sharing the store shares)"
                .into(),
        );
    }
    Ok(options)
}

/// The seal key in the environment variable `name`.
fn approval_key(name: &str) -> Result<SealKey, String> {
    let key = std::env::var(name)
        .map_err(|_| format!("the environment variable {name} holds no approval key"))?;
    SealKey::new(key).map_err(|error| format!("the approval key in {name}: {error}"))
}

/// `server` approving by `input_required` with proposals sealed by `key`, waiting in the
/// store `store` names (in memory when it names none).
fn with_store(
    server: McpServer<InboxTools>,
    key: SealKey,
    store: Option<&StoreUrl>,
) -> Result<McpServer<InboxTools>, String> {
    let url = match store {
        None => return Ok(server.with_proposal_store(MemoryStore::new(), key)),
        Some(StoreUrl::Given(url)) => url.clone(),
        Some(StoreUrl::Env(name)) => std::env::var(name)
            .ok()
            .filter(|url| !url.is_empty())
            .ok_or_else(|| format!("the environment variable {name} holds no store URL"))?,
    };
    if url == "memory" {
        return Ok(server.with_proposal_store(MemoryStore::new(), key));
    }
    if let Some(path) = url.strip_prefix("sqlite:") {
        let store = SqliteStore::open(path)
            .map_err(|error| format!("cannot open the SQLite store {path}: {error}"))?;
        return Ok(server.with_proposal_store(store, key));
    }
    if url.starts_with("postgres://") || url.starts_with("postgresql://") {
        return postgres(server, key, &url);
    }
    // The URL may hold a password: it is not repeated.
    Err("the store URL is not memory, sqlite:PATH or postgres://...".into())
}

#[cfg(feature = "postgres")]
fn postgres(
    server: McpServer<InboxTools>,
    key: SealKey,
    url: &str,
) -> Result<McpServer<InboxTools>, String> {
    let store = toolset::PostgresStore::connect(url)
        .map_err(|error| format!("cannot use the PostgreSQL store: {error}"))?;
    Ok(server.with_proposal_store(store, key))
}

#[cfg(not(feature = "postgres"))]
fn postgres(
    _server: McpServer<InboxTools>,
    _key: SealKey,
    _url: &str,
) -> Result<McpServer<InboxTools>, String> {
    Err("this inbox-mcp was built without PostgreSQL: build it with `--features postgres`".into())
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
    let inbox = match &options.change_log {
        Some(file) => Inbox::sample().with_change_log(file),
        None => Inbox::sample(),
    };
    let server = McpServer::<InboxTools>::new(inbox)
        .with_autonomy(options.autonomy)
        .with_server_info("inbox-mcp", env!("CARGO_PKG_VERSION"))
        .with_instructions(
            "Tools over the user's inbox. Search, then read items by id. Writes may need the \
             user's approval; replies are only ever prepared, never sent by you.",
        );
    let server = match &options.approval_key_env {
        None => server,
        Some(name) => {
            match approval_key(name).and_then(|key| with_store(server, key, options.store.as_ref()))
            {
                Ok(server) => server,
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
                    // The address bound (port 0 asks the system for a free one).
                    let bound = listener
                        .local_addr()
                        .map_or(addr, |bound| bound.to_string());
                    eprintln!("inbox-mcp: starting MCP over streamable HTTP at http://{bound}/mcp");
                    server.serve_http(listener, config).await
                }
                Err(error) => Err(error),
            }
        }
        None => server.serve(toolset::mcp::stdio()).await,
    };
    match served {
        Ok(()) => ExitCode::SUCCESS,
        Err(error) => {
            eprintln!("inbox-mcp: {error}");
            ExitCode::FAILURE
        }
    }
}
