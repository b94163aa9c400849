//! Distance feedback for the fuzz loop: the **frontier** (the outcomes of sites where the corpus
//! took one outcome and not another), per frontier outcome the best fitness any execution reached
//! and the inputs that reached it (the distance pool), and the state that schedules directed
//! attempts on them.
//!
//! **Scope.** Only sites in scope ([`Guide::restrict`], from [`super::scope`]) give frontier
//! outcomes: by default library code (Rust's std and registry crates, C system headers) stays
//! out, so that directed attempts and the distance pool serve the user's code. The coverage map
//! is not narrowed.
//!
//! The fitness of frontier outcome `o` of site `s` for one execution is the normalised distance
//! `l / (l + 1)`, `l = ln(1 + d)`, when `s` ran, `d` being the minimum branch distance of `o` over
//! the execution (Korel 1990; Tracey et al. 1998); see [`normalise`] for why not `d / (d + 1)`.
//! It lies in `[0, 1)` for a reached site and is 0 exactly when the outcome was taken.
//! When `s` did not run, a directed attempt (which knows the CFG of `s`'s function) adds the
//! approach level ([`Guide::fitness`]): 1 or more. The distance feedback of every execution
//! uses reached sites only: this is libFuzzer's value profile with real branch distance in place
//! of the Hamming distance of compared values. An input that *strictly* lowers an outcome's best
//! fitness is kept, in a pool of at most [`POOL_CAP`] inputs per outcome, so that the corpus does
//! not grow with it.
//!
//! **Scheduling.** A frontier outcome is *eligible* for a directed attempt when some input reached
//! its site and it is not *stalled*. An attempt first tries input-to-state substitution on the
//! outcome's best input ([`Target::needs_i2s`]; the site's operand records in that input's
//! execution are kept, [`Target::start_ops`], so the attempt does not run it again): at most `directed::I2S_SLICE` candidates, or as
//! many as the credit, the next attempt going on where it stopped, and never twice from the same
//! input. The AVM (with its influence probe) runs only once every candidate was tried, and only
//! on *credit*: the executions havoc has had beyond the directed stages', so that the directed
//! stages never get more executions than havoc, at any moment, not only when an attempt starts
//! (an attempt's AVM budget is the credit left, at most `directed::AVM_EXECS`); and, unless the
//! run has an execution budget alone (`-runs`, which keeps it reproducible), no more time
//! ([`GuideStats::credit`]: the directed stages start from the pool's inputs, which on a parser
//! can run several times longer than havoc's; libyaml's ran at a third of havoc's exec/s, and
//! took two thirds of the run). On a program that havoc covers at once, evotest is then at most about twice as slow as havoc alone; where
//! substitution takes the outcomes, it is as fast as substitution alone. An attempt whose AVM does
//! not lower the outcome's best fitness stalls it; any later improvement (by havoc, or by an
//! attempt on another outcome) wakes it, and new coverage wakes stalled outcomes with fewer than
//! [`MAX_STALLS`] stalls. A stall is never final: once havoc's executions have doubled since it,
//! the outcome is eligible again ([`Target::retry_at`]; geometric backoff, so that the retries of
//! an outcome cost a logarithm of the run's executions in attempts, and the credit still bounds
//! them). Without it, the last hard outcome of a program (tritype's right angle, whose distance
//! havoc stops improving long before it hits one) waited for an improvement that never came,
//! while havoc ran millions of executions. Eligible outcomes are taken fewest attempts first,
//! then lowest fitness.

use super::feedback::Feedback;
use crate::exec::Coverage;
use crate::trace::{OperandRec, StrOperandRec};
use serde::Serialize;

/// Fitness of a frontier outcome whose site an execution did not reach.
pub const UNREACHED: f64 = 2.0;
/// Most inputs kept per frontier outcome in the distance pool.
pub const POOL_CAP: usize = 4;
/// Stalled attempts after which new coverage no longer wakes an outcome (an improvement of its
/// own distance still does).
pub const MAX_STALLS: u32 = 3;

/// [`Guide`]'s mark of a site with no frontier outcome.
const NO_TARGET: u32 = u32::MAX;

/// The part of a [`Target`] that [`Guide::observe`] reads for every frontier outcome of every
/// site an execution ran.
#[derive(Clone, Copy, Debug, Default)]
struct TargetKey {
    site: u32,
    outcome: u32,
    /// Least branch distance [`Guide::observe`] saw at the site since the outcome joined the
    /// frontier (the target's `best` is never above its [`normalise`]d value, so a distance not
    /// below it cannot lower `best`); see [`Guide::best_distance`].
    best_d: f64,
}

/// The fitness `l / (l + 1)` of branch distance `d` of a reached site, with `l = ln(1 + d)` (see
/// module docs): in `[0, 1)`, 0 exactly for `d = 0`, and increasing in `d`. The logarithm keeps
/// distances apart that `d / (d + 1)` rounds to the same `f64` (every `d` above about 1e16, as a
/// 64-bit magic value or a float near 1e300 gives), so the AVM's pattern moves still see a slope.
pub fn normalise(d: f64) -> f64 {
    if d.is_nan() || d == f64::INFINITY {
        1.0
    } else {
        let l = d.max(0.0).ln_1p();
        l / (l + 1.0)
    }
}

