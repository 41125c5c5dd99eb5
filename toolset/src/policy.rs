//! A per-request policy: it can only tighten what the set declares.

use crate::set::{ToolName, ToolSet};
use crate::spec::ToolSpec;
use crate::tier::{Autonomy, Tier};
use std::fmt;
use std::marker::PhantomData;

/// Per-request restrictions on a set: lower autonomy, denied, hidden and deferred tools.
///
/// A fresh policy allocates nothing: the per-tool flags are only stored once a tool is
/// denied, hidden or deferred, so the plain `Set::gate` pays nothing per tool.
///
/// Every method names a tool the same way ([`ToolKey`]): the set's tools through its
/// generated name enum (`InboxToolsName::Search`), so a policy naming a tool the set does
/// not contain does not compile, and any tool by its name (`"hub_calendar_delete"`, a
/// toolbox's runtime tool), checked when the toolbox joins a request: a name no tool has
/// is an error there.
/// Every method but the code rule's can only restrict: there is no way to raise autonomy
/// above the starting level, un-deny a tool, or change a tool's declared tier.
///
/// What the model's code may call (programmatic tool calling) is a rule of its own, with
/// a fail-closed default the policy may widen or narrow: read-only tools
/// ([`from_code`](Self::from_code), [`allow_from_code`](Self::allow_from_code),
/// [`direct_only`](Self::direct_only); [`allows_from_code`](Self::allows_from_code) is
/// the one rule), and never an irreversible tool, which no method can express.
pub struct Policy<T: ToolSet> {
    autonomy: Autonomy,
    /// Each rule's tools, of either kind ([`Named`]). Denied tools.
    denied: Named,
    /// Hidden tools.
    hidden: Named,
    /// Tools deferred by this policy, on top of those declared `deferred`.
    deferred: Named,
    /// The tiers the model's code may call (see [`FromCode`]).
    from_code: FromCode,
    /// Tools code may call above that ceiling ([`allow_from_code`](Policy::allow_from_code);
    /// never an irreversible one).
    code_allowed: Named,
    /// Tools code may never call ([`direct_only`](Policy::direct_only)); wins over the
    /// ceiling and `code_allowed`.
    direct_only: Named,
    /// What the gate does with a call that sends outside in a run exposed to private and
    /// untrusted content ([`Trifecta`]).
    trifecta: Trifecta,
    /// Tools the trifecta rule does not hold back ([`allow_sending`](Policy::allow_sending)).
    sending_allowed: Named,
    set: PhantomData<fn() -> T>,
}

/// What the gate does with a call to a tool that sends outside
/// ([`Labels::sends_outside`](crate::Labels::sends_outside)) in a run that has read
/// both the user's private data and untrusted content (the lethal trifecta: see
/// [`Exposure`](crate::run::Exposure)). Whatever it is, such a call never runs unattended.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub enum Trifecta {
    /// The call becomes a proposal, whatever the autonomy, its reason (what the run read,
    /// from which tools) shown to the human. The default.
    #[default]
    Escalate,
    /// The call is refused, the model told why; and a proposal of it (made for its tier
    /// before the run read both kinds, or under a policy that escalated then) cannot be
    /// approved under a request whose exposure has both: the policy's refusal is not a
    /// human's to lift.
    Deny,
}

/// A tool a [`Policy`] (or the MCP server's settings) names: one of the set's, by its typed
/// name (`InboxToolsName::Send`, checked by the compiler), or any tool by the name the model
/// sees (`"calendar_delete"`, a toolbox's runtime tool: a [`DynamicTool`](crate::DynamicTool)'s
/// or a namespace's `label_tool`). A name that is one of the set's tools names that tool.
///
/// A name that is not the set's is checked when a toolbox joins a request
/// ([`Request::toolbox`](crate::request::Request::toolbox)): a name no runtime tool has is an error
/// there ([`PolicyNameError`]), since a misspelled name would leave the tool it meant
/// unrestricted. A request no toolbox joins (`Set::gate_with`, `Request::new` alone) has
/// no runtime tools: there such names restrict nothing, and nothing of a toolbox runs.
pub enum ToolKey<T: ToolSet> {
    /// One of the set's tools.
    Set(T::Name),
    /// A tool by the name the model sees, not one of the set's.
    Named(String),
}

