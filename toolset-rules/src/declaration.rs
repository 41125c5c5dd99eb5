//! The rules of a tool's declaration that hold whoever declared it: one checker, run by
//! `#[tool]` at compile time (`toolset-macros/src/tool/valid.rs`, each problem a
//! `syn::Error` at the part it names) and by a toolbox's registration at run time
//! (`toolset/src/toolbox/register.rs`, each problem a `DeclarationProblem`), so a mistake
//! is refused with the same words on both sides.
//!
//! What only one side can see stays there: the macro's Rust (an item that is no tool, a
//! handler's signature, a key written twice, JSON that does not parse), registration's run
//! time (a name another tool of the toolbox has, a handler of another state type, a schema
//! the validator cannot compile, an example the schema refuses).
//!
//! A part no rule reads is not here: `deferred`, `idempotent`, a title, and `late_result`
//! (a result that may come after the model's turn, OpenAI Responses' `"async": true`),
//! which every tier may have, a propose-only tool's included, since any call can be
//! withheld for a human (the autonomy, an escalation, the lethal-trifecta rule) and a
//! withheld call is exactly one whose result comes late.

use crate::Tier;
use alloc::string::String;
use alloc::vec::Vec;
use core::fmt;

/// The shortest time limit a tool may declare (`timeout_ms`), in milliseconds: at 0 every
/// call would time out before it starts.
pub const MIN_TIMEOUT_MS: u64 = 1;

/// A tool's declaration, as both checkers see it: plain values, whoever wrote them.
///
/// A part the macro could not read (an unknown tier, a missing description) is `None`:
/// the macro has already said why, and the rules that need it are skipped. A runtime tool
/// always has every part.
#[derive(Debug, Clone, Copy)]
pub struct Declaration<'a> {
    /// The name the model calls the tool by.
    pub name: &'a str,
    /// The description, the prompt the model reads.
    pub description: Option<&'a str>,
    /// The risk tier.
    pub tier: Option<Tier>,
    /// Whether the tool is propose-only: no handler, its calls only proposed.
    pub propose_only: bool,
    /// The per-call time limit, in milliseconds, if one is declared.
    pub timeout_ms: Option<u64>,
    /// The per-run state the handler borrows, if it borrows it.
    pub state: Option<StateUse<'a>>,
    /// What each example is, in order (an example is the arguments a model sends);
    /// `None` for one the macro could not read as JSON.
    pub examples: &'a [Option<JsonKind>],
}

impl<'a> Declaration<'a> {
    /// A declaration of `name` with nothing else known yet: fill in the parts with
    /// struct update syntax.
    pub const fn named(name: &'a str) -> Self {
        Declaration {
            name,
            description: None,
            tier: None,
            propose_only: false,
            timeout_ms: None,
            state: None,
            examples: &[],
        }
    }
}

/// How a handler borrows the per-run state.
#[derive(Debug, Clone, Copy)]
pub struct StateUse<'a> {
    /// The state's type, as the messages name it.
    pub type_name: &'a str,
    /// Whether the handler takes it to write (`&mut S`), else to read (`&S`).
    pub writes: bool,
}

/// What a JSON value is, for the messages about one that should be an object.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum JsonKind {
    /// `null`.
    Null,
    /// `true` or `false`.
    Bool,
    /// A number.
    Number,
    /// A string.
    String,
    /// An array.
    Array,
    /// An object.
    Object,
}

impl JsonKind {
    /// "an array", "a string", ... as a message says it.
    pub const fn described(self) -> &'static str {
        match self {
            JsonKind::Null => "`null`",
            JsonKind::Bool => "a boolean",
            JsonKind::Number => "a number",
            JsonKind::String => "a string",
            JsonKind::Array => "an array",
            JsonKind::Object => "an object",
        }
    }
}

/// The part of a declaration a [`Problem`] is about: where the macro underlines it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Part {
    /// The name.
    Name,
    /// The description.
    Description,
    /// The tier.
    Tier,
    /// The time limit.
    TimeoutMs,
    /// The handler's state parameter.
    State,
    /// The example at this position (from 0).
    Example(usize),
}

