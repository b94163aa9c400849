//! Feedback-directed random testing of call sequences (Pacheco 2009, *Directed Random Testing*,
//! ch. 3; the algorithm of Randoop), for API targets (`evotest run --api`, whose domain carries a
//! [`SequenceModel`]).
//!
//! Sequences are built bottom-up from a pool of sequences that ran without fault:
//! 1. pick an operation uniformly at random;
//! 2. for each handle parameter, reuse a value of a sequence already chosen for this call, or take
//!    a pool sequence that makes a value of the needed type (its calls are prepended);
//! 3. scalars and strings are drawn fresh ([`sequence::random_scalar`]): Randoop's primitive
//!    values, the program's constants, and the values its compares were seen comparing at run
//!    time (the feedback of Pacheco's §6.2 branch-directed generation, kept as a pool);
//! 4. with probability 0.1 the call is repeated 0–100 times (Pacheco: decisive for containers),
//!    within the sequence limit;
//! 5. a sequence equal to an earlier one is discarded; the new one is executed and classified: a
//!    fault (crash, abnormal exit, out of memory) is a failing test, kept by the archive and never
//!    extended; a hang or runaway loop is illegal and discarded; otherwise it joins the pool.
//!
//! Not done (yet): Pacheco's index pruning of equal primitive values (the engine does not see
//! each call's return value during the search) and his contracts beyond "does not crash" (C has
//! no `equals`/`hashCode`).

use super::{Algorithm, AlgorithmSpec, Search, SearchContext};
use crate::exec::ExitKind;
use crate::input::sequence::{self, ArgKind, Call, SequenceModel, ValuePools};
use crate::input::Input;
use anyhow::{anyhow, Result};
use rand::Rng;
use std::collections::HashSet;

pub const SPEC: AlgorithmSpec = AlgorithmSpec {
    name: "randoop",
    about: "feedback-directed random testing of call sequences (Pacheco 2009, Randoop; with --api)",
    build: |_| Algorithm::Whole(Box::new(Randoop)),
};

/// The algorithms that search call sequences: Randoop's, and undirected random sequences (the
/// `random` baseline, whose inputs are random sequences when the domain is one of sequences).
pub const SEQUENCE_ALGORITHMS: &[&str] = &["seq", "randoop", "godel", "random"];

/// Probability of repeating the new call (Pacheco 2009, §3.4).
const REPEAT_P: f64 = 0.1;
/// Most repetitions of a repeated call.
const REPEAT_MAX: usize = 100;
/// Most pool entries kept; a new one beyond it replaces a random one (a memory bound).
const POOL_CAP: usize = 100_000;
/// Most run-time compare operands kept for scalar arguments.
pub(crate) const SEEN_VALUES_CAP: usize = 1024;
/// Candidates in a row that could not be built or were duplicates before one undirected random
/// sequence is run instead (so that a run never spins without executing).
const MAX_FRUITLESS: u32 = 1000;

pub struct Randoop;

/// A sequence of the pool: its bytes and the number of values of each handle type alive after it.
pub(crate) struct Entry {
    pub(crate) bytes: Vec<u8>,
    pub(crate) live: Vec<usize>,
    /// The calls that returned NULL ([`sequence::null_mask`]): their values are not reused
    /// (Pacheco's index pruning of null results).
    pub(crate) nulls: u64,
}

pub(crate) struct Pool {
    pub(crate) entries: Vec<Entry>,
    /// Per handle type, the entries that leave a value of it (may hold stale indices after a
    /// replacement; checked on use).
    pub(crate) by_type: Vec<Vec<usize>>,
}

impl Pool {
    /// An empty pool of sequences making values of `types` handle types.
    pub(crate) fn new(types: usize) -> Pool {
        Pool {
            entries: Vec::new(),
            by_type: vec![Vec::new(); types],
        }
    }

    pub(crate) fn add<R: Rng>(&mut self, e: Entry, rng: &mut R) {
        let i = if self.entries.len() < POOL_CAP {
            self.entries.push(e);
            self.entries.len() - 1
        } else {
            let r = rng.random_range(0..self.entries.len());
            self.entries[r] = e;
            r
        };
        for (t, &n) in self.entries[i].live.iter().enumerate() {
            if n > 0 && !self.by_type[t].contains(&i) {
                self.by_type[t].push(i);
            }
        }
    }

    /// A random entry leaving a value of type `t`.
    fn with_type<R: Rng>(&self, t: usize, rng: &mut R) -> Option<&Entry> {
        let c = &self.by_type[t];
        if c.is_empty() {
            return None;
        }
        let e = &self.entries[c[rng.random_range(0..c.len())]];
        (e.live[t] > 0).then_some(e)
    }
}

