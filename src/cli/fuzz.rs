//! `evotest fuzz`: the command line of [`crate::fuzz`], with libFuzzer's flag spellings
//! (`-max_len=N`, `-timeout=N`, …) accepted besides the double-dash ones.

use super::{exit_code, install_sigint, INTERRUPTED};
use crate::fuzz::{self, minimize, stats::Display, FuzzOptions};
use anyhow::{bail, Context, Result};
use clap::Args;
use std::ffi::OsString;
use std::io::IsTerminal;
use std::path::PathBuf;
use std::time::{Duration, Instant};

pub const FUZZ_EXAMPLES: &str = "\
Examples:
  CC=evotest-cc CXX=evotest-c++ ./configure && make        # instrument a library
  evotest-cc -g -fsanitize=address,fuzzer fuzzer.c lib.a -o harness
  evotest fuzz ./harness corpus/ seeds/ -dict=x.dict -max_total_time=300
  evotest fuzz ./harness corpus/ -j 2                      # two workers sharing corpus/
  evotest fuzz ./harness corpus/ --in_process              # libFuzzer's model: no fork per input
  evotest fuzz ./prog corpus/ -- --input @@               # a program reading a file
  evotest fuzz ./prog corpus/                              # a program reading stdin
  ./harness crash-5f3a…                                    # reproduce a crash
  evotest fuzz ./harness --minimize-crash crash-5f3a…
  evotest fuzz ./harness --merge small/ corpus/ other/
  evotest fuzz --cargo-fuzz my_crate fuzz_parse corpus/     # a cargo-fuzz target (Rust)

Files: corpus entries are named by SHA-1 in the first directory; crash-<sha1>, timeout-<sha1>
and oom-<sha1> go to the working directory or -artifact_prefix; fuzzer_stats.json,
coverage.csv and coverage.svg go to CORPUS/.evotest/main/ (or -stats_dir); unique crashes are
recorded in CORPUS/.evotest/crashes/. libFuzzer flags evotest does not know (-name=value) are
ignored with a warning; arguments after -ignore_remaining_args=1 go to the harness, as after --.
Custom mutators (LLVMFuzzerCustomMutator, LLVMFuzzerCustomCrossOver) are not called (a warning
says so); LLVMFuzzerMutate is provided, so that harnesses calling it link.

CPU binding: like AFL++, each worker and its target run on one free CPU (no other process bound
to it alone); EVOTEST_NO_AFFINITY=1 turns this off, as AFL_NO_AFFINITY does for AFL++.

In-process (--in_process): evotest's engine is loaded into the harness's process and calls
LLVMFuzzerTestOneInput in a loop. An input that crashes, exits, hangs past -timeout or grows the
process past -rss_limit_mb ends that process; evotest keeps the input, triages it in a fresh
process (report, stack, minimisation, artifact) and starts a new worker that replays the corpus
and never runs that input in-process again. Faster per input on small and medium targets; the
fork server (the default) isolates inputs and supports -j.

