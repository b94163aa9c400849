//! One evolutionary loop for every evolutionary algorithm, with its parts as small traits:
//! [`Representation`] (what a genome is and how it becomes an input), [`Selection`],
//! [`Crossover`], [`Mutation`] and [`Stopping`]. `ga`, `mhga`/`mhga50` and `bjga` are presets
//! ([`Evolution`] values) built from these parts.
//!
//! One attempt on a goal:
//! 1. **Initial population**: the goal's best input first (if the preset starts from it), then
//!    (if the preset takes them) the context's seeds, at most half an island, then random genomes;
//!    islands are filled in turn.
//! 2. **Generations**: in every island, the elites are carried over and the rest is bred: two
//!    parents are selected, crossed, and each child is mutated and evaluated, until the island is
//!    full again. Presets with `tie_break` order members of equal fitness by their margin
//!    ([`crate::fitness::Goal::margin`]) for selection, elitism and restarts.
//! 3. **Migration** (presets with islands): every k generations each island's best replaces the
//!    worst member of the next island (a ring). **Restart** (presets with one): after k
//!    generations without improvement, every island keeps its elites and is refilled with random
//!    genomes.
//! 4. The attempt ends when the goal is covered, the budget is spent, the stopping rule fires
//!    after a generation, or (presets with patience) after `patience` evaluations without
//!    improving the best fitness of the attempt.

use super::{GoalSearch, Patience, SearchContext};
use crate::fitness::Summary;
use crate::input::Input;
use anyhow::Result;
use rand_chacha::ChaCha8Rng;
use std::collections::VecDeque;

/// What a genome is, and how it becomes an input.
pub trait Representation {
    type Genome: Clone;
    /// Called at the start of every attempt (e.g. to derive an encoding from the domain).
    fn prepare(&mut self, _cx: &SearchContext) {}
    /// A random genome.
    fn random(&self, cx: &mut SearchContext) -> Self::Genome;
    /// The genome of an input (the nearest one, for encodings that cannot hold every input).
    fn encode(&self, cx: &SearchContext, x: &Input) -> Self::Genome;
    /// The input of a genome.
    fn decode(&self, cx: &SearchContext, g: &Self::Genome) -> Input;
    /// Called with every evaluation of a member (e.g. to learn values the program computes).
    fn observe(&mut self, _cx: &SearchContext, _ev: &crate::observe::Evaluation) {}
}

/// Chooses parents and elites in one island.
pub trait Selection {
    /// Called once per generation and island with the members' fitness (minimised) and, when
    /// the goal has one, its population-relative scores (maximised).
    fn prepare(&mut self, fitness: &[f64], relative: Option<&[f64]>);
    /// A parent: an index into the island.
    fn pick(&mut self, rng: &mut ChaCha8Rng) -> usize;
    /// The `n` members to carry over unchanged, best first.
    fn elites(&self, n: usize) -> Vec<usize>;
}

/// Makes children from two parents.
pub trait Crossover<G> {
    fn cross(&mut self, cx: &mut SearchContext, a: &G, b: &G) -> Vec<G>;
}

/// Changes a child before it is evaluated.
pub trait Mutation<G> {
    fn mutate(&mut self, cx: &mut SearchContext, g: &mut G);
}

/// Ends an attempt after a generation.
pub trait Stopping {
    /// Called at the start of every attempt.
    fn reset(&mut self) {}
    /// After generation `generation` (1-based), whose best fitness over all islands `improved`
    /// on every earlier one: whether to stop.
    fn stop(&mut self, generation: u32, improved: bool) -> bool;
}

/// Never stops on generations (the attempt ends on patience, coverage or budget).
pub struct Never;
impl Stopping for Never {
    fn stop(&mut self, _: u32, _: bool) -> bool {
        false
    }
}

/// Stops after `max` generations, or after `stall` generations in a row without improvement.
pub struct Generations {
    pub max: Option<u32>,
    pub stall: Option<u32>,
    stalled: u32,
}

impl Generations {
    pub fn new(max: Option<u32>, stall: Option<u32>) -> Generations {
        Generations {
            max,
            stall,
            stalled: 0,
        }
    }
}

impl Stopping for Generations {
    fn reset(&mut self) {
        self.stalled = 0;
    }

    fn stop(&mut self, generation: u32, improved: bool) -> bool {
        self.stalled = if improved { 0 } else { self.stalled + 1 };
        self.max.is_some_and(|m| generation >= m) || self.stall.is_some_and(|s| self.stalled >= s)
    }
}

