//! Crash triage: parse what a crashing execution wrote on standard error (an AddressSanitizer or
//! UndefinedBehaviorSanitizer report, or the stack evotest's runtime prints for a deadly signal),
//! symbolise its frames with `llvm-symbolizer`, and de-duplicate crashes by their kind and their
//! top three symbolised frames (sanitizer, runtime and `abort` frames skipped), as ClusterFuzz
//! and the benchmark's libFuzzer runs do.
//!
//! Sanitizers run with `symbolize=0` (symbolising in the crashing process costs tenths of a
//! second per crash); the engine symbolises each new stack once. Two executions with the same
//! **raw stack** (kind and the first frames' module offsets) are the same crash without any
//! symbolisation: that is what crash minimisation compares.
//!
//! Unique crashes are recorded in a directory shared by every worker on a corpus (`crashes/` in
//! the corpus's state directory): one JSON file per signature, created without clobbering, so
//! that two workers (or a rerun after `kill -9`) never report the same crash twice.

use crate::exec::ExitKind;
use crate::util::write_atomic;
use anyhow::{Context, Result};
use evotest_abi::names::CRASH_STACK_BANNER;
use serde::{Deserialize, Serialize};
use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};

/// [`Report::kind`] of a LeakSanitizer report (libFuzzer's `-detect_leaks`).
pub const LEAK_KIND: &str = "memory-leak";

/// Frames of the raw stack compared by [`Report::raw_key`].
const RAW_FRAMES: usize = 6;
/// Symbolised frames in a signature.
const SIGNATURE_FRAMES: usize = 3;

/// One stack frame of a report.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct Frame {
    /// The program counter as printed.
    pub pc: u64,
    /// The module (executable or shared library) and the offset of `pc` in it, when printed.
    pub module: Option<String>,
    pub offset: Option<u64>,
    /// Function and `file:line:col`, when printed symbolised or after [`Symbolizer::symbolize`].
    pub function: Option<String>,
    pub location: Option<String>,
}

impl Frame {
    /// `func file:line:col`, or `module+0xOFF`, or the pc.
    pub fn describe(&self) -> String {
        match (&self.function, &self.location, &self.module, self.offset) {
            (Some(f), Some(l), _, _) => format!("{f} {l}"),
            (Some(f), None, _, _) => f.clone(),
            (None, _, Some(m), Some(o)) => format!("{}+{o:#x}", basename(m)),
            _ => format!("{:#x}", self.pc),
        }
    }

    /// Whether this frame belongs to a sanitizer, evotest's runtime or driver, or the C library's
    /// abort path: not where a bug is.
    pub fn is_noise(&self) -> bool {
        let Some(f) = &self.function else {
            // an unnamed frame of the C library or the loader (internals of abort or a signal),
            // or of the C++ run-time's throw and terminate machinery (an uncaught exception's
            // stack starts with several: they would make every uncaught exception one crash)
            let m = self.module.as_deref().map(basename).unwrap_or("");
            return [
                "libc.so",
                "libc-",
                "libpthread",
                "ld-linux",
                "libstdc++",
                "libc++",
                "libgcc_s",
            ]
            .iter()
            .any(|p| m.starts_with(p));
        };
        const PREFIXES: &[&str] = &[
            "__asan",
            "__ubsan",
            "__msan",
            "__lsan",
            "__sanitizer",
            "__interceptor_",
            "___interceptor_",
            "__interception",
            "__evotest",
            "evotest_rt::",
            "__GI_",
            "__libc_message",
            "__assert_fail",
            "__fortify_fail",
            "__chk_fail",
            "__stack_chk_fail",
            "__pthread_kill",
            "__restore_rt",
            "__cxa_throw",
            "std::__terminate",
        ];
        // and the allocator's entry points, the first frames of a leak's allocation stack
        const EXACT: &[&str] = &[
            "abort",
            "raise",
            "gsignal",
            "pthread_kill",
            "backtrace",
            "__assert_fail_base",
            "_Unwind_Backtrace",
            "malloc",
            "calloc",
            "realloc",
            "strdup",
            "strndup",
            "operator new(unsigned long)",
            "operator new[](unsigned long)",
        ];
        // Rust's panic and abort machinery (std, core, alloc, the compiler's panic entry points,
        // libfuzzer-sys's aborting panic hook): every Rust panic goes through it
        const RUST: &[&str] = &[
            "std::",
            "core::",
            "alloc::",
            "<std::",
            "<core::",
            "<alloc::",
            "__rustc::",
            "rust_panic",
            "rust_begin_unwind",
            "libfuzzer_sys::initialize",
            "libfuzzer_sys::RUST_LIBFUZZER_DEBUG_PATH",
            "__rust_",
        ];
        PREFIXES.iter().any(|p| f.starts_with(p))
            || RUST.iter().any(|p| f.starts_with(p))
            || self
                .location
                .as_deref()
                .is_some_and(|l| l.starts_with("/rustc/"))
            || EXACT.contains(&f.as_str())
            || f.contains("crash_stacks::deadly")
            || f.starts_with("__sanitizer::")
            || f.starts_with("__asan::")
            || f.starts_with("__ubsan::")
    }
}

fn basename(p: &str) -> &str {
    p.rsplit('/').next().unwrap_or(p)
}

/// `beh.c:35` of a frame's location `dir/beh.c:35:42` (or `beh.c:35`); `None` for line 0 (an
/// optimised build's merged calls) or a location without a line.
fn file_line(location: &str) -> Option<String> {
    let parts: Vec<&str> = location.rsplitn(3, ':').collect();
    let num = |s: &str| s.parse::<u32>().ok();
    let (file, line) = match parts.as_slice() {
        [col, line, file] if num(col).is_some() && num(line).is_some() => (*file, num(line)?),
        [line, _, ..] if num(line).is_some() => (location.rsplit_once(':')?.0, num(line)?),
        _ => return None,
    };
    (line > 0).then(|| format!("{}:{line}", basename(file)))
}

/// What a crash report says.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct Report {
    /// `heap-buffer-overflow`, `SEGV`, `undefined-behavior`, `SIGABRT`, `timeout`, …
    pub kind: String,
    /// The sanitizer that reported it (`AddressSanitizer`, …), if one did.
    pub sanitizer: Option<String>,
    /// Where the program itself said it failed, exact even without symbols: UBSan's `runtime
    /// error`, a Rust panic's `file:line:col` or a C `assert`'s `file:line`. Part of the
    /// signature, so that two panics or assertions in one function are two crashes.
    pub location: Option<String>,
    /// What the program said when it failed: a Rust panic's message, a C assertion's text.
    pub message: Option<String>,
    /// The stack of the report, innermost first.
    pub frames: Vec<Frame>,
    /// The report's lines (from the line that starts it; at most 100).
    pub text: String,
}

