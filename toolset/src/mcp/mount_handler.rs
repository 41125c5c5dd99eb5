//! The rmcp `ServerHandler` of a [`Mounted`] server: every request the host's handler
//! answers is handed to it as it came; the set's tools are handed to `McpServer`'s own
//! handler (`server.rs`), so their gate, approval, journal and spans are the ones a set
//! served alone has. What both sides answer (`tools/list`, `initialize`, the
//! capabilities) is the handler's answer with the set's added.
//!
//! Every method of rmcp's `ServerHandler` is written here, so none falls back to rmcp's
//! default (which would answer for the host's handler `-32601` or an empty list).

use super::Mounted;
use super::trace::record_error;
use crate::set::ToolSet;
use rmcp::model::{
    CacheScope, CallToolRequestParams, CallToolResponse, CancelTaskParams,
    CancelledNotificationParam, CompleteRequestParams, CompleteResult, CustomNotification,
    CustomRequest, CustomResult, DiscoverResult, ErrorCode, GetPromptRequestParams,
    GetPromptResponse, GetSkillRequestParams, GetSkillResult, GetTaskParams, GetTaskResult,
    InitializeRequestParams, InitializeResult, ListPromptsResult, ListResourceTemplatesResult,
    ListResourcesResult, ListSkillsResult, ListToolsResult, PaginatedRequestParams,
    ProgressNotificationParam, ProtocolVersion, ReadResourceDirectoryRequestParams,
    ReadResourceDirectoryResult, ReadResourceRequestParams, ReadResourceResponse, ServerConfig,
    SubscribeRequestParams, SubscriptionFilter, Tool, UnsubscribeRequestParams, UpdateTaskParams,
};
use rmcp::service::{NotificationContext, RequestContext, SubscriptionContext};
use rmcp::{ErrorData, RoleServer, ServerHandler};
use std::borrow::Cow;
use tracing::Instrument;

impl<H: ServerHandler, T: ToolSet> Mounted<H, T> {
    /// Whether the task `id` is the set's: the set runs tools as tasks, and it holds this
    /// one, or the handler declares no tasks of its own.
    fn holds_task(&self, id: &str) -> bool {
        self.toolset.tasks.any()
            && (self.toolset.tasks.holds(id)
                || !self.handler.get_info().capabilities.supports_tasks())
    }
}

impl<H: ServerHandler, T: ToolSet> ServerHandler for Mounted<H, T> {
    async fn ping(&self, context: RequestContext<RoleServer>) -> Result<(), ErrorData> {
        self.toolset.ping_in_span(&context);
        self.handler.ping(context).await
    }

    async fn initialize(
        &self,
        request: InitializeRequestParams,
        context: RequestContext<RoleServer>,
    ) -> Result<InitializeResult, ErrorData> {
        let span = self.toolset.request_span("initialize", None, &context);
        let answer = self
            .handler
            .initialize(request, context)
            .instrument(span.clone())
            .await;
        match answer {
            Ok(mut result) => {
                self.widen(&mut result.capabilities);
                Ok(result)
            }
            Err(error) => {
                record_error(&span, &error.code.0.to_string());
                Err(error)
            }
        }
    }

    fn negotiate_initialize(
        &self,
        request: &InitializeRequestParams,
    ) -> Result<InitializeResult, ErrorData> {
        let mut result = self.handler.negotiate_initialize(request)?;
        self.widen(&mut result.capabilities);
        Ok(result)
    }

