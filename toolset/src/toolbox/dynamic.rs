//! A tool defined at run time: [`DynamicTool`], the builder a host fills in from its
//! configuration (or a proxy from what another server lists), and the handler shape it
//! takes: stateless (`(Value, &ToolContext)`), or borrowing the per-run state (`&S` with
//! [`DynamicTool::reads_state`], `&mut S` with [`DynamicTool::writes_state`]).
//! Registration ([`super::register`]) checks it before it joins a toolbox.

use crate::context::ToolContext;
use crate::error::ToolError;
use crate::output::{IntoToolOutput, ToolOutput};
use crate::set::Access;
use crate::spec::Labels;
use crate::tier::Tier;
use futures_util::future::BoxFuture;
use serde_json::Value;
use std::any::{Any, TypeId};
use std::fmt;
use std::future::Future;
use std::marker::PhantomData;
use std::sync::Arc;

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

/// The one-lifetime form of a handler reading the per-run state `S`
/// ([`DynamicTool::reads_state`]): `async fn(serde_json::Value, &S, &ToolContext) -> R`, or a
/// closure whose future owns what it uses (read what it needs from the state before its
/// `async move`).
pub trait ReadStateFn<'a, S: 'static>: Send + Sync + 'static {
    /// The handler's future for a state and a context borrowed for `'a`.
    type Future: Future<Output = Self::Output> + Send + 'a;
    /// What the handler returns.
    type Output: IntoToolOutput;
    /// Starts the call.
    fn start(&self, args: Value, state: &'a S, ctx: &'a ToolContext) -> Self::Future;
}

impl<'a, S, F, Fut> ReadStateFn<'a, S> for F
where
    S: 'static,
    F: Fn(Value, &'a S, &'a ToolContext) -> Fut + Send + Sync + 'static,
    Fut: Future + Send + 'a,
    Fut::Output: IntoToolOutput,
{
    type Future = Fut;
    type Output = Fut::Output;
    fn start(&self, args: Value, state: &'a S, ctx: &'a ToolContext) -> Fut {
        self(args, state, ctx)
    }
}

/// The one-lifetime form of a handler writing the per-run state `S`
/// ([`DynamicTool::writes_state`]): `async fn(serde_json::Value, &mut S, &ToolContext) -> R`,
/// or a closure whose future owns what it uses.
pub trait WriteStateFn<'a, S: 'static>: Send + Sync + 'static {
    /// The handler's future for a state and a context borrowed for `'a`.
    type Future: Future<Output = Self::Output> + Send + 'a;
    /// What the handler returns.
    type Output: IntoToolOutput;
    /// Starts the call.
    fn start(&self, args: Value, state: &'a mut S, ctx: &'a ToolContext) -> Self::Future;
}

impl<'a, S, F, Fut> WriteStateFn<'a, S> for F
where
    S: 'static,
    F: Fn(Value, &'a mut S, &'a ToolContext) -> Fut + Send + Sync + 'static,
    Fut: Future + Send + 'a,
    Fut::Output: IntoToolOutput,
{
    type Future = Fut;
    type Output = Fut::Output;
    fn start(&self, args: Value, state: &'a mut S, ctx: &'a ToolContext) -> Fut {
        self(args, state, ctx)
    }
}

/// A handler of a runtime tool that borrows the per-run state `S`, behind one object type.
trait StateHandler<S>: Send + Sync + 'static {
    /// Runs one call with the state as apply granted it; a writing handler granted only
    /// shared access fails (apply takes the state alone for every tier but `read_only`, and
    /// registration refuses a `read_only` tool writing it, so this is a second lock).
    fn call<'a>(
        &'a self,
        args: Value,
        state: Access<'a, S>,
        ctx: &'a ToolContext,
    ) -> BoxFuture<'a, Result<ToolOutput, ToolError>>;
}

/// A [`ReadStateFn`] for every lifetime.
struct ReadHandler<F, S>(F, PhantomData<fn(&S)>);

impl<S, F> StateHandler<S> for ReadHandler<F, S>
where
    S: Send + Sync + 'static,
    F: for<'a> ReadStateFn<'a, S>,
{
    fn call<'a>(
        &'a self,
        args: Value,
        state: Access<'a, S>,
        ctx: &'a ToolContext,
    ) -> BoxFuture<'a, Result<ToolOutput, ToolError>> {
        let future = self.0.start(args, state.shared(), ctx);
        Box::pin(async move { future.await.into_tool_output() })
    }
}

