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
//! **Exploration** runs between the directed searches' executions, interleaved one evaluation at
//! a time (the directed search keeps its own state, an AVM its pattern moves): half random inputs
//! from the domain (random testing), half havoc children of random archive inputs (a
//! coverage-guided fuzzer's loop). Every evaluation updates the archive, so whatever exploration
//! covers by chance is kept, and the directed searches then start from it.
//!
//! Its share of all executions follows what each side has covered so far (a two-armed bandit on
//! coverage): each side's rate of new goals per execution is estimated from its goals and
//! executions (the directed side with a prior of one goal in [`PRIOR`] executions, exploration
//! with none: it has to show what it buys), and exploration's share is the probability that its
//! rate is the higher one, under normal approximations of the two estimates, between a floor and
//! [`MAX_SHARE`]. The floor is [`START_SHARE`] from the start, so that exploration is always
//! sampled, and [`MIN_SHARE`] once some goal has had a fruitless attempt. Where random inputs keep
//! covering goals that the directed searches reach slowly (conjunctions of loose inequalities,
//! goals behind deceptive distances), exploration soon takes half of the executions; where it finds
//! nothing (equalities, flags), its share stays at the floor. The floors bound the loss against
//! random testing: a goal random testing covers in N executions is covered by `auto` in at most
//! about N / [`START_SHARE`] executions (N / [`MIN_SHARE`] once some goal has stalled), and in
//! about N / [`MAX_SHARE`] where exploration pays.
//!
//! Exploration's inputs also become goals' best inputs when they are closer, so the directed
//! searches start from them. On programs that AVM covers at once (comp(n, c) with c = 1, a
//! handful of executions) the floor costs about one execution; elsewhere the interleaving shifts
//! which inputs the directed searches start from, a cost or a gain of tens of percent either way
//! (README, "The whole benchmark").
//!
//! Algorithm portfolios: Gomes & Selman (2001). The havoc share follows what coverage-guided
//! fuzzers do all the time (Zalewski's AFL); the random share is the baseline every search must
//! beat.

use super::context::Interleaved;
use super::{Algorithm, AlgorithmSpec, Attempt, GoalSearch, SearchConfig, SearchContext};
use anyhow::Result;
use std::cell::RefCell;
use std::collections::HashMap;
use std::rc::Rc;

pub const SPEC: AlgorithmSpec = AlgorithmSpec {
    name: "auto",
    about: "portfolio: AVM, then havoc, then GA on a goal that stops improving; random and havoc exploration, with a share that follows what it covers",
    build: |c| Algorithm::PerGoal(Box::new(Portfolio::new(c))),
};

/// Largest share of all executions that exploration takes.
pub const MAX_SHARE: f64 = 0.5;
/// Least share of all executions kept for exploration once some goal has had a fruitless attempt.
pub const MIN_SHARE: f64 = 0.1;
/// Least share of all executions kept for exploration from the start, so that it can show what
/// it buys.
pub const START_SHARE: f64 = 0.05;
/// Executions of prior belief in each side's rate of new goals: the directed side starts as if
/// it had covered one goal in this many executions, exploration as if it had covered none.
pub const PRIOR: f64 = 10.0;

/// The names of [`Portfolio::new`]'s searches, in order (for the search trace).
const SEARCHES: [&str; 3] = ["avm", "havoc", "ga"];

/// See module docs.
pub struct Portfolio {
    searches: Vec<Box<dyn GoalSearch>>,
    /// Index into `searches` of the search each goal is with.
    stage: HashMap<usize, usize>,
    explorer: Rc<RefCell<Explorer>>,
}

/// Executions and goals covered by one side of the portfolio.
#[derive(Default, Debug, Clone, Copy)]
struct Side {
    execs: f64,
    covered: f64,
}

impl Side {
    /// The side's rate of new goals per execution, estimated with `prior` goals in [`PRIOR`]
    /// executions added, and its variance (Poisson: the mean over the executions).
    fn rate(&self, prior: f64) -> (f64, f64) {
        let n = self.execs + PRIOR;
        ((self.covered + prior) / n, (self.covered + 1.0) / (n * n))
    }
}

