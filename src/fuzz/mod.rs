//! `evotest fuzz`: coverage-guided fuzzing of any executable built with `evotest-cc` /
//! `evotest-c++`: a libFuzzer harness (linked with evotest's driver, run in persistent mode), or a
//! whole program reading standard input or the file named by `@@` (a process per input).
//!
//! # The loop
//! 1. Every file of the output corpus directory and of the seed directories is run (smallest
//!    first, after one run of the empty input that measures a fresh process's set-up,
//!    `Fuzzer::warm_up`); those that add coverage are kept, and seeds are copied into the corpus
//!    directory (a file that was there at the start is never removed, [`Corpus::replace`]).
//!    A rerun on the same directory therefore starts where an earlier (even killed) run stopped.
//! 2. Then, until the budget is spent: pick a corpus entry (favouring rare outcomes,
//!    [`corpus`]), mutate it ([`mutate`]: havoc, dictionary, program constants, splicing), run it,
//!    and keep it if it covers a branch outcome or a (site, hit-count bucket) not seen before
//!    ([`feedback`]). A kept input is written at once, atomically, named by its SHA-1. Inputs
//!    stay short, by libFuzzer's two rules: *length control* (mutants no longer than a limit
//!    that starts at the largest corpus entry and grows while nothing progresses,
//!    [`FuzzOptions::len_control`]) and *input reduction* (a shorter mutant with every feature
//!    its parent entry brought replaces the entry, [`FuzzOptions::reduce_inputs`]).
//! 3. A crash is triaged ([`triage`]): re-run in a fresh process, its sanitizer report or stack
//!    symbolised, de-duplicated by its top frames across workers and runs, and its reproducer
//!    minimised ([`minimize`]) and written as `crash-<sha1>` under the artifact prefix (a crash
//!    an earlier run recorded, met again, counts as this run's too, and its artifact is written
//!    again if it no longer exists, `Fuzzer::met_again`). Timeouts
//!    and out-of-memory kills are confirmed by a second run and kept as `timeout-<sha1>` and
//!    `oom-<sha1>` when they cover something no earlier one did.
//! 4. Every few seconds the corpus directory is scanned for inputs other workers wrote (`-j N`,
//!    or other machines sharing the directory), which are run and kept if they add coverage.
//!
//! 5. **Guidance** (on unless `--guidance off`, [`guide`]): every full execution's branch
//!    distances (some of havoc's and CmpLog's are coverage-only, see [`Lite`], except those that
//!    add coverage) of the
//!    frontier outcomes (uncovered outcomes of sites where another outcome is covered) are
//!    read, and an input that lowers one's best distance is kept in a distance pool. Directed
//!    attempts ([`directed`]) on the frontier outcomes whose distance is improving run
//!    input-to-state substitution of the compared operands ([`i2s`], Aschermann et al. 2019:
//!    integers, floats, and the byte strings of `strcmp`/`strncmp`/`memcmp`),
//!    then the alternating variable method on the bytes that influence the distance ([`avm`],
//!    Korel 1990). A candidate of either that leaves the outcome's path at an equality between
//!    two computed values (a checksum against its trailer) is repaired by input-to-state at that
//!    compare and judged on the path it was meant for (REDQUEEN's checksum handling, per
//!    candidate). They never get more executions than havoc had: substitution runs in slices
//!    (never twice from the same best input of an outcome), the AVM only on the executions havoc
//!    has had beyond the directed stages' (its credit, which also bounds its budget); havoc keeps
//!    the rest (and mutates
//!    pool inputs one pick in eight), so a stalled distance never traps the loop. Only branches
//!    in the guidance's [`scope`] join the frontier: not library code (Rust's std and registry
//!    crates, C system headers) unless `--frontier_include` says so. The strings the program
//!    compares at run time (read from the string operand log of inputs that add coverage and of
//!    directed attempts) become havoc's dictionary tokens. Of the directed stages' executions,
//!    the influence probe and the AVM get the share their recent yield earns against havoc's
//!    ([`guide::GuideStats::share`], at least a tenth of havoc's).
//! 6. **Input-to-state on every compare** ([`cmplog`], REDQUEEN's and AFL++ CmpLog's stage):
//!    each corpus entry, once, runs with every evaluation of every compare logged, and the
//!    substitutions of those operands run as new inputs, in turns with the directed attempts,
//!    on the share its own recent yield earns: table lookups in loops and compares whose
//!    outcomes are both covered give values that the frontier's compares never show.

pub mod avm;
pub mod cmplog;
pub mod corpus;
pub mod dict;
mod directed;
pub mod feedback;
pub mod guide;
pub mod i2s;
pub mod inprocess;
pub mod minimize;
pub mod mutate;
pub mod newlog;
pub mod scope;
pub mod stats;
pub mod triage;

use crate::exec::{Coverage, ExitKind, Stop};
use crate::frontend::bytes::Delivery;
use crate::target::{self, HarnessOptions, Target};
use crate::util::write_atomic;
use anyhow::{bail, Context, Result};
use corpus::{sha1_hex, Corpus};
use feedback::Feedback;
use guide::{Guide, GuideStats, Ladder, SiteLadder, Stage};
use mutate::Mutator;
use rand::SeedableRng;
use rand_chacha::ChaCha8Rng;
use serde::Serialize;
use stats::{Display, Monitor, Stats};
use std::ffi::OsString;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::{Duration, Instant};
use triage::{CrashDb, CrashRecord, Report, Symbolizer};

/// Default largest input when no seed is larger (libFuzzer's default).
pub const DEFAULT_MAX_LEN: usize = 4096;
/// Largest input evotest accepts.
pub const MAX_LEN_LIMIT: usize = 16 << 20;
/// Default inputs per process of a libFuzzer harness.
pub const DEFAULT_PERSISTENT: u32 = 10_000;
/// Executions a crash minimisation may spend.
pub const MINIMIZE_EXECS: u64 = 2_000;
/// Seconds a crash minimisation may spend.
pub const MINIMIZE_TIME: Duration = Duration::from_secs(10);
/// Name of the state directory inside the corpus directory.
pub const STATE_DIR: &str = ".evotest";

/// What a fuzzing run needs. See `evotest fuzz --help` for the meaning of each option.
#[derive(Clone, Debug, Serialize, serde::Deserialize)]
pub struct FuzzOptions {
    /// The executable (built with `evotest-cc`).
    pub exe: PathBuf,
    /// Its arguments (`@@` is replaced by the input file).
    pub args: Vec<OsString>,
    /// The input file's extension (`--input_extension`; AFL++'s `-e`), if any.
    #[serde(default)]
    pub input_extension: Option<String>,
    /// The output corpus directory (created if missing).
    pub corpus: PathBuf,
    /// Seed directories or files, read but never written.
    pub seeds: Vec<PathBuf>,
    pub dict: Option<PathBuf>,
    /// Largest input; `None`: the largest seed, at least [`DEFAULT_MAX_LEN`].
    pub max_len: Option<usize>,
    pub timeout: Duration,
    pub rss_limit_mb: u64,
    pub file_limit_mb: u64,
    /// Stop after this many executions.
    pub runs: Option<u64>,
    /// Stop after this long.
    pub max_total_time: Option<Duration>,
    pub seed: u64,
    /// Prefix of artifact paths (`crash-…`, `timeout-…`, `oom-…`): a directory ending in `/`, or
    /// a file-name prefix.
    pub artifact_prefix: String,
    /// libFuzzer's `-exact_artifact_path`: the run's first artifact is also written here (see
    /// `Fuzzer::exact_copy`).
    pub exact_artifact_path: Option<PathBuf>,
    /// Where this worker's stats go (default: `CORPUS/.evotest/<worker>`).
    pub stats_dir: Option<PathBuf>,
    /// Inputs per process of a libFuzzer harness (1: a process per input).
    pub persistent: u32,
    /// Minimise each new unique crash.
    pub minimize: bool,
    /// How often to look for inputs other workers added.
    pub sync_interval: Duration,
    pub display: Display,
    /// Show what the harness wrote on standard error while it started, when the executor hid it
    /// (the fork server; see `Executor::take_startup_output`). `-close_fd_mask=2` turns it off.
    pub show_startup_output: bool,
    /// Workers (processes sharing the corpus directory), this one included.
    pub jobs: u32,
    /// The arguments that start another worker (`evotest fuzz …` without `-j`); set by the CLI.
    pub worker_args: Vec<OsString>,
    /// This process is worker K (K ≥ 1) started by another with `-j`.
    pub worker: Option<u32>,
    /// Stop at the first unique crash (as libFuzzer does by default).
    pub stop_on_crash: bool,
    /// Branch distances and compared operands steer the loop (see module docs); off: plain
    /// coverage-guided havoc.
    pub guidance: bool,
    /// Directed attempts stop after input-to-state substitution (no influence probe, no AVM):
    /// `--guidance i2s`, an ablation.
    pub i2s_only: bool,
    /// Log every input that adds coverage, with its execution number ([`newlog`]).
    pub new_coverage_log: Option<PathBuf>,
    /// The branches the guidance may steer towards ([`scope`]): by default not library code.
    pub guide_scope: scope::GuideScope,
    /// Run the harness in the engine's process (libFuzzer's model, [`inprocess`]) instead of a
    /// persistent fork server.
    pub in_process: bool,
    /// Length control (libFuzzer's `-len_control`): havoc's mutants start no longer than the
    /// largest corpus entry (at least 4 bytes), and the limit grows by log2(limit) bytes after
    /// `len_control` × log2(limit) executions without progress (new coverage, or with guidance a
    /// lower best distance), up to `max_len`; 0: mutants may reach `max_len` at once.
    #[serde(default = "default_len_control")]
    pub len_control: u32,
    /// Replace a corpus entry by a shorter mutant of it that has every feature the entry brought
    /// (libFuzzer's `-reduce_inputs`).
    #[serde(default = "default_true")]
    pub reduce_inputs: bool,
    /// Without guidance, run havoc's executions coverage-only (see [`Lite`]); off: every
    /// execution records branch distances.
    #[serde(default = "default_true")]
    pub lite: bool,
    /// libFuzzer's `-only_ascii=1`: every input the run makes (havoc's, the directed stages')
    /// is turned into ASCII text before it runs ([`to_ascii`]); seeds and the corpus run as
    /// they are.
    #[serde(default)]
    pub only_ascii: bool,
}

/// libFuzzer's `ToASCII` (`FuzzerUtil.cpp`), what `-only_ascii=1` applies to each mutated input:
/// each byte loses its top bit, and one that is then neither printable nor white space
/// (`isprint`, `isspace` in the C locale) becomes a space. Returns whether a byte changed.
pub fn to_ascii(data: &mut [u8]) -> bool {
    let mut changed = false;
    for x in data.iter_mut() {
        let y = ascii_byte(*x);
        changed |= y != *x;
        *x = y;
    }
    changed
}

/// One byte of [`to_ascii`].
fn ascii_byte(x: u8) -> u8 {
    let y = x & 127;
    if (0x20..0x7f).contains(&y) || matches!(y, b'\t' | b'\n' | 0x0b | 0x0c | b'\r') {
        y
    } else {
        b' '
    }
}

/// libFuzzer's default `-len_control`.
pub const DEFAULT_LEN_CONTROL: u32 = 100;

fn default_len_control() -> u32 {
    DEFAULT_LEN_CONTROL
}

fn default_true() -> bool {
    true
}

impl FuzzOptions {
    /// Defaults for fuzzing `exe` into `corpus`: 1 s timeout, 2,048 MB RSS limit, seed 0, artifacts
    /// in the working directory, 10,000 inputs per process.
    pub fn new(exe: &Path, corpus: &Path) -> FuzzOptions {
        FuzzOptions {
            exe: exe.to_path_buf(),
            args: vec![],
            input_extension: None,
            corpus: corpus.to_path_buf(),
            seeds: vec![],
            dict: None,
            max_len: None,
            timeout: Duration::from_secs(1),
            rss_limit_mb: target::RSS_LIMIT_MB,
            file_limit_mb: target::FILE_LIMIT_MB,
            runs: None,
            max_total_time: None,
            seed: 0,
            artifact_prefix: "./".into(),
            exact_artifact_path: None,
            stats_dir: None,
            persistent: DEFAULT_PERSISTENT,
            minimize: true,
            sync_interval: Duration::from_secs(5),
            display: Display::Quiet,
            show_startup_output: true,
            jobs: 1,
            worker_args: vec![],
            worker: None,
            stop_on_crash: false,
            guidance: true,
            i2s_only: false,
            new_coverage_log: None,
            guide_scope: scope::GuideScope::default(),
            in_process: false,
            len_control: DEFAULT_LEN_CONTROL,
            reduce_inputs: true,
            lite: true,
            only_ascii: false,
        }
    }

    /// The state directory shared by the workers on this corpus.
    pub fn state_dir(&self) -> PathBuf {
        self.corpus.join(STATE_DIR)
    }

    /// The directory artifacts go to.
    pub fn artifact_dir(&self) -> PathBuf {
        if self.artifact_prefix.ends_with('/') {
            PathBuf::from(&self.artifact_prefix)
        } else {
            Path::new(&self.artifact_prefix)
                .parent()
                .filter(|p| !p.as_os_str().is_empty())
                .unwrap_or(Path::new("."))
                .to_path_buf()
        }
    }

    /// The path of artifact `name` (`crash-<sha1>`).
    pub fn artifact(&self, name: &str) -> PathBuf {
        PathBuf::from(format!("{}{name}", self.artifact_prefix))
    }
}

