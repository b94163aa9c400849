//! The in-process executor: the harness's `LLVMFuzzerTestOneInput` called directly, in the
//! process that runs the engine (libFuzzer's model). No fork, no pipe, no context switch per
//! input.
//!
//! It exists only inside an in-process worker (`evotest fuzz --in_process`, whose supervisor is
//! the fuzzer's `inprocess` module): evotest's driver loads the engine (`libevotest_inprocess.so`) into
//! the harness's process and hands it the harness's entry point ([`Hooks`]). The trace map is the
//! supervisor's shared memory, attached a second time by the engine; each input is placed in it
//! before it runs, so that when an input kills the process the supervisor still has it.
//!
//! A crash, an `exit` of the harness or an abort ends the whole process: [`Executor::run`] never
//! returns a fault; the supervisor sees the process end with an input in flight (`ret_state` not
//! returned) and restarts the worker. Timeouts and the RSS limit are enforced by a watchdog
//! thread ([`Watchdog`]) that records the reason in the header (`inproc_fault`) and ends the
//! process, as libFuzzer's alarm and RSS threads do.

use super::shm::{SharedMemory, SwitchTable};
use super::{Coverage, Execution, Executor, ExitKind, Stop};
use anyhow::Result;
use evotest_abi::shm::{ModuleEntry, INPROC_FAULT_OOM, INPROC_FAULT_TIMEOUT};
use std::sync::atomic::{AtomicU32, AtomicU64, Ordering};
use std::sync::Arc;
use std::time::{Duration, Instant};

/// The harness's entry points, as evotest's driver hands them over.
#[derive(Clone, Copy, Debug)]
pub struct Hooks {
    /// `LLVMFuzzerTestOneInput(data, size)`.
    pub test_one_input: unsafe extern "C" fn(*const u8, usize) -> i32,
    /// The runtime's `__evotest_return(kind, bits)`: marks the input as returned.
    pub ret: unsafe extern "C" fn(u32, u64),
}

/// Exit status of a worker the watchdog ended (the reason is in the header's `inproc_fault`).
pub const WATCHDOG_EXIT_CODE: i32 = 70;

/// The watchdog's view of the executions: when the current one started.
struct Clock {
    base: Instant,
    /// Nanoseconds since `base` + 1 at which the current execution started; 0 between executions.
    started: AtomicU64,
    /// The timeout's multiple the current execution may take (1, or
    /// [`super::LOGGING_TIMEOUT_FACTOR`] while every compare is logged).
    factor: AtomicU32,
    /// A further multiple for the process's first execution ([`super::FIRST_RUN_TIMEOUT_FACTOR`]),
    /// 1 for the others.
    first: AtomicU32,
}

/// A thread that ends the process when one execution runs longer than the timeout, or the process
/// grows beyond the RSS limit during an execution, after writing the reason into the header.
pub struct Watchdog {
    clock: Arc<Clock>,
}

impl Watchdog {
    /// Start watching: `header` is the address of the shared header (it outlives the process's
    /// engine), `timeout` the per-execution limit, `rss_limit` in bytes (0 = none).
    fn start(header: usize, timeout: Duration, rss_limit: u64) -> Watchdog {
        let clock = Arc::new(Clock {
            base: Instant::now(),
            started: AtomicU64::new(0),
            factor: AtomicU32::new(1),
            first: AtomicU32::new(1),
        });
        let c = clock.clone();
        // check a few times per timeout, at least every 250 ms and at most every 5 ms
        let period = (timeout / 4).clamp(Duration::from_millis(5), Duration::from_millis(250));
        let _ = std::thread::Builder::new()
            .name("evotest-watchdog".into())
            .spawn(move || {
                let mut last_rss = Instant::now();
                loop {
                    std::thread::sleep(period);
                    let s = c.started.load(Ordering::Acquire);
                    if s == 0 {
                        continue;
                    }
                    let ran = c.base.elapsed().saturating_sub(Duration::from_nanos(s - 1));
                    let mut fault = 0;
                    if ran
                        > timeout
                            * c.factor.load(Ordering::Acquire)
                            * c.first.load(Ordering::Acquire)
                    {
                        fault = INPROC_FAULT_TIMEOUT;
                    } else if rss_limit > 0 && last_rss.elapsed() >= Duration::from_millis(250) {
                        last_rss = Instant::now();
                        if super::forkserver::resident_bytes(std::process::id() as i32)
                            .is_some_and(|b| b > rss_limit)
                        {
                            fault = INPROC_FAULT_OOM;
                        }
                    }
                    // the execution may have ended meanwhile: only one still running is a fault
                    if fault != 0 && c.started.load(Ordering::Acquire) == s {
                        unsafe {
                            let h = header as *mut evotest_abi::shm::Header;
                            std::ptr::write_volatile(&mut (*h).inproc_fault, fault);
                            libc::_exit(WATCHDOG_EXIT_CODE);
                        }
                    }
                }
            });
        Watchdog { clock }
    }

