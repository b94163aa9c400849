//! The genetic algorithm of Bueno & Jino (seed 001 §6), for reproducing their experiments
//! (`--preset bueno-jino`).
//!
//! * **Binary encoding** with per-variable bounds and precision: each gene is a bit string of
//!   ⌈log₂ n⌉ bits for its n admissible values (an integer range, a float range on its precision
//!   grid, a character alphabet), decoded by linear scaling onto the values, so that every value is
//!   reachable and the all-ones string is the upper bound. A float gene with neither finite bounds
//!   nor a precision is its IEEE-754 bit pattern.
//! * **Fitness-proportionate (roulette-wheel) selection** with **elitism** (the best individual is
//!   copied unchanged).
//! * **Single-point crossover** on the whole bit string with probability 0.8.
//! * **Bit-flip mutation** of each bit with probability 0.03.
//! * Population 80 (30 in the paper's worked example; `--population`).
//!
//! Fitness: with `--fitness bueno-jino` and a path goal, the paper's `NC − EP/MEP`
//! ([`crate::fitness::path::bueno_jino`], recomputed for each generation since MEP depends on the
//! population); otherwise the goal's own (minimised) fitness f, turned into a maximised one by
//! windowing, `f_worst − f + 1e-3`, as roulette selection needs non-negative values that grow with
//! quality.
//!
//! An attempt ends when the goal is covered, after `patience` evaluations without improving the
//! goal's best fitness, or when the budget is spent. The initial population takes the inputs
//! the caller put in [`SearchContext::seeds`] (the solutions base's similar paths; at most half of
//! it) and the best input known for the goal, then random bit strings.

use super::{AlgorithmSpec, GoalSearch, PathFitness, Search, SearchConfig, SearchContext};
use crate::fitness::path::{bueno_jino, PathMatch};
use crate::input::{Domain, GeneRole, Input, Range, ScalarType, Value};
use anyhow::Result;
use rand::Rng;

pub const SPEC: AlgorithmSpec = AlgorithmSpec {
    name: "bjga",
    about: "seed 001's GA: binary genes, roulette selection with elitism, one-point crossover 0.8, bit-flip mutation 0.03",
    build: |c: &SearchConfig| Box::new(BjGa { population: c.population.max(2) }),
};

/// Probability of crossover (seed 001 §9).
pub const CROSSOVER_RATE: f64 = 0.8;
/// Probability of flipping each bit.
pub const MUTATION_RATE: f64 = 0.03;
/// The paper's population size.
pub const POPULATION: usize = 80;

pub struct BjGa {
    population: usize,
}

/// How one gene is encoded.
#[derive(Clone, Debug)]
enum Code {
    /// `n` values `lo + i·step` (or alphabet\[i\]), i = scale(bits).
    Grid { bits: u32, n: u128, lo: f64, lo_int: i128, step: f64, int: bool, alphabet: Option<Vec<u8>> },
    /// The IEEE bit pattern of an f32 or f64.
    Ieee { bits: u32 },
}

/// The binary encoding of a domain.
#[derive(Clone, Debug)]
pub struct Codec {
    codes: Vec<Code>,
}

fn bits_for(n: u128) -> u32 {
    if n <= 1 {
        1
    } else {
        (128 - (n - 1).leading_zeros()).clamp(1, 64)
    }
}

fn max_of(bits: u32) -> u128 {
    (1u128 << bits) - 1
}

impl Codec {
    /// The encoding of `domain`'s genes.
    pub fn new(domain: &Domain) -> Codec {
        let codes = domain
            .genes
            .iter()
            .map(|g| {
                if let GeneRole::Char { alphabet } = &g.role {
                    let n = alphabet.len().max(1) as u128;
                    return Code::Grid { bits: bits_for(n), n, lo: 0.0, lo_int: 0, step: 1.0, int: true, alphabet: Some(alphabet.clone()) };
                }
                match g.range {
                    Range::Int { lo, hi } => {
                        let n = ((hi - lo) as u128).saturating_add(1).min(1u128 << 64);
                        Code::Grid { bits: bits_for(n), n, lo: lo as f64, lo_int: lo, step: 1.0, int: true, alphabet: None }
                    }
                    Range::Float { lo, hi } => {
                        let width = hi - lo;
                        let ieee = Code::Ieee { bits: if g.ty == ScalarType::F32 { 32 } else { 64 } };
                        if g.full || !width.is_finite() {
                            return ieee;
                        }
                        let (n, step) = match g.step {
                            Some(s) if s > 0.0 && width / s < 1.8e19 => ((width / s).round() as u128 + 1, s),
                            _ => (1u128 << 32, width / (u32::MAX as f64)),
                        };
                        Code::Grid { bits: bits_for(n), n, lo, lo_int: 0, step, int: false, alphabet: None }
                    }
                }
            })
            .collect();
        Codec { codes }
    }

