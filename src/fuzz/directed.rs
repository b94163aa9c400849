//! A directed attempt on one frontier outcome ([`guide`](super::guide)): from the input of the
//! distance pool closest to it, input-to-state candidates of its compare ([`i2s`](super::i2s),
//! Aschermann et al. 2019: its integer or float operands, or the byte strings of a `strcmp`,
//! `strncmp` or `memcmp`); if none takes it, the bytes that influence its distance and the AVM
//! on their fields ([`avm`](super::avm), Korel 1990). A candidate of either that leaves the
//! outcome's path at an equality between computed values (a checksum) is repaired there
//! ([`Repair`]). Every execution goes through the fuzzer's `evaluate`, so whatever it covers or
//! crashes is kept and triaged as havoc's inputs are.

use super::avm::{self, Avm};
use super::guide::{SiteLadder, Stage};
use super::{i2s, Fuzzer};
use crate::cfg::Cfg;
use crate::fitness::branch::{caller_ladder, intra_ladder};
use crate::trace::{OperandRec, StrOperandRec};
use anyhow::Result;
use evotest_abi::meta::SiteKind;
use evotest_abi::pred::Pred;
use evotest_abi::shm::{OPERANDS_FLOAT, OPERANDS_POINTER, OPERAND_A_CONST, OPERAND_B_CONST};
use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;
use std::rc::Rc;

/// Most executions of the influence probe in one attempt.
pub const INFLUENCE_EXECS: usize = 160;
/// Input-to-state candidates an attempt may try without credit (see
/// [`super::guide::Guide::pick`]): the first few, which hold the operand's encodings at aligned
/// offsets ([`i2s::candidates`]); the next attempt on the outcome goes on where this one stopped.
pub const I2S_SLICE: usize = 16;
/// Most executions of the AVM in one attempt.
pub const AVM_EXECS: u64 = 1500;

/// Checksum repairs in a row that may fail before an attempt stops trying them (see
/// [`Repair`]): a program whose equalities between computed values are not checksums (a
/// bracket matched against its opener, a count against a second count) costs at most this many
/// logged executions and their candidates per attempt.
pub const REPAIR_TRIES: u32 = 4;
/// Repairs at one equality site in a row whose logged compare was no checksum (both operands,
/// or neither, found in the input; or equal operands), after which the run tries no more
/// there: a compare of two input fields (a triangle's `a == b`) is an equality between
/// non-constants, and never a checksum.
pub const REPAIR_SITE_MISSES: u32 = 3;
/// Candidates tried per repair: the first input-to-state candidates of the broken compare
/// (aligned encodings first), enough for a checksum in either byte order.
pub const REPAIR_CANDIDATES: usize = 2;

/// Checksum repair within one directed attempt (Aschermann et al. 2019, REDQUEEN's checksum
/// handling, done per candidate instead of by patching the binary). A candidate of the attempt
/// (an input-to-state substitution, an AVM move) whose fitness says that it left the target's
/// path earlier than the attempt's best input did (a higher approach level) is run once more
/// with every compare logged; where the path was left at an equality between two operands
/// that are not constants of the program (a checksum or a length field against the value the
/// program computed from the other bytes), the candidate is rewritten with input-to-state at
/// that compare (one operand written where the other occurs in the input) and run again. A
/// repair that lowers the candidate's fitness replaces it, so that the move is judged on the
/// path it was meant for: a field under a checksum (a format's CRC, a weighted byte sum in a
/// trailer) can then be searched at all, where every move of it used to fail at the checksum.
/// At most `cap` executions of repairs per attempt, and none after [`REPAIR_TRIES`] failures
/// in a row.
struct Repair {
    /// The least fitness of the attempt so far, and the hash of its input
    /// ([`i2s::input_hash`]): a repair that merely undoes the move gives that input back, and
    /// is not run.
    best: f64,
    best_hash: u64,
    /// Repairs that failed since the last one that worked.
    failed: u32,
    /// Executions repairs may still take.
    cap: u64,
}