/// One member of an island.
#[derive(Clone)]
struct Member<G> {
    genome: G,
    fitness: f64,
    /// The goal's margin of the member's execution ([`crate::fitness::Goal::margin`]), with
    /// `tie_break`; 0 otherwise.
    margin: f64,
    /// What the goal's population-relative fitness needs (when it has one).
    summary: Option<Summary>,
}

/// An evolutionary algorithm: the loop of the module docs with its parts.
pub struct Evolution<G> {
    pub repr: Box<dyn Representation<Genome = G>>,
    pub selection: Box<dyn Selection>,
    pub crossover: Box<dyn Crossover<G>>,
    pub mutation: Box<dyn Mutation<G>>,
    pub stopping: Box<dyn Stopping>,
    /// Islands (subpopulations) and their size.
    pub islands: usize,
    pub island_size: usize,
    /// Members carried over unchanged per island and generation.
    pub elite: usize,
    /// Migration interval in generations (with more than one island).
    pub migration: Option<u32>,
    /// End the attempt after [`super::SearchConfig::patience`] evaluations without improvement.
    pub patience: bool,
    /// Put the context's seeds (the solutions base's inputs) into the initial population.
    pub use_seeds: bool,
    /// Put the best input known for the goal into the initial population (every preset but the
    /// paper-faithful grammatical evolution, whose searches start from random genomes).
    pub start_from_best: bool,
    /// With `start_from_best`: after [`STUCK_ATTEMPTS`] attempts in a row that started from the
    /// goal's best input and did not improve it, the next attempt starts from random genomes
    /// instead (that best input can be a local optimum every attempt from it converges on
    /// again).
    pub alternate_start: bool,
    /// Per goal, the best fitness at the start of its last attempt and how many attempts in a
    /// row started from the best input without improving it (for `alternate_start`).
    pub tries: std::collections::HashMap<usize, (f64, u32)>,
    /// Restart: after this many generations in a row without improving the attempt's best
    /// fitness, every member but the elites is replaced by a random genome (`None`: never).
    pub restart: Option<u32>,
    /// Between members of equal fitness, selection and elitism prefer the larger margin
    /// ([`crate::fitness::Goal::margin`]), so that a population on a plateau of the fitness
    /// drifts towards executions that a move is less likely to throw back (`false`: ties are
    /// broken by chance).
    pub tie_break: bool,
}

/// Attempts from a goal's best input without improving it after which `alternate_start` starts
/// the next one from random genomes.
pub const STUCK_ATTEMPTS: u32 = 3;

/// Why evaluation of a member ended the attempt.
enum Next<G> {
    Member(Member<G>),
    Done,
}

impl<G: Clone> Evolution<G> {
    fn member(&mut self, cx: &mut SearchContext, goal: usize, genome: G) -> Result<Next<G>> {
        if cx.out_of_budget() {
            return Ok(Next::Done);
        }
        let x = self.repr.decode(cx, &genome);
        let ev = cx.evaluate(&x)?;
        self.repr.observe(cx, &ev);
        let fitness = cx.fitness(goal, &ev);
        if cx.is_covered(goal) || cx.finished() {
            return Ok(Next::Done);
        }
        let summary = cx.goal(goal).relative().map(|r| r.summary(&ev.trace));
        let margin = if self.tie_break {
            cx.goal(goal).margin(&ev.trace)
        } else {
            0.0
        };
        Ok(Next::Member(Member {
            genome,
            fitness,
            margin,
            summary,
        }))
    }

    fn best_of(islands: &[Vec<Member<G>>]) -> f64 {
        islands
            .iter()
            .flatten()
            .map(|m| m.fitness)
            .fold(f64::INFINITY, f64::min)
    }

    /// Whether an attempt at `goal`, whose best fitness so far is `best`, starts from its best
    /// input: with `start_from_best`, unless `alternate_start` and the last [`STUCK_ATTEMPTS`]
    /// attempts started from it and left `best` where it was. Records the attempt.
    fn starts_from_best(&mut self, goal: usize, best: f64) -> bool {
        let stuck = match self.tries.get(&goal) {
            Some(&(was, n)) if best >= was => n,
            _ => 0,
        };
        let fresh = self.alternate_start && stuck >= STUCK_ATTEMPTS;
        let from_best = self.start_from_best && !fresh;
        self.tries
            .insert(goal, (best, if from_best { stuck + 1 } else { 0 }));
        from_best
    }

