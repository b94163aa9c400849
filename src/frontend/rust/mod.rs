//! The Rust-function frontend: one free, non-generic Rust function of a library crate, called
//! by its path (`triangle::triangle`) from a generated Rust harness.
//!
//! * [`sig`]: the signature as written in the source (the pass's metadata gives the file and
//!   line); [`structs`]: the crate's structs, read from its sources.
//! * Parameters ([`Node`], built from fields of the input):
//!   * integers `i8`…`i64`, `u8`…`u64`, `isize`, `usize`, `f32`, `f64`, `bool` and `char` are one
//!     field each (`char` a `u32` code point in 0..=0x10FFFF; a surrogate is read as U+FFFD);
//!   * `i128` and `u128` are two 64-bit fields, the high and the low half, so that the whole
//!     range is reachable; with a `--range` that fits in 64 bits, one field;
//!   * `&str` and `String`: a length field and up to MAX character fields (printable ASCII by
//!     default, as C strings; `--string NAME=MAX[:ALPHABET]`);
//!   * `&[T]`, `&mut [T]` and `Vec<T>`: a length field and up to MAX elements (`--array
//!     NAME=MAX`, default [`DEFAULT_SEQ_MAX`]); `[T; N]`: N elements;
//!   * tuples, and plain structs of the crate (`pub`, not generic over types, not
//!     `#[non_exhaustive]`, every field `pub`; named, tuple or unit), member by member; `&T` and
//!     `&mut T` of any of these;
//!   * where `T` and the members are again any of these. Anything else is refused, naming the
//!     parameter and its type. Inner parts are named by path for `--range`, `--string` and
//!     `--array`: `p.x`, `t.0`, `xs[2].name`; a range on a part applies to every number in it.
//! * [`harness`]: the generated `main` (decode, call inside `catch_unwind`, record the return
//!   value; a panic is recorded as a fault: its message on standard error, then `abort`).
//! * [`rtests`]: the suite as `tests.rs`, a Rust integration-test file for the crate.
//! * [`build`]: building the crate to bitcode through cargo, instrumenting it, linking the
//!   harness (the route of `examples/rust/ROUTE.md`).

pub mod build;
pub mod harness;
pub mod rtests;
pub mod sig;
pub mod structs;

use super::function::shape::{parse_alphabet, printable, ShapeSpec, DEFAULT_STRING_MAX};
use super::{Frontend, TestFile};
use crate::input::spec::RangeSpec;
use crate::input::{DisplayValue, Domain, Field, Input, Range, Role, ScalarType, Value};
use anyhow::{anyhow, bail, Result};
use serde_json::{json, Value as Json};
use sig::{RScalar, RType, RustSig};
use std::path::PathBuf;
use structs::{CrateTypes, StructKind};

/// Default maximum length of a slice or `Vec` parameter without `--array NAME=MAX`.
pub const DEFAULT_SEQ_MAX: usize = 8;

/// Deepest nesting of types evotest builds (a struct that contains itself is refused here).
const MAX_DEPTH: usize = 12;

/// How a value (a parameter or a part of one) is built from the input's fields (indices into the
/// domain's fields).
#[derive(Clone, Debug, PartialEq)]
pub enum Node {
    /// One field (an `i128`/`u128` with a 64-bit range: one `i64`/`u64` field, widened).
    Scalar { s: RScalar, field: usize },
    /// An `i128` (`hi` an `i64` field) or a `u128` (`hi` a `u64` field): `hi << 64 | lo`, `lo` a
    /// `u64` field.
    Wide { s: RScalar, hi: usize, lo: usize },
    /// `&str` (`owned: false`) or `String`: a length field, then `max` character fields (bytes
    /// of the alphabet).
    Text {
        owned: bool,
        len_field: usize,
        first: usize,
        max: usize,
    },
    /// `Vec<T>` (`vec`), `&[T]` or `&mut [T]`: a length field, then one node per possible element.
    Seq {
        vec: bool,
        mutable: bool,
        len_field: usize,
        elems: Vec<Node>,
    },
    /// `[T; N]`: N elements.
    Array(Vec<Node>),
    /// `(A, B, …)`.
    Tuple(Vec<Node>),
    /// A struct of the crate, by its path from the crate root (`geo::Point`), with its fields in
    /// order (a tuple struct's named `0`, `1`, …).
    Struct {
        path: String,
        kind: StructShape,
        fields: Vec<(String, Node)>,
    },
    /// `&T` or `&mut T`.
    Ref { mutable: bool, inner: Box<Node> },
}

