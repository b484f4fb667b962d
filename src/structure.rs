//! Tests of the source's shape, read from `src/`: no two modules import each other, directly
//! or round a loop, and the module map of `lib.rs` names every module and nothing else.
//!
//! A module is a file (a folder's `mod.rs` is the folder); it imports another when it names
//! it by a `crate::…`, `super::…` or `self::…` path (a `use` group counts each of its paths;
//! comments and string literals are not read). A path names the longest module it starts
//! with; naming the crate root or itself is no edge.
#![allow(clippy::unwrap_used)]

use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};

use crate::layers::files;

/// A module's path from the crate root (`["service", "night", "access"]`).
type Module = Vec<String>;
type Graph = BTreeMap<Module, BTreeSet<Module>>;

fn src() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("src")
}

/// The module file `rel` (under `src/`) is; `main.rs` is the binary, no module of the crate.
fn module_of(rel: &Path) -> Option<Module> {
    let mut parts: Module = rel
        .iter()
        .map(|p| p.to_string_lossy().into_owned())
        .collect();
    let last = parts.pop()?.strip_suffix(".rs")?.to_string();
    match last.as_str() {
        "main" if parts.is_empty() => return None,
        "lib" if parts.is_empty() => {}
        "mod" => {}
        _ => parts.push(last),
    }
    Some(parts)
}

/// `text` without its comments, and its string and character literals emptied: what they
/// hold names no module.
fn code_of(text: &str) -> String {
    let b = text.as_bytes();
    let mut out = String::with_capacity(text.len());
    let mut i = 0;
    while i < b.len() {
        let rest = &text[i..];
        if rest.starts_with("//") {
            i += rest.find('\n').unwrap_or(rest.len());
        } else if rest.starts_with("/*") {
            i += rest.find("*/").map_or(rest.len(), |e| e + 2);
        } else if let Some(len) = raw_string_len(text, i) {
            out.push_str("\"\"");
            i += len;
        } else if b[i] == b'"' {
            let mut j = i + 1;
            while j < b.len() && b[j] != b'"' {
                j += if b[j] == b'\\' { 2 } else { 1 };
            }
            out.push_str("\"\"");
            i = j + 1;
        } else if b[i] == b'\'' && b.get(i + 1) == Some(&b'\\') {
            i += 2 + text[i + 2..].find('\'').unwrap_or(0) + 1;
            out.push_str("' '");
        } else if b[i] == b'\'' && rest.chars().nth(2) == Some('\'') {
            i += 2 + rest.chars().nth(1).unwrap().len_utf8();
            out.push_str("' '");
        } else {
            let c = rest.chars().next().unwrap();
            out.push(c);
            i += c.len_utf8();
        }
    }
    out
}

/// The length of the raw string literal (`r"…"`, `r#"…"#`) starting at `i`, if one does.
fn raw_string_len(text: &str, i: usize) -> Option<usize> {
    let before = text[..i].chars().next_back();
    if before.is_some_and(|c| c.is_alphanumeric() || c == '_') {
        return None;
    }
    let rest = text[i..].strip_prefix('r')?;
    let hashes = rest.len() - rest.trim_start_matches('#').len();
    let body = rest[hashes..].strip_prefix('"')?;
    let end = format!("\"{}", "#".repeat(hashes));
    Some(1 + hashes + 1 + body.find(&end)? + end.len())
}

/// The paths of the path or `use` tree at the start of `code`, groups expanded:
/// `a::{b, c::D}` is `a::b` and `a::c::D`.
fn paths_at(code: &str) -> Vec<Vec<String>> {
    let mut at = 0;
    tree(code.as_bytes(), &mut at)
}

fn tree(b: &[u8], at: &mut usize) -> Vec<Vec<String>> {
    let mut segs = Vec::new();
    loop {
        while b.get(*at).is_some_and(u8::is_ascii_whitespace) {
            *at += 1;
        }
        if b.get(*at) == Some(&b'{') {
            *at += 1;
            let mut found = Vec::new();
            loop {
                while b
                    .get(*at)
                    .is_some_and(|c| c.is_ascii_whitespace() || *c == b',')
                {
                    *at += 1;
                }
                if b.get(*at).is_none_or(|c| *c == b'}') {
                    *at += 1;
                    break;
                }
                for sub in tree(b, at) {
                    found.push([segs.clone(), sub].concat());
                }
            }
            return found;
        }
        let start = *at;
        while b
            .get(*at)
            .is_some_and(|c| c.is_ascii_alphanumeric() || *c == b'_' || *c == b'*')
        {
            *at += 1;
        }
        if *at == start {
            return vec![segs];
        }
        segs.push(String::from_utf8_lossy(&b[start..*at]).into_owned());
        if b[*at..].starts_with(b"::") {
            *at += 2;
        } else {
            return vec![segs];
        }
    }
}