    /// Bits per gene.
    pub fn bits(&self) -> Vec<u32> {
        self.codes.iter().map(|c| match c {
            Code::Grid { bits, .. } | Code::Ieee { bits } => *bits,
        })
        .collect()
    }

    /// Decode a genotype (one bit string per gene, in the low bits) to an input of `domain`.
    pub fn decode(&self, domain: &Domain, genes: &[u128]) -> Input {
        let values = self
            .codes
            .iter()
            .zip(genes)
            .enumerate()
            .map(|(i, (c, &u))| {
                let v = match c {
                    Code::Grid { bits, n, lo, lo_int, step, int, alphabet } => {
                        let max = max_of(*bits);
                        let idx = if *n <= 1 { 0 } else { (u.min(max) * (n - 1) + max / 2) / max };
                        match alphabet {
                            Some(a) => Value::Int(a.get(idx as usize).copied().unwrap_or(b'a') as i128),
                            None if *int => Value::Int(lo_int.saturating_add(idx.min(i128::MAX as u128) as i128)),
                            None => Value::Float(lo + idx as f64 * step),
                        }
                    }
                    Code::Ieee { bits: 32 } => Value::Float(f32::from_bits(u as u32) as f64),
                    Code::Ieee { .. } => Value::Float(f64::from_bits(u as u64)),
                };
                domain.normalise(i, v)
            })
            .collect();
        Input { values }
    }

    /// Encode an input (the nearest genotype; exact for values of the domain).
    pub fn encode(&self, input: &Input) -> Vec<u128> {
        self.codes
            .iter()
            .zip(&input.values)
            .map(|(c, v)| match c {
                Code::Grid { bits, n, lo, lo_int, step, int, alphabet } => {
                    let idx: u128 = match alphabet {
                        Some(a) => a.iter().position(|&ch| ch as i128 == v.as_i128()).unwrap_or(0) as u128,
                        None if *int => (v.as_i128() - lo_int).max(0) as u128,
                        None => ((v.as_f64() - lo) / step).round().max(0.0) as u128,
                    };
                    let idx = idx.min(n.saturating_sub(1));
                    let max = max_of(*bits);
                    if *n <= 1 {
                        0
                    } else {
                        (idx * max + (n - 1) / 2) / (n - 1)
                    }
                }
                Code::Ieee { bits: 32 } => (v.as_f64() as f32).to_bits() as u128,
                Code::Ieee { .. } => v.as_f64().to_bits() as u128,
            })
            .collect()
    }
}

/// One member of the population.
#[derive(Clone)]
struct Member {
    genes: Vec<u128>,
    /// The goal's (minimised) fitness.
    f: f64,
    path: Option<PathMatch>,
}

/// Single-point crossover of two bit strings split into genes of `bits` bits (most significant
/// bit first), cut after global bit `cut` (1 ≤ cut < Σ bits).
fn cross(a: &mut [u128], b: &mut [u128], bits: &[u32], cut: u32) {
    let mut off = 0u32;
    for j in 0..a.len() {
        let n = bits[j];
        if off >= cut {
            std::mem::swap(&mut a[j], &mut b[j]);
        } else if off + n > cut {
            let low = n - (cut - off); // bits of this gene after the cut
            let mask = max_of(low);
            let (x, y) = (a[j] & mask, b[j] & mask);
            a[j] = (a[j] & !mask) | y;
            b[j] = (b[j] & !mask) | x;
        }
        off += n;
    }
}

