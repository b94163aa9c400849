//! The Rust signature of the function under test, read from its source: the parameter names and
//! types as written (`a: i32`, `name: &str`, `xs: &[u16]`), and the return type.
//!
//! The pass's metadata says where the function is defined (file and line of its
//! `DISubprogram`) but describes parameters at the IR level, where a `&str` and a `&[u8]` are both
//! a `u8` pointer and a length, and a `String` is an opaque pointer. The source says which, so the
//! signature is read from there, from `fn NAME` to the body's `{` (or a `where`).

use anyhow::{anyhow, bail, Result};

/// A scalar Rust type the input model can hold.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[allow(missing_docs)]
pub enum RScalar {
    I8,
    I16,
    I32,
    I64,
    I128,
    Isize,
    U8,
    U16,
    U32,
    U64,
    U128,
    Usize,
    F32,
    F64,
    Bool,
    Char,
}

impl RScalar {
    /// The scalar named `s` (`i32`, `usize`, `char`), if any.
    pub fn parse(s: &str) -> Option<RScalar> {
        use RScalar::*;
        Some(match s {
            "i8" => I8,
            "i16" => I16,
            "i32" => I32,
            "i64" => I64,
            "i128" => I128,
            "isize" => Isize,
            "u8" => U8,
            "u16" => U16,
            "u32" => U32,
            "u64" => U64,
            "u128" => U128,
            "usize" => Usize,
            "f32" => F32,
            "f64" => F64,
            "bool" => Bool,
            "char" => Char,
            _ => return None,
        })
    }

    /// Its Rust name.
    pub fn name(self) -> &'static str {
        use RScalar::*;
        match self {
            I8 => "i8",
            I16 => "i16",
            I32 => "i32",
            I64 => "i64",
            I128 => "i128",
            Isize => "isize",
            U8 => "u8",
            U16 => "u16",
            U32 => "u32",
            U64 => "u64",
            U128 => "u128",
            Usize => "usize",
            F32 => "f32",
            F64 => "f64",
            Bool => "bool",
            Char => "char",
        }
    }

    /// The field type that holds it in an input (`char` as a `u32` code point; a 128-bit integer
    /// as its 64-bit halves, see [`RScalar::is_wide`], or, with a range that fits, one 64-bit
    /// field).
    pub fn field(self) -> crate::input::ScalarType {
        use crate::input::ScalarType as S;
        use RScalar::*;
        match self {
            I8 => S::I8,
            I16 => S::I16,
            I32 => S::I32,
            I64 | Isize | I128 => S::I64,
            U8 => S::U8,
            U16 => S::U16,
            U32 | Char => S::U32,
            U64 | Usize | U128 => S::U64,
            F32 => S::F32,
            F64 => S::F64,
            Bool => S::Bool,
        }
    }

    /// Whether it is a signed integer (`i8`…`i128`, `isize`).
    pub fn is_signed(self) -> bool {
        matches!(
            self,
            RScalar::I8
                | RScalar::I16
                | RScalar::I32
                | RScalar::I64
                | RScalar::I128
                | RScalar::Isize
        )
    }

    /// Whether it is `i128` or `u128`, wider than any input field.
    pub fn is_wide(self) -> bool {
        matches!(self, RScalar::I128 | RScalar::U128)
    }
}

/// A parameter or return type as written, read as far as evotest can build or record it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum RType {
    Scalar(RScalar),
    /// `&str`
    Str,
    /// `String`
    String,
    /// `&[T]` (`mutable`: `&mut [T]`)
    Slice {
        elem: Box<RType>,
        mutable: bool,
    },
    /// `Vec<T>`
    Vec(Box<RType>),
    /// `[T; N]`
    Array(Box<RType>, usize),
    /// `(A, B, …)` with at least one member (`()` is [`RType::Unit`])
    Tuple(Vec<RType>),
    /// `&T` or `&mut T` of any other `T`
    Ref {
        inner: Box<RType>,
        mutable: bool,
    },
    /// A path naming a type (`Point`, `geo::Point`, `Req<'a>` without its lifetimes): a struct of
    /// the crate, if one is found ([`super::structs`]).
    Path(String),
    /// `()` (or no return type)
    Unit,
    /// Anything else, as written: a return value of this type is not recorded; a parameter of
    /// this type is refused.
    Other(String),
}

