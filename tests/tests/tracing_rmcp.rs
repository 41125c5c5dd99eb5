//! What a host's DEBUG subscriber receives from an MCP server with traced content off
//! (`ToolContext::with_traced_content(false)`, the default): rmcp itself logs every
//! `tools/call` request, arguments included, and its result at DEBUG (target
//! `rmcp::service`), which toolset cannot intercept, so the documented directive `rmcp=info`
//! is what keeps them out. Both halves are shown here: without the directive a secret
//! planted in an argument reaches the subscriber; with it, nothing of it does.

use toolset::mcp::McpServer;
use toolset::{Autonomy, ToolContext, tool, toolset};
use toolset_tests::captured::Captured;
use tracing_subscriber::Layer;
use tracing_subscriber::filter::Targets;
use tracing_subscriber::layer::SubscriberExt;

/// The secret the model puts in an argument; the tool's result carries it too.
const SECRET: &str = "s3cr3t-planted-in-an-argument";

/// The vault.
#[derive(Default)]
pub struct Vault {
    notes: Vec<String>,
}

/// Store a note.
#[tool(tier = "reversible")]
pub async fn store(vault: &mut Vault, note: String) -> String {
    vault.notes.push(note.clone());
    format!("stored {note}")
}

toolset! {
    /// The vault's tools.
    pub VaultTools<Vault> = [store];
}

/// Serves the vault over an in-memory pipe to rmcp's client, which calls `store` with the
/// secret, under a subscriber that records everything `filter` lets through at DEBUG and
/// above; what it captured.
fn captured_under(filter: &str) -> String {
    use rmcp::ServiceExt;
    use rmcp::model::CallToolRequestParams;

    let filter: Targets = filter.parse().expect("a valid directive");
    let captured = Captured::default();
    let subscriber = tracing_subscriber::registry().with(captured.clone().with_filter(filter));
    // One thread: rmcp's tasks run on it, under this thread's subscriber.
    let runtime = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .expect("a tokio runtime");
    let server = McpServer::<VaultTools>::new(Vault::default())
        .with_autonomy(Autonomy::Reversible)
        .with_context(ToolContext::default().with_traced_content(false));
    let answer = tracing::subscriber::with_default(subscriber, || {
        runtime.block_on(async move {
            let (client_io, server_io) = tokio::io::duplex(64 * 1024);
            let serving = tokio::spawn(async move {
                let _ = server.serve(server_io).await;
            });
            let client = ().serve(client_io).await.expect("the client connects");
            let mut params = CallToolRequestParams::new("store");
            params.arguments = serde_json::json!({ "note": SECRET }).as_object().cloned();
            let answer = client
                .call_tool(params)
                .await
                .expect("the call is answered");
            let _ = client.cancel().await;
            let _ = serving.await;
            answer
        })
    });
    assert!(
        format!("{answer:?}").contains(&format!("stored {SECRET}")),
        "{answer:?}"
    );
    captured.text()
}

#[test]
fn without_the_directive_rmcp_logs_a_tools_calls_arguments_at_debug() {
    let text = captured_under("debug");
    let leaked: Vec<&str> = text.lines().filter(|line| line.contains(SECRET)).collect();
    assert!(
        !leaked.is_empty(),
        "rmcp no longer logs the arguments at DEBUG: the README's tracing section and \
         ToolContext::with_traced_content can drop the rmcp=info advice\n{text}"
    );
    assert!(
        leaked.iter().all(|line| line.starts_with("rmcp::service:")),
        "only rmcp's events carry it, not toolset's: {leaked:#?}"
    );
    assert!(
        leaked
            .iter()
            .any(|line| line.contains("received request") && line.contains("\"store\"")),
        "the request itself is logged, arguments and all: {leaked:#?}"
    );
}

#[test]
fn the_documented_rmcp_info_directive_keeps_arguments_and_results_out_of_a_debug_subscriber() {
    let text = captured_under("debug,rmcp=info");
    assert!(
        text.contains("tools/call"),
        "the subscriber still records toolset's spans at DEBUG:\n{text}"
    );
    assert!(!text.contains(SECRET), "{text}");
}
