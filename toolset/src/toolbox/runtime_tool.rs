//! [`RuntimeTool`]: one registered runtime tool, a leaf the gate, the plan, proposals and
//! apply import without importing the toolbox (which gates and applies through them).

use super::dynamic::{Handler, PreviewFn};
use crate::consumer::Format;
use crate::consumer::list::Fragment;
use crate::consumer::listing::Nested;
use crate::consumer::openai_responses::namespace::{inner_tool_as, open};
use crate::context::ToolContext;
use crate::error::ToolError;
use crate::output::ToolOutput;
use crate::set::Access;
use crate::spec::ToolSpec;
use crate::trace::ToolType;
use futures_util::future::BoxFuture;
use serde_json::Value;
use std::fmt;
use std::sync::{Arc, OnceLock};

/// The namespace a runtime tool belongs to (an MCP server's tools, `McpTools`): its label,
/// whose `label_` starts every one of its tools' names, and the description a format with
/// namespaces (OpenAI Responses) shows the model once for all of them.
#[derive(Debug)]
pub(crate) struct Namespace {
    label: String,
    description: String,
    /// The bytes opening its entry in OpenAI Responses, rendered once.
    open: OnceLock<Box<str>>,
}

impl Namespace {
    /// The namespace `label`, described by `description`.
    #[cfg(feature = "mcp-client")]
    pub(crate) fn new(label: String, description: String) -> Self {
        Namespace {
            label,
            description,
            open: OnceLock::new(),
        }
    }

    /// Its label, `[a-z0-9]+`.
    pub(crate) fn label(&self) -> &str {
        &self.label
    }

    /// What the model is told of it as a whole.
    pub(crate) fn description(&self) -> &str {
        &self.description
    }

    /// The bytes opening its OpenAI Responses entry, up to the first of its tools.
    pub(crate) fn open(&self) -> &str {
        self.open
            .get_or_init(|| open(&self.label, &self.description).into_boxed_str())
    }
}

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
    /// The namespace it belongs to, if any (a proxied MCP tool's).
    namespace: Option<Arc<Namespace>>,
    /// Its OpenAI Responses function inside its namespace (named without `label_`), once
    /// in each form: without `strict`, then strict.
    inner: [OnceLock<Box<str>>; 2],
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
            namespace: None,
            inner: [const { OnceLock::new() }; 2],
        }
    }

    /// This tool as one of the namespace `namespace`'s (its name starts with `label_`).
    #[cfg(feature = "mcp-client")]
    pub(crate) fn in_namespace(mut self, namespace: Arc<Namespace>) -> Self {
        self.namespace = Some(namespace);
        self
    }

    /// The label of the namespace the tool belongs to (the MCP server it is proxied from,
    /// `McpTools`), or `None` for a tool added on its own.
    /// Its name is then `label_` followed by its name inside the namespace, which is what
    /// OpenAI Responses lists inside the namespace's entry.
    pub fn namespace(&self) -> Option<&str> {
        self.namespace.as_deref().map(Namespace::label)
    }

    /// The namespace the tool belongs to, if any.
    pub(crate) fn namespace_of(&self) -> Option<&Arc<Namespace>> {
        self.namespace.as_ref()
    }

    /// The tool as an entry of its namespace's OpenAI Responses `tools` (its name without
    /// `label_`), rendered once in each form: strict where its Responses fragment is and
    /// the request's budget lets it `keep` that, else without `strict`. The flat fragment,
    /// in the same form, for a tool in no namespace.
    pub(crate) fn inner_fragment(&self, keep: bool) -> &str {
        let fragment = self.fragment(Format::OpenAiResponses);
        let Some(namespace) = &self.namespace else {
            return fragment.as_listed(&self.spec, Format::OpenAiResponses, keep);
        };
        let strict = keep && fragment.strict().is_some();
        self.inner[usize::from(strict)].get_or_init(|| {
            inner_tool_as(&self.spec, namespace.label(), strict)
                .to_string()
                .into_boxed_str()
        })
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

// What a request's list reads of a tool of a namespace (`consumer/listing.rs`); the request
// hands a tool over as one only when it has a namespace.
impl Nested for RuntimeTool {
    fn label(&self) -> &str {
        self.namespace.as_deref().map_or("", Namespace::label)
    }

    fn open(&self) -> &str {
        self.namespace.as_deref().map_or("", Namespace::open)
    }

    fn inner(&self, keep: bool) -> &str {
        self.inner_fragment(keep)
    }
}

impl fmt::Debug for RuntimeTool {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_tuple("RuntimeTool").field(&self.spec).finish()
    }
}
