//! A genetic algorithm over typed fields, one goal at a time: a preset of the evolutionary loop
//! ([`super::evolve`]).
//!
//! Defaults and their sources:
//! * population 50 (EvoSuite `population`), seeded with the best input known for the goal and the
//!   caller's [`super::SearchContext::seeds`] (at most half), then random inputs;
//! * linear rank selection with bias 1.7 (Whitley 1989; EvoSuite `rank_bias`; McMinn & Holcombe's
//!   EA);
//! * single-point crossover between fields with probability 0.75 (EvoSuite `crossover_rate`);
//! * each field mutated with probability 1/n (at least one field per child): 60% scale-free
//!   Gaussian (σ = 10^k, k uniform over the range's orders of magnitude), 20% a boundary value or
//!   a program constant (Anjum & Ryan's constant seeding), 20% a fresh random value (with
//!   `--init uniform`, the boundary/constant share goes to fresh random values too);
//! * elitism of 1 (EvoSuite `elite`).
//!
//! An attempt ends when the goal is covered, after `patience` evaluations without improving the
//! best fitness of the attempt, or when the budget is spent.

use super::evolve::{Crossover, Evolution, Mutation, Never, Rank, Representation};
use super::{Algorithm, AlgorithmSpec, SearchConfig, SearchContext};
use crate::input::{Input, Range, Value};
use rand::Rng;

pub const SPEC: AlgorithmSpec = AlgorithmSpec {
    name: "ga",
    about: "genetic algorithm: typed fields, rank selection, single-point crossover, Gaussian and boundary mutation, elitism",
    build: |c: &SearchConfig| Algorithm::PerGoal(Box::new(preset(c))),
};

/// Whitley's linear ranking bias.
pub const RANK_BIAS: f64 = 1.7;
/// Probability of crossover.
pub const CROSSOVER_RATE: f64 = 0.75;
/// Individuals copied unchanged into the next generation.
pub const ELITE: usize = 1;

/// The `ga` preset.
pub fn preset(c: &SearchConfig) -> Evolution<Input> {
    Evolution {
        repr: Box::new(Typed),
        selection: Box::new(Rank::new(RANK_BIAS)),
        crossover: Box::new(OnePoint {
            rate: CROSSOVER_RATE,
        }),
        mutation: Box::new(FieldMutation),
        stopping: Box::new(Never),
        islands: 1,
        island_size: c.population.max(2),
        elite: ELITE,
        migration: None,
        patience: true,
        use_seeds: true,
        start_from_best: true,
        alternate_start: false,
        tries: Default::default(),
        restart: None,
        tie_break: false,
    }
}

/// Genomes are inputs, varied field by field.
pub struct Typed;

impl Representation for Typed {
    type Genome = Input;

    fn random(&self, cx: &mut SearchContext) -> Input {
        cx.random_input()
    }

    fn encode(&self, _cx: &SearchContext, x: &Input) -> Input {
        x.clone()
    }

    fn decode(&self, _cx: &SearchContext, g: &Input) -> Input {
        g.clone()
    }
}

/// Single-point crossover between fields: with probability `rate`, the fields after a random cut
/// are swapped; otherwise the children are copies of the parents.
pub struct OnePoint {
    pub rate: f64,
}

impl Crossover<Input> for OnePoint {
    fn cross(&mut self, cx: &mut SearchContext, a: &Input, b: &Input) -> Vec<Input> {
        let fields = &cx.domain.fields;
        let n = fields.len();
        if n < 2 || cx.rng.random::<f64>() >= self.rate {
            return vec![a.clone(), b.clone()];
        }
        let cut = cx.rng.random_range(1..n);
        let (mut c1, mut c2) = (a.clone(), b.clone());
        for f in &fields[cut..] {
            let r = f.bytes();
            if r.end <= a.bytes.len() && r.end <= b.bytes.len() {
                c1.bytes[r.clone()].copy_from_slice(&b.bytes[r.clone()]);
                c2.bytes[r.clone()].copy_from_slice(&a.bytes[r]);
            }
        }
        vec![c1, c2]
    }
}

