//! The plain structs of a crate, read from its sources, so that a parameter of a struct type can
//! be built field by field (`geo::Point { x: …, y: … }`).
//!
//! [`CrateTypes::scan`] follows the module tree from the library's root file (`mod name;` to
//! `name.rs` or `name/mod.rs`, inline `mod name { … }`; `#[cfg(test)]` modules are skipped;
//! `#[path = "…"]` is not followed) and records every `struct`: its module path from the crate root, whether it is
//! `pub`, generic (over types or constants; lifetimes are fine) or `#[non_exhaustive]`, and its
//! fields with their types as written and whether each is `pub`. This is a reader of the source,
//! not a compiler: a struct defined by a macro is not seen, and a re-export (`pub use`) is not
//! followed (the harness names a struct by the module that defines it).

use super::sig::{split_top, strip_comments};
use anyhow::{anyhow, bail, Result};
use std::path::{Path, PathBuf};

/// One field of a struct (a tuple struct's fields are named `0`, `1`, …).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct FieldDef {
    /// The field's name, or its index in a tuple struct.
    pub name: String,
    /// Its type as written.
    pub ty: String,
    /// Whether it is `pub` (exactly `pub`, not `pub(crate)`): only then can code outside the
    /// crate (the harness, `tests.rs`) set it.
    pub public: bool,
}

/// The shape of a struct's body.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum StructKind {
    /// `struct P { x: i32, … }`
    Named(Vec<FieldDef>),
    /// `struct P(i32, …);`
    Tuple(Vec<FieldDef>),
    /// `struct P;`
    Unit,
}

/// A struct of the crate.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct StructDef {
    /// Its name.
    pub name: String,
    /// The module that defines it, from the crate root (empty for the root).
    pub module: Vec<String>,
    /// `pub struct` (exactly `pub`).
    pub public: bool,
    /// Generic over types or constants.
    pub generic: bool,
    /// `#[non_exhaustive]`.
    pub non_exhaustive: bool,
    /// Its fields.
    pub kind: StructKind,
}

impl StructDef {
    /// Its path from the crate root: `geo::Point`.
    pub fn path(&self) -> String {
        let mut p = self.module.clone();
        p.push(self.name.clone());
        p.join("::")
    }
}

/// The structs of a crate (see module docs).
#[derive(Clone, Debug, Default)]
pub struct CrateTypes {
    /// Every struct found, in the order of the module tree.
    pub structs: Vec<StructDef>,
    /// The names of the enums found (for the error that a parameter's type is one).
    pub enums: Vec<String>,
}

/// `src` with the contents of string and character literals replaced by spaces (their
/// delimiters kept), so that braces inside them do not count. Lifetimes (`'a`) are kept.
fn blank_literals(src: &str) -> String {
    let b: Vec<char> = src.chars().collect();
    let mut out = String::with_capacity(src.len());
    let mut i = 0;
    while i < b.len() {
        let c = b[i];
        // raw strings: r"…", r#"…"#, br"…"
        if (c == 'r' || (c == 'b' && b.get(i + 1) == Some(&'r')))
            && (i == 0 || !(b[i - 1].is_alphanumeric() || b[i - 1] == '_'))
        {
            let mut j = i + if c == 'b' { 2 } else { 1 };
            let mut hashes = 0;
            while b.get(j) == Some(&'#') {
                hashes += 1;
                j += 1;
            }
            if b.get(j) == Some(&'"') {
                for ch in &b[i..=j] {
                    out.push(*ch);
                }
                j += 1;
                loop {
                    if j >= b.len() {
                        break;
                    }
                    if b[j] == '"' && (0..hashes).all(|k| b.get(j + 1 + k) == Some(&'#')) {
                        out.push('"');
                        for _ in 0..hashes {
                            out.push('#');
                        }
                        j += 1 + hashes;
                        break;
                    }
                    out.push(if b[j] == '\n' { '\n' } else { ' ' });
                    j += 1;
                }
                i = j;
                continue;
            }
        }
        if c == '"' {
            out.push('"');
            i += 1;
            while i < b.len() && b[i] != '"' {
                if b[i] == '\\' {
                    out.push(' ');
                    i += 1;
                }
                if i < b.len() {
                    out.push(if b[i] == '\n' { '\n' } else { ' ' });
                    i += 1;
                }
            }
            if i < b.len() {
                out.push('"');
                i += 1;
            }
            continue;
        }
        if c == '\'' {
            // a character literal: 'x', '\n', '\u{…}'; otherwise a lifetime
            let end = if b.get(i + 1) == Some(&'\\') {
                (i + 2..b.len().min(i + 14)).find(|&j| b[j] == '\'')
            } else if b.get(i + 2) == Some(&'\'') {
                Some(i + 2)
            } else {
                None
            };
            if let Some(e) = end {
                out.push('\'');
                for _ in i + 1..e {
                    out.push(' ');
                }
                out.push('\'');
                i = e + 1;
                continue;
            }
        }
        out.push(c);
        i += 1;
    }
    out
}

