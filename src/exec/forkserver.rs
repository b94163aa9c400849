//! The fork-server executor (AFL's protocol; see `runtime/src/lib.rs` for the target side).
//!
//! Per execution: the engine writes the input into shared memory and 4 bytes to the control pipe;
//! the server forks and answers with the child's pid; the engine waits on the status pipe up to
//! the timeout, kills the child with `SIGKILL` if it expires, and reads the `waitpid` status.
//!
//! **Persistent mode** (`persistent = Some(n)`): a forked child runs up to n inputs. After the
//! first, each request is read by the live child instead of the server, and the child answers
//! `FORKSRV_DONE` when the input ran to the end; a crash, exit or timeout of the child ends it,
//! and the server then reports the `waitpid` status as usual. After n inputs the engine kills the
//! child and the next request forks a fresh one. A child that can no longer speak the protocol
//! makes the executor fall back to a process per input: one whose target closed the descriptors,
//! or put another file in the control descriptor's place, ends with `PROTOCOL_LOST_EXIT_CODE`
//! after its input ran (the input counts as returned); one whose target put another file in the
//! status descriptor's place (not checked by the child, to spare a system call per input) times
//! out after its input returned (`ret_state`), and the input counts as returned.
//!
//! **Robustness.**
//! * The server dies with the engine (`PR_SET_PDEATHSIG`), children die with the server, and the
//!   server kills each child's process group when the child ends, so nothing the target forks
//!   outlives it; shared memory is freed when the last process detaches.
//! * While an execution runs, the engine wakes every few milliseconds to check the stop
//!   condition (interrupt, the search's deadline: [`ExitKind::Stopped`]) and the child's resident
//!   memory (over the limit: [`ExitKind::Oom`]).
//! * If the server dies during an execution it is restarted and the input retried; an input that
//!   kills it twice in a row is recorded as [`ExitKind::ParentKilled`]. A server that cannot be
//!   restarted is an error.
//! * Files the target writes are limited ([`ForkServerConfig::file_limit`], `RLIMIT_FSIZE`;
//!   beyond it the target gets `SIGXFSZ`, a crash), and it dumps no core.

use super::shm::{SharedMemory, SwitchTable};
use super::Coverage;
use super::{Execution, Executor, ExitKind, Stop};
use anyhow::{anyhow, bail, Context, Result};
use evotest_abi::names::{
    ENV_CRASH_STACKS, ENV_FORKSRV, ENV_PERSISTENT, ENV_PROGRAM_INPUT, ENV_SHM_ID, FORKSRV_CTL_FD,
    FORKSRV_DONE, FORKSRV_HELLO, FORKSRV_HELLO_NOFORK, FORKSRV_ST_FD, PROGRAM_INPUT_STDIN,
};
use evotest_abi::shm::{ModuleEntry, PROTOCOL_LOST_EXIT_CODE, RET_RETURNED};
use std::ffi::OsString;
use std::fs::File;
use std::io::Write;
use std::os::fd::{AsRawFd, FromRawFd, OwnedFd};
use std::os::unix::process::CommandExt;
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

/// Entries of the ordered trace per execution (16 bytes each).
pub const EVENT_CAPACITY: u32 = 1 << 18;

/// How long the target may take to start and say hello.
const STARTUP_TIMEOUT: Duration = Duration::from_secs(10);

/// How often a waiting engine checks the stop condition and the child's memory.
const POLL_SLICE: Duration = Duration::from_millis(10);

/// How a forked child gets its input.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub enum InputDelivery {
    /// The harness asks for it (`__evotest_next`): function harnesses and evotest's
    /// libFuzzer-compatible driver. Persistent mode is possible.
    #[default]
    Harness,
    /// A whole program reads it on standard input; the runtime's constructor runs the fork server
    /// before `main`, one process per input.
    Stdin,
    /// A whole program reads it from this file (AFL++'s `@@`), which each child writes before
    /// `main`; one process per input.
    File(PathBuf),
}

/// How to start a fork server.
#[derive(Clone, Debug)]
pub struct ForkServerConfig {
    /// Capacities of the trace map: branch sites, outcomes, input bytes.
    pub sites: u32,
    pub outcomes: u32,
    pub input_capacity: u32,
    /// Per-execution timeout.
    pub timeout: Duration,
    /// Inputs per forked process (`None`: one).
    pub persistent: Option<u32>,
    /// Largest file the target may write, in bytes (`RLIMIT_FSIZE`; 0 = no limit).
    pub file_limit: u64,
    /// Command-line arguments of the target (after its name).
    pub args: Vec<OsString>,
    /// Extra environment variables of the target.
    pub env: Vec<(OsString, OsString)>,
    /// How children get their input.
    pub delivery: InputDelivery,
    /// Keep what the target writes on standard error, for [`Executor::last_stderr`] (otherwise it
    /// goes to `/dev/null`); children also print the stack of a deadly signal
    /// (`evotest_abi::names::ENV_CRASH_STACKS`).
    pub capture_stderr: bool,
}

