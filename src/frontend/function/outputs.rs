//! Output oracles of `tests.c`: what a call leaves in the memory it can write (the arrays,
//! strings, buffers and structures its non-`const` pointer parameters point to, the global inputs
//! `--global` names, a structure it returns, and a `char *` it returns), so that a test checks the function's effects
//! and not only its return value, as EvoSuite's assertions read an object's state after a call
//! (Fraser & Arcuri 2011).
//!
//! The search's harness records only a scalar result. The outputs are read instead by running
//! `tests.c` itself: evotest renders an *observing* version, whose passing tests print every
//! output after their call, builds it as the file's header tells a user to (plain clang-22, the
//! source included, no instrumentation), runs it twice, and keeps the values both runs agree on
//! (an address, uninitialised memory or a clock differs between runs and is left unchecked).
//! The file written then compares each kept value exactly (floats by their bits), so that it
//! passes on the code it was generated from, built the same way, by construction.
//!
//! When the observing build fails or does not end (sources that need a build step the header
//! does not know, a plain build that behaves unlike the instrumented one), the file is written
//! without output checks and its header says why.

use super::ctests::{self, Outputs};
use super::harness::ReturnKind;
use super::record::{LeafRole, Record};
use super::shape::{Param, Shape};
use super::FunctionFrontend;
use crate::archive::TestCase;
use crate::exec::ExitKind;
use crate::frontend::TestFile;
use crate::input::ScalarType;
use anyhow::{bail, Context, Result};
use std::collections::HashMap;
use std::fmt::Write;
use std::path::Path;
use std::time::Duration;

/// One output of a test's call.
#[derive(Clone, Debug, PartialEq)]
pub struct Output {
    /// For people, in a failure message: `*out`, `r->area`, `result.x`, `counter`.
    pub what: String,
    /// A C expression valid after the call in the test's body: a scalar lvalue, or (for
    /// [`Form::Elements`] and [`Form::CString`]) a pointer to the first element.
    pub expr: String,
    pub ty: ScalarType,
    pub form: Form,
}

/// What an [`Output`]'s expression gives.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Form {
    Scalar,
    /// `n` elements from the expression.
    Elements(usize),
    /// A NUL-terminated string (a `char *` result), or NULL: checked for being NULL, else for
    /// its characters (at most [`STRING_CAP`]).
    CString,
}

impl Output {
    fn new(what: impl Into<String>, expr: impl Into<String>, ty: ScalarType, form: Form) -> Output {
        Output {
            what: what.into(),
            expr: expr.into(),
            ty,
            form,
        }
    }
}

/// The most characters of a returned string that are compared.
pub const STRING_CAP: usize = 4096;

/// The values read after the calls: (test name, output index, element index) → the value's
/// decimal text (a float's bits, as an unsigned integer).
pub type Observed = HashMap<(String, usize, usize), String>;

/// Whether a parameter's pointee is `const`: the call cannot change it, and it is not an output.
fn points_to_const(p: &Param) -> bool {
    let t = if p.declared.is_empty() {
        &p.c_type
    } else {
        &p.declared
    };
    super::shape::points_to_const(t)
}

/// The value leaves of `record` (no string member, no link: those hold addresses).
fn value_leaves(record: &Record) -> Vec<(String, ScalarType)> {
    record
        .leaves()
        .into_iter()
        .filter(|l| l.role == LeafRole::Value)
        .map(|l| (l.path, l.ty))
        .collect()
}

/// The value leaves of `record` as outputs: of one structure at `expr` (`many` is `None`), or of
/// `many` of them, `expr[k]`; `what` names it for people.
fn record_outputs(
    out: &mut Vec<Output>,
    what: &str,
    expr: &str,
    record: &Record,
    many: Option<usize>,
) {
    for k in 0..many.unwrap_or(1) {
        let at = many.map_or_else(String::new, |_| format!("[{k}]"));
        for (path, ty) in value_leaves(record) {
            out.push(Output::new(
                format!("{what}{at}{path}"),
                format!("{expr}{at}{path}"),
                ty,
                Form::Scalar,
            ));
        }
    }
}

