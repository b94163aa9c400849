//! `godel`: GödelTest for call sequences (Feldt & Poulding 2013, *Finding Test Data with Specific
//! Properties via Metaheuristic Search*), with `--api`. A generator with choice points builds a
//! sequence; a **choice model** answers its choice points; steady-state differential evolution
//! tunes the model's parameters toward a property of the data it generates, here an extrinsic
//! one: the branch outcomes a sample of its sequences covers.
//!
//! The generator's choice points and their samplers (one per choice point, as the paper's):
//! * the number of calls, a `mult`: geometric, P(k) = (1 − p)·p^k, capped at `--max-calls`;
//! * each call's operation, a rule choice: a histogram over the operations callable at that point;
//! * each handle argument: the most recent value of its type with probability r, else any value
//!   alive (uniformly);
//! * scalars and strings as every sequence search draws them ([`sequence::random_args`]).
//!
//! The model is the vector (p, r, w₁ … wₙ) in [0, 1]ⁿ⁺². DE/rand/1/bin, steady state, population
//! 100, F 0.7, CR 0.5, the four parents drawn from eight consecutive members (trivial geography):
//! the paper's settings. A model's fitness is the number of goals its sample of 10 sequences
//! covers (the paper's sample size for DH04); every execution also counts for the archive.

use super::{Algorithm, AlgorithmSpec, Search, SearchContext};
#[cfg(test)]
use crate::input::sequence::Arg;
use crate::input::sequence::{self, ArgKind, Call, SequenceModel, ValuePools};
use crate::input::Input;
use anyhow::{anyhow, Result};
use rand::Rng;

pub const SPEC: AlgorithmSpec = AlgorithmSpec {
    name: "godel",
    about: "GödelTest for call sequences (Feldt & Poulding 2013): a generator's choice model tuned by differential evolution toward coverage (with --api)",
    build: |_| Algorithm::Whole(Box::new(Godel)),
};

/// DE population (Feldt & Poulding 2013).
pub const POPULATION: usize = 100;
/// DE's differential weight F and crossover rate CR (the paper's).
const F: f64 = 0.7;
const CR: f64 = 0.5;
/// Consecutive members the four parents are drawn from (trivial geography).
const RADIUS: usize = 8;
/// Sequences generated per fitness evaluation.
pub const SAMPLE: usize = 10;
/// Largest geometric parameter (a mean of 99 calls; the cap is `--max-calls` anyway).
const P_MAX: f64 = 0.99;

pub struct Godel;

/// One sequence from the generator under choice model `theta` (see module docs).
pub fn generate<R: Rng>(
    m: &SequenceModel,
    theta: &[f64],
    pools: &ValuePools,
    rng: &mut R,
) -> Vec<Call> {
    let p = theta[0] * P_MAX;
    let recent = theta[1];
    let weights = &theta[2..];
    let mut n = 0;
    while n < m.max_calls && rng.random::<f64>() < p {
        n += 1;
    }
    let mut calls: Vec<Call> = Vec::new();
    for _ in 0..n {
        let live = m.live_after(&calls);
        let counts: Vec<usize> = live.iter().map(Vec::len).collect();
        let ok: Vec<usize> = (0..m.ops.len())
            .filter(|&o| m.callable(o, &counts))
            .collect();
        let total: f64 = ok.iter().map(|&o| weights[o] + 1e-3).sum();
        let mut x = rng.random::<f64>() * total;
        let mut op = ok[ok.len() - 1];
        for &o in &ok {
            let w = weights[o] + 1e-3;
            if x < w {
                op = o;
                break;
            }
            x -= w;
        }
        let handles: Vec<u8> = m.ops[op]
            .params
            .iter()
            .filter_map(|(_, k)| match k {
                ArgKind::Handle(t) => {
                    let have = counts[*t];
                    // the pool's latest is its last (a destructor's swap-remove aside)
                    Some(if rng.random::<f64>() < recent {
                        have - 1
                    } else {
                        rng.random_range(0..have)
                    } as u8)
                }
                _ => None,
            })
            .collect();
        let args = sequence::random_args(m, op, &handles, pools, rng);
        calls.push(Call { op, args });
    }
    calls
}