impl Default for ForkServerConfig {
    /// A map of one site and outcome, 1 MiB of input, 1 s timeout, a process per input, no file
    /// limit, no arguments, input through the harness, stderr discarded.
    fn default() -> Self {
        ForkServerConfig {
            sites: 1,
            outcomes: 1,
            input_capacity: 1 << 20,
            timeout: Duration::from_secs(1),
            persistent: None,
            file_limit: 0,
            args: vec![],
            env: vec![],
            delivery: InputDelivery::Harness,
            capture_stderr: false,
        }
    }
}

/// Most bytes of a captured standard error kept for one execution: its first and last halves
/// when it is longer (a sanitizer's report or a crash's stack comes last, after whatever the
/// program printed; with only the first megabyte kept, a program that warned 2 MB before it
/// aborted lost its stack, and two crash sites were taken for one).
const STDERR_KEEP: u64 = 1 << 20;

/// Executes inputs through a fork server in the target.
pub struct ForkServer {
    exe: PathBuf,
    shm: SharedMemory,
    timeout: Duration,
    /// The timeout's multiple an execution may take (1, or [`super::LOGGING_TIMEOUT_FACTOR`]
    /// while every compare is logged).
    timeout_factor: u32,
    /// The longest first execution of a fresh persistent child that ended normally (its
    /// set-up included): what a later fresh child's first execution may take beyond the limit
    /// (twice it); `None` before any, when it may take [`super::FIRST_RUN_TIMEOUT_FACTOR`] times
    /// the limit.
    first_run: Option<Duration>,
    server: Option<Running>,
    executions: u64,
    restarts: u32,
    /// Inputs per child in persistent mode.
    persistent: Option<u32>,
    /// The live persistent child and the inputs it has run.
    child: Option<(i32, u32)>,
    /// Resident-memory limit of an execution in bytes (0 = none).
    memory_limit: u64,
    file_limit: u64,
    args: Vec<OsString>,
    env: Vec<(OsString, OsString)>,
    delivery: InputDelivery,
    /// The file that receives the target's standard error (append mode), when captured.
    stderr: Option<File>,
    /// What the target wrote on standard error before its first fork-server hello (static
    /// constructors, `LLVMFuzzerInitialize`), until taken ([`Executor::take_startup_output`]);
    /// `None` once the first server started without writing any, or after it was taken.
    startup_output: Option<Vec<u8>>,
    /// Whether a server has said hello (later starts' output is not start-up output).
    started_once: bool,
    /// The threads the target process had when its server said hello, when more than one
    /// ([`FORKSRV_HELLO_NOFORK`]): the server then runs the inputs itself, and a crash, exit or
    /// timeout ends it (the next input starts another).
    no_fork: Option<u32>,
    /// The CPU the engine thread and the server are bound to ([`super::affinity`]), released
    /// after the server is stopped; or why they are not ([`Executor::unbound`]).
    cpu: Result<super::affinity::CpuLease, super::affinity::Unbound>,
}

struct Running {
    child: Child,
    ctl: File,
    st: OwnedFd,
}

/// In a target process between `fork` and `exec` (a `pre_exec` hook): die with `engine` (its
/// parent, even when that is killed with `SIGKILL`; exit at once if it is gone already), dump no
/// core (a crashing input is recorded, not dumped), write no file beyond `file_limit` bytes
/// (`RLIM_INFINITY`: no limit), and take a process group of its own, so that a terminal's ^C
/// reaches evotest only.
///
/// # Safety
/// Only async-signal-safe calls: call it in a `pre_exec` hook only.
pub unsafe fn confine_target(engine: i32, file_limit: libc::rlim_t) {
    libc::prctl(libc::PR_SET_PDEATHSIG, libc::SIGKILL);
    if libc::getppid() != engine {
        libc::_exit(0);
    }
    let rl = libc::rlimit {
        rlim_cur: 0,
        rlim_max: 0,
    };
    libc::setrlimit(libc::RLIMIT_CORE, &rl);
    let fl = libc::rlimit {
        rlim_cur: file_limit,
        rlim_max: file_limit,
    };
    libc::setrlimit(libc::RLIMIT_FSIZE, &fl);
    // evotest ignores SIGXFSZ (a small `ulimit -f` must not kill it), which an exec keeps: a
    // target that writes past its file limit is a crash (SIGXFSZ), as it would be on its own
    libc::signal(libc::SIGXFSZ, libc::SIG_DFL);
    libc::setpgid(0, 0);
}

