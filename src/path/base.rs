//! The **solutions base** of Bueno & Jino (2002, §4, §8): a persistent store of (input, executed
//! path) pairs, reused to start new searches close to their target, and the [`PathLog`] observer
//! that collects the paths executions take.
//!
//! * A path already in the base is answered by its stored input, without search.
//! * Otherwise the inputs of the paths most similar to the target (longest common prefix, down to
//!   a minimum similarity Smin) make up to half of the initial population; the rest is random
//!   (the paper's fraction, 0.5, "to keep a good diversity").
//!
//! On disk it is `solutions.jsonl` in the output directory: one JSON object per line with the
//! program key, the function, the input and the path. The key is a hash of the instrumented
//! program (its modules' metadata hashes), the function and the input domain, so entries from a
//! changed program or from other ranges are kept in the file but never reused. Saving writes a
//! temporary file and renames it over the old one, so a run killed mid-write leaves the previous
//! base intact; unreadable lines are skipped with a warning.

use super::{common_prefix, executed, Decisions, Step};
use crate::input::{Domain, Input};
use crate::observe::{Evaluation, Observer};
use crate::program::Program;
use anyhow::{Context, Result};
use serde::{Deserialize, Serialize};
use std::collections::HashMap;
use std::path::{Path, PathBuf};

/// File name of the base inside an output directory.
pub const FILE_NAME: &str = "solutions.jsonl";

/// Most entries kept per program key (the first ones recorded win).
pub const MAX_ENTRIES: usize = 200_000;
/// Longest path recorded, in decisions: a longer one (a loop run many times, up to the ordered
/// trace's limit of a million branch events) is neither recorded nor kept in memory. Such paths
/// made bases of gigabytes (one line of 2.2 MB; a run of six paths wrote 978 MB) and are
/// rarely anyone's target. (The paths of `make bench-paths`, whose runaway loops stop at 10,000
/// branch events, are all kept.)
pub const MAX_PATH_STEPS: usize = 10_000;
/// Most decisions a base with a file records per program key, over all its entries (about 50 MB
/// of JSON); a base in memory (benchmarks) has no such bound.
pub const MAX_STEPS: usize = 2_000_000;

/// One stored pair.
#[derive(Clone, Debug, Serialize, Deserialize, PartialEq)]
pub struct Solution {
    /// See module docs ([`program_key`]).
    pub key: String,
    pub function: String,
    pub input: Input,
    pub path: Vec<Step>,
}

/// See module docs.
#[derive(Debug, Default)]
pub struct SolutionsBase {
    file: Option<PathBuf>,
    key: String,
    function: String,
    /// Entries of other keys, kept to be written back unchanged.
    others: Vec<Solution>,
    /// Entries of this key, in the order recorded.
    entries: Vec<Solution>,
    index: HashMap<Vec<Step>, usize>,
    /// Decisions in `entries`.
    steps: usize,
    /// Entries of this key that the file holds (read from it, or appended by [`Self::save`]).
    saved: usize,
    dirty: bool,
    /// Lines of the file that could not be read.
    pub skipped_lines: usize,
}

/// The key of a program, function and input domain (hex of a 64-bit FNV-1a hash).
pub fn program_key(program: &Program, function: &str, domain: &Domain) -> String {
    let mut ids: Vec<u64> = program.modules.iter().map(|m| m.module_id).collect();
    ids.sort();
    let fields: Vec<String> = domain
        .fields
        .iter()
        .map(|g| {
            format!(
                "{}@{}:{:?}:{:?}:{:?}:{:?}",
                g.name, g.offset, g.ty, g.range, g.step, g.role
            )
        })
        .collect();
    let text = format!("{ids:?}|{function}|{}", fields.join(";"));
    format!("{:016x}", evotest_abi::meta::fnv1a(text.as_bytes()))
}

impl SolutionsBase {
    /// A base that lives in memory only (benchmarks).
    pub fn in_memory(key: &str, function: &str) -> SolutionsBase {
        SolutionsBase {
            key: key.to_string(),
            function: function.to_string(),
            ..Default::default()
        }
    }

    /// Open the base at `file` (missing: empty) for entries of `key`.
    ///
    /// Errors: the file exists but cannot be read.
    pub fn open(file: &Path, key: &str, function: &str) -> Result<SolutionsBase> {
        let mut base = SolutionsBase {
            file: Some(file.to_path_buf()),
            ..SolutionsBase::in_memory(key, function)
        };
        let text = match std::fs::read_to_string(file) {
            Ok(t) => t,
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(base),
            Err(e) => {
                return Err(e)
                    .with_context(|| format!("cannot read the solutions base {}", file.display()))
            }
        };
        for line in text.lines().filter(|l| !l.trim().is_empty()) {
            match serde_json::from_str::<Solution>(line) {
                Ok(s) if s.key == base.key && s.function == base.function => {
                    if !base.index.contains_key(&s.path) && base.entries.len() < MAX_ENTRIES {
                        base.index.insert(s.path.clone(), base.entries.len());
                        base.steps += s.path.len();
                        base.entries.push(s);
                    } else {
                        // written back as it was
                        base.others.push(s);
                    }
                }
                Ok(s) => base.others.push(s),
                Err(_) => base.skipped_lines += 1,
            }
        }
        base.saved = base.entries.len();
        Ok(base)
    }