impl<T: ToolSet> ToolKey<T> {
    /// The key of the tool called `name`: the set's tool when it has one of that name.
    pub fn named(name: impl AsRef<str> + Into<String>) -> Self {
        match T::Name::from_name(name.as_ref()) {
            Some(tool) => ToolKey::Set(tool),
            None => ToolKey::Named(name.into()),
        }
    }

    /// The name the model sees.
    pub fn name(&self) -> &str {
        match self {
            ToolKey::Set(tool) => tool.as_str(),
            ToolKey::Named(name) => name,
        }
    }
}

impl<T: ToolSet> Clone for ToolKey<T> {
    fn clone(&self) -> Self {
        match self {
            ToolKey::Set(tool) => ToolKey::Set(*tool),
            ToolKey::Named(name) => ToolKey::Named(name.clone()),
        }
    }
}

impl<T: ToolSet> PartialEq for ToolKey<T> {
    fn eq(&self, other: &Self) -> bool {
        match (self, other) {
            (ToolKey::Set(one), ToolKey::Set(other)) => one == other,
            (ToolKey::Named(one), ToolKey::Named(other)) => one == other,
            _ => false,
        }
    }
}

impl<T: ToolSet> Eq for ToolKey<T> {}

impl<T: ToolSet> fmt::Debug for ToolKey<T> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

/// What names a tool for a [`Policy`]: the set's typed name, a [`ToolKey`], or a name as a
/// `&str` or `String` (see [`ToolKey`]). Implemented for every set's name enum.
pub trait IntoToolKey<T: ToolSet> {
    /// The key this names.
    fn into_tool_key(self) -> ToolKey<T>;
}

impl<N: ToolName, T: ToolSet<Name = N>> IntoToolKey<T> for N {
    fn into_tool_key(self) -> ToolKey<T> {
        ToolKey::Set(self)
    }
}

impl<T: ToolSet> IntoToolKey<T> for ToolKey<T> {
    fn into_tool_key(self) -> ToolKey<T> {
        self
    }
}

impl<T: ToolSet> IntoToolKey<T> for &str {
    fn into_tool_key(self) -> ToolKey<T> {
        ToolKey::named(self)
    }
}

impl<T: ToolSet> IntoToolKey<T> for String {
    fn into_tool_key(self) -> ToolKey<T> {
        ToolKey::named(self)
    }
}

impl<T: ToolSet> IntoToolKey<T> for &String {
    fn into_tool_key(self) -> ToolKey<T> {
        ToolKey::named(self.as_str())
    }
}

/// The tools one rule of a policy names, of either kind: the set's by index (flags
/// allocated at the first one named, so a fresh policy allocates nothing), and a
/// toolbox's runtime tools by name (they have no typed name: a name here is checked when
/// the toolbox joins a request, not by the compiler).
#[derive(Debug, Clone, Default)]
struct Named {
    flags: Vec<bool>,
    names: Vec<String>,
}

impl Named {
    /// Adds `tool`, once.
    fn add<T: ToolSet>(&mut self, tool: impl IntoToolKey<T>) {
        match tool.into_tool_key() {
            ToolKey::Set(tool) => {
                if self.flags.is_empty() {
                    self.flags.resize(T::specs().len(), false);
                }
                self.flags[tool.index()] = true;
            }
            ToolKey::Named(name) => self.add_name(name),
        }
    }

    /// Adds the runtime tool `name`, once.
    fn add_name(&mut self, name: String) {
        if !self.names.contains(&name) {
            self.names.push(name);
        }
    }

    /// Whether `tool` is named here.
    fn has<T: ToolSet>(&self, tool: Ruled<'_, T>) -> bool {
        match tool {
            Ruled::Set(tool) => flag(&self.flags, tool.index()),
            Ruled::Runtime(spec) => self.has_name(spec.name()),
        }
    }

    /// Whether the runtime tool `name` is named here.
    fn has_name(&self, name: &str) -> bool {
        self.names.iter().any(|known| known == name)
    }

    /// The set's tools named here, in declared order.
    fn set_tools<T: ToolSet>(&self) -> Vec<&'static str> {
        T::Name::ALL
            .iter()
            .filter(|tool| self.has(Ruled::<T>::Set(**tool)))
            .map(|tool| tool.as_str())
            .collect()
    }
}

