//! The genetic algorithm of Bueno & Jino (2002, §6), for reproducing their experiments
//! (`--preset bueno-jino`): a preset of the evolutionary loop ([`super::evolve`]).
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
//! Fitness: a goal with a population-relative fitness (a path goal with `--fitness bueno-jino`:
//! the paper's `NC − EP/MEP`, [`crate::fitness::path::bueno_jino`], recomputed for each
//! generation since MEP depends on the population) is selected on it; otherwise on the goal's own
//! (minimised) fitness f, turned into a maximised one by windowing, `f_worst − f + 1e-3`, as
//! roulette selection needs non-negative values that grow with quality ([`super::evolve::Roulette`]).
//!
//! An attempt ends when the goal is covered, after `patience` evaluations without improving the
//! best fitness of the attempt, or when the budget is spent. The initial population takes the best
//! input known for the goal and the inputs the caller put in [`SearchContext::seeds`] (the
//! solutions base's similar paths; at most half of it), then random bit strings.

use super::evolve::{Crossover, Evolution, Mutation, Never, Representation, Roulette};
use super::{Algorithm, AlgorithmSpec, SearchConfig, SearchContext};
use crate::input::{Domain, Input, Range, Role, ScalarType, Value};
use rand::Rng;
use std::sync::Arc;

pub const SPEC: AlgorithmSpec = AlgorithmSpec {
    name: "bjga",
    about: "Bueno & Jino's GA (2002): binary genes, roulette selection with elitism, one-point crossover 0.8, bit-flip mutation 0.03",
    build: |c: &SearchConfig| Algorithm::PerGoal(Box::new(preset(c))),
};

/// Probability of crossover (Bueno & Jino 2002, §9).
pub const CROSSOVER_RATE: f64 = 0.8;
/// Probability of flipping each bit.
pub const MUTATION_RATE: f64 = 0.03;
/// The paper's population size.
pub const POPULATION: usize = 80;

