//! `seq`, the default search of API testing (`evotest run --api`): a portfolio of four ways to
//! make a call sequence, each execution given to one of them by Thompson sampling on how often
//! its recent executions covered a new goal (every one keeps at least a tenth, so none is
//! starved; see [`pick`]):
//!
//! * **random**: an undirected random sequence ([`sequence::random_sequence`]), long and cheap;
//! * **randoop**: a feedback-directed extension of a pool sequence (Pacheco 2009; see
//!   [`super::randoop`]);
//! * **havoc**: a structure-aware mutation ([`sequence::mutate`]) of a sequence of the archive,
//!   spliced with another;
//! * **directed**: a (1+1) EA on one uncovered goal, from the sequence with its best fitness
//!   (approach level + normalised branch distance, as every evotest search), keeping a mutant
//!   that is no worse; a goal whose attempt of [`ATTEMPT`] evaluations did not improve it waits
//!   until the others had their turn. This is what branch distance adds to directed random
//!   testing: Pacheco's §6.2 turns frontier branches with the compared values; here the compared
//!   values are in the value pools, and the fitness says which mutants come closer.

use super::randoop::{extend, Entry, GrowingPools, Pool};
use super::{Algorithm, AlgorithmSpec, Search, SearchContext};
use crate::exec::ExitKind;
use crate::input::sequence::{self, Call};
use crate::input::Input;
use anyhow::{anyhow, Result};
use rand::Rng;
use rand_distr::StandardNormal;

pub const SPEC: AlgorithmSpec = AlgorithmSpec {
    name: "seq",
    about: "call sequences (with --api, the default): random, Randoop extension, havoc and a branch-distance-directed EA, shared by Thompson sampling on their yield",
    build: |_| Algorithm::Whole(Box::new(Seq)),
};

/// Evaluations of one directed attempt without improvement before it ends.
pub const ATTEMPT: u32 = 200;
/// Least share of the executions of each way.
const FLOOR: f64 = 0.1;

pub struct Seq;

#[derive(Clone, Copy, PartialEq, Eq, Debug)]
enum Way {
    Random,
    Randoop,
    Havoc,
    Directed,
}

const WAYS: [Way; 4] = [Way::Random, Way::Randoop, Way::Havoc, Way::Directed];

/// Recent yield of one way: its executions that covered at least one new goal, and all its
/// executions, both decayed (by [`DECAY`] at every execution of any way).
#[derive(Clone, Copy, Default)]
struct Yield {
    covered: f64,
    execs: f64,
}

/// Decay of every way's yield per execution: the yields follow the last few thousand executions.
const DECAY: f64 = 0.999;
/// Executions of prior belief in each way's yield: every way starts as if one of this many
/// executions had covered a goal.
const PRIOR: f64 = 10.0;

/// The directed way's attempt in progress.
struct Attempt {
    goal: usize,
    fitness: f64,
    since: u32,
}

impl Search for Seq {
    fn run(&mut self, cx: &mut SearchContext) -> Result<()> {
        let m = cx
            .domain
            .sequence
            .clone()
            .ok_or_else(|| anyhow!("seq builds call sequences: use it with --api"))?;
        let mut seen_values = GrowingPools::of(cx.domain);
        let mut pool = Pool::new(m.handle_types.len());
        let mut yields = [Yield::default(); 4];
        let mut attempt: Option<Attempt> = None;
        // goals whose attempt failed, retried once every open goal has had one
        let mut waiting: Vec<usize> = Vec::new();
        while !cx.finished() {
            let open = cx.open_goals();
            let directable: Vec<usize> = open
                .iter()
                .copied()
                .filter(|g| cx.best(*g).is_some_and(|b| b.0.is_finite()) && !waiting.contains(g))
                .collect();
            if directable.is_empty() && !waiting.is_empty() {
                waiting.clear();
            }
            let way = pick(
                &yields,
                !directable.is_empty() || attempt.is_some(),
                !cx.archive().tests.is_empty(),
                &mut cx.rng,
            );
            let calls: Vec<Call> = match way {
                Way::Random => sequence::random_sequence(&m, &seen_values.pools, &mut cx.rng),
                Way::Randoop => match extend(&m, &pool, &seen_values.pools, &mut cx.rng) {
                    Some(c) => c,
                    None => sequence::random_sequence(&m, &seen_values.pools, &mut cx.rng),
                },
                Way::Havoc => {
                    let n = cx.archive().tests.len();
                    let (i, j) = (cx.rng.random_range(0..n), cx.rng.random_range(0..n));
                    let a = m.parse(&cx.archive().tests[i].input.bytes);
                    let b = m.parse(&cx.archive().tests[j].input.bytes);
                    sequence::mutate(&m, &a, Some(&b), &seen_values.pools, &mut cx.rng)
                }
                Way::Directed => {
                    if attempt
                        .as_ref()
                        .is_none_or(|a| cx.is_covered(a.goal) || a.since >= ATTEMPT)
                    {
                        if let Some(a) = attempt.take().filter(|a| !cx.is_covered(a.goal)) {
                            waiting.push(a.goal);
                        }
                        let candidates: Vec<usize> = directable
                            .iter()
                            .copied()
                            .filter(|g| !waiting.contains(g))
                            .collect();
                        if candidates.is_empty() {
                            continue;
                        }
                        let g = candidates[cx.rng.random_range(0..candidates.len())];
                        let f = cx.best(g).map_or(f64::INFINITY, |b| b.0);
                        attempt = Some(Attempt {
                            goal: g,
                            fitness: f,
                            since: 0,
                        });
                    }
                    let a = attempt.as_ref().expect("set above");
                    let parent = cx
                        .best(a.goal)
                        .map(|b| m.parse(&b.1.bytes))
                        .unwrap_or_default();
                    let n = cx.archive().tests.len();
                    let other = (n > 0)
                        .then(|| cx.rng.random_range(0..n))
                        .map(|i| m.parse(&cx.archive().tests[i].input.bytes));
                    sequence::mutate(
                        &m,
                        &parent,
                        other.as_deref(),
                        &seen_values.pools,
                        &mut cx.rng,
                    )
                }
            };
            let covered_before = cx.archive().n_covered();
            let bytes = m.encode(&calls);
            let ev = cx.evaluate(&Input::new(bytes.clone()))?;
            seen_values.harvest(&ev);
            if ev.exit == ExitKind::Ok {
                let live = m
                    .live_after_with(&calls, sequence::null_mask(ev.ret.as_ref()))
                    .iter()
                    .map(Vec::len)
                    .collect();
                pool.add(
                    Entry {
                        bytes,
                        live,
                        nulls: sequence::null_mask(ev.ret.as_ref()),
                    },
                    &mut cx.rng,
                );
            }
            let gained = cx.archive().n_covered() > covered_before;
            let i = WAYS.iter().position(|w| *w == way).expect("a way");
            for y in yields.iter_mut() {
                y.covered *= DECAY;
                y.execs *= DECAY;
            }
            yields[i].covered += f64::from(u8::from(gained));
            yields[i].execs += 1.0;
            if way == Way::Directed {
                if let Some(a) = attempt.as_mut() {
                    let f = cx.best(a.goal).map_or(f64::INFINITY, |b| b.0);
                    if f < a.fitness {
                        a.fitness = f;
                        a.since = 0;
                    } else {
                        a.since += 1;
                    }
                }
            }
        }
        Ok(())
    }
}

