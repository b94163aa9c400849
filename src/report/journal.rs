//! The journal: every input the archive keeps is appended to `journal.jsonl` in the output
//! directory as it is found, and every kept fault's reproducer is written to `faults/` at once,
//! so that a run killed with `SIGKILL` loses nothing it found. `evotest run --resume` reads the
//! journal back ([`read`]) and evaluates those inputs before searching on.
//!
//! One JSON object per line: `{"kind": "test"|"fault", "execution": N, "input": "<hex>",
//! "exit": {...}, "return": {...}}`. Lines are flushed one by one; a torn last line is skipped
//! when read.

use crate::archive::TestCase;
use crate::exec::{ExitKind, RetVal};
use crate::input::Input;
use crate::observe::Observer;
use anyhow::{Context, Result};
use serde::{Deserialize, Serialize};
use std::io::Write;
use std::path::{Path, PathBuf};

/// File name of the journal in an output directory.
pub const FILE_NAME: &str = "journal.jsonl";

/// File name of a journal being resumed from (kept until the resumed run has re-evaluated it).
pub const RESUMED_NAME: &str = "journal.resumed.jsonl";

/// One journal line.
#[derive(Clone, Debug, Serialize, Deserialize)]
pub struct Entry {
    pub kind: String,
    pub execution: u64,
    pub input: Input,
    pub exit: ExitKind,
    #[serde(rename = "return")]
    pub ret: Option<RetVal>,
}

/// The journal writer: an observer of the search.
pub struct Journal {
    file: std::fs::File,
    dir: PathBuf,
    faults: usize,
    /// The first error, if writing failed (the search goes on; the final reports still follow).
    pub error: Option<String>,
}

impl Journal {
    /// Start a journal in `dir` (appending to one left by a killed run).
    ///
    /// Errors: the directory is not writable.
    pub fn open(dir: &Path) -> Result<Journal> {
        std::fs::create_dir_all(dir).with_context(|| format!("cannot create {}", dir.display()))?;
        let path = dir.join(FILE_NAME);
        let file = std::fs::OpenOptions::new()
            .create(true)
            .append(true)
            .open(&path)
            .with_context(|| format!("cannot write {}", path.display()))?;
        Ok(Journal {
            file,
            dir: dir.to_path_buf(),
            faults: 0,
            error: None,
        })
    }

    fn append(&mut self, test: &TestCase, fault: bool) -> Result<()> {
        let e = Entry {
            kind: if fault { "fault" } else { "test" }.into(),
            execution: test.exec,
            input: test.input.clone(),
            exit: test.exit,
            ret: test.ret,
        };
        let mut line = serde_json::to_string(&e)?;
        line.push('\n');
        self.file.write_all(line.as_bytes())?;
        if fault {
            self.faults += 1;
            let dir = self.dir.join("faults");
            std::fs::create_dir_all(&dir)?;
            crate::util::write_atomic(
                &dir.join(format!("{}-{}.input", test.exit.name(), self.faults)),
                &test.input.bytes,
            )?;
        }
        Ok(())
    }
}

impl Observer for Journal {
    fn kept(&mut self, test: &TestCase, fault: bool) {
        if let Err(e) = self.append(test, fault) {
            self.error.get_or_insert_with(|| format!("{e:#}"));
        }
    }
}

/// The entries of the journals in `dir` (a journal being resumed, then the current one; none if
/// there is none), skipping unreadable lines.
///
/// Errors: a journal exists but cannot be read.
pub fn read(dir: &Path) -> Result<Vec<Entry>> {
    let mut out = Vec::new();
    for name in [RESUMED_NAME, FILE_NAME] {
        let path = dir.join(name);
        let text = match std::fs::read_to_string(&path) {
            Ok(t) => t,
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => continue,
            Err(e) => return Err(e).with_context(|| format!("cannot read {}", path.display())),
        };
        out.extend(
            text.lines()
                .filter_map(|l| serde_json::from_str::<Entry>(l).ok()),
        );
    }
    Ok(out)
}

/// Set the journal of `dir` aside for resuming (its entries stay readable by [`read`] until
/// [`resumed`]), so that the resumed run starts a journal of its own.
///
/// Errors: the journal cannot be moved.
pub fn resume(dir: &Path) -> Result<Vec<Entry>> {
    let entries = read(dir)?;
    let (cur, old) = (dir.join(FILE_NAME), dir.join(RESUMED_NAME));
    if cur.exists() {
        // keep everything readable: the set-aside journal gets the current one's lines too
        let mut text = std::fs::read_to_string(&old).unwrap_or_default();
        text.push_str(&std::fs::read_to_string(&cur).unwrap_or_default());
        crate::util::write_atomic(&old, text.as_bytes())?;
        std::fs::remove_file(&cur).with_context(|| format!("cannot move {}", cur.display()))?;
    }
    Ok(entries)
}

/// The resumed run has re-evaluated the set-aside journal: remove it.
pub fn resumed(dir: &Path) {
    let _ = std::fs::remove_file(dir.join(RESUMED_NAME));
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn kept_inputs_and_faults_are_journalled_at_once_and_read_back() {
        let dir = tempfile::tempdir().unwrap();
        let mut j = Journal::open(dir.path()).unwrap();
        let t = |b: u8, exit: ExitKind| TestCase {
            input: Input::new(vec![b]),
            exit,
            ret: None,
            exec: b as u64,
            at: std::time::Duration::ZERO,
            covers_new: vec![0],
            covers_all: vec![0],
            message: None,
            slow: false,
        };
        j.kept(&t(1, ExitKind::Ok), false);
        j.kept(&t(2, ExitKind::Crash { signal: 11 }), true);
        assert!(
            dir.path().join("faults/crash-1.input").is_file(),
            "the reproducer is written at once"
        );
        // a torn line (a writer killed mid-line) is skipped
        std::fs::OpenOptions::new()
            .append(true)
            .open(dir.path().join(FILE_NAME))
            .unwrap()
            .write_all(b"{\"kind\":\"te")
            .unwrap();
        let e = read(dir.path()).unwrap();
        assert_eq!(e.len(), 2);
        assert_eq!(
            (e[0].kind.as_str(), e[1].exit),
            ("test", ExitKind::Crash { signal: 11 })
        );
        assert_eq!(e[1].input, Input::new(vec![2]));
        assert!(read(&dir.path().join("nowhere")).unwrap().is_empty());
    }
}
