//! A genetic algorithm over typed genes, one goal at a time ([`super::GoalScheduler`]).
//!
//! Defaults and their sources:
//! * population 50 (EvoSuite `population`), seeded with the best input known for the goal and the
//!   caller's [`super::SearchContext::seeds`] (at most half), then random inputs;
//! * linear rank selection with bias 1.7 (Whitley 1989; EvoSuite `rank_bias`; seed 002's EA);
//! * single-point crossover with probability 0.75 (EvoSuite `crossover_rate`);
//! * each gene mutated with probability 1/n (at least one gene per child): 60% scale-free Gaussian
//!   (σ = 10^k, k uniform over the range's orders of magnitude), 20% a boundary value or a program
//!   constant (seed 004's constant seeding), 20% a fresh random value (with `--init uniform`, the
//!   boundary/constant share goes to fresh random values too);
//! * elitism of 1 (EvoSuite `elite`).
//!
//! An attempt ends when the goal is covered, after `patience` evaluations without improving the
//! goal's best fitness, or when the budget is spent.

use super::{AlgorithmSpec, GoalSearch, Search, SearchConfig, SearchContext};
use crate::input::{Input, Range, Value};
use anyhow::Result;
use rand::Rng;

pub const SPEC: AlgorithmSpec = AlgorithmSpec {
    name: "ga",
    about: "genetic algorithm: typed genes, rank selection, single-point crossover, Gaussian and boundary mutation, elitism",
    build: |c: &SearchConfig| Box::new(Ga::new(c)),
};

/// Whitley's linear ranking bias.
pub const RANK_BIAS: f64 = 1.7;
/// Probability of crossover.
pub const CROSSOVER_RATE: f64 = 0.75;
/// Individuals copied unchanged into the next generation.
pub const ELITE: usize = 1;

pub struct Ga {
    population: usize,
}

impl Ga {
    pub fn new(c: &SearchConfig) -> Ga {
        Ga { population: c.population.max(2) }
    }
}

/// Index into a population sorted best first, by linear ranking (Whitley 1989), as EvoSuite's
/// `RankSelection`.
pub fn rank_select<R: Rng>(n: usize, bias: f64, rng: &mut R) -> usize {
    let r: f64 = rng.random();
    let x = (bias - (bias * bias - 4.0 * (bias - 1.0) * r).sqrt()) / (2.0 * (bias - 1.0));
    ((n as f64 * x) as usize).min(n - 1)
}

pub(crate) fn mutate(cx: &mut SearchContext, x: &mut Input) {
    let n = x.values.len();
    let p = 1.0 / n as f64;
    let mut changed = false;
    for i in 0..n {
        if cx.rng.random::<f64>() < p {
            mutate_gene(cx, x, i);
            changed = true;
        }
    }
    if !changed && n > 0 {
        let i = cx.rng.random_range(0..n);
        mutate_gene(cx, x, i);
    }
}

fn mutate_gene(cx: &mut SearchContext, x: &mut Input, i: usize) {
    let d = cx.domain;
    let r: f64 = cx.rng.random();
    let v = if r < 0.6 {
        let (lo, hi) = match d.genes[i].range {
            Range::Int { lo, hi } => (lo as f64, hi as f64),
            Range::Float { lo, hi } => (lo, hi),
        };
        let width = (hi - lo).abs().max(1.0);
        let top = width.log10().min(300.0);
        let bottom = if d.genes[i].ty.is_float() { d.genes[i].step.map_or(-6.0, |s| s.log10()) } else { 0.0 };
        let k = cx.rng.random_range(bottom..=top.max(bottom));
        let sigma = 10f64.powf(k);
        // Box–Muller
        let u1: f64 = cx.rng.random::<f64>().max(1e-300);
        let u2: f64 = cx.rng.random();
        let z = (-2.0 * u1.ln()).sqrt() * (2.0 * std::f64::consts::PI * u2).cos();
        match x.values[i] {
            Value::Int(v) => Value::Int(v.saturating_add((z * sigma).round().clamp(-1e38, 1e38) as i128)),
            Value::Float(f) => Value::Float(f + z * sigma),
        }
    } else if r < 0.8 && d.biased() {
        if cx.rng.random_bool(0.5) {
            let b = d.boundary_values(i);
            b[cx.rng.random_range(0..b.len())]
        } else {
            d.constant_value(i, &mut cx.rng).unwrap_or_else(|| d.sample_value(i, &mut cx.rng))
        }
    } else {
        d.sample_value(i, &mut cx.rng)
    };
    x.values[i] = d.normalise(i, v);
}

