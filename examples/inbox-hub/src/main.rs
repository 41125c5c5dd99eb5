//! One gated, namespaced MCP server in front of two others: `inbox-mcp` (the inbox's
//! tools) and `calendar-mcp` (a tiny calendar), each started as a child process over stdio
//! and proxied as `inbox_*` and `calendar_*` tools.
//!
//! ```text
//! cargo build -p inbox-mcp -p inbox-hub
//! target/debug/inbox-hub                                   # stdio
//! target/debug/inbox-hub --http 127.0.0.1:8932             # streamable HTTP at /mcp
//! target/debug/inbox-hub --autonomy reversible             # let mapped writes run too
//! target/debug/inbox-hub --inbox PATH --calendar PATH      # where the servers are
//! ```
//!
//! The hub decides what runs, not the servers behind it: every proxied tool gets the tier
//! this host maps it to (`INBOX_TIERS`, `CALENDAR_TIERS`); a tool it maps nothing for is
//! `irreversible`, so it is only ever withheld for a human, whatever its server's
//! annotations hint. The servers behind it run what it forwards (inbox-mcp is started with
//! `--autonomy reversible`, the highest tier the hub maps for it). A server's `tools/list_changed` (inbox-mcp's after a `tool_search`)
//! reaches the hub's clients as `tools/list_changed`.

use std::path::PathBuf;
use std::process::ExitCode;
use toolset::mcp::{HttpConfig, McpServer};
use toolset::prelude::*;
use toolset::toolbox::McpTools;
use toolset::{Autonomy, Tier, Toolbox, tool, toolset};

const USAGE: &str =
    "usage: inbox-hub [--http HOST:PORT] [--autonomy off|read_only|reversible|external_reversible]
                 [--inbox PATH] [--calendar PATH]

Serves inbox-mcp's tools as inbox_* and calendar-mcp's as calendar_*, gated by this hub:
stdio by default, or streamable HTTP at http://HOST:PORT/mcp (loopback only) with --http.
--autonomy sets the highest tier that runs without a human (default read_only). The
servers' binaries are --inbox / --calendar, else $INBOX_MCP_BIN / $CALENDAR_MCP_BIN, else
inbox-mcp / calendar-mcp next to this binary.";

/// The host's tiers for inbox-mcp's tools, by their name there. `forward` is left out on
/// purpose: inbox-mcp raises it to irreversible for an outside address, which a proxy
/// cannot see before the call, so it stays irreversible here. So is `send_reply`.
const INBOX_TIERS: &[(&str, Tier)] = &[
    ("search", Tier::ReadOnly),
    ("read_item", Tier::ReadOnly),
    ("tool_search", Tier::ReadOnly),
    ("set_due_date", Tier::Reversible),
    ("archive", Tier::Reversible),
    ("add_label", Tier::Reversible),
];

/// The host's tiers for calendar-mcp's tools.
const CALENDAR_TIERS: &[(&str, Tier)] =
    &[("free_slots", Tier::ReadOnly), ("book", Tier::Reversible)];

/// What the hub itself knows: the servers it aggregates.
pub struct Hub {
    sources: Vec<String>,
}

/// List the MCP servers this hub aggregates, with the prefix of their tools.
#[tool(tier = "read_only")]
pub async fn sources(hub: &Hub) -> String {
    hub.sources.join("\n")
}

toolset! {
    /// The hub's own tools.
    pub HubTools<Hub> = [sources];
}

/// What the command line asked for.
struct Options {
    http: Option<String>,
    autonomy: Autonomy,
    inbox: Option<PathBuf>,
    calendar: Option<PathBuf>,
}

