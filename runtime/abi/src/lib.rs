//! The contract between the three parts of evotest.
//!
//! * The **pass** (`passes/`) inserts calls to the probe functions named in [`names`], and embeds
//!   the static metadata of [`meta`] in the object file.
//! * The **runtime** (`runtime/`) implements those probes and records, per execution, the shared
//!   memory laid out in [`shm`], computing branch distances with [`distance`].
//! * The **engine** (`src/`) reads the metadata back from the executable, maps the same shared
//!   memory, and turns it into fitness.
//!
//! Everything that two of those parts must agree on lives here and nowhere else: symbol names,
//! environment variables, file descriptors, the memory layout, and the predicate encoding.

pub mod distance;
pub mod meta;
pub mod pred;
pub mod shm;

/// Names of symbols, sections, environment variables and descriptors shared by pass, runtime
/// and engine.
pub mod names {
    /// `void (u32 *module, u32 site, u32 outcome_base, u32 pred, u64 a, u64 b)`: an integer
    /// compare (`icmp`) that decides a branch site. Operands are widened to 64 bits as
    /// [`crate::pred::Pred::int_operands_signed`] says. `pred` is the predicate in its low bits
    /// ([`crate::shm::OPERANDS_PRED_MASK`]), with [`crate::shm::OPERAND_A_CONST`] /
    /// [`crate::shm::OPERAND_B_CONST`] set for an operand that is an IR constant; the probe logs
    /// it as the operand record's `kind`.
    ///
    /// The pass calls this probe (and those of [`PROBE_CMP_FLOAT`], [`PROBE_COND`], the
    /// condition-only ones and [`PROBE_SWITCH`]) through an inline quiet path: it reads the
    /// site's record through [`crate::shm::ModuleDesc::recs`] and, when its `first_seq` has
    /// [`crate::shm::FIRST_SEQ_QUIET`] (a quiet site already evaluated in this execution), only
    /// adds one to its `hits` (saturating) instead of calling, which is what the probe's own
    /// quiet path did, less the branch-event count (`Header::seq`, which a quiet mark implies
    /// nobody limits or orders by beyond the order of first evaluations).
    ///
    /// At a site that is not quiet, the inline path then tests [`crate::shm::FLAG_LITE`] in
    /// `*`[`FLAGS`]: in a coverage-only execution it only counts the outcome taken in the lite
    /// map ([`crate::shm::ModuleDesc::lite`]), inline (the pass gives the wrapper the condition's
    /// truth as one more `i1` argument) or through the probe's lite variant (the probe's name and
    /// [`LITE_SUFFIX`], the probe's arguments).
    pub const PROBE_CMP_INT: &str = "__evotest_cmp_int";
    /// Suffix of the lite variant of each probe the pass calls through the inline quiet path
    /// (see [`PROBE_CMP_INT`]): `__evotest_cmp_int_lite`, …, with the probe's signature.
    pub const LITE_SUFFIX: &str = "_lite";
    /// `void (u32 *module, u32 site, u32 outcome_base, u32 pred, double a, double b)`: an `fcmp`
    /// (`pred` as for [`PROBE_CMP_INT`]).
    pub const PROBE_CMP_FLOAT: &str = "__evotest_cmp_float";
    /// `void (u32 *module, u32 site, u32 outcome_base, u32 value)`: a condition that is not a
    /// compare (a loaded `bool`, a call result); distance 0 or K.
    pub const PROBE_COND: &str = "__evotest_cond";
    /// `void (u32 *module, u32 site, u32 outcome_base, u64 value, u32 is_signed, u32 n_cases,
    /// const u64 *cases, const u32 *order)`: a `switch`; outcome 0 is the default, outcome i+1 is
    /// case i; `order` lists the case indices in ascending order of their values (for the probe's
    /// binary search, see [`crate::distance::relax_switch`]).
    pub const PROBE_SWITCH: &str = "__evotest_switch";
    /// `void (u32 *module, u32 site, u32 outcome_base, u32 pred, u32 func, const char *a,
    /// const char *b, u64 n)`: `strcmp(a, b)` (`func` = [`crate::distance::STR_STRCMP`]),
    /// `strncmp(a, b, n)`, `memcmp(a, b, n)`, `strcasecmp(a, b)` or `strncasecmp(a, b, n)`
    /// compared `==`/`!=` with 0 (`pred` is `eq` or `ne` of that compare), or `strstr(a, b)` or
    /// `strcasestr(a, b)` compared with NULL (`pred` `eq` when the true outcome means found; `n`
    /// the call's result); the distance is [`crate::distance::bytes_distance`] (case-folded:
    /// [`crate::distance::folded_distance`]; for a search [`crate::distance::substring_distance`]). The compared bytes
    /// of each site's first evaluation go to the string operand log ([`crate::shm::StrOperandRec`]).
    pub const PROBE_STR: &str = "__evotest_cmp_str";
    /// `void (u32 *module, u32 site, u32 outcome_base, u32 pred, u32 func, const u8 *a, u64 la,
    /// const u8 *b, u64 lb)`: a branch on Rust's equality (`==`, `!=`), `starts_with` or
    /// `ends_with` of two byte strings (`func`: [`crate::distance::bytes_func`]: the operation and
    /// how each operand is reached from its pointer and length); `pred` is `eq` when the branch's
    /// true outcome means the operation holds, `ne` when it means it does not. Distance and
    /// string operand log as [`PROBE_STR`], over the compared bytes.
    pub const PROBE_BYTES: &str = "__evotest_cmp_bytes";
    /// Condition-only variants of [`PROBE_CMP_INT`], [`PROBE_CMP_FLOAT`] and [`PROBE_COND`], for
    /// sites of kind [`crate::meta::SiteKind::Cond`]: same arguments and distances, but the call
    /// is not a branch event (it does not count towards `Header::seq` or the branch-event limit,
    /// and appends nothing to the ordered trace).
    pub const PROBE_CMP_INT_COND: &str = "__evotest_ccmp_int";
    /// See [`PROBE_CMP_INT_COND`].
    pub const PROBE_CMP_FLOAT_COND: &str = "__evotest_ccmp_float";
    /// See [`PROBE_CMP_INT_COND`].
    pub const PROBE_COND_COND: &str = "__evotest_ccond";
    /// `void (u32 *module, u32 site, u32 outcome_base, u32 pred, u64 a, u64 b, double flag)`:
    /// [`PROBE_CMP_INT`] for a compare of a flag with 0 (`f(x) != 0`, `!ok`, through casts: a
    /// call's result, or a local that holds one): when `flag` is not NaN, the outcome not taken
    /// gets it as its distance instead of the compare's own (0 or K for a flag of 0 or 1). The
    /// pass computes `flag` with [`FLAG_OF_IF_ON`] right after the call, or reads it from the
    /// local's shadow. The function-assigned flag of Wappler, Baresel & Wegener (2007), carried
    /// across the call.
    pub const PROBE_CMP_FLAG: &str = "__evotest_cmp_flag";
    /// `void (u32 *module, u32 site, u32 outcome_base, u32 value, double flag)`: [`PROBE_COND`]
    /// for a branch on a flag that is not compared (a call's `bool` result, its negation), with
    /// the flag distance of [`PROBE_CMP_FLAG`].
    pub const PROBE_COND_FLAG: &str = "__evotest_cond_flag";
    /// `double (const void *callee)`: the flag distance the return of `callee` just recorded
    /// ([`FRAME_RET`]), NaN when `callee` is no flag function or did not just return. Nothing
    /// runs between a call's return and the pass's call of this, so a record of the same
    /// function is that call's.
    pub const FLAG_OF: &str = "__evotest_flag_of";
    /// The internal, always-inlined function the pass puts in each module that tests flags:
    /// `double (const void *callee)`, [`FLAG_OF`] while `*`[`FLAGS`] has
    /// [`crate::shm::FLAG_RETURN_DISTANCES`], else NaN without a call.
    pub const FLAG_OF_IF_ON: &str = "__evotest_flag_of_if_on";
    /// `void (FlagFrame *frame, u32 pred, u64 a, u64 b, double flag)`: an integer compare
    /// evaluated in a flag function, a function whose result is a flag (an integer that only
    /// ever holds constants or a compare's truth value, computed without a loop). The runtime
    /// counts the evaluation in the function's frame ([`crate::shm::FlagFrame`], a local of the
    /// function, zeroed at its entry) and keeps the distance to the outcome not taken (`flag`,
    /// when not NaN: the compare tests a flag, see [`PROBE_CMP_FLAG`]). Called only while
    /// `*`[`FLAGS`] has [`crate::shm::FLAG_RETURN_DISTANCES`] (through the wrappers of
    /// [`FRAME_IF_ON`]).
    pub const FRAME_CMP_INT: &str = "__evotest_frame_icmp";
    /// `void (FlagFrame *frame, u32 pred, double a, double b)`: as [`FRAME_CMP_INT`], an `fcmp`.
    pub const FRAME_CMP_FLOAT: &str = "__evotest_frame_fcmp";
    /// `void (FlagFrame *frame, u64 value, u32 n, const u64 *cases)`: a `switch` in a flag
    /// function: the distance to leaving the outcome taken (K in a case; the nearest case's
    /// distance in the default).
    pub const FRAME_SWITCH: &str = "__evotest_frame_switch";
    /// `void (FlagFrame *frame, u32 value, double flag)`: a condition in a flag function that is
    /// not a compare of numbers (a compare of pointers, a branch on a flag, a call of a flag
    /// function): its distance is `flag` when not NaN, else K.
    pub const FRAME_COND: &str = "__evotest_frame_cond";
    /// `void (FlagFrame *frame, const void *function, u32 points)`: a flag function returns.
    /// The runtime records, for [`FLAG_OF`] at its caller, the flag distance of this return:
    /// (points − evaluated) + the distance to the last evaluated condition's other outcome,
    /// mapped onto (0, 1), `points` being the function's conditions
    /// ([`crate::distance::flag_distance`]).
    pub const FRAME_RET: &str = "__evotest_frame_ret";
    /// Prefix of the internal, always-inlined wrappers the pass puts in each module with flag
    /// functions, one per `FRAME_*` probe (the probe's name after it): each calls the probe only
    /// while `*`[`FLAGS`] has [`crate::shm::FLAG_RETURN_DISTANCES`].
    pub const FRAME_IF_ON: &str = "__evotest_if_on";
    /// `void (u32 *module, u32 def)`: a definition site executed (ordered trace only). The pass
    /// calls it only while `*`[`EVENTS_FLAG`] is not 0, testing that inline: definitions sit in
    /// the hottest loops (every loop counter), and without an ordered trace (fuzzing) the call
    /// would do nothing.
    pub const PROBE_DEF: &str = "__evotest_def";
    /// A pointer-sized global the runtime defines: the address of a `u32` that is not 0 while the
    /// ordered trace is on (`Header::events_enabled` of the attached trace map; a constant 0
    /// before one is attached).
    pub const EVENTS_FLAG: &str = "__evotest_events_flag";
    /// The internal, always-inlined function the pass puts in each module that has definition
    /// probes: `void (u32 *module, u32 def)`, which calls [`PROBE_DEF`] only while
    /// `*`[`EVENTS_FLAG`] is not 0.
    pub const DEF_IF_TRACING: &str = "__evotest_def_if_tracing";
    /// `void (u32 *module, const u8 *a, const u8 *b, u64 n)`: a call of a routine whose first
    /// two parameters are pointers and that returns a value (the program's own string compare:
    /// `sqlite3StrICmp`, `xmlStrEqual`, …; AFL++'s CmpLog "rtn" hook), with its first two
    /// arguments and, when its third parameter is an integer, that argument (`u64::MAX`
    /// otherwise). The runtime logs at most [`crate::shm::RTN_BYTES`] readable bytes of each in
    /// the string operand log (site [`crate::shm::RTN_SITE`]), only while
    /// [`crate::shm::FLAG_REPEATED_STR_OPERANDS`] is set. The pass calls it through
    /// [`RTN_IF_LOGGING`], which tests `*`[`FLAGS`] inline.
    pub const PROBE_RTN: &str = "__evotest_cmp_rtn";
    /// `void (u32 *module, u32 kind, u64 a, u64 b)`: a *loose* compare, an `icmp` on integers of 8
    /// to 64 bits or an `fcmp` that is no branch site's condition (a compare a function returns,
    /// stores or computes with), right after it: `kind` is the predicate with the constant
    /// operand bits ([`crate::shm::OPERAND_A_CONST`], …), [`crate::shm::OPERANDS_FLOAT`] for an
    /// `fcmp`, and the operands' width in bytes in [`crate::shm::OPERANDS_WIDTH_MASK`]; `a` and `b`
    /// are the operands widened to 64 bits as the predicate says (floats as `f64` bits). The
    /// runtime logs them as a record of site [`crate::shm::LOOSE_SITE`], only while
    /// [`crate::shm::FLAG_LOOSE_OPERANDS`] is set (the fuzzer's input-to-state stage on every
    /// compare). The pass calls it through [`LOOSE_IF_LOGGING`], which tests `*`[`FLAGS`] inline.
    pub const PROBE_LOOSE: &str = "__evotest_cmp_loose";
    /// The internal, always-inlined function the pass puts in each module with loose compares:
    /// [`PROBE_LOOSE`]'s type, calling it only while `*`[`FLAGS`] has
    /// [`crate::shm::FLAG_LOOSE_OPERANDS`] set.
    pub const LOOSE_IF_LOGGING: &str = "__evotest_loose_if_logging";
    /// A pointer-sized global the runtime defines: the address of the attached trace map's
    /// `Header::flags` (of a constant 0 before one is attached).
    pub const FLAGS: &str = "__evotest_flags";
    /// The internal, always-inlined function the pass puts in each module that calls routines
    /// [`PROBE_RTN`] is for: `void (u32 *module, const u8 *a, const u8 *b, u64 n)`, which calls
    /// it only while `*`[`FLAGS`] has [`crate::shm::FLAG_REPEATED_STR_OPERANDS`] set.
    pub const RTN_IF_LOGGING: &str = "__evotest_rtn_if_logging";
    /// `void (u32 *module)`: called from a module constructor; assigns the module's global site and
    /// outcome bases. See [`crate::shm::ModuleDesc`].
    pub const REGISTER_MODULE: &str = "__evotest_register_module";
    /// `void (const GlobalRange *ranges, u64 n)`: called from a module constructor with the
    /// module's mutable global variables (a [`crate::shm::GlobalRange`] each: address and size in
    /// bytes), so that a persistent child can restore them before each input
    /// ([`ENV_RESTORE_GLOBALS`]). Only restorable modules register (see
    /// [`crate::meta::ModuleMeta::globals_restorable`]).
    pub const REGISTER_GLOBALS: &str = "__evotest_register_globals";
    /// Name of the per-module descriptor global the pass creates.
    pub const MODULE_DESC: &str = "__evotest_module_desc";
    /// Name of the per-module constructor the pass creates.
    pub const MODULE_CTOR: &str = "__evotest_module_ctor";
    /// Constructor priority of the registration (lower runs earlier; SanitizerCoverage uses 2).
    pub const MODULE_CTOR_PRIORITY: u32 = 2;

