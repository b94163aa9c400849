//! The API harness (generated C) and `tests.c`.
//!
//! The harness decodes each input as [`crate::input::sequence`] describes, calls the operations,
//! and keeps the values they return in one pool per handle type. With `EVOTEST_SEQ_LOG=FILE` in
//! its environment it also writes, for every call it makes, a line `call OP ARG…` before the call
//! (flushed, so that a crash leaves it) and `ret …` after: a handle argument as `hN` (the N-th
//! value the sequence made), an integer in decimal, a float as `x` and its bit pattern in hex, a
//! string as `s` and its bytes in hex (`s` alone when empty), an out-parameter as `o`; a return
//! as `v` (void or not recorded), `i N`, `u N`, `f BITS`, `h N` or `h -` (NULL). [`replay`] runs
//! it so, and [`render_tests`] turns the logs into `tests.c`.

use super::{declarator, SequenceFrontend};
use crate::archive::TestCase;
use crate::exec::ExitKind;
use crate::frontend::function::shape::c_string;
use crate::frontend::TestFile;
use crate::input::sequence::{ArgKind, OpReturn, MAX_BUF, MAX_HANDLES, MAX_STR, SCRATCH_ELEMS};
use crate::input::{c_literal, ScalarType, Value};
use anyhow::{Context, Result};
use std::fmt::Write;
use std::path::Path;
use std::time::Duration;

/// The C type the harness declares a scalar parameter with.
fn scalar_c(t: ScalarType) -> &'static str {
    t.c_name()
}

/// The harness's C source: a `main` that runs each input the runtime hands out and returns, as
/// the recorded return value, the mask of the calls whose handle was NULL
/// ([`crate::input::sequence::null_mask`]).
pub fn generate(fe: &SequenceFrontend) -> String {
    let mut s = String::new();
    let _ = writeln!(
        s,
        "/* evotest API harness for {}. Generated; do not edit.",
        fe.describe
    );
    let _ = writeln!(s, " * Run by hand: ./target INPUTFILE (EVOTEST_SEQ_LOG=FILE logs the calls; see src/frontend/sequence/harness.rs) */");
    // each call gets its own branch-event allowance (the runtime's per-call limit)
    s.push_str("extern void __evotest_call_begin(void);\n#define EVOTEST_CALL_BEGIN() __evotest_call_begin()\n");
    s.push_str(&runner(fe));
    s.push_str("extern const unsigned char *__evotest_next(int argc, char **argv, size_t *len);\n");
    s.push_str("extern void __evotest_return(uint32_t kind, uint64_t bits);\n\n");
    s.push_str(
        "int main(int argc, char **argv) {\n\
         \x20   size_t evotest_len = 0;\n\
         \x20   const unsigned char *evotest_in;\n\
         \x20   const char *evotest_logname = getenv(\"EVOTEST_SEQ_LOG\");\n\
         \x20   if (evotest_logname) evotest_log = fopen(evotest_logname, \"w\");\n\
         \x20   while ((evotest_in = __evotest_next(argc, argv, &evotest_len)) != 0) {\n\
         \x20       evotest_run_sequence(evotest_in, evotest_len);\n",
    );
    // the calls whose handle was NULL, for the engine's model of the values alive
    let _ = writeln!(
        s,
        "        __evotest_return({}, evotest_nulls);\n    }}\n    return 0;\n}}",
        evotest_abi::shm::RET_UNSIGNED
    );
    s
}

/// The includes, prototypes, state and `static void evotest_run_sequence(const unsigned char
/// *evotest_buf, size_t evotest_n)`, which runs one sequence (every harness's core).
fn runner(fe: &SequenceFrontend) -> String {
    let m = &fe.model;
    let n_types = m.handle_types.len().max(1);
    let max_args = m
        .ops
        .iter()
        .map(|o| o.params.len())
        .max()
        .unwrap_or(0)
        .max(1);
    let len = m.max_len();
    let mut s = String::new();
    s.push_str("#include <stddef.h>\n#include <stdint.h>\n#include <stdio.h>\n#include <stdlib.h>\n#include <string.h>\n\n");
    // before each call: the runtime's per-call branch-event limit in evotest's own harness
    // ([`generate`]), nothing in the peers' harnesses and the replay programs
    s.push_str("#ifndef EVOTEST_CALL_BEGIN\n#define EVOTEST_CALL_BEGIN() ((void)0)\n#endif\n");
    s.push_str(&prototypes(fe));
    let _ = writeln!(
        s,
        "\n#define EVOTEST_TYPES {n_types}\n#define EVOTEST_MAXH {MAX_HANDLES}\n#define EVOTEST_LEN {len}\n#define EVOTEST_KEEP {}\n",
        m.max_calls * max_args
    );
    runner_state_and_body(fe, &mut s);
    s
}

