//! The corpus: every kept input, in memory and as a file named by the SHA-1 of its bytes in the
//! output corpus directory (libFuzzer's convention), written atomically as soon as it is kept.
//!
//! **Scheduling** favours entries that take rare outcomes: an entry's weight is the sum, over the
//! outcomes it takes, of 1 / (executions that took the outcome), so that outcomes the fuzzer keeps
//! hitting stop attracting it (the idea of AFL++'s `rare` schedule and libFuzzer's entropic power
//! schedule, in its simplest form), divided by a mild size penalty, and scaled by the entry's
//! **cost** against the corpus's: AFL++ scores an entry by its execution time against the queue's
//! average (`calculate_score`: from 0.1× for ten times slower to 3× for four times faster, in
//! steps);
//! evotest counts the branch evaluations of the entry's execution instead of timing it, so that
//! a run stays reproducible from its seed. One pick in ten is uniform.

use super::feedback::{Feature, Feedback};
use crate::util::write_replace as write_atomic;
use anyhow::{Context, Result};
use rand::Rng;
use sha1::{Digest, Sha1};
use std::collections::HashSet;
use std::path::{Path, PathBuf};
use std::time::Duration;

/// The SHA-1 of `data`, in hex: the file name of a corpus entry and of an artifact.
pub fn sha1_hex(data: &[u8]) -> String {
    crate::util::hex(&Sha1::digest(data))
}

/// One kept input.
#[derive(Clone, Debug)]
pub struct Entry {
    pub data: Vec<u8>,
    /// Its file name in the corpus directory (the SHA-1 of `data`).
    pub name: String,
    /// The outcomes it takes (global IDs).
    pub outcomes: Vec<u32>,
    /// When it was kept, since the start of the run.
    pub found: Duration,
    /// Times it was picked for mutation.
    pub picked: u64,
    /// The features it brought to the corpus (new when it was kept): a shorter input with all of
    /// them may replace it ([`Corpus::replace`]).
    pub unique: Vec<Feature>,
    /// Its execution's cost in branch evaluations ([`cost_of`]), at least 1.
    pub cost: u64,
}

/// The fixed cost of an execution, in branch evaluations: what the harness's call, the
/// executor's round trip and the engine's bookkeeping cost whatever the input does (about 10 µs,
/// where a probe's evaluation costs about 10 ns). Without it, on a small program whose every
/// input runs in microseconds, the inputs that go deeper (more evaluations) would be the ones
/// disfavoured: run time there does not depend on the path, as AFL++'s timing sees.
pub const FIXED_COST: u64 = 1024;

/// The cost of an execution of coverage `cov`: its branch evaluations (every site's hit count,
/// saturated per site as the probes count them) plus [`FIXED_COST`]. Deterministic where the
/// target is, unlike a time.
pub fn cost_of(cov: &crate::exec::Coverage) -> u64 {
    FIXED_COST + cov.sites.iter().map(|&(_, h)| h as u64).sum::<u64>()
}

/// The factor by which an entry of cost `cost` is favoured in a corpus whose entries' geometric
/// mean cost is `typical`, in AFL++'s steps (`calculate_score`, on execution time against the
/// queue's average): 0.1 above 10× the typical cost, 0.25 above 4×, 0.5 above 2×, 0.75 above
/// 4/3×; 3 below a quarter, 2 below a third, 1.5 below a half; 1 between. The steps leave a
/// corpus of inputs of about one cost exactly as it would be without costs.
pub fn cost_factor(cost: u64, typical: f64) -> f64 {
    let r = cost.max(1) as f64 / typical.max(1.0);
    match r {
        r if r > 10.0 => 0.1,
        r if r > 4.0 => 0.25,
        r if r > 2.0 => 0.5,
        r if r > 4.0 / 3.0 => 0.75,
        r if r < 0.25 => 3.0,
        r if r < 1.0 / 3.0 => 2.0,
        r if r < 0.5 => 1.5,
        _ => 1.0,
    }
}

