//! Strict budgets: the limits a provider puts on the strict tools of one request, applied
//! when a request's list is composed ([`StrictDowngrade`], [`StrictLimit`]).
//!
//! Whether one tool *can* be strict is decided per tool, once, by its consumer's rules
//! (OpenAI: `openai_strict.rs`; Anthropic: `anthropic/strict.rs`), and its cached fragment
//! is rendered accordingly. Some limits hold for the request as a whole, across all its
//! strict tools:
//!
//! | provider | limit | per request |
//! |---|---|---|
//! | Anthropic | strict tools | 20 |
//! | Anthropic | optional parameters (properties not in `required`) | 24 |
//! | Anthropic | parameters with a union type (`anyOf`, a `type` array) | 16 |
//! | OpenAI (Chat, Responses) | object properties | 5000 |
//! | OpenAI (Chat, Responses) | enum values | 1000 |
//! | OpenAI (Chat, Responses) | characters of property names, definition names and enum values | 120 000 |
//!
//! OpenAI states its limits per schema; a request's strict functions are counted together
//! here, which can only cost a tool its `strict`, never the request its acceptance.
//! OpenAI's nesting limit (10 levels) holds per schema and is checked per tool. Every
//! strict tool the list holds counts, a deferred one a native search loads included (the
//! providers do not say it would not). Anthropic's counts are taken as the schema is
//! written: an optional parameter is a property left out of its object's `required`, at
//! any depth; a parameter with a union type is any schema with `anyOf` or a `type` array
//! (`Option<String>` is both when it is optional). A `$defs` entry counts once, however
//! often it is referenced.
//!
//! **The order.** The budget is spent in list order, first fit: each strict tool keeps
//! `strict` when its cost fits in what the tools listed before it left, and is rendered
//! without it otherwise (a later, cheaper tool may still fit). List order, because a
//! request's list only ever grows at its end (DESIGN.md, "A request's tool list"): a
//! tool's verdict depends on the tools before it alone, so activating a tool never changes
//! the bytes of the tools listed before it, and the provider's prompt cache holds. In the
//! common case (nothing exceeded) the budget is a sum over the listed tools' cached costs:
//! no schema is read per request.
//!
//! Strictness is a rendering hint: it never changes what the gate permits or checks. A
//! tool that lost `strict` is offered and gated exactly as before, and the gate validates
//! every call's arguments whether the provider constrained them or not.

use super::Format;
use std::fmt;

/// A provider's limit on the strict tools of one request (see the module's table).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
#[non_exhaustive]
pub enum StrictLimit {
    /// Anthropic: at most 20 strict tools per request.
    Tools,
    /// Anthropic: at most 24 optional parameters (properties not listed in `required`, at
    /// any depth) across the request's strict tools.
    OptionalParameters,
    /// Anthropic: at most 16 parameters with a union type (a schema with `anyOf` or a
    /// `type` array, such as an `Option`'s `["string", "null"]`) across the request's
    /// strict tools.
    UnionParameters,
    /// OpenAI: at most 5000 object properties across the request's strict tools.
    Properties,
    /// OpenAI: at most 1000 enum values across the request's strict tools.
    EnumValues,
    /// OpenAI: at most 120 000 characters of property names, definition names and enum
    /// values across the request's strict tools.
    Characters,
}

impl StrictLimit {
    /// Every limit, in a fixed order (the order a downgrade's reason is looked for in).
    const ALL: [StrictLimit; 6] = [
        StrictLimit::Tools,
        StrictLimit::OptionalParameters,
        StrictLimit::UnionParameters,
        StrictLimit::Properties,
        StrictLimit::EnumValues,
        StrictLimit::Characters,
    ];