/// One frontier outcome and what the fuzzer knows of it.
#[derive(Clone, Debug)]
pub struct Target {
    /// Global outcome ID.
    pub outcome: u32,
    /// Global site ID of its site.
    pub site: u32,
    /// Best (lowest) fitness seen; [`UNREACHED`] before any execution reached the site after it
    /// joined the frontier.
    pub best: f64,
    /// Inputs that lowered `best`, oldest first, at most [`POOL_CAP`]; the last one reached
    /// `best`.
    pub pool: Vec<Vec<u8>>,
    /// Times `best` was lowered.
    pub improvements: u32,
    /// Directed attempts made on it.
    pub attempts: u32,
    /// Attempts that ended without lowering `best`.
    pub stalls: u32,
    /// The last attempt did not lower `best`, and nothing did since.
    pub stalled: bool,
    /// Havoc's executions ([`GuideStats::execs_havoc`]) at which a stalled outcome is eligible
    /// again without an improvement: twice havoc's executions when it stalled (see
    /// [`Guide::finish_attempt`]).
    pub retry_at: u64,
    /// An execution took it (fitness 0), perhaps one that crashed (so the coverage map may not
    /// know it).
    pub reached_zero: bool,
    /// The value of `improvements` when input-to-state substitution started on its best input
    /// (`None`: never). Substitution from the same input proposes the same candidates, so it
    /// starts again only after `best` was lowered.
    pub i2s_at: Option<u32>,
    /// The next of those candidates to try: an attempt tries a slice of them (see
    /// [`Guide::pick`]), the next attempt goes on from here.
    pub i2s_next: usize,
    /// Every candidate of the current best input was tried.
    pub i2s_done: bool,
    /// The influencing positions found by the last influence probe, with the length of the input
    /// it probed: an attempt from an input of the same length reuses them (a binary format's
    /// fields stay where they are), so that short AVM slices do not pay the probe each time.
    pub influence: Option<(usize, Vec<usize>)>,
    /// The operand records of its site (and the string compares' records) in the execution of
    /// the pool's last input, kept when that input lowered `best` ([`Guide::improved`]): an
    /// attempt then reads them here instead of running that input again (`None`: it runs it).
    pub start_ops: Option<(Vec<OperandRec>, Vec<StrOperandRec>)>,
    /// Which arm made the pool's last input (`None`: a seed); an input-to-state candidate
    /// inherits its attempt's. Outcomes that input-to-state covers from it count to that arm's
    /// yield ([`Yields::credit`]): on libxml2 the AVM covered few outcomes itself, but its
    /// distance improvements gave input-to-state the start inputs of many more.
    pub made_by: Option<Arm>,
}

impl Target {
    /// The influencing positions of the last influence probe if it probed an input of `len`
    /// bytes (see [`Target::influence`]).
    pub fn influence_for(&self, len: usize) -> Option<&[usize]> {
        self.influence
            .as_ref()
            .filter(|(l, _)| *l == len)
            .map(|(_, p)| p.as_slice())
    }

    /// Whether input-to-state substitution has candidates of the current best input left to try.
    pub fn needs_i2s(&self) -> bool {
        self.i2s_at != Some(self.improvements) || !self.i2s_done
    }
}

/// An approach-level ladder: per level, the (site, outcome) pairs of its control dependences.
pub type Ladder = Vec<Vec<(u32, u32)>>;

/// The approach-level ladder of one site across calls
/// ([`crate::fitness::branch::interprocedural_ladder`]): the levels of its own block in its
/// function, then the levels of the calls into the function, which every site of the function
/// shares (on a large program they run to tens of thousands of pairs, so they are kept once per
/// function, not copied into each site's ladder).
#[derive(Clone, Debug, Default)]
pub struct SiteLadder {
    /// The levels within the site's function.
    pub own: Ladder,
    /// The levels of the calls into it ([`crate::fitness::branch::caller_ladder`]).
    pub callers: std::rc::Rc<Ladder>,
}

impl SiteLadder {
    /// The levels, nearest first.
    pub fn levels(&self) -> impl Iterator<Item = &Vec<(u32, u32)>> {
        self.own.iter().chain(self.callers.iter())
    }

    /// The number of levels.
    pub fn len(&self) -> usize {
        self.own.len() + self.callers.len()
    }

    /// Whether it has no level.
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }
}

/// Executions spent and outcomes first covered by each stage of the loop, for the `--json`
/// summary (of the worker that prints it; with `-j`, each worker has its own). Executions of
/// crash triage and minimisation belong to no stage, so the stages add up to less than the
/// summary's `executions`.
#[derive(Clone, Debug, Default, Serialize, serde::Deserialize)]
pub struct GuideStats {
    /// Whether guidance was on (`--guidance on`).
    pub enabled: bool,
    /// Executions of the seeds and of the corpus directory.
    pub execs_seed: u64,
    /// Executions of havoc inputs.
    pub execs_havoc: u64,
    /// Executions of input-to-state candidates (Aschermann et al. 2019), including the run of
    /// the start input of each directed attempt.
    pub execs_i2s: u64,
    /// Executions of the influence probe (which bytes change an outcome's distance).
    pub execs_influence: u64,
    /// Executions of the alternating variable method on fields (Korel 1990).
    pub execs_avm: u64,
    /// Executions of input-to-state on every compare of a corpus entry ([`super::cmplog`]):
    /// the logging run and the candidates.
    #[serde(default)]
    pub execs_cmplog: u64,
    /// Wall-clock seconds of the seeds' executions: the target running the input and the
    /// engine reading its coverage, not what the engine does with it (distances, corpus,
    /// triage), so that they measure the inputs; as for the `secs_*` fields below.
    #[serde(default)]
    pub secs_seed: f64,
    /// Seconds of havoc's executions.
    #[serde(default)]
    pub secs_havoc: f64,
    /// Seconds of input-to-state's executions.
    #[serde(default)]
    pub secs_i2s: f64,
    /// Seconds of the influence probe's executions.
    #[serde(default)]
    pub secs_influence: f64,
    /// Seconds of the AVM's executions.
    #[serde(default)]
    pub secs_avm: f64,
    /// Seconds of the executions of input-to-state on every compare.
    #[serde(default)]
    pub secs_cmplog: f64,
    /// Outcomes first covered by a seed (or a file another worker wrote).
    pub covered_by_seed: usize,
    /// Outcomes first covered by havoc.
    pub covered_by_havoc: usize,
    /// Outcomes first covered by an input-to-state candidate.
    pub covered_by_i2s: usize,
    /// Outcomes first covered by an input of the influence probe.
    pub covered_by_influence: usize,
    /// Outcomes first covered by an AVM move.
    pub covered_by_avm: usize,
    /// Outcomes first covered by input-to-state on every compare of a corpus entry.
    #[serde(default)]
    pub covered_by_cmplog: usize,
    /// Directed attempts.
    pub attempts: u64,
    /// Directed attempts that took their outcome (perhaps in a crashing execution).
    pub attempts_won: u64,
    /// Times an execution lowered a frontier outcome's best fitness.
    pub distance_improvements: u64,
    /// Checksum repairs tried by the directed attempts ([`super::directed`]'s `repair`): a
    /// candidate that left the target's path at an equality between two computed values was
    /// run with every compare logged, and one side written where the other occurs in the input.
    #[serde(default)]
    pub repairs: u64,
    /// Repairs that brought the candidate back to (or past) the path it had left.
    #[serde(default)]
    pub repairs_won: u64,
    /// Frontier outcomes at the end of the run.
    pub frontier: usize,
    /// Branch sites out of the guidance's scope (library code, `--frontier_exclude`,
    /// `--frontier_include`): their outcomes never join the frontier.
    pub sites_left_out: usize,
    /// Uncovered outcomes of half-covered sites out of scope, at the last refresh of the
    /// frontier: the frontier outcomes the scope left out.
    pub frontier_left_out: usize,
    /// Inputs in the distance pool at the end of the run.
    pub pool_inputs: usize,
    /// The search stages' share of havoc's effort at the end of the run
    /// ([`GuideStats::share`] of [`Arm::Search`]).
    #[serde(default)]
    pub search_share: f64,
    /// The share of input-to-state on every compare at the end of the run.
    #[serde(default)]
    pub cmplog_share: f64,
    /// Recent yields of havoc, the search stages and input-to-state on every compare
    /// ([`Yields`]).
    #[serde(skip)]
    pub yields: Yields,
}

