//! Harness generation from a function's signature (no hand-written `main`).
//!
//! The signature comes from the IR and its debug info, via the pass's metadata
//! ([`evotest_abi::meta::FunctionMeta`]); [`super::shape`] turns each parameter into fields
//! (scalars, arrays, strings, buffers). The generated `main` asks the runtime for the input
//! bytes, decodes the fields at their offsets, allocates arrays and strings afresh, calls the
//! function and records its return value with `__evotest_return`.

use super::record::Record;
use super::shape::{self, c_name, Param, Shape};
use super::FunctionFrontend;
use crate::input::mapped::PeerEncoding;
use crate::input::ScalarType;
use anyhow::{bail, Result};
use evotest_abi::meta::{FunctionMeta, TypeMeta};
use evotest_abi::shm::{RET_FLOAT32, RET_FLOAT64, RET_SIGNED, RET_UNSIGNED, RET_VOID};

/// The return type as far as assertions are concerned.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ReturnKind {
    Void,
    Scalar(ScalarType),
    /// A pointer, whose value is not recorded: the call is made, nothing asserted.
    Unrecorded,
}

/// The pieces of a function's signature that generated C needs.
#[derive(Clone, Debug)]
pub struct Signature {
    pub name: String,
    /// C spelling of the return type for prototypes.
    pub ret_c: String,
    pub ret: ReturnKind,
    /// `int triangle(int a, int b, int c)`, in typedef-free C.
    pub prototype: String,
    /// The prototype for people: the source's structure types (`struct rect`, not the
    /// harness's `struct evotest_r0`) and a C++ function's qualified name (`shapes::locate`).
    pub shown: String,
    /// The function's name for people: a C++ function's qualified source name (`shapes::locate`,
    /// not `_ZN6shapes6locateEii`), otherwise [`Signature::name`].
    pub shown_name: String,
    /// Definitions of the generated structure types the prototype names (`struct evotest_r0 {
    /// int x; int y; };`), empty when there are none.
    pub types: String,
    /// `extern` declarations of the global inputs ([`Param::global`]), empty when there are none.
    pub externs: String,
    /// The structure a function returns by value, whose members `tests.c` checks after the
    /// call ([`super::outputs`]); `None` for any other return.
    pub ret_record: Option<Record>,
}

/// The generated type name of a structure return ([`super::record`]).
const RET_TAG: &str = "evotest_ret";

/// The return type of `f`. A structure return is called through a generated type of the same
/// layout ([`super::record`]) and not recorded (the call is made, nothing asserted).
///
/// Errors: a union, `_Complex` or other aggregate return, or a structure evotest cannot rebuild
/// (at the IR level it may be a hidden `sret` pointer parameter or a coerced integer, neither of
/// which a harness can call correctly without its type), or a scalar evotest has no type for
/// (`long double`, `__int128`).
pub fn ret_of(f: &FunctionMeta) -> Result<(String, ReturnKind)> {
    let t: &TypeMeta = &f.ret;
    let spelling = t.c_spelling.trim();
    if let Some(c) = t.composite.as_deref() {
        Record::of(c, spelling).map_err(|e| {
            anyhow::anyhow!(
                "function `{}` returns `{spelling}`, which evotest cannot call yet: {e}",
                f.name
            )
        })?;
        return Ok((format!("struct {RET_TAG}"), ReturnKind::Unrecorded));
    }
    if t.ir == "void" && (spelling == "void" || spelling.is_empty()) {
        return Ok(("void".into(), ReturnKind::Void));
    }
    if let Some(s) = t.scalar.as_ref().and_then(ScalarType::from_meta) {
        return Ok((c_name(&t.c_spelling, s), ReturnKind::Scalar(s)));
    }
    if shape::is_long_double(t) {
        // recorded as the `double` nearest to it
        return Ok((
            shape::LONG_DOUBLE.into(),
            ReturnKind::Scalar(ScalarType::F64),
        ));
    }
    if t.scalar.is_none() && (t.ir == "ptr" || t.pointee.is_some() || spelling.ends_with('*')) {
        return Ok((t.c_spelling.clone(), ReturnKind::Unrecorded));
    }
    bail!(
        "function `{}` returns `{}`, which evotest cannot call yet (supported return types: void, \
         _Bool, char, short, int, long, long long, float, double, long double, and pointers)",
        f.name,
        if spelling.is_empty() { &t.ir } else { spelling }
    )
}