/// The operations' prototypes with every pointer as `void *` (the same ABI; no type definitions
/// needed), one per line.
fn prototypes(fe: &SequenceFrontend) -> String {
    let m = &fe.model;
    let mut s = String::new();
    for (oi, op) in m.ops.iter().enumerate() {
        if fe.c[oi].alloc.is_some() {
            continue;
        }
        let ret = match op.ret {
            OpReturn::Scalar(t) => scalar_c(t).to_string(),
            OpReturn::Void if fe_ret_is_void(fe, op) => "void".into(),
            _ => "void *".into(),
        };
        let ps: Vec<String> = op
            .params
            .iter()
            .map(|(_, k)| match k {
                ArgKind::Scalar(t) | ArgKind::LengthOf(_, t) => scalar_c(*t).to_string(),
                _ => "void *".to_string(),
            })
            .collect();
        let _ = writeln!(
            s,
            "{ret} {}({});",
            op.name,
            if ps.is_empty() {
                "void".into()
            } else {
                ps.join(", ")
            }
        );
    }
    s
}

/// The harness's state and `evotest_run_sequence` (see [`runner`]), appended to `s`.
fn runner_state_and_body(fe: &SequenceFrontend, s: &mut String) {
    let m = &fe.model;
    s.push_str(
        "static void *evotest_h[EVOTEST_TYPES][EVOTEST_MAXH];\n\
         static unsigned evotest_hid[EVOTEST_TYPES][EVOTEST_MAXH];\n\
         static unsigned evotest_nh[EVOTEST_TYPES], evotest_ids;\n\
         static void *evotest_kept[EVOTEST_KEEP];\n\
         static unsigned evotest_nkept;\n\
         static FILE *evotest_log;\n\n\
         static void *evotest_keep(void *p) { if (evotest_nkept < EVOTEST_KEEP) evotest_kept[evotest_nkept++] = p; return p; }\n\
         /* a block of the harness's that a destructor took (or a call that may move it): the library's now */\n\
         static void evotest_unkeep(void *p) { for (unsigned i = 0; p && i < evotest_nkept; i++) if (evotest_kept[i] == p) evotest_kept[i] = 0; }\n\
         static uint64_t evotest_nulls;\n\
         static void evotest_add(int t, void *p, unsigned call) {\n\
         \x20   unsigned id = evotest_ids++;\n\
         \x20   /* a value already held (`v = grow(v, x)` that did not move it) is no new one */\n\
         \x20   for (unsigned k = 0; p && k < evotest_nh[t]; k++) if (evotest_h[t][k] == p) p = 0;\n\
         \x20   if (!p && call < 64) evotest_nulls |= (uint64_t)1 << call;\n\
         \x20   if (evotest_log) { if (p) fprintf(evotest_log, \"ret h %u\\n\", id); else fputs(\"ret h -\\n\", evotest_log); }\n\
         \x20   if (p && evotest_nh[t] < EVOTEST_MAXH) { evotest_hid[t][evotest_nh[t]] = id; evotest_h[t][evotest_nh[t]++] = p; }\n\
         }\n\
         static void evotest_drop(int t, unsigned k) {\n\
         \x20   evotest_nh[t]--;\n\
         \x20   evotest_h[t][k] = evotest_h[t][evotest_nh[t]];\n\
         \x20   evotest_hid[t][k] = evotest_hid[t][evotest_nh[t]];\n\
         }\n\
         static void evotest_promote(int t, unsigned k, int to) {\n\
         \x20   void *p = evotest_h[t][k];\n\
         \x20   unsigned id = evotest_hid[t][k];\n\
         \x20   evotest_drop(t, k);\n\
         \x20   if (evotest_nh[to] < EVOTEST_MAXH) { evotest_hid[to][evotest_nh[to]] = id; evotest_h[to][evotest_nh[to]++] = p; }\n\
         }\n\
         static void evotest_hex(const char *p, size_t n) { for (size_t i = 0; i < n; i++) fprintf(evotest_log, \"%02x\", (unsigned char)p[i]); }\n\n\
         static void evotest_run_sequence(const unsigned char *evotest_buf, size_t evotest_n) {\n\
         \x20   size_t evotest_pos = 0;\n\
         \x20   if (evotest_n > EVOTEST_LEN) evotest_n = EVOTEST_LEN;\n\
         \x20   for (unsigned i = 0; i < evotest_nkept; i++) free(evotest_kept[i]);\n\
         \x20   evotest_nkept = 0;\n\
         \x20   memset(evotest_nh, 0, sizeof evotest_nh);\n\
         \x20   evotest_ids = 0;\n\
         \x20   evotest_nulls = 0;\n",
    );
    let _ = writeln!(s, "    for (unsigned evotest_call = 0; evotest_call < {} && evotest_pos < evotest_n; evotest_call++) {{", m.max_calls);
    s.push_str("        unsigned char evotest_op = evotest_buf[evotest_pos++];\n        if (evotest_op == 0) break;\n");
    let _ = writeln!(s, "        switch ((evotest_op - 1) % {}) {{", m.ops.len());
    for (oi, op) in m.ops.iter().enumerate() {
        let _ = writeln!(
            s,
            "        case {oi}: {{ /* {} */",
            crate::frontend::comment_text(&fe.c[oi].prototype)
        );
        // decode every argument (its bytes are consumed even when the call is skipped)
        for (j, (_, k)) in op.params.iter().enumerate() {
            match k {
                ArgKind::Scalar(ScalarType::Bool) => {
                    let _ = writeln!(s, "            if (evotest_pos + 1 > evotest_n) goto evotest_end;\n            _Bool a{j} = evotest_buf[evotest_pos++] & 1;");
                }
                ArgKind::Scalar(t) => {
                    let w = t.size();
                    let _ = writeln!(
                        s,
                        "            if (evotest_pos + {w} > evotest_n) goto evotest_end;\n            {c} a{j}; memcpy(&a{j}, evotest_buf + evotest_pos, {w}); evotest_pos += {w};",
                        c = scalar_c(*t)
                    );
                }
                ArgKind::Handle(_) => {
                    let _ = writeln!(s, "            if (evotest_pos + 1 > evotest_n) goto evotest_end;\n            unsigned i{j} = evotest_buf[evotest_pos++];");
                }
                ArgKind::Str => {
                    let _ = writeln!(
                        s,
                        "            if (evotest_pos + 1 > evotest_n) goto evotest_end;\n\
                         \x20           size_t l{j} = evotest_buf[evotest_pos++] % {};\n\
                         \x20           if (evotest_pos + l{j} > evotest_n) goto evotest_end;\n\
                         \x20           char *a{j} = evotest_keep(malloc(l{j} + 1));\n\
                         \x20           memcpy(a{j}, evotest_buf + evotest_pos, l{j}); a{j}[l{j}] = 0; evotest_pos += l{j};",
                        MAX_STR + 1
                    );
                }
                ArgKind::Scratch(t) => {
                    let _ = writeln!(s, "            void *a{j} = evotest_keep(calloc({SCRATCH_ELEMS}, sizeof({})));", scalar_c(*t));
                }
                ArgKind::Buffer(t) => {
                    let w = t.size();
                    let _ = writeln!(
                        s,
                        "            if (evotest_pos + 1 > evotest_n) goto evotest_end;\n\
                         \x20           size_t l{j} = evotest_buf[evotest_pos++] % {};\n\
                         \x20           if (evotest_pos + l{j} * {w} > evotest_n) goto evotest_end;\n\
                         \x20           char *a{j} = evotest_keep(malloc(l{j} * {w} + 1));\n\
                         \x20           memcpy(a{j}, evotest_buf + evotest_pos, l{j} * {w}); a{j}[l{j} * {w}] = 0; evotest_pos += l{j} * {w};",
                        MAX_BUF + 1
                    );
                }
                ArgKind::LengthOf(b, t) => {
                    let _ = writeln!(
                        s,
                        "            {} a{j} = ({})l{b};",
                        scalar_c(*t),
                        scalar_c(*t)
                    );
                }
            }
        }
        // skipped when a handle type has no value alive
        for (j, (_, k)) in op.params.iter().enumerate() {
            if let ArgKind::Handle(t) = k {
                let _ = writeln!(
                    s,
                    "            if (evotest_nh[{t}] == 0) break;\n            unsigned k{j} = i{j} % evotest_nh[{t}]; void *a{j} = evotest_h[{t}][k{j}];"
                );
            }
        }
        // the log of the call
        let _ = write!(
            s,
            "            if (evotest_log) {{ fputs(\"call {oi}\", evotest_log);"
        );
        for (j, (_, k)) in op.params.iter().enumerate() {
            match k {
                ArgKind::Handle(t) => {
                    let _ = write!(
                        s,
                        " fprintf(evotest_log, \" h%u\", evotest_hid[{t}][k{j}]);"
                    );
                }
                ArgKind::Scalar(t) if t.is_float() => {
                    let (w, fmt, cast) = if *t == ScalarType::F32 {
                        (4, "%08x", "unsigned")
                    } else {
                        (8, "%016llx", "unsigned long long")
                    };
                    let ut = if w == 4 { "uint32_t" } else { "uint64_t" };
                    let _ = write!(s, " {{ {ut} b; memcpy(&b, &a{j}, {w}); fprintf(evotest_log, \" x{fmt}\", ({cast})b); }}");
                }
                ArgKind::Scalar(t) if t.is_signed() || *t == ScalarType::Bool => {
                    let _ = write!(s, " fprintf(evotest_log, \" %lld\", (long long)a{j});");
                }
                ArgKind::Scalar(_) => {
                    let _ = write!(
                        s,
                        " fprintf(evotest_log, \" %llu\", (unsigned long long)a{j});"
                    );
                }
                ArgKind::Str => {
                    let _ = write!(s, " fputs(\" s\", evotest_log); evotest_hex(a{j}, l{j});");
                }
                ArgKind::Scratch(_) => {
                    let _ = write!(s, " fputs(\" o\", evotest_log);");
                }
                ArgKind::Buffer(t) => {
                    let _ = write!(
                        s,
                        " fputs(\" b\", evotest_log); evotest_hex(a{j}, l{j} * {});",
                        t.size()
                    );
                }
                ArgKind::LengthOf(b, _) => {
                    let _ = write!(
                        s,
                        " fprintf(evotest_log, \" %llu\", (unsigned long long)l{b});"
                    );
                }
            }
        }
        s.push_str(" fputc('\\n', evotest_log); fflush(evotest_log); }\n            EVOTEST_CALL_BEGIN();\n");
        let args: Vec<String> = (0..op.params.len()).map(|j| format!("a{j}")).collect();
        let call = match &fe.c[oi].alloc {
            // a caller-allocated object: zeroed, as `T x = {0};`, freed after the sequence
            Some((_, size)) => format!("evotest_keep(calloc(1, {size}))"),
            None => format!("{}({})", op.name, args.join(", ")),
        };
        match op.ret {
            OpReturn::Scalar(t) => {
                let _ = writeln!(s, "            {} r = {call};", scalar_c(t));
                let log = if t.is_float() {
                    let (w, fmt, cast, ut) = if t == ScalarType::F32 {
                        (4, "%08x", "unsigned", "uint32_t")
                    } else {
                        (8, "%016llx", "unsigned long long", "uint64_t")
                    };
                    format!("{{ {ut} b; memcpy(&b, &r, {w}); fprintf(evotest_log, \"ret f {fmt}\\n\", ({cast})b); }}")
                } else if t.is_signed() || t == ScalarType::Bool {
                    "fprintf(evotest_log, \"ret i %lld\\n\", (long long)r);".to_string()
                } else {
                    "fprintf(evotest_log, \"ret u %llu\\n\", (unsigned long long)r);".to_string()
                };
                let _ = writeln!(s, "            if (evotest_log) {log}");
            }
            OpReturn::Handle(_) => {
                let _ = writeln!(s, "            void *r = {call};");
            }
            OpReturn::Void => {
                let _ = writeln!(s, "            {call};\n            if (evotest_log) fputs(\"ret v\\n\", evotest_log);");
            }
        }
        // the pools change in the model's order (SequenceModel::step): freed, promoted, returned
        if let Some((j, t)) = op.freed() {
            let _ = writeln!(
                s,
                "            evotest_unkeep(a{j}); evotest_drop({t}, k{j});"
            );
        }
        if let Some((j, to)) = op.promotes {
            if let Some((_, ArgKind::Handle(t))) = op.params.get(j) {
                let _ = writeln!(s, "            evotest_promote({t}, k{j}, {to});");
            }
        }
        if let OpReturn::Handle(t) = op.ret {
            let _ = writeln!(s, "            evotest_add({t}, r, evotest_call);");
        }
        s.push_str("            break;\n        }\n");
    }
    s.push_str(
        "        }\n    }\n    evotest_end:\n\
         \x20   if (evotest_log) fflush(evotest_log);\n\
         \x20   for (unsigned i = 0; i < evotest_nkept; i++) free(evotest_kept[i]);\n\
         \x20   evotest_nkept = 0;\n\
         }\n\n",
    );
}