    fn supported_protocol_versions(&self) -> Cow<'static, [ProtocolVersion]> {
        self.handler.supported_protocol_versions()
    }

    async fn discover(
        &self,
        context: RequestContext<RoleServer>,
    ) -> Result<DiscoverResult, ErrorData> {
        let mut result = self.handler.discover(context).await?;
        self.widen(&mut result.capabilities);
        Ok(result)
    }

    async fn complete(
        &self,
        request: CompleteRequestParams,
        context: RequestContext<RoleServer>,
    ) -> Result<CompleteResult, ErrorData> {
        self.handler.complete(request, context).await
    }

    #[expect(
        deprecated,
        reason = "forwarded for the host's handler, legacy peers included"
    )]
    async fn set_level(
        &self,
        request: rmcp::model::SetLevelRequestParams,
        context: RequestContext<RoleServer>,
    ) -> Result<(), ErrorData> {
        // The level is the session's, for the set's tools and the host's alike: the set's
        // server records it, and a host that logs too is told.
        let host_logs = self.handler.get_info().capabilities.logging.is_some();
        if !host_logs {
            return ServerHandler::set_level(&self.toolset, request, context).await;
        }
        ServerHandler::set_level(&self.toolset, request.clone(), context.clone()).await?;
        self.handler.set_level(request, context).await
    }

    async fn get_prompt(
        &self,
        request: GetPromptRequestParams,
        context: RequestContext<RoleServer>,
    ) -> Result<GetPromptResponse, ErrorData> {
        self.handler.get_prompt(request, context).await
    }

    async fn list_prompts(
        &self,
        request: Option<PaginatedRequestParams>,
        context: RequestContext<RoleServer>,
    ) -> Result<ListPromptsResult, ErrorData> {
        self.handler.list_prompts(request, context).await
    }

    async fn list_resources(
        &self,
        request: Option<PaginatedRequestParams>,
        context: RequestContext<RoleServer>,
    ) -> Result<ListResourcesResult, ErrorData> {
        self.handler.list_resources(request, context).await
    }

    async fn list_resource_templates(
        &self,
        request: Option<PaginatedRequestParams>,
        context: RequestContext<RoleServer>,
    ) -> Result<ListResourceTemplatesResult, ErrorData> {
        self.handler.list_resource_templates(request, context).await
    }

    async fn read_resource(
        &self,
        request: ReadResourceRequestParams,
        context: RequestContext<RoleServer>,
    ) -> Result<ReadResourceResponse, ErrorData> {
        self.handler.read_resource(request, context).await
    }

    fn accepted_subscription_filter(
        &self,
        requested: &SubscriptionFilter,
    ) -> Option<SubscriptionFilter> {
        self.handler.accepted_subscription_filter(requested)
    }

    async fn listen(&self, context: SubscriptionContext) -> Result<(), ErrorData> {
        self.handler.listen(context).await
    }

    #[expect(
        deprecated,
        reason = "forwarded for the host's handler, legacy peers included"
    )]
    async fn subscribe(
        &self,
        request: SubscribeRequestParams,
        context: RequestContext<RoleServer>,
    ) -> Result<(), ErrorData> {
        self.handler.subscribe(request, context).await
    }

    #[expect(
        deprecated,
        reason = "forwarded for the host's handler, legacy peers included"
    )]
    async fn unsubscribe(
        &self,
        request: UnsubscribeRequestParams,
        context: RequestContext<RoleServer>,
    ) -> Result<(), ErrorData> {
        self.handler.unsubscribe(request, context).await
    }

    async fn call_tool(
        &self,
        request: CallToolRequestParams,
        context: RequestContext<RoleServer>,
    ) -> Result<CallToolResponse, ErrorData> {
        if self.serves(&request.name) {
            ServerHandler::call_tool(&self.toolset, request, context).await
        } else {
            self.handler.call_tool(request, context).await
        }
    }

    async fn list_tools(
        &self,
        request: Option<PaginatedRequestParams>,
        context: RequestContext<RoleServer>,
    ) -> Result<ListToolsResult, ErrorData> {
        let first_page = request
            .as_ref()
            .is_none_or(|request| request.cursor.is_none());
        let theirs = match self.handler.list_tools(request, context.clone()).await {
            Ok(theirs) => theirs,
            // A handler with no tools of its own (rmcp's default without the capability).
            Err(error) if error.code == ErrorCode::METHOD_NOT_FOUND && first_page => {
                ListToolsResult::with_all_items(Vec::new())
            }
            Err(error) => return Err(error),
        };
        if !first_page {
            return Ok(theirs);
        }
        let ours = ServerHandler::list_tools(&self.toolset, None, context).await?;
        Ok(merged(theirs, ours))
    }

    fn get_tool(&self, name: &str) -> Option<Tool> {
        match self.serves(name) {
            true => ServerHandler::get_tool(&self.toolset, name),
            false => self.handler.get_tool(name),
        }
    }

    async fn on_custom_request(
        &self,
        request: CustomRequest,
        context: RequestContext<RoleServer>,
    ) -> Result<CustomResult, ErrorData> {
        // A `tools/*` request whose params did not parse: toolset says what is wrong.
        match request.method.starts_with("tools/") {
            true => ServerHandler::on_custom_request(&self.toolset, request, context).await,
            false => self.handler.on_custom_request(request, context).await,
        }
    }

    async fn on_cancelled(
        &self,
        notification: CancelledNotificationParam,
        context: NotificationContext<RoleServer>,
    ) {
        self.handler.on_cancelled(notification, context).await;
    }

    async fn on_progress(
        &self,
        notification: ProgressNotificationParam,
        context: NotificationContext<RoleServer>,
    ) {
        self.handler.on_progress(notification, context).await;
    }

    async fn on_initialized(&self, context: NotificationContext<RoleServer>) {
        // A namespace of the set's toolbox refreshing changes this session's list.
        self.toolset.forward_refreshes(context.peer.clone());
        self.handler.on_initialized(context).await;
    }

    async fn on_roots_list_changed(&self, context: NotificationContext<RoleServer>) {
        self.handler.on_roots_list_changed(context).await;
    }

    async fn on_custom_notification(
        &self,
        notification: CustomNotification,
        context: NotificationContext<RoleServer>,
    ) {
        self.handler
            .on_custom_notification(notification, context)
            .await;
    }

    fn get_info(&self) -> ServerConfig {
        let mut info = self.handler.get_info();
        self.widen(&mut info.capabilities);
        info
    }

    async fn get_task(
        &self,
        request: GetTaskParams,
        context: RequestContext<RoleServer>,
    ) -> Result<GetTaskResult, ErrorData> {
        match self.holds_task(&request.task_id) {
            true => ServerHandler::get_task(&self.toolset, request, context).await,
            false => self.handler.get_task(request, context).await,
        }
    }

    async fn update_task(
        &self,
        request: UpdateTaskParams,
        context: RequestContext<RoleServer>,
    ) -> Result<(), ErrorData> {
        match self.holds_task(&request.task_id) {
            true => ServerHandler::update_task(&self.toolset, request, context).await,
            false => self.handler.update_task(request, context).await,
        }
    }

    async fn cancel_task(
        &self,
        request: CancelTaskParams,
        context: RequestContext<RoleServer>,
    ) -> Result<(), ErrorData> {
        match self.holds_task(&request.task_id) {
            true => ServerHandler::cancel_task(&self.toolset, request, context).await,
            false => self.handler.cancel_task(request, context).await,
        }
    }

    async fn list_skills(
        &self,
        request: Option<PaginatedRequestParams>,
        context: RequestContext<RoleServer>,
    ) -> Result<ListSkillsResult, ErrorData> {
        self.handler.list_skills(request, context).await
    }

    async fn get_skill(
        &self,
        request: GetSkillRequestParams,
        context: RequestContext<RoleServer>,
    ) -> Result<GetSkillResult, ErrorData> {
        self.handler.get_skill(request, context).await
    }

    async fn read_resource_directory(
        &self,
        request: ReadResourceDirectoryRequestParams,
        context: RequestContext<RoleServer>,
    ) -> Result<ReadResourceDirectoryResult, ErrorData> {
        self.handler.read_resource_directory(request, context).await
    }
}

