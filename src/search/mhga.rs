//! The evolutionary algorithm of McMinn & Holcombe's experiments (seed 002 §6), for reproducing
//! them: the parameters of Wegener et al.'s evolutionary test environment that they used.
//!
//! * 300 individuals in 6 subpopulations of 50;
//! * linear ranking with selective pressure 1.7 within each subpopulation;
//! * migration: every 20 generations each subpopulation's best individual replaces the worst of
//!   the next one (a ring);
//! * discrete (uniform) recombination, and the breeder GA mutation of Mühlenbein &
//!   Schlierkamp-Voosen (1993), GEATbx's `mutbga`, which Wegener et al.'s environment used: a gene
//!   mutated (probability 1/n) moves by ±0.1 · range · Σ αᵢ 2⁻ⁱ (i = 0…p−1, each αᵢ = 1 with
//!   probability 1/p), a step that is log-uniform from a tenth of the range down to its 2⁻⁽ᵖ⁻¹⁾.
//!   GEATbx's default precision is p = 16; here p is chosen so that the smallest step reaches the
//!   gene's resolution (1 for integers, the precision step for floats such as seed 002's 0.001;
//!   16 for floats without one), or the special value 0 of the flag programs could not be hit;
//! * one elite per subpopulation;
//! * one attempt stops when the goal is covered, after 200 generations (`mhga`), or after 50
//!   generations without improvement of the best fitness (`mhga50`, the paper's second stopping
//!   rule).
//!
//! Not reproduced: the *competition* between subpopulations (moving individuals to the more
//! successful ones), which the paper names without giving its parameters.

use super::ga::{rank_select, RANK_BIAS};
use super::{AlgorithmSpec, GoalSearch, Search, SearchContext};
use crate::input::{Input, Range, Value};
use anyhow::Result;
use rand::Rng;

/// Discrete recombination: each gene from either parent with probability 1/2.
fn discrete(cx: &mut SearchContext, a: &Input, b: &Input) -> Input {
    Input { values: a.values.iter().zip(&b.values).map(|(x, y)| if cx.rng.random_bool(0.5) { *x } else { *y }).collect() }
}

/// Breeder GA mutation (`mutbga`, precision 16).
fn breeder(cx: &mut SearchContext, x: &mut Input) {
    let n = x.values.len();
    for i in 0..n {
        if cx.rng.random::<f64>() >= 1.0 / n as f64 {
            continue;
        }
        let g = &cx.domain.genes[i];
        let width = match g.range {
            Range::Int { lo, hi } => (hi - lo) as f64,
            Range::Float { lo, hi } => (hi - lo).min(f64::MAX),
        };
        let unit = match g.range {
            Range::Int { .. } => Some(1.0),
            Range::Float { .. } => g.step,
        };
        let precision = match unit {
            Some(u) => ((0.1 * width / u).max(1.0).log2().ceil() as i32 + 1).clamp(1, 60),
            None => 16,
        };
        let p = 1.0 / precision as f64;
        let delta: f64 = (0..precision).filter(|_| cx.rng.random::<f64>() < p).map(|k| 2f64.powi(-k)).sum();
        let sign = if cx.rng.random_bool(0.5) { 1.0 } else { -1.0 };
        let step = sign * 0.1 * width * delta;
        let v = match x.values[i] {
            Value::Int(v) => Value::Int(v.saturating_add(step.round().clamp(-1e38, 1e38) as i128)),
            Value::Float(f) => Value::Float(f + step),
        };
        x.values[i] = cx.domain.normalise(i, v);
    }
}

pub const SPEC_200: AlgorithmSpec = AlgorithmSpec {
    name: "mhga",
    about: "seed 002's EA: 6 subpopulations of 50, linear ranking 1.7, migration; 200 generations per attempt",
    build: |_| Box::new(MhGa { stall: None }),
};