impl Repair {
    fn new(x: &[u8], f: f64, cap: u64) -> Repair {
        Repair {
            best: f,
            best_hash: i2s::input_hash(x),
            failed: 0,
            cap,
        }
    }
}

/// What an attempt knows of its start input without running it: the operand records of the
/// target's site in the execution that made it the best ([`super::guide::Target::start_ops`]),
/// and the target's fitness and least distance there. Running the input again cost a third of
/// input-to-state's executions on sqlite3, whose pool inputs are long scripts (an attempt there
/// runs the start input and two or three candidates).
struct Kept {
    ops: (Vec<OperandRec>, Vec<StrOperandRec>),
    fitness: f64,
    distance: f64,
}

/// The executions of the influence probe on an input of `len` bytes, at most: two
/// perturbations per byte, or per block of a long input (refined where a block matters), at most
/// [`INFLUENCE_EXECS`].
pub fn influence_estimate(len: usize) -> u64 {
    (2 * len.min(64)).min(INFLUENCE_EXECS) as u64
}

/// Fewest executions an AVM attempt starts with: an exploratory move each way on the fields of
/// a few bytes (about 16) and a run of pattern moves whose doubling steps span a 32-bit field
/// (about 32; Korel 1990). With less, an attempt on an input of a few bytes (a cheap influence
/// probe, so a small need) ended after its exploratory moves, and the next began again from
/// steps of 1 (relation.c under length control: no crash in 3,000 executions on one seed of
/// three). More costs goals that need many short attempts: at 160, tritype's raw-bytes harness
/// fell from 9 to 7 of 10 runs (a double's walk to a root gained 2x); a resumable AVM, which
/// would make the size of one attempt matter less, is not built.
pub const AVM_MIN_EXECS: u64 = 64;

/// The credit an attempt needs before its AVM starts on an input of `len` bytes: as many
/// executions as an influence probe of it takes, and those of the probe too unless its result is
/// `cached`, so that the AVM gets at least as much as the probe that serves it; and at least
/// [`AVM_MIN_EXECS`] for the AVM itself.
pub fn avm_need(len: usize, cached: bool) -> u64 {
    let probe = if cached { 0 } else { influence_estimate(len) };
    probe + influence_estimate(len).max(AVM_MIN_EXECS)
}

/// The outcome a directed attempt aims at.
#[derive(Clone, Debug)]
pub(super) struct Focus {
    pub site: u32,
    pub outcome: u32,
    /// Its approach-level ladder (see [`super::guide::Guide::fitness`]).
    pub ladder: Rc<SiteLadder>,
}