    /// ELF section that holds one metadata blob per instrumented translation unit.
    pub const META_SECTION: &str = "evotest_meta";
    /// Name of the global that holds a module's metadata blob.
    pub const META_GLOBAL: &str = "__evotest_meta_blob";

    /// Environment variable carrying the System V shared-memory id (decimal) to the target.
    pub const ENV_SHM_ID: &str = "__EVOTEST_SHM_ID";
    /// Environment variable that, when `1`, makes the target run the fork server.
    pub const ENV_FORKSRV: &str = "__EVOTEST_FORKSRV";
    /// Pass option: name of a function whose linkage is made external, so that a generated
    /// harness can call a `static` function.
    pub const ENV_PASS_EXPOSE: &str = "EVOTEST_EXPOSE";
    /// Pass option: when `1`, the pass renames `main` to [`RENAMED_MAIN`] so that a generated
    /// harness can provide its own.
    pub const ENV_PASS_RENAME_MAIN: &str = "EVOTEST_RENAME_MAIN";
    /// The suffix of a function's coverage-only clone (`f.evotest_lite`, see the pass's
    /// `lite.rs`): crash stacks are folded back to the original's name.
    pub const LITE_CLONE_SUFFIX: &str = ".evotest_lite";
    /// Pass option: when `0`, the pass gives no function a coverage-only clone (the clones are
    /// on by default).
    pub const ENV_PASS_LITE_CLONES: &str = "EVOTEST_LITE_CLONES";
    /// Pass option: when `0`, the clones count their branches' outcomes with inline counters
    /// placed before optimisation, not through marks made counters after it (the marks are on
    /// by default; for measuring what they buy).
    pub const ENV_PASS_LITE_MARKS: &str = "EVOTEST_LITE_MARKS";
    /// The coverage-only mark of a clone's two-outcome branch or select: `h = mark(&desc->lite,
    /// outcome_base, holds)`, made the count of the outcome taken after optimisation (the pass's
    /// shim), with the runtime's definition as a fallback for a pipeline that does not lower it.
    pub const LITE_MARK: &str = "__evotest_lite_mark";
    /// The metadata kind the pass puts on the probe of a `br` or `select` site, which stands
    /// right before it: in a coverage-only clone, that probe's count becomes a mark on the
    /// site's condition ([`LITE_MARK`]).
    pub const LITE_BRANCH_MD: &str = "evotest.branch";
    /// What `main` is renamed to under [`ENV_PASS_RENAME_MAIN`].
    pub const RENAMED_MAIN: &str = "__evotest_target_main";

