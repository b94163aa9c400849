//! An executor driven by a Rust closure, so that the engine (drivers, schedulers, the evaluation
//! cache, the algorithms) can be unit-tested on synthetic fitness landscapes without compiling C.
//!
//! The closure receives the input bytes and fills a [`MockRun`]: the branch distances of the
//! outcomes it wants to report (sites that are not touched read as not executed), optionally
//! ordered-trace events, and how the execution ended.

use super::{Execution, Executor, ExitKind, RetVal, Stop};
use crate::trace::{Event, Trace};
use anyhow::Result;
use evotest_abi::shm::SiteRec;
use std::time::Duration;

/// What one mock execution reports. Built by the closure through its methods.
pub struct MockRun {
    trace: Trace,
    seq: u32,
    /// How the execution ended (default [`ExitKind::Ok`]).
    pub exit: ExitKind,
    /// The returned value (default `Void`).
    pub ret: Option<RetVal>,
}

impl MockRun {
    fn new(sites: usize, outcomes: usize) -> MockRun {
        MockRun {
            trace: Trace {
                sites: vec![SiteRec::default(); sites],
                dist: vec![f64::INFINITY; outcomes],
                ..Default::default()
            },
            seq: 0,
            exit: ExitKind::Ok,
            ret: Some(RetVal::Void),
        }
    }

    /// Site `site`, whose outcomes are `outcome_base..`, was executed with these branch distances
    /// (one per outcome; 0.0 for the outcome taken). Repeated calls keep the minimum, as the
    /// runtime does.
    pub fn branch(&mut self, site: u32, outcome_base: u32, dists: &[f64]) {
        self.seq += 1;
        let r = &mut self.trace.sites[site as usize];
        let first = r.hits == 0;
        if first {
            r.first_seq = self.seq;
        }
        r.hits += 1;
        for (k, &d) in dists.iter().enumerate() {
            let slot = &mut self.trace.dist[outcome_base as usize + k];
            if first || d < *slot {
                *slot = d;
            }
        }
        let taken = dists.iter().position(|&d| d == 0.0).unwrap_or(0) as u32;
        let alt = dists
            .iter()
            .enumerate()
            .find(|(k, _)| *k as u32 != taken)
            .map_or(0.0, |(_, d)| *d);
        self.trace.events.push(Event {
            id: site,
            outcome: taken,
            alt,
        });
    }

    /// Site `site` compared these operands (integers widened to 64 bits, or `f64` bit patterns
    /// with `float`): recorded in the operand log if it is the site's first comparison. Call it
    /// before [`MockRun::branch`] for the same evaluation.
    pub fn operands(&mut self, site: u32, float: bool, a: u64, b: u64) {
        if self.trace.sites[site as usize].hits == 0 {
            let kind = if float {
                evotest_abi::shm::OPERANDS_FLOAT
            } else {
                0
            };
            self.trace
                .operands
                .push(evotest_abi::shm::OperandRec { site, kind, a, b });
        }
    }

    /// Site `site` compared the integers `a` and `b` (widened to 64 bits) with `pred`: logged as
    /// the runtime logs it for a function-level search (the site's first evaluation, and later
    /// ones flagged [`evotest_abi::shm::OPERANDS_REPEATED`] up to
    /// [`evotest_abi::shm::OPERAND_EVALS`], a record equal to the log's last one not repeated).
    /// Call it before [`MockRun::branch`] for the same evaluation.
    pub fn compare(&mut self, site: u32, pred: evotest_abi::pred::Pred, a: u64, b: u64) {
        use evotest_abi::shm::{OperandRec, OPERANDS_REPEATED, OPERAND_EVALS};
        let hits = self.trace.sites[site as usize].hits;
        let kind = pred as u32;
        if hits == 0 {
            self.trace.operands.push(OperandRec { site, kind, a, b });
        } else if hits < OPERAND_EVALS {
            let rec = OperandRec {
                site,
                kind: kind | OPERANDS_REPEATED,
                a,
                b,
            };
            if self.trace.operands.last() != Some(&rec) {
                self.trace.operands.push(rec);
            }
        }
    }