impl Search for Godel {
    fn run(&mut self, cx: &mut SearchContext) -> Result<()> {
        let m = cx
            .domain
            .sequence
            .clone()
            .ok_or_else(|| anyhow!("godel generates call sequences: use it with --api"))?;
        let pools = ValuePools::of(cx.domain);
        let dims = 2 + m.ops.len();
        let goals = cx.goals();
        // the covering goals of a sample: a goal is covered only where its own site ran
        let sites: Vec<Option<u32>> = goals
            .iter()
            .map(|g| g.target_outcome().map(|(s, _)| s))
            .collect();
        let evaluate = |cx: &mut SearchContext, theta: &[f64]| -> Result<Option<f64>> {
            let mut covered = vec![false; goals.len()];
            for _ in 0..SAMPLE {
                if cx.finished() {
                    return Ok(None);
                }
                let calls = generate(&m, theta, &pools, &mut cx.rng);
                let ev = cx.evaluate(&Input::new(m.encode(&calls)))?;
                for (g, goal) in goals.iter().enumerate() {
                    if !covered[g]
                        && sites[g].is_none_or(|s| ev.trace.executed(s))
                        && goal.fitness(&ev.trace) == 0.0
                    {
                        covered[g] = true;
                    }
                }
            }
            Ok(Some(covered.iter().filter(|c| **c).count() as f64))
        };
        let mut pop: Vec<(Vec<f64>, f64)> = Vec::with_capacity(POPULATION);
        while pop.len() < POPULATION {
            let theta: Vec<f64> = (0..dims).map(|_| cx.rng.random::<f64>()).collect();
            match evaluate(cx, &theta)? {
                Some(f) => pop.push((theta, f)),
                None => return Ok(()),
            }
        }
        loop {
            // four parents from RADIUS consecutive members (the population is a ring)
            let start = cx.rng.random_range(0..POPULATION);
            let mut picks: Vec<usize> = Vec::with_capacity(4);
            while picks.len() < 4 {
                let i = (start + cx.rng.random_range(0..RADIUS)) % POPULATION;
                if !picks.contains(&i) {
                    picks.push(i);
                }
            }
            let (x, a, b, c) = (picks[0], picks[1], picks[2], picks[3]);
            let forced = cx.rng.random_range(0..dims);
            let trial: Vec<f64> = (0..dims)
                .map(|d| {
                    if d == forced || cx.rng.random::<f64>() < CR {
                        (pop[a].0[d] + F * (pop[b].0[d] - pop[c].0[d])).clamp(0.0, 1.0)
                    } else {
                        pop[x].0[d]
                    }
                })
                .collect();
            let Some(f) = evaluate(cx, &trial)? else {
                return Ok(());
            };
            if f >= pop[x].1 {
                pop[x] = (trial, f);
            }
        }
    }
}

/// Whether `calls` follow `m`'s rules: every handle argument picks a value alive (for tests).
#[cfg(test)]
fn well_formed(m: &SequenceModel, calls: &[Call]) -> bool {
    calls.iter().enumerate().all(|(i, c)| {
        let counts: Vec<usize> = m.live_after(&calls[..i]).iter().map(Vec::len).collect();
        m.callable(c.op, &counts)
            && m.ops[c.op]
                .params
                .iter()
                .zip(&c.args)
                .all(|((_, k), a)| match (k, a) {
                    (ArgKind::Handle(t), Arg::Handle(h)) => (*h as usize) < counts[*t],
                    _ => true,
                })
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use rand::SeedableRng;

    fn model() -> SequenceModel {
        crate::search::testkit::new_push_model(64)
    }

    /// The choice model decides the data: the length's parameter its mean, the weights the mix of
    /// operations, and the handle choice which value the calls take.
    #[test]
    fn the_choice_model_shapes_the_sequences() {
        let m = model();
        let mut rng = rand_chacha::ChaCha8Rng::seed_from_u64(4);
        let pools = ValuePools::default();
        let mean = |theta: &[f64], rng: &mut rand_chacha::ChaCha8Rng| {
            (0..400)
                .map(|_| generate(&m, theta, &pools, rng).len())
                .sum::<usize>() as f64
                / 400.0
        };
        let short = mean(&[0.3, 0.5, 0.5, 0.5], &mut rng);
        let long = mean(&[0.95, 0.5, 0.5, 0.5], &mut rng);
        assert!(short < 1.0 && long > 10.0, "{short} {long}");
        // mostly pushes, all onto the latest value
        let mut pushes = 0;
        let mut total = 0;
        for _ in 0..200 {
            let s = generate(&m, &[0.95, 1.0, 0.05, 1.0], &pools, &mut rng);
            assert!(well_formed(&m, &s));
            for (i, c) in s.iter().enumerate() {
                total += 1;
                if c.op == 1 {
                    pushes += 1;
                    let n = m.live_after(&s[..i])[0].len();
                    assert_eq!(
                        c.args[0],
                        Arg::Handle((n - 1) as u8),
                        "the most recent value"
                    );
                }
            }
        }
        assert!(pushes * 10 > total * 8, "{pushes} of {total}");
    }
}