/// The name of a deadly signal: `SIGSEGV` …
pub fn signal_kind(sig: i32) -> String {
    match crate::exec::signal_name(sig) {
        "signal" => format!("signal {sig}"),
        n => n.to_string(),
    }
}

/// Parse one frame line: `#N 0xPC [in FUNC [LOCATION]] [(MODULE+0xOFF)] [(BuildId: …)]`.
pub fn parse_frame(line: &str) -> Option<(usize, Frame)> {
    let l = line.trim_start();
    let rest = l.strip_prefix('#')?;
    let digits: String = rest.chars().take_while(|c| c.is_ascii_digit()).collect();
    if digits.is_empty() {
        return None;
    }
    let n: usize = digits.parse().ok()?;
    let rest = rest[digits.len()..].trim_start();
    let rest = rest.strip_prefix("0x")?;
    let hex: String = rest.chars().take_while(|c| c.is_ascii_hexdigit()).collect();
    let pc = u64::from_str_radix(&hex, 16).ok()?;
    let mut rest = rest[hex.len()..].trim().to_string();
    if let Some(i) = rest.find(" (BuildId:") {
        rest.truncate(i);
    } else if rest.starts_with("(BuildId:") {
        rest.clear();
    }
    let mut f = Frame {
        pc,
        ..Default::default()
    };
    // a trailing (MODULE+0xOFF)
    if rest.ends_with(')') {
        if let Some(open) = rest.rfind('(') {
            let inner = &rest[open + 1..rest.len() - 1];
            if let Some((m, off)) = inner.rsplit_once("+0x") {
                if let Ok(o) = u64::from_str_radix(off, 16) {
                    f.module = Some(m.to_string());
                    f.offset = Some(o);
                    rest = rest[..open].trim().to_string();
                }
            }
        }
    }
    if let Some(sym) = rest.strip_prefix("in ") {
        // `func file:line:col`: the location is the last word when it has a ':' or '/'
        let sym = sym.trim();
        match sym.rsplit_once(' ') {
            Some((func, loc)) if loc.contains(':') || loc.contains('/') => {
                f.function = Some(tidy_rust_name(func.trim()));
                f.location = Some(loc.to_string());
            }
            _ => f.function = Some(tidy_rust_name(sym)),
        }
    }
    Some((n, f))
}

/// The sanitizers linked into executable `exe`, by the names their reports give
/// (`AddressSanitizer` and its `LeakSanitizer`, `UndefinedBehaviorSanitizer`, `MemorySanitizer`,
/// `ThreadSanitizer`), from its symbols (`__asan_init`, `__ubsan_handle_…`, …). `None` when it
/// has no symbol table to tell (stripped: a statically linked UBSan runtime exports nothing, so
/// the dynamic symbols alone would not show it), or is not readable as an object file.
pub fn linked_sanitizers(exe: &Path) -> Option<Vec<&'static str>> {
    use object::{Object, ObjectSymbol};
    let data = std::fs::read(exe).ok()?;
    let file = object::File::parse(&*data).ok()?;
    // a symbol table, or nothing to tell
    file.symbols().next()?;
    let mut found = Vec::new();
    for sym in file.symbols().chain(file.dynamic_symbols()) {
        // a weak reference only asks whether it is there (the driver's own
        // `__lsan_do_recoverable_leak_check`): no sanitizer by itself
        if sym.is_undefined() && sym.is_weak() {
            continue;
        }
        let Ok(name) = sym.name() else { continue };
        let hit: &[&'static str] = if name.starts_with("__asan_") {
            &["AddressSanitizer", "LeakSanitizer"]
        } else if name.starts_with("__lsan_") {
            &["LeakSanitizer"]
        } else if name.starts_with("__ubsan_") {
            &["UndefinedBehaviorSanitizer"]
        } else if name.starts_with("__msan_") {
            &["MemorySanitizer"]
        } else if name.starts_with("__tsan_") {
            &["ThreadSanitizer"]
        } else {
            &[]
        };
        for h in hit {
            if !found.contains(h) {
                found.push(*h);
            }
        }
    }
    Some(found)
}

/// The tool and kind a report's `SUMMARY:` line names (`SUMMARY: AddressSanitizer:
/// heap-buffer-overflow (/x/h+0x12) …` gives `("AddressSanitizer", "heap-buffer-overflow")`), or
/// `None` for any other line.
pub fn summary(line: &str) -> Option<(&str, &str)> {
    let (tool, what) = line.strip_prefix("SUMMARY: ")?.split_once(": ")?;
    Some((tool, what.split_whitespace().next()?))
}

/// The process id a sanitizer's or evotest's report line starts with (`==1234==ERROR: …`).
fn report_pid(line: &str) -> Option<u32> {
    let rest = line.trim_start().strip_prefix("==")?;
    let (pid, _) = rest.split_once("==")?;
    pid.parse().ok()
}