/// A broken rule of a declaration. Its `Display` is the one message both sides show: what
/// is wrong and what to write instead.
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub enum Problem {
    /// The name is outside the grammar every provider and MCP client accepts.
    NameGrammar {
        /// The name.
        name: String,
    },
    /// The name is one a tool search takes ([`RESERVED_NAMES`](crate::RESERVED_NAMES)).
    ReservedName {
        /// The name.
        name: String,
        /// What it is reserved for.
        owner: &'static str,
    },
    /// The description is empty or only whitespace.
    EmptyDescription,
    /// A propose-only tool has a tier that may run unattended.
    ProposeOnlyTier {
        /// The declared tier.
        tier: Tier,
    },
    /// The time limit is below [`MIN_TIMEOUT_MS`].
    ZeroTimeout,
    /// A `read_only` tool's handler writes the state.
    ReadOnlyWritesState {
        /// The state's type.
        state: String,
    },
    /// An example is not a JSON object.
    ExampleNotAnObject {
        /// Its position, from 0.
        position: usize,
        /// What it is instead.
        kind: JsonKind,
    },
}

impl Problem {
    /// The part of the declaration the problem is about.
    pub const fn part(&self) -> Part {
        match self {
            Problem::NameGrammar { .. } | Problem::ReservedName { .. } => Part::Name,
            Problem::EmptyDescription => Part::Description,
            Problem::ProposeOnlyTier { .. } => Part::Tier,
            Problem::ZeroTimeout => Part::TimeoutMs,
            Problem::ReadOnlyWritesState { .. } => Part::State,
            Problem::ExampleNotAnObject { position, .. } => Part::Example(*position),
        }
    }
}

impl fmt::Display for Problem {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Problem::NameGrammar { name } => write!(
                f,
                "`{name}` cannot be a tool name: providers and MCP clients accept 1 to 64 \
                 characters, ASCII letters, digits, `_` and `-`, not starting with a digit or \
                 `-`. Choose another name (`#[tool(name = \"...\")]`, or the name given to \
                 `DynamicTool::new`)"
            ),
            Problem::ReservedName { name, owner } => {
                f.write_str(&crate::reserved_name_message(name, owner))
            }
            Problem::EmptyDescription => f.write_str(
                "the description is empty, but it is the prompt the model reads: say what the \
                 tool does and when to use it",
            ),
            Problem::ProposeOnlyTier { tier } => write!(
                f,
                "a `propose_only` tool has no handler, so it must never auto-run, but tier \
                 `{tier}` can: make it `irreversible`"
            ),
            Problem::ZeroTimeout => f.write_str(
                "`timeout_ms` is 0, so every call would time out before it starts: give at \
                 least 1 ms, or no time limit",
            ),
            Problem::ReadOnlyWritesState { state } => write!(
                f,
                "a `read_only` tool takes the state as `&{state}`, not `&mut {state}`, so \
                 read-only calls can run together. Take `&{state}`, or give the tool a tier \
                 that writes, such as `reversible`"
            ),
            Problem::ExampleNotAnObject { position, kind } => write!(
                f,
                "an example is the arguments a model sends, which are a JSON object, but \
                 example {} is {}: write the arguments by name, e.g. \
                 `{{\"query\": \"invoices\"}}` (`{{}}` for a tool without arguments)",
                position + 1,
                kind.described()
            ),
        }
    }
}

/// Every rule `declaration` breaks, in the order of its parts; empty when it holds.
pub fn check(declaration: &Declaration<'_>) -> Vec<Problem> {
    let mut problems = Vec::new();
    let name = declaration.name;
    if let Some(owner) = crate::reserved_for(name) {
        // A list would declare the name twice, and the gate could not tell the calls apart.
        problems.push(Problem::ReservedName {
            name: name.into(),
            owner,
        });
    } else if !crate::is_valid_tool_name(name) {
        problems.push(Problem::NameGrammar { name: name.into() });
    }
    if declaration
        .description
        .is_some_and(|text| text.trim().is_empty())
    {
        problems.push(Problem::EmptyDescription);
    }
    if let Some(tier) = declaration.tier
        && declaration.propose_only
        && tier != Tier::Irreversible
    {
        // No handler: nothing may ever run it unattended, whatever the autonomy.
        problems.push(Problem::ProposeOnlyTier { tier });
    }
    if declaration
        .timeout_ms
        .is_some_and(|millis| millis < MIN_TIMEOUT_MS)
    {
        problems.push(Problem::ZeroTimeout);
    }
    if let Some(state) = declaration.state
        && state.writes
        && declaration.tier == Some(Tier::ReadOnly)
    {
        // Read-only calls run together, sharing the state.
        problems.push(Problem::ReadOnlyWritesState {
            state: state.type_name.into(),
        });
    }
    for (position, kind) in declaration.examples.iter().enumerate() {
        if let Some(kind) = *kind
            && kind != JsonKind::Object
        {
            problems.push(Problem::ExampleNotAnObject { position, kind });
        }
    }
    problems
}