/// See module docs.
#[derive(Debug, Default)]
pub struct Corpus {
    pub entries: Vec<Entry>,
    /// Cumulative weights of `entries` (empty when stale).
    cumulative: Vec<f64>,
    /// File names known in the corpus directory (written by this run, or read from it).
    known: HashSet<String>,
    /// File names this session wrote in the corpus directory: the only files a replacement may
    /// remove ([`Corpus::replace`]).
    written: HashSet<String>,
    /// Where the names of the files this session writes are appended as well, for the next
    /// session of the same run (an in-process worker after the one an input ended;
    /// [`Corpus::share_written`]).
    written_log: Option<std::fs::File>,
    /// The bytes of all entries.
    bytes: u64,
    /// The sum of `ln(cost)` over the entries (their geometric mean cost, see [`cost_factor`]).
    ln_cost: f64,
}

impl Corpus {
    pub fn len(&self) -> usize {
        self.entries.len()
    }

    pub fn is_empty(&self) -> bool {
        self.entries.is_empty()
    }

    /// Whether a file of this name in the corpus directory has been seen.
    pub fn knows(&self, name: &str) -> bool {
        self.known.contains(name)
    }

    /// Remember that file `name` of the corpus directory was seen.
    pub fn mark_known(&mut self, name: &str) {
        self.known.insert(name.to_string());
    }

    /// Keep `data` (taking `outcomes`, bringing features `unique`) found at `found`; when `dir` is
    /// given, also write it there (atomically, named by its SHA-1) unless a file of that name
    /// exists. Returns whether a file was written.
    ///
    /// Errors: the file cannot be written.
    pub fn add(
        &mut self,
        data: Vec<u8>,
        outcomes: Vec<u32>,
        unique: Vec<Feature>,
        cost: u64,
        found: Duration,
        dir: Option<&Path>,
    ) -> Result<bool> {
        let name = sha1_hex(&data);
        let wrote = self.write(dir, &name, &data)?;
        if wrote {
            self.note_written(&name);
        }
        self.known.insert(name.clone());
        self.bytes += data.len() as u64;
        let cost = cost.max(1);
        self.ln_cost += (cost as f64).ln();
        self.entries.push(Entry {
            data,
            name,
            outcomes,
            found,
            picked: 0,
            unique,
            cost,
        });
        Ok(wrote)
    }

    /// Write `data` as `dir/name` unless there is no `dir` or the file exists; whether it wrote.
    /// Share the files this session writes with the other sessions of one run through the file
    /// `log` (one name a line): the names already there count as this session's own (a later
    /// replacement may remove their files), and the names of the files it writes are appended.
    /// Without it, an in-process worker took its predecessors' files for the corpus directory's
    /// initial ones, and the files of the entries it replaced stayed (a run with restarts ended
    /// with ten files for six entries).
    ///
    /// Errors: `log` cannot be opened.
    pub fn share_written(&mut self, log: &Path) -> Result<()> {
        if let Ok(text) = std::fs::read_to_string(log) {
            self.written
                .extend(text.lines().filter(|l| !l.is_empty()).map(str::to_string));
        }
        let f = std::fs::OpenOptions::new()
            .create(true)
            .append(true)
            .open(log)
            .with_context(|| format!("cannot open {}", log.display()))?;
        self.written_log = Some(f);
        Ok(())
    }

    /// Remember that this session wrote corpus file `name` (and tell the run's log, if shared).
    fn note_written(&mut self, name: &str) {
        self.written.insert(name.to_string());
        if let Some(f) = &mut self.written_log {
            use std::io::Write;
            // the log only spares the directory some superseded files: a failed write loses
            // nothing the run found
            let _ = f.write_all(format!("{name}\n").as_bytes());
        }
    }

    fn write(&self, dir: Option<&Path>, name: &str, data: &[u8]) -> Result<bool> {
        let Some(p) = dir.map(|d| d.join(name)).filter(|p| !p.exists()) else {
            return Ok(false);
        };
        write_atomic(&p, data)
            .with_context(|| format!("cannot write corpus entry {}", p.display()))?;
        Ok(true)
    }