/// A peer's harness (see [`crate::frontend::Peer`]) around the same runner: the bytes are the
/// sequence encoding as they are (a fuzzer sees what the search sees).
pub fn generate_peer(fe: &SequenceFrontend, peer: crate::frontend::Peer) -> String {
    use crate::frontend::Peer;
    let mut s = format!(
        "/* evotest {peer:?} harness for {}. Generated; do not edit. */\n#include <setjmp.h>\n",
        fe.describe
    );
    s.push_str(&runner(fe));
    match peer {
        Peer::LibFuzzer => {
            s.push_str(&crate::frontend::function::harness::observer_entry());
            s.push_str(
                "    __evotest_observe_begin();\n\
                 \x20   if (setjmp(evotest_jb) == 0) evotest_run_sequence(data, size);\n\
                 \x20   __evotest_observe_end(data, size);\n\
                 \x20   return 0;\n}\n",
            );
        }
        Peer::EvotestFuzz => {
            s.push_str("int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {\n    evotest_run_sequence(data, size);\n    return 0;\n}\n");
        }
        Peer::Afl => {
            s.push_str(
                "__AFL_FUZZ_INIT();\n\n\
                 int main(void) {\n\
                 \x20   __AFL_INIT();\n\
                 \x20   const uint8_t *data = __AFL_FUZZ_TESTCASE_BUF;\n\
                 \x20   while (__AFL_LOOP(10000)) evotest_run_sequence(data, (size_t)__AFL_FUZZ_TESTCASE_LEN);\n\
                 \x20   return 0;\n}\n",
            );
        }
    }
    s
}

