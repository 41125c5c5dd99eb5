//! Risk tiers of tools, and the autonomy level that decides which tiers may run unattended.

use serde::{Deserialize, Serialize};
use std::fmt;

/// How much harm a tool call can do, declared once per tool with `#[tool(tier = "...")]`.
///
/// Tiers are ordered from harmless to irreversible. Nothing at run time can lower a
/// tool's declared tier.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
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
}

impl fmt::Display for Tier {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

/// The highest tier that may run without a human's approval.
///
/// Calls above the autonomy level become proposals. [`Tier::Irreversible`] is above every
/// level: there is deliberately no `Autonomy::Irreversible`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Autonomy {
    /// Nothing runs unattended; every call is a proposal.
    Off,
    /// Only read-only calls run unattended.
    ReadOnly,
    /// Read-only and reversible calls run unattended.
    Reversible,
    /// Everything but irreversible calls runs unattended.
    ExternalReversible,
}

impl Autonomy {
    /// Whether a call of `tier` may run without a human at this autonomy level.
    pub const fn allows(self, tier: Tier) -> bool {
        let ceiling = match self {
            Autonomy::Off => return false,
            Autonomy::ReadOnly => Tier::ReadOnly,
            Autonomy::Reversible => Tier::Reversible,
            Autonomy::ExternalReversible => Tier::ExternalReversible,
        };
        tier as u8 <= ceiling as u8
    }

    /// The stricter of two levels: a policy can only lower autonomy, never raise it.
    pub fn tightened_to(self, other: Autonomy) -> Autonomy {
        self.min(other)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn irreversible_never_runs_at_any_autonomy() {
        for level in [
            Autonomy::Off,
            Autonomy::ReadOnly,
            Autonomy::Reversible,
            Autonomy::ExternalReversible,
        ] {
            assert!(!level.allows(Tier::Irreversible), "{level:?}");
        }
    }

    #[test]
    fn each_level_allows_exactly_the_tiers_at_or_below_it() {
        assert!(!Autonomy::Off.allows(Tier::ReadOnly));
        assert!(Autonomy::ReadOnly.allows(Tier::ReadOnly));
        assert!(!Autonomy::ReadOnly.allows(Tier::Reversible));
        assert!(Autonomy::Reversible.allows(Tier::Reversible));
        assert!(!Autonomy::Reversible.allows(Tier::ExternalReversible));
        assert!(Autonomy::ExternalReversible.allows(Tier::ExternalReversible));
    }

    #[test]
    fn tier_names_round_trip() {
        for tier in Tier::ALL {
            assert_eq!(Tier::parse(tier.as_str()), Some(tier));
        }
        assert_eq!(Tier::parse("readonly"), None);
    }
}