/// How many inline modules (`mod tests { … }`) enclose each `{`/`}` of `code`, as
/// (position, depth after it).
fn inline_depths(code: &str) -> Vec<(usize, usize)> {
    let mut stack: Vec<bool> = Vec::new();
    let mut marks = Vec::new();
    let b = code.as_bytes();
    for (i, c) in b.iter().enumerate() {
        match c {
            b'{' => {
                let head = code[..i].trim_end();
                let word_start = head.rfind(|c: char| !(c.is_alphanumeric() || c == '_'));
                let before = word_start.map_or(head, |w| head[..=w].trim_end());
                let is_mod = before.ends_with("mod")
                    && !before[..before.len() - 3]
                        .ends_with(|c: char| c.is_alphanumeric() || c == '_');
                stack.push(is_mod);
            }
            b'}' => {
                stack.pop();
            }
            _ => continue,
        }
        marks.push((i, stack.iter().filter(|m| **m).count()));
    }
    marks
}

/// The modules of `modules` that the code of module `me` names.
fn edges(modules: &BTreeSet<Module>, me: &Module, code: &str) -> BTreeSet<Module> {
    let marks = inline_depths(code);
    let mut found = BTreeSet::new();
    for start in ["crate::", "super::", "self::"] {
        for (at, _) in code.match_indices(start) {
            let before = code[..at].chars().next_back();
            if before.is_some_and(|c| c.is_alphanumeric() || c == '_' || c == ':') {
                continue;
            }
            let depth = marks
                .iter()
                .take_while(|(i, _)| *i < at)
                .last()
                .map_or(0, |m| m.1);
            for path in paths_at(&code[at..]) {
                let target = resolve(me, depth, &path);
                if let Some(m) = longest_module(modules, &target)
                    && !m.is_empty()
                    && m != *me
                {
                    found.insert(m);
                }
            }
        }
    }
    found
}

/// `path` as seen from module `me` inside `depth` inline modules, from the crate root.
fn resolve(me: &Module, depth: usize, path: &[String]) -> Module {
    let mut segs = path.iter().peekable();
    let mut base: Vec<Option<&String>> = me.iter().map(Some).collect();
    base.extend(std::iter::repeat_n(None, depth));
    if segs.peek().is_some_and(|s| *s == "crate") {
        segs.next();
        base.clear();
    }
    while let Some(s) = segs.next_if(|s| *s == "super" || *s == "self") {
        if s == "super" {
            base.pop();
        }
    }
    let mut out: Module = base.into_iter().flatten().cloned().collect();
    out.extend(segs.filter(|s| *s != "self").cloned());
    out
}

fn longest_module(modules: &BTreeSet<Module>, path: &[String]) -> Option<Module> {
    (0..=path.len())
        .rev()
        .map(|n| path[..n].to_vec())
        .find(|m| modules.contains(m))
}

/// The import graph of `src/`.
fn graph() -> Graph {
    let src = src();
    let mut paths = Vec::new();
    files(&src, &mut paths);
    let read: Vec<(Module, String)> = paths
        .iter()
        .filter_map(|p| {
            let m = module_of(p.strip_prefix(&src).unwrap())?;
            Some((m, code_of(&std::fs::read_to_string(p).unwrap())))
        })
        .collect();
    let modules: BTreeSet<Module> = read.iter().map(|(m, _)| m.clone()).collect();
    read.iter()
        .map(|(m, code)| (m.clone(), edges(&modules, m, code)))
        .collect()
}

/// The strongly connected components of `graph` with more than one module (Tarjan).
fn circles(graph: &Graph) -> Vec<Vec<Module>> {
    struct Walk<'g> {
        graph: &'g Graph,
        index: BTreeMap<&'g Module, (usize, usize)>,
        stack: Vec<&'g Module>,
        found: Vec<Vec<Module>>,
    }
    impl<'g> Walk<'g> {
        fn visit(&mut self, v: &'g Module) {
            let n = self.index.len();
            self.index.insert(v, (n, n));
            self.stack.push(v);
            for w in self.graph.get(v).into_iter().flatten() {
                let low = match self.index.get(w) {
                    None => {
                        self.visit(w);
                        self.index[w].1
                    }
                    Some(&(i, _)) if self.stack.contains(&w) => i,
                    Some(_) => continue,
                };
                let entry = self.index.get_mut(v).unwrap();
                entry.1 = entry.1.min(low);
            }
            let (i, low) = self.index[v];
            if i == low {
                let at = self.stack.iter().rposition(|m| *m == v).unwrap();
                let component: Vec<Module> = self.stack.drain(at..).cloned().collect();
                if component.len() > 1 {
                    self.found.push(component);
                }
            }
        }
    }
    let mut walk = Walk {
        graph,
        index: BTreeMap::new(),
        stack: Vec::new(),
        found: Vec::new(),
    };
    for v in graph.keys() {
        if !walk.index.contains_key(v) {
            walk.visit(v);
        }
    }
    walk.found
}