Exit status: 0; 1 (-error_exitcode=N: N) when the run met a crash: a new unique one, or one
recorded by an earlier run on the same corpus met again (its artifact is written again if it was
removed); else 70 (-timeout_exitcode) when it kept a timeout and 71 an out-of-memory input
(libFuzzer's codes; libFuzzer stops at the first, evotest keeps fuzzing until the budget ends).";

/// libFuzzer flags (and evotest's own) that may be spelt `-name=value`; they become
/// `--name=value` before parsing.
const SINGLE_DASH: &[&str] = &[
    "max_len",
    "timeout",
    "rss_limit_mb",
    "detect_leaks",
    "runs",
    "max_total_time",
    "seed",
    "dict",
    "artifact_prefix",
    "exact_artifact_path",
    "jobs",
    "workers",
    "print_final_stats",
    "close_fd_mask",
    "merge",
    "minimize_crash",
    "stats_dir",
    "persistent",
    "use_value_profile",
    "sync_interval",
    "json",
    "quiet",
    "no_minimize",
    "stop_on_crash",
    "only_ascii",
    "max_file_mb",
    "input_extension",
    "cargo_fuzz",
    "guidance",
    "frontier_include",
    "frontier_exclude",
    "instrument_crates",
    "new_coverage_log",
    "in_process",
    "len_control",
    "reduce_inputs",
    "lite",
    "error_exitcode",
    "timeout_exitcode",
];

/// Of [`SINGLE_DASH`], the switches (no value with two dashes).
const BOOLEAN: &[&str] = &[
    "json",
    "quiet",
    "no_minimize",
    "stop_on_crash",
    "only_ascii",
    "in_process",
];

/// Rewrite the arguments after `fuzz`: `-name=value` of a known flag becomes `--name=value`; an
/// unknown single-dash libFuzzer flag (`-foo=1`) is dropped with a warning; `-jobs=N` and
/// `-workers=M` become one `--jobs` ([`push_workers`]); `-help=1` becomes `--help`; after
/// libFuzzer's `-ignore_remaining_args=1` every argument is the harness's own, as if after `--`.
/// Nothing after `--` is touched.
///
/// Errors: a bare single-dash word that is no flag (`-foo`), named whole (clap named its first
/// letter, `'-f'`).
pub fn rewrite_args(args: Vec<OsString>) -> Result<Vec<OsString>> {
    let mut out = Vec::with_capacity(args.len());
    let mut after_dashes = false;
    // libFuzzer's -jobs=N (fuzzing runs) and -workers=M (processes running them at once, by
    // default min(N, half the cores)): evotest runs one campaign of M workers sharing the corpus
    let (mut lf_jobs, mut lf_workers, mut lf_fork) =
        (None::<String>, None::<String>, None::<String>);
    for a in args {
        let s = a.to_string_lossy().into_owned();
        if after_dashes || s == "--" {
            if !after_dashes {
                push_workers(
                    &mut out,
                    lf_jobs.take(),
                    lf_workers.take().or(lf_fork.take()),
                );
            }
            after_dashes = true;
            out.push(a);
            continue;
        }
        // libFuzzer's flags have one dash; evotest's own spelling with two is taken as well
        let lf = s
            .strip_prefix("--")
            .or_else(|| s.strip_prefix('-'))
            .unwrap_or("");
        if let Some(value) = lf.strip_prefix("ignore_remaining_args=") {
            // libFuzzer leaves what follows to the harness (LLVMFuzzerInitialize reads it): here
            // it becomes the target's arguments, after `--`
            if value.trim() != "0" {
                push_workers(
                    &mut out,
                    lf_jobs.take(),
                    lf_workers.take().or(lf_fork.take()),
                );
                after_dashes = true;
                out.push(OsString::from("--"));
            }
            continue;
        }
        if lf == "help" || lf.strip_prefix("help=").is_some_and(|v| v.trim() != "0") {
            // libFuzzer's -help=1, wherever it is: the usage, not a run
            out.push(OsString::from("--help"));
            continue;
        }
        if lf == "help=0" {
            continue;
        }
        if let Some((name, value)) = s.strip_prefix("--").and_then(|r| r.split_once('=')) {
            if BOOLEAN.contains(&name) {
                // `--stop_on_crash=1` as `-stop_on_crash=1`: on, `=0` off (clap's switch takes
                // no value)
                if value != "0" {
                    out.push(OsString::from(format!("--{name}")));
                }
                continue;
            }
        }
        if let Some(rest) = s.strip_prefix('-').filter(|r| !r.starts_with('-')) {
            if let Some((name, value)) = rest.split_once('=') {
                if name == "jobs" {
                    lf_jobs = Some(value.to_string());
                } else if name == "workers" {
                    lf_workers = Some(value.to_string());
                } else if name == "fork" {
                    // libFuzzer's -fork=N: N fuzzing processes at once, a corpus between them
                    // (an explicit -workers wins)
                    lf_fork = Some(value.to_string());
                } else if BOOLEAN.contains(&name) {
                    // `-stop_on_crash=1` switches it on, `=0` leaves it off
                    if value != "0" {
                        out.push(OsString::from(format!("--{name}")));
                    }
                } else if SINGLE_DASH.contains(&name) {
                    out.push(OsString::from(format!("-{s}")));
                } else {
                    eprintln!("evotest fuzz: warning: ignoring unknown libFuzzer flag {s}");
                }
                continue;
            }
            if SINGLE_DASH.contains(&rest) {
                // `-runs` without `=N`: clap's message then asks for the value (or takes the
                // next argument), where `-r…` read as short flags gave "unexpected argument"
                out.push(OsString::from(format!("--{rest}")));
                continue;
            }
            if let Some(instead) = afl_flag(rest) {
                bail!(
                    "{s} is AFL++'s flag, not evotest's: {instead} (evotest fuzz PROGRAM OUT_DIR [SEED_DIR...] [-- ARGS @@]; `evotest fuzz --help` lists the flags)"
                );
            }
            if !is_short_flag(rest) {
                bail!(
                    "unknown flag {s} (libFuzzer's flags are spelt -name=VALUE; `evotest fuzz --help` lists them; arguments of the harness go after `--` or -ignore_remaining_args=1)"
                );
            }
        }
        out.push(a);
    }
    push_workers(&mut out, lf_jobs, lf_workers.or(lf_fork));
    Ok(out)
}

/// What evotest takes where AFL++'s `afl-fuzz` takes the flag `-rest` (`-i`, `-o`, `-t`, …), for
/// the error an AFL++ user gets (clap's "to pass '-i' as a value, use '-- -i'" sent the flag to
/// the target); `None` for a letter that is no such flag or that evotest takes itself (`-j`).
fn afl_flag(rest: &str) -> Option<&'static str> {
    Some(match rest {
        "i" => "seed directories are given after the output directory, without a flag",
        "o" => "the output (corpus) directory is the first argument after the program",
        "t" => "-timeout=SECONDS, in seconds (fractions allowed), not milliseconds",
        "x" => "-dict=FILE (AFL++'s dictionary format is read)",
        "V" => "-max_total_time=SECONDS",
        "E" => "-runs=N",
        "M" | "S" => "-j N runs N workers on one corpus",
        "m" => "-rss_limit_mb=N",
        "c" => "input-to-state (CmpLog) is built in, with no second build",
        "e" => "--input_extension=EXT",
        "s" => "-seed=N",
        "f" => "the input file is `@@` in the target's arguments",
        _ => return None,
    })
}

/// Whether `rest` (an argument without its one dash) is for clap to read: one letter (`-q`,
/// `-j`, clap names an unknown one itself), `-j` with its number attached (`-j2`), or a
/// negative number given as a value (`--runs -1`).
fn is_short_flag(rest: &str) -> bool {
    let digits = |t: &str| !t.is_empty() && t.bytes().all(|b| b.is_ascii_digit());
    rest.chars().count() <= 1
        || digits(rest)
        || rest
            .strip_prefix('j')
            .is_some_and(|n| digits(n.strip_prefix('=').unwrap_or(n)))
}

/// `--jobs=K` for libFuzzer's `-jobs=N` and `-workers=M`: M, or without it min(N, half the
/// cores, at least 1), as libFuzzer chooses its workers.
fn push_workers(out: &mut Vec<OsString>, jobs: Option<String>, workers: Option<String>) {
    let k = match (jobs, workers) {
        (_, Some(w)) => w,
        (Some(j), None) => {
            let half = std::thread::available_parallelism().map_or(1, |n| (n.get() / 2).max(1));
            match j.parse::<u32>() {
                Ok(n) => {
                    let k = n.min(half as u32).max(1);
                    if k < n {
                        // libFuzzer says as much ("INFO: ... workers"); a user who meant N
                        // processes must learn how to get them
                        eprintln!(
                            "evotest fuzz: -jobs={n}: {k} worker{} (as libFuzzer: at most half the cores); -workers={n} or --jobs={n} runs {n}",
                            if k == 1 { "" } else { "s" }
                        );
                    }
                    k.to_string()
                }
                Err(_) => j, // clap's error names the bad value
            }
        }
        (None, None) => return,
    };
    out.push(OsString::from(format!("--jobs={k}")));
}

