//! The rmcp `ServerHandler` of [`McpServer`]: what each JSON-RPC method is answered
//! (`initialize`, `tools/list`, `tools/call`, tasks, custom and removed methods), each
//! answered by what `server.rs` does for a request.

use super::McpServer;
use super::input_required;
use super::messages;
use crate::set::ToolSet;
use rmcp::model::{
    CallToolRequestParams, CallToolResponse, CancelTaskParams, CustomRequest, CustomResult,
    ErrorCode, GetTaskParams, GetTaskResult, Implementation, ListToolsResult,
    PaginatedRequestParams, ServerCapabilities, ServerConfig, Tool, UpdateTaskParams,
};
use rmcp::service::{NotificationContext, RequestContext};
use rmcp::{ErrorData, RoleServer, ServerHandler};
use tracing::Instrument;

/// The methods of the Tasks extension, which rmcp parses too when the server declares it
/// (some tool runs as a task).
const TASK_METHODS: &[&str] = &["tasks/get", "tasks/update", "tasks/cancel"];

/// The methods rmcp parses into typed requests: a request for one of them that reaches
/// `on_custom_request` had params that did not parse.
const KNOWN_METHODS: &[&str] = &[
    "initialize",
    "ping",
    "logging/setLevel",
    "tools/list",
    "tools/call",
    "server/discover",
];

/// The methods MCP 2026-07-28 removed: a request of that revision for one is answered
/// `-32601` (HTTP `404`, `http/junk.rs`), whatever its params, as for a method that never
/// existed.
pub(super) const REMOVED_IN_2026_07_28: &[&str] = &[
    "initialize",
    "ping",
    "logging/setLevel",
    "resources/subscribe",
    "resources/unsubscribe",
];