fn pipe() -> Result<(OwnedFd, OwnedFd)> {
    let mut fds = [0; 2];
    if unsafe { libc::pipe2(fds.as_mut_ptr(), libc::O_CLOEXEC) } != 0 {
        bail!("pipe: {}", std::io::Error::last_os_error());
    }
    Ok(unsafe { (OwnedFd::from_raw_fd(fds[0]), OwnedFd::from_raw_fd(fds[1])) })
}

/// Read 4 bytes from `fd` within `timeout`. `Ok(None)` on timeout; `Err` on EOF or error.
fn read_u32(fd: i32, timeout: Duration) -> Result<Option<u32>> {
    let deadline = Instant::now() + timeout;
    let mut buf = [0u8; 4];
    let mut got = 0;
    while got < 4 {
        if !wait_readable(fd, deadline.saturating_duration_since(Instant::now()))? {
            return Ok(None);
        }
        let n = unsafe { libc::read(fd, buf.as_mut_ptr().add(got) as *mut libc::c_void, 4 - got) };
        if n == 0 {
            bail!("fork server closed its status pipe");
        }
        if n < 0 {
            let e = std::io::Error::last_os_error();
            if e.kind() == std::io::ErrorKind::Interrupted {
                continue;
            }
            return Err(e.into());
        }
        got += n as usize;
    }
    Ok(Some(u32::from_le_bytes(buf)))
}

/// Wait until `fd` is readable (true) or `timeout` passes (false).
fn wait_readable(fd: i32, timeout: Duration) -> Result<bool> {
    loop {
        let mut pfd = libc::pollfd {
            fd,
            events: libc::POLLIN,
            revents: 0,
        };
        let ms = timeout.as_millis().min(i32::MAX as u128) as i32;
        let r = unsafe { libc::poll(&mut pfd, 1, ms) };
        if r < 0 {
            let e = std::io::Error::last_os_error();
            if e.kind() == std::io::ErrorKind::Interrupted {
                continue;
            }
            return Err(e.into());
        }
        return Ok(r > 0);
    }
}

/// Resident memory of process `pid` in bytes, if it can be read.
pub(super) fn resident_bytes(pid: i32) -> Option<u64> {
    let statm = std::fs::read_to_string(format!("/proc/{pid}/statm")).ok()?;
    let pages: u64 = statm.split_whitespace().nth(1)?.parse().ok()?;
    Some(pages * unsafe { libc::sysconf(libc::_SC_PAGESIZE) } as u64)
}

/// The `waitpid` status of process `pid` if it has ended (reaping it), without waiting.
fn reaped(pid: i32) -> Option<i32> {
    let mut status = 0;
    (unsafe { libc::waitpid(pid, &mut status, libc::WNOHANG) } == pid).then_some(status)
}

/// The `waitpid` status of process `pid` (killed, or ending), waiting for it; 0 if it cannot be
/// had (already reaped).
fn wait_for(pid: i32) -> i32 {
    let mut status = 0;
    loop {
        if unsafe { libc::waitpid(pid, &mut status, 0) } == pid {
            return status;
        }
        if std::io::Error::last_os_error().kind() != std::io::ErrorKind::Interrupted {
            return 0;
        }
    }
}

/// A `waitpid` status in words (`signal 9`, `exit 0`).
fn describe_status(s: i32) -> String {
    if libc::WIFSIGNALED(s) {
        format!("signal {}", libc::WTERMSIG(s))
    } else {
        format!("exit {}", libc::WEXITSTATUS(s))
    }
}

/// Kill process `pid` and its process group.
fn kill_tree(pid: i32) {
    unsafe {
        libc::kill(-pid, libc::SIGKILL);
        libc::kill(pid, libc::SIGKILL);
    }
}

/// How waiting for an execution's status ended.
enum Waited {
    Status(u32),
    /// A server that runs its inputs itself ([`ForkServer::no_fork`]) ended: its `waitpid`
    /// status, reaped by the engine.
    Ended(i32),
    TimedOut,
    Stopped,
    Oom,
}

/// What an attempt found.
enum Outcome {
    /// The input ran; its exit.
    Ran(ExitKind),
    /// The server broke during the attempt (restart and retry).
    Broken(anyhow::Error),
}

