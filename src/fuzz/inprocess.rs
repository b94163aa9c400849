//! In-process fuzzing (`evotest fuzz --in_process`): libFuzzer's model, one process that runs
//! the engine and calls the harness in a loop, with no fork and no pipe per input.
//!
//! * The **supervisor** ([`supervise`], the `evotest` process) creates the trace map, starts the
//!   harness (linked with evotest's driver) with `__EVOTEST_IN_PROCESS` naming the engine library
//!   (`libevotest_inprocess.so`) and `__EVOTEST_IN_PROCESS_JOB` naming a job file: the options,
//!   and what the last worker left (elapsed time, executions, counters, the input that ended it).
//! * The **worker** ([`worker_main`], in the harness's process) runs the usual fuzzing loop
//!   ([`super::run`]'s) with the in-process executor ([`crate::exec::inprocess`]): each input is
//!   placed in the shared trace map, then `LLVMFuzzerTestOneInput` is called on a copy of it.
//! * An input that **ends the process** (a crash, a sanitizer report, an `exit`, or the watchdog's
//!   timeout and RSS limit) leaves itself in the trace map with the execution marked as running.
//!   The supervisor keeps it (`pending-<sha1>` in the state directory) and starts a new worker,
//!   which first runs it in a fork server of its own (a process per input) and triages it as the
//!   fork-server mode does (reproduction, sanitizer report, stack, de-duplication, minimisation,
//!   `crash-…`/`timeout-…`/`oom-…` artifacts), then replays the corpus directory and goes on.
//!   Inputs that ended a worker are never run in-process again (the session answers them as
//!   not run, [`super::Session::is_killer`]): deterministic stages would find them again at once.
//!
//! What a restart loses: the distance pools and directed stages' state, and the counters of the
//! worker that died other than executions, faults and length control's limit (the corpus itself
//! is on disk; the new worker replays it without printing `NEW` lines). A target
//! whose shallow crash recurs every few thousand inputs restarts often: after 8 restarts at less
//! than 3 s of fuzzing per worker on average (the workers' start-up, up to their first
//! execution, and their hangs not counted: a harness whose `LLVMFuzzerInitialize` takes seconds
//! would otherwise never qualify), or after 3 restarts whose start-ups took longer than the
//! workers fuzzed, the supervisor goes on with the fork server itself (libFuzzer
//! stops at the first crash; `--stop_on_crash` does the same here).

use super::corpus::sha1_hex;
use super::{effective_max_len, stats::Display, FuzzOptions, Outcome, Summary};
use crate::exec::inprocess::Hooks;
use crate::exec::shm::SharedMemory;
use crate::exec::ExitKind;
use crate::target::{self, InProcessTarget};
use crate::util::write_atomic;
use anyhow::{anyhow, bail, Context, Result};
use evotest_abi::names::{
    ENV_FORKSRV, ENV_IN_PROCESS, ENV_IN_PROCESS_JOB, ENV_PERSISTENT, ENV_PROGRAM_INPUT, ENV_SHM_ID,
};
use evotest_abi::shm::{INPROC_FAULT_OOM, INPROC_FAULT_TIMEOUT};
use serde::{Deserialize, Serialize};
use std::os::unix::process::{CommandExt, ExitStatusExt};
use std::path::PathBuf;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::{Duration, Instant};

/// An input that ended the last worker, and how.
#[derive(Clone, Debug, Serialize, Deserialize)]
pub struct Pending {
    /// The input (a file in the supervisor's directory).
    pub input: PathBuf,
    /// How the process ended: a crash (signal), an exit, a timeout or out of memory.
    pub exit: ExitKind,
}