/// Least share of havoc's executions and time a stage that [`GuideStats::share`] rations keeps
/// when it covers nothing while havoc covers outcomes.
pub const SHARE_FLOOR: f64 = 0.1;

/// The stages whose effort follows their yield ([`Yields`]): havoc, against which the others are
/// measured; the search stages (the influence probe and the AVM); and input-to-state on every
/// compare ([`super::cmplog`]). Input-to-state on the frontier is not rationed: it runs only on a
/// new best input of an outcome, and yields the most per execution on every target measured.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Arm {
    /// Havoc mutations ([`Stage::Havoc`]).
    Havoc = 0,
    /// The influence probe and the AVM ([`Stage::Influence`], [`Stage::Avm`]).
    Search = 1,
    /// Input-to-state on every compare ([`Stage::Cmplog`]).
    Cmplog = 2,
}

impl Arm {
    /// The arm an execution of `stage` counts to, if any.
    pub fn of(stage: Stage) -> Option<Arm> {
        match stage {
            Stage::Havoc => Some(Arm::Havoc),
            Stage::Influence | Stage::Avm => Some(Arm::Search),
            Stage::Cmplog => Some(Arm::Cmplog),
            Stage::Seed | Stage::I2s => None,
        }
    }
}

/// Recent yields (outcomes first covered per execution) of each [`Arm`], for
/// [`GuideStats::share`]. Each is a pair (outcomes, executions) of sums that halve whenever the
/// executions of the arms together grow by a quarter, so what counts is about the last fifth of
/// the run: a stage that covered much early on and nothing since does not keep its lead, and the
/// rule has no time constant to tune per target.
#[derive(Clone, Debug, Default)]
pub struct Yields {
    /// Per arm, the decayed (outcomes, executions).
    pub arms: [(f64, f64); 3],
    /// Executions of the arms together at which the sums halve next (0: not yet set).
    next_halving: u64,
}

impl Yields {
    /// Executions of the arms after which the sums first halve.
    const FIRST_HALVING: u64 = 1024;

    /// Count one execution of `arm` that first covered `new` outcomes, `total` being the
    /// executions of all arms so far, this one included.
    pub fn count(&mut self, arm: Arm, new: usize, total: u64) {
        let y = &mut self.arms[arm as usize];
        y.0 += new as f64;
        y.1 += 1.0;
        if self.next_halving == 0 {
            self.next_halving = Self::FIRST_HALVING;
        }
        if total >= self.next_halving {
            for y in &mut self.arms {
                y.0 /= 2.0;
                y.1 /= 2.0;
            }
            self.next_halving = self.next_halving.saturating_add(self.next_halving / 4);
        }
    }

    /// Count `new` outcomes that input-to-state covered from a start input made by `arm` to that
    /// arm's yield, without an execution.
    pub fn credit(&mut self, arm: Arm, new: usize) {
        self.arms[arm as usize].0 += new as f64;
    }

    /// `arm`'s recent yield over havoc's, each with a prior of one outcome and one execution, so
    /// that two stages that have covered nothing lately weigh the same.
    pub fn ratio(&self, arm: Arm) -> f64 {
        let rate = |(c, e): (f64, f64)| (c + 1.0) / (e + 1.0);
        rate(self.arms[arm as usize]) / rate(self.arms[Arm::Havoc as usize])
    }
}

/// The stage an execution belongs to (see [`GuideStats`]).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Stage {
    /// Seeds, the corpus directory, files of other workers.
    Seed,
    /// Havoc mutations of corpus and pool inputs.
    Havoc,
    /// A directed attempt's start input and its input-to-state candidates.
    I2s,
    /// A directed attempt's influence probe.
    Influence,
    /// A directed attempt's AVM moves.
    Avm,
    /// Input-to-state on every compare of a corpus entry ([`super::cmplog`]).
    Cmplog,
}

impl GuideStats {
    /// Count one execution of `stage` that first covered `new_outcomes` outcomes.
    pub fn count(&mut self, stage: Stage, new_outcomes: usize) {
        let (e, c) = match stage {
            Stage::Seed => (&mut self.execs_seed, &mut self.covered_by_seed),
            Stage::Havoc => (&mut self.execs_havoc, &mut self.covered_by_havoc),
            Stage::I2s => (&mut self.execs_i2s, &mut self.covered_by_i2s),
            Stage::Influence => (&mut self.execs_influence, &mut self.covered_by_influence),
            Stage::Avm => (&mut self.execs_avm, &mut self.covered_by_avm),
            Stage::Cmplog => (&mut self.execs_cmplog, &mut self.covered_by_cmplog),
        };
        *e += 1;
        *c += new_outcomes;
        if let Some(arm) = Arm::of(stage) {
            let total =
                self.execs_havoc + self.execs_influence + self.execs_avm + self.execs_cmplog;
            self.yields.count(arm, new_outcomes, total);
        }
    }

    /// Add `secs` seconds to the time of `stage`.
    pub fn add_time(&mut self, stage: Stage, secs: f64) {
        *match stage {
            Stage::Seed => &mut self.secs_seed,
            Stage::Havoc => &mut self.secs_havoc,
            Stage::I2s => &mut self.secs_i2s,
            Stage::Influence => &mut self.secs_influence,
            Stage::Avm => &mut self.secs_avm,
            Stage::Cmplog => &mut self.secs_cmplog,
        } += secs;
    }

