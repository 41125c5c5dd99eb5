//! The layers of `toolset/src` run one way: no import cycle between its files, and no
//! import through the crate root's re-exports.
//!
//! Every `.rs` file of the crate is parsed with `syn`, starting from `lib.rs` and following
//! `mod` declarations (`mod.rs`, `#[path]`, inline modules, which belong to their file).
//! Each file's imports are then resolved to the file that *defines* what they name:
//!
//! - a private `use` (at module level or in a block) is an edge to each file it names;
//! - every path in code — types, expressions, patterns, trait bounds, and `a::b` sequences
//!   in macro arguments — whose first segment is `crate`, `$crate`, `self`, `super`, a child
//!   module or a name bound by a `use` of its module, is an edge to the file that defines it;
//! - a `pub use` (a re-export, `pub(crate)` included) is a name, not a dependency: a path
//!   through it resolves to the defining file (`crate::Plan`, with `pub use plan::Plan` in
//!   `lib.rs`, is an edge to `plan.rs`, not to `lib.rs`), and the re-exporting file gets no
//!   edge from it. Glob imports are followed the same way.
//! - a `mod` declaration is not an edge (a parent declaring its children is no import).
//!
//! What it cannot see: a method or associated item reached through a type
//! (`ToolCall::from_openai_chat` is an edge to `call.rs`, where `ToolCall` is, wherever the
//! inherent impl lives), and names a macro's expansion introduces. Code under `#[cfg(test)]`
//! (unit tests and their helpers) is left out: a test may use any layer. Items behind a
//! cargo feature are all read, as if every feature were on.
//!
//! The test fails naming each cycle (a strongly connected component of more than one file):
//! a shortest path `a → b → a` with the import that makes each edge, then every edge inside
//! the component.

use std::collections::{BTreeMap, BTreeSet, HashMap, VecDeque};
use std::fs;
use std::path::{Path, PathBuf};

use syn::visit::Visit;
use syn::{Attribute, ImplItem, Item, TraitItem, UseTree, Visibility};

#[test]
fn no_import_cycle_between_files_of_toolset_src() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("../toolset/src");
    let crate_ = Crate::load(&root);
    let edges = crate_.edges();
    assert!(
        edges.len() > 50,
        "only {} edges were found: the reader is broken",
        edges.len()
    );

    let cycles = cycles(&edges);
    let mut report = String::new();
    for component in &cycles {
        report.push_str(&describe(component, &edges));
    }
    assert!(
        report.is_empty(),
        "{} import cycle(s) between files of toolset/src:\n\n{report}",
        cycles.len()
    );

    // `TOOLSET_LAYERS=print cargo test -p toolset-tests --test layers -- --nocapture`
    // prints each file's layer: 0 imports no other file, n imports files below n only.
    if std::env::var_os("TOOLSET_LAYERS").is_some_and(|v| v == "print") {
        for (layer, files) in layers(&edges).iter().enumerate() {
            println!("{layer}: {}", files.join(", "));
        }
    }
}

/// Inside the crate, code imports an item from the module that holds it, never through the
/// crate root's re-exports (which are the public surface, free to change): `crate::plan::Plan`,
/// not `crate::Plan`. Doc links may name the public path.
#[test]
fn no_path_through_the_crate_roots_reexports() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("../toolset/src");
    let (edges, through_root) = Crate::load(&root).read();
    assert!(edges.len() > 50, "the reader is broken");
    assert!(
        through_root.is_empty(),
        "{} path(s) name an item through a re-export of `lib.rs`; import it from its module:\n{}",
        through_root.len(),
        through_root.into_iter().collect::<Vec<_>>().join("\n")
    );
}

/// The files by layer, in an acyclic graph: a file's layer is one more than the highest
/// layer of the files it imports.
fn layers(edges: &Edges) -> Vec<Vec<String>> {
    fn layer<'a>(file: &'a str, edges: &'a Edges, known: &mut BTreeMap<&'a str, usize>) -> usize {
        if let Some(&layer) = known.get(file) {
            return layer;
        }
        let layer = edges
            .keys()
            .filter(|(from, _)| from == file)
            .map(|(_, to)| layer(to, edges, known) + 1)
            .max()
            .unwrap_or(0);
        known.insert(file, layer);
        layer
    }
    let mut known = BTreeMap::new();
    let mut by_layer: Vec<Vec<String>> = Vec::new();
    for (from, to) in edges.keys() {
        for file in [from, to] {
            let at = layer(file, edges, &mut known);
            if by_layer.len() <= at {
                by_layer.resize(at + 1, Vec::new());
            }
            if !by_layer[at].contains(file) {
                by_layer[at].push(file.clone());
            }
        }
    }
    by_layer
}

