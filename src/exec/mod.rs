//! Executing the target: the [`Executor`] trait and its implementations, each a file: the fork
//! server ([`forkserver`], per input or persistent), the harness called in the engine's own
//! process ([`inprocess`], inside an in-process fuzzing worker) and a mock driven by a Rust closure ([`mock`],
//! for unit tests of the engine without compiling C).
//!
//! An executor runs one encoded input and returns an [`Execution`]: how the process ended
//! ([`ExitKind`]), the value the harness recorded as returned, and the [`Trace`]. A crash, hang
//! or exit of the target is a result, never an error; `Err` means the executor itself broke
//! (the fork server cannot be restarted).

pub mod affinity;
pub mod forkserver;
pub mod inprocess;
pub mod mock;
pub mod shm;

use crate::trace::Trace;
use anyhow::Result;
use serde::{Deserialize, Serialize};
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::{Duration, Instant};

pub use forkserver::{ForkServer, ForkServerConfig, InputDelivery};
pub use mock::MockExecutor;

/// How an execution ended.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(tag = "kind", rename_all = "snake_case")]
pub enum ExitKind {
    /// The harness returned from the function under test and the process exited with status 0.
    Ok,
    /// Killed by a signal (other than the executor's own timeout kill).
    Crash { signal: i32 },
    /// Ran longer than the per-execution timeout and was killed.
    Timeout,
    /// Exited with `code` before the function under test returned (or with a non-zero code).
    Exit { code: i32 },
    /// Stopped by the runtime after more branch events than the per-execution limit
    /// (`--max-branch-events`): a runaway loop, or a legitimately long execution.
    StepLimit,
    /// Killed for using more memory than the limit (`--rss-limit-mb`).
    Oom,
    /// Killed the process that ran it (the fork server), twice in a row.
    ParentKilled,
    /// Stopped by the engine before it ended (interrupted, or the wall-time budget ran out): not
    /// a property of the input, and never recorded as a fault.
    Stopped,
}

impl ExitKind {
    /// Whether this is a fault worth a reproducer (crash, timeout, exit, …).
    pub fn is_fault(self) -> bool {
        !matches!(self, ExitKind::Ok | ExitKind::Stopped)
    }

    /// Short name: `ok`, `crash`, `timeout`, `exit`, `step_limit`, `oom`, `parent_killed`,
    /// `stopped`.
    pub fn name(self) -> &'static str {
        match self {
            ExitKind::Ok => "ok",
            ExitKind::Crash { .. } => "crash",
            ExitKind::Timeout => "timeout",
            ExitKind::Exit { .. } => "exit",
            ExitKind::StepLimit => "step_limit",
            ExitKind::Oom => "oom",
            ExitKind::ParentKilled => "parent_killed",
            ExitKind::Stopped => "stopped",
        }
    }
}

impl std::fmt::Display for ExitKind {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            ExitKind::Ok => write!(f, "ok"),
            ExitKind::Crash { signal } => {
                write!(f, "crash (signal {signal}, {})", signal_name(*signal))
            }
            ExitKind::Timeout => write!(f, "timeout"),
            ExitKind::Exit { code } => write!(f, "exit({code})"),
            ExitKind::StepLimit => write!(f, "branch-event limit exceeded"),
            ExitKind::Oom => write!(f, "out of memory (over the RSS limit)"),
            ExitKind::ParentKilled => write!(f, "killed its parent process"),
            ExitKind::Stopped => write!(f, "stopped by the engine"),
        }
    }
}

/// `SIGSEGV` etc.
/// How long a generated suite waits before it calls a recorded timeout a hang, for a search
/// run with per-execution `timeout`: five times the timeout, rounded up to whole seconds, and at
/// least 2 s. A timeout is kept as a fault only if it recurs under this limit (see the campaign's
/// `verify`), so a suite never expects a hang that ends otherwise.
pub fn hang_limit(timeout: Duration) -> Duration {
    Duration::from_secs((timeout.as_secs_f64() * 5.0).ceil().max(2.0) as u64)
}