/// The body of a struct [`Node`].
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum StructShape {
    /// `P { x: …, y: … }`
    Named,
    /// `P(…, …)`
    Tuple,
    /// `P`
    Unit,
}

/// One parameter of the Rust function.
#[derive(Clone, Debug, PartialEq)]
pub struct RParam {
    /// The parameter's name in the source.
    pub name: String,
    /// Its type as written.
    pub ty: RType,
    /// How its value is built from the input's fields.
    pub node: Node,
}

/// How compiler-inserted checks (overflow, bounds, `unwrap`… branches) are treated.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Default, clap::ValueEnum)]
pub enum RustChecks {
    /// Not goals: left out of the coverage figure and reported apart.
    #[default]
    Ignore,
    /// Goals like any branch: the search tries to make them fail (a panic).
    Target,
}

/// See module docs.
#[derive(Clone, Debug)]
pub struct RustFrontend {
    /// The signature as written in the source.
    pub sig: RustSig,
    /// The library crate's name (`triangle`), as `use` and paths spell it.
    pub crate_name: String,
    /// The path the harness and the tests call: `triangle::triangle`.
    pub call_path: String,
    /// The parameters, in order.
    pub params: Vec<RParam>,
    /// The input domain: the parameters' fields packed in order.
    pub domain: Domain,
    /// `fn triangle::triangle(a: i32, b: i32, c: i32) -> i32`.
    pub prototype: String,
    /// The crate directory, for generated comments.
    pub crate_dir: PathBuf,
    /// The instrumented executable, once linked: faults are replayed through it to read their
    /// panic messages.
    pub exe: Option<PathBuf>,
    /// Panic messages by input bytes (see [`RustFrontend::panic_message`]).
    messages: std::sync::Arc<std::sync::Mutex<std::collections::HashMap<Vec<u8>, Option<String>>>>,
    /// The sizes chosen by default ([`Frontend::default_caps`]).
    default_caps: Vec<String>,
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

fn scalar_field(name: &str, s: RScalar) -> Field {
    let mut f = Field::full(name, s.field());
    if s == RScalar::Char {
        f.range = Range::Int {
            lo: 0,
            hi: 0x10FFFF,
        };
        f.full = false;
    }
    f
}

/// Whether range or spec name `name` names the part at `path` or one that contains it.
fn covers(name: &str, path: &str) -> bool {
    path == name
        || path
            .strip_prefix(name)
            .is_some_and(|r| r.starts_with('.') || r.starts_with('['))
}

/// Builds the nodes and fields of the parameters (see [`RustFrontend::new`]).
struct Builder<'a> {
    fields: Vec<Field>,
    specs: &'a [ShapeSpec],
    ranges: &'a [RangeSpec],
    types: &'a CrateTypes,
    crate_name: &'a str,
    /// Every part's path and the number fields under it (for ranges), and whether it holds text.
    parts: Vec<(String, Vec<usize>, bool)>,
    used_specs: Vec<bool>,
    /// Strings and sequences sized by default, as [`Frontend::default_caps`] gives them.
    default_caps: Vec<String>,
}