/// The result of a run, as `--json` prints it.
#[derive(Clone, Debug, Serialize, serde::Deserialize)]
pub struct Summary {
    pub target: String,
    pub delivery: String,
    pub corpus: PathBuf,
    pub stats_dir: PathBuf,
    pub seconds: f64,
    pub executions: u64,
    pub exec_per_sec: f64,
    /// Files in the corpus directory at the end (with `-j`, every worker's; on a resumed corpus,
    /// also the entries an earlier run left that shorter inputs have replaced in memory, which
    /// are not deleted): not the fuzzer's own count of entries (`corpus_count` of its stats).
    pub corpus_count: usize,
    pub corpus_new: usize,
    pub outcomes_covered: usize,
    pub outcomes_total: usize,
    pub features: usize,
    /// Unique crashes recorded for this corpus (this run, its workers, earlier runs).
    pub unique_crashes: usize,
    /// Their records whose artifact exists (every one this run met; see `missing_artifacts`).
    pub crashes: Vec<CrashRecord>,
    /// Unique crashes this run (and its workers) found.
    pub new_crashes: usize,
    /// Unique crashes recorded before (by an earlier run on this corpus, or another worker of
    /// this run) that this run met again. With `new_crashes`, what makes the run exit 1: a known,
    /// unfixed crash fails a re-run, as libFuzzer's run fails on any crash.
    #[serde(default)]
    pub crashes_met_again: usize,
    /// The artifacts of recorded crashes that no longer exist (removed after the run that wrote
    /// them) and that this run did not meet, so could not write again; their records are left
    /// out of `crashes`.
    #[serde(default)]
    pub missing_artifacts: Vec<PathBuf>,
    pub crashes_total: u64,
    pub timeouts: Vec<PathBuf>,
    pub ooms: Vec<PathBuf>,
    /// Executions that timed out, kept or not (see [`stats::kept_of`]).
    pub timeouts_total: u64,
    /// Executions killed for their memory, kept or not.
    pub ooms_total: u64,
    pub workers: u32,
    /// The other workers' last stats (with `-j`; this worker's are the summary's own).
    pub worker_stats: Vec<Stats>,
    pub interrupted: bool,
    /// Executions and outcomes first covered per stage (havoc, input-to-state, AVM, …) of this
    /// worker.
    pub guidance: GuideStats,
    /// Havoc's coverage-only executions of this worker (`-lite`).
    #[serde(default)]
    pub lite: LiteStats,
    /// In-process mode (`--in_process`): times an input ended the worker's process (crash,
    /// timeout, out of memory, exit) and a new worker went on. The stage statistics (`guidance`)
    /// are the last worker's.
    #[serde(default)]
    pub worker_restarts: u32,
    /// In-process mode: inputs ended the workers so often that the rest of the run used the
    /// fork server (see [`inprocess`]).
    #[serde(default)]
    pub fork_server_fallback: bool,
    /// Peak resident memory, MB, of the process that ran the engine and, in-process, the
    /// harness: the largest of this process's, its `-j` workers' and (`--in_process`) every
    /// in-process worker's so far, as libFuzzer's `stat::peak_rss_mb` counts its own process.
    #[serde(default)]
    pub peak_rss_mb: u64,
}

/// How an execution ended, for the fuzzer.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Outcome {
    /// Ran to its end (returned, or a whole program exited).
    Normal,
    Crash,
    Timeout,
    Oom,
    /// Stopped by the budget or an interrupt: not a property of the input.
    Stopped,
}

/// Whether fork-server targets check for memory leaks ([`set_detect_leaks`]): 0 off, 1 on, 2 the
/// default (on for a libFuzzer harness, off for a whole program).
static DETECT_LEAKS: std::sync::atomic::AtomicU8 = std::sync::atomic::AtomicU8::new(2);

/// Turn leak detection (libFuzzer's `-detect_leaks`) on or off for the targets started from now
/// on (`None`: the default, on for a libFuzzer harness as in libFuzzer, off for a whole program
/// as in AFL++, whose programs' leaks at exit are mostly a parser that gives up without freeing,
/// and whose every exit would pay LeakSanitizer's scan: bc ran at a third of the exec/s with
/// it): with it, the fork server's targets run with `detect_leaks=1` and evotest's driver checks
/// for leaks after an input that allocated more blocks than it freed (a whole program's
/// sanitizer checks at its exit).
pub fn set_detect_leaks(on: Option<bool>) {
    DETECT_LEAKS.store(
        match on {
            Some(false) => 0,
            Some(true) => 1,
            None => 2,
        },
        Ordering::Relaxed,
    );
}

/// Whether a target started now checks for leaks: `harness` (a libFuzzer harness) decides under
/// the default ([`set_detect_leaks`]).
fn leaks_checked(harness: bool) -> bool {
    match DETECT_LEAKS.load(Ordering::Relaxed) {
        0 => false,
        1 => true,
        _ => harness,
    }
}

/// Sanitizer options evotest needs (crashes abort, reports unsymbolised, recoverable UBSan reports
/// recovered from as libFuzzer does, leak checks only where `leaks` (see [`set_detect_leaks`]):
/// in a harness evotest's driver runs them itself, after an input), merged under the
/// user's own settings of the same variables; and `RUST_BACKTRACE=0`.
pub fn sanitizer_env(rss_limit_mb: u64, leaks: bool) -> Vec<(OsString, OsString)> {
    let merge = |var: &str, defaults: &[(&str, String)]| -> (OsString, OsString) {
        let user = std::env::var(var).unwrap_or_default();
        let mut parts: Vec<String> = user
            .split(':')
            .filter(|s| !s.is_empty())
            .map(String::from)
            .collect();
        for (k, v) in defaults {
            if !parts.iter().any(|p| p.split('=').next() == Some(k)) {
                parts.push(format!("{k}={v}"));
            }
        }
        (var.into(), parts.join(":").into())
    };
    let mut asan = vec![
        ("abort_on_error", "1".to_string()),
        ("symbolize", "0".into()),
        ("detect_leaks", if leaks { "1" } else { "0" }.into()),
        ("allocator_may_return_null", "0".into()),
    ];
    if rss_limit_mb > 0 {
        asan.push(("max_allocation_size_mb", rss_limit_mb.to_string()));
    }
    // no halt_on_error: a report the binary was compiled to recover from (plain
    // -fsanitize=undefined) is printed and the input goes on, as under libFuzzer; checks compiled
    // not to recover (OSS-Fuzz's -fno-sanitize-recover) abort, and are crashes
    let ubsan = [
        ("abort_on_error", "1".to_string()),
        ("print_stacktrace", "1".into()),
        ("symbolize", "0".into()),
    ];
    let msan = [
        ("abort_on_error", "1".to_string()),
        ("symbolize", "0".into()),
    ];
    vec![
        merge("ASAN_OPTIONS", &asan),
        merge("UBSAN_OPTIONS", &ubsan),
        merge("MSAN_OPTIONS", &msan),
        // Rust's default panic hook (which libfuzzer-sys's calls) symbolises a backtrace when
        // RUST_BACKTRACE is set: seconds per panic in a debug build, past the timeout on a loaded
        // machine; evotest takes its own stacks
        ("RUST_BACKTRACE".into(), "0".into()),
    ]
}

/// An execution longer than this many times the slowest that ended so far is suspected of
/// hanging ([`Session::suspect_limit`]).
pub const SUSPECT_FACTOR: u32 = 10;
/// The least limit of a suspected hang.
pub const SUSPECT_FLOOR: Duration = Duration::from_millis(20);

/// A running target and what the fuzzer keeps about executing it.
pub struct Session<'a> {
    pub target: Target,
    pub delivery: Delivery,
    /// Per global site: its first global outcome and number of outcomes.
    pub site_outcomes: Vec<(u32, u32)>,
    /// Per global outcome, its global site (`u32::MAX`: none).
    pub outcome_site: Vec<u32>,
    /// The coverage of the last execution. Its lists are built, except after
    /// [`Session::run_pending`].
    pub cov: Coverage,
    pub symbolizer: Symbolizer,
    pub executions: u64,
    /// How the last execution ended.
    pub last_exit: ExitKind,
    /// The last execution was a libFuzzer harness's that returned -1: "reject this input", kept
    /// out of the corpus whatever it covered, as libFuzzer does.
    pub last_rejected: bool,
    pub slowest: Duration,
    pub deadline: Option<Instant>,
    /// The timeout (`-timeout`): what an execution must exceed to be a timeout.
    timeout: Duration,
    /// The limit the executor has now: below `timeout` while hangs are only suspected
    /// ([`Session::run`]).
    limit: Duration,
    /// The limit of the last execution.
    pub last_limit: Duration,
    /// The executor cannot change its limit (in-process: the watchdog's is fixed).
    fixed_limit: bool,
    interrupt: &'a AtomicBool,
    /// In-process mode: inputs that ended a worker, by length; never run in-process again
    /// ([`Session::run`] answers [`Outcome::Stopped`] for them).
    killers: std::collections::HashMap<usize, Vec<Vec<u8>>>,
    /// The sanitizers linked into the executable ([`triage::linked_sanitizers`]; `None`: it has
    /// no symbol table to tell): a whole program's non-zero exit is a crash only for a report
    /// of one of them, not for text that looks like one (a parser echoing its input in an error).
    sanitizers: Option<Vec<&'static str>>,
}

impl<'a> Session<'a> {
    /// Open `exe` (see [`target::open_harness`]) with the sanitizer options of
    /// [`sanitizer_env`]; `@@` inputs go to `input_file`. With `in_process`, the harness runs in
    /// this process (an in-process worker, [`inprocess`]) instead of a fork server.
    ///
    /// Errors: as [`target::open_harness_with`].
    #[allow(clippy::too_many_arguments)]
    pub fn open(
        exe: &Path,
        args: &[OsString],
        input_file: &Path,
        max_len: usize,
        timeout: Duration,
        persistent: u32,
        rss_limit_mb: u64,
        file_limit_mb: u64,
        interrupt: &'a AtomicBool,
        in_process: Option<target::InProcessTarget>,
    ) -> Result<Session<'a>> {
        // a bare name must not be looked up on PATH
        let exe = &exe.canonicalize().unwrap_or_else(|_| exe.to_path_buf());
        let harness = exe.is_file() && target::has_fuzz_driver(exe).unwrap_or(false);
        let h = HarnessOptions {
            exe: exe.to_path_buf(),
            args: args.to_vec(),
            input_file: input_file.to_path_buf(),
            max_len,
            timeout,
            persistent,
            rss_limit_mb,
            file_limit_mb,
            env: sanitizer_env(rss_limit_mb, leaks_checked(harness)),
            out_dir: input_file.parent().unwrap_or(Path::new(".")).to_path_buf(),
        };
        let target = target::open_harness_with(&h, in_process)?;
        let delivery = if harness {
            Delivery::LibFuzzer
        } else if target::uses_input_file(args) {
            Delivery::File
        } else {
            Delivery::Stdin
        };
        let site_outcomes = target.program.site_outcomes();
        let outcome_site =
            crate::exec::outcome_sites(&site_outcomes, target.program.n_outcomes as usize);
        let symbolizer = Symbolizer::new(exe);
        Ok(Session {
            target,
            delivery,
            site_outcomes,
            outcome_site,
            cov: Coverage::default(),
            symbolizer,
            executions: 0,
            slowest: Duration::ZERO,
            last_exit: ExitKind::Ok,
            last_rejected: false,
            deadline: None,
            timeout,
            limit: timeout,
            last_limit: timeout,
            fixed_limit: false,
            interrupt,
            killers: Default::default(),
            // (read for whole programs only: a harness's every exit is a crash)
            sanitizers: if delivery == Delivery::LibFuzzer {
                None
            } else {
                triage::linked_sanitizers(exe)
            },
        })
    }

    /// The limit an execution gets before it is suspected of hanging: [`SUSPECT_FACTOR`] times
    /// the slowest execution that ended so far, at least [`SUSPECT_FLOOR`], at most the timeout.
    /// A suspect that adds to no known hang is dropped at that limit, so mutants of a known hang
    /// cost a fraction of the timeout each; any other is run again with the whole timeout
    /// (AFL++'s `hang_tmout` check), where it may end normally and count as any input.
    fn suspect_limit(&self) -> Duration {
        (self.slowest * SUSPECT_FACTOR)
            .max(SUSPECT_FLOOR)
            .min(self.timeout)
    }

    /// Whether the last execution timed out at a limit below the timeout (a suspect, see
    /// [`Session::suspect_limit`]).
    pub fn suspected(&self) -> bool {
        self.last_limit < self.timeout
    }

    /// [`Session::run`] with the whole timeout.
    ///
    /// Errors: as [`Session::run`].
    pub fn run_full(&mut self, data: &[u8]) -> Result<(Outcome, ExitKind)> {
        let r = self.run_within(data, self.timeout);
        self.list_coverage();
        r
    }

    /// [`Session::run_full`] of an input that already timed out once (a suspect, or a hang or
    /// out-of-memory kill to confirm), not cut short by the deadline (`-max_total_time`): a hang
    /// met just before the end must still be kept, so its confirmation may end up to one timeout
    /// after the deadline (libFuzzer never cuts an execution short). An interrupt still stops it.
    ///
    /// Errors: as [`Session::run`].
    pub fn run_confirm(&mut self, data: &[u8]) -> Result<(Outcome, ExitKind)> {
        // the deadline moves to one (generous) timeout from now; not with no timeout to speak
        // of (`-timeout=0`), where a hang would otherwise run forever past `-max_total_time`
        let deadline = self.deadline;
        let grace = crate::exec::hang_limit(self.timeout).saturating_mul(2);
        if grace <= Duration::from_secs(600) {
            self.deadline = deadline.map(|d| d.max(Instant::now() + grace));
        }
        let r = self.run_full(data);
        self.deadline = deadline;
        r
    }

    /// Mark quiet every site of the last execution whose outcomes are all covered in `fb`: its
    /// probe then only counts hits after its first evaluation (no site of the
    /// frontier is ever quiet, so guidance loses nothing it reads).
    pub fn quiet_covered(&mut self, fb: &Feedback) {
        for &(s, _) in &self.cov.sites {
            if let Some(&(base, n)) = self.site_outcomes.get(s as usize) {
                if n > 0 && (base..base + n).all(|o| fb.is_covered(o)) {
                    self.target.executor.set_quiet(s);
                }
            }
        }
    }

    /// The branch outcomes of the program.
    pub fn n_outcomes(&self) -> usize {
        self.target.program.n_outcomes as usize
    }

    /// Whether the run must stop (interrupt or deadline).
    pub fn stopped(&self) -> bool {
        self.interrupt.load(Ordering::Relaxed) || self.deadline.is_some_and(|d| Instant::now() >= d)
    }

    /// Run `data`, within the limit of a suspected hang ([`Session::suspect_limit`]); its
    /// coverage is in `self.cov`. Returns how it ended for the fuzzer and, for a crash, its
    /// parsed (unsymbolised) report.
    ///
    /// Errors: the executor broke (the target cannot be restarted).
    pub fn run(&mut self, data: &[u8]) -> Result<(Outcome, ExitKind)> {
        let r = self.run_pending(data);
        self.list_coverage();
        r
    }

    /// [`Session::run`], leaving the lists of a coverage-only execution's coverage pending
    /// ([`Coverage::is_pending`]; [`Session::list_coverage`] builds them).
    pub fn run_pending(&mut self, data: &[u8]) -> Result<(Outcome, ExitKind)> {
        self.run_within(data, self.suspect_limit())
    }

    /// Build the lists of the last execution's coverage if they are pending.
    pub fn list_coverage(&mut self) {
        self.cov.list(&self.outcome_site);
    }

    fn run_within(&mut self, data: &[u8], limit: Duration) -> Result<(Outcome, ExitKind)> {
        if self.is_killer(data) {
            return Ok((Outcome::Stopped, ExitKind::Stopped));
        }
        if limit != self.limit && !self.fixed_limit {
            // an executor that cannot change it keeps the timeout (and is not asked again)
            self.fixed_limit = !self.target.executor.set_timeout(limit);
            self.limit = if self.fixed_limit {
                self.timeout
            } else {
                limit
            };
        }
        self.last_limit = self.limit;
        let stop = Stop {
            deadline: self.deadline,
            interrupt: Some(self.interrupt),
        };
        let t0 = Instant::now();
        let exit =
            self.target
                .executor
                .run_coverage(data, stop, &self.site_outcomes, &mut self.cov)?;
        let el = t0.elapsed();
        self.executions += 1;
        self.last_exit = exit;
        self.last_rejected = self.delivery == Delivery::LibFuzzer
            && exit == ExitKind::Ok
            && self.target.executor.last_ret() == Some(crate::exec::RetVal::Signed(-1));
        let outcome = match exit {
            ExitKind::Ok | ExitKind::StepLimit => Outcome::Normal,
            ExitKind::Exit { code } if self.delivery != Delivery::LibFuzzer => {
                // a whole program's exit is normal, unless a sanitizer it is built with reported
                // (abort_on_error=0)
                let reported = if code != 0 {
                    self.report(exit).sanitizer
                } else {
                    None
                };
                let linked = |s: &String| {
                    self.sanitizers
                        .as_ref()
                        .is_none_or(|l| l.contains(&s.as_str()))
                };
                if reported.as_ref().is_some_and(linked) {
                    Outcome::Crash
                } else {
                    Outcome::Normal
                }
            }
            // a libFuzzer harness must not exit (libFuzzer: "fuzz target exited")
            ExitKind::Exit { .. } | ExitKind::Crash { .. } | ExitKind::ParentKilled => {
                Outcome::Crash
            }
            ExitKind::Timeout => Outcome::Timeout,
            ExitKind::Oom => Outcome::Oom,
            ExitKind::Stopped => Outcome::Stopped,
        };
        if outcome != Outcome::Stopped && outcome != Outcome::Timeout {
            self.slowest = self.slowest.max(el);
        }
        if outcome == Outcome::Crash && is_oom_kind(&self.report(exit).kind) {
            return Ok((Outcome::Oom, exit));
        }
        Ok((outcome, exit))
    }

    /// Whether `data` ended an in-process worker of this run (see [`inprocess`]): one length
    /// lookup per input, a comparison only for inputs of a killer's length.
    pub fn is_killer(&self, data: &[u8]) -> bool {
        !self.killers.is_empty()
            && self
                .killers
                .get(&data.len())
                .is_some_and(|v| v.iter().any(|k| k == data))
    }

    /// Never run `data` again in this session ([`Session::is_killer`]).
    pub fn add_killer(&mut self, data: Vec<u8>) {
        if !self.is_killer(&data) {
            self.killers.entry(data.len()).or_default().push(data);
        }
    }

    /// The report of the last execution, which ended with `exit`.
    pub fn report(&mut self, exit: ExitKind) -> Report {
        let err = self.target.executor.last_stderr().unwrap_or_default();
        triage::parse(&err, exit)
    }
}

