//! Asking the human at the client, by MCP elicitation, to approve a call the gate
//! withheld (the form; sent by the server to a client before 2026-07-28, or carried in an
//! `input_required` result by `input_required.rs`): the exact tool, what held it back (its tier and why the tool raised it, the lethal-trifecta rule), preview and arguments are
//! shown, and the call runs only on an explicit accept with the approval box ticked. The
//! approval is bound to those arguments as a proposal's is: the checks of
//! [`Approvals::approve`](crate::Approvals::approve), under the session's request, on the
//! very call that was shown.

use super::messages;
use crate::proposal::Proposal;
use rmcp::model::{
    ClientCapabilities, ClientResult, ElicitRequest, ElicitRequestParams, ElicitResult,
    ElicitationAction, ServerRequest,
};
use rmcp::service::PeerRequestOptions;
use rmcp::{Peer, RoleServer};
use serde_json::{Value, json};
use std::time::Duration;

/// The form field the human ticks to approve.
const APPROVE_FIELD: &str = "approve";

/// Whether the client declared, at `initialize`, it can show an elicitation form.
pub(crate) fn client_can_ask(peer: &Peer<RoleServer>) -> bool {
    peer.peer_info()
        .is_some_and(|info| declares_form(&info.capabilities))
}

/// Whether `capabilities` say the client can show an elicitation form: the capabilities
/// it declared at `initialize`, or (2026-07-28, no `initialize`) in a request's `_meta`.
pub(crate) fn declares_form(capabilities: &ClientCapabilities) -> bool {
    capabilities
        .elicitation
        .as_ref()
        // A capability naming no mode means form (the 2025-06-18 shape).
        .is_some_and(|modes| modes.form.is_some() || modes.url.is_none())
}

/// What the form shows of the tool beside the proposal: its title and the preview of
/// these arguments, both computed now by the tool (the set's, or the toolbox's runtime
/// tool), never read from the proposal, and why the call was held back
/// (`crate::messages::why_withheld`).
pub(crate) struct Shown {
    pub(crate) title: Option<String>,
    pub(crate) preview: Option<String>,
    pub(crate) why: String,
}

/// Asks the human whether `proposal` may run, within `limit`: `Some(true)` only on an
/// explicit accept with the approval box ticked; `Some(false)` for the human's no (decline,
/// cancel, an unticked box); `None` when nobody answered (an error, no answer in time).
pub(crate) async fn human_approves(
    peer: &Peer<RoleServer>,
    proposal: &Proposal,
    shown: Shown,
    limit: Duration,
) -> Option<bool> {
    let request = request(proposal, shown)?;
    let request = ServerRequest::ElicitRequest(request);
    let answer = match peer
        .send_request_with_option(request, PeerRequestOptions::with_timeout(limit))
        .await
    {
        Ok(handle) => handle.await_response().await,
        Err(_) => return None,
    };
    match answer {
        Ok(ClientResult::ElicitResult(result)) => Some(approves(&result)),
        _ => None,
    }
}

/// The elicitation request asking the human whether `proposal` may run, showing what
/// `shown` says of its tool: sent by the server (before 2026-07-28), or carried in an
/// `input_required` result (2026-07-28 on). `None` only if the form does not parse as an
/// elicitation (a bug): then nobody is asked, and nothing runs.
pub(crate) fn request(proposal: &Proposal, shown: Shown) -> Option<ElicitRequest> {
    serde_json::from_value::<ElicitRequestParams>(form(proposal, shown))
        .ok()
        .map(ElicitRequest::new)
}

/// Whether the human's answer to the form is an approval: an explicit accept with the
/// approval box ticked. Decline, cancel, an unticked box or a missing field all mean no.
pub(crate) fn approves(result: &ElicitResult) -> bool {
    result.action == ElicitationAction::Accept
        && result
            .content
            .as_ref()
            .and_then(|content| content.get(APPROVE_FIELD))
            .and_then(Value::as_bool)
            == Some(true)
}

/// The elicitation form for `proposal`, showing what `shown` says of its tool.
fn form(proposal: &Proposal, shown: Shown) -> Value {
    let call = proposal.call();
    let arguments = serde_json::from_str::<Value>(&call.arguments.text())
        .ok()
        .and_then(|arguments| serde_json::to_string_pretty(&arguments).ok())
        .unwrap_or_else(|| call.arguments.to_string());
    json!({
        "mode": "form",
        "message": messages::approval_request(
            &call.name,
            &shown.why,
            shown.title.as_deref(),
            shown.preview.as_deref(),
            &arguments,
        ),
        "requestedSchema": {
            "type": "object",
            "properties": {
                APPROVE_FIELD: {
                    "type": "boolean",
                    "title": messages::APPROVE_TITLE,
                    "description": messages::APPROVE_DESCRIPTION,
                    "default": false,
                }
            },
            "required": [APPROVE_FIELD],
        }
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::call::ToolCall;
    use crate::proposal::ProposalId;
    use crate::tier::Tier;

    #[test]
    fn the_form_shows_why_the_tool_raised_the_calls_tier() {
        let proposal = Proposal {
            id: ProposalId::parse("0123456789abcdef0123456789abcdef").unwrap(),
            set: "Set".to_owned(),
            set_fingerprint: "f".to_owned(),
            call: ToolCall::new("c1", "forward", r#"{"to":"billing@cy-partners.example"}"#),
            tier: Tier::Irreversible,
            escalation: Some("billing@cy-partners.example is outside the company".to_owned()),
            propose_only: false,
            created_ms: 1,
            expires_ms: None,
            seal: None,
            labels: crate::spec::Labels::NONE,
            owner: String::new(),
        };
        let shown = |proposal: &Proposal| Shown {
            title: None,
            preview: None,
            why: crate::messages::why_withheld(
                &proposal.call.name,
                &crate::messages::Held::of(
                    proposal.tier,
                    crate::tier::Autonomy::ExternalReversible,
                    proposal.escalated_because(),
                    false,
                ),
            ),
        };
        let message = form(&proposal, shown(&proposal))["message"].to_string();
        assert!(
            message.contains(
                "raised this call to the risk tier irreversible \
                 (billing@cy-partners.example is outside the company)"
            ),
            "{message}"
        );
        let unescalated = Proposal {
            escalation: None,
            ..proposal
        };
        let message = form(&unescalated, shown(&unescalated))["message"].to_string();
        assert!(
            message.contains("has the risk tier irreversible") && !message.contains("raised"),
            "{message}"
        );
    }
}