impl Builder<'_> {
    fn spec(&mut self, path: &str) -> Option<&ShapeSpec> {
        let i = self.specs.iter().position(|s| s.name() == path)?;
        self.used_specs[i] = true;
        Some(&self.specs[i])
    }

    /// The node of a part of type `ty` at `path`, whose types are written in module `from`.
    /// Errors: why `ty` cannot be built (one phrase).
    fn node(
        &mut self,
        path: &str,
        ty: &RType,
        from: &[String],
        depth: usize,
    ) -> std::result::Result<Node, String> {
        if depth > MAX_DEPTH {
            return Err(format!("types nest deeper than {MAX_DEPTH} levels"));
        }
        let first_field = self.fields.len();
        let spec = self.spec(path).cloned();
        let no_spec = |what: &str| -> std::result::Result<(), String> {
            match &spec {
                Some(s) => Err(format!(
                    "`{}` is {what}: remove its --{}",
                    s.name(),
                    match s {
                        ShapeSpec::Array { .. } => "array",
                        ShapeSpec::String { .. } => "string",
                        ShapeSpec::Buffer { .. } => "buffer",
                    }
                )),
                None => Ok(()),
            }
        };
        let node = match ty {
            RType::Scalar(s) if s.is_wide() => {
                no_spec(&format!("a `{}`", s.name()))?;
                if self.ranges.iter().any(|r| covers(&r.name, path)) {
                    // a range: one 64-bit field, widened by the harness
                    self.fields.push(scalar_field(path, *s));
                    Node::Scalar {
                        s: *s,
                        field: first_field,
                    }
                } else {
                    let hi = if *s == RScalar::I128 {
                        ScalarType::I64
                    } else {
                        ScalarType::U64
                    };
                    self.fields.push(Field::full(&format!("{path}.hi"), hi));
                    self.fields
                        .push(Field::full(&format!("{path}.lo"), ScalarType::U64));
                    Node::Wide {
                        s: *s,
                        hi: first_field,
                        lo: first_field + 1,
                    }
                }
            }
            RType::Scalar(s) => {
                no_spec(&format!("a `{}`", s.name()))?;
                self.fields.push(scalar_field(path, *s));
                Node::Scalar {
                    s: *s,
                    field: first_field,
                }
            }
            RType::Str | RType::String => {
                let (max, alphabet) = match &spec {
                    Some(ShapeSpec::String { max, alphabet, .. }) => (
                        *max,
                        match alphabet {
                            Some(a) => parse_alphabet(a).map_err(|e| e.to_string())?,
                            None => printable(),
                        },
                    ),
                    Some(_) => {
                        return Err(format!(
                            "`{path}` is a `{}`: give its maximum length with --string {path}=MAX",
                            ty.spelling()
                        ))
                    }
                    None => {
                        self.default_caps.push(format!(
                            "`{path}` (at most {DEFAULT_STRING_MAX} characters: --string {path}=N)"
                        ));
                        (DEFAULT_STRING_MAX, printable())
                    }
                };
                self.fields.push(length_field(path, max));
                let (lo, hi) = (alphabet[0] as i128, alphabet[alphabet.len() - 1] as i128);
                for k in 0..max {
                    self.fields.push(Field {
                        name: format!("{path}[{k}]"),
                        offset: 0,
                        ty: ScalarType::U8,
                        range: Range::Int { lo, hi },
                        full: false,
                        step: None,
                        role: Role::Char {
                            alphabet: alphabet.clone(),
                        },
                    });
                }
                Node::Text {
                    owned: *ty == RType::String,
                    len_field: first_field,
                    first: first_field + 1,
                    max,
                }
            }
            RType::Slice { .. } | RType::Vec(_) => {
                let (elem, vec, mutable) = match ty {
                    RType::Slice { elem, mutable } => (elem, false, *mutable),
                    RType::Vec(elem) => (elem, true, false),
                    _ => unreachable!("matched by the arm"),
                };
                let max = match &spec {
                    Some(ShapeSpec::Array { len, .. }) => *len,
                    Some(_) => {
                        return Err(format!(
                            "`{path}` is a `{}`: give its maximum length with --array {path}=MAX",
                            ty.spelling()
                        ))
                    }
                    None => {
                        self.default_caps.push(format!(
                            "`{path}` (at most {DEFAULT_SEQ_MAX} elements: --array {path}=N)"
                        ));
                        DEFAULT_SEQ_MAX
                    }
                };
                self.fields.push(length_field(path, max));
                let mut elems = vec![];
                for k in 0..max {
                    elems.push(self.node(&format!("{path}[{k}]"), elem, from, depth + 1)?);
                }
                Node::Seq {
                    vec,
                    mutable,
                    len_field: first_field,
                    elems,
                }
            }
            RType::Array(elem, n) => {
                no_spec(&format!("an array of fixed length {n}"))?;
                let mut elems = vec![];
                for k in 0..*n {
                    elems.push(self.node(&format!("{path}[{k}]"), elem, from, depth + 1)?);
                }
                Node::Array(elems)
            }
            RType::Tuple(ts) => {
                no_spec("a tuple")?;
                let mut elems = vec![];
                for (k, t) in ts.iter().enumerate() {
                    elems.push(self.node(&format!("{path}.{k}"), t, from, depth + 1)?);
                }
                Node::Tuple(elems)
            }
            RType::Ref { inner, mutable } => {
                let n = self.node(path, inner, from, depth + 1)?;
                // the inner part registered this path already
                return Ok(Node::Ref {
                    mutable: *mutable,
                    inner: Box::new(n),
                });
            }
            RType::Path(p) => {
                no_spec("a struct")?;
                let def = self
                    .types
                    .find(p, from, self.crate_name)
                    .map_err(|e| e.to_string())?;
                let def = def.clone();
                let dpath = def.path();
                if !def.public {
                    return Err(format!("struct `{dpath}` is not `pub`"));
                }
                if def.generic {
                    return Err(format!("struct `{dpath}` is generic"));
                }
                if def.non_exhaustive {
                    return Err(format!("struct `{dpath}` is `#[non_exhaustive]`, so it cannot be built outside its crate"));
                }
                let (shape, fdefs) = match &def.kind {
                    StructKind::Named(f) => (StructShape::Named, f.clone()),
                    StructKind::Tuple(f) => (StructShape::Tuple, f.clone()),
                    StructKind::Unit => (StructShape::Unit, vec![]),
                };
                if let Some(f) = fdefs.iter().find(|f| !f.public) {
                    return Err(format!(
                        "field `{}` of struct `{dpath}` is not `pub` (evotest builds a struct with a literal, from outside the crate)",
                        f.name
                    ));
                }
                let mut fields = vec![];
                for f in &fdefs {
                    let fty = RType::parse(&f.ty);
                    let n = self
                        .node(&format!("{path}.{}", f.name), &fty, &def.module, depth + 1)
                        .map_err(|e| format!("field `{}` of struct `{dpath}`: {e}", f.name))?;
                    fields.push((f.name.clone(), n));
                }
                Node::Struct {
                    path: dpath,
                    kind: shape,
                    fields,
                }
            }
            RType::Unit => return Err("`()` carries no value".into()),
            RType::Other(t) => return Err(format!("`{t}` is not a type evotest can build")),
        };
        let numbers: Vec<usize> = (first_field..self.fields.len())
            .filter(|&i| self.fields[i].role == Role::Value)
            .collect();
        let text = (first_field..self.fields.len())
            .any(|i| matches!(self.fields[i].role, Role::Char { .. }));
        self.parts.push((path.to_string(), numbers, text));
        Ok(node)
    }
}