    /// Site `site` compared the strings `a` and `b` with `func` (`evotest_abi::distance::STR_*`,
    /// length argument `n`): recorded in the string operand log if it is the site's first
    /// comparison. Call it before [`MockRun::branch`] for the same evaluation.
    pub fn str_operands(&mut self, site: u32, func: u32, n: u64, a: &[u8], b: &[u8]) {
        if self.trace.sites[site as usize].hits == 0 {
            self.trace
                .str_operands
                .push(evotest_abi::shm::StrOperandRec::new(site, func, n, a, b));
        }
    }

    /// Definition `def` executed (an ordered-trace event only).
    pub fn def(&mut self, def: u32) {
        self.trace.events.push(Event {
            id: evotest_abi::shm::EVENT_DEF | def,
            outcome: 0,
            alt: 0.0,
        });
    }
}

/// See module docs.
pub struct MockExecutor<F: FnMut(&[u8], &mut MockRun)> {
    sites: usize,
    outcomes: usize,
    f: F,
    executions: u64,
    ordered: bool,
    /// The trace of the last execution (for [`Executor::last_distance`] and
    /// [`Executor::last_operands`]).
    last: Option<Trace>,
}

impl<F: FnMut(&[u8], &mut MockRun)> MockExecutor<F> {
    /// A mock target with `sites` branch sites and `outcomes` outcomes in all, whose executions
    /// `f` describes.
    pub fn new(sites: usize, outcomes: usize, f: F) -> Self {
        MockExecutor {
            sites,
            outcomes,
            f,
            executions: 0,
            ordered: false,
            last: None,
        }
    }
}

impl<F: FnMut(&[u8], &mut MockRun)> Executor for MockExecutor<F> {
    fn run(&mut self, input: &[u8], _stop: Stop) -> Result<Execution> {
        let mut run = MockRun::new(self.sites, self.outcomes);
        (self.f)(input, &mut run);
        self.executions += 1;
        let mut trace = run.trace;
        if !self.ordered {
            trace.events.clear();
        }
        let ret = if run.exit == ExitKind::Ok {
            run.ret
        } else {
            None
        };
        self.last = Some(trace.clone());
        Ok(Execution {
            exit: run.exit,
            ret,
            trace,
            duration: Duration::ZERO,
        })
    }

    fn executions(&self) -> u64 {
        self.executions
    }

    fn set_ordered_trace(&mut self, on: bool) {
        self.ordered = on;
    }

    fn set_max_branch_events(&mut self, _n: u32) {}

    fn last_distance(&self, outcome: u32) -> Option<f64> {
        self.last.as_ref()?.dist.get(outcome as usize).copied()
    }

    fn last_operands(&self, out: &mut Vec<crate::trace::OperandRec>) -> bool {
        out.clear();
        if let Some(t) = &self.last {
            out.extend_from_slice(&t.operands);
        }
        true
    }

    fn last_str_operands(&self, out: &mut Vec<crate::trace::StrOperandRec>) -> bool {
        out.clear();
        if let Some(t) = &self.last {
            out.extend_from_slice(&t.str_operands);
        }
        true
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_mock_reports_distances_hits_and_events() {
        let mut m = MockExecutor::new(2, 4, |b: &[u8], r: &mut MockRun| {
            let x = b.first().copied().unwrap_or(0) as f64;
            r.branch(0, 0, &[(x - 7.0).abs(), if x == 7.0 { 1.0 } else { 0.0 }]);
            if x == 9.0 {
                r.exit = ExitKind::Crash { signal: 11 };
            }
        });
        let e = m.run(&[3], Stop::NONE).unwrap();
        assert!(e.trace.executed(0) && !e.trace.executed(1));
        assert_eq!(e.trace.distance(0, 0), Some(4.0));
        assert!(e.trace.covered(0, 1));
        assert!(e.trace.events.is_empty(), "no ordered trace unless asked");
        m.set_ordered_trace(true);
        let e = m.run(&[7], Stop::NONE).unwrap();
        assert_eq!(e.trace.events.len(), 1);
        assert_eq!(e.trace.events[0].outcome, 0);
        let e = m.run(&[9], Stop::NONE).unwrap();
        assert_eq!(e.exit, ExitKind::Crash { signal: 11 });
        assert_eq!(e.ret, None);
        assert_eq!(m.executions(), 3);
    }
}