/// A program that runs each of `inputs` in a forked child, for an independent coverage observer.
pub fn replay_program(fe: &SequenceFrontend, inputs: &[crate::input::Input]) -> String {
    let mut s = runner(fe);
    s.push_str("#include <unistd.h>\n#include <sys/wait.h>\n\n");
    for (i, x) in inputs.iter().enumerate() {
        let bytes: Vec<String> = x.bytes.iter().map(|b| b.to_string()).collect();
        let _ = writeln!(
            s,
            "static const unsigned char evotest_in_{i}[] = {{{}0}};",
            bytes.iter().map(|b| format!("{b},")).collect::<String>()
        );
    }
    s.push_str("int main(void) {\n");
    for (i, x) in inputs.iter().enumerate() {
        let _ = writeln!(
            s,
            "    {{ pid_t p = fork(); if (p == 0) {{ alarm(5); freopen(\"/dev/null\", \"w\", stderr); evotest_run_sequence(evotest_in_{i}, {}); exit(0); }} int st; if (p > 0) waitpid(p, &st, 0); }}",
            x.bytes.len()
        );
    }
    s.push_str("    return 0;\n}\n");
    s
}

/// Whether operation `op` is `void` in C (an [`OpReturn::Void`] may also be a `char *` return,
/// not recorded).
fn fe_ret_is_void(fe: &SequenceFrontend, op: &crate::input::sequence::Op) -> bool {
    let i = fe
        .model
        .ops
        .iter()
        .position(|o| std::ptr::eq(o, op))
        .unwrap_or(0);
    fe.c[i].ret_c == "void"
}