impl RustFrontend {
    /// The call expression with `args` (`triangle::triangle(1i32, 2i32, 3i32)`), in an `unsafe`
    /// block for an `unsafe fn` (evotest calls it as its tests do: with whatever inputs).
    pub fn call_expr(&self, args: &[String]) -> String {
        let call = format!("{}({})", self.call_path, args.join(", "));
        if self.sig.is_unsafe {
            format!("unsafe {{ {call} }}")
        } else {
            call
        }
    }

    /// The frontend of `sig`, called as `call_path`, whose module (from the crate root) is
    /// `module`, with string and sequence maxima from `specs` (`--string NAME=MAX[:ALPHABET]`,
    /// `--array NAME=MAX`, where NAME is a parameter or a part of one: `p.name`) and ranges from
    /// `ranges`; struct types are looked up in `types`.
    ///
    /// Errors (one line): a parameter of an unsupported type (naming it, its type and why), a
    /// spec or range naming no parameter or part, or the wrong kind of part.
    #[allow(clippy::too_many_arguments)]
    pub fn new(
        sig: RustSig,
        crate_name: &str,
        call_path: &str,
        module: &[String],
        types: &CrateTypes,
        specs: &[ShapeSpec],
        ranges: &[RangeSpec],
        crate_dir: PathBuf,
    ) -> Result<RustFrontend> {
        let names: Vec<&str> = sig.params.iter().map(|p| p.0.as_str()).collect();
        for s in specs {
            if !names.iter().any(|n| covers(n, s.name())) {
                bail!(
                    "shape for `{}`: `{}` has no such parameter (parameters: {})",
                    s.name(),
                    sig.name,
                    names.join(", ")
                );
            }
            if matches!(s, ShapeSpec::Buffer { .. }) {
                bail!("--buffer {}: a Rust slice carries its length; use --array {}=MAX for its maximum length", s.name(), s.name());
            }
        }
        let mut b = Builder {
            fields: vec![],
            specs,
            ranges,
            types,
            crate_name,
            parts: vec![],
            used_specs: vec![false; specs.len()],
            default_caps: vec![],
        };
        let mut params = Vec::new();
        for (name, ty) in &sig.params {
            let node = b.node(name, ty, module, 0).map_err(|why| {
                anyhow!(
                    "parameter `{name}` of `{}` has type `{}`, which evotest cannot generate: {why} (supported: integers, \
                     floats, bool, char, &str, String, slices, Vec and arrays, tuples, pub structs of the crate with pub fields, \
                     and references to them)",
                    sig.name,
                    ty.spelling()
                )
            })?;
            params.push(RParam {
                name: name.clone(),
                ty: ty.clone(),
                node,
            });
        }
        if let Some(i) = b.used_specs.iter().position(|u| !u) {
            let parts: Vec<&str> = b.parts.iter().map(|p| p.0.as_str()).collect();
            bail!(
                "shape for `{}`: no such part of a parameter (parts: {})",
                specs[i].name(),
                parts.join(", ")
            );
        }
        for r in ranges {
            let Some((_, numbers, text)) = b.parts.iter().find(|p| p.0 == r.name).cloned() else {
                let parts: Vec<&str> = b.parts.iter().map(|p| p.0.as_str()).collect();
                bail!(
                    "range for `{}`: `{}` has no such parameter or part (parts: {})",
                    r.name,
                    sig.name,
                    parts.join(", ")
                );
            };
            if text && numbers.is_empty() {
                bail!("range for `{}`: a string takes an alphabet (--string {}=MAX:ALPHABET), not a range", r.name, r.name);
            }
            for f in numbers {
                let what = format!("`{}`", b.fields[f].name);
                b.fields[f].set_range(&r.lo, &r.hi, &what)?;
            }
        }
        let prototype =
            sig.display()
                .replacen(&format!("fn {}", sig.name), &format!("fn {call_path}"), 1);
        Ok(RustFrontend {
            sig,
            crate_name: crate_name.to_string(),
            call_path: call_path.to_string(),
            params,
            domain: Domain::packed(b.fields),
            prototype,
            crate_dir,
            exe: None,
            messages: Default::default(),
            default_caps: b.default_caps,
        })
    }