impl BjGa {
    fn member(&self, cx: &mut SearchContext, goal: usize, codec: &Codec, genes: Vec<u128>) -> Result<Member> {
        let x = codec.decode(cx.domain, &genes);
        let ev = cx.evaluate(&x)?;
        // A path goal's match serves both fitness forms: scan the trace once.
        let (f, path) = match cx.goal(goal).as_path() {
            Some(p) => {
                let m = p.matching(&ev.trace);
                (p.stationary(&m), Some(m))
            }
            None => (cx.fitness(goal, &ev), None),
        };
        Ok(Member { genes, f, path })
    }

    /// Selection fitness (maximised, ≥ 0) of each member.
    fn selection_fitness(cx: &SearchContext, goal: usize, pop: &[Member]) -> Vec<f64> {
        if cx.config.path_fitness == PathFitness::BuenoJino {
            if let Some(p) = cx.goal(goal).as_path() {
                let matches: Vec<PathMatch> = pop.iter().map(|m| m.path.expect("path match")).collect();
                return bueno_jino(p, &matches).into_iter().map(|x| x.max(0.0)).collect();
            }
        }
        let worst = pop.iter().map(|m| m.f).filter(|f| f.is_finite()).fold(0.0, f64::max);
        pop.iter().map(|m| if m.f.is_finite() { worst - m.f + 1e-3 } else { 1e-3 }).collect()
    }
}

fn roulette<R: Rng>(weights: &[f64], total: f64, rng: &mut R) -> usize {
    if total <= 0.0 || !total.is_finite() {
        return rng.random_range(0..weights.len());
    }
    let mut r = rng.random::<f64>() * total;
    for (i, w) in weights.iter().enumerate() {
        if r < *w {
            return i;
        }
        r -= w;
    }
    weights.len() - 1
}

impl GoalSearch for BjGa {
    fn attempt(&mut self, cx: &mut SearchContext, goal: usize) -> Result<()> {
        let codec = Codec::new(cx.domain);
        let bits = codec.bits();
        let total_bits: u32 = bits.iter().sum();
        let mut best_seen = f64::INFINITY;
        let mut since = 0u64;
        let mut starts: Vec<Input> = std::mem::take(&mut cx.seeds);
        starts.truncate(self.population / 2);
        if let Some((_, x)) = cx.best(goal) {
            if !starts.contains(x) {
                starts.push(x.clone());
            }
        }
        starts.reverse(); // popped from the back: seeds in their order, then the best
        let mut pop: Vec<Member> = Vec::with_capacity(self.population);
        while pop.len() < self.population {
            if cx.out_of_budget() {
                return Ok(());
            }
            let genes = match starts.pop() {
                Some(x) => codec.encode(&x),
                None => bits.iter().map(|&b| cx.rng.random::<u128>() & max_of(b)).collect(),
            };
            let m = self.member(cx, goal, &codec, genes)?;
            if cx.is_covered(goal) {
                return Ok(());
            }
            best_seen = best_seen.min(m.f);
            pop.push(m);
        }
        loop {
            let fit = Self::selection_fitness(cx, goal, &pop);
            let total: f64 = fit.iter().sum();
            let elite = (0..pop.len())
                .max_by(|&a, &b| fit[a].total_cmp(&fit[b]).then(pop[b].f.total_cmp(&pop[a].f)))
                .unwrap_or(0);
            let mut next = vec![pop[elite].clone()];
            while next.len() < self.population {
                let p1 = roulette(&fit, total, &mut cx.rng);
                let p2 = roulette(&fit, total, &mut cx.rng);
                let mut a = pop[p1].genes.clone();
                let mut b = pop[p2].genes.clone();
                if total_bits > 1 && cx.rng.random::<f64>() < CROSSOVER_RATE {
                    let cut = cx.rng.random_range(1..total_bits);
                    cross(&mut a, &mut b, &bits, cut);
                }
                for child in [a, b] {
                    if next.len() >= self.population {
                        break;
                    }
                    let mut child = child;
                    for (j, g) in child.iter_mut().enumerate() {
                        for t in 0..bits[j] {
                            if cx.rng.random::<f64>() < MUTATION_RATE {
                                *g ^= 1u128 << t;
                            }
                        }
                    }
                    if cx.out_of_budget() {
                        return Ok(());
                    }
                    let m = self.member(cx, goal, &codec, child)?;
                    if cx.is_covered(goal) || cx.finished() {
                        return Ok(());
                    }
                    if m.f < best_seen {
                        best_seen = m.f;
                        since = 0;
                    } else {
                        since += 1;
                        if since >= cx.config.patience {
                            return Ok(());
                        }
                    }
                    next.push(m);
                }
            }
            pop = next;
        }
    }
}