/// Parse the standard error of an execution that ended with `exit`.
pub fn parse(stderr: &[u8], exit: ExitKind) -> Report {
    let text = String::from_utf8_lossy(stderr);
    let lines: Vec<&str> = text.lines().collect();
    let mut r = Report {
        kind: fallback_kind(exit),
        ..Default::default()
    };
    // where the report starts: the first of the process that wrote the last one (a harness
    // whose forked child crashed, a crash it handled, and that then died of its own bug wrote
    // the child's report first), or the first of all when the last names no process
    let starts: Vec<usize> = lines
        .iter()
        .enumerate()
        .filter(|(_, l)| {
            l.contains("ERROR: AddressSanitizer")
                || l.contains("ERROR: MemorySanitizer")
                || l.contains("ERROR: LeakSanitizer")
                || l.contains("ERROR: UndefinedBehaviorSanitizer")
                || l.contains("WARNING: ThreadSanitizer")
                || l.contains(": runtime error: ")
                || l.contains(CRASH_STACK_BANNER)
        })
        .map(|(i, _)| i)
        .collect();
    let start = match starts.last().and_then(|&i| report_pid(lines[i])) {
        Some(pid) => starts
            .iter()
            .copied()
            .find(|&i| report_pid(lines[i]) == Some(pid)),
        None => starts.first().copied(),
    };
    if let Some((location, message)) = abort_message(&lines) {
        r.location = Some(location).filter(|l| !l.is_empty());
        r.message = Some(message);
    }
    let Some(start) = start else { return r };
    let first = lines[start];
    if let Some(i) = first.find(CRASH_STACK_BANNER) {
        let sig: i32 = first[i + CRASH_STACK_BANNER.len()..]
            .trim()
            .parse()
            .unwrap_or(0);
        r.kind = signal_kind(sig);
    } else if let Some(i) = first.find(": runtime error: ") {
        r.sanitizer = Some("UndefinedBehaviorSanitizer".into());
        r.kind = "undefined-behavior".into();
        r.location = Some(first[..i].trim().to_string());
    } else if let Some(i) = first.find("ERROR: ") {
        let after = &first[i + 7..];
        if let Some((san, what)) = after.split_once(": ") {
            r.sanitizer = Some(san.trim().to_string());
            r.kind = if san.trim() == "LeakSanitizer" {
                LEAK_KIND.to_string()
            } else {
                what.split_whitespace()
                    .next()
                    .unwrap_or("error")
                    .to_string()
            };
        }
    }
    // the SUMMARY line names the kind best (`allocation-size-too-big`, `heap-buffer-overflow`)
    if let Some((_, k)) = lines[start..].iter().find_map(|l| summary(l)) {
        if !matches!(
            r.sanitizer.as_deref(),
            Some("UndefinedBehaviorSanitizer" | "LeakSanitizer")
        ) {
            r.kind = k.to_string();
        }
    }
    // the first stack after the start
    let mut seen = false;
    for l in &lines[start + 1..] {
        match parse_frame(l) {
            Some((n, f)) => {
                if n == 0 && seen {
                    break;
                }
                seen = true;
                r.frames.push(f);
            }
            None if seen => break,
            None => {}
        }
    }
    r.text = lines[start..]
        .iter()
        .take(100)
        .copied()
        .collect::<Vec<_>>()
        .join("\n");
    r.fold_clones();
    r
}

/// A function name as `llvm-symbolizer --demangle` prints a Rust symbol of the legacy mangling
/// (`panicky::run::h3afc3b6064630f03`, `_$LT$usize$u20$as$u20$core..fmt..Debug$GT$::fmt`),
/// finished as rustc's demangler would: the hash suffix dropped and the `$…$` escapes and `..`
/// decoded (`<usize as core::fmt::Debug>::fmt`). Other names are returned as they are.
pub fn tidy_rust_name(name: &str) -> String {
    let mut n = name;
    // the hash: `::h` and 16 hex digits at the end
    if let Some(i) = n.rfind("::h") {
        let h = &n[i + 3..];
        if h.len() == 16 && h.bytes().all(|b| b.is_ascii_hexdigit()) {
            n = &n[..i];
        }
    }
    if !n.contains('$') {
        return n.to_string();
    }
    n.split("::")
        .map(evotest_abi::rust_names::unescape_legacy)
        .collect::<Vec<_>>()
        .join("::")
}

/// The location and message of the first Rust panic (`thread 'x' panicked at FILE:L:C:` with
/// the message on the next line, or before Rust 1.73 `panicked at 'MSG', FILE:L:C`) or C
/// assertion (glibc's `PROG: FILE:LINE: FUNC: Assertion `EXPR' failed.`) or uncaught C++
/// exception (libstdc++'s `terminate called after throwing …` and `what():`, or libc++abi's
/// line; no location: an empty string) in `lines`.
fn abort_message(lines: &[&str]) -> Option<(String, String)> {
    for (i, l) in lines.iter().enumerate() {
        if let Some(at) = l.find("panicked at ") {
            let rest = l[at + "panicked at ".len()..].trim_end();
            if let Some(old) = rest.strip_prefix('\'') {
                // 'MSG', FILE:L:C
                if let Some((msg, loc)) = old.rsplit_once("', ") {
                    return Some((loc.to_string(), msg.to_string()));
                }
            }
            let loc = rest.strip_suffix(':').unwrap_or(rest).to_string();
            let msg = lines
                .get(i + 1)
                .map(|m| m.trim().to_string())
                .unwrap_or_default();
            return Some((loc, msg));
        }
        // an uncaught C++ exception: libstdc++'s two lines, or libc++abi's one
        if let Some(rest) = l.strip_prefix("terminate called after throwing an instance of ") {
            let what = lines
                .get(i + 1)
                .and_then(|w| w.trim().strip_prefix("what():"))
                .map(|w| format!(": {}", w.trim()))
                .unwrap_or_default();
            return Some((
                String::new(),
                format!("uncaught exception {}{what}", rest.trim()),
            ));
        }
        if let Some(rest) =
            l.strip_prefix("libc++abi: terminating due to uncaught exception of type ")
        {
            return Some((String::new(), format!("uncaught exception {}", rest.trim())));
        }
        if let (Some(a), true) = (l.find(": Assertion `"), l.ends_with("' failed.")) {
            // PROG: FILE:LINE: FUNC: Assertion …: FILE:LINE is the second field
            let mut fields = l[..a].splitn(3, ": ");
            let (_, file_line) = (fields.next(), fields.next());
            if let Some(fl) = file_line {
                return Some((fl.to_string(), l[a + 2..].to_string()));
            }
        }
    }
    None
}

/// What the target said about a fault, in one line for a console or a test's comment: an
/// assertion's or a Rust panic's `LOCATION: MESSAGE`, an uncaught C++ exception's type and
/// `what()`, or a sanitizer's `SUMMARY` (its kind and where). `None` when `stderr` has none of
/// these (a plain `SIGSEGV`, a target that printed nothing).
pub fn one_line(stderr: &[u8], exit: ExitKind) -> Option<String> {
    let r = parse(stderr, exit);
    if let Some(m) = &r.message {
        return Some(match &r.location {
            Some(l) => format!("{l}: {m}"),
            None => m.clone(),
        });
    }
    let text = String::from_utf8_lossy(stderr);
    text.lines()
        .find_map(|l| l.strip_prefix("SUMMARY: "))
        .map(|s| s.trim().to_string())
        .or_else(|| {
            // UndefinedBehaviorSanitizer without a summary line: FILE:L:C: runtime error: …
            text.lines()
                .find(|l| l.contains(": runtime error: "))
                .map(|l| l.trim().to_string())
        })
        .or_else(|| {
            // the function-level harness's guard check (SIGABRT): which parameter was overrun
            use crate::frontend::function::shape::GUARD_OVERRUN;
            text.lines()
                .find_map(|l| l.strip_prefix(GUARD_OVERRUN))
                .map(|m| format!("the function wrote past {}", m.trim()))
        })
}