    /// Entries usable for this program.
    pub fn len(&self) -> usize {
        self.entries.len()
    }

    pub fn is_empty(&self) -> bool {
        self.entries.is_empty()
    }

    /// All usable entries, in the order recorded.
    pub fn entries(&self) -> &[Solution] {
        &self.entries
    }

    /// Record that `input` took `path`. Only the first input of each path is kept, and none of a
    /// path longer than [`MAX_PATH_STEPS`] or once the base holds [`MAX_ENTRIES`] entries or (with
    /// a file) [`MAX_STEPS`] decisions. Returns whether the path was recorded.
    pub fn record(&mut self, input: &Input, path: &[Step]) -> bool {
        if path.len() > MAX_PATH_STEPS
            || self.entries.len() >= MAX_ENTRIES
            || (self.file.is_some() && self.steps + path.len() > MAX_STEPS)
            || self.index.contains_key(path)
        {
            return false;
        }
        self.steps += path.len();
        self.index.insert(path.to_vec(), self.entries.len());
        self.entries.push(Solution {
            key: self.key.clone(),
            function: self.function.clone(),
            input: input.clone(),
            path: path.to_vec(),
        });
        self.dirty = true;
        true
    }

    /// The stored input that took exactly `path`.
    pub fn exact(&self, path: &[Step]) -> Option<&Input> {
        self.index.get(path).map(|&i| &self.entries[i].input)
    }

    /// An input whose path begins with `prefix` (the first recorded).
    pub fn with_prefix(&self, prefix: &[Step]) -> Option<&Input> {
        self.entries
            .iter()
            .find(|e| e.path.starts_with(prefix))
            .map(|e| &e.input)
    }

    /// Up to `n` inputs whose paths share the longest prefixes with `path`, at least `min_similarity`
    /// decisions long, most similar first (ties: first recorded first).
    pub fn similar(&self, path: &[Step], min_similarity: usize, n: usize) -> Vec<(usize, Input)> {
        let mut scored: Vec<(usize, usize)> = self
            .entries
            .iter()
            .enumerate()
            .map(|(i, e)| (common_prefix(&e.path, path), i))
            .filter(|(s, _)| *s >= min_similarity.max(1))
            .collect();
        scored.sort_by(|a, b| b.0.cmp(&a.0).then(a.1.cmp(&b.1)));
        let mut out: Vec<(usize, Input)> = Vec::new();
        for (s, i) in scored {
            if out.len() >= n {
                break;
            }
            let x = &self.entries[i].input;
            if !out.iter().any(|(_, y)| y == x) {
                out.push((s, x.clone()));
            }
        }
        out
    }

    /// Write the entries recorded since the last save to the file: appended when the file already
    /// holds the others (a run killed mid-write leaves at most one unreadable last line, which
    /// the next run skips with a warning), else the whole base written atomically (temporary
    /// file + rename). Saving after every path costs what that path added, not the base's size.
    ///
    /// Errors: the directory or the file is not writable.
    pub fn save(&mut self) -> Result<()> {
        let Some(file) = &self.file else {
            return Ok(());
        };
        if !self.dirty {
            return Ok(());
        }
        if let Some(dir) = file.parent() {
            std::fs::create_dir_all(dir)
                .with_context(|| format!("cannot create {}", dir.display()))?;
        }
        let append = file.exists();
        let mut text = String::new();
        let new: &[Solution] = if append {
            &self.entries[self.saved..]
        } else {
            &self.entries
        };
        let all = if append {
            None
        } else {
            Some(self.others.iter())
        };
        for s in all.into_iter().flatten().chain(new) {
            text.push_str(&serde_json::to_string(s)?);
            text.push('\n');
        }
        if append {
            use std::io::Write;
            let mut f = std::fs::OpenOptions::new()
                .append(true)
                .open(file)
                .with_context(|| format!("cannot write the solutions base {}", file.display()))?;
            f.write_all(text.as_bytes())
                .with_context(|| format!("cannot write the solutions base {}", file.display()))?;
        } else {
            crate::util::write_atomic(file, text.as_bytes())?;
        }
        self.saved = self.entries.len();
        self.dirty = false;
        Ok(())
    }
}