/// The outputs of test case `t` (whose call returned), in a fixed order; `aliased` names the
/// global inputs `tests.c` reaches through an alias ([`super::shape::global_alias`]). Locals are
/// those [`super::shape::c_args`] declares with prefix `evotest_v`; a returned structure is
/// `evotest_r` ([`ctests`]).
pub fn outputs(fe: &FunctionFrontend, t: &TestCase, aliased: &[String]) -> Vec<Output> {
    let d = &fe.domain;
    let mut out = Vec::new();
    for (i, p) in fe.params.iter().enumerate() {
        let var = format!("evotest_v{i}");
        if p.global {
            let g = if aliased.contains(&p.name) {
                super::shape::global_alias(&p.name)
            } else {
                p.name.clone()
            };
            match &p.shape {
                Shape::Scalar { .. } => {
                    out.push(Output::new(p.name.clone(), g, p.elem, Form::Scalar))
                }
                Shape::Array { len, .. } if *len > 0 => out.push(Output::new(
                    p.name.clone(),
                    format!("(({} *)(void *)&{g})", p.elem_c),
                    p.elem,
                    Form::Elements(*len),
                )),
                Shape::Record { record, many, .. } => {
                    record_outputs(&mut out, &p.name, &g, record, *many)
                }
                _ => {}
            }
            continue;
        }
        if p.is_null(d, &t.input) || points_to_const(p) {
            continue;
        }
        match &p.shape {
            Shape::Array { len, .. } if p.array_dims().is_some() => out.push(Output::new(
                p.name.clone(),
                format!("(({} *)(void *){var})", p.elem_c),
                p.elem,
                Form::Elements(*len),
            )),
            // one scalar through a pointer (`--array out=1`) or a C++ reference (`int &x`)
            Shape::Array { len: 1, .. } if p.array_dims().is_none() => out.push(Output::new(
                if p.reference != 0 {
                    p.name.clone()
                } else {
                    format!("*{}", p.name)
                },
                format!("{var}_s.evotest_v[0]"),
                p.elem,
                Form::Scalar,
            )),
            Shape::Array { .. } | Shape::Buffer { .. } | Shape::String { .. } => {
                let n = match p.shape {
                    // the whole array the test passed, its NUL included
                    Shape::String { .. } => p.string_len(d, &t.input) + 1,
                    _ => p.element_count(d, &t.input),
                };
                if n > 0 {
                    let e = format!("{var}_s.evotest_v");
                    out.push(Output::new(p.name.clone(), e, p.elem, Form::Elements(n)));
                }
            }
            Shape::Record {
                record,
                by_pointer: true,
                many: None,
                ..
            } => {
                let arrow = if p.reference != 0 { "." } else { "->" };
                for (path, ty) in value_leaves(record) {
                    let member = path.strip_prefix('.').unwrap_or(&path);
                    out.push(Output::new(
                        format!("{}{arrow}{member}", p.name),
                        format!("{var}{path}"),
                        ty,
                        Form::Scalar,
                    ));
                }
            }
            Shape::Record {
                record,
                many: Some(_),
                ..
            } if !record.has_links() => record_outputs(
                &mut out,
                &p.name,
                &var,
                record,
                Some(p.element_count(d, &t.input)),
            ),
            _ => {}
        }
    }
    if returns_string(fe) {
        out.push(Output::new(
            "result",
            "evotest_r",
            ScalarType::I8,
            Form::CString,
        ));
    }
    if let Some(r) = &fe.signature.ret_record {
        for (path, ty) in value_leaves(r) {
            out.push(Output::new(
                format!("result{path}"),
                format!("evotest_r{path}"),
                ty,
                Form::Scalar,
            ));
        }
    }
    out
}

/// Whether the function returns a `char *` (or `const char *`): a string, or NULL.
pub fn returns_string(fe: &FunctionFrontend) -> bool {
    if fe.signature.ret != ReturnKind::Unrecorded || fe.signature.ret_record.is_some() {
        return false;
    }
    let t: String = fe
        .signature
        .ret_c
        .split_whitespace()
        .collect::<Vec<_>>()
        .join(" ");
    matches!(t.as_str(), "char *" | "const char *" | "char const *")
}