impl ForkServer {
    /// Start `exe` as a fork server configured by `c`.
    ///
    /// Errors: shared memory unavailable, the executable cannot start, or it never says hello (not
    /// linked with the evotest runtime, or its harness does not call `__evotest_next`).
    pub fn start(exe: &Path, c: &ForkServerConfig) -> Result<ForkServer> {
        let shm = SharedMemory::create(c.sites, c.outcomes, c.input_capacity, EVENT_CAPACITY)?;
        let stderr = if c.capture_stderr {
            let f = tempfile::tempfile()
                .context("cannot create a file for the target's standard error")?;
            // children append: truncating between executions must not leave holes
            unsafe {
                let fl = libc::fcntl(f.as_raw_fd(), libc::F_GETFL);
                libc::fcntl(f.as_raw_fd(), libc::F_SETFL, fl | libc::O_APPEND);
            }
            Some(f)
        } else {
            None
        };
        let persistent = if c.delivery == InputDelivery::Harness {
            c.persistent
        } else {
            None
        };
        // before the server starts, so that it and every child inherit the CPU
        let cpu = super::affinity::bind_to_free_cpu();
        let mut fs = ForkServer {
            cpu,
            exe: exe.to_path_buf(),
            shm,
            timeout: c.timeout,
            timeout_factor: 1,
            first_run: None,
            server: None,
            executions: 0,
            restarts: 0,
            persistent: persistent.filter(|&n| n > 1),
            child: None,
            memory_limit: 0,
            file_limit: c.file_limit,
            args: c.args.clone(),
            env: c.env.clone(),
            delivery: c.delivery.clone(),
            stderr,
            startup_output: None,
            started_once: false,
            no_fork: None,
        };
        fs.spawn()?;
        Ok(fs)
    }

    /// Log the operands of every compare evaluation (up to
    /// [`evotest_abi::shm::OPERAND_EVALS`] per site and execution), not only each site's first:
    /// AVM's operand moves in function-level searches read them.
    pub fn set_repeated_operands(&mut self, on: bool) {
        self.shm.set_repeated_operands(on);
    }

    /// Let flag functions record the flag distance of their result for their callers' probes
    /// ([`evotest_abi::shm::FLAG_RETURN_DISTANCES`], Wappler, Baresel & Wegener 2007), or stop
    /// them: function-level searches, whose goals behind a helper's `bool` result would
    /// otherwise see a distance of 0 or K only.
    pub fn set_return_distances(&mut self, on: bool) {
        self.shm
            .set_flags(evotest_abi::shm::FLAG_RETURN_DISTANCES, on);
    }

    /// Modules the runtime registered (global site/outcome bases).
    pub fn modules(&self) -> Vec<ModuleEntry> {
        self.shm.modules()
    }

    /// The server's pid, while it runs.
    pub fn server_pid(&self) -> Option<u32> {
        self.server.as_ref().map(|r| r.child.id())
    }

    fn spawn(&mut self) -> Result<()> {
        self.stop();
        self.shm.reset_registrations();
        let (ctl_r, ctl_w) = pipe()?;
        let (st_r, st_w) = pipe()?;
        let (cr, sw) = (ctl_r.as_raw_fd(), st_w.as_raw_fd());
        let engine = std::process::id() as i32;
        let file_limit = if self.file_limit == 0 {
            libc::RLIM_INFINITY
        } else {
            self.file_limit
        };
        let mut cmd = Command::new(&self.exe);
        cmd.args(&self.args)
            .envs(self.env.iter().map(|(k, v)| (k, v)))
            .env(ENV_SHM_ID, self.shm.id().to_string())
            // an in-process worker's triage runs its harness in a fork server, never in-process
            .env_remove(evotest_abi::names::ENV_IN_PROCESS)
            .env_remove(evotest_abi::names::ENV_IN_PROCESS_JOB)
            .env(ENV_FORKSRV, "1")
            .env(
                ENV_PERSISTENT,
                if self.persistent.is_some() { "1" } else { "0" },
            )
            .env("LD_BIND_NOW", "1")
            .stdin(Stdio::null())
            .stdout(Stdio::null());
        match &self.delivery {
            InputDelivery::Harness => cmd.env_remove(ENV_PROGRAM_INPUT),
            InputDelivery::Stdin => cmd.env(ENV_PROGRAM_INPUT, PROGRAM_INPUT_STDIN),
            InputDelivery::File(p) => cmd.env(ENV_PROGRAM_INPUT, p),
        };
        match &self.stderr {
            Some(f) => {
                cmd.stderr(
                    f.try_clone()
                        .context("cannot share the standard-error file")?,
                )
                .env(ENV_CRASH_STACKS, "1");
            }
            None => {
                cmd.stderr(Stdio::null()).env_remove(ENV_CRASH_STACKS);
            }
        }
        unsafe {
            cmd.pre_exec(move || {
                if libc::dup2(cr, FORKSRV_CTL_FD) < 0 || libc::dup2(sw, FORKSRV_ST_FD) < 0 {
                    return Err(std::io::Error::last_os_error());
                }
                confine_target(engine, file_limit);
                Ok(())
            });
        }
        let child = cmd
            .spawn()
            .with_context(|| format!("cannot start {}", self.exe.display()))?;
        drop(ctl_r);
        drop(st_w);
        let ctl = File::from(ctl_w);
        let mut running = Running {
            child,
            ctl,
            st: st_r,
        };
        match read_u32(running.st.as_raw_fd(), STARTUP_TIMEOUT) {
            Ok(Some(h)) if h == FORKSRV_HELLO => self.no_fork = None,
            Ok(Some(h)) if h == FORKSRV_HELLO_NOFORK => {
                match read_u32(running.st.as_raw_fd(), STARTUP_TIMEOUT) {
                    Ok(Some(n)) => self.no_fork = Some(n),
                    _ => {
                        let _ = running.child.kill();
                        let _ = running.child.wait();
                        bail!(
                            "{} said hello but not how many threads it runs",
                            self.exe.display()
                        );
                    }
                }
            }
            Ok(Some(h)) => {
                let _ = running.child.kill();
                let _ = running.child.wait();
                bail!(
                    "{} speaks another fork-server protocol (hello {h:#x})",
                    self.exe.display()
                );
            }
            Ok(None) | Err(_) => {
                let _ = running.child.kill();
                let status = running.child.wait().ok();
                // what the target said before it ended (the dynamic loader's missing library, an
                // error of its start-up) says more than a guess
                let said = self
                    .last_stderr()
                    .map(|b| String::from_utf8_lossy(&b).into_owned())
                    .and_then(|t| {
                        // the runtime's own complaint (a target built by another version of
                        // evotest) says more than the harness's last line
                        let lines = || t.lines().map(str::trim);
                        lines()
                            .find(|l| l.starts_with("evotest runtime: "))
                            .or_else(|| lines().rfind(|l| !l.is_empty()))
                            .map(str::to_string)
                    });
                self.clear_stderr();
                if let Some(l) = said
                    .as_deref()
                    .filter(|l| l.contains("error while loading shared libraries"))
                {
                    bail!(
                        "{} did not start: {l} (set LD_LIBRARY_PATH to the directory of the library, an instrumented copy if it is one of the program's)",
                        self.exe.display()
                    );
                }
                bail!(
                    "{} did not start as a fork server ({}){}; is it linked with the evotest runtime?",
                    self.exe.display(),
                    status.map_or("no status".into(), |s| s.to_string()),
                    said.map_or_else(String::new, |l| format!(", its last words: `{l}`"))
                );
            }
        }
        self.server = Some(running);
        self.shm.after_start();
        if !self.started_once {
            self.started_once = true;
            self.startup_output = self.last_stderr().filter(|b| !b.is_empty());
            self.clear_stderr();
        }
        Ok(())
    }