/// The distinct paths executions took through one function, with the first input of each: an
/// observer of the search (it needs the ordered trace).
pub struct PathLog {
    pub decisions: std::sync::Arc<Decisions>,
    seen: std::collections::HashSet<Vec<Step>>,
    /// Paths not yet taken by the caller (see [`PathLog::drain`]).
    fresh: Vec<(Input, Vec<Step>)>,
}

impl PathLog {
    pub fn new(decisions: std::sync::Arc<Decisions>) -> PathLog {
        PathLog {
            decisions,
            seen: Default::default(),
            fresh: Vec::new(),
        }
    }

    /// Log the path of one execution (ignored when its ordered trace overflowed).
    pub fn log(&mut self, input: &Input, trace: &crate::trace::Trace) {
        if trace.events_overflow {
            return;
        }
        let p = executed(&trace.events, &self.decisions);
        // the base records no longer path ([`MAX_PATH_STEPS`]): not kept in memory either
        if p.len() > MAX_PATH_STEPS {
            return;
        }
        if self.seen.insert(p.clone()) {
            self.fresh.push((input.clone(), p));
        }
    }

    /// The paths logged since the last call, with their first inputs.
    pub fn drain(&mut self) -> Vec<(Input, Vec<Step>)> {
        std::mem::take(&mut self.fresh)
    }
}

impl Observer for PathLog {
    fn evaluated(&mut self, ev: &Evaluation) {
        self.log(&ev.input, &ev.trace);
    }

    fn needs_ordered_trace(&self) -> bool {
        true
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn input(v: u8) -> Input {
        Input::new(vec![v])
    }

    fn p(steps: &[(u32, u32)]) -> Vec<Step> {
        steps.iter().map(|&(site, k)| Step { site, k }).collect()
    }

    #[test]
    fn exact_match_similar_paths_and_atomic_persistence() {
        let dir = tempfile::tempdir().unwrap();
        let file = dir.path().join(FILE_NAME);
        let mut b = SolutionsBase::open(&file, "k1", "f").unwrap();
        assert!(b.is_empty());
        assert!(b.record(&input(1), &p(&[(0, 0), (1, 0)])));
        assert!(
            !b.record(&input(2), &p(&[(0, 0), (1, 0)])),
            "one input per path"
        );
        assert!(b.record(&input(3), &p(&[(0, 0), (1, 1), (2, 0)])));
        assert!(b.record(&input(4), &p(&[(0, 1)])));
        assert_eq!(b.exact(&p(&[(0, 0), (1, 0)])), Some(&input(1)));
        assert_eq!(b.exact(&p(&[(0, 0)])), None);
        // target 0T 1F 2F: shares 2 decisions with input 3, 1 with input 1, 0 with input 4
        let sim = b.similar(&p(&[(0, 0), (1, 1), (2, 1)]), 1, 10);
        assert_eq!(sim, vec![(2, input(3)), (1, input(1))]);
        assert_eq!(
            b.similar(&p(&[(0, 0), (1, 1), (2, 1)]), 2, 10),
            vec![(2, input(3))]
        );
        assert_eq!(b.similar(&p(&[(0, 0), (1, 1), (2, 1)]), 1, 1).len(), 1);
        b.save().unwrap();
        // another key in the same file is kept, but not used
        let mut other = SolutionsBase::open(&file, "k2", "f").unwrap();
        assert!(other.is_empty());
        other.record(&input(9), &p(&[(5, 0)]));
        other.save().unwrap();
        let again = SolutionsBase::open(&file, "k1", "f").unwrap();
        assert_eq!(again.len(), 3);
        assert_eq!(again.exact(&p(&[(0, 1)])), Some(&input(4)));
        assert_eq!(SolutionsBase::open(&file, "k2", "f").unwrap().len(), 1);
        // inputs keep their bytes through JSON, NaN payloads included
        let odd = Input::new([f64::NAN.to_le_bytes(), (-0.0f64).to_le_bytes()].concat());
        let mut b = SolutionsBase::open(&file, "k3", "f").unwrap();
        b.record(&odd, &p(&[(7, 1)]));
        b.save().unwrap();
        assert_eq!(
            SolutionsBase::open(&file, "k3", "f")
                .unwrap()
                .exact(&p(&[(7, 1)])),
            Some(&odd)
        );
        // a torn line (a writer killed by something other than us) is skipped, not fatal
        let mut text = std::fs::read_to_string(&file).unwrap();
        text.push_str("{\"key\":\"k1\",\"funct");
        std::fs::write(&file, text).unwrap();
        let torn = SolutionsBase::open(&file, "k1", "f").unwrap();
        assert_eq!((torn.len(), torn.skipped_lines), (3, 1));
        // no temporary files are left behind
        let names: Vec<_> = std::fs::read_dir(dir.path())
            .unwrap()
            .map(|e| e.unwrap().file_name())
            .collect();
        assert_eq!(names, vec![std::ffi::OsString::from(FILE_NAME)]);
    }
}