/// The kind of a crash without a report.
fn fallback_kind(exit: ExitKind) -> String {
    match exit {
        ExitKind::Crash { signal } => signal_kind(signal),
        ExitKind::Exit { code } => format!("exit({code})"),
        other => other.name().to_string(),
    }
}

impl Report {
    /// Kind and the first frames' module offsets (or pcs): equal for two executions of one binary
    /// that crashed the same way at the same place, without symbols.
    pub fn raw_key(&self) -> String {
        let mut k = self.kind.clone();
        if let Some(l) = &self.location {
            k.push_str(&format!(" @{l}"));
        }
        if let Some(t) = self.exception_type() {
            k.push_str(&format!(" throwing {t}"));
        }
        // the C library's and the C++ run-time's own frames left out: every uncaught exception
        // (every abort) has the same first ones
        for f in self
            .frames
            .iter()
            .filter(|f| !f.is_noise())
            .take(RAW_FRAMES)
        {
            match (&f.module, f.offset) {
                (Some(m), Some(o)) => k.push_str(&format!(" {}+{o:#x}", basename(m))),
                _ => k.push_str(&format!(" {:#x}", f.pc)),
            }
        }
        k
    }

    /// An uncaught C++ exception's type, as the run-time named it (`'std::out_of_range'`), from
    /// the message: part of both keys, so that two exceptions thrown through one caller are two
    /// crashes (its `what()` may hold data of the input and is left out).
    fn exception_type(&self) -> Option<&str> {
        let t = self
            .message
            .as_deref()?
            .strip_prefix("uncaught exception ")?;
        Some(t.split(": ").next().unwrap_or(t).trim())
    }

    /// Name the frames of coverage-only clones (the pass's `lite.rs`) as their originals, and
    /// drop the original's frame that entered its clone, so that a crash found by a
    /// coverage-only execution has the stack and signature a full one gives it.
    pub fn fold_clones(&mut self) {
        let mut i = 0;
        while i < self.frames.len() {
            let base = self.frames[i]
                .function
                .as_deref()
                .and_then(clone_of)
                .map(str::to_string);
            if let Some(base) = base {
                if self.frames.get(i + 1).and_then(|f| f.function.as_deref()) == Some(base.as_str())
                {
                    self.frames.remove(i + 1);
                }
                self.frames[i].function = Some(base);
            }
            i += 1;
        }
    }

    /// The frames that say where the bug is (noise skipped), innermost first.
    pub fn top_frames(&self) -> Vec<&Frame> {
        self.frames
            .iter()
            .filter(|f| !f.is_noise())
            .take(SIGNATURE_FRAMES)
            .collect()
    }

    /// The de-duplication signature: kind (and the program's own location: UBSan's, an
    /// assertion's, a panic's) and the top symbolised frames' functions, the innermost with its
    /// `file:line` when the program gave no location (two `abort()` calls, or two overflows, on
    /// different lines of one function are two crashes: they were one, and the second input was
    /// kept nowhere); without any frame, the kind alone.
    pub fn signature(&self) -> String {
        let mut s = self.kind.clone();
        if let Some(l) = self.location.as_deref().filter(|l| !l.is_empty()) {
            s.push_str(&format!(" at {l}"));
        }
        if let Some(t) = self.exception_type() {
            s.push_str(&format!(" throwing {t}"));
        }
        for (k, f) in self.top_frames().into_iter().enumerate() {
            s.push_str(" | ");
            s.push_str(&match (&f.function, &f.module, f.offset) {
                (Some(func), _, _) => func.clone(),
                (None, Some(m), Some(o)) => format!("{}+{o:#x}", basename(m)),
                _ => format!("{:#x}", f.pc),
            });
            if k == 0 && self.location.is_none() {
                if let Some(line) = f.location.as_deref().and_then(file_line) {
                    s.push_str(&format!(" ({line})"));
                }
            }
        }
        s
    }

    /// The stack for people, one frame a line.
    pub fn stack_text(&self) -> String {
        self.frames
            .iter()
            .enumerate()
            .map(|(i, f)| format!("    #{i} {}", f.describe()))
            .collect::<Vec<_>>()
            .join("\n")
    }
}

/// Symbolises frames with `llvm-symbolizer` (LLVM 22's, else any on `PATH`), caching every
/// address.
pub struct Symbolizer {
    tool: Option<PathBuf>,
    exe: PathBuf,
    /// By (module, address): the functions and locations there, innermost inlined one first.
    cache: HashMap<(String, u64), Vec<(Option<String>, Option<String>)>>,
}

impl Symbolizer {
    /// A symboliser for frames of `exe` and the libraries it loads.
    pub fn new(exe: &Path) -> Symbolizer {
        let tool = [
            "/usr/lib/llvm-22/bin/llvm-symbolizer",
            "/usr/bin/llvm-symbolizer-22",
        ]
        .iter()
        .map(PathBuf::from)
        .find(|p| p.is_file())
        .or_else(|| {
            std::env::var_os("PATH").and_then(|p| {
                std::env::split_paths(&p)
                    .map(|d| d.join("llvm-symbolizer"))
                    .find(|c| c.is_file())
            })
        });
        Symbolizer {
            tool,
            exe: exe.to_path_buf(),
            cache: HashMap::new(),
        }
    }

    /// The symboliser in use, if any.
    pub fn tool(&self) -> Option<&Path> {
        self.tool.as_deref()
    }