/// Sanitizer report kinds that mean "out of memory" (libFuzzer writes them as `oom-…`).
fn is_oom_kind(kind: &str) -> bool {
    matches!(
        kind,
        "allocation-size-too-big"
            | "out-of-memory"
            | "rss-limit-exceeded"
            | "calloc-overflow"
            | "malloc-limit"
    )
}

/// This machine's name.
fn hostname() -> String {
    let mut b = [0u8; 256];
    if unsafe { libc::gethostname(b.as_mut_ptr() as *mut libc::c_char, b.len()) } == 0 {
        let n = b.iter().position(|&c| c == 0).unwrap_or(b.len());
        return String::from_utf8_lossy(&b[..n]).into_owned();
    }
    "host".into()
}

/// The seed files: every regular file under the corpus directory and the seed paths.
///
/// Errors: a seed path that does not exist, an unreadable directory.
fn seed_files(opts: &FuzzOptions) -> Result<Vec<(PathBuf, bool)>> {
    let mut files = Vec::new();
    for f in corpus::list_files(&opts.corpus)? {
        files.push((f, true));
    }
    for s in &opts.seeds {
        if s.is_dir() {
            files.extend(corpus::list_files(s)?.into_iter().map(|f| (f, false)));
        } else if s.is_file() {
            files.push((s.clone(), false));
        } else {
            bail!("{}: no such seed file or directory", s.display());
        }
    }
    Ok(files)
}

/// The coverage (up to the kill) of the kept timeouts, or out-of-memory kills: a new one must
/// have a feature none of theirs had, or have no feature at all where no kept one was so (an
/// execution cut short before its first branch, as a program that blocks there longer than the
/// suspect limit: with features alone it was taken for a known hang and dropped unconfirmed, and
/// a whole program sleeping 0.15 s per input was never fuzzed).
struct HangMap {
    fb: Feedback,
    /// A kept one had no coverage at all.
    empty: bool,
}

impl HangMap {
    fn new(n_sites: usize, n_outcomes: usize) -> HangMap {
        HangMap {
            fb: Feedback::new(n_sites, n_outcomes),
            empty: false,
        }
    }

    fn is_new(&self, cov: &Coverage) -> bool {
        self.fb.is_new(cov) || (!self.empty && cov.sites.is_empty() && cov.outcomes.is_empty())
    }

    fn add(&mut self, cov: &Coverage) {
        self.fb.add(cov);
        self.empty |= cov.sites.is_empty() && cov.outcomes.is_empty();
    }
}

/// The fuzzer's state. See module docs.
struct Fuzzer<'a> {
    opts: &'a FuzzOptions,
    s: Session<'a>,
    fb: Feedback,
    /// The kept timeouts' and out-of-memory kills' coverage.
    hang_map: HangMap,
    oom_map: HangMap,
    corpus: Corpus,
    mutator: Mutator,
    rng: ChaCha8Rng,
    start: Instant,
    /// When the run began (an in-process worker's run: its first worker's start), in seconds
    /// since the Unix epoch with their fraction: crashes recorded since are this run's.
    start_wall: f64,
    monitor: Monitor,
    db: CrashDb,
    /// Raw stack keys seen → their signature.
    raw_keys: std::collections::HashMap<String, String>,
    crashes_found: usize,
    /// The signatures of crashes recorded before this worker met them (an earlier run's, or
    /// another worker's) that it met ([`Fuzzer::met_again`]).
    met_again: std::collections::BTreeSet<String>,
    crashes_total: u64,
    timeouts: Vec<PathBuf>,
    timeouts_total: u64,
    ooms: Vec<PathBuf>,
    ooms_total: u64,
    corpus_new: usize,
    last_new: Duration,
    worker: String,
    max_len: usize,
    /// Whether some branch of the program compares floats (`float`, `double`): the directed AVM
    /// then also tries their special values ([`avm::Avm::specials`]; [`crate::program::Program::compares_floats`]).
    compares_floats: bool,
    /// Workers started with `-j` (their stats directories).
    children: Vec<(std::process::Child, PathBuf)>,
    /// The `-j` workers (indices into `children`) whose failure was reported.
    failed_workers: std::collections::HashSet<usize>,
    /// Whether the warning about no room for the target's standard error was printed.
    no_room_said: bool,
    /// The signatures of the crashes other workers of this run recorded that this (main)
    /// worker has announced ([`Fuzzer::announce_workers_crashes`]).
    announced: std::collections::HashSet<String>,
    /// Unique crashes in the shared record, as of the last look.
    unique: usize,
    /// Whether an artifact went to `FuzzOptions::exact_artifact_path` already.
    exact_written: bool,
    /// Files other workers wrote into the corpus directory that this one ran.
    synced: usize,
    /// Distance feedback and the directed stages' state.
    guide: Guide,
    /// The stage the executions belong to now.
    stage: Stage,
    /// The outcome a directed attempt aims at, and its fitness in the last execution.
    focus: Option<directed::Focus>,
    focus_fitness: f64,
    /// During a directed attempt: which stage made its start input
    /// ([`guide::Target::made_by`]).
    i2s_origin: Option<guide::Arm>,
    /// Corpus entries before this index have had input-to-state on every compare ([`cmplog`]).
    cmplog_at: usize,
    /// The candidates of the last of them still to run, the next one last.
    cmplog_queue: Vec<Vec<u8>>,
    /// The compares that gave candidates so far ([`cmplog::candidates`]).
    cmplog_tried: std::collections::HashSet<u64>,
    /// Per equality site, the checksum repairs there that failed since the last that worked
    /// ([`directed`]'s `Repair`); `u32::MAX` for a site that compares with a constant of the
    /// program, which is never a checksum.
    repair_misses: std::collections::HashMap<u32, u32>,
    /// The CFGs of the functions that held a focus, by function index.
    cfgs: std::collections::HashMap<usize, crate::cfg::Cfg>,
    /// The program's direct call sites ([`crate::program::Program::callers`]), on first use.
    callers: Option<Vec<Vec<(usize, usize)>>>,
    /// Approach-level ladders computed so far, per global site (they depend on the CFGs and the
    /// call sites only, and a directed attempt needs one each time).
    ladders: std::collections::HashMap<u32, std::rc::Rc<SiteLadder>>,
    /// The caller levels of each function's ladders ([`SiteLadder::callers`]), by function.
    caller_ladders: std::collections::HashMap<usize, std::rc::Rc<Ladder>>,
    /// Intraprocedural ladders by (function, block): the pieces of [`Fuzzer::ladders`] (a
    /// function's call sites appear in the ladder of every site it calls).
    intra_ladders: std::collections::HashMap<(usize, usize), Ladder>,
    /// Scratch space for operand logs.
    ops: Vec<crate::trace::OperandRec>,
    /// Scratch space for string operand logs.
    str_ops: Vec<crate::trace::StrOperandRec>,
    /// `--new_coverage_log`.
    new_log: Option<newlog::NewLog>,
    /// In an in-process worker: what it carries over from the last worker and hands on.
    inproc: Option<inprocess::WorkerCtx>,
    /// Length control's limit on havoc's mutants (`FuzzOptions::len_control`), and the execution
    /// count when coverage last grew or the limit last rose.
    len_limit: usize,
    len_mark: u64,
    /// Whether the seeds and the corpus are being loaded (no `NEW` lines then, as libFuzzer
    /// prints none before `INITED`).
    loading: bool,
    /// A restarted in-process worker whose replay of the corpus the run's end (or an interrupt)
    /// cut short: the corpus directory's files and bytes, which its stats show.
    replay_cut: Option<(usize, u64)>,
    /// The last execution timed out as a suspect and again at the whole timeout
    /// ([`Fuzzer::evaluate`]): [`Fuzzer::on_hang`] need not run it a third time.
    hang_confirmed: bool,
    /// Whether the warning about instrumented code loaded while inputs ran was printed.
    late_code_said: bool,
    /// When the stats, status and plot were last written ([`Fuzzer::periodic`]).
    last_tick: Instant,
    /// Outcomes covered when [`COVERED_FILE`] was last written.
    covered_written: usize,
    /// Corpus entries replaced by shorter inputs (`FuzzOptions::reduce_inputs`), and the
    /// executions spent re-running candidates with the quiet map suspended.
    reduced: u64,
    reduce_runs: u64,
    /// Scratch space for the features a kept input brings.
    new_features: Vec<feedback::Feature>,
    /// Coverage-only havoc executions ([`Lite`]).
    lite: Lite,
}

/// Havoc's coverage-only executions ([`crate::exec::Executor::set_lite`]: the probes count the
/// outcomes taken and nothing else, in the functions' coverage-only clones of a build at `-O1`
/// or above, `passes/src/lite.rs`; AFL++ runs its plain build beside its CmpLog build for the
/// same reason). Without guidance every havoc execution is coverage-only. With guidance,
/// coverage-only executions get the share of havoc's time they save ([`Lite::turn`]), CmpLog's
/// candidates the same share of them ([`Lite::candidate_turn`]), and the guidance reads the
/// distances of the full ones, of the directed attempts' executions and of the inputs that add
/// coverage. (With every havoc execution coverage-only, the guidance starved on
/// small harnesses, where they run no faster: the magic values of `tests/fuzz.rs` were not found
/// in 1,000 executions; with half of them, one lookup-table run of 14 was not solved in 30,000.)
/// A coverage-only execution that adds coverage runs again in full before it is kept, so the
/// corpus, the quiet map and the guidance see what a full execution records.
#[derive(Debug, Default)]
struct Lite {
    /// Havoc's and CmpLog's executions may be coverage-only: `-lite` and an executor that can
    /// (checked once).
    able: bool,
    /// The current execution is coverage-only.
    now: bool,
    /// Havoc's coverage-only and full executions, and their seconds.
    execs: u64,
    full_execs: u64,
    secs: f64,
    full_secs: f64,
    /// Coverage-only executions that added coverage and ran again in full.
    reruns: u64,
    /// CmpLog candidates run coverage-only ([`Lite::candidate_turn`]), and the credit that
    /// decides the next one's kind.
    candidates: u64,
    candidate_credit: f64,
}

impl Lite {
    /// Executions of each kind before their mean times are compared, and the least share of
    /// coverage-only executions that keeps their mean time current.
    const SAMPLE: u64 = 32;

    /// Whether the next havoc execution is coverage-only. Without guidance, always. With
    /// guidance, under an execution budget alone (not `by_time`), never: a coverage-only
    /// execution only saves time, and gives the guidance nothing. Otherwise coverage-only
    /// executions get the share of havoc's time that they save, `1 − t_lite / t_full` of the
    /// executions' mean times (after [`Lite::SAMPLE`] of each, in turns): none where they run no
    /// faster, 60% where they run 2.5 times as fast; and at least one execution in
    /// [`Lite::SAMPLE`].
    fn turn(&self, guided: bool, by_time: bool) -> bool {
        if !guided {
            return true;
        }
        if !by_time {
            return false;
        }
        if self.execs < Self::SAMPLE || self.full_execs < Self::SAMPLE {
            return self.execs <= self.full_execs;
        }
        if self.execs * Self::SAMPLE < self.execs + self.full_execs {
            return true;
        }
        self.secs < self.saving() * (self.secs + self.full_secs)
    }

    /// `1 − t_lite / t_full` of havoc's mean execution times, after [`Lite::SAMPLE`] of each
    /// kind (0 before, and where coverage-only executions run no faster).
    fn saving(&self) -> f64 {
        if self.execs < Self::SAMPLE || self.full_execs < Self::SAMPLE {
            return 0.0;
        }
        let (lite, full) = (
            self.secs / self.execs as f64,
            self.full_secs / self.full_execs as f64,
        );
        if full > 0.0 {
            (1.0 - lite / full).clamp(0.0, 1.0)
        } else {
            0.0
        }
    }