    /// Seconds of the directed stages' executions (input-to-state on the frontier and on every
    /// compare, influence, AVM).
    pub fn directed_secs(&self) -> f64 {
        self.secs_i2s + self.secs_influence + self.secs_avm + self.secs_cmplog
    }

    /// The executions the directed stages may spend now (see module docs: Scheduling), `None`
    /// when they have had more than havoc, in executions or (if `by_time`) in time. The credit
    /// in executions is havoc's executions less theirs; in time, havoc's seconds less theirs, at
    /// the directed stages' own rate so far (havoc's before they have run). The smaller of the
    /// two. Without `by_time` the credit depends on executions only, so a run is reproducible.
    pub fn credit(&self, by_time: bool) -> Option<u64> {
        self.lead(
            (self.execs_havoc as f64, self.secs_havoc),
            (self.directed(), self.directed_secs()),
            by_time,
        )
    }

    /// The executions by which `allowed` (executions, seconds) leads `spent`: in executions, and
    /// (if `by_time`) in seconds at `spent`'s own rate (havoc's before anything was spent), the
    /// smaller of the two; `None` when `spent` is ahead in either.
    fn lead(&self, allowed: (f64, f64), spent: (u64, f64), by_time: bool) -> Option<u64> {
        let by_execs = (allowed.0 as u64).checked_sub(spent.0)?;
        if !by_time {
            return Some(by_execs);
        }
        let secs = allowed.1 - spent.1;
        if secs < 0.0 {
            return None;
        }
        let rate = if spent.0 > 0 && spent.1 > 0.0 {
            spent.0 as f64 / spent.1
        } else if self.secs_havoc > 0.0 {
            self.execs_havoc as f64 / self.secs_havoc
        } else {
            return Some(by_execs);
        };
        Some(by_execs.min((secs * rate) as u64))
    }

    /// The share of havoc's executions and time that `arm` may have: its recent yield over
    /// havoc's ([`Yields::ratio`]), between [`SHARE_FLOOR`] and 1. Where havoc keeps covering
    /// outcomes and the AVM does not (a large parser: on sqlite3 the AVM took a fifth of a
    /// minute's run for 5 of its 2,900 new outcomes), havoc and input-to-state get the time;
    /// where neither has covered anything lately (the last hard outcome of a small program), the
    /// search has as much as havoc.
    pub fn share(&self, arm: Arm) -> f64 {
        self.yields.ratio(arm).clamp(SHARE_FLOOR, 1.0)
    }

    /// The executions `arm` (not havoc) may spend now: [`GuideStats::credit`] with havoc's
    /// executions and time scaled by [`GuideStats::share`] and only `arm`'s own spent against
    /// them; never more than `credit` itself. `None` as for `credit`.
    pub fn arm_credit(&self, arm: Arm, by_time: bool) -> Option<u64> {
        let credit = self.credit(by_time)?;
        let share = self.share(arm);
        let spent = match arm {
            Arm::Havoc => return Some(credit),
            Arm::Search => (
                self.execs_influence + self.execs_avm,
                self.secs_influence + self.secs_avm,
            ),
            Arm::Cmplog => (self.execs_cmplog, self.secs_cmplog),
        };
        let allowed = (self.execs_havoc as f64 * share, self.secs_havoc * share);
        Some(self.lead(allowed, spent, by_time)?.min(credit))
    }

    /// Executions of the directed stages (input-to-state on the frontier and on every compare,
    /// influence, AVM).
    pub fn directed(&self) -> u64 {
        self.execs_i2s + self.execs_influence + self.execs_avm + self.execs_cmplog
    }
}

/// See module docs.
#[derive(Clone, Debug, Default)]
pub struct Guide {
    /// Per global site: its first global outcome and number of outcomes.
    site_outcomes: Vec<(u32, u32)>,
    /// Per global site: the index into `targets` of its first frontier outcome, the others
    /// following it ([`NO_TARGET`]: not a frontier site). Four bytes a site, so that
    /// [`Guide::observe`]'s look-up of every site an execution ran stays in cache.
    first_target: Vec<u32>,
    /// Per target, in `targets`' order: its site, its outcome and its least distance, packed,
    /// for [`Guide::observe`]'s pass over the sites an execution ran (a [`Target`] is large).
    keys: Vec<TargetKey>,
    /// Per global site: whether its outcomes may join the frontier (see [`Guide::restrict`]).
    in_scope: Vec<bool>,
    /// The frontier outcomes.
    pub targets: Vec<Target>,
    /// Outcomes covered (by the coverage map) when the frontier was last computed.
    covered_when: usize,
    /// Something changed that may make an outcome eligible since the last [`Guide::pick`] found
    /// none.
    wake: bool,
    /// The least credit (see [`Guide::pick`]) that makes an outcome eligible which the last
    /// [`Guide::pick`] left out for want of it (`u64::MAX`: none).
    wake_at_credit: u64,
    /// The least of the stalled outcomes' [`Target::retry_at`] when the last [`Guide::pick`]
    /// found none (`u64::MAX`: none).
    wake_at_havoc: u64,
    pub stats: GuideStats,
    /// The targets whose best fitness the last [`Guide::observe`] lowered (indices into
    /// `targets`), for the caller to keep their operand records ([`Target::start_ops`]).
    pub improved: Vec<usize>,
}

impl Guide {
    /// A guide for a program whose site `s` has outcomes `site_outcomes[s].0 ..` (`.1` of them).
    pub fn new(site_outcomes: Vec<(u32, u32)>, enabled: bool) -> Guide {
        let n = site_outcomes.len();
        Guide {
            site_outcomes,
            first_target: vec![NO_TARGET; n],
            keys: Vec::new(),
            in_scope: vec![true; n],
            targets: vec![],
            covered_when: usize::MAX,
            wake: true,
            wake_at_credit: u64::MAX,
            wake_at_havoc: u64::MAX,
            stats: GuideStats {
                enabled,
                ..Default::default()
            },
            improved: Vec::new(),
        }
    }

