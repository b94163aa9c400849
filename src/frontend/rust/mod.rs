//! The Rust-function frontend: one free, non-generic Rust function of a library crate, called
//! by its path (`triangle::triangle`) from a generated Rust harness.
//!
//! * [`sig`]: the signature as written in the source (the pass's metadata gives the file and
//!   line).
//! * Parameters ([`RParam`]): integers `i8`…`i64`, `u8`…`u64`, `isize`, `usize`, `f32`, `f64`,
//!   `bool` and `char` are one field each (`char` a `u32` code point in 0..=0x10FFFF; a
//!   surrogate is read as U+FFFD); `&str` and `String` a length field and up to MAX character
//!   fields (printable ASCII by default, as C strings; `--string NAME=MAX[:ALPHABET]`); `&[T]`,
//!   `&mut [T]` and `Vec<T>` of those scalars a length field and up to MAX element fields
//!   (`--array NAME=MAX`, default [`DEFAULT_SEQ_MAX`]). Anything else is refused.
//! * [`harness`]: the generated `main` (decode, call inside `catch_unwind`, record the return
//!   value; a panic is recorded as a fault: its message on standard error, then `abort`).
//! * [`rtests`]: the suite as `tests.rs`, a Rust integration-test file for the crate.
//! * [`build`]: building the crate to bitcode through cargo, instrumenting it, linking the
//!   harness (the route of `examples/rust/ROUTE.md`).

pub mod build;
pub mod harness;
pub mod rtests;
pub mod sig;

use super::function::shape::{parse_alphabet, printable, ShapeSpec, DEFAULT_STRING_MAX};
use super::{Frontend, TestFile};
use crate::input::spec::RangeSpec;
use crate::input::{DisplayValue, Domain, Field, Input, Range, Role, ScalarType, Value};
use anyhow::{anyhow, bail, Result};
use serde_json::{json, Value as Json};
use sig::{RScalar, RType, RustSig};
use std::path::PathBuf;

/// Default maximum length of a slice or `Vec` parameter without `--array NAME=MAX`.
pub const DEFAULT_SEQ_MAX: usize = 8;

/// How a parameter is built from fields.
#[derive(Clone, Debug, PartialEq)]
pub enum RShape {
    /// One field (index into the domain's fields).
    Scalar { field: usize },
    /// `&str`/`String`: a length field, then `max` character fields (bytes of the alphabet).
    Text { len_field: usize, first: usize, max: usize },
    /// `&[T]`/`Vec<T>`: a length field, then `max` element fields.
    Seq { len_field: usize, first: usize, max: usize },
}

/// One parameter of the Rust function.
#[derive(Clone, Debug, PartialEq)]
pub struct RParam {
    /// The parameter's name in the source.
    pub name: String,
    /// Its type as written.
    pub ty: RType,
    /// How its value is built from the input's fields.
    pub shape: RShape,
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
}

fn length_field(name: &str, max: usize) -> Field {
    Field {
        name: format!("{name}.len"),
        offset: 0,
        ty: ScalarType::U32,
        range: Range::Int { lo: 0, hi: max as i128 },
        full: false,
        step: None,
        role: Role::Length,
    }
}

fn scalar_field(name: &str, s: RScalar) -> Field {
    let mut f = Field::full(name, s.field());
    if s == RScalar::Char {
        f.range = Range::Int { lo: 0, hi: 0x10FFFF };
        f.full = false;
    }
    f
}

