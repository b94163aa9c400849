//! The fork-server executor (AFL's protocol; see `runtime/src/lib.rs` for the target side).
//!
//! Per execution: the engine writes the input into shared memory and 4 bytes to the control pipe;
//! the server forks and answers with the child's pid; the engine waits on the status pipe up to
//! the timeout, kills the child with `SIGKILL` if it expires, and reads the `waitpid` status.
//! If the server itself dies it is restarted once per execution; a second failure is an error.
//!
//! **Persistent mode** (`persistent = Some(n)`): a forked child runs up to n inputs. After the
//! first, each request is read by the live child instead of the server, and the child answers
//! `FORKSRV_DONE` when the input ran to the end; a crash, exit or timeout of the child ends it,
//! and the server then reports the `waitpid` status as usual. After n inputs the engine kills the
//! child and the next request forks a fresh one.

use super::shm::SharedMemory;
use super::{Execution, ExitKind, Executor, RetVal};
use crate::trace::Trace;
use anyhow::{anyhow, bail, Context, Result};
use evotest_abi::names::{
    ENV_FORKSRV, ENV_PERSISTENT, ENV_SHM_ID, FORKSRV_CTL_FD, FORKSRV_DONE, FORKSRV_HELLO, FORKSRV_ST_FD,
};
use evotest_abi::shm::{ModuleEntry, RET_FLOAT32, RET_FLOAT64, RET_RETURNED, RET_SIGNED, RET_UNSIGNED};
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

/// Executes inputs through a fork server in the target.
pub struct ForkServer {
    exe: PathBuf,
    shm: SharedMemory,
    timeout: Duration,
    server: Option<Running>,
    executions: u64,
    restarts: u32,
    /// Inputs per child in persistent mode.
    persistent: Option<u32>,
    /// The live persistent child and the inputs it has run.
    child: Option<(i32, u32)>,
}

struct Running {
    child: Child,
    ctl: File,
    st: OwnedFd,
}

fn pipe() -> Result<(OwnedFd, OwnedFd)> {
    let mut fds = [0; 2];
    if unsafe { libc::pipe2(fds.as_mut_ptr(), libc::O_CLOEXEC) } != 0 {
        bail!("pipe: {}", std::io::Error::last_os_error());
    }
    Ok(unsafe { (OwnedFd::from_raw_fd(fds[0]), OwnedFd::from_raw_fd(fds[1])) })
}