/// The C type a parameter of type `t` is passed as when its function is defined without a
/// prototype (a K&R definition, `int f(c, x) char c; float x; { … }`): the default argument
/// promotions, which the definition's code (its IR parameter, `t.ir`) expects: `double` for a
/// `float`, `int` for an integer narrower than `int`. `None` when the IR type is the declared
/// one (a prototyped function, or a type no promotion changes). Calling such a function through
/// the declared types passed a `float` where it read a `double`.
fn promoted(t: &TypeMeta) -> Option<&'static str> {
    let s = t.scalar.as_ref().and_then(ScalarType::from_meta)?;
    match (s, t.ir.as_str()) {
        (ScalarType::F32, "double") => Some("double"),
        (
            ScalarType::Bool | ScalarType::I8 | ScalarType::U8 | ScalarType::I16 | ScalarType::U16,
            "i32",
        ) => Some("int"),
        _ => None,
    }
}

impl Signature {
    /// Describe `f`, whose parameters were built as `params` ([`super::shape::build`]).
    ///
    /// Errors: a variadic function, an unsupported return type (see `ret_of`).
    pub fn of(f: &FunctionMeta, params: &[Param]) -> Result<Signature> {
        if f.variadic {
            bail!("function `{}` is variadic; evotest can only call functions with a fixed parameter list", f.name);
        }
        let (ret_c, ret) = ret_of(f)?;
        let ps: Vec<String> = params
            .iter()
            .filter(|p| !p.global)
            .enumerate()
            .map(
                |(i, p)| match f.params.get(i).and_then(|m| promoted(&m.ty)) {
                    Some(t) => format!("{t} {}", p.name),
                    None => p.declarator(),
                },
            )
            .collect();
        let ps = if ps.is_empty() {
            "void".to_string()
        } else {
            ps.join(", ")
        };
        let prototype = format!("{ret_c} {}({ps})", f.name);
        // for people: the source's structure types, and a C++ function's qualified name
        let shown_ps: Vec<String> = params
            .iter()
            .filter(|p| !p.global)
            .map(|p| p.shown_declarator())
            .collect();
        let shown_ps = if shown_ps.is_empty() {
            "void".to_string()
        } else {
            shown_ps.join(", ")
        };
        let shown_ret = if f.ret.composite.is_some() && !f.ret.c_spelling.is_empty() {
            f.ret.c_spelling.clone()
        } else {
            ret_c.clone()
        };
        let shown_name = match (&f.source_name, f.language.as_deref()) {
            (Some(n), Some("c++")) if !n.is_empty() => n.clone(),
            _ => f.name.clone(),
        };
        let shown = format!("{shown_ret} {shown_name}({shown_ps})");
        let mut types: String = params
            .iter()
            .filter_map(|p| match &p.shape {
                Shape::Record { record, tag, .. } => Some(record.c_definitions(tag)),
                _ => None,
            })
            .collect();
        let ret_record = match f.ret.composite.as_deref() {
            Some(c) => Some(Record::of(c, &f.ret.c_spelling)?),
            None => None,
        };
        if let Some(r) = &ret_record {
            types.push_str(&r.c_definitions(RET_TAG));
        }
        let externs = params
            .iter()
            .filter(|p| p.global)
            .map(|p| match &p.shape {
                Shape::Array { len, .. } => format!("extern {} {}[{len}];\n", p.elem_c, p.name),
                Shape::Record { many: Some(n), .. } => {
                    format!("extern {} {}[{n}];\n", p.c_type, p.name)
                }
                _ => format!("extern {} {};\n", p.c_type, p.name),
            })
            .collect();
        Ok(Signature {
            name: f.name.clone(),
            ret_c,
            ret,
            prototype,
            shown,
            shown_name,
            types,
            externs,
            ret_record,
        })
    }

    /// The generated types, the global inputs' declarations and the prototype, as C
    /// declarations (`…;`).
    pub fn declarations(&self) -> String {
        self.declarations_for(&[], &[])
    }

    /// [`Self::declarations`], those of the function and the globals named in `renamed`
    /// ([`super::FunctionFrontend::renamed`]) with an `__asm__` label that keeps their symbol
    /// under the name a `#define` gave them, and those in `relinked` labelled with their
    /// renamed symbol ([`super::FunctionFrontend::relinked`]).
    pub fn declarations_for(&self, renamed: &[String], relinked: &[String]) -> String {
        let label = |n: &str| {
            if relinked.iter().any(|r| r == n) {
                format!(" __asm__(\"{}{n}\")", super::RELINKED_PREFIX)
            } else if renamed.iter().any(|r| r == n) {
                format!(" __asm__(\"{n}\")")
            } else {
                String::new()
            }
        };
        let externs: String = self
            .externs
            .lines()
            .map(|l| {
                // `extern T name;` or `extern T name[n];`
                let body = l.strip_suffix(';').unwrap_or(l);
                let decl = body.split('[').next().unwrap_or(body);
                let name = decl.rsplit([' ', '*']).next().unwrap_or("");
                format!("{body}{};\n", label(name))
            })
            .collect();
        format!(
            "{}{externs}{}{};",
            self.types,
            self.prototype,
            label(&self.name)
        )
    }
}