/// Whether `s` is a path of identifiers (`a::b::C`), optionally with lifetime-only generic
/// arguments, returned without them.
fn plain_path(s: &str) -> Option<String> {
    let (base, args) = match s.find('<') {
        Some(i) => (&s[..i], Some(s[i..].strip_prefix('<')?.strip_suffix('>')?)),
        None => (s, None),
    };
    if let Some(a) = args {
        if !split_top(a).iter().all(|x| x.trim().starts_with('\'')) {
            return None;
        }
    }
    let ok = !base.is_empty()
        && base.split("::").all(|seg| {
            let mut c = seg.chars();
            c.next().is_some_and(|f| f.is_alphabetic() || f == '_')
                && c.all(|x| x.is_alphanumeric() || x == '_')
        });
    ok.then(|| base.to_string())
}

impl RType {
    /// Read a type as written (whitespace-insensitive).
    pub fn parse(s: &str) -> RType {
        let t: String = s.split_whitespace().collect::<Vec<_>>().join(" ");
        let t = t.trim();
        Self::parse_norm(t).unwrap_or_else(|| RType::Other(t.to_string()))
    }

    fn parse_norm(t: &str) -> Option<RType> {
        let t = t.trim();
        let compact: String = t.chars().filter(|c| !c.is_whitespace()).collect();
        if compact.is_empty() || compact == "()" {
            return Some(RType::Unit);
        }
        if let Some(sc) = RScalar::parse(&compact) {
            return Some(RType::Scalar(sc));
        }
        if matches!(
            compact.as_str(),
            "String" | "std::string::String" | "alloc::string::String"
        ) {
            return Some(RType::String);
        }
        if let Some(rest) = t.strip_prefix('&') {
            // `&'a mut T` → (mutable, T)
            let mut rest = rest.trim_start();
            if let Some(r) = rest.strip_prefix('\'') {
                let end = r
                    .find(|c: char| !(c.is_alphanumeric() || c == '_'))
                    .unwrap_or(r.len());
                rest = r[end..].trim_start();
            }
            let (mutable, inner) = match rest.strip_prefix("mut ") {
                Some(r) => (true, r.trim()),
                None => (false, rest),
            };
            let ic: String = inner.chars().filter(|c| !c.is_whitespace()).collect();
            if ic == "str" {
                return (!mutable).then_some(RType::Str);
            }
            if let Some(e) = inner.strip_prefix('[').and_then(|r| r.strip_suffix(']')) {
                if split_top_on(e, ';').len() == 1 {
                    return Some(RType::Slice {
                        elem: Box::new(Self::parse_norm(e)?),
                        mutable,
                    });
                }
            }
            return Some(RType::Ref {
                inner: Box::new(Self::parse_norm(inner)?),
                mutable,
            });
        }
        if let Some(inner) = t.strip_prefix('(').and_then(|r| r.strip_suffix(')')) {
            let parts = split_top(inner);
            let trailing = inner.trim_end().ends_with(',');
            if parts.len() == 1 && !trailing {
                return Self::parse_norm(&parts[0]);
            }
            return parts
                .iter()
                .map(|p| Self::parse_norm(p))
                .collect::<Option<Vec<_>>>()
                .map(RType::Tuple);
        }
        if let Some(inner) = t.strip_prefix('[').and_then(|r| r.strip_suffix(']')) {
            let parts = split_top_on(inner, ';');
            if parts.len() == 2 {
                let n: usize = parts[1]
                    .trim()
                    .replace('_', "")
                    .trim_end_matches("usize")
                    .parse()
                    .ok()?;
                return Some(RType::Array(Box::new(Self::parse_norm(&parts[0])?), n));
            }
            return None;
        }
        for prefix in ["Vec<", "std::vec::Vec<", "alloc::vec::Vec<"] {
            if let Some(inner) = compact
                .strip_prefix(prefix)
                .and_then(|r| r.strip_suffix('>'))
            {
                // the element as written (with its spaces), found again in `t`
                let open = t.find('<')?;
                let inner_t = t[open + 1..t.len() - 1].trim();
                let _ = inner;
                return Some(RType::Vec(Box::new(Self::parse_norm(inner_t)?)));
            }
        }
        plain_path(&compact).map(RType::Path)
    }