/// One module: its file, where its children's files are, and the names it holds.
#[derive(Default)]
struct Module {
    /// The file, relative to `toolset/src`.
    file: String,
    parent: Option<usize>,
    children: HashMap<String, usize>,
    /// Names of the items defined here (functions, types, traits, constants, macros).
    items: BTreeSet<String>,
    /// `use` bindings: the bound name, the path it names, whether it is a re-export.
    uses: HashMap<String, (Vec<String>, bool)>,
    /// Glob imports: the path of the module (or enum) whose names they bring.
    globs: Vec<Vec<String>>,
    /// The module's own items, for the second pass.
    body: Vec<Item>,
}

/// What a path resolves to.
#[derive(Clone, Copy)]
enum Target {
    Module(usize),
    /// An item defined in this module.
    Item(usize),
}

impl Target {
    fn module(self) -> usize {
        match self {
            Target::Module(m) | Target::Item(m) => m,
        }
    }
}

struct Crate {
    root: PathBuf,
    modules: Vec<Module>,
}

/// Edges between files: `(from, to)` → the imports that make it.
type Edges = BTreeMap<(String, String), BTreeSet<String>>;

impl Crate {
    fn load(root: &Path) -> Crate {
        let mut crate_ = Crate {
            root: root.to_path_buf(),
            modules: Vec::new(),
        };
        crate_.load_file(&root.join("lib.rs"), None, None, true);
        crate_
    }

    /// Reads `path` as the module `name` of `parent` (`mod_rs`: its children are beside it).
    fn load_file(&mut self, path: &Path, parent: Option<usize>, name: Option<&str>, mod_rs: bool) {
        let source = fs::read_to_string(path)
            .unwrap_or_else(|e| panic!("{} cannot be read: {e}", path.display()));
        let file = syn::parse_file(&source)
            .unwrap_or_else(|e| panic!("{} does not parse: {e}", path.display()));
        let dir = path.parent().expect("a file is in a folder").to_path_buf();
        let child_dir = if mod_rs {
            dir.clone()
        } else {
            dir.join(path.file_stem().expect("a file has a stem"))
        };
        let relative = path
            .strip_prefix(&self.root)
            .expect("every module file is under toolset/src")
            .to_string_lossy()
            .replace('\\', "/");
        self.add_module(relative, child_dir, &dir, parent, name, file.items);
    }

    fn add_module(
        &mut self,
        file: String,
        child_dir: PathBuf,
        file_dir: &Path,
        parent: Option<usize>,
        name: Option<&str>,
        items: Vec<Item>,
    ) -> usize {
        let id = self.modules.len();
        self.modules.push(Module {
            file: file.clone(),
            parent,
            ..Module::default()
        });
        if let (Some(parent), Some(name)) = (parent, name) {
            self.modules[parent].children.insert(name.to_string(), id);
        }
        let mut body = Vec::new();
        for item in items {
            if is_test_only(item_attrs(&item)) {
                continue;
            }
            match &item {
                Item::Mod(module) => {
                    let name = module.ident.to_string();
                    match &module.content {
                        Some((_, inner)) => {
                            self.add_module(
                                file.clone(),
                                child_dir.join(&name),
                                file_dir,
                                Some(id),
                                Some(&name),
                                inner.clone(),
                            );
                        }
                        None => match path_attribute(&module.attrs) {
                            Some(path) => {
                                self.load_file(&file_dir.join(path), Some(id), Some(&name), true)
                            }
                            None => {
                                let flat = child_dir.join(format!("{name}.rs"));
                                let (path, mod_rs) = if flat.exists() {
                                    (flat, false)
                                } else {
                                    (child_dir.join(&name).join("mod.rs"), true)
                                };
                                self.load_file(&path, Some(id), Some(&name), mod_rs);
                            }
                        },
                    }
                    continue;
                }
                Item::Use(use_) => {
                    let public = !matches!(use_.vis, Visibility::Inherited);
                    let module = &mut self.modules[id];
                    bindings(&use_.tree, &mut Vec::new(), &mut |name, path| match name {
                        Some(name) => {
                            module.uses.insert(name, (path, public));
                        }
                        None => module.globs.push(path),
                    });
                }
                _ => {
                    if let Some(name) = item_name(&item) {
                        self.modules[id].items.insert(name);
                    }
                }
            }
            body.push(item);
        }
        self.modules[id].body = body;
        id
    }

