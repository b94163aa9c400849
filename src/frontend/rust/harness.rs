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
use super::{Node, RustFrontend, StructShape};
use evotest_abi::shm::{RET_FLOAT32, RET_FLOAT64, RET_SIGNED, RET_UNSIGNED, RET_VOID};
use std::fmt::Write;

/// The prefix of the line a panicking execution prints on standard error before the message.
pub const PANIC_PREFIX: &str = "evotest-panic: ";

/// A Rust expression reading scalar `s` at byte offset expression `off` of `evotest_buf` (a
/// 128-bit integer from one 64-bit field, widened).
fn read_scalar(s: RScalar, off: &str) -> String {
    let rd = |t: &str, n: usize| {
        format!("{t}::from_le_bytes(evotest_buf[{off}..{off} + {n}].try_into().unwrap())")
    };
    match s {
        RScalar::Bool => format!("(evotest_buf[{off}] & 1 != 0)"),
        RScalar::Char => format!("char::from_u32({}).unwrap_or('\\u{{fffd}}')", rd("u32", 4)),
        RScalar::Isize => format!("({} as isize)", rd("i64", 8)),
        RScalar::Usize => format!("({} as usize)", rd("u64", 8)),
        RScalar::I128 => format!("({} as i128)", rd("i64", 8)),
        RScalar::U128 => format!("({} as u128)", rd("u64", 8)),
        s => rd(s.name(), s.field().size()),
    }
}

/// Generates the statements and the expression that build a parameter from the input.
struct Gen<'a> {
    fe: &'a RustFrontend,
    /// Statements to run before the call (locals that the call's expression borrows or moves).
    pre: String,
    /// Locals made so far.
    n: usize,
}

impl Gen<'_> {
    fn off(&self, field: usize) -> usize {
        self.fe.domain.fields[field].offset
    }

    fn local(&mut self) -> String {
        self.n += 1;
        format!("evotest_v{}", self.n)
    }

    /// The expression of `node`; its locals go to `self.pre`.
    fn expr(&mut self, node: &Node) -> String {
        match node {
            Node::Scalar { s, field } => read_scalar(*s, &self.off(*field).to_string()),
            Node::Wide { s, hi, lo } => {
                let (h, l) = (self.off(*hi), self.off(*lo));
                if *s == RScalar::I128 {
                    format!(
                        "(({} as i128) << 64 | {} as i128)",
                        read_scalar(RScalar::I64, &h.to_string()),
                        read_scalar(RScalar::U64, &l.to_string())
                    )
                } else {
                    format!(
                        "(({} as u128) << 64 | {} as u128)",
                        read_scalar(RScalar::U64, &h.to_string()),
                        read_scalar(RScalar::U64, &l.to_string())
                    )
                }
            }
            Node::Text {
                owned,
                len_field,
                first,
                max,
            } => {
                let v = self.local();
                let len = read_scalar(RScalar::U32, &self.off(*len_field).to_string());
                let off = self.fe.domain.fields.get(*first).map_or(0, |f| f.offset);
                let _ = writeln!(
                    self.pre,
                    "        let mut {v}: String = evotest_buf[{off}..{off} + ({len} as usize).min({max})].iter().map(|&b| b as char).collect();"
                );
                if *owned {
                    v
                } else {
                    format!("{v}.as_str()")
                }
            }
            Node::Seq {
                vec,
                mutable,
                len_field,
                elems,
            } => {
                let items: Vec<String> = elems.iter().map(|e| self.expr(e)).collect();
                let v = self.local();
                let len = read_scalar(RScalar::U32, &self.off(*len_field).to_string());
                let _ = writeln!(
                    self.pre,
                    "        let {v}_len = ({len} as usize).min({});",
                    elems.len()
                );
                let _ = writeln!(
                    self.pre,
                    "        let mut {v} = Vec::with_capacity({v}_len);"
                );
                for (k, it) in items.iter().enumerate() {
                    let _ = writeln!(self.pre, "        if {v}_len > {k} {{ {v}.push({it}); }}");
                }
                match (vec, mutable) {
                    (true, _) => v,
                    (false, true) => format!("&mut {v}[..]"),
                    (false, false) => format!("&{v}[..]"),
                }
            }
            Node::Array(elems) => {
                let items: Vec<String> = elems.iter().map(|e| self.expr(e)).collect();
                format!("[{}]", items.join(", "))
            }
            Node::Tuple(elems) => {
                let items: Vec<String> = elems.iter().map(|e| self.expr(e)).collect();
                if items.len() == 1 {
                    format!("({},)", items[0])
                } else {
                    format!("({})", items.join(", "))
                }
            }
            Node::Struct { path, kind, fields } => {
                let items: Vec<(String, String)> = fields
                    .iter()
                    .map(|(f, n)| (f.clone(), self.expr(n)))
                    .collect();
                let p = format!("{}::{path}", self.fe.crate_name);
                match kind {
                    StructShape::Unit => p,
                    StructShape::Tuple => format!(
                        "{p}({})",
                        items
                            .iter()
                            .map(|(_, e)| e.as_str())
                            .collect::<Vec<_>>()
                            .join(", ")
                    ),
                    StructShape::Named => format!(
                        "{p} {{ {} }}",
                        items
                            .iter()
                            .map(|(f, e)| format!("{f}: {e}"))
                            .collect::<Vec<_>>()
                            .join(", ")
                    ),
                }
            }
            Node::Ref { mutable, inner } => {
                let e = self.expr(inner);
                let v = self.local();
                let _ = writeln!(self.pre, "        let mut {v} = {e};");
                if *mutable {
                    format!("&mut {v}")
                } else {
                    format!("&{v}")
                }
            }
        }
    }
}

/// The harness source for `fe`.
pub fn generate(fe: &RustFrontend) -> String {
    let d = &fe.domain;
    let n = d.len;
    let mut s = String::new();
    let _ = writeln!(
        s,
        "//! evotest harness for {} (crate {}). Generated; do not edit.",
        fe.prototype,
        fe.crate_dir.display()
    );
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
    let mut g = Gen {
        fe,
        pre: String::new(),
        n: 0,
    };
    let args: Vec<String> = fe.params.iter().map(|p| g.expr(&p.node)).collect();
    s.push_str(&g.pre);
    let call = fe.call_expr(&args);
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
        RType::Scalar(sc) if !sc.is_wide() => match sc {
            RScalar::F32 => format!("{RET_FLOAT32}, evotest_r.to_bits() as u64"),
            RScalar::F64 => format!("{RET_FLOAT64}, evotest_r.to_bits()"),
            RScalar::Bool => format!("{RET_UNSIGNED}, evotest_r as u64"),
            RScalar::Char => format!("{RET_UNSIGNED}, evotest_r as u32 as u64"),
            s if s.is_signed() => format!("{RET_SIGNED}, evotest_r as i64 as u64"),
            _ => format!("{RET_UNSIGNED}, evotest_r as u64"),
        },
        _ => format!("{RET_VOID}, {{ drop(evotest_r); 0 }}"),
    };
    let _ = writeln!(
        s,
        "        unsafe {{ evotest_rt::__evotest_return({record}) }};"
    );
    s.push_str("    }\n}\n");
    s
}
