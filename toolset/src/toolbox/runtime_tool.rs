//! [`RuntimeTool`]: one registered runtime tool, a leaf the gate, the plan, proposals and
//! apply import without importing the toolbox (which gates and applies through them).

use super::dynamic::{Handler, PreviewFn};
use crate::consumer::Format;
use crate::consumer::list::Fragment;
use crate::set::Access;
use crate::trace::ToolType;
use crate::{ToolContext, ToolError, ToolOutput, ToolSpec};
use futures_util::future::BoxFuture;
use serde_json::Value;
use std::fmt;
use std::sync::OnceLock;

/// A registered runtime tool: its checked spec, its handler, and its fragments rendered
/// once per format (so composing a toolbox's list does no schema work, as for a set).
pub struct RuntimeTool {
    spec: ToolSpec,
    handler: Option<Handler>,
    preview: Option<PreviewFn>,
    fragments: [OnceLock<Fragment>; Format::ALL.len()],
    /// What its `execute_tool` span calls it: a `function` run here, or an `extension`
    /// another server runs (a proxied MCP tool).
    tool_type: ToolType,
}

impl RuntimeTool {
    pub(super) fn new(
        spec: ToolSpec,
        handler: Option<Handler>,
        preview: Option<PreviewFn>,
    ) -> Self {
        RuntimeTool {
            spec,
            handler,
            preview,
            fragments: [const { OnceLock::new() }; Format::ALL.len()],
            tool_type: ToolType::Function,
        }
    }

    /// This tool as one another MCP server runs: its calls are `extension` spans.
    #[cfg(feature = "mcp-client")]
    pub(crate) fn proxied(mut self) -> Self {
        self.tool_type = ToolType::Extension;
        self
    }

    /// What its `execute_tool` span calls it (`gen_ai.tool.type`).
    pub(crate) fn tool_type(&self) -> ToolType {
        self.tool_type
    }

    /// The tool's spec: what renderers, the gate and apply read.
    pub fn spec(&self) -> &ToolSpec {
        &self.spec
    }

    /// The tool rendered for `format`, once, with its strict cost.
    pub(crate) fn fragment(&self, format: Format) -> &Fragment {
        self.fragments[format.index()].get_or_init(|| Fragment::render(&self.spec, format))
    }

    /// The preview of a proposal with these (validated) arguments.
    pub(crate) fn preview(&self, args: &Value) -> Option<String> {
        self.preview.as_ref().and_then(|preview| preview(args))
    }

    /// Whether the handler borrows the per-run state (apply takes it for the call as for a
    /// compiled tool's: shared for a `read_only` tool, alone otherwise).
    pub(crate) fn takes_state(&self) -> bool {
        matches!(self.handler, Some(Handler::Stateful(_)))
    }

    /// Starts one call of the handler, with the state apply took for it (`None` when it
    /// took none). A propose-only tool has no handler; apply refuses its calls before
    /// this (see `apply::refusal`), so this failing is a second lock, as is a stateful
    /// handler given no state.
    pub(crate) fn run<'a, S: Send + Sync + 'static>(
        &'a self,
        args: Value,
        state: Option<Access<'a, S>>,
        ctx: &'a ToolContext,
    ) -> BoxFuture<'a, Result<ToolOutput, ToolError>> {
        match (&self.handler, state) {
            (Some(Handler::Stateless(handler)), _) => handler.call(args, ctx),
            (Some(Handler::Stateful(handler)), Some(state)) => handler.call(args, state, ctx),
            (Some(Handler::Stateful(_)), None) => Box::pin(std::future::ready(Err(
                ToolError::failed(crate::messages::state_not_taken(self.spec.name())),
            ))),
            (None, _) => Box::pin(async {
                Err(ToolError::failed(crate::messages::refused_propose_only(
                    self.spec.name(),
                )))
            }),
        }
    }
}

impl fmt::Debug for RuntimeTool {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_tuple("RuntimeTool").field(&self.spec).finish()
    }
}
