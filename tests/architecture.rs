//! The architecture stays as `ARCHITECTURE.md` draws it: no dependency cycle between the
//! top-level modules of `src/` (read from the `crate::…` paths of the code, comments excluded),
//! and user-facing text cites papers by author and year.

mod common;

use common::*;
use std::collections::{BTreeMap, BTreeSet};
use std::path::Path;

/// Remove comments from Rust source, keeping string and char literals (so that `"//"` in a string
/// does not start a comment).
fn strip_comments(src: &str) -> String {
    let b = src.as_bytes();
    let mut out = String::with_capacity(src.len());
    let mut i = 0;
    while i < b.len() {
        match b[i] {
            b'/' if b.get(i + 1) == Some(&b'/') => {
                while i < b.len() && b[i] != b'\n' {
                    i += 1;
                }
            }
            b'/' if b.get(i + 1) == Some(&b'*') => {
                let mut depth = 0;
                while i < b.len() {
                    if b[i] == b'/' && b.get(i + 1) == Some(&b'*') {
                        depth += 1;
                        i += 2;
                    } else if b[i] == b'*' && b.get(i + 1) == Some(&b'/') {
                        depth -= 1;
                        i += 2;
                        if depth == 0 {
                            break;
                        }
                    } else {
                        i += 1;
                    }
                }
            }
            b'\'' if b.get(i + 1) == Some(&b'\\') => {
                // an escaped char literal: '\n', '\'', '\u{..}'
                let end = src[i + 2..].find('\'').map_or(b.len(), |e| i + 2 + e + 1);
                out.push_str(&src[i..end]);
                i = end;
            }
            b'\'' if b.get(i + 2) == Some(&b'\'') => {
                // a one-byte char literal such as '"'
                out.push_str(&src[i..i + 3]);
                i += 3;
            }
            b'"' => {
                let start = i;
                i += 1;
                while i < b.len() && b[i] != b'"' {
                    if b[i] == b'\\' {
                        i += 1;
                    }
                    i += 1;
                }
                i += 1;
                out.push_str(&src[start..i.min(b.len())]);
            }
            _ => {
                let c = src[i..].chars().next().unwrap();
                out.push(c);
                i += c.len_utf8();
            }
        }
    }
    out
}

/// Top-level modules referenced through `crate::X` in `code` (including `crate::{X, Y::z}`).
fn references(code: &str) -> BTreeSet<String> {
    let mut refs = BTreeSet::new();
    let mut rest = code;
    while let Some(p) = rest.find("crate::") {
        rest = &rest[p + 7..];
        if let Some(group) = rest.strip_prefix('{') {
            let end = group.find('}').unwrap_or(group.len());
            for item in group[..end].split(',') {
                let name: String = item
                    .trim()
                    .chars()
                    .take_while(|c| c.is_alphanumeric() || *c == '_')
                    .collect();
                if !name.is_empty() {
                    refs.insert(name);
                }
            }
        } else {
            let name: String = rest
                .chars()
                .take_while(|c| c.is_alphanumeric() || *c == '_')
                .collect();
            if !name.is_empty() {
                refs.insert(name);
            }
        }
    }
    refs
}

fn walk(dir: &Path, out: &mut Vec<std::path::PathBuf>) {
    for e in std::fs::read_dir(dir).unwrap().flatten() {
        let p = e.path();
        if p.is_dir() {
            walk(&p, out);
        } else if p.extension().is_some_and(|x| x == "rs") {
            out.push(p);
        }
    }
}