    /// Whether the next candidate of the CmpLog stage runs coverage-only: a candidate only asks
    /// whether a substitution leads somewhere new (AFL++ runs its CmpLog candidates on its plain
    /// build), and one that does runs again in full, as havoc's do. The share of candidates is
    /// havoc's [`Lite::saving`], so where coverage-only executions run no faster, every
    /// candidate still gives the guidance its distances. Never under an execution budget alone.
    fn candidate_turn(&mut self, by_time: bool) -> bool {
        if !self.able || !by_time {
            return false;
        }
        self.candidate_credit += self.saving();
        if self.candidate_credit < 1.0 {
            return false;
        }
        self.candidate_credit -= 1.0;
        true
    }
}

/// What [`Lite`] did, for the run's summary.
#[derive(Clone, Debug, Default, Serialize, serde::Deserialize)]
pub struct LiteStats {
    /// Havoc's coverage-only executions.
    pub executions: u64,
    /// Of those, the ones that added coverage and ran again in full.
    pub reruns: u64,
    /// Havoc's full executions.
    pub full_executions: u64,
    /// CmpLog candidates run coverage-only.
    #[serde(default)]
    pub candidates: u64,
}

/// Run a fuzzing campaign (see module docs), until the budget is spent or `interrupt` is set.
///
/// Errors (one line): bad options or seeds, a target that does not start or was not built with
/// `evotest-cc`, an unwritable corpus or artifact directory, an executor that broke.
pub fn run(opts: &FuzzOptions, interrupt: &AtomicBool) -> Result<Summary> {
    if opts.in_process {
        return inprocess::supervise(opts, interrupt);
    }
    run_session(opts, interrupt, None)
}

/// The largest input of a run: `-max_len`, or the largest seed, at least [`DEFAULT_MAX_LEN`] and
/// at most 1 MiB.
///
/// Errors: a seed directory or file that does not exist.
pub fn effective_max_len(opts: &FuzzOptions) -> Result<usize> {
    let files = seed_files(opts)?;
    let largest = files
        .iter()
        .filter_map(|(f, _)| std::fs::metadata(f).ok())
        .map(|m| m.len() as usize)
        .max()
        .unwrap_or(0);
    Ok(opts
        .max_len
        .unwrap_or_else(|| largest.clamp(DEFAULT_MAX_LEN, 1 << 20)))
}

/// [`run`] in this process: with a fork server, or (`inproc`) as an in-process worker.
fn run_session(
    opts: &FuzzOptions,
    interrupt: &AtomicBool,
    inproc: Option<inprocess::WorkerCtx>,
) -> Result<Summary> {
    if opts.exe.is_dir() {
        bail!(
            "{}: is a directory (the first argument is the executable to fuzz; corpus directories come after it)",
            opts.exe.display()
        );
    }
    if !opts.exe.is_file() {
        bail!(
            "{}: no such file (the first argument is the executable to fuzz)",
            opts.exe.display()
        );
    }
    if let Some(m) = opts.max_len {
        if m == 0 || m > MAX_LEN_LIMIT {
            bail!("-max_len={m}: must be between 1 and {MAX_LEN_LIMIT}");
        }
    }
    if opts.timeout < Duration::from_millis(1) {
        bail!("-timeout: must be at least 1 ms");
    }
    if opts.corpus.exists() && !opts.corpus.is_dir() {
        bail!(
            "{}: the corpus must be a directory (the first directory is the output corpus)",
            opts.corpus.display()
        );
    }
    let dict = match &opts.dict {
        Some(d) => dict::load(d)?,
        None => vec![],
    };
    let dict_entries = dict.len();
    // a corpus directory this run creates is removed again if the target cannot be started
    let created = !opts.corpus.exists();
    std::fs::create_dir_all(&opts.corpus)
        .with_context(|| format!("cannot create corpus directory {}", opts.corpus.display()))?;
    let files = seed_files(opts)?;
    let largest = files
        .iter()
        .filter_map(|(f, _)| std::fs::metadata(f).ok())
        .map(|m| m.len() as usize)
        .max()
        .unwrap_or(0);
    let max_len = opts
        .max_len
        .unwrap_or_else(|| largest.clamp(DEFAULT_MAX_LEN, 1 << 20));
    let dir = opts.artifact_dir();
    std::fs::create_dir_all(&dir)
        .with_context(|| format!("cannot create the artifact directory {}", dir.display()))?;

    // this worker's name and stats directory
    let state = opts.state_dir();
    std::fs::create_dir_all(&state)
        .with_context(|| format!("cannot create {}", state.display()))?;
    let (worker, stats_dir, _lock) = match (&opts.stats_dir, opts.worker) {
        (Some(d), w) => (
            w.map_or("main".to_string(), |k| format!("worker-{k}")),
            d.clone(),
            Some(target::lock_output(d)?),
        ),
        (None, Some(k)) => {
            let d = state.join(format!("worker-{k}"));
            (
                format!("worker-{k}"),
                d.clone(),
                Some(target::lock_output(&d)?),
            )
        }
        (None, None) => {
            let main = state.join("main");
            match target::lock_output(&main) {
                Ok(l) => ("main".to_string(), main, Some(l)),
                Err(_) => {
                    let name = format!("{}-{}", hostname(), std::process::id());
                    let d = state.join(&name);
                    let l = target::lock_output(&d)?;
                    (name, d, Some(l))
                }
            }
        }
    };
    let input_file = stats_dir.join(target::input_file_name(opts.input_extension.as_deref()));
    let mut s = Session::open(
        &opts.exe,
        &opts.args,
        &input_file,
        max_len,
        opts.timeout,
        opts.persistent.max(1),
        opts.rss_limit_mb,
        opts.file_limit_mb,
        interrupt,
        inproc.as_ref().and_then(|w| w.target),
    )
    .inspect_err(|_| {
        if created {
            let _ = std::fs::remove_dir_all(&opts.corpus);
        }
    })?;
    // an in-process worker goes on where the last one ended: its time, its executions
    let carried = inproc.as_ref().map(|w| w.carry.clone()).unwrap_or_default();
    let start = Instant::now()
        .checked_sub(carried.elapsed)
        .unwrap_or_else(Instant::now);
    s.executions = carried.executions();
    s.deadline = opts.max_total_time.map(|t| start + t);
    let reach = s.target.program.harness_scope();
    let (ints, floats, strs) = constants(&s.target.program, reach.as_deref());
    let mutator = Mutator::new(max_len, dict, &ints, &floats, &strs);
    let n_sites = s.site_outcomes.len();
    let n_outcomes = s.n_outcomes();
    let fb = Feedback::with_sites(n_sites, &s.outcome_site);
    let monitor = Monitor::new(
        &stats_dir,
        if opts.worker.is_some() {
            Display::Quiet
        } else {
            opts.display
        },
        carried.restarts > 0,
    )?;
    let db = CrashDb::open(&state.join("crashes"))?;
    // an in-process worker after a restart must not repeat the mutations that led its predecessor
    // to the input that ended it
    let seed = opts
        .seed
        .wrapping_add(opts.worker.unwrap_or(0) as u64)
        .wrapping_add((carried.restarts as u64).wrapping_mul(0x9e37_79b9_7f4a_7c15));
    let mut guide = Guide::new(s.site_outcomes.clone(), opts.guidance);
    let (in_scope, scope_counts) = opts.guide_scope.sites(&s.target.program);
    guide.restrict(in_scope);
    // a worker that takes over from one that died appends to its log, and does not log its replay
    let new_log = opts
        .new_coverage_log
        .as_deref()
        .map(|p| newlog::NewLog::create(p, opts.worker, carried.restarts > 0))
        .transpose()?;
    let compares_floats = s.target.program.compares_floats();
    let mut f = Fuzzer {
        opts,
        s,
        fb,
        hang_map: HangMap::new(n_sites, n_outcomes),
        oom_map: HangMap::new(n_sites, n_outcomes),
        corpus: Corpus::default(),
        mutator,
        rng: ChaCha8Rng::seed_from_u64(seed),
        start,
        // an in-process worker's run began with the first worker's
        start_wall: if carried.start_wall > 0.0 {
            carried.start_wall
        } else {
            stats::unix_now_f64() - carried.elapsed.as_secs_f64()
        },
        monitor,
        db,
        raw_keys: Default::default(),
        crashes_found: carried.crashes_found,
        met_again: carried.crashes_met_again.iter().cloned().collect(),
        crashes_total: carried.crashes_total,
        timeouts: carried.timeouts.clone(),
        timeouts_total: carried.timeouts_total,
        ooms: carried.ooms.clone(),
        ooms_total: carried.ooms_total,
        corpus_new: carried.corpus_new,
        last_new: Duration::ZERO,
        worker,
        max_len,
        compares_floats,
        children: vec![],
        failed_workers: Default::default(),
        no_room_said: false,
        announced: Default::default(),
        unique: 0,
        exact_written: false,
        synced: 0,
        guide,
        stage: Stage::Seed,
        focus: None,
        focus_fitness: f64::INFINITY,
        i2s_origin: None,
        cmplog_at: 0,
        cmplog_queue: vec![],
        cmplog_tried: Default::default(),
        repair_misses: Default::default(),
        cfgs: Default::default(),
        callers: None,
        ladders: Default::default(),
        intra_ladders: Default::default(),
        caller_ladders: Default::default(),
        ops: vec![],
        str_ops: vec![],
        new_log,
        inproc,
        len_limit: max_len,
        len_mark: 0,
        loading: false,
        replay_cut: None,
        hang_confirmed: false,
        late_code_said: false,
        last_tick: Instant::now(),
        lite: Lite::default(),
        covered_written: 0,
        reduced: 0,
        reduce_runs: 0,
        new_features: vec![],
    };
    if opts.lite && f.s.target.executor.set_lite(true) {
        f.s.target.executor.set_lite(false);
        f.lite.able = true;
    }
    if let Some(ctx) = &f.inproc {
        // the files earlier workers of this run wrote are this run's, not the initial corpus's
        f.corpus.share_written(&ctx.written_log())?;
    }
    if opts.display != Display::Quiet && opts.worker.is_none() && carried.restarts == 0 {
        f.monitor.println(&format!(
            "evotest fuzz: {} ({}), {} branch outcomes in {} sites; max_len {max_len}, timeout {:?}, seed {seed}; corpus {}, stats in {}",
            opts.exe.display(),
            f.s.target.frontend.describe(),
            n_outcomes,
            n_sites,
            opts.timeout,
            opts.corpus.display(),
            stats_dir.display()
        ));
        let n_functions = f.s.target.program.functions.len();
        if let Some(r) = reach.as_ref().filter(|r| r.len() < n_functions) {
            let (all_i, all_f, all_s) = constants(&f.s.target.program, None);
            f.monitor.println(&format!(
                "evotest fuzz: constants: {} of {} integers, {} of {} floats, {} of {} strings, from the {} of {n_functions} instrumented functions the harness can reach",
                ints.len(),
                all_i.len(),
                floats.len(),
                all_f.len(),
                strs.len(),
                all_s.len(),
                r.len()
            ));
        }
        if opts.guidance && scope_counts.left_out() > 0 {
            f.monitor.println(&format!(
                "evotest fuzz: guidance: {}",
                scope_line(&scope_counts, n_sites)
            ));
        }
        for (loaded, copy) in crate::program::uninstrumented_libraries(&opts.exe) {
            f.monitor.println(&format!(
                "evotest fuzz: warning: {} is loaded without evotest's instrumentation; an instrumented copy is {} (set LD_LIBRARY_PATH={} to fuzz it)",
                loaded.display(),
                copy.display(),
                copy.parent().map_or_else(String::new, |p| p.display().to_string())
            ));
        }
        if let Some(d) = &opts.dict {
            // as libFuzzer's `Dictionary: N entries`
            f.monitor.println(&format!(
                "evotest fuzz: dictionary {}: {} entries",
                d.display(),
                dict_entries
            ));
        }
    }
    if let Some(text) =
        f.s.target
            .executor
            .take_startup_output()
            .filter(|_| opts.show_startup_output && opts.worker.is_none() && carried.restarts == 0)
    {
        // an error of LLVMFuzzerInitialize (a missing file) must not make a run that looks normal
        f.monitor.println(&startup_output_lines(&text));
    }
    f.say_no_stderr_room();
    if let Some(w) = f.s.target.executor.unbound().and_then(|u| u.warning()) {
        // AFL++ says "No more free CPU cores" too: a run at a fraction of its speed is explained
        if opts.worker.is_none() && carried.restarts == 0 {
            f.monitor.println(&format!("evotest fuzz: warning: {w}"));
        }
    }
    if let Some(n) = f.s.target.executor.threads_without_fork() {
        if opts.worker.is_none() && carried.restarts == 0 {
            f.monitor.println(&format!(
                "evotest fuzz: {} runs {n} threads before its first input (started by LLVMFuzzerInitialize or a constructor); \
                 a forked process would keep only one of them, so each process runs its inputs itself, without a fork \
                 (slower: a crash, an exit or a hang costs a restart)",
                opts.exe.display()
            ));
        }
    }
    f.start_workers()?;
    let result = f.campaign(files);
    f.stop_workers();
    result?;
    if let Some(l) = &mut f.new_log {
        l.end(f.s.executions, f.start.elapsed())?;
    }
    f.finish()
}

/// An input as libFuzzer prints one it could not write: its bytes in hex (`0x78,0x0,`), then
/// `Base64: …`.
fn input_as_text(data: &[u8]) -> String {
    let hex: String = data.iter().map(|b| format!("{b:#x},")).collect();
    format!(
        "{hex}\nBase64: {}",
        String::from_utf8_lossy(&i2s::b64_encode(data, false))
    )
}

/// The file in a `-j` worker's or an in-process worker's stats directory that lists the
/// outcomes it covered (JSON), for the main worker's summary and for the next in-process worker.
const COVERED_FILE: &str = "covered.json";

/// The outcomes listed in `dir`'s [`COVERED_FILE`] (none when it is missing or unreadable).
fn read_covered(dir: &Path) -> Vec<u32> {
    std::fs::read(dir.join(COVERED_FILE))
        .ok()
        .and_then(|b| serde_json::from_slice(&b).ok())
        .unwrap_or_default()
}

/// Most lines of the harness's start-up output shown ([`startup_output_lines`]).
const STARTUP_LINES: usize = 40;

/// The harness's start-up output (`FuzzOptions::show_startup_output`) as console lines: a heading,
/// then at most [`STARTUP_LINES`] of its lines as written (invalid UTF-8 replaced), and how many
/// more there were.
fn startup_output_lines(text: &[u8]) -> String {
    let text = String::from_utf8_lossy(text);
    let lines: Vec<&str> = text.lines().collect();
    let mut out = String::from("evotest fuzz: the harness wrote on standard error while starting (static constructors, LLVMFuzzerInitialize; -close_fd_mask=2 hides this):");
    for l in lines.iter().take(STARTUP_LINES) {
        out.push_str("\n");
        out.push_str(l);
    }
    if lines.len() > STARTUP_LINES {
        out.push_str(&format!(
            "\n... ({} more lines)",
            lines.len() - STARTUP_LINES
        ));
    }
    out
}