    /// Let only the sites `s` with `in_scope[s]` give frontier outcomes (every site by default;
    /// a site past the end of `in_scope` stays in). Takes effect at the next [`Guide::refresh`].
    pub fn restrict(&mut self, in_scope: Vec<bool>) {
        self.stats.sites_left_out = in_scope.iter().filter(|&&k| !k).count();
        self.in_scope = in_scope;
        self.covered_when = usize::MAX;
    }

    /// Recompute the frontier from the coverage map if its coverage grew since the last time;
    /// frontier outcomes keep their state, stalled ones with fewer than [`MAX_STALLS`] stalls
    /// wake up.
    pub fn refresh(&mut self, fb: &Feedback) {
        if fb.covered() == self.covered_when {
            return;
        }
        self.covered_when = fb.covered();
        let mut old: std::collections::HashMap<u32, (Target, f64)> = self
            .targets
            .drain(..)
            .zip(&self.keys)
            .map(|(t, k)| (t.outcome, (t, k.best_d)))
            .collect();
        self.first_target.fill(NO_TARGET);
        self.keys.clear();
        let mut left_out = 0;
        for (s, &(base, n)) in self.site_outcomes.iter().enumerate() {
            let outs = base..base.saturating_add(n);
            if !outs.clone().any(|o| fb.is_covered(o)) {
                continue;
            }
            if !self.in_scope.get(s).copied().unwrap_or(true) {
                left_out += outs.filter(|&o| !fb.is_covered(o)).count();
                continue;
            }
            for o in outs.filter(|&o| !fb.is_covered(o)) {
                let (mut t, best_d) = old.remove(&o).unwrap_or((
                    Target {
                        outcome: o,
                        site: s as u32,
                        best: UNREACHED,
                        pool: vec![],
                        improvements: 0,
                        attempts: 0,
                        stalls: 0,
                        stalled: false,
                        retry_at: 0,
                        reached_zero: false,
                        i2s_at: None,
                        i2s_next: 0,
                        i2s_done: false,
                        influence: None,
                        start_ops: None,
                        made_by: None,
                    },
                    f64::INFINITY,
                ));
                if t.stalled && t.stalls < MAX_STALLS {
                    t.stalled = false;
                }
                if self.first_target[s] == NO_TARGET {
                    self.first_target[s] = self.targets.len() as u32;
                }
                self.keys.push(TargetKey {
                    site: t.site,
                    outcome: t.outcome,
                    best_d,
                });
                self.targets.push(t);
            }
        }
        self.stats.frontier = self.targets.len();
        self.stats.frontier_left_out = left_out;
        self.wake = true;
    }

    /// The least branch distance seen at target `t`'s site for its outcome since it joined the
    /// frontier (infinite before any). Panics if `t` is not an index into `targets`.
    pub fn best_distance(&self, t: usize) -> f64 {
        self.keys[t].best_d
    }

    /// Whether site `s` has frontier outcomes.
    pub fn is_frontier_site(&self, s: u32) -> bool {
        self.first_target
            .get(s as usize)
            .is_some_and(|&t| t != NO_TARGET)
    }

    /// Record one execution of `data` with coverage `cov` and outcome distances `dist` (global
    /// outcome → minimum distance of the execution): every frontier outcome whose best fitness
    /// it strictly lowers gets `data` in its pool. Returns how many it lowered.
    pub fn observe(
        &mut self,
        cov: &Coverage,
        dist: impl Fn(u32) -> Option<f64>,
        data: &[u8],
    ) -> usize {
        let mut improved = 0;
        self.improved.clear();
        debug_assert_eq!(self.keys.len(), self.targets.len());
        for &(s, _) in &cov.sites {
            let first = self
                .first_target
                .get(s as usize)
                .copied()
                .unwrap_or(NO_TARGET);
            if first == NO_TARGET {
                continue;
            }
            for ti in first as usize..self.keys.len() {
                let k = &mut self.keys[ti];
                if k.site != s {
                    break;
                }
                let Some(d) = dist(k.outcome) else { continue };
                if !(d < k.best_d) {
                    continue;
                }
                k.best_d = d;
                let t = &mut self.targets[ti];
                let f = normalise(d);
                if f < t.best {
                    t.best = f;
                    t.improvements += 1;
                    t.stalled = false;
                    if f == 0.0 {
                        t.reached_zero = true;
                    }
                    if t.pool.len() >= POOL_CAP {
                        t.pool.remove(0);
                    }
                    t.pool.push(data.to_vec());
                    t.start_ops = None;
                    self.improved.push(ti);
                    improved += 1;
                }
            }
        }
        if improved > 0 {
            self.wake = true;
            self.stats.distance_improvements += improved as u64;
        }
        improved
    }

    /// The fitness of outcome `outcome` of site `site` in an execution of coverage `cov` (sites
    /// in order) whose distances are `dist`, with the approach level (Wegener, Baresel & Sthamer 2001) when the site
    /// did not run: `ladder[i]` holds the (site, outcome) control dependences at approach level
    /// `i + 1` (from `cfg::Cfg::ladder`), and the fitness is `i + 1 + d/(d+1)` for the first level
    /// with an executed site, `d` the least distance of its outcomes there; `ladder.len() + 1`
    /// when none ran (the function was not reached). Without a ladder, an unreached site is
    /// [`UNREACHED`].
    pub fn fitness(
        site: u32,
        outcome: u32,
        ladder: &SiteLadder,
        cov: &Coverage,
        dist: impl Fn(u32) -> Option<f64>,
    ) -> f64 {
        let ran = |s: u32| cov.sites.binary_search_by_key(&s, |&(x, _)| x).is_ok();
        if ran(site) {
            return dist(outcome).map_or(1.0, normalise);
        }
        if ladder.is_empty() {
            return UNREACHED;
        }
        for (i, level) in ladder.levels().enumerate() {
            let best = level
                .iter()
                .filter(|&&(s, _)| ran(s))
                .filter_map(|&(_, o)| dist(o))
                .map(normalise)
                .reduce(f64::min);
            if let Some(b) = best {
                return (i + 1) as f64 + b;
            }
        }
        (ladder.len() + 1) as f64
    }

