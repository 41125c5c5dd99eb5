#!/usr/bin/env bash
# What a newcomer-sized agent costs to build, on toolset and on rmcp: the same notes agent
# (six tools over a SQLite database, served over MCP on stdio or streamable HTTP) written
# both ways, and for each the debug binary's size and the wall time of rebuilding it after
# editing one handler, under two profiles:
#
# - `default`: cargo's own debug profile (full debug info everywhere), what a new crate gets;
# - `recommended`: the profile the README recommends, `debug = "line-tables-only"` for the
#   agent (backtraces still name the line) and no debug info for dependencies.
#
# The toolset agent declares its tools with `#[tool]` and `toolset!`, serves them with
# `McpServer` and keeps its proposals in a `SqliteStore` (features `mcp`, `sqlite`, and
# `constraints`; `toolset-lean` is the same agent without `constraints`); the
# rmcp agent declares them with `#[tool_router]` / `#[tool]` and serves them with rmcp's
# stdio transport and `StreamableHttpService` under axum, as rmcp documents it. Both
# keep their notes with rusqlite (bundled SQLite). The crates are written into
# target/agent-cost/ws, a throwaway workspace pinned to this workspace's Cargo.lock; each
# profile has its own target directory (target/agent-cost/<profile>), dependencies built
# first. Each rebuild edits a string in one handler and runs `cargo build` (incremental
# compilation on, cargo's debug default); the median of RUNS (default 5) is reported.
#
#   benches/agent_cost.sh              # both profiles, 5 runs
#   RUNS=3 PROFILES=recommended benches/agent_cost.sh
#
# Needs ~6 GB of disk under target/agent-cost; delete it afterwards.
set -euo pipefail
cd "$(dirname "$0")/.."
root=$PWD
runs=${RUNS:-5}
profiles=${PROFILES:-"default recommended"}
work=$root/target/agent-cost
ws=$work/ws
export CARGO_TERM_COLOR=never
# An edit at a desk: incremental compilation on, whatever the caller set.
export CARGO_INCREMENTAL=1

rm -rf "$ws"
mkdir -p "$ws/agent-toolset/src" "$ws/agent-toolset-lean/src" "$ws/agent-rmcp/src"
cat >"$ws/Cargo.toml" <<EOF
[workspace]
resolver = "3"
members = ["agent-toolset", "agent-toolset-lean", "agent-rmcp"]

[workspace.package]
edition = "2024"
version = "0.0.0"
publish = false

[workspace.dependencies]
serde = { version = "1", features = ["derive"] }
serde_json = "1"
schemars = "1.2"
rusqlite = { version = "0.37", features = ["bundled"] }
tokio = { version = "1", features = ["rt-multi-thread", "macros", "net"] }
EOF
cp "$root/Cargo.lock" "$ws/Cargo.lock"

cat >"$ws/agent-toolset/Cargo.toml" <<EOF
[package]
name = "agent-toolset"
edition.workspace = true
version.workspace = true
publish.workspace = true

[dependencies]
toolset = { path = "$root/toolset", features = ["constraints", "mcp", "sqlite"] }
serde.workspace = true
serde_json.workspace = true
schemars.workspace = true
rusqlite.workspace = true
tokio.workspace = true
EOF

# The same agent with toolset's default features, i.e. without `constraints` (the
# jsonschema validator): it declares no constraint, so it loses no check.
sed -e 's/^name = "agent-toolset"/name = "agent-toolset-lean"/' \
    -e 's/features = \["constraints", "mcp", "sqlite"\] }/features = ["mcp", "sqlite"] }/' \
    "$ws/agent-toolset/Cargo.toml" >"$ws/agent-toolset-lean/Cargo.toml"

cat >"$ws/agent-rmcp/Cargo.toml" <<EOF
[package]
name = "agent-rmcp"
edition.workspace = true
version.workspace = true
publish.workspace = true

[dependencies]
rmcp = { version = "3.11", default-features = false, features = ["server", "macros", "schemars", "transport-io", "transport-streamable-http-server"] }
axum = { version = "0.8", default-features = false, features = ["http1", "tokio"] }
serde.workspace = true
serde_json.workspace = true
schemars.workspace = true
rusqlite.workspace = true
tokio.workspace = true
EOF

