//! C parameters and their shapes: how the fields of an input become the arguments of a call, in
//! the generated harness, in `tests.c` and in reports.
//!
//! Shapes:
//! * a **scalar** is one field;
//! * a **fixed-length array** (`int *a` with `--array a=10`) is one field per element, allocated
//!   afresh (exactly `len` elements) for each execution; a pointer to arrays (`int m[3][4]`,
//!   which C passes as `int (*m)[4]`, with `--array m=3`) is the same, its rows one after the
//!   other (`m[0][0]`, `m[0][1]`, …);
//! * a **NUL-terminated string** (`char *s`, by default, or `--string s=MAX[:ALPHABET]`) is a
//!   length field (0..=MAX) and MAX character fields over the alphabet (printable ASCII, 32..126,
//!   by default); the harness allocates `len + 1` bytes;
//! * a **(pointer, length) buffer** (`int *a, int n` with `--buffer a=n:MAX`) is a length field
//!   (0..=MAX) and MAX element fields; the harness allocates exactly `len` elements and passes `len`
//!   in the length parameter, which has no field of its own;
//! * a **structure** (`struct point p`, or `const struct point *p`, one structure) is one field
//!   per scalar member, named by its access path (`p.x`, `p.tags[2]`, `p.tl.y`; see
//!   [`super::record`]);
//! * a **list or tree** (a pointer to a structure with links to its own type, `struct node
//!   *list`) is a pool of [`DEFAULT_POOL`] nodes (`--array list=N` for N), a length field (the
//!   nodes in use, 0 for `NULL`) and each node's fields; a link's field is how many nodes further
//!   on the node it points to is (0, or past the nodes in use: `NULL`), so links point forwards
//!   and the nodes form no cycle. The function gets node 0.

use super::record::{Leaf, LeafRole, Record, STRING_MAX};
use crate::input::spec::RangeSpec;
use crate::input::{c_literal, DisplayValue, Domain, Field, Input, Range, Role, ScalarType, Value};
use anyhow::{anyhow, bail, Result};
use evotest_abi::meta::{ArrayMeta, FunctionMeta, GlobalMeta, ParamMeta, TypeMeta};
use serde_json::{json, Value as Json};
use std::fmt::Write;

/// How a C parameter is built from genes.
#[derive(Clone, Debug, PartialEq)]
pub enum Shape {
    Scalar {
        field: usize,
    },
    /// `len` elements from field `first` on. `inner` is empty for a pointer to scalars; for a
    /// pointer to arrays (`int (*m)[4]`) it holds the dimensions of each row (`[4]`), and `len`
    /// counts scalars (rows × the product of `inner`).
    Array {
        first: usize,
        len: usize,
        inner: Vec<usize>,
    },
    String {
        len_field: usize,
        first: usize,
        max: usize,
    },
    Buffer {
        len_field: usize,
        first: usize,
        max: usize,
        len_param: usize,
    },
    /// An integer parameter that receives the length of the buffer parameter `buffer`.
    LengthOf {
        buffer: usize,
    },
    /// A structure, by value or (`by_pointer`) allocated afresh for each execution: one field per
    /// scalar of [`Record::leaves`], from `first` on; the generated C declares it as `struct
    /// <tag>` ([`super::record`]). Through a pointer it is one structure (`many` is `None`), or an
    /// array of them (`--array`, `many: Some(len)`) or a buffer (`--buffer`, `many: Some(max)`,
    /// with the length field `len_field` and its length parameter): the structures' fields one
    /// structure after the other.
    Record {
        first: usize,
        record: Box<Record>,
        by_pointer: bool,
        tag: String,
        many: Option<usize>,
        len_field: Option<usize>,
    },
}

/// One C parameter of the function under test.
#[derive(Clone, Debug, PartialEq)]
pub struct Param {
    pub name: String,
    /// The parameter's C type in generated prototypes (`int`, `char *`, `unsigned int *`).
    pub c_type: String,
    /// The scalar type: of the parameter, or of the elements it points to.
    pub elem: ScalarType,
    /// The element C type (`int`, `char`).
    pub elem_c: String,
    /// The type as declared (may be a typedef), for messages.
    pub declared: String,
    pub shape: Shape,
    /// A global variable that is an input (`--global`), not a parameter: the harness and the
    /// tests assign it before the call, and it is not an argument.
    pub global: bool,
    /// For a pointer the function compares with NULL ([`build`]'s `null_checked`): the field
    /// whose value 0 passes NULL in its place (values 1 to [`NULL_FIELD_MAX`] pass the pointer).
    pub null_field: Option<usize>,
    /// A C++ reference parameter ([`evotest_abi::meta::TypeMeta::reference`]: 1 for `T &`, 2 for
    /// `T &&`): built as one object (an array of one scalar, or one structure through a pointer),
    /// whose address the harness passes and which a `tests.cpp` passes itself.
    pub reference: u8,
}

/// The largest value of a [`Param::null_field`]: NULL is one value in four of its range, so a
/// uniform start passes it for about a quarter of the inputs.
pub const NULL_FIELD_MAX: i128 = 3;

/// How the user asked for a pointer parameter to be built.
#[derive(Clone, Debug, PartialEq)]
pub enum ShapeSpec {
    /// `--array NAME=LEN`
    Array { name: String, len: usize },
    /// `--string NAME=MAX[:ALPHABET]`
    String {
        name: String,
        max: usize,
        alphabet: Option<String>,
    },
    /// `--buffer NAME=LENPARAM:MAX`
    Buffer {
        name: String,
        len_param: String,
        max: usize,
    },
}

/// Default maximum length of a buffer whose shape evotest inferred ([`infer_buffers`]).
pub const DEFAULT_BUFFER_MAX: usize = 16;

/// Whether C type spelling `t` points to (or refers to) `const` data (`const T *`, `T const *`,
/// `const T &`): the qualifier before the last `*` qualifies the pointee (`char *const p` does
/// not point to `const`).
pub fn points_to_const(t: &str) -> bool {
    let before = t.rsplit_once('*').map_or(t, |(b, _)| b);
    before
        .split(|c: char| !c.is_ascii_alphanumeric() && c != '_')
        .any(|w| w == "const")
}

/// Whether a parameter named `name` reads as the length of the pointer before it: `n`, `len`,
/// `size`, `count`, `length`, `nbytes`, a capacity (`cap`, `capacity`), … or a name ending in one
/// of them (`data_len`, `bufsize`, `outcap`).
pub fn length_like(name: &str) -> bool {
    let n = name.to_ascii_lowercase();
    const WORDS: [&str; 14] = [
        "n", "len", "length", "size", "sz", "count", "cnt", "num", "nbytes", "nelem", "nmemb",
        "nitems", "cap", "capacity",
    ];
    WORDS.contains(&n.as_str())
        || [
            "len", "length", "size", "count", "_n", "_num", "cap", "capacity",
        ]
        .iter()
        .any(|w| n.len() > w.len() && n.ends_with(w))
}

/// Whether parameter `n` has a shape or range of the user's: named by a range, a shape, or as a
/// buffer's length parameter.
fn named_by_user(n: &str, specs: &[ShapeSpec], ranges: &[RangeSpec]) -> bool {
    ranges.iter().any(|r| r.name == n)
        || specs.iter().any(|s| {
            s.name() == n || matches!(s, ShapeSpec::Buffer { len_param, .. } if len_param == n)
        })
}

/// The (pointer, length) candidates of a parameter list, by position only (the callers check
/// types and names): each pointer with the integer parameter whose name reads as a length
/// ([`length_like`]) right after it; then each pointer without one, with such a parameter right
/// before it that no pointer takes as its following length (`int n, int a[n]`; in `int *a, int
/// n, int *b` the `n` is `a`'s), unless it points to `char`: `int count, const char *name` is
/// more often a count and a C string. In parameter order.
fn length_pairs(params: &[ParamMeta]) -> Vec<(&ParamMeta, &ParamMeta)> {
    let is_len = |l: &ParamMeta| {
        length_like(&l.name)
            && matches!(scalar_of(&l.ty), Some(t) if !t.is_float() && t != ScalarType::Bool)
    };
    let is_ptr = |p: &ParamMeta| p.ty.pointee.is_some() || is_void_pointer(&p.ty);
    let follows = |i: usize| i + 1 < params.len() && is_ptr(&params[i]) && is_len(&params[i + 1]);
    let mut out = Vec::new();
    for i in 0..params.len() {
        if follows(i) {
            out.push((&params[i], &params[i + 1]));
        } else if i > 0
            && is_ptr(&params[i])
            && !is_char_pointer(&params[i].ty)
            && is_len(&params[i - 1])
            && !(i >= 2 && follows(i - 2))
        {
            out.push((&params[i], &params[i - 1]));
        }
    }
    out
}

/// Routines that read a C string up to its NUL from the argument they are given (besides the
/// [`NUMBER_PARSERS`]).
const C_STRING_ROUTINES: &[&str] = &[
    "strlen",
    "strcmp",
    "strcasecmp",
    "strcoll",
    "strcpy",
    "strcat",
    "strchr",
    "strrchr",
    "strstr",
    "strcasestr",
    "strspn",
    "strcspn",
    "strpbrk",
    "strdup",
    "strtok",
    "puts",
    "fputs",
    "fopen",
    "open",
    "stat",
    "getenv",
    "setenv",
    "inet_addr",
    "inet_pton",
];

/// Routines that parse a number from the C string they are given (they keep no state either:
/// `target::keeps_no_state` reads them here).
pub const NUMBER_PARSERS: &[&str] = &[
    "atoi",
    "atol",
    "atoll",
    "atof",
    "strtol",
    "strtoul",
    "strtoll",
    "strtoull",
    "strtod",
    "strtof",
    "strtold",
    "sscanf",
    "__isoc99_sscanf",
    "__isoc23_sscanf",
    "__isoc23_strtol",
    "__isoc23_strtoul",
    "__isoc23_strtoll",
    "__isoc23_strtoull",
];

/// The texts of the numbers at the edges of the C integer types and past the doubles' range
/// (`2147483648`, `9223372036854775808`, `1e309`, …), for the string pool of a function that
/// hands a parameter to a number parser ([`NUMBER_PARSERS`]): the parser's overflow (`errno ==
/// ERANGE`, a saturated `LONG_MAX`) needs 10 to 20 digits in a row, which random characters
/// do not give (a digits-only alphabet found it at once, the printable one never in 50,000
/// executions). Empty for any other function.
pub fn number_texts(f: &FunctionMeta) -> Vec<Vec<u8>> {
    let parses = f.params.iter().enumerate().any(|(i, p)| {
        is_char_pointer(&p.ty)
            && f.param_calls
                .iter()
                .any(|c| c.param as usize == i && NUMBER_PARSERS.contains(&c.callee.as_str()))
    });
    if !parses {
        return vec![];
    }
    [
        "2147483647",
        "2147483648",
        "-2147483648",
        "-2147483649",
        "4294967295",
        "4294967296",
        "9223372036854775807",
        "9223372036854775808",
        "-9223372036854775808",
        "-9223372036854775809",
        "18446744073709551615",
        "18446744073709551616",
        "1e309",
        "-1e309",
        "4.9e-325",
    ]
    .iter()
    .map(|t| t.as_bytes().to_vec())
    .collect()
}

