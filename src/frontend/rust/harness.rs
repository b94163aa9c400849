//! The generated Rust harness: a `main` that asks the runtime for inputs
//! (`evotest_rt::__evotest_next`), decodes each parameter at its fields' byte offsets
//! (little-endian, as the engine writes them), calls the function by its path inside
//! `std::panic::catch_unwind`, and records the return value (`__evotest_return`).
//!
//! A panic is a fault: the panic hook keeps the message (it prints nothing, so that a panic the
//! function catches itself costs little), and when the panic reaches the harness, the harness
//! prints `evotest-panic: <message>` and the location on standard error and aborts (SIGABRT, a
//! crash for the engine). The harness is compiled by rustc against the instrumented crate's rlib
//! and the runtime's rlib, so the binary holds one copy of std.

use super::sig::{RScalar, RType};
use super::{RShape, RustFrontend};
use evotest_abi::shm::{RET_FLOAT32, RET_FLOAT64, RET_SIGNED, RET_UNSIGNED, RET_VOID};
use std::fmt::Write;

/// The prefix of the line a panicking execution prints on standard error before the message.
pub const PANIC_PREFIX: &str = "evotest-panic: ";

/// A Rust expression reading scalar `s` at byte offset expression `off` of `evotest_buf`.
fn read_scalar(s: RScalar, off: &str) -> String {
    let rd = |t: &str, n: usize| format!("{t}::from_le_bytes(evotest_buf[{off}..{off} + {n}].try_into().unwrap())");
    match s {
        RScalar::Bool => format!("(evotest_buf[{off}] & 1 != 0)"),
        RScalar::Char => format!("char::from_u32({}).unwrap_or('\\u{{fffd}}')", rd("u32", 4)),
        RScalar::Isize => format!("({} as isize)", rd("i64", 8)),
        RScalar::Usize => format!("({} as usize)", rd("u64", 8)),
        s => rd(s.name(), s.field().size()),
    }
}