#[derive(Args, Debug, Clone)]
#[command(after_long_help = FUZZ_EXAMPLES)]
pub struct FuzzArgs {
    /// The executable, built with evotest-cc / evotest-c++: a libFuzzer harness
    /// (-fsanitize=fuzzer at link time), or a program reading stdin or the file `@@` names.
    /// With --cargo-fuzz: the name of the fuzz target
    harness: PathBuf,
    /// A Rust crate with cargo-fuzz targets (`fuzz/fuzz_targets/*.rs`, written with
    /// libfuzzer-sys's fuzz_target!): build the target named in place of the executable with
    /// the crate's local code instrumented and evotest's driver instead of libFuzzer (in
    /// DIR/fuzz/target/evotest/, or DIR/target/evotest/), then fuzz it
    #[arg(long = "cargo-fuzz", alias = "cargo_fuzz", value_name = "DIR")]
    cargo_fuzz: Option<PathBuf>,
    /// With --cargo-fuzz: registry crates to instrument besides the local ones (comma list of
    /// library names, e.g. semver,httparse; `all`: every crate of the build but libfuzzer-sys
    /// and arbitrary, as cargo-fuzz does). Their branches are then covered, counted and, like
    /// the local crates' (debug info names their files relative to their package), in the
    /// guidance's frontier; std code instantiated in them stays out
    #[arg(
        long = "instrument_crates",
        alias = "instrument-crates",
        value_name = "CRATES",
        value_delimiter = ','
    )]
    instrument_crates: Vec<String>,
    /// The output corpus directory (created if missing), then seed directories or files; with
    /// --merge, the output directory then the input directories
    dirs: Vec<PathBuf>,
    /// Arguments of the target after `--`; `@@` (alone or inside an argument, `--in=@@`) is
    /// replaced by the input file's absolute path
    #[arg(last = true, value_name = "TARGET_ARGS")]
    target_args: Vec<OsString>,

    /// Largest input in bytes [default: the largest seed, at least 4096]
    #[arg(long = "max_len", alias = "max-len", value_name = "N")]
    max_len: Option<usize>,
    /// Per-input timeout in seconds (fractions allowed; 0: none, as libFuzzer's -timeout=0); a
    /// longer execution is a timeout. With
    /// the fork server, an input running 10 times longer than the slowest so far (at least
    /// 0.02 s) is a suspect: dropped there if its coverage is a known hang's, else run again with
    /// the whole timeout
    #[arg(long, default_value = "1", value_name = "SECS")]
    timeout: String,
    /// Kill an execution above N MB of resident memory (an out-of-memory result); 0 = no limit
    #[arg(long = "rss_limit_mb", alias = "rss-limit-mb", default_value_t = crate::target::RSS_LIMIT_MB, value_name = "N")]
    rss_limit_mb: u64,
    /// 1: report memory leaks with LeakSanitizer linked (-fsanitize=address or =leak): in a
    /// libFuzzer harness an input after which more blocks were allocated than freed gets a leak
    /// check, in a whole program the sanitizer checks at exit, and a leak is a crash of its own
    /// (`leak-<sha1>`). Fork server only (not --in_process); 0: off. [default: 1 for a libFuzzer
    /// harness, as libFuzzer; 0 for a whole program, as AFL++]
    #[arg(long = "detect_leaks", alias = "detect-leaks", value_name = "0|1")]
    detect_leaks: Option<u8>,
    /// A whole program reading `@@`: the extension of the file it gets (`cur_input.EXT`), for
    /// programs that choose a format by the file name (AFL++'s -e)
    #[arg(
        long = "input_extension",
        alias = "input-extension",
        value_name = "EXT",
        value_parser = file_extension
    )]
    input_extension: Option<String>,
    /// Largest file the target may write, in MB; 0 = no limit
    #[arg(long = "max_file_mb", alias = "max-file-mb", default_value_t = crate::target::FILE_LIMIT_MB, value_name = "N")]
    max_file_mb: u64,
    /// Stop after N executions (-1: no limit). The seed corpus always runs in full, as in
    /// libFuzzer: -runs=0 runs just the seeds (to measure a corpus's coverage)
    #[arg(long, default_value_t = -1, allow_hyphen_values = true, value_name = "N")]
    runs: i64,
    /// Stop after SECS seconds (0: no limit)
    #[arg(
        long = "max_total_time",
        alias = "max-total-time",
        default_value = "0",
        value_name = "SECS"
    )]
    max_total_time: String,
    /// Random seed (0 picks one from the clock, as libFuzzer does); the same seed and -runs,
    /// with no time limit (-max_total_time, which caps the directed stages by time too), give
    /// the same run
    #[arg(long, default_value_t = 0)]
    seed: u64,
    /// Dictionary file (AFL/libFuzzer format: "token" or name="token" per line)
    #[arg(long, value_name = "FILE")]
    dict: Option<PathBuf>,
    /// Where artifacts go: a directory ending in `/`, or a file-name prefix
    #[arg(
        long = "artifact_prefix",
        alias = "artifact-prefix",
        default_value = "./",
        value_name = "PREFIX"
    )]
    artifact_prefix: String,
    /// Write the run's first artifact (crash, leak, timeout or out-of-memory input; minimised when
    /// it can be) to exactly this path as well, as libFuzzer writes its single one; later ones and
    /// the first itself are still kept under -artifact_prefix. With -minimize_crash, the minimised
    /// input goes there instead of -artifact_prefix's minimized-from-<sha1>
    #[arg(
        long = "exact_artifact_path",
        alias = "exact-artifact-path",
        value_name = "FILE"
    )]
    exact_artifact_path: Option<PathBuf>,
    /// Workers: N processes fuzzing together, sharing the corpus directory (libFuzzer's
    /// -workers=M and -fork=M give M; -jobs=N alone min(N, half the cores), one campaign, not N
    /// runs)
    #[arg(
        short = 'j',
        long,
        alias = "workers",
        default_value_t = 1,
        value_name = "N"
    )]
    jobs: u32,
    /// Directory of this worker's fuzzer_stats.json, coverage.csv and coverage.svg
    /// [default: CORPUS/.evotest/main]
    #[arg(long = "stats_dir", alias = "stats-dir", value_name = "DIR")]
    stats_dir: Option<PathBuf>,
    /// Inputs per process of a libFuzzer harness (1: a fresh process per input)
    #[arg(long, default_value_t = fuzz::DEFAULT_PERSISTENT, value_name = "N")]
    persistent: u32,
    /// Run the harness in evotest's own process, libFuzzer's model: the engine is loaded into
    /// the harness's process and calls LLVMFuzzerTestOneInput in a loop, with no fork or pipe
    /// per input. An input that crashes, hangs (the timeout) or exits ends that process; evotest
    /// keeps the input, triages it in a fresh process as usual, and starts a new worker that goes
    /// on from the corpus directory. For libFuzzer harnesses (-fsanitize=fuzzer); one worker
    #[arg(long = "in_process", alias = "in-process")]
    in_process: bool,
    /// Length control, as libFuzzer's: havoc's inputs start no longer than the largest corpus
    /// entry (at least 4 bytes) and the limit grows by log2(limit) bytes after N x log2(limit)
    /// executions without progress (new coverage, or a lower branch distance), up to -max_len;
    /// short inputs run faster and claim coverage first. 0: inputs may reach -max_len at once
    #[arg(long = "len_control", alias = "len-control", default_value_t = fuzz::DEFAULT_LEN_CONTROL, value_name = "N")]
    len_control: u32,
    /// 1: a shorter input that has every feature a corpus entry brought replaces that entry (in
    /// memory and in the corpus directory), as libFuzzer's -reduce_inputs; 0: entries stay as
    /// found
    #[arg(long = "reduce_inputs", alias = "reduce-inputs", default_value = "1", value_name = "0|1", value_parser = ["0", "1"])]
    reduce_inputs: String,
    /// 1: havoc's executions may be coverage-only: a build at -O1 or above then runs each
    /// function's clone that only counts the branch outcomes taken (as AFL++ runs its plain
    /// build beside its CmpLog build); an input that adds coverage runs again in full, with
    /// branch distances, before it is kept. Without guidance all of them; with guidance the
    /// share of havoc's time they save (none under -runs alone), and CmpLog's candidates in
    /// the same share; the directed attempts run in full. 0: every execution records branch
    /// distances
    #[arg(long = "lite", default_value = "1", value_name = "0|1", value_parser = ["0", "1"])]
    lite: String,
    /// Seconds between two looks at the corpus directory for other workers' inputs
    #[arg(
        long = "sync_interval",
        alias = "sync-interval",
        default_value = "5",
        value_name = "SECS"
    )]
    sync_interval: String,
    /// Keep crash reproducers as found (do not minimise them)
    #[arg(long = "no_minimize", alias = "no-minimize")]
    no_minimize: bool,
    /// Minimise this crashing input (libFuzzer's -minimize_crash=1 FILE is accepted too) and
    /// write minimized-from-<sha1>; -runs and -max_total_time bound the work
    #[arg(long = "minimize_crash", alias = "minimize-crash", value_name = "FILE")]
    minimize_crash: Option<PathBuf>,
    /// Corpus minimisation: copy into the first directory the inputs of the others that add
    /// coverage, smallest first (libFuzzer's -merge=1)
    #[arg(long, num_args = 0..=1, require_equals = true, default_missing_value = "1", value_name = "1")]
    merge: Option<String>,
    /// Stop at the first unique crash (libFuzzer's behaviour; by default evotest goes on until the
    /// budget is spent)
    #[arg(long = "stop_on_crash", alias = "stop-on-crash")]
    stop_on_crash: bool,
    /// Make every input ASCII text before it runs, as libFuzzer's -only_ascii=1: each byte loses
    /// its top bit and a control character becomes a space (havoc's inputs and the directed
    /// stages' alike; seed files run as they are)
    #[arg(long = "only_ascii", alias = "only-ascii")]
    only_ascii: bool,
    /// Branch distances and compared operands steer the loop: input-to-state substitution and
    /// AVM on the frontier outcomes, and input-to-state on every compare of each corpus entry
    /// (AFL++'s CmpLog stage), never more executions than havoc had (`off`: plain
    /// coverage-guided havoc; `i2s`: input-to-state substitution only, no AVM; both for
    /// comparison)
    #[arg(long, default_value = "on", value_name = "on|off|i2s", value_parser = ["on", "off", "i2s"])]
    guidance: String,
    /// Write a line per input that adds coverage to FILE (created afresh): `EXECUTION
    /// MICROSECONDS HEX` (the execution number in this run, the time since its start, the input
    /// in hex), and `end EXECUTIONS MICROSECONDS` when the run ends; worker K of -j writes
    /// FILE.worker-K. Replaying the inputs in order tells when any branch of interest was first
    /// covered (the benchmark's `fuzz` tools do so)
    #[arg(
        long = "new_coverage_log",
        alias = "new-coverage-log",
        value_name = "FILE"
    )]
    new_coverage_log: Option<PathBuf>,
    /// Leave the branches GLOB matches out of the guidance's frontier (repeatable; AFL++'s
    /// denylist entries): a glob (`*` any text, `?` one character) of the source file (the whole
    /// path or its end after a `/`) or of the function (Rust path or linkage name); `src:GLOB`
    /// matches files only, `fun:GLOB` functions only. Library code (Rust std/core/alloc and
    /// cargo-registry crates, C headers under /usr/include and /usr/lib) is left out already.
    /// Coverage still counts every branch
    #[arg(
        long = "frontier_exclude",
        alias = "frontier-exclude",
        value_name = "GLOB"
    )]
    frontier_exclude: Vec<String>,
    /// Only the branches GLOB matches may join the guidance's frontier (repeatable; AFL++'s
    /// allowlist entries; same globs as --frontier_exclude), library code too if it matches:
    /// `--frontier_include='*'` steers towards every branch
    #[arg(
        long = "frontier_include",
        alias = "frontier-include",
        value_name = "GLOB"
    )]
    frontier_include: Vec<String>,
    /// Print the final summary as JSON on stdout
    #[arg(long)]
    json: bool,
    /// No status display (errors, crashes and the summary still print)
    #[arg(long, short = 'q')]
    quiet: bool,
    /// Print libFuzzer's `stat::` lines at the end (1), as libFuzzer does; the summary line and
    /// --json are printed either way
    #[arg(long = "print_final_stats", hide = true)]
    print_final_stats: Option<String>,
    /// The target's standard output is always discarded. Its standard error goes into crash
    /// reports; with the fork server it is otherwise hidden, except what the harness writes while
    /// it starts (LLVMFuzzerInitialize), which is shown unless bit 2 is set (as libFuzzer's
    /// -close_fd_mask=2). With --in_process the harness's standard error is shown as it is written
    #[arg(
        long = "close_fd_mask",
        alias = "close-fd-mask",
        default_value_t = 0,
        value_name = "MASK"
    )]
    close_fd_mask: u32,
    /// Accepted for libFuzzer compatibility; evotest's probes always record compared values
    #[arg(long = "use_value_profile", hide = true)]
    use_value_profile: Option<String>,
    /// Exit status of a run that found a new unique crash (libFuzzer's -error_exitcode, whose
    /// default is 77; evotest's is 1)
    #[arg(long = "error_exitcode", alias = "error-exitcode", default_value_t = CRASH_EXIT_CODE, value_name = "N", allow_hyphen_values = true)]
    error_exitcode: i32,
    /// Exit status of a run that kept a timeout and found no new crash (libFuzzer's
    /// -timeout_exitcode)
    #[arg(long = "timeout_exitcode", alias = "timeout-exitcode", default_value_t = TIMEOUT_EXIT_CODE, value_name = "N", allow_hyphen_values = true)]
    timeout_exitcode: i32,
    /// Internal: this process is worker K of a -j run
    #[arg(long, hide = true)]
    worker: Option<u32>,
}