/// Each field mutated with probability 1/n, at least one (see module docs).
pub struct FieldMutation;

impl Mutation<Input> for FieldMutation {
    fn mutate(&mut self, cx: &mut SearchContext, x: &mut Input) {
        let n = cx.domain.fields.len();
        let p = 1.0 / n as f64;
        let mut changed = false;
        for i in 0..n {
            if cx.rng.random::<f64>() < p {
                mutate_field(cx, x, i);
                changed = true;
            }
        }
        if !changed && n > 0 {
            let i = cx.rng.random_range(0..n);
            mutate_field(cx, x, i);
        }
    }
}

fn mutate_field(cx: &mut SearchContext, x: &mut Input, i: usize) {
    let d = cx.domain;
    let r: f64 = cx.rng.random();
    let v = if r < 0.6 {
        let (lo, hi) = match d.fields[i].range {
            Range::Int { lo, hi } => (lo as f64, hi as f64),
            Range::Float { lo, hi } => (lo, hi),
        };
        let width = (hi - lo).abs().max(1.0);
        let top = width.log10().min(300.0);
        let bottom = if d.fields[i].ty.is_float() {
            d.fields[i].step.map_or(-6.0, |s| s.log10())
        } else {
            0.0
        };
        let k = cx.rng.random_range(bottom..=top.max(bottom));
        let sigma = 10f64.powf(k);
        // Box–Muller
        let u1: f64 = cx.rng.random::<f64>().max(1e-300);
        let u2: f64 = cx.rng.random();
        let z = (-2.0 * u1.ln()).sqrt() * (2.0 * std::f64::consts::PI * u2).cos();
        match d.get(x, i) {
            Value::Int(v) => {
                Value::Int(v.saturating_add((z * sigma).round().clamp(-1e38, 1e38) as i128))
            }
            Value::Float(f) => Value::Float(f + z * sigma),
        }
    } else if r < 0.8 && d.biased() {
        if cx.rng.random_bool(0.5) {
            let b = d.boundary_values(i);
            b[cx.rng.random_range(0..b.len())]
        } else {
            d.constant_value(i, &mut cx.rng)
                .unwrap_or_else(|| d.sample_value(i, &mut cx.rng))
        }
    } else {
        d.sample_value(i, &mut cx.rng)
    };
    d.set(x, i, v);
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::search::testkit::*;

    /// The GA preset covers both outcomes of a conjunction over a small range.
    #[test]
    fn the_ga_covers_a_conjunction() {
        let d = ints(&["x", "y"], Some((-100, 100)));
        let r = run_algorithm(
            "ga",
            &d,
            conj_landscape(12, -7),
            SearchConfig::default(),
            2,
            100_000,
        );
        assert_eq!(r.covered, r.goals, "{r:?}");
    }

    /// Crossover swaps whole fields after the cut and never splits one.
    #[test]
    fn crossover_swaps_whole_fields() {
        let d = ints(&["a", "b", "c"], None);
        let a = d.from_values(&[Value::Int(1), Value::Int(2), Value::Int(3)]);
        let b = d.from_values(&[Value::Int(-1), Value::Int(-2), Value::Int(-3)]);
        let r = run_with(
            &d,
            eq_landscape(vec![0, 0, 0]),
            SearchConfig::default(),
            1,
            10,
            |cx| {
                let mut x = OnePoint { rate: 1.0 };
                for _ in 0..20 {
                    let kids = x.cross(cx, &a, &b);
                    let (p, q) = (d.values(&kids[0]), d.values(&kids[1]));
                    let cut = p.iter().position(|v| v.as_i128() < 0).unwrap();
                    assert!((1..3).contains(&cut));
                    assert!(
                        p[cut..].iter().all(|v| v.as_i128() < 0)
                            && q[cut..].iter().all(|v| v.as_i128() > 0)
                    );
                }
            },
        );
        assert_eq!(r.executions, 0);
    }
}