/// What the guidance's scope left out, for the opening lines: `frontier from 13 of 255 branch
/// sites (242 of library code left out)`.
fn scope_line(c: &scope::ScopeCounts, n_sites: usize) -> String {
    let reasons: Vec<String> = [
        (c.library, "of library code"),
        (c.not_included, "not matched by --frontier_include"),
        (c.excluded, "matched by --frontier_exclude"),
    ]
    .iter()
    .filter(|(n, _)| *n > 0)
    .map(|(n, why)| format!("{n} {why}"))
    .collect();
    format!(
        "frontier from {} of {n_sites} branch sites ({} left out)",
        c.kept,
        reasons.join(", ")
    )
}

/// The program's constants, without duplicates (for the mutator): integers, floats, and the
/// string literals it compares strings with (`strcmp`, `memcmp` and kin), of the functions the
/// harness may run ([`crate::program::Program::harness_scope`]): a library's functions that the
/// harness cannot reach would only dilute the mutator's draws.
fn constants(
    p: &crate::program::Program,
    scope: Option<&[usize]>,
) -> (Vec<i128>, Vec<f64>, Vec<Vec<u8>>) {
    let mut strs: Vec<Vec<u8>> = Vec::new();
    let mut ints = Vec::new();
    let mut seen_i = std::collections::HashSet::new();
    let mut floats = Vec::new();
    let mut seen_f = std::collections::HashSet::new();
    for c in p.scoped_constants(scope) {
        match *c {
            evotest_abi::meta::ConstantMeta::Int(i) => {
                if seen_i.insert(i) {
                    ints.push(i as i128);
                }
            }
            evotest_abi::meta::ConstantMeta::Float(x) => {
                if seen_f.insert(x.to_bits()) {
                    floats.push(x);
                }
            }
            evotest_abi::meta::ConstantMeta::Str(ref t) => {
                if !t.is_empty() && !strs.iter().any(|s| s.as_slice() == t.as_bytes()) {
                    strs.push(t.as_bytes().to_vec());
                }
            }
            evotest_abi::meta::ConstantMeta::Lattice(_) => {}
        }
    }
    (ints, floats, strs)
}