/// Whether function `f` passes its parameter `name` itself to a routine that reads a C string
/// ([`C_STRING_ROUTINES`], [`NUMBER_PARSERS`], or a C++ `std::string` built from a `const char *`), from the pass's
/// record of the calls given a parameter's value ([`FunctionMeta::param_calls`]).
fn passed_as_c_string(f: &FunctionMeta, name: &str) -> bool {
    let Some(i) = f.params.iter().position(|p| p.name == name) else {
        return false;
    };
    f.param_calls.iter().any(|c| {
        c.param as usize == i
            && (C_STRING_ROUTINES.contains(&c.callee.as_str())
                || NUMBER_PARSERS.contains(&c.callee.as_str())
                || (c.callee.contains("basic_string") && c.callee.contains("PKc")))
    })
}

/// Whether `t` is a pointer to `char` (signed, unsigned or plain): a C string by default.
fn is_char_pointer(t: &TypeMeta) -> bool {
    t.pointee.as_deref().is_some_and(|p| {
        matches!(scalar_of(p), Some(ScalarType::I8 | ScalarType::U8))
            && p.c_spelling.contains("char")
    })
}

/// The buffers of `f` that the user did not shape but its signature gives away: a pointer to
/// scalars (`const uint8_t *data`, `int *a`, `const char *buf`) immediately followed by an integer
/// parameter whose name reads as a length (`size_t size`, `int n`, `unsigned len`), neither of them
/// named in `specs` or `ranges`. Each becomes `--buffer NAME=LENPARAM:16` ([`DEFAULT_BUFFER_MAX`]), the
/// convention of libFuzzer's `(data, size)` and of C's `(array, n)`; or, for a pointer without
/// such a parameter after it, immediately *preceded* by one that no pointer before it takes (the
/// count-first convention: a C99 array parameter `int n, int a[n]`, `argc, argv`, BLAS's `n, x`).
/// A `char *` followed by some other integer stays a string.
pub fn infer_buffers(
    f: &FunctionMeta,
    specs: &[ShapeSpec],
    ranges: &[RangeSpec],
) -> Vec<ShapeSpec> {
    let named = |n: &str| named_by_user(n, specs, ranges);
    let mut out = Vec::new();
    for (p, l) in length_pairs(&f.params) {
        // a `char *` the function hands to a C-string routine (`strlen(s)`, `std::string(s)`)
        // is a string, whatever the integer after it: a buffer has no NUL, and the routine would
        // read past it
        if is_char_pointer(&p.ty) && passed_as_c_string(f, &p.name) {
            continue;
        }
        // scalars, or structures (`struct point *pts, int n`)
        let pointee_scalar = is_void_pointer(&p.ty)
            || p.ty.pointee.as_deref().is_some_and(|t| {
                scalar_of(t).is_some()
                    || t.composite
                        .as_ref()
                        .is_some_and(|c| c.unsupported.is_none())
            });
        let len_int = matches!(scalar_of(&l.ty), Some(t) if !t.is_float() && t != ScalarType::Bool);
        if pointee_scalar
            && len_int
            && length_like(&l.name)
            && !named(&p.name)
            && !named(&l.name)
            && !p.name.is_empty()
        {
            out.push(ShapeSpec::Buffer {
                name: p.name.clone(),
                len_param: l.name.clone(),
                max: DEFAULT_BUFFER_MAX,
            });
        }
    }
    out
}

/// The length parameters of `f` that `--array` left free: a pointer given a fixed length by an
/// `--array NAME=LEN` of `specs`, immediately followed (or, count first, preceded: see
/// [`length_pairs`]) by an integer parameter whose name reads as a length ([`length_like`]) and
/// that `specs` and `ranges` do not name. Each gets the range `0..=LEN`, so that the function is
/// never told the array is longer than it is (an unranged `size_t n` beside a 5-element array
/// made tests that read past it; `int n, int a[n]` with `--array a=8` made SIGSEGVs that were the
/// harness's, not the function's). Returns the ranges and the array each one belongs to.
pub fn array_length_ranges(
    f: &FunctionMeta,
    specs: &[ShapeSpec],
    ranges: &[RangeSpec],
) -> Vec<(RangeSpec, String)> {
    let named = |n: &str| named_by_user(n, specs, ranges);
    let mut out = Vec::new();
    for (p, l) in length_pairs(&f.params) {
        let Some(len) = specs.iter().find_map(|s| match s {
            ShapeSpec::Array { name, len } if *name == p.name => Some(*len),
            _ => None,
        }) else {
            continue;
        };
        let len_int = matches!(scalar_of(&l.ty), Some(t) if !t.is_float() && t != ScalarType::Bool);
        if len_int && length_like(&l.name) && !named(&l.name) {
            out.push((
                RangeSpec {
                    name: l.name.clone(),
                    lo: "0".into(),
                    hi: len.to_string(),
                },
                p.name.clone(),
            ));
        }
    }
    out
}

/// Largest array, string or buffer length accepted.
pub const MAX_LEN: usize = 1 << 16;
/// Default maximum length of a `char *` parameter without `--string`.
pub const DEFAULT_STRING_MAX: usize = 16;

impl ShapeSpec {
    pub fn name(&self) -> &str {
        match self {
            ShapeSpec::Array { name, .. }
            | ShapeSpec::String { name, .. }
            | ShapeSpec::Buffer { name, .. } => name,
        }
    }

    /// Parse `NAME=LEN`.
    ///
    /// Errors (one line): not of that form, or a length outside 1..=[`MAX_LEN`].
    pub fn parse_array(s: &str) -> Result<ShapeSpec> {
        let bad = || anyhow!("--array {s}: expected NAME=LEN, e.g. a=10");
        let (name, len) = s.split_once('=').ok_or_else(bad)?;
        let len = parse_len(len, "the length")
            .map_err(|e| anyhow!("--array {s}: {e}"))?
            .ok_or_else(bad)?;
        Ok(ShapeSpec::Array {
            name: name.trim().to_string(),
            len,
        })
    }

    /// Parse `NAME=MAX` or `NAME=MAX:ALPHABET`.
    ///
    /// Errors (one line): not of that form, a maximum outside 1..=[`MAX_LEN`], or a bad alphabet.
    pub fn parse_string(s: &str) -> Result<ShapeSpec> {
        let bad = || {
            anyhow!(
                "--string {s}: expected NAME=MAX or NAME=MAX:ALPHABET, e.g. name=5 or isbn=13:0-9X"
            )
        };
        let (name, rest) = s.split_once('=').ok_or_else(bad)?;
        let (max, alphabet) = match rest.split_once(':') {
            Some((m, a)) => (m, Some(a.to_string())),
            None => (rest, None),
        };
        let max = parse_len(max, "the maximum length")
            .map_err(|e| anyhow!("--string {s}: {e}"))?
            .ok_or_else(bad)?;
        if let Some(a) = &alphabet {
            parse_alphabet(a).map_err(|e| anyhow!("--string {s}: {e}"))?;
        }
        Ok(ShapeSpec::String {
            name: name.trim().to_string(),
            max,
            alphabet,
        })
    }

    /// Parse `NAME=LENPARAM:MAX`.
    ///
    /// Errors (one line): not of that form, or a maximum outside 1..=[`MAX_LEN`].
    pub fn parse_buffer(s: &str) -> Result<ShapeSpec> {
        let bad = || anyhow!("--buffer {s}: expected NAME=LENPARAM:MAX, e.g. a=n:10");
        let (name, rest) = s.split_once('=').ok_or_else(bad)?;
        let (lp, max) = rest.split_once(':').ok_or_else(bad)?;
        let max = parse_len(max, "the maximum length")
            .map_err(|e| anyhow!("--buffer {s}: {e}"))?
            .ok_or_else(bad)?;
        Ok(ShapeSpec::Buffer {
            name: name.trim().to_string(),
            len_param: lp.trim().to_string(),
            max,
        })
    }
}

/// A length: `Ok(None)` when `s` is not a number, an error when it is outside 1..=[`MAX_LEN`]
/// (`what` names it in the message).
fn parse_len(s: &str, what: &str) -> Result<Option<usize>> {
    let Ok(n) = s.trim().parse::<u64>() else {
        return Ok(None);
    };
    if n == 0 || n > MAX_LEN as u64 {
        bail!("{what} must be between 1 and {MAX_LEN}");
    }
    Ok(Some(n as usize))
}

/// Parse an alphabet such as `a-z0-9X-`: characters and ranges `x-y`; a `-` first or last is a
/// literal. C's escapes stand for one character each: `\n`, `\t`, `\r`, `\\`, `\-` (a literal
/// dash anywhere) and `\xHH` (so `a-z\n` includes the newline a shell would not pass as `\n`).
/// Returns the sorted set. Errors: empty, NUL, non-ASCII, or an unknown escape.
pub fn parse_alphabet(s: &str) -> Result<Vec<u8>> {
    if !s.is_ascii() {
        bail!("the alphabet must be ASCII (\\xHH writes a byte)");
    }
    // the characters, each marked when written as an escape (an escaped '-' is no range)
    let mut chars: Vec<(u8, bool)> = Vec::new();
    let b = s.as_bytes();
    let mut i = 0;
    while i < b.len() {
        if b[i] != b'\\' {
            chars.push((b[i], false));
            i += 1;
            continue;
        }
        let (c, used) = match b.get(i + 1) {
            Some(b'n') => (b'\n', 2),
            Some(b't') => (b'\t', 2),
            Some(b'r') => (b'\r', 2),
            Some(b'\\') => (b'\\', 2),
            Some(b'-') => (b'-', 2),
            Some(b'x') => {
                let hex = s
                    .get(i + 2..i + 4)
                    .filter(|h| h.bytes().all(|c| c.is_ascii_hexdigit()));
                let Some(h) = hex else {
                    bail!("alphabet escape \\x needs two hex digits")
                };
                (u8::from_str_radix(h, 16).expect("two hex digits"), 4)
            }
            Some(&c) => bail!(
                "unknown alphabet escape \\{} (\\n, \\t, \\r, \\\\, \\- and \\xHH are known)",
                c as char
            ),
            None => bail!("the alphabet ends in a lone \\"),
        };
        chars.push((c, true));
        i += used;
    }
    let mut set = std::collections::BTreeSet::new();
    let mut i = 0;
    while i < chars.len() {
        if i + 2 < chars.len() && chars[i + 1] == (b'-', false) {
            let (lo, hi) = (chars[i].0, chars[i + 2].0);
            if lo > hi {
                bail!(
                    "alphabet range {}-{} is reversed",
                    (lo as char).escape_default(),
                    (hi as char).escape_default()
                );
            }
            set.extend(lo..=hi);
            i += 3;
        } else {
            set.insert(chars[i].0);
            i += 1;
        }
    }
    set.remove(&0);
    if set.is_empty() {
        bail!("the alphabet is empty");
    }
    Ok(set.into_iter().collect())
}

/// Printable ASCII, the default alphabet of strings.
pub fn printable() -> Vec<u8> {
    (32u8..=126).collect()
}

const PLAIN_C_TYPES: &[&str] = &[
    "_Bool",
    "char",
    "signed char",
    "unsigned char",
    "short",
    "unsigned short",
    "int",
    "unsigned int",
    "long",
    "unsigned long",
    "long long",
    "unsigned long long",
    "float",
    "double",
];