/// The exploration share's state (see module docs).
#[derive(Debug)]
struct Explorer {
    directed: Side,
    exploration: Side,
    /// Least share: [`START_SHARE`], or [`MIN_SHARE`] once some goal has had a fruitless attempt.
    floor: f64,
    /// Exploration's evaluations (cache hits count one, so that exploration always ends).
    explored: u64,
    /// Executions and covered goals when exploration last ended.
    mark: (u64, usize),
}

impl Default for Explorer {
    fn default() -> Self {
        Explorer {
            directed: Side::default(),
            exploration: Side::default(),
            floor: START_SHARE,
            explored: 0,
            mark: (0, 0),
        }
    }
}

impl Explorer {
    /// The probability that exploration's rate of new goals is above the directed side's, under
    /// normal approximations of both estimates (see module docs), within [floor, MAX_SHARE]; the
    /// floor until exploration has covered a goal (with no goal covered on either side, the
    /// approximation would still give it about a quarter).
    fn share(&self) -> f64 {
        if self.exploration.covered == 0.0 {
            return self.floor;
        }
        let (md, vd) = self.directed.rate(1.0);
        let (me, ve) = self.exploration.rate(0.0);
        let z = (me - md) / (vd + ve).sqrt();
        // the normal distribution function, by its logistic approximation (error < 0.01)
        let p = 1.0 / (1.0 + (-1.702 * z).exp());
        p.clamp(self.floor, MAX_SHARE)
    }

    /// Credit the directed side with what happened since the last call, then explore while
    /// exploration is behind its share.
    fn run(&mut self, cx: &mut SearchContext) -> Result<()> {
        let (n, c) = (cx.executions(), cx.archive().n_covered());
        self.directed.execs += n.saturating_sub(self.mark.0) as f64;
        self.directed.covered += c.saturating_sub(self.mark.1) as f64;
        while !cx.finished() && (self.explored as f64) < self.share() * cx.executions() as f64 {
            let (n0, c0) = (cx.executions(), cx.archive().n_covered());
            let label = cx.tracing().then(|| {
                cx.set_label(if self.explored % 2 == 0 {
                    "explore random"
                } else {
                    "explore havoc"
                })
            });
            let x = if self.explored % 2 == 0 {
                cx.random_input()
            } else {
                let p = super::havoc::archive_input(cx);
                super::havoc::mutant(cx, &p)
            };
            cx.evaluate(&x)?;
            if let Some(l) = label {
                cx.set_label(l);
            }
            self.explored += 1;
            self.exploration.execs += (cx.executions() - n0) as f64;
            self.exploration.covered += cx.archive().n_covered().saturating_sub(c0) as f64;
        }
        self.mark = (cx.executions(), cx.archive().n_covered());
        Ok(())
    }
}

/// The explorer as the context's hook between the directed search's executions.
struct Hook(Rc<RefCell<Explorer>>);

impl Interleaved for Hook {
    fn between(&mut self, cx: &mut SearchContext) -> Result<()> {
        self.0.borrow_mut().run(cx)
    }
}

impl Portfolio {
    pub fn new(c: &SearchConfig) -> Portfolio {
        let ga: Box<dyn GoalSearch> = Box::new(super::ga::preset(c));
        Portfolio {
            searches: vec![Box::new(super::avm::Avm), Box::new(super::havoc::Havoc), ga],
            stage: HashMap::new(),
            explorer: Rc::default(),
        }
    }
}

impl GoalSearch for Portfolio {
    /// One attempt of the goal's current search, with exploration interleaved between its
    /// executions while exploration is behind its share.
    fn attempt(&mut self, cx: &mut SearchContext, goal: usize) -> Result<()> {
        let s = *self.stage.get(&goal).unwrap_or(&0);
        self.explorer.borrow_mut().run(cx)?;
        if cx.is_covered(goal) || cx.finished() {
            return Ok(());
        }
        if cx.tracing() {
            cx.set_label(format!("{} goal {goal}", SEARCHES[s]));
        }
        let before = cx.set_interleaved(Some(Box::new(Hook(self.explorer.clone()))));
        let r = self.searches[s].attempt(cx, goal);
        cx.set_interleaved(before);
        r
    }