/// A [`WriteStateFn`] for every lifetime.
struct WriteHandler<F, S>(F, PhantomData<fn(&mut S)>);

impl<S, F> StateHandler<S> for WriteHandler<F, S>
where
    S: Send + Sync + 'static,
    F: for<'a> WriteStateFn<'a, S>,
{
    fn call<'a>(
        &'a self,
        args: Value,
        state: Access<'a, S>,
        ctx: &'a ToolContext,
    ) -> BoxFuture<'a, Result<ToolOutput, ToolError>> {
        match state.exclusive() {
            Some(state) => {
                let future = self.0.start(args, state, ctx);
                Box::pin(async move { future.await.into_tool_output() })
            }
            None => Box::pin(std::future::ready(Err(ToolError::failed(
                "the call was not run: it writes the state, and only shared access was granted",
            )))),
        }
    }
}

/// What a runtime tool's handler takes besides its arguments and context.
#[derive(Clone)]
pub(crate) enum Handler {
    /// Nothing: `(Value, &ToolContext)`.
    Stateless(Arc<dyn DynamicHandler>),
    /// The per-run state, of one type.
    Stateful(StatefulHandler),
}

/// A handler borrowing the per-run state, its type erased so that one [`DynamicTool`] type
/// holds every kind of handler; registration compares [`state`](Self::state) with the
/// toolbox's state type, and apply gets the typed handler back with
/// [`handler`](Self::handler).
#[derive(Clone)]
pub(crate) struct StatefulHandler {
    /// The state type the handler borrows.
    pub(crate) state: TypeId,
    /// Its name, for registration's messages.
    pub(crate) state_name: &'static str,
    /// Whether it takes `&mut S` (else `&S`).
    pub(crate) writes: bool,
    /// A `Box<dyn StateHandler<S>>`.
    erased: Arc<dyn Any + Send + Sync>,
}