/// The text from `open` (an opening bracket at byte `at` of `s`) to its matching close,
/// exclusive of both, and the index after the close.
fn matching(s: &str, at: usize, open: char, close: char) -> Option<(&str, usize)> {
    let mut depth = 0i32;
    for (i, ch) in s[at..].char_indices() {
        if ch == open {
            depth += 1;
        } else if ch == close {
            depth -= 1;
            if depth == 0 {
                return Some((&s[at + open.len_utf8()..at + i], at + i + close.len_utf8()));
            }
        }
    }
    None
}

/// Attributes and visibility of a field or item as written before it: (`pub`, rest).
fn strip_vis(s: &str) -> (bool, &str) {
    let mut t = s.trim();
    // leading attributes #[…]
    while t.starts_with("#[") {
        match matching(t, 1, '[', ']') {
            Some((_, end)) => t = t[end..].trim_start(),
            None => break,
        }
    }
    if let Some(r) = t.strip_prefix("pub") {
        if r.starts_with(char::is_whitespace) {
            return (true, r.trim_start());
        }
        if r.trim_start().starts_with('(') {
            if let Some((_, end)) = matching(r, r.find('(').unwrap_or(0), '(', ')') {
                return (false, r[end..].trim_start());
            }
        }
    }
    (false, t)
}

fn fields_of(body: &str, tuple: bool) -> Vec<FieldDef> {
    split_top(body)
        .iter()
        .enumerate()
        .filter(|(_, f)| !f.trim().is_empty())
        .map(|(i, f)| {
            let (public, rest) = strip_vis(f);
            if tuple {
                FieldDef {
                    name: i.to_string(),
                    ty: rest.trim().to_string(),
                    public,
                }
            } else {
                let (n, t) = rest.split_once(':').unwrap_or((rest, ""));
                FieldDef {
                    name: n.trim().to_string(),
                    ty: t.trim().to_string(),
                    public,
                }
            }
        })
        .collect()
}

fn is_ident_char(c: char) -> bool {
    c.is_alphanumeric() || c == '_'
}

/// The identifier starting at byte `i` of `s`, if any.
fn ident_at(s: &str, i: usize) -> Option<&str> {
    let r = &s[i..];
    let end = r.find(|c: char| !is_ident_char(c)).unwrap_or(r.len());
    (end > 0).then(|| &r[..end])
}

impl CrateTypes {
    /// Scan the crate whose library root is `lib` (e.g. `src/lib.rs`). Unreadable module files
    /// are skipped (the crate compiled, so they are not modules of this configuration).
    pub fn scan(lib: &Path) -> CrateTypes {
        let mut out = CrateTypes::default();
        let dir = lib.parent().unwrap_or(Path::new(".")).to_path_buf();
        out.scan_file(lib, vec![], &dir, 0);
        out
    }

