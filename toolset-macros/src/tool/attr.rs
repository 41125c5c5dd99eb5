//! The syntax of `#[tool(...)]`: which keys are written, and each value's token form.
//! What a value means (a known tier, a valid name) is `valid`'s job.

use crate::ctxt::Ctxt;
use crate::symbol::{self, KEYS};
use proc_macro2::TokenStream;
use syn::parse::{ParseStream, Parser};
use syn::{Ident, LitBool, LitInt, LitStr, Token};

/// The keys of one `#[tool(...)]`, as written.
#[derive(Default)]
pub struct ToolAttr {
    pub tier: Option<LitStr>,
    pub description: Option<LitStr>,
    pub name: Option<LitStr>,
    pub title: Option<LitStr>,
    pub timeout_ms: Option<LitInt>,
    pub deferred: Option<Ident>,
    /// `late_result`: the model may go on without waiting for the result.
    pub late_result: Option<Ident>,
    pub idempotent: Option<Ident>,
    pub preview: Option<syn::Path>,
    /// `escalate = path`: the fn that may raise a call's tier for its arguments.
    pub escalate: Option<syn::Path>,
    pub propose_only: Option<Ident>,
    /// `reads = "private, untrusted"`: what the tool's output brings into the run.
    pub reads: Option<LitStr>,
    /// `sends = "outside"`: where the tool can move data.
    pub sends: Option<LitStr>,
    /// `example = "..."`, each one written, in order: the only key that may repeat.
    pub examples: Vec<LitStr>,
    /// `crate = "my_facade::toolset"`: the runtime's path, for a crate re-exporting it.
    pub krate: Option<LitStr>,
    /// The attribute's arguments, to point at when a required key is missing.
    pub args: TokenStream,
    /// The keys unknown keys were probably meant to be (`descripton` → `description`), so
    /// a missing-key error does not repeat what the did-you-mean already says.
    meant: Vec<&'static str>,
    /// Every key seen, to report repeats.
    seen: Vec<Ident>,
}

impl ToolAttr {
    /// Parses `args`, recording every mistake in `cx` and carrying on past it.
    pub fn parse(args: TokenStream, cx: &mut Ctxt) -> ToolAttr {
        let mut attr = ToolAttr {
            args: args.clone(),
            ..ToolAttr::default()
        };
        let parser = |input: ParseStream| {
            while !input.is_empty() {
                attr.parse_key(input, cx)?;
                if input.is_empty() {
                    break;
                }
                input.parse::<Token![,]>()?;
            }
            Ok(())
        };
        if let Err(error) = parser.parse2(args) {
            cx.push(error);
        }
        attr
    }