    /// Replace entry `i` by `data`, a shorter input (taking `outcomes` at `cost`) that has every feature
    /// the entry brought (libFuzzer's `-reduce_inputs`): the corpus keeps its features with fewer
    /// bytes to execute and mutate. When `dir` is given, `data` is written there, and the entry's
    /// old file is removed only if this session wrote it ([`Corpus::add`] or an earlier
    /// replacement): a file that was in the directory at the start, or that another worker
    /// wrote, stays, whatever its name (libFuzzer never deletes a file of its initial corpus;
    /// libFuzzer and OSS-Fuzz name corpus files by their SHA-1, as evotest does, so the name
    /// says nothing of who wrote one). The entry keeps its place, its features and
    /// its pick count; its weight follows at the next [`Corpus::reweigh`]. Returns false, and
    /// changes nothing, when a file of `data`'s name was ever known (another entry may hold the
    /// same bytes, and removing its file later must not remove this one's).
    ///
    /// Errors: the new file cannot be written.
    pub fn replace(
        &mut self,
        i: usize,
        data: Vec<u8>,
        outcomes: Vec<u32>,
        cost: u64,
        dir: Option<&Path>,
    ) -> Result<bool> {
        let name = sha1_hex(&data);
        if self.known.contains(&name) {
            return Ok(false);
        }
        if self.write(dir, &name, &data)? {
            self.note_written(&name);
        }
        let e = &mut self.entries[i];
        if let Some(d) = dir.filter(|_| self.written.remove(&e.name)) {
            let _ = std::fs::remove_file(d.join(&e.name));
        }
        self.known.insert(name.clone());
        self.bytes = self.bytes + data.len() as u64 - e.data.len() as u64;
        let cost = cost.max(1);
        self.ln_cost += (cost as f64).ln() - (e.cost as f64).ln();
        e.cost = cost;
        e.data = data;
        e.name = name;
        e.outcomes = outcomes;
        Ok(true)
    }

    /// The largest entry, in bytes (0 when empty).
    pub fn max_size(&self) -> usize {
        self.entries.iter().map(|e| e.data.len()).max().unwrap_or(0)
    }

    /// The bytes of all entries.
    pub fn total_bytes(&self) -> u64 {
        self.bytes
    }

    /// Recompute every weight from the outcome frequencies of `fb`.
    pub fn reweigh(&mut self, fb: &Feedback) {
        self.cumulative.clear();
        // each outcome's rarity once, not once per entry that took it
        let rarity: Vec<f64> = (0..fb.outcomes())
            .map(|o| 1.0 / fb.freq(o as u32).max(1) as f64)
            .collect();
        self.weigh_new_with(|o| rarity.get(o as usize).copied().unwrap_or(1.0));
    }

    /// Whether a [`Corpus::reweigh`] is due `since` executions after the last one, by work
    /// rather than time: when the executions since then are at least an eighth of the outcomes
    /// the weighing visits (the entries' outcome lists together), so that weighing costs at most
    /// eight outcome visits per execution, whatever the machine's load. The fuzz loop uses it
    /// under an execution budget (`-runs`), where a run must repeat exactly; under a time budget
    /// it gates by the weighing's measured time instead.
    pub fn reweigh_due(&self, since: u32) -> bool {
        let work: usize = self.entries.iter().map(|e| e.outcomes.len()).sum();
        since as usize >= work / 8
    }

    /// Weigh the entries added since the weights were last computed, from the outcome
    /// frequencies of `fb` (older entries keep theirs until the next [`Corpus::reweigh`]: a new
    /// entry costs its own outcomes, not the whole corpus's).
    fn weigh_new(&mut self, fb: &Feedback) {
        self.weigh_new_with(|o| 1.0 / fb.freq(o).max(1) as f64);
    }

