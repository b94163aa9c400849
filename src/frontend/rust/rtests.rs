//! `tests.rs`: the suite as a Rust integration-test file of the crate under test, with no evotest
//! dependency. Copy it into the crate's `tests/` directory and run `cargo test`:
//!
//! * one `#[test]` per kept input, asserting the recorded return value (`f32`/`f64` bit-exactly,
//!   through `to_bits`); a function returning `()` or a type evotest does not record is only
//!   called;
//! * a panic is a `#[should_panic(expected = "…")]` test with the panic's message (read by
//!   running the fault's input once through the instrumented executable);
//! * other faults (a hang, a crash that is not a panic) are `#[ignore]`d tests whose comment
//!   says what was recorded.

use super::sig::{RScalar, RType};
use super::{char_of, Node, RustFrontend, StructShape};
use crate::exec::{signal_name, ExitKind, RetVal};
use crate::frontend::TestFile;
use crate::input::{Input, Value};
use std::fmt::Write;

/// A Rust literal of scalar `s` holding `v`, bit-exact for floats.
pub fn literal(s: RScalar, v: Value) -> String {
    match s {
        RScalar::Bool => (v.as_i128() != 0).to_string(),
        RScalar::Char => format!("{:?}", char_of(v)),
        RScalar::F32 => {
            let f = v.as_f64() as f32;
            if f.is_finite()
                && format!("{f:?}").parse::<f32>().ok().map(f32::to_bits) == Some(f.to_bits())
            {
                format!("{f:?}f32")
            } else {
                format!("f32::from_bits(0x{:08x})", f.to_bits())
            }
        }
        RScalar::F64 => {
            let f = v.as_f64();
            if f.is_finite()
                && format!("{f:?}").parse::<f64>().ok().map(f64::to_bits) == Some(f.to_bits())
            {
                format!("{f:?}f64")
            } else {
                format!("f64::from_bits(0x{:016x})", f.to_bits())
            }
        }
        s => {
            let i = v.as_i128();
            let (lo, _) = match s {
                RScalar::I8 => (i8::MIN as i128, 0),
                RScalar::I16 => (i16::MIN as i128, 0),
                RScalar::I32 => (i32::MIN as i128, 0),
                RScalar::I64 | RScalar::Isize => (i64::MIN as i128, 0),
                _ => (i128::MIN, 0),
            };
            if i == lo {
                format!("{}::MIN", s.name())
            } else if i < 0 {
                format!("({i}{})", s.name())
            } else {
                format!("{i}{}", s.name())
            }
        }
    }
}

/// A Rust expression of the value of `node` in `input`.
fn value(fe: &RustFrontend, node: &Node, input: &Input) -> String {
    let list = |ns: &[Node]| ns.iter().map(|n| value(fe, n, input)).collect::<Vec<_>>();
    match node {
        Node::Scalar { s, field } => literal(*s, fe.domain.get(input, *field)),
        Node::Wide { .. } => match fe.wide(node, input) {
            (Some(i128::MIN), _) => "i128::MIN".into(),
            (Some(v), _) if v < 0 => format!("({v}i128)"),
            (Some(v), _) => format!("{v}i128"),
            (_, Some(v)) => format!("{v}u128"),
            _ => unreachable!("a wide node has a value"),
        },
        Node::Text { owned: true, .. } => format!("String::from({:?})", fe.text(node, input)),
        Node::Text { .. } => format!("{:?}", fe.text(node, input)),
        Node::Seq {
            vec,
            mutable,
            elems,
            ..
        } => {
            let els = list(&elems[..fe.length(node, input)]).join(", ");
            match (vec, mutable) {
                (true, _) if els.is_empty() => "Vec::new()".into(),
                (true, _) => format!("vec![{els}]"),
                (false, true) => format!("&mut [{els}]"),
                (false, false) => format!("&[{els}]"),
            }
        }
        Node::Array(elems) => format!("[{}]", list(elems).join(", ")),
        Node::Tuple(elems) if elems.len() == 1 => format!("({},)", value(fe, &elems[0], input)),
        Node::Tuple(elems) => format!("({})", list(elems).join(", ")),
        Node::Struct { path, kind, fields } => {
            let p = format!("{}::{path}", fe.crate_name);
            match kind {
                StructShape::Unit => p,
                StructShape::Tuple => format!(
                    "{p}({})",
                    fields
                        .iter()
                        .map(|(_, n)| value(fe, n, input))
                        .collect::<Vec<_>>()
                        .join(", ")
                ),
                StructShape::Named => format!(
                    "{p} {{ {} }}",
                    fields
                        .iter()
                        .map(|(f, n)| format!("{f}: {}", value(fe, n, input)))
                        .collect::<Vec<_>>()
                        .join(", ")
                ),
            }
        }
        Node::Ref {
            mutable: true,
            inner,
        } => format!("&mut {}", value(fe, inner, input)),
        Node::Ref { inner, .. } => format!("&{}", value(fe, inner, input)),
    }
}

/// The arguments of a call with `input`.
fn args(fe: &RustFrontend, input: &Input) -> Vec<String> {
    fe.params
        .iter()
        .map(|p| value(fe, &p.node, input))
        .collect()
}