    /// Fill in the function and location of every frame of `r` that has a module offset but no
    /// function. Frames other than the first are return addresses: the byte before them is
    /// symbolised, as the sanitizers do.
    pub fn symbolize(&mut self, r: &mut Report) {
        let Some(tool) = self.tool.clone() else {
            return;
        };
        let mut wanted: HashMap<String, Vec<u64>> = HashMap::new();
        for (i, f) in r.frames.iter().enumerate() {
            if f.function.is_some() {
                continue;
            }
            if let (Some(m), Some(o)) = (&f.module, f.offset) {
                let addr = if i == 0 { o } else { o.saturating_sub(1) };
                if !self.cache.contains_key(&(m.clone(), addr)) {
                    wanted.entry(m.clone()).or_default().push(addr);
                }
            }
        }
        for (module, addrs) in wanted {
            let is_exe =
                module.is_empty() || Path::new(&module) == self.exe || !Path::new(&module).exists();
            let obj = if is_exe {
                self.exe.clone()
            } else {
                PathBuf::from(&module)
            };
            // module offsets are relative to the load bias: ELF virtual addresses
            let input: String = addrs.iter().map(|a| format!("{a:#x}\n")).collect();
            let out = Command::new(&tool)
                .arg(format!("--obj={}", obj.display()))
                .arg("--functions=linkage")
                .arg("--demangle")
                .stdin(Stdio::piped())
                .stdout(Stdio::piped())
                .stderr(Stdio::null())
                .spawn()
                .and_then(|mut c| {
                    use std::io::Write;
                    if let Some(mut si) = c.stdin.take() {
                        let _ = si.write_all(input.as_bytes());
                    }
                    c.wait_with_output()
                });
            let Ok(out) = out else { continue };
            let text = String::from_utf8_lossy(&out.stdout);
            // one block per address, blocks separated by blank lines; the first pair of a block is
            // the innermost (inlined) function
            let blocks: Vec<Vec<&str>> = text
                .split("\n\n")
                .map(|b| b.lines().filter(|l| !l.trim().is_empty()).collect())
                .filter(|b: &Vec<&str>| !b.is_empty())
                .collect();
            for (a, b) in addrs.iter().zip(blocks) {
                let pairs: Vec<(Option<String>, Option<String>)> = b
                    .chunks(2)
                    .map(|c| {
                        let func = c
                            .first()
                            .map(|s| tidy_rust_name(s.trim()))
                            .filter(|s| s != "??");
                        let loc = c
                            .get(1)
                            .map(|s| s.trim().to_string())
                            .filter(|s| !s.starts_with("??"));
                        (func, loc)
                    })
                    .collect();
                self.cache.insert((module.clone(), *a), pairs);
            }
        }
        // one frame per inlined function, innermost first, as the sanitizers print them
        let mut out = Vec::with_capacity(r.frames.len());
        for (i, f) in r.frames.drain(..).enumerate() {
            let hit = match (&f.function, &f.module, f.offset) {
                (None, Some(m), Some(o)) => {
                    let addr = if i == 0 { o } else { o.saturating_sub(1) };
                    self.cache.get(&(m.clone(), addr)).filter(|p| !p.is_empty())
                }
                _ => None,
            };
            match hit {
                Some(pairs) => {
                    for (func, loc) in pairs {
                        out.push(Frame {
                            function: func.clone(),
                            location: loc.clone(),
                            ..f.clone()
                        });
                    }
                }
                None => out.push(f),
            }
        }
        r.frames = out;
        r.fold_clones();
    }
}

/// The original's name of a function of a coverage-only clone (`f.evotest_lite`, as the symbol
/// table names it, or `f(int) (.evotest_lite)` demangled), `None` for any other.
fn clone_of(function: &str) -> Option<&str> {
    let suffix = evotest_abi::names::LITE_CLONE_SUFFIX;
    function
        .strip_suffix(suffix)
        .or_else(|| function.strip_suffix(&format!(" ({suffix})") as &str))
}

/// One unique crash, as recorded in the shared crash directory.
#[derive(Clone, Debug, Serialize, Deserialize, PartialEq)]
pub struct CrashRecord {
    /// See [`Report::signature`].
    pub signature: String,
    pub kind: String,
    pub sanitizer: Option<String>,
    /// The symbolised stack, innermost first.
    pub frames: Vec<String>,
    /// The reproducer (minimised when `minimized`).
    pub artifact: PathBuf,
    pub size: usize,
    /// Whether the minimiser ran on it (no byte range it tried could be removed, within its
    /// budget of executions and time).
    pub minimized: bool,
    /// Whether a second run in a fresh process crashed the same way.
    pub reproduced: bool,
    /// Seconds since the start of the run that found it.
    pub found_seconds: f64,
    /// When it was found, in seconds since the Unix epoch, with their fraction (0 in records of
    /// older versions): a crash found since the run began is no crash "recorded by an earlier
    /// run".
    #[serde(default)]
    pub found_unix: f64,
    /// Executions of the worker that found it, up to and including the crashing one.
    #[serde(default)]
    pub found_executions: u64,
    /// Which worker found it.
    pub worker: String,
    /// The first lines of the report.
    pub report: String,
}

/// The shared record of unique crashes: `DIR/<hash of signature>.json`.
pub struct CrashDb {
    dir: PathBuf,
}

impl CrashDb {
    /// The database in `dir` (created if missing).
    ///
    /// Errors: the directory cannot be created.
    pub fn open(dir: &Path) -> Result<CrashDb> {
        std::fs::create_dir_all(dir).with_context(|| format!("cannot create {}", dir.display()))?;
        Ok(CrashDb {
            dir: dir.to_path_buf(),
        })
    }

    fn path(&self, signature: &str) -> PathBuf {
        self.dir.join(format!(
            "{}.json",
            &super::corpus::sha1_hex(signature.as_bytes())[..16]
        ))
    }

    /// Every record (unreadable files are skipped).
    pub fn all(&self) -> Vec<CrashRecord> {
        let mut v: Vec<CrashRecord> = std::fs::read_dir(&self.dir)
            .into_iter()
            .flatten()
            .flatten()
            .filter(|e| e.file_name().to_string_lossy().ends_with(".json"))
            .filter_map(|e| std::fs::read(e.path()).ok())
            .filter_map(|b| serde_json::from_slice(&b).ok())
            .collect();
        v.sort_by(|a: &CrashRecord, b: &CrashRecord| a.signature.cmp(&b.signature));
        v
    }

    /// The record of the crash with this signature, if any (and readable).
    pub fn get(&self, signature: &str) -> Option<CrashRecord> {
        serde_json::from_slice(&std::fs::read(self.path(signature)).ok()?).ok()
    }

    /// Whether a crash with this signature is recorded.
    pub fn contains(&self, signature: &str) -> bool {
        self.path(signature).exists()
    }

