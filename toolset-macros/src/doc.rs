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
pub fn doc_value(attr: &Attribute) -> Option<String> {
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
/// ends trimmed, the whole trimmed. The lines of one paragraph, wrapped only to fit the
/// source, are joined with a space, so the model reads no hard newline the author never
/// meant; a blank `///` line is an empty value and stays a blank line, so paragraphs stay
/// apart. A line that starts a block of its own (a list item, a heading, a table row, a
/// code fence) starts a new line, and a fenced code block keeps its lines as they are. A
/// `/** */` block's own lines are split and joined the same way.
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
    let mut text = String::new();
    let mut in_fence = false;
    let mut previous_blank = true;
    for line in &lines {
        let fence = line.trim_start().starts_with("```");
        let blank = line.is_empty();
        if text.is_empty() && blank {
            continue;
        }
        if !text.is_empty() {
            let joins = !in_fence && !fence && !blank && !previous_blank && !starts_block(line);
            if joins {
                text.push(' ');
                text.push_str(line.trim_start());
            } else {
                text.push('\n');
                text.push_str(line);
            }
        } else {
            text.push_str(line);
        }
        if fence {
            in_fence = !in_fence;
        }
        // A fence line ends its paragraph: the next line never joins it.
        previous_blank = blank || fence;
    }
    text.trim().to_owned()
}

/// Whether `line` starts a markdown block of its own rather than continuing a paragraph:
/// a list item (`-`, `*`, `+`, `1.`, `1)`), a heading, a table row or a quote.
fn starts_block(line: &str) -> bool {
    let line = line.trim_start();
    if line.starts_with(['#', '|', '>']) {
        return true;
    }
    if let Some(rest) = line.strip_prefix(['-', '*', '+']) {
        return rest.is_empty() || rest.starts_with(' ');
    }
    let digits = line.chars().take_while(char::is_ascii_digit).count();
    let rest = &line[digits..];
    digits > 0 && (rest.starts_with(". ") || rest.starts_with(") "))
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
        assert_eq!(join_doc_lines([" one  ", "  two"]), "one two");
    }

    #[test]
    fn a_paragraph_wrapped_over_lines_reads_as_one_line() {
        let attrs = attrs(quote::quote! {
            /// Archive every item containing the words, so that the inbox
            /// shows only what is left.
            ///
            /// It can be restored
            /// later.
        });
        assert_eq!(
            doc_text(&attrs).as_deref(),
            Some(
                "Archive every item containing the words, so that the inbox shows only what \
                 is left.\n\nIt can be restored later."
            )
        );
    }

    #[test]
    fn lists_headings_tables_and_code_keep_their_lines() {
        let text = join_doc_lines([
            " Modes:",
            " - `fast`: skips the",
            "   slow checks",
            " * `slow`",
            " 1. first",
            " 2) second",
            " # Heading",
            " | a | b |",
            " | - | - |",
            " ```",
            " let x = 1;",
            " let y = 2;",
            " ```",
            " After the code.",
        ]);
        assert_eq!(
            text,
            "Modes:\n- `fast`: skips the slow checks\n* `slow`\n1. first\n2) second\n\
             # Heading\n| a | b |\n| - | - |\n```\nlet x = 1;\nlet y = 2;\n```\nAfter the code."
        );
    }

    #[test]
    fn a_word_that_only_looks_like_a_marker_continues_the_paragraph() {
        assert_eq!(
            join_doc_lines([" Costs", " -5 points or", " 3.5 more"]),
            "Costs -5 points or 3.5 more"
        );
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
        assert_eq!(doc_text(&attrs).as_deref(), Some("Kept. Also kept."));
    }
}