    /// Fork-server control pipe (engine → target), as in AFL (`FORKSRV_FD`).
    pub const FORKSRV_CTL_FD: i32 = 198;
    /// Fork-server status pipe (target → engine), `FORKSRV_FD + 1`.
    pub const FORKSRV_ST_FD: i32 = 199;
    /// Hello word the fork server writes first: `"EVOT"` little-endian, xor the layout version.
    pub const FORKSRV_HELLO: u32 = 0x544f_5645 ^ crate::shm::LAYOUT_VERSION;
    /// Hello word of a server that will not fork ([`FORKSRV_HELLO`] with its top bit flipped, so
    /// that it is no other layout version's hello),
    /// followed by a word with the number of threads the process had: a process with more than
    /// one thread before its first input (a harness whose `LLVMFuzzerInitialize` or a constructor
    /// started a thread pool) would lose all of them but the forking one in every child, so the
    /// server runs the inputs itself. For each request it reports its own pid, then runs the input
    /// as a child would (a persistent one keeps answering [`FORKSRV_DONE`]); a crash, exit or
    /// timeout ends the process, whose status the engine takes from its own `waitpid`, and the
    /// engine starts a new one for the next input.
    pub const FORKSRV_HELLO_NOFORK: u32 = FORKSRV_HELLO ^ (1 << 31);
    /// Word a persistent child writes on the status pipe after each input it ran to the end. A
    /// `waitpid` status never takes this value, so the engine tells the two apart.
    pub const FORKSRV_DONE: u32 = 0xffff_fffe;
    /// Environment variable that, when `1`, makes forked children persistent: each runs inputs
    /// in a loop (reading a request on the control pipe before each one after the first, and
    /// writing [`FORKSRV_DONE`] after each) until killed.
    pub const ENV_PERSISTENT: &str = "__EVOTEST_PERSISTENT";
    /// Environment variable that, when `1` (with [`ENV_PERSISTENT`]), makes a persistent child
    /// copy the registered global variables ([`REGISTER_GLOBALS`]) before its first input and
    /// write the copy back before each later one, so that every input starts from the globals'
    /// initial values, as in a fresh process.
    pub const ENV_RESTORE_GLOBALS: &str = "__EVOTEST_RESTORE_GLOBALS";
    /// Environment variable that gives a target run by hand (no engine, a private trace map)
    /// the per-call branch-event limit of an API call sequence (`Header::max_call_events`; a
    /// decimal number, 0 or absent = none): the replays that write `tests.c` stop a call that
    /// never ends as the search did, not at the timeout.
    pub const ENV_MAX_CALL_EVENTS: &str = "__EVOTEST_MAX_CALL_EVENTS";
    /// Environment variable (set to anything) that keeps the full probes in a target run by
    /// hand, whose executions are otherwise coverage-only (`FLAG_LITE` on its private map).
    pub const ENV_FULL_PROBES: &str = "EVOTEST_FULL_PROBES";
    /// Environment variable naming the observer mode's log (peer fuzzers that run an
    /// evotest-built target in-process): each input that covers an outcome first.
    pub const ENV_OBSERVE_LOG: &str = "EVOTEST_OBSERVE_LOG";
    /// Environment variable that makes a whole program (one with its own `main`, built with
    /// `evotest-cc`) run the fork server from a constructor of the runtime, before `main`; each
    /// forked child gets the input and goes on into `main`. Its value says where the input goes:
    /// [`PROGRAM_INPUT_STDIN`] (the child's standard input), or the path of a file that the child
    /// writes before `main` runs (the file AFL++'s `@@` names on the command line).
    pub const ENV_PROGRAM_INPUT: &str = "__EVOTEST_PROGRAM_INPUT";
    /// [`ENV_PROGRAM_INPUT`] value: the input is the child's standard input.
    pub const PROGRAM_INPUT_STDIN: &str = "-";
    /// Environment variable that, when `1`, makes fork-server children print the stack of a deadly
    /// signal (`SIGSEGV`, `SIGBUS`, `SIGFPE`, `SIGILL`, `SIGABRT`, `SIGTRAP`) on standard error,
    /// in the sanitizers' format (`#N 0xPC (module+0xOFFSET)`), before dying by the same signal.
    /// A signal a sanitizer already handles is left to it.
    pub const ENV_CRASH_STACKS: &str = "__EVOTEST_CRASH_STACKS";
    /// Line that starts the stack printed under [`ENV_CRASH_STACKS`]: `==PID==ERROR: evotest:
    /// deadly signal N`.
    pub const CRASH_STACK_BANNER: &str = "ERROR: evotest: deadly signal";
    /// Symbol defined by evotest's libFuzzer-compatible driver (`libevotest_driver.a`): an
    /// executable that has it runs `LLVMFuzzerTestOneInput` in persistent mode under the engine.
    pub const DRIVER_MARKER: &str = "__evotest_fuzz_driver";
    /// Environment variable naming the in-process engine (`libevotest_inprocess.so`): evotest's
    /// driver then loads it and hands it `LLVMFuzzerTestOneInput`, instead of running the fork
    /// server (`evotest fuzz --in_process`, libFuzzer's model: one process, the harness called
    /// in a loop).
    pub const ENV_IN_PROCESS: &str = "__EVOTEST_IN_PROCESS";
    /// Environment variable naming the in-process worker's job file (JSON, written by the
    /// supervisor: the fuzzing options, the budget left, the input that ended the last worker).
    pub const ENV_IN_PROCESS_JOB: &str = "__EVOTEST_IN_PROCESS_JOB";
    /// The in-process engine's entry point: `int f(int (*test_one_input)(const uint8_t *, size_t),
    /// void (*ret)(uint32_t, uint64_t))`, returning the process's exit status.
    pub const IN_PROCESS_MAIN: &str = "__evotest_in_process_main";
}