/// The C conversion an output's value is printed and compared through.
fn as_c(ty: ScalarType, e: &str) -> String {
    match ty {
        ScalarType::F32 => format!("(float)({e})"),
        ScalarType::F64 => format!("(double)({e})"),
        t if t.is_signed() => format!("(long long)({e})"),
        _ => format!("(unsigned long long)({e})"),
    }
}

fn kind(ty: ScalarType) -> &'static str {
    match ty {
        ScalarType::F32 => "f32",
        ScalarType::F64 => "f64",
        t if t.is_signed() => "int",
        _ => "uint",
    }
}

/// Statements that print test `name`'s outputs (the observing version of `tests.c`).
pub fn c_observe(name: &str, outs: &[Output]) -> String {
    let mut s = String::new();
    for (k, o) in outs.iter().enumerate() {
        let (kd, e) = (kind(o.ty), &o.expr);
        let _ = match o.form {
            Form::Scalar => writeln!(
                s,
                "    evotest_observe_{kd}(\"{name}\", {k}, 0, {});",
                as_c(o.ty, e)
            ),
            Form::Elements(n) => writeln!(
                s,
                "    for (int evotest_i = 0; evotest_i < {n}; evotest_i++) evotest_observe_{kd}(\"{name}\", {k}, evotest_i, {});",
                as_c(o.ty, &format!("({e})[evotest_i]"))
            ),
            // its length at 0 (-1 for NULL), its characters from 1 on
            Form::CString => writeln!(
                s,
                "    if (!({e})) evotest_observe_int(\"{name}\", {k}, 0, -1);\n    else {{ size_t evotest_n = strlen({e}); if (evotest_n > {STRING_CAP}) evotest_n = {STRING_CAP}; evotest_observe_int(\"{name}\", {k}, 0, (long long)evotest_n);\n      for (size_t evotest_i = 0; evotest_i < evotest_n; evotest_i++) evotest_observe_int(\"{name}\", {k}, (int)evotest_i + 1, (unsigned char)({e})[evotest_i]); }}"
            ),
        };
    }
    s
}

/// The literal of an observed value's text for an output of type `ty`.
fn literal(ty: ScalarType, v: &str) -> Option<String> {
    Some(match ty {
        ScalarType::F32 => format!("0x{:08x}u", v.parse::<u32>().ok()?),
        ScalarType::F64 => format!("0x{:016x}ull", v.parse::<u64>().ok()?),
        t if t.is_signed() => ctests::c_i64(v.parse().ok()?),
        _ => format!("{}ULL", v.parse::<u64>().ok()?),
    })
}

/// Statements that compare test `name`'s outputs with the values `seen` holds for them; an
/// output (or an array) with a value missing is not compared. Character arrays are compared as
/// one string of bytes, other arrays element by element.
pub fn c_checks(name: &str, outs: &[Output], seen: &Observed) -> String {
    outs.iter()
        .enumerate()
        .filter_map(|(k, o)| check_output(name, k, o, seen))
        .collect()
}