# The notes table and its queries, the same text in both agents.
notes_db='
/// Opens (or creates) the notes database at `path`.
fn open_db(path: &str) -> rusqlite::Result<rusqlite::Connection> {
    let db = rusqlite::Connection::open(path)?;
    db.execute_batch(
        "CREATE TABLE IF NOT EXISTS notes (id INTEGER PRIMARY KEY, title TEXT NOT NULL, body TEXT NOT NULL)",
    )?;
    Ok(db)
}

/// The notes whose title or body contains `words` (every note when it is empty).
fn find(db: &rusqlite::Connection, words: &str) -> rusqlite::Result<Vec<(i64, String)>> {
    let mut statement = db.prepare(
        "SELECT id, title FROM notes WHERE instr(title, ?1) > 0 OR instr(body, ?1) > 0 ORDER BY id",
    )?;
    let rows = statement.query_map([words], |row| Ok((row.get(0)?, row.get(1)?)))?;
    rows.collect()
}
'

cat >"$ws/agent-toolset/src/main.rs" <<EOF
//! A notes agent on toolset: six tools over SQLite, served over MCP.
use serde::{Deserialize, Serialize};
use std::sync::{Mutex, PoisonError};
use toolset::mcp::{HttpConfig, McpServer};
use toolset::{tool, toolset, Json, SealKey, SqliteStore, ToolError};
$notes_db
/// The agent's state: the notes database.
pub struct Notes {
    db: Mutex<rusqlite::Connection>,
}

impl Notes {
    fn with<R>(&self, f: impl FnOnce(&rusqlite::Connection) -> rusqlite::Result<R>) -> Result<R, ToolError> {
        f(&self.db.lock().unwrap_or_else(PoisonError::into_inner)).map_err(ToolError::failed)
    }
}

/// A note as the model reads it.
#[derive(Serialize, Deserialize, schemars::JsonSchema)]
pub struct Note {
    /// Its id.
    pub id: i64,
    /// Its title.
    pub title: String,
    /// Its text.
    pub body: String,
}

/// Add a note.
#[tool(tier = "reversible")]
pub async fn add_note(notes: &Notes, /** A short title. */ title: String, /** The text. */ body: String) -> Result<String, ToolError> {
    let id = notes.with(|db| {
        db.execute("INSERT INTO notes (title, body) VALUES (?1, ?2)", (&title, &body))?;
        Ok(db.last_insert_rowid())
    })?;
    Ok(format!("added note {id}"))
}

/// List every note's id and title.
#[tool(tier = "read_only")]
pub async fn list_notes(notes: &Notes) -> Result<Json<Vec<(i64, String)>>, ToolError> {
    notes.with(|db| find(db, "")).map(Json)
}

/// Read one note.
#[tool(tier = "read_only")]
pub async fn read_note(notes: &Notes, /** The note's id. */ id: i64) -> Result<Json<Note>, ToolError> {
    notes.with(|db| {
        db.query_row("SELECT id, title, body FROM notes WHERE id = ?1", [id], |row| {
            Ok(Note { id: row.get(0)?, title: row.get(1)?, body: row.get(2)? })
        })
    }).map(Json)
}

/// Find the notes whose title or text contains the words.
#[tool(tier = "read_only")]
pub async fn search_notes(notes: &Notes, /** Words to look for. */ query: String) -> Result<Json<Vec<(i64, String)>>, ToolError> {
    notes.with(|db| find(db, &query)).map(Json)
}

/// Replace a note's text.
#[tool(tier = "reversible")]
pub async fn edit_note(notes: &Notes, /** The note's id. */ id: i64, /** The new text. */ body: String) -> Result<String, ToolError> {
    let changed = notes.with(|db| db.execute("UPDATE notes SET body = ?2 WHERE id = ?1", (id, &body)))?;
    Ok(format!("edited {changed} note (edit 0)"))
}

/// Delete a note for good.
#[tool(tier = "irreversible")]
pub async fn delete_note(notes: &Notes, /** The note's id. */ id: i64) -> Result<String, ToolError> {
    let gone = notes.with(|db| db.execute("DELETE FROM notes WHERE id = ?1", [id]))?;
    Ok(format!("deleted {gone} note"))
}