    fn stop(&mut self) {
        if let Some((pid, _)) = self.child.take() {
            kill_tree(pid);
        }
        if let Some(mut r) = self.server.take() {
            drop(r.ctl);
            // the server and its children: the server's group, then the server itself
            kill_tree(r.child.id() as i32);
            let _ = r.child.wait();
        }
    }

    /// Wait for the status of `pid` until the timeout, the stop condition, or the memory limit;
    /// `first`: the execution is a fresh persistent child's first, which may take
    /// [`super::FIRST_RUN_TIMEOUT_FACTOR`] times as long.
    fn wait(&self, st: i32, pid: i32, stop: &Stop, first: bool) -> Result<Waited> {
        let limit = self.timeout * self.timeout_factor;
        // the set-up a fresh child's first execution does: twice the longest seen, or before
        // any, up to FIRST_RUN_TIMEOUT_FACTOR times the limit (so that a hang that comes first
        // in a child costs about the limit, once a first execution has shown the set-up is short)
        let most = limit * (super::FIRST_RUN_TIMEOUT_FACTOR - 1);
        let extra = match (first, self.first_run) {
            (false, _) => Duration::ZERO,
            (true, None) => most,
            (true, Some(d)) => (d * 2).min(most),
        };
        let deadline = Instant::now() + limit + extra;
        // a server that runs its inputs itself: its status pipe ended (the process closed it or
        // is gone), so that only its own end is waited for
        let mut closed = false;
        loop {
            let now = Instant::now();
            if now >= deadline {
                return Ok(Waited::TimedOut);
            }
            let slice = POLL_SLICE.min(deadline - now);
            if closed {
                std::thread::sleep(slice.min(Duration::from_millis(1)));
            } else if wait_readable(st, slice)? {
                match read_u32(st, STARTUP_TIMEOUT) {
                    Ok(Some(s)) => return Ok(Waited::Status(s)),
                    Ok(None) => bail!("the fork server stopped in the middle of a status"),
                    Err(_) if self.no_fork.is_some() => closed = true,
                    Err(e) => return Err(e),
                }
            }
            if self.no_fork.is_some() {
                if let Some(status) = reaped(pid) {
                    return Ok(Waited::Ended(status));
                }
            }
            if stop.now() {
                return Ok(Waited::Stopped);
            }
            if self.memory_limit > 0 && resident_bytes(pid).is_some_and(|b| b > self.memory_limit) {
                return Ok(Waited::Oom);
            }
        }
    }