/// The statement that compares output `o` (number `k` of test `name`) with its values in
/// `seen`, or `None` when one of them is missing (or did not agree between runs).
fn check_output(name: &str, k: usize, o: &Output, seen: &Observed) -> Option<String> {
    let get = |i: usize| seen.get(&(name.to_string(), k, i));
    let (kd, what, e) = (kind(o.ty), ctests::c_label(&o.what), &o.expr);
    Some(match o.form {
        Form::Scalar => format!(
            "    evotest_check_output_{kd}(\"{name}\", {what}, -1, {}, {});\n",
            as_c(o.ty, e),
            literal(o.ty, get(0)?)?
        ),
        Form::CString => match get(0)?.parse::<i64>().ok()? {
            n if n < 0 => {
                format!("    evotest_check_output_string(\"{name}\", {what}, {e}, NULL, 0, 0);\n")
            }
            n => {
                let b: Vec<u8> = (1..=n as usize)
                    .map(|i| get(i)?.parse().ok())
                    .collect::<Option<_>>()?;
                format!(
                    "    evotest_check_output_string(\"{name}\", {what}, {e}, {}, {n}, {});\n",
                    super::shape::c_string(&b),
                    (b.len() == STRING_CAP) as u8
                )
            }
        },
        Form::Elements(n) => {
            let vals: Vec<&String> = (0..n).map(get).collect::<Option<_>>()?;
            if o.ty.size() == 1 && o.ty != ScalarType::Bool {
                let bytes: Vec<u8> = vals
                    .iter()
                    .map(|v| v.parse::<i64>().ok().map(|x| x as u8))
                    .collect::<Option<_>>()?;
                format!(
                    "    evotest_check_output_bytes(\"{name}\", {what}, {e}, {}, {n});\n",
                    super::shape::c_string(&bytes)
                )
            } else {
                let lits: Vec<String> = vals
                    .iter()
                    .map(|v| literal(o.ty, v))
                    .collect::<Option<_>>()?;
                let wt = match o.ty {
                    ScalarType::F32 => "uint32_t",
                    ScalarType::F64 => "uint64_t",
                    t if t.is_signed() => "long long",
                    _ => "unsigned long long",
                };
                format!(
                    "    {{ static const {wt} evotest_w[{n}] = {{{}}};\n      for (int evotest_i = 0; evotest_i < {n}; evotest_i++) evotest_check_output_{kd}(\"{name}\", {what}, evotest_i, {}, evotest_w[evotest_i]); }}\n",
                    lits.join(", "),
                    as_c(o.ty, &format!("({e})[evotest_i]"))
                )
            }
        }
    })
}

/// The observing prelude's printers: one line per value, `EVOTEST_OUTPUT test k i value`.
pub const C_OBSERVERS: &str = r#"
static __attribute__((unused)) void evotest_observe_int(const char *t, int k, int i, long long v) {
    printf("EVOTEST_OUTPUT %s %d %d %lld\n", t, k, i, v);
}
static __attribute__((unused)) void evotest_observe_uint(const char *t, int k, int i, unsigned long long v) {
    printf("EVOTEST_OUTPUT %s %d %d %llu\n", t, k, i, v);
}
static __attribute__((unused)) void evotest_observe_f32(const char *t, int k, int i, float v) {
    uint32_t b;
    memcpy(&b, &v, sizeof b);
    printf("EVOTEST_OUTPUT %s %d %d %lu\n", t, k, i, (unsigned long)b);
}
static __attribute__((unused)) void evotest_observe_f64(const char *t, int k, int i, double v) {
    uint64_t b;
    memcpy(&b, &v, sizeof b);
    printf("EVOTEST_OUTPUT %s %d %d %llu\n", t, k, i, (unsigned long long)b);
}
"#;

/// Parse an observing run's standard output.
pub fn parse(text: &str) -> Observed {
    let mut m = Observed::new();
    for l in text.lines() {
        let mut w = l.split(' ');
        if w.next() != Some("EVOTEST_OUTPUT") {
            continue;
        }
        let (Some(t), Some(k), Some(i), Some(v), None) =
            (w.next(), w.next(), w.next(), w.next(), w.next())
        else {
            continue;
        };
        if let (Ok(k), Ok(i)) = (k.parse(), i.parse()) {
            m.insert((t.to_string(), k, i), v.to_string());
        }
    }
    m
}

/// The output index under which the observing version prints a scalar result.
pub const RESULT: usize = 999_999;

/// What [`agreed`] holds for a value the two runs printed differently: no literal, so it is not
/// compared.
pub const VARYING: &str = "?";

/// The values two runs agree on; a value both printed, differently, is [`VARYING`].
pub fn agreed(a: Observed, b: &Observed) -> Observed {
    a.into_iter()
        .filter_map(|(key, v)| match b.get(&key) {
            Some(w) if *w == v => Some((key, v)),
            Some(_) => Some((key, VARYING.to_string())),
            None => None,
        })
        .collect()
}

/// The statement that prints a scalar result `evotest_r` of type `ty` (observing version).
pub fn c_observe_result(name: &str, ty: ScalarType) -> String {
    format!(
        "    evotest_observe_{}(\"{name}\", {RESULT}, 0, {});\n",
        kind(ty),
        as_c(ty, "evotest_r")
    )
}

