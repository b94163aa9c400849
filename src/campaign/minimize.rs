//! Shorter call sequences in an API suite (`evotest run --api`): Pacheco's (2009, §6.1) first
//! simplification phase. A kept sequence loses its calls one by one, from the last to the first,
//! as long as what it was kept for stays: the goals it covered first (a test), or the same fault
//! (a fault). The searches build long sequences (a random one has up to `--max-calls` calls, a
//! Randoop extension prepends whole pool sequences), most of whose calls a test does not need.
//! Then each kept sequence that returns normally ends with calls of the observers, whose results
//! `tests.c` checks ([`append_observers`]).

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

/// Whether the post-processing must stop: interrupted, or past its deadline.
fn out_of_time(interrupt: &AtomicBool, deadline: Option<std::time::Instant>) -> bool {
    interrupt.load(std::sync::atomic::Ordering::Relaxed)
        || deadline.is_some_and(|d| std::time::Instant::now() >= d)
}

/// Make `t` the sequence `calls` as its execution `ex` ran it.
fn adopt(
    t: &mut crate::archive::TestCase,
    model: &SequenceModel,
    calls: &[crate::input::sequence::Call],
    ex: crate::exec::Execution,
    goals: &[Box<dyn Goal>],
) {
    t.input = Input::new(model.encode(calls));
    t.exit = ex.exit;
    t.covers_all = (0..goals.len())
        .filter(|&g| goals[g].fitness(&ex.trace) == 0.0)
        .collect();
    t.ret = ex.ret;
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
            if out_of_time(interrupt, deadline) {
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
            adopt(t, model, &calls, ex, goals);
        }
    }
    Ok(out)
}

/// The observer operations of `model`: one parameter, a handle, and a scalar result, neither
/// a destructor nor an operation that frees or promotes its value (`stack_size(s)`,
/// `acct_balance(a)`). Pacheco (2009) builds RANDOOP's regression oracle by calling observer
/// methods on the objects an input creates: methods of no parameter but the object that return
/// a primitive value, and (there) named `size`, `count`, `length`, `get…` or `is…`; C names
/// vary too much for the name rule (`acct_balance`), so only the signature is asked for.
pub fn observers(model: &SequenceModel) -> Vec<usize> {
    use crate::input::sequence::{ArgKind, Frees, OpReturn};
    model
        .ops
        .iter()
        .enumerate()
        .filter(|(_, op)| {
            op.params.len() == 1
                && matches!(op.params[0].1, ArgKind::Handle(_))
                && matches!(op.ret, OpReturn::Scalar(_))
                && !op.destructor
                && !matches!(op.frees, Frees::Param(_))
                && op.promotes.is_none()
        })
        .map(|(i, _)| i)
        .collect()
}

/// Append to every kept sequence that returned normally a call of each observer operation
/// ([`observers`]) on each value of its type alive at the end (at most 4 per operation, within
/// the model's `max_calls`), so that `tests.c` checks what they return, the objects' state,
/// not only what the sequence's own calls returned; a sequence is extended only when it still
/// returns normally and covers what it was kept for. The number of calls appended.
///
/// Errors: only when the executor breaks.
pub fn append_observers(
    model: &SequenceModel,
    executor: &mut dyn Executor,
    goals: &[Box<dyn Goal>],
    archive: &mut Archive,
    interrupt: &AtomicBool,
    deadline: Option<std::time::Instant>,
) -> Result<usize> {
    use crate::input::sequence::{Arg, ArgKind, Call};
    let obs = observers(model);
    let mut appended = 0;
    if obs.is_empty() {
        return Ok(0);
    }
    let stop = Stop {
        deadline,
        interrupt: Some(interrupt),
    };
    for t in archive.tests.iter_mut() {
        if t.exit != ExitKind::Ok || out_of_time(interrupt, deadline) {
            continue;
        }
        let mut calls = model.parse(&t.input.bytes);
        let nulls = crate::input::sequence::null_mask(t.ret.as_ref());
        let live = model.live_after_with(&calls, nulls);
        let before = calls.len();
        for &o in &obs {
            let ArgKind::Handle(ty) = model.ops[o].params[0].1 else {
                continue;
            };
            for k in 0..live[ty].len().min(4) {
                if calls.len() >= model.max_calls {
                    break;
                }
                calls.push(Call {
                    op: o,
                    args: vec![Arg::Handle(k as u8)],
                });
            }
        }
        if calls.len() == before {
            continue;
        }
        let ex = executor.run(&model.encode(&calls), stop)?;
        if ex.exit == ExitKind::Ok
            && t.covers_new
                .iter()
                .all(|&g| goals[g].fitness(&ex.trace) == 0.0)
        {
            appended += calls.len() - before;
            adopt(t, model, &calls, ex, goals);
        }
    }
    Ok(appended)
}
