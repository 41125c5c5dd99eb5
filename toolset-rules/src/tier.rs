//! The risk tiers, shared so that `#[tool(tier = "...")]` and the runtime agree on what
//! each is called: the macro parses the spelling, the runtime (`toolset::Tier`, this type
//! re-exported) renders and parses the same.

use core::fmt;

/// How much harm a tool call can do, declared once per tool with `#[tool(tier = "...")]`.
///
/// Tiers are ordered from harmless to irreversible. Nothing at run time can lower a
/// tool's declared tier.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
#[cfg_attr(
    feature = "serde",
    derive(serde::Serialize, serde::Deserialize),
    serde(rename_all = "snake_case")
)]
pub enum Tier {
    /// Reads only; never changes anything. Read-only calls may run concurrently.
    ReadOnly,
    /// Changes the agent's own state in a way that can be undone.
    Reversible,
    /// Changes something outside the agent (another system, a person's view) but can be undone.
    ExternalReversible,
    /// Cannot be undone (sending a message, paying, deleting). Never runs without a human.
    Irreversible,
}

impl Tier {
    /// Every tier, from harmless to irreversible.
    pub const ALL: [Tier; 4] = [
        Tier::ReadOnly,
        Tier::Reversible,
        Tier::ExternalReversible,
        Tier::Irreversible,
    ];

    /// The tier's name as written in `#[tool(tier = "...")]`.
    pub const fn as_str(self) -> &'static str {
        match self {
            Tier::ReadOnly => "read_only",
            Tier::Reversible => "reversible",
            Tier::ExternalReversible => "external_reversible",
            Tier::Irreversible => "irreversible",
        }
    }

    /// Parses a tier from its `#[tool(tier = "...")]` spelling.
    pub fn parse(name: &str) -> Option<Tier> {
        Tier::ALL.into_iter().find(|tier| tier.as_str() == name)
    }

    /// The variant's identifier (`ReadOnly`), for the macros' generated paths.
    #[doc(hidden)]
    pub const fn variant_name(self) -> &'static str {
        match self {
            Tier::ReadOnly => "ReadOnly",
            Tier::Reversible => "Reversible",
            Tier::ExternalReversible => "ExternalReversible",
            Tier::Irreversible => "Irreversible",
        }
    }
}

impl fmt::Display for Tier {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}
