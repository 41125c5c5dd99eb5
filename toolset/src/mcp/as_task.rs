//! Which `tools/call`s run as tasks (the MCP Tasks extension, SEP-2663), and running
//! them: the host's opt-in on [`McpServer`], and a gated call's approval, `apply` and
//! result moved into a task of the table in `tasks.rs`, which keeps the result for
//! `tasks/get`. The call is the same as without a task (`server.rs`'s `answer` and
//! `written`); only when its result is delivered changes.

use super::McpServer;
use super::server::Answered;
use super::tasks::TaskLimits;
use crate::plan::Plan;
use crate::policy::IntoToolKey;
use crate::set::ToolSet;
use rmcp::RoleServer;
use rmcp::model::CreateTaskResult;
use rmcp::service::RequestContext;
use tracing::Instrument;

impl<T: ToolSet> McpServer<T> {
    /// Runs the calls of `tool` as tasks for clients that declared the Tasks extension
    /// (`io.modelcontextprotocol/tasks`, SEP-2663): such a call, once the gate passed it,
    /// is answered at once with a task (`CreateTaskResult`), and `tasks/get` reports it
    /// (`working`; `input_required` while a withheld call waits for the human's approval;
    /// then `completed` with the very `CallToolResult` the call would have been answered
    /// with, `cancelled`, or `failed` when the result was too large to keep), within the
    /// bounds of [`with_task_limits`](McpServer::with_task_limits).
    ///
    /// Nothing else changes: the call is gated, approved and applied exactly as without a
    /// task, under the same time limit ([`with_call_timeout`](McpServer::with_call_timeout):
    /// raise it for long calls), and a refused call is answered at once, as it would be
    /// without tasks. `tasks/cancel` cancels the call's [`ToolContext`](crate::ToolContext)
    /// token, as the client's going does; the task then ends `cancelled`. A client that
    /// did not declare the extension gets the ordinary result, and a server with no tool
    /// run as a task does not declare the extension at all.
    ///
    /// A server setting rather than a `#[tool]` key: whether a call is worth a task
    /// depends on where the set is served (client timeouts, the transport, what the host
    /// can keep), not on what the tool is, and the same choice is needed for the
    /// toolbox's runtime tools, which have no attribute: name one by its name
    /// (`"hub_export"`, see [`ToolKey`](crate::policy::ToolKey)); a name no tool has makes no
    /// call a task.
    ///
    /// A task's id is 128 random bits: whoever holds it may read or cancel the task, from
    /// any session of this server (a 2026-07-28 client has no session to bind it to).
    pub fn run_as_task(mut self, tool: impl IntoToolKey<T>) -> Self {
        self.tasks.add(tool.into_tool_key().name().to_owned());
        self
    }

    /// The bounds on the tasks kept: how long an ended task's result is kept, how many
    /// tasks and how many bytes of results at most ([`TaskLimits`]; its defaults unless
    /// set).
    pub fn with_task_limits(mut self, limits: TaskLimits) -> Self {
        self.tasks.set_limits(limits);
        self
    }

    /// The bounds on the tasks kept; see [`with_task_limits`](McpServer::with_task_limits).
    pub fn task_limits(&self) -> TaskLimits {
        self.tasks.limits()
    }

    /// Starts the rest of the call of `plan` (approval, apply, the result written) as a
    /// task when the tool runs as one and the client declared the extension; otherwise
    /// gives the plan back, to be answered the ordinary way.
    pub(super) fn started_as_task(
        &self,
        plan: Plan<T>,
        context: &RequestContext<RoleServer>,
    ) -> Result<CreateTaskResult, Plan<T>> {
        let opted_in = plan
            .calls()
            .first()
            .is_some_and(|call| self.tasks.runs(&call.name));
        let declared = context
            .client_capabilities()
            .is_some_and(|capabilities| capabilities.supports_tasks());
        if !opted_in || !declared {
            return Err(plan);
        }
        let Some((task, cancel)) = self.tasks.start() else {
            return Err(plan);
        };
        let id = task.task_id.clone();
        // The call's context, cancelled by `tasks/cancel` (the request itself is answered
        // now), marked so the approval path can say it waits for a human.
        let mut in_task = context.clone();
        in_task.ct = cancel;
        self.tasks.mark(&mut in_task, id.clone());
        let server = self.clone();
        let withheld = plan
            .proposals()
            .first()
            .map(|proposal| self.withheld_text(proposal, crate::messages::Next::Ask));
        let running = async move {
            // A task's call is asked by elicitation, never by `input_required` (its
            // request has been answered with the task).
            let output = match server.answer(plan, None, &in_task).await {
                Answered::Output(output) => output,
                // Never given without a request; refused, should it ever be.
                Answered::InputRequired(_) => {
                    crate::output::ToolOutput::error(withheld.unwrap_or_default())
                }
            };
            let result = server.written(output, &in_task).await;
            server.tasks.end(&id, &result);
        };
        tokio::spawn(running.instrument(tracing::Span::current()));
        Ok(CreateTaskResult::new(task))
    }
}