/// A tool as a policy's rules look it up: one of the set's, by its typed name, or a
/// toolbox's runtime tool, by what it declares (its name, tier and deferral). Every rule
/// reads both kinds through this one form.
pub(crate) enum Ruled<'a, T: ToolSet> {
    /// A tool of the set.
    Set(T::Name),
    /// A runtime tool, by its spec.
    Runtime(&'a ToolSpec),
}

impl<T: ToolSet> Clone for Ruled<'_, T> {
    fn clone(&self) -> Self {
        *self
    }
}

impl<T: ToolSet> Copy for Ruled<'_, T> {}

impl<'a, T: ToolSet> Ruled<'a, T> {
    /// What the tool declares.
    fn spec(self) -> &'a ToolSpec {
        match self {
            Ruled::Set(tool) => T::spec_of(tool),
            Ruled::Runtime(spec) => spec,
        }
    }
}

impl<T: ToolSet> Policy<T> {
    /// A policy letting calls up to `autonomy` run unattended, with every tool available.
    pub fn new(autonomy: Autonomy) -> Self {
        Policy {
            autonomy,
            denied: Named::default(),
            hidden: Named::default(),
            deferred: Named::default(),
            from_code: FromCode::default(),
            code_allowed: Named::default(),
            direct_only: Named::default(),
            trifecta: Trifecta::default(),
            sending_allowed: Named::default(),
            set: PhantomData,
        }
    }

    /// Lowers autonomy to `level` if that is stricter; a higher level is ignored.
    pub fn limit_autonomy(mut self, level: Autonomy) -> Self {
        self.autonomy = self.autonomy.tightened_to(level);
        self
    }

    /// Denies `tool` (the set's typed name, or a runtime tool's name: [`ToolKey`]): the
    /// gate rejects any call to it, with a message the model can read.
    pub fn deny(mut self, tool: impl IntoToolKey<T>) -> Self {
        self.denied.add(tool);
        self
    }

    /// What the gate does with a call that sends outside in a run that has read private
    /// data and untrusted content: a proposal ([`Trifecta::Escalate`], the default) or a
    /// refusal ([`Trifecta::Deny`]). Never an unattended run; see
    /// [`Exposure`](crate::run::Exposure).
    pub fn trifecta(mut self, trifecta: Trifecta) -> Self {
        self.trifecta = trifecta;
        self
    }

    /// Lets calls to `tool` run as its tier says even in a run exposed to private and
    /// untrusted content: the host vouches that what `tool` sends out is safe (a
    /// destination the user controls, say). An explicit, per-tool exception to the
    /// trifecta rule; every other tool that sends outside stays held back.
    pub fn allow_sending(mut self, tool: impl IntoToolKey<T>) -> Self {
        self.sending_allowed.add(tool);
        self
    }

    /// What the gate does with a call the trifecta rule holds back.
    pub fn trifecta_rule(&self) -> Trifecta {
        self.trifecta
    }

    /// Whether the trifecta rule holds back calls to the tool called `name` (the set's or
    /// a runtime tool's): not when the policy [allows its sending](Self::allow_sending).
    pub fn holds_back_sending(&self, name: &str) -> bool {
        match T::Name::from_name(name) {
            Some(tool) => !self.sending_allowed.has(Ruled::<T>::Set(tool)),
            None => !self.sending_allowed.has_name(name),
        }
    }

    /// Hides `tool`: to the model it does not exist. It is left out of every list (a
    /// history naming it gets the stand-in a name the set does not have gets), a call to
    /// it is answered as a call to an unknown name (even when it is also denied: hiding
    /// wins), no search finds it, no did-you-mean suggests it, and an output activating
    /// it fails as one activating an unknown name. Only [`Request::inject`](crate::request::Request::inject)
    /// brings it back, for that one request.
    pub fn hide(mut self, tool: impl IntoToolKey<T>) -> Self {
        self.hidden.add(tool);
        self
    }

    /// Defers `tool`: it is left out of the initial tool list, to be found by tool search.
    /// A [`Request`](crate::request::Request) offers it, and its gate lets calls to it through,
    /// once the conversation's [`Activations`](crate::request::Activations) hold it.
    pub fn defer(mut self, tool: impl IntoToolKey<T>) -> Self {
        self.deferred.add(tool);
        self
    }