toolset! { pub NotesTools<Notes> = [add_note, list_notes, read_note, search_notes, edit_note, delete_note]; }

#[tokio::main]
async fn main() -> Result<(), Box<dyn std::error::Error>> {
    let notes = Notes { db: Mutex::new(open_db("notes.db")?) };
    let key = SealKey::new(std::env::var("NOTES_KEY").unwrap_or_else(|_| "k".repeat(32)))?;
    let server = McpServer::<NotesTools>::new(notes)
        .with_proposal_store(SqliteStore::open("proposals.db")?, key);
    match std::env::args().nth(1) {
        Some(addr) => {
            let listener = tokio::net::TcpListener::bind(addr).await?;
            server.serve_http(listener, HttpConfig::new()).await?;
        }
        None => server.serve(toolset::mcp::stdio()).await?,
    }
    Ok(())
}
EOF

cat >"$ws/agent-rmcp/src/main.rs" <<EOF
//! A notes agent on rmcp: six tools over SQLite, served over MCP.
use rmcp::handler::server::wrapper::{Json, Parameters};
use rmcp::transport::streamable_http_server::session::local::LocalSessionManager;
use rmcp::transport::{StreamableHttpServerConfig, StreamableHttpService};
use rmcp::{tool, tool_handler, tool_router, ErrorData, ServiceExt};
use serde::{Deserialize, Serialize};
use std::sync::{Arc, Mutex, PoisonError};
$notes_db
/// The agent's state: the notes database (rmcp hands tools \`&self\`).
#[derive(Clone)]
pub struct Notes {
    db: Arc<Mutex<rusqlite::Connection>>,
}

impl Notes {
    fn with<R>(&self, f: impl FnOnce(&rusqlite::Connection) -> rusqlite::Result<R>) -> Result<R, ErrorData> {
        f(&self.db.lock().unwrap_or_else(PoisonError::into_inner))
            .map_err(|error| ErrorData::internal_error(error.to_string(), None))
    }
}

/// A note as the model reads it.
#[derive(Serialize, Deserialize, schemars::JsonSchema)]
pub struct Note {
    /// Its id.
    pub id: i64,
    /// Its title.
    pub title: String,
    /// Its text.
    pub body: String,
}

/// The notes found.
#[derive(Serialize, schemars::JsonSchema)]
pub struct Found {
    /// Each note's id and title.
    pub notes: Vec<(i64, String)>,
}

/// A note's title and text.
#[derive(Deserialize, schemars::JsonSchema)]
pub struct AddNote {
    /// A short title.
    pub title: String,
    /// The text.
    pub body: String,
}

/// A note's id.
#[derive(Deserialize, schemars::JsonSchema)]
pub struct NoteId {
    /// The note's id.
    pub id: i64,
}

/// Words to look for.
#[derive(Deserialize, schemars::JsonSchema)]
pub struct Query {
    /// Words to look for.
    pub query: String,
}

/// A note's new text.
#[derive(Deserialize, schemars::JsonSchema)]
pub struct EditNote {
    /// The note's id.
    pub id: i64,
    /// The new text.
    pub body: String,
}

#[tool_router]
impl Notes {
    /// Add a note.
    #[tool]
    async fn add_note(&self, Parameters(args): Parameters<AddNote>) -> Result<String, ErrorData> {
        let id = self.with(|db| {
            db.execute("INSERT INTO notes (title, body) VALUES (?1, ?2)", (&args.title, &args.body))?;
            Ok(db.last_insert_rowid())
        })?;
        Ok(format!("added note {id}"))
    }

    /// List every note's id and title.
    #[tool]
    async fn list_notes(&self) -> Result<Json<Found>, ErrorData> {
        self.with(|db| find(db, "")).map(|notes| Json(Found { notes }))
    }

    /// Read one note.
    #[tool]
    async fn read_note(&self, Parameters(args): Parameters<NoteId>) -> Result<Json<Note>, ErrorData> {
        self.with(|db| {
            db.query_row("SELECT id, title, body FROM notes WHERE id = ?1", [args.id], |row| {
                Ok(Note { id: row.get(0)?, title: row.get(1)?, body: row.get(2)? })
            })
        }).map(Json)
    }