    /// The panic message of `input` (first line, then `  at FILE:LINE:COL`), read by running it
    /// once through the instrumented executable (the harness prints it); `None` if it does not
    /// panic or the executable cannot run. Cached.
    pub fn panic_message(&self, input: &Input) -> Option<String> {
        if let Some(m) = self.messages.lock().ok()?.get(&input.bytes) {
            return m.clone();
        }
        let m = (|| {
            let exe = self.exe.as_ref()?;
            let dir = tempfile::tempdir().ok()?;
            let f = dir.path().join("input");
            std::fs::write(&f, &input.bytes).ok()?;
            let out = std::process::Command::new(exe)
                .arg(&f)
                .env("RUST_BACKTRACE", "0")
                .stdin(std::process::Stdio::null())
                .stdout(std::process::Stdio::null())
                .output()
                .ok()?;
            let err = String::from_utf8_lossy(&out.stderr).into_owned();
            let mut lines = err
                .lines()
                .skip_while(|l| !l.starts_with(harness::PANIC_PREFIX));
            let first = lines
                .next()?
                .strip_prefix(harness::PANIC_PREFIX)?
                .replace("\\n", "\n");
            Some(
                match lines
                    .next()
                    .map(str::trim)
                    .and_then(|l| l.strip_prefix("at "))
                {
                    Some(at) => format!("{first}\n  at {at}"),
                    None => first,
                },
            )
        })();
        if let Ok(mut c) = self.messages.lock() {
            c.insert(input.bytes.clone(), m.clone());
        }
        m
    }

    /// The length of a text or sequence node in `input` (clamped to its maximum).
    pub fn length(&self, node: &Node, input: &Input) -> usize {
        match node {
            Node::Text { len_field, max, .. } => self
                .domain
                .get(input, *len_field)
                .as_i128()
                .clamp(0, *max as i128) as usize,
            Node::Seq {
                len_field, elems, ..
            } => self
                .domain
                .get(input, *len_field)
                .as_i128()
                .clamp(0, elems.len() as i128) as usize,
            _ => 0,
        }
    }

    /// The string of a text node (its bytes are of an ASCII alphabet).
    pub fn text(&self, node: &Node, input: &Input) -> String {
        match node {
            Node::Text { first, .. } => (*first..first + self.length(node, input))
                .map(|i| self.domain.get(input, i).as_i128() as u8 as char)
                .collect(),
            _ => String::new(),
        }
    }

    /// The value of a 128-bit node as (signed value, or unsigned value), the one its type has.
    pub fn wide(&self, node: &Node, input: &Input) -> (Option<i128>, Option<u128>) {
        match node {
            Node::Wide { s, hi, lo } => {
                let (h, l) = (
                    self.domain.get(input, *hi).as_i128(),
                    self.domain.get(input, *lo).as_i128() as u64,
                );
                if *s == RScalar::I128 {
                    (Some(((h as i64 as i128) << 64) | l as i128), None)
                } else {
                    (None, Some(((h as u64 as u128) << 64) | l as u128))
                }
            }
            _ => (None, None),
        }
    }

    fn scalar_display(s: RScalar, v: Value) -> String {
        match s {
            RScalar::Char => format!("{:?}", char_of(v)),
            _ => DisplayValue(s.field(), v).to_string(),
        }
    }

