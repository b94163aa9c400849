//! Input-to-state on **every** compare of a corpus entry (Aschermann et al. 2019, REDQUEEN's
//! input-to-state stage; AFL++'s CmpLog): each entry, once, runs with every compare's operands
//! logged (every site, fully covered or not, and up to
//! [`evotest_abi::shm::OPERAND_EVALS`] evaluations per site, not only the first: integer,
//! float and string compares), and the [`i2s`] candidates of those operands run as new inputs.
//!
//! The directed attempts ([`super::directed`]) substitute the operands of one frontier outcome's
//! compare, as the log holds them at that site's first evaluation. That misses two kinds of
//! compare, both common in parsers: a compare in a loop over a table (a keyword table, a
//! palette), whose first evaluation is against the table's first entry; and a compare whose
//! outcomes are both covered, whose other operand values still lead elsewhere (a `strcmp`
//! against the keyword `"SELECT"` that some input matched, while `"INSERT"`, compared at the
//! same site, never was). Logging every compare of an entry is what CmpLog does for each queue
//! entry, at the price of one execution with the quiet map suspended.
//!
//! Candidates go round-robin over the logged compares (each compare's first candidate, then
//! each one's second, …), compares whose operands differ first, at most
//! [`MAX_CANDIDATES_PER_ENTRY`] per entry, in turns of at most [`SLICE`], on the share of havoc's
//! effort its recent yield earns ([`super::guide::GuideStats::arm_credit`], within the directed
//! stages' credit): it takes its turn while it has had no more executions than the directed
//! attempts, and otherwise the credit the search stages do not keep. Compares not yet tried (the
//! same operands, in an earlier entry) come before those that were, and only a few of those are
//! tried again ([`MAX_TRIED_PER_ENTRY`]): a program's set-up code runs the same compares for every
//! input.

use super::guide::Stage;
use super::{i2s, Fuzzer};
use crate::trace::{OperandRec, StrOperandRec};
use anyhow::Result;
use std::collections::HashSet;

/// Most candidates run for one corpus entry.
pub const MAX_CANDIDATES_PER_ENTRY: usize = 256;
/// Most compares already tried for an earlier entry (the same operands) that give an entry
/// candidates: a program's set-up code runs the same compares for every input, and on sqlite3
/// trying them all again for every entry halved the stage's yield; but the same substitution in
/// another input can lead elsewhere (a keyword after a new header), so a few are tried.
pub const MAX_TRIED_PER_ENTRY: usize = 16;
/// Most candidates of loose compares (records of [`evotest_abi::shm::LOOSE_SITE`]: compares no
/// branch tests) run for one entry, in the room the sites' candidates leave: a program computes
/// with many more compares than it branches on (sqlite3's executions log hundreds), most of them
/// on values no input byte holds, and with no bound they took executions from the sites'
/// candidates of later entries (sqlite3 covered 1.5-4.8% fewer outcomes in 60 s in three of four
/// pairs). Compares that gave candidates are tried last for later entries, so the next entries
/// try others.
pub const MAX_LOOSE_PER_ENTRY: usize = 32;
/// Most bytes of candidate inputs built at once for one entry: a long entry (a seed file of
/// hundreds of kilobytes) gets fewer candidates per compare, and fewer in all, so that the stage
/// never holds gigabytes of near-copies of it (with 96 candidates of each of 256 compares, a
/// 200 KB seed made 4.9 GB).
pub const CANDIDATE_BYTES: usize = 64 << 20;
/// Most candidates run in one turn of the stage (as many as a directed attempt's
/// input-to-state slice), so that the stage and the attempts take turns often.
pub const SLICE: usize = super::directed::I2S_SLICE;