/// Branch distance constant K of Korel (1990) and Tracey et al. (1998); this crate uses K = 1.
pub const K: f64 = 1.0;

/// The largest distance, reported when an outcome cannot be reached by changing operand values
/// (a NaN operand for an ordered predicate; a constant-false `fcmp false`). Chosen finite so that
/// the normalisation d/(d+1) gives exactly 1.0 instead of NaN.
pub const D_MAX: f64 = f64::MAX;

/// Rust's legacy symbol mangling, shared by the pass (condition texts) and the engine (crash
/// stacks as `llvm-symbolizer` prints them).
pub mod rust_names {
    /// One path segment of a legacy-mangled Rust symbol, decoded as rustc's demangler does: the
    /// `$…$` escapes (`$LT$` `<`, `$u20$` ` `, …), `..` as `::`, and a leading `_` before an
    /// escape dropped (`_$LT$impl$u20$f32$GT$` → `<impl f32>`). A segment with an escape it does
    /// not know is returned as it is.
    pub fn unescape_legacy(segment: &str) -> String {
        let s = segment
            .strip_prefix('_')
            .filter(|r| r.starts_with('$'))
            .unwrap_or(segment);
        let mut out = String::new();
        let mut r = s;
        while !r.is_empty() {
            if let Some(after) = r.strip_prefix('$') {
                if let Some(end) = after.find('$') {
                    let code = &after[..end];
                    let c = match code {
                        "SP" => '@',
                        "BP" => '*',
                        "RF" => '&',
                        "LT" => '<',
                        "GT" => '>',
                        "LP" => '(',
                        "RP" => ')',
                        "C" => ',',
                        _ => match code
                            .strip_prefix('u')
                            .and_then(|h| u32::from_str_radix(h, 16).ok())
                            .and_then(char::from_u32)
                        {
                            Some(c) => c,
                            None => return segment.to_string(),
                        },
                    };
                    out.push(c);
                    r = &after[end + 1..];
                    continue;
                }
            }
            if let Some(after) = r.strip_prefix("..") {
                out.push_str("::");
                r = after;
                continue;
            }
            let c = r.chars().next().unwrap_or(' ');
            out.push(c);
            r = &r[c.len_utf8()..];
        }
        out
    }
}