    /// What `path` names, read in `module`.
    fn resolve(&self, module: usize, path: &[String], depth: usize) -> Option<Target> {
        if depth > 32 || path.is_empty() {
            return None;
        }
        let (mut current, rest) = match path[0].as_str() {
            "crate" | "$crate" => (0, &path[1..]),
            "self" => (module, &path[1..]),
            "super" => (self.modules[module].parent?, &path[1..]),
            first => {
                let target = self.lookup(module, first, path.len() == 1, depth)?;
                match target {
                    Target::Item(_) => return Some(target),
                    Target::Module(m) => (m, &path[1..]),
                }
            }
        };
        for (i, segment) in rest.iter().enumerate() {
            if segment == "super" {
                current = self.modules[current].parent?;
                continue;
            }
            let last = i + 1 == rest.len();
            match self.lookup(current, segment, last, depth) {
                Some(Target::Module(m)) => current = m,
                Some(item) => return Some(item),
                // An enum's variant, an associated item, or a name a macro defines: the
                // path depends on the module reached so far.
                None => return Some(Target::Module(current)),
            }
        }
        Some(Target::Module(current))
    }

    /// The name `name` in `module`: a child module, an item defined there, a `use` binding
    /// (followed to what it names) or a name a glob import brings. `last`: the name ends the
    /// path, so an item is preferred to a module of the same name.
    fn lookup(&self, module: usize, name: &str, last: bool, depth: usize) -> Option<Target> {
        let m = &self.modules[module];
        let child = m.children.get(name).map(|&c| Target::Module(c));
        let item = m.items.contains(name).then_some(Target::Item(module));
        let used = || {
            m.uses
                .get(name)
                .and_then(|(path, _)| self.resolve(module, path, depth + 1))
        };
        let found = if last {
            item.or_else(used).or(child)
        } else {
            child.or(item).or_else(used)
        };
        found.or_else(|| {
            m.globs
                .iter()
                .find_map(|glob| match self.resolve(module, glob, depth + 1)? {
                    Target::Module(g) if g != module => self.lookup(g, name, last, depth + 1),
                    _ => None,
                })
        })
    }

    /// Every edge between two files.
    fn edges(&self) -> Edges {
        self.read().0
    }

    /// Every edge between two files, and every path outside `lib.rs` that names an item
    /// through a re-export of the crate root (`crate::Plan` for `crate::plan::Plan`), as
    /// `file: path`.
    fn read(&self) -> (Edges, BTreeSet<String>) {
        let mut edges = Edges::new();
        let mut through_root = BTreeSet::new();
        for id in 0..self.modules.len() {
            let mut reader = Reader {
                crate_: self,
                module: id,
                edges: &mut edges,
                through_root: &mut through_root,
            };
            for item in &self.modules[id].body {
                match item {
                    Item::Use(use_) if !matches!(use_.vis, Visibility::Inherited) => {}
                    Item::Use(use_) => reader.use_tree(&use_.tree),
                    item => reader.visit_item(item),
                }
            }
        }
        (edges, through_root)
    }
}

/// Reads one module's code, adding an edge for each path that names another file.
struct Reader<'a> {
    crate_: &'a Crate,
    module: usize,
    edges: &'a mut Edges,
    /// Paths through a re-export of the crate root (see [`Crate::read`]).
    through_root: &'a mut BTreeSet<String>,
}

