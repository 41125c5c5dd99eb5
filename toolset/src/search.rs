//! Tool search: how a model finds the deferred tools a request does not list up front.
//!
//! This module owns the local search (the read-only `tool_search` tool every format can
//! call, ranked here by BM25 or matched by a regex), its index over a set's names,
//! descriptions and parameter descriptions, and the search entry each format's list
//! carries (the provider's own hosted tool where it has one).
//!
//! Which tools a search may find, and what a found tool becomes, is the request's
//! business ([`crate::request::Request`]); this module only ranks the candidates it is given.

use crate::consumer::Format;
use crate::consumer::list::Fragment;
use crate::messages;
use crate::spec::{ToolMeta, ToolSpec};
use crate::tier::Tier;
use serde::Deserialize;
use serde_json::{Value, json};
use std::collections::HashMap;
use std::sync::OnceLock;

/// The name the local search tool is called by, in every format (OpenAI Responses sends a
/// client-executed `tool_search_call` under it too). No tool may take it, nor the names
/// of the providers' hosted searches: `#[tool]` refuses them at compile time and a
/// toolbox at registration (the list is `toolset_rules::RESERVED_NAMES`).
pub const SEARCH_TOOL_NAME: &str = toolset_rules::SEARCH_TOOL_NAME;

/// How many tools one search returns when the model does not say.
pub const DEFAULT_RESULTS: usize = 5;
/// The most tools one search returns, whatever the model asks for.
pub const MAX_RESULTS: usize = 10;
/// The longest regex pattern accepted, in bytes.
const MAX_PATTERN_LEN: usize = 256;
/// The compiled size limit of a regex pattern: a pattern that needs more fails closed.
const REGEX_SIZE_LIMIT: usize = 1 << 18;

/// How a search matches the model's query against the tools.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default)]
pub enum Ranking {
    /// Keywords in natural language, ranked by BM25 (the search tool takes `query`).
    #[default]
    Bm25,
    /// A regular expression, matched case-insensitively (the search tool takes `pattern`).
    Regex,
}

/// Who runs the search a request offers when some of its tools are deferred.
///
/// Only Anthropic and OpenAI Responses have a hosted search; every other format always
/// offers the local `tool_search` tool, whichever is chosen.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum ToolSearch {
    /// The host answers: the model calls [`SEARCH_TOOL_NAME`] (for Anthropic a custom
    /// tool answered with `tool_reference` blocks; for OpenAI Responses a `tool_search`
    /// with `execution: "client"`, answered with a `tool_search_output`), and the gate
    /// plans the search like any read-only call.
    Local(Ranking),
    /// The provider answers (Anthropic's `tool_search_tool_bm25_20251119` /
    /// `tool_search_tool_regex_20251119`, OpenAI Responses' hosted `tool_search`). The
    /// host records what it loaded with [`crate::request::Activations::record_hosted`] before
    /// gating the response's calls.
    Hosted(Ranking),
}

impl Default for ToolSearch {
    fn default() -> Self {
        ToolSearch::Local(Ranking::Bm25)
    }
}

impl ToolSearch {
    /// The ranking the model's search call uses.
    pub fn ranking(self) -> Ranking {
        match self {
            ToolSearch::Local(ranking) | ToolSearch::Hosted(ranking) => ranking,
        }
    }

    /// Whether `format` renders this search as the provider's hosted tool.
    pub(crate) fn hosted_in(self, format: Format) -> bool {
        matches!(self, ToolSearch::Hosted(_))
            && matches!(format, Format::Anthropic | Format::OpenAiResponses)
    }
}

/// Whether `format` lists deferred tools itself, marked `defer_loading: true`, for the
/// provider to load when a search finds them.
pub(crate) fn lists_deferred(format: Format) -> bool {
    matches!(format, Format::Anthropic | Format::OpenAiResponses)
}

const DESCRIPTION: &str = "Search the tools that are not loaded yet. The tools found are \
     available from your next message on. Use it when none of your tools fits the task.";