/// Path markers of Rust library sources: std, core and alloc as rustc records them (`/rustc/<hash>/…`
/// when remapped, `…/lib/rustlib/src/…` from the `rust-src` component), the toolchains rustup
/// installs, and the crates cargo downloads (registry and git dependencies, under any
/// `CARGO_HOME`).
const RUST_LIBRARY_MARKERS: &[&str] = &[
    "/lib/rustlib/",
    "/.rustup/",
    "/cargo/registry/src/",
    "/.cargo/registry/",
    "/cargo/git/checkouts/",
    "/.cargo/git/",
];

/// Directory prefixes of C and C++ system headers and the headers of installed libraries:
/// libc's, the compilers' (`/usr/lib/gcc/…/include`, `/usr/lib/llvm-N/…`), libstdc++'s and
/// libc++'s.
const SYSTEM_PREFIXES: &[&str] = &[
    "/usr/include/",
    "/usr/lib/",
    "/usr/lib64/",
    "/usr/local/include/",
];

/// Whether source file `file` (as debug info records it) is library code rather than the user's
/// project: Rust's std/core/alloc (`/rustc/…`, a toolchain's `lib/rustlib`, `.rustup/`), crates
/// from the cargo registry or git checkouts, and C/C++ system headers (`/usr/include`,
/// `/usr/lib`, `/usr/local/include`). Relative paths (how rustc and clang record the files of
/// the crate or directory they compile) and everything else are the user's. `evotest run`
/// leaves such functions out of its goals, `evotest fuzz` their branches out of the guidance's
/// frontier (`fuzz::scope`), and the pass the string literals they pass out of the pools. In
/// the ABI crate so that the pass and the engine draw the same line.
pub fn is_library_file(file: &str) -> bool {
    file.starts_with("/rustc/")
        || RUST_LIBRARY_MARKERS.iter().any(|m| file.contains(m))
        || SYSTEM_PREFIXES.iter().any(|p| file.starts_with(p))
}