/// A C type name for `ty` that needs no typedef: the declared spelling when it is a basic type,
/// else a canonical one of the same size and signedness.
pub fn c_name(declared: &str, ty: ScalarType) -> String {
    let d = declared
        .trim_start_matches("const ")
        .trim_start_matches("volatile ")
        .trim();
    if PLAIN_C_TYPES.contains(&d) {
        return d.to_string();
    }
    ty.c_name().to_string()
}

/// The C name of the x87 extended type.
pub const LONG_DOUBLE: &str = "long double";

/// Whether `t` is C's `long double` on x86-64 (x87 80-bit extended precision, 128 bits of
/// storage), not `__float128`/`_Float128`. evotest searches such a value as a `double` (its
/// field is an `f64`) that the harness widens exactly.
pub fn is_long_double(t: &TypeMeta) -> bool {
    let float128 =
        t.ir == "fp128" || t.c_spelling.contains("float128") || t.c_spelling.contains("Float128");
    matches!(t.scalar, Some(m) if m.kind == evotest_abi::meta::ScalarKind::Float && (m.bits == 80 || m.bits == 128))
        && !float128
}

fn scalar_of(t: &TypeMeta) -> Option<ScalarType> {
    t.scalar.as_ref().and_then(ScalarType::from_meta)
}

/// Whether `t` is `void *` (`const void *`, …: one pointer to void, spelt out, not through a
/// typedef), which evotest builds as bytes: an array or a buffer of `unsigned char`.
fn is_void_pointer(t: &TypeMeta) -> bool {
    let void_words = |spelling: &str| {
        let words: Vec<&str> = spelling
            .split(|c: char| c.is_whitespace() || c == '*')
            .filter(|w| !w.is_empty())
            .collect();
        words.contains(&"void")
            && words.iter().all(|w| {
                matches!(
                    *w,
                    "void" | "const" | "volatile" | "restrict" | "__restrict"
                )
            })
    };
    if t.scalar.is_some()
        || t.composite.is_some()
        || t.array.is_some()
        || t.c_spelling.matches('*').count() != 1
    {
        return false;
    }
    match t.pointee.as_deref() {
        // the pointee as debug info has it: `const void`
        Some(p) => {
            p.scalar.is_none()
                && p.composite.is_none()
                && p.pointee.is_none()
                && void_words(&p.c_spelling)
        }
        None => void_words(&t.c_spelling),
    }
}

fn unsupported(f: &FunctionMeta, i: usize, p: &ParamMeta) -> anyhow::Error {
    anyhow!(
        "parameter `{}` (#{}) of `{}` has type `{}`, which evotest cannot generate yet \
         (supported: _Bool, char, short, int, long, long long, signed or unsigned, float, double, long double; \
         pointers to them as arrays, strings or buffers; structures of them)",
        p.name,
        i + 1,
        f.display_name(),
        p.ty.c_spelling
    )
}

/// Build the parameters and fields of `f` from its signature, the user's shape specs and ranges
/// (the fields' offsets are left for [`Domain::packed`]).
///
/// Errors (one line each): a spec or range naming no parameter, a spec on a parameter of the wrong
/// kind, a pointer parameter without a spec (except `char *`, a string by default), and any other
/// parameter type.
///
/// A pointer parameter named in `null_checked` (the function compares it with NULL) that is an
/// array, string, buffer or single structure gets a [`Param::null_field`]: NULL is then one of
/// its values.
pub fn build(
    f: &FunctionMeta,
    specs: &[ShapeSpec],
    ranges: &[RangeSpec],
    globals: &[GlobalMeta],
    null_checked: &[String],
) -> Result<(Vec<Param>, Vec<Field>)> {
    let names: Vec<&str> = f.params.iter().map(|p| p.name.as_str()).collect();
    let index = |n: &str, what: &str| {
        names.iter().position(|x| *x == n).ok_or_else(|| {
            anyhow!(
                "{what} `{n}`: `{}` has no such parameter (parameters: {})",
                f.display_name(),
                names.join(", ")
            )
        })
    };
    for s in specs {
        index(s.name(), "shape for")?;
    }
    // length parameters of buffers
    let mut len_of: Vec<Option<usize>> = vec![None; f.params.len()];
    for s in specs {
        if let ShapeSpec::Buffer {
            name, len_param, ..
        } = s
        {
            let b = index(name, "buffer")?;
            let l = index(len_param, "buffer length")?;
            let lp = &f.params[l];
            match scalar_of(&lp.ty) {
                Some(t) if !t.is_float() && t != ScalarType::Bool => {}
                _ => bail!("--buffer {name}={len_param}:…: `{len_param}` must be an integer parameter, not `{}`", lp.ty.c_spelling),
            }
            if specs.iter().any(|o| o.name() == len_param) {
                bail!("--buffer {name}={len_param}:…: `{len_param}` is itself given a shape");
            }
            len_of[l] = Some(b);
        }
    }

    let mut params = Vec::new();
    let mut genes: Vec<Field> = Vec::new();
    for (i, p) in f.params.iter().enumerate() {
        let spec = specs.iter().find(|s| s.name() == p.name);
        if let Some(b) = len_of[i] {
            let t = scalar_of(&p.ty).unwrap();
            params.push(Param {
                name: p.name.clone(),
                c_type: c_name(&p.ty.c_spelling, t),
                elem: t,
                elem_c: c_name(&p.ty.c_spelling, t),
                declared: p.ty.c_spelling.clone(),
                shape: Shape::LengthOf { buffer: b },
                global: false,
                null_field: None,
                reference: 0,
            });
            continue;
        }
        let long_double = is_long_double(&p.ty);
        if let Some(t) = scalar_of(&p.ty).or(long_double.then_some(ScalarType::F64)) {
            if let Some(s) = spec {
                bail!(
                    "parameter `{}` of `{}` is a `{}`, not a pointer: remove its --{}",
                    p.name,
                    f.display_name(),
                    p.ty.c_spelling,
                    kind_of(s)
                );
            }
            let g = genes.len();
            genes.push(Field::full(&p.name, t));
            // a `long double` is searched as a `double` and widened by the harness
            let c = if long_double {
                LONG_DOUBLE.to_string()
            } else {
                c_name(&p.ty.c_spelling, t)
            };
            params.push(Param {
                name: p.name.clone(),
                c_type: c.clone(),
                elem: t,
                elem_c: c,
                declared: p.ty.c_spelling.clone(),
                shape: Shape::Scalar { field: g },
                global: false,
                null_field: None,
                reference: 0,
            });
            continue;
        }
        // a C++ reference is one object (a scalar, a structure or an array of fixed size): it
        // takes no shape
        if let Some(s) = spec.filter(|_| p.ty.reference != 0) {
            bail!(
                "--{} {}: `{}` is `{}`, a reference to one object; remove its --{}",
                kind_of(s),
                p.name,
                p.name,
                p.ty.c_spelling,
                kind_of(s)
            );
        }
        let composite =
            p.ty.composite
                .as_deref()
                .map(|c| (c, &p.ty.c_spelling, false));
        let composite = composite.or_else(|| {
            p.ty.pointee
                .as_deref()
                .and_then(|t| t.composite.as_deref().map(|c| (c, &t.c_spelling, true)))
        });
        if let Some((c, spelling, by_pointer)) = composite {
            let record = Record::of(c, spelling).map_err(|e| {
                anyhow!(
                    "parameter `{}` (#{}) of `{}`: {e}",
                    p.name,
                    i + 1,
                    f.display_name()
                )
            });
            // a library type is refused as such, passed in any way (the advice below would send
            // the user to a pointer or a reference, refused too)
            let library = spelling.trim_start_matches("const ").starts_with("std::");
            if !by_pointer && c.passed_indirectly && !(library && record.is_err()) {
                bail!(
                    "parameter `{}` (#{}) of `{}` is `{}` by value, a class with a copy constructor or destructor of its own, \
                     which evotest cannot pass yet (it can through a pointer or a reference)",
                    p.name,
                    i + 1,
                    f.display_name(),
                    p.ty.c_spelling
                );
            }
            let record = record?;
            let linked = by_pointer && record.has_links();
            let (many, len_field) = match spec {
                // a list or a tree: a pool of nodes, the first `len` in use (none: `NULL`)
                None | Some(ShapeSpec::Array { .. }) if linked => {
                    let pool = match spec {
                        Some(ShapeSpec::Array { len, .. }) => *len,
                        _ => DEFAULT_POOL,
                    };
                    if pool > MAX_POOL {
                        bail!("--array {}={pool}: a pool of at most {MAX_POOL} nodes", p.name);
                    }
                    genes.push(length_field(&p.name, pool));
                    (Some(pool), Some(genes.len() - 1))
                }
                None => (None, None),
                Some(ShapeSpec::Array { len, .. }) if by_pointer => (Some(*len), None),
                Some(ShapeSpec::Buffer { max, .. }) if by_pointer => {
                    genes.push(length_field(&p.name, *max));
                    (Some(*max), Some(genes.len() - 1))
                }
                Some(s) => bail!("--{} {}: `{}` is `{}`, a structure; it takes --array or --buffer only through a pointer", kind_of(s), p.name, p.name, p.ty.c_spelling),
            };
            let first = genes.len();
            // links point 0 (`NULL`) to pool - 1 nodes further on
            let link_max = many.unwrap_or(1).saturating_sub(1) as i128;
            match many {
                None => {
                    for l in record.leaves() {
                        genes.push(leaf_field(&format!("{}{}", p.name, l.path), &l));
                    }
                }
                Some(n) => {
                    for k in 0..n {
                        for l in record.leaves() {
                            let mut g = leaf_field(&format!("{}[{k}]{}", p.name, l.path), &l);
                            if l.role == LeafRole::Link {
                                g.range = Range::Int {
                                    lo: 0,
                                    hi: link_max,
                                };
                            }
                            genes.push(g);
                        }
                    }
                }
            }
            let tag = format!("evotest_r{i}");
            params.push(Param {
                name: p.name.clone(),
                c_type: format!("struct {tag}{}", if by_pointer { " *" } else { "" }),
                elem: ScalarType::U8,
                elem_c: format!("struct {tag}"),
                declared: p.ty.c_spelling.clone(),
                shape: Shape::Record {
                    first,
                    record: Box::new(record),
                    by_pointer,
                    tag,
                    many,
                    len_field,
                },
                global: false,
                null_field: None,
                reference: p.ty.reference,
            });
            continue;
        }
        if let Some(arr) = p.ty.pointee.as_deref().and_then(|t| t.array.as_deref()) {
            let (param, fields) = rows_param(f, i, p, arr, spec, genes.len())?;
            genes.extend(fields);
            params.push(param);
            continue;
        }
        // `void *`: bytes
        let void = is_void_pointer(&p.ty);
        let (et, elem_c, is_char) = if void {
            (ScalarType::U8, "unsigned char".to_string(), false)
        } else {
            let Some(pointee) = p.ty.pointee.as_deref() else {
                return Err(unsupported(f, i, p));
            };
            let Some(et) = scalar_of(pointee) else {
                return Err(unsupported(f, i, p));
            };
            (et, c_name(&pointee.c_spelling, et), is_char_pointer(&p.ty))
        };
        if p.ty.reference != 0 {
            // `int &x`, `const double &d`: one object
            let first = genes.len();
            genes.push(Field::full(&p.name, et));
            params.push(Param {
                name: p.name.clone(),
                c_type: format!("{elem_c} *"),
                elem: et,
                elem_c,
                declared: p.ty.c_spelling.clone(),
                shape: Shape::Array {
                    first,
                    len: 1,
                    inner: vec![],
                },
                global: false,
                null_field: None,
                reference: p.ty.reference,
            });
            continue;
        }
        let shape = match spec {
            Some(ShapeSpec::Array { len, .. }) => {
                let first = genes.len();
                for k in 0..*len {
                    genes.push(Field::full(&format!("{}[{k}]", p.name), et));
                }
                Shape::Array { first, len: *len, inner: vec![] }
            }
            Some(ShapeSpec::Buffer { max, .. }) => {
                let len_field = genes.len();
                genes.push(length_field(&p.name, *max));
                let first = genes.len();
                for k in 0..*max {
                    genes.push(Field::full(&format!("{}[{k}]", p.name), et));
                }
                let len_param = len_of.iter().position(|b| *b == Some(i)).unwrap();
                Shape::Buffer { len_field, first, max: *max, len_param }
            }
            Some(ShapeSpec::String { max, alphabet, .. }) => {
                if !is_char {
                    bail!("--string {}: `{}` is `{}`, not a char pointer", p.name, p.name, p.ty.c_spelling);
                }
                let a = match alphabet {
                    Some(a) => parse_alphabet(a)?,
                    None => printable(),
                };
                string_fields(&mut genes, &p.name, *max, a, et)
            }
            None if is_char => string_fields(&mut genes, &p.name, DEFAULT_STRING_MAX, printable(), et),
            None => bail!(
                "parameter `{}` (#{}) of `{}` is `{}`: say how to build it, with --array {}=LEN (a fixed-length \
                 array) or --buffer {}=LENPARAM:MAX (a pointer and its length parameter)",
                p.name,
                i + 1,
                f.display_name(),
                p.ty.c_spelling,
                p.name,
                p.name
            ),
        };
        params.push(Param {
            name: p.name.clone(),
            c_type: if void {
                "void *".to_string()
            } else {
                format!("{elem_c} *")
            },
            elem: et,
            elem_c,
            declared: p.ty.c_spelling.clone(),
            shape,
            global: false,
            null_field: None,
            reference: 0,
        });
    }

    for p in params.iter_mut() {
        let pointer = match &p.shape {
            Shape::Array { inner, .. } => inner.is_empty(),
            Shape::String { .. } | Shape::Buffer { .. } => true,
            Shape::Record {
                by_pointer, many, ..
            } => *by_pointer && many.is_none(),
            _ => false,
        };
        if pointer && p.reference == 0 && null_checked.contains(&p.name) {
            p.null_field = Some(genes.len());
            genes.push(Field {
                name: format!("{}:null", p.name),
                offset: 0,
                ty: ScalarType::U8,
                range: Range::Int {
                    lo: 0,
                    hi: NULL_FIELD_MAX,
                },
                full: false,
                step: None,
                role: Role::Value,
            });
        }
    }

    for g in globals {
        if params.iter().any(|p| p.name == g.name) {
            bail!(
                "--global {}: `{}` has a parameter of that name, which hides the global",
                g.name,
                f.display_name()
            );
        }
        params.push(global_param(g, &mut genes)?);
    }

    for r in ranges {
        // a member of a structure parameter by its field's name (`--range p.x=0..10`)
        // (and `--range p:null=1..3`: a pointer that is never NULL)
        let member = r.name.contains('.') || r.name.contains('[') || r.name.ends_with(":null");
        if let Some(g) = genes.iter_mut().find(|g| g.name == r.name && member) {
            g.set_range(&r.lo, &r.hi, &format!("member `{}`", r.name))?;
            if g.role == Role::Length
                && matches!(g.range, Range::Int { hi, .. } if hi > STRING_MAX as i128)
            {
                // the string member's characters are STRING_MAX genes: a longer one was cut
                // short without a word
                bail!(
                    "range for `{}`: a string member holds at most {} characters (longer ones cannot be asked for yet)",
                    r.name,
                    STRING_MAX
                );
            }
            continue;
        }
        if member {
            let base = r.name.split(['.', '[', ':']).next().unwrap_or("");
            if names.contains(&base) {
                let mut known: Vec<&str> = genes
                    .iter()
                    .map(|g| g.name.as_str())
                    .filter(|n| n.len() > base.len() && n.starts_with(base))
                    .collect();
                known.truncate(12);
                bail!(
                    "range for `{}`: parameter `{base}` has no such member or element ({})",
                    r.name,
                    if known.is_empty() {
                        "it has none".to_string()
                    } else {
                        format!(
                            "it has {}{}",
                            known.join(", "),
                            if known.len() == 12 { ", …" } else { "" }
                        )
                    }
                );
            }
        }
        // a parameter, or a global input
        let i = match params.iter().position(|p| p.global && p.name == r.name) {
            Some(i) => i,
            None => index(&r.name, "range for")?,
        };
        let p = &params[i];
        let what = format!(
            "{} `{}` ({})",
            if p.global { "global" } else { "parameter" },
            p.name,
            p.declared
        );
        match &p.shape {
            Shape::Scalar { field } => genes[*field].set_range(&r.lo, &r.hi, &what)?,
            Shape::Array { first, len, .. } => {
                for g in &mut genes[*first..first + len] {
                    g.set_range(&r.lo, &r.hi, &what)?;
                }
            }
            Shape::Buffer { first, max, .. } => {
                for g in &mut genes[*first..first + max] {
                    g.set_range(&r.lo, &r.hi, &what)?;
                }
            }
            Shape::String { .. } => bail!("range for `{}`: a string takes an alphabet (--string {}=MAX:ALPHABET), not a range", p.name, p.name),
            Shape::LengthOf { .. } => bail!("range for `{}`: it is a buffer length; give the maximum in --buffer instead", p.name),
            Shape::Record { first, record, many, .. } => {
                let leaves = record.leaves();
                for (j, g) in genes.iter_mut().skip(*first).take(leaves.len() * many.unwrap_or(1)).enumerate() {
                    if g.role != Role::Value || leaves[j % leaves.len()].role == LeafRole::Link {
                        continue; // a string member's length and characters, a link
                    }
                    g.set_range(&r.lo, &r.hi, &what)?;
                }
            }
        }
    }
    Ok((params, genes))
}