    /// Record `r` unless its signature is recorded already (by this or another worker); returns
    /// whether it was new. The claim is atomic (a hard link that fails if the file exists).
    ///
    /// Errors: the directory is not writable.
    pub fn claim(&self, r: &CrashRecord) -> Result<bool> {
        let p = self.path(&r.signature);
        let tmp = self.dir.join(format!(
            ".claim-{}-{}",
            std::process::id(),
            p.file_name().unwrap().to_string_lossy()
        ));
        std::fs::write(&tmp, serde_json::to_vec_pretty(r)?)
            .with_context(|| format!("cannot write {}", tmp.display()))?;
        let won = std::fs::hard_link(&tmp, &p).is_ok();
        let _ = std::fs::remove_file(&tmp);
        if !won && !p.exists() {
            anyhow::bail!("cannot record a crash in {}", self.dir.display());
        }
        Ok(won)
    }

    /// Replace the record of `r.signature` (after minimisation).
    ///
    /// Errors: the file cannot be written.
    pub fn update(&self, r: &CrashRecord) -> Result<()> {
        write_atomic(&self.path(&r.signature), &serde_json::to_vec_pretty(r)?)
    }

    /// The marker of an artifact this run is about to write: `DIR/pending/<hash of its path>`,
    /// holding the path.
    fn marker(&self, artifact: &Path) -> PathBuf {
        self.dir.join("pending").join(super::corpus::sha1_hex(
            artifact.as_os_str().as_encoded_bytes(),
        ))
    }

    /// Say that `artifact` is about to be written, before writing it: a run killed before it
    /// recorded the crash leaves the marker, and the next run triages the artifact
    /// ([`CrashDb::pending`]). Files evotest did not write are never taken for its own.
    ///
    /// Errors: the marker cannot be written.
    pub fn intend(&self, artifact: &Path) -> Result<()> {
        let m = self.marker(artifact);
        std::fs::create_dir_all(m.parent().expect("a marker has a parent"))
            .with_context(|| format!("cannot create {}", self.dir.display()))?;
        write_atomic(&m, artifact.as_os_str().as_encoded_bytes())
    }

    /// `artifact` is recorded (or dropped): its marker goes.
    pub fn settle(&self, artifact: &Path) {
        let _ = std::fs::remove_file(self.marker(artifact));
    }