    fn run(&mut self, cx: &mut SearchContext, goal: usize) -> Result<()> {
        self.repr.prepare(cx);
        self.stopping.reset();
        let size = self.island_size.max(2);
        let mut patience = Patience::new(cx.config.patience, f64::INFINITY);
        let mut starts: VecDeque<Input> = VecDeque::new();
        let from_best =
            self.starts_from_best(goal, cx.best(goal).map_or(f64::INFINITY, |(f, _)| *f));
        if let Some((_, x)) = cx.best(goal).filter(|_| from_best) {
            starts.push_back(x.clone());
        }
        if self.use_seeds {
            let mut seeds = std::mem::take(&mut cx.seeds);
            seeds.truncate(size / 2);
            for s in seeds {
                if !starts.contains(&s) {
                    starts.push_back(s);
                }
            }
        }
        let mut islands: Vec<Vec<Member<G>>> = Vec::with_capacity(self.islands);
        for _ in 0..self.islands.max(1) {
            let mut pop = Vec::with_capacity(size);
            while pop.len() < size {
                let genome = match starts.pop_front() {
                    Some(x) => self.repr.encode(cx, &x),
                    None => self.repr.random(cx),
                };
                let Next::Member(m) = self.member(cx, goal, genome)? else {
                    return Ok(());
                };
                patience.seed(m.fitness);
                pop.push(m);
            }
            islands.push(pop);
        }
        let mut best = Self::best_of(&islands);
        let mut generation = 0u32;
        let mut stalled = 0u32;
        loop {
            generation += 1;
            for island in islands.iter_mut() {
                let fitness = selection_keys(island, self.tie_break);
                let relative = cx.goal(goal).relative().and_then(|r| {
                    let s: Option<Vec<&Summary>> =
                        island.iter().map(|m| m.summary.as_ref()).collect();
                    s.map(|s| r.scores(&s))
                });
                self.selection.prepare(&fitness, relative.as_deref());
                let mut next: Vec<Member<G>> = self
                    .selection
                    .elites(self.elite.min(size))
                    .into_iter()
                    .map(|i| island[i].clone())
                    .collect();
                while next.len() < size {
                    let p1 = self.selection.pick(&mut cx.rng);
                    let p2 = self.selection.pick(&mut cx.rng);
                    let children = self
                        .crossover
                        .cross(cx, &island[p1].genome, &island[p2].genome);
                    for mut c in children {
                        if next.len() >= size {
                            break;
                        }
                        self.mutation.mutate(cx, &mut c);
                        let Next::Member(m) = self.member(cx, goal, c)? else {
                            return Ok(());
                        };
                        if self.patience && patience.exhausted(m.fitness) {
                            return Ok(());
                        }
                        next.push(m);
                    }
                }
                *island = next;
            }
            if let Some(k) = self.migration.filter(|_| islands.len() > 1) {
                if generation.is_multiple_of(k) {
                    let n = islands.len();
                    let migrants: Vec<Member<G>> = islands
                        .iter()
                        .map(|p| {
                            p.iter()
                                .min_by(|a, b| a.fitness.total_cmp(&b.fitness))
                                .cloned()
                                .expect("non-empty island")
                        })
                        .collect();
                    for (i, m) in migrants.into_iter().enumerate() {
                        let to = &mut islands[(i + 1) % n];
                        let worst = (0..to.len())
                            .max_by(|&a, &b| to[a].fitness.total_cmp(&to[b].fitness))
                            .expect("non-empty island");
                        to[worst] = m;
                    }
                }
            }
            let now = Self::best_of(&islands);
            let improved = now < best;
            if improved {
                best = now;
                stalled = 0;
            } else {
                stalled += 1;
            }
            if self.restart.is_some_and(|k| stalled >= k) {
                stalled = 0;
                for island in islands.iter_mut() {
                    island.sort_by(|a, b| {
                        a.fitness
                            .total_cmp(&b.fitness)
                            .then(b.margin.total_cmp(&a.margin))
                    });
                    island.truncate(self.elite.max(1).min(size));
                    while island.len() < size {
                        let genome = self.repr.random(cx);
                        let Next::Member(m) = self.member(cx, goal, genome)? else {
                            return Ok(());
                        };
                        island.push(m);
                    }
                }
            }
            if self.stopping.stop(generation, improved) {
                return Ok(());
            }
        }
    }
}