/// One logged argument.
#[derive(Clone, Debug, PartialEq)]
pub enum LoggedArg {
    Handle(u32),
    Int(i128),
    FloatBits(u64),
    Str(Vec<u8>),
    /// A buffer's bytes.
    Bytes(Vec<u8>),
    Out,
}

/// One logged return.
#[derive(Clone, Debug, PartialEq)]
pub enum LoggedRet {
    Void,
    Int(i128),
    FloatBits(u64),
    /// The id of the value kept, `None` for NULL.
    Handle(Option<u32>),
    /// A number that differed between two runs of the same sequence (memory never written, an
    /// address, a clock): not compared ([`mark_varying`]).
    Varying,
}

/// `a`, a call log, with the numbers returned that differ in `b`, a log of another run of the
/// same input, marked [`LoggedRet::Varying`]; `a` as it is when the runs made other calls.
pub fn mark_varying(mut a: Vec<LoggedCall>, b: &[LoggedCall]) -> Vec<LoggedCall> {
    for (x, y) in a.iter_mut().zip(b) {
        if x.op != y.op || x.args != y.args {
            break;
        }
        if let (Some(rx), Some(ry)) = (&x.ret, &y.ret) {
            let number = |r: &LoggedRet| matches!(r, LoggedRet::Int(_) | LoggedRet::FloatBits(_));
            if rx != ry && number(rx) && number(ry) {
                x.ret = Some(LoggedRet::Varying);
            }
        }
    }
    a
}

/// One logged call: operation, arguments, and its return (`None`: the call did not return).
#[derive(Clone, Debug, PartialEq)]
pub struct LoggedCall {
    pub op: usize,
    pub args: Vec<LoggedArg>,
    pub ret: Option<LoggedRet>,
}

/// Parse a harness log (see module docs). Lines it cannot read end the log.
pub fn parse_log(text: &str) -> Vec<LoggedCall> {
    let mut out: Vec<LoggedCall> = Vec::new();
    for line in text.lines() {
        let mut w = line.split_whitespace();
        match w.next() {
            Some("call") => {
                let Some(op) = w.next().and_then(|x| x.parse().ok()) else {
                    break;
                };
                let args = w
                    .map(|a| {
                        if let Some(h) = a.strip_prefix('h') {
                            LoggedArg::Handle(h.parse().unwrap_or(0))
                        } else if let Some(x) = a.strip_prefix('x') {
                            LoggedArg::FloatBits(u64::from_str_radix(x, 16).unwrap_or(0))
                        } else if let Some(x) = a.strip_prefix('s') {
                            LoggedArg::Str(
                                (0..x.len() / 2)
                                    .filter_map(|i| {
                                        u8::from_str_radix(&x[2 * i..2 * i + 2], 16).ok()
                                    })
                                    .collect(),
                            )
                        } else if let Some(x) = a.strip_prefix('b') {
                            LoggedArg::Bytes(
                                (0..x.len() / 2)
                                    .filter_map(|i| {
                                        u8::from_str_radix(&x[2 * i..2 * i + 2], 16).ok()
                                    })
                                    .collect(),
                            )
                        } else if a == "o" {
                            LoggedArg::Out
                        } else {
                            LoggedArg::Int(a.parse().unwrap_or(0))
                        }
                    })
                    .collect();
                out.push(LoggedCall {
                    op,
                    args,
                    ret: None,
                });
            }
            Some("ret") => {
                let Some(last) = out.last_mut() else { break };
                last.ret = Some(match (w.next(), w.next()) {
                    (Some("i" | "u"), Some(v)) => LoggedRet::Int(v.parse().unwrap_or(0)),
                    (Some("f"), Some(v)) => {
                        LoggedRet::FloatBits(u64::from_str_radix(v, 16).unwrap_or(0))
                    }
                    (Some("h"), Some("-")) => LoggedRet::Handle(None),
                    (Some("h"), Some(v)) => LoggedRet::Handle(v.parse().ok()),
                    _ => LoggedRet::Void,
                });
            }
            _ => break,
        }
    }
    out
}