/// The result observed for test `name` (a scalar of type `ty`): `Some(Ok(value))`, `Some(Err(()))`
/// when the two runs differed, `None` when not observed.
pub fn observed_result(
    seen: &Observed,
    name: &str,
    ty: ScalarType,
) -> Option<std::result::Result<crate::exec::RetVal, ()>> {
    use crate::exec::RetVal;
    let v = seen.get(&(name.to_string(), RESULT, 0))?;
    if v == VARYING {
        return Some(Err(()));
    }
    let r = match ty {
        ScalarType::F32 => RetVal::F32(v.parse().ok()?),
        ScalarType::F64 => RetVal::F64(v.parse().ok()?),
        t if t.is_signed() => RetVal::Signed(v.parse().ok()?),
        _ => RetVal::Unsigned(v.parse().ok()?),
    };
    Some(Ok(r))
}

/// Whether any case of `file` has an output to check.
pub fn any_outputs(fe: &FunctionFrontend, file: &TestFile) -> bool {
    let aliased = ctests::aliased_globals(fe);
    file.cases.iter().any(|e| {
        e.case.exit == ExitKind::Ok
            && (matches!(fe.signature.ret, ReturnKind::Scalar(_))
                || !outputs(fe, e.case, &aliased).is_empty())
    })
}

/// Build the observing version of `file` (as its header's command builds `tests.c`, with the
/// toolchain's clang) and run it twice (three times, the last a second later, when the code
/// calls functions that keep state outside it); the values all runs printed alike, and
/// [`VARYING`] for those they printed differently.
///
/// Errors (one line, for the file's header): no clang, a build that fails (its first error
/// line), a run that does not end within its time.
pub fn observe(fe: &FunctionFrontend, file: &TestFile) -> Result<Observed> {
    let clang = crate::toolchain::Toolchain::locate_unchecked()
        .map(|t| t.clang)
        .context("no clang-22")?;
    let dir = file.path.parent().unwrap_or(Path::new("."));
    let work = tempfile::Builder::new()
        .prefix("evotest-outputs-")
        .tempdir()
        .context("a temporary directory")?;
    // next to tests.c, so that the source's relative #include resolves as in tests.c
    let src = tempfile::Builder::new()
        .prefix(".evotest-observe-")
        .suffix(if fe.cxx_call.is_some() { ".cpp" } else { ".c" })
        .tempfile_in(dir)
        .context("a file beside tests.c")?;
    std::fs::write(src.path(), ctests::render(fe, file, &Outputs::Observe))?;
    let exe = work.path().join("observe");
    let (steps, cmd) = ctests::build_commands(fe, work.path(), src.path(), &exe, false);
    for c in steps.iter().chain([&cmd]) {
        let mut p = std::process::Command::new(&clang);
        if fe.cxx_call.is_some() {
            p.arg("--driver-mode=g++");
        }
        let o = p
            .args(&c[1..])
            .arg("-w")
            .stdin(std::process::Stdio::null())
            .output()
            .context("running clang")?;
        if !o.status.success() {
            let err = String::from_utf8_lossy(&o.stderr);
            let line = err
                .lines()
                .find(|l| l.contains("error"))
                .unwrap_or("clang failed");
            bail!("its plain build failed: {}", line.trim());
        }
    }
    drop(src);
    let cases = file.cases.len() as u64;
    let limit = Duration::from_secs((10 + cases * u64::from(file.hang_seconds.max(1))).min(120));
    let mut seen = run_observer(&exe, dir, limit, file.file_limit)?;
    // code that calls what keeps state outside it (`time`, `rand`, `getpid`) is run a third
    // time, a second later: a clock read in seconds differs only in another second, a process
    // id modulo a small number may agree twice by chance
    let runs = if fe.hidden_state_calls.is_empty() {
        1
    } else {
        2
    };
    for _ in 0..runs {
        if runs > 1 {
            std::thread::sleep(Duration::from_millis(1100));
        }
        let next = run_observer(&exe, dir, limit, file.file_limit)?;
        seen = agreed(seen, &next);
    }
    Ok(seen)
}