/// One new candidate sequence (steps 1–4 of the module docs), or `None` when the picked operation
/// needs a value no pool sequence makes.
pub(crate) fn extend<R: Rng>(
    m: &SequenceModel,
    pool: &Pool,
    pools: &ValuePools,
    rng: &mut R,
) -> Option<Vec<Call>> {
    let op = rng.random_range(0..m.ops.len());
    let mut calls: Vec<Call> = Vec::new();
    let mut nulls = 0u64;
    let mut handles = Vec::new();
    for (_, k) in &m.ops[op].params {
        let ArgKind::Handle(t) = k else { continue };
        let t = *t;
        let live = m.live_after_with(&calls, nulls);
        let have = live[t].len();
        let reuse = have > 0 && (pool.by_type[t].is_empty() || rng.random_bool(0.5));
        if reuse {
            handles.push(rng.random_range(0..have) as u8);
            continue;
        }
        let e = pool.with_type(t, rng)?;
        let more = m.parse(&e.bytes);
        if calls.len() + more.len() >= m.max_calls {
            if have == 0 {
                return None;
            }
            handles.push(rng.random_range(0..have) as u8);
            continue;
        }
        if calls.len() < 64 {
            nulls |= e.nulls << calls.len();
        }
        calls.extend(more);
        let after = m.live_after_with(&calls, nulls)[t].len();
        if after == 0 {
            return None;
        }
        // a value the taken sequence made (they come after the ones alive before it)
        let lo = have.min(after - 1);
        handles.push(rng.random_range(lo..after) as u8);
    }
    let args = sequence::random_args(m, op, &handles, pools, rng);
    calls.push(Call { op, args });
    if rng.random_bool(REPEAT_P) {
        let n = rng.random_range(0..=REPEAT_MAX);
        for _ in 0..n {
            if calls.len() >= m.max_calls {
                break;
            }
            let args = sequence::random_args(m, op, &handles, pools, rng);
            calls.push(Call { op, args });
        }
    }
    Some(calls)
}

/// The value pools of a sequence search: the program's constants ([`ValuePools::of`]), and after
/// them the compare operands its executions saw (the run-time half of the constants), at most
/// [`SEEN_VALUES_CAP`] of each kind, the oldest dropped first.
pub(crate) struct GrowingPools {
    pub pools: ValuePools,
    /// How many ints and floats are the program's constants (never dropped).
    base: (usize, usize),
}

impl GrowingPools {
    pub(crate) fn of(d: &crate::input::Domain) -> GrowingPools {
        let pools = ValuePools::of(d);
        let base = (pools.ints.len(), pools.floats.len());
        GrowingPools { pools, base }
    }

    /// Add the compare operands of `ev` not pooled yet.
    pub(crate) fn harvest(&mut self, ev: &crate::observe::Evaluation) {
        use crate::trace::Operand;
        let (base_ints, base_floats) = self.base;
        let pools = &mut self.pools;
        for (_, a, b) in ev.trace.operand_pairs() {
            for o in [a, b] {
                match o {
                    Operand::Int(v) => {
                        let v = v as i128;
                        if !pools.ints.contains(&v) {
                            if pools.ints.len() >= base_ints + SEEN_VALUES_CAP {
                                pools.ints.remove(base_ints);
                            }
                            pools.ints.push(v);
                        }
                    }
                    Operand::Float(f) => {
                        if !pools.floats.iter().any(|x| x.to_bits() == f.to_bits()) {
                            if pools.floats.len() >= base_floats + SEEN_VALUES_CAP {
                                pools.floats.remove(base_floats);
                            }
                            pools.floats.push(f);
                        }
                    }
                }
            }
        }
    }
}

impl Search for Randoop {
    fn run(&mut self, cx: &mut SearchContext) -> Result<()> {
        let m = cx
            .domain
            .sequence
            .clone()
            .ok_or_else(|| anyhow!("randoop builds call sequences: use it with --api"))?;
        let mut seen_values = GrowingPools::of(cx.domain);
        let mut pool = Pool::new(m.handle_types.len());
        let mut seen: HashSet<Vec<u8>> = HashSet::new();
        let mut fruitless = 0u32;
        while !cx.finished() {
            let calls = match extend(&m, &pool, &seen_values.pools, &mut cx.rng) {
                Some(c) => c,
                None if fruitless < MAX_FRUITLESS => {
                    fruitless += 1;
                    continue;
                }
                None => sequence::random_sequence(&m, &seen_values.pools, &mut cx.rng),
            };
            let bytes = m.encode(&calls);
            if !seen.insert(bytes.clone()) {
                fruitless += 1;
                if fruitless < MAX_FRUITLESS {
                    continue;
                }
            }
            fruitless = 0;
            let ev = cx.evaluate(&Input::new(bytes.clone()))?;
            seen_values.harvest(&ev);
            match ev.exit {
                ExitKind::Ok => {
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
                // a failing test (the archive keeps it) or an illegal sequence: never extended
                _ => {}
            }
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use rand::SeedableRng;

    fn model() -> SequenceModel {
        crate::search::testkit::new_push_model(16)
    }

    /// Extensions start only from values a pool sequence made, and reuse the pool's sequences.
    #[test]
    fn extensions_build_on_pool_sequences() {
        let m = model();
        let mut rng = rand_chacha::ChaCha8Rng::seed_from_u64(1);
        let mut pool = Pool::new(1);
        let pools = ValuePools::default();
        for _ in 0..20 {
            if let Some(c) = extend(&m, &pool, &pools, &mut rng) {
                assert_eq!(
                    c[0].op, 0,
                    "push needs a value, which only a pool sequence can give: {c:?}"
                );
            }
        }
        let first = vec![Call {
            op: 0,
            args: vec![],
        }];
        pool.add(
            Entry {
                bytes: m.encode(&first),
                live: vec![1],
                nulls: 0,
            },
            &mut rng,
        );
        let mut pushes = 0;
        for _ in 0..200 {
            let c = extend(&m, &pool, &pools, &mut rng).expect("buildable");
            assert!(c.len() <= m.max_calls);
            if c.last().unwrap().op == 1 || c.iter().any(|x| x.op == 1) {
                pushes += 1;
                assert_eq!(c[0].op, 0, "the pool sequence comes first: {c:?}");
            }
        }
        assert!(pushes > 50, "{pushes}");
    }
}