/// Seconds (a number, fractions allowed) as a duration.
fn seconds(s: &str, flag: &str) -> Result<Duration> {
    let v: f64 = s
        .trim()
        .parse()
        .with_context(|| format!("-{flag}={s}: not a number of seconds"))?;
    if !v.is_finite() || !(0.0..=1e9).contains(&v) {
        bail!("-{flag}={s}: must be a number of seconds between 0 and 1e9");
    }
    Ok(Duration::from_secs_f64(v))
}

/// `evotest fuzz`.
pub fn fuzz(a: &FuzzArgs, raw_args: &[OsString]) -> Result<i32> {
    crate::fuzz::set_detect_leaks(a.detect_leaks.map(|v| v != 0));
    install_sigint();
    // bad patterns fail before a cargo-fuzz build
    let guide_scope = fuzz::scope::GuideScope::new(&a.frontier_include, &a.frontier_exclude)?;
    let harness = match &a.cargo_fuzz {
        Some(dir) => cargo_fuzz_target(dir, &a.harness, a.worker.is_some(), &a.instrument_crates)?,
        None => a.harness.clone(),
    };
    let a = &mut FuzzArgs {
        harness,
        cargo_fuzz: None,
        ..a.clone()
    };
    let timeout = seconds(&a.timeout, "timeout")?;
    let timeout = if timeout.is_zero() {
        // libFuzzer's -timeout=0: no per-input timeout
        NO_TIMEOUT
    } else if timeout < Duration::from_millis(1) {
        bail!(
            "-timeout={}: must be at least 0.001 seconds (0: no timeout)",
            a.timeout
        );
    } else {
        timeout
    };
    let max_total = seconds(&a.max_total_time, "max_total_time")?;
    let max_total = (max_total > Duration::ZERO).then_some(max_total);
    let runs = (a.runs >= 0).then_some(a.runs as u64);
    // libFuzzer's defaults given explicitly mean what libFuzzer means by them: -max_len=0 the
    // default length, -merge=0 and -minimize_crash=0 a fuzzing run
    if a.max_len == Some(0) {
        a.max_len = None;
    }
    if a.merge.as_deref() == Some("0") {
        a.merge = None;
    }
    if a.minimize_crash.as_deref() == Some(std::path::Path::new("0")) {
        a.minimize_crash = None;
    }
    if let Some(m) = a.max_len {
        if m > fuzz::MAX_LEN_LIMIT {
            bail!(
                "-max_len={m}: must be between 1 and {}",
                fuzz::MAX_LEN_LIMIT
            );
        }
    }
    if let Some(file) = &a.minimize_crash {
        let file = if file.as_os_str() == "1" {
            a.dirs.first().cloned().ok_or_else(|| {
                anyhow::anyhow!("-minimize_crash=1 needs the crashing input as an argument")
            })?
        } else {
            file.clone()
        };
        let budget = minimize::Budget {
            max_execs: runs.unwrap_or(10_000),
            deadline: Some(Instant::now() + max_total.unwrap_or(Duration::from_secs(60))),
        };
        let m = minimize::minimize_crash(
            &a.harness,
            &a.target_args,
            a.input_extension.as_deref(),
            &file,
            &a.artifact_prefix,
            a.exact_artifact_path.as_deref(),
            timeout,
            a.rss_limit_mb,
            budget,
            &INTERRUPTED,
        )?;
        eprintln!(
            "CRASH_MIN: {} ({}, {} bytes) minimised to {} bytes in {} executions: {}",
            m.input.display(),
            m.kind,
            m.original_size,
            m.size,
            m.executions,
            m.output.display()
        );
        if a.json {
            outln!("{}", serde_json::to_string_pretty(&m)?);
        }
        return Ok(exit_code(0));
    }
    if a.merge.is_some() {
        if a.harness.is_dir() {
            // libFuzzer's own form, `-merge=1 OUT IN…`, run from the harness itself
            bail!(
                "--merge: {} is a directory, not a harness; give the harness built with evotest-cc first: evotest fuzz -merge=1 HARNESS OUT IN...",
                a.harness.display()
            );
        }
        let Some((out, inputs)) = a.dirs.split_first() else {
            bail!("--merge needs an output directory and input directories")
        };
        if inputs.is_empty() {
            bail!(
                "--merge {}: give the input directories after the output directory",
                out.display()
            );
        }
        let m = minimize::merge(
            &a.harness,
            &a.target_args,
            a.input_extension.as_deref(),
            out,
            inputs,
            timeout,
            a.rss_limit_mb,
            &INTERRUPTED,
        )?;
        eprintln!(
            "MERGE-OUTER: {}{} new files added to {} ({} there before); {} branch outcomes covered (before: {}); {} inputs that crashed or hung left out",
            if INTERRUPTED.load(std::sync::atomic::Ordering::Relaxed) { "interrupted, not every input was read: " } else { "" },
            m.added,
            m.output.display(),
            m.existing,
            m.outcomes_after,
            m.outcomes_before,
            m.faulty.len()
        );
        // which, so that a comparison through this build knows what it left out
        for f in m.faulty.iter().take(10) {
            eprintln!("MERGE-OUTER: left out ({}): {}", f.kind, f.input.display());
        }
        if m.faulty.len() > 10 {
            eprintln!(
                "MERGE-OUTER: left out: {} more (--json lists them all)",
                m.faulty.len() - 10
            );
        }
        if m.faulty.iter().any(|f| f.kind == "timeout") {
            eprintln!(
                "MERGE-OUTER: inputs that ran longer than -timeout={} s were left out as hangs; a larger -timeout keeps slow ones",
                timeout.as_secs_f64()
            );
        }
        if a.json {
            outln!("{}", serde_json::to_string_pretty(&m)?);
        }
        return Ok(exit_code(0));
    }
    // no directory: libFuzzer fuzzes with its corpus in memory; evotest keeps it in a temporary
    // directory, removed when the run ends (one worker only: workers share a directory they are
    // given)
    let mut scratch: Option<tempfile::TempDir> = None;
    if let Some(f) = a.dirs.first().filter(|f| f.is_file()) {
        // `./fuzzer crash-file`, a libFuzzer user's way to reproduce a crash
        bail!(
            "{}: is a file, not a corpus directory; to run the harness on it, as `./fuzzer FILE` does with libFuzzer, run `{} {}` (an evotest-built harness replays the files it is given); to minimise a crash, -minimize_crash=1 {}",
            f.display(),
            a.harness.display(),
            f.display(),
            f.display()
        );
    }
    let (corpus, seeds): (PathBuf, Vec<PathBuf>) = match a.dirs.split_first() {
        Some((c, s)) => (c.clone(), s.to_vec()),
        None if a.jobs <= 1 && a.worker.is_none() => {
            let t = tempfile::Builder::new()
                .prefix("evotest-corpus-")
                .tempdir()
                .context("cannot create a temporary corpus directory")?;
            eprintln!(
                "evotest fuzz: no corpus directory given: the run's corpus is kept in {} and removed at the end (give CORPUS_DIR to keep it)",
                t.path().display()
            );
            let dir = t.path().to_path_buf();
            scratch = Some(t);
            (dir, vec![])
        }
        None => bail!(
            "give a corpus directory: evotest fuzz {} CORPUS_DIR [SEED_DIRS...]",
            a.harness.display()
        ),
    };
    let scratch_dir = scratch;
    if a.worker.is_none() {
        let hooks = custom_mutation_hooks(&a.harness);
        if !hooks.is_empty() {
            eprintln!(
                "evotest fuzz: warning: {} defines {}, which evotest does not call: its own mutations are used, so inputs only the custom mutator makes (a valid checksum, a serialised structure) may not be reached",
                a.harness.display(),
                hooks.join(" and ")
            );
        }
    }
    let mut o = FuzzOptions::new(&a.harness, &corpus);
    o.args = a.target_args.clone();
    o.input_extension = a.input_extension.clone();
    o.seeds = seeds;
    o.dict = a.dict.clone();
    o.max_len = a.max_len;
    o.timeout = timeout;
    o.rss_limit_mb = a.rss_limit_mb;
    o.file_limit_mb = a.max_file_mb;
    o.runs = runs;
    o.max_total_time = max_total;
    o.seed = if a.seed == 0 {
        let s = std::time::SystemTime::now()
            .duration_since(std::time::UNIX_EPOCH)
            .map_or(1, |d| d.as_nanos() as u64 % 1_000_000_007)
            .max(1);
        if a.worker.is_none() {
            eprintln!("evotest fuzz: seed {s} (give -seed=N to repeat a run)");
        }
        s
    } else {
        a.seed
    };
    o.artifact_prefix = a.artifact_prefix.clone();
    o.exact_artifact_path = a.exact_artifact_path.clone();
    o.stats_dir = a.stats_dir.clone();
    o.persistent = a.persistent.max(1);
    o.minimize = !a.no_minimize;
    o.sync_interval = seconds(&a.sync_interval, "sync_interval")?.max(Duration::from_millis(100));
    o.jobs = a.jobs.max(1);
    o.worker = a.worker;
    o.stop_on_crash = a.stop_on_crash;
    o.only_ascii = a.only_ascii;
    o.guidance = a.guidance != "off";
    o.i2s_only = a.guidance == "i2s";
    o.new_coverage_log = a.new_coverage_log.clone();
    o.guide_scope = guide_scope;
    o.in_process = a.in_process;
    o.len_control = a.len_control;
    o.reduce_inputs = a.reduce_inputs == "1";
    o.lite = a.lite == "1";
    o.show_startup_output = a.close_fd_mask & 2 == 0;
    if a.in_process && a.close_fd_mask & 2 != 0 {
        eprintln!("evotest fuzz: warning: -close_fd_mask=2 does not close the harness's standard error with --in_process (the engine shares it); it is shown");
    }
    // leaks are checked by the fork server's driver only: say so where they would be checked
    // (asked for, or the default for a harness with LeakSanitizer linked), not silently pass
    if a.in_process && a.detect_leaks != Some(0) {
        let lsan = crate::fuzz::triage::linked_sanitizers(&a.harness)
            .is_some_and(|s| s.contains(&"LeakSanitizer"));
        if a.detect_leaks == Some(1) || lsan {
            eprintln!("evotest fuzz: warning: memory leaks are not checked with --in_process (the engine shares the harness's process); fuzz without --in_process to find them (-detect_leaks=0 silences this)");
        }
    }
    o.display = if a.quiet {
        Display::Quiet
    } else if std::io::stderr().is_terminal() {
        Display::Bar
    } else {
        Display::Lines
    };
    // what a worker is started with: these arguments without -j, with this run's seed
    o.worker_args = worker_args(raw_args, o.seed);
    let final_stats = a.print_final_stats.as_deref().is_some_and(|v| v != "0");
    let summary = fuzz::run(&o, &INTERRUPTED)?;
    if final_stats {
        eprintln!("stat::number_of_executed_units: {}", summary.executions);
        eprintln!(
            "stat::average_exec_per_sec:     {:.0}",
            summary.exec_per_sec
        );
        eprintln!("stat::new_units_added:          {}", summary.corpus_new);
        eprintln!("stat::unique_crashes:           {}", summary.unique_crashes);
        eprintln!(
            "stat::outcomes_covered:         {}",
            summary.outcomes_covered
        );
        eprintln!("stat::peak_rss_mb:              {}", summary.peak_rss_mb);
    }
    eprintln!(
        "evotest fuzz: {} executions in {:.1} s ({:.0} exec/s, {} worker{}); {}/{} branch outcomes covered; corpus {} files ({} new inputs) in {}; {} unique crash{}; stats in {}{}",
        summary.executions,
        summary.seconds,
        summary.exec_per_sec,
        summary.workers,
        if summary.workers == 1 { "" } else { "s" },
        summary.outcomes_covered,
        summary.outcomes_total,
        summary.corpus_count,
        summary.corpus_new,
        summary.corpus.display(),
        summary.unique_crashes,
        if summary.unique_crashes == 1 { "" } else { "es" },
        summary.stats_dir.display(),
        if scratch_dir.is_some() {
            " (a temporary directory, removed now)"
        } else {
            ""
        }
    );
    if summary.worker_restarts > 0 {
        eprintln!(
            "evotest fuzz: in-process: inputs ended {} worker{}{}",
            summary.worker_restarts,
            if summary.worker_restarts == 1 {
                ""
            } else {
                "s"
            },
            if summary.fork_server_fallback {
                "; the rest of the run used the fork server"
            } else {
                ""
            }
        );
    }
    let g = &summary.guidance;
    if g.enabled && g.sites_left_out > 0 {
        eprintln!(
            "evotest fuzz: guidance frontier: {} outcomes; {} uncovered outcomes of {} branch sites out of scope (library code, --frontier_exclude/include) left out",
            g.frontier, g.frontier_left_out, g.sites_left_out
        );
    }
    for c in &summary.crashes {
        eprintln!(
            "  crash {}: {} ({} bytes{})",
            c.kind,
            c.artifact.display(),
            c.size,
            if c.minimized { ", minimised" } else { "" }
        );
    }
    for p in &summary.missing_artifacts {
        eprintln!(
            "  recorded crash whose artifact {} does not exist (removed, or not written for lack of room: its input was printed then)",
            p.display()
        );
    }
    if summary.crashes_met_again > 0 {
        eprintln!(
            "evotest fuzz: {} crash{} recorded by an earlier run met again: not fixed",
            summary.crashes_met_again,
            if summary.crashes_met_again == 1 {
                ""
            } else {
                "es"
            }
        );
    }
    if summary.timeouts_total > summary.timeouts.len() as u64
        || summary.ooms_total > summary.ooms.len() as u64
    {
        eprintln!(
            "evotest fuzz: {} executions timed out and {} ran out of memory; {} and {} kept as artifacts (one is kept when it recurs in a fresh process and reached coverage no earlier one did)",
            summary.timeouts_total,
            summary.ooms_total,
            summary.timeouts.len(),
            summary.ooms.len()
        );
    }
    for t in &summary.timeouts {
        eprintln!("  timeout: {}", t.display());
    }
    if summary.timeouts_total > 0 {
        // libFuzzer's default is 1,200 s, AFL++'s 1 s: a slow target, not a stuck one, needs more
        eprintln!(
            "evotest fuzz: hint: the timeout was {timeout:?}; if these inputs are slow rather than stuck, a larger -timeout=SECONDS keeps them as inputs"
        );
    }
    for t in &summary.ooms {
        eprintln!("  out of memory: {}", t.display());
    }
    if !summary.ooms.is_empty()
        && a.rss_limit_mb > 0
        && crate::fuzz::triage::linked_sanitizers(&a.harness)
            .is_some_and(|s| s.contains(&"AddressSanitizer"))
    {
        // one oversized allocation is out of memory because evotest asks ASan to say so (as
        // libFuzzer's -malloc_limit_mb does); the harness run by hand does not
        eprintln!(
            "evotest fuzz: hint: under AddressSanitizer a single allocation above -rss_limit_mb is out of memory (evotest runs the target with ASAN_OPTIONS=allocator_may_return_null=0:max_allocation_size_mb={0}); to replay such an artifact by hand: ASAN_OPTIONS=allocator_may_return_null=0:max_allocation_size_mb={0} {1} FILE",
            a.rss_limit_mb,
            a.harness.display()
        );
    }
    if a.json {
        outln!("{}", serde_json::to_string_pretty(&summary)?);
    }
    // as libFuzzer: a run that met a crash, new or recorded before, exits non-zero (after
    // spending its whole budget), one that kept a timeout or an out-of-memory input with
    // libFuzzer's codes for them
    Ok(exit_code(finding_code(
        summary.new_crashes + summary.crashes_met_again,
        summary.timeouts.len(),
        summary.ooms.len(),
        a.error_exitcode,
        a.timeout_exitcode,
    )))
}