/// The first page of `tools/list`: the handler's tools (`theirs`), then the set's
/// (`ours`). A name the set lists is the set's to answer (`Mounted::serves`), so the
/// handler's tool of that name (one `mount_in` could not see: a handler without
/// `get_tool`, or a namespace refreshed since) is left out, and logged. The page is as
/// fresh and as private as the set's list, which is per session.
fn merged(mut theirs: ListToolsResult, ours: ListToolsResult) -> ListToolsResult {
    theirs.tools.retain(|tool| {
        let shadowed = ours.tools.iter().any(|our| our.name == tool.name);
        if shadowed {
            tracing::warn!(
                tool = %tool.name,
                "the rmcp server's tool has the name of a tool of the mounted set, which answers it"
            );
        }
        !shadowed
    });
    theirs.tools.extend(ours.tools);
    // One list of both: kept no longer, and by no more clients, than either side allows.
    theirs.ttl_ms = match (theirs.ttl_ms, ours.ttl_ms) {
        (Some(theirs), Some(ours)) => Some(theirs.min(ours)),
        (theirs, ours) => theirs.or(ours),
    };
    theirs.cache_scope = match (theirs.cache_scope, ours.cache_scope) {
        (Some(CacheScope::Public), Some(CacheScope::Public)) => Some(CacheScope::Public),
        (None, scope) | (scope, None) => scope,
        _ => Some(CacheScope::Private),
    };
    theirs
}