pub fn signal_name(sig: i32) -> &'static str {
    match sig {
        libc::SIGSEGV => "SIGSEGV",
        libc::SIGABRT => "SIGABRT",
        libc::SIGFPE => "SIGFPE",
        libc::SIGBUS => "SIGBUS",
        libc::SIGILL => "SIGILL",
        libc::SIGKILL => "SIGKILL",
        libc::SIGTRAP => "SIGTRAP",
        libc::SIGALRM => "SIGALRM",
        libc::SIGTERM => "SIGTERM",
        libc::SIGPIPE => "SIGPIPE",
        _ => "signal",
    }
}

/// The value the function under test returned, as recorded by the harness.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(tag = "type", content = "value", rename_all = "snake_case")]
pub enum RetVal {
    Void,
    Signed(i64),
    Unsigned(u64),
    /// Bit pattern of an `f32`.
    F32(u32),
    /// Bit pattern of an `f64`.
    F64(u64),
}

impl std::fmt::Display for RetVal {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match *self {
            RetVal::Void => write!(f, "void"),
            RetVal::Signed(v) => write!(f, "{v}"),
            RetVal::Unsigned(v) => write!(f, "{v}"),
            RetVal::F32(b) => write!(f, "{:?}", f32::from_bits(b)),
            RetVal::F64(b) => write!(f, "{:?}", f64::from_bits(b)),
        }
    }
}

/// The result of running one input.
#[derive(Clone, Debug)]
pub struct Execution {
    pub exit: ExitKind,
    /// `None` when the function under test did not return (fault, or exit before return).
    pub ret: Option<RetVal>,
    pub trace: Trace,
    /// Wall time of this execution, fork to status.
    pub duration: Duration,
}

impl Execution {
    /// The execution that ended in `exit`, read from the shared memory `shm` that it wrote (its
    /// full trace; its return value only when it returned), `duration` after `t0`.
    pub(crate) fn read(exit: ExitKind, shm: &shm::SharedMemory, t0: Instant) -> Self {
        Execution {
            exit,
            ret: if exit == ExitKind::Ok {
                shm.ret_val()
            } else {
                None
            },
            trace: shm.read_full_trace(),
            duration: t0.elapsed(),
        }
    }
}

/// How many times the timeout an execution with every compare's operands logged may take (see
/// [`Executor::log_every_compare`]).
pub const LOGGING_TIMEOUT_FACTOR: u32 = 10;

/// How many times the timeout the first execution in a fresh process of the target may take (a
/// persistent fork-server child, an in-process worker): a harness's first call often does its
/// set-up then (a lazily built table, a library's global initialisation, page faults of a large
/// binary), and with the 1 s default a harness whose first call took 1.5 s timed out in every
/// new process, so that a fork-server run stayed at one outcome and an in-process run stopped,
/// with its seeds written as timeouts. A real hang that happens to come first in a process is
/// still found, later by this factor; libFuzzer's default timeout is 1,200 s.
pub const FIRST_RUN_TIMEOUT_FACTOR: u32 = 10;

/// The coverage of one execution in sparse form, as a fuzzer needs it: the executed sites with
/// their hit counts and the branch outcomes taken, without a copy of the whole trace map (which
/// for a library of 50,000 sites costs more than many executions).
///
/// After a coverage-only run the executor may leave the lists unbuilt and hold the lite map's
/// non-zero words instead ([`Coverage::words`]; [`Coverage::is_pending`]): a fuzzer that only
/// asks whether the execution added anything reads them as they are (one pass over a few
/// thousand bytes), and [`Coverage::list`] builds the lists when it needs more.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Coverage {
    /// `(global site, hits)` of every executed site, in site order.
    pub sites: Vec<(u32, u32)>,
    /// Global IDs of the outcomes taken, in site order.
    pub outcomes: Vec<u32>,
    /// While the lists are pending: the non-zero 8-byte words of the lite map, `(word index,
    /// value)` in index order; byte `k` (little-endian) of word `i` is how many times global
    /// outcome `8i + k` was taken, wrapping at 256. Empty otherwise.
    pub words: Vec<(u32, u64)>,
}

/// The bytes of `v` that are not zero, as a mask of their high bits (`0x80` in each).
#[inline]
fn nonzero_bytes(v: u64) -> u64 {
    const LOW7: u64 = 0x7f7f_7f7f_7f7f_7f7f;
    (((v & LOW7) + LOW7) | v) & !LOW7
}