fn bm25_schema() -> Value {
    json!({
        "type": "object",
        "properties": {
            "query": {
                "type": "string",
                "description": "Keywords for the capability you need; matched against tool names, descriptions and parameter descriptions."
            },
            "limit": {
                "type": "integer",
                "minimum": 1,
                "maximum": MAX_RESULTS,
                "description": "At most this many tools (default 5)."
            }
        },
        "required": ["query"],
        "additionalProperties": false
    })
}

fn regex_schema() -> Value {
    json!({
        "type": "object",
        "properties": {
            "pattern": {
                "type": "string",
                "description": "A regular expression (Rust regex syntax, case-insensitive), matched against tool names, descriptions and parameter descriptions, e.g. \"calendar|event\"."
            },
            "limit": {
                "type": "integer",
                "minimum": 1,
                "maximum": MAX_RESULTS,
                "description": "At most this many tools (default 5)."
            }
        },
        "required": ["pattern"],
        "additionalProperties": false
    })
}

const fn search_meta(input_schema: fn() -> Value) -> ToolMeta {
    ToolMeta::new(SEARCH_TOOL_NAME, DESCRIPTION, Tier::ReadOnly, input_schema).idempotent()
}

static BM25_SPEC: ToolSpec = ToolSpec::__new(search_meta(bm25_schema));
static REGEX_SPEC: ToolSpec = ToolSpec::__new(search_meta(regex_schema));

/// The spec of the local search tool for `ranking`.
pub fn search_spec(ranking: Ranking) -> &'static ToolSpec {
    match ranking {
        Ranking::Bm25 => &BM25_SPEC,
        Ranking::Regex => &REGEX_SPEC,
    }
}

/// The search entry of a list, rendered once per (search, format).
pub(crate) fn search_fragment(search: ToolSearch, format: Format) -> &'static Fragment {
    type Slots = [OnceLock<Fragment>; Format::ALL.len()];
    static LOCAL: [Slots; 2] = [const { [const { OnceLock::new() }; Format::ALL.len()] }; 2];
    static HOSTED: [Slots; 2] = [const { [const { OnceLock::new() }; Format::ALL.len()] }; 2];
    let ranking = search.ranking();
    let hosted = search.hosted_in(format);
    let slots = if hosted { &HOSTED } else { &LOCAL };
    let slot = &slots[ranking as usize][format.index()];
    slot.get_or_init(|| {
        let spec = search_spec(ranking);
        match (format, hosted) {
            (Format::Anthropic, true) => {
                let (kind, name) = match ranking {
                    Ranking::Bm25 => (
                        "tool_search_tool_bm25_20251119",
                        toolset_rules::ANTHROPIC_BM25_SEARCH_NAME,
                    ),
                    Ranking::Regex => (
                        "tool_search_tool_regex_20251119",
                        toolset_rules::ANTHROPIC_REGEX_SEARCH_NAME,
                    ),
                };
                Fragment::fixed(
                    json!({"type": kind, "name": name})
                        .to_string()
                        .into_boxed_str(),
                )
            }
            (Format::OpenAiResponses, true) => {
                Fragment::fixed(json!({"type": "tool_search"}).to_string().into_boxed_str())
            }
            (Format::OpenAiResponses, false) => {
                let mut tool = serde_json::Map::new();
                tool.insert("type".into(), "tool_search".into());
                tool.insert("execution".into(), "client".into());
                tool.insert("description".into(), spec.description().into());
                tool.insert("parameters".into(), spec.input_schema().clone());
                Fragment::fixed(Value::Object(tool).to_string().into_boxed_str())
            }
            _ => Fragment::render(spec, format),
        }
    })
}

/// The arguments of a local search call.
#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
pub(crate) struct SearchArgs {
    query: Option<String>,
    pattern: Option<String>,
    limit: Option<u32>,
}

impl SearchArgs {
    /// The arguments of `call_arguments` (JSON text), or the model-legible reason not.
    pub(crate) fn parse(arguments: &str) -> Result<SearchArgs, String> {
        let arguments = if arguments.trim().is_empty() {
            "{}"
        } else {
            arguments
        };
        let args: SearchArgs = serde_json::from_str(arguments)
            .map_err(|error| messages::search_invalid_arguments(SEARCH_TOOL_NAME, &error))?;
        if args.query.is_none() && args.pattern.is_none() {
            return Err(messages::search_needs_query(SEARCH_TOOL_NAME));
        }
        Ok(args)
    }