    /// Scan `file`, the module `module`, whose child modules' files are in `child_dir`.
    fn scan_file(&mut self, file: &Path, module: Vec<String>, child_dir: &Path, depth: usize) {
        if depth > 32 {
            return;
        }
        let Ok(src) = std::fs::read_to_string(file) else {
            return;
        };
        let text = blank_literals(&strip_comments(&src));
        self.scan_text(&text, module, child_dir, depth);
    }

    fn scan_text(&mut self, t: &str, module: Vec<String>, child_dir: &Path, depth: usize) {
        let mut i = 0;
        // where the current item's attributes and visibility begin
        let mut item_start = 0;
        while i < t.len() {
            let c = t[i..].chars().next().unwrap_or(' ');
            if c == ';' || c == '}' || c == '{' {
                i += 1;
                item_start = i;
                continue;
            }
            if !(c.is_alphabetic() || c == '_')
                || (i > 0 && t[..i].chars().next_back().is_some_and(is_ident_char))
            {
                i += c.len_utf8();
                continue;
            }
            let word = ident_at(t, i).unwrap_or("");
            let after = i + word.len();
            let prefix = &t[item_start..i];
            match word {
                "mod" => {
                    let rest = &t[after..];
                    let ws = rest.len() - rest.trim_start().len();
                    let Some(name) = ident_at(t, after + ws) else {
                        i = after;
                        continue;
                    };
                    let name = name.to_string();
                    let p = after + ws + name.len();
                    let rest = t[p..].trim_start();
                    let p2 = p + (t[p..].len() - rest.len());
                    let test_only = prefix.contains("cfg(test)");
                    let mut m = module.clone();
                    m.push(name.clone());
                    if rest.starts_with(';') {
                        if !test_only {
                            let candidates = [
                                child_dir.join(format!("{name}.rs")),
                                child_dir.join(&name).join("mod.rs"),
                            ];
                            if let Some(f) = candidates.iter().find(|f| f.is_file()) {
                                let cd = child_dir.join(&name);
                                self.scan_file(f, m, &cd, depth + 1);
                            }
                        }
                        i = p2 + 1;
                        item_start = i;
                    } else if rest.starts_with('{') {
                        match matching(t, p2, '{', '}') {
                            Some((body, end)) => {
                                if !test_only {
                                    let cd = child_dir.join(&name);
                                    self.scan_text(body, m, &cd, depth + 1);
                                }
                                i = end;
                                item_start = i;
                            }
                            None => i = t.len(),
                        }
                    } else {
                        i = after;
                    }
                }
                "enum" => {
                    let rest = &t[after..];
                    let ws = rest.len() - rest.trim_start().len();
                    if let Some(name) = ident_at(t, after + ws) {
                        if !self.enums.iter().any(|e| e == name) {
                            self.enums.push(name.to_string());
                        }
                    }
                    i = after;
                }
                "struct" => {
                    let rest = &t[after..];
                    let ws = rest.len() - rest.trim_start().len();
                    let Some(name) = ident_at(t, after + ws) else {
                        i = after;
                        continue;
                    };
                    let name = name.to_string();
                    let mut p = after + ws + name.len();
                    let (public, _) = strip_vis(prefix.rsplit(']').next().unwrap_or(prefix));
                    let public = public || prefix.trim_end().ends_with("pub");
                    let non_exhaustive = prefix.contains("non_exhaustive");
                    let mut generic = false;
                    let r = t[p..].trim_start();
                    p += t[p..].len() - r.len();
                    if r.starts_with('<') {
                        if let Some((g, end)) = matching(t, p, '<', '>') {
                            generic = split_top(g).iter().any(|x| !x.trim().starts_with('\''));
                            p = end;
                        }
                    }
                    // skip a where clause up to the body
                    let body_at = t[p..].find(['{', '(', ';']).map(|k| p + k);
                    let Some(b) = body_at else {
                        i = t.len();
                        continue;
                    };
                    let (kind, end) = match t[b..].chars().next() {
                        Some('{') => match matching(t, b, '{', '}') {
                            Some((body, end)) => (StructKind::Named(fields_of(body, false)), end),
                            None => break,
                        },
                        Some('(') => match matching(t, b, '(', ')') {
                            Some((body, end)) => (StructKind::Tuple(fields_of(body, true)), end),
                            None => break,
                        },
                        _ => (StructKind::Unit, b + 1),
                    };
                    self.structs.push(StructDef {
                        name,
                        module: module.clone(),
                        public,
                        generic,
                        non_exhaustive,
                        kind,
                    });
                    i = end;
                    item_start = i;
                }
                _ => i = after,
            }
        }
    }

