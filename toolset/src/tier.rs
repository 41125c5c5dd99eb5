//! Risk tiers of tools, and the autonomy level that decides which tiers may run unattended.

use serde::{Deserialize, Serialize};

/// How much harm a tool call can do (defined in `toolset-rules`, which the macros share,
/// so `#[tool(tier = "...")]` and the runtime spell each tier alike).
pub use toolset_rules::Tier;

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