/// The assertion of a recorded return value.
fn check(fe: &RustFrontend, call: &str, ret: Option<RetVal>) -> String {
    match (&fe.sig.ret, ret) {
        (RType::Scalar(RScalar::F32), Some(RetVal::F32(bits))) => {
            format!(
                "    assert_eq!({call}.to_bits(), 0x{bits:08x}, \"expected {:?}\");\n",
                f32::from_bits(bits)
            )
        }
        (RType::Scalar(RScalar::F64), Some(RetVal::F64(bits))) => {
            format!(
                "    assert_eq!({call}.to_bits(), 0x{bits:016x}, \"expected {:?}\");\n",
                f64::from_bits(bits)
            )
        }
        (RType::Scalar(s), Some(RetVal::Signed(v))) => format!(
            "    assert_eq!({call}, {});\n",
            literal(*s, Value::Int(v as i128))
        ),
        (RType::Scalar(s), Some(RetVal::Unsigned(v))) => format!(
            "    assert_eq!({call}, {});\n",
            literal(*s, Value::Int(v as i128))
        ),
        _ => format!("    let _ = {call};\n"),
    }
}

/// The text of `tests.rs` for the cases of `file`.
pub fn render(fe: &RustFrontend, file: &TestFile) -> String {
    let mut s = String::new();
    let _ = writeln!(
        s,
        "//! Tests generated by evotest {} for `{}`.",
        env!("CARGO_PKG_VERSION"),
        fe.prototype
    );
    for l in &file.header {
        let _ = writeln!(s, "//! {l}");
    }
    let _ = writeln!(s, "//!");
    let _ = writeln!(
        s,
        "//! An integration test of crate `{}` without any evotest dependency: copy it into",
        fe.crate_name
    );
    let _ = writeln!(
        s,
        "//! {}/tests/ (e.g. as tests/evotest_{}.rs) and run `cargo test`.",
        fe.crate_dir.display(),
        fe.sig.name
    );
    let _ = writeln!(
        s,
        "//! Returned values are compared exactly, f32/f64 bit-exactly; a recorded panic is a"
    );
    let _ = writeln!(
        s,
        "//! #[should_panic] test with the panic's message; other faults are #[ignore]d tests."
    );
    s.push_str("#![allow(unused_parens, clippy::all)]\n\n");
    for e in &file.cases {
        let t = e.case;
        let name = e.name.replace('-', "_");
        let call = fe.call_expr(&args(fe, &t.input));
        let _ = writeln!(
            s,
            "/// execution {}, inputs: {}",
            t.exec,
            fe.display_input(&t.input)
        );
        if !e.covers.is_empty() {
            let _ = writeln!(s, "/// covers: {}", e.covers.join(", "));
        }
        match t.exit {
            ExitKind::Ok => {
                let _ = writeln!(
                    s,
                    "#[test]\nfn {name}() {{\n{}}}\n",
                    check(fe, &call, t.ret)
                );
            }
            ExitKind::Stopped => continue,
            ExitKind::Crash { signal } if signal == libc::SIGABRT => {
                match fe.panic_message(&t.input) {
                    // std's text for a payload that is not a string (`panic_any(42)`): no message to expect
                    Some(m) if m.lines().next().map(str::trim) == Some("Box<dyn Any>") => {
                        let _ = writeln!(s, "/// recorded: panics with a payload that is not a string\n#[test]\n#[should_panic]\nfn {name}() {{\n    let _ = {call};\n}}\n");
                    }
                    Some(m) => {
                        let first = m.lines().next().unwrap_or("");
                        for l in m.lines() {
                            let _ = writeln!(s, "/// recorded: panics: {}", l.trim());
                        }
                        let _ = writeln!(s, "#[test]\n#[should_panic(expected = {first:?})]\nfn {name}() {{\n    let _ = {call};\n}}\n");
                    }
                    None => {
                        let _ = writeln!(
                        s,
                        "/// recorded: aborts (SIGABRT) without a panic message\n#[test]\n#[ignore = \"aborts the test process\"]\nfn {name}() {{\n    let _ = {call};\n}}\n"
                    );
                    }
                }
            }
            other => {
                let what = match other {
                    ExitKind::Crash { signal } => format!("crashes with {}", signal_name(signal)),
                    ExitKind::Timeout => "hangs".into(),
                    e => e.to_string(),
                };
                let _ = writeln!(s, "/// recorded: {what}\n#[test]\n#[ignore = \"recorded: {what}\"]\nfn {name}() {{\n    let _ = {call};\n}}\n");
            }
        }
    }
    s
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn literals_are_exact() {
        assert_eq!(
            literal(RScalar::I32, Value::Int(i32::MIN as i128)),
            "i32::MIN"
        );
        assert_eq!(literal(RScalar::I32, Value::Int(-5)), "(-5i32)");
        assert_eq!(literal(RScalar::U64, Value::Int(7)), "7u64");
        assert_eq!(literal(RScalar::F64, Value::Float(0.1)), "0.1f64");
        assert_eq!(
            literal(RScalar::F64, Value::Float(f64::NAN)),
            format!("f64::from_bits(0x{:016x})", f64::NAN.to_bits())
        );
        assert_eq!(literal(RScalar::Char, Value::Int(0x41)), "'A'");
        assert_eq!(literal(RScalar::Bool, Value::Int(1)), "true");
    }
}
