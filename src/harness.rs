//! Harness generation from a function's signature (no hand-written `main`).
//!
//! The signature comes from the IR and its debug info, via the pass's metadata
//! ([`evotest_abi::meta::FunctionMeta`]). Each parameter must be a scalar (`_Bool`, `char`,
//! `short`, `int`, `long`, `long long`, signed or unsigned, `float`, `double`, or a typedef or enum
//! of one): it becomes one typed gene. The generated `main` asks the runtime for the input bytes,
//! decodes them in the layout of [`crate::input::Domain::encode`], calls the function and records
//! its return value with `__evotest_return`.

use crate::input::{Domain, Param, ScalarType};
use anyhow::{bail, Result};
use evotest_abi::meta::{FunctionMeta, TypeMeta};
use evotest_abi::shm::{RET_FLOAT32, RET_FLOAT64, RET_SIGNED, RET_UNSIGNED, RET_VOID};

/// The return type as far as assertions are concerned.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ReturnKind {
    Void,
    Scalar(ScalarType),
    /// A type whose value is not recorded (pointer, struct): the call is made, nothing asserted.
    Unrecorded,
}

/// The pieces of a function's signature that generated C needs.
#[derive(Clone, Debug)]
pub struct Signature {
    pub name: String,
    /// C spelling of the return type for prototypes.
    pub ret_c: String,
    pub ret: ReturnKind,
    pub params: Vec<Param>,
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
fn c_name(declared: &str, ty: ScalarType) -> String {
    let d = declared.trim_start_matches("const ").trim_start_matches("volatile ").trim();
    if PLAIN_C_TYPES.contains(&d) {
        return d.to_string();
    }
    match ty {
        ScalarType::Bool => "_Bool",
        ScalarType::I8 => "signed char",
        ScalarType::U8 => "unsigned char",
        ScalarType::I16 => "short",
        ScalarType::U16 => "unsigned short",
        ScalarType::I32 => "int",
        ScalarType::U32 => "unsigned int",
        ScalarType::I64 => "long",
        ScalarType::U64 => "unsigned long",
        ScalarType::F32 => "float",
        ScalarType::F64 => "double",
    }
    .to_string()
}

fn ret_of(t: &TypeMeta) -> (String, ReturnKind) {
    if t.ir == "void" {
        return ("void".into(), ReturnKind::Void);
    }
    match t.scalar.as_ref().and_then(ScalarType::from_meta) {
        Some(s) => (c_name(&t.c_spelling, s), ReturnKind::Scalar(s)),
        None => (t.c_spelling.clone(), ReturnKind::Unrecorded),
    }
}

impl Signature {
    /// Check that `f` can be driven and describe its signature.
    ///
    /// Errors (one line each): a variadic function, or a parameter whose type is not a supported
    /// scalar, naming the parameter and its type.
    pub fn of(f: &FunctionMeta) -> Result<Signature> {
        if f.variadic {
            bail!("function `{}` is variadic; evotest can only call functions with a fixed parameter list", f.name);
        }
        let mut params = Vec::new();
        for (i, p) in f.params.iter().enumerate() {
            let Some(ty) = p.ty.scalar.as_ref().and_then(ScalarType::from_meta) else {
                bail!(
                    "parameter `{}` (#{}) of `{}` has type `{}`, which evotest cannot generate yet \
                     (supported: _Bool, char, short, int, long, long long, signed or unsigned, float, double)",
                    p.name,
                    i + 1,
                    f.name,
                    p.ty.c_spelling
                );
            };
            params.push(Param::full(&p.name, &c_name(&p.ty.c_spelling, ty), &p.ty.c_spelling, ty));
        }
        let (ret_c, ret) = ret_of(&f.ret);
        Ok(Signature { name: f.name.clone(), ret_c, ret, params })
    }

    /// `int triangle(int a, int b, int c)`.
    pub fn prototype(&self) -> String {
        let ps: Vec<String> = self.params.iter().map(|p| format!("{} {}", p.c_type, p.name)).collect();
        let ps = if ps.is_empty() { "void".to_string() } else { ps.join(", ") };
        format!("{} {}({})", self.ret_c, self.name, ps)
    }
}

/// The C source of the harness for `sig` over `domain` (whose params are `sig.params` with
/// ranges applied).
pub fn generate(sig: &Signature, domain: &Domain, source: &str) -> String {
    let n = domain.encoded_len();
    let mut s = String::new();
    s.push_str(&format!(
        "/* evotest harness for {} (from {source}). Generated; do not edit.\n\
         * Run by hand: ./target INPUTFILE   (the input encoding is documented in src/input.rs) */\n",
        sig.prototype()
    ));
    s.push_str("#include <stddef.h>\n#include <stdint.h>\n#include <string.h>\n\n");
    s.push_str("extern const unsigned char *__evotest_input(int argc, char **argv, size_t *len);\n");
    s.push_str("extern void __evotest_return(uint32_t kind, uint64_t bits);\n");
    s.push_str(&format!("{};\n\n", sig.prototype()));
    s.push_str("int main(int argc, char **argv) {\n");
    s.push_str("    size_t len = 0;\n");
    s.push_str("    const unsigned char *in = __evotest_input(argc, argv, &len);\n");
    s.push_str(&format!("    unsigned char buf[{}];\n", n + 1));
    s.push_str("    memset(buf, 0, sizeof buf);\n");
    s.push_str(&format!("    memcpy(buf, in, len < {n} ? len : {n});\n"));
    let mut args = Vec::new();
    for (i, (p, off)) in domain.params.iter().zip(domain.offsets()).enumerate() {
        let v = format!("p{i}");
        if p.ty == ScalarType::Bool {
            s.push_str(&format!("    {} {v} = buf[{off}] & 1;\n", p.c_type));
        } else {
            s.push_str(&format!("    {} {v};\n    memcpy(&{v}, buf + {off}, sizeof {v});\n", p.c_type));
        }
        args.push(v);
    }
    let call = format!("{}({})", sig.name, args.join(", "));
    match sig.ret {
        ReturnKind::Void | ReturnKind::Unrecorded => {
            s.push_str(&format!("    {call};\n    __evotest_return({RET_VOID}, 0);\n"));
        }
        ReturnKind::Scalar(t) => {
            s.push_str(&format!("    {} r = {call};\n", sig.ret_c));
            match t {
                ScalarType::F32 => s.push_str(&format!(
                    "    uint32_t bits;\n    memcpy(&bits, &r, 4);\n    __evotest_return({RET_FLOAT32}, bits);\n"
                )),
                ScalarType::F64 => s.push_str(&format!(
                    "    uint64_t bits;\n    memcpy(&bits, &r, 8);\n    __evotest_return({RET_FLOAT64}, bits);\n"
                )),
                t if t.is_signed() => {
                    s.push_str(&format!("    __evotest_return({RET_SIGNED}, (uint64_t)(int64_t)r);\n"))
                }
                _ => s.push_str(&format!("    __evotest_return({RET_UNSIGNED}, (uint64_t)r);\n")),
            }
        }
    }
    s.push_str("    return 0;\n}\n");
    s
}
