//! A tool defined at run time: [`DynamicTool`], the builder a host fills in from its
//! configuration (or a proxy from what another server lists), and the handler shape it
//! takes. Registration ([`super::register`]) checks it before it joins a toolbox.

use crate::{IntoToolOutput, Tier, ToolContext, ToolError, ToolOutput};
use futures_util::future::BoxFuture;
use serde_json::Value;
use std::fmt;
use std::future::Future;
use std::sync::Arc;
use std::time::Duration;

/// The handler of a runtime tool: an async function of the JSON arguments (already
/// validated against the tool's input schema) and the call's context.
///
/// Implemented for every `async fn(serde_json::Value, &ToolContext) -> R` and every
/// closure `|args: serde_json::Value, ctx: &ToolContext| async move { .. }` whose future
/// owns what it uses (clone from `ctx` what the future needs), where `R` is anything a
/// `#[tool]` handler may return (`Result<ToolOutput, ToolError>`, `String`, `Json<T>`, ..).
pub trait DynamicHandler: Send + Sync + 'static {
    /// Runs one call.
    fn call<'a>(
        &'a self,
        args: Value,
        ctx: &'a ToolContext,
    ) -> BoxFuture<'a, Result<ToolOutput, ToolError>>;
}

/// The one-lifetime form of a handler, so that both an `async fn` (whose future borrows
/// the context) and a closure (whose future does not) fit one bound.
pub trait HandlerFn<'a>: Send + Sync + 'static {
    /// The handler's future for a context borrowed for `'a`.
    type Future: Future<Output = Self::Output> + Send + 'a;
    /// What the handler returns.
    type Output: IntoToolOutput;
    /// Starts the call.
    fn start(&self, args: Value, ctx: &'a ToolContext) -> Self::Future;
}

impl<'a, F, Fut> HandlerFn<'a> for F
where
    F: Fn(Value, &'a ToolContext) -> Fut + Send + Sync + 'static,
    Fut: Future + Send + 'a,
    Fut::Output: IntoToolOutput,
{
    type Future = Fut;
    type Output = Fut::Output;
    fn start(&self, args: Value, ctx: &'a ToolContext) -> Fut {
        self(args, ctx)
    }
}

/// A [`HandlerFn`] for every lifetime, boxed behind [`DynamicHandler`].
struct FnHandler<F>(F);

impl<F> DynamicHandler for FnHandler<F>
where
    F: for<'a> HandlerFn<'a>,
{
    fn call<'a>(
        &'a self,
        args: Value,
        ctx: &'a ToolContext,
    ) -> BoxFuture<'a, Result<ToolOutput, ToolError>> {
        let future = self.0.start(args, ctx);
        Box::pin(async move { future.await.into_tool_output() })
    }
}

/// The preview of a runtime tool's proposal, from its JSON arguments.
pub(crate) type PreviewFn = Arc<dyn Fn(&Value) -> Option<String> + Send + Sync>;

/// A tool defined at run time: name, tier, description, input schema and handler, and
/// optionally an output schema, a title, a time limit and a preview.
///
/// Nothing is checked while building; [`Toolbox::with`](crate::Toolbox::with) checks what
/// the compiler checks of a `#[tool]` and reports every problem at once. The tier is an
/// argument of [`new`](Self::new): there is no default, because a forgotten tier must never
/// mean "run it unattended".
///
/// ```
/// use serde_json::{json, Value};
/// use toolset::{DynamicTool, Tier, ToolContext, ToolError, ToolOutput};
///
/// async fn weather(args: Value, _ctx: &ToolContext) -> Result<ToolOutput, ToolError> {
///     let city = args["city"].as_str().unwrap_or_default();
///     Ok(ToolOutput::text(format!("Sunny in {city}.")))
/// }
///
/// let tool = DynamicTool::new("weather", Tier::ReadOnly, "Today's weather for a city.")
///     .input_schema(json!({
///         "type": "object",
///         "properties": {"city": {"type": "string", "description": "The city."}},
///         "required": ["city"],
///         "additionalProperties": false
///     }))
///     .handler(weather);
/// assert_eq!(tool.name(), "weather");
/// ```
pub struct DynamicTool {
    pub(crate) name: String,
    pub(crate) tier: Tier,
    pub(crate) description: String,
    pub(crate) title: Option<String>,
    pub(crate) input_schema: Option<Value>,
    pub(crate) output_schema: Option<Value>,
    pub(crate) timeout: Option<Duration>,
    pub(crate) idempotent: bool,
    pub(crate) propose_only: bool,
    pub(crate) preview: Option<PreviewFn>,
    pub(crate) handler: Option<Arc<dyn DynamicHandler>>,
}