    /// After killing `pid`, read statuses until its `waitpid` status (a persistent child may have
    /// written `FORKSRV_DONE` just before the kill: then the input did run to the end). A server
    /// that runs its inputs itself ([`ForkServer::no_fork`]) is `pid`: its status is the engine's
    /// own `waitpid`, and the server is gone.
    fn reap(&mut self, st: i32, pid: i32) -> Result<(u32, bool)> {
        if self.no_fork.is_some() {
            let finished = self.persistent.is_some()
                && wait_readable(st, Duration::ZERO).unwrap_or(false)
                && matches!(read_u32(st, Duration::ZERO), Ok(Some(FORKSRV_DONE)));
            let status = wait_for(pid);
            self.server_ended(pid);
            return Ok((status as u32, finished));
        }
        let mut finished = false;
        loop {
            let s = read_u32(st, STARTUP_TIMEOUT)?
                .ok_or_else(|| anyhow!("killed child was not reaped"))?;
            if s == FORKSRV_DONE && self.persistent.is_some() {
                finished = true;
                continue;
            }
            return Ok((s, finished));
        }
    }

    fn returned(&self) -> bool {
        self.shm.header().ret_state == RET_RETURNED
    }

    /// One attempt at the prepared input.
    fn attempt(&mut self, stop: &Stop) -> Result<Outcome> {
        let st = self
            .server
            .as_ref()
            .ok_or_else(|| anyhow!("fork server not running"))?
            .st
            .as_raw_fd();
        // Recycle a persistent child that has run its share (a server that runs its inputs itself
        // is that child: it is started again before the next input, see `execute`).
        if let (Some((pid, n)), Some(max)) = (self.child, self.persistent) {
            if n >= max && self.no_fork.is_none() {
                kill_tree(pid);
                self.child = None;
                if let Err(e) = self.reap(st, pid) {
                    return Ok(Outcome::Broken(e));
                }
            }
        }
        let r = self
            .server
            .as_mut()
            .ok_or_else(|| anyhow!("fork server not running"))?;
        if let Err(e) = r.ctl.write_all(&0u32.to_le_bytes()) {
            return Ok(Outcome::Broken(
                anyhow!(e).context("fork server control pipe"),
            ));
        }
        // a persistent child's first input (with a fork per input, every input pays the set-up)
        let first = self.persistent.is_some() && self.child.is_none();
        // the request goes to a live persistent child, not to the server
        let to_child = self.child.is_some();
        let pid = match self.child {
            Some((pid, _)) => pid,
            None => {
                let pid = match read_u32(st, STARTUP_TIMEOUT) {
                    Ok(Some(p)) => p as i32,
                    Ok(None) => return Ok(Outcome::Broken(anyhow!("fork server did not fork"))),
                    Err(e) => return Ok(Outcome::Broken(e)),
                };
                if pid <= 0 {
                    return Ok(Outcome::Broken(anyhow!("fork server reported pid {pid}")));
                }
                if self.persistent.is_some() {
                    self.child = Some((pid, 0));
                }
                pid
            }
        };
        // (a clock read only for a fresh child's first execution: one per input costs on a fast
        // target)
        let t0 = first.then(Instant::now);
        let waited = match self.wait(st, pid, stop, first) {
            Ok(w) => w,
            Err(e) => return Ok(Outcome::Broken(e)),
        };
        if to_child && self.shm.taken_by() != pid as u32 {
            let ended = match waited {
                Waited::Status(s) if s != FORKSRV_DONE => Some((s as i32, false)),
                Waited::Ended(s) => Some((s, true)),
                _ => None,
            };
            if let Some((s, own)) = ended {
                // The live child died before it took this input: killed from outside, or by a
                // thread an earlier input left running, not by this input; and the server may
                // take the request for a child of its own (or leave it in the control pipe), so
                // that the answers ran a step behind the inputs. A new server, and the input
                // again.
                if own {
                    self.server_ended(pid);
                }
                self.child = None;
                return Ok(Outcome::Broken(anyhow!(
                    "the target process died between two inputs ({})",
                    describe_status(s)
                )));
            }
        }
        let status = match waited {
            Waited::Status(FORKSRV_DONE) if self.persistent.is_some() => {
                if let Some((_, n)) = self.child.as_mut() {
                    *n += 1;
                }
                if let Some(t0) = t0 {
                    let d = t0.elapsed();
                    self.first_run = Some(self.first_run.map_or(d, |f| f.max(d)));
                }
                return Ok(Outcome::Ran(if self.returned() {
                    ExitKind::Ok
                } else {
                    ExitKind::Exit { code: 0 }
                }));
            }
            Waited::Status(s) => s as i32,
            Waited::Ended(s) => {
                self.server_ended(pid);
                s
            }
            w => {
                kill_tree(pid);
                self.child = None;
                let (s, finished) = match self.reap(st, pid) {
                    Ok(x) => x,
                    Err(e) => return Ok(Outcome::Broken(e)),
                };
                if finished {
                    return Ok(Outcome::Ran(if self.returned() {
                        ExitKind::Ok
                    } else {
                        ExitKind::Exit { code: 0 }
                    }));
                }
                if matches!(w, Waited::TimedOut) && self.persistent.is_some() && self.returned() {
                    // Not a hang: the input ran to its end and its answer went astray (the target
                    // put another file in the status descriptor's place, which the runtime does
                    // not check, to spare a system call per input).
                    self.protocol_lost()?;
                    return Ok(Outcome::Ran(ExitKind::Ok));
                }
                let signalled =
                    libc::WIFSIGNALED(s as i32) && libc::WTERMSIG(s as i32) == libc::SIGKILL;
                return Ok(Outcome::Ran(match w {
                    Waited::TimedOut if signalled => ExitKind::Timeout,
                    Waited::Oom if signalled => ExitKind::Oom,
                    Waited::Stopped => ExitKind::Stopped,
                    // it ended on its own just as the limit was reached
                    _ => self.classify(s as i32),
                }));
            }
        };
        // The child is gone.
        self.child = None;
        if libc::WIFEXITED(status)
            && libc::WEXITSTATUS(status) == PROTOCOL_LOST_EXIT_CODE
            && self.persistent.is_some()
        {
            // The target closed the protocol's descriptors, or put another file in the control
            // descriptor's place; the input ran to the end.
            self.protocol_lost()?;
            return Ok(Outcome::Ran(if self.returned() {
                ExitKind::Ok
            } else {
                ExitKind::Exit { code: 0 }
            }));
        }
        Ok(Outcome::Ran(self.classify(status)))
    }