    /// The tiers the model's code may call (programmatic tool calling: a provider's code
    /// execution running code the model wrote, which calls the host's tools as functions;
    /// see [`FromCode`]). The default is [`FromCode::ReadOnly`]: code may call read-only
    /// tools, and everything else only the model itself, directly. No ceiling reaches
    /// `irreversible`: no policy lets code call an irreversible tool.
    ///
    /// What code may call is decided here alone ([`allows_from_code`](Self::allows_from_code)),
    /// and a [`Request`](crate::request::Request) with
    /// [`code_execution`](crate::request::Request::code_execution) renders it (each tool's
    /// `allowed_callers`) and gates by it; tiers, autonomy and approvals apply to a call
    /// from code as to a direct one.
    pub fn from_code(mut self, ceiling: FromCode) -> Self {
        self.from_code = ceiling;
        self
    }

    /// Lets the model's code call `tool` too, above the [`from_code`](Self::from_code)
    /// ceiling: a call from code to it passes the gate, and then runs, is proposed or
    /// refused by its tier exactly as a direct call would be.
    ///
    /// `Err` when `tool` is `irreversible`: no policy lets code call an irreversible tool
    /// (code runs unattended between the model's turns; an action that cannot be undone is
    /// the model's own call, made directly, where a human can be asked). The error names
    /// the tool and says what to do.
    ///
    /// A runtime tool's tier is known only when the toolbox joins a request, so its name
    /// is checked there, and an `irreversible` runtime tool named here is an error there
    /// ([`PolicyNameError`]).
    pub fn allow_from_code(mut self, tool: impl IntoToolKey<T>) -> Result<Self, FromCodeError> {
        let tool = tool.into_tool_key();
        if let ToolKey::Set(tool) = tool
            && T::spec_of(tool).tier() == Tier::Irreversible
        {
            return Err(FromCodeError {
                tool: tool.as_str().to_owned(),
            });
        }
        self.code_allowed.add(tool);
        Ok(self)
    }

    /// Keeps `tool` from the model's code, whatever its tier: the model may still call it
    /// directly. Wins over [`from_code`](Self::from_code) and
    /// [`allow_from_code`](Self::allow_from_code).
    pub fn direct_only(mut self, tool: impl IntoToolKey<T>) -> Self {
        self.direct_only.add(tool);
        self
    }

    /// Whether the model's code may call `tool`: the one rule for the set's tools, which
    /// the rendered `allowed_callers`, the gate and approvals all read. Never an
    /// `irreversible` tool; never one kept [`direct_only`](Self::direct_only); otherwise a
    /// tool within the [`from_code`](Self::from_code) ceiling or named by
    /// [`allow_from_code`](Self::allow_from_code). Whether the tool is offered at all is
    /// the policy's other rules (a denied tool is refused whoever calls it).
    pub fn allows_from_code(&self, tool: T::Name) -> bool {
        self.code_may_call(Ruled::Set(tool))
    }

    /// [`allows_from_code`](Self::allows_from_code) of a tool of either kind: the one rule.
    pub(crate) fn code_may_call(&self, tool: Ruled<'_, T>) -> bool {
        let tier = tool.spec().tier();
        tier != Tier::Irreversible
            && !self.direct_only.has(tool)
            && (self.code_allowed.has(tool) || self.from_code.covers(tier))
    }

    /// This policy, also denying, hiding and deferring every runtime tool `other` does: how
    /// the MCP server's builder merges the policies it is given, loosening nothing.
    #[cfg(feature = "mcp")]
    pub(crate) fn with_runtime_rules_of(mut self, other: &Policy<T>) -> Self {
        for (mine, theirs) in [
            (&mut self.denied, &other.denied),
            (&mut self.hidden, &other.hidden),
            (&mut self.deferred, &other.deferred),
            (&mut self.direct_only, &other.direct_only),
        ] {
            for name in &theirs.names {
                mine.add_name(name.clone());
            }
        }
        self
    }

    /// Whether the policy names any runtime tool.
    pub(crate) fn names_runtime_tools(&self) -> bool {
        self.rules().iter().any(|rule| !rule.names.is_empty())
    }

