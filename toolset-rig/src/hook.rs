//! The agent hook that gates the set's calls: where rig hands a hook what toolset needs.
//!
//! - `on_run_start`: the late results (calls a human approved or declined since) go before
//!   the run's prompt, once.
//! - `on_model_turn_finished`: rig shows the whole accepted turn before it executes any
//!   call, so the turn's calls to the set are one program, handed to the driver, which
//!   gates, proposes, applies with the journal and answers every call id once.
//! - `on_dispatch` / `on_outcome`: as rig dispatches each call, it gets the driver's
//!   answer: a call that did not run is skipped with toolset's words (no rig tool runs), a
//!   call that ran answers with its result.

use crate::answer::{self, Answer};
use crate::{Shared, lock};
use rig_agent::agent::hook::{
    AgentHook, DispatchAction, DispatchEvent, HookContext, ModelTurnAction, ModelTurnFinished,
    OutcomeAction, OutcomeEvent, RunSettled, RunStart, RunStartAction,
};
use rig_core::completion::AssistantContent;
use rig_core::effect::Outcome;
use rig_core::error::{ErrorKind, ErrorReport};
use rig_core::id::RunId;
use rig_core::message::{Message, UserContent};
use std::fmt;
use std::sync::Arc;
use toolset::ToolCall;
use toolset::driver::DriverError;
use toolset::set::ToolSet;
use toolset::store::Store;

/// The hook that gates a set's calls in a rig agent (see the crate's docs). Made by
/// [`RigTools::hook`](crate::RigTools::hook); added with its tools by
/// [`WithToolset::toolset`](crate::WithToolset::toolset).
pub struct ToolsetHook<T: ToolSet, S> {
    shared: Arc<Shared<T, S>>,
}

impl<T: ToolSet, S> fmt::Debug for ToolsetHook<T, S> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("ToolsetHook")
            .field("set", &T::NAME)
            .field("conversation", &self.shared.run)
            .finish_non_exhaustive()
    }
}

impl<T: ToolSet, S> ToolsetHook<T, S> {
    pub(crate) fn new(shared: Arc<Shared<T, S>>) -> Self {
        ToolsetHook { shared }
    }
}

impl<T: ToolSet, S: Store + Send + Sync + 'static> Shared<T, S> {
    /// The late results to put before a run's prompt: those handed over during the last
    /// run, then those the conversation gathers now (marked delivered as they are read).
    fn late_results(&self) -> Result<Vec<String>, DriverError> {
        let mut conversation = self.driver.resume(&self.run)?;
        let next = conversation.next_request()?;
        let mut late = std::mem::take(&mut *lock(&self.late));
        late.extend(follow_ups(&next.messages));
        Ok(late)
    }

    /// Gates, proposes, applies and answers the turn's `calls` as one program; each call's
    /// answer kept for rig's dispatch of it.
    async fn respond(&self, run: RunId, calls: Vec<ToolCall>) -> Result<(), DriverError> {
        let mut conversation = self.driver.resume(&self.run)?;
        // Every request of a conversation is prepared first. What came late in the
        // meantime has no place in a run under way: the next run's prompt carries it.
        let next = conversation.next_request()?;
        lock(&self.late).extend(follow_ups(&next.messages));
        let turn = {
            let mut state = self.state.lock().await;
            conversation
                .respond_calls(calls, &mut state, &self.ctx)
                .await?
        };
        lock(&self.proposals).extend(turn.proposals.iter().cloned());
        let answers = answer::answers(&turn).into_iter();
        lock(&self.answers).extend(answers.map(|(id, answer)| ((run, id), answer)));
        Ok(())
    }

    /// The turn's calls to the set's tools, as toolset reads a call.
    fn calls_in(&self, content: &[AssistantContent]) -> Vec<ToolCall> {
        content
            .iter()
            .filter_map(|part| match part {
                AssistantContent::ToolCall(call) => Some(call),
                _ => None,
            })
            .filter(|call| {
                let name = call.function.name.as_str();
                self.definitions
                    .iter()
                    .any(|definition| definition.name == name)
            })
            .map(|call| {
                // Arguments that are not a JSON object are given as the model sent them:
                // the gate refuses them, naming what is wrong.
                let arguments = match &call.function.invalid_arguments {
                    Some(raw) => raw.clone(),
                    None => call.function.arguments_value().to_string(),
                };
                ToolCall::new(call.id.to_string(), call.function.name.as_str(), arguments)
            })
            .collect()
    }
}

