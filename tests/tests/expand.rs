//! `cargo expand` snapshots of representative inputs (`tests/expand/*.rs`, next to their
//! `.expanded.rs`): what `#[tool]` and `toolset!` generate, kept readable and reviewed in
//! diffs. Needs `cargo expand` (`cargo install cargo-expand --locked`).
//!
//! A snapshot holds *our* code only, so that it changes when the macros do and not when
//! serde, schemars or rustc change theirs: the output of the derives the macros ask for
//! (serde's `Deserialize`, schemars' `JsonSchema`, the standard `Clone`, `Debug`, ...) is
//! folded back into a `#[derive(..)]` on the type it was derived for. (Those expansions
//! name private, versioned paths such as serde's `__private229` or rustc's
//! `TrivialClone`: a patch release of either used to fail this test.)
//!
//! After a deliberate change to the generated code:
//! `TOOLSET_EXPAND=overwrite cargo test -p toolset-tests --test expand`, then read the new
//! snapshots.

use std::collections::BTreeMap;
use std::fs;
use std::path::{Path, PathBuf};
use syn::{Attribute, Item, Path as SynPath, Stmt, Type, parse_quote};

#[test]
fn expansions_match_their_snapshots() {
    let inputs = inputs(Path::new("tests/expand"));
    // The glob below would match nothing without inputs, and nothing would be checked.
    assert!(inputs.len() >= 2, "no inputs found in tests/expand");

    // macrotest writes a missing `.expanded.rs` and passes; so each input is copied alone
    // into a fresh folder, expanded there, and the fresh expansion is compared here.
    let fresh = PathBuf::from(env!("CARGO_TARGET_TMPDIR")).join("expand");
    let _ = fs::remove_dir_all(&fresh);
    fs::create_dir_all(&fresh).expect("the fresh expansion folder can be made");
    for input in &inputs {
        let name = input.file_name().expect("an input has a file name");
        fs::copy(input, fresh.join(name)).expect("an input can be copied");
    }
    macrotest::expand(fresh.join("*.rs"));

    let overwrite = std::env::var_os("TOOLSET_EXPAND").is_some_and(|v| v == "overwrite");
    let mut differ = Vec::new();
    for input in &inputs {
        let stem = input
            .file_stem()
            .expect("an input has a stem")
            .to_string_lossy();
        let expanded = format!("{stem}.expanded.rs");
        let raw = fs::read_to_string(fresh.join(&expanded)).expect("macrotest wrote it");
        let ours = only_our_code(&raw);
        let snapshot = input.with_file_name(&expanded);
        if overwrite {
            fs::write(&snapshot, &ours).expect("the snapshot can be written");
            continue;
        }
        let expected = fs::read_to_string(&snapshot).unwrap_or_default();
        if expected != ours {
            differ.push(format!(
                "{} differs from the fresh expansion:\n{}",
                snapshot.display(),
                first_difference(&expected, &ours)
            ));
        }
    }
    assert!(
        differ.is_empty(),
        "{}\n\nAfter a deliberate change: TOOLSET_EXPAND=overwrite cargo test -p toolset-tests \
         --test expand, then read the new snapshots.",
        differ.join("\n\n")
    );
}

/// The input files of `dir`: every `.rs` but the snapshots, in name order.
fn inputs(dir: &Path) -> Vec<PathBuf> {
    let mut inputs: Vec<PathBuf> = fs::read_dir(dir)
        .expect("tests/expand exists")
        .filter_map(Result::ok)
        .map(|entry| entry.path())
        .filter(|path| {
            let name = path.to_string_lossy();
            name.ends_with(".rs") && !name.ends_with(".expanded.rs")
        })
        .collect();
    inputs.sort();
    inputs
}