    /// The runtime tools this policy names (hidden, denied, deferred, allowed from code,
    /// direct only, allowed sending), each once, in that order.
    pub fn runtime_names(&self) -> Vec<&str> {
        let mut names: Vec<&str> = Vec::new();
        for name in self.rules().iter().flat_map(|rule| &rule.names) {
            if !names.contains(&name.as_str()) {
                names.push(name);
            }
        }
        names
    }

    /// Every rule's tools, in the order [`runtime_names`](Self::runtime_names) lists them.
    fn rules(&self) -> [&Named; 6] {
        [
            &self.hidden,
            &self.denied,
            &self.deferred,
            &self.code_allowed,
            &self.direct_only,
            &self.sending_allowed,
        ]
    }

    /// Checks the tools this policy names by a name that is not the set's against
    /// `runtime`, the runtime tools of the toolbox joining a request: every name must be
    /// one of them; a misspelling is told the closest name of either kind.
    pub(crate) fn check_runtime_names<'n>(
        &self,
        runtime: impl Iterator<Item = (&'n str, Tier)> + Clone,
    ) -> Result<(), PolicyNameError> {
        let tiers = runtime.clone();
        let runtime = runtime.map(|(name, _)| name);
        let irreversible_from_code: Vec<String> = self
            .code_allowed
            .names
            .iter()
            .filter(|name| {
                tiers
                    .clone()
                    .any(|(known, tier)| known == name.as_str() && tier == Tier::Irreversible)
            })
            .cloned()
            .collect();
        let mut unknown = Vec::new();
        for name in self.runtime_names() {
            if runtime.clone().any(|known| known == name) {
                continue;
            }
            let known = runtime
                .clone()
                .chain(T::Name::ALL.iter().map(|tool| tool.as_str()));
            let suggestion = toolset_rules::closest(name, known).map(str::to_owned);
            unknown.push(UnknownName {
                name: name.to_owned(),
                suggestion,
            });
        }
        if unknown.is_empty() && irreversible_from_code.is_empty() {
            return Ok(());
        }
        Err(PolicyNameError {
            set: T::NAME,
            unknown,
            irreversible_from_code,
            runtime: runtime.map(str::to_owned).collect(),
        })
    }

    /// The autonomy level in force.
    pub fn autonomy(&self) -> Autonomy {
        self.autonomy
    }

    /// Whether calls to `tool` are rejected.
    pub fn is_denied(&self, tool: T::Name) -> bool {
        self.denied.has(Ruled::<T>::Set(tool))
    }

    /// Whether `tool` is hidden from the model.
    pub fn is_hidden(&self, tool: T::Name) -> bool {
        self.hidden.has(Ruled::<T>::Set(tool))
    }

    /// Whether `tool` is left out of the initial list: declared `deferred`, or deferred
    /// by this policy.
    pub fn is_deferred(&self, tool: T::Name) -> bool {
        self.deferred.has(Ruled::<T>::Set(tool)) || T::spec_of(tool).is_deferred()
    }

    /// Whether `tool` is offered to the model up front: neither hidden, denied nor
    /// deferred. The one rule every tool list and the gate's unknown-tool answer start
    /// from; a [`Request`](crate::request::Request) adds what its conversation activated, injected
    /// and used.
    pub fn offers(&self, tool: T::Name) -> bool {
        self.availability(Ruled::Set(tool)) == Availability::Offered
    }