/// What one worker hands to the next.
#[derive(Clone, Debug, Default, Serialize, Deserialize)]
pub struct Carry {
    /// Wall time of the run so far.
    pub elapsed: Duration,
    /// When the run began, in seconds since the Unix epoch with their fraction (crashes recorded
    /// since are the run's own; 0: unknown).
    #[serde(default)]
    pub start_wall: f64,
    /// Executions in the harness's process so far (the count in the shared header).
    pub inproc_executions: u64,
    /// Executions in fork servers (triage) so far.
    pub isolated_executions: u64,
    pub crashes_found: usize,
    /// The signatures of recorded crashes the workers met again (`Stats::crashes_met_again`).
    #[serde(default)]
    pub crashes_met_again: Vec<String>,
    pub crashes_total: u64,
    pub timeouts: Vec<PathBuf>,
    pub timeouts_total: u64,
    pub ooms: Vec<PathBuf>,
    pub ooms_total: u64,
    /// Workers that an input ended.
    pub restarts: u32,
    /// Most branch outcomes and features a worker reported covered (its last stats).
    pub outcomes_covered: usize,
    pub features: usize,
    /// Length control's limit in the last worker's stats (0: none yet).
    #[serde(default)]
    pub len_limit: usize,
    /// Inputs the run added to the corpus so far.
    #[serde(default)]
    pub corpus_new: usize,
    /// Largest peak resident memory, MB, that a worker before this one reported (its stats).
    #[serde(default)]
    pub peak_rss_mb: u64,
    /// The outcomes the workers so far covered, sorted (each worker's list in its stats
    /// directory, read when it ends): a new worker counts them as covered once it has replayed
    /// the corpus, so that the run's coverage is their union even where a replay does not take
    /// every outcome again (a target whose coverage is not deterministic).
    #[serde(default)]
    pub covered: Vec<u32>,
    /// The input that ended the last worker, to triage first.
    pub pending: Option<Pending>,
    /// Inputs that ended a worker (files in the supervisor's directory): never run in-process
    /// again.
    pub killers: Vec<PathBuf>,
}

impl Carry {
    /// Executions of the run so far.
    pub fn executions(&self) -> u64 {
        self.inproc_executions + self.isolated_executions
    }
}

/// The job file of a worker.
#[derive(Debug, Serialize, Deserialize)]
struct Job {
    opts: FuzzOptions,
    carry: Carry,
    shm_id: i32,
    /// Where the worker writes its carry after the triage of the pending input.
    carry_out: PathBuf,
    /// Where the worker writes its [`Summary`] when it ends normally.
    summary_out: PathBuf,
    /// Where the worker writes an error that ends it.
    error_out: PathBuf,
    /// The supervisor was interrupted: triage the pending input, then stop.
    interrupted: bool,
}

/// A worker's view of its job, kept by the fuzzer.
#[derive(Clone, Debug)]
pub struct WorkerCtx {
    /// The harness in this process; `None`: the supervisor itself goes on with a fork server
    /// (after the target ended workers too often, [`supervise`]).
    pub target: Option<InProcessTarget>,
    pub carry: Carry,
    carry_out: PathBuf,
    stop_after_pending: bool,
}

impl WorkerCtx {
    /// The file in which the run's workers list the corpus files they wrote
    /// ([`super::corpus::Corpus::share_written`]).
    pub fn written_log(&self) -> PathBuf {
        self.carry_out.with_file_name("written.log")
    }

    /// Hand the carry on to the next worker (its file, read by the supervisor if this one dies).
    fn write_carry(&self) -> Result<()> {
        write_atomic(&self.carry_out, &serde_json::to_vec(&self.carry)?)
            .with_context(|| format!("cannot write {}", self.carry_out.display()))
    }
}