    /// What is counted, in words: "strict tools", "optional parameters", ….
    pub const fn counted(self) -> &'static str {
        match self {
            StrictLimit::Tools => "strict tools",
            StrictLimit::OptionalParameters => "optional parameters",
            StrictLimit::UnionParameters => "parameters with a union type",
            StrictLimit::Properties => "object properties",
            StrictLimit::EnumValues => "enum values",
            StrictLimit::Characters => {
                "characters of property names, definition names and enum values"
            }
        }
    }

    /// The most `format` allows per request, or `None` where it has no such limit.
    pub const fn max(self, format: Format) -> Option<usize> {
        match (format, self) {
            (Format::Anthropic, StrictLimit::Tools) => Some(20),
            (Format::Anthropic, StrictLimit::OptionalParameters) => Some(24),
            (Format::Anthropic, StrictLimit::UnionParameters) => Some(16),
            (Format::OpenAiChat | Format::OpenAiResponses, StrictLimit::Properties) => Some(5000),
            (Format::OpenAiChat | Format::OpenAiResponses, StrictLimit::EnumValues) => Some(1000),
            (Format::OpenAiChat | Format::OpenAiResponses, StrictLimit::Characters) => {
                Some(120_000)
            }
            _ => None,
        }
    }

    const fn index(self) -> usize {
        self as usize
    }
}

impl fmt::Display for StrictLimit {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.counted())
    }
}

/// What one tool's strict form spends of a request's budget: a count per [`StrictLimit`]
/// (the tool itself counts one strict tool). Computed once per tool and format, with its
/// fragment.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub(crate) struct StrictCost {
    counts: [usize; StrictLimit::ALL.len()],
}

impl StrictCost {
    /// One strict tool with nothing else counted.
    pub(crate) fn tool() -> Self {
        let mut cost = StrictCost::default();
        cost.counts[StrictLimit::Tools.index()] = 1;
        cost
    }

    /// This cost with `count` of `limit` added.
    pub(crate) fn with(mut self, limit: StrictLimit, count: usize) -> Self {
        self.counts[limit.index()] = self.counts[limit.index()].saturating_add(count);
        self
    }

    /// This cost with each of `other`'s counts added.
    fn plus(mut self, other: &StrictCost) -> Self {
        for (count, add) in self.counts.iter_mut().zip(other.counts) {
            *count = count.saturating_add(add);
        }
        self
    }

    /// What it counts of `limit`.
    pub(crate) fn of(&self, limit: StrictLimit) -> usize {
        self.counts[limit.index()]
    }

    /// The first limit of `format` this cost exceeds alone, with its maximum: a tool
    /// whose strict form exceeds a request's budget by itself is never strict.
    pub(crate) fn exceeds(&self, format: Format) -> Option<(StrictLimit, usize)> {
        StrictLimit::ALL.into_iter().find_map(|limit| {
            let max = limit.max(format)?;
            (self.of(limit) > max).then_some((limit, max))
        })
    }
}

/// A tool rendered without `strict` in one request because the strict tools listed before
/// it spent the provider's budget ([`StrictLimit`]); what
/// [`Request::strict_downgrades`](crate::request::Request::strict_downgrades) and
/// [`FixedTools::strict_downgrades`](super::FixedTools::strict_downgrades) list, in list
/// order.
///
/// Its `Display` says it in a sentence:
/// `"t21" is listed without strict: Anthropic allows 20 strict tools per request, and the tools listed before it have 20 (it needs 1)`.
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub struct StrictDowngrade {
    /// The tool's name.
    pub tool: String,
    /// The limit its strict form would have exceeded (the first, in [`StrictLimit`]'s
    /// order, when it would exceed several).
    pub limit: StrictLimit,
    /// The most the provider allows of it per request.
    pub max: usize,
    /// What the strict tools listed before it already count of it.
    pub used: usize,
    /// What this tool's strict form counts of it.
    pub needs: usize,
    /// The format the list is rendered in.
    pub format: Format,
}

impl fmt::Display for StrictDowngrade {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let provider = match self.format {
            Format::Anthropic => "Anthropic",
            _ => "OpenAI",
        };
        write!(
            f,
            "{:?} is listed without strict: {provider} allows {} {} per request, and the \
             tools listed before it have {} (it needs {})",
            self.tool,
            self.max,
            self.limit.counted(),
            self.used,
            self.needs
        )
    }
}