    /// The tools to offer the model up front, in declared order: those [`offers`] is
    /// true of.
    ///
    /// [`offers`]: Policy::offers
    pub fn offered(&self) -> impl Iterator<Item = T::Name> + '_ {
        T::Name::ALL
            .iter()
            .copied()
            .filter(|&tool| self.offers(tool))
    }

    /// The one rule of what a hidden tool is: `tool` is hidden by this policy and not
    /// injected into the request at hand (`injected`; an injected tool is offered unless
    /// denied, and hiding wins over denying). Such a tool is *concealed*: in everything the
    /// model can see (the list and its history declarations, the gate's messages and
    /// did-you-mean, the search's results, what an output may activate) it is a name the
    /// set does not have. Every place that turns a name the model wrote into a tool asks
    /// this, through [`Concealed`] or `Request`'s lookup; none decides it on its own.
    pub(crate) fn conceals(&self, tool: T::Name, injected: &[T::Name]) -> bool {
        // Injection brings a hidden tool back, but never a denied one.
        let injected = injected.contains(&tool) && !self.is_denied(tool);
        self.is_hidden(tool) && !injected
    }

    /// The tools this policy conceals from a request injecting `injected` (see
    /// [`conceals`](Self::conceals)), for the stages after the gate.
    pub(crate) fn concealed(&self, injected: &[T::Name]) -> Concealed {
        if self.hidden.flags.is_empty() {
            return Concealed::default();
        }
        Concealed {
            flags: T::Name::ALL
                .iter()
                .map(|&tool| self.conceals(tool, injected))
                .collect(),
        }
    }

    /// What this policy makes of `tool`, of either kind. Hiding wins over denying (a
    /// hidden tool is unknown to the model, so it is never told the tool is denied),
    /// denying over deferring; a tool is deferred by this policy or by its own declaration
    /// (`#[tool(deferred)]`, [`DynamicTool::deferred`](crate::DynamicTool::deferred)). At
    /// [`Autonomy::Off`] a deferred tool stays deferred: only an activation offers it.
    pub(crate) fn availability(&self, tool: Ruled<'_, T>) -> Availability {
        if self.hidden.has(tool) {
            Availability::Hidden
        } else if self.denied.has(tool) {
            Availability::Denied
        } else if self.deferred.has(tool) || tool.spec().is_deferred() {
            Availability::Deferred
        } else {
            Availability::Offered
        }
    }
}

/// Whether `flags` (by a tool's index; empty: none) holds the tool at `index`.
fn flag(flags: &[bool], index: usize) -> bool {
    flags.get(index).copied().unwrap_or(false)
}

/// The tools one request conceals ([`Policy::conceals`]), by index; carried by a
/// [`Plan`](crate::plan::Plan) so that apply answers an output activating one of them exactly as
/// one activating a name the set does not have. Allocates nothing when nothing is hidden.
#[derive(Debug, Clone, Default)]
pub(crate) struct Concealed {
    flags: Vec<bool>,
}

impl Concealed {
    /// The set's tool `name` names, as the model may know it: `None` for a name the set
    /// does not have and for a concealed tool alike.
    pub(crate) fn resolve<T: ToolSet>(&self, name: &str) -> Option<T::Name> {
        T::Name::from_name(name).filter(|tool| !flag(&self.flags, tool.index()))
    }

    /// The names of the set's tools the model may know, in declared order.
    pub(crate) fn known<T: ToolSet>(&self) -> impl Iterator<Item = &'static str> + '_ {
        T::Name::ALL
            .iter()
            .filter(|tool| !flag(&self.flags, tool.index()))
            .map(|tool| tool.as_str())
    }
}

/// What a policy makes of one tool.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Availability {
    /// In the tool list; calls pass.
    Offered,
    /// Out of the initial list, to be found by tool search; calls pass.
    Deferred,
    /// Known to the model but refused, with a message saying so.
    Denied,
    /// Unknown to the model: calls are answered as for a tool that does not exist.
    Hidden,
}

/// A policy names, by a name that is not the set's ([`ToolKey::Named`]), tools the
/// toolbox joining a request does not have: the request is not composed,
/// since a misspelled name would leave the tool it meant unrestricted. Likewise when it
/// lets code call a runtime tool that is `irreversible`, which no policy may.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct PolicyNameError {
    set: &'static str,
    unknown: Vec<UnknownName>,
    /// Runtime tools named by `allow_from_code` that are irreversible.
    irreversible_from_code: Vec<String>,
    runtime: Vec<String>,
}

/// One name a policy gives that no runtime tool of the toolbox has.
#[derive(Debug, Clone, PartialEq, Eq)]
struct UnknownName {
    name: String,
    /// The closest runtime tool name, if one is close.
    suggestion: Option<String>,
}

impl PolicyNameError {
    /// The names no runtime tool of the toolbox has, in the order the policy gave them.
    pub fn unknown(&self) -> Vec<&str> {
        self.unknown.iter().map(|name| name.name.as_str()).collect()
    }

    /// The toolbox's runtime tools when the request was composed.
    pub fn runtime_tools(&self) -> &[String] {
        &self.runtime
    }

    /// The irreversible runtime tools the policy lets code call
    /// ([`Policy::allow_from_code`]), which no policy may.
    pub fn irreversible_from_code(&self) -> &[String] {
        &self.irreversible_from_code
    }
}

