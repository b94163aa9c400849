//! Checking a suite before it is written: every kept input whose result could depend on the
//! circumstances of the search is run again in a fresh process, and the suite keeps what that
//! run did.
//!
//! * In persistent mode (many inputs per process) every kept input is replayed: a function can
//!   keep hidden state (a `static` reached through a pointer, the heap, a file) that no static
//!   check sees, and then an input's recorded result depends on the inputs before it. A test
//!   whose fresh run differs is rewritten from the fresh run, and a goal it covered only through
//!   leaked state is no longer covered.
//! * In every mode, kept inputs that ended in a fault are replayed: a timeout caused by a loaded
//!   machine, for one, does not reproduce and is dropped.
//!
//! Replays keep the target's standard error: a fault's one-line message (a failed assertion, an
//! uncaught exception) goes with it, and a fault that says what a kept one said is the same fault
//! reached another way, so only the first reproducer of each is kept.
//!
//! So a `tests.c` never fails on the code it was generated from (within the same compiler and
//! flags), and no reproducer is kept that does not reproduce.

use crate::archive::{Archive, TestCase};
use crate::exec::{ExitKind, Stop};
use crate::fitness::Goal;
use crate::suite::Verification;
use crate::target::Target;
use anyhow::Result;
use std::sync::atomic::AtomicBool;

/// Replay the kept inputs of `archive` that need it (see module docs) through a fresh executor of
/// `target`, and rebuild the archive from the results.
///
/// Errors: the fresh executor does not start, or breaks.
pub fn verify(
    target: &Target,
    goals: &[Box<dyn Goal>],
    archive: &mut Archive,
    interrupt: &AtomicBool,
) -> Result<Verification> {
    let persistent = target.executor.inputs_per_process() > 1;
    let mut cases: Vec<TestCase> = archive
        .tests
        .iter()
        .chain(&archive.faults)
        .cloned()
        .collect();
    cases.sort_by_key(|c| c.exec);
    cases.dedup_by_key(|c| c.exec);
    let needs = |c: &TestCase| persistent || c.exit.is_fault();
    let mut v = Verification::default();
    if !cases.iter().any(needs) {
        return Ok(v);
    }
    let covered_before = archive.n_covered();
    // standard error kept: what the target says about a fault goes with it (an assertion)
    let mut fresh = target.fresh_executor_with(target.options.timeout, true)?;
    // a timeout is confirmed under the limit the suite will use, so that the suite never
    // expects a hang from an input that, given time, crashes or returns (e.g. on a loaded
    // machine with a timeout of a few milliseconds)
    let mut patient: Option<Box<dyn crate::exec::Executor>> = None;
    let stop = Stop {
        deadline: None,
        interrupt: Some(interrupt),
    };
    let mut rebuilt = Archive::new(goals.len());
    // (exit, message) of the faults kept: a fault that says what one of them said is the same
    // fault reached another way (as a fuzzer deduplicates crashes by their stack)
    let mut kept_messages = std::collections::HashSet::new();
    let mut unfolded = Archive::new(0);
    for c in cases {
        let mut t = c.clone();
        if needs(&c) {
            let mut ex = fresh.run(&c.input.bytes, stop)?;
            let mut said = fresh.last_stderr();
            // a timeout again at the user's limit that ends given the suite's longer one
            let mut slow = false;
            if ex.exit == ExitKind::Timeout {
                let limit = crate::exec::hang_limit(target.options.timeout);
                if limit > target.options.timeout {
                    if patient.is_none() {
                        patient = Some(target.fresh_executor_with(limit, true)?);
                    }
                    let p = patient.as_mut().expect("just started");
                    ex = p.run(&c.input.bytes, stop)?;
                    said = p.last_stderr();
                    // a third run over the limit (this one's own duration) confirms it: a
                    // loaded machine does not slow one input down three times in a row
                    slow = !matches!(
                        ex.exit,
                        ExitKind::Timeout | ExitKind::StepLimit | ExitKind::Stopped
                    ) && ex.duration > target.options.timeout;
                }
            }
            if ex.exit != ExitKind::Stopped {
                v.replayed += 1;
                let covers_all: Vec<usize> = (0..goals.len())
                    .filter(|&g| goals[g].fitness(&ex.trace) == 0.0)
                    .collect();
                // a run that did not end is the same result whether the clock or the branch-event
                // limit stopped it (which comes first depends on the machine's speed), as far as
                // the goals it reached
                let hang = |e: ExitKind| matches!(e, ExitKind::Timeout | ExitKind::StepLimit);
                let same_end = ex.exit == c.exit || (hang(ex.exit) && hang(c.exit));
                // (a slow input's result and goals differ from its timed-out run's by the limit)
                if !slow && (!same_end || ex.ret != c.ret || covers_all != c.covers_all) {
                    v.changed += 1;
                }
                if ex.exit.is_fault() && ex.exit != c.exit {
                    // a fault only the fresh run shows (e.g. an input that kills the fork server,
                    // which a persistent child can outrun): count it with the search's
                    *archive
                        .fault_counts
                        .entry(ex.exit.name().to_string())
                        .or_default() += 1;
                }
                t.exit = ex.exit;
                t.ret = ex.ret;
                t.message = if ex.exit.is_fault() {
                    said.and_then(|e| crate::fuzz::triage::one_line(&e, ex.exit))
                } else {
                    None
                };
                t.covers_all = covers_all;
                if slow {
                    // the search's finding stands: the input takes longer than --timeout
                    rebuilt.add_fault(TestCase {
                        exit: ExitKind::Timeout,
                        ret: None,
                        message: Some(format!(
                            "ran longer than the timeout ({:?}) again alone in a fresh process; it ends within {} s",
                            target.options.timeout,
                            crate::exec::hang_limit(target.options.timeout).as_secs()
                        )),
                        slow: true,
                        ..t.clone()
                    });
                }
            }
        }
        t.covers_new = t
            .covers_all
            .iter()
            .copied()
            .filter(|&g| !rebuilt.is_covered(g))
            .collect();
        if t.exit.is_fault() {
            let said_before = t
                .message
                .as_ref()
                .is_some_and(|m| !kept_messages.insert((t.exit, m.clone())));
            // what the archive would keep without the messages, to count what they folded
            unfolded.add_fault(t.clone());
            if !said_before {
                rebuilt.add_fault(t.clone());
            }
        }
        rebuilt.add_test(t);
    }
    rebuilt.fault_counts = std::mem::take(&mut archive.fault_counts);
    v.lost_goals = covered_before.saturating_sub(rebuilt.n_covered());
    v.same_message = unfolded.faults.len().saturating_sub(rebuilt.faults.len());
    *archive = rebuilt;
    Ok(v)
}