/// Read 4 bytes within `timeout`. `Ok(None)` on timeout; `Err` on EOF or error.
fn read_u32(fd: &OwnedFd, timeout: Duration) -> Result<Option<u32>> {
    let deadline = Instant::now() + timeout;
    let mut buf = [0u8; 4];
    let mut got = 0;
    while got < 4 {
        let left = deadline.saturating_duration_since(Instant::now());
        let mut pfd = libc::pollfd { fd: fd.as_raw_fd(), events: libc::POLLIN, revents: 0 };
        let ms = left.as_millis().min(i32::MAX as u128) as i32;
        let r = unsafe { libc::poll(&mut pfd, 1, ms) };
        if r < 0 {
            let e = std::io::Error::last_os_error();
            if e.kind() == std::io::ErrorKind::Interrupted {
                continue;
            }
            return Err(e.into());
        }
        if r == 0 {
            return Ok(None);
        }
        let n = unsafe { libc::read(fd.as_raw_fd(), buf.as_mut_ptr().add(got) as *mut libc::c_void, 4 - got) };
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

impl ForkServer {
    /// Start `exe` as a fork server, with a trace map for `sites` sites, `outcomes` outcomes and
    /// inputs of up to `input_capacity` bytes, killing executions after `timeout`.
    ///
    /// Errors: shared memory unavailable, the executable cannot start, or it never says hello (not
    /// linked with the evotest runtime, or its harness does not call `__evotest_input`).
    /// `persistent`: run up to this many inputs per forked process (None: one per process).
    pub fn start(
        exe: &Path,
        sites: u32,
        outcomes: u32,
        input_capacity: u32,
        timeout: Duration,
        persistent: Option<u32>,
    ) -> Result<ForkServer> {
        let shm = SharedMemory::create(sites, outcomes, input_capacity, EVENT_CAPACITY)?;
        let mut fs = ForkServer {
            exe: exe.to_path_buf(),
            shm,
            timeout,
            server: None,
            executions: 0,
            restarts: 0,
            persistent: persistent.filter(|&n| n > 1),
            child: None,
        };
        fs.spawn()?;
        Ok(fs)
    }

    /// Modules the runtime registered (global site/outcome bases).
    pub fn modules(&self) -> Vec<ModuleEntry> {
        let h = self.shm.header();
        h.modules[..h.n_modules as usize].to_vec()
    }

    /// The `OVERFLOW_*` bits the runtime reported at registration.
    pub fn overflow(&self) -> u32 {
        self.shm.header().overflow
    }

    fn spawn(&mut self) -> Result<()> {
        self.stop();
        self.shm.reset_registrations();
        let (ctl_r, ctl_w) = pipe()?;
        let (st_r, st_w) = pipe()?;
        let (cr, sw) = (ctl_r.as_raw_fd(), st_w.as_raw_fd());
        let mut cmd = Command::new(&self.exe);
        cmd.env(ENV_SHM_ID, self.shm.id().to_string())
            .env(ENV_FORKSRV, "1")
            .env(ENV_PERSISTENT, if self.persistent.is_some() { "1" } else { "0" })
            .env("LD_BIND_NOW", "1")
            .stdin(Stdio::null())
            .stdout(Stdio::null())
            .stderr(Stdio::null());
        unsafe {
            cmd.pre_exec(move || {
                if libc::dup2(cr, FORKSRV_CTL_FD) < 0 || libc::dup2(sw, FORKSRV_ST_FD) < 0 {
                    return Err(std::io::Error::last_os_error());
                }
                // No core dumps: a crashing input is recorded, not dumped.
                let rl = libc::rlimit { rlim_cur: 0, rlim_max: 0 };
                libc::setrlimit(libc::RLIMIT_CORE, &rl);
                // Own process group, so a terminal ^C reaches evotest only.
                libc::setpgid(0, 0);
                Ok(())
            });
        }
        let child = cmd.spawn().with_context(|| format!("cannot start {}", self.exe.display()))?;
        drop(ctl_r);
        drop(st_w);
        let ctl = File::from(ctl_w);
        let mut running = Running { child, ctl, st: st_r };
        match read_u32(&running.st, STARTUP_TIMEOUT) {
            Ok(Some(h)) if h == FORKSRV_HELLO => {}
            Ok(Some(h)) => {
                let _ = running.child.kill();
                let _ = running.child.wait();
                bail!("{} speaks another fork-server protocol (hello {h:#x})", self.exe.display());
            }
            Ok(None) | Err(_) => {
                let _ = running.child.kill();
                let status = running.child.wait().ok();
                bail!(
                    "{} did not start as a fork server ({}); is it linked with the evotest runtime?",
                    self.exe.display(),
                    status.map_or("no status".into(), |s| s.to_string())
                );
            }
        }
        self.server = Some(running);
        Ok(())
    }

    fn stop(&mut self) {
        self.child = None;
        if let Some(mut r) = self.server.take() {
            drop(r.ctl);
            // the server and any forked child share the server's process group
            unsafe { libc::kill(-(r.child.id() as i32), libc::SIGKILL) };
            let _ = r.child.kill();
            let _ = r.child.wait();
        }
    }

    /// One attempt; `Err` means the server is broken and should be restarted.
    fn attempt(&mut self) -> Result<(ExitKind, Duration)> {
        let timeout = self.timeout;
        let r = self.server.as_mut().ok_or_else(|| anyhow!("fork server not running"))?;
        // Recycle a persistent child that has run its share.
        if let (Some((pid, n)), Some(max)) = (self.child, self.persistent) {
            if n >= max {
                unsafe { libc::kill(pid, libc::SIGKILL) };
                self.child = None;
                read_u32(&r.st, STARTUP_TIMEOUT)?.ok_or_else(|| anyhow!("recycled child was not reaped"))?;
            }
        }
        let t0 = Instant::now();
        r.ctl.write_all(&0u32.to_le_bytes()).context("fork server control pipe")?;
        let pid = match self.child {
            Some((pid, _)) => pid,
            None => {
                let pid = read_u32(&r.st, STARTUP_TIMEOUT)?.ok_or_else(|| anyhow!("fork server did not fork"))? as i32;
                if pid <= 0 {
                    bail!("fork server reported pid {pid}");
                }
                if self.persistent.is_some() {
                    self.child = Some((pid, 0));
                }
                pid
            }
        };
        let (status, timed_out) = match read_u32(&r.st, timeout)? {
            Some(FORKSRV_DONE) if self.persistent.is_some() => {
                if let Some((_, n)) = self.child.as_mut() {
                    *n += 1;
                }
                let exit = if self.shm.header().ret_state == RET_RETURNED { ExitKind::Ok } else { ExitKind::Exit { code: 0 } };
                return Ok((exit, t0.elapsed()));
            }
            Some(s) => (s as i32, false),
            None => {
                unsafe { libc::kill(pid, libc::SIGKILL) };
                // A persistent child may have finished (and written DONE) just as the timeout
                // expired: then the input did run to the end; the kill's status follows.
                let mut finished = false;
                let s = loop {
                    let s = read_u32(&r.st, STARTUP_TIMEOUT)?.ok_or_else(|| anyhow!("killed child was not reaped"))?;
                    if s == FORKSRV_DONE && self.persistent.is_some() {
                        finished = true;
                        continue;
                    }
                    break s;
                };
                self.child = None;
                if finished {
                    let exit = if self.shm.header().ret_state == RET_RETURNED { ExitKind::Ok } else { ExitKind::Exit { code: 0 } };
                    return Ok((exit, t0.elapsed()));
                }
                (s as i32, true)
            }
        };
        // The child is gone.
        self.child = None;
        let dur = t0.elapsed();
        let returned = self.shm.header().ret_state == RET_RETURNED;
        let exit = if self.shm.header().step_limit_hit != 0 && !timed_out {
            ExitKind::StepLimit
        } else if libc::WIFSIGNALED(status) {
            let sig = libc::WTERMSIG(status);
            if timed_out && sig == libc::SIGKILL {
                ExitKind::Timeout
            } else {
                ExitKind::Crash { signal: sig }
            }
        } else if libc::WIFEXITED(status) {
            let code = libc::WEXITSTATUS(status);
            if code == 0 && returned && self.persistent.is_none() {
                ExitKind::Ok
            } else {
                ExitKind::Exit { code }
            }
        } else {
            ExitKind::Crash { signal: 0 }
        };
        Ok((exit, dur))
    }

    fn ret_val(&self) -> Option<RetVal> {
        let h = self.shm.header();
        if h.ret_state != RET_RETURNED {
            return None;
        }
        Some(match h.ret_kind {
            RET_SIGNED => RetVal::Signed(h.ret_bits as i64),
            RET_UNSIGNED => RetVal::Unsigned(h.ret_bits),
            RET_FLOAT32 => RetVal::F32(h.ret_bits as u32),
            RET_FLOAT64 => RetVal::F64(h.ret_bits),
            _ => RetVal::Void,
        })
    }
}

impl Executor for ForkServer {
    fn run(&mut self, input: &[u8]) -> Result<Execution> {
        let mut tries = 0;
        let (exit, duration) = loop {
            self.shm.prepare(input)?;
            match self.attempt() {
                Ok(r) => break r,
                Err(e) => {
                    tries += 1;
                    if tries > 1 {
                        return Err(e.context("the fork server failed twice in a row"));
                    }
                    self.restarts += 1;
                    self.spawn().context("restarting the fork server")?;
                }
            }
        };
        self.executions += 1;
        let mut trace = Trace::default();
        self.shm.read_trace(&mut trace.sites, &mut trace.dist);
        trace.events_overflow = self.shm.read_events(&mut trace.events);
        Ok(Execution { exit, ret: if exit == ExitKind::Ok { self.ret_val() } else { None }, trace, duration })
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

    fn restarts(&self) -> u32 {
        self.restarts
    }

    fn inputs_per_process(&self) -> u32 {
        self.persistent.unwrap_or(1)
    }
}

impl Drop for ForkServer {
    fn drop(&mut self) {
        self.stop();
    }
}