impl StatefulHandler {
    fn new<S: Send + Sync + 'static>(writes: bool, handler: Box<dyn StateHandler<S>>) -> Self {
        StatefulHandler {
            state: TypeId::of::<S>(),
            state_name: std::any::type_name::<S>(),
            writes,
            erased: Arc::new(handler),
        }
    }

    /// Runs one call with `state`; a failure when the handler borrows another state type
    /// (registration refuses that, so this is a second lock).
    pub(crate) fn call<'a, S: Send + Sync + 'static>(
        &'a self,
        args: Value,
        state: Access<'a, S>,
        ctx: &'a ToolContext,
    ) -> BoxFuture<'a, Result<ToolOutput, ToolError>> {
        match self.erased.downcast_ref::<Box<dyn StateHandler<S>>>() {
            Some(handler) => handler.call(args, state, ctx),
            None => Box::pin(std::future::ready(Err(ToolError::failed(format!(
                "the call was not run: its handler borrows the state `{}`, not `{}`",
                self.state_name,
                std::any::type_name::<S>()
            ))))),
        }
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
    pub(crate) examples: Vec<Value>,
    pub(crate) timeout_ms: Option<u64>,
    pub(crate) deferred: bool,
    pub(crate) late_result: bool,
    pub(crate) idempotent: bool,
    pub(crate) propose_only: bool,
    pub(crate) labels: Labels,
    pub(crate) preview: Option<PreviewFn>,
    pub(crate) handler: Option<Handler>,
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
            examples: Vec::new(),
            timeout_ms: None,
            deferred: false,
            late_result: false,
            idempotent: false,
            propose_only: false,
            labels: Labels::NONE,
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

    /// Example arguments, as a model would send them (call it once per example): rendered
    /// as Anthropic's `input_examples`, as `#[tool(example = ...)]` is for a compiled tool.
    /// Registration checks each as the gate checks a call (a JSON object the input schema
    /// accepts) and refuses the tool for one it would refuse.
    pub fn example(mut self, arguments: Value) -> Self {
        self.examples.push(arguments);
        self
    }

    /// A human-readable title.
    pub fn title(mut self, title: impl Into<String>) -> Self {
        self.title = Some(title.into());
        self
    }

    /// The per-call time limit in milliseconds, as `#[tool(timeout_ms = ..)]`; registration
    /// refuses 0.
    pub fn timeout_ms(mut self, millis: u64) -> Self {
        self.timeout_ms = Some(millis);
        self
    }

    /// Leaves the tool out of the default list, to be found by tool search, as
    /// `#[tool(deferred)]`: a request offers it, and its gate lets calls to it through,
    /// once the conversation's [`Activations`](crate::request::Activations) hold it. A policy can
    /// defer a tool too ([`Policy::defer`](crate::Policy::defer)); neither can un-defer it.
    pub fn deferred(mut self) -> Self {
        self.deferred = true;
        self
    }

    /// The tool's result may come after the model's turn, as `#[tool(late_result)]`: OpenAI
    /// Responses renders it `"async": true`, so the model goes on without waiting, and a
    /// call withheld for a human gets no placeholder answer: its one
    /// `function_call_output` is sent when the human decided. Any tier may have it (a call
    /// waiting for a human fits it best). Every other format renders the tool as usual.
    pub fn late_result(mut self) -> Self {
        self.late_result = true;
        self
    }

    /// Calling the tool twice with the same arguments has the effect of once.
    pub fn idempotent(mut self) -> Self {
        self.idempotent = true;
        self
    }

    /// The tool returns the user's private data (as `#[tool(reads = "private")]`): a run
    /// that called it has read private data ([`Exposure`](crate::run::Exposure)).
    pub fn reads_private(mut self) -> Self {
        self.labels = self.labels.reading_private();
        self
    }

    /// The tool returns content others wrote: web pages, emails, issues (as
    /// `#[tool(reads = "untrusted")]`).
    pub fn reads_untrusted(mut self) -> Self {
        self.labels = self.labels.reading_untrusted();
        self
    }

    /// The tool can move data out of the user's control: email, HTTP, a public comment
    /// (as `#[tool(sends = "outside")]`). In a run that has read private and untrusted
    /// content, the gate holds its calls back ([`Trifecta`](crate::policy::Trifecta)).
    pub fn sends_outside(mut self) -> Self {
        self.labels = self.labels.sending_outside();
        self
    }

    /// All the tool's labels at once, replacing any given before.
    pub fn labels(mut self, labels: Labels) -> Self {
        self.labels = labels;
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
    /// [`DynamicHandler`]). It takes no state; see [`reads_state`](Self::reads_state) and
    /// [`writes_state`](Self::writes_state) for one that does. The last handler given wins.
    pub fn handler<F>(mut self, handler: F) -> Self
    where
        F: for<'a> HandlerFn<'a>,
    {
        self.handler = Some(Handler::Stateless(Arc::new(FnHandler(handler))));
        self
    }

    /// The handler, already boxed (what a proxy of another server installs).
    pub fn boxed_handler(mut self, handler: Arc<dyn DynamicHandler>) -> Self {
        self.handler = Some(Handler::Stateless(handler));
        self
    }

    /// A handler reading the per-run state: `async fn(serde_json::Value, &S,
    /// &ToolContext) -> R`, given `&S` by apply, as a compiled tool's `&S` parameter is.
    /// With the `read_only` tier its calls run together with the other read-only calls
    /// of the plan, compiled or runtime, sharing the state.
    ///
    /// `S` must be the state of the toolbox's set (`toolset! { .. }`'s state type):
    /// [`Toolbox::with`](crate::Toolbox::with) refuses the tool otherwise. That is a
    /// registration error rather than a type error because a `DynamicTool` is one type
    /// whatever its handler takes, so stateless, stateful and proxied tools go in one
    /// `with_all` list built from configuration.
    pub fn reads_state<S, F>(mut self, handler: F) -> Self
    where
        S: Send + Sync + 'static,
        F: for<'a> ReadStateFn<'a, S>,
    {
        let handler: Box<dyn StateHandler<S>> = Box::new(ReadHandler(handler, PhantomData));
        self.handler = Some(Handler::Stateful(StatefulHandler::new(false, handler)));
        self
    }

    /// A handler writing the per-run state: `async fn(serde_json::Value, &mut S,
    /// &ToolContext) -> R`, given `&mut S` by apply, alone, as a compiled writing tool is.
    ///
    /// As for a compiled tool, a `read_only` tool may not take `&mut S` (read-only calls run
    /// together, sharing the state): the tier is a run-time value here, so
    /// [`Toolbox::with`](crate::Toolbox::with) refuses a `read_only` tool with this handler,
    /// as it refuses one whose `S` is not the toolbox's state type.
    pub fn writes_state<S, F>(mut self, handler: F) -> Self
    where
        S: Send + Sync + 'static,
        F: for<'a> WriteStateFn<'a, S>,
    {
        let handler: Box<dyn StateHandler<S>> = Box::new(WriteHandler(handler, PhantomData));
        self.handler = Some(Handler::Stateful(StatefulHandler::new(true, handler)));
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
