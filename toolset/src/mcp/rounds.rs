//! A handler's asks on 2026-07-28 and later: `input_required` rounds (multi round-trip
//! requests, SEP-2322), where the server may no longer send its client requests.
//!
//! A handler asks as it does on any revision ([`ToolContext::elicit`], `sample`, `roots`).
//! Over a `tools/call` of 2026-07-28 its context's asker is a [`Round`]: an ask the call's
//! earlier rounds answered is answered at once; one they did not is recorded under its key
//! ([`Form::with_key`](crate::context::Form::with_key); by default `"elicitation"`,
//! `"sampling"`, `"roots"`, a repeat suffixed `-2`, `-3`, ...) and stops the handler, as a
//! cancellation does (its journal entry, if any, ends cancelled: nothing is left in doubt).
//! Every ask made in the same poll joins the round, so asks a handler awaits together
//! (`futures::join!`) are one round. The call is answered `input_required`: those requests
//! and a `requestState` holding every answer so far and the keys asked now, sealed with the
//! server's key ([`Rounds`]) for this very call (the set, the tool, the canonical
//! arguments), expiring after the approval timeout.
//!
//! The client retries the call with its `inputResponses` and the state; the handler runs
//! again from its start, and each ask finds its answer by key. So a handler that asks
//! must do nothing it cannot do twice before its last ask. A state that does not open
//! (edited, forged, another call's, another server's, expired) is refused with `-32602`;
//! responses to keys not asked in the last round are ignored; an ask the client did not
//! declare the capability for answers [`AskError::NotDeclared`] and never joins a round,
//! and a handler that fails with that very error (it returned it, with `?`) could not do
//! without the capability: the call is answered `-32021` (MissingRequiredClientCapability,
//! HTTP `400`) naming it in `requiredCapabilities`.
//!
//! [`ToolContext::elicit`]: crate::ToolContext::elicit
#![allow(
    deprecated,
    reason = "rmcp marks sampling and roots deprecated (SEP-2577); 2026-07-28 still asks them by input_required"
)]

use super::ask::{declares, form_answer, form_params, roots_of, sampled, sampling_params};
use super::input_required::binding;
use crate::ask::{AskError, AskFuture, Asker, Asking, Form, FormAnswer, Root, Sampled, Sampling};
use crate::call::ToolCall;
use crate::digest::SealKey;
use crate::set::ToolSet;
use rmcp::ErrorData;
use rmcp::model::{
    ClientCapabilities, CreateMessageRequest, CreateMessageResult, ElicitRequest, ElicitResult,
    ErrorCode, InputRequest, InputRequests, InputRequiredResult, InputResponses, ListRootsRequest,
    ListRootsResult, RequestStateCodec, SealOptions,
};
use serde::{Deserialize, Serialize};
use serde_json::Value;
use std::collections::{BTreeMap, HashMap};
use std::fmt;
use std::sync::Mutex;
use std::time::Duration;
use tokio_util::sync::CancellationToken;

/// What the rounds' `requestState` key is derived for, from the server's [`SealKey`].
const STATE_KEY_PURPOSE: &str = "mcp tools/call handler asks requestState v1";

/// What a round's `requestState` is bound to, before the call (`input_required::binding`):
/// never an approval's.
const ASKS_BINDING: &[u8] = b"toolset tools/call asks\0";

/// The server's key for its rounds' `requestState`: derived from the key of
/// [`McpServer::with_proposal_store`](super::McpServer::with_proposal_store) when it has
/// one (so that replicas sharing it open each other's states), else random per server.
#[derive(Clone)]
pub(super) struct Rounds {
    codec: RequestStateCodec,
}

impl fmt::Debug for Rounds {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Rounds").finish_non_exhaustive()
    }
}

impl Rounds {
    /// Rounds sealed under a key derived from `key`.
    pub(super) fn sealed_with(key: &SealKey) -> Self {
        // 32 bytes derived by HMAC-SHA256: the codec's minimum length.
        Rounds {
            codec: RequestStateCodec::new_unchecked(key.derived(STATE_KEY_PURPOSE)),
        }
    }