    /// The start of an execution; `first`: the process's first (see [`Clock::first`]).
    fn begin(&self, first: bool) {
        let f = if first {
            super::FIRST_RUN_TIMEOUT_FACTOR
        } else {
            1
        };
        self.clock.first.store(f, Ordering::Release);
        let ns = self.clock.base.elapsed().as_nanos() as u64 + 1;
        self.clock.started.store(ns, Ordering::Release);
    }

    fn end(&self) {
        self.clock.started.store(0, Ordering::Release);
    }
}

/// Runs inputs by calling the harness in this process (see module docs).
pub struct InProcess {
    shm: SharedMemory,
    hooks: Hooks,
    watchdog: Watchdog,
    executions: u64,
}

impl InProcess {
    /// Attach the supervisor's segment `shm_id` and call the harness through `hooks`, ending the
    /// process (see [`Watchdog`]) when one input runs longer than `timeout` or the process grows
    /// beyond `rss_limit` bytes (0 = no limit) while an input runs.
    ///
    /// Errors: the segment cannot be attached or has another layout.
    pub fn new(shm_id: i32, hooks: Hooks, timeout: Duration, rss_limit: u64) -> Result<InProcess> {
        let shm = SharedMemory::attach(shm_id)?;
        let watchdog = Watchdog::start(shm.header() as *const _ as usize, timeout, rss_limit);
        Ok(InProcess {
            shm,
            hooks,
            watchdog,
            executions: 0,
        })
    }

    /// Modules the runtime registered in this process (global site/outcome bases).
    pub fn modules(&self) -> Vec<ModuleEntry> {
        self.shm.modules()
    }

    /// The program's `switch` sites (see [`SharedMemory::complete_switches`]).
    pub fn set_switches(&mut self, tables: Vec<SwitchTable>) {
        self.shm.set_switches(tables);
    }

    fn execute(&mut self, input: &[u8], stop: &Stop, sparse: bool) -> Result<ExitKind> {
        if stop.now() {
            return Ok(ExitKind::Stopped);
        }
        self.shm.begin_run(sparse);
        self.shm.prepare_run(input)?;
        self.shm.count_in_process_execution();
        // a copy of exactly the input's size, so that a sanitizer catches reads past its end
        unsafe {
            let n = input.len();
            let copy = libc::malloc(n.max(1)) as *mut u8;
            if copy.is_null() {
                anyhow::bail!("out of memory for a copy of a {n}-byte input");
            }
            std::ptr::copy_nonoverlapping(input.as_ptr(), copy, n);
            self.watchdog.begin(self.executions == 0);
            let r = (self.hooks.test_one_input)(copy, n);
            // the harness's value: -1 rejects the input (libFuzzer: not added to the corpus)
            (self.hooks.ret)(evotest_abi::shm::RET_SIGNED, r as i64 as u64);
            self.watchdog.end();
            libc::free(copy as *mut libc::c_void);
        }
        self.executions += 1;
        self.shm.complete_switches();
        Ok(ExitKind::Ok)
    }
}

impl Executor for InProcess {
    fn registration_overflow(&self) -> u32 {
        self.shm.overflow()
    }

    fn last_ret(&self) -> Option<super::RetVal> {
        self.shm.ret_val()
    }

    fn run(&mut self, input: &[u8], stop: Stop) -> Result<Execution> {
        let t0 = Instant::now();
        let exit = self.execute(input, &stop, false)?;
        Ok(Execution::read(exit, &self.shm, t0))
    }

    fn run_coverage(
        &mut self,
        input: &[u8],
        stop: Stop,
        outcomes: &[(u32, u32)],
        cov: &mut Coverage,
    ) -> Result<ExitKind> {
        let exit = self.execute(input, &stop, true)?;
        if exit == ExitKind::Stopped {
            cov.clear();
            return Ok(exit);
        }
        self.shm.scan_coverage(outcomes, cov);
        Ok(exit)
    }

    fn executions(&self) -> u64 {
        self.executions
    }

    fn set_ordered_trace(&mut self, on: bool) {
        self.shm.set_events(on);
    }

    /// The runtime ends the process at the limit, which would end the worker: in-process runs
    /// have no branch-event limit (the watchdog's timeout bounds them).
    fn set_max_branch_events(&mut self, _n: u32) {
        self.shm.set_max_branch_events(0);
    }

    fn note_in_process_coverage(&mut self, coverage: (u64, u64, u64)) {
        self.shm.set_in_process_coverage(coverage);
    }

    fn inputs_per_process(&self) -> u32 {
        u32::MAX
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
        self.watchdog.clock.factor.store(
            if on { super::LOGGING_TIMEOUT_FACTOR } else { 1 },
            Ordering::Release,
        );
    }

    fn last_operands(&self, out: &mut Vec<crate::trace::OperandRec>) -> bool {
        self.shm.read_operands(out);
        true
    }

    fn last_str_operands(&self, out: &mut Vec<crate::trace::StrOperandRec>) -> bool {
        self.shm.read_str_operands(out);
        true
    }
}