/// The candidates of the operand records `recs` and string records `strs` of one execution of
/// `data`, round-robin over the distinct compares (those whose operands differ first, string
/// compares before the others), at most `cap`. `width(site)` is the operand width in bytes of a site's compare ([`i2s::operand_width`]; a loose compare's record holds its own, [`OperandRec::loose_width`];
/// `None`: its integer records are skipped); no candidate is longer than `max_len` bytes (one
/// that changes the input's length: [`i2s::length_candidates`], a longer string). No candidate twice, none equal to
/// `data`. Among the compares whose operands differ, and among those whose operands are equal,
/// those whose key is in `tried` (the same kind and operands, at any site) come after the
/// others, and at most [`MAX_TRIED_PER_ENTRY`] of them give candidates; the key of each compare
/// that gave candidates is added.
pub fn candidates<'a>(
    data: &[u8],
    recs: &'a [OperandRec],
    strs: &'a [StrOperandRec],
    width: impl Fn(u32) -> Option<usize>,
    max_len: usize,
    cap: usize,
    tried: &mut HashSet<u64>,
) -> Vec<Vec<u8>> {
    // the distinct compares, those whose operands differ first (string compares, then integer
    // and float ones, each in log order); candidate lists are built for the first `cap` that
    // give any, since each list gives the round-robin at most one candidate per round
    let mut seen_int: HashSet<(u32, u64, u64)> = HashSet::new();
    let mut seen_str: HashSet<(&[u8], &[u8])> = HashSet::new();
    let (mut differ, mut equal): (Vec<Either>, Vec<Either>) = (Vec::new(), Vec::new());
    for r in strs {
        if seen_str.insert((r.a(), r.b())) {
            if r.a() != r.b() {
                differ.push(Either::Str(r))
            } else {
                equal.push(Either::Str(r))
            }
        }
    }
    // the branch sites' compares before the loose ones (a compare no branch tests: a helper's
    // `return v == MAGIC`), whose candidates only fill the room the sites' leave
    for r in recs
        .iter()
        .filter(|r| !r.is_loose())
        .chain(recs.iter().filter(|r| r.is_loose()))
    {
        if seen_int.insert((r.kind & !evotest_abi::shm::OPERANDS_REPEATED, r.a, r.b)) {
            if r.a != r.b {
                differ.push(Either::Int(r))
            } else {
                equal.push(Either::Int(r))
            }
        }
    }
    // compares not tried for an earlier entry before those that were (the same substitution in
    // another input can still lead elsewhere: a keyword after a new header)
    let (fresh_d, old_d): (Vec<Either>, Vec<Either>) =
        differ.into_iter().partition(|e| !tried.contains(&e.key()));
    let (fresh_e, old_e): (Vec<Either>, Vec<Either>) =
        equal.into_iter().partition(|e| !tried.contains(&e.key()));
    let mut lists: Vec<(bool, Vec<Vec<u8>>)> = Vec::new();
    let mut old_lists = 0;
    let old_d: Vec<(bool, Either)> = old_d.into_iter().map(|e| (true, e)).collect();
    let old_e: Vec<(bool, Either)> = old_e.into_iter().map(|e| (true, e)).collect();
    let fresh = |v: Vec<Either<'a>>| v.into_iter().map(|e| (false, e)).collect::<Vec<_>>();
    // within [`CANDIDATE_BYTES`]: the lists' length, and so the candidates in all
    let n_lists =
        (fresh_d.len() + fresh_e.len() + old_d.len().min(MAX_TRIED_PER_ENTRY) + old_e.len())
            .clamp(1, cap.max(1));
    let room = CANDIDATE_BYTES / data.len().max(1);
    let cap = cap.min(room.max(SLICE));
    let per_list = (room / n_lists).clamp(1, i2s::MAX_CANDIDATES);
    for (old, e) in fresh(fresh_d)
        .into_iter()
        .chain(old_d)
        .chain(fresh(fresh_e))
        .chain(old_e)
    {
        if lists.len() >= cap {
            break;
        }
        if old && old_lists >= MAX_TRIED_PER_ENTRY {
            continue;
        }
        let c = match e {
            Either::Str(r) => i2s::str_candidates_upto(data, r, per_list),
            Either::Int(r) => match r.loose_width().or_else(|| width(r.site)) {
                Some(w) => {
                    let mut c = i2s::candidates_upto(data, r, w, per_list);
                    c.extend(i2s::length_candidates(data, r, max_len));
                    c
                }
                None => continue,
            },
        };
        if !c.is_empty() {
            tried.insert(e.key());
            lists.push((e.is_loose(), c));
            old_lists += usize::from(old);
        }
    }
    // round-robin over the sites' lists, then over the loose compares' in the room left
    let mut out: Vec<Vec<u8>> = Vec::new();
    let mut seen = HashSet::new();
    let mut from_sites = 0;
    'groups: for group_is_loose in [false, true] {
        if group_is_loose {
            from_sites = out.len();
        }
        let group: Vec<&Vec<Vec<u8>>> = lists
            .iter()
            .filter(|(loose, _)| *loose == group_is_loose)
            .map(|(_, c)| c)
            .collect();
        let longest = group.iter().map(|c| c.len()).max().unwrap_or(0);
        for k in 0..longest {
            for c in &group {
                if out.len() >= cap
                    || group_is_loose && out.len() >= from_sites + MAX_LOOSE_PER_ENTRY
                {
                    break 'groups;
                }
                if let Some(y) = c.get(k) {
                    if y.as_slice() != data && y.len() <= max_len && seen.insert(i2s::input_hash(y))
                    {
                        out.push(y.clone());
                    }
                }
            }
        }
    }
    out
}