/// Run an in-process campaign: start workers until one ends normally (see module docs).
///
/// Errors (one line): not a harness with evotest's driver, `-j` above 1, the engine library not
/// built, a worker that ended outside an execution (an error of the engine, or of the harness's
/// initialisation), or the same input ending three workers in a row.
pub fn supervise(opts: &FuzzOptions, interrupt: &AtomicBool) -> Result<Summary> {
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
    if opts.jobs > 1 {
        bail!("--in_process runs one worker; leave out -j {} (or fuzz with the fork server, without --in_process)", opts.jobs);
    }
    if !target::has_fuzz_driver(&opts.exe)? {
        // not built with the pass at all (plain clang's libFuzzer harness): say that first
        crate::program::read_metadata(&opts.exe).map_err(|e| {
            anyhow!("{e}: build the harness with evotest-cc/evotest-c++ -fsanitize=fuzzer")
        })?;
        bail!(
            "{}: --in_process needs a libFuzzer harness built with evotest-cc/evotest-c++ -fsanitize=fuzzer (evotest's driver); whole programs run under the fork server",
            opts.exe.display()
        );
    }
    if is_static_executable(&opts.exe) {
        bail!(
            "{}: --in_process loads evotest's engine into the harness, which a statically linked one cannot do; \
             fuzz it without --in_process (the fork server), or link it dynamically",
            opts.exe.display()
        );
    }
    let engine = crate::toolchain::Toolchain::in_process_engine()?;
    let metas = crate::program::read_program_metadata(&opts.exe).map_err(|e| {
        if e.is::<crate::program::WrapperScript>() {
            e
        } else {
            anyhow!("{e:#}; build it with evotest-cc / evotest-c++")
        }
    })?;
    let n_sites: u32 = metas.iter().map(|m| m.sites.len() as u32).sum();
    let n_outcomes: u32 = metas.iter().map(|m| m.n_outcomes).sum();
    if opts.corpus.exists() && !opts.corpus.is_dir() {
        bail!(
            "{}: the corpus must be a directory (the first directory is the output corpus)",
            opts.corpus.display()
        );
    }
    std::fs::create_dir_all(&opts.corpus)
        .with_context(|| format!("cannot create corpus directory {}", opts.corpus.display()))?;
    let max_len = effective_max_len(opts)?;
    if max_len == 0 || max_len > super::MAX_LEN_LIMIT {
        bail!(
            "-max_len={max_len}: must be between 1 and {}",
            super::MAX_LEN_LIMIT
        );
    }
    let exe = opts.exe.canonicalize().unwrap_or_else(|_| opts.exe.clone());
    let dir = opts
        .state_dir()
        .join(format!("in-process-{}", std::process::id()));
    std::fs::create_dir_all(&dir).with_context(|| format!("cannot create {}", dir.display()))?;
    let mut shm = SharedMemory::create(n_sites.max(1), n_outcomes.max(1), max_len as u32, 0)?;
    // the workers' stats directory, chosen here so that the supervisor can read a dead worker's
    let stats_dir = match &opts.stats_dir {
        Some(d) => d.clone(),
        None => {
            let main = opts.state_dir().join("main");
            match target::lock_output(&main) {
                Ok(_) => main,
                Err(_) => opts
                    .state_dir()
                    .join(format!("in-process-{}-stats", std::process::id())),
            }
        }
    };
    let mut job_opts = opts.clone();
    job_opts.stats_dir = Some(stats_dir.clone());
    job_opts.exe = exe.clone();
    job_opts.max_len = Some(max_len);
    job_opts.in_process = false;
    let (job_path, carry_out, summary_out, error_out) = (
        dir.join("job.json"),
        dir.join("carry.json"),
        dir.join("summary.json"),
        dir.join("error.txt"),
    );
    // the workers inherit this thread's CPU (a free one, AFL++'s rule; see exec::affinity)
    let cpu = crate::exec::affinity::bind_to_free_cpu();
    if let Some(w) = cpu.as_ref().err().and_then(|u| u.warning()) {
        if opts.worker.is_none() {
            eprintln!("evotest fuzz: warning: {w}");
        }
    }
    let start = Instant::now();
    let mut carry = Carry {
        start_wall: super::stats::unix_now_f64(),
        ..Carry::default()
    };
    let mut last_killer: Option<(String, u32)> = None;
    // time workers spent hanging until their timeout ended them
    let mut hung = Duration::ZERO;
    // the workers' start-up (the loader, the harness's LLVMFuzzerInitialize, before the first
    // execution): not time they fuzzed either
    let mut starting = Duration::ZERO;
    loop {
        carry.elapsed = start.elapsed();
        shm.reset_registrations();
        shm.set_in_process_idle(carry.inproc_executions);
        shm.set_in_process_coverage((
            carry.outcomes_covered as u64,
            carry.features as u64,
            carry.corpus_new as u64,
        ));
        for f in [&carry_out, &summary_out, &error_out] {
            let _ = std::fs::remove_file(f);
        }
        let job = Job {
            opts: job_opts.clone(),
            carry: carry.clone(),
            shm_id: shm.id(),
            carry_out: carry_out.clone(),
            summary_out: summary_out.clone(),
            error_out: error_out.clone(),
            interrupted: interrupt.load(Ordering::Relaxed),
        };
        write_atomic(&job_path, &serde_json::to_vec(&job)?)
            .with_context(|| format!("cannot write {}", job_path.display()))?;
        let (status, sanitizer, startup) =
            run_worker(&exe, opts, &engine, &shm, &job_path, interrupt)?;
        starting += startup;
        // the summary of the run: the last worker's, with what the workers before it did
        let finish = |mut summary: Summary, restarts: u32| {
            summary.worker_restarts = restarts;
            summary.peak_rss_mb = summary.peak_rss_mb.max(super::stats::peak_rss_mb());
            // the workers hand the count of inputs they added on at each addition (Carry), so
            // the last worker's count holds those of the workers that died; the directory's
            // growth would count the seeds copied in too
            let _ = std::fs::remove_dir_all(&dir);
            summary
        };
        if let Ok(data) = std::fs::read(&summary_out) {
            let summary: Summary =
                serde_json::from_slice(&data).context("the in-process worker's summary")?;
            return Ok(finish(summary, carry.restarts));
        }
        if let Ok(e) = std::fs::read_to_string(&error_out) {
            bail!("{}", e.trim());
        }
        let (input, running) = shm.in_process_last_input();
        let fault = shm.header().inproc_fault;
        if !running && fault == 0 {
            bail!(
                "the in-process worker of {} ended outside an execution ({status}); its output is above (a harness linked with an older evotest driver ignores --in_process: rebuild it with evotest-cc; or fuzz without --in_process)",
                opts.exe.display()
            );
        }
        let exit = match fault {
            INPROC_FAULT_TIMEOUT => ExitKind::Timeout,
            INPROC_FAULT_OOM => ExitKind::Oom,
            _ => match status.signal() {
                Some(signal) => ExitKind::Crash { signal },
                None => ExitKind::Exit {
                    code: status.code().unwrap_or(-1),
                },
            },
        };
        // what the worker had after its triage (it writes that before its first in-process
        // execution, so an input in flight means it is there)
        if let Ok(c) = std::fs::read(&carry_out)
            .map_err(anyhow::Error::from)
            .and_then(|d| Ok(serde_json::from_slice::<Carry>(&d)?))
        {
            carry = c;
        }
        carry.inproc_executions = shm.header().inproc_executions;
        let (covered, features, added) = shm.in_process_coverage();
        carry.outcomes_covered = carry.outcomes_covered.max(covered as usize);
        carry.features = carry.features.max(features as usize);
        carry.corpus_new = carry.corpus_new.max(added as usize);
        let theirs = super::read_covered(&stats_dir);
        if !theirs.is_empty() {
            carry.covered.extend(theirs);
            carry.covered.sort_unstable();
            carry.covered.dedup();
        }
        carry.outcomes_covered = carry.outcomes_covered.max(carry.covered.len());
        if let Some(st) = super::stats::read(&stats_dir) {
            carry.outcomes_covered = carry.outcomes_covered.max(st.outcomes_covered);
            carry.features = carry.features.max(st.features);
            carry.peak_rss_mb = carry.peak_rss_mb.max(st.peak_rss_mb);
            carry.len_limit = st.len_limit;
        }
        let sha = sha1_hex(&input);
        match &mut last_killer {
            Some((s, n)) if *s == sha => {
                *n += 1;
                if *n >= 3 {
                    bail!(
                        "input {sha} ended three in-process workers in a row ({exit}); it is kept in {}",
                        dir.display()
                    );
                }
            }
            _ => last_killer = Some((sha.clone(), 1)),
        }
        let path = dir.join(format!("pending-{sha}"));
        write_atomic(&path, &input).with_context(|| format!("cannot write {}", path.display()))?;
        carry.pending = Some(Pending { input: path, exit });
        let killer = dir.join(format!("killer-{sha}"));
        if !carry.killers.contains(&killer) {
            write_atomic(&killer, &input)
                .with_context(|| format!("cannot write {}", killer.display()))?;
            carry.killers.push(killer);
        }
        carry.restarts += 1;
        if exit == ExitKind::Timeout {
            // the worker hung for a timeout before it was ended: not time it fuzzed
            hung += opts.timeout;
        }
        // a target that ends its workers every moment (a shallow crash that mutations keep
        // finding, or a hang: each costs a timeout and a restart) spends the run on restarts: go
        // on with the fork server, which pays no restart
        let fuzzing = start.elapsed().saturating_sub(hung + starting);
        let life = fuzzing.as_secs_f64() / carry.restarts as f64;
        // or sooner where restarting takes longer than the workers fuzz (a harness whose set-up
        // takes seconds, ended by a shallow crash each time)
        let costly = carry.restarts >= FALLBACK_RESTARTS_COSTLY && starting > fuzzing;
        if (carry.restarts >= FALLBACK_RESTARTS && life < FALLBACK_MEAN_LIFE_SECS) || costly {
            eprintln!(
                "==evotest== in-process: inputs ended {} workers in {:.1} s; going on with the fork server",
                carry.restarts,
                start.elapsed().as_secs_f64()
            );
            carry.elapsed = start.elapsed();
            let restarts = carry.restarts;
            let ctx = WorkerCtx {
                target: None,
                carry,
                carry_out: carry_out.clone(),
                stop_after_pending: false,
            };
            let mut summary = finish(
                super::run_session(&job_opts, interrupt, Some(ctx))?,
                restarts,
            );
            summary.fork_server_fallback = true;
            return Ok(summary);
        }
        if opts.display != Display::Quiet {
            let what = sanitizer.map_or_else(|| exit.to_string(), |kind| format!("{kind}, {exit}"));
            eprintln!("==evotest== in-process: an input ended the worker ({what}); triaging it in a fresh process and restarting (restart {})", carry.restarts);
        }
    }
}