/// Run the harness `exe` on `input` alone, outside the fork server, with the call log on, and
/// read the log. A run that outlives `timeout` is killed (its log so far is kept); a call that
/// runs more than `call_events` branch events (0 = no limit) is stopped there, as in the search.
///
/// Errors: the harness cannot be started or the log not read.
pub fn replay(
    exe: &Path,
    input: &[u8],
    timeout: Duration,
    call_events: u32,
) -> Result<Vec<LoggedCall>> {
    let dir = tempfile::tempdir()?;
    let inp = dir.path().join("input");
    let log = dir.path().join("log");
    std::fs::write(&inp, input)?;
    let mut child = std::process::Command::new(exe)
        .arg(&inp)
        .env("EVOTEST_SEQ_LOG", &log)
        .env(
            evotest_abi::names::ENV_MAX_CALL_EVENTS,
            call_events.to_string(),
        )
        .stdin(std::process::Stdio::null())
        .stdout(std::process::Stdio::null())
        .stderr(std::process::Stdio::null())
        .spawn()
        .with_context(|| format!("cannot run {}", exe.display()))?;
    crate::util::wait_or_kill(&mut child, timeout, false)?;
    let text = std::fs::read_to_string(&log).unwrap_or_default();
    Ok(parse_log(&text))
}

/// C statements for the calls of one logged sequence; with `check`, each recorded return value
/// is asserted (named `name` in failures).
/// With `typed`, values are declared in the sources' own types (`tests.c` includes the source);
/// otherwise as `void *` against the harness's prototypes (several sources, linked).
fn statements(
    fe: &SequenceFrontend,
    calls: &[LoggedCall],
    name: &str,
    check: bool,
    typed: bool,
) -> String {
    let m = &fe.model;
    let mut s = String::new();
    let mut handle_c: Vec<(u32, String)> = Vec::new();
    for (ci, c) in calls.iter().enumerate() {
        let Some(op) = m.ops.get(c.op) else { break };
        // a call the log holds only in part (a sequence that damaged the heap, the log's own
        // writes among the damage) never ran as logged: the statements end before it (a call
        // with fewer arguments than parameters does not compile)
        if c.args.len() < op.params.len() {
            break;
        }
        let oc = &fe.c[c.op];
        let mut setup = String::new();
        let args: Vec<String> = op
            .params
            .iter()
            .zip(&c.args)
            .enumerate()
            .map(|(j, ((_, k), a))| match (k, a) {
                (_, LoggedArg::Handle(h)) => format!("v{h}"),
                (ArgKind::Scalar(t) | ArgKind::LengthOf(_, t), LoggedArg::Int(v)) => {
                    c_literal(*t, Value::Int(*v))
                }
                (ArgKind::Scalar(t), LoggedArg::FloatBits(b)) => {
                    let f = if *t == ScalarType::F32 {
                        f32::from_bits(*b as u32) as f64
                    } else {
                        f64::from_bits(*b)
                    };
                    c_literal(*t, Value::Float(f))
                }
                // a writable array, as the search's string was (a literal is read-only: a
                // function that writes into its string, `cJSON_Minify`, ended in SIGSEGV)
                (_, LoggedArg::Str(b)) => format!("(char[]){{{}}}", c_string(b)),
                // cast to the parameter's own type: `(signed char *)` passed to a `const char
                // *` warns (-Wpointer-sign) even without -Wall
                (ArgKind::Buffer(t), LoggedArg::Bytes(b)) if t.size() == 1 => {
                    let ty = match oc.params_c.get(j) {
                        Some(p) if typed => p.clone(),
                        _ => format!("{} *", t.c_name()),
                    };
                    format!("({ty})(char[]){{{}}}", c_string(b))
                }
                (ArgKind::Buffer(t), LoggedArg::Bytes(b)) => {
                    let vs: Vec<String> = crate::input::sequence::buffer_values(*t, b)
                        .into_iter()
                        .map(|v| c_literal(*t, v))
                        .collect();
                    if vs.is_empty() {
                        format!("({}[1]){{0}}", t.c_name())
                    } else {
                        format!("({}[]){{{}}}", t.c_name(), vs.join(", "))
                    }
                }
                (ArgKind::Scratch(t), _) => {
                    let _ = writeln!(
                        setup,
                        "    {} o{ci}_{j}[{SCRATCH_ELEMS}] = {{0}};",
                        t.c_name()
                    );
                    format!("o{ci}_{j}")
                }
                _ => "0".into(),
            })
            .collect();
        s.push_str(&setup);
        let call = match &oc.alloc {
            Some((ty, _)) if typed => format!("calloc(1, sizeof({ty}))"),
            Some((_, size)) => format!("calloc(1, {size})"),
            None => format!("{}({})", op.name, args.join(", ")),
        };
        match (&op.ret, &c.ret) {
            (OpReturn::Handle(_), Some(LoggedRet::Handle(Some(id)))) => {
                let _ = writeln!(
                    s,
                    "    {} = {call};",
                    declarator(if typed { &oc.ret_c } else { "void *" }, &format!("v{id}"))
                );
                handle_c.push((*id, oc.ret_c.clone()));
                if check {
                    let _ = writeln!(s, "    evotest_check_int(\"{name}\", v{id} != 0, 1);");
                } else {
                    // a value no later call of a crashing sequence uses (-Wunused-variable)
                    let _ = writeln!(s, "    (void)v{id};");
                }
            }
            (OpReturn::Handle(_), Some(LoggedRet::Handle(None))) if check => {
                // NULL, or a value already held, which the harness does not keep twice
                // (`SequenceModel`'s NULL returns): one of the earlier values of its type
                let same: Vec<String> = handle_c
                    .iter()
                    .filter(|(_, t)| *t == oc.ret_c)
                    .map(|(id, _)| format!(" || evotest_r == v{id}"))
                    .collect();
                if same.is_empty() {
                    let _ = writeln!(s, "    evotest_check_int(\"{name}\", {call} == 0, 1);");
                } else {
                    let r = declarator(if typed { &oc.ret_c } else { "void *" }, "evotest_r");
                    let _ = writeln!(s, "    {{ {r} = {call}; evotest_check_int(\"{name}\", evotest_r == 0{}, 1); }}", same.join(""));
                }
            }
            (OpReturn::Scalar(t), Some(LoggedRet::Int(v))) if check => {
                let (f, ty, lit) = if t.is_signed() || *t == ScalarType::Bool {
                    ("evotest_check_int", "long long", format!("{}LL", v))
                } else {
                    (
                        "evotest_check_uint",
                        "unsigned long long",
                        format!("{}ULL", v),
                    )
                };
                let lit = if *v == i64::MIN as i128 {
                    "(-9223372036854775807LL - 1)".to_string()
                } else {
                    lit
                };
                let _ = writeln!(s, "    {f}(\"{name}\", ({ty}){call}, {lit});");
            }
            (OpReturn::Scalar(ScalarType::F32), Some(LoggedRet::FloatBits(b))) if check => {
                let _ = writeln!(s, "    evotest_check_f32(\"{name}\", {call}, 0x{b:08x}u);");
            }
            (OpReturn::Scalar(_), Some(LoggedRet::FloatBits(b))) if check => {
                let _ = writeln!(
                    s,
                    "    evotest_check_f64(\"{name}\", {call}, 0x{b:016x}ull);"
                );
            }
            (_, Some(LoggedRet::Varying)) if check => {
                let _ = writeln!(
                    s,
                    "    {call}; /* its result differed between two runs: not compared */"
                );
            }
            _ => {
                let _ = writeln!(s, "    {call};");
            }
        }
    }
    if check {
        let _ = writeln!(s, "    evotest_passed++;");
    }
    s
}