    fn limit(&self) -> usize {
        self.limit
            .map_or(DEFAULT_RESULTS, |limit| limit as usize)
            .clamp(1, MAX_RESULTS)
    }
}

/// One tool as the search sees it: its words, counted.
struct Document {
    /// Every searchable text of the tool, lowercased, for regex matching.
    text: String,
    terms: HashMap<String, u32>,
    length: u32,
}

/// A set's tools, tokenized once (cached per set in its render cache).
pub(crate) struct Index {
    documents: Vec<Document>,
}

impl Index {
    pub(crate) fn build(specs: &[ToolSpec]) -> Index {
        Index::build_from(specs)
    }

    /// The index of `specs` in their order (a set's, then a toolbox's runtime tools, when
    /// a request defers some of those: built per search, never cached).
    pub(crate) fn build_from<'s>(specs: impl IntoIterator<Item = &'s ToolSpec>) -> Index {
        Index {
            documents: specs.into_iter().map(document).collect(),
        }
    }
}

fn document(spec: &ToolSpec) -> Document {
    let mut texts = vec![spec.name().to_owned(), spec.description().to_owned()];
    collect_schema_text(spec.input_schema(), &mut texts);
    let mut terms = HashMap::new();
    let mut length = 0;
    // The name counts twice: a tool named for the capability beats one that mentions it.
    for word in tokens(spec.name())
        .into_iter()
        .chain(texts.iter().flat_map(|text| tokens(text)))
    {
        *terms.entry(word).or_insert(0) += 1;
        length += 1;
    }
    Document {
        text: texts.join("\n").to_lowercase(),
        terms,
        length,
    }
}

/// Property names and descriptions anywhere in a schema.
fn collect_schema_text(schema: &Value, texts: &mut Vec<String>) {
    match schema {
        Value::Object(map) => {
            if let Some(Value::String(description)) = map.get("description") {
                texts.push(description.clone());
            }
            if let Some(Value::Object(properties)) = map.get("properties") {
                texts.extend(properties.keys().cloned());
            }
            for (key, value) in map {
                if key != "description" && key != "enum" && key != "const" && key != "default" {
                    collect_schema_text(value, texts);
                }
            }
        }
        Value::Array(items) => items
            .iter()
            .for_each(|item| collect_schema_text(item, texts)),
        _ => {}
    }
}

/// Lowercased words: split at anything not alphanumeric and at camelCase humps.
fn tokens(text: &str) -> Vec<String> {
    let mut words = Vec::new();
    let mut word = String::new();
    let mut previous_lower = false;
    for c in text.chars() {
        if !c.is_alphanumeric() {
            if !word.is_empty() {
                words.push(std::mem::take(&mut word));
            }
            previous_lower = false;
            continue;
        }
        if c.is_uppercase() && previous_lower && !word.is_empty() {
            words.push(std::mem::take(&mut word));
        }
        previous_lower = c.is_lowercase();
        word.extend(c.to_lowercase());
    }
    if !word.is_empty() {
        words.push(word);
    }
    words
}

/// What a search found: positions in the set's specs, best first.
pub(crate) fn search(
    index: &Index,
    candidates: &[usize],
    args: &SearchArgs,
) -> Result<Vec<usize>, String> {
    let limit = args.limit();
    if let Some(pattern) = &args.pattern {
        return regex_search(index, candidates, pattern, limit);
    }
    let query = args.query.as_deref().unwrap_or_default();
    Ok(bm25(index, candidates, query, limit))
}

fn regex_search(
    index: &Index,
    candidates: &[usize],
    pattern: &str,
    limit: usize,
) -> Result<Vec<usize>, String> {
    if pattern.len() > MAX_PATTERN_LEN {
        return Err(messages::pattern_too_long(pattern.len(), MAX_PATTERN_LEN));
    }
    let regex = regex::RegexBuilder::new(pattern)
        .case_insensitive(true)
        .size_limit(REGEX_SIZE_LIMIT)
        .dfa_size_limit(REGEX_SIZE_LIMIT)
        .build()
        .map_err(|error| {
            let reason = match error {
                regex::Error::CompiledTooBig(_) => "it is too complex".to_owned(),
                other => other
                    .to_string()
                    .lines()
                    .last()
                    .unwrap_or("it does not parse")
                    .trim()
                    .to_owned(),
            };
            messages::bad_pattern(pattern, &reason)
        })?;
    Ok(candidates
        .iter()
        .copied()
        .filter(|&tool| {
            index
                .documents
                .get(tool)
                .is_some_and(|doc| regex.is_match(&doc.text))
        })
        .take(limit)
        .collect())
}