impl Coverage {
    /// Empty both lists and the words (keeping their memory).
    pub fn clear(&mut self) {
        self.sites.clear();
        self.outcomes.clear();
        self.words.clear();
    }

    /// Whether the lists are still to be built from [`Coverage::words`].
    pub fn is_pending(&self) -> bool {
        !self.words.is_empty()
    }

    /// Calls `f(outcome, count)` for each outcome the pending words say was taken, in outcome
    /// order.
    #[inline]
    pub fn for_each_word_outcome(&self, f: impl FnMut(usize, u8)) {
        word_outcomes(&self.words, f)
    }

    /// How many times (wrapping at 256) the pending words say outcome `o` was taken; 0 when no
    /// word holds it. A binary search.
    pub fn count_of(&self, o: u32) -> u8 {
        match self.words.binary_search_by_key(&(o / 8), |&(i, _)| i) {
            Ok(k) => (self.words[k].1 >> (8 * (o % 8))) as u8,
            Err(_) => 0,
        }
    }

    /// Build the lists from pending words (nothing when none are pending). `outcome_site[o]` is
    /// global outcome `o`'s site (`u32::MAX`, or beyond the slice: no site, not listed); the
    /// outcomes of one site are consecutive, and a site's hits are the sum of its outcomes'
    /// counts.
    pub fn list(&mut self, outcome_site: &[u32]) {
        if self.words.is_empty() {
            return;
        }
        let (sites, taken) = (&mut self.sites, &mut self.outcomes);
        sites.clear();
        taken.clear();
        word_outcomes(&self.words, |o, c| {
            let Some(&s) = outcome_site.get(o) else {
                return;
            };
            if s == u32::MAX {
                return;
            }
            taken.push(o as u32);
            match sites.last_mut() {
                Some((ls, h)) if *ls == s => *h += c as u32,
                _ => sites.push((s, c as u32)),
            }
        });
        self.words.clear();
    }
}

/// [`Coverage::for_each_word_outcome`] on `words`.
#[inline]
fn word_outcomes(words: &[(u32, u64)], mut f: impl FnMut(usize, u8)) {
    for &(i, v) in words {
        let mut m = nonzero_bytes(v);
        while m != 0 {
            let k = (m.trailing_zeros() / 8) as usize;
            m &= m - 1;
            f(i as usize * 8 + k, (v >> (8 * k)) as u8);
        }
    }
}

/// Per global outcome, its site: the inverse of `site_outcomes` (per site its first outcome and
/// number of outcomes), for `n_outcomes` outcomes; `u32::MAX` where no site has the outcome.
pub fn outcome_sites(site_outcomes: &[(u32, u32)], n_outcomes: usize) -> Vec<u32> {
    let mut v = vec![u32::MAX; n_outcomes];
    for (site, &(base, n)) in site_outcomes.iter().enumerate() {
        for o in base..base + n {
            if let Some(x) = v.get_mut(o as usize) {
                *x = site as u32;
            }
        }
    }
    v
}

/// What may end an execution early besides its own timeout: a deadline (the search's wall-time
/// budget) and an interrupt flag (`^C`, `SIGTERM`). Such an execution ends as
/// [`ExitKind::Stopped`].
#[derive(Clone, Copy, Debug, Default)]
pub struct Stop<'a> {
    pub deadline: Option<Instant>,
    pub interrupt: Option<&'a AtomicBool>,
}

impl Stop<'_> {
    /// No deadline, no interrupt.
    pub const NONE: Stop<'static> = Stop {
        deadline: None,
        interrupt: None,
    };

    /// Whether the execution must stop now.
    pub fn now(&self) -> bool {
        self.deadline.is_some_and(|d| Instant::now() >= d)
            || self.interrupt.is_some_and(|i| i.load(Ordering::Relaxed))
    }
}