/// The fitness the selection sees: the members' fitness, with `tie_break` lowered by their
/// margins scaled below half the smallest gap between two different fitness values of the
/// island, so that members of equal fitness are ordered by margin (larger first) and the order
/// of different fitness values is kept.
fn selection_keys<G>(island: &[Member<G>], tie_break: bool) -> Vec<f64> {
    let fitness: Vec<f64> = island.iter().map(|m| m.fitness).collect();
    if !tie_break {
        return fitness;
    }
    let mut sorted: Vec<f64> = fitness.iter().copied().filter(|f| f.is_finite()).collect();
    sorted.sort_by(f64::total_cmp);
    let gap = sorted
        .windows(2)
        .map(|w| w[1] - w[0])
        .filter(|&d| d > 0.0)
        .fold(1.0, f64::min);
    island
        .iter()
        .map(|m| m.fitness - gap * 0.5 * m.margin.clamp(0.0, 1.0))
        .collect()
}

impl<G: Clone> GoalSearch for Evolution<G> {
    fn attempt(&mut self, cx: &mut SearchContext, goal: usize) -> Result<()> {
        self.run(cx, goal)
    }
}

/// Linear ranking (Whitley 1989) with selective pressure `bias` over the island sorted by
/// fitness, as EvoSuite's `RankSelection`; the elites are the fittest.
pub struct Rank {
    pub bias: f64,
    order: Vec<usize>,
}

impl Rank {
    pub fn new(bias: f64) -> Rank {
        Rank {
            bias,
            order: vec![],
        }
    }
}

/// Index into a population of `n` sorted best first, by linear ranking with `bias`.
pub fn rank_select<R: rand::Rng>(n: usize, bias: f64, rng: &mut R) -> usize {
    let r: f64 = rng.random();
    let x = (bias - (bias * bias - 4.0 * (bias - 1.0) * r).sqrt()) / (2.0 * (bias - 1.0));
    ((n as f64 * x) as usize).min(n - 1)
}

impl Selection for Rank {
    fn prepare(&mut self, fitness: &[f64], _relative: Option<&[f64]>) {
        self.order = (0..fitness.len()).collect();
        self.order
            .sort_by(|&a, &b| fitness[a].total_cmp(&fitness[b]));
    }

    fn pick(&mut self, rng: &mut ChaCha8Rng) -> usize {
        self.order[rank_select(self.order.len(), self.bias, rng)]
    }

    fn elites(&self, n: usize) -> Vec<usize> {
        self.order.iter().take(n).copied().collect()
    }
}

/// Fitness-proportionate (roulette-wheel) selection on the goal's population-relative scores
/// when it has them, else on the windowed fitness `f_worst − f + 1e-3` (roulette needs weights
/// that grow with quality). The elite is the member of highest weight (ties: lower fitness).
#[derive(Default)]
pub struct Roulette {
    weights: Vec<f64>,
    fitness: Vec<f64>,
    total: f64,
}

impl Selection for Roulette {
    fn prepare(&mut self, fitness: &[f64], relative: Option<&[f64]>) {
        self.fitness = fitness.to_vec();
        self.weights = match relative {
            Some(r) => r.iter().map(|x| x.max(0.0)).collect(),
            None => {
                let worst = fitness
                    .iter()
                    .copied()
                    .filter(|f| f.is_finite())
                    .fold(0.0, f64::max);
                fitness
                    .iter()
                    .map(|&f| {
                        if f.is_finite() {
                            worst - f + 1e-3
                        } else {
                            1e-3
                        }
                    })
                    .collect()
            }
        };
        self.total = self.weights.iter().sum();
    }

    fn pick(&mut self, rng: &mut ChaCha8Rng) -> usize {
        roulette(&self.weights, self.total, rng)
    }

    fn elites(&self, n: usize) -> Vec<usize> {
        let mut idx: Vec<usize> = (0..self.weights.len()).collect();
        idx.sort_by(|&a, &b| {
            self.weights[b]
                .total_cmp(&self.weights[a])
                .then(self.fitness[a].total_cmp(&self.fitness[b]))
        });
        idx.truncate(n);
        idx
    }
}