/// The harness source for `fe`.
pub fn generate(fe: &RustFrontend) -> String {
    let d = &fe.domain;
    let n = d.len;
    let mut s = String::new();
    let _ = writeln!(s, "//! evotest harness for {} (crate {}). Generated; do not edit.", fe.prototype, fe.crate_dir.display());
    let _ = writeln!(s, "//! Run by hand: ./target INPUTFILE (the input encoding is documented in src/input/mod.rs).");
    s.push_str("#![allow(unused_parens, unused_mut, clippy::all)]\n");
    s.push_str("use std::ffi::{c_char, CString};\nuse std::cell::RefCell;\n\n");
    s.push_str("thread_local! { static EVOTEST_PANIC: RefCell<Option<String>> = const { RefCell::new(None) }; }\n\n");
    s.push_str("fn main() {\n");
    s.push_str(
        "    std::panic::set_hook(Box::new(|info| {\n\
         \x20       let msg = if let Some(s) = info.payload().downcast_ref::<&str>() { s.to_string() }\n\
         \x20           else if let Some(s) = info.payload().downcast_ref::<String>() { s.clone() }\n\
         \x20           else { \"Box<dyn Any>\".to_string() };\n\
         \x20       let at = info.location().map(|l| format!(\"{}:{}:{}\", l.file(), l.line(), l.column())).unwrap_or_default();\n\
         \x20       EVOTEST_PANIC.with(|p| *p.borrow_mut() = Some(format!(\"{}\\n  at {}\", msg.replace('\\n', \"\\\\n\"), at)));\n\
         \x20   }));\n",
    );
    s.push_str(
        "    let evotest_args: Vec<CString> = std::env::args_os().map(|a| CString::new(a.into_encoded_bytes()).unwrap_or_default()).collect();\n\
         \x20   let evotest_argv: Vec<*const c_char> = evotest_args.iter().map(|a| a.as_ptr()).collect();\n",
    );
    let _ = writeln!(s, "    let mut evotest_buf = vec![0u8; {}];", n + 1);
    s.push_str(
        "    loop {\n\
         \x20       let mut evotest_len = 0usize;\n\
         \x20       let evotest_p = unsafe { evotest_rt::__evotest_next(evotest_argv.len() as i32, evotest_argv.as_ptr(), &mut evotest_len) };\n\
         \x20       if evotest_p.is_null() { break; }\n\
         \x20       let evotest_in = unsafe { std::slice::from_raw_parts(evotest_p, evotest_len) };\n",
    );
    let _ = writeln!(s, "        let evotest_n = evotest_len.min({n});");
    s.push_str("        evotest_buf[..evotest_n].copy_from_slice(&evotest_in[..evotest_n]);\n");
    s.push_str("        evotest_buf[evotest_n..].fill(0);\n");
    let mut args = Vec::new();
    for (i, p) in fe.params.iter().enumerate() {
        let v = format!("evotest_a{i}");
        match (&p.shape, &p.ty) {
            (RShape::Scalar { field }, RType::Scalar(sc)) => {
                let _ = writeln!(s, "        let mut {v}: {} = {};", sc.name(), read_scalar(*sc, &d.fields[*field].offset.to_string()));
                args.push(v);
            }
            (RShape::Text { len_field, first, max }, ty) => {
                let _ = writeln!(
                    s,
                    "        let evotest_l{i} = ({} as usize).min({max});",
                    read_scalar(RScalar::U32, &d.fields[*len_field].offset.to_string())
                );
                let off = d.fields.get(*first).map_or(0, |f| f.offset);
                let _ = writeln!(s, "        let mut {v}: String = evotest_buf[{off}..{off} + evotest_l{i}].iter().map(|&b| b as char).collect();");
                args.push(if *ty == RType::Str { format!("&{v}") } else { v });
            }
            (RShape::Seq { len_field, first, max }, RType::Slice { elem, .. } | RType::Vec(elem)) => {
                let _ = writeln!(
                    s,
                    "        let evotest_l{i} = ({} as usize).min({max});",
                    read_scalar(RScalar::U32, &d.fields[*len_field].offset.to_string())
                );
                let off = d.fields.get(*first).map_or(0, |f| f.offset);
                let size = elem.field().size();
                let _ = writeln!(
                    s,
                    "        let mut {v}: Vec<{}> = (0..evotest_l{i}).map(|k| {}).collect();",
                    elem.name(),
                    read_scalar(*elem, &format!("({off} + k * {size})"))
                );
                args.push(match &p.ty {
                    RType::Slice { mutable: true, .. } => format!("&mut {v}[..]"),
                    RType::Slice { .. } => format!("&{v}[..]"),
                    _ => v,
                });
            }
            _ => {}
        }
    }
    let call = format!("{}({})", fe.call_path, args.join(", "));
    let _ = writeln!(s, "        let evotest_r = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {call}));");
    s.push_str(&format!(
        "        let evotest_r = match evotest_r {{\n\
         \x20           Ok(r) => r,\n\
         \x20           Err(_) => {{\n\
         \x20               let m = EVOTEST_PANIC.with(|p| p.borrow_mut().take()).unwrap_or_default();\n\
         \x20               eprintln!(\"{PANIC_PREFIX}{{m}}\");\n\
         \x20               std::process::abort();\n\
         \x20           }}\n\
         \x20       }};\n"
    ));
    let record = match &fe.sig.ret {
        RType::Scalar(sc) => match sc {
            RScalar::F32 => format!("{RET_FLOAT32}, evotest_r.to_bits() as u64"),
            RScalar::F64 => format!("{RET_FLOAT64}, evotest_r.to_bits()"),
            RScalar::Bool => format!("{RET_UNSIGNED}, evotest_r as u64"),
            RScalar::Char => format!("{RET_UNSIGNED}, evotest_r as u32 as u64"),
            s if s.is_signed() => format!("{RET_SIGNED}, evotest_r as i64 as u64"),
            _ => format!("{RET_UNSIGNED}, evotest_r as u64"),
        },
        _ => format!("{RET_VOID}, {{ drop(evotest_r); 0 }}"),
    };
    let _ = writeln!(s, "        unsafe {{ evotest_rt::__evotest_return({record}) }};");
    s.push_str("    }\n}\n");
    s
}
