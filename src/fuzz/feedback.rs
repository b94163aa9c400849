//! What makes an input interesting: a branch outcome no earlier input took, or a site reached a
//! number of times in a hit-count bucket not seen before at that site (AFL's buckets 1, 2, 3,
//! 4–7, 8–15, 16–31, 32–127, 128+, on `SiteRec::hits`). Each outcome, and each (site, bucket), is
//! a **feature**. The map also counts how many executions took each outcome, for the scheduler's
//! rarity weights.

use crate::exec::Coverage;

/// The hit-count bucket (0..8) of a site run `hits` > 0 times.
#[inline]
pub fn bucket(hits: u32) -> u8 {
    // a table, not a chain of compares: hit counts vary from one execution to the next, and a
    // mispredicted branch per site is most of a scan's cost
    BUCKETS[hits.min(128) as usize]
}

const fn bucket_of(hits: u32) -> u8 {
    match hits {
        0 | 1 => 0,
        2 => 1,
        3 => 2,
        4..=7 => 3,
        8..=15 => 4,
        16..=31 => 5,
        32..=127 => 6,
        _ => 7,
    }
}

const BUCKETS: [u8; 129] = {
    let mut t = [0u8; 129];
    let mut h = 0;
    while h < 129 {
        t[h] = bucket_of(h as u32);
        h += 1;
    }
    t
};

/// One feature (see module docs).
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum Feature {
    /// A branch outcome (global ID).
    Outcome(u32),
    /// A global site run a number of times in a hit-count bucket ([`bucket`]).
    Bucket(u32, u8),
}

impl Feature {
    /// Whether the execution of `cov` has this feature. `cov`'s lists are in site order (as
    /// executors fill them, and outcome IDs follow site IDs), so this is a binary search; were
    /// they not sorted, it could only answer "absent" wrongly, which costs a replacement
    /// ([`super::corpus::Corpus::replace`]), never coverage.
    pub fn is_in(self, cov: &Coverage) -> bool {
        match self {
            Feature::Outcome(o) => cov.outcomes.binary_search(&o).is_ok(),
            Feature::Bucket(s, b) => cov
                .sites
                .binary_search_by_key(&s, |&(x, _)| x)
                .is_ok_and(|i| bucket(cov.sites[i].1) == b),
        }
    }

    /// [`Feature::is_in`] for a coverage whose lists are pending ([`Coverage::is_pending`]):
    /// read from its words, with `site_outcomes[s]` site `s`'s first outcome and number of
    /// outcomes (a site out of its range: absent). An outcome counts as present whether or not a
    /// site has it; a feature is only ever an outcome that has one.
    pub fn is_in_words(self, cov: &Coverage, site_outcomes: &[(u32, u32)]) -> bool {
        match self {
            Feature::Outcome(o) => cov.count_of(o) != 0,
            Feature::Bucket(s, b) => site_outcomes.get(s as usize).is_some_and(|&(base, n)| {
                let hits: u32 = (base..base + n).map(|o| cov.count_of(o) as u32).sum();
                hits > 0 && bucket(hits) == b
            }),
        }
    }
}

/// The features seen so far, and per outcome the executions that took it.
#[derive(Clone, Debug)]
pub struct Feedback {
    /// Per global outcome, one bit: taken by some recorded execution.
    outcomes: Vec<u64>,
    /// Per global site: bit b set when bucket b was seen.
    buckets: Vec<u8>,
    /// Per global outcome: its site (`u32::MAX`: unknown, see [`Feedback::with_sites`]), and
    /// the executions (counted with [`Feedback::count`]) that took it, saturating. Side by side,
    /// as a scan of a coverage-only execution reads both for each outcome it took.
    slots: Vec<Slot>,
    /// The sites of `slots` are known.
    has_sites: bool,
    covered: usize,
    features: usize,
}

#[derive(Clone, Copy, Debug)]
struct Slot {
    site: u32,
    freq: u32,
}

impl Feedback {
    /// An empty map of `sites` sites and `outcomes` outcomes.
    pub fn new(sites: usize, outcomes: usize) -> Feedback {
        Feedback {
            outcomes: vec![0; outcomes.div_ceil(64)],
            buckets: vec![0; sites],
            slots: vec![
                Slot {
                    site: u32::MAX,
                    freq: 0
                };
                outcomes
            ],
            has_sites: false,
            covered: 0,
            features: 0,
        }
    }