impl Search for BjGa {
    fn run(&mut self, cx: &mut SearchContext) -> Result<()> {
        super::drive(cx, self)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::input::Gene;

    fn domain(genes: Vec<Gene>) -> Domain {
        Domain { genes, ..Default::default() }
    }

    #[test]
    fn encoding_round_trips_and_spans_the_range() {
        let mut a = Gene::full("a", ScalarType::I32);
        a.set_range("-7", "7", "a").unwrap();
        let mut x = Gene::full("x", ScalarType::F64);
        x.set_range("-100", "100", "x").unwrap();
        x.step = Some(0.01);
        let c = Gene::full("c", ScalarType::I8);
        let d = domain(vec![a, x, c]);
        let codec = Codec::new(&d);
        // 15 values → 4 bits; 20001 values → 15 bits; 256 → 8 bits
        assert_eq!(codec.bits(), vec![4, 15, 8]);
        // all zeros: the lower bounds; all ones: the upper bounds
        let lo = codec.decode(&d, &[0, 0, 0]);
        assert_eq!(lo.values, vec![Value::Int(-7), Value::Float(-100.0), Value::Int(-128)]);
        let hi = codec.decode(&d, &[15, (1 << 15) - 1, 255]);
        assert_eq!(hi.values, vec![Value::Int(7), Value::Float(100.0), Value::Int(127)]);
        // every value of the domain survives encode → decode
        for v in -7..=7 {
            for f in [-100.0, -0.01, 0.0, 2.5, 99.99] {
                let inp = Input { values: vec![Value::Int(v), Value::Float(f), Value::Int(-3)] };
                assert_eq!(codec.decode(&d, &codec.encode(&inp)), inp);
            }
        }
    }

    #[test]
    fn full_range_floats_use_their_ieee_bits() {
        let d = domain(vec![Gene::full("x", ScalarType::F32)]);
        let codec = Codec::new(&d);
        assert_eq!(codec.bits(), vec![32]);
        let inp = Input { values: vec![Value::Float(1.5)] };
        assert_eq!(codec.encode(&inp), vec![1.5f32.to_bits() as u128]);
        assert_eq!(codec.decode(&d, &codec.encode(&inp)), inp);
    }

    #[test]
    fn single_point_crossover_swaps_the_bits_after_the_cut() {
        // genes of 4 and 8 bits: a = 1111 11111111, b = 0000 00000000
        let bits = [4, 8];
        let (mut a, mut b) = (vec![0xf, 0xff], vec![0, 0]);
        cross(&mut a, &mut b, &bits, 2); // cut inside the first gene
        assert_eq!((a.clone(), b.clone()), (vec![0b1100, 0], vec![0b0011, 0xff]));
        let (mut a, mut b) = (vec![0xf, 0xff], vec![0, 0]);
        cross(&mut a, &mut b, &bits, 4); // cut between the genes
        assert_eq!((a, b), (vec![0xf, 0], vec![0, 0xff]));
        let (mut a, mut b) = (vec![0xf, 0xff], vec![0, 0]);
        cross(&mut a, &mut b, &bits, 9); // 5 bits into the second gene
        assert_eq!((a, b), (vec![0xf, 0b1111_1000], vec![0, 0b0000_0111]));
    }

    #[test]
    fn roulette_follows_the_weights() {
        use rand::SeedableRng;
        let mut rng = rand_chacha::ChaCha8Rng::seed_from_u64(1);
        let w = [1.0, 0.0, 3.0];
        let mut counts = [0; 3];
        for _ in 0..4000 {
            counts[roulette(&w, 4.0, &mut rng)] += 1;
        }
        assert_eq!(counts[1], 0);
        assert!((800..1200).contains(&counts[0]), "{counts:?}");
        assert!((2800..3200).contains(&counts[2]), "{counts:?}");
    }
}