/// A pointer-to-arrays parameter `p` (#`i` of `f`; `int (*m)[4]`, which `int m[3][4]` declares)
/// whose pointee is the array type `arr`: the parameter, whose fields start at `first`, and the
/// fields of its elements, rows one after the other. The number of rows is the `--array` length: the
/// outer dimension is not part of the parameter's type.
///
/// Errors: no `--array`, another shape spec, rows of structures, too many elements.
fn rows_param(
    f: &FunctionMeta,
    i: usize,
    p: &ParamMeta,
    arr: &ArrayMeta,
    spec: Option<&ShapeSpec>,
    first: usize,
) -> Result<(Param, Vec<Field>)> {
    let inner: Vec<usize> = arr.dims.iter().map(|&d| d as usize).collect();
    let dims_c: String = inner.iter().map(|d| format!("[{d}]")).collect();
    let Some(et) = scalar_of(&arr.elem) else {
        bail!(
            "parameter `{}` (#{}) of `{}` is `{}`, a pointer to arrays of `{}`, which evotest cannot generate yet \
             (rows of scalars only)",
            p.name,
            i + 1,
            f.display_name(),
            p.ty.c_spelling,
            arr.elem.c_spelling
        )
    };
    let elem_c = c_name(&arr.elem.c_spelling, et);
    let n = &p.name;
    // a C++ reference to an array (`int (&a)[4]`) is one array: one row
    let rows = match spec {
        _ if p.ty.reference != 0 => 1,
        Some(ShapeSpec::Array { len, .. }) => *len,
        Some(s) => bail!("--{} {n}: `{n}` is `{elem_c} (*{n}){dims_c}`, a pointer to rows; it takes --array {n}=ROWS only", kind_of(s)),
        None => bail!(
            "parameter `{n}` (#{}) of `{}` is `{elem_c} (*{n}){dims_c}`, a pointer to rows (what `{elem_c} {n}[ROWS]{dims_c}` \
             declares): say how many rows with --array {n}=ROWS",
            i + 1,
            f.display_name()
        ),
    };
    let row: usize = inner.iter().product();
    if row == 0 || rows.saturating_mul(row) > MAX_LEN {
        bail!(
            "--array {}={rows}: {rows} rows of {dims_c} is more than {MAX_LEN} elements",
            p.name
        );
    }
    let mut fields = Vec::with_capacity(rows * row);
    for k in 0..rows * row {
        fields.push(Field::full(
            &format!("{}{}", p.name, element_path(k, &inner)),
            et,
        ));
    }
    let param = Param {
        name: p.name.clone(),
        c_type: format!("{elem_c} (*){dims_c}"),
        elem: et,
        elem_c,
        declared: p.ty.c_spelling.clone(),
        shape: Shape::Array {
            first,
            len: rows * row,
            inner,
        },
        global: false,
        null_field: None,
        reference: p.ty.reference,
    };
    Ok((param, fields))
}

/// The subscripts (`[1][2]`) of the `k`-th scalar, in row-major order, of rows of `inner`.
fn element_path(k: usize, inner: &[usize]) -> String {
    let mut idx = Vec::with_capacity(inner.len() + 1);
    let mut rest = k;
    for &d in inner.iter().rev() {
        idx.push(rest % d);
        rest /= d;
    }
    idx.push(rest);
    idx.iter().rev().map(|x| format!("[{x}]")).collect()
}

/// `items` grouped by the dimensions `dims` (outermost first; their product is `items.len()`),
/// each group made by `group` from its parts: with no dimensions, the one item (`T::default()`
/// if there is none).
fn nest<T: Clone + Default>(items: &[T], dims: &[usize], group: &dyn Fn(Vec<T>) -> T) -> T {
    match dims.split_first() {
        None => items.first().cloned().unwrap_or_default(),
        Some((_, rest)) => {
            let step = rest.iter().product::<usize>().max(1);
            group(items.chunks(step).map(|c| nest(c, rest, group)).collect())
        }
    }
}

/// [`nest`] of texts, each group between `open` and `close` and separated by `, `: `{{1, 2}, {3,
/// 4}}` for C initialisers, `[[1, 2], [3, 4]]` for reports.
fn nest_text(items: &[String], dims: &[usize], open: &str, close: &str) -> String {
    nest(items, dims, &|parts| {
        format!("{open}{}{close}", parts.join(", "))
    })
}