    /// A node's value for people: `5`, `"ab"`, `[1, 2]`, `(1, 'x')`, `Point { x: 1, y: 2 }`.
    pub fn show(&self, node: &Node, input: &Input) -> String {
        let list = |ns: &[Node]| ns.iter().map(|n| self.show(n, input)).collect::<Vec<_>>();
        match node {
            Node::Scalar { s, field } => Self::scalar_display(*s, self.domain.get(input, *field)),
            Node::Wide { .. } => match self.wide(node, input) {
                (Some(v), _) => v.to_string(),
                (_, Some(v)) => v.to_string(),
                _ => "?".into(),
            },
            Node::Text { .. } => format!("{:?}", self.text(node, input)),
            Node::Seq { elems, .. } => {
                format!("[{}]", list(&elems[..self.length(node, input)]).join(", "))
            }
            Node::Array(elems) => format!("[{}]", list(elems).join(", ")),
            Node::Tuple(elems) if elems.len() == 1 => format!("({},)", self.show(&elems[0], input)),
            Node::Tuple(elems) => format!("({})", list(elems).join(", ")),
            Node::Struct { path, kind, fields } => {
                let name = path.rsplit("::").next().unwrap_or(path);
                match kind {
                    StructShape::Unit => name.to_string(),
                    StructShape::Tuple => {
                        format!(
                            "{name}({})",
                            fields
                                .iter()
                                .map(|(_, n)| self.show(n, input))
                                .collect::<Vec<_>>()
                                .join(", ")
                        )
                    }
                    StructShape::Named => format!(
                        "{name} {{ {} }}",
                        fields
                            .iter()
                            .map(|(f, n)| format!("{f}: {}", self.show(n, input)))
                            .collect::<Vec<_>>()
                            .join(", ")
                    ),
                }
            }
            Node::Ref { inner, .. } => self.show(inner, input),
        }
    }

    /// A node's value as JSON (a 128-bit integer beyond 64 bits as a string).
    pub fn to_json(&self, node: &Node, input: &Input) -> Json {
        let list = |ns: &[Node]| Json::Array(ns.iter().map(|n| self.to_json(n, input)).collect());
        match node {
            Node::Scalar { s, field } => json_num(*s, self.domain.get(input, *field)),
            Node::Wide { .. } => match self.wide(node, input) {
                (Some(v), _) => i64::try_from(v)
                    .map(|x| json!(x))
                    .unwrap_or_else(|_| json!(v.to_string())),
                (_, Some(v)) => u64::try_from(v)
                    .map(|x| json!(x))
                    .unwrap_or_else(|_| json!(v.to_string())),
                _ => Json::Null,
            },
            Node::Text { .. } => json!(self.text(node, input)),
            Node::Seq { elems, .. } => list(&elems[..self.length(node, input)]),
            Node::Array(elems) | Node::Tuple(elems) => list(elems),
            Node::Struct {
                kind: StructShape::Named,
                fields,
                ..
            } => Json::Object(
                fields
                    .iter()
                    .map(|(f, n)| (f.clone(), self.to_json(n, input)))
                    .collect(),
            ),
            Node::Struct { fields, .. } => {
                Json::Array(fields.iter().map(|(_, n)| self.to_json(n, input)).collect())
            }
            Node::Ref { inner, .. } => self.to_json(inner, input),
        }
    }

    /// `a=1, s="ab", xs=[1, 2]` for people.
    pub fn display_input(&self, input: &Input) -> String {
        self.params
            .iter()
            .map(|p| format!("{}={}", p.name, self.show(&p.node, input)))
            .collect::<Vec<_>>()
            .join(", ")
    }
}

/// The shape of a node for `suite.json`'s parameter list.
fn node_json(n: &Node) -> Json {
    match n {
        Node::Scalar { .. } => json!("scalar"),
        Node::Wide { .. } => json!("scalar (two 64-bit halves)"),
        Node::Text { max, .. } => json!({ "string": max }),
        Node::Seq { elems, .. } => {
            json!({ "sequence": elems.len(), "element": elems.first().map(node_json) })
        }
        Node::Array(elems) => {
            json!({ "array": elems.len(), "element": elems.first().map(node_json) })
        }
        Node::Tuple(elems) => json!({ "tuple": elems.iter().map(node_json).collect::<Vec<_>>() }),
        Node::Struct { path, fields, .. } => {
            json!({ "struct": path, "fields": fields.iter().map(|(f, n)| json!({"name": f, "shape": node_json(n)})).collect::<Vec<_>>() })
        }
        Node::Ref { inner, mutable } => {
            json!({ if *mutable { "mut_ref" } else { "ref" }: node_json(inner) })
        }
    }
}