/// evotest's exit code for a run that found a new unique crash (`-error_exitcode`'s default;
/// libFuzzer's is 77).
pub const CRASH_EXIT_CODE: i32 = 1;
/// libFuzzer's exit code for a timeout (`-timeout_exitcode`'s default).
pub const TIMEOUT_EXIT_CODE: i32 = 70;
/// libFuzzer's exit code for an out-of-memory input.
pub const OOM_EXIT_CODE: i32 = 71;
/// The per-input limit that `-timeout=0` (libFuzzer: no timeout) stands for: about 32 years,
/// finite so that the executors' multiples of it stay in range.
pub const NO_TIMEOUT: Duration = Duration::from_secs(1_000_000_000);

/// The exit status of a run that met `crashes` unique crashes (new, or recorded before and met
/// again) and kept `timeouts` and `ooms` artifacts: `crash_code` (-error_exitcode),
/// `timeout_code` (-timeout_exitcode) or [`OOM_EXIT_CODE`] for the first kind it found in that
/// order, else 0.
fn finding_code(
    crashes: usize,
    timeouts: usize,
    ooms: usize,
    crash_code: i32,
    timeout_code: i32,
) -> i32 {
    if crashes > 0 {
        crash_code
    } else if timeouts > 0 {
        timeout_code
    } else if ooms > 0 {
        OOM_EXIT_CODE
    } else {
        0
    }
}