/// A global input ([`Param::global`]): a scalar, a fixed-length array of scalars (as an array
/// parameter) or a structure.
fn global_param(g: &GlobalMeta, genes: &mut Vec<Field>) -> Result<Param> {
    let name = &g.name;
    let declared = g.ty.c_spelling.clone();
    if let Some(c) = g.ty.composite.as_deref() {
        let record =
            Record::of(c, &g.ty.c_spelling).map_err(|e| anyhow!("--global {name}: {e}"))?;
        // one structure, or an array of them (`struct point pts[4]`), fields `pts[0].x`, …
        let many = g.count.map(|n| n as usize);
        if many.is_some_and(|n| n.saturating_mul(record.leaves().len()) > MAX_LEN) {
            bail!("--global {name}: more than {MAX_LEN} fields");
        }
        let first = genes.len();
        for k in 0..many.unwrap_or(1) {
            let at = many.map_or_else(String::new, |_| format!("[{k}]"));
            for l in record.leaves() {
                genes.push(leaf_field(&format!("{name}{at}{}", l.path), &l));
            }
        }
        let tag = format!("evotest_g_{name}");
        return Ok(Param {
            name: name.clone(),
            c_type: format!("struct {tag}"),
            elem: ScalarType::U8,
            elem_c: format!("struct {tag}"),
            declared,
            shape: Shape::Record {
                first,
                record: Box::new(record),
                by_pointer: false,
                tag,
                many,
                len_field: None,
            },
            global: true,
            null_field: None,
            reference: 0,
        });
    }
    let Some(t) = scalar_of(&g.ty) else {
        bail!("--global {name}: its type `{declared}` is not one evotest can generate")
    };
    let c = c_name(&g.ty.c_spelling, t);
    let shape = match g.count {
        None => {
            let field = genes.len();
            genes.push(Field::full(name, t));
            Shape::Scalar { field }
        }
        Some(n) => {
            let first = genes.len();
            for k in 0..n {
                genes.push(Field::full(&format!("{name}[{k}]"), t));
            }
            Shape::Array {
                first,
                len: n as usize,
                inner: vec![],
            }
        }
    };
    Ok(Param {
        name: name.clone(),
        c_type: c.clone(),
        elem: t,
        elem_c: c,
        declared,
        shape,
        global: true,
        null_field: None,
        reference: 0,
    })
}

fn kind_of(s: &ShapeSpec) -> &'static str {
    match s {
        ShapeSpec::Array { .. } => "array",
        ShapeSpec::String { .. } => "string",
        ShapeSpec::Buffer { .. } => "buffer",
    }
}

/// The field of a structure's leaf named `name`: a value over its type's range, or the length or
/// a printable character of a string member.
fn leaf_field(name: &str, l: &Leaf) -> Field {
    match l.role {
        LeafRole::Value => Field::full(name, l.ty),
        LeafRole::Length => Field {
            name: name.to_string(),
            ..length_field("", STRING_MAX)
        },
        LeafRole::Char => char_field(name, l.ty, printable()),
        // `NULL` until the pool's size is known
        LeafRole::Link => Field {
            name: name.to_string(),
            offset: 0,
            ty: l.ty,
            range: Range::Int { lo: 0, hi: 0 },
            full: false,
            step: None,
            role: Role::Value,
        },
    }
}

/// Nodes in the pool of a list or tree parameter without `--array` (see [`Shape::Record`]).
pub const DEFAULT_POOL: usize = 8;

/// Most nodes in a pool (a link's field is a byte).
pub const MAX_POOL: usize = 256;

/// A character field over `alphabet` (sorted bytes), of the character type `ty`. A byte of 0x80
/// or more is no value of a signed `char` (0xFF is -1 there, and the search would snap it to the
/// alphabet's smallest byte): with such bytes, the field holds the bytes as `unsigned char`,
/// which the harness copies into the string as they are.
fn char_field(name: &str, ty: ScalarType, alphabet: Vec<u8>) -> Field {
    let (lo, hi) = (alphabet[0] as i128, alphabet[alphabet.len() - 1] as i128);
    let ty = if ty == ScalarType::I8 && hi > i8::MAX as i128 {
        ScalarType::U8
    } else {
        ty
    };
    Field {
        name: name.to_string(),
        offset: 0,
        ty,
        range: Range::Int { lo, hi },
        full: false,
        step: None,
        role: Role::Char { alphabet },
    }
}

fn length_field(name: &str, max: usize) -> Field {
    Field {
        name: format!("{name}.len"),
        offset: 0,
        ty: ScalarType::U32,
        range: Range::Int {
            lo: 0,
            hi: max as i128,
        },
        full: false,
        step: None,
        role: Role::Length,
    }
}

fn string_fields(
    genes: &mut Vec<Field>,
    name: &str,
    max: usize,
    alphabet: Vec<u8>,
    ty: ScalarType,
) -> Shape {
    let len_field = genes.len();
    genes.push(length_field(name, max));
    let first = genes.len();
    for k in 0..max {
        genes.push(char_field(&format!("{name}[{k}]"), ty, alphabet.clone()));
    }
    Shape::String {
        len_field,
        first,
        max,
    }
}

/// C string literal of `bytes` (escaping quotes, backslashes and non-printables).
pub fn c_string(bytes: &[u8]) -> String {
    let mut s = String::from("\"");
    for &b in bytes {
        match b {
            b'"' => s.push_str("\\\""),
            b'\\' => s.push_str("\\\\"),
            b'?' => s.push_str("\\?"),
            32..=126 => s.push(b as char),
            _ => {
                let _ = write!(s, "\\{b:03o}");
            }
        }
    }
    s.push('"');
    s
}

impl Param {
    /// The declaration of the parameter in a prototype: `int *a`, `int (*m)[4]`.
    /// [`Param::declarator`] with a structure's own type (`const struct rect *r`) in place of
    /// the harness's (`struct evotest_r0`), for people.
    pub fn shown_declarator(&self) -> String {
        match &self.shape {
            Shape::Record { record, tag, .. } if !record.spelling.is_empty() => {
                self.declarator().replace(
                    &format!("struct {tag}"),
                    record.spelling.trim_start_matches("const "),
                )
            }
            _ => self.declarator(),
        }
    }

    pub fn declarator(&self) -> String {
        match &self.shape {
            Shape::Array { inner, .. } if !inner.is_empty() => {
                let dims: String = inner.iter().map(|d| format!("[{d}]")).collect();
                format!("{} (*{}){dims}", self.elem_c, self.name)
            }
            _ => format!("{} {}", self.c_type, self.name).replace("* ", "*"),
        }
    }

    /// Whether the parameter is a buffer of bytes (`char`, `unsigned char`, `uint8_t`) with its
    /// length, which the harness and `tests.c` follow with a NUL before the guard: what a caller
    /// passing a string and its length (`lookup(s, strlen(s))`) gives, and what a function that
    /// takes both and still compares with `strcmp` (gperf's lookups) needs to match at all. A
    /// function that keeps to the length never reads it.
    pub fn nul_ended(&self) -> bool {
        matches!(self.shape, Shape::Buffer { .. })
            && matches!(self.elem, ScalarType::I8 | ScalarType::U8)
    }

    /// For a pointer to arrays, all dimensions of the value passed, outermost (the rows) first:
    /// `[3, 4]` for three rows of `int[4]`; `None` for any other parameter.
    pub fn array_dims(&self) -> Option<Vec<usize>> {
        match &self.shape {
            Shape::Array { len, inner, .. } if !inner.is_empty() => {
                let rows = len / inner.iter().product::<usize>().max(1);
                Some(std::iter::once(rows).chain(inner.iter().copied()).collect())
            }
            _ => None,
        }
    }

    /// Whether `input` passes NULL for this parameter ([`Param::null_field`]).
    pub fn is_null(&self, d: &Domain, input: &Input) -> bool {
        self.null_field
            .is_some_and(|f| d.get(input, f).as_i128() == 0)
    }

    fn length(&self, d: &Domain, input: &Input) -> Option<usize> {
        match self.shape {
            Shape::String { len_field, max, .. } | Shape::Buffer { len_field, max, .. } => {
                Some((d.get(input, len_field).as_i128().clamp(0, max as i128)) as usize)
            }
            Shape::Record {
                len_field: Some(len_field),
                many: Some(max),
                ..
            } => Some((d.get(input, len_field).as_i128().clamp(0, max as i128)) as usize),
            Shape::Record { many: Some(n), .. } => Some(n),
            _ => None,
        }
    }

    /// How many elements the test of `input` passes: of an array or buffer, or structures of an
    /// array or buffer of them (0 for other shapes).
    pub fn element_count(&self, d: &Domain, input: &Input) -> usize {
        match self.shape {
            Shape::Array { len, .. } => len,
            Shape::Buffer { .. } | Shape::Record { many: Some(_), .. } => {
                self.length(d, input).unwrap_or(0)
            }
            _ => 0,
        }
    }

    /// The characters of a string parameter the test of `input` passes, without its NUL.
    pub fn string_len(&self, d: &Domain, input: &Input) -> usize {
        self.string_bytes(d, input).len()
    }

    fn string_bytes(&self, d: &Domain, input: &Input) -> Vec<u8> {
        match self.shape {
            Shape::String { first, .. } => {
                let n = self.length(d, input).unwrap_or(0);
                (first..first + n)
                    .map(|i| d.get(input, i).as_i128() as u8)
                    .collect()
            }
            _ => vec![],
        }
    }

    fn elements(&self, d: &Domain, input: &Input) -> Vec<Value> {
        let range = match self.shape {
            Shape::Array { first, len, .. } => first..first + len,
            Shape::Buffer { first, .. } => first..first + self.length(d, input).unwrap_or(0),
            _ => 0..0,
        };
        range.map(|i| d.get(input, i)).collect()
    }

    /// The value for people (`None` for a buffer length, shown with its buffer).
    pub fn display(&self, params: &[Param], d: &Domain, input: &Input) -> Option<String> {
        if self.is_null(d, input) {
            return Some("NULL".into());
        }
        Some(match &self.shape {
            Shape::Scalar { field } => DisplayValue(self.elem, d.get(input, *field)).to_string(),
            Shape::Array { .. } | Shape::Buffer { .. } => {
                let v: Vec<String> = self
                    .elements(d, input)
                    .iter()
                    .map(|v| DisplayValue(self.elem, *v).to_string())
                    .collect();
                match self.array_dims() {
                    Some(dims) => nest_text(&v, &dims, "[", "]"),
                    None => format!("[{}]", v.join(", ")),
                }
            }
            Shape::String { .. } => c_string(&self.string_bytes(d, input)),
            Shape::LengthOf { buffer } => {
                return params[*buffer].length(d, input).map(|n| n.to_string())
            }
            Shape::Record {
                first,
                record,
                many: None,
                ..
            } => record.display(&mut (*first..).map(|i| d.get(input, i)), None),
            Shape::Record { first, record, .. } => {
                let values = &mut (*first..).map(|i| d.get(input, i));
                let n = self.length(d, input).unwrap_or(0);
                let v: Vec<String> = (0..n)
                    .map(|k| record.display(values, Some((k, n))))
                    .collect();
                format!("[{}]", v.join(", "))
            }
        })
    }