impl<T: ToolSet> ServerHandler for McpServer<T> {
    fn get_info(&self) -> ServerConfig {
        // `listChanged`: a search activates tools for the session that ran it.
        // `logging`: handlers log to the client through their context.
        #[allow(
            deprecated,
            reason = "MCP logging is deprecated from 2026-07-28 on, still served"
        )]
        let capabilities = ServerCapabilities::builder()
            .enable_logging()
            .enable_tools()
            .enable_tool_list_changed();
        // The Tasks extension only when some tool runs as a task (`tasks.rs`).
        let capabilities = match self.tasks.any() {
            true => capabilities.enable_tasks().build(),
            false => capabilities.build(),
        };
        let config = ServerConfig::new(capabilities).with_server_info(Implementation::new(
            self.name.to_string(),
            self.version.to_string(),
        ));
        match &self.instructions {
            Some(instructions) => config.with_instructions(instructions.to_string()),
            None => config,
        }
    }

    fn accepted_subscription_filter(
        &self,
        requested: &rmcp::model::SubscriptionFilter,
    ) -> Option<rmcp::model::SubscriptionFilter> {
        Some(Self::accepted_changes(requested))
    }

    async fn listen(
        &self,
        subscription: rmcp::service::SubscriptionContext,
    ) -> Result<(), ErrorData> {
        self.stream_changes(subscription).await
    }

    async fn on_initialized(&self, context: NotificationContext<RoleServer>) {
        // A namespace of the toolbox refreshing changes this session's list.
        self.forward_refreshes(context.peer);
    }

    async fn initialize(
        &self,
        request: rmcp::model::InitializeRequestParams,
        context: RequestContext<RoleServer>,
    ) -> Result<rmcp::model::InitializeResult, ErrorData> {
        // A request whose `_meta` names 2026-07-28, which removed the handshake.
        if input_required::speaks(context.meta.protocol_version().as_ref()) {
            return Err(ErrorData::new(
                ErrorCode::METHOD_NOT_FOUND,
                messages::removed_method("initialize"),
                None,
            ));
        }
        self.initialize_in_span(request, context)
    }

    async fn ping(&self, context: RequestContext<RoleServer>) -> Result<(), ErrorData> {
        self.ping_in_span(&context);
        Ok(())
    }

    async fn list_tools(
        &self,
        _request: Option<PaginatedRequestParams>,
        context: RequestContext<RoleServer>,
    ) -> Result<ListToolsResult, ErrorData> {
        let span = self.request_span("tools/list", None, &context);
        let _in_request = span.enter();
        super::progress::check_log_level(&context)?;
        // rmcp takes the tools by value: a copy of the shared list, whose schemas are
        // `Arc`s and whose names and descriptions borrow the specs.
        match self.session.listed(&self.base) {
            Ok(tools) => {
                let listed = ListToolsResult::with_all_items(tools.to_vec());
                // The caching hints are 2026-07-28's (SEP-2549), required there.
                match input_required::speaks(context.protocol_version().as_ref()) {
                    true => Ok(listed
                        .with_ttl_ms(self.list_caching.0)
                        .with_cache_scope(self.list_caching.1)),
                    false => Ok(listed),
                }
            }
            Err(error) => {
                super::trace::record_error(&span, &ErrorCode::INTERNAL_ERROR.0.to_string());
                Err(ErrorData::internal_error(error.to_string(), None))
            }
        }
    }

    #[allow(
        deprecated,
        reason = "MCP logging is deprecated from 2026-07-28 on, still served"
    )]
    async fn set_level(
        &self,
        request: rmcp::model::SetLevelRequestParams,
        context: RequestContext<RoleServer>,
    ) -> Result<(), ErrorData> {
        // 2026-07-28 removed the method: a request asks for its level in its `_meta`.
        if input_required::speaks(context.protocol_version().as_ref()) {
            return Err(ErrorData::new(
                ErrorCode::METHOD_NOT_FOUND,
                messages::removed_method("logging/setLevel"),
                None,
            ));
        }
        self.session
            .set_log_level(super::progress::log_level(request.level));
        Ok(())
    }

    async fn call_tool(
        &self,
        request: CallToolRequestParams,
        context: RequestContext<RoleServer>,
    ) -> Result<CallToolResponse, ErrorData> {
        let span = self.request_span("tools/call", Some(&request.name), &context);
        // Answering is a large future (gate, elicitation, lock, time limits) and rmcp
        // moves each request's future into a task of its own: boxed, it is one allocation
        // instead of its whole state copied at every move (callgrind: 87,000 of a round
        // trip's 267,000 instructions). Boxed before it is instrumented, so it is copied
        // once, into its box, not once more into the `Instrumented` around it.
        let answer = Box::pin(self.call(request, context))
            .instrument(span.clone())
            .await;
        super::trace::record_call(&span, &answer);
        answer
    }

    async fn get_task(
        &self,
        request: GetTaskParams,
        _context: RequestContext<RoleServer>,
    ) -> Result<GetTaskResult, ErrorData> {
        self.tasks.get(&request.task_id)
    }

    async fn update_task(
        &self,
        request: UpdateTaskParams,
        _context: RequestContext<RoleServer>,
    ) -> Result<(), ErrorData> {
        self.tasks.update(&request.task_id)
    }

    async fn cancel_task(
        &self,
        request: CancelTaskParams,
        _context: RequestContext<RoleServer>,
    ) -> Result<(), ErrorData> {
        self.tasks.cancel(&request.task_id)
    }

    /// The tool rmcp checks a `tools/call`'s `Mcp-Param-*` headers against (SEP-2243): the
    /// session's listed one, or a deferred one as it would be listed once activated.
    fn get_tool(&self, name: &str) -> Option<Tool> {
        let listed = self.session.listed(&self.base).ok();
        let found = listed.and_then(|tools| tools.iter().find(|tool| tool.name == name).cloned());
        found.or_else(|| self.base.tool(name))
    }

    async fn on_custom_request(
        &self,
        request: CustomRequest,
        context: RequestContext<RoleServer>,
    ) -> Result<CustomResult, ErrorData> {
        let method = request.method.as_str();
        if REMOVED_IN_2026_07_28.contains(&method)
            && input_required::speaks(context.protocol_version().as_ref())
        {
            return Err(ErrorData::new(
                ErrorCode::METHOD_NOT_FOUND,
                messages::removed_method(method),
                None,
            ));
        }
        let known =
            KNOWN_METHODS.contains(&method) || (self.tasks.any() && TASK_METHODS.contains(&method));
        if known {
            let error = malformed_params_error(method, request.params.as_ref());
            return Err(ErrorData::invalid_params(
                messages::malformed_params(method, &error),
                None,
            ));
        }
        Err(ErrorData::new(
            ErrorCode::METHOD_NOT_FOUND,
            messages::unknown_method(method),
            None,
        ))
    }
}

/// What is wrong with the params of a known method, as serde says it.
fn malformed_params_error(method: &str, params: Option<&serde_json::Value>) -> String {
    let params = params.cloned().unwrap_or(serde_json::Value::Null);
    let parsed = match method {
        "tools/call" => serde_json::from_value::<CallToolRequestParams>(params).map(|_| ()),
        "tasks/get" => serde_json::from_value::<GetTaskParams>(params).map(|_| ()),
        "tasks/update" => serde_json::from_value::<UpdateTaskParams>(params).map(|_| ()),
        "tasks/cancel" => serde_json::from_value::<CancelTaskParams>(params).map(|_| ()),
        "tools/list" => {
            serde_json::from_value::<Option<PaginatedRequestParams>>(params).map(|_| ())
        }
        #[allow(deprecated, reason = "MCP logging is deprecated from 2026-07-28 on")]
        "logging/setLevel" => {
            serde_json::from_value::<rmcp::model::SetLevelRequestParams>(params).map(|_| ())
        }
        _ => return "they do not have the method's shape".to_owned(),
    };
    match parsed {
        Ok(()) => "they do not have the method's shape".to_owned(),
        Err(error) => error.to_string(),
    }
}