pub const SPEC_50: AlgorithmSpec = AlgorithmSpec {
    name: "mhga50",
    about: "seed 002's EA, stopping an attempt after 50 generations without improvement",
    build: |_| Box::new(MhGa { stall: Some(50) }),
};

/// Subpopulations and their size.
pub const SUBPOPULATIONS: usize = 6;
pub const SUBPOPULATION_SIZE: usize = 50;
/// Generations per attempt (first stopping rule).
pub const GENERATIONS: u32 = 200;
/// Migration interval, in generations.
pub const MIGRATION_INTERVAL: u32 = 20;

pub struct MhGa {
    /// Stop after this many generations without improvement (second stopping rule).
    stall: Option<u32>,
}

type Pop = Vec<(Input, f64)>;

impl MhGa {
    /// Evaluate `x` for `goal`; `None` when the attempt must end (covered or out of budget).
    fn eval(cx: &mut SearchContext, goal: usize, x: &Input) -> Result<Option<(Input, f64)>> {
        if cx.out_of_budget() {
            return Ok(None);
        }
        let ev = cx.evaluate(x)?;
        let f = cx.fitness(goal, &ev);
        if cx.is_covered(goal) {
            return Ok(None);
        }
        Ok(Some((ev.input, f)))
    }
}

impl GoalSearch for MhGa {
    fn attempt(&mut self, cx: &mut SearchContext, goal: usize) -> Result<()> {
        let mut pops: Vec<Pop> = Vec::with_capacity(SUBPOPULATIONS);
        let mut seed = cx.best(goal).map(|b| b.1.clone());
        for _ in 0..SUBPOPULATIONS {
            let mut pop = Vec::with_capacity(SUBPOPULATION_SIZE);
            while pop.len() < SUBPOPULATION_SIZE {
                let x = seed.take().unwrap_or_else(|| cx.random_input());
                let Some(ind) = Self::eval(cx, goal, &x)? else { return Ok(()) };
                pop.push(ind);
            }
            pops.push(pop);
        }
        let best_of = |pops: &[Pop]| pops.iter().flatten().map(|p| p.1).fold(f64::INFINITY, f64::min);
        let mut best = best_of(&pops);
        let mut stalled = 0;
        for generation in 1..=GENERATIONS {
            for pop in pops.iter_mut() {
                pop.sort_by(|a, b| a.1.total_cmp(&b.1));
                let mut next: Pop = vec![pop[0].clone()];
                while next.len() < SUBPOPULATION_SIZE {
                    let p1 = rank_select(pop.len(), RANK_BIAS, &mut cx.rng);
                    let p2 = rank_select(pop.len(), RANK_BIAS, &mut cx.rng);
                    let mut c = discrete(cx, &pop[p1].0, &pop[p2].0);
                    breeder(cx, &mut c);
                    let Some(ind) = Self::eval(cx, goal, &c)? else { return Ok(()) };
                    next.push(ind);
                }
                *pop = next;
            }
            if generation % MIGRATION_INTERVAL == 0 {
                let bests: Vec<(Input, f64)> = pops
                    .iter()
                    .map(|p| p.iter().min_by(|a, b| a.1.total_cmp(&b.1)).cloned().unwrap())
                    .collect();
                for (i, migrant) in bests.into_iter().enumerate() {
                    let to = &mut pops[(i + 1) % SUBPOPULATIONS];
                    let worst = (0..to.len()).max_by(|&a, &b| to[a].1.total_cmp(&to[b].1)).unwrap();
                    to[worst] = migrant;
                }
            }
            let now = best_of(&pops);
            if now < best {
                best = now;
                stalled = 0;
            } else {
                stalled += 1;
                if self.stall.is_some_and(|s| stalled >= s) {
                    break;
                }
            }
        }
        Ok(())
    }
}

impl Search for MhGa {
    fn run(&mut self, cx: &mut SearchContext) -> Result<()> {
        super::drive(cx, self)
    }
}
