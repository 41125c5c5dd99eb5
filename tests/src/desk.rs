//! An rmcp server as its users write one, with one `#[tool_router]` tool, one
//! `#[prompt_router]` prompt and one resource, and the inbox set mounted in it
//! ([`mounted`]): the server `src/bin/mcp_mounted.rs` serves on stdio to the TypeScript
//! SDK (`tests/tests/mcp_mounted.rs`).

use crate::{Inbox, InboxTools};
use rmcp::handler::server::router::prompt::PromptRouter;
use rmcp::handler::server::router::tool::ToolRouter;
use rmcp::handler::server::wrapper::Parameters;
use rmcp::model::{
    ErrorCode, ListResourcesResult, PaginatedRequestParams, PromptMessage,
    ReadResourceRequestParams, ReadResourceResponse, ReadResourceResult, Resource,
    ResourceContents, Role, ServerCapabilities, ServerConfig,
};
use rmcp::service::RequestContext;
use rmcp::{
    ErrorData, RoleServer, ServerHandler, prompt, prompt_handler, prompt_router, tool,
    tool_handler, tool_router,
};
use schemars::JsonSchema;
use serde::Deserialize;
use toolset::Autonomy;
use toolset::mcp::{McpServer, Mounted, NameCollision};

/// The one resource the desk serves.
pub const README_URI: &str = "desk://readme";

/// What [`README_URI`] holds.
pub const README_TEXT: &str = "The desk answers echo itself; the inbox tools are toolset's.";

/// The host's own rmcp server: its tool, prompt and resource are answered by rmcp alone.
#[derive(Clone)]
pub struct Desk {
    tool_router: ToolRouter<Self>,
    prompt_router: PromptRouter<Self>,
}

/// The arguments of `echo`.
#[derive(Debug, Deserialize, JsonSchema)]
pub struct EchoArgs {
    /// The text to send back.
    pub text: String,
}

/// The arguments of the `greeting` prompt.
#[derive(Debug, Deserialize, JsonSchema)]
pub struct GreetingArgs {
    /// Whom to greet.
    pub name: String,
}

#[tool_router]
impl Desk {
    /// The desk, its routers built.
    pub fn new() -> Self {
        Desk {
            tool_router: Self::tool_router(),
            prompt_router: Self::prompt_router(),
        }
    }

    /// Sends the text back, prefixed with `echo: `.
    #[tool(description = "Send the text back.")]
    async fn echo(&self, Parameters(EchoArgs { text }): Parameters<EchoArgs>) -> String {
        format!("echo: {text}")
    }
}

// rmcp's `#[prompt]` writes a `pub fn greeting_prompt_attr` without a doc comment.
#[expect(
    missing_docs,
    reason = "rmcp's #[prompt] writes an undocumented pub fn"
)]
#[prompt_router]
impl Desk {
    /// Greets someone by name.
    #[prompt(name = "greeting", description = "Greet someone by name.")]
    async fn greeting(&self, Parameters(args): Parameters<GreetingArgs>) -> Vec<PromptMessage> {
        vec![PromptMessage::new_text(
            Role::User,
            format!("Say hello to {}.", args.name),
        )]
    }
}

impl Default for Desk {
    fn default() -> Self {
        Self::new()
    }
}

#[tool_handler(router = self.tool_router)]
#[prompt_handler(router = self.prompt_router)]
impl ServerHandler for Desk {
    fn get_info(&self) -> ServerConfig {
        ServerConfig::new(
            ServerCapabilities::builder()
                .enable_tools()
                .enable_prompts()
                .enable_resources()
                .build(),
        )
        .with_server_info(rmcp::model::Implementation::new("desk", "1.0.0"))
    }

    async fn list_resources(
        &self,
        _request: Option<PaginatedRequestParams>,
        _context: RequestContext<RoleServer>,
    ) -> Result<ListResourcesResult, ErrorData> {
        Ok(ListResourcesResult::with_all_items(vec![Resource::new(
            README_URI, "readme",
        )]))
    }

    async fn read_resource(
        &self,
        request: ReadResourceRequestParams,
        _context: RequestContext<RoleServer>,
    ) -> Result<ReadResourceResponse, ErrorData> {
        if request.uri != README_URI {
            return Err(ErrorData::new(
                ErrorCode::RESOURCE_NOT_FOUND,
                format!("no resource {}", request.uri),
                None,
            ));
        }
        Ok(ReadResourceResult::new(vec![ResourceContents::text(README_TEXT, README_URI)]).into())
    }
}

/// The desk with the inbox set mounted in it.
pub type MountedDesk = Mounted<Desk, InboxTools>;

/// The desk with the inbox set mounted in it, `inbox` its state: read-only calls run, any
/// other is put to the human by elicitation.
pub fn mounted(inbox: Inbox) -> Result<MountedDesk, NameCollision> {
    McpServer::<InboxTools>::new(inbox)
        .with_autonomy(Autonomy::ReadOnly)
        .mount_in(Desk::new())
}