    /// The value as JSON (numbers, arrays, strings).
    pub fn json(&self, params: &[Param], d: &Domain, input: &Input) -> Json {
        let num_of = |ty: ScalarType, v: Value| match v {
            Value::Int(i) => serde_json::to_value(i).unwrap_or(Json::Null),
            Value::Float(f) if f.is_finite() => json!(f),
            Value::Float(_) => json!(DisplayValue(ty, v).to_string()),
        };
        let num = |v: Value| num_of(self.elem, v);
        if self.is_null(d, input) {
            return Json::Null;
        }
        match &self.shape {
            Shape::Scalar { field } => num(d.get(input, *field)),
            Shape::Array { .. } | Shape::Buffer { .. } => {
                let v: Vec<Json> = self.elements(d, input).iter().map(|v| num(*v)).collect();
                match self.array_dims() {
                    Some(dims) => nest(&v, &dims, &Json::Array),
                    None => Json::Array(v),
                }
            }
            Shape::String { .. } => json!(String::from_utf8_lossy(&self.string_bytes(d, input))),
            Shape::LengthOf { buffer } => json!(params[*buffer].length(d, input)),
            Shape::Record {
                first,
                record,
                many: None,
                ..
            } => record.json(&mut (*first..).map(|i| d.get(input, i)), &num_of, None),
            Shape::Record { first, record, .. } => {
                let values = &mut (*first..).map(|i| d.get(input, i));
                let n = self.length(d, input).unwrap_or(0);
                Json::Array(
                    (0..n)
                        .map(|k| record.json(values, &num_of, Some((k, n))))
                        .collect(),
                )
            }
        }
    }
}

/// The guard of a `tests.c` (see [`c_args`]; the harness's is [`c_guard_helpers`]):
/// `evotest_fill_guard_bytes(g)` writes the pattern into the [`GUARD_BYTES`] at `g`: 0xa5 and a
/// last byte 0, so that a function that reads a buffer as a C string (`strlen` on a `char *`
/// with a length beside it) stops inside the guard, the same way in the harness and in the
/// tests; `evotest_check_guard_bytes(g, name)` aborts with a message when they no longer hold it.
pub const C_TEST_GUARD: &str = "/* A writable copy of string literal S as an array of T (a string member of a structure,
 * which the function may write through): a compound literal in C, a static array in C++,
 * where a compound literal would end with its full-expression. */