    /// A persistent child can no longer speak the protocol (the target closed the descriptors or
    /// put other files in their places): from now on, a process per input.
    fn protocol_lost(&mut self) -> Result<()> {
        self.persistent = None;
        self.spawn()?;
        self.restarts += 1;
        Ok(())
    }

    /// Whether a server that runs its inputs itself must be started before the next input: none
    /// runs, or it ran its persistent share.
    fn needs_start(&self) -> bool {
        self.server.is_none()
            || matches!((self.child, self.persistent), (Some((_, n)), Some(max)) if n >= max)
    }

    /// A server that ran its inputs itself (`pid`) ended and was reaped: whatever it forked dies
    /// too, and the next input starts another.
    fn server_ended(&mut self, pid: i32) {
        unsafe { libc::kill(-pid, libc::SIGKILL) };
        self.child = None;
        // its pid is reaped: dropping the pipes is all that is left (no kill of a reused pid)
        self.server = None;
    }

    /// The exit kind of a `waitpid` status of a child that ended on its own.
    fn classify(&self, status: i32) -> ExitKind {
        if self.shm.header().step_limit_hit != 0 {
            ExitKind::StepLimit
        } else if libc::WIFSIGNALED(status) {
            ExitKind::Crash {
                signal: libc::WTERMSIG(status),
            }
        } else if libc::WIFEXITED(status) {
            let code = libc::WEXITSTATUS(status);
            if code == 0 && self.returned() && self.persistent.is_none() {
                ExitKind::Ok
            } else {
                ExitKind::Exit { code }
            }
        } else {
            ExitKind::Crash { signal: 0 }
        }
    }
}

impl ForkServer {
    /// Empty the captured standard error (before an execution).
    fn clear_stderr(&mut self) {
        if let Some(f) = &self.stderr {
            if f.metadata().is_ok_and(|m| m.len() > 0) {
                let _ = f.set_len(0);
            }
        }
    }

    /// Run `input` to its exit, restarting a broken server; `sparse` prepares only the site records
    /// the last sparse run left dirty.
    fn execute(&mut self, input: &[u8], stop: &Stop, sparse: bool) -> Result<ExitKind> {
        self.clear_stderr();
        self.shm.begin_run(sparse);
        let mut broke = 0;
        let exit = loop {
            if self.no_fork.is_some() && self.needs_start() {
                // a server that runs its inputs itself ended with the last input, or ran its share
                self.spawn()
                    .context("restarting the target (it runs its inputs without a fork)")?;
                self.restarts += 1;
            }
            self.shm.prepare_run(input)?;
            match self.attempt(stop)? {
                Outcome::Ran(e) => break e,
                Outcome::Broken(e) => {
                    broke += 1;
                    self.restarts += 1;
                    self.spawn()
                        .with_context(|| format!("restarting the fork server after: {e:#}"))?;
                    if broke >= 2 {
                        // the same input broke the server twice: it kills its parent
                        break ExitKind::ParentKilled;
                    }
                }
            }
        };
        self.executions += 1;
        self.shm.complete_switches();
        Ok(exit)
    }