/// libFuzzer's custom-mutation hooks that the executable at `exe` defines
/// (`LLVMFuzzerCustomMutator`, `LLVMFuzzerCustomCrossOver`), which evotest does not call. Only
/// the symbol tables are read; none when they cannot be (a missing file is reported later) or
/// the executable is stripped of its own functions' names.
fn custom_mutation_hooks(exe: &std::path::Path) -> Vec<&'static str> {
    use object::{Object, ObjectSymbol};
    const HOOKS: [&str; 2] = ["LLVMFuzzerCustomMutator", "LLVMFuzzerCustomCrossOver"];
    let Ok(f) = std::fs::File::open(exe) else {
        return vec![];
    };
    let cache = object::read::ReadCache::new(f);
    let Ok(file) = object::File::parse(&cache) else {
        return vec![];
    };
    HOOKS
        .into_iter()
        .filter(|h| {
            file.symbols()
                .chain(file.dynamic_symbols())
                .any(|s| s.name() == Ok(h) && !s.is_undefined())
        })
        .collect()
}

/// The arguments of `evotest fuzz` for another worker: `-j`/`--jobs`/`--workers` removed, and the
/// seed fixed to this run's (each worker adds its number to it).
/// The executable of cargo-fuzz target `name` of the crate at `dir`, built (see
/// [`crate::frontend::rust::build::build_fuzz_target`]) unless this is a worker of a `-j` run
/// and the first process built it already.
///
/// Errors: the build fails.
fn cargo_fuzz_target(
    dir: &std::path::Path,
    name: &std::path::Path,
    worker: bool,
    instrument: &[String],
) -> Result<PathBuf> {
    let name = name.to_string_lossy().into_owned();
    if name.contains('/') {
        bail!(
            "--cargo-fuzz {}: give the fuzz target's name (e.g. fuzz_parse), not a path: {name}",
            dir.display()
        );
    }
    let base = if dir.join("fuzz").join("Cargo.toml").is_file() {
        dir.join("fuzz")
    } else {
        dir.to_path_buf()
    };
    let work = base.join("target").join("evotest");
    let exe = work.join(&name);
    if worker && exe.is_file() {
        return Ok(exe);
    }
    let tc = crate::toolchain::Toolchain::locate()?;
    if instrument.is_empty() {
        eprintln!(
            "evotest fuzz: building fuzz target {name} of {} (local crates instrumented)",
            dir.display()
        );
    } else {
        eprintln!(
            "evotest fuzz: building fuzz target {name} of {} (local crates and {} instrumented)",
            dir.display(),
            instrument.join(", ")
        );
    }
    crate::frontend::rust::build::build_fuzz_target(&tc, dir, &name, &work, instrument)
}

