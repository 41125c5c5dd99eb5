//! What the server does for the runtime tools of the toolbox it serves
//! ([`McpServer::with_toolbox`]): runs an approved call's handler (no state, so no lock)
//! under the server's time limit, the client's cancellation and progress; and tells the
//! session's client when a namespace of the toolbox refreshed. (A call a human approved
//! by elicitation is approved as the set's are: `Session::approve_in_flight`.)

use super::McpServer;
use super::server::{Client, has_output_schema};
use crate::apply::{call_context, refusal, run_runtime};
use crate::plan::Authority;
use crate::toolbox::RuntimeTool;
use crate::{Outcome, ToolCall, ToolOutput, ToolSet};
use rmcp::service::RequestContext;
use rmcp::{Peer, RoleServer};

impl<T: ToolSet> McpServer<T> {
    /// Runs one approved call to a runtime tool, with its progress forwarded, and says
    /// what the model reads about it.
    pub(super) async fn run_runtime(
        &self,
        call: &ToolCall,
        tool: &RuntimeTool,
        args: serde_json::Value,
        authority: Authority,
        context: &RequestContext<RoleServer>,
    ) -> ToolOutput {
        let spec = tool.spec();
        if let Some(reason) = refusal(spec, authority) {
            let outcome = Outcome::Refused { reason };
            crate::trace::not_run(spec, call, tool.tool_type(), &self.context, &outcome);
            return outcome.to_tool_output();
        }
        let client = Client::of(context);
        let (ctx, forwarder) = self.request_context(context);
        let own_ctx = call_context(&ctx, spec, call);
        let call_ctx = own_ctx.as_ref().unwrap_or(&ctx);
        let mut output = if client.is_gone() {
            ToolOutput::error(crate::messages::GONE_BEFORE_START)
        } else {
            let limit = self.call_timeout;
            // A session never injects: what its policy hides is concealed.
            let concealed = self.base.policy.concealed(&[]);
            let running = tokio::time::timeout(
                limit,
                run_runtime::<T>(call_ctx, call, tool, args, &concealed),
            );
            let outcome = tokio::select! {
                biased;
                finished = running => finished.map_or(Outcome::TimedOut { after: limit }, |(outcome, _)| outcome),
                // Dropping the handler's future stops it (a proxied call tells its server);
                // its context says so too.
                () = client.gone() => {
                    call_ctx.cancellation().cancel();
                    Outcome::Cancelled
                }
            };
            outcome.to_tool_output()
        };
        // Every progress notification goes out before the result.
        drop(own_ctx);
        drop(ctx);
        if let Some(forwarder) = forwarder {
            forwarder.finish().await;
        }
        // A tool with an output schema must answer with a conforming object (clients
        // check it); an answer without one can only be sent as an error.
        let conforms = matches!(output.structured, Some(serde_json::Value::Object(_)));
        if !output.is_error && !conforms && has_output_schema(spec) {
            output.is_error = true;
        }
        output
    }

    /// Sends the session's client `notifications/tools/list_changed` after every refresh
    /// of a namespace of the toolbox, until the session ends or the client is gone.
    pub(super) fn forward_refreshes(&self, peer: Peer<RoleServer>) {
        if !self.base.toolbox.can_change() {
            return;
        }
        let mut refreshes = self.base.toolbox.refreshes();
        let ended = self.session.ended();
        tokio::spawn(async move {
            loop {
                tokio::select! {
                    biased;
                    () = ended.cancelled() => return,
                    () = refreshes.next() => {}
                }
                if peer.is_transport_closed() || peer.notify_tool_list_changed().await.is_err() {
                    return;
                }
            }
        });
    }
}