/// The module graph of `src/`: module → modules it uses.
fn graph() -> BTreeMap<String, BTreeSet<String>> {
    let src = path("src");
    let mut files = Vec::new();
    walk(&src, &mut files);
    let mut g: BTreeMap<String, BTreeSet<String>> = BTreeMap::new();
    for f in files {
        let rel = f.strip_prefix(&src).unwrap();
        let top = rel
            .components()
            .next()
            .unwrap()
            .as_os_str()
            .to_string_lossy()
            .trim_end_matches(".rs")
            .to_string();
        if top == "main" || top == "lib" {
            continue;
        }
        let code = strip_comments(&std::fs::read_to_string(&f).unwrap());
        let e = g.entry(top.clone()).or_default();
        for r in references(&code) {
            if r != top {
                e.insert(r);
            }
        }
    }
    let names: BTreeSet<String> = g.keys().cloned().collect();
    for v in g.values_mut() {
        v.retain(|r| names.contains(r));
    }
    g
}

/// A cycle through `start`, if there is one (depth-first search).
fn cycle_from(g: &BTreeMap<String, BTreeSet<String>>, start: &str) -> Option<Vec<String>> {
    fn dfs(
        g: &BTreeMap<String, BTreeSet<String>>,
        at: &str,
        start: &str,
        path: &mut Vec<String>,
        seen: &mut BTreeSet<String>,
    ) -> bool {
        for next in g.get(at).into_iter().flatten() {
            if next == start {
                return true;
            }
            if seen.insert(next.clone()) {
                path.push(next.clone());
                if dfs(g, next, start, path, seen) {
                    return true;
                }
                path.pop();
            }
        }
        false
    }
    let mut path = vec![start.to_string()];
    let mut seen = BTreeSet::new();
    dfs(g, start, start, &mut path, &mut seen).then_some(path)
}

#[test]
fn no_dependency_cycle_between_top_level_modules() {
    let g = graph();
    assert!(g.len() > 10, "found only {} modules: {g:?}", g.len());
    for m in g.keys() {
        if let Some(c) = cycle_from(&g, m) {
            panic!("dependency cycle: {} -> {m}", c.join(" -> "));
        }
    }
}

#[test]
fn the_checker_sees_uses_and_ignores_comments() {
    let code = strip_comments("use crate::{a, b::c};\n// crate::d\n/* crate::e */ let s = \"// crate::f\"; let q = b'\"'; crate::g::h();");
    let r = references(&code);
    assert_eq!(
        r,
        ["a", "b", "f", "g"].iter().map(|s| s.to_string()).collect()
    );
    // and a real cycle is found
    let mut g: BTreeMap<String, BTreeSet<String>> = BTreeMap::new();
    g.entry("x".into()).or_default().insert("y".into());
    g.entry("y".into()).or_default().insert("x".into());
    assert_eq!(
        cycle_from(&g, "x"),
        Some(vec!["x".to_string(), "y".to_string()])
    );
}

/// Papers are cited by author and year in `--help`, `evotest list` and the README, never as the
/// project's internal "seed 00N" handles.
#[test]
fn user_facing_text_cites_papers_by_author_and_year() {
    let mut texts = Vec::new();
    for args in [
        vec!["--help"],
        vec!["run", "--help"],
        vec!["path", "--help"],
        vec!["sites", "--help"],
        vec!["bench", "--help"],
        vec!["bench-paths", "--help"],
        vec!["list"],
    ] {
        let o = evotest().args(&args).output().unwrap();
        assert!(o.status.success(), "evotest {args:?} failed");
        texts.push((
            format!("evotest {}", args.join(" ")),
            String::from_utf8_lossy(&o.stdout).to_string(),
        ));
    }
    for f in ["README.md", "ARCHITECTURE.md", "REFERENCES.md"] {
        texts.push((
            f.to_string(),
            std::fs::read_to_string(path(f)).unwrap_or_else(|e| panic!("{f}: {e}")),
        ));
    }
    for (what, t) in texts {
        for (i, line) in t.lines().enumerate() {
            let l = line.to_lowercase();
            let handle = ["seed 000", "seed 001", "seed 002", "seed 003", "seed 004"]
                .iter()
                .any(|s| l.contains(s));
            assert!(
                !handle,
                "{what}:{}: cites a paper as a seed handle: {line}",
                i + 1
            );
        }
    }
}