fn worker_args(raw: &[OsString], seed: u64) -> Vec<OsString> {
    let mut out = Vec::new();
    let mut skip_next = false;
    let mut after_dashes = false;
    for a in raw {
        if skip_next {
            skip_next = false;
            continue;
        }
        let s = a.to_string_lossy();
        if after_dashes {
            out.push(a.clone());
            continue;
        }
        if s == "--" {
            after_dashes = true;
            out.push(a.clone());
            continue;
        }
        if s == "-j" || s == "--jobs" || s == "--workers" || s == "--seed" {
            skip_next = true;
            continue;
        }
        if (s.starts_with("-j") && s.len() > 2 && !s.starts_with("--"))
            || s.starts_with("--jobs=")
            || s.starts_with("--workers=")
            || s.starts_with("--seed=")
        {
            continue;
        }
        out.push(a.clone());
    }
    // before any `--`, so that it is not taken for a target argument
    let at = out.iter().position(|a| a == "--").unwrap_or(out.len());
    out.insert(at, OsString::from(format!("--seed={seed}")));
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn os(v: &[&str]) -> Vec<OsString> {
        v.iter().map(OsString::from).collect()
    }

    /// A switch with two dashes and a libFuzzer-style value: `--stop_on_crash=1` is on, `=0` off.
    #[test]
    fn a_switch_with_two_dashes_takes_a_value() {
        assert_eq!(
            rewrite_args(os(&["h", "c", "--stop_on_crash=1", "--in_process=0"])).unwrap(),
            os(&["h", "c", "--stop_on_crash"])
        );
    }
    #[test]
    fn libfuzzer_spellings_become_long_flags() {
        let r = rewrite_args(os(&[
            "h",
            "c",
            "-max_len=10",
            "-use_value_profile=1",
            "-foo=2",
            "--runs=3",
            "-j",
            "2",
            "-stop_on_crash=1",
            "-json=0",
            "--",
            "-x=1",
        ]))
        .unwrap();
        assert_eq!(
            r,
            os(&[
                "h",
                "c",
                "--max_len=10",
                "--use_value_profile=1",
                "--runs=3",
                "-j",
                "2",
                "--stop_on_crash",
                "--",
                "-x=1"
            ])
        );
    }

    #[test]
    fn libfuzzer_jobs_and_workers_become_one_worker_count() {
        assert_eq!(
            rewrite_args(os(&["h", "c", "-jobs=4", "-workers=2", "-runs=9"])).unwrap(),
            os(&["h", "c", "--runs=9", "--jobs=2"])
        );
        let half = std::thread::available_parallelism().map_or(1, |n| (n.get() / 2).max(1));
        assert_eq!(
            rewrite_args(os(&["h", "c", "-jobs=64"])).unwrap(),
            os(&["h", "c", &format!("--jobs={half}")])
        );
        assert_eq!(
            rewrite_args(os(&["h", "c", "-workers=3", "--", "@@"])).unwrap(),
            os(&["h", "c", "--jobs=3", "--", "@@"])
        );
        // libFuzzer's -fork=N: N processes at once (-workers wins when both are given)
        assert_eq!(
            rewrite_args(os(&["h", "c", "-fork=2"])).unwrap(),
            os(&["h", "c", "--jobs=2"])
        );
        assert_eq!(
            rewrite_args(os(&["h", "c", "-workers=3", "-fork=2"])).unwrap(),
            os(&["h", "c", "--jobs=3"])
        );
        assert_eq!(
            rewrite_args(os(&["h", "c", "-fork=2", "-workers=3"])).unwrap(),
            os(&["h", "c", "--jobs=3"])
        );
        // a known flag without its value
        assert_eq!(
            rewrite_args(os(&["h", "c", "-runs", "5", "-stop_on_crash"])).unwrap(),
            os(&["h", "c", "--runs", "5", "--stop_on_crash"])
        );
    }

    #[test]
    fn libfuzzer_help_ignore_remaining_args_and_unknown_bare_flags() {
        assert_eq!(
            rewrite_args(os(&["h", "c", "-runs=1", "-help=1"])).unwrap(),
            os(&["h", "c", "--runs=1", "--help"])
        );
        assert_eq!(
            rewrite_args(os(&["h", "c", "-help=0"])).unwrap(),
            os(&["h", "c"])
        );
        // what follows -ignore_remaining_args=1 is the harness's, as after `--`; -workers
        // before it still counts
        assert_eq!(
            rewrite_args(os(&[
                "h",
                "c",
                "-workers=2",
                "-ignore_remaining_args=1",
                "-foo",
                "bar",
                "-help=1"
            ]))
            .unwrap(),
            os(&["h", "c", "--jobs=2", "--", "-foo", "bar", "-help=1"])
        );
        assert_eq!(
            rewrite_args(os(&["h", "c", "-ignore_remaining_args=0", "-q"])).unwrap(),
            os(&["h", "c", "-q"])
        );
        let e = rewrite_args(os(&["h", "c", "-foo"]))
            .unwrap_err()
            .to_string();
        assert!(e.starts_with("unknown flag -foo "), "{e}");
        for ok in ["-j2", "-j", "-q", "-1", "-10", "-"] {
            assert!(rewrite_args(os(&["h", "c", ok])).is_ok(), "{ok}");
        }
    }

    #[test]
    fn workers_get_the_arguments_without_jobs_and_with_the_seed() {
        let w = worker_args(
            &os(&["h", "c", "-j", "2", "--seed=5", "--jobs=3", "--", "@@"]),
            9,
        );
        assert_eq!(w, os(&["h", "c", "--seed=9", "--", "@@"]));
    }
}

/// `-input_extension`'s value: a file name's last part (no `/`, not empty, no NUL): with a `/`
/// every input went to a file in a directory that did not exist, and every execution ran on
/// nothing.
fn file_extension(v: &str) -> Result<String, String> {
    let v = v.strip_prefix('.').unwrap_or(v);
    if v.is_empty() || v.contains(['/', '\0']) || v == "." {
        return Err(format!(
            "`{v}` is no file-name extension (letters such as `png`, without `/`)"
        ));
    }
    Ok(v.to_string())
}