/// The text of the driver's follow-up messages (OpenAI Chat: `{"role": "user", "content"}`).
fn follow_ups(messages: &[serde_json::Value]) -> Vec<String> {
    messages
        .iter()
        .filter_map(|message| message.get("content")?.as_str().map(str::to_owned))
        .collect()
}

/// What a turn the driver could not see through tells rig: the run stops, with the
/// driver's words. Most such errors come before anything ran (another request holds the
/// conversation, a stale copy, a store that cannot be read); a call that ran before a
/// later step failed is in the store's effect journal.
fn stopped(error: &DriverError) -> String {
    format!(
        "toolset could not gate and answer this turn's tool calls, so the run stops ({error}); a call that ran before this is in the store's effect journal"
    )
}

impl<T: ToolSet, S: Store + Send + Sync + 'static> AgentHook for ToolsetHook<T, S> {
    fn name(&self) -> Option<String> {
        Some(format!("toolset-rig:{}", T::NAME))
    }

    async fn on_run_start(&self, _ctx: &HookContext, event: RunStart<'_>) -> RunStartAction {
        match self.shared.late_results() {
            Ok(late) if late.is_empty() => RunStartAction::Continue,
            Ok(late) => match event.prompt {
                Message::User { content: prompt } => {
                    let mut content: Vec<UserContent> =
                        late.into_iter().map(UserContent::text).collect();
                    content.extend(prompt.iter().cloned());
                    RunStartAction::Rewrite(Message::User { content })
                }
                // Only a user prompt can carry them: kept for the next run's.
                _ => {
                    lock(&self.shared.late).splice(0..0, late);
                    RunStartAction::Continue
                }
            },
            Err(error) => RunStartAction::Stop(format!(
                "toolset could not gather the late tool results: {error}"
            )),
        }
    }

    async fn on_model_turn_finished(
        &self,
        ctx: &HookContext,
        event: ModelTurnFinished<'_>,
    ) -> ModelTurnAction {
        let calls = self.shared.calls_in(event.content);
        if calls.is_empty() {
            return ModelTurnAction::Continue;
        }
        match self.shared.respond(ctx.run_id(), calls).await {
            Ok(()) => ModelTurnAction::Continue,
            Err(error) => ModelTurnAction::Stop(stopped(&error)),
        }
    }

    async fn on_dispatch(&self, ctx: &HookContext, event: DispatchEvent<'_>) -> DispatchAction {
        let Some(call_id) = event.call_id else {
            return DispatchAction::Proceed;
        };
        match lock(&self.shared.answers).get(&(ctx.run_id(), call_id.to_string())) {
            // Nothing ran and nothing may: rig skips the call, the model reads why.
            Some(Answer::NotRun(text)) => {
                DispatchAction::Deny(ErrorReport::new(ErrorKind::Denied, text.clone()))
            }
            Some(Answer::Ran(_)) | None => DispatchAction::Proceed,
        }
    }

    async fn on_outcome(&self, ctx: &HookContext, event: OutcomeEvent<'_>) -> OutcomeAction {
        let Some(call_id) = event.call_id else {
            return OutcomeAction::Proceed;
        };
        match lock(&self.shared.answers).remove(&(ctx.run_id(), call_id.to_string())) {
            Some(Answer::Ran(result)) => OutcomeAction::Replace(Ok(Outcome::ToolResult { result })),
            // A skipped call already carries its words; a call no hook decided keeps the
            // tool's own answer, that it was not gated.
            Some(Answer::NotRun(_)) | None => OutcomeAction::Proceed,
        }
    }

    async fn on_run_settled(&self, ctx: &HookContext, _event: RunSettled<'_>) {
        // What the run left undispatched (a call rig answered itself, as one whose
        // arguments are not an object; a run that stopped) is answered by nobody now.
        let run = ctx.run_id();
        lock(&self.shared.answers).retain(|(of, _), _| *of != run);
    }
}