/// The expansion with every other crate's derive output folded back into a `#[derive]` on
/// its type, pretty-printed.
fn only_our_code(expanded: &str) -> String {
    let mut file = syn::parse_file(expanded).expect("cargo expand printed valid Rust");
    // Which derives to put back on which type, in the order they were found.
    let mut derives: BTreeMap<String, Vec<SynPath>> = BTreeMap::new();
    file.items.retain(|item| match derived(item) {
        Some(found) => {
            for (ty, derive) in found {
                let list = derives.entry(ty).or_default();
                if !list.contains(&derive) {
                    list.push(derive);
                }
            }
            false
        }
        None => true,
    });
    for item in &mut file.items {
        let (ident, attrs) = match item {
            Item::Struct(item) => (&item.ident, &mut item.attrs),
            Item::Enum(item) => (&item.ident, &mut item.attrs),
            _ => continue,
        };
        if let Some(list) = derives.remove(&ident.to_string()) {
            let derive: Attribute = parse_quote!(#[derive(#(#list),*)]);
            // Where the user's source has it: after the docs, before the other attributes.
            let at = attrs
                .iter()
                .take_while(|attr| attr.path().is_ident("doc"))
                .count();
            attrs.insert(at, derive);
        }
    }
    assert!(
        derives.is_empty(),
        "derive output for types the expansion does not define: {:?}",
        derives.keys().collect::<Vec<_>>()
    );
    prettyplease::unparse(&file)
}

/// If `item` is another crate's derive output, the `(type, derive)` pairs it implements:
/// rustc's built-in derives (an `#[automatically_derived]` impl of a `::core` trait), or a
/// serde or schemars derive (a `const _: () = { use .. as _serde; .. }` block).
fn derived(item: &Item) -> Option<Vec<(String, SynPath)>> {
    match item {
        Item::Impl(item) => {
            let (trait_path, _) = item.trait_.as_ref()?;
            let automatic = item
                .attrs
                .iter()
                .any(|attr| attr.path().is_ident("automatically_derived"));
            let core = trait_path.leading_colon.is_some()
                && trait_path
                    .segments
                    .first()
                    .is_some_and(|s| s.ident == "core");
            if !(automatic && core) {
                return None;
            }
            let derive = last_segment(trait_path);
            // Implied by the derives beside them (`Clone` with `Copy`, `PartialEq`).
            let pairs = if derive == "TrivialClone" || derive == "StructuralPartialEq" {
                Vec::new()
            } else {
                vec![(type_name(&item.self_ty)?, syn::parse_str(&derive).ok()?)]
            };
            Some(pairs)
        }
        Item::Const(item) if item.ident == "_" => {
            let syn::Expr::Block(block) = item.expr.as_ref() else {
                return None;
            };
            let stmts = &block.block.stmts;
            // serde's derive opens with `use <path> as _serde;` (or `extern crate serde as
            // _serde;` where no path was given), schemars' with `use <path> as schemars;`
            // (or, where no path was given, with its impl at once).
            let first = match stmts.first()? {
                Stmt::Item(item @ (Item::Use(_) | Item::ExternCrate(_))) => {
                    quote::quote!(#item).to_string()
                }
                _ => String::new(),
            };
            let crate_name = if first.contains("as _serde") {
                "serde"
            } else if first.contains("as schemars") || only_schemars_impls(stmts) {
                "schemars"
            } else {
                return None;
            };
            // The derived impls are the block's top-level impls of that crate's traits.
            let pairs: Vec<_> = stmts
                .iter()
                .filter_map(|stmt| match stmt {
                    Stmt::Item(Item::Impl(imp)) => {
                        let (trait_path, _) = imp.trait_.as_ref()?;
                        let derive = format!("{crate_name}::{}", last_segment(trait_path));
                        Some((type_name(&imp.self_ty)?, syn::parse_str(&derive).ok()?))
                    }
                    _ => None,
                })
                .collect();
            (!pairs.is_empty()).then_some(pairs)
        }
        _ => None,
    }
}

/// Whether a `const _` block holds nothing but derived impls of schemars' traits.
fn only_schemars_impls(stmts: &[Stmt]) -> bool {
    !stmts.is_empty()
        && stmts.iter().all(|stmt| match stmt {
            Stmt::Item(Item::Impl(imp)) => imp.trait_.as_ref().is_some_and(|(path, _)| {
                path.segments.first().is_some_and(|s| s.ident == "schemars")
            }),
            _ => false,
        })
}

fn last_segment(path: &SynPath) -> String {
    path.segments
        .last()
        .map(|segment| segment.ident.to_string())
        .unwrap_or_default()
}

fn type_name(ty: &Type) -> Option<String> {
    match ty {
        Type::Path(path) => Some(last_segment(&path.path)),
        _ => None,
    }
}

/// The first line where two texts part, with a little context, for the failure message.
fn first_difference(expected: &str, actual: &str) -> String {
    let expected: Vec<&str> = expected.lines().collect();
    let actual: Vec<&str> = actual.lines().collect();
    let at = expected
        .iter()
        .zip(&actual)
        .position(|(a, b)| a != b)
        .unwrap_or(expected.len().min(actual.len()));
    let show = |lines: &[&str]| lines[at.min(lines.len())..(at + 5).min(lines.len())].join("\n");
    format!(
        "at line {}:\n--- snapshot\n{}\n--- fresh\n{}",
        at + 1,
        show(&expected),
        show(&actual)
    )
}
