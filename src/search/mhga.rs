//! The evolutionary algorithm of McMinn & Holcombe's experiments (2004, §6), for reproducing
//! them: the parameters of Wegener et al.'s evolutionary test environment that they used. A
//! preset of the evolutionary loop ([`super::evolve`]).
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
//!   gene's resolution (1 for integers, the precision step for floats such as McMinn & Holcombe's (2004) 0.001;
//!   16 for floats without one), or the special value 0 of the flag programs could not be hit;
//! * one elite per subpopulation;
//! * one attempt stops when the goal is covered, after 200 generations (`mhga`), or after 50
//!   generations without improvement of the best fitness (`mhga50`, the paper's second stopping
//!   rule).
//!
//! Not reproduced: the *competition* between subpopulations (moving individuals to the more
//! successful ones), which the paper names without giving its parameters.

use super::evolve::{Crossover, Evolution, Generations, Mutation, Rank};
use super::ga::{Typed, RANK_BIAS};
use super::{Algorithm, AlgorithmSpec, SearchContext};
use crate::input::{Input, Range, Value};
use rand::Rng;

/// Discrete recombination: one child, each field from either parent with probability 1/2.
pub struct Discrete;

impl Crossover<Input> for Discrete {
    fn cross(&mut self, cx: &mut SearchContext, a: &Input, b: &Input) -> Vec<Input> {
        let mut c = a.clone();
        for f in &cx.domain.fields {
            let take_b = !cx.rng.random_bool(0.5);
            let r = f.bytes();
            if take_b && r.end <= b.bytes.len() && r.end <= c.bytes.len() {
                c.bytes[r.clone()].copy_from_slice(&b.bytes[r]);
            }
        }
        vec![c]
    }
}

/// Breeder GA mutation (`mutbga`; see module docs).
pub struct Breeder;

impl Mutation<Input> for Breeder {
    fn mutate(&mut self, cx: &mut SearchContext, x: &mut Input) {
        let d = cx.domain;
        let n = d.fields.len();
        for i in 0..n {
            if cx.rng.random::<f64>() >= 1.0 / n as f64 {
                continue;
            }
            let g = &d.fields[i];
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
            let delta: f64 = (0..precision)
                .filter(|_| cx.rng.random::<f64>() < p)
                .map(|k| 2f64.powi(-k))
                .sum();
            let sign = if cx.rng.random_bool(0.5) { 1.0 } else { -1.0 };
            let step = sign * 0.1 * width * delta;
            let v = match d.get(x, i) {
                Value::Int(v) => {
                    Value::Int(v.saturating_add(step.round().clamp(-1e38, 1e38) as i128))
                }
                Value::Float(f) => Value::Float(f + step),
            };
            d.set(x, i, v);
        }
    }
}

pub const SPEC_200: AlgorithmSpec = AlgorithmSpec {
    name: "mhga",
    about: "McMinn & Holcombe's EA (2004): 6 subpopulations of 50, linear ranking 1.7, migration; 200 generations per attempt",
    build: |_| Algorithm::PerGoal(Box::new(preset(Some(GENERATIONS), None))),
};

pub const SPEC_50: AlgorithmSpec = AlgorithmSpec {
    name: "mhga50",
    about: "McMinn & Holcombe's EA (2004), stopping an attempt after 50 generations without improvement",
    build: |_| Algorithm::PerGoal(Box::new(preset(Some(GENERATIONS), Some(50)))),
};

/// Subpopulations and their size.
pub const SUBPOPULATIONS: usize = 6;
pub const SUBPOPULATION_SIZE: usize = 50;
/// Generations per attempt (first stopping rule).
pub const GENERATIONS: u32 = 200;
/// Migration interval, in generations.
pub const MIGRATION_INTERVAL: u32 = 20;

/// The preset, stopping an attempt after `max` generations or `stall` generations without
/// improvement.
pub fn preset(max: Option<u32>, stall: Option<u32>) -> Evolution<Input> {
    Evolution {
        repr: Box::new(Typed),
        selection: Box::new(Rank::new(RANK_BIAS)),
        crossover: Box::new(Discrete),
        mutation: Box::new(Breeder),
        stopping: Box::new(Generations::new(max, stall)),
        islands: SUBPOPULATIONS,
        island_size: SUBPOPULATION_SIZE,
        elite: 1,
        migration: Some(MIGRATION_INTERVAL),
        patience: false,
        use_seeds: false,
        start_from_best: true,
        alternate_start: false,
        tries: Default::default(),
        restart: None,
        tie_break: false,
    }
}

#[cfg(test)]
mod tests {
    use crate::search::testkit::*;
    use crate::search::SearchConfig;

    /// The paper preset (6 islands of 50, migration) covers a conjunction over a small range.
    #[test]
    fn the_paper_preset_covers_a_conjunction() {
        let d = ints(&["x", "y"], Some((-100, 100)));
        let r = run_algorithm(
            "mhga50",
            &d,
            conj_landscape(12, -7),
            SearchConfig::default(),
            4,
            200_000,
        );
        assert_eq!(r.covered, r.goals, "{r:?}");
    }
}
