//! CPU binding: the engine thread that talks to a fork server, and the server it starts, run on
//! one CPU that no other pinned process uses (AFL++'s `bind_to_free_cpu`, which it does by
//! default).
//!
//! The engine and the target hand each execution back and forth through pipes and never run at
//! the same time. When the scheduler puts them on different CPUs, every hand-over is a
//! cross-CPU wake-up, which costs tens of microseconds on a virtual machine; on one CPU it is a
//! plain context switch. Measured on a 2-CPU VM: a trivial harness ran at 21,900 executions per
//! second unbound and 129,500 bound; libyaml's harness at 9,900 and 15,200.
//!
//! A CPU is free when no process (its main thread's `Cpus_allowed_list` in `/proc/PID/status`,
//! what AFL++ reads) is bound to it alone, and no other evotest holds its lock file
//! (`$TMPDIR/evotest-cpu-N.lock`, an `flock` held while the binding lasts; it also settles two
//! evotest processes starting at once). With no free CPU, nothing is bound. `EVOTEST_NO_AFFINITY`
//! (any value but `0`) turns binding off, as `AFL_NO_AFFINITY` does for AFL++; a thread already
//! bound to a single CPU (by `taskset`, say) is left as it is.

use std::fs::File;
use std::os::fd::AsRawFd;
use std::path::PathBuf;

/// Environment variable that turns CPU binding off (any value but `0`).
pub const ENV_NO_AFFINITY: &str = "EVOTEST_NO_AFFINITY";

/// A CPU this thread is bound to, with its lock; dropping it releases the lock and gives the
/// thread back the CPUs it was allowed before.
#[derive(Debug)]
pub struct CpuLease {
    cpu: usize,
    tid: libc::pid_t,
    saved: libc::cpu_set_t,
    _lock: Option<File>,
}

impl CpuLease {
    /// The CPU (its number as the kernel counts them).
    pub fn cpu(&self) -> usize {
        self.cpu
    }
}

impl Drop for CpuLease {
    fn drop(&mut self) {
        // by thread ID: the lease may be dropped on another thread than the one it binds
        unsafe {
            libc::sched_setaffinity(
                self.tid,
                std::mem::size_of::<libc::cpu_set_t>(),
                &self.saved,
            )
        };
    }
}

/// The CPUs of a kernel CPU list (`0-3,8,10-11`), as in `Cpus_allowed_list`; `None` if it does
/// not parse.
pub fn parse_cpu_list(s: &str) -> Option<Vec<usize>> {
    let mut out = Vec::new();
    for part in s.trim().split(',').filter(|p| !p.is_empty()) {
        match part.split_once('-') {
            Some((a, b)) => {
                let (a, b): (usize, usize) = (a.trim().parse().ok()?, b.trim().parse().ok()?);
                if b < a || b - a > 4096 {
                    return None;
                }
                out.extend(a..=b);
            }
            None => out.push(part.trim().parse().ok()?),
        }
    }
    Some(out)
}

/// The CPU a `/proc/PID/status` text binds its process to, when it allows exactly one. Kernel
/// threads (no `VmSize` line) do not count, as in AFL++.
pub fn bound_cpu(status: &str) -> Option<usize> {
    if !status.lines().any(|l| l.starts_with("VmSize:")) {
        return None;
    }
    let list = status
        .lines()
        .find_map(|l| l.strip_prefix("Cpus_allowed_list:"))?;
    match parse_cpu_list(list)?.as_slice() {
        [c] => Some(*c),
        _ => None,
    }
}

/// The CPUs some process other than this one is bound to alone.
fn busy_cpus() -> Vec<usize> {
    let me = std::process::id().to_string();
    let Ok(dir) = std::fs::read_dir("/proc") else {
        return Vec::new();
    };
    let mut busy = Vec::new();
    for e in dir.flatten() {
        let name = e.file_name();
        let name = name.to_string_lossy();
        if !name.bytes().all(|b| b.is_ascii_digit()) || name == me {
            continue;
        }
        if let Some(c) = std::fs::read_to_string(e.path().join("status"))
            .ok()
            .as_deref()
            .and_then(bound_cpu)
        {
            busy.push(c);
        }
    }
    busy
}

/// The first of `allowed` (in order) that is not in `busy` and for which `try_lock` succeeds.
pub fn choose_cpu<L>(
    allowed: &[usize],
    busy: &[usize],
    mut try_lock: impl FnMut(usize) -> Option<L>,
) -> Option<(usize, L)> {
    allowed
        .iter()
        .filter(|c| !busy.contains(c))
        .find_map(|&c| try_lock(c).map(|l| (c, l)))
}

fn lock_path(cpu: usize) -> PathBuf {
    std::env::temp_dir().join(format!("evotest-cpu-{cpu}.lock"))
}

/// Take CPU `cpu`'s lock without waiting. `Some(None)` when lock files cannot be made (a
/// read-only temporary directory): the `/proc` check alone then decides.
fn try_lock(cpu: usize) -> Option<Option<File>> {
    use std::os::unix::fs::OpenOptionsExt;
    // not through a link another user may have planted at that name
    let f = match std::fs::OpenOptions::new()
        .create(true)
        .truncate(false)
        .write(true)
        .custom_flags(libc::O_NOFOLLOW)
        .open(lock_path(cpu))
    {
        Ok(f) => f,
        Err(_) => return Some(None),
    };
    let r = unsafe { libc::flock(f.as_raw_fd(), libc::LOCK_EX | libc::LOCK_NB) };
    (r == 0).then_some(Some(f))
}

