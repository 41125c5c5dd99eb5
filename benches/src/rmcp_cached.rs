//! rmcp's fastest documented server: the `#[tool_router]` router built once and kept,
//! answering `tools/call` through `ToolRouter::call` and `tools/list` through
//! `ToolRouter::list_all`, as `#[tool_handler(router = self.tool_router)]` does with a
//! stored router. The baseline the MCP targets of issue 16 are measured against (the plain
//! `#[tool_handler]` server rebuilds its router on every request).

use rmcp::handler::server::router::tool::ToolRouter;
use rmcp::handler::server::tool::ToolCallContext;
use rmcp::model::{
    CallToolRequestParams, CallToolResponse, ListToolsResult, PaginatedRequestParams, ServerConfig,
};
use rmcp::service::RequestContext;
use rmcp::{ErrorData, RoleServer, ServerHandler};

/// A generated rmcp server `S` with its tool router built once.
pub struct CachedServer<S: Send + Sync + 'static> {
    server: S,
    router: ToolRouter<S>,
}

impl<S: ServerHandler> CachedServer<S> {
    /// `server` answering through `router` (the generated `Server::cached_router()`).
    pub fn new(server: S, router: ToolRouter<S>) -> Self {
        CachedServer { server, router }
    }

    /// The server the router's tools are called on.
    pub fn server(&self) -> &S {
        &self.server
    }

    /// The kept router.
    pub fn router(&self) -> &ToolRouter<S> {
        &self.router
    }
}

impl<S: ServerHandler> ServerHandler for CachedServer<S> {
    fn get_info(&self) -> ServerConfig {
        self.server.get_info()
    }

    async fn call_tool(
        &self,
        request: CallToolRequestParams,
        context: RequestContext<RoleServer>,
    ) -> Result<CallToolResponse, ErrorData> {
        self.router
            .call(ToolCallContext::new(&self.server, request, context))
            .await
    }

    async fn list_tools(
        &self,
        _request: Option<PaginatedRequestParams>,
        _context: RequestContext<RoleServer>,
    ) -> Result<ListToolsResult, ErrorData> {
        Ok(ListToolsResult::with_all_items(self.router.list_all()))
    }
}