    /// Rounds sealed under a random key of this server's own.
    pub(super) fn random() -> Self {
        let secret = crate::digest::random::<32>("a requestState key");
        Rounds {
            codec: RequestStateCodec::new_unchecked(secret.to_vec()),
        }
    }

    /// The round of `call` for a client declaring `capabilities`: its earlier answers
    /// from `state` (opened for this very call) and this retry's `responses` to the keys
    /// asked last; `stop` (the request's child) is cancelled by an ask nobody answered
    /// yet. `Err` when a `state` does not open.
    pub(super) fn round<T: ToolSet>(
        &self,
        call: &ToolCall,
        capabilities: Option<ClientCapabilities>,
        state: Option<&str>,
        responses: Option<&InputResponses>,
        stop: CancellationToken,
    ) -> Result<Round, StateRefused> {
        let mut answers = BTreeMap::new();
        if let Some(state) = state {
            let opened: Sealed = self
                .codec
                .open_json_with(state, &binding::<T>(ASKS_BINDING, call))
                .map_err(|_| StateRefused)?;
            answers = opened.answers;
            for key in opened.asked {
                if let Some(response) = responses.and_then(|responses| responses.get(&key)) {
                    answers.insert(key, response.clone());
                }
            }
        }
        Ok(Round {
            capabilities,
            answers,
            asked: Mutex::default(),
            counts: Mutex::default(),
            stop,
            undeclared: Mutex::default(),
            required: Mutex::default(),
        })
    }

    /// The `input_required` answer of `call` whose handler asked `round`'s new asks:
    /// those requests, and the state holding every answer so far and the keys asked now,
    /// expiring after `limit`. `None` when the handler asked nothing new, or the state
    /// cannot be sealed.
    pub(super) fn input_required<T: ToolSet>(
        &self,
        call: &ToolCall,
        round: &Round,
        limit: Duration,
    ) -> Option<InputRequiredResult> {
        let requests = std::mem::take(&mut *lock(&round.asked));
        if requests.is_empty() {
            return None;
        }
        let sealed = Sealed {
            answers: round.answers.clone(),
            asked: requests.keys().cloned().collect(),
        };
        let options = SealOptions::new().ttl(limit);
        let state = self
            .codec
            .seal_json_with(
                &sealed,
                &options.associated_data(&binding::<T>(ASKS_BINDING, call)),
            )
            .ok()?;
        Some(InputRequiredResult::new(Some(requests), Some(state)))
    }
}

/// A `requestState` that does not open for the call it came with.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) struct StateRefused;

impl fmt::Display for StateRefused {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(
            "requestState does not open for this call: it was altered, belongs to another \
             call or server, or expired; call the tool again without requestState and \
             inputResponses",
        )
    }
}

/// What a round's `requestState` holds.
#[derive(Serialize, Deserialize)]
struct Sealed {
    /// Every answer the call's rounds got, by key.
    answers: BTreeMap<String, Value>,
    /// The keys asked in the round this state answers: the only responses read from the
    /// retry.
    asked: Vec<String>,
}

/// One run of a handler for a `tools/call` of 2026-07-28 or later: the answers it may
/// read, and the asks it makes that nobody answered yet.
pub(super) struct Round {
    capabilities: Option<ClientCapabilities>,
    answers: BTreeMap<String, Value>,
    /// The asks this run made without an answer, by key.
    asked: Mutex<InputRequests>,
    /// How often each key was asked in this run, for the suffix of a repeat.
    counts: Mutex<HashMap<String, usize>>,
    /// Cancelled by an ask without an answer: stops the handler.
    stop: CancellationToken,
    /// The asks refused for a capability the client did not declare, with the text the
    /// handler read of each.
    undeclared: Mutex<Vec<(Asking, String)>>,
    /// The capability the handler could not do without: it failed with the error of an
    /// ask refused for it.
    required: Mutex<Option<Asking>>,
}

impl fmt::Debug for Round {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Round")
            .field("answers", &self.answers.len())
            .finish_non_exhaustive()
    }
}

fn lock<T>(mutex: &Mutex<T>) -> std::sync::MutexGuard<'_, T> {
    mutex
        .lock()
        .unwrap_or_else(std::sync::PoisonError::into_inner)
}