/// An index drawn with probability proportional to `weights` (uniform if they sum to 0).
pub fn roulette<R: rand::Rng>(weights: &[f64], total: f64, rng: &mut R) -> usize {
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
            counts[rank_select(n, 1.7, &mut rng)] += 1;
        }
        assert!(counts[0] > counts[n - 1] * 2, "{counts:?}");
        assert!(counts.iter().all(|&c| c > 0));
    }

    #[test]
    fn rank_picks_through_the_fitness_order_and_keeps_the_best() {
        let mut r = Rank::new(1.7);
        r.prepare(&[5.0, 0.5, 3.0], None);
        assert_eq!(r.elites(2), vec![1, 2]);
        let mut rng = rand_chacha::ChaCha8Rng::seed_from_u64(1);
        let mut counts = [0; 3];
        for _ in 0..3000 {
            counts[r.pick(&mut rng)] += 1;
        }
        assert!(counts[1] > counts[2] && counts[2] > counts[0], "{counts:?}");
    }

    #[test]
    fn roulette_follows_the_weights_and_prefers_relative_scores() {
        let mut rng = rand_chacha::ChaCha8Rng::seed_from_u64(1);
        let w = [1.0, 0.0, 3.0];
        let mut counts = [0; 3];
        for _ in 0..4000 {
            counts[roulette(&w, 4.0, &mut rng)] += 1;
        }
        assert_eq!(counts[1], 0);
        assert!((800..1200).contains(&counts[0]), "{counts:?}");
        assert!((2800..3200).contains(&counts[2]), "{counts:?}");
        let mut s = Roulette::default();
        // windowed: the lowest fitness weighs most
        s.prepare(&[1.0, 4.0, 2.0], None);
        assert_eq!(s.elites(1), vec![0]);
        // relative scores win over fitness
        s.prepare(&[1.0, 4.0, 2.0], Some(&[0.0, 5.0, 1.0]));
        assert_eq!(s.elites(1), vec![1]);
    }

    #[test]
    fn ties_in_fitness_are_broken_by_the_larger_margin_and_other_orders_kept() {
        let m = |fitness: f64, margin: f64| Member {
            genome: (),
            fitness,
            margin,
            summary: None,
        };
        let island = [
            m(1.5, 0.2),
            m(1.5, 0.9),
            m(1.25, 0.0),
            m(2.0, 1.0),
            m(1.5, 0.5),
        ];
        let order = |keys: Vec<f64>| {
            let mut idx: Vec<usize> = (0..keys.len()).collect();
            idx.sort_by(|&a, &b| keys[a].total_cmp(&keys[b]));
            idx
        };
        assert_eq!(order(selection_keys(&island, true)), vec![2, 1, 4, 0, 3]);
        // without the tie-break the selection sees the fitness as it is
        assert_eq!(
            selection_keys(&island, false),
            vec![1.5, 1.5, 1.25, 2.0, 1.5]
        );
        let mut t = crate::search::ge::Tournament::new(2);
        t.prepare(&selection_keys(&island, true), None);
        assert_eq!(t.elites(2), vec![2, 1]);
    }

    #[test]
    fn attempts_stuck_at_the_best_input_are_followed_by_one_from_random_genomes() {
        use crate::search::ge::{preset, Engine, Grammar};
        use crate::search::SearchConfig;
        let mut e = preset(
            &SearchConfig::default(),
            Grammar::EXTENDED,
            Engine::IMPROVED,
        );
        assert!(e.alternate_start && e.start_from_best);
        // goal 0 never improves: three attempts from its best input, then one from random
        // genomes, then from the best again
        let starts: Vec<bool> = (0..8).map(|_| e.starts_from_best(0, 5.0)).collect();
        assert_eq!(starts, [true, true, true, false, true, true, true, false]);
        // goal 1 improves at every attempt: always from its best input
        assert!((0..8).all(|k| e.starts_from_best(1, 10.0 - k as f64)));
        // an improvement resets the count
        let mut e2 = preset(
            &SearchConfig::default(),
            Grammar::EXTENDED,
            Engine::IMPROVED,
        );
        let s: Vec<bool> = [5.0, 5.0, 4.0, 4.0, 4.0, 4.0]
            .iter()
            .map(|&b| e2.starts_from_best(0, b))
            .collect();
        assert_eq!(s, [true, true, true, true, true, false]);
        // the paper's engine never starts from the best input
        let mut p = preset(&SearchConfig::default(), Grammar::SEEDED, Engine::PAPER);
        assert!((0..5).all(|_| !p.starts_from_best(0, 5.0)));
    }

    #[test]
    fn generations_stop_on_count_or_stall() {
        let mut g = Generations::new(Some(3), None);
        assert!(!g.stop(1, false) && !g.stop(2, true) && g.stop(3, true));
        let mut g = Generations::new(None, Some(2));
        assert!(!g.stop(1, false) && !g.stop(2, true) && !g.stop(3, false) && g.stop(4, false));
        g.reset();
        assert!(!g.stop(5, false));
    }
}