    /// [`Corpus::weigh_new`] with `rarity(o)` the rarity of outcome `o` (1 / its frequency).
    fn weigh_new_with(&mut self, rarity: impl Fn(u32) -> f64) {
        let mut total = self.cumulative.last().copied().unwrap_or(0.0);
        let typical = self.typical_cost();
        for e in &self.entries[self.cumulative.len()..] {
            let rarity: f64 = e.outcomes.iter().map(|&o| rarity(o)).sum();
            let size = 1.0 + (e.data.len() as f64 / 4096.0).sqrt();
            total += (rarity + 1e-6) / size * cost_factor(e.cost, typical);
            self.cumulative.push(total);
        }
    }

    /// The geometric mean of the entries' costs (1 when empty).
    pub fn typical_cost(&self) -> f64 {
        if self.entries.is_empty() {
            1.0
        } else {
            (self.ln_cost / self.entries.len() as f64).exp()
        }
    }

    /// Whether entries were added since the weights were last computed.
    pub fn stale(&self) -> bool {
        self.cumulative.len() != self.entries.len()
    }

    /// Pick an entry to mutate (see module docs); `None` when the corpus is empty.
    pub fn pick<R: Rng>(&mut self, rng: &mut R, fb: &Feedback) -> Option<usize> {
        if self.entries.is_empty() {
            return None;
        }
        if self.stale() {
            self.weigh_new(fb);
        }
        let i = if rng.random_range(0..10) == 0 {
            rng.random_range(0..self.entries.len())
        } else {
            let total = *self.cumulative.last().unwrap_or(&0.0);
            let x = rng.random::<f64>() * total;
            self.cumulative
                .partition_point(|&c| c <= x)
                .min(self.entries.len() - 1)
        };
        self.entries[i].picked += 1;
        Some(i)
    }
}