/// Run the observing build `exe` in `dir` for at most `limit`; its printed values.
/// With the search's limit on the largest file a test may write (`file_size` bytes, 0 = none),
/// so that a plain build that behaves unlike the instrumented one cannot fill the disk (no
/// memory limit: one would make `malloc` fail where the file's own runs do not).
fn run_observer(exe: &Path, dir: &Path, limit: Duration, file_size: u64) -> Result<Observed> {
    use std::io::Read;
    let out = tempfile::tempfile().context("a temporary file")?;
    let mut cmd = std::process::Command::new(exe);
    cmd.current_dir(dir)
        .stdin(std::process::Stdio::null())
        .stdout(out.try_clone()?)
        .stderr(std::process::Stdio::null())
        .process_group(0);
    // SAFETY: only an async-signal-safe call (setrlimit) between fork and exec
    unsafe {
        cmd.pre_exec(move || {
            if file_size > 0 {
                let _ = nix::sys::resource::setrlimit(
                    nix::sys::resource::Resource::RLIMIT_FSIZE,
                    file_size,
                    file_size,
                );
            }
            Ok(())
        });
    }
    let mut child = cmd.spawn().context("running its plain build")?;
    // the whole group: tests run in children of their own
    if !crate::util::wait_or_kill(&mut child, limit, true)? {
        bail!("its plain build did not end within {} s", limit.as_secs());
    }
    let mut text = String::new();
    let mut f = out;
    std::io::Seek::rewind(&mut f)?;
    f.read_to_string(&mut text).ok();
    Ok(parse(&text))
}

use std::os::unix::process::CommandExt;

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parse_keeps_only_well_formed_lines() {
        let m = parse("EVOTEST_OUTPUT test_1 0 0 5\nnoise\nEVOTEST_OUTPUT test_1 1 2 x y\nEVOTEST_OUTPUT test_2 1 3 -7\n");
        assert_eq!(m.len(), 2);
        assert_eq!(m[&("test_1".to_string(), 0, 0)], "5");
        assert_eq!(m[&("test_2".to_string(), 1, 3)], "-7");
    }

    #[test]
    fn only_values_both_runs_agree_on_are_kept() {
        let a = parse("EVOTEST_OUTPUT t 0 0 1\nEVOTEST_OUTPUT t 1 0 2\nEVOTEST_OUTPUT t 2 0 3\n");
        let b = parse("EVOTEST_OUTPUT t 0 0 1\nEVOTEST_OUTPUT t 1 0 9\n");
        let m = agreed(a, &b);
        assert_eq!(m.len(), 2);
        assert_eq!(m[&("t".to_string(), 0, 0)], "1");
        assert_eq!(m[&("t".to_string(), 1, 0)], VARYING);
        assert!(literal(ScalarType::I32, VARYING).is_none());
    }

    #[test]
    fn a_pointer_to_const_is_no_output() {
        let p = |declared: &str| Param {
            name: "p".into(),
            c_type: "int *".into(),
            elem: ScalarType::I32,
            elem_c: "int".into(),
            declared: declared.into(),
            shape: Shape::Scalar { field: 0 },
            global: false,
            null_field: None,
            reference: 0,
        };
        assert!(points_to_const(&p("const int *")));
        assert!(points_to_const(&p("int const *")));
        assert!(!points_to_const(&p("int *")));
        assert!(!points_to_const(&p("int *const")));
        assert!(!points_to_const(&p("constant_t *")));
        assert!(points_to_const(&p("const double &")));
    }

    #[test]
    fn character_arrays_are_compared_as_bytes_and_missing_values_are_not_compared() {
        let outs = vec![
            Output::new(
                "s",
                "evotest_v0_s.evotest_v",
                ScalarType::I8,
                Form::Elements(3),
            ),
            Output::new("n", "g", ScalarType::I32, Form::Scalar),
        ];
        let seen =
            parse("EVOTEST_OUTPUT t 0 0 65\nEVOTEST_OUTPUT t 0 1 -1\nEVOTEST_OUTPUT t 0 2 0\n");
        let c = c_checks("t", &outs, &seen);
        assert!(
            c.contains(
                r#"evotest_check_output_bytes("t", "s", evotest_v0_s.evotest_v, "A\377\000", 3);"#
            ),
            "{c}"
        );
        assert!(!c.contains("\"n\""), "{c}");
    }
}
