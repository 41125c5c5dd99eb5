//! What the server does for the runtime tools of the toolbox it serves
//! ([`McpServer::with_toolbox`]) beyond running them (apply runs them as it runs any
//! plan's: no state, so no lock): tells the session's client when a namespace of the
//! toolbox refreshed. (A call a human approved by elicitation is approved as the set's
//! are: `Session::approve_in_flight`.)

use super::McpServer;
use crate::set::ToolSet;
use rmcp::{Peer, RoleServer};

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
}