/// Spends `format`'s budget over a list's entries, in list order, first fit: for each
/// entry (its name and its strict cost, `None` for one not strict in `format`), whether it
/// keeps `strict`; and the downgrades, in list order.
pub(crate) fn spend<'a>(
    format: Format,
    entries: impl IntoIterator<Item = (&'a str, Option<StrictCost>)>,
) -> (Vec<bool>, Vec<StrictDowngrade>) {
    // The format's maxima, looked up once (`usize::MAX` where it has no such limit).
    let maxima = StrictLimit::ALL.map(|limit| limit.max(format).unwrap_or(usize::MAX));
    let entries = entries.into_iter();
    let mut used = StrictCost::default();
    let mut keeps = Vec::with_capacity(entries.size_hint().0);
    let mut downgrades = Vec::new();
    for (tool, cost) in entries {
        let Some(cost) = cost else {
            keeps.push(false);
            continue;
        };
        // Summed and compared as whole arrays; which limit it exceeds is only looked for
        // when it exceeds one.
        let spent = used.plus(&cost);
        let fits = spent
            .counts
            .iter()
            .zip(&maxima)
            .all(|(count, max)| count <= max);
        let over = StrictLimit::ALL
            .into_iter()
            .filter(|_| !fits)
            .find_map(|limit| {
                let max = maxima[limit.index()];
                (spent.of(limit) > max).then_some((limit, max))
            });
        match over {
            None => {
                used = spent;
                keeps.push(true);
            }
            Some((limit, max)) => {
                keeps.push(false);
                downgrades.push(StrictDowngrade {
                    tool: tool.to_owned(),
                    limit,
                    max,
                    used: used.of(limit),
                    needs: cost.of(limit),
                    format,
                });
            }
        }
    }
    (keeps, downgrades)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_budget_is_spent_first_fit_in_list_order() {
        let cheap = StrictCost::tool();
        let optional = |n| StrictCost::tool().with(StrictLimit::OptionalParameters, n);
        let names: Vec<String> = (0..25).map(|n| format!("t{n}")).collect();
        let entries = names.iter().map(|name| (name.as_str(), Some(cheap)));
        let (keeps, downgrades) = spend(Format::Anthropic, entries);
        assert_eq!(keeps.iter().filter(|keep| **keep).count(), 20);
        assert!(keeps[..20].iter().all(|keep| *keep));
        let dropped: Vec<&str> = downgrades.iter().map(|d| d.tool.as_str()).collect();
        assert_eq!(dropped, ["t20", "t21", "t22", "t23", "t24"]);
        assert_eq!(downgrades[0].limit, StrictLimit::Tools);
        assert_eq!(
            downgrades[0].to_string(),
            "\"t20\" is listed without strict: Anthropic allows 20 strict tools per request, \
             and the tools listed before it have 20 (it needs 1)"
        );

        // A later, cheaper tool still fits where an expensive one did not.
        let entries = [
            ("a", Some(optional(20))),
            ("b", Some(optional(10))),
            ("c", None),
            ("d", Some(optional(4))),
        ];
        let (keeps, downgrades) = spend(Format::Anthropic, entries);
        assert_eq!(keeps, [true, false, false, true]);
        assert_eq!(downgrades.len(), 1);
        assert_eq!(
            (downgrades[0].limit, downgrades[0].used, downgrades[0].needs),
            (StrictLimit::OptionalParameters, 20, 10)
        );
    }

    #[test]
    fn formats_without_limits_keep_every_strict_tool() {
        let entries = (0..50).map(|_| ("t", Some(StrictCost::tool())));
        let (keeps, downgrades) = spend(Format::OpenAiChat, entries);
        assert!(keeps.iter().all(|keep| *keep));
        assert!(downgrades.is_empty());
        let big = StrictCost::tool().with(StrictLimit::EnumValues, 1001);
        assert_eq!(
            big.exceeds(Format::OpenAiResponses),
            Some((StrictLimit::EnumValues, 1000))
        );
        assert_eq!(big.exceeds(Format::Anthropic), None);
    }
}