/// Restarts after which a target whose workers live less than [`FALLBACK_MEAN_LIFE_SECS`] on
/// average is fuzzed with the fork server for the rest of the run.
const FALLBACK_RESTARTS: u32 = 8;
/// Restarts after which a target whose workers spent longer starting than fuzzing is fuzzed with
/// the fork server for the rest of the run.
const FALLBACK_RESTARTS_COSTLY: u32 = 3;
const FALLBACK_MEAN_LIFE_SECS: f64 = 3.0;

/// Whether `exe` is an ELF executable without a program interpreter (`-static`, `-static-pie`):
/// nothing can be loaded into it with `dlopen`. `false` for anything that cannot be read.
fn is_static_executable(exe: &std::path::Path) -> bool {
    use object::Object;
    let Ok(data) = std::fs::read(exe) else {
        return false;
    };
    let Ok(file) = object::File::parse(&*data) else {
        return false;
    };
    file.format() == object::BinaryFormat::Elf && file.section_by_name(".interp").is_none()
}

/// Start one worker and wait for it, passing an interrupt on as `SIGTERM`; its standard error
/// is relayed to ours. Returns its exit status, the kind its last sanitizer report named
/// (`AddressSanitizer: heap-buffer-overflow`, from the report's `SUMMARY:` line), if any: a
/// sanitizer ends the worker with `SIGABRT`, which alone says little; and its start-up: the time
/// until its first execution began (its whole life if none did).
fn run_worker(
    exe: &std::path::Path,
    opts: &FuzzOptions,
    engine: &std::path::Path,
    shm: &SharedMemory,
    job: &std::path::Path,
    interrupt: &AtomicBool,
) -> Result<(std::process::ExitStatus, Option<String>, Duration)> {
    let shm_id = shm.id();
    let file_limit = if opts.file_limit_mb == 0 {
        libc::RLIM_INFINITY
    } else {
        opts.file_limit_mb << 20
    };
    let mut cmd = std::process::Command::new(exe);
    // no leak checks in-process: the engine's own memory shares the process
    cmd.envs(super::sanitizer_env(opts.rss_limit_mb, false))
        .env(ENV_SHM_ID, shm_id.to_string())
        .env(ENV_IN_PROCESS, engine)
        .env(ENV_IN_PROCESS_JOB, job)
        .env_remove(ENV_FORKSRV)
        .env_remove(ENV_PERSISTENT)
        .env_remove(ENV_PROGRAM_INPUT)
        .stdin(std::process::Stdio::null())
        .stdout(std::process::Stdio::null())
        // through a pipe the supervisor relays: the file-size limit then bounds the files the
        // harness writes, not a log file that takes standard error (a harness that warns on
        // every input, as libpng's does, wrote 1 GB of it in five minutes and died of SIGXFSZ)
        .stderr(std::process::Stdio::piped());
    let supervisor = std::process::id() as i32;
    unsafe {
        cmd.pre_exec(move || {
            // a terminal's ^C reaches the supervisor only, which passes it on
            crate::exec::forkserver::confine_target(supervisor, file_limit);
            Ok(())
        });
    }
    let mut child = cmd
        .spawn()
        .with_context(|| format!("cannot start {}", exe.display()))?;
    let relay = child.stderr.take().map(|from| {
        let (done, finished) = std::sync::mpsc::channel::<Option<String>>();
        std::thread::spawn(move || {
            use std::io::{BufRead, Write};
            let mut from = std::io::BufReader::new(from);
            let (mut line, mut kind) = (Vec::new(), None);
            while from.read_until(b'\n', &mut line).is_ok_and(|n| n > 0) {
                let _ = std::io::stderr().write_all(&line);
                if let Some(k) = sanitizer_summary(&line) {
                    kind = Some(k);
                }
                line.clear();
            }
            let _ = done.send(kind);
        });
        finished
    });
    let mut told = false;
    // the start-up: until the worker's first execution (its count in the shared header grows)
    let (spawned, before) = (Instant::now(), shm.header().inproc_executions);
    let mut startup = None;
    loop {
        if let Some(st) = child.try_wait()? {
            // what the worker wrote last, unless a process it left behind keeps the pipe open
            let kind = relay
                .and_then(|finished| finished.recv_timeout(Duration::from_secs(1)).ok().flatten());
            return Ok((st, kind, startup.unwrap_or_else(|| spawned.elapsed())));
        }
        if startup.is_none() && shm.header().inproc_executions != before {
            startup = Some(spawned.elapsed());
        }
        if !told && interrupt.load(Ordering::Relaxed) {
            told = true;
            unsafe { libc::kill(child.id() as i32, libc::SIGTERM) };
        }
        std::thread::sleep(Duration::from_millis(10));
    }
}