fn parse(args: impl IntoIterator<Item = String>) -> Result<Options, String> {
    let mut options = Options {
        http: None,
        autonomy: Autonomy::ReadOnly,
        inbox: None,
        calendar: None,
    };
    let mut args = args.into_iter();
    while let Some(arg) = args.next() {
        match arg.as_str() {
            "--http" => {
                options.http = Some(
                    args.next()
                        .ok_or("--http needs an address, e.g. 127.0.0.1:8932")?,
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
            "--inbox" => {
                options.inbox = Some(
                    args.next()
                        .ok_or("--inbox needs the path of inbox-mcp")?
                        .into(),
                );
            }
            "--calendar" => {
                options.calendar = Some(
                    args.next()
                        .ok_or("--calendar needs the path of calendar-mcp")?
                        .into(),
                );
            }
            "-h" | "--help" => return Err(String::new()),
            other => return Err(format!("unknown argument {other:?}")),
        }
    }
    Ok(options)
}

/// The server binary: the flag's path, else the environment variable's, else `name` next
/// to this binary (where cargo builds every binary of the workspace).
fn locate(flag: Option<PathBuf>, env: &str, name: &str) -> Result<PathBuf, String> {
    if let Some(path) = flag.or_else(|| std::env::var_os(env).map(PathBuf::from)) {
        return Ok(path);
    }
    let here =
        std::env::current_exe().map_err(|error| format!("cannot find this binary: {error}"))?;
    let beside = here.with_file_name(format!("{name}{}", std::env::consts::EXE_SUFFIX));
    if beside.is_file() {
        Ok(beside)
    } else {
        Err(format!(
            "cannot find {name} next to {} (build it: cargo build -p {name}, or say where it \
             is with ${env})",
            here.display()
        ))
    }
}

/// Starts the server at `path` with `args` and namespaces its tools `label_*`, with the
/// host's tiers.
async fn connect(
    label: &str,
    path: &PathBuf,
    args: &[&str],
    tiers: &[(&str, Tier)],
) -> Result<McpTools, String> {
    let mut command = tokio::process::Command::new(path);
    command.args(args);
    let mut tools = McpTools::connect_stdio(label, command)
        .await
        .map_err(|error| format!("{label} ({}): {error}", path.display()))?;
    for &(name, tier) in tiers {
        tools = tools.tier_of(name, tier);
    }
    Ok(tools)
}

/// The hub's server: its own tool and both servers' tools, under `autonomy`.
async fn hub(options: &Options) -> Result<McpServer<HubTools>, String> {
    let inbox_path = locate(options.inbox.clone(), "INBOX_MCP_BIN", "inbox-mcp")?;
    let calendar_path = locate(options.calendar.clone(), "CALENDAR_MCP_BIN", "calendar-mcp")?;
    // inbox-mcp gates its own calls too (read-only by default): it is told to run what the
    // hub forwards, up to the highest tier the hub maps for it. Its irreversible
    // `send_reply` stays propose-only there as well.
    let inbox = connect(
        "inbox",
        &inbox_path,
        &["--autonomy", "reversible"],
        INBOX_TIERS,
    )
    .await?;
    let calendar = connect("calendar", &calendar_path, &[], CALENDAR_TIERS).await?;
    let toolbox: Toolbox<HubTools> = HubTools::toolbox()
        .with_namespace(inbox)
        .and_then(|toolbox| toolbox.with_namespace(calendar))
        .map_err(|error| error.to_string())?;
    let hub = Hub {
        sources: vec![
            format!("inbox_*: the user's inbox ({})", inbox_path.display()),
            format!(
                "calendar_*: the user's calendar ({})",
                calendar_path.display()
            ),
        ],
    };
    Ok(McpServer::<HubTools>::new(hub)
        .with_toolbox(toolbox)
        .with_autonomy(options.autonomy)
        .with_server_info("inbox-hub", env!("CARGO_PKG_VERSION"))
        .with_instructions(
            "Tools of several servers, each named after its server: inbox_* for the user's \
             inbox, calendar_* for their calendar. Writes may need the user's approval.",
        ))
}

#[tokio::main]
async fn main() -> ExitCode {
    let options = match parse(std::env::args().skip(1)) {
        Ok(options) => options,
        Err(problem) => {
            if !problem.is_empty() {
                eprintln!("inbox-hub: {problem}\n");
            }
            eprintln!("{USAGE}");
            return ExitCode::from(2);
        }
    };
    let server = match hub(&options).await {
        Ok(server) => server,
        Err(problem) => {
            eprintln!("inbox-hub: {problem}");
            return ExitCode::FAILURE;
        }
    };
    let served = match &options.http {
        Some(addr) => {
            eprintln!("inbox-hub: starting MCP over streamable HTTP at http://{addr}/mcp");
            server.serve_http(addr.as_str(), HttpConfig::new()).await
        }
        None => server.serve(toolset::mcp::stdio()).await,
    };
    match served {
        Ok(()) => ExitCode::SUCCESS,
        Err(error) => {
            eprintln!("inbox-hub: {error}");
            ExitCode::FAILURE
        }
    }
}