    /// The type as Rust spells it.
    pub fn spelling(&self) -> String {
        match self {
            RType::Scalar(s) => s.name().into(),
            RType::Str => "&str".into(),
            RType::String => "String".into(),
            RType::Slice {
                elem,
                mutable: false,
            } => format!("&[{}]", elem.spelling()),
            RType::Slice {
                elem,
                mutable: true,
            } => format!("&mut [{}]", elem.spelling()),
            RType::Vec(e) => format!("Vec<{}>", e.spelling()),
            RType::Array(e, n) => format!("[{}; {n}]", e.spelling()),
            RType::Tuple(ts) if ts.len() == 1 => format!("({},)", ts[0].spelling()),
            RType::Tuple(ts) => format!(
                "({})",
                ts.iter()
                    .map(|t| t.spelling())
                    .collect::<Vec<_>>()
                    .join(", ")
            ),
            RType::Ref {
                inner,
                mutable: false,
            } => format!("&{}", inner.spelling()),
            RType::Ref {
                inner,
                mutable: true,
            } => format!("&mut {}", inner.spelling()),
            RType::Path(p) => p.clone(),
            RType::Unit => "()".into(),
            RType::Other(s) => s.clone(),
        }
    }
}

/// A function's signature as written.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct RustSig {
    /// The function's name (its last path segment).
    pub name: String,
    /// Parameter names and types, in order.
    pub params: Vec<(String, RType)>,
    /// The return type (`Unit` for none).
    pub ret: RType,
    /// Declared `unsafe fn`: called in an `unsafe` block (the tests then say so).
    pub is_unsafe: bool,
    /// Declared `pub` (not `pub(crate)` or private): callable from outside the crate.
    pub is_pub: bool,
}

impl RustSig {
    /// `fn triangle(a: i32, b: i32, c: i32) -> i32`.
    pub fn display(&self) -> String {
        let ps: Vec<String> = self
            .params
            .iter()
            .map(|(n, t)| format!("{n}: {}", t.spelling()))
            .collect();
        let ret = match &self.ret {
            RType::Unit => String::new(),
            t => format!(" -> {}", t.spelling()),
        };
        format!("fn {}({}){ret}", self.name, ps.join(", "))
    }
}

/// Strip `//` and `/* */` comments (keeping line breaks), so that the signature reader does not
/// see commented-out code.
pub(crate) fn strip_comments(src: &str) -> String {
    let b = src.as_bytes();
    let mut out = String::with_capacity(src.len());
    let mut i = 0;
    while i < b.len() {
        if b[i] == b'/' && b.get(i + 1) == Some(&b'/') {
            while i < b.len() && b[i] != b'\n' {
                i += 1;
            }
        } else if b[i] == b'/' && b.get(i + 1) == Some(&b'*') {
            i += 2;
            while i < b.len() && !(b[i] == b'*' && b.get(i + 1) == Some(&b'/')) {
                if b[i] == b'\n' {
                    out.push('\n');
                }
                i += 1;
            }
            i += 2;
        } else {
            let ch = src[i..].chars().next().unwrap_or(' ');
            out.push(ch);
            i += ch.len_utf8();
        }
    }
    out
}

/// Split at commas outside brackets.
pub(crate) fn split_top(s: &str) -> Vec<String> {
    split_top_on(s, ',')
}

/// Split at `sep` outside brackets (`->` does not close an angle bracket).
pub(crate) fn split_top_on(s: &str, sep: char) -> Vec<String> {
    let mut parts = vec![];
    let mut depth = 0i32;
    let mut cur = String::new();
    let mut prev = ' ';
    for ch in s.chars() {
        match ch {
            '(' | '[' | '<' | '{' => depth += 1,
            '>' if prev == '-' => {}
            ')' | ']' | '>' | '}' => depth -= 1,
            _ => {}
        }
        prev = ch;
        if ch == sep && depth == 0 {
            parts.push(std::mem::take(&mut cur));
        } else {
            cur.push(ch);
        }
    }
    if !cur.trim().is_empty() {
        parts.push(cur);
    }
    parts
}

