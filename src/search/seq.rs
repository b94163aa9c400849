//! `seq`, the default search of API testing (`evotest run --api`): a portfolio of four ways to
//! make a call sequence, each execution given to one of them in proportion to what it has
//! recently covered (every one keeps at least a tenth, so none is starved):
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

use super::randoop::{extend, harvest, Entry, Pool};
use super::{Algorithm, AlgorithmSpec, Search, SearchContext};
use crate::exec::ExitKind;
use crate::input::sequence::{self, Call, ValuePools};
use crate::input::Input;
use anyhow::{anyhow, Result};
use rand::Rng;

pub const SPEC: AlgorithmSpec = AlgorithmSpec {
    name: "seq",
    about: "call sequences (with --api, the default): random, Randoop extension, havoc and a branch-distance-directed EA, shared by yield",
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

/// Recent yield of one way: goals newly covered and executions, both decayed.
#[derive(Clone, Copy, Default)]
struct Yield {
    covered: f64,
    execs: f64,
}

/// The directed way's attempt in progress.
struct Attempt {
    goal: usize,
    fitness: f64,
    since: u32,
}

impl Search for Seq {
    fn run(&mut self, cx: &mut SearchContext) -> Result<()> {
        let m = cx.domain.sequence.clone().ok_or_else(|| anyhow!("seq builds call sequences: use it with --api"))?;
        let mut pools = ValuePools::of(cx.domain);
        let (base_ints, base_floats) = (pools.ints.len(), pools.floats.len());
        let mut pool = Pool::new(m.handle_types.len());
        let mut yields = [Yield::default(); 4];
        let mut attempt: Option<Attempt> = None;
        // goals whose attempt failed, retried once every open goal has had one
        let mut waiting: Vec<usize> = Vec::new();
        while !cx.finished() {
            let open = cx.open_goals();
            let directable: Vec<usize> =
                open.iter().copied().filter(|g| cx.best(*g).is_some_and(|b| b.0.is_finite()) && !waiting.contains(g)).collect();
            if directable.is_empty() && !waiting.is_empty() {
                waiting.clear();
            }
            let way = pick(&yields, !directable.is_empty() || attempt.is_some(), !cx.archive().tests.is_empty(), &mut cx.rng);
            let calls: Vec<Call> = match way {
                Way::Random => sequence::random_sequence(&m, &pools, &mut cx.rng),
                Way::Randoop => match extend(&m, &pool, &pools, &mut cx.rng) {
                    Some(c) => c,
                    None => sequence::random_sequence(&m, &pools, &mut cx.rng),
                },
                Way::Havoc => {
                    let n = cx.archive().tests.len();
                    let (i, j) = (cx.rng.random_range(0..n), cx.rng.random_range(0..n));
                    let a = m.parse(&cx.archive().tests[i].input.bytes);
                    let b = m.parse(&cx.archive().tests[j].input.bytes);
                    sequence::mutate(&m, &a, Some(&b), &pools, &mut cx.rng)
                }
                Way::Directed => {
                    if attempt.as_ref().is_none_or(|a| cx.is_covered(a.goal) || a.since >= ATTEMPT) {
                        if let Some(a) = attempt.take().filter(|a| !cx.is_covered(a.goal)) {
                            waiting.push(a.goal);
                        }
                        let candidates: Vec<usize> = directable.iter().copied().filter(|g| !waiting.contains(g)).collect();
                        if candidates.is_empty() {
                            continue;
                        }
                        let g = candidates[cx.rng.random_range(0..candidates.len())];
                        let f = cx.best(g).map_or(f64::INFINITY, |b| b.0);
                        attempt = Some(Attempt { goal: g, fitness: f, since: 0 });
                    }
                    let a = attempt.as_ref().expect("set above");
                    let parent = cx.best(a.goal).map(|b| m.parse(&b.1.bytes)).unwrap_or_default();
                    let n = cx.archive().tests.len();
                    let other = (n > 0).then(|| cx.rng.random_range(0..n)).map(|i| m.parse(&cx.archive().tests[i].input.bytes));
                    sequence::mutate(&m, &parent, other.as_deref(), &pools, &mut cx.rng)
                }
            };
            let covered_before = cx.archive().n_covered();
            let bytes = m.encode(&calls);
            let ev = cx.evaluate(&Input::new(bytes.clone()))?;
            harvest(&ev, &mut pools, base_ints, base_floats);
            if ev.exit == ExitKind::Ok {
                let live = m.live_after_with(&calls, sequence::null_mask(ev.ret.as_ref())).iter().map(Vec::len).collect();
                pool.add(Entry { bytes, live, nulls: sequence::null_mask(ev.ret.as_ref()) }, &mut cx.rng);
            }
            let gained = (cx.archive().n_covered() - covered_before) as f64;
            let i = WAYS.iter().position(|w| *w == way).expect("a way");
            for y in yields.iter_mut() {
                y.covered *= 0.999;
                y.execs *= 0.999;
            }
            yields[i].covered += gained;
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

/// The way of the next execution: each with probability [`FLOOR`], the rest in proportion to its
/// recent yield (goals per execution, with a prior of one goal in a hundred executions).
fn pick<R: Rng>(y: &[Yield; 4], directed: bool, havoc: bool, rng: &mut R) -> Way {
    let ok = |w: Way| match w {
        Way::Directed => directed,
        Way::Havoc => havoc,
        _ => true,
    };
    let rate: Vec<f64> = WAYS.iter().zip(y).map(|(w, y)| if ok(*w) { (y.covered + 0.01) / (y.execs + 1.0) } else { 0.0 }).collect();
    let total: f64 = rate.iter().sum();
    let n_ok = WAYS.iter().filter(|w| ok(**w)).count() as f64;
    let weights: Vec<f64> = WAYS
        .iter()
        .zip(&rate)
        .map(|(w, r)| if ok(*w) { FLOOR + (1.0 - FLOOR * n_ok) * r / total } else { 0.0 })
        .collect();
    let mut x = rng.random::<f64>() * weights.iter().sum::<f64>();
    for (w, p) in WAYS.iter().zip(&weights) {
        if x < *p {
            return *w;
        }
        x -= p;
    }
    Way::Random
}

#[cfg(test)]
mod tests {
    use super::*;
    use rand::SeedableRng;

    #[test]
    fn every_way_keeps_a_share_and_the_productive_one_gets_more() {
        let mut rng = rand_chacha::ChaCha8Rng::seed_from_u64(2);
        let mut y = [Yield::default(); 4];
        y[2] = Yield { covered: 10.0, execs: 100.0 };
        y[0] = Yield { covered: 0.0, execs: 1000.0 };
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
}