/// The `char` a code-point field holds (a surrogate or out-of-range value is U+FFFD, as the
/// harness reads it).
pub fn char_of(v: Value) -> char {
    u32::try_from(v.as_i128())
        .ok()
        .and_then(char::from_u32)
        .unwrap_or(char::REPLACEMENT_CHARACTER)
}

fn json_num(s: RScalar, v: Value) -> Json {
    match (s, v) {
        (RScalar::Char, v) => json!(char_of(v).to_string()),
        (RScalar::Bool, v) => json!(v.as_i128() != 0),
        (_, Value::Int(i)) => serde_json::to_value(i).unwrap_or(Json::Null),
        (_, Value::Float(f)) if f.is_finite() => json!(f),
        (_, v) => json!(DisplayValue(s.field(), v).to_string()),
    }
}

impl Frontend for RustFrontend {
    fn domain(&self) -> &Domain {
        &self.domain
    }

    fn default_caps(&self) -> Vec<String> {
        self.default_caps.clone()
    }

    /// A `bool` result as `true`/`false` and a `char` as a literal; others as the default.
    fn result_text(&self, r: &crate::exec::RetVal) -> String {
        use crate::exec::RetVal;
        use sig::{RScalar, RType};
        match (&self.sig.ret, r) {
            (RType::Scalar(RScalar::Bool), RetVal::Signed(v)) => (*v != 0).to_string(),
            (RType::Scalar(RScalar::Bool), RetVal::Unsigned(v)) => (*v != 0).to_string(),
            (RType::Scalar(RScalar::Char), RetVal::Unsigned(v)) => {
                char::from_u32(*v as u32).map_or_else(|| r.to_string(), |c| format!("{c:?}"))
            }
            _ => r.to_string(),
        }
    }

    fn name(&self) -> &str {
        &self.call_path
    }

    fn describe(&self) -> &str {
        &self.prototype
    }

    fn display(&self, input: &Input) -> String {
        self.display_input(input)
    }

    fn json(&self, input: &Input) -> Json {
        Json::Object(
            self.params
                .iter()
                .map(|p| (p.name.clone(), self.to_json(&p.node, input)))
                .collect(),
        )
    }

    fn params_json(&self) -> Json {
        Json::Array(self.params.iter().map(|p| json!({"name": p.name, "type": p.ty.spelling(), "shape": node_json(&p.node)})).collect())
    }

    fn test_file(&self, file: &TestFile) -> Option<(String, String)> {
        Some(("tests.rs".to_string(), rtests::render(self, file)))
    }