/// The sanitizer and kind a sanitizer report's `SUMMARY:` line names
/// (`SUMMARY: AddressSanitizer: heap-buffer-overflow (/x/h+0x12) …` gives
/// `AddressSanitizer: heap-buffer-overflow`), or `None` for any other line.
fn sanitizer_summary(line: &[u8]) -> Option<String> {
    let (sanitizer, kind) = super::triage::summary(std::str::from_utf8(line).ok()?)?;
    sanitizer
        .ends_with("Sanitizer")
        .then(|| format!("{sanitizer}: {kind}"))
}

/// The worker's interrupt flag (`SIGINT`/`SIGTERM`).
static WORKER_INTERRUPT: AtomicBool = AtomicBool::new(false);

extern "C" fn on_worker_signal(_sig: libc::c_int) {
    WORKER_INTERRUPT.store(true, Ordering::Relaxed);
}

/// The in-process worker: read the job, fuzz, write the summary (see module docs). Returns the
/// process's exit status (0, or 2 after an error, which goes to the job's error file and to
/// standard error).
pub fn worker_main(hooks: Hooks) -> i32 {
    let Some(job_path) = std::env::var_os(ENV_IN_PROCESS_JOB) else {
        eprintln!("evotest in-process engine: {ENV_IN_PROCESS_JOB} is not set (start it with evotest fuzz --in_process)");
        return 2;
    };
    let job: Job = match std::fs::read(&job_path)
        .map_err(anyhow::Error::from)
        .and_then(|d| Ok(serde_json::from_slice(&d)?))
    {
        Ok(j) => j,
        Err(e) => {
            eprintln!(
                "evotest in-process engine: cannot read the job {}: {e:#}",
                PathBuf::from(&job_path).display()
            );
            return 2;
        }
    };
    unsafe {
        libc::signal(
            libc::SIGINT,
            on_worker_signal as *const () as libc::sighandler_t,
        );
        libc::signal(
            libc::SIGTERM,
            on_worker_signal as *const () as libc::sighandler_t,
        );
    }
    let ctx = WorkerCtx {
        target: Some(InProcessTarget {
            hooks,
            shm_id: job.shm_id,
        }),
        carry: job.carry.clone(),
        carry_out: job.carry_out.clone(),
        stop_after_pending: job.interrupted,
    };
    let result = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| -> Result<()> {
        let summary = super::run_session(&job.opts, &WORKER_INTERRUPT, Some(ctx))?;
        write_atomic(&job.summary_out, &serde_json::to_vec(&summary)?)?;
        Ok(())
    }));
    let err = match result {
        Ok(Ok(())) => return 0,
        Ok(Err(e)) => format!("{e:#}"),
        Err(p) => format!(
            "the in-process engine panicked: {}",
            p.downcast_ref::<&str>()
                .map(|s| s.to_string())
                .or_else(|| p.downcast_ref::<String>().cloned())
                .unwrap_or_default()
        ),
    };
    let _ = write_atomic(&job.error_out, err.as_bytes());
    2
}