fn bm25(index: &Index, candidates: &[usize], query: &str, limit: usize) -> Vec<usize> {
    const K1: f64 = 1.2;
    const B: f64 = 0.75;
    let mut words = tokens(query);
    words.sort();
    words.dedup();
    let documents: Vec<(usize, &Document)> = candidates
        .iter()
        .filter_map(|&tool| index.documents.get(tool).map(|doc| (tool, doc)))
        .collect();
    if documents.is_empty() || words.is_empty() {
        return Vec::new();
    }
    let count = documents.len() as f64;
    let average = documents
        .iter()
        .map(|(_, doc)| f64::from(doc.length))
        .sum::<f64>()
        / count;
    let mut scored: Vec<(f64, usize, usize)> = Vec::new();
    for (order, (tool, doc)) in documents.iter().enumerate() {
        let mut score = 0.0;
        for word in &words {
            let Some(&frequency) = doc.terms.get(word) else {
                continue;
            };
            let containing = documents
                .iter()
                .filter(|(_, other)| other.terms.contains_key(word))
                .count() as f64;
            let idf = ((count - containing + 0.5) / (containing + 0.5) + 1.0).ln();
            let tf = f64::from(frequency);
            let norm = 1.0 - B + B * f64::from(doc.length) / average.max(1.0);
            score += idf * tf * (K1 + 1.0) / (tf + K1 * norm);
        }
        if score > 0.0 {
            scored.push((score, order, *tool));
        }
    }
    // Best first; equal scores keep the declared order, so results are deterministic.
    scored.sort_by(|a, b| b.0.total_cmp(&a.0).then(a.1.cmp(&b.1)));
    scored
        .into_iter()
        .take(limit)
        .map(|(_, _, tool)| tool)
        .collect()
}

/// What the model reads when a search finds nothing.
pub(crate) fn nothing_found(args: &SearchArgs) -> String {
    match (&args.pattern, &args.query) {
        (Some(pattern), _) => messages::no_tool_matches_pattern(pattern),
        (None, query) => messages::no_tool_matches_query(query.as_deref().unwrap_or_default()),
    }
}

/// What the model reads when a search found `specs`.
pub(crate) fn found(specs: &[&ToolSpec]) -> String {
    let found: Vec<(&str, &str)> = specs
        .iter()
        .map(|spec| {
            let summary = spec.description().lines().next().unwrap_or_default().trim();
            (spec.name(), summary)
        })
        .collect();
    messages::found_tools(&found)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn tokens_split_snake_and_camel_case() {
        assert_eq!(tokens("set_due_date"), ["set", "due", "date"]);
        assert_eq!(tokens("getWeatherNow"), ["get", "weather", "now"]);
        assert_eq!(tokens("ISO-8601 dates"), ["iso", "8601", "dates"]);
    }

    #[test]
    fn a_bad_pattern_fails_closed_with_an_example_to_follow() {
        let index = Index {
            documents: Vec::new(),
        };
        let error = regex_search(&index, &[], "(unclosed", 5).expect_err("a bad pattern");
        assert!(
            error.contains("is not a usable regular expression"),
            "{error}"
        );
        assert!(error.contains("nothing was searched"), "{error}");
        let huge = "a{1000}{1000}";
        let error = regex_search(&index, &[], huge, 5).expect_err("too big");
        assert!(error.contains("too complex"), "{error}");
    }

    #[test]
    fn search_arguments_need_a_query_or_a_pattern() {
        assert!(SearchArgs::parse("{}").is_err());
        assert!(SearchArgs::parse(r#"{"query":"x","extra":1}"#).is_err());
        let args = SearchArgs::parse(r#"{"query":"x","limit":99}"#).expect("valid");
        assert_eq!(args.limit(), MAX_RESULTS);
    }
}