/// The C source of the harness of `fe`: a loop over the inputs the runtime hands out (one per
/// process, or many in persistent mode), each decoded, passed to the function, its return value
/// recorded and its allocations freed.
pub fn generate(fe: &FunctionFrontend) -> String {
    let (sig, source) = (&fe.signature, &fe.sources);
    let n = fe.domain.len;
    let mut s = String::new();
    s.push_str(&format!(
        "/* evotest harness for {} (from {source}). Generated; do not edit.\n\
         * Run by hand: ./target INPUTFILE   (the input encoding is documented in src/input/mod.rs) */\n",
        sig.prototype
    ));
    s.push_str("#include <stddef.h>\n#include <stdint.h>\n#include <stdio.h>\n#include <stdlib.h>\n#include <string.h>\n\n");
    s.push_str(&shape::c_guard_helpers());
    s.push_str("extern const unsigned char *__evotest_next(int argc, char **argv, size_t *len);\n");
    s.push_str("extern void __evotest_return(uint32_t kind, uint64_t bits);\n");
    s.push_str(&fe.declared_renaming_defines());
    s.push_str(&format!(
        "{}\n\n",
        sig.declarations_for(&fe.renamed, &fe.relinked)
    ));
    s.push_str("int main(int argc, char **argv) {\n");
    // Every local is prefixed so that no user function or global can collide with it.
    s.push_str("    size_t evotest_len = 0;\n");
    s.push_str("    const unsigned char *evotest_in;\n");
    s.push_str(&format!(
        "    static unsigned char evotest_buf[{}];\n",
        n + 1
    ));
    s.push_str("    while ((evotest_in = __evotest_next(argc, argv, &evotest_len)) != 0) {\n");
    // a short input reads as zero-filled: clear only the bytes it does not provide
    s.push_str(&format!("    if (evotest_len > {n}) evotest_len = {n};\n"));
    s.push_str("    memcpy(evotest_buf, evotest_in, evotest_len);\n");
    s.push_str("    memset(evotest_buf + evotest_len, 0, sizeof evotest_buf - evotest_len);\n");
    s.push_str(&decode_params(fe));
    let call = format!("{}({})", sig.name, call_args(fe).join(", "));
    let checks = shape::c_guard_checks(&fe.params);
    match sig.ret {
        ReturnKind::Void | ReturnKind::Unrecorded => {
            s.push_str(&format!(
                "    {call};\n{checks}    __evotest_return({RET_VOID}, 0);\n"
            ));
        }
        ReturnKind::Scalar(t) => {
            s.push_str(&format!("    {} evotest_r = {call};\n{checks}", sig.ret_c));
            match t {
                ScalarType::F32 => s.push_str(&format!(
                    "    uint32_t evotest_bits;\n    memcpy(&evotest_bits, &evotest_r, 4);\n    __evotest_return({RET_FLOAT32}, evotest_bits);\n"
                )),
                ScalarType::F64 => s.push_str(&format!(
                    "    double evotest_d = evotest_r;\n    uint64_t evotest_bits;\n    memcpy(&evotest_bits, &evotest_d, 8);\n    __evotest_return({RET_FLOAT64}, evotest_bits);\n"
                )),
                t if t.is_signed() => {
                    s.push_str(&format!("    __evotest_return({RET_SIGNED}, (uint64_t)(int64_t)evotest_r);\n"))
                }
                _ => s.push_str(&format!("    __evotest_return({RET_UNSIGNED}, (uint64_t)evotest_r);\n")),
            }
        }
    }
    s.push_str(&frees(&fe.params));
    s.push_str("    }\n    return 0;\n}\n");
    s
}

/// The decoding of every parameter, buffers before the parameters that carry their lengths.
fn decode_params(fe: &FunctionFrontend) -> String {
    let n = fe.params.len();
    let is_len = |i: usize| matches!(fe.params[i].shape, Shape::LengthOf { .. });
    (0..n)
        .filter(|&i| !is_len(i))
        .chain((0..n).filter(|&i| is_len(i)))
        .map(|i| shape::c_decode(&fe.params, &fe.domain, i))
        .collect()
}