impl Fuzzer<'_> {
    /// The approach-level ladder of `site` across calls: per level, the (site, outcome) pairs of
    /// the control dependences (Ferrante et al. 1987) in its function, then in the functions
    /// that call it ([`crate::fitness::branch::interprocedural_ladder`]). CFGs, the call sites,
    /// each block's own ladder, each function's caller levels and each site's ladder are
    /// computed on first use and kept.
    fn ladder(&mut self, site: u32) -> Rc<SiteLadder> {
        if let Some(l) = self.ladders.get(&site) {
            return l.clone();
        }
        let l = Rc::new(self.compute_ladder(site));
        self.ladders.insert(site, l.clone());
        l
    }

    fn compute_ladder(&mut self, site: u32) -> SiteLadder {
        let p = &self.s.target.program;
        let Some(s) = p.sites.get(site as usize) else {
            return SiteLadder::default();
        };
        let callers = self.callers.get_or_insert_with(|| p.callers());
        let cfgs = &mut self.cfgs;
        // a function's call sites appear in the ladders of every function it calls: compute the
        // ladder of each block once
        let intra = &mut self.intra_ladders;
        let mut intra = |f: usize, b: usize| {
            intra
                .entry((f, b))
                .or_insert_with(|| {
                    let cfg = cfgs.entry(f).or_insert_with(|| {
                        Cfg::new(
                            &p.functions[f]
                                .meta
                                .blocks
                                .iter()
                                .map(|b| b.succs.clone())
                                .collect::<Vec<_>>(),
                        )
                    });
                    intra_ladder(p, cfg, f, b)
                })
                .clone()
        };
        let own = intra(s.function, s.meta.block as usize);
        let callers = match self.caller_ladders.get(&s.function) {
            Some(c) => c.clone(),
            None => {
                let c = Rc::new(caller_ladder(callers, s.function, &mut intra));
                self.caller_ladders.insert(s.function, c.clone());
                c
            }
        };
        SiteLadder { own, callers }
    }

    /// One directed attempt on target `t` of the guide (see module docs), with `credit`
    /// executions for the directed stages ([`super::guide::GuideStats::credit`]), of which
    /// `search_credit` for its influence probe and AVM
    /// ([`super::guide::GuideStats::arm_credit`]; see [`super::guide::Guide::pick`]).
    ///
    /// Errors: the executor broke, an artifact could not be written.
    pub(super) fn attempt(&mut self, t: usize, credit: u64, search_credit: u64) -> Result<()> {
        let target = &self.guide.targets[t];
        let (site, outcome, start, i2s) =
            (target.site, target.outcome, target.best, target.needs_i2s());
        let Some(x) = target.pool.last().cloned() else {
            return Ok(());
        };
        let cached = target.influence_for(x.len()).map(<[usize]>::to_vec);
        let kept = target.start_ops.clone().map(|ops| Kept {
            ops,
            fitness: target.best,
            distance: self.guide.best_distance(t),
        });
        self.i2s_origin = target.made_by;
        let ladder = self.ladder(site);
        self.focus = Some(Focus {
            site,
            outcome,
            ladder,
        });
        let i2s = i2s.then(|| (self.guide.targets[t].improvements, self.guide.start_i2s(t)));
        let r = self.attempt_from(site, outcome, x, i2s, (credit, search_credit), cached, kept);
        self.focus = None;
        self.i2s_origin = None;
        self.stage = Stage::Havoc;
        self.guide
            .finish_attempt(outcome, start, *r.as_ref().unwrap_or(&false));
        r.map(|_| ())
    }

    /// The attempt from input `x`: substitution if `i2s` (`(improvements, first)`: the target's
    /// improvement count and the first candidate to try), at most `max(I2S_SLICE, credit)`
    /// candidates; then, once every candidate was tried, the influence probe (unless `cached`
    /// gives its positions for an input of this length) and the AVM if the smaller of `credit`
    /// and `search_credit` (less what this attempt spent) covers [`avm_need`]. `Ok(true)`: the
    /// AVM ran.
    #[allow(clippy::too_many_arguments)]
    fn attempt_from(
        &mut self,
        site: u32,
        outcome: u32,
        x: Vec<u8>,
        i2s: Option<(u32, usize)>,
        (credit, search_credit): (u64, u64),
        cached: Option<Vec<usize>>,
        kept: Option<Kept>,
    ) -> Result<bool> {
        let x_len = x.len();
        self.stage = Stage::I2s;
        // the start input's fitness and operand records: kept from the execution that made it
        // the best, or from running it again (not charged to the credit, which `Guide::pick`
        // checked before it)
        let f0 = match &kept {
            Some(k) => k.fitness,
            None => match self.probe(&x)? {
                Some(f) => f,
                None => return Ok(false),
            },
        };
        let spent_before = self.guide.stats.directed();
        let (mut cur, mut cur_f) = (x, f0);
        if let Some((at, first)) = i2s {
            let (recs, str_recs) = match kept {
                Some(k) => (
                    self.compared_in(site, outcome, k.ops.0, Some(k.distance)),
                    k.ops.1,
                ),
                None => {
                    let recs = self.compared(site, outcome);
                    self.harvest_strings(&cur);
                    (
                        recs,
                        self.str_ops
                            .iter()
                            .filter(|r| r.site == site)
                            .copied()
                            .collect(),
                    )
                }
            };
            let width = self
                .s
                .target
                .program
                .sites
                .get(site as usize)
                .and_then(|s| i2s::operand_width(&s.meta.operand_type));
            // the candidates up to the end of this slice, and one more to tell whether the list
            // goes on
            let end = first
                .saturating_add((credit as usize).max(I2S_SLICE))
                .min(i2s::MAX_CANDIDATES);
            let limit = (end + 1).min(i2s::MAX_CANDIDATES);
            let mut cands: Vec<Vec<u8>> = Vec::new();
            let mut seen = std::collections::HashSet::new();
            let mut add = |ys: Vec<Vec<u8>>| {
                for y in ys {
                    if cands.len() < limit && seen.insert(i2s::input_hash(&y)) {
                        cands.push(y);
                    }
                }
                cands.len() < limit
            };
            if let Some(w) = width {
                for rec in &recs {
                    if !add(i2s::candidates_upto(&cur, rec, w, limit)) {
                        break;
                    }
                }
            }
            for rec in &str_recs {
                if !add(i2s::str_candidates_upto(&cur, rec, limit)) {
                    break;
                }
            }
            for rec in &recs {
                add(i2s::length_candidates(&cur, rec, self.max_len));
            }
            let end = end.min(cands.len());
            let done = end == cands.len();
            self.guide.i2s_progress(outcome, at, end, done);
            let mut repair = Repair::new(&cur, cur_f, I2S_SLICE as u64);
            for mut y in cands.into_iter().take(end).skip(first) {
                let Some(f) = self.probe_repaired(&mut y, &mut repair)? else {
                    return Ok(false);
                };
                if f < cur_f {
                    (cur, cur_f) = (y, f);
                }
            }
            if !done {
                return Ok(false);
            }
        }
        if !cur_f.is_finite() || self.opts.i2s_only {
            return Ok(false);
        }
        let left = search_credit
            .min(credit)
            .saturating_sub(self.guide.stats.directed() - spent_before);
        let cached = cached.filter(|_| cur.len() == x_len);
        if left < avm_need(cur.len(), cached.is_some()) {
            return Ok(false);
        }
        self.stage = Stage::Influence;
        let before = self.guide.stats.directed();
        let pos = match cached {
            Some(p) => p,
            None => {
                let Some(pos) = avm::influencing(&cur, cur_f, INFLUENCE_EXECS, |y| self.probe(y))?
                else {
                    return Ok(true);
                };
                self.guide.set_influence(outcome, cur.len(), pos.clone());
                pos
            }
        };
        if pos.is_empty() {
            return Ok(true);
        }
        let left = left
            .saturating_sub(self.guide.stats.directed() - before)
            .clamp(1, AVM_EXECS);
        self.stage = Stage::Avm;
        let mut rng = ChaCha8Rng::seed_from_u64(self.rng.random());
        let specials = self.compares_floats;
        let mut repair = Repair::new(&cur, cur_f, left / 2);
        // numbers in text first: their bytes' own fields move digits, not values
        let mut fields = avm::text_fields(&pos, &cur);
        fields.extend(avm::fields(&pos, cur.len()));
        let mut search = Avm {
            fields,
            data: cur,
            best: cur_f,
            budget: left,
            specials,
        };
        search.run(&mut rng, |y| self.probe_repaired(y, &mut repair))?;
        Ok(true)
    }

    /// The compares that decide `outcome` of `site` in the last execution, as operand records:
    /// the operand log's record of a compare site; for a `switch` (whose value the log does not
    /// hold), the case value of `outcome` against the two values at the outcome's distance from
    /// it (`|value − case|`, so the value is `case ± distance`).
    fn compared(&mut self, site: u32, outcome: u32) -> Vec<OperandRec> {
        let mut ops = std::mem::take(&mut self.ops);
        self.s.target.executor.last_operands(&mut ops);
        let out: Vec<OperandRec> = ops.iter().filter(|r| r.site == site).copied().collect();
        self.ops = ops;
        let d = self.s.target.executor.last_distance(outcome);
        self.compared_in(site, outcome, out, d)
    }

    /// [`Fuzzer::compared`] from `out`, the site's operand records of an execution in which
    /// `outcome`'s distance was `d`.
    fn compared_in(
        &self,
        site: u32,
        outcome: u32,
        mut out: Vec<OperandRec>,
        d: Option<f64>,
    ) -> Vec<OperandRec> {
        let Some(meta) = self
            .s
            .target
            .program
            .sites
            .get(site as usize)
            .map(|s| &s.meta)
        else {
            return out;
        };
        if meta.kind == SiteKind::Switch {
            let k = outcome.wrapping_sub(self.s.target.program.sites[site as usize].outcome_base)
                as usize;
            if let (Some(&c), Some(d)) = (k.checked_sub(1).and_then(|k| meta.case_values.get(k)), d)
            {
                if d.is_finite() && d > 0.0 && d < 9.0e15 {
                    let d = d as i64;
                    for v in [c.wrapping_add(d), c.wrapping_sub(d)] {
                        out.push(OperandRec {
                            site,
                            kind: Pred::Eq as u32 | OPERAND_B_CONST,
                            a: v as u64,
                            b: c as u64,
                        });
                    }
                }
            }
        }
        out
    }

    /// [`Fuzzer::probe`] of `y` (cut to the largest input), and a checksum repair of it
    /// ([`Repair`]) when its fitness is at a higher approach level than `r`'s best: `y` is
    /// replaced by the repaired input when that is better. The fitness of `y` as it leaves, or `None` when the attempt must stop.
    fn probe_repaired(&mut self, y: &mut Vec<u8>, r: &mut Repair) -> Result<Option<f64>> {
        // what runs is what the search keeps: a number's text may have grown past the largest
        // input
        y.truncate(self.max_len);
        let Some(mut f) = self.probe(y)? else {
            return Ok(None);
        };
        if f.floor() > r.best.floor() && r.failed < REPAIR_TRIES && r.cap > 0 {
            match self.repair(y, f, r)? {
                None => return Ok(None),
                Some(Some((z, g))) => {
                    *y = z;
                    f = g;
                    r.failed = 0;
                    self.guide.stats.repairs_won += 1;
                }
                Some(None) => {}
            }
        }
        if f < r.best {
            r.best = f;
            r.best_hash = i2s::input_hash(y);
        }
        Ok(Some(f))
    }

    /// The repair of `y`, whose fitness `f` left the focused outcome's path at ladder level
    /// `floor(f)`: `Some(Some((z, g)))` for a repaired input `z` of lower fitness `g`,
    /// `Some(None)` when there is none (no equality between computed values at that level, or
    /// no candidate that helps), `None` when the attempt must stop.
    fn repair(
        &mut self,
        y: &[u8],
        f: f64,
        r: &mut Repair,
    ) -> Result<Option<Option<(Vec<u8>, f64)>>> {
        let Some(focus) = self.focus.clone() else {
            return Ok(Some(None));
        };
        let sites = &self.s.target.program.sites;
        // the level whose compare the candidate decided the other way: fitness i + 1 + d/(d+1)
        // for ladder level i
        let Some(level) = (f as usize)
            .checked_sub(1)
            .and_then(|i| focus.ladder.levels().nth(i))
        else {
            return Ok(Some(None));
        };
        let equalities: Vec<(u32, usize)> = level
            .iter()
            .filter_map(|&(s, _)| {
                let m = &sites.get(s as usize)?.meta;
                let eq = m.pred.is_some_and(|p| p.is_int() && p.is_equality())
                    && self
                        .repair_misses
                        .get(&s)
                        .is_none_or(|&k| k < REPAIR_SITE_MISSES);
                eq.then(|| i2s::operand_width(&m.operand_type).map(|w| (s, w)))?
            })
            .collect();
        if equalities.is_empty() {
            return Ok(Some(None));
        }
        self.guide.stats.repairs += 1;
        r.failed += 1;
        // the candidate again, with every compare logged (fully covered sites too)
        r.cap = r.cap.saturating_sub(1);
        self.evaluate_logging_every_compare(y)?;
        if self.focus_fitness == 0.0 || self.done() {
            return Ok(None);
        }
        let mut ops = std::mem::take(&mut self.ops);
        self.s.target.executor.last_operands(&mut ops);
        let mut broken: Vec<(OperandRec, usize)> = Vec::new();
        for o in &ops {
            let Some(&(_, w)) = equalities.iter().find(|&&(s, _)| s == o.site) else {
                continue;
            };
            if o.constant(true)
                || o.constant(false)
                || o.kind & (OPERANDS_FLOAT | OPERANDS_POINTER) != 0
            {
                // never a checksum, whatever the input: a constant, a float, an address
                self.repair_misses.insert(o.site, u32::MAX);
            } else if o.a != o.b && broken.len() < 2 {
                broken.push((*o, w));
            }
        }
        self.ops = ops;
        // a site whose compare the log shows as no broken equality of computed values (equal
        // operands: another evaluation of the site in a loop decided) misses too
        for &(s, _) in &equalities {
            if !broken.iter().any(|(o, _)| o.site == s) {
                self.repair_missed(s);
            }
        }
        let mut best: Option<(Vec<u8>, f64)> = None;
        for (rec, w) in broken {
            // the side the input holds is rewritten with the other, computed one; when the input
            // holds both (two fields compared, `a == b` of a triangle's sides) or neither, the
            // compare is not a checksum of the input
            let side = |a_from_input: bool| OperandRec {
                kind: rec.kind
                    | if a_from_input {
                        OPERAND_B_CONST
                    } else {
                        OPERAND_A_CONST
                    },
                ..rec
            };
            let (ca, cb) = (
                i2s::candidates_upto(y, &side(true), w, REPAIR_CANDIDATES),
                i2s::candidates_upto(y, &side(false), w, REPAIR_CANDIDATES),
            );
            let cands = match (ca.is_empty(), cb.is_empty()) {
                (false, true) => ca,
                (true, false) => cb,
                _ => {
                    self.repair_missed(rec.site);
                    continue;
                }
            };
            self.repair_misses.insert(rec.site, 0);
            for z in cands {
                if r.cap == 0 {
                    break;
                }
                if i2s::input_hash(&z) == r.best_hash {
                    continue;
                }
                r.cap -= 1;
                let Some(g) = self.probe(&z)? else {
                    return Ok(None);
                };
                if g < best.as_ref().map_or(f, |b| b.1) {
                    best = Some((z, g));
                }
            }
            if best.is_some() {
                break;
            }
        }
        Ok(Some(best))
    }

    /// One more repair at equality site `s` whose logged compare was no checksum (a site marked
    /// `u32::MAX`, never a checksum, stays so).
    fn repair_missed(&mut self, s: u32) {
        let misses = self.repair_misses.entry(s).or_insert(0);
        *misses = misses.saturating_add(1);
    }

    /// Run `y` (cut to the largest input) through `evaluate`; the fitness of the focused outcome,
    /// or `None` when the attempt must stop: the outcome was taken, or the run is ending.
    fn probe(&mut self, y: &[u8]) -> Result<Option<f64>> {
        if self.done() {
            return Ok(None);
        }
        let y = &y[..y.len().min(self.max_len)];
        self.evaluate(y, true)?;
        let f = self.focus_fitness;
        if f == 0.0 || self.done() {
            return Ok(None);
        }
        Ok(Some(f))
    }
}