    /// The target to attempt next (see module docs), or `None` when no outcome is eligible.
    ///
    /// An outcome whose input-to-state substitution has run from its best input
    /// ([`Target::needs_i2s`] false) is eligible only for the AVM, which needs
    /// `avm_need(target)` executions of `credit` (the executions havoc has had beyond the
    /// directed stages', see `fuzz/mod.rs`); `None` from `avm_need`: no AVM (`--guidance i2s`).
    /// A stalled outcome is eligible once havoc's executions reach its [`Target::retry_at`].
    pub fn pick(
        &mut self,
        credit: u64,
        avm_need: impl Fn(&Target) -> Option<u64>,
    ) -> Option<usize> {
        let havoc = self.stats.execs_havoc;
        if !self.wake && credit < self.wake_at_credit && havoc < self.wake_at_havoc {
            return None;
        }
        let mut least_need = u64::MAX;
        let mut next_retry = u64::MAX;
        let best = self
            .targets
            .iter()
            .enumerate()
            .filter(|(_, t)| !t.pool.is_empty() && !t.reached_zero)
            .filter(|(_, t)| {
                if t.stalled && havoc < t.retry_at {
                    next_retry = next_retry.min(t.retry_at);
                    return false;
                }
                true
            })
            .filter(|(_, t)| {
                if t.needs_i2s() {
                    return true;
                }
                match avm_need(t) {
                    Some(n) if n <= credit => true,
                    Some(n) => {
                        least_need = least_need.min(n);
                        false
                    }
                    None => false,
                }
            })
            .min_by(|(_, a), (_, b)| a.attempts.cmp(&b.attempts).then(a.best.total_cmp(&b.best)))
            .map(|(i, _)| i);
        if best.is_none() {
            self.wake = false;
            self.wake_at_credit = least_need;
            self.wake_at_havoc = next_retry;
        }
        best
    }

    /// Remember the influencing positions `pos` of frontier outcome `outcome`, found on an input
    /// of `len` bytes (see [`Target::influence`]).
    pub fn set_influence(&mut self, outcome: u32, len: usize, pos: Vec<usize>) {
        if let Some(t) = self.targets.iter_mut().find(|t| t.outcome == outcome) {
            t.influence = Some((len, pos));
        }
    }

    /// Input-to-state substitution runs on target `t` from its current best input: the index of
    /// the first candidate to try (0 for a new best input).
    pub fn start_i2s(&mut self, t: usize) -> usize {
        let Some(t) = self.targets.get_mut(t) else {
            return 0;
        };
        if t.i2s_at != Some(t.improvements) {
            (t.i2s_at, t.i2s_next, t.i2s_done) = (Some(t.improvements), 0, false);
        }
        t.i2s_next
    }

    /// Substitution on frontier outcome `outcome` tried its candidates up to `next` (exclusive),
    /// all of them if `done`. Nothing if its best input changed meanwhile (an improvement starts
    /// over with the new input's candidates).
    pub fn i2s_progress(&mut self, outcome: u32, at: u32, next: usize, done: bool) {
        if let Some(t) = self.targets.iter_mut().find(|t| t.outcome == outcome) {
            if t.i2s_at == Some(at) && t.improvements == at {
                (t.i2s_next, t.i2s_done) = (next, done);
            }
        }
    }

    /// The attempt on frontier outcome `outcome` ended; `start` was its best fitness when the
    /// attempt began, `searched` whether it ran the AVM. An outcome no longer on the frontier was
    /// covered by the attempt. An attempt that searched without lowering `best` stalls the
    /// outcome; one that only substituted does not (its outcome waits for the AVM's credit).
    pub fn finish_attempt(&mut self, outcome: u32, start: f64, searched: bool) {
        self.stats.attempts += 1;
        let Some(t) = self.targets.iter_mut().find(|t| t.outcome == outcome) else {
            self.stats.attempts_won += 1;
            return;
        };
        t.attempts += 1;
        if t.reached_zero {
            self.stats.attempts_won += 1;
        } else if searched && t.best >= start {
            t.stalled = true;
            t.stalls += 1;
            t.retry_at = self.stats.execs_havoc.saturating_mul(2).max(1);
        }
    }

    /// The newest pool input of a frontier outcome not yet taken, chosen with the random numbers
    /// `r` (a few tries), for havoc to mutate: energy to the inputs closest to uncovered
    /// outcomes.
    pub fn pool_input(&self, r: [usize; 4]) -> Option<&[u8]> {
        if self.targets.is_empty() {
            return None;
        }
        r.iter()
            .map(|&k| &self.targets[k % self.targets.len()])
            .find(|t| !t.reached_zero && !t.pool.is_empty())
            .and_then(|t| t.pool.last().map(|v| v.as_slice()))
    }