    /// The struct that the type path `written` (`Point`, `geo::Point`, `crate::geo::Point`,
    /// `self::Point`, `super::Point`, `mycrate::geo::Point`) names in module `from` (the
    /// function's module, from the crate root) of crate `crate_name`.
    ///
    /// A path with modules is resolved from the crate root or `from`; a bare name is the struct
    /// of that name in `from`, else the only struct of that name in the crate (brought in by a
    /// `use`). Errors (one line): no such struct, or several and none in `from`.
    pub fn find(&self, written: &str, from: &[String], crate_name: &str) -> Result<&StructDef> {
        let mut segs: Vec<&str> = written.split("::").collect();
        let name = segs.pop().unwrap_or_default();
        let mut module: Option<Vec<String>> = None;
        if !segs.is_empty() {
            let mut base: Vec<String> = match segs[0] {
                "crate" => {
                    segs.remove(0);
                    vec![]
                }
                s if s == crate_name => {
                    segs.remove(0);
                    vec![]
                }
                "self" => {
                    segs.remove(0);
                    from.to_vec()
                }
                _ => from.to_vec(),
            };
            for s in &segs {
                if *s == "super" {
                    base.pop();
                } else {
                    base.push(s.to_string());
                }
            }
            module = Some(base);
        }
        let named: Vec<&StructDef> = self.structs.iter().filter(|s| s.name == name).collect();
        let found = match &module {
            Some(m) => named
                .iter()
                .find(|s| &s.module == m)
                // a relative path that is in fact from the root (`geo::Point` used in the root)
                .or_else(|| {
                    named.iter().find(|s| {
                        s.module
                            .ends_with(&segs.iter().map(|x| x.to_string()).collect::<Vec<_>>())
                    })
                })
                .copied(),
            None => named
                .iter()
                .find(|s| s.module == from)
                .copied()
                .or(if named.len() == 1 {
                    Some(named[0])
                } else {
                    None
                }),
        };
        match found {
            Some(s) => Ok(s),
            None if named.len() > 1 => bail!(
                "`{written}` is ambiguous: structs of that name are defined in {}",
                named
                    .iter()
                    .map(|s| format!("`{}`", s.path()))
                    .collect::<Vec<_>>()
                    .join(", ")
            ),
            None if self.enums.iter().any(|e| e == name) => Err(anyhow!(
                "`{written}` is an enum of the crate, and enums are not supported yet"
            )),
            None => Err(anyhow!(
                "`{written}` is not a struct defined in the crate's sources"
            )),
        }
    }
}