#ifdef __cplusplus
#define EVOTEST_STR(T, S) ([]() -> T * { static T evotest_b[] = S; return evotest_b; }())
#else
#define EVOTEST_STR(T, S) ((T[]){S})
#endif
static void evotest_fill_guard_bytes(unsigned char *g) __attribute__((unused));
static void evotest_fill_guard_bytes(unsigned char *g) {
    memset(g, 0xa5, 63);
    g[63] = 0;
}
static void evotest_check_guard_bytes(const unsigned char *g, const char *name) __attribute__((unused));
static void evotest_check_guard_bytes(const unsigned char *g, const char *name) {
    for (int k = 0; k < 64; k++)
        if (g[k] != (k == 63 ? 0 : 0xa5)) {
            fprintf(stderr, \"evotest: the function wrote past the end of parameter `%s` (an output buffer needs its size: --array %s=N)\\n\", name, name);
            abort();
        }
}
";
const _: () = assert!(GUARD_BYTES == 64, "C_TEST_GUARD spells the guard's size");

/// How the guard check ([`C_TEST_GUARD`]) starts its message on standard error, followed by the
/// parameter: crash triage takes the rest of the line for the fault's message.
pub const GUARD_OVERRUN: &str = "evotest: the function wrote past ";

/// C of generated test programs (`tests.c`, the ground-truth replay): `evotest_profile_crashes()`,
/// called in a child process that runs one input, makes a coverage build
/// (`-fprofile-instr-generate`) write its profile when a signal ends the child, so that what a
/// crashing input covered counts (the profile is otherwise written at exit only). A no-op
/// without the profile run-time. It includes its own headers.
pub const C_PROFILE_CRASHES: &str = r#"#include <signal.h>
#include <string.h>
/* In a coverage build (-fprofile-instr-generate), a process that a signal ends writes its
 * profile first, so that what a crashing input covered counts (the profile is otherwise
 * written at exit). */
#ifdef __cplusplus
extern "C"
#endif
int __llvm_profile_write_file(void) __attribute__((weak));
static void evotest_profile_and_die(int sig) {
    if (__llvm_profile_write_file) __llvm_profile_write_file();
    signal(sig, SIG_DFL);
    raise(sig);
}
static void evotest_profile_crashes(void) __attribute__((unused));
static void evotest_profile_crashes(void) {
    static char stack[1 << 16];
    /* every catchable signal whose default action ends the process */
    static const int sigs[] = { SIGSEGV, SIGBUS, SIGFPE, SIGILL, SIGABRT, SIGTRAP, SIGSYS,
                                SIGTERM, SIGINT, SIGHUP, SIGQUIT, SIGUSR1, SIGUSR2, SIGALRM,
                                SIGPIPE, SIGXCPU, SIGXFSZ, SIGVTALRM, SIGPROF };
    stack_t ss;
    struct sigaction sa;
    size_t i;
    if (!__llvm_profile_write_file) return;
    memset(&ss, 0, sizeof ss);
    ss.ss_sp = stack;
    ss.ss_size = sizeof stack;
    sigaltstack(&ss, 0);
    memset(&sa, 0, sizeof sa);
    sa.sa_handler = evotest_profile_and_die;
    sa.sa_flags = SA_ONSTACK | SA_NODEFER;
    for (i = 0; i < sizeof sigs / sizeof sigs[0]; i++) sigaction(sigs[i], &sa, 0);
}
"#;

/// What [`c_args`] gives: statements before the call, its arguments, statements after it.
pub struct CArgs {
    pub setup: Vec<String>,
    pub args: Vec<String>,
    /// The guard checks of the arrays, strings and buffers ([`C_TEST_GUARD`]).
    pub after: Vec<String>,
}

/// C statements and call arguments that rebuild `input` (for `tests.c`). Local names are
/// `<prefix><param index>`. Structures are of the source's own types when `source_types` (C that
/// includes the program's source), else of the generated ones ([`super::record`]). An array,
/// string or buffer is followed by [`GUARD_BYTES`] of guard, checked after the call as the
/// harness checks its own ([`c_guard_helpers`]), so that a test whose recorded run wrote past
/// the end of one ends the same way. The global inputs named in `aliased` are set through
/// their [`global_alias`] (declared by [`c_alias_declaration`]), of the generated types.
pub fn c_args(
    params: &[Param],
    d: &Domain,
    input: &Input,
    prefix: &str,
    source_types: bool,
    aliased: &[String],
) -> CArgs {
    let mut setup = Vec::new();
    let mut args = Vec::new();
    let mut after = Vec::new();
    // `T var[n]` followed by the guard: `var_s.evotest_v`, and its check after the call
    fn guarded(
        setup: &mut Vec<String>,
        after: &mut Vec<String>,
        var: &str,
        elem: &str,
        n: usize,
        init: String,
        name: &str,
    ) -> String {
        // the guard bytes' `{0}` only for -Wextra's missing-field-initializers: they are filled next
        setup.push(format!("struct {{ {elem} evotest_v[{n}]; unsigned char evotest_g[{GUARD_BYTES}]; }} {var}_s = {{ {init}, {{0}} }};"));
        setup.push(format!("evotest_fill_guard_bytes({var}_s.evotest_g);"));
        after.push(format!(
            "evotest_check_guard_bytes({var}_s.evotest_g, \"{name}\");"
        ));
        format!("{var}_s.evotest_v")
    }
    for (i, p) in params.iter().enumerate() {
        let var = format!("{prefix}{i}");
        if p.global {
            let alias = aliased.contains(&p.name).then(|| global_alias(&p.name));
            setup.push(global_assignment(
                p,
                d,
                input,
                &var,
                source_types,
                alias.as_deref(),
            ));
            continue;
        }
        if p.is_null(d, input) {
            args.push("NULL".into());
            continue;
        }
        match &p.shape {
            Shape::Scalar { field } => args.push(c_literal(p.elem, d.get(input, *field))),
            Shape::Array { .. } if p.array_dims().is_some() => {
                let els: Vec<String> = p
                    .elements(d, input)
                    .iter()
                    .map(|v| c_literal(p.elem, *v))
                    .collect();
                let dims = p.array_dims().unwrap_or_default();
                let inner: String = dims[1..].iter().map(|d| format!("[{d}]")).collect();
                setup.push(format!(
                    "{} {var}[]{inner} = {};",
                    p.elem_c,
                    nest_text(&els, &dims, "{", "}")
                ));
                args.push(var);
            }
            Shape::Array { .. } | Shape::Buffer { .. } => {
                let mut els: Vec<String> = p
                    .elements(d, input)
                    .iter()
                    .map(|v| c_literal(p.elem, *v))
                    .collect();
                if p.nul_ended() {
                    els.push("0".into());
                }
                if els.is_empty() {
                    // no element: the guard starts where the first would be (aligned for one)
                    let elem = &p.elem_c;
                    setup.push(format!("union {{ {elem} evotest_v[1]; unsigned char evotest_g[{GUARD_BYTES}]; }} {var}_s;"));
                    setup.push(format!("evotest_fill_guard_bytes({var}_s.evotest_g);"));
                    after.push(format!(
                        "evotest_check_guard_bytes({var}_s.evotest_g, \"{}\");",
                        p.name
                    ));
                    args.push(format!("{var}_s.evotest_v"));
                } else {
                    let n = els.len();
                    args.push(guarded(
                        &mut setup,
                        &mut after,
                        &var,
                        &p.elem_c,
                        n,
                        format!("{{{}}}", els.join(", ")),
                        &p.name,
                    ));
                }
            }
            Shape::String { .. } => {
                let bytes = p.string_bytes(d, input);
                args.push(guarded(
                    &mut setup,
                    &mut after,
                    &var,
                    &p.elem_c,
                    bytes.len() + 1,
                    c_string(&bytes),
                    &p.name,
                ));
            }
            Shape::LengthOf { buffer } => {
                let n = params[*buffer].length(d, input).unwrap_or(0);
                args.push(format!("({}){n}", p.c_type));
            }
            Shape::Record {
                first,
                record,
                many: Some(_),
                tag,
                ..
            } => {
                let t = if source_types {
                    record.spelling.clone()
                } else {
                    format!("struct {tag}")
                };
                let values = &mut (*first..).map(|i| d.get(input, i));
                let n = p.length(d, input).unwrap_or(0);
                if n == 0 {
                    // zero-initialised (gcc's -Wmaybe-uninitialized on an empty buffer)
                    setup.push(format!("static {t} {var}[1];"));
                } else {
                    let inits: Vec<String> = (0..n)
                        .map(|_| record.c_initializer(values, source_types))
                        .collect();
                    setup.push(format!("{t} {var}[] = {{ {} }};", inits.join(", ")));
                }
                if record.has_links() {
                    // the links between the nodes in use, and the first node (none: `NULL`)
                    let (per, links) = (record.leaves().len(), record.link_paths());
                    for k in 0..n {
                        for (li, path) in &links {
                            let o = d.get(input, first + k * per + *li).as_i128() as usize;
                            if o > 0 && k + o < n {
                                setup.push(format!("{var}[{k}]{path} = &{var}[{}];", k + o));
                            }
                        }
                    }
                    args.push(if n == 0 { "0".to_string() } else { var });
                    continue;
                }
                args.push(var);
            }
            Shape::Record {
                first,
                record,
                by_pointer,
                tag,
                ..
            } => {
                let t = if source_types {
                    record.spelling.clone()
                } else {
                    format!("struct {tag}")
                };
                let init =
                    record.c_initializer(&mut (*first..).map(|i| d.get(input, i)), source_types);
                if *by_pointer {
                    setup.push(format!("{t} {var} = {init};"));
                    args.push(format!("&{var}"));
                } else {
                    args.push(format!("({t}){init}"));
                }
            }
        }
    }
    // a C++ reference takes the object, not its address
    for (i, p) in params.iter().filter(|p| !p.global).enumerate() {
        if p.reference != 0 {
            if let Some(a) = args.get_mut(i) {
                let obj = match a.strip_prefix('&') {
                    Some(var) => var.to_string(),
                    None => format!("*{a}"),
                };
                *a = match (&p.shape, p.reference) {
                    // a reference to an array: the one row, `*v` of `int v[][4]`
                    (Shape::Array { inner, .. }, 2) if p.array_dims().is_some() => {
                        let dims: String = inner.iter().map(|d| format!("[{d}]")).collect();
                        format!("static_cast<{}(&&){dims}>({obj})", p.elem_c)
                    }
                    (Shape::Array { .. }, 2) => format!("static_cast<{}&&>({obj})", p.elem_c),
                    (Shape::Record { record, tag, .. }, 2) => {
                        let t = if source_types {
                            record.spelling.clone()
                        } else {
                            format!("struct {tag}")
                        };
                        format!("static_cast<{t}&&>({obj})")
                    }
                    _ => obj,
                };
            }
        }
    }
    CArgs { setup, args, after }
}

/// The name under which C code that cannot see global input `name`'s own declaration (it is
/// defined in a source that `tests.c` does not include) reaches it: [`c_alias_declaration`].
pub fn global_alias(name: &str) -> String {
    format!("evotest_global_{name}")
}

/// The declaration of global input `p` under its [`global_alias`], bound to its symbol by an
/// assembler label and of the generated types (with their definitions), so that it clashes with
/// no declaration of the global an included source may have: `extern int evotest_global_mode
/// __asm__("mode");`.
pub fn c_alias_declaration(p: &Param) -> String {
    let (alias, symbol) = (global_alias(&p.name), &p.name);
    let (types, decl) = match &p.shape {
        Shape::Array { len, .. } => (String::new(), format!("{} {alias}[{len}]", p.elem_c)),
        Shape::Record {
            record, tag, many, ..
        } => (
            record.c_definitions(tag),
            match many {
                Some(n) => format!("{} {alias}[{n}]", p.c_type),
                None => format!("{} {alias}", p.c_type),
            },
        ),
        _ => (String::new(), format!("{} {alias}", p.c_type)),
    };
    format!("{types}extern {decl} __asm__(\"{symbol}\");\n")
}

/// The C statement that sets global input `p` to its value in `input` (`g = 3;`, an array by
/// `memcpy` from a local copy named `var`, a structure from a compound literal); through `alias`
/// and of the generated types when given ([`global_alias`]).
fn global_assignment(
    p: &Param,
    d: &Domain,
    input: &Input,
    var: &str,
    source_types: bool,
    alias: Option<&str>,
) -> String {
    let g = alias.unwrap_or(&p.name);
    let source_types = source_types && alias.is_none();
    match &p.shape {
        Shape::Scalar { field } => format!("{g} = {};", c_literal(p.elem, d.get(input, *field))),
        Shape::Array { .. } => {
            let els: Vec<String> = p
                .elements(d, input)
                .iter()
                .map(|v| c_literal(p.elem, *v))
                .collect();
            format!(
                "{{ static const {} {var}[] = {{{}}}; memcpy({g}, {var}, sizeof {var}); }}",
                p.elem_c,
                els.join(", ")
            )
        }
        Shape::Record {
            first,
            record,
            tag,
            many,
            ..
        } => {
            let t = if source_types {
                record.spelling.clone()
            } else {
                format!("struct {tag}")
            };
            let values = &mut (*first..).map(|i| d.get(input, i));
            match many {
                None => format!("{g} = ({t}){};", record.c_initializer(values, source_types)),
                Some(n) => (0..*n)
                    .map(|k| {
                        format!(
                            "{g}[{k}] = ({t}){};",
                            record.c_initializer(values, source_types)
                        )
                    })
                    .collect::<Vec<_>>()
                    .join(" "),
            }
        }
        _ => String::new(),
    }
}

/// C statements of the harness that decode parameter `i` from `evotest_buf` (at the byte offsets
/// of `d`'s fields) into a local `evotest_p<i>`; length parameters come after their buffers (see
/// [`super::harness`]). Locals are prefixed so that no user symbol can collide with them.
/// Bytes of guard after every array, string and buffer a harness allocates for a parameter.
pub const GUARD_BYTES: usize = 64;

/// The C helpers of the decoding ([`c_decode`]) and of the guard check ([`c_guard_checks`]), for
/// the head of a harness (needs `<stdio.h>`, `<stdlib.h>` and `<string.h>`): `evotest_guarded(n)`
/// allocates `n` bytes followed by [`GUARD_BYTES`] of a fixed pattern, and [`C_TEST_GUARD`]'s
/// check aborts the process (a crash, SIGABRT) with a message naming the parameter when the
/// pattern changed: the function wrote past the end of what it was given
/// (an output buffer evotest took for an input string, say), which would otherwise corrupt the
/// heap without a sign.
pub fn c_guard_helpers() -> String {
    format!(
        "{C_TEST_GUARD}\n\
         static void *evotest_guarded(size_t n) {{\n\
         \x20   unsigned char *p = (unsigned char *)malloc(n + {GUARD_BYTES});\n\
         \x20   if (p) evotest_fill_guard_bytes(p + n);\n\
         \x20   return p;\n\
         }}\n"
    )
}

/// The guard checks ([`c_guard_helpers`]) of every array, string and buffer parameter, to run
/// right after the call.
pub fn c_guard_checks(params: &[Param]) -> String {
    let mut s = String::new();
    for (i, p) in params.iter().enumerate().filter(|(_, p)| !p.global) {
        let (v, n, t) = (format!("evotest_p{i}"), format!("evotest_n{i}"), &p.elem_c);
        let size = match &p.shape {
            Shape::Array { len, .. } => format!("{len} * sizeof({t})"),
            Shape::String { .. } => format!("{n} + 1"),
            Shape::Buffer { .. } if p.nul_ended() => format!("{n} + 1"),
            Shape::Buffer { .. } => format!("{n} * sizeof({t})"),
            _ => continue,
        };
        s.push_str(&format!(
            "    evotest_check_guard_bytes((const unsigned char *){v} + {size}, \"{}\");\n",
            p.name
        ));
    }
    s
}

pub fn c_decode(params: &[Param], d: &Domain, i: usize) -> String {
    let offs: Vec<usize> = d.fields.iter().map(|f| f.offset).collect();
    let p = &params[i];
    let v = format!("evotest_p{i}");
    let n = format!("evotest_n{i}");
    let t = &p.elem_c;
    if p.global {
        // straight into the global variable
        let g = &p.name;
        return match &p.shape {
            Shape::Scalar { field } => set_scalar("    ", g, p.elem, offs[*field]),
            Shape::Array { first, len, .. } => format!(
                "    memcpy({g}, evotest_buf + {}, {len} * sizeof {g}[0]);\n",
                offs[*first]
            ),
            Shape::Record {
                first,
                record,
                many: None,
                ..
            } => set_leaves("    ", g, record, &offs[*first..]),
            Shape::Record {
                first,
                record,
                many: Some(n),
                ..
            } => {
                let per = record.leaves().len();
                (0..*n)
                    .map(|k| {
                        set_leaves(
                            "    ",
                            &format!("{g}[{k}]"),
                            record,
                            &offs[first + k * per..],
                        )
                    })
                    .collect()
            }
            _ => String::new(),
        };
    }
    match &p.shape {
        Shape::Scalar { field } => {
            let off = offs[*field];
            if p.elem_c == LONG_DOUBLE {
                format!("    double {v}_d;\n    memcpy(&{v}_d, evotest_buf + {off}, sizeof {v}_d);\n    {t} {v} = {v}_d;\n")
            } else if p.elem == ScalarType::Bool {
                format!("    {t} {v} = evotest_buf[{off}] & 1;\n")
            } else {
                format!("    {t} {v};\n    memcpy(&{v}, evotest_buf + {off}, sizeof {v});\n")
            }
        }
        Shape::Array { first, len, .. } => format!(
            "    {t} *{v} = ({t} *)evotest_guarded({len} * sizeof({t}));\n    memcpy({v}, evotest_buf + {}, {len} * sizeof({t}));\n",
            offs[*first]
        ),
        Shape::String { len_field, first, max } => format!(
            "    uint32_t {n};\n    memcpy(&{n}, evotest_buf + {}, 4);\n    if ({n} > {max}) {n} = {max};\n    \
             {t} *{v} = ({t} *)evotest_guarded({n} + 1);\n    memcpy({v}, evotest_buf + {}, {n});\n    {v}[{n}] = 0;\n",
            offs[*len_field], offs[*first]
        ),
        Shape::Buffer { len_field, first, max, .. } if p.nul_ended() => format!(
            "    uint32_t {n};\n    memcpy(&{n}, evotest_buf + {}, 4);\n    if ({n} > {max}) {n} = {max};\n    \
             {t} *{v} = ({t} *)evotest_guarded({n} + 1);\n    memcpy({v}, evotest_buf + {}, {n});\n    {v}[{n}] = 0;\n",
            offs[*len_field], offs[*first]
        ),
        Shape::Buffer { len_field, first, max, .. } => format!(
            "    uint32_t {n};\n    memcpy(&{n}, evotest_buf + {}, 4);\n    if ({n} > {max}) {n} = {max};\n    \
             {t} *{v} = ({t} *)evotest_guarded({n} * sizeof({t}));\n    memcpy({v}, evotest_buf + {}, {n} * sizeof({t}));\n",
            offs[*len_field], offs[*first]
        ),
        Shape::LengthOf { buffer } => format!("    {} {v} = ({})evotest_n{buffer};\n", p.c_type, p.c_type),
        Shape::Record { first, record, tag, many: Some(max), len_field, .. } => {
            // an array of `max`, or a buffer of `n` <= `max`, structures
            let leaves = record.leaves();
            let mut s = match len_field {
                Some(lf) => format!(
                    "    uint32_t {n};\n    memcpy(&{n}, evotest_buf + {}, 4);\n    if ({n} > {max}) {n} = {max};\n",
                    offs[*lf]
                ),
                None => format!("    uint32_t {n} = {max};\n"),
            };
            s.push_str(&format!("    struct {tag} *{v} = (struct {tag} *)calloc({n} ? {n} : 1, sizeof(struct {tag}));\n"));
            let links = record.link_paths();
            for k in 0..*max {
                s.push_str(&format!("    if ({n} > {k}) {{\n"));
                let at = &offs[first + k * leaves.len()..];
                s.push_str(&set_leaves("        ", &format!("{v}[{k}]"), record, at));
                // a link: the node `o` places further on, if it is in use
                for (li, path) in &links {
                    s.push_str(&format!(
                        "        {{ uint32_t evotest_o = evotest_buf[{}]; {v}[{k}]{path} = evotest_o && {k} + evotest_o < {n} ? &{v}[{k} + evotest_o] : 0; }}\n",
                        at[*li]
                    ));
                }
                s.push_str("    }\n");
            }
            s
        }
        Shape::Record { first, record, by_pointer, tag, .. } => {
            let mut s = if *by_pointer {
                format!("    struct {tag} *{v} = (struct {tag} *)calloc(1, sizeof(struct {tag}));\n")
            } else {
                format!("    struct {tag} {v};\n    memset(&{v}, 0, sizeof {v});\n")
            };
            let obj = if *by_pointer { format!("(*{v})") } else { v.clone() };
            s.push_str(&set_leaves("    ", &obj, record, &offs[*first..]));
            s
        }
    }
}

/// The C statement that sets the scalar lvalue `at` of type `ty` from the input byte(s) at `off`
/// (a `_Bool` from its lowest bit, so that every byte is a valid value).
fn set_scalar(indent: &str, at: &str, ty: ScalarType, off: usize) -> String {
    if ty == ScalarType::Bool {
        format!("{indent}{at} = evotest_buf[{off}] & 1;\n")
    } else {
        format!("{indent}memcpy(&{at}, evotest_buf + {off}, sizeof {at});\n")
    }
}

/// The C statements that set every leaf of `record` in the object `obj` from the input, the
/// leaves' offsets in order in `offs`; a string member is allocated (`len + 1` bytes), filled
/// from its characters (which follow its length) and terminated.
fn set_leaves(indent: &str, obj: &str, record: &Record, offs: &[usize]) -> String {
    let mut s = String::new();
    for (l, &off) in record.leaves().iter().zip(offs) {
        match l.role {
            LeafRole::Value => {
                s.push_str(&set_scalar(indent, &format!("{obj}{}", l.path), l.ty, off))
            }
            LeafRole::Length => {
                let at = format!("{obj}{}", l.path.strip_suffix(".len").unwrap_or(&l.path));
                let c = if l.ty == ScalarType::U8 {
                    "unsigned char"
                } else {
                    "char"
                };
                s.push_str(&format!(
                    "{indent}{{ uint32_t evotest_l; memcpy(&evotest_l, evotest_buf + {off}, 4); if (evotest_l > {STRING_MAX}) evotest_l = {STRING_MAX};\n\
                     {indent}  char *evotest_s = (char *)malloc(evotest_l + 1); memcpy(evotest_s, evotest_buf + {}, evotest_l); evotest_s[evotest_l] = 0;\n\
                     {indent}  {at} = ({c} *)evotest_s; }}\n",
                    off + 4
                ));
            }
            LeafRole::Char | LeafRole::Link => {}
        }
    }
    s
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn alphabets_take_ranges_and_c_escapes() {
        assert_eq!(parse_alphabet("a-c-").unwrap(), b"-abc");
        assert_eq!(parse_alphabet("a\\n\\t,").unwrap(), b"\t\n,a");
        assert_eq!(parse_alphabet("\\x30-\\x32\\\\").unwrap(), b"012\\");
        // an escaped dash is a dash, never a range
        assert_eq!(parse_alphabet("a\\-c").unwrap(), b"-ac");
        assert_eq!(parse_alphabet("\\x80\\xff").unwrap(), [0x80, 0xff]);
        for bad in ["a\\q", "a\\", "\\x4", "z-a", "\\x00", "é"] {
            assert!(parse_alphabet(bad).is_err(), "{bad:?}");
        }
    }

    #[test]
    fn the_guard_message_is_the_one_triage_reads() {
        assert!(C_TEST_GUARD.contains(GUARD_OVERRUN));
    }

    #[test]
    fn length_names() {
        for n in [
            "n",
            "len",
            "size",
            "Size",
            "count",
            "nbytes",
            "data_len",
            "bufsize",
            "buf_length",
            "n_items_count",
            "cap",
            "outcap",
            "capacity",
        ] {
            assert!(length_like(n), "{n}");
        }
        for n in [
            "k", "flags", "x", "level", "mode", "key", "limit", "nlen_x", "s",
        ] {
            assert!(!length_like(n), "{n}");
        }
    }
    use evotest_abi::meta::{ScalarKind, ScalarMeta};

    fn ty(c: &str, kind: ScalarKind, bits: u32) -> TypeMeta {
        TypeMeta {
            canonical: None,
            c_spelling: c.into(),
            ir: String::new(),
            scalar: Some(ScalarMeta { kind, bits }),
            pointee: None,
            composite: None,
            array: None,
            reference: 0,
        }
    }

    fn ptr(c: &str, to: TypeMeta) -> TypeMeta {
        TypeMeta {
            canonical: None,
            c_spelling: c.into(),
            ir: "ptr".into(),
            scalar: None,
            pointee: Some(Box::new(to)),
            composite: None,
            array: None,
            reference: 0,
        }
    }

    fn func(params: Vec<(&str, TypeMeta)>) -> FunctionMeta {
        FunctionMeta {
            name: "f".into(),
            external: true,
            file: "f.c".into(),
            line: 1,
            params: params
                .into_iter()
                .map(|(n, t)| ParamMeta {
                    name: n.into(),
                    ty: t,
                })
                .collect(),
            ret: ty("int", ScalarKind::Signed, 32),
            variadic: false,
            blocks: vec![],
            calls: vec![],
            address_refs: vec![],
            writes_globals: false,
            source_name: None,
            language: None,
            source_params: None,
            reads_globals: vec![],
            param_calls: vec![],
            indirect_jumps: vec![],
            constants: vec![],
            strings: vec![],
        }
    }

    #[test]
    fn arrays_strings_and_buffers_become_fields() {
        let int = ty("int", ScalarKind::Signed, 32);
        let chr = ty("char", ScalarKind::Signed, 8);
        let f = func(vec![
            ("a", ptr("int *", int.clone())),
            ("s", ptr("const char *", chr)),
            ("n", int.clone()),
            ("b", ptr("int *", int.clone())),
        ]);
        let specs = vec![
            ShapeSpec::parse_array("a=3").unwrap(),
            ShapeSpec::parse_buffer("b=n:4").unwrap(),
            ShapeSpec::parse_string("s=2:a-c").unwrap(),
        ];
        let ranges = vec![RangeSpec {
            name: "a".into(),
            lo: "-5".into(),
            hi: "5".into(),
        }];
        let (params, genes) = build(&f, &specs, &ranges, &[], &[]).unwrap();
        // a[0..3], s.len, s[0], s[1], b.len, b[0..4]
        assert_eq!(genes.len(), 3 + 3 + 5);
        assert_eq!(params[2].shape, Shape::LengthOf { buffer: 3 });
        assert_eq!(genes[0].range, Range::Int { lo: -5, hi: 5 });
        assert_eq!(
            genes[4].role,
            Role::Char {
                alphabet: b"abc".to_vec()
            }
        );
        let sig = super::super::harness::Signature::of(&f, &params).unwrap();
        let fe = super::super::FunctionFrontend {
            signature: sig,
            params,
            domain: Domain::packed(genes),
            sources: "f.c".into(),
            defining_source: None,
            renamed: Vec::new(),
            relinked: Vec::new(),
            other_sources: vec![],
            cflags: vec![],
            inferred: vec![],
            cxx_call: None,
            unset_globals: vec![],
            unsettable_globals: vec![],
            isolate_tests: false,
            hidden_state_calls: vec![],
            reads_stdin: None,
            main_sources: vec![],
            foreign_globals: vec![],
            default_caps: vec![],
        };
        let d = &fe.domain;
        let input = d.from_values(
            &[1, 2, 3, 1, 98, 99, 2, 7, 8, 9, 10]
                .iter()
                .map(|&v| Value::Int(v))
                .collect::<Vec<_>>(),
        );
        assert_eq!(
            fe.display_input(&input),
            "a=[1, 2, 3], s=\"b\", n=2, b=[7, 8]"
        );
        let a = c_args(&fe.params, d, &input, "v", true, &[]);
        let guarded = |v: &str, decl: &str| {
            [
                format!("struct {{ {decl}; unsigned char evotest_g[64]; }} {v}_s = {{ "),
                format!("evotest_fill_guard_bytes({v}_s.evotest_g);"),
            ]
        };
        let [g0, m0] = guarded("v0", "int evotest_v[3]");
        let [g1, m1] = guarded("v1", "char evotest_v[2]");
        let [g3, m3] = guarded("v3", "int evotest_v[2]");
        assert_eq!(
            a.setup,
            vec![
                format!("{g0}{{1, 2, 3}}, {{0}} }};"),
                m0,
                format!("{g1}\"b\", {{0}} }};"),
                m1,
                format!("{g3}{{7, 8}}, {{0}} }};"),
                m3
            ]
        );
        assert_eq!(
            a.args,
            vec![
                "v0_s.evotest_v",
                "v1_s.evotest_v",
                "(int)2",
                "v3_s.evotest_v"
            ]
        );
        assert_eq!(
            a.after,
            vec![
                "evotest_check_guard_bytes(v0_s.evotest_g, \"a\");",
                "evotest_check_guard_bytes(v1_s.evotest_g, \"s\");",
                "evotest_check_guard_bytes(v3_s.evotest_g, \"b\");"
            ]
        );
        let h = fe.harness_c();
        // the length parameter is decoded after its buffer
        let (b, n) = (
            h.find("int *evotest_p3").unwrap(),
            h.find("int evotest_p2 = (int)evotest_n3;").unwrap(),
        );
        assert!(b < n, "{h}");
    }

    #[test]
    fn pointers_need_a_shape_and_specs_must_fit() {
        let int = ty("int", ScalarKind::Signed, 32);
        let f = func(vec![("a", ptr("int *", int.clone())), ("n", int.clone())]);
        let e = build(&f, &[], &[], &[], &[]).unwrap_err().to_string();
        assert!(e.contains("--array a=LEN"), "{e}");
        let specs = [
            ShapeSpec::parse_array("a=2").unwrap(),
            ShapeSpec::parse_array("n=3").unwrap(),
        ];
        let e = build(&f, &specs, &[], &[], &[]).unwrap_err().to_string();
        assert!(e.contains("not a pointer"), "{e}");
        let e = build(
            &f,
            &[ShapeSpec::parse_array("zz=3").unwrap()],
            &[],
            &[],
            &[],
        )
        .unwrap_err()
        .to_string();
        assert!(e.contains("no such parameter"), "{e}");
        assert!(ShapeSpec::parse_string("s=3:z-a").is_err());
        assert!(ShapeSpec::parse_buffer("a=5").is_err());
        // lengths outside 1..=MAX_LEN are refused with the bounds (a maximum of 0 used to reach
        // the harness generator, which indexed the first element's field)
        for (spec, e) in [
            ("s=0", ShapeSpec::parse_string("s=0")),
            ("s=0:a-z", ShapeSpec::parse_string("s=0:a-z")),
            ("a=n:0", ShapeSpec::parse_buffer("a=n:0")),
            ("a=0", ShapeSpec::parse_array("a=0")),
            ("a=n:99999", ShapeSpec::parse_buffer("a=n:99999")),
        ] {
            let e = e.unwrap_err().to_string();
            assert!(e.contains(spec) && e.contains("between 1 and 65536"), "{e}");
        }
    }

    #[test]
    fn c_strings_escape() {
        assert_eq!(c_string(b"a\"b\\c\n?"), "\"a\\\"b\\\\c\\012\\?\"");
    }
}