    /// Final figures into the stats.
    pub fn finish(&mut self) -> GuideStats {
        self.stats.frontier = self.targets.iter().filter(|t| !t.reached_zero).count();
        self.stats.pool_inputs = self.targets.iter().map(|t| t.pool.len()).sum();
        self.stats.search_share = self.stats.share(Arm::Search);
        self.stats.cmplog_share = self.stats.share(Arm::Cmplog);
        self.stats.clone()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The directed stages' credit is havoc's lead in executions, or in time at their own rate,
    /// whichever is less; none once they are ahead in either.
    #[test]
    fn directed_stages_get_neither_more_executions_nor_more_time_than_havoc() {
        let st = |execs_havoc, secs_havoc, execs_avm, secs_avm| GuideStats {
            execs_havoc,
            secs_havoc,
            execs_avm,
            secs_avm,
            ..Default::default()
        };
        // nothing directed yet: havoc's lead in executions
        assert_eq!(st(1000, 1.0, 0, 0.0).credit(true), Some(1000));
        // as fast as havoc: the lead in executions
        assert_eq!(st(1000, 1.0, 500, 0.5).credit(true), Some(500));
        // a third of havoc's rate: 0.5 s left at 500 executions a second
        assert_eq!(st(1000, 1.0, 250, 0.5).credit(true), Some(250));
        assert_eq!(st(1000, 1.0, 250, 0.5).credit(false), Some(750));
        // ahead in time, behind in executions
        assert_eq!(st(1000, 1.0, 300, 1.2).credit(true), None);
        // ahead in executions
        assert_eq!(st(1000, 10.0, 1001, 1.0).credit(true), None);
    }

    /// A rationed arm's share follows its recent yield against havoc's: the floor while havoc
    /// keeps covering and the arm does not, all of havoc's once neither has covered anything
    /// for a while, and outcomes input-to-state took from an input the arm made count for it.
    #[test]
    fn a_share_follows_recent_yields() {
        let mut st = GuideStats::default();
        let run = |st: &mut GuideStats, stage: Stage, n: u64, every: u64| {
            for i in 0..n {
                st.count(stage, usize::from(every > 0 && i % every == 0));
                match stage {
                    Stage::Havoc => st.secs_havoc += 1e-3,
                    Stage::Cmplog => st.secs_cmplog += 1e-3,
                    _ => st.secs_avm += 1e-3,
                }
            }
        };
        assert_eq!(st.share(Arm::Search), 1.0, "nothing run: the prior alone");
        // havoc covers an outcome every 100 executions, the AVM nothing, input-to-state on every
        // compare one every 50
        for _ in 0..20 {
            run(&mut st, Stage::Havoc, 1000, 100);
            run(&mut st, Stage::Avm, 1000, 0);
            run(&mut st, Stage::Cmplog, 1000, 50);
        }
        assert_eq!(st.share(Arm::Search), SHARE_FLOOR);
        assert_eq!(st.share(Arm::Cmplog), 1.0);
        // the arms spent as much as havoc: no credit left
        assert_eq!(st.arm_credit(Arm::Search, false), None);
        let mut fresh = GuideStats {
            execs_havoc: 10_000,
            secs_havoc: 10.0,
            ..Default::default()
        };
        fresh.yields = st.yields.clone();
        assert_eq!(
            fresh.arm_credit(Arm::Search, false),
            Some(1_000),
            "a tenth of havoc's executions"
        );
        assert_eq!(
            fresh.arm_credit(Arm::Search, true),
            Some(1_000),
            "and of its time, at havoc's rate"
        );
        assert_eq!(fresh.arm_credit(Arm::Cmplog, false), Some(10_000));
        // then nothing covers anything for ten times as long: the early leads fade and the
        // shares even out
        for _ in 0..200 {
            run(&mut st, Stage::Havoc, 1000, 0);
            run(&mut st, Stage::Avm, 1000, 0);
            run(&mut st, Stage::Cmplog, 1000, 0);
        }
        assert!(st.share(Arm::Search) > 0.9, "{}", st.share(Arm::Search));
        // input-to-state wins from search-made inputs count for the search
        let mut y = Yields::default();
        for i in 0..1000 {
            y.count(Arm::Havoc, 0, 2 * i + 1);
            y.count(Arm::Search, 0, 2 * i + 2);
        }
        y.credit(Arm::Havoc, 5);
        let before = y.ratio(Arm::Search);
        y.credit(Arm::Search, 10);
        assert!(
            y.ratio(Arm::Search) > 2.0 * before,
            "{before} -> {}",
            y.ratio(Arm::Search)
        );
    }

    #[test]
    fn approach_level_counts_the_control_dependences_missed() {
        // site 5 (outcomes 10, 11) depends on site 3 taking outcome 6, which depends on site 1
        // taking outcome 2
        let ladder = SiteLadder {
            own: vec![vec![(3, 6)]],
            callers: std::rc::Rc::new(vec![vec![(1, 2)]]),
        };
        let dist = |o: u32| Some(if o == 2 { 1.0 } else { 3.0 });
        assert_eq!(
            Guide::fitness(5, 10, &ladder, &cov(&[1, 3, 5], &[]), dist),
            normalise(3.0)
        );
        assert_eq!(
            Guide::fitness(5, 10, &ladder, &cov(&[1, 3], &[]), dist),
            1.0 + normalise(3.0)
        );
        assert_eq!(
            Guide::fitness(5, 10, &ladder, &cov(&[1], &[]), dist),
            2.0 + normalise(1.0)
        );
        assert_eq!(Guide::fitness(5, 10, &ladder, &cov(&[], &[]), dist), 3.0);
    }

    fn cov(sites: &[u32], outcomes: &[u32]) -> Coverage {
        Coverage {
            sites: sites.iter().map(|&s| (s, 1)).collect(),
            outcomes: outcomes.to_vec(),
            ..Default::default()
        }
    }

    #[test]
    fn normalised_distances_keep_their_order_at_every_magnitude() {
        let ds = [0.0, 1e-300, 0.5, 1.0, 2.0, 1e6, 1e16, 1e17, 1e300, f64::MAX];
        let f: Vec<f64> = ds.iter().map(|&d| normalise(d)).collect();
        assert_eq!(f[0], 0.0);
        assert!(f.windows(2).all(|w| w[0] < w[1]), "{f:?}");
        assert!(f.iter().all(|&x| x < 1.0));
        assert_eq!((normalise(f64::NAN), normalise(f64::INFINITY)), (1.0, 1.0));
    }

    #[test]
    fn the_frontier_is_the_uncovered_outcomes_of_half_covered_sites() {
        // three two-outcome sites: 0 (outcomes 0, 1), 1 (2, 3), 2 (4, 5)
        let mut fb = Feedback::new(3, 6);
        fb.add(&cov(&[0, 1], &[0, 2, 3]));
        let mut g = Guide::new(vec![(0, 2), (2, 2), (4, 2)], true);
        g.refresh(&fb);
        let f: Vec<u32> = g.targets.iter().map(|t| t.outcome).collect();
        assert_eq!(f, vec![1], "site 1 is fully covered, site 2 never ran");
        assert!(g.is_frontier_site(0) && !g.is_frontier_site(1) && !g.is_frontier_site(2));
    }

    #[test]
    fn sites_out_of_scope_give_no_frontier_outcomes_and_keep_no_inputs() {
        // sites 0 (outcomes 0, 1) and 1 (2, 3) both half covered; site 1 is library code
        let mut fb = Feedback::new(2, 4);
        fb.add(&cov(&[0, 1], &[0, 2]));
        let mut g = Guide::new(vec![(0, 2), (2, 2)], true);
        g.restrict(vec![true, false]);
        g.refresh(&fb);
        let f: Vec<u32> = g.targets.iter().map(|t| t.outcome).collect();
        assert_eq!(f, vec![1]);
        assert!(!g.is_frontier_site(1));
        assert_eq!((g.stats.sites_left_out, g.stats.frontier_left_out), (1, 1));
        // an execution nearer to outcome 3 than to outcome 1 feeds only outcome 1's pool
        assert_eq!(
            g.observe(
                &cov(&[0, 1], &[0, 2]),
                |o| Some(if o == 3 { 0.5 } else { 9.0 }),
                b"x"
            ),
            1
        );
        assert_eq!(g.targets.len(), 1);
        // the coverage map still counts the left-out site's outcome when an input takes it
        fb.add(&cov(&[1], &[3]));
        assert!(fb.is_covered(3));
        g.refresh(&fb);
        assert_eq!(g.stats.frontier_left_out, 0);
    }

    #[test]
    fn strictly_lower_distances_are_kept_in_a_capped_pool() {
        let mut g = one_site_guide();
        let c = cov(&[0], &[0]);
        for (i, d) in [10.0, 10.0, 5.0, 7.0, 4.0, 3.0, 2.0, 1.0]
            .iter()
            .enumerate()
        {
            g.observe(&c, |o| (o == 1).then_some(*d), &[i as u8]);
        }
        let t = &g.targets[0];
        assert_eq!(t.best, normalise(1.0));
        assert_eq!(
            t.improvements, 6,
            "10, 5, 4, 3, 2, 1; not the repeated 10 nor 7"
        );
        assert_eq!(t.pool, vec![vec![4], vec![5], vec![6], vec![7]]);
        // an execution that does not reach the site changes nothing
        assert_eq!(g.observe(&cov(&[], &[]), |_| Some(0.0), &[9]), 0);
        assert_eq!(
            Guide::fitness(0, 1, &SiteLadder::default(), &cov(&[], &[]), |_| Some(0.0)),
            UNREACHED
        );
        assert_eq!(
            Guide::fitness(0, 1, &SiteLadder::default(), &c, |_| Some(3.0)),
            normalise(3.0)
        );
    }

    /// A guide for one two-outcome site whose outcome 0 is covered: outcome 1 is its frontier.
    fn one_site_guide() -> Guide {
        let mut fb = Feedback::new(1, 2);
        fb.add(&cov(&[0], &[0]));
        let mut g = Guide::new(vec![(0, 2)], true);
        g.refresh(&fb);
        g
    }

    #[test]
    fn a_stalled_outcome_waits_for_an_improvement() {
        let mut fb = Feedback::new(2, 4);
        fb.add(&cov(&[0, 1], &[0, 2]));
        let mut g = Guide::new(vec![(0, 2), (2, 2)], true);
        g.refresh(&fb);
        let need = |_: &Target| Some(10);
        assert_eq!(
            g.pick(100, need),
            None,
            "no input reached a frontier distance yet"
        );
        let both = cov(&[0, 1], &[0, 2]);
        g.observe(&both, |o| Some(if o == 1 { 8.0 } else { 3.0 }), b"x");
        let first = g.pick(100, need).unwrap();
        assert_eq!(
            g.targets[first].outcome, 3,
            "equal attempts: the lower fitness first"
        );
        g.start_i2s(first);
        g.i2s_progress(3, 1, 0, true);
        g.finish_attempt(g.targets[first].outcome, g.targets[first].best, true);
        assert!(g.targets[first].stalled);
        let second = g.pick(100, need).unwrap();
        assert_eq!(g.targets[second].outcome, 1);
        g.start_i2s(second);
        g.i2s_progress(1, 1, 0, true);
        g.finish_attempt(g.targets[second].outcome, g.targets[second].best, true);
        assert_eq!(g.pick(100, need), None, "both stalled");
        g.observe(&both, |o| Some(if o == 1 { 8.0 } else { 2.0 }), b"y");
        assert_eq!(g.pick(100, need), Some(first), "an improvement wakes it");
    }

    /// A stalled outcome that nothing improves is tried again once havoc's executions have
    /// doubled since its stall, and again after they double once more.
    #[test]
    fn a_stalled_outcome_is_retried_when_havocs_executions_double() {
        let mut g = one_site_guide();
        g.observe(&cov(&[0], &[0]), |o| (o == 1).then_some(5.0), b"a");
        let need = |_: &Target| Some(10);
        g.stats.execs_havoc = 1_000;
        let t = g.pick(100, need).unwrap();
        g.start_i2s(t);
        g.i2s_progress(1, 1, 0, true);
        g.finish_attempt(1, g.targets[t].best, true);
        assert!(g.targets[t].stalled);
        g.stats.execs_havoc = 1_999;
        assert_eq!(g.pick(100, need), None, "stalled");
        assert_eq!(g.pick(100, need), None, "nothing new");
        g.stats.execs_havoc = 2_000;
        assert_eq!(
            g.pick(100, need),
            Some(t),
            "havoc's executions doubled: tried again"
        );
        g.finish_attempt(1, g.targets[t].best, true);
        g.stats.execs_havoc = 3_999;
        assert_eq!(g.pick(100, need), None, "stalled again, until 4,000");
        g.stats.execs_havoc = 4_000;
        assert_eq!(g.pick(100, need), Some(t));
    }

    #[test]
    fn substitution_once_per_best_input_then_the_avm_on_credit() {
        let mut g = one_site_guide();
        let c = cov(&[0], &[0]);
        g.observe(&c, |o| (o == 1).then_some(5.0), b"a");
        let need = |_: &Target| Some(40);
        // substitution needs no credit
        let t = g.pick(0, need).unwrap();
        assert!(g.targets[t].needs_i2s());
        assert_eq!(g.start_i2s(t), 0);
        // a slice of the candidates: the next attempt goes on from there
        g.i2s_progress(1, 1, 16, false);
        g.finish_attempt(1, g.targets[t].best, false);
        assert!(
            !g.targets[t].stalled,
            "substitution alone does not stall an outcome"
        );
        assert_eq!(g.pick(0, need), Some(t));
        assert_eq!(g.start_i2s(t), 16);
        g.i2s_progress(1, 1, 20, true);
        g.finish_attempt(1, g.targets[t].best, false);
        // the same best input: only the AVM is left, and it waits for its credit
        assert_eq!(g.pick(39, need), None);
        assert_eq!(
            g.pick(39, need),
            None,
            "nothing new: no scan until the credit is there"
        );
        assert_eq!(g.pick(40, need), Some(t));
        // --guidance i2s: never the AVM
        assert_eq!(g.pick(1000, |_| None), None);
        // a lower distance: substitution again, from the new best input
        g.observe(&c, |o| (o == 1).then_some(4.0), b"b");
        assert_eq!(g.pick(0, |_| None), Some(t));
        assert!(g.targets[t].needs_i2s());
    }
}