impl super::Fuzzer<'_> {
    /// In an in-process worker, after an input added coverage: hand the coverage on at once (a
    /// worker may die before its stats are written, and the next may end before it replayed the
    /// corpus). Through the shared header, not the carry's file: coverage grows up to hundreds
    /// of times a second early in a run, and a file rewritten that often (with an `fsync` each)
    /// cost up to a tenth of the run's time in the kernel on libyaml's harness.
    pub(super) fn hand_on_coverage(&mut self) {
        let (covered, features, added) = (self.fb.covered(), self.fb.features(), self.corpus_new);
        let Some(w) = &mut self.inproc else { return };
        if covered <= w.carry.outcomes_covered
            && features <= w.carry.features
            && added <= w.carry.corpus_new
        {
            return;
        }
        w.carry.outcomes_covered = w.carry.outcomes_covered.max(covered);
        w.carry.features = w.carry.features.max(features);
        w.carry.corpus_new = w.carry.corpus_new.max(added);
        let c = (
            w.carry.outcomes_covered as u64,
            w.carry.features as u64,
            w.carry.corpus_new as u64,
        );
        self.s.target.executor.note_in_process_coverage(c);
    }

    /// Run `f` with a fork server (a process per input) in place of the in-process executor,
    /// for inputs that may end the process; counts its executions as isolated.
    pub(super) fn isolated<T>(&mut self, f: impl FnOnce(&mut Self) -> Result<T>) -> Result<T> {
        let fresh = self.s.target.fresh_executor()?;
        let mine = std::mem::replace(&mut self.s.target.executor, fresh);
        let before = self.s.executions;
        let r = f(self);
        self.s.target.executor = mine;
        let ran = self.s.executions - before;
        if let Some(w) = &mut self.inproc {
            w.carry.isolated_executions += ran;
        }
        r
    }

    /// Triage the input that ended the last worker (in a fork server, see
    /// [`super::Fuzzer::isolated`]).
    pub(super) fn handle_pending(&mut self) -> Result<()> {
        let Some(p) = self.inproc.as_mut().and_then(|w| w.carry.pending.take()) else {
            return Ok(());
        };
        let data = std::fs::read(&p.input)
            .with_context(|| format!("cannot read {}", p.input.display()))?;
        // the whole timeout: the input ended a worker, and a slow crash must not pass for a hang
        let (outcome, exit) = self.s.run_full(&data)?;
        match outcome {
            Outcome::Crash => self.on_crash(&data, exit)?,
            Outcome::Timeout | Outcome::Oom => self.on_hang(&data, outcome)?,
            // it ended the worker but not a fresh process: state an earlier input left behind,
            // or a slow moment; a crash is still recorded (as not reproduced)
            Outcome::Normal | Outcome::Stopped => match p.exit {
                ExitKind::Timeout => self.timeouts_total += 1,
                ExitKind::Oom => self.ooms_total += 1,
                e => self.on_crash(&data, e)?,
            },
        }
        let _ = std::fs::remove_file(&p.input);
        Ok(())
    }

    /// Write what the next worker needs if this one dies ([`Carry`]), after the triage; stop here
    /// if the supervisor was interrupted.
    pub(super) fn hand_on(&mut self) -> Result<()> {
        let Some(w) = &mut self.inproc else {
            return Ok(());
        };
        w.carry.crashes_found = self.crashes_found;
        w.carry.crashes_met_again = self.met_again.iter().cloned().collect();
        w.carry.crashes_total = self.crashes_total;
        w.carry.timeouts = self.timeouts.clone();
        w.carry.timeouts_total = self.timeouts_total;
        w.carry.ooms = self.ooms.clone();
        w.carry.ooms_total = self.ooms_total;
        w.write_carry()?;
        if w.stop_after_pending {
            self.s.interrupt.store(true, Ordering::Relaxed);
        }
        // from now on in-process: what ended a worker is not run again (deterministic stages,
        // input-to-state above all, would find it again at once)
        let killers: Vec<PathBuf> = w.carry.killers.clone();
        for k in killers {
            if let Ok(data) = std::fs::read(&k) {
                self.s.add_killer(data);
            }
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::sanitizer_summary;

    #[test]
    fn a_sanitizer_summary_line_names_the_report() {
        let line =
            b"SUMMARY: AddressSanitizer: heap-buffer-overflow (/tmp/h+0x12c441) (BuildId: 12)\n";
        assert_eq!(
            sanitizer_summary(line).as_deref(),
            Some("AddressSanitizer: heap-buffer-overflow")
        );
        let ub = b"SUMMARY: UndefinedBehaviorSanitizer: undefined-behavior h.c:5:12\n";
        assert_eq!(
            sanitizer_summary(ub).as_deref(),
            Some("UndefinedBehaviorSanitizer: undefined-behavior")
        );
        assert_eq!(
            sanitizer_summary(b"SUMMARY: libFuzzer: deadly signal\n"),
            None
        );
        assert_eq!(
            sanitizer_summary(b"==1==ERROR: AddressSanitizer: SEGV\n"),
            None
        );
        assert_eq!(sanitizer_summary(b"\xff\xfe"), None);
    }
}