    /// The program's `switch` sites, whose case distances are completed after each execution
    /// (see [`SharedMemory::complete_switches`]).
    pub fn set_switches(&mut self, tables: Vec<SwitchTable>) {
        self.shm.set_switches(tables);
    }
}

impl Executor for ForkServer {
    fn last_ret(&self) -> Option<super::RetVal> {
        self.shm.ret_val()
    }

    fn run_coverage(
        &mut self,
        input: &[u8],
        stop: Stop,
        outcomes: &[(u32, u32)],
        cov: &mut Coverage,
    ) -> Result<ExitKind> {
        let exit = self.execute(input, &stop, true)?;
        self.shm.scan_coverage(outcomes, cov);
        Ok(exit)
    }

    fn last_distance(&self, outcome: u32) -> Option<f64> {
        self.shm.distance(outcome)
    }

    fn set_quiet(&mut self, site: u32) {
        self.shm.set_quiet(site, true);
    }

    fn set_lite(&mut self, on: bool) -> bool {
        self.shm.set_lite(on)
    }

    fn set_timeout(&mut self, t: Duration) -> bool {
        self.timeout = t;
        true
    }

    fn suspend_quiet(&mut self, on: bool) {
        self.shm.suspend_quiet(on);
    }

    fn log_every_compare(&mut self, on: bool) {
        self.shm.set_flags(
            evotest_abi::shm::FLAG_REPEATED_OPERANDS
                | evotest_abi::shm::FLAG_REPEATED_STR_OPERANDS
                | evotest_abi::shm::FLAG_LOOSE_OPERANDS,
            on,
        );
        self.timeout_factor = if on { super::LOGGING_TIMEOUT_FACTOR } else { 1 };
    }

    fn last_operands(&self, out: &mut Vec<crate::trace::OperandRec>) -> bool {
        self.shm.read_operands(out);
        true
    }

    fn last_str_operands(&self, out: &mut Vec<crate::trace::StrOperandRec>) -> bool {
        self.shm.read_str_operands(out);
        true
    }

    fn take_startup_output(&mut self) -> Option<Vec<u8>> {
        self.startup_output.take()
    }

    fn unbound(&self) -> Option<super::affinity::Unbound> {
        self.cpu.as_ref().err().copied()
    }

    fn stderr_room(&self) -> Option<u64> {
        let f = self.stderr.as_ref()?;
        let mut st: libc::statvfs = unsafe { std::mem::zeroed() };
        (unsafe { libc::fstatvfs(f.as_raw_fd(), &mut st) } == 0)
            .then(|| st.f_bavail as u64 * st.f_frsize as u64)
    }

    fn registration_overflow(&self) -> u32 {
        self.shm.overflow()
    }

    fn threads_without_fork(&self) -> Option<u32> {
        self.no_fork
    }

    fn setup_unmeasured(&self) -> bool {
        self.persistent.is_some() && self.first_run.is_none()
    }

    fn last_stderr(&mut self) -> Option<Vec<u8>> {
        use std::os::unix::fs::FileExt;
        let f = self.stderr.as_ref()?;
        let read = |at: u64, len: u64| -> Option<Vec<u8>> {
            let mut buf = vec![0u8; len as usize];
            let n = f.read_at(&mut buf, at).ok()?;
            buf.truncate(n);
            Some(buf)
        };
        let len = f.metadata().ok()?.len();
        if len <= STDERR_KEEP {
            return read(0, len);
        }
        let half = STDERR_KEEP / 2;
        let mut buf = read(0, half)?;
        buf.extend_from_slice(
            format!(
                "\n[evotest: {} bytes of standard error left out]\n",
                len - 2 * half
            )
            .as_bytes(),
        );
        let tail = read(len - half, half)?;
        // from the tail's first whole line
        let from = tail.iter().position(|&b| b == b'\n').map_or(0, |i| i + 1);
        buf.extend_from_slice(&tail[from..]);
        Some(buf)
    }

    fn run(&mut self, input: &[u8], stop: Stop) -> Result<Execution> {
        let t0 = Instant::now();
        let exit = self.execute(input, &stop, false)?;
        Ok(Execution::read(exit, &self.shm, t0))
    }

    fn executions(&self) -> u64 {
        self.executions
    }

    fn set_ordered_trace(&mut self, on: bool) {
        self.shm.set_events(on);
    }

    fn set_max_branch_events(&mut self, n: u32) {
        self.shm.set_max_branch_events(n);
    }

    fn set_max_call_events(&mut self, n: u32) {
        self.shm.set_max_call_events(n);
    }

    fn restarts(&self) -> u32 {
        self.restarts
    }

    fn inputs_per_process(&self) -> u32 {
        self.persistent.unwrap_or(1)
    }

    fn set_memory_limit(&mut self, bytes: u64) {
        self.memory_limit = bytes;
    }
}

impl Drop for ForkServer {
    fn drop(&mut self) {
        self.stop();
    }
}