/// The arguments of the call: the decoded parameters, global inputs left out.
fn call_args(fe: &FunctionFrontend) -> Vec<String> {
    let arg = |i: usize| {
        let p = &fe.params[i];
        let a = match (&p.shape, p.array_dims()) {
            // a pointer to arrays, decoded as a pointer to its scalars
            (_, Some(_)) => format!("({})evotest_p{i}", p.c_type),
            // a list or a tree: its first node, none when the pool has no node in use
            (
                Shape::Record {
                    many: Some(_),
                    record,
                    ..
                },
                _,
            ) if record.has_links() => format!("(evotest_n{i} ? evotest_p{i} : 0)"),
            _ => format!("evotest_p{i}"),
        };
        match p.null_field {
            // NULL in place of the pointer, which is still allocated, checked and freed
            Some(f) => format!(
                "(evotest_buf[{}] == 0 ? NULL : {a})",
                fe.domain.fields[f].offset
            ),
            None => a,
        }
    };
    (0..fe.params.len())
        .filter(|&i| !fe.params[i].global)
        .map(arg)
        .collect()
}

/// `free` of every array, string and buffer the decoding allocated.
fn frees(params: &[Param]) -> String {
    let mut s = String::new();
    for (i, p) in params.iter().enumerate() {
        // the string members of structures first
        if let Shape::Record {
            record,
            by_pointer,
            many,
            ..
        } = &p.shape
        {
            let obj = match (p.global, by_pointer, many) {
                (true, _, Some(_)) => format!("{}[evotest_k]", p.name),
                (true, ..) => p.name.clone(),
                (false, _, Some(_)) => format!("evotest_p{i}[evotest_k]"),
                (false, true, None) => format!("(*evotest_p{i})"),
                (false, false, None) => format!("evotest_p{i}"),
            };
            for path in record.string_paths(&obj) {
                let free = format!("free((void *){path});");
                match many {
                    Some(n) if p.global => {
                        s.push_str(&format!("    for (uint32_t evotest_k = 0; evotest_k < {n}; evotest_k++) {free}\n"))
                    }
                    Some(_) => s.push_str(&format!(
                        "    for (uint32_t evotest_k = 0; evotest_k < evotest_n{i}; evotest_k++) {free}\n"
                    )),
                    None => s.push_str(&format!("    {free}\n")),
                }
            }
        }
        if p.global {
            continue;
        }
        if matches!(
            p.shape,
            Shape::Array { .. }
                | Shape::String { .. }
                | Shape::Buffer { .. }
                | Shape::Record {
                    by_pointer: true,
                    ..
                }
        ) {
            s.push_str(&format!("    free(evotest_p{i});\n"));
        }
    }
    s
}

/// Declarations, decoding and call shared by the peer harnesses: maps the peer's bytes into the
/// domain ([`crate::input::mapped`]), builds the parameters, calls the function into a volatile
/// (so that optimisation keeps the call) and frees what it allocated.
fn peer_body(fe: &FunctionFrontend, data: &str, size: &str, guard: Option<&str>) -> String {
    let sig = &fe.signature;
    let mut s = String::new();
    s.push_str(&format!(
        "    static unsigned char evotest_buf[{}];\n",
        fe.domain.len + 1
    ));
    s.push_str(&format!("    evotest_map({data}, {size}, evotest_buf);\n"));
    s.push_str(&decode_params(fe));
    let call = format!("{}({})", sig.name, call_args(fe).join(", "));
    let call = match sig.ret {
        ReturnKind::Scalar(_) => format!(
            "{{ volatile {} evotest_r = {call}; (void)evotest_r; }}",
            sig.ret_c
        ),
        _ => format!("{call};"),
    };
    let checks = shape::c_guard_checks(&fe.params);
    match guard {
        Some(g) => s.push_str(&format!(
            "    {g}\n    if (setjmp(evotest_jb) == 0) {{ {call}\n{checks}    }}\n"
        )),
        None => s.push_str(&format!("    {call}\n{checks}")),
    }
    s.push_str(&frees(&fe.params));
    s
}

