//! Every rule of `toolset!` checked at macro time: a set lists at least one tool, and no
//! two entries would be the same enum variant. (That each entry is a `#[tool]`, takes the
//! set's state, and has a distinct tool name is checked by the compiler on the generated
//! code, spanned at the entry: only constant evaluation knows a `name = "..."` override.)

use super::model::{Entry, Set};
use super::parse::SetDecl;
use crate::ctxt::Ctxt;
use crate::runtime::Runtime;

/// The checked set, or `None` with every reason recorded in `cx`.
pub fn set(decl: &SetDecl, cx: &mut Ctxt) -> Option<Set> {
    let krate = decl.crate_key(cx);
    let runtime = Runtime::read(krate.as_ref(), cx);
    if decl.entries.is_empty() {
        cx.push(syn::Error::new(
            decl.bracket.span.join(),
            format!(
                "the toolset `{}` is empty: list its tools, e.g. `{}<State> = [search, set_due_date];`",
                decl.ident, decl.ident
            ),
        ));
        return None;
    }
    let mut entries: Vec<Entry> = Vec::new();
    let mut distinct = true;
    for path in &decl.entries {
        let entry = Entry::new(path);
        if let Some(first) = entries.iter().find(|seen| seen.variant == entry.variant) {
            let message = if first.written == entry.written {
                format!(
                    "`{}` is listed twice in `{}`: list each tool once",
                    entry.written, decl.ident
                )
            } else {
                format!(
                    "`{}` and `{}` would both be the call variant `{}` of `{}`: \
                     a set cannot hold two tools with the same identifier. Rename one of the handlers",
                    entry.written, first.written, entry.variant, decl.ident
                )
            };
            cx.error_at(path, message);
            distinct = false;
        } else {
            entries.push(entry);
        }
    }
    let runtime = runtime?;
    distinct.then(|| Set {
        attrs: decl.attrs.clone(),
        vis: decl.vis.clone(),
        ident: decl.ident.clone(),
        state: decl.state.clone(),
        entries,
        runtime,
    })
}