/// The `bjga` preset with population `c.population`.
pub fn preset(c: &SearchConfig) -> Evolution<Bits> {
    Evolution {
        repr: Box::new(Binary::default()),
        selection: Box::new(Roulette::default()),
        crossover: Box::new(BitCrossover {
            rate: CROSSOVER_RATE,
        }),
        mutation: Box::new(BitFlip {
            rate: MUTATION_RATE,
        }),
        stopping: Box::new(Never),
        islands: 1,
        island_size: c.population.max(2),
        elite: 1,
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

/// How one gene is encoded.
#[derive(Clone, Debug)]
enum Code {
    /// `n` values `lo + i·step` (or alphabet\[i\]), i = scale(bits).
    Grid {
        bits: u32,
        n: u128,
        lo: f64,
        lo_int: i128,
        step: f64,
        int: bool,
        alphabet: Option<Vec<u8>>,
    },
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
            .fields
            .iter()
            .map(|g| {
                if let Role::Char { alphabet } = &g.role {
                    let n = alphabet.len().max(1) as u128;
                    return Code::Grid {
                        bits: bits_for(n),
                        n,
                        lo: 0.0,
                        lo_int: 0,
                        step: 1.0,
                        int: true,
                        alphabet: Some(alphabet.clone()),
                    };
                }
                match g.range {
                    Range::Int { lo, hi } => {
                        let n = ((hi - lo) as u128).saturating_add(1).min(1u128 << 64);
                        Code::Grid {
                            bits: bits_for(n),
                            n,
                            lo: lo as f64,
                            lo_int: lo,
                            step: 1.0,
                            int: true,
                            alphabet: None,
                        }
                    }
                    Range::Float { lo, hi } => {
                        let width = hi - lo;
                        let ieee = Code::Ieee {
                            bits: if g.ty == ScalarType::F32 { 32 } else { 64 },
                        };
                        if g.full || !width.is_finite() {
                            return ieee;
                        }
                        let (n, step) = match g.step {
                            Some(s) if s > 0.0 && width / s < 1.8e19 => {
                                ((width / s).round() as u128 + 1, s)
                            }
                            _ => (1u128 << 32, width / (u32::MAX as f64)),
                        };
                        Code::Grid {
                            bits: bits_for(n),
                            n,
                            lo,
                            lo_int: 0,
                            step,
                            int: false,
                            alphabet: None,
                        }
                    }
                }
            })
            .collect();
        Codec { codes }
    }

    /// Bits per gene.
    pub fn bits(&self) -> Vec<u32> {
        self.codes
            .iter()
            .map(|c| match c {
                Code::Grid { bits, .. } | Code::Ieee { bits } => *bits,
            })
            .collect()
    }

    /// Decode a genotype (one bit string per gene, in the low bits) to an input of `domain`.
    pub fn decode(&self, domain: &Domain, genes: &[u128]) -> Input {
        let values: Vec<Value> = self
            .codes
            .iter()
            .zip(genes)
            .enumerate()
            .map(|(i, (c, &u))| {
                let v = match c {
                    Code::Grid {
                        bits,
                        n,
                        lo,
                        lo_int,
                        step,
                        int,
                        alphabet,
                    } => {
                        let max = max_of(*bits);
                        let idx = if *n <= 1 {
                            0
                        } else {
                            (u.min(max) * (n - 1) + max / 2) / max
                        };
                        match alphabet {
                            Some(a) => {
                                Value::Int(a.get(idx as usize).copied().unwrap_or(b'a') as i128)
                            }
                            None if *int => Value::Int(
                                lo_int.saturating_add(idx.min(i128::MAX as u128) as i128),
                            ),
                            None => Value::Float(lo + idx as f64 * step),
                        }
                    }
                    Code::Ieee { bits: 32 } => Value::Float(f32::from_bits(u as u32) as f64),
                    Code::Ieee { .. } => Value::Float(f64::from_bits(u as u64)),
                };
                domain.normalise(i, v)
            })
            .collect();
        domain.from_values(&values)
    }

    /// Encode an input (the nearest genotype; exact for values of the domain).
    pub fn encode(&self, domain: &Domain, input: &Input) -> Vec<u128> {
        self.codes
            .iter()
            .zip(&domain.values(input))
            .map(|(c, v)| match c {
                Code::Grid {
                    bits,
                    n,
                    lo,
                    lo_int,
                    step,
                    int,
                    alphabet,
                } => {
                    let idx: u128 = match alphabet {
                        Some(a) => a
                            .iter()
                            .position(|&ch| ch as i128 == v.as_i128())
                            .unwrap_or(0) as u128,
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

/// A binary genotype: one bit string per field (in the low bits), and the width of each.
#[derive(Clone, Debug)]
pub struct Bits {
    pub genes: Vec<u128>,
    pub widths: Arc<[u32]>,
}

/// The binary representation: [`Codec`] of the context's domain.
#[derive(Default)]
pub struct Binary {
    codec: Option<(Codec, Arc<[u32]>)>,
}

impl Binary {
    fn codec(&self) -> &(Codec, Arc<[u32]>) {
        self.codec.as_ref().expect("prepared")
    }
}

impl Representation for Binary {
    type Genome = Bits;

    fn prepare(&mut self, cx: &SearchContext) {
        let c = Codec::new(cx.domain);
        let w: Arc<[u32]> = c.bits().into();
        self.codec = Some((c, w));
    }

    fn random(&self, cx: &mut SearchContext) -> Bits {
        let w = self.codec().1.clone();
        Bits {
            genes: w
                .iter()
                .map(|&b| cx.rng.random::<u128>() & max_of(b))
                .collect(),
            widths: w,
        }
    }

    fn encode(&self, cx: &SearchContext, x: &Input) -> Bits {
        let (c, w) = self.codec();
        Bits {
            genes: c.encode(cx.domain, x),
            widths: w.clone(),
        }
    }

    fn decode(&self, cx: &SearchContext, g: &Bits) -> Input {
        self.codec().0.decode(cx.domain, &g.genes)
    }
}

/// Single-point crossover on the whole bit string with probability `rate`.
pub struct BitCrossover {
    pub rate: f64,
}

impl Crossover<Bits> for BitCrossover {
    fn cross(&mut self, cx: &mut SearchContext, a: &Bits, b: &Bits) -> Vec<Bits> {
        let (mut a, mut b) = (a.clone(), b.clone());
        let total: u32 = a.widths.iter().sum();
        if total > 1 && cx.rng.random::<f64>() < self.rate {
            let cut = cx.rng.random_range(1..total);
            cross(&mut a.genes, &mut b.genes, &a.widths, cut);
        }
        vec![a, b]
    }
}

/// Flip each bit with probability `rate`.
pub struct BitFlip {
    pub rate: f64,
}

impl Mutation<Bits> for BitFlip {
    fn mutate(&mut self, cx: &mut SearchContext, g: &mut Bits) {
        for (j, x) in g.genes.iter_mut().enumerate() {
            for t in 0..g.widths[j] {
                if cx.rng.random::<f64>() < self.rate {
                    *x ^= 1u128 << t;
                }
            }
        }
    }
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

#[cfg(test)]
mod tests {
    use super::*;
    use crate::input::Field as Gene;
    use crate::search::testkit::*;

    fn domain(genes: Vec<Gene>) -> Domain {
        Domain::packed(genes)
    }

    /// The paper's GA covers an equality over a small range.
    #[test]
    fn the_paper_ga_covers_an_equality() {
        let d = ints(&["x"], Some((0, 1000)));
        let c = SearchConfig {
            population: POPULATION,
            ..SearchConfig::default()
        };
        let r = run_algorithm("bjga", &d, eq_landscape(vec![700]), c, 3, 100_000);
        assert_eq!(r.covered, r.goals, "{r:?}");
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
        assert_eq!(
            d.values(&lo),
            vec![Value::Int(-7), Value::Float(-100.0), Value::Int(-128)]
        );
        let hi = codec.decode(&d, &[15, (1 << 15) - 1, 255]);
        assert_eq!(
            d.values(&hi),
            vec![Value::Int(7), Value::Float(100.0), Value::Int(127)]
        );
        // every value of the domain survives encode → decode
        for v in -7..=7 {
            for f in [-100.0, -0.01, 0.0, 2.5, 99.99] {
                let inp = d.from_values(&[Value::Int(v), Value::Float(f), Value::Int(-3)]);
                assert_eq!(codec.decode(&d, &codec.encode(&d, &inp)), inp);
            }
        }
    }

    #[test]
    fn full_range_floats_use_their_ieee_bits() {
        let d = domain(vec![Gene::full("x", ScalarType::F32)]);
        let codec = Codec::new(&d);
        assert_eq!(codec.bits(), vec![32]);
        let inp = d.from_values(&[Value::Float(1.5)]);
        assert_eq!(codec.encode(&d, &inp), vec![1.5f32.to_bits() as u128]);
        assert_eq!(codec.decode(&d, &codec.encode(&d, &inp)), inp);
    }

    #[test]
    fn single_point_crossover_swaps_the_bits_after_the_cut() {
        // genes of 4 and 8 bits: a = 1111 11111111, b = 0000 00000000
        let bits = [4, 8];
        let (mut a, mut b) = (vec![0xf, 0xff], vec![0, 0]);
        cross(&mut a, &mut b, &bits, 2); // cut inside the first gene
        assert_eq!(
            (a.clone(), b.clone()),
            (vec![0b1100, 0], vec![0b0011, 0xff])
        );
        let (mut a, mut b) = (vec![0xf, 0xff], vec![0, 0]);
        cross(&mut a, &mut b, &bits, 4); // cut between the genes
        assert_eq!((a, b), (vec![0xf, 0], vec![0, 0xff]));
        let (mut a, mut b) = (vec![0xf, 0xff], vec![0, 0]);
        cross(&mut a, &mut b, &bits, 9); // 5 bits into the second gene
        assert_eq!((a, b), (vec![0xf, 0b1111_1000], vec![0, 0b0000_0111]));
    }
}