#[cfg(test)]
mod tests {
    use super::*;
    use alloc::string::ToString;

    fn sound() -> Declaration<'static> {
        Declaration {
            description: Some("Searches the inbox."),
            tier: Some(Tier::ReadOnly),
            ..Declaration::named("search_inbox")
        }
    }

    #[test]
    fn a_sound_declaration_has_no_problem() {
        assert_eq!(check(&sound()), []);
        let propose_only = Declaration {
            tier: Some(Tier::Irreversible),
            propose_only: true,
            timeout_ms: Some(1),
            state: Some(StateUse {
                type_name: "Inbox",
                writes: true,
            }),
            examples: &[Some(JsonKind::Object)],
            ..sound()
        };
        assert_eq!(check(&propose_only), []);
    }

    #[test]
    fn each_broken_part_is_one_problem_about_that_part() {
        let cases: [(Declaration<'static>, Part); 7] = [
            (Declaration::named("inbox.search"), Part::Name),
            (Declaration::named("tool_search"), Part::Name),
            (
                Declaration {
                    description: Some("  "),
                    ..sound()
                },
                Part::Description,
            ),
            (
                Declaration {
                    tier: Some(Tier::ExternalReversible),
                    propose_only: true,
                    ..sound()
                },
                Part::Tier,
            ),
            (
                Declaration {
                    timeout_ms: Some(0),
                    ..sound()
                },
                Part::TimeoutMs,
            ),
            (
                Declaration {
                    state: Some(StateUse {
                        type_name: "Inbox",
                        writes: true,
                    }),
                    ..sound()
                },
                Part::State,
            ),
            (
                Declaration {
                    examples: &[Some(JsonKind::Object), None, Some(JsonKind::Array)],
                    ..sound()
                },
                Part::Example(2),
            ),
        ];
        for (declaration, part) in cases {
            let problems = check(&declaration);
            assert_eq!(problems.len(), 1, "{declaration:?}: {problems:?}");
            assert_eq!(problems[0].part(), part, "{declaration:?}");
        }
    }

    #[test]
    fn a_rule_whose_part_is_unknown_is_skipped() {
        // The macro reports an unknown tier itself; no rule guesses one.
        let unknown_tier = Declaration {
            tier: None,
            propose_only: true,
            state: Some(StateUse {
                type_name: "Inbox",
                writes: true,
            }),
            ..sound()
        };
        assert_eq!(check(&unknown_tier), []);
    }

    #[test]
    fn every_problem_of_a_declaration_is_reported_at_once() {
        let broken = Declaration {
            name: "2fa",
            description: Some(""),
            tier: Some(Tier::Reversible),
            propose_only: true,
            timeout_ms: Some(0),
            state: None,
            examples: &[Some(JsonKind::Null)],
        };
        let parts: Vec<Part> = check(&broken).iter().map(Problem::part).collect();
        assert_eq!(
            parts,
            [
                Part::Name,
                Part::Description,
                Part::Tier,
                Part::TimeoutMs,
                Part::Example(0)
            ]
        );
    }

    #[test]
    fn a_message_says_what_to_write_instead() {
        let message = Problem::ProposeOnlyTier {
            tier: Tier::Reversible,
        }
        .to_string();
        assert!(message.contains("`reversible`") && message.ends_with("make it `irreversible`"));
        let message = Problem::ExampleNotAnObject {
            position: 0,
            kind: JsonKind::Array,
        }
        .to_string();
        assert!(message.contains("example 1 is an array"), "{message}");
    }
}
