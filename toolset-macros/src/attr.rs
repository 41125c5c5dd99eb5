//! Reads the keys of `#[tool(...)]`. Only syntax here: what each key means for the item
//! is checked in `ast`.

use crate::errors::Errors;
use crate::symbol::{self, KEYS, TIERS};
use proc_macro2::TokenStream;
use syn::parse::{ParseStream, Parser};
use syn::{Ident, LitBool, LitInt, LitStr, Token};

/// The parsed keys of one `#[tool(...)]`.
#[derive(Default)]
pub struct ToolAttr {
    pub tier: Option<LitStr>,
    pub description: Option<LitStr>,
    pub name: Option<LitStr>,
    pub title: Option<LitStr>,
    pub timeout_ms: Option<LitInt>,
    pub deferred: Option<Ident>,
    pub idempotent: Option<Ident>,
    pub preview: Option<syn::Path>,
    pub propose_only: Option<Ident>,
    /// The keys that unknown keys were probably meant to be (`descripton` → `description`),
    /// so a missing-key error does not repeat what the did-you-mean already says.
    meant: Vec<&'static str>,
    /// The attribute's arguments, to point at when a required key is missing.
    pub args: TokenStream,
    /// Every key seen, to report repeats.
    seen: Vec<Ident>,
}

impl ToolAttr {
    /// Parses `args`, recording every mistake in `errors` and carrying on past it.
    pub fn parse(args: TokenStream, errors: &mut Errors) -> ToolAttr {
        let mut attr = ToolAttr {
            args: args.clone(),
            ..ToolAttr::default()
        };
        let parser = |input: ParseStream| {
            while !input.is_empty() {
                attr.parse_key(input, errors)?;
                if input.is_empty() {
                    break;
                }
                input.parse::<Token![,]>()?;
            }
            Ok(())
        };
        if let Err(error) = parser.parse2(args) {
            errors.push(error);
        }
        attr
    }

    fn parse_key(&mut self, input: ParseStream, errors: &mut Errors) -> syn::Result<()> {
        let key: Ident = input.call(syn::ext::IdentExt::parse_any)?;
        let name = key.to_string();
        if self.seen.iter().any(|seen| *seen == name) {
            errors.at(&key, format!("`{name}` is given twice; keep one"));
            skip_value(input)?;
            return Ok(());
        }
        self.seen.push(key.clone());
        match name.as_str() {
            symbol::TIER => {
                let tier: LitStr = parse_value(input, &key, "tier = \"read_only\"")?;
                if !TIERS.contains(&tier.value().as_str()) {
                    errors.at(
                        &tier,
                        format!(
                            "unknown tier `{}`{}: write one of {}",
                            tier.value(),
                            did_you_mean(&tier.value(), TIERS),
                            quoted_list(TIERS)
                        ),
                    );
                }
                self.tier = Some(tier);
            }
            symbol::DESCRIPTION => {
                self.description = Some(parse_value(input, &key, "description = \"...\"")?)
            }
            symbol::NAME => self.name = Some(parse_value(input, &key, "name = \"my_tool\"")?),
            symbol::TITLE => self.title = Some(parse_value(input, &key, "title = \"...\"")?),
            symbol::TIMEOUT_MS => {
                let millis: LitInt = parse_value(input, &key, "timeout_ms = 5000")?;
                if let Err(error) = millis.base10_parse::<u64>() {
                    errors.at(
                        &millis,
                        format!("`timeout_ms` takes milliseconds as a whole number: {error}"),
                    );
                }
                self.timeout_ms = Some(millis);
            }
            symbol::DEFERRED => self.deferred = parse_flag(input, key)?,
            symbol::IDEMPOTENT => self.idempotent = parse_flag(input, key)?,
            symbol::PROPOSE_ONLY => self.propose_only = parse_flag(input, key)?,
            symbol::PREVIEW => {
                self.preview = Some(parse_value(input, &key, "preview = my_preview_fn")?)
            }
            _ => {
                self.meant.extend(closest(&name, KEYS));
                errors.at(
                    &key,
                    format!(
                        "unknown key `{name}` in #[tool]{}; expected one of {}",
                        did_you_mean(&name, KEYS),
                        KEYS.iter()
                            .map(|k| format!("`{k}`"))
                            .collect::<Vec<_>>()
                            .join(", ")
                    ),
                );
                skip_value(input)?;
            }
        }
        Ok(())
    }

