//! A handler's asks ([`ToolContext::elicit`], `sample`, `roots`) answered by the MCP
//! client of its call: before 2026-07-28, server requests over the session
//! (`elicitation/create`, `sampling/createMessage`, `roots/list`) through rmcp's peer, each
//! only when the client declared its capability. On 2026-07-28 and later, which forbids
//! server requests, a direct `tools/call` asks by rounds of `input_required` instead
//! (`rounds.rs`, sharing this file's conversions between toolset's asks and MCP's), and a
//! call run as a task or approved by a human through `input_required` is not asked (the
//! handler reads [`AskError::NotAvailable`]).
//!
//! [`ToolContext::elicit`]: crate::ToolContext::elicit
#![allow(
    deprecated,
    reason = "rmcp marks sampling and roots deprecated (SEP-2577, 2026-07-28); served before it"
)]

use super::elicit;
use super::input_required;
use crate::ask::{
    AskError, AskFuture, Asker, Asking, Form, FormAction, FormAnswer, Role, Root, Sampled, Sampling,
};
use rmcp::model::{
    ClientCapabilities, ClientResult, CreateMessageRequest, CreateMessageRequestParams,
    CreateMessageResult, ElicitRequest, ElicitRequestParams, ElicitResult, ElicitationAction,
    ListRootsResult, ServerRequest,
};
use rmcp::service::RequestContext;
use rmcp::{Peer, RoleServer};
use serde_json::{Value, json};

/// Why nobody is asked on 2026-07-28 and later outside a direct call's rounds.
const STATELESS: &str = "the MCP client speaks 2026-07-28 or later, where a server cannot \
                         send it requests, and this call runs as a task or was approved by \
                         a human, where toolset asks no `input_required` round; a direct \
                         `tools/call` of a tool that runs unattended can ask";

/// The client of one request, asked on a handler's behalf.
pub(super) struct ClientAsker {
    peer: Peer<RoleServer>,
    /// What the client declared: at `initialize`, or in the request's `_meta`.
    capabilities: Option<ClientCapabilities>,
    /// Whether the request is on 2026-07-28 or later (no server requests).
    stateless: bool,
}

impl ClientAsker {
    /// The asker for the request `context`.
    pub(super) fn of(context: &RequestContext<RoleServer>) -> Self {
        ClientAsker {
            peer: context.peer.clone(),
            capabilities: context.client_capabilities(),
            stateless: input_required::speaks(context.protocol_version().as_ref()),
        }
    }

    /// Whether the client may be asked `asking`: `Err` says why not.
    fn may_ask(&self, asking: Asking) -> Result<(), AskError> {
        if self.stateless {
            return Err(AskError::NotAvailable {
                asking,
                why: STATELESS,
            });
        }
        match declares(self.capabilities.as_ref(), asking) {
            true => Ok(()),
            false => Err(AskError::NotDeclared(asking)),
        }
    }

    /// Sends `request` and waits for the client's answer.
    async fn send(&self, asking: Asking, request: ServerRequest) -> Result<ClientResult, AskError> {
        self.may_ask(asking)?;
        let failed = |reason: String| AskError::Failed { asking, reason };
        self.peer
            .send_request(request)
            .await
            .map_err(|error| failed(error.to_string()))
    }
}

/// What a reply of the wrong kind is called.
fn unexpected(asking: Asking) -> AskError {
    AskError::Failed {
        asking,
        reason: "the client answered with a result of another kind".to_owned(),
    }
}

impl Asker for ClientAsker {
    fn elicit<'a>(&'a self, _call_id: &'a str, form: Form) -> AskFuture<'a, FormAnswer> {
        Box::pin(async move {
            let asking = Asking::Elicitation;
            let request = ServerRequest::ElicitRequest(ElicitRequest::new(form_params(&form)?));
            let ClientResult::ElicitResult(result) = self.send(asking, request).await? else {
                return Err(unexpected(asking));
            };
            Ok(form_answer(result))
        })
    }

    fn sample<'a>(&'a self, _call_id: &'a str, sampling: Sampling) -> AskFuture<'a, Sampled> {
        Box::pin(async move {
            let asking = Asking::Sampling;
            let params = sampling_params(&sampling)?;
            let request = ServerRequest::CreateMessageRequest(CreateMessageRequest::new(params));
            let ClientResult::CreateMessageResult(result) = self.send(asking, request).await?
            else {
                return Err(unexpected(asking));
            };
            Ok(sampled(*result))
        })
    }