#[test]
fn no_two_modules_import_each_other() {
    let graph = graph();
    let shown: Vec<String> = circles(&graph)
        .iter()
        .map(|c| {
            c.iter()
                .map(|m| m.join("::"))
                .collect::<Vec<_>>()
                .join(", ")
        })
        .collect();
    assert!(
        shown.is_empty(),
        "modules importing each other:\n{}",
        shown.join("\n")
    );
}

#[test]
fn a_circle_is_found_directly_and_round_a_loop() {
    let m = |s: &str| -> Module { s.split("::").map(str::to_string).collect() };
    let modules: BTreeSet<Module> = ["", "a", "a::b", "a::c", "d"]
        .iter()
        .map(|s| m(s).into_iter().filter(|x| !x.is_empty()).collect())
        .collect();
    // b → c (in a group), c → d, d → b: a loop of three; a (mod.rs) → nothing.
    let b = edges(
        &modules,
        &m("a::b"),
        &code_of("use super::{c::X, c::{self}};\n// crate::d"),
    );
    let c = edges(
        &modules,
        &m("a::c"),
        &code_of("fn f() { crate::d::g(\"crate::a\") }"),
    );
    let d = edges(
        &modules,
        &m("d"),
        &code_of("use crate::{a::b::Y};\nmod tests { use super::*; }"),
    );
    assert_eq!(b, BTreeSet::from([m("a::c")]));
    assert_eq!(c, BTreeSet::from([m("d")]));
    assert_eq!(d, BTreeSet::from([m("a::b")]));
    let mut graph: Graph = [(m("a::b"), b), (m("a::c"), c), (m("d"), d)].into();
    assert_eq!(circles(&graph).len(), 1);
    graph.get_mut(&m("d")).unwrap().clear();
    assert!(circles(&graph).is_empty());
    graph.get_mut(&m("a::c")).unwrap().insert(m("a::b"));
    assert_eq!(circles(&graph), vec![vec![m("a::b"), m("a::c")]]);
}

/// The module map: the `//!` lines of `lib.rs`.
fn module_map() -> String {
    let lib = std::fs::read_to_string(src().join("lib.rs")).unwrap();
    lib.lines()
        .filter_map(|l| l.strip_prefix("//!"))
        .collect::<Vec<_>>()
        .join("\n")
}

/// Every `` `name` `` of `text` that could be a module's name.
fn named(text: &str) -> BTreeSet<String> {
    text.split('`')
        .skip(1)
        .step_by(2)
        .filter(|w| {
            !w.is_empty()
                && w.chars()
                    .all(|c| c.is_ascii_lowercase() || c.is_ascii_digit() || c == '_')
        })
        .map(str::to_string)
        .collect()
}

/// The modules `mod x;` declares in `lib.rs` and in each folder of `src/` (its `mod.rs`):
/// the first and second levels.
fn declared() -> Vec<(String, String)> {
    let src = src();
    let mut heads = vec![src.join("lib.rs")];
    for entry in std::fs::read_dir(&src).unwrap() {
        heads.push(entry.unwrap().path().join("mod.rs"));
    }
    let mut found = Vec::new();
    for head in heads.iter().filter(|h| h.exists()) {
        let code = code_of(&std::fs::read_to_string(head).unwrap());
        for line in code.lines() {
            let line = line.trim();
            let line = line
                .strip_prefix("pub ")
                .or_else(|| line.strip_prefix("pub(crate) "))
                .unwrap_or(line);
            if let Some(name) = line.strip_prefix("mod ").and_then(|l| l.strip_suffix(';')) {
                let shown = head.strip_prefix(&src).unwrap().display().to_string();
                found.push((shown, name.trim().to_string()));
            }
        }
    }
    found
}

#[test]
fn the_module_map_names_every_module() {
    let map = named(&module_map());
    let missing: Vec<String> = declared()
        .into_iter()
        .filter(|(_, name)| !map.contains(name))
        .map(|(file, name)| format!("{name} (declared in src/{file})"))
        .collect();
    assert!(
        missing.is_empty(),
        "the map of lib.rs does not name: {missing:?}"
    );
}

#[test]
fn the_module_map_names_nothing_that_does_not_exist() {
    // Every file and folder of src/ and of the engine's crate (rules/src) is a module's name;
    // the engine is `rules` here and `spades_rules` as a crate.
    let mut names = BTreeSet::from(["rules".to_string(), "spades_rules".to_string()]);
    let mut paths = Vec::new();
    files(&src(), &mut paths);
    files(&src().join("../rules/src"), &mut paths);
    for path in &paths {
        names.insert(path.file_stem().unwrap().to_string_lossy().into_owned());
        let folder = path.parent().unwrap().file_name().unwrap();
        names.insert(folder.to_string_lossy().into_owned());
    }
    let unknown: Vec<String> = named(&module_map()).difference(&names).cloned().collect();
    assert!(
        unknown.is_empty(),
        "the map of lib.rs names modules that do not exist: {unknown:?}"
    );
}
