//! The default algorithm, `auto`: a portfolio that switches algorithms on a goal instead of
//! setting it aside, and keeps a share of the budget for undirected exploration.
//!
//! **Per goal**, attempts take turns among three searches with different landscapes in mind:
//! 1. the alternating variable method ([`super::avm`]: pattern, lattice, binade and
//!    input-to-state moves), which is fastest where branch distance is informative;
//! 2. havoc mutation of archive inputs ([`super::havoc`]), as a byte fuzzer would, which needs no
//!    gradient and tries the special values (NaN, ±0, extremes) and copies between fields;
//! 3. the genetic algorithm ([`super::ga`]), whose crossover recombines inputs that each satisfy
//!    part of a conjunction.
//!
//! A goal stays with the search that last improved it; an attempt that does not improve it moves
//! it to the next one. With the default `--give-up-after 3`, a goal is set aside only after each
//! of the three has failed on it in turn (and is revived later while budget remains).
//!
//! **Exploration.** Once some goal has had a fruitless attempt, the portfolio keeps
//! [`EXPLORE_SHARE`] of all executions for exploration bursts of [`BURST`] evaluations: half
//! random inputs from the domain (random testing), half havoc children of random archive inputs
//! (a coverage-guided fuzzer's loop). Every evaluation updates the archive, so whatever a burst
//! covers by chance is kept, and the directed searches then start from it. This bounds the loss
//! against random testing: a goal random testing covers in N executions is covered by `auto` in
//! at most about N / [`EXPLORE_SHARE`].
//!
//! Algorithm portfolios: Gomes & Selman (2001). The havoc share follows what coverage-guided
//! fuzzers do all the time (Zalewski's AFL); the random share is the baseline every search must
//! beat.

use super::{Algorithm, AlgorithmSpec, Attempt, GoalSearch, SearchConfig, SearchContext};
use anyhow::Result;
use std::collections::HashMap;

pub const SPEC: AlgorithmSpec = AlgorithmSpec {
    name: "auto",
    about: "portfolio: AVM, then havoc, then GA on a goal that stops improving; a share of the budget for random and havoc exploration",
    build: |c| Algorithm::PerGoal(Box::new(Portfolio::new(c))),
};

/// Share of all executions kept for exploration, once a goal has stalled.
pub const EXPLORE_SHARE: f64 = 0.1;
/// Evaluations in one exploration burst.
pub const BURST: u64 = 200;
/// Executions of a directed attempt between two chances to explore: the burst over the share.
pub const SLICE: u64 = (BURST as f64 / EXPLORE_SHARE) as u64;

/// See module docs.
pub struct Portfolio {
    searches: Vec<Box<dyn GoalSearch>>,
    /// Index into `searches` of the search each goal is with.
    stage: HashMap<usize, usize>,
    /// Some goal had a fruitless attempt: exploration is on.
    exploring: bool,
    /// Executions spent on exploration.
    explored: u64,
}

impl Portfolio {
    pub fn new(c: &SearchConfig) -> Portfolio {
        let ga: Box<dyn GoalSearch> = Box::new(super::ga::preset(c));
        Portfolio {
            searches: vec![Box::new(super::avm::Avm), Box::new(super::havoc::Havoc), ga],
            stage: HashMap::new(),
            exploring: false,
            explored: 0,
        }
    }

    /// Run an exploration burst if exploration is behind its share.
    fn explore(&mut self, cx: &mut SearchContext) -> Result<()> {
        if !self.exploring || (self.explored as f64) >= EXPLORE_SHARE * cx.executions() as f64 {
            return Ok(());
        }
        let start = cx.executions();
        for k in 0..BURST {
            if cx.finished() || cx.archive().n_covered() == cx.goals().len() {
                break;
            }
            let x = if k % 2 == 0 {
                cx.random_input()
            } else {
                let p = super::havoc::archive_input(cx);
                super::havoc::mutant(cx, &p)
            };
            cx.evaluate(&x)?;
        }
        // cache hits cost nothing and are not counted
        self.explored += (cx.executions() - start).max(1);
        Ok(())
    }
}

impl GoalSearch for Portfolio {
    /// One attempt of the goal's current search, cut into slices of [`SLICE`] executions with
    /// exploration bursts in between while exploration is behind its share. A search that hits a
    /// slice's end starts again from the goal's best input.
    fn attempt(&mut self, cx: &mut SearchContext, goal: usize) -> Result<()> {
        let s = *self.stage.get(&goal).unwrap_or(&0);
        // executions since the goal's best last improved, across slices
        let mut since = 0u64;
        loop {
            let before = cx.best(goal).map(|b| b.0);
            self.explore(cx)?;
            if cx.is_covered(goal) || cx.finished() {
                return Ok(());
            }
            let end = cx.executions() + SLICE;
            cx.set_slice(Some(end));
            let r = self.searches[s].attempt(cx, goal);
            cx.set_slice(None);
            r?;
            if cx.executions() < end || !self.exploring {
                return Ok(());
            }
            let after = cx.best(goal).map(|b| b.0);
            since = if after < before || before.is_none() { 0 } else { since + SLICE };
            if since >= cx.config.patience {
                return Ok(());
            }
        }
    }

    fn after_attempt(&mut self, _cx: &mut SearchContext, goal: usize, attempt: Attempt) -> Result<()> {
        if !attempt.improved {
            self.exploring = true;
            let s = self.stage.entry(goal).or_insert(0);
            *s = (*s + 1) % self.searches.len();
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::exec::mock::MockRun;
    use crate::input::{Domain, Field, InitMode, ScalarType, Value};
    use crate::search::testkit::*;
    use crate::search::{drive, SearchConfig};

    /// A needle without a gradient (x == 12345 seen only as true/false) on a small range: AVM has
    /// nothing to follow, but the exploration share covers it as random testing would.
    #[test]
    fn exploration_covers_a_flat_needle() {
        let d = ints(&["x"], Some((0, 20_000)));
        let sc = Scenario {
            sites: 1,
            outcomes: 2,
            goals: branch_goals(0, vec![]),
            program: Box::new(|v: &[Value], r: &mut MockRun| {
                let x = v[0].as_i128();
                r.branch(0, 0, if x == 12_345 { &[0.0, 1.0] } else { &[1.0, 0.0] });
            }),
        };
        let r = run_with(&d, sc, SearchConfig::default(), 3, 1_000_000, |cx| drive(cx, &mut Portfolio::new(&SearchConfig::default())).unwrap());
        assert_eq!(r.covered, 2, "{r:?}");
    }

    /// The switch to havoc: `x` must be NaN, which AVM's moves never produce from a uniform start
    /// (and the distance of `isnan` is flat).
    #[test]
    fn a_stalled_goal_moves_on_to_havoc() {
        let d = Domain { init: InitMode::Uniform, ..Domain::packed(vec![Field::full("x", ScalarType::F64)]) };
        let sc = Scenario {
            sites: 1,
            outcomes: 2,
            goals: branch_goals(0, vec![]),
            program: Box::new(|v: &[Value], r: &mut MockRun| {
                r.branch(0, 0, if v[0].as_f64().is_nan() { &[0.0, 1.0] } else { &[1.0, 0.0] });
            }),
        };
        let r = run_with(&d, sc, SearchConfig::default(), 4, 100_000, |cx| drive(cx, &mut Portfolio::new(&SearchConfig::default())).unwrap());
        assert_eq!(r.covered, 2, "{r:?}");
    }
}
