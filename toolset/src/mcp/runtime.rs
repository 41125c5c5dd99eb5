//! What the server does for the runtime tools of the toolbox it serves
//! ([`McpServer::with_toolbox`]) beyond running them (apply runs them as it runs any
//! plan's: no state, so no lock): tells the session's client when a namespace of the
//! toolbox refreshed, and before a session exists (2026-07-28) each `subscriptions/listen`
//! stream that asked for tool list changes. (A call a human approved by elicitation is
//! approved as the set's are: `Session::approve_in_flight`.)

use super::McpServer;
use crate::set::ToolSet;
use rmcp::model::{ServerNotification, SubscriptionFilter, ToolListChangedNotification};
use rmcp::service::SubscriptionContext;
use rmcp::{ErrorData, Peer, RoleServer};

impl<T: ToolSet> McpServer<T> {
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

    /// What a `subscriptions/listen` stream gets of what it asked for (`requested`): tool
    /// list changes, the only list this server has; never prompts' or resources'.
    pub(super) fn accepted_changes(requested: &SubscriptionFilter) -> SubscriptionFilter {
        let mut accepted = SubscriptionFilter::default();
        accepted.tools_list_changed = requested.tools_list_changed;
        accepted
    }

    /// Runs one `subscriptions/listen` stream (rmcp has acknowledged it): a
    /// `notifications/tools/list_changed` after every refresh of a namespace of the
    /// toolbox, tagged with the subscription's id, until the client cancels the stream or
    /// goes away. A stream that did not ask for tool changes only waits.
    pub(super) async fn stream_changes(
        &self,
        subscription: SubscriptionContext,
    ) -> Result<(), ErrorData> {
        let mut refreshes = self.base.toolbox.refreshes();
        let wanted = subscription.accepted().tools_list_changed == Some(true);
        loop {
            tokio::select! {
                biased;
                () = subscription.cancelled() => return Ok(()),
                () = refreshes.next(), if wanted => {}
            }
            let changed = ServerNotification::ToolListChangedNotification(
                ToolListChangedNotification::default(),
            );
            if subscription.sink().send(changed).await.is_err() {
                return Ok(());
            }
        }
    }
}
