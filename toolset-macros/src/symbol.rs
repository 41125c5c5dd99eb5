//! The keys `#[tool(...)]` accepts, and the tiers, as named constants.

pub const TIER: &str = "tier";
pub const DESCRIPTION: &str = "description";
pub const NAME: &str = "name";
pub const TITLE: &str = "title";
pub const TIMEOUT_MS: &str = "timeout_ms";
pub const DEFERRED: &str = "deferred";
pub const IDEMPOTENT: &str = "idempotent";
pub const PREVIEW: &str = "preview";
pub const PROPOSE_ONLY: &str = "propose_only";

/// Every key, in the order the docs list them.
pub const KEYS: &[&str] = &[
    TIER,
    DESCRIPTION,
    NAME,
    TITLE,
    TIMEOUT_MS,
    DEFERRED,
    IDEMPOTENT,
    PREVIEW,
    PROPOSE_ONLY,
];

/// The parameter attribute marking the whole-object form: `#[args] input: MyArgs`.
pub const ARGS: &str = "args";

/// The valid spellings of `tier = "..."`, lowest risk first.
pub const TIERS: &[&str] = &[
    "read_only",
    "reversible",
    "external_reversible",
    "irreversible",
];