    fn after_attempt(
        &mut self,
        _cx: &mut SearchContext,
        goal: usize,
        attempt: Attempt,
    ) -> Result<()> {
        if !attempt.improved {
            self.explorer.borrow_mut().floor = MIN_SHARE;
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
                r.branch(
                    0,
                    0,
                    if x == 12_345 {
                        &[0.0, 1.0]
                    } else {
                        &[1.0, 0.0]
                    },
                );
            }),
        };
        let r = run_with(&d, sc, SearchConfig::default(), 3, 1_000_000, |cx| {
            drive(cx, &mut Portfolio::new(&SearchConfig::default())).unwrap()
        });
        assert_eq!(r.covered, 2, "{r:?}");
    }

    /// Goals random testing hits at once while branch distance misleads the directed searches:
    /// twelve fields must each be at least 700 in 0..=1000, and the distance reported for it
    /// falls as the field falls (deceptive). Random inputs cover each with probability 0.3, so
    /// random testing needs a dozen or two executions; an AVM attempt follows the distance down
    /// to 0 and spends its whole patience (1,000 evaluations) there. The share that follows what
    /// exploration covers takes them all in a few hundred executions (before, exploration began
    /// only after that first fruitless attempt).
    #[test]
    fn exploration_that_covers_goals_gets_its_share_at_once() {
        let names: Vec<String> = (0..12).map(|i| format!("x{i}")).collect();
        let names: Vec<&str> = names.iter().map(String::as_str).collect();
        let d = Domain {
            init: InitMode::Uniform,
            ..ints(&names, Some((0, 1_000)))
        };
        for seed in 1..=5 {
            let sc = Scenario {
                sites: 12,
                outcomes: 24,
                goals: (0..12u32).flat_map(|i| branch_goals(i, vec![])).collect(),
                program: Box::new(|v: &[Value], r: &mut MockRun| {
                    for (i, x) in v.iter().enumerate() {
                        let x = x.as_i128();
                        let dists = if x >= 700 {
                            [0.0, 1.0]
                        } else {
                            [x as f64 / 1_000.0 + 0.001, 0.0]
                        };
                        r.branch(i as u32, 2 * i as u32, &dists);
                    }
                }),
            };
            let r = run_with(&d, sc, SearchConfig::default(), seed, 600, |cx| {
                drive(cx, &mut Portfolio::new(&SearchConfig::default())).unwrap()
            });
            assert_eq!(r.covered, 24, "seed {seed}: {r:?}");
        }
    }

    /// The share: at the floor while exploration covers nothing and the directed side does, at
    /// most [`MAX_SHARE`] when exploration covers goals faster, and never below [`MIN_SHARE`] once
    /// some goal has had a fruitless attempt.
    #[test]
    fn the_share_follows_what_each_side_covers() {
        let mut e = Explorer::default();
        e.directed = Side {
            execs: 100.0,
            covered: 20.0,
        };
        e.exploration = Side {
            execs: 10.0,
            covered: 0.0,
        };
        assert_eq!(e.share(), START_SHARE);
        e.floor = MIN_SHARE;
        assert_eq!(e.share(), MIN_SHARE);
        e.directed = Side {
            execs: 500.0,
            covered: 5.0,
        };
        e.exploration = Side {
            execs: 100.0,
            covered: 20.0,
        };
        assert_eq!(e.share(), MAX_SHARE);
        e.exploration = Side {
            execs: 100.0,
            covered: 1.0,
        };
        let s = e.share();
        assert!(s > MIN_SHARE && s < MAX_SHARE, "{s}");
    }

    /// The switch to havoc: `x` must be NaN, which AVM's moves never produce from a uniform start
    /// (and the distance of `isnan` is flat).
    #[test]
    fn a_stalled_goal_moves_on_to_havoc() {
        let d = Domain {
            init: InitMode::Uniform,
            ..Domain::packed(vec![Field::full("x", ScalarType::F64)])
        };
        let sc = Scenario {
            sites: 1,
            outcomes: 2,
            goals: branch_goals(0, vec![]),
            program: Box::new(|v: &[Value], r: &mut MockRun| {
                r.branch(
                    0,
                    0,
                    if v[0].as_f64().is_nan() {
                        &[0.0, 1.0]
                    } else {
                        &[1.0, 0.0]
                    },
                );
            }),
        };
        let r = run_with(&d, sc, SearchConfig::default(), 4, 100_000, |cx| {
            drive(cx, &mut Portfolio::new(&SearchConfig::default())).unwrap()
        });
        assert_eq!(r.covered, 2, "{r:?}");
    }
}