/// The regular files under `dir`, recursively (skipping names that start with `.`, such as the
/// state directory `.evotest`), sorted by path.
///
/// Errors: `dir` cannot be read.
pub fn list_files(dir: &Path) -> Result<Vec<PathBuf>> {
    let mut out = Vec::new();
    let mut stack = vec![dir.to_path_buf()];
    while let Some(d) = stack.pop() {
        let rd = std::fs::read_dir(&d)
            .with_context(|| format!("cannot read directory {}", d.display()))?;
        for e in rd.flatten() {
            if e.file_name().to_string_lossy().starts_with('.') {
                continue;
            }
            let p = e.path();
            // a link to a directory is not followed (a link to `/`, or to `.`, made the walk
            // endless); a link to a file is a seed as any
            let link = e.file_type().is_ok_and(|t| t.is_symlink());
            match std::fs::metadata(&p) {
                Ok(m) if m.is_dir() && !link => stack.push(p),
                Ok(m) if m.is_file() => out.push(p),
                _ => {}
            }
        }
    }
    out.sort();
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::exec::Coverage;
    use rand::SeedableRng;

    #[test]
    fn links_to_directories_are_not_followed() {
        let d = tempfile::tempdir().unwrap();
        std::fs::create_dir(d.path().join("sub")).unwrap();
        std::fs::write(d.path().join("sub/a"), b"a").unwrap();
        std::fs::write(d.path().join("b"), b"b").unwrap();
        std::os::unix::fs::symlink(d.path().join("b"), d.path().join("c")).unwrap();
        std::os::unix::fs::symlink(".", d.path().join("loop")).unwrap();
        std::os::unix::fs::symlink("/", d.path().join("root")).unwrap();
        let names: Vec<PathBuf> = list_files(d.path()).unwrap();
        let want: Vec<PathBuf> = ["b", "c", "sub/a"]
            .iter()
            .map(|n| d.path().join(n))
            .collect();
        assert_eq!(names, want);
    }

    #[test]
    fn entries_are_files_named_by_sha1() {
        let d = tempfile::tempdir().unwrap();
        let mut c = Corpus::default();
        c.add(
            b"abc".to_vec(),
            vec![0],
            vec![],
            1,
            Duration::ZERO,
            Some(d.path()),
        )
        .unwrap();
        let name = "a9993e364706816aba3e25717850c26c9cd0d89d";
        assert_eq!(std::fs::read(d.path().join(name)).unwrap(), b"abc");
        assert!(c.knows(name));
        std::fs::create_dir(d.path().join(".evotest")).unwrap();
        std::fs::write(d.path().join(".evotest/x"), b"state").unwrap();
        std::fs::create_dir(d.path().join("sub")).unwrap();
        std::fs::write(d.path().join("sub/y"), b"y").unwrap();
        let files = list_files(d.path()).unwrap();
        assert_eq!(files, vec![d.path().join(name), d.path().join("sub/y")]);
    }

    #[test]
    fn a_later_session_of_a_run_replaces_the_files_an_earlier_one_wrote() {
        let d = tempfile::tempdir().unwrap();
        let log = d.path().join("written.log");
        let corpus = d.path().join("corpus");
        std::fs::create_dir(&corpus).unwrap();
        let long = b"a long input".to_vec();
        let mut first = Corpus::default();
        first.share_written(&log).unwrap();
        let f = Duration::ZERO;
        let one = vec![Feature::Outcome(1)];
        first
            .add(long.clone(), vec![1], one.clone(), 1, f, Some(&corpus))
            .unwrap();
        // the next session (an in-process worker after one an input ended) loads the file
        let mut next = Corpus::default();
        next.share_written(&log).unwrap();
        next.mark_known(&sha1_hex(&long));
        next.add(long.clone(), vec![1], one, 1, f, None).unwrap();
        assert!(next
            .replace(0, b"short".to_vec(), vec![1], 1, Some(&corpus))
            .unwrap());
        let files = list_files(&corpus).unwrap();
        assert_eq!(files, [corpus.join(sha1_hex(b"short"))]);
        // without the shared log the earlier session's file would be the directory's own
        let mut alone = Corpus::default();
        alone.mark_known(&sha1_hex(b"short"));
        alone
            .add(b"short".to_vec(), vec![1], vec![], 1, f, None)
            .unwrap();
        assert!(alone
            .replace(0, b"s".to_vec(), vec![1], 1, Some(&corpus))
            .unwrap());
        assert_eq!(list_files(&corpus).unwrap().len(), 2);
    }

    #[test]
    fn a_replaced_entry_changes_file_but_not_place() {
        let d = tempfile::tempdir().unwrap();
        let mut c = Corpus::default();
        c.add(
            b"first".to_vec(),
            vec![0],
            vec![Feature::Outcome(0)],
            1,
            Duration::ZERO,
            Some(d.path()),
        )
        .unwrap();
        c.add(
            b"a long input".to_vec(),
            vec![1, 2],
            vec![Feature::Outcome(2)],
            1,
            Duration::ZERO,
            Some(d.path()),
        )
        .unwrap();
        // a user's own file of another name is never removed
        std::fs::write(d.path().join("mine"), b"a long input").unwrap();
        // nor one the directory held at the start, even named by the SHA-1 of its bytes
        let theirs = b"their long input".to_vec();
        std::fs::write(d.path().join(sha1_hex(&theirs)), &theirs).unwrap();
        c.mark_known(&sha1_hex(&theirs));
        c.add(
            theirs.clone(),
            vec![3],
            vec![Feature::Outcome(3)],
            1,
            Duration::ZERO,
            None,
        )
        .unwrap();
        assert!(c
            .replace(2, b"theirs".to_vec(), vec![3], 1, Some(d.path()))
            .unwrap());
        assert_eq!(
            std::fs::read(d.path().join(sha1_hex(&theirs))).unwrap(),
            theirs
        );
        assert!(c
            .replace(1, b"short".to_vec(), vec![2], 1, Some(d.path()))
            .unwrap());
        // bytes another entry holds: no replacement
        assert!(!c
            .replace(1, b"first".to_vec(), vec![0], 1, Some(d.path()))
            .unwrap());
        assert_eq!(c.entries[1].data, b"short");
        assert_eq!(c.entries[1].unique, [Feature::Outcome(2)]);
        assert_eq!(c.entries[1].outcomes, [2]);
        let mut files: Vec<String> = list_files(d.path())
            .unwrap()
            .iter()
            .map(|p| p.file_name().unwrap().to_string_lossy().into_owned())
            .collect();
        files.sort();
        let mut want = vec![
            sha1_hex(b"first"),
            sha1_hex(b"short"),
            "mine".to_string(),
            sha1_hex(b"their long input"),
            sha1_hex(b"theirs"),
        ];
        want.sort();
        assert_eq!(files, want);
        assert!(c.knows(&sha1_hex(b"short")));
        assert_eq!((c.max_size(), c.total_bytes()), (6, 16));
    }

    #[test]
    fn rare_outcomes_attract_picks() {
        let mut fb = Feedback::new(2, 4);
        let common = Coverage {
            sites: vec![(0, 1)],
            outcomes: vec![0],
            ..Default::default()
        };
        for _ in 0..1000 {
            fb.count(&common);
        }
        fb.count(&Coverage {
            sites: vec![(1, 1)],
            outcomes: vec![2],
            ..Default::default()
        });
        let mut c = Corpus::default();
        c.add(b"common".to_vec(), vec![0], vec![], 1, Duration::ZERO, None)
            .unwrap();
        c.add(b"rare!!".to_vec(), vec![2], vec![], 1, Duration::ZERO, None)
            .unwrap();
        let mut rng = rand_chacha::ChaCha8Rng::seed_from_u64(3);
        let rare = (0..1000)
            .filter(|_| c.pick(&mut rng, &fb) == Some(1))
            .count();
        assert!(rare > 850, "rare entry picked {rare} times of 1000");
    }

    #[test]
    fn cheap_entries_attract_more_picks_than_costly_ones() {
        let mut fb = Feedback::new(2, 4);
        fb.count(&Coverage {
            sites: vec![(0, 1)],
            outcomes: vec![0],
            ..Default::default()
        });
        fb.count(&Coverage {
            sites: vec![(1, 1)],
            outcomes: vec![2],
            ..Default::default()
        });
        let mut c = Corpus::default();
        // equally rare and of one size; one costs 100 branch evaluations, the other 100,000
        c.add(
            b"slow".to_vec(),
            vec![0],
            vec![],
            100_000,
            Duration::ZERO,
            None,
        )
        .unwrap();
        c.add(b"fast".to_vec(), vec![2], vec![], 100, Duration::ZERO, None)
            .unwrap();
        assert!(
            (c.typical_cost() - 3162.28).abs() < 0.1,
            "{}",
            c.typical_cost()
        );
        let mut rng = rand_chacha::ChaCha8Rng::seed_from_u64(5);
        let fast = (0..1000)
            .filter(|_| c.pick(&mut rng, &fb) == Some(1))
            .count();
        // weights 3 and 0.1: 97% of the weighted picks, half of the uniform tenth
        assert!(fast > 870, "fast entry picked {fast} times of 1000");
        let steps: Vec<f64> = [1, 24, 32, 45, 60, 100, 130, 150, 300, 500, 2000]
            .iter()
            .map(|&c| cost_factor(c, 100.0))
            .collect();
        assert_eq!(
            steps,
            [3.0, 3.0, 2.0, 1.5, 1.0, 1.0, 1.0, 0.75, 0.5, 0.25, 0.1]
        );
        assert_eq!(
            cost_of(&Coverage {
                sites: vec![(0, 3), (5, u32::MAX)],
                outcomes: vec![],
                ..Default::default()
            }),
            FIXED_COST + 3 + u32::MAX as u64
        );
        assert_eq!(cost_of(&Coverage::default()), FIXED_COST);
    }
}