fn peer_prelude(fe: &FunctionFrontend, what: &str, enc: PeerEncoding) -> String {
    let (sig, source) = (&fe.signature, &fe.sources);
    let how = match enc {
        PeerEncoding::Raw => "Parameters over their type's whole range are read from the bytes as they are;\n\
                              * declared ranges, lengths and characters are mapped onto the declared domain",
        PeerEncoding::Mapped => "Bytes are mapped onto the declared domain (an all-zero input is every range's\n\
                                 * lower bound)",
        PeerEncoding::Bytes => "Every parameter is read from the bytes as they are, declared ranges ignored: scalars\n\
                                * and array elements in their C type, a string up to its first NUL byte or its maximum",
    };
    let mut s = format!(
        "/* evotest {what} harness for {} (from {source}). Generated; do not edit.\n\
         * {how}, as src/input/mapped.rs describes, so that every tool searches the same inputs. */\n",
        sig.prototype
    );
    s.push_str("#include <setjmp.h>\n#include <stddef.h>\n#include <stdint.h>\n#include <stdio.h>\n#include <stdlib.h>\n#include <string.h>\n\n");
    s.push_str(&shape::c_guard_helpers());
    s.push_str(&fe.declared_renaming_defines());
    s.push_str(&format!(
        "{}\n\n",
        sig.declarations_for(&fe.renamed, &fe.relinked)
    ));
    s.push_str(&crate::input::mapped::c_decoder(&fe.domain, enc));
    s
}

/// Branch events after which the libFuzzer harness abandons an execution (a runaway loop).
pub const PEER_EVENT_LIMIT: u32 = 1 << 24;

/// The observer's declarations, the `longjmp` out of a runaway execution and the start of
/// `LLVMFuzzerTestOneInput` up to the abort hook's installation: the common head of the
/// libFuzzer harnesses that evotest's runtime observes (needs `<setjmp.h>` and `<stdint.h>`).
pub fn observer_entry() -> String {
    format!(
        "extern void __evotest_observe_begin(void);\n\
         extern void __evotest_observe_end(const uint8_t *data, size_t size);\n\
         extern void __evotest_set_abort(void (*hook)(void), uint32_t max_events);\n\
         static jmp_buf evotest_jb;\n\
         static void evotest_abort(void) {{ longjmp(evotest_jb, 1); }}\n\n\
         int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {{\n\
         \x20   static int evotest_ready;\n\
         \x20   if (!evotest_ready) {{ __evotest_set_abort(evotest_abort, {PEER_EVENT_LIMIT}u); evotest_ready = 1; }}\n"
    )
}

/// The libFuzzer harness: `LLVMFuzzerTestOneInput` over the mapped encoding, with the evotest
/// runtime in observer mode around each call (the target is compiled with the evotest pass), and a
/// `longjmp` out of executions that exceed [`PEER_EVENT_LIMIT`] branch events, so that an input
/// that loops forever does not end the campaign.
pub fn generate_libfuzzer(fe: &FunctionFrontend, enc: PeerEncoding) -> String {
    let mut s = peer_prelude(fe, "libFuzzer", enc);
    s.push_str(&observer_entry());
    s.push_str(&peer_body(
        fe,
        "data",
        "size",
        Some("__evotest_observe_begin();"),
    ));
    s.push_str("    __evotest_observe_end(data, size);\n    return 0;\n}\n");
    s
}

/// The harness of `evotest fuzz` in the benchmark: a plain `LLVMFuzzerTestOneInput` over the
/// encoding `enc` (no observer: `evotest fuzz` reads the trace map itself), linked with evotest's
/// libFuzzer-compatible driver as `evotest-cc -fsanitize=fuzzer` links it.
pub fn generate_fuzz(fe: &FunctionFrontend, enc: PeerEncoding) -> String {
    let mut s = peer_prelude(fe, "evotest fuzz", enc);
    s.push_str("int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {\n");
    s.push_str(&peer_body(fe, "data", "size", None));
    s.push_str("    return 0;\n}\n");
    s
}

/// The AFL++ harness: persistent mode (`__AFL_LOOP`) with shared-memory test cases, over the
/// mapped encoding. Compiled by `afl-clang-fast` (clang 14), so plain C99 without evotest probes;
/// AFL++ handles hangs with its own timeout.
pub fn generate_afl(fe: &FunctionFrontend, enc: PeerEncoding) -> String {
    let mut s = peer_prelude(fe, "AFL++", enc);
    s.push_str(
        "__AFL_FUZZ_INIT();\n\n\
         int main(void) {\n\
         \x20   __AFL_INIT();\n\
         \x20   const uint8_t *data = __AFL_FUZZ_TESTCASE_BUF;\n\
         \x20   while (__AFL_LOOP(10000)) {\n\
         \x20   size_t size = (size_t)__AFL_FUZZ_TESTCASE_LEN;\n",
    );
    s.push_str(&peer_body(fe, "data", "size", None));
    s.push_str("    }\n    return 0;\n}\n");
    s
}