/// Runs inputs against the target. Adding an executor means adding a file with a type that
/// implements this trait.
pub trait Executor {
    /// Run one input (the bytes the harness reads), until it ends, times out, or `stop` says so.
    /// `Err` only when the executor itself fails.
    fn run(&mut self, input: &[u8], stop: Stop) -> Result<Execution>;
    /// Executions so far.
    fn executions(&self) -> u64;
    /// Record the ordered trace (definitions and branch outcomes, in order) from now on.
    fn set_ordered_trace(&mut self, on: bool);
    /// Stop each following execution after `n` branch events (0 = no limit); such an execution
    /// ends as [`ExitKind::StepLimit`].
    fn set_max_branch_events(&mut self, n: u32);
    /// Stop each call of an API call sequence after `n` branch events (0 = no limit per call);
    /// only executors whose targets are sequence harnesses use it.
    fn set_max_call_events(&mut self, _n: u32) {}
    /// Times the executor had to restart the target (a fork server that died).
    fn restarts(&self) -> u32 {
        0
    }
    /// Most inputs one target process runs (1: a process per input).
    fn inputs_per_process(&self) -> u32 {
        1
    }
    /// Kill executions whose resident memory exceeds `bytes` (0 = no limit), as
    /// [`ExitKind::Oom`].
    fn set_memory_limit(&mut self, _bytes: u64) {}
    /// Run one input as [`Executor::run`] does, reporting only its sparse [`Coverage`] into `cov`
    /// (cleared first). `outcomes[site]` is the site's first global outcome and its number of
    /// outcomes. The default runs [`Executor::run`] and converts its trace; the fork server reads
    /// only the executed sites. After a coverage-only run ([`Executor::set_lite`]) the lists
    /// may be pending ([`Coverage::is_pending`]).
    fn run_coverage(
        &mut self,
        input: &[u8],
        stop: Stop,
        outcomes: &[(u32, u32)],
        cov: &mut Coverage,
    ) -> Result<ExitKind> {
        let e = self.run(input, stop)?;
        cov.clear();
        for (i, r) in e.trace.sites.iter().enumerate() {
            if r.hits == 0 {
                continue;
            }
            cov.sites.push((i as u32, r.hits));
            if let Some(&(base, n)) = outcomes.get(i) {
                cov.outcomes.extend(
                    (base..base + n).filter(|&o| e.trace.dist.get(o as usize) == Some(&0.0)),
                );
            }
        }
        Ok(e.exit)
    }
    /// The minimum branch distance of global outcome `outcome` in the last execution (after
    /// [`Executor::run`] or [`Executor::run_coverage`]), as [`Trace::dist`] holds it: meaningful
    /// only where the outcome's site ran. `None` when the executor does not keep it or the ID is
    /// out of range. Reads one value, so a fuzzer can follow a few outcomes at no cost per run.
    fn last_distance(&self, _outcome: u32) -> Option<f64> {
        None
    }
    /// The value the harness recorded as returned by the last execution ([`Executor::run`] or
    /// [`Executor::run_coverage`]), if it returned (a libFuzzer harness's `int`: -1 rejects the
    /// input). `None` when it did not return or the executor does not keep it (the default).
    fn last_ret(&self) -> Option<RetVal> {
        None
    }
    /// `on`: until called with `false`, [`Executor::run_coverage`] runs coverage-only
    /// executions: the probes count the outcomes taken and nothing else (no distances, no operand
    /// logs; [`Executor::last_distance`] is then `None`), which on code with many compares at
    /// uncovered outcomes runs several times faster (AFL++ runs its fast coverage build and its
    /// CmpLog build apart; evotest switches one build). Other runs stay full. `false` when the
    /// executor cannot (the default), or while an ordered trace, a branch-event limit or
    /// [`Executor::log_every_compare`] is on; nothing changed then.
    fn set_lite(&mut self, _on: bool) -> bool {
        false
    }
    /// From now on, site `site` (global ID) needs only its hit count: after the site's first
    /// evaluation in an execution its probe may only count hits (no distances, no outcome).
    /// For a fuzzer's fully covered sites; the default ignores it.
    fn set_quiet(&mut self, _site: u32) {}
    /// `on`: until called with `false`, every site records in full as if none were quiet (an
    /// execution that must see every outcome it takes); `false` puts the quiet sites back.
    fn suspend_quiet(&mut self, _on: bool) {}
    /// Let the next executions run for at most `t` (instead of the timeout the executor was
    /// opened with) before they count as timed out; `false` when the executor cannot change it
    /// (the default), and then nothing changed.
    fn set_timeout(&mut self, _t: std::time::Duration) -> bool {
        false
    }
    /// `on`: until called with `false`, the operand logs keep the operands of every evaluation
    /// of a compare (up to [`evotest_abi::shm::OPERAND_EVALS`] per site and execution), integer
    /// and string compares alike, not only each site's first; for a fuzzer's input-to-state
    /// stage on every compare. Such an execution may take many times a normal one's time (every
    /// compare's operands logged: 0.3–1 s against 3–15 ms on libjpeg-turbo's harness), so while
    /// it is on the executors allow [`LOGGING_TIMEOUT_FACTOR`] times the timeout, lest the
    /// logging itself make a timeout of an input that runs in milliseconds. The default ignores
    /// it.
    fn log_every_compare(&mut self, _on: bool) {}
    /// The operand log of the last execution ([`Trace::operands`]) into `out` (cleared first);
    /// `false` when the executor does not keep it.
    fn last_operands(&self, out: &mut Vec<crate::trace::OperandRec>) -> bool {
        out.clear();
        false
    }
    /// The string operand log of the last execution ([`Trace::str_operands`]) into `out`
    /// (cleared first); `false` when the executor does not keep it.
    fn last_str_operands(&self, out: &mut Vec<crate::trace::StrOperandRec>) -> bool {
        out.clear();
        false
    }
    /// In-process mode: record the worker's coverage so far (outcomes covered, features,
    /// inputs added to the corpus) where its supervisor reads it after the worker died (the
    /// shared header). The default ignores it.
    fn note_in_process_coverage(&mut self, _coverage: (u64, u64, u64)) {}
    /// What the target wrote on standard error during the last execution, if the executor
    /// captures it (the fork server does when asked: a crash report of a sanitizer, a stack).
    fn last_stderr(&mut self) -> Option<Vec<u8>> {
        None
    }
    /// What the target wrote on standard error while it started, before its first input (a
    /// harness's `LLVMFuzzerInitialize` that could not load a file, say), once: later calls give
    /// `None`. Only executors that capture the target's standard error and hide it have any (the
    /// fork server); the in-process worker's goes to the console as it is written.
    fn take_startup_output(&mut self) -> Option<Vec<u8>> {
        None
    }
    /// Bytes free on the file system that keeps the target's standard error, when the executor
    /// keeps it in a file (the fork server's, in `TMPDIR`): with none left, sanitizer reports and
    /// crash stacks are lost, and crashes are told apart by their signal alone. `None`: no such
    /// file, or its file system cannot be asked.
    fn stderr_room(&self) -> Option<u64> {
        None
    }
    /// Why the engine thread and the target were left unbound to a CPU
    /// ([`affinity::Unbound`]), for executors that bind one (the fork server); `None` when bound
    /// or when the executor binds nothing.
    fn unbound(&self) -> Option<affinity::Unbound> {
        None
    }
    /// The `OVERFLOW_*` bits (`evotest_abi::shm`) the target's runtime set since its process
    /// started: instrumented code registered beyond what the trace map was sized for (a library
    /// loaded with `dlopen` while inputs ran), whose branches are then not recorded. 0: none (or
    /// the executor has no such notion).
    fn registration_overflow(&self) -> u32 {
        0
    }
    /// The threads the target process already ran when it was ready for its first input, when
    /// more than one: it then runs its inputs itself instead of forking a process per input (a
    /// fork keeps only the forking thread; see `evotest_abi::names::FORKSRV_HELLO_NOFORK`), so
    /// that each crash, exit or hang costs a restart. `None`: the executor forks (or has no
    /// such notion).
    fn threads_without_fork(&self) -> Option<u32> {
        None
    }
    /// Whether a fresh target process's first execution would get
    /// [`FIRST_RUN_TIMEOUT_FACTOR`] times the limit because no first execution has ended
    /// normally yet (the set-up a fresh process does is unmeasured). A fuzzer then runs one input
    /// first to measure it, so that a seed that hangs costs about the timeout, not ten times it
    /// in each of its runs. The default (executors without that allowance): `false`.
    fn setup_unmeasured(&self) -> bool {
        false
    }
}