impl fmt::Display for PolicyNameError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if !self.irreversible_from_code.is_empty() {
            write!(
                f,
                "the policy lets code call irreversible runtime tools: `{}`; no policy may \
                 (code runs unattended, and an irreversible call is the model's own, made \
                 directly). Remove them from `allow_from_code`.",
                self.irreversible_from_code.join("`, `")
            )?;
            if self.unknown.is_empty() {
                return Ok(());
            }
            f.write_str(" Also, ")?;
        }
        write!(
            f,
            "the policy names tools neither the set `{}` nor its toolbox has:",
            self.set
        )?;
        for unknown in &self.unknown {
            write!(f, " `{}`", unknown.name)?;
            if let Some(suggestion) = &unknown.suggestion {
                write!(f, " (did you mean `{suggestion}`?)")?;
            }
            f.write_str(";")?;
        }
        if self.runtime.is_empty() {
            f.write_str(" the toolbox has no runtime tools")?;
        } else {
            write!(f, " its runtime tools are: {}", self.runtime.join(", "))?;
        }
        f.write_str(". Fix the name in the policy, or add the tool to the toolbox.")
    }
}

impl std::error::Error for PolicyNameError {}

impl<T: ToolSet> Clone for Policy<T> {
    fn clone(&self) -> Self {
        Policy {
            autonomy: self.autonomy,
            denied: self.denied.clone(),
            hidden: self.hidden.clone(),
            deferred: self.deferred.clone(),
            from_code: self.from_code,
            code_allowed: self.code_allowed.clone(),
            direct_only: self.direct_only.clone(),
            trifecta: self.trifecta,
            sending_allowed: self.sending_allowed.clone(),
            set: PhantomData,
        }
    }
}

impl<T: ToolSet> fmt::Debug for Policy<T> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        // Each rule's tools of both kinds in one list: the set's, then runtime names.
        let named = |rule: &Named| -> Vec<String> {
            let set = rule.set_tools::<T>().into_iter().map(str::to_owned);
            set.chain(rule.names.iter().cloned()).collect()
        };
        f.debug_struct("Policy")
            .field("set", &T::NAME)
            .field("autonomy", &self.autonomy)
            .field("denied", &named(&self.denied))
            .field("hidden", &named(&self.hidden))
            .field("deferred", &named(&self.deferred))
            .field("from_code", &self.from_code)
            .field("allowed_from_code", &named(&self.code_allowed))
            .field("direct_only", &named(&self.direct_only))
            .field("trifecta", &self.trifecta)
            .field("allowed_sending", &named(&self.sending_allowed))
            .finish()
    }
}

/// The tiers the model's code may call, a policy's ceiling for programmatic tool calling
/// ([`Policy::from_code`]): a tool at or below it may be called by code as well as by
/// the model directly, and a tool above it only directly (unless the policy names it,
/// [`Policy::allow_from_code`]). There is no ceiling for `irreversible`: code never calls
/// an irreversible tool, whatever the policy says.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum FromCode {
    /// No tool: every call must come from the model directly.
    Nothing,
    /// Read-only tools: the default.
    #[default]
    ReadOnly,
    /// Read-only and reversible tools.
    Reversible,
    /// Every tier but `irreversible`.
    ExternalReversible,
}

impl FromCode {
    /// Whether code may call a tool of `tier` under this ceiling.
    fn covers(self, tier: Tier) -> bool {
        let ceiling = match self {
            FromCode::Nothing => return false,
            FromCode::ReadOnly => Tier::ReadOnly,
            FromCode::Reversible => Tier::Reversible,
            FromCode::ExternalReversible => Tier::ExternalReversible,
        };
        tier <= ceiling
    }
}

/// A policy was asked to let code call an irreversible tool
/// ([`Policy::allow_from_code`]), which no policy may.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct FromCodeError {
    tool: String,
}

impl FromCodeError {
    /// The irreversible tool the policy named.
    pub fn tool(&self) -> &str {
        &self.tool
    }
}

impl fmt::Display for FromCodeError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "the tool `{}` is irreversible: no policy lets the model's code call it (code runs \
             unattended; an irreversible call is the model's own, made directly, where a human \
             can be asked). Remove `allow_from_code` for it; the model can still call it directly.",
            self.tool
        )
    }
}

impl std::error::Error for FromCodeError {}