/// Read the signature of `fn name` defined at or after 1-based `line` of `source`.
///
/// Errors (one line): no `fn name` there, a generic function, a method (`self`), a pattern
/// instead of a parameter name.
pub fn read(source: &str, name: &str, line: u32) -> Result<RustSig> {
    let text = strip_comments(source);
    let start_line = (line.max(1) - 1) as usize;
    let offset: usize = text
        .split_inclusive('\n')
        .take(start_line)
        .map(|l| l.len())
        .sum();
    let needle = format!("fn {name}");
    let rest = &text[offset.min(text.len())..];
    // the first `fn name` followed by `(` or `<` at or after the line (attributes and doc
    // comments come before it; the subprogram's line is the `fn` line)
    let mut pos = None;
    let mut from = 0;
    while let Some(p) = rest[from..].find(&needle) {
        let at = from + p;
        let after = rest[at + needle.len()..].trim_start();
        let before_ok = at == 0
            || !rest.as_bytes()[at - 1].is_ascii_alphanumeric() && rest.as_bytes()[at - 1] != b'_';
        if before_ok && (after.starts_with('(') || after.starts_with('<')) {
            pos = Some(at);
            break;
        }
        from = at + needle.len();
    }
    let at = pos.ok_or_else(|| anyhow!("cannot find `fn {name}` in its source at line {line}"))?;
    let mut after = rest[at + needle.len()..].trim_start();
    if let Some(generics) = after.strip_prefix('<') {
        // lifetimes only (`fn f<'a>(s: &'a str)`): nothing to instantiate, the call is as usual
        let close = generics.find('>').unwrap_or(generics.len());
        if !lifetimes_only(&generics[..close]) || close == generics.len() {
            bail!("`{name}` is generic; evotest can call only non-generic functions (write a non-generic wrapper)");
        }
        after = generics[close + 1..].trim_start();
    }
    // the parameter list: up to the matching `)`
    let mut depth = 0i32;
    let mut end = None;
    for (i, ch) in after.char_indices() {
        match ch {
            '(' => depth += 1,
            ')' => {
                depth -= 1;
                if depth == 0 {
                    end = Some(i);
                    break;
                }
            }
            _ => {}
        }
    }
    let end = end.ok_or_else(|| anyhow!("cannot read the parameters of `fn {name}`"))?;
    let plist = &after[1..end];
    let tail = &after[end + 1..];
    let body = tail.find(['{', ';']).unwrap_or(tail.len());
    let mut ret_text = &tail[..body];
    if let Some(w) = ret_text.find(" where") {
        ret_text = &ret_text[..w];
    }
    let ret = match ret_text.trim().strip_prefix("->") {
        Some(r) => RType::parse(r),
        None => RType::Unit,
    };
    let mut params = vec![];
    for p in split_top(plist) {
        let p = p.trim();
        if p.is_empty() {
            continue;
        }
        if p.contains("self") && !p.contains(':')
            || p.starts_with("self")
            || p.starts_with("&self")
            || p.starts_with("&mut self")
            || p.starts_with("mut self")
        {
            bail!("`{name}` is a method (it takes `self`); evotest can call only free functions");
        }
        let (pat, ty) = p
            .split_once(':')
            .ok_or_else(|| anyhow!("cannot read parameter `{p}` of `fn {name}`"))?;
        let pat = pat.trim().trim_start_matches("mut ").trim();
        if !pat.chars().all(|c| c.is_alphanumeric() || c == '_') {
            bail!("parameter `{p}` of `fn {name}` is a pattern; evotest needs a plain name");
        }
        params.push((pat.to_string(), RType::parse(ty)));
    }
    // `unsafe fn name` (after `pub`, `const`, `extern "C"` …), on the `fn`'s line
    let line_start = rest[..at].rfind('\n').map_or(0, |i| i + 1);
    let is_unsafe = rest[line_start..at]
        .split_whitespace()
        .any(|w| w == "unsafe");
    let is_pub = rest[line_start..at].split_whitespace().any(|w| w == "pub");
    Ok(RustSig {
        name: name.to_string(),
        params,
        ret,
        is_unsafe,
        is_pub,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn reads_signatures() {
        let src = "// fn triangle(x: u8)\n/// doc\npub fn triangle(a: i32, mut b: &str, c: &'a [u16],\n  d: Vec<f64>, e: (i32, i32)) -> i32 {\n  0\n}\n";
        let s = read(src, "triangle", 3).unwrap();
        assert_eq!(s.params[0], ("a".to_string(), RType::Scalar(RScalar::I32)));
        assert_eq!(s.params[1].1, RType::Str);
        assert_eq!(
            s.params[2].1,
            RType::Slice {
                elem: Box::new(RType::Scalar(RScalar::U16)),
                mutable: false
            }
        );
        assert_eq!(
            s.params[3].1,
            RType::Vec(Box::new(RType::Scalar(RScalar::F64)))
        );
        assert_eq!(
            s.params[4].1,
            RType::Tuple(vec![
                RType::Scalar(RScalar::I32),
                RType::Scalar(RScalar::I32)
            ])
        );
        assert_eq!(s.ret, RType::Scalar(RScalar::I32));
        assert_eq!(read("fn f() {}", "f", 1).unwrap().ret, RType::Unit);
        assert!(read("fn g<T>(x: T) {}", "g", 1)
            .unwrap_err()
            .to_string()
            .contains("generic"));
        assert!(read("fn h(&self) {}", "h", 1)
            .unwrap_err()
            .to_string()
            .contains("method"));
        assert_eq!(
            RType::parse("&mut [ i64 ]"),
            RType::Slice {
                elem: Box::new(RType::Scalar(RScalar::I64)),
                mutable: true
            }
        );
        assert_eq!(RType::parse("String"), RType::String);
    }

    #[test]
    fn reads_composite_types() {
        use RType::*;
        let i32t = || Box::new(Scalar(RScalar::I32));
        assert_eq!(RType::parse("[i32; 10]"), Array(i32t(), 10));
        assert_eq!(
            RType::parse("&'a [i32; 1_0]"),
            Ref {
                inner: Box::new(Array(i32t(), 10)),
                mutable: false
            }
        );
        assert_eq!(RType::parse("(u128,)"), Tuple(vec![Scalar(RScalar::U128)]));
        assert_eq!(RType::parse("(i32)"), Scalar(RScalar::I32));
        assert_eq!(
            RType::parse("Vec<(String, &str)>"),
            Vec(Box::new(Tuple(vec![String, Str])))
        );
        assert_eq!(
            RType::parse("&mut geo::Point"),
            Ref {
                inner: Box::new(Path("geo::Point".into())),
                mutable: true
            }
        );
        assert_eq!(RType::parse("Req<'a>"), Path("Req".into()));
        assert_eq!(
            RType::parse("&[Point]"),
            Slice {
                elem: Box::new(Path("Point".into())),
                mutable: false
            }
        );
        assert_eq!(RType::parse("Option<u32>"), Other("Option<u32>".into()));
        assert_eq!(RType::parse("&mut str"), Other("&mut str".into()));
        assert_eq!(
            RType::parse("Box<dyn Fn() -> i32>"),
            Other("Box<dyn Fn() -> i32>".into())
        );
        assert_eq!(
            RType::parse("(i32, Option<u8>)"),
            Other("(i32, Option<u8>)".into())
        );
        assert_eq!(
            RType::parse("Vec<(String, &str)>").spelling(),
            "Vec<(String, &str)>"
        );
    }
}

/// Whether a function's generic parameter list (what is between `<` and `>`) names lifetimes
/// only (`'a, 'b: 'a`): nothing to instantiate, so the function is callable as it is.
pub fn lifetimes_only(generics: &str) -> bool {
    generics
        .split(',')
        .map(str::trim)
        .filter(|g| !g.is_empty())
        .all(|g| g.starts_with('\''))
}