/// A logged compare: integer or float, or string.
#[derive(Clone, Copy)]
enum Either<'a> {
    Int(&'a OperandRec),
    Str(&'a StrOperandRec),
}

impl Either<'_> {
    /// Whether it is a loose compare's record ([`evotest_abi::shm::LOOSE_SITE`]).
    fn is_loose(self) -> bool {
        matches!(self, Either::Int(r) if r.is_loose())
    }

    /// A hash of the compare's kind and operands (not its site), for [`candidates`]' `tried`.
    fn key(self) -> u64 {
        use std::hash::{Hash, Hasher};
        let mut h = std::collections::hash_map::DefaultHasher::new();
        match self {
            Either::Int(r) => {
                (0u8, r.kind & !evotest_abi::shm::OPERANDS_REPEATED, r.a, r.b).hash(&mut h)
            }
            Either::Str(r) => (1u8, r.func, r.a(), r.b()).hash(&mut h),
        }
        h.finish()
    }
}

impl Fuzzer<'_> {
    /// One turn of the stage: when no candidates wait, the next corpus entry not yet done runs
    /// with every compare logged and its candidates (at most [`MAX_CANDIDATES_PER_ENTRY`]) wait;
    /// otherwise the next waiting candidates run, at most `credit` and [`SLICE`], each through
    /// `evaluate`, so that what covers or crashes is kept and triaged.
    ///
    /// Errors: the executor broke, an artifact could not be written.
    pub(super) fn cmplog_step(&mut self, credit: u64) -> Result<()> {
        self.stage = Stage::Cmplog;
        let r = if self.cmplog_queue.is_empty() {
            self.cmplog_log_next()
        } else {
            self.cmplog_run(credit)
        };
        self.stage = Stage::Havoc;
        r
    }

    /// [`Fuzzer::evaluate`] (keeping what it covers) of `data` with every evaluation of every
    /// compare logged and the quiet map suspended, so that fully covered sites log their
    /// operands too ([`crate::exec::Executor::log_every_compare`]); the log is read with
    /// `last_operands` afterwards.
    ///
    /// Errors: those of `evaluate`.
    pub(super) fn evaluate_logging_every_compare(&mut self, data: &[u8]) -> Result<bool> {
        let exec = &mut self.s.target.executor;
        exec.suspend_quiet(true);
        exec.log_every_compare(true);
        let r = self.evaluate(data, true);
        let exec = &mut self.s.target.executor;
        exec.log_every_compare(false);
        exec.suspend_quiet(false);
        r
    }

    /// Run the next corpus entry with every compare logged, and queue its candidates.
    fn cmplog_log_next(&mut self) -> Result<()> {
        let i = self.cmplog_at;
        self.cmplog_at += 1;
        let Some(data) = self.corpus.entries.get(i).map(|e| e.data.clone()) else {
            return Ok(());
        };
        if data.is_empty() {
            return Ok(());
        }
        self.evaluate_logging_every_compare(&data)?;
        let mut ops = Vec::new();
        if !self.s.target.executor.last_operands(&mut ops) {
            return Ok(());
        }
        // the string log into `str_ops`, its compared strings to havoc's tokens
        self.harvest_strings(&data);
        let strs = &self.str_ops;
        let sites = &self.s.target.program.sites;
        let width = |s: u32| {
            sites
                .get(s as usize)
                .and_then(|s| i2s::operand_width(&s.meta.operand_type))
        };
        // no longer than length control lets havoc's inputs be (or the entry itself): a compare
        // with a value that happens to equal the input's length made inputs of up to the
        // largest length, and libyaml's run slowed fourfold on them
        let limit = self.len_limit.max(data.len()).min(self.max_len);
        let mut cands = candidates(
            &data,
            &ops,
            strs,
            width,
            limit,
            MAX_CANDIDATES_PER_ENTRY,
            &mut self.cmplog_tried,
        );
        cands.reverse();
        self.cmplog_queue = cands;
        Ok(())
    }

    /// Run the next waiting candidates: at most `credit` and [`SLICE`], at least one; some of
    /// them coverage-only where those run faster ([`super::Lite::candidate_turn`]).
    fn cmplog_run(&mut self, credit: u64) -> Result<()> {
        for _ in 0..(credit as usize).clamp(1, SLICE) {
            if self.done() {
                break;
            }
            // (no candidate is longer than the largest input: see `cmplog_log_next`)
            let Some(y) = self.cmplog_queue.pop() else {
                break;
            };
            let want = self.lite.candidate_turn(self.by_time());
            let (lite, r) = self.evaluate_maybe_lite(&y, want);
            self.lite.candidates += lite as u64;
            r?;
        }
        Ok(())
    }

    /// Whether the stage has something to do: candidates wait, or a corpus entry is not yet
    /// done.
    pub(super) fn cmplog_pending(&self) -> bool {
        !self.cmplog_queue.is_empty() || self.cmplog_at < self.corpus.len()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use evotest_abi::pred::Pred;

    fn rec(site: u32, a: u64, b: u64) -> OperandRec {
        OperandRec {
            site,
            kind: Pred::Eq as u32,
            a,
            b,
        }
    }

    #[test]
    fn a_long_entry_gets_candidates_within_the_byte_budget() {
        // a 400 KB seed of zeros and 300 compares of a byte with 0: each compare's operand occurs
        // at every offset; the candidates stay within the budget and come at once
        let data = vec![0u8; 400_000];
        let recs: Vec<OperandRec> = (0..300).map(|k| rec(k, 0, 1 + k as u64 % 250)).collect();
        let t = std::time::Instant::now();
        let c = candidates(
            &data,
            &recs,
            &[],
            |_| Some(1),
            data.len(),
            MAX_CANDIDATES_PER_ENTRY,
            &mut HashSet::new(),
        );
        assert!(!c.is_empty());
        assert!(
            c.len() * data.len() <= CANDIDATE_BYTES,
            "{} candidates of {} bytes",
            c.len(),
            data.len()
        );
        // a guard against a quadratic search (minutes), not a speed figure: 3.5 s in a debug
        // build on an idle machine of two cores, 5.1 s with a build beside it
        assert!(t.elapsed().as_secs_f64() < 30.0, "{:?}", t.elapsed());
        // a single compare gives its candidates at aligned offsets first, at most MAX_CANDIDATES
        let one = i2s::candidates(&data, &rec(0, 0, 7), 1);
        assert_eq!(one.len(), i2s::MAX_CANDIDATES);
        assert_eq!(one[0][0], 7);
        assert_eq!(i2s::candidates_upto(&data, &rec(0, 0, 7), 1, 3).len(), 3);
    }

    #[test]
    fn candidates_go_round_robin_over_distinct_compares_differing_first() {
        // a palette lookup in a loop: r == 0 (matched), r == 255, r == 128, logged at one site
        let data = [7u8, 0, 0];
        let recs = [rec(1, 7, 7), rec(1, 7, 255), rec(1, 7, 255), rec(1, 7, 128)];
        let c = candidates(&data, &recs, &[], |_| Some(1), 64, 10, &mut HashSet::new());
        assert_eq!(
            c[0],
            vec![255, 0, 0],
            "differing operands first, in log order"
        );
        assert_eq!(c[1], vec![128, 0, 0]);
        // the equal pair's neighbours come after: 8 and 6
        assert!(
            c[2..].contains(&vec![8, 0, 0]) && c[2..].contains(&vec![6, 0, 0]),
            "{c:?}"
        );
        assert_eq!(c.len(), 4, "the repeated record gives nothing new: {c:?}");
        // no candidate longer than max_len: a string substitution that grows the input
        let strs = [StrOperandRec::new(
            2,
            evotest_abi::distance::STR_STRCMP,
            0,
            b"\x07",
            b"LONGER",
        )];
        assert!(candidates(&data, &[], &strs, |_| Some(1), 6, 10, &mut HashSet::new()).is_empty());
        assert!(!candidates(&data, &[], &strs, |_| Some(1), 8, 10, &mut HashSet::new()).is_empty());
        // the cap
        assert_eq!(
            candidates(&data, &recs, &[], |_| Some(1), 64, 1, &mut HashSet::new()),
            vec![vec![255, 0, 0]]
        );
        // a compare with the input's length gives lengths up to max_len only (a huge operand
        // gives none)
        let len = [
            OperandRec {
                site: 3,
                kind: Pred::IUlt as u32,
                a: 3,
                b: u64::MAX - 1,
            },
            OperandRec {
                site: 3,
                kind: Pred::IUlt as u32,
                a: 3,
                b: 8,
            },
        ];
        let c = candidates(&data, &len, &[], |_| Some(1), 64, 10, &mut HashSet::new());
        assert!(
            c.iter().all(|y| y.len() <= 64) && c.contains(&vec![7, 0, 0, 0, 0, 0, 0, 0]),
            "{c:?}"
        );
        // compares tried for an earlier entry come after the others
        let mut tried = HashSet::new();
        assert_eq!(
            candidates(&data, &recs, &[], |_| Some(1), 64, 10, &mut tried).len(),
            4
        );
        let more = [rec(1, 7, 255), rec(1, 7, 99)];
        assert_eq!(
            candidates(&[7, 1, 1], &more, &[], |_| Some(1), 64, 10, &mut tried),
            vec![vec![99, 1, 1], vec![255, 1, 1]]
        );
        // at most MAX_TRIED_PER_ENTRY of the tried compares again
        let many: Vec<OperandRec> = (0..40).map(|v| rec(1, 7, 100 + v)).collect();
        let mut tried = HashSet::new();
        assert_eq!(
            candidates(&data, &many, &[], |_| Some(1), 64, 256, &mut tried).len(),
            40
        );
        assert_eq!(
            candidates(&[7, 2, 2], &many, &[], |_| Some(1), 64, 256, &mut tried).len(),
            MAX_TRIED_PER_ENTRY
        );
        // a site of unknown width gives no integer candidates
        assert!(candidates(&data, &recs, &[], |_| None, 64, 10, &mut HashSet::new()).is_empty());
    }

    #[test]
    fn loose_compares_give_candidates_of_their_own_width_after_the_sites() {
        use evotest_abi::shm::{LOOSE_SITE, OPERANDS_WIDTH_SHIFT};
        // `return v == 0x0302` in a helper (a 2-byte compare, logged first) and a branch site's
        // byte compare `d[4] == 9` (logged after it); the input holds v = 0x0101 at offset 0
        let data = [1u8, 1, 0, 0, 5];
        let loose = OperandRec {
            site: LOOSE_SITE,
            kind: Pred::Eq as u32 | 2 << OPERANDS_WIDTH_SHIFT,
            a: 0x0101,
            b: 0x0302,
        };
        assert_eq!(loose.loose_width(), Some(2));
        assert_eq!(rec(3, 0x0101, 0x0302).loose_width(), None);
        let recs = [loose, rec(3, 5, 9)];
        // no site metadata has LOOSE_SITE: its width comes from the record
        let width = |s: u32| (s == 3).then_some(1);
        let c = candidates(&data, &recs, &[], width, 64, 10, &mut HashSet::new());
        assert_eq!(c[0], vec![1, 1, 0, 0, 9], "the site's compare first: {c:?}");
        assert!(c.contains(&vec![2, 3, 0, 0, 5]), "{c:?}");
        // as any site's, a loose record of unknown width gives nothing
        let no_width = OperandRec {
            kind: Pred::Eq as u32,
            ..loose
        };
        assert!(candidates(&data, &[no_width], &[], width, 64, 10, &mut HashSet::new()).is_empty());
    }

    #[test]
    fn string_compares_of_a_keyword_table_each_give_a_candidate() {
        use evotest_abi::distance::STR_STRCMP;
        let data = b"SELEC x";
        let strs = [
            StrOperandRec::new(2, STR_STRCMP, 0, b"SELEC", b"SELECT"),
            StrOperandRec::new(2, STR_STRCMP, 0, b"SELEC", b"INSERT"),
        ];
        let c = candidates(data, &[], &strs, |_| Some(4), 64, 10, &mut HashSet::new());
        assert!(
            c.contains(&b"SELECT x".to_vec()) && c.contains(&b"INSERT x".to_vec()),
            "{c:?}"
        );
        // round-robin: the first candidate of each compare before any second one
        assert!(
            c[0].starts_with(b"SELECT") && c[1].starts_with(b"INSERT"),
            "{c:?}"
        );
    }
}