    fn fault_message(&self, case: &crate::archive::TestCase) -> Option<String> {
        match case.exit {
            crate::exec::ExitKind::Crash { signal } if signal == libc::SIGABRT => self
                .panic_message(&case.input)
                .map(|m| format!("panicked: {}", m.replace("\n  at ", " at "))),
            _ => None,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn mk(
        src: &str,
        name: &str,
        specs: &[ShapeSpec],
        ranges: &[RangeSpec],
        types: &CrateTypes,
    ) -> Result<RustFrontend> {
        let s = sig::read(src, name, 1).unwrap();
        RustFrontend::new(
            s,
            "k",
            &format!("k::{name}"),
            &[],
            types,
            specs,
            ranges,
            PathBuf::from("."),
        )
    }

    #[test]
    fn parameters_become_fields_and_unsupported_types_are_named() {
        let t = CrateTypes::default();
        let fe = mk(
            "pub fn f(a: i32, s: &str, xs: &[u8], c: char) -> bool { true }",
            "f",
            &[ShapeSpec::parse_string("s=3").unwrap()],
            &[],
            &t,
        )
        .unwrap();
        // a, s.len, s[0..3], xs.len, xs[0..8], c
        assert_eq!(fe.domain.fields.len(), 1 + 1 + 3 + 1 + 8 + 1);
        let vals: Vec<Value> = [5, 2, 104, 105, 33, 1, 7, 0, 0, 0, 0, 0, 0, 0, 0x41]
            .iter()
            .map(|&v| Value::Int(v))
            .collect();
        let x = fe.domain.from_values(&vals);
        assert_eq!(fe.display_input(&x), "a=5, s=\"hi\", xs=[7], c='A'");
        let e = fe_err("pub fn g(p: (i32, Option<u8>)) {}", "g");
        assert!(
            e.contains("parameter `p`") && e.contains("(i32, Option<u8>)"),
            "{e}"
        );
        let e = fe_err("pub fn g(p: Point) {}", "g");
        assert!(
            e.contains("parameter `p`") && e.contains("`Point` is not a struct defined"),
            "{e}"
        );
    }

    fn fe_err(src: &str, name: &str) -> String {
        mk(src, name, &[], &[], &CrateTypes::default())
            .unwrap_err()
            .to_string()
    }

    fn types() -> CrateTypes {
        use structs::{FieldDef, StructDef};
        let f = |n: &str, t: &str, public: bool| FieldDef {
            name: n.into(),
            ty: t.into(),
            public,
        };
        let st = |name: &str, module: &[&str], kind| StructDef {
            name: name.into(),
            module: module.iter().map(|m| m.to_string()).collect(),
            public: true,
            generic: false,
            non_exhaustive: false,
            kind,
        };
        CrateTypes {
            enums: vec![],
            structs: vec![
                st(
                    "Point",
                    &["geo"],
                    StructKind::Named(vec![f("x", "i32", true), f("y", "i32", true)]),
                ),
                st(
                    "Named",
                    &[],
                    StructKind::Named(vec![
                        f("name", "&'a str", true),
                        f("at", "geo::Point", true),
                    ]),
                ),
                st("Id", &[], StructKind::Tuple(vec![f("0", "u8", true)])),
                st("Secret", &[], StructKind::Named(vec![f("k", "u8", false)])),
            ],
        }
    }

    #[test]
    fn tuples_structs_arrays_and_wide_integers_are_built_part_by_part() {
        let t = types();
        let fe = mk(
            "pub fn f(t: (i32, u8), n: &Named, ids: Vec<Id>, a: [i16; 3], w: i128, u: u128) {}",
            "f",
            &[
                ShapeSpec::parse_string("n.name=2").unwrap(),
                ShapeSpec::parse_array("ids=2").unwrap(),
            ],
            &[
                crate::input::spec::parse_range_arg("u=0..9").unwrap(),
                crate::input::spec::parse_range_arg("n.at=-5..5").unwrap(),
            ],
            &t,
        )
        .unwrap();
        let names: Vec<&str> = fe.domain.fields.iter().map(|f| f.name.as_str()).collect();
        assert_eq!(
            names,
            [
                "t.0",
                "t.1",
                "n.name.len",
                "n.name[0]",
                "n.name[1]",
                "n.at.x",
                "n.at.y",
                "ids.len",
                "ids[0].0",
                "ids[1].0",
                "a[0]",
                "a[1]",
                "a[2]",
                "w.hi",
                "w.lo",
                "u"
            ]
        );
        assert_eq!(fe.domain.fields[5].range, Range::Int { lo: -5, hi: 5 });
        assert_eq!(fe.domain.fields[15].range, Range::Int { lo: 0, hi: 9 });
        let vals: Vec<Value> = [-1, 200, 1, 65, 66, 3, -4, 1, 7, 8, 1, 2, 3, -1, 5, 9]
            .iter()
            .map(|&v| Value::Int(v))
            .collect();
        let x = fe.domain.from_values(&vals);
        assert_eq!(
            fe.display_input(&x),
            "t=(-1, 200), n=Named { name: \"A\", at: Point { x: 3, y: -4 } }, ids=[Id(7)], a=[1, 2, 3], w=-18446744073709551611, u=9"
        );
        assert_eq!(fe.json(&x)["n"]["at"]["y"], -4);
        assert_eq!(fe.json(&x)["w"], "-18446744073709551611");
        // refusals name the parameter, its type and why
        let e = mk("pub fn g(s: Secret) {}", "g", &[], &[], &t)
            .unwrap_err()
            .to_string();
        assert!(
            e.contains("parameter `s`") && e.contains("field `k` of struct `Secret` is not `pub`"),
            "{e}"
        );
        let e = mk(
            "pub fn g(a: [u8; 2]) {}",
            "g",
            &[ShapeSpec::parse_array("a=4").unwrap()],
            &[],
            &t,
        )
        .unwrap_err()
        .to_string();
        assert!(e.contains("fixed length 2"), "{e}");
        let e = mk(
            "pub fn g(p: geo::Point) {}",
            "g",
            &[ShapeSpec::parse_array("p.z=4").unwrap()],
            &[],
            &t,
        )
        .unwrap_err()
        .to_string();
        assert!(e.contains("p.z") && e.contains("p.x"), "{e}");
    }
}