impl Round {
    /// Cancelled when the handler asked what nobody answered yet: its call is to stop
    /// there (the server links the handler's cancellation to it).
    pub(super) fn stop(&self) -> &CancellationToken {
        &self.stop
    }

    /// Reads the handler's failure `message`: when it is the error of an ask refused for
    /// an undeclared capability (the handler returned it, with `?`), the call required
    /// that capability ([`required`](Self::required)).
    pub(super) fn failed(&self, message: &str) {
        let refused = lock(&self.undeclared);
        if let Some((asking, _)) = refused.iter().find(|(_, text)| text == message) {
            *lock(&self.required) = Some(*asking);
        }
    }

    /// The capability the call could not do without, which the client did not declare:
    /// the call is answered `-32021` (MissingRequiredClientCapability) naming it.
    pub(super) fn required(&self) -> Option<Asking> {
        *lock(&self.required)
    }

    /// The key of this run's next ask named `base`: `base`, then `base-2`, `base-3`, ...
    fn key(&self, base: &str) -> String {
        let mut counts = lock(&self.counts);
        let count = counts.entry(base.to_owned()).or_insert(0);
        *count += 1;
        match *count {
            1 => base.to_owned(),
            n => format!("{base}-{n}"),
        }
    }

    /// The answer to the ask `key`, parsed as `R`; or, for an ask not answered yet,
    /// `request` joins the round and the handler stops (this never returns).
    async fn answer<R: serde::de::DeserializeOwned>(
        &self,
        asking: Asking,
        key: String,
        request: impl FnOnce() -> Result<InputRequest, AskError>,
    ) -> Result<R, AskError> {
        if !declares(self.capabilities.as_ref(), asking) {
            let refused = AskError::NotDeclared(asking);
            lock(&self.undeclared).push((asking, refused.to_string()));
            return Err(refused);
        }
        if let Some(answer) = self.answers.get(&key) {
            return serde_json::from_value(answer.clone()).map_err(|error| AskError::Failed {
                asking,
                reason: format!("the client's answer under `{key}` is not MCP's: {error}"),
            });
        }
        lock(&self.asked).insert(key, request()?);
        self.stop.cancel();
        std::future::pending().await
    }
}

impl Asker for Round {
    fn elicit<'a>(&'a self, _call_id: &'a str, form: Form) -> AskFuture<'a, FormAnswer> {
        let key = self.key(form.key.as_deref().unwrap_or("elicitation"));
        Box::pin(async move {
            let request = || {
                let params = form_params(&form)?;
                Ok(InputRequest::Elicitation(ElicitRequest::new(params)))
            };
            let result: ElicitResult = self.answer(Asking::Elicitation, key, request).await?;
            Ok(form_answer(result))
        })
    }

    fn sample<'a>(&'a self, _call_id: &'a str, sampling: Sampling) -> AskFuture<'a, Sampled> {
        let key = self.key(sampling.key.as_deref().unwrap_or("sampling"));
        Box::pin(async move {
            let request = || {
                let params = sampling_params(&sampling)?;
                Ok(InputRequest::CreateMessage(CreateMessageRequest::new(
                    params,
                )))
            };
            let result: CreateMessageResult = self.answer(Asking::Sampling, key, request).await?;
            Ok(sampled(result))
        })
    }

    fn roots<'a>(&'a self, _call_id: &'a str) -> AskFuture<'a, Vec<Root>> {
        let key = self.key("roots");
        Box::pin(async move {
            let request = || Ok(InputRequest::ListRoots(ListRootsRequest::default()));
            let result: ListRootsResult = self.answer(Asking::Roots, key, request).await?;
            Ok(roots_of(result))
        })
    }
}

/// The error answering a call that could not do without `asking`'s capability, which
/// its client did not declare (`-32021`, with `requiredCapabilities` naming it).
pub(super) fn missing_capability(asking: Asking) -> ErrorData {
    let capability = asking.capability();
    ErrorData::new(
        ErrorCode::MISSING_REQUIRED_CLIENT_CAPABILITY,
        format!(
            "the tool needs the client's `{capability}` capability, which this request's \
             io.modelcontextprotocol/clientCapabilities does not declare; declare it and \
             call again"
        ),
        Some(serde_json::json!({ "requiredCapabilities": { capability: {} } })),
    )
}