impl Reader<'_> {
    fn add(&mut self, path: &[String], shown: String) {
        let Some(target) = self.crate_.resolve(self.module, path, 0) else {
            return;
        };
        let from = &self.crate_.modules[self.module].file;
        // `$crate::` is a macro's path, written for the user's crate: the root is its way in.
        let through_root = path.first().is_some_and(|first| first == "crate")
            && path.get(1).is_some_and(|name| {
                self.crate_.modules[0]
                    .uses
                    .get(name)
                    .is_some_and(|(_, reexport)| *reexport)
            });
        if through_root && self.module != 0 {
            self.through_root
                .insert(format!("{from}: {}", path.join("::")));
        }
        let to = &self.crate_.modules[target.module()].file;
        if from != to {
            self.edges
                .entry((from.clone(), to.clone()))
                .or_default()
                .insert(shown);
        }
    }

    fn use_tree(&mut self, tree: &UseTree) {
        let mut leaves = Vec::new();
        bindings(tree, &mut Vec::new(), &mut |_, path| leaves.push(path));
        for path in leaves {
            let shown = format!("use {}", path.join("::"));
            self.add(&path, shown);
        }
    }
}

impl<'ast> Visit<'ast> for Reader<'_> {
    fn visit_item(&mut self, item: &'ast Item) {
        match item {
            _ if is_test_only(item_attrs(item)) => {}
            // A module is read as its own module.
            Item::Mod(_) => {}
            // A `use` in a block.
            Item::Use(use_) => self.use_tree(&use_.tree),
            item => syn::visit::visit_item(self, item),
        }
    }

    fn visit_impl_item(&mut self, item: &'ast ImplItem) {
        let attrs = match item {
            ImplItem::Const(i) => &i.attrs,
            ImplItem::Fn(i) => &i.attrs,
            ImplItem::Type(i) => &i.attrs,
            ImplItem::Macro(i) => &i.attrs,
            _ => return syn::visit::visit_impl_item(self, item),
        };
        if !is_test_only(attrs) {
            syn::visit::visit_impl_item(self, item);
        }
    }

    fn visit_trait_item(&mut self, item: &'ast TraitItem) {
        let attrs = match item {
            TraitItem::Const(i) => &i.attrs,
            TraitItem::Fn(i) => &i.attrs,
            TraitItem::Type(i) => &i.attrs,
            TraitItem::Macro(i) => &i.attrs,
            _ => return syn::visit::visit_trait_item(self, item),
        };
        if !is_test_only(attrs) {
            syn::visit::visit_trait_item(self, item);
        }
    }

    // Attributes (docs, derives, cfgs) import nothing.
    fn visit_attribute(&mut self, _: &'ast Attribute) {}

    // `pub(super)`, `pub(in crate::a)`: who may see an item, not what it uses.
    fn visit_visibility(&mut self, _: &'ast Visibility) {}

    fn visit_path(&mut self, path: &'ast syn::Path) {
        if path.leading_colon.is_none() {
            let segments: Vec<String> = path.segments.iter().map(|s| s.ident.to_string()).collect();
            let shown = segments.join("::");
            self.add(&segments, shown);
        }
        syn::visit::visit_path(self, path);
    }

    fn visit_macro(&mut self, mac: &'ast syn::Macro) {
        self.visit_path(&mac.path);
        for path in token_paths(mac.tokens.clone()) {
            let shown = format!("{}!(.. {} ..)", path_text(&mac.path), path.join("::"));
            self.add(&path, shown);
        }
    }
}

fn path_text(path: &syn::Path) -> String {
    path.segments
        .iter()
        .map(|s| s.ident.to_string())
        .collect::<Vec<_>>()
        .join("::")
}

/// Every `a::b::c` sequence in a macro's tokens (and `$crate::a`), not preceded by `::`.
fn token_paths(tokens: proc_macro2::TokenStream) -> Vec<Vec<String>> {
    use proc_macro2::TokenTree;
    fn flatten(tokens: proc_macro2::TokenStream, out: &mut Vec<TokenTree>) {
        for token in tokens {
            match token {
                TokenTree::Group(group) => {
                    out.push(TokenTree::Punct(proc_macro2::Punct::new(
                        ';',
                        proc_macro2::Spacing::Alone,
                    )));
                    flatten(group.stream(), out);
                    out.push(TokenTree::Punct(proc_macro2::Punct::new(
                        ';',
                        proc_macro2::Spacing::Alone,
                    )));
                }
                other => out.push(other),
            }
        }
    }
    let is_punct =
        |t: Option<&TokenTree>, c: char| matches!(t, Some(TokenTree::Punct(p)) if p.as_char() == c);
    let mut flat = Vec::new();
    flatten(tokens, &mut flat);
    let mut paths = Vec::new();
    let mut i = 0;
    while i < flat.len() {
        let after_colons =
            i >= 2 && is_punct(flat.get(i - 1), ':') && is_punct(flat.get(i - 2), ':');
        let dollar = i >= 1 && is_punct(flat.get(i - 1), '$');
        let TokenTree::Ident(first) = &flat[i] else {
            i += 1;
            continue;
        };
        if after_colons {
            i += 1;
            continue;
        }
        let first = first.to_string();
        let mut path = vec![if dollar && first == "crate" {
            "$crate".to_string()
        } else {
            first
        }];
        let mut j = i + 1;
        while is_punct(flat.get(j), ':') && is_punct(flat.get(j + 1), ':') {
            match flat.get(j + 2) {
                Some(TokenTree::Ident(next)) => {
                    path.push(next.to_string());
                    j += 3;
                }
                _ => break,
            }
        }
        paths.push(path);
        i = j;
    }
    paths
}

/// Calls `bind(name, path)` for each name a `use` tree binds (`name` is `None` for a glob,
/// whose `path` is then the module's). `_` imports bind nothing but still name their path.
fn bindings(
    tree: &UseTree,
    prefix: &mut Vec<String>,
    bind: &mut dyn FnMut(Option<String>, Vec<String>),
) {
    match tree {
        UseTree::Path(p) => {
            prefix.push(p.ident.to_string());
            bindings(&p.tree, prefix, bind);
            prefix.pop();
        }
        UseTree::Name(n) if n.ident == "self" => {
            let name = prefix.last().cloned();
            bind(name, prefix.clone());
        }
        UseTree::Name(n) => {
            let mut path = prefix.clone();
            path.push(n.ident.to_string());
            bind(Some(n.ident.to_string()), path);
        }
        UseTree::Rename(r) => {
            let mut path = prefix.clone();
            path.push(r.ident.to_string());
            let name = r.rename.to_string();
            bind((name != "_").then_some(name), path);
        }
        UseTree::Glob(_) => bind(None, prefix.clone()),
        UseTree::Group(g) => {
            for tree in &g.items {
                bindings(tree, prefix, bind);
            }
        }
    }
}

fn item_attrs(item: &Item) -> &[Attribute] {
    match item {
        Item::Const(i) => &i.attrs,
        Item::Enum(i) => &i.attrs,
        Item::ExternCrate(i) => &i.attrs,
        Item::Fn(i) => &i.attrs,
        Item::ForeignMod(i) => &i.attrs,
        Item::Impl(i) => &i.attrs,
        Item::Macro(i) => &i.attrs,
        Item::Mod(i) => &i.attrs,
        Item::Static(i) => &i.attrs,
        Item::Struct(i) => &i.attrs,
        Item::Trait(i) => &i.attrs,
        Item::TraitAlias(i) => &i.attrs,
        Item::Type(i) => &i.attrs,
        Item::Union(i) => &i.attrs,
        Item::Use(i) => &i.attrs,
        _ => &[],
    }
}

fn item_name(item: &Item) -> Option<String> {
    let ident = match item {
        Item::Const(i) => &i.ident,
        Item::Enum(i) => &i.ident,
        Item::Fn(i) => &i.sig.ident,
        Item::Macro(i) => i.ident.as_ref()?,
        Item::Static(i) => &i.ident,
        Item::Struct(i) => &i.ident,
        Item::Trait(i) => &i.ident,
        Item::TraitAlias(i) => &i.ident,
        Item::Type(i) => &i.ident,
        Item::Union(i) => &i.ident,
        _ => return None,
    };
    Some(ident.to_string())
}

/// `#[cfg(test)]` or `#[cfg(all(test, ..))]`.
fn is_test_only(attrs: &[Attribute]) -> bool {
    attrs.iter().any(|attr| {
        if !attr.path().is_ident("cfg") {
            return false;
        }
        let Ok(list) = attr.meta.require_list() else {
            return false;
        };
        let tokens = list.tokens.to_string();
        tokens == "test"
            || (tokens.starts_with("all")
                && !tokens.contains("not")
                && tokens
                    .split(|c: char| !c.is_alphanumeric() && c != '_')
                    .any(|w| w == "test"))
    })
}

/// `#[path = "..."]`.
fn path_attribute(attrs: &[Attribute]) -> Option<String> {
    attrs.iter().find_map(|attr| {
        let value = &attr.meta.require_name_value().ok()?.value;
        match value {
            syn::Expr::Lit(syn::ExprLit {
                lit: syn::Lit::Str(s),
                ..
            }) if attr.path().is_ident("path") => Some(s.value()),
            _ => None,
        }
    })
}

/// The strongly connected components of more than one file (Tarjan), each sorted.
fn cycles(edges: &Edges) -> Vec<Vec<String>> {
    let mut graph: BTreeMap<&str, Vec<&str>> = BTreeMap::new();
    for (from, to) in edges.keys() {
        graph.entry(from).or_default().push(to);
        graph.entry(to).or_default();
    }
    struct Tarjan<'a> {
        graph: &'a BTreeMap<&'a str, Vec<&'a str>>,
        index: HashMap<&'a str, usize>,
        low: HashMap<&'a str, usize>,
        stack: Vec<&'a str>,
        on_stack: BTreeSet<&'a str>,
        found: Vec<Vec<String>>,
    }
    impl<'a> Tarjan<'a> {
        fn visit(&mut self, v: &'a str) {
            let n = self.index.len();
            self.index.insert(v, n);
            self.low.insert(v, n);
            self.stack.push(v);
            self.on_stack.insert(v);
            for &w in &self.graph[v] {
                if !self.index.contains_key(w) {
                    self.visit(w);
                    let low = self.low[v].min(self.low[w]);
                    self.low.insert(v, low);
                } else if self.on_stack.contains(w) {
                    let low = self.low[v].min(self.index[w]);
                    self.low.insert(v, low);
                }
            }
            if self.low[v] == self.index[v] {
                let mut component = Vec::new();
                while let Some(w) = self.stack.pop() {
                    self.on_stack.remove(w);
                    component.push(w.to_string());
                    if w == v {
                        break;
                    }
                }
                if component.len() > 1 {
                    component.sort();
                    self.found.push(component);
                }
            }
        }
    }
    let mut tarjan = Tarjan {
        graph: &graph,
        index: HashMap::new(),
        low: HashMap::new(),
        stack: Vec::new(),
        on_stack: BTreeSet::new(),
        found: Vec::new(),
    };
    for &v in graph.keys() {
        if !tarjan.index.contains_key(v) {
            tarjan.visit(v);
        }
    }
    tarjan.found.sort();
    tarjan.found
}

