//! Doc comments as descriptions: the tool's, and each argument's.

use syn::{Attribute, Expr, ExprLit, Lit, Meta};

/// The text of the `///` comments (or `#[doc = "..."]`) in `attrs`, trimmed; `None` when
/// there is none or it is blank.
pub fn doc_text(attrs: &[Attribute]) -> Option<String> {
    let lines: Vec<String> = attrs
        .iter()
        .filter(|attr| attr.path().is_ident("doc"))
        .filter_map(|attr| match &attr.meta {
            Meta::NameValue(nv) => match &nv.value {
                Expr::Lit(ExprLit {
                    lit: Lit::Str(text),
                    ..
                }) => Some(text.value()),
                _ => None,
            },
            _ => None,
        })
        .flat_map(|text| {
            text.lines()
                .map(|line| line.strip_prefix(' ').unwrap_or(line).trim_end().to_owned())
                .collect::<Vec<_>>()
        })
        .collect();
    let text = lines.join("\n").trim().to_owned();
    (!text.is_empty()).then_some(text)
}

/// Whether `attr` is a doc comment.
pub fn is_doc(attr: &Attribute) -> bool {
    attr.path().is_ident("doc")
}