impl DynamicTool {
    /// A tool called `name`, of risk tier `tier`, described to the model by `description`
    /// (its prompt). Without [`input_schema`](Self::input_schema) it takes no arguments.
    pub fn new(name: impl Into<String>, tier: Tier, description: impl Into<String>) -> Self {
        DynamicTool {
            name: name.into(),
            tier,
            description: description.into(),
            title: None,
            input_schema: None,
            output_schema: None,
            timeout: None,
            idempotent: false,
            propose_only: false,
            preview: None,
            handler: None,
        }
    }

    /// The JSON Schema of the arguments: an object schema (`"type": "object"`), checked at
    /// registration against the JSON Schema meta-schema and compiled by the validator the
    /// gate uses on every call.
    pub fn input_schema(mut self, schema: Value) -> Self {
        self.input_schema = Some(schema);
        self
    }

    /// The JSON Schema of the structured result, when the handler returns one.
    pub fn output_schema(mut self, schema: Value) -> Self {
        self.output_schema = Some(schema);
        self
    }

    /// A human-readable title.
    pub fn title(mut self, title: impl Into<String>) -> Self {
        self.title = Some(title.into());
        self
    }

    /// The per-call time limit (whole milliseconds, as `#[tool(timeout_ms = ..)]`).
    pub fn timeout(mut self, limit: Duration) -> Self {
        self.timeout = Some(limit);
        self
    }

    /// Calling the tool twice with the same arguments has the effect of once.
    pub fn idempotent(mut self) -> Self {
        self.idempotent = true;
        self
    }

    /// A tool the agent may only propose (no handler): approving hands its arguments to
    /// the host. Only with a tier that can never run unattended (`irreversible`).
    pub fn propose_only(mut self) -> Self {
        self.propose_only = true;
        self
    }

    /// The preview shown with a proposal of this tool, from the call's arguments.
    pub fn preview(
        mut self,
        preview: impl Fn(&Value) -> Option<String> + Send + Sync + 'static,
    ) -> Self {
        self.preview = Some(Arc::new(preview));
        self
    }

    /// The handler: `async fn(serde_json::Value, &ToolContext) -> R` (see
    /// [`DynamicHandler`]).
    pub fn handler<F>(mut self, handler: F) -> Self
    where
        F: for<'a> HandlerFn<'a>,
    {
        self.handler = Some(Arc::new(FnHandler(handler)));
        self
    }

    /// The handler, already boxed (what a proxy of another server installs).
    pub fn boxed_handler(mut self, handler: Arc<dyn DynamicHandler>) -> Self {
        self.handler = Some(handler);
        self
    }

    /// The name the model will call the tool by.
    pub fn name(&self) -> &str {
        &self.name
    }

    /// The declared tier.
    pub fn tier(&self) -> Tier {
        self.tier
    }
}

impl fmt::Debug for DynamicTool {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("DynamicTool")
            .field("name", &self.name)
            .field("tier", &self.tier)
            .field("description", &self.description)
            .field("has_handler", &self.handler.is_some())
            .finish_non_exhaustive()
    }
}