    /// Find the notes whose title or text contains the words.
    #[tool]
    async fn search_notes(&self, Parameters(args): Parameters<Query>) -> Result<Json<Found>, ErrorData> {
        self.with(|db| find(db, &args.query)).map(|notes| Json(Found { notes }))
    }

    /// Replace a note's text.
    #[tool]
    async fn edit_note(&self, Parameters(args): Parameters<EditNote>) -> Result<String, ErrorData> {
        let changed = self.with(|db| db.execute("UPDATE notes SET body = ?2 WHERE id = ?1", (args.id, &args.body)))?;
        Ok(format!("edited {changed} note (edit 0)"))
    }

    /// Delete a note for good.
    #[tool(annotations(destructive_hint = true))]
    async fn delete_note(&self, Parameters(args): Parameters<NoteId>) -> Result<String, ErrorData> {
        let gone = self.with(|db| db.execute("DELETE FROM notes WHERE id = ?1", [args.id]))?;
        Ok(format!("deleted {gone} note"))
    }
}

#[tool_handler]
impl rmcp::ServerHandler for Notes {}

#[tokio::main]
async fn main() -> Result<(), Box<dyn std::error::Error>> {
    let notes = Notes { db: Arc::new(Mutex::new(open_db("notes.db")?)) };
    match std::env::args().nth(1) {
        Some(addr) => {
            let service = StreamableHttpService::new(
                move || Ok(notes.clone()),
                Arc::new(LocalSessionManager::default()),
                StreamableHttpServerConfig::default(),
            );
            let router = axum::Router::new().nest_service("/mcp", service);
            axum::serve(tokio::net::TcpListener::bind(addr).await?, router).await?;
        }
        None => notes.serve(rmcp::transport::stdio()).await?.waiting().await.map(|_| ())?,
    }
    Ok(())
}
EOF

cp "$ws/agent-toolset/src/main.rs" "$ws/agent-toolset-lean/src/main.rs"

profile_flags() {
    case $1 in
        default) echo "--config profile.dev.debug=true" ;;
        recommended) echo "--config 'profile.dev.debug=\"line-tables-only\"' --config 'profile.dev.package.\"*\".debug=false'" ;;
        *) echo "unknown profile $1" >&2; exit 2 ;;
    esac
}

median() { sort -n | awk '{a[NR]=$1} END {print a[int((NR+1)/2)]}'; }

results=$work/results.txt
: >"$results"
cd "$ws"
for profile in $profiles; do
    export CARGO_TARGET_DIR=$work/$profile
    flags=$(profile_flags "$profile")
    echo "== $profile: building both agents and their dependencies"
    # One package at a time: building both at once would unify their dependencies'
    # features, and each agent's own build would then rebuild them.
    for kind in toolset toolset-lean rmcp; do
        eval cargo build --quiet -p "agent-$kind" "$flags"
    done
    # The two agents' rebuilds alternate, so a slower stretch of a shared machine falls on both.
    declare -A times=()
    for run in $(seq "$runs"); do
        for kind in toolset toolset-lean rmcp; do
            # Edit one handler: the text edit_note answers with.
            sed -i "s/(edit [0-9]*)/(edit $run)/" "agent-$kind/src/main.rs"
            start=$(date +%s%N)
            eval cargo build --quiet -p "agent-$kind" "$flags"
            end=$(date +%s%N)
            times[$kind]+="$(awk -v ns=$((end - start)) 'BEGIN {printf "%.2f", ns / 1e9}') "
        done
    done
    for kind in toolset toolset-lean rmcp; do
        size=$(stat -c %s "$CARGO_TARGET_DIR/debug/agent-$kind")
        rebuild=$(printf '%s\n' ${times[$kind]} | median)
        echo "$profile agent-$kind binary_bytes=$size edit_rebuild_s=$rebuild runs=${times[$kind]}" | tee -a "$results"
    done
done
echo "== results in $results (load: $(cut -d' ' -f1-3 /proc/loadavg))"
