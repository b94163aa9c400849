//! Shorter call sequences in an API suite (`evotest run --api`): Pacheco's (2009, §6.1) first
//! simplification phase. A kept sequence loses its calls one by one, from the last to the first,
//! as long as what it was kept for stays: the goals it covered first (a test), or the same fault
//! (a fault). The searches build long sequences (a random one has up to `--max-calls` calls, a
//! Randoop extension prepends whole pool sequences), most of whose calls a test does not need.

use crate::archive::Archive;
use crate::exec::{Executor, ExitKind, Stop};
use crate::fitness::Goal;
use crate::input::sequence::SequenceModel;
use crate::input::Input;
use anyhow::Result;
use std::sync::atomic::AtomicBool;

/// What the shortening did: calls before and after, over all kept sequences, and the executions
/// it took.
#[derive(Clone, Copy, Debug, Default, serde::Serialize)]
pub struct Shortened {
    pub calls_before: usize,
    pub calls_after: usize,
    pub executions: u64,
}

/// Shorten every kept sequence of `archive` (see module docs), running them with `executor`,
/// until `deadline` if there is one (the sequences not reached stay as they are).
///
/// Errors: only when the executor breaks.
pub fn shorten(
    model: &SequenceModel,
    executor: &mut dyn Executor,
    goals: &[Box<dyn Goal>],
    archive: &mut Archive,
    interrupt: &AtomicBool,
    deadline: Option<std::time::Instant>,
) -> Result<Shortened> {
    let stop = Stop {
        deadline,
        interrupt: Some(interrupt),
    };
    let mut out = Shortened::default();
    let n_tests = archive.tests.len();
    for k in 0..n_tests + archive.faults.len() {
        let t = if k < n_tests {
            &archive.tests[k]
        } else {
            &archive.faults[k - n_tests]
        };
        let (want_goals, want_exit) = (t.covers_new.clone(), t.exit);
        let mut calls = model.parse(&t.input.bytes);
        let mut nulls = crate::input::sequence::null_mask(t.ret.as_ref());
        out.calls_before += calls.len();
        let mut last = None;
        let mut i = calls.len();
        while i > 0 && calls.len() > 1 {
            i -= 1;
            if interrupt.load(std::sync::atomic::Ordering::Relaxed)
                || deadline.is_some_and(|d| std::time::Instant::now() >= d)
            {
                break;
            }
            // the call removed with the later handles re-pointed at the values they picked; else
            // (the engine's model of the values alive may be wrong: a crashing run reports no
            // NULL returns) the call removed as it is
            let mut candidates: Vec<(Vec<crate::input::sequence::Call>, u64)> = Vec::new();
            if let Some(c) = model.without(&calls, i, nulls) {
                candidates.push(c);
            }
            let mut plain = calls.clone();
            plain.remove(i);
            if candidates.first().is_none_or(|(c, _)| *c != plain) {
                candidates.push((plain, 0));
            }
            for (shorter, shorter_nulls) in candidates {
                let ex = executor.run(&model.encode(&shorter), stop)?;
                out.executions += 1;
                if ex.exit == ExitKind::Stopped {
                    break;
                }
                let keeps = if want_exit.is_fault() {
                    ex.exit == want_exit
                } else {
                    ex.exit == ExitKind::Ok
                };
                if keeps
                    && want_goals
                        .iter()
                        .all(|&g| goals[g].fitness(&ex.trace) == 0.0)
                {
                    calls = shorter;
                    // the run's own record of its NULL returns (a fault's run returns none)
                    nulls = if ex.exit == ExitKind::Ok {
                        crate::input::sequence::null_mask(ex.ret.as_ref())
                    } else {
                        shorter_nulls
                    };
                    last = Some(ex);
                    break;
                }
            }
        }
        out.calls_after += calls.len();
        if let Some(ex) = last {
            let t = if k < n_tests {
                &mut archive.tests[k]
            } else {
                &mut archive.faults[k - n_tests]
            };
            t.input = Input::new(model.encode(&calls));
            t.exit = ex.exit;
            t.ret = ex.ret;
            t.covers_all = (0..goals.len())
                .filter(|&g| goals[g].fitness(&ex.trace) == 0.0)
                .collect();
        }
    }
    Ok(out)
}