    /// [`Feedback::new`] for `outcome_site.len()` outcomes, knowing each one's site
    /// (`outcome_site[o]`, `u32::MAX`: none), which [`Feedback::is_new_else_count`] needs.
    pub fn with_sites(sites: usize, outcome_site: &[u32]) -> Feedback {
        let mut f = Feedback::new(sites, outcome_site.len());
        for (slot, &s) in f.slots.iter_mut().zip(outcome_site) {
            slot.site = s;
        }
        f.has_sites = true;
        f
    }

    /// Whether outcome `o` is recorded (false when out of range).
    #[inline]
    fn seen(&self, o: usize) -> Option<bool> {
        (o < self.slots.len()).then(|| self.outcomes[o / 64] >> (o % 64) & 1 != 0)
    }

    /// The number of global outcomes the map has.
    pub fn outcomes(&self) -> usize {
        self.slots.len()
    }

    /// Outcomes taken by some recorded execution.
    pub fn covered(&self) -> usize {
        self.covered
    }

    /// Features (outcomes and site buckets) seen.
    pub fn features(&self) -> usize {
        self.features
    }

    /// Whether outcome `o` was taken by a recorded execution.
    pub fn is_covered(&self, o: u32) -> bool {
        self.seen(o as usize) == Some(true)
    }

    /// Record outcome `o` as taken without an execution (an earlier in-process worker's, that
    /// this worker's replay of the corpus did not take again: a target whose coverage is not
    /// deterministic). Returns whether it was new. Out-of-range IDs are ignored.
    pub fn mark_covered(&mut self, o: u32) -> bool {
        if self.seen(o as usize) != Some(false) {
            return false;
        }
        self.outcomes[o as usize / 64] |= 1 << (o % 64);
        self.covered += 1;
        self.features += 1;
        true
    }

    /// Whether `cov` has a feature not recorded yet.
    pub fn is_new(&self, cov: &Coverage) -> bool {
        cov.outcomes
            .iter()
            .any(|&o| self.seen(o as usize) == Some(false))
            || cov.sites.iter().any(|&(s, h)| {
                self.buckets
                    .get(s as usize)
                    .is_some_and(|b| b & (1 << bucket(h)) == 0)
            })
    }

    /// Record the features of `cov`; returns how many were new (`(outcomes, all features)`).
    pub fn add(&mut self, cov: &Coverage) -> (usize, usize) {
        self.add_listing(cov, &mut Vec::new())
    }

    /// [`Feedback::add`], also appending the new features to `new_features` (outcomes first, in
    /// `cov`'s order, then buckets): the features an input kept for them brings to the corpus
    /// alone, which an input that replaces it must keep (libFuzzer's `-reduce_inputs`).
    pub fn add_listing(
        &mut self,
        cov: &Coverage,
        new_features: &mut Vec<Feature>,
    ) -> (usize, usize) {
        let mut new_outcomes = 0;
        let mut new = 0;
        for &o in &cov.outcomes {
            if self.seen(o as usize) == Some(false) {
                self.outcomes[o as usize / 64] |= 1 << (o % 64);
                new_outcomes += 1;
                new_features.push(Feature::Outcome(o));
            }
        }
        for &(s, h) in &cov.sites {
            if let Some(b) = self.buckets.get_mut(s as usize) {
                let bit = 1 << bucket(h);
                if *b & bit == 0 {
                    *b |= bit;
                    new += 1;
                    new_features.push(Feature::Bucket(s, bucket(h)));
                }
            }
        }
        self.covered += new_outcomes;
        self.features += new + new_outcomes;
        (new_outcomes, new + new_outcomes)
    }

    /// For a coverage whose lists are pending ([`Coverage::is_pending`]): whether it has a
    /// feature not yet recorded, as [`Feedback::is_new`] would answer after [`Coverage::list`]
    /// with this map's outcome sites; its outcomes are counted ([`Feedback::count`]) either way.
    /// One pass over the non-zero bytes and no list built: a fuzzer's common case, a
    /// coverage-only execution that adds nothing, costs that alone. `None` (nothing done) when
    /// the map was not made [`Feedback::with_sites`].
    pub fn is_new_else_count(&mut self, cov: &Coverage) -> Option<bool> {
        if !self.has_sites {
            return None;
        }
        let mut new = false;
        let (mut site, mut hits) = (u32::MAX, 0u32);
        let (seen, buckets, slots) = (&self.outcomes, &self.buckets, &mut self.slots);
        // whether site `s`, run `h` times, is in a bucket not seen (no: no such site); without
        // branches, as the loop below
        let site_new =
            |s: u32, h: u32| buckets.get(s as usize).map_or(0xff, |&b| b) & (1 << bucket(h)) == 0;
        cov.for_each_word_outcome(|o, c| {
            let Some(slot) = slots.get_mut(o) else { return };
            let s = slot.site;
            if s == u32::MAX {
                return;
            }
            slot.freq = slot.freq.saturating_add(1);
            new |= seen[o / 64] >> (o % 64) & 1 == 0;
            // the outcomes of a site are consecutive: a new site ends the last one's run
            let change = s != site;
            new |= change & site_new(site, hits);
            hits = if change { 0 } else { hits } + c as u32;
            site = s;
        });
        new |= site_new(site, hits);
        Some(new)
    }