/// One component: a shortest cycle through its first file, then every edge inside it.
fn describe(component: &[String], edges: &Edges) -> String {
    let inside = |f: &str| component.iter().any(|c| c == f);
    let start = component[0].as_str();
    // Breadth-first from `start` back to `start`, inside the component.
    let mut previous: HashMap<&str, &str> = HashMap::new();
    let mut queue = VecDeque::from([start]);
    let mut closing = None;
    while let Some(v) = queue.pop_front() {
        for (from, to) in edges.keys() {
            if from != v || !inside(to) {
                continue;
            }
            if to == start {
                closing = Some(v);
                break;
            }
            if !previous.contains_key(to.as_str()) {
                previous.insert(to, v);
                queue.push_back(to);
            }
        }
        if closing.is_some() {
            break;
        }
    }
    let mut path = vec![start];
    let mut v = closing.expect("a component of more than one file has a cycle");
    while v != start {
        path.push(v);
        v = previous[v];
    }
    path[1..].reverse();
    path.push(start);
    let first_imports = |from: &str, to: &str| {
        let imports = &edges[&(from.to_string(), to.to_string())];
        let mut shown: Vec<&str> = imports.iter().map(String::as_str).take(3).collect();
        if imports.len() > 3 {
            shown.push("…");
        }
        shown.join(", ")
    };
    let mut text = format!(
        "cycle among {}:\n  {}\n",
        component.join(", "),
        path.join(" → ")
    );
    for pair in path.windows(2) {
        text.push_str(&format!(
            "    {} → {}: {}\n",
            pair[0],
            pair[1],
            first_imports(pair[0], pair[1])
        ));
    }
    text.push_str("  every edge inside:\n");
    for (from, to) in edges.keys() {
        if inside(from) && inside(to) {
            text.push_str(&format!("    {from} → {to}: {}\n", first_imports(from, to)));
        }
    }
    text.push('\n');
    text
}