    /// Whether an unknown key was probably a misspelling of `key`.
    pub fn meant(&self, key: &str) -> bool {
        self.meant.contains(&key)
    }
}

/// Parses `= value` after `key`, explaining the expected form when it is missing.
fn parse_value<T: syn::parse::Parse>(
    input: ParseStream,
    key: &Ident,
    example: &str,
) -> syn::Result<T> {
    if !input.peek(Token![=]) {
        return Err(syn::Error::new(
            key.span(),
            format!("`{key}` needs a value: write `{example}`"),
        ));
    }
    input.parse::<Token![=]>()?;
    input.parse()
}

/// A flag is written bare (`deferred`) or with a bool (`deferred = false`).
fn parse_flag(input: ParseStream, key: Ident) -> syn::Result<Option<Ident>> {
    if input.peek(Token![=]) {
        input.parse::<Token![=]>()?;
        let on: LitBool = input.parse()?;
        return Ok(on.value.then_some(key));
    }
    Ok(Some(key))
}

/// Skips `= <expr>` after an unknown or repeated key, so later keys are still read.
fn skip_value(input: ParseStream) -> syn::Result<()> {
    if input.peek(Token![=]) {
        input.parse::<Token![=]>()?;
        input.parse::<syn::Expr>()?;
    }
    Ok(())
}

/// `" (did you mean `x`?)"` when a known word is close to `word`.
pub fn did_you_mean(word: &str, known: &[&'static str]) -> String {
    closest(word, known)
        .map(|candidate| format!(" (did you mean `{candidate}`?)"))
        .unwrap_or_default()
}

/// The known word `word` is probably a misspelling of, if any.
fn closest(word: &str, known: &[&'static str]) -> Option<&'static str> {
    let folded = word.to_ascii_lowercase().replace('-', "_");
    known
        .iter()
        .map(|candidate| (edit_distance(&folded, candidate), *candidate))
        .filter(|(distance, candidate)| {
            *distance <= candidate.len().max(3) / 3
                || candidate.starts_with(&folded) && folded.len() >= 3
        })
        .min_by_key(|(distance, _)| *distance)
        .map(|(_, candidate)| candidate)
}

/// `"a", "b" or "c"` for messages.
pub fn quoted_list(items: &[&str]) -> String {
    let quoted: Vec<String> = items.iter().map(|item| format!("\"{item}\"")).collect();
    match quoted.split_last() {
        Some((last, rest)) if !rest.is_empty() => format!("{} or {last}", rest.join(", ")),
        _ => quoted.concat(),
    }
}

/// Edits (insert, delete, substitute, swap two neighbours) from `a` to `b`: `titel` is
/// one swap from `title`.
fn edit_distance(a: &str, b: &str) -> usize {
    let (a, b): (Vec<char>, Vec<char>) = (a.chars().collect(), b.chars().collect());
    // d[i][j]: distance between the first i chars of a and the first j of b.
    let mut d = vec![vec![0; b.len() + 1]; a.len() + 1];
    for (i, row) in d.iter_mut().enumerate() {
        row[0] = i;
    }
    for (j, cell) in d[0].iter_mut().enumerate() {
        *cell = j;
    }
    for i in 1..=a.len() {
        for j in 1..=b.len() {
            let cost = usize::from(a[i - 1] != b[j - 1]);
            let mut best = (d[i - 1][j] + 1)
                .min(d[i][j - 1] + 1)
                .min(d[i - 1][j - 1] + cost);
            if i > 1 && j > 1 && a[i - 1] == b[j - 2] && a[i - 2] == b[j - 1] {
                best = best.min(d[i - 2][j - 2] + 1);
            }
            d[i][j] = best;
        }
    }
    d[a.len()][b.len()]
}