impl RustFrontend {
    /// The frontend of `sig`, called as `call_path`, with string and sequence maxima from
    /// `specs` (`--string NAME=MAX[:ALPHABET]`, `--array NAME=MAX`) and ranges from `ranges`.
    ///
    /// Errors (one line): a parameter of an unsupported type (naming it and its type), a spec or
    /// range naming no parameter or the wrong kind of parameter.
    pub fn new(sig: RustSig, crate_name: &str, call_path: &str, specs: &[ShapeSpec], ranges: &[RangeSpec], crate_dir: PathBuf) -> Result<RustFrontend> {
        let names: Vec<&str> = sig.params.iter().map(|p| p.0.as_str()).collect();
        for s in specs {
            if !names.contains(&s.name()) {
                bail!("shape for `{}`: `{}` has no such parameter (parameters: {})", s.name(), sig.name, names.join(", "));
            }
            if matches!(s, ShapeSpec::Buffer { .. }) {
                bail!("--buffer {}: a Rust slice carries its length; use --array {}=MAX for its maximum length", s.name(), s.name());
            }
        }
        let mut fields = Vec::new();
        let mut params = Vec::new();
        for (name, ty) in &sig.params {
            let spec = specs.iter().find(|s| s.name() == name);
            let shape = match ty {
                RType::Scalar(s) => {
                    if spec.is_some() {
                        bail!("parameter `{name}` of `{}` is a `{}`: remove its --array/--string", sig.name, ty.spelling());
                    }
                    fields.push(scalar_field(name, *s));
                    RShape::Scalar { field: fields.len() - 1 }
                }
                RType::Str | RType::String => {
                    let (max, alphabet) = match spec {
                        Some(ShapeSpec::String { max, alphabet, .. }) => {
                            (*max, match alphabet {
                                Some(a) => parse_alphabet(a)?,
                                None => printable(),
                            })
                        }
                        Some(_) => bail!("parameter `{name}` is a `{}`: give its maximum length with --string {name}=MAX", ty.spelling()),
                        None => (DEFAULT_STRING_MAX, printable()),
                    };
                    let len_field = fields.len();
                    fields.push(length_field(name, max));
                    let first = fields.len();
                    let (lo, hi) = (alphabet[0] as i128, alphabet[alphabet.len() - 1] as i128);
                    for k in 0..max {
                        fields.push(Field {
                            name: format!("{name}[{k}]"),
                            offset: 0,
                            ty: ScalarType::U8,
                            range: Range::Int { lo, hi },
                            full: false,
                            step: None,
                            role: Role::Char { alphabet: alphabet.clone() },
                        });
                    }
                    RShape::Text { len_field, first, max }
                }
                RType::Slice { elem, .. } | RType::Vec(elem) => {
                    let max = match spec {
                        Some(ShapeSpec::Array { len, .. }) => *len,
                        Some(_) => bail!("parameter `{name}` is a `{}`: give its maximum length with --array {name}=MAX", ty.spelling()),
                        None => DEFAULT_SEQ_MAX,
                    };
                    let len_field = fields.len();
                    fields.push(length_field(name, max));
                    let first = fields.len();
                    for k in 0..max {
                        fields.push(scalar_field(&format!("{name}[{k}]"), *elem));
                    }
                    RShape::Seq { len_field, first, max }
                }
                RType::Unit | RType::Other(_) => bail!(
                    "parameter `{name}` of `{}` has type `{}`, which evotest cannot generate (supported: integers, \
                     isize, usize, f32, f64, bool, char, &str, String, and slices and Vec of those scalars)",
                    sig.name,
                    ty.spelling()
                ),
            };
            params.push(RParam { name: name.clone(), ty: ty.clone(), shape });
        }
        for r in ranges {
            let i = names
                .iter()
                .position(|n| *n == r.name)
                .ok_or_else(|| anyhow!("range for `{}`: `{}` has no such parameter (parameters: {})", r.name, sig.name, names.join(", ")))?;
            let p = &params[i];
            let what = format!("parameter `{}` ({})", p.name, p.ty.spelling());
            match &p.shape {
                RShape::Scalar { field } => fields[*field].set_range(&r.lo, &r.hi, &what)?,
                RShape::Seq { first, max, .. } => {
                    for f in &mut fields[*first..first + max] {
                        f.set_range(&r.lo, &r.hi, &what)?;
                    }
                }
                RShape::Text { .. } => bail!("range for `{}`: a string takes an alphabet (--string {}=MAX:ALPHABET), not a range", p.name, p.name),
            }
        }
        let prototype = format!("{}", sig.display()).replacen(&format!("fn {}", sig.name), &format!("fn {call_path}"), 1);
        Ok(RustFrontend {
            sig,
            crate_name: crate_name.to_string(),
            call_path: call_path.to_string(),
            params,
            domain: Domain::packed(fields),
            prototype,
            crate_dir,
            exe: None,
            messages: Default::default(),
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
            let mut lines = err.lines().skip_while(|l| !l.starts_with(harness::PANIC_PREFIX));
            let first = lines.next()?.strip_prefix(harness::PANIC_PREFIX)?.replace("\\n", "\n");
            Some(match lines.next().map(str::trim).and_then(|l| l.strip_prefix("at ")) {
                Some(at) => format!("{first}\n  at {at}"),
                None => first,
            })
        })();
        if let Ok(mut c) = self.messages.lock() {
            c.insert(input.bytes.clone(), m.clone());
        }
        m
    }

    /// The length of a text or sequence parameter in `input`.
    fn length(&self, p: &RParam, input: &Input) -> usize {
        match p.shape {
            RShape::Text { len_field, max, .. } | RShape::Seq { len_field, max, .. } => {
                self.domain.get(input, len_field).as_i128().clamp(0, max as i128) as usize
            }
            RShape::Scalar { .. } => 0,
        }
    }

    /// The string of a text parameter (its bytes are of an ASCII alphabet).
    pub fn text(&self, p: &RParam, input: &Input) -> String {
        match p.shape {
            RShape::Text { first, .. } => {
                (first..first + self.length(p, input)).map(|i| self.domain.get(input, i).as_i128() as u8 as char).collect()
            }
            _ => String::new(),
        }
    }

