//! What makes an input interesting: a branch outcome no earlier input took, or a site reached a
//! number of times in a hit-count bucket not seen before at that site (AFL's buckets 1, 2, 3,
//! 4–7, 8–15, 16–31, 32–127, 128+, on `SiteRec::hits`). Each outcome, and each (site, bucket), is
//! a **feature**. The map also counts how many executions took each outcome, for the scheduler's
//! rarity weights.

use crate::exec::Coverage;

/// The hit-count bucket (0..8) of a site run `hits` > 0 times.
pub fn bucket(hits: u32) -> u8 {
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
            Feature::Bucket(s, b) => cov.sites.binary_search_by_key(&s, |&(x, _)| x).is_ok_and(|i| bucket(cov.sites[i].1) == b),
        }
    }
}

/// The features seen so far, and per outcome the executions that took it.
#[derive(Clone, Debug)]
pub struct Feedback {
    /// Per global outcome: taken by some recorded execution.
    outcomes: Vec<bool>,
    /// Per global site: bit b set when bucket b was seen.
    buckets: Vec<u8>,
    /// Per global outcome: executions (counted with [`Feedback::count`]) that took it, saturating.
    freq: Vec<u32>,
    covered: usize,
    features: usize,
}

impl Feedback {
    /// An empty map of `sites` sites and `outcomes` outcomes.
    pub fn new(sites: usize, outcomes: usize) -> Feedback {
        Feedback { outcomes: vec![false; outcomes], buckets: vec![0; sites], freq: vec![0; outcomes], covered: 0, features: 0 }
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
        self.outcomes.get(o as usize).copied().unwrap_or(false)
    }

    /// Record outcome `o` as taken without an execution (an earlier in-process worker's, that
    /// this worker's replay of the corpus did not take again: a target whose coverage is not
    /// deterministic). Returns whether it was new. Out-of-range IDs are ignored.
    pub fn mark_covered(&mut self, o: u32) -> bool {
        match self.outcomes.get_mut(o as usize) {
            Some(c) if !*c => {
                *c = true;
                self.covered += 1;
                self.features += 1;
                true
            }
            _ => false,
        }
    }

    /// Whether `cov` has a feature not recorded yet.
    pub fn is_new(&self, cov: &Coverage) -> bool {
        cov.outcomes.iter().any(|&o| self.outcomes.get(o as usize) == Some(&false))
            || cov.sites.iter().any(|&(s, h)| self.buckets.get(s as usize).is_some_and(|b| b & (1 << bucket(h)) == 0))
    }

    /// Record the features of `cov`; returns how many were new (`(outcomes, all features)`).
    pub fn add(&mut self, cov: &Coverage) -> (usize, usize) {
        self.add_listing(cov, &mut Vec::new())
    }

    /// [`Feedback::add`], also appending the new features to `new_features` (outcomes first, in
    /// `cov`'s order, then buckets): the features an input kept for them brings to the corpus
    /// alone, which an input that replaces it must keep (libFuzzer's `-reduce_inputs`).
    pub fn add_listing(&mut self, cov: &Coverage, new_features: &mut Vec<Feature>) -> (usize, usize) {
        let mut new_outcomes = 0;
        let mut new = 0;
        for &o in &cov.outcomes {
            if let Some(seen) = self.outcomes.get_mut(o as usize) {
                if !*seen {
                    *seen = true;
                    new_outcomes += 1;
                    new_features.push(Feature::Outcome(o));
                }
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

    /// Count one execution's outcomes (for [`Feedback::freq`]).
    pub fn count(&mut self, cov: &Coverage) {
        for &o in &cov.outcomes {
            if let Some(f) = self.freq.get_mut(o as usize) {
                *f = f.saturating_add(1);
            }
        }
    }

    /// Executions counted that took outcome `o`.
    pub fn freq(&self, o: u32) -> u32 {
        self.freq.get(o as usize).copied().unwrap_or(0)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn cov(sites: &[(u32, u32)], outcomes: &[u32]) -> Coverage {
        Coverage { sites: sites.to_vec(), outcomes: outcomes.to_vec() }
    }

    #[test]
    fn buckets_follow_afl() {
        let b: Vec<u8> = [1, 2, 3, 4, 7, 8, 15, 16, 31, 32, 127, 128, 100000].iter().map(|&h| bucket(h)).collect();
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
        assert_eq!(new, [Feature::Outcome(2), Feature::Outcome(4), Feature::Bucket(1, 1), Feature::Bucket(2, 6)]);
        assert!(new.iter().all(|x| x.is_in(&c)));
        let other = cov(&[(1, 2), (2, 3)], &[2, 5]);
        let found: Vec<bool> = new.iter().map(|x| x.is_in(&other)).collect();
        assert_eq!(found, [true, false, true, false]);
        assert_eq!((f.covered(), f.features()), (3, 7));
        // out-of-range IDs are ignored, never a panic
        assert!(!f.is_new(&cov(&[(99, 1)], &[99])));
    }
}