pub(crate) fn crossover(cx: &mut SearchContext, a: &Input, b: &Input) -> (Input, Input) {
    let n = a.values.len();
    if n < 2 || cx.rng.random::<f64>() >= CROSSOVER_RATE {
        return (a.clone(), b.clone());
    }
    let cut = cx.rng.random_range(1..n);
    let mut c1 = a.clone();
    let mut c2 = b.clone();
    c1.values[cut..].copy_from_slice(&b.values[cut..]);
    c2.values[cut..].copy_from_slice(&a.values[cut..]);
    (c1, c2)
}

impl Ga {
    /// Evolve for `goal`; returns when covered, impatient or out of budget.
    fn attempt(&mut self, cx: &mut SearchContext, goal: usize) -> Result<()> {
        let mut pop: Vec<(Input, f64)> = Vec::with_capacity(self.population);
        let mut best_seen = f64::INFINITY;
        let mut since = 0u64;
        // popped from the back: the goal's best input first, then the solutions base's inputs (at
        // most half the population) in their order
        let mut seeds = std::mem::take(&mut cx.seeds);
        seeds.truncate(self.population / 2);
        seeds.reverse();
        if let Some((_, x)) = cx.best(goal) {
            seeds.push(x.clone());
        }
        while pop.len() < self.population {
            if cx.out_of_budget() {
                return Ok(());
            }
            let x = seeds.pop().unwrap_or_else(|| cx.random_input());
            let ev = cx.evaluate(&x)?;
            let f = cx.fitness(goal, &ev);
            if cx.is_covered(goal) {
                return Ok(());
            }
            best_seen = best_seen.min(f);
            pop.push((ev.input, f));
        }
        loop {
            pop.sort_by(|a, b| a.1.total_cmp(&b.1));
            let mut next: Vec<(Input, f64)> = pop[..ELITE.min(pop.len())].to_vec();
            while next.len() < self.population {
                let p1 = rank_select(pop.len(), RANK_BIAS, &mut cx.rng);
                let p2 = rank_select(pop.len(), RANK_BIAS, &mut cx.rng);
                let (mut c1, mut c2) = crossover(cx, &pop[p1].0, &pop[p2].0);
                mutate(cx, &mut c1);
                mutate(cx, &mut c2);
                for c in [c1, c2] {
                    if next.len() >= self.population {
                        break;
                    }
                    if cx.out_of_budget() {
                        return Ok(());
                    }
                    let ev = cx.evaluate(&c)?;
                    let f = cx.fitness(goal, &ev);
                    if cx.is_covered(goal) {
                        return Ok(());
                    }
                    if f < best_seen {
                        best_seen = f;
                        since = 0;
                    } else {
                        since += 1;
                        if since >= cx.config.patience {
                            return Ok(());
                        }
                    }
                    next.push((ev.input, f));
                }
            }
            pop = next;
        }
    }
}

impl GoalSearch for Ga {
    fn attempt(&mut self, cx: &mut SearchContext, goal: usize) -> Result<()> {
        Ga::attempt(self, cx, goal)
    }
}

impl Search for Ga {
    fn run(&mut self, cx: &mut SearchContext) -> Result<()> {
        super::drive(cx, self)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use rand::SeedableRng;

    #[test]
    fn rank_selection_prefers_the_front() {
        let mut rng = rand_chacha::ChaCha8Rng::seed_from_u64(7);
        let n = 10;
        let mut counts = vec![0usize; n];
        for _ in 0..20000 {
            counts[rank_select(n, RANK_BIAS, &mut rng)] += 1;
        }
        assert!(counts[0] > counts[n - 1] * 2, "{counts:?}");
        assert!(counts.iter().all(|&c| c > 0));
    }
}