    /// The artifacts whose writing was announced ([`CrashDb::intend`]) and not settled, in
    /// name order.
    pub fn pending(&self) -> Vec<PathBuf> {
        let mut v: Vec<PathBuf> = std::fs::read_dir(self.dir.join("pending"))
            .into_iter()
            .flatten()
            .flatten()
            .filter_map(|e| std::fs::read(e.path()).ok())
            .map(|b| {
                PathBuf::from(std::ffi::OsString::from(
                    String::from_utf8_lossy(&b).into_owned(),
                ))
            })
            .collect();
        v.sort();
        v
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const ASAN: &str = "INFO: something\n\
=================================================================\n\
==4711==ERROR: AddressSanitizer: heap-buffer-overflow on address 0x602000000015 at pc 0x55 bp 0x7f sp 0x7f\n\
READ of size 1 at 0x602000000015 thread T0\n\
    #0 0x55cc44399441  (/tmp/ft/ha+0x12c441) (BuildId: 1247d51e17189543fa5db1edfac9e7e8b50b05bd)\n\
    #1 0x55cc44399667 in LLVMFuzzerTestOneInput /tmp/h.c:7:29\n\
    #2 0x7f787e59c249  (/lib/x86_64-linux-gnu/libc.so.6+0x27249) (BuildId: 93ac)\n\
\n\
0x602000000015 is located 0 bytes after 5-byte region\n\
allocated by thread T0 here:\n\
    #0 0x55cc443 in malloc\n\
SUMMARY: AddressSanitizer: heap-buffer-overflow (/tmp/ft/ha+0x12c441) (BuildId: 12)\n";

    #[test]
    fn asan_reports_give_kind_and_first_stack() {
        let r = parse(ASAN.as_bytes(), ExitKind::Crash { signal: 6 });
        assert_eq!(r.kind, "heap-buffer-overflow");
        assert_eq!(r.sanitizer.as_deref(), Some("AddressSanitizer"));
        assert_eq!(r.frames.len(), 3);
        assert_eq!(r.frames[0].module.as_deref(), Some("/tmp/ft/ha"));
        assert_eq!(r.frames[0].offset, Some(0x12c441));
        assert_eq!(
            r.frames[1].function.as_deref(),
            Some("LLVMFuzzerTestOneInput")
        );
        assert_eq!(r.frames[1].location.as_deref(), Some("/tmp/h.c:7:29"));
        assert_eq!(
            r.raw_key(),
            // the C library's frame (its start code) is noise
            "heap-buffer-overflow ha+0x12c441 0x55cc44399667"
        );
        assert!(r.text.starts_with("==4711==ERROR"));
    }

    #[test]
    fn evotest_stacks_ubsan_and_bare_signals() {
        let ours = "noise\n==12==ERROR: evotest: deadly signal 11\n    #0 0x10 (/x/h+0x10)\n    #1 0x20 (/x/h+0x20)\n";
        let r = parse(ours.as_bytes(), ExitKind::Crash { signal: 11 });
        assert_eq!((r.kind.as_str(), r.frames.len()), ("SIGSEGV", 2));
        let ub = "h.c:5:12: runtime error: signed integer overflow: 2147483647 + 1 cannot be represented in type 'int'\n    #0 0x1 (/x/h+0x1)\nSUMMARY: UndefinedBehaviorSanitizer: undefined-behavior h.c:5:12\n";
        let r = parse(ub.as_bytes(), ExitKind::Crash { signal: 6 });
        assert_eq!(
            (r.kind.as_str(), r.location.as_deref()),
            ("undefined-behavior", Some("h.c:5:12"))
        );
        assert!(r.signature().starts_with("undefined-behavior at h.c:5:12"));
        let r = parse(b"", ExitKind::Crash { signal: 8 });
        assert_eq!(
            (r.kind.as_str(), r.frames.len(), r.signature().as_str()),
            ("SIGFPE", 0, "SIGFPE")
        );
    }

    #[test]
    fn the_report_of_the_process_that_died_last_is_taken() {
        // a forked child's crash, handled by the harness, which then aborts on its own
        let two = "==31==ERROR: evotest: deadly signal 11\n    #0 0x1 in child /x/h.c:8:5\n\
                   ==30==ERROR: evotest: deadly signal 6\n    #0 0x2 in bug_x /x/h.c:10:3\n    #1 0x3 in LLVMFuzzerTestOneInput /x/h.c:15:5\n";
        let r = parse(two.as_bytes(), ExitKind::Crash { signal: 6 });
        assert_eq!(r.kind, "SIGABRT");
        assert_eq!(r.frames[0].function.as_deref(), Some("bug_x"));
        // one process: its first report stands
        let one = "==30==ERROR: AddressSanitizer: heap-buffer-overflow on address 0x1\n    #0 0x2 in f /x/h.c:3:1\n\
                   SUMMARY: AddressSanitizer: heap-buffer-overflow /x/h.c:3:1 in f\n\
                   ==30==ERROR: evotest: deadly signal 6\n    #0 0x2 in g /x/h.c:4:1\n";
        let r = parse(one.as_bytes(), ExitKind::Crash { signal: 6 });
        assert_eq!(r.kind, "heap-buffer-overflow");
        assert_eq!(report_pid("==30==ERROR: x"), Some(30));
        assert_eq!(report_pid("h.c:5:12: runtime error: x"), None);
    }

    #[test]
    fn a_frame_s_file_and_line() {
        assert_eq!(
            file_line("/src/dir/beh.c:35:42").as_deref(),
            Some("beh.c:35")
        );
        assert_eq!(file_line("beh.c:35").as_deref(), Some("beh.c:35"));
        assert_eq!(file_line("beh.c:0:0"), None);
        assert_eq!(file_line("beh.c"), None);
    }

    #[test]
    fn uncaught_exceptions_of_two_types_are_two_crashes() {
        // libstdc++ without symbols: the throw and terminate frames are module offsets
        let report = |what: &str, caller: &str| {
            let mut r = Report {
                kind: "SIGABRT".into(),
                location: Some(String::new()),
                message: Some(format!("uncaught exception {what}")),
                ..Default::default()
            };
            for off in [0x9d919u64, 0xa8e1a, 0xa026d] {
                r.frames.push(Frame {
                    module: Some("/usr/lib/x86_64-linux-gnu/libstdc++.so.6".into()),
                    offset: Some(off),
                    ..Default::default()
                });
            }
            for f in [caller, "LLVMFuzzerTestOneInput", "main"] {
                r.frames.push(Frame {
                    function: Some(f.into()),
                    ..Default::default()
                });
            }
            r
        };
        let a = report("'std::runtime_error': bad a", "site_a()");
        let b = report("'std::out_of_range': vector::_M_range_check", "site_b()");
        assert_eq!(
            a.signature(),
            "SIGABRT throwing 'std::runtime_error' | site_a() | LLVMFuzzerTestOneInput | main"
        );
        assert_ne!(a.signature(), b.signature());
        // the same type thrown by the same caller with another message: one crash
        let a2 = report("'std::runtime_error': bad b", "site_a()");
        assert_eq!(a.signature(), a2.signature());
    }

    #[test]
    fn signatures_skip_noise_frames() {
        let mut r = Report {
            kind: "SIGABRT".into(),
            ..Default::default()
        };
        for f in [
            "__pthread_kill_implementation",
            "raise",
            "abort",
            "evotest_rt::crash_stacks::deadly",
            "parse_tag",
            "parse_doc",
            "LLVMFuzzerTestOneInput",
            "main",
        ] {
            r.frames.push(Frame {
                function: Some(f.into()),
                ..Default::default()
            });
        }
        assert_eq!(
            r.signature(),
            "SIGABRT | parse_tag | parse_doc | LLVMFuzzerTestOneInput"
        );
    }

    #[test]
    fn frames_of_coverage_only_clones_read_as_the_originals() {
        // a crash in a coverage-only execution: the clones' frames, and the original that
        // entered its clone; a full execution of the same input gives the second stack
        let mut lite = Report {
            kind: "SIGSEGV".into(),
            ..Default::default()
        };
        for f in [
            "crash_here",
            "parse.evotest_lite",
            "LLVMFuzzerTestOneInput.evotest_lite",
            "LLVMFuzzerTestOneInput",
            "main",
        ] {
            lite.frames.push(Frame {
                function: Some(f.into()),
                ..Default::default()
            });
        }
        lite.fold_clones();
        let mut full = Report {
            kind: "SIGSEGV".into(),
            ..Default::default()
        };
        for f in ["crash_here", "parse", "LLVMFuzzerTestOneInput", "main"] {
            full.frames.push(Frame {
                function: Some(f.into()),
                ..Default::default()
            });
        }
        assert_eq!(lite.frames, full.frames);
        assert_eq!(
            lite.signature(),
            "SIGSEGV | crash_here | parse | LLVMFuzzerTestOneInput"
        );
        // demangled C++ names, and recursion of an original is left alone
        let mut r = Report {
            kind: "SIGSEGV".into(),
            ..Default::default()
        };
        for f in [
            "walk(node*) (.evotest_lite)",
            "walk(node*)",
            "walk(node*)",
            "main",
        ] {
            r.frames.push(Frame {
                function: Some(f.into()),
                ..Default::default()
            });
        }
        r.fold_clones();
        let names: Vec<_> = r
            .frames
            .iter()
            .map(|f| f.function.clone().unwrap())
            .collect();
        assert_eq!(names, ["walk(node*)", "walk(node*)", "main"]);
    }

    #[test]
    fn signatures_skip_rust_panic_frames() {
        let mut r = Report {
            kind: "SIGABRT".into(),
            ..Default::default()
        };
        for f in [
            "std::sys::pal::unix::abort_internal",
            "std::process::abort",
            "libfuzzer_sys::initialize::{{closure}}::h64482bfb604c28ec",
            "std::panicking::panic_with_hook",
            "__rustc::rust_begin_unwind",
            "core::panicking::panic_fmt",
            "fuzz_parse::_::__libfuzzer_sys_run",
            "rust_fuzzer_test_input",
            "LLVMFuzzerTestOneInput",
        ] {
            r.frames.push(Frame {
                function: Some(f.into()),
                ..Default::default()
            });
        }
        assert_eq!(r.signature(), "SIGABRT | fuzz_parse::_::__libfuzzer_sys_run | rust_fuzzer_test_input | LLVMFuzzerTestOneInput");
    }

    /// Two panics (or two assertions) in one function are two crashes: the location the
    /// program printed is part of the signature, and its message is kept.
    #[test]
    fn panics_and_assertions_are_told_apart_by_their_location() {
        let banner = format!("{CRASH_STACK_BANNER} 6\n    #0 0x1 in parse_cmd src/lib.rs:20:13\n");
        let panic = |loc: &str, msg: &str| {
            let err = format!("thread '<unnamed>' panicked at {loc}:\n{msg}\nnote: run with `RUST_BACKTRACE=1`\n{banner}");
            parse(err.as_bytes(), ExitKind::Crash { signal: 6 })
        };
        let a = panic(
            "src/lib.rs:20:13",
            "index out of bounds: the len is 3 but the index is 5",
        );
        let b = panic("src/lib.rs:25:9", "attempt to divide by zero");
        assert_eq!(a.location.as_deref(), Some("src/lib.rs:20:13"));
        assert_eq!(
            a.message.as_deref(),
            Some("index out of bounds: the len is 3 but the index is 5")
        );
        assert_ne!(a.signature(), b.signature());
        assert_eq!(
            a.signature(),
            panic(
                "src/lib.rs:20:13",
                "index out of bounds: the len is 3 but the index is 9"
            )
            .signature()
        );
        // before Rust 1.73
        let old = parse(
            format!("thread 'main' panicked at 'boom', src/main.rs:4:5\n{banner}").as_bytes(),
            ExitKind::Crash { signal: 6 },
        );
        assert_eq!(
            (old.location.as_deref(), old.message.as_deref()),
            (Some("src/main.rs:4:5"), Some("boom"))
        );
        // glibc's assert
        let c = parse(format!("harness: tag.c:41: int parse_tag(const char *): Assertion `n < 8' failed.\n{banner}").as_bytes(), ExitKind::Crash { signal: 6 });
        assert_eq!(
            (c.location.as_deref(), c.message.as_deref()),
            (Some("tag.c:41"), Some("Assertion `n < 8' failed."))
        );
        assert!(
            c.signature().starts_with("SIGABRT at tag.c:41 | "),
            "{}",
            c.signature()
        );
    }

    #[test]
    fn rust_names_lose_their_hash_and_escapes() {
        assert_eq!(
            tidy_rust_name("panicky::run::h3afc3b6064630f03"),
            "panicky::run"
        );
        assert_eq!(
            tidy_rust_name("_$LT$usize$u20$as$u20$core..fmt..Debug$GT$::fmt::h0123456789abcdef"),
            "<usize as core::fmt::Debug>::fmt"
        );
        assert_eq!(
            tidy_rust_name("structured::_::__libfuzzer_sys_run::_$u7b$$u7b$closure$u7d$$u7d$"),
            "structured::_::__libfuzzer_sys_run::{{closure}}"
        );
        // C and C++ names stay as they are
        assert_eq!(tidy_rust_name("parse_tag"), "parse_tag");
        assert_eq!(tidy_rust_name("foo::bar(int)"), "foo::bar(int)");
        assert_eq!(tidy_rust_name("ns::hash"), "ns::hash");
    }

    #[test]
    fn frame_lines() {
        let (n, f) = parse_frame("    #12 0xdeadbeef in foo::bar(int) /src/a.cc:3:4").unwrap();
        assert_eq!(
            (n, f.pc, f.function.as_deref(), f.location.as_deref()),
            (12, 0xdeadbeef, Some("foo::bar(int)"), Some("/src/a.cc:3:4"))
        );
        let (_, f) = parse_frame("#0 0x4 in memcpy (/lib/libc.so.6+0x99)").unwrap();
        assert_eq!(
            (f.function.as_deref(), f.module.as_deref(), f.offset),
            (Some("memcpy"), Some("/lib/libc.so.6"), Some(0x99))
        );
        assert!(parse_frame("#x 0x1").is_none());
        assert!(parse_frame("READ of size").is_none());
    }

    #[test]
    fn the_crash_database_claims_each_signature_once() {
        let d = tempfile::tempdir().unwrap();
        let db = CrashDb::open(&d.path().join("crashes")).unwrap();
        let mut r = CrashRecord {
            signature: "SIGSEGV | f".into(),
            kind: "SIGSEGV".into(),
            sanitizer: None,
            frames: vec![],
            artifact: "crash-1".into(),
            size: 1,
            minimized: false,
            reproduced: true,
            found_seconds: 0.5,
            found_unix: 0.0,
            found_executions: 0,
            worker: "w".into(),
            report: String::new(),
        };
        assert!(db.claim(&r).unwrap());
        assert!(!db.claim(&r).unwrap());
        assert!(db.contains("SIGSEGV | f"));
        assert_eq!(
            db.get("SIGSEGV | f").map(|x| x.artifact),
            Some("crash-1".into())
        );
        assert_eq!(db.get("SIGBUS | g"), None);
        r.minimized = true;
        db.update(&r).unwrap();
        assert_eq!(db.all(), vec![r]);
    }

    #[test]
    fn one_line_names_assertions_exceptions_and_sanitizer_summaries() {
        let abrt = ExitKind::Crash {
            signal: libc::SIGABRT,
        };
        assert_eq!(
            one_line(b"t: a.c:4: int f(int): Assertion `y != 7' failed.\n", abrt).as_deref(),
            Some("a.c:4: Assertion `y != 7' failed.")
        );
        assert_eq!(
            one_line(
                b"terminate called after throwing an instance of 'std::out_of_range'\n  what():  vector::_M_range_check\n",
                abrt
            )
            .as_deref(),
            Some("uncaught exception 'std::out_of_range': vector::_M_range_check")
        );
        assert_eq!(
            one_line(
                b"libc++abi: terminating due to uncaught exception of type std::logic_error: no\n",
                abrt
            )
            .as_deref(),
            Some("uncaught exception std::logic_error: no")
        );
        assert_eq!(
            one_line(
                b"==1==ERROR: AddressSanitizer: heap-buffer-overflow on address 0x1\n    #0 0x5 in f a.c:5:3\nSUMMARY: AddressSanitizer: heap-buffer-overflow a.c:5:3 in f\n",
                ExitKind::Exit { code: 1 }
            )
            .as_deref(),
            Some("AddressSanitizer: heap-buffer-overflow a.c:5:3 in f")
        );
        assert_eq!(one_line(b"", ExitKind::Crash { signal: 11 }), None);
    }
}