    fn parse_key(&mut self, input: ParseStream, cx: &mut Ctxt) -> syn::Result<()> {
        let key: Ident = input.call(syn::ext::IdentExt::parse_any)?;
        let name = key.to_string();
        if name != symbol::EXAMPLE && self.seen.iter().any(|seen| *seen == name) {
            cx.error_at(&key, format!("`{name}` is given twice; keep one"));
            skip_value(input)?;
            return Ok(());
        }
        self.seen.push(key.clone());
        match name.as_str() {
            symbol::TIER => self.tier = Some(parse_value(input, &key, "tier = \"read_only\"")?),
            symbol::DESCRIPTION => {
                self.description = Some(parse_value(input, &key, "description = \"...\"")?)
            }
            symbol::NAME => self.name = Some(parse_value(input, &key, "name = \"my_tool\"")?),
            symbol::TITLE => self.title = Some(parse_value(input, &key, "title = \"...\"")?),
            symbol::TIMEOUT_MS => {
                self.timeout_ms = Some(parse_value(input, &key, "timeout_ms = 5000")?)
            }
            symbol::DEFERRED => self.deferred = parse_flag(input, key)?,
            symbol::LATE_RESULT => self.late_result = parse_flag(input, key)?,
            symbol::IDEMPOTENT => self.idempotent = parse_flag(input, key)?,
            symbol::PROPOSE_ONLY => self.propose_only = parse_flag(input, key)?,
            symbol::PREVIEW => {
                self.preview = Some(parse_value(input, &key, "preview = my_preview_fn")?)
            }
            symbol::ESCALATE => {
                self.escalate = Some(parse_value(input, &key, "escalate = my_escalation_fn")?)
            }
            symbol::READS => {
                self.reads = Some(parse_value(input, &key, "reads = \"private, untrusted\"")?)
            }
            symbol::SENDS => self.sends = Some(parse_value(input, &key, "sends = \"outside\"")?),
            symbol::EXAMPLE => self.examples.extend(parse_example(input, &key, cx)?),
            symbol::CRATE => self.krate = parse_crate(input, &key, cx)?,
            _ => {
                self.meant
                    .extend(toolset_rules::closest(&name, KEYS.iter().copied()));
                cx.error_at(
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

/// `= "..."` after `example`: the JSON is a string literal (a raw one spares the escapes).
fn parse_example(input: ParseStream, key: &Ident, cx: &mut Ctxt) -> syn::Result<Option<LitStr>> {
    const FORM: &str = "example = r#\"{\"query\": \"invoices\"}\"#";
    let what = "`example` takes the example's JSON object as a string literal";
    parse_string(input, key, FORM, what, cx)
}

/// `= "..."` after `crate`: a path in a string, as serde's `crate` key writes it.
pub fn parse_crate(input: ParseStream, key: &Ident, cx: &mut Ctxt) -> syn::Result<Option<LitStr>> {
    let what = "`crate` takes the path at which your crate reaches toolset as a string literal";
    parse_string(input, key, crate::runtime::FORM, what, cx)
}

/// `= "..."` after `key`. Anything else after the `=` is recorded in `cx` as `what`, with
/// `form` to write instead, and skipped, so later keys are still read.
fn parse_string(
    input: ParseStream,
    key: &Ident,
    form: &str,
    what: &str,
    cx: &mut Ctxt,
) -> syn::Result<Option<LitStr>> {
    if input.peek(Token![=]) && !input.peek2(LitStr) {
        input.parse::<Token![=]>()?;
        // Whatever is written up to the next key (a `{...}` is one token tree, commas and
        // all), so the error underlines all of it.
        let mut value = TokenStream::new();
        while !input.is_empty() && !input.peek(Token![,]) {
            value.extend([input.parse::<proc_macro2::TokenTree>()?]);
        }
        cx.error_at(value, format!("{what}: write `{form}`"));
        return Ok(None);
    }
    parse_value(input, key, form).map(Some)
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
pub fn did_you_mean(word: &str, known: &[&str]) -> String {
    toolset_rules::closest(word, known.iter().copied())
        .map(|candidate| format!(" (did you mean `{candidate}`?)"))
        .unwrap_or_default()
}

/// `"a", "b" or "c"` for messages.
pub fn quoted_list(items: &[&str]) -> String {
    let quoted: Vec<String> = items.iter().map(|item| format!("\"{item}\"")).collect();
    match quoted.split_last() {
        Some((last, rest)) if !rest.is_empty() => format!("{} or {last}", rest.join(", ")),
        _ => quoted.concat(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use quote::quote;

    fn parsed(args: TokenStream) -> (ToolAttr, usize) {
        let mut cx = Ctxt::new();
        let attr = ToolAttr::parse(args, &mut cx);
        let errors = cx
            .finish(Some(()))
            .err()
            .map_or(0, |e| e.into_iter().count());
        (attr, errors)
    }

    #[test]
    fn every_key_is_read() {
        let (attr, errors) = parsed(quote!(
            tier = "read_only",
            description = "d",
            name = "n",
            title = "t",
            timeout_ms = 5,
            deferred,
            late_result,
            idempotent = true,
            preview = p,
            escalate = e,
            propose_only = false,
            reads = "private, untrusted",
            sends = "outside",
            example = "{}",
            crate = "facade"
        ));
        assert_eq!(errors, 0);
        assert!(attr.tier.is_some() && attr.description.is_some() && attr.name.is_some());
        assert!(attr.title.is_some() && attr.timeout_ms.is_some() && attr.preview.is_some());
        assert!(attr.escalate.is_some() && attr.examples.len() == 1);
        assert!(attr.deferred.is_some() && attr.idempotent.is_some());
        assert!(attr.late_result.is_some());
        assert!(attr.propose_only.is_none(), "`= false` turns a flag off");
        assert!(attr.reads.is_some() && attr.sends.is_some());
        assert!(attr.krate.is_some());
    }

    #[test]
    fn a_misspelled_key_is_an_error_and_remembered_as_meant() {
        let (attr, errors) = parsed(quote!(tier = "read_only", descripton = "d"));
        assert_eq!(errors, 1);
        assert!(attr.meant(symbol::DESCRIPTION));
        assert!(
            attr.tier.is_some(),
            "keys after and before a mistake are still read"
        );
    }

    #[test]
    fn a_repeated_key_is_an_error() {
        let (_, errors) = parsed(quote!(tier = "read_only", tier = "reversible"));
        assert_eq!(errors, 1);
    }

    #[test]
    fn example_may_be_repeated() {
        let (attr, errors) = parsed(quote!(
            tier = "read_only",
            example = r#"{"a": 1}"#,
            example = r#"{"a": 2}"#
        ));
        assert_eq!(errors, 0);
        assert_eq!(attr.examples.len(), 2);
    }

    #[test]
    fn quoted_list_reads_as_a_sentence() {
        assert_eq!(quoted_list(&["a", "b", "c"]), "\"a\", \"b\" or \"c\"");
        assert_eq!(quoted_list(&["a"]), "\"a\"");
    }
}