    /// Count one execution's outcomes (for [`Feedback::freq`]).
    pub fn count(&mut self, cov: &Coverage) {
        for &o in &cov.outcomes {
            if let Some(slot) = self.slots.get_mut(o as usize) {
                slot.freq = slot.freq.saturating_add(1);
            }
        }
    }

    /// Executions counted that took outcome `o`.
    pub fn freq(&self, o: u32) -> u32 {
        self.slots.get(o as usize).map_or(0, |s| s.freq)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn cov(sites: &[(u32, u32)], outcomes: &[u32]) -> Coverage {
        Coverage {
            sites: sites.to_vec(),
            outcomes: outcomes.to_vec(),
            ..Default::default()
        }
    }

    #[test]
    fn buckets_follow_afl() {
        let b: Vec<u8> = [1, 2, 3, 4, 7, 8, 15, 16, 31, 32, 127, 128, 100000]
            .iter()
            .map(|&h| bucket(h))
            .collect();
        assert_eq!(b, [0, 1, 2, 3, 3, 4, 4, 5, 5, 6, 6, 7, 7]);
    }

    #[test]
    fn new_outcomes_and_new_buckets_are_new_features() {
        let mut f = Feedback::new(3, 6);
        let a = cov(&[(0, 1)], &[0]);
        assert!(f.is_new(&a));
        assert_eq!(f.add(&a), (1, 2));
        assert!(!f.is_new(&a));
        // same site, same outcome, but 5 hits: a new bucket
        let b = cov(&[(0, 5)], &[0]);
        assert!(f.is_new(&b));
        assert_eq!(f.add(&b), (0, 1));
        // 6 hits: the same bucket as 5
        assert!(!f.is_new(&cov(&[(0, 6)], &[0])));
        // the other outcome of the site
        assert!(f.is_new(&cov(&[(0, 1)], &[1])));
        assert_eq!((f.covered(), f.features()), (1, 3));
        f.count(&a);
        f.count(&a);
        assert_eq!((f.freq(0), f.freq(1)), (2, 0));
        // the features an input brings alone are listed, and found again in a coverage
        let c = cov(&[(1, 2), (2, 40)], &[2, 4]);
        let mut new = vec![];
        assert_eq!(f.add_listing(&c, &mut new), (2, 4));
        assert_eq!(
            new,
            [
                Feature::Outcome(2),
                Feature::Outcome(4),
                Feature::Bucket(1, 1),
                Feature::Bucket(2, 6)
            ]
        );
        assert!(new.iter().all(|x| x.is_in(&c)));
        let other = cov(&[(1, 2), (2, 3)], &[2, 5]);
        let found: Vec<bool> = new.iter().map(|x| x.is_in(&other)).collect();
        assert_eq!(found, [true, false, true, false]);
        assert_eq!((f.covered(), f.features()), (3, 7));
        // out-of-range IDs are ignored, never a panic
        assert!(!f.is_new(&cov(&[(99, 1)], &[99])));
    }

    /// Sites of 1 to 4 outcomes (consecutive IDs, as the pass hands them out), with a site of
    /// none between, and one outcome after them with no site.
    fn layout() -> (usize, Vec<u32>) {
        layout_of(&[
            2u32, 2, 1, 0, 4, 2, 3, 2, 2, 1, 2, 2, 4, 2, 2, 2, 3, 2, 2, 2,
        ])
    }

    /// Per outcome its site, for sites of `sizes` outcomes, and one outcome with no site after.
    fn layout_of(sizes: &[u32]) -> (usize, Vec<u32>) {
        let mut outcome_site = vec![];
        for (s, &n) in sizes.iter().enumerate() {
            outcome_site.extend(std::iter::repeat_n(s as u32, n as usize));
        }
        outcome_site.push(u32::MAX);
        (sizes.len(), outcome_site)
    }

    fn pending(counts: &[u8]) -> Coverage {
        let mut c = Coverage::default();
        for (i, ch) in counts.chunks(8).enumerate() {
            let v = ch
                .iter()
                .enumerate()
                .fold(0u64, |v, (k, &b)| v | (b as u64) << (8 * k));
            if v != 0 {
                c.words.push((i as u32, v));
            }
        }
        c
    }

    #[test]
    fn pending_words_are_listed_in_site_order_with_summed_hits() {
        let (_, outcome_site) = layout();
        // outcomes 0 and 1 (site 0), 7 and 8 (site 4), 9 (site 5), 42 (no site), 47 (beyond the
        // table of 43)
        let mut counts = vec![0u8; 48];
        (
            counts[0], counts[1], counts[7], counts[8], counts[9], counts[42], counts[47],
        ) = (3, 255, 1, 2, 1, 4, 9);
        let mut c = pending(&counts);
        assert!(c.is_pending());
        c.list(&outcome_site);
        assert!(!c.is_pending());
        assert_eq!(c.outcomes, [0, 1, 7, 8, 9]);
        assert_eq!(c.sites, [(0, 258), (4, 3), (5, 1)]);
    }

    use proptest::prelude::Strategy as _;

    proptest::proptest! {
        /// The one-pass answer on a coverage-only map is the listed one: the same new-ness, and
        /// when nothing is new, the same frequencies; a recorded execution is then not new. Each
        /// map's words are drawn from a few per word, so that a word comes again beside other
        /// neighbours, and sites of one to 20 outcomes reach across words.
        #[test]
        fn pending_scan_agrees_with_the_lists(
            pool in proptest::collection::vec(proptest::collection::vec(proptest::prelude::any::<u8>().prop_map(|b| if b < 160 { 0 } else { b - 159 }), 88), 1..4),
            picks in proptest::collection::vec(proptest::collection::vec(0..3usize, 11), 1..12),
        ) {
            // 86 outcomes with a site, one without, and one beyond the table: 11 words
            let (n_sites, outcome_site) = layout_of(&[2u32, 2, 1, 0, 4, 2, 3, 2, 2, 1, 2, 2, 4, 2, 2, 2, 3, 2, 2, 2, 11, 9, 20, 2, 1]);
            let runs: Vec<Vec<u8>> = picks.iter().map(|p| (0..outcome_site.len() + 1).map(|o| pool[p[o / 8] % pool.len()][o]).collect()).collect();
            let mut site_outcomes = vec![(0u32, 0u32); n_sites];
            for (o, &s) in outcome_site.iter().enumerate().rev() {
                if let Some(x) = site_outcomes.get_mut(s as usize) {
                    *x = (o as u32, x.1 + 1);
                }
            }
            let mut fast = Feedback::with_sites(n_sites, &outcome_site);
            let mut slow = Feedback::new(n_sites, outcome_site.len());
            // each map twice: the second time, nothing is new
            for counts in runs.iter().chain(&runs) {
                let mut c = pending(counts);
                let got = fast.is_new_else_count(&c);
                c.list(&outcome_site);
                let want = slow.is_new(&c);
                proptest::prop_assert_eq!(got, Some(want));
                slow.count(&c);
                if want {
                    proptest::prop_assert_eq!(fast.add(&c), slow.add(&c));
                    proptest::prop_assert!(!fast.is_new(&c));
                }
                // and each feature is read from the words as from the lists (an outcome is a
                // feature only where it has a site)
                let words = pending(counts);
                let sited = |o: &u32| outcome_site.get(*o as usize).is_some_and(|&s| s != u32::MAX);
                for f in (0..96).filter(sited).map(Feature::Outcome).chain((0..n_sites as u32 + 2).flat_map(|s| (0..8).map(move |b| Feature::Bucket(s, b)))) {
                    proptest::prop_assert_eq!(f.is_in_words(&words, &site_outcomes), f.is_in(&c), "{:?}", f);
                }
                for o in 0..outcome_site.len() as u32 {
                    proptest::prop_assert_eq!(fast.freq(o), slow.freq(o));
                    proptest::prop_assert_eq!(fast.is_covered(o), slow.is_covered(o));
                }
            }
            proptest::prop_assert_eq!(Feedback::new(1, 2).is_new_else_count(&pending(&[1])), None);
        }
    }
}