/// The library root file of the crate in `dir`: `[lib] path` of its `Cargo.toml`, else
/// `src/lib.rs`.
pub fn lib_root(dir: &Path) -> PathBuf {
    let manifest = std::fs::read_to_string(dir.join("Cargo.toml")).unwrap_or_default();
    let mut in_lib = false;
    for line in manifest.lines() {
        let l = line.trim();
        if l.starts_with('[') {
            in_lib = l == "[lib]";
            continue;
        }
        if in_lib {
            if let Some(v) = l
                .strip_prefix("path")
                .map(str::trim_start)
                .and_then(|r| r.strip_prefix('='))
            {
                return dir.join(v.trim().trim_matches('"'));
            }
        }
    }
    dir.join("src/lib.rs")
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A parameter of an enum type of the crate is refused as an enum, not as a missing struct.
    #[test]
    fn an_enum_of_the_crate_is_named_as_one() {
        let d = tempfile::tempdir().unwrap();
        let lib = d.path().join("lib.rs");
        std::fs::write(
            &lib,
            "pub enum Shape { Circle(f64), Square { side: f64 } }\npub struct P { pub x: i32 }\n",
        )
        .unwrap();
        let t = CrateTypes::scan(&lib);
        let e = t.find("Shape", &[], "k").unwrap_err().to_string();
        assert!(e.contains("`Shape` is an enum of the crate"), "{e}");
        let e = t.find("Nope", &[], "k").unwrap_err().to_string();
        assert!(e.contains("is not a struct defined"), "{e}");
        assert!(t.find("P", &[], "k").is_ok());
    }

    #[test]
    fn finds_structs_in_the_module_tree() {
        let d = tempfile::tempdir().unwrap();
        let src = d.path().join("src");
        std::fs::create_dir_all(src.join("geo")).unwrap();
        std::fs::write(
            src.join("lib.rs"),
            "//! x { \n pub mod geo;\n mod a { pub struct Point(pub i32, i64); }\n/// doc\n#[derive(Clone)]\npub struct Req<'a> { pub name: &'a str, pub(crate) id: u32, }\n\
             #[cfg(test)] mod tests { struct Point { x: u8 } }\n pub fn s() -> &'static str { \"}{\" }\n pub struct G<T> { pub t: T }\n",
        )
        .unwrap();
        std::fs::write(src.join("geo").join("mod.rs"), "pub mod shapes;\n#[non_exhaustive]\npub struct Point { pub x: i32, pub y: (u8, char) }\n").unwrap();
        std::fs::write(
            src.join("geo").join("shapes.rs"),
            "pub struct Unit;\nstruct Hidden { pub c: char }\n",
        )
        .unwrap();
        let t = CrateTypes::scan(&src.join("lib.rs"));
        let names: Vec<String> = t.structs.iter().map(|s| s.path()).collect();
        assert_eq!(
            names,
            [
                "geo::shapes::Unit",
                "geo::shapes::Hidden",
                "geo::Point",
                "a::Point",
                "Req",
                "G"
            ]
        );
        let p = t.find("Point", &["geo".to_string()], "k").unwrap();
        assert!(p.public && p.non_exhaustive);
        assert_eq!(
            p.kind,
            StructKind::Named(vec![
                FieldDef {
                    name: "x".into(),
                    ty: "i32".into(),
                    public: true
                },
                FieldDef {
                    name: "y".into(),
                    ty: "(u8, char)".into(),
                    public: true
                },
            ])
        );
        assert_eq!(
            t.find("a::Point", &[], "k").unwrap().kind,
            StructKind::Tuple(vec![
                FieldDef {
                    name: "0".into(),
                    ty: "i32".into(),
                    public: true
                },
                FieldDef {
                    name: "1".into(),
                    ty: "i64".into(),
                    public: false
                },
            ])
        );
        assert!(t
            .find("Point", &[], "k")
            .unwrap_err()
            .to_string()
            .contains("ambiguous"));
        let r = t.find("crate::Req", &["geo".to_string()], "k").unwrap();
        assert!(r.public && !r.generic);
        assert!(t.find("G", &[], "k").unwrap().generic);
        assert!(!t.find("geo::shapes::Hidden", &[], "k").unwrap().public);
        assert_eq!(
            t.find("super::shapes::Unit", &["geo".into(), "x".into()], "k")
                .unwrap()
                .kind,
            StructKind::Unit
        );
        assert!(t.find("Nope", &[], "k").is_err());
    }
}