    fn roots<'a>(&'a self, _call_id: &'a str) -> AskFuture<'a, Vec<Root>> {
        Box::pin(async move {
            let asking = Asking::Roots;
            let request = ServerRequest::ListRootsRequest(Default::default());
            let ClientResult::ListRootsResult(result) = self.send(asking, request).await? else {
                return Err(unexpected(asking));
            };
            Ok(roots_of(result))
        })
    }
}

/// Whether `capabilities` declare what `asking` needs: elicitation with its form mode,
/// sampling, roots.
pub(super) fn declares(capabilities: Option<&ClientCapabilities>, asking: Asking) -> bool {
    capabilities.is_some_and(|c| match asking {
        Asking::Elicitation => elicit::declares_form(c),
        Asking::Sampling => c.sampling.is_some(),
        Asking::Roots => c.roots.is_some(),
    })
}

/// `form` as MCP's `elicitation/create` parameters, in form mode.
pub(super) fn form_params(form: &Form) -> Result<ElicitRequestParams, AskError> {
    let params = json!({
        "mode": "form",
        "message": form.message,
        "requestedSchema": form.schema,
    });
    // rmcp's typed schema is MCP's: what it cannot read, no client can.
    serde_json::from_value::<ElicitRequestParams>(params).map_err(|e| AskError::Failed {
        asking: Asking::Elicitation,
        reason: format!(
            "the form's schema is not an MCP elicitation schema (an object of flat string, \
             number, integer, boolean and enum properties): {e}"
        ),
    })
}

/// The user's answer, from the client's `ElicitResult`.
pub(super) fn form_answer(result: ElicitResult) -> FormAnswer {
    let action = match result.action {
        ElicitationAction::Accept => FormAction::Accept,
        ElicitationAction::Decline => FormAction::Decline,
        // An action MCP may add later is no accept: fail closed.
        _ => FormAction::Cancel,
    };
    let content = match result.content {
        Some(Value::Object(content)) => Some(content),
        _ => None,
    };
    FormAnswer { action, content }
}

/// `sampling` as MCP's `sampling/createMessage` parameters.
pub(super) fn sampling_params(sampling: &Sampling) -> Result<CreateMessageRequestParams, AskError> {
    let messages: Vec<Value> = sampling
        .messages
        .iter()
        .map(|message| {
            let role = match message.role {
                Role::User => "user",
                Role::Assistant => "assistant",
            };
            json!({ "role": role, "content": { "type": "text", "text": message.text } })
        })
        .collect();
    let mut params = json!({ "messages": messages, "maxTokens": sampling.max_tokens });
    if let Some(system) = &sampling.system_prompt {
        params["systemPrompt"] = Value::String(system.clone());
    }
    serde_json::from_value::<CreateMessageRequestParams>(params).map_err(|e| AskError::Failed {
        asking: Asking::Sampling,
        reason: format!("the sampling request does not parse as MCP's: {e}"),
    })
}

/// The model's answer, from the client's `CreateMessageResult`.
pub(super) fn sampled(result: CreateMessageResult) -> Sampled {
    let written = serde_json::to_value(&result).unwrap_or(Value::Null);
    let content = written.get("content").cloned().unwrap_or(Value::Null);
    Sampled {
        model: result.model,
        text: text_of(&content),
        content,
        stop_reason: result.stop_reason,
    }
}

/// The client's roots, from its `ListRootsResult`.
pub(super) fn roots_of(result: ListRootsResult) -> Vec<Root> {
    result
        .roots
        .into_iter()
        .map(|root| Root {
            uri: root.uri,
            name: root.name,
        })
        .collect()
}

/// The text parts of a sampling answer's content (one block or a list), joined; `None`
/// when it has none.
fn text_of(content: &Value) -> Option<String> {
    let blocks = match content {
        Value::Array(blocks) => blocks.iter().collect(),
        block => vec![block],
    };
    let texts: Vec<&str> = blocks
        .into_iter()
        .filter(|block| block.get("type").and_then(Value::as_str) == Some("text"))
        .filter_map(|block| block.get("text").and_then(Value::as_str))
        .collect();
    (!texts.is_empty()).then(|| texts.concat())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_sampling_answers_text_parts_are_joined_and_an_answer_without_text_has_none() {
        let one = json!({"type": "text", "text": "three unread"});
        assert_eq!(text_of(&one).as_deref(), Some("three unread"));
        let many = json!([
            {"type": "text", "text": "three "},
            {"type": "image", "data": "", "mimeType": "image/png"},
            {"type": "text", "text": "unread"},
        ]);
        assert_eq!(text_of(&many).as_deref(), Some("three unread"));
        let image = json!({"type": "image", "data": "", "mimeType": "image/png"});
        assert_eq!(text_of(&image), None);
    }
}