impl Fuzzer<'_> {
    fn elapsed(&self) -> Duration {
        self.start.elapsed()
    }

    /// Whether the budget is spent or the run interrupted.
    fn done(&self) -> bool {
        self.s.stopped()
            || self.opts.runs.is_some_and(|r| self.s.executions >= r)
            || (self.opts.stop_on_crash && self.met_crash())
    }

    /// Whether this worker met a crash: a new unique one, or a recorded one again.
    fn met_crash(&self) -> bool {
        self.crashes_found > 0 || !self.met_again.is_empty()
    }

    /// Whether this is an in-process worker replaying the corpus its predecessor left (whose
    /// inputs the new-coverage log already has).
    fn replaying(&self) -> bool {
        self.loading && self.restarted()
    }

    /// Whether this is an in-process worker that took over from one an input ended.
    fn restarted(&self) -> bool {
        self.inproc.as_ref().is_some_and(|w| w.carry.restarts > 0)
    }

    /// Whether the seeds' loading must stop: the run was interrupted or is out of time, or
    /// `-stop_on_crash` met a crash (not `-runs`, see [`Fuzzer::campaign`]).
    fn load_stopped(&self) -> bool {
        self.s.stopped() || (self.opts.stop_on_crash && self.met_crash())
    }

    fn stats(&self, done: bool) -> Stats {
        let t = self.elapsed().as_secs_f64();
        // a restarted in-process worker whose replay the run's end cut short (a crash just
        // before -max_total_time or at -runs): the corpus is the directory's, not the few
        // entries it replayed (the last status line said `corp: 0/0b`)
        let (mut corpus_count, mut corpus_bytes) = (self.corpus.len(), self.corpus.total_bytes());
        if let Some((n, b)) = self.replay_cut {
            corpus_count = corpus_count.max(n);
            corpus_bytes = corpus_bytes.max(b);
        }
        Stats {
            worker: self.worker.clone(),
            target: self.s.target.frontend.name().to_string(),
            delivery: format!("{:?}", self.s.delivery).to_lowercase(),
            seed: self
                .opts
                .seed
                .wrapping_add(self.opts.worker.unwrap_or(0) as u64),
            start_time: self.start_wall as u64,
            last_update: stats::unix_now(),
            run_time_seconds: t,
            execs_done: self.s.executions,
            execs_per_sec: if t > 0.0 {
                self.s.executions as f64 / t
            } else {
                0.0
            },
            corpus_count,
            corpus_new: self.corpus_new,
            corpus_synced: self.synced,
            corpus_bytes,
            corpus_reduced: self.reduced,
            reduce_runs: self.reduce_runs,
            lite_execs: self.lite.execs,
            lite_reruns: self.lite.reruns,
            havoc_full_execs: self.lite.full_execs,
            len_limit: self.len_limit,
            // an in-process worker that has not replayed the whole corpus yet: what the workers
            // before it covered
            outcomes_covered: self
                .fb
                .covered()
                .max(self.inproc.as_ref().map_or(0, |w| w.carry.outcomes_covered)),
            outcomes_total: self.s.n_outcomes(),
            features: self
                .fb
                .features()
                .max(self.inproc.as_ref().map_or(0, |w| w.carry.features)),
            unique_crashes: self.unique,
            crashes_found: self.crashes_found,
            crashes_met_again: self.met_again.iter().cloned().collect(),
            crashes_total: self.crashes_total,
            timeouts_unique: self.timeouts.len(),
            timeouts_total: self.timeouts_total,
            ooms_unique: self.ooms.len(),
            ooms_total: self.ooms_total,
            last_new_seconds: self.last_new.as_secs_f64(),
            max_len: self.max_len,
            inputs_per_process: self.s.target.executor.inputs_per_process(),
            slowest_exec_seconds: self.s.slowest.as_secs_f64(),
            peak_rss_mb: stats::peak_rss_mb(),
            done,
        }
    }

    /// Run the seeds, then the mutation loop.
    fn campaign(&mut self, files: Vec<(PathBuf, bool)>) -> Result<()> {
        if self.inproc.is_some() {
            // what may crash runs in a process of its own: the input that ended the last worker,
            // and crash artifacts no record knows
            let pending = self
                .inproc
                .as_ref()
                .is_some_and(|w| w.carry.pending.is_some());
            if pending || !self.orphan_artifacts().is_empty() {
                self.isolated(|f| {
                    f.handle_pending()?;
                    f.retriage_artifacts()
                })?;
            }
            self.hand_on()?;
        } else {
            self.retriage_artifacts()?;
        }
        // seeds: smallest first, so that small inputs claim coverage first
        let mut seeds: Vec<(usize, PathBuf, bool)> = files
            .into_iter()
            .map(|(p, own)| {
                (
                    std::fs::metadata(&p).map_or(0, |m| m.len() as usize),
                    p,
                    own,
                )
            })
            .collect();
        seeds.sort();
        self.loading = true;
        self.warm_up()?;
        // the seeds run in full whatever -runs says, as libFuzzer's do (`-runs=0` runs just the
        // seeds, the usual way to measure a corpus); a restarted in-process worker's replay is a
        // continuation and stops at the budget
        let replay = self.restarted();
        let n_seeds = seeds.len();
        // how the seeds ended: a whole program that rejects its arguments ends every one the
        // same way, and was fuzzed to the end in silence
        let mut seed_exits: Vec<ExitKind> = Vec::new();
        for (_, path, own) in seeds {
            if if replay {
                self.done()
            } else {
                self.load_stopped()
            } {
                if replay {
                    // the corpus this worker did not get to replay: the directory's (its files
                    // are the run's corpus, as the summary counts them)
                    let files = corpus::list_files(&self.opts.corpus).unwrap_or_default();
                    let bytes = files
                        .iter()
                        .filter_map(|f| std::fs::metadata(f).ok())
                        .map(|m| m.len().min(self.max_len as u64))
                        .sum();
                    self.replay_cut = Some((files.len(), bytes));
                }
                break;
            }
            let Ok(mut data) = std::fs::read(&path) else {
                continue;
            };
            data.truncate(self.max_len);
            if own {
                if let Some(n) = path.file_name() {
                    self.corpus.mark_known(&n.to_string_lossy());
                }
            }
            // an own file keeps its name: only copies of outside seeds are written
            let name_ok = own && path.parent() == Some(self.opts.corpus.as_path());
            self.evaluate(&data, !name_ok)?;
            seed_exits.push(self.s.last_exit);
            self.periodic(false)?;
        }
        if self.s.delivery != Delivery::LibFuzzer
            && !replay
            && n_seeds >= 1
            && seed_exits.len() == n_seeds
            && self.corpus.len() <= 1
        {
            if let Some(ExitKind::Exit { code }) = seed_exits.first().copied() {
                if code != 0 && seed_exits.iter().all(|e| *e == ExitKind::Exit { code }) {
                    self.monitor.println(&format!(
                        "evotest fuzz: warning: every seed ({n_seeds}) made the program exit with status {code} along the same path: it may reject its arguments or its input's form (run it by hand on a seed, with the arguments after --, to see what it says)"
                    ));
                }
            }
        }
        if self.corpus.is_empty() && !self.load_stopped() && !self.s.is_killer(b"") {
            // no seed added coverage (or there were none): start from the empty input
            self.s.run(b"")?;
            let replaying = self.replaying();
            if let (Some(l), false) = (&mut self.new_log, replaying) {
                l.input(self.s.executions, self.start.elapsed(), b"")?;
            }
            let outcomes = self.s.cov.outcomes.clone();
            let mut unique = vec![];
            self.fb.add_listing(&self.s.cov, &mut unique);
            let cost = corpus::cost_of(&self.s.cov);
            if self.corpus.add(
                vec![],
                outcomes,
                unique,
                cost,
                self.elapsed(),
                Some(&self.opts.corpus),
            )? {
                self.corpus_new += 1;
            }
        }
        self.loading = false;
        // what the workers before this one covered and its replay did not take again
        let carried: Vec<u32> = self
            .inproc
            .as_ref()
            .map(|w| w.carry.covered.clone())
            .unwrap_or_default();
        for o in carried {
            self.fb.mark_covered(o);
        }
        if self.inproc.is_some() {
            // what the replay and the seeds took, for the next worker should this one die
            // before its first periodic write
            self.write_covered()?;
        }
        // length control starts from the corpus as loaded (libFuzzer: at least 4 bytes), or, in
        // an in-process worker after a restart, where the last worker's had come to
        if self.opts.len_control > 0 {
            let carried = self.inproc.as_ref().map_or(0, |w| w.carry.len_limit);
            let from = if carried > 0 {
                carried
            } else {
                self.corpus.max_size().max(4)
            };
            self.len_limit = from.min(self.max_len);
        }
        self.len_mark = self.s.executions;
        let st = self.stats(false);
        self.monitor.event("INITED", &st);
        let guided = self.opts.guidance;
        if guided {
            self.guide.refresh(&self.fb);
        }
        let by_time = self.by_time();
        self.last_tick = Instant::now();
        let mut last_sync = Instant::now();
        let mut since_reweigh = 0u32;
        let (mut last_reweigh, mut reweigh_took) = (Instant::now(), Duration::ZERO);
        let mut data = Vec::with_capacity(self.max_len);
        while !self.done() {
            // a directed attempt, while they have had no more executions and no more time than
            // havoc; its AVM only on the credit havoc has earned (see guide.rs: Scheduling)
            if let Some(credit) = guided.then(|| self.guide.stats.credit(by_time)).flatten() {
                let avm = !self.opts.i2s_only;
                let need = |t: &guide::Target| {
                    let len = t.pool.last().map_or(0, Vec::len);
                    avm.then(|| directed::avm_need(len, t.influence_for(len).is_some()))
                };
                // input-to-state on every compare of the next corpus entry, while it has had no
                // more executions than the attempts; the attempts otherwise, the influence probe
                // and the AVM on the share their recent yield earns; input-to-state on every
                // compare again with the credit the search does not keep
                let st = &self.guide.stats;
                let cmplog_credit = st.arm_credit(guide::Arm::Cmplog, by_time).unwrap_or(0);
                let cmplog_turn =
                    st.execs_cmplog <= st.execs_i2s + st.execs_influence + st.execs_avm;
                if cmplog_turn && cmplog_credit > 0 && self.cmplog_pending() {
                    self.cmplog_step(cmplog_credit)?;
                    continue;
                }
                let search_credit = self
                    .guide
                    .stats
                    .arm_credit(guide::Arm::Search, by_time)
                    .unwrap_or(0);
                if let Some(t) = self.guide.pick(search_credit, need) {
                    self.attempt(t, credit, search_credit)?;
                    continue;
                }
                let spare = credit
                    .saturating_sub(if avm { search_credit } else { 0 })
                    .min(cmplog_credit);
                if spare > 0 && self.cmplog_pending() {
                    self.cmplog_step(spare)?;
                    continue;
                }
            }
            self.stage = Stage::Havoc;
            self.raise_len_limit();
            let Some(i) = self.corpus.pick(&mut self.rng, &self.fb) else {
                break;
            };
            data.clear();
            let pool = if guided && rand::Rng::random_range(&mut self.rng, 0..8) == 0 {
                let r: [usize; 4] =
                    std::array::from_fn(|_| rand::Rng::random::<u32>(&mut self.rng) as usize);
                self.guide.pool_input(r)
            } else {
                None
            };
            let from_entry = pool.is_none();
            data.extend_from_slice(pool.unwrap_or(&self.corpus.entries[i].data));
            let other = if self.corpus.len() > 1 {
                let j = rand::Rng::random_range(&mut self.rng, 0..self.corpus.len());
                Some(self.corpus.entries[j].data.as_slice())
            } else {
                None
            };
            // never shorter than the input mutated (libFuzzer's rule)
            let limit = self.len_limit.max(data.len());
            self.mutator
                .mutate_within(&mut self.rng, &mut data, other, limit);
            let d = std::mem::take(&mut data);
            let want = self.lite.able && self.lite.turn(guided, by_time);
            // its seconds, as `evaluate` adds them to havoc's
            let before = self.guide.stats.secs_havoc;
            let (lite, plain) = self.evaluate_maybe_lite(&d, want);
            let secs = self.guide.stats.secs_havoc - before;
            if lite {
                self.lite.execs += 1;
                self.lite.secs += secs;
            } else {
                self.lite.full_execs += 1;
                self.lite.full_secs += secs;
            }
            let plain = plain?;
            if plain && from_entry && self.opts.reduce_inputs {
                self.reduce(i, &d)?;
            }
            data = d;
            since_reweigh += 1;
            // every 2000 executions, but never more than 2% of the time: a large corpus of
            // inputs with many outcomes each takes milliseconds to weigh. Under an execution
            // budget alone (not `by_time`) the gate counts work, not time, so that the same
            // -seed and -runs give the same run on a loaded machine (`Corpus::reweigh_due`;
            // the time gate made a CI run's two runs of one seed part after 13,000 executions)
            let due = since_reweigh >= 2000
                && if by_time {
                    last_reweigh.elapsed() >= reweigh_took * 50
                } else {
                    self.corpus.reweigh_due(since_reweigh)
                };
            if due {
                since_reweigh = 0;
                let t = Instant::now();
                self.corpus.reweigh(&self.fb);
                last_reweigh = Instant::now();
                reweigh_took = last_reweigh - t;
            }
            // (the stats follow every second from `evaluate`, whichever stage runs)
            if last_sync.elapsed() >= self.opts.sync_interval {
                last_sync = Instant::now();
                self.sync()?;
            }
        }
        Ok(())
    }

    /// Before the seeds, when the executor has not measured what a fresh process's first
    /// execution costs ([`crate::exec::Executor::setup_unmeasured`]): run the empty input once,
    /// as libFuzzer does before its seeds. Until a first execution has ended normally, each one
    /// may take [`crate::exec::FIRST_RUN_TIMEOUT_FACTOR`] times its limit, and a seed that hangs
    /// cost that twice (its run at the suspect limit, then its confirmation in a fresh process:
    /// 11 s at `-timeout=1`, so that a short `-max_total_time` ended before it was recorded).
    /// The run is the target's set-up, not an input of the run: it is not counted (`-runs=0`
    /// runs the seeds), and its coverage is not kept; a crash, hang or out-of-memory kill on it
    /// is a finding as any.
    fn warm_up(&mut self) -> Result<()> {
        if self.s.delivery != Delivery::LibFuzzer
            || !self.s.target.executor.setup_unmeasured()
            || self.s.is_killer(b"")
            || self.load_stopped()
        {
            return Ok(());
        }
        let t0 = Instant::now();
        let (outcome, exit) = self.s.run_full(b"")?;
        self.s.executions -= 1;
        match outcome {
            Outcome::Stopped if !self.s.timeout.is_zero() && t0.elapsed() > self.s.timeout => {
                // the run's end came while the empty input ran past the timeout (on the set-up's
                // allowance): a hang the run ends on must not leave it with nothing (it ran no
                // input, kept no artifact and exited 0); already past the timeout, so no
                // confirmation in a fresh process
                self.hang_confirmed = true;
                self.on_hang(b"", Outcome::Timeout)
            }
            Outcome::Normal | Outcome::Stopped => Ok(()),
            Outcome::Crash => self.on_crash(b"", exit),
            Outcome::Timeout | Outcome::Oom => self.on_hang(b"", outcome),
        }
    }

    /// Once in a run: a warning when the file system that keeps the target's standard error (in
    /// `TMPDIR`) has less than 64 KB free, where sanitizer reports and crash stacks are lost and
    /// different crashes look alike (their signal alone).
    fn say_no_stderr_room(&mut self) {
        if self.no_room_said {
            return;
        }
        if let Some(room) = self
            .s
            .target
            .executor
            .stderr_room()
            .filter(|&b| b < 64 << 10)
        {
            self.no_room_said = true;
            self.monitor.println(&format!(
                "evotest fuzz: warning: the target's standard error is kept in TMPDIR ({}), which has {room} bytes free: \
                 crash reports and stacks cannot be kept, and different crashes will look alike; free some space or set TMPDIR elsewhere",
                std::env::temp_dir().display()
            ));
        }
    }

    /// A line for each `-j` worker that ended with an error since the last call (one that could not
    /// start said so only in its own log, and the summary still counted it).
    fn say_failed_workers(&mut self) {
        for (i, (c, dir)) in self.children.iter_mut().enumerate() {
            if self.failed_workers.contains(&i) {
                continue;
            }
            if let Ok(Some(status)) = c.try_wait() {
                if !status.success() {
                    self.failed_workers.insert(i);
                    let why = std::fs::read_to_string(dir.join("log.txt"))
                        .ok()
                        .and_then(|t| {
                            t.lines()
                                .rfind(|l| l.starts_with("error: "))
                                .map(str::to_string)
                        })
                        .unwrap_or_else(|| status.to_string());
                    self.monitor.println(&format!(
                        "evotest fuzz: warning: worker-{} ended: {why} (its log: {})",
                        i + 1,
                        dir.join("log.txt").display()
                    ));
                }
            }
        }
    }

    /// Once in a run: a warning when the target registered instrumented code the trace map was
    /// not sized for (a library opened with `dlopen` while inputs ran), whose branches are then
    /// not recorded.
    fn say_late_code(&mut self) {
        if !self.late_code_said && self.s.target.executor.registration_overflow() != 0 {
            self.late_code_said = true;
            self.monitor.println(
                "evotest fuzz: warning: the target loaded instrumented code while it ran inputs that its executable and \
                 the libraries it starts with do not hold (a library opened with dlopen?): its branches are neither \
                 counted nor guided; link it into the harness, or link the harness against it (-lNAME)",
            );
        }
    }

    /// Stats, status and plot, every second (`force`) or when the status is due.
    fn periodic(&mut self, force: bool) -> Result<()> {
        if force {
            self.say_late_code();
            self.say_failed_workers();
            let records = self.db.all();
            self.unique = records.len();
            self.announce_workers_crashes(records);
            let mut st = self.stats(false);
            self.aggregate(&mut st);
            self.monitor.tick(&st)?;
            if self.inproc.is_some() && !self.loading && self.fb.covered() != self.covered_written {
                // for the next worker, should this one die
                self.write_covered()?;
            }
        }
        Ok(())
    }

    /// With `-j`, in the main worker: a line for each unique crash of `records` (the shared
    /// record's) that another worker of this run recorded since the last call, as the worker that
    /// finds one prints for its own (a crash found by `worker-1` was announced nowhere until the
    /// summary: its log is its own).
    fn announce_workers_crashes(&mut self, records: Vec<CrashRecord>) {
        if self.children.is_empty() {
            return;
        }
        let mut fresh: Vec<CrashRecord> = records
            .into_iter()
            .filter(|r| {
                r.worker != self.worker
                    && r.found_unix >= self.start_wall
                    && !self.announced.contains(&r.signature)
            })
            .collect();
        fresh.sort_by(|a, b| a.found_unix.total_cmp(&b.found_unix));
        for r in fresh {
            self.announced.insert(r.signature.clone());
            self.monitor.println(&format!(
                "==evotest== unique crash found by {}: {}; artifact {}",
                r.worker,
                r.signature,
                r.artifact.display()
            ));
        }
    }

    /// Write the outcomes covered so far to [`COVERED_FILE`] in the stats directory.
    ///
    /// Errors: the file cannot be written.
    fn write_covered(&mut self) -> Result<()> {
        let covered: Vec<u32> = (0..self.s.n_outcomes() as u32)
            .filter(|&o| self.fb.is_covered(o))
            .collect();
        let p = self.monitor.dir().join(COVERED_FILE);
        write_atomic(&p, serde_json::to_string(&covered)?.as_bytes())
            .with_context(|| format!("cannot write {}", p.display()))?;
        self.covered_written = covered.len();
        Ok(())
    }

    /// Show the totals of all workers in the parent's status line.
    fn aggregate(&self, st: &mut Stats) {
        for (_, dir) in &self.children {
            if let Some(c) = stats::read(dir) {
                st.execs_done += c.execs_done;
                st.execs_per_sec += c.execs_per_sec;
                st.outcomes_covered = st.outcomes_covered.max(c.outcomes_covered);
                st.features = st.features.max(c.features);
                st.corpus_count = st.corpus_count.max(c.corpus_count);
                st.crashes_total += c.crashes_total;
                st.crashes_found += c.crashes_found;
            }
        }
    }

    /// Read the string operand log of the last execution (of `data`) into `self.str_ops`, and give
    /// havoc the compared strings that are not bytes of `data` as tokens ([`i2s::str_tokens`]).
    fn harvest_strings(&mut self, data: &[u8]) {
        let mut ops = std::mem::take(&mut self.str_ops);
        self.s.target.executor.last_str_operands(&mut ops);
        for r in &ops {
            for t in i2s::str_tokens(data, r) {
                self.mutator.observe_token(&t);
            }
        }
        self.str_ops = ops;
    }

    /// For each target the last execution's input just became the best of
    /// ([`guide::Guide::improved`]), keep its site's operand records from that execution
    /// ([`guide::Target::start_ops`]): the next attempt on it reads them instead of running
    /// the input again. The log is read once for all of them.
    fn keep_start_operands(&mut self) {
        let (mut ops, mut str_ops) = (
            std::mem::take(&mut self.ops),
            std::mem::take(&mut self.str_ops),
        );
        let exec = &self.s.target.executor;
        if exec.last_operands(&mut ops) && exec.last_str_operands(&mut str_ops) {
            for &ti in &self.guide.improved {
                let t = &mut self.guide.targets[ti];
                let site = t.site;
                t.start_ops = Some((
                    ops.iter().filter(|r| r.site == site).copied().collect(),
                    str_ops.iter().filter(|r| r.site == site).copied().collect(),
                ));
            }
        }
        (self.ops, self.str_ops) = (ops, str_ops);
    }

    /// Length control (`FuzzOptions::len_control`, libFuzzer's rule): after `len_control` ×
    /// log2(limit) executions without progress, the limit grows by log2(limit) bytes. Progress
    /// is new coverage or, with guidance, a lower best distance of a frontier outcome (libFuzzer
    /// counts its value-profile features, which the distance pool stands for here).
    fn raise_len_limit(&mut self) {
        let lc = self.opts.len_control as u64;
        if lc == 0 || self.len_limit >= self.max_len {
            return;
        }
        let log = self.len_limit.max(1).ilog2() as u64;
        if self.s.executions.saturating_sub(self.len_mark) > lc * log {
            self.len_limit = (self.len_limit + log.max(1) as usize).min(self.max_len);
            self.len_mark = self.s.executions;
        }
    }

    /// After a plain execution (see [`Fuzzer::evaluate`]) of `data`, a mutant of entry `i`:
    /// replace the entry when `data` is shorter and has every feature the entry brought
    /// (`FuzzOptions::reduce_inputs`). A quiet site records the outcome of its first evaluation
    /// only (a loop's exit is not its first), so when the only features missing are outcomes of
    /// quiet sites that ran, `data` runs once more with every site recorded in full.
    fn reduce(&mut self, i: usize, data: &[u8]) -> Result<()> {
        let e = &self.corpus.entries[i];
        if data.len() >= e.data.len() || e.unique.is_empty() {
            return Ok(());
        }
        // a coverage-only execution counts every evaluation (no quiet site hides an outcome): a
        // feature its words lack is missing, and its lists are built only for a replacement
        if self.s.cov.is_pending()
            && !e
                .unique
                .iter()
                .all(|f| f.is_in_words(&self.s.cov, &self.s.site_outcomes))
        {
            return Ok(());
        }
        self.s.list_coverage();
        let e = &self.corpus.entries[i];
        let mut hidden = false;
        for &f in e.unique.iter().filter(|f| !f.is_in(&self.s.cov)) {
            match f {
                feedback::Feature::Outcome(o) if self.quiet_outcome(o) => hidden = true,
                _ => return Ok(()),
            }
        }
        if hidden {
            self.s.target.executor.suspend_quiet(true);
            let run = self.s.run(data);
            self.s.target.executor.suspend_quiet(false);
            let (outcome, exit) = run?;
            if outcome != Outcome::Stopped {
                self.guide.stats.count(self.stage, 0);
                self.reduce_runs += 1;
            }
            match outcome {
                Outcome::Normal => {}
                Outcome::Stopped => return Ok(()),
                // not the first time: a flaky fault is a result all the same
                Outcome::Crash => return self.on_crash(data, exit),
                Outcome::Timeout | Outcome::Oom => return self.on_hang(data, outcome),
            }
            if !self.corpus.entries[i]
                .unique
                .iter()
                .all(|f| f.is_in(&self.s.cov))
            {
                return Ok(());
            }
        }
        let outcomes = self.s.cov.outcomes.clone();
        let cost = corpus::cost_of(&self.s.cov);
        if self
            .corpus
            .replace(i, data.to_vec(), outcomes, cost, Some(&self.opts.corpus))?
        {
            self.reduced += 1;
        }
        Ok(())
    }

    /// Whether outcome `o` may have been taken by the last execution unseen: its site ran and is
    /// quiet (every outcome of it covered, [`Session::quiet_covered`]).
    fn quiet_outcome(&self, o: u32) -> bool {
        let Some(&site) = self.s.outcome_site.get(o as usize) else {
            return false;
        };
        let Some(&(base, n)) = self.s.site_outcomes.get(site as usize) else {
            return false;
        };
        self.s
            .cov
            .sites
            .binary_search_by_key(&site, |&(x, _)| x)
            .is_ok()
            && (base..base + n).all(|x| self.fb.is_covered(x))
    }

    /// Whether the stages share time as well as executions: not under an execution budget alone
    /// (`-runs`), where they share only executions, so that a run is reproducible from its seed.
    fn by_time(&self) -> bool {
        self.opts.runs.is_none() || self.opts.max_total_time.is_some()
    }

    /// [`Fuzzer::evaluate`] of `data`, as a coverage-only execution when `want` and the executor
    /// can ([`Lite`]); returns whether it was, and `evaluate`'s result.
    fn evaluate_maybe_lite(&mut self, data: &[u8], want: bool) -> (bool, Result<bool>) {
        let lite = want && self.s.target.executor.set_lite(true);
        self.lite.now = lite;
        let r = self.evaluate(data, true);
        if lite {
            self.s.target.executor.set_lite(false);
            self.lite.now = false;
        }
        (lite, r)
    }

    /// Run `data` and act on the result: keep it if it adds coverage (writing it into the corpus
    /// directory if `write`), triage a fault. Returns whether the execution was *plain*: it ran to
    /// its end, added nothing, and ran nothing else after it (its coverage is still `self.s.cov`).
    /// The stats, status and plot follow every second, whichever stage runs (the directed
    /// stages' executions come here too: a run in them left `fuzzer_stats.json` minutes old).
    fn evaluate(&mut self, data: &[u8], write: bool) -> Result<bool> {
        // -only_ascii: what the run makes, not the seeds it loads (libFuzzer's rule)
        let mut ascii = Vec::new();
        let data =
            if self.opts.only_ascii && !self.loading && data.iter().any(|&x| ascii_byte(x) != x) {
                ascii.extend_from_slice(data);
                to_ascii(&mut ascii);
                &ascii[..]
            } else {
                data
            };
        let plain = self.evaluate_once(data, write)?;
        if self.last_tick.elapsed() >= Duration::from_secs(1) {
            self.last_tick = Instant::now();
            self.periodic(true)?;
        }
        Ok(plain)
    }

    /// [`Fuzzer::evaluate`] without the periodic stats.
    fn evaluate_once(&mut self, data: &[u8], write: bool) -> Result<bool> {
        let t0 = Instant::now();
        let (mut outcome, mut exit) = self.s.run_pending(data)?;
        // a coverage-only execution that adds nothing (the common case) is counted from the lite
        // map's words; its lists are built only if something needs them (see `reduce`); every
        // other execution's are built here
        let pending = self.s.cov.is_pending() && outcome == Outcome::Normal;
        let fresh = if pending {
            self.fb.is_new_else_count(&self.s.cov)
        } else {
            None
        };
        // counted: this execution's outcomes are in the frequencies; plain: it added nothing
        let (counted, plain) = (fresh.is_some(), fresh == Some(false));
        if !plain {
            self.s.list_coverage();
        }
        if self.lite.now
            && outcome == Outcome::Normal
            && !self.s.last_rejected
            && fresh.unwrap_or_else(|| self.fb.is_new(&self.s.cov))
        {
            // a coverage-only execution found something: run it in full (distances, operands)
            self.s.target.executor.set_lite(false);
            self.lite.now = false;
            self.lite.reruns += 1;
            self.guide.stats.count(self.stage, 0);
            (outcome, exit) = self.s.run(data)?;
        }
        let lite = self.lite.now;
        if outcome == Outcome::Timeout && self.s.suspected() && self.hang_map.is_new(&self.s.cov) {
            // not a known hang: the whole timeout decides (a slow input may end normally); a
            // second timeout, at the whole limit, confirms it (even after the deadline)
            (outcome, exit) = self.s.run_confirm(data)?;
            self.hang_confirmed = outcome == Outcome::Timeout;
        }
        let ran = t0.elapsed().as_secs_f64();
        let mut new_outcomes = 0;
        // an input the harness rejected (-1) adds nothing, whatever it covered (libFuzzer)
        let rejected = outcome == Outcome::Normal && self.s.last_rejected;
        let is_new =
            outcome == Outcome::Normal && !plain && !rejected && self.fb.is_new(&self.s.cov);
        if is_new {
            self.new_features.clear();
            new_outcomes = self.fb.add_listing(&self.s.cov, &mut self.new_features).0;
            self.len_mark = self.s.executions;
            if new_outcomes > 0 {
                self.s.quiet_covered(&self.fb);
            }
            self.hand_on_coverage();
            let replaying = self.replaying();
            if let (Some(l), false) = (&mut self.new_log, replaying) {
                l.input(self.s.executions, self.start.elapsed(), data)?;
            }
        }
        if self.opts.guidance && !lite && matches!(outcome, Outcome::Normal | Outcome::Crash) {
            // distance feedback, before triage runs anything else, on a current frontier
            if is_new {
                self.guide.refresh(&self.fb);
                self.harvest_strings(data);
            }
            let exec = &self.s.target.executor;
            let improved = self.guide.stats.distance_improvements;
            self.guide
                .observe(&self.s.cov, |o| exec.last_distance(o), data);
            let origin = match self.stage {
                Stage::I2s => self.i2s_origin,
                s => guide::Arm::of(s),
            };
            for &i in &self.guide.improved {
                self.guide.targets[i].made_by = origin;
            }
            if let Some(f) = &self.focus {
                self.focus_fitness =
                    Guide::fitness(f.site, f.outcome, &f.ladder, &self.s.cov, |o| {
                        exec.last_distance(o)
                    });
            }
            if self.guide.stats.distance_improvements > improved {
                // progress, as a new value-profile feature is to libFuzzer's length control
                self.len_mark = self.s.executions;
                self.keep_start_operands();
            }
        } else if self.focus.is_some() {
            // a timeout or out-of-memory kill: its partial coverage says nothing
            self.focus_fitness = f64::INFINITY;
        }
        match outcome {
            Outcome::Stopped => {}
            Outcome::Normal => {
                if !counted {
                    self.fb.count(&self.s.cov);
                }
                if is_new {
                    let outcomes = self.s.cov.outcomes.clone();
                    let dir = write.then_some(self.opts.corpus.as_path());
                    let unique = self.new_features.clone();
                    let cost = corpus::cost_of(&self.s.cov);
                    // the seeds copied in are not counted (libFuzzer's new_units_added)
                    if self.corpus.add(
                        data.to_vec(),
                        outcomes,
                        unique,
                        cost,
                        self.elapsed(),
                        dir,
                    )? && !self.loading
                    {
                        self.corpus_new += 1;
                        // an in-process worker may die at the next input: the count goes on
                        self.hand_on_coverage();
                    }
                    self.last_new = self.elapsed();
                    if self.monitor.prints_events() && !self.loading {
                        let st = self.stats(false);
                        self.monitor.event("NEW", &st);
                    }
                }
            }
            Outcome::Crash => self.on_crash(data, exit)?,
            Outcome::Timeout | Outcome::Oom => self.on_hang(data, outcome)?,
        }
        if outcome != Outcome::Stopped {
            self.guide.stats.count(self.stage, new_outcomes);
            if let (Stage::I2s, Some(arm), 1..) = (self.stage, self.i2s_origin, new_outcomes) {
                self.guide.stats.yields.credit(arm, new_outcomes);
            }
        }
        self.guide.stats.add_time(self.stage, ran);
        // a rejected input is no plain one either: it must not replace a corpus entry (reduction)
        Ok(outcome == Outcome::Normal && !is_new && !rejected)
    }

    /// Run the files in the corpus directory that another worker wrote since the last look.
    fn sync(&mut self) -> Result<()> {
        let Ok(rd) = std::fs::read_dir(&self.opts.corpus) else {
            return Ok(());
        };
        let mut new: Vec<(String, PathBuf)> = rd
            .flatten()
            .filter(|e| e.file_type().is_ok_and(|t| t.is_file()))
            .map(|e| (e.file_name().to_string_lossy().into_owned(), e.path()))
            .filter(|(n, _)| !n.starts_with('.') && !self.corpus.knows(n))
            .collect();
        new.sort();
        let stage = std::mem::replace(&mut self.stage, Stage::Seed);
        for (name, path) in new {
            if self.done() {
                break;
            }
            self.corpus.mark_known(&name);
            let Ok(mut data) = std::fs::read(&path) else {
                continue;
            };
            data.truncate(self.max_len);
            self.synced += 1;
            if let Err(e) = self.evaluate(&data, false) {
                self.stage = stage;
                return Err(e);
            }
        }
        self.stage = stage;
        Ok(())
    }

    /// Triage a crashing input (see module docs).
    fn on_crash(&mut self, data: &[u8], exit: ExitKind) -> Result<()> {
        self.crashes_total += 1;
        let found_at = self.s.executions;
        let mut report = self.s.report(exit);
        if report.frames.is_empty() {
            // no stack: perhaps no room left to keep one
            self.say_no_stderr_room();
        }
        let raw = report.raw_key();
        if self.raw_keys.contains_key(&raw) {
            return Ok(());
        }
        // again, in a fresh process (a persistent child that crashed is gone): does it reproduce?
        // (even after the deadline: a crash met at the end is kept). In full, not coverage-only:
        // the report whose stack names the crash is the original functions', not their clones'
        // (whose return addresses have other lines, or, unsymbolised, other offsets: one bug was
        // two unique crashes)
        if self.lite.now {
            self.s.target.executor.set_lite(false);
            self.lite.now = false;
        }
        let (again, exit2) = self.s.run_confirm(data)?;
        if again == Outcome::Stopped {
            return Ok(());
        }
        let reproduced = again == Outcome::Crash;
        if reproduced {
            let r2 = self.s.report(exit2);
            if !r2.frames.is_empty() || report.frames.is_empty() {
                report = r2;
            }
        }
        // the raw stack, before symbolisation adds inlined frames: what minimisation compares
        let target_raw = report.raw_key();
        self.s.symbolizer.symbolize(&mut report);
        let signature = report.signature();
        self.raw_keys.insert(raw, signature.clone());
        self.raw_keys.insert(target_raw.clone(), signature.clone());
        // libFuzzer's names: leak-<sha1> for a memory leak, crash-<sha1> otherwise
        let stem = if report.kind == triage::LEAK_KIND {
            "leak"
        } else {
            "crash"
        };
        if self.db.contains(&signature) {
            return self.met_again(data, &signature, stem, &target_raw, reproduced);
        }
        let name = format!("{stem}-{}", sha1_hex(data));
        let artifact = self.opts.artifact(&name);
        // a file of that name written by someone else (libFuzzer names its artifacts the same
        // way) is theirs: it stays, whatever minimisation makes of this one
        let foreign = artifact.exists() && !self.db.pending().contains(&artifact);
        // a full disk or a directory gone must not lose the crash: what cannot be written is
        // said, the input's bytes go to standard error (as libFuzzer prints them), and the crash
        // is counted and reported all the same
        if let Err(e) = self.db.intend(&artifact) {
            self.monitor
                .println(&format!("evotest fuzz: warning: {e:#}"));
        }
        if let Err(e) = write_atomic(&artifact, data) {
            self.monitor.println(&format!(
                "evotest fuzz: cannot write {}: {e:#}; the input is kept here instead:\n{}",
                artifact.display(),
                input_as_text(data)
            ));
        }
        let mut record = CrashRecord {
            signature: signature.clone(),
            kind: report.kind.clone(),
            sanitizer: report.sanitizer.clone(),
            frames: report.frames.iter().map(|f| f.describe()).collect(),
            artifact: artifact.clone(),
            size: data.len(),
            minimized: false,
            reproduced,
            found_seconds: self.elapsed().as_secs_f64(),
            found_unix: stats::unix_now_f64(),
            found_executions: found_at,
            worker: self.worker.clone(),
            report: match (&report.message, &report.location) {
                (Some(m), Some(l)) => format!(
                    "{m} (at {l})\n{}\n{}",
                    report.text.lines().next().unwrap_or(""),
                    report.stack_text()
                ),
                _ => format!(
                    "{}\n{}",
                    report.text.lines().next().unwrap_or(""),
                    report.stack_text()
                ),
            },
        };
        let claimed = self.db.claim(&record).unwrap_or_else(|e| {
            self.monitor.println(&format!(
                "evotest fuzz: warning: cannot record the crash in the corpus's state: {e:#}"
            ));
            true
        });
        if !claimed {
            // another worker recorded it a moment ago: its artifact is the one to keep
            if !foreign
                && self
                    .db
                    .get(&signature)
                    .is_some_and(|r| r.artifact != artifact)
            {
                let _ = std::fs::remove_file(&artifact);
            }
            self.db.settle(&artifact);
            return Ok(());
        }
        self.db.settle(&artifact);
        self.crashes_found += 1;
        self.unique += 1;
        let top: Vec<String> = report.top_frames().iter().map(|f| f.describe()).collect();
        let said = match (&report.message, &report.location) {
            (Some(m), Some(l)) => format!("{m} (at {l}); "),
            _ => String::new(),
        };
        self.monitor.println(&format!(
            "==evotest== unique crash #{} ({}): {said}{}{}",
            self.crashes_found,
            report.kind,
            if top.is_empty() {
                "no stack".to_string()
            } else {
                top.join(" < ")
            },
            if reproduced {
                ""
            } else {
                " [did not crash again in a fresh process]"
            }
        ));
        if !record.artifact.is_file() {
            // not written (its bytes were printed above)
            return Ok(());
        }
        if let Err(e) = self.minimize_artifact(data, stem, &target_raw, &mut record, foreign) {
            self.monitor.println(&format!(
                "evotest fuzz: warning: the crash's input was not minimised: {e:#}"
            ));
        }
        // after the minimisation, which replaces the file: the line names the one that stays
        // (scripts read the path from libFuzzer's wording)
        self.monitor.println(&format!(
            "artifact_prefix='{}'; Test unit written to {}",
            self.opts.artifact_prefix,
            record.artifact.display()
        ));
        self.exact_copy(&record.artifact)
    }

    /// Minimise the reproducer `data` of crash `record`, whose artifact (`record.artifact`,
    /// written and recorded) holds `data`, when `-minimize` asks and the crash reproduced:
    /// a smaller input that crashes with the same raw stack (`target_raw`) is written as
    /// `<stem>-<sha1>`, recorded, and the first artifact removed unless `foreign` (a file of that
    /// name that evotest did not write).
    ///
    /// Errors: an artifact or the record cannot be written, the executor broke.
    fn minimize_artifact(
        &mut self,
        data: &[u8],
        stem: &str,
        target_raw: &str,
        record: &mut CrashRecord,
        foreign: bool,
    ) -> Result<()> {
        if !(self.opts.minimize && record.reproduced && data.len() > 1) {
            return Ok(());
        }
        let artifact = record.artifact.clone();
        let budget = minimize::Budget {
            max_execs: MINIMIZE_EXECS,
            deadline: Some(Instant::now() + MINIMIZE_TIME),
        };
        let small = minimize::shrink(&mut self.s, data, &budget, |s, exit| {
            s.report(exit).raw_key() == target_raw
        })?;
        record.minimized = true;
        if small.len() == data.len() {
            return self.db.update(record);
        }
        let min_name = format!("{stem}-{}", sha1_hex(&small));
        let min_path = self.opts.artifact(&min_name);
        self.db.intend(&min_path)?;
        write_atomic(&min_path, &small)
            .with_context(|| format!("cannot write {}", min_path.display()))?;
        record.artifact = min_path.clone();
        record.size = small.len();
        self.db.update(record)?;
        self.db.settle(&min_path);
        if !foreign {
            let _ = std::fs::remove_file(&artifact);
        }
        self.monitor.println(&format!(
            "==evotest== minimised from {} to {} bytes: {}",
            data.len(),
            small.len(),
            min_path.display()
        ));
        Ok(())
    }

    /// A crash already recorded (by an earlier run on this corpus, or another worker) met again
    /// by `data`, which crashed with raw stack `target_raw` (`reproduced`: again in a fresh
    /// process): it is counted (a run that meets a known, unfixed crash exits 1, as libFuzzer's
    /// run does whenever it crashes), and when the record's artifact no longer exists (a CI
    /// workspace cleaned while the corpus directory was cached) `data` is written again as
    /// `<stem>-<sha1>` under the artifact prefix, minimised as a new crash's, and recorded, so
    /// that every artifact a summary lists exists.
    ///
    /// Errors: the artifact or the record cannot be written, the executor broke.
    fn met_again(
        &mut self,
        data: &[u8],
        signature: &str,
        stem: &str,
        target_raw: &str,
        reproduced: bool,
    ) -> Result<()> {
        let Some(mut record) = self.db.get(signature) else {
            self.met_again.insert(signature.to_string());
            return Ok(());
        };
        // found by this run (an earlier in-process worker, another job): the same crash again,
        // not one an earlier run recorded
        if record.found_unix >= self.start_wall && record.artifact.is_file() {
            return Ok(());
        }
        self.met_again.insert(signature.to_string());
        if record.artifact.is_file() {
            return Ok(());
        }
        let artifact = self.opts.artifact(&format!("{stem}-{}", sha1_hex(data)));
        let foreign = artifact.exists() && !self.db.pending().contains(&artifact);
        if self.db.intend(&artifact).is_err() || write_atomic(&artifact, data).is_err() {
            // still no room (a full disk, as when the crash was found and its input was printed
            // instead): the record stays as it is, and one found by this run is no earlier one's
            let _ = std::fs::remove_file(&artifact);
            if record.found_unix >= self.start_wall {
                self.met_again.remove(signature);
            }
            return Ok(());
        }
        let missing = std::mem::replace(&mut record.artifact, artifact.clone());
        record.size = data.len();
        record.minimized = false;
        record.reproduced = reproduced;
        self.db.update(&record)?;
        self.db.settle(&artifact);
        self.monitor.println(&format!(
            "==evotest== known crash ({}) met again; its artifact {} no longer exists: written again",
            record.kind,
            missing.display()
        ));
        self.minimize_artifact(data, stem, target_raw, &mut record, foreign)?;
        self.monitor.println(&format!(
            "artifact_prefix='{}'; Test unit written to {}",
            self.opts.artifact_prefix,
            record.artifact.display()
        ));
        self.exact_copy(&record.artifact)
    }

    /// The run's first artifact, `artifact`, copied to `-exact_artifact_path` when one was given
    /// (libFuzzer writes its single artifact there; evotest goes on after a crash, so every
    /// artifact, this one included, also stays under `-artifact_prefix`: nothing found is lost).
    /// Later artifacts leave the path alone. Errors: the path cannot be written.
    fn exact_copy(&mut self, artifact: &Path) -> Result<()> {
        let Some(exact) = self
            .opts
            .exact_artifact_path
            .clone()
            .filter(|_| !self.exact_written)
        else {
            return Ok(());
        };
        let data = std::fs::read(artifact)
            .with_context(|| format!("cannot read {}", artifact.display()))?;
        write_atomic(&exact, &data)
            .with_context(|| format!("cannot write -exact_artifact_path {}", exact.display()))?;
        self.exact_written = true;
        self.monitor.println(&format!(
            "==evotest== the first artifact, {}, also written to -exact_artifact_path: {}",
            artifact.display(),
            exact.display()
        ));
        Ok(())
    }

    /// The kept coverage of `what`'s kind: timeouts' ([`Outcome::Timeout`]) or out-of-memory
    /// kills'.
    fn hang_map_of(&mut self, what: Outcome) -> &mut HangMap {
        if what == Outcome::Timeout {
            &mut self.hang_map
        } else {
            &mut self.oom_map
        }
    }

    /// A timeout or an out-of-memory kill: confirmed by a second run, kept when its coverage
    /// (up to the kill) has a feature no earlier one had.
    fn on_hang(&mut self, data: &[u8], what: Outcome) -> Result<()> {
        let confirmed = std::mem::take(&mut self.hang_confirmed);
        let cov = self.s.cov.clone();
        match what {
            Outcome::Timeout => self.timeouts_total += 1,
            _ => self.ooms_total += 1,
        }
        if !self.hang_map_of(what).is_new(&cov) {
            return Ok(());
        }
        let again = if confirmed && what == Outcome::Timeout {
            what
        } else {
            let (again, exit) = self.s.run_confirm(data)?;
            if again == Outcome::Crash {
                // a slow crash, cut short at the suspect limit: a crash, not a hang
                return self.on_crash(data, exit);
            }
            again
        };
        if again != what {
            return Ok(()); // did not recur: a slow moment of the machine, or state of a persistent child
        }
        self.hang_map_of(what).add(&cov);
        let kind = if what == Outcome::Timeout {
            "timeout"
        } else {
            "oom"
        };
        let path = self.opts.artifact(&format!("{kind}-{}", sha1_hex(data)));
        write_atomic(&path, data).with_context(|| format!("cannot write {}", path.display()))?;
        self.monitor.println(&format!(
            "==evotest== {kind}: artifact_prefix='{}'; Test unit written to {}",
            self.opts.artifact_prefix,
            path.display()
        ));
        self.exact_copy(&path)?;
        let kept = match what {
            Outcome::Timeout => &mut self.timeouts,
            _ => &mut self.ooms,
        };
        // one input may be kept again when its hit counts up to the kill differ (it was listed
        // and counted twice)
        if !kept.contains(&path) {
            kept.push(path);
        }
        Ok(())
    }

    /// Crash artifacts under the artifact prefix that the crash record does not know (a run killed
    /// between writing one and recording it): run and record them.
    fn retriage_artifacts(&mut self) -> Result<()> {
        for p in self.orphan_artifacts() {
            if self.done() {
                break;
            }
            let Ok(data) = std::fs::read(&p) else {
                continue;
            };
            let (outcome, exit) = self.s.run_full(&data)?;
            if outcome == Outcome::Crash {
                self.on_crash(&data, exit)?;
            }
        }
        Ok(())
    }

    /// Crash artifacts this run's state says were being written and were never recorded (a run
    /// killed in between; at most 100, in name order). Only evotest's own: a `crash-*` file of
    /// libFuzzer's, or the user's, in the same directory is not evotest's to triage, claim or
    /// replace. Markers of artifacts that no longer exist, or are recorded, are settled.
    fn orphan_artifacts(&self) -> Vec<PathBuf> {
        let known: std::collections::HashSet<PathBuf> = self
            .db
            .all()
            .iter()
            .filter_map(|r| r.artifact.canonicalize().ok())
            .collect();
        let mut orphans = Vec::new();
        for p in self.db.pending() {
            if p.is_file() && p.canonicalize().is_ok_and(|c| !known.contains(&c)) {
                orphans.push(p);
            } else {
                self.db.settle(&p);
            }
        }
        orphans.truncate(100);
        orphans
    }

    /// Start the other workers of `-j N`.
    fn start_workers(&mut self) -> Result<()> {
        if self.opts.worker.is_some() || self.opts.jobs <= 1 {
            return Ok(());
        }
        let exe = std::env::current_exe().context("cannot locate the evotest executable")?;
        for k in 1..self.opts.jobs {
            let dir = self.opts.state_dir().join(format!("worker-{k}"));
            std::fs::create_dir_all(&dir)
                .with_context(|| format!("cannot create {}", dir.display()))?;
            let log = std::fs::File::create(dir.join("log.txt"))
                .with_context(|| format!("cannot create a log in {}", dir.display()))?;
            let mut cmd = std::process::Command::new(&exe);
            let mut args = self.opts.worker_args.clone();
            let at = args.iter().position(|a| a == "--").unwrap_or(args.len());
            args.insert(at, OsString::from(format!("--worker={k}")));
            cmd.arg("fuzz").args(&args);
            cmd.stdin(std::process::Stdio::null())
                .stdout(std::process::Stdio::null())
                .stderr(log);
            unsafe {
                use std::os::unix::process::CommandExt;
                cmd.pre_exec(|| {
                    libc::prctl(libc::PR_SET_PDEATHSIG, libc::SIGTERM);
                    Ok(())
                });
            }
            let child = cmd.spawn().context("cannot start a worker")?;
            self.children.push((child, dir));
        }
        Ok(())
    }

    /// Wait for the workers (they have the same budget); ask them to stop if this one was
    /// interrupted or ended early.
    fn stop_workers(&mut self) {
        let grace = Instant::now() + Duration::from_secs(30);
        let interrupted = self.s.interrupt.load(Ordering::Relaxed);
        for (c, _) in &mut self.children {
            if interrupted || self.opts.max_total_time.is_none() && self.opts.runs.is_none() {
                unsafe { libc::kill(c.id() as i32, libc::SIGTERM) };
            }
        }
        for (c, _) in &mut self.children {
            loop {
                match c.try_wait() {
                    Ok(Some(_)) | Err(_) => break,
                    Ok(None) if Instant::now() < grace => {
                        std::thread::sleep(Duration::from_millis(50))
                    }
                    Ok(None) => {
                        unsafe { libc::kill(c.id() as i32, libc::SIGTERM) };
                        let _ = c.wait();
                        break;
                    }
                }
            }
        }
    }

    /// Write the last stats and the plot; the summary.
    fn finish(mut self) -> Result<Summary> {
        self.say_late_code();
        self.say_failed_workers();
        let records = self.db.all();
        self.unique = records.len();
        self.announce_workers_crashes(records);
        let st = self.stats(true);
        if self.opts.worker.is_some() || self.inproc.is_some() {
            // for the main worker's union (see below), or the supervisor's; a run that ends
            // does not fail for it (the corpus holds what it covered)
            let _ = self.write_covered();
        }
        let worker_stats: Vec<Stats> = self
            .children
            .iter()
            .filter_map(|(_, d)| stats::read(d))
            .collect();
        let mut total = st.clone();
        for c in &worker_stats {
            total.execs_done += c.execs_done;
            total.corpus_new += c.corpus_new;
            total.crashes_total += c.crashes_total;
            total.crashes_found += c.crashes_found;
            total.outcomes_covered = total.outcomes_covered.max(c.outcomes_covered);
            total.features = total.features.max(c.features);
            total.peak_rss_mb = total.peak_rss_mb.max(c.peak_rss_mb);
        }
        if !self.children.is_empty() {
            // the outcomes any worker covered (a worker has not run every input the others
            // wrote in their last moments)
            let mut union: Vec<bool> = (0..st.outcomes_total as u32)
                .map(|o| self.fb.is_covered(o))
                .collect();
            for (_, d) in &self.children {
                for o in read_covered(d) {
                    if let Some(c) = union.get_mut(o as usize) {
                        *c = true;
                    }
                }
            }
            total.outcomes_covered = total
                .outcomes_covered
                .max(union.iter().filter(|&&c| c).count());
            total.execs_per_sec = if total.run_time_seconds > 0.0 {
                total.execs_done as f64 / total.run_time_seconds
            } else {
                0.0
            };
        }
        // the DONE line and the last stats: all workers' executions and coverage
        self.monitor.finish(&st, &total)?;
        let seconds = self.elapsed().as_secs_f64();
        let mut met_again = self.met_again.clone();
        for w in &worker_stats {
            met_again.extend(w.crashes_met_again.iter().cloned());
        }
        let records = self.db.all();
        let unique_crashes = records.len();
        let (crashes, missing): (Vec<CrashRecord>, Vec<CrashRecord>) =
            records.into_iter().partition(|r| r.artifact.is_file());
        Ok(Summary {
            target: st.target.clone(),
            delivery: st.delivery.clone(),
            corpus: self.opts.corpus.clone(),
            stats_dir: self.monitor.dir().to_path_buf(),
            seconds,
            executions: total.execs_done,
            exec_per_sec: if seconds > 0.0 {
                total.execs_done as f64 / seconds
            } else {
                0.0
            },
            corpus_count: corpus::list_files(&self.opts.corpus)
                .map_or(st.corpus_count, |f| f.len()),
            corpus_new: total.corpus_new,
            // (in-process: with what the workers before this one covered, see `stats`)
            outcomes_covered: total.outcomes_covered,
            outcomes_total: st.outcomes_total,
            features: total.features,
            unique_crashes,
            crashes,
            new_crashes: st.crashes_found
                + worker_stats.iter().map(|w| w.crashes_found).sum::<usize>(),
            crashes_met_again: met_again.len(),
            missing_artifacts: missing.into_iter().map(|r| r.artifact).collect(),
            crashes_total: total.crashes_total,
            timeouts: std::mem::take(&mut self.timeouts),
            ooms: std::mem::take(&mut self.ooms),
            timeouts_total: total.timeouts_total,
            ooms_total: total.ooms_total,
            workers: self.opts.jobs.max(1),
            worker_stats,
            interrupted: self.s.interrupt.load(Ordering::Relaxed),
            guidance: self.guide.finish(),
            lite: LiteStats {
                executions: self.lite.execs,
                reruns: self.lite.reruns,
                full_executions: self.lite.full_execs,
                candidates: self.lite.candidates,
            },
            worker_restarts: self.inproc.as_ref().map_or(0, |w| w.carry.restarts),
            fork_server_fallback: false,
            peak_rss_mb: total
                .peak_rss_mb
                .max(self.inproc.as_ref().map_or(0, |w| w.carry.peak_rss_mb)),
        })
    }
}

