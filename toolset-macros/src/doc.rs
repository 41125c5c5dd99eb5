//! Doc comments as descriptions: the tool's, the set's and each argument's.

use syn::{Attribute, Expr, ExprLit, Lit, Meta};

/// The text of the `///` comments (or `#[doc = "..."]`) in `attrs`; `None` when there is
/// none or it is blank.
pub fn doc_text(attrs: &[Attribute]) -> Option<String> {
    let text = join_doc_lines(attrs.iter().filter_map(doc_value).collect::<Vec<_>>());
    (!text.is_empty()).then_some(text)
}

/// Whether `attr` is a doc comment.
pub fn is_doc(attr: &Attribute) -> bool {
    attr.path().is_ident("doc")
}

/// The string of one `#[doc = "..."]` (a `///` line is one), if it is a literal.
fn doc_value(attr: &Attribute) -> Option<String> {
    if !is_doc(attr) {
        return None;
    }
    match &attr.meta {
        Meta::NameValue(nv) => match &nv.value {
            Expr::Lit(ExprLit {
                lit: Lit::Str(text),
                ..
            }) => Some(text.value()),
            _ => None,
        },
        _ => None,
    }
}

/// One description from the doc attributes' values: one space after `///` dropped, line
/// ends trimmed, the whole trimmed. A blank `///` line is an empty value and stays a blank
/// line, so paragraphs stay apart; a `/** */` block's own lines are split the same way.
fn join_doc_lines<S: AsRef<str>>(values: impl IntoIterator<Item = S>) -> String {
    let lines: Vec<String> = values
        .into_iter()
        .flat_map(|value| {
            // `split`, not `lines`: `"".lines()` yields nothing, which would drop the
            // blank line between two paragraphs.
            value
                .as_ref()
                .split('\n')
                .map(|line| line.strip_prefix(' ').unwrap_or(line).trim_end().to_owned())
                .collect::<Vec<_>>()
        })
        .collect();
    lines.join("\n").trim().to_owned()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn attrs(tokens: proc_macro2::TokenStream) -> Vec<Attribute> {
        let item: syn::ItemStruct = syn::parse_quote!(#tokens struct S;);
        item.attrs
    }

    #[test]
    fn a_blank_doc_line_keeps_two_paragraphs_apart() {
        let attrs = attrs(quote::quote! {
            /// Search the inbox.
            ///
            /// Only unread items.
        });
        assert_eq!(
            doc_text(&attrs).as_deref(),
            Some("Search the inbox.\n\nOnly unread items.")
        );
    }

    #[test]
    fn lines_lose_the_space_after_the_slashes_and_trailing_blanks() {
        assert_eq!(join_doc_lines([" one  ", "  two"]), "one\n two");
    }

    #[test]
    fn a_block_comment_is_split_into_its_lines() {
        assert_eq!(
            join_doc_lines(["\n First.\n\n Second.\n"]),
            "First.\n\nSecond."
        );
    }

    #[test]
    fn blank_or_missing_docs_are_no_description() {
        assert_eq!(
            doc_text(&attrs(quote::quote!(#[doc = "  "] #[doc = ""]))),
            None
        );
        assert_eq!(doc_text(&attrs(quote::quote!(#[derive(Debug)]))), None);
    }

    #[test]
    fn attributes_other_than_docs_are_ignored() {
        let attrs = attrs(quote::quote! {
            /// Kept.
            #[allow(dead_code)]
            /// Also kept.
        });
        assert_eq!(doc_text(&attrs).as_deref(), Some("Kept.\nAlso kept."));
    }
}