    /// The element values of a sequence parameter.
    pub fn elements(&self, p: &RParam, input: &Input) -> Vec<Value> {
        match p.shape {
            RShape::Seq { first, .. } => (first..first + self.length(p, input)).map(|i| self.domain.get(input, i)).collect(),
            _ => vec![],
        }
    }

    fn scalar_display(s: RScalar, v: Value) -> String {
        match s {
            RScalar::Char => format!("{:?}", char_of(v)),
            _ => DisplayValue(s.field(), v).to_string(),
        }
    }

    /// `a=1, s="ab", xs=[1, 2]` for people.
    pub fn display_input(&self, input: &Input) -> String {
        self.params
            .iter()
            .map(|p| {
                let v = match (&p.shape, &p.ty) {
                    (RShape::Scalar { field }, RType::Scalar(s)) => Self::scalar_display(*s, self.domain.get(input, *field)),
                    (RShape::Text { .. }, _) => format!("{:?}", self.text(p, input)),
                    (RShape::Seq { .. }, RType::Slice { elem, .. } | RType::Vec(elem)) => {
                        let v: Vec<String> = self.elements(p, input).into_iter().map(|v| Self::scalar_display(*elem, v)).collect();
                        format!("[{}]", v.join(", "))
                    }
                    _ => "?".into(),
                };
                format!("{}={v}", p.name)
            })
            .collect::<Vec<_>>()
            .join(", ")
    }
}

/// The `char` a code-point field holds (a surrogate or out-of-range value is U+FFFD, as the
/// harness reads it).
pub fn char_of(v: Value) -> char {
    u32::try_from(v.as_i128()).ok().and_then(char::from_u32).unwrap_or(char::REPLACEMENT_CHARACTER)
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
        let m: serde_json::Map<String, Json> = self
            .params
            .iter()
            .map(|p| {
                let v = match (&p.shape, &p.ty) {
                    (RShape::Scalar { field }, RType::Scalar(s)) => json_num(*s, self.domain.get(input, *field)),
                    (RShape::Text { .. }, _) => json!(self.text(p, input)),
                    (RShape::Seq { .. }, RType::Slice { elem, .. } | RType::Vec(elem)) => {
                        Json::Array(self.elements(p, input).into_iter().map(|v| json_num(*elem, v)).collect())
                    }
                    _ => Json::Null,
                };
                (p.name.clone(), v)
            })
            .collect();
        Json::Object(m)
    }

    fn params_json(&self) -> Json {
        Json::Array(
            self.params
                .iter()
                .map(|p| {
                    let shape = match p.shape {
                        RShape::Scalar { .. } => json!("scalar"),
                        RShape::Text { max, .. } => json!({ "string": max }),
                        RShape::Seq { max, .. } => json!({ "sequence": max }),
                    };
                    json!({"name": p.name, "type": p.ty.spelling(), "shape": shape})
                })
                .collect(),
        )
    }

    fn test_file(&self, file: &TestFile) -> Option<(String, String)> {
        Some(("tests.rs".to_string(), rtests::render(self, file)))
    }

    fn fault_message(&self, case: &crate::archive::TestCase) -> Option<String> {
        match case.exit {
            crate::exec::ExitKind::Crash { signal } if signal == libc::SIGABRT => {
                self.panic_message(&case.input).map(|m| format!("panicked: {}", m.replace("\n  at ", " at ")))
            }
            _ => None,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parameters_become_fields_and_unsupported_types_are_named() {
        let s = sig::read("pub fn f(a: i32, s: &str, xs: &[u8], c: char) -> bool { true }", "f", 1).unwrap();
        let fe = RustFrontend::new(s, "k", "k::f", &[ShapeSpec::parse_string("s=3").unwrap()], &[], PathBuf::from(".")).unwrap();
        // a, s.len, s[0..3], xs.len, xs[0..8], c
        assert_eq!(fe.domain.fields.len(), 1 + 1 + 3 + 1 + 8 + 1);
        let vals: Vec<Value> = [5, 2, 104, 105, 33, 1, 7, 0, 0, 0, 0, 0, 0, 0, 0x41].iter().map(|&v| Value::Int(v)).collect();
        let x = fe.domain.from_values(&vals);
        assert_eq!(fe.display_input(&x), "a=5, s=\"hi\", xs=[7], c='A'");
        let s = sig::read("pub fn g(p: (i32, i32)) {}", "g", 1).unwrap();
        let e = RustFrontend::new(s, "k", "k::g", &[], &[], PathBuf::from(".")).unwrap_err().to_string();
        assert!(e.contains("parameter `p`") && e.contains("(i32, i32)"), "{e}");
    }
}