/// Why [`bind_to_free_cpu`] left the calling thread unbound.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Unbound {
    /// Binding is off ([`ENV_NO_AFFINITY`]).
    Off,
    /// The thread was already bound to a single CPU (by `taskset`, or a binding it inherited).
    AlreadyBound,
    /// Every CPU the thread may use is bound by another process alone, or held by another
    /// evotest: the executions hand over between CPUs (AFL++: "No more free CPU cores").
    NoFreeCpu,
    /// The kernel refused to read or set the thread's CPUs (a container's seccomp policy, say).
    Refused,
}

impl Unbound {
    /// A one-line warning for a fuzzing user, or `None` where being unbound is what was asked
    /// for or already the case ([`Unbound::Off`], [`Unbound::AlreadyBound`]).
    pub fn warning(self) -> Option<String> {
        match self {
            Unbound::Off | Unbound::AlreadyBound => None,
            Unbound::NoFreeCpu => Some(format!(
                "no free CPU to bind to (each is bound by another process, or held by another evotest): running unbound, \
                 where executions may be several times slower; stop the other fuzzers, or set {ENV_NO_AFFINITY}=1 to silence this"
            )),
            Unbound::Refused => Some(format!(
                "the kernel refused to bind this process to a CPU (sched_setaffinity): running unbound, where executions \
                 may be several times slower; set {ENV_NO_AFFINITY}=1 to silence this"
            )),
        }
    }
}

/// Bind the calling thread (and so every process it starts from now on) to a free CPU. Not an
/// error when it cannot: the reason ([`Unbound`]) says whether it is worth a warning. A machine
/// with one CPU the thread may use counts as [`Unbound::AlreadyBound`].
pub fn bind_to_free_cpu() -> Result<CpuLease, Unbound> {
    if std::env::var(ENV_NO_AFFINITY).is_ok_and(|v| v != "0") {
        return Err(Unbound::Off);
    }
    unsafe {
        let size = std::mem::size_of::<libc::cpu_set_t>();
        let mut saved: libc::cpu_set_t = std::mem::zeroed();
        if libc::sched_getaffinity(0, size, &mut saved) != 0 {
            return Err(Unbound::Refused);
        }
        let allowed: Vec<usize> = (0..libc::CPU_SETSIZE as usize)
            .filter(|&c| libc::CPU_ISSET(c, &saved))
            .collect();
        if allowed.len() <= 1 {
            return Err(Unbound::AlreadyBound);
        }
        let (cpu, lock) = choose_cpu(&allowed, &busy_cpus(), try_lock).ok_or(Unbound::NoFreeCpu)?;
        let mut one: libc::cpu_set_t = std::mem::zeroed();
        libc::CPU_SET(cpu, &mut one);
        if libc::sched_setaffinity(0, size, &one) != 0 {
            return Err(Unbound::Refused);
        }
        Ok(CpuLease {
            cpu,
            tid: libc::gettid(),
            saved,
            _lock: lock,
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn cpu_lists_parse_as_the_kernel_prints_them() {
        assert_eq!(
            parse_cpu_list("0-3,8,10-11\n"),
            Some(vec![0, 1, 2, 3, 8, 10, 11])
        );
        assert_eq!(parse_cpu_list("\t5"), Some(vec![5]));
        assert_eq!(parse_cpu_list("3-1"), None);
        assert_eq!(parse_cpu_list("x"), None);
    }

    #[test]
    fn a_process_is_bound_when_it_allows_one_cpu_and_is_not_a_kernel_thread() {
        let user =
            |list: &str| format!("Name:\tx\nVmSize:\t  1000 kB\nCpus_allowed_list:\t{list}\n");
        assert_eq!(bound_cpu(&user("1")), Some(1));
        assert_eq!(bound_cpu(&user("0-1")), None);
        assert_eq!(bound_cpu(&user("0,2")), None);
        assert_eq!(bound_cpu("Name:\tkworker\nCpus_allowed_list:\t1\n"), None);
    }

    #[test]
    fn the_first_cpu_neither_bound_nor_locked_is_chosen() {
        let locked = [2usize];
        let lock = |c: usize| (!locked.contains(&c)).then_some(c * 10);
        assert_eq!(choose_cpu(&[0, 1, 2, 3], &[0, 1], lock), Some((3, 30)));
        assert_eq!(choose_cpu(&[0, 1, 2, 3], &[], lock), Some((0, 0)));
        assert_eq!(choose_cpu(&[0, 1], &[0, 1], lock), None);
    }

    /// The lock files keep two bindings in this process apart as they keep two evotest processes
    /// apart, and a processes started by a bound thread inherits its CPU.
    #[test]
    fn a_bound_thread_and_the_processes_it_starts_run_on_its_cpu() {
        std::thread::spawn(|| {
            let Ok(lease) = bind_to_free_cpu() else {
                return;
            };
            let out = std::process::Command::new("sh")
                .arg("-c")
                .arg("grep Cpus_allowed_list /proc/self/status")
                .output()
                .unwrap();
            let text = String::from_utf8_lossy(&out.stdout);
            let list = text.split(':').nth(1).and_then(parse_cpu_list);
            assert_eq!(list, Some(vec![lease.cpu()]), "{text}");
            // a second binding on another thread never takes the same CPU
            let other = std::thread::spawn(bind_to_free_cpu).join().unwrap();
            assert_ne!(other.as_ref().map(|l| l.cpu()).ok(), Some(lease.cpu()));
            // and on a thread already bound (this one), nothing is taken, without a warning
            let again = bind_to_free_cpu().map(|l| l.cpu());
            assert_eq!(again, Err(Unbound::AlreadyBound));
            assert_eq!(Unbound::AlreadyBound.warning(), None);
        })
        .join()
        .unwrap();
    }
}