/// Each test of an API suite runs in a child process: a sequence that damages the heap without
/// crashing (a library misused, a bug) must not fail the tests after it. A test passes when
/// every check in it does.
const ISOLATED: &str = r#"
static __attribute__((unused)) void evotest_isolated(const char *t, void (*fn)(void)) {
    fflush(stdout);
    pid_t p = fork();
    if (p < 0) { evotest_failures++; printf("FAIL %s: fork failed\n", t); return; }
    if (p == 0) {
        evotest_failures = 0;
        fn();
        evotest_child_exit(evotest_failures != 0); /* (the prelude's: flush, profile, _exit) */
    }
    int st = 0;
    waitpid(p, &st, 0);
    if (WIFEXITED(st) && WEXITSTATUS(st) == 0) { evotest_passed++; return; }
    evotest_failures++;
    if (WIFSIGNALED(st)) printf("FAIL %s: ended by signal %d\n", t, WTERMSIG(st));
}
"#;

/// `tests.c` of an API suite: each case replayed with the call log on ([`replay`]) and written
/// as straight-line calls; a case that ended normally asserts every recorded return (Pacheco's
/// regression tests), one that crashed, hung or exited runs in a child that must end the same
/// way.
pub fn render_tests(fe: &SequenceFrontend, file: &TestFile) -> String {
    let mut s = String::new();
    let _ = writeln!(
        s,
        "/* Tests generated by evotest {} for {}",
        env!("CARGO_PKG_VERSION"),
        fe.describe
    );
    for l in &file.header {
        let _ = writeln!(s, " * {}", crate::frontend::comment_text(l));
    }
    let dir = file.path.parent().unwrap_or(Path::new("."));
    // one source is included (its static functions and types are then at hand); several are
    // linked, called through prototypes (their private headers may not survive one unit)
    let typed = fe.sources.len() == 1;
    let mut cmd = vec![
        "clang-22".to_string(),
        "-o".into(),
        "tests".into(),
        file.path.display().to_string(),
    ];
    if !typed {
        cmd.extend(fe.sources.iter().map(|p| p.display().to_string()));
    }
    cmd.extend(fe.cflags.iter().cloned());
    cmd.push("-lm".into());
    let how = if typed {
        "It includes the source"
    } else {
        "It is linked with the sources"
    };
    let words: Vec<String> = cmd
        .iter()
        .map(|w| {
            shlex::try_quote(w)
                .map(|q| q.into_owned())
                .unwrap_or_else(|_| w.to_string())
        })
        .collect();
    let _ = writeln!(
        s,
        " *\n * {how}, without instrumentation. Build and run:\n *   {} && ./tests",
        words.join(" ")
    );
    let _ = writeln!(s, " *\n * Each test is a sequence of calls as the search ran it; returned values are compared exactly");
    let _ = writeln!(
        s,
        " * (floats bit-exactly), values of the handle types only for being NULL or not; other pointer\n * results (a `char *`) are not checked. */"
    );
    s.push_str(&crate::frontend::function::ctests::c_feature_macros(
        typed.then(|| fe.sources[0].as_path()),
    ));
    s.push_str(crate::frontend::function::shape::C_PROFILE_CRASHES);
    s.push_str(crate::frontend::function::ctests::PRELUDE);
    s.push_str(ISOLATED);
    if typed {
        let rel = crate::util::relative_path(dir, &fe.sources[0]);
        let _ = writeln!(
            s,
            "\n#define main {}\n#include \"{}\"\n#undef main",
            crate::frontend::function::ctests::ORIGINAL_MAIN,
            rel.display()
        );
    } else {
        let _ = write!(s, "\n{}", prototypes(fe));
    }
    s.push('\n');
    let mut names = Vec::new();
    for e in &file.cases {
        let (name, t): (&String, &TestCase) = (&e.name, e.case);
        // (under the search's limits, made once per input: the console's lists replay the
        // faults too)
        let calls = fe.logged(&t.input.bytes).unwrap_or_default();
        // the calls that returned NULL (the harness reports them; after a fault, the log says),
        // so that later calls name the values they really took
        let text = crate::frontend::Frontend::call_text(fe, &t.input, t.ret.as_ref());
        let _ = writeln!(
            s,
            "/* execution {}: {} */",
            t.exec,
            crate::frontend::comment_text(&text)
        );
        if !e.covers.is_empty() {
            let _ = writeln!(
                s,
                "/* covers: {} */",
                crate::frontend::comment_text(&e.covers.join(", "))
            );
        }
        match t.exit {
            ExitKind::Ok => {
                let _ = writeln!(
                    s,
                    "static void evotest_body_{name}(void) {{\n{}}}",
                    statements(fe, &calls, name, true, typed)
                );
                let _ = writeln!(s, "static void evotest_{name}(void) {{ evotest_isolated(\"{name}\", evotest_body_{name}); }}\n");
            }
            ExitKind::Stopped | ExitKind::StepLimit => continue,
            e => {
                let (k, v, what) =
                    crate::frontend::function::ctests::expectation(e, file.memory_limit);
                let last = calls
                    .last()
                    .map(|c| fe.model.ops[c.op].name.clone())
                    .unwrap_or_default();
                let _ = writeln!(
                    s,
                    "/* recorded: {what}{}{} */",
                    if last.is_empty() {
                        String::new()
                    } else {
                        format!(", in the call of {last}")
                    },
                    t.message
                        .as_ref()
                        .map(|m| format!(": {}", crate::frontend::comment_text(m)))
                        .unwrap_or_default()
                );
                let _ = writeln!(
                    s,
                    "static void evotest_run_{name}(void) {{\n{}}}",
                    statements(fe, &calls, name, false, typed)
                );
                let _ = writeln!(
                    s,
                    "static void evotest_{name}(void) {{ evotest_expect_fault(\"{name}\", evotest_run_{name}, {k}, {v}, {}, {}L, {}L); }}\n",
                    file.hang_seconds, file.memory_limit, file.file_limit
                );
            }
        }
        names.push(name.clone());
    }
    s.push_str("int main(void) {\n");
    for n in &names {
        let _ = writeln!(s, "    evotest_{n}();");
    }
    // `(printf)`: a source's `#define printf(...)` (logging compiled out) must not silence it
    s.push_str("    (printf)(\"%d passed, %d failed\\n\", evotest_passed, evotest_failures);\n    return evotest_failures != 0;\n}\n");
    s
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn logs_parse_into_calls_and_returns() {
        let log = "call 0 5\nret h 0\ncall 1 h0 x3ff0000000000000 s6162 o\nret i -3\ncall 2 h0\n";
        let c = parse_log(log);
        assert_eq!(c.len(), 3);
        assert_eq!(
            c[0],
            LoggedCall {
                op: 0,
                args: vec![LoggedArg::Int(5)],
                ret: Some(LoggedRet::Handle(Some(0)))
            }
        );
        assert_eq!(
            c[1].args,
            vec![
                LoggedArg::Handle(0),
                LoggedArg::FloatBits(1.0f64.to_bits()),
                LoggedArg::Str(b"ab".to_vec()),
                LoggedArg::Out
            ]
        );
        assert_eq!(c[1].ret, Some(LoggedRet::Int(-3)));
        assert_eq!(c[2].ret, None, "the call that did not return");
        assert_eq!(c_string(b"a\"\x01?"), "\"a\\\"\\001\\?\"");
    }

    #[test]
    fn numbers_that_differ_between_runs_are_marked() {
        let a = parse_log("call 0 5\nret h 0\ncall 1 h0\nret i 7\ncall 1 h0\nret i 9\n");
        let b = parse_log("call 0 5\nret h 0\ncall 1 h0\nret i 7\ncall 1 h0\nret i 4\n");
        let m = mark_varying(a.clone(), &b);
        assert_eq!(m[1].ret, Some(LoggedRet::Int(7)));
        assert_eq!(m[2].ret, Some(LoggedRet::Varying));
        // runs that made other calls are not compared
        let c = parse_log("call 0 6\nret h 0\ncall 1 h0\nret i 1\n");
        assert_eq!(mark_varying(a.clone(), &c), a);
    }
}