#[cfg(test)]
mod tests {
    use super::Lite;

    /// Havoc's measurements: `n` executions of each kind, coverage-only ones `speedup` times as
    /// fast.
    fn measured(n: u64, speedup: f64) -> Lite {
        Lite {
            able: true,
            execs: n,
            full_execs: n,
            secs: n as f64 / speedup,
            full_secs: n as f64,
            ..Default::default()
        }
    }

    /// libFuzzer's ToASCII, byte for byte: the top bit dropped, then controls but white space,
    /// and DEL, made spaces.
    #[test]
    fn to_ascii_is_libfuzzer_s() {
        let mut v = vec![b'a', 0xC1, 0x00, b'\n', 0x7f, 0x8a, b'~', 0x0b];
        assert!(super::to_ascii(&mut v));
        assert_eq!(v, vec![b'a', b'A', b' ', b'\n', b' ', b'\n', b'~', 0x0b]);
        assert!(!super::to_ascii(&mut v));
    }

    #[test]
    fn cmplog_candidates_are_coverage_only_in_the_share_havoc_measured_they_save() {
        let share =
            |mut l: Lite, by_time: bool| (0..1000).filter(|_| l.candidate_turn(by_time)).count();
        // four times as fast: three candidates in four
        assert_eq!(share(measured(64, 4.0), true), 750);
        // no faster, not yet measured, under an execution budget, or not able: none
        assert_eq!(share(measured(64, 1.0), true), 0);
        assert_eq!(share(measured(Lite::SAMPLE - 1, 4.0), true), 0);
        assert_eq!(share(measured(64, 4.0), false), 0);
        assert_eq!(
            share(
                Lite {
                    able: false,
                    ..measured(64, 4.0)
                },
                true
            ),
            0
        );
    }
}