/// The way of the next execution: with probability [`FLOOR`] each, a way drawn uniformly;
/// otherwise the way whose sampled yield is highest (Thompson sampling, Thompson 1933), each
/// yield sampled from a normal approximation of the posterior of its rate of productive
/// executions (productive ones plus one, over executions plus [`PRIOR`]; Poisson variance).
///
/// A rate of *productive executions* rather than of goals: the first executions of any way
/// cover many goals at once, which says little about the way, and a goal count would hand the
/// whole budget to whichever way happened to run first.
fn pick<R: Rng>(y: &[Yield; 4], directed: bool, havoc: bool, rng: &mut R) -> Way {
    let ok: Vec<usize> = (0..WAYS.len())
        .filter(|&i| match WAYS[i] {
            Way::Directed => directed,
            Way::Havoc => havoc,
            _ => true,
        })
        .collect();
    if rng.random::<f64>() < FLOOR * ok.len() as f64 {
        return WAYS[ok[rng.random_range(0..ok.len())]];
    }
    let mut best = (f64::NEG_INFINITY, Way::Random);
    for &i in &ok {
        let n = y[i].execs + PRIOR;
        let (mean, var) = ((y[i].covered + 1.0) / n, (y[i].covered + 1.0) / (n * n));
        let draw = mean + var.sqrt() * rng.sample::<f64, _>(StandardNormal);
        if draw > best.0 {
            best = (draw, WAYS[i]);
        }
    }
    best.1
}

#[cfg(test)]
mod tests {
    use super::*;
    use rand::SeedableRng;

    #[test]
    fn every_way_keeps_a_share_and_the_productive_one_gets_more() {
        let mut rng = rand_chacha::ChaCha8Rng::seed_from_u64(2);
        let mut y = [Yield::default(); 4];
        y[2] = Yield {
            covered: 10.0,
            execs: 100.0,
        };
        y[0] = Yield {
            covered: 0.0,
            execs: 1000.0,
        };
        y[1] = Yield {
            covered: 1.0,
            execs: 100.0,
        };
        y[3] = Yield {
            covered: 1.0,
            execs: 100.0,
        };
        let mut n = [0u32; 4];
        for _ in 0..10_000 {
            let w = pick(&y, true, true, &mut rng);
            n[WAYS.iter().position(|x| *x == w).unwrap()] += 1;
        }
        assert!(n.iter().all(|&k| k >= 800), "{n:?}");
        assert!(n[2] > 5_000, "{n:?}");
        // without a directed goal or an archive, neither is picked
        for _ in 0..1000 {
            let w = pick(&y, false, false, &mut rng);
            assert!(w == Way::Random || w == Way::Randoop);
        }
    }

    /// One productive execution does not hand a way the budget: after randoop's first execution
    /// covered goals and random's did not, random still gets a fair part of the next ones.
    #[test]
    fn one_lucky_execution_does_not_decide() {
        let mut rng = rand_chacha::ChaCha8Rng::seed_from_u64(5);
        let mut y = [Yield::default(); 4];
        y[1] = Yield {
            covered: 1.0,
            execs: 1.0,
        };
        y[0] = Yield {
            covered: 0.0,
            execs: 1.0,
        };
        let n = (0..10_000)
            .filter(|_| pick(&y, false, false, &mut rng) == Way::Random)
            .count();
        assert!(
            (2_500..5_000).contains(&n),
            "random picked {n} times of 10,000"
        );
    }
}
