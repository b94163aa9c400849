//! The new-coverage log of `evotest fuzz --new_coverage_log=FILE`: one line per input that added
//! coverage (was kept in the corpus), `<execution> <microseconds> <hex bytes>`, with the
//! execution number counted from 1 in this worker and the time since its start; and a last line
//! `end <executions> <microseconds>` when the run ends. It is the format of the runtime's
//! observer log (`EVOTEST_OBSERVE_LOG`, which the benchmark reads for libFuzzer), so a tool can
//! replay the inputs in order and say when each branch outcome of its own choosing was first
//! covered. Each line is written with one `write` as it happens, so the file can be followed
//! while the run goes on.

use anyhow::{Context, Result};
use std::io::Write;
use std::path::{Path, PathBuf};
use std::time::Duration;

/// An open new-coverage log.
pub struct NewLog {
    path: PathBuf,
    file: std::fs::File,
}

impl NewLog {
    /// Create (or empty) the log at `path`; worker K of a `-j` run writes `path.worker-K`. With
    /// `append` (an in-process worker that takes over from one that died), the lines already
    /// there are kept and new ones go after them.
    ///
    /// Errors: the file cannot be created.
    pub fn create(path: &Path, worker: Option<u32>, append: bool) -> Result<NewLog> {
        let path = match worker {
            Some(k) => PathBuf::from(format!("{}.worker-{k}", path.display())),
            None => path.to_path_buf(),
        };
        let file = std::fs::OpenOptions::new()
            .create(true)
            .write(true)
            .append(append)
            .truncate(!append)
            .open(&path)
            .with_context(|| format!("--new_coverage_log: cannot create {}", path.display()))?;
        Ok(NewLog { path, file })
    }

    fn line(&mut self, s: &str) -> Result<()> {
        self.file
            .write_all(s.as_bytes())
            .with_context(|| format!("cannot write the new-coverage log {}", self.path.display()))
    }

    /// Execution `exec`, at `at` since the start, ran `data` and added coverage.
    ///
    /// Errors: the write failed.
    pub fn input(&mut self, exec: u64, at: Duration, data: &[u8]) -> Result<()> {
        let mut s = format!("{exec} {} ", at.as_micros());
        s.push_str(&crate::util::hex(data));
        s.push('\n');
        self.line(&s)
    }

    /// The run ended after `execs` executions, at `at` since the start.
    ///
    /// Errors: the write failed.
    pub fn end(&mut self, execs: u64, at: Duration) -> Result<()> {
        self.line(&format!("end {execs} {}\n", at.as_micros()))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn lines_are_the_observer_format() {
        let dir = tempfile::tempdir().unwrap();
        let p = dir.path().join("log");
        let mut l = NewLog::create(&p, None, false).unwrap();
        l.input(1, Duration::from_micros(12), &[0, 0xab]).unwrap();
        l.input(7, Duration::from_micros(30), &[]).unwrap();
        l.end(9, Duration::from_micros(40)).unwrap();
        assert_eq!(
            std::fs::read_to_string(&p).unwrap(),
            "1 12 00ab\n7 30 \nend 9 40\n"
        );
        NewLog::create(&p, Some(2), false).unwrap();
        assert!(dir.path().join("log.worker-2").is_file());
        // a worker that takes over appends
        NewLog::create(&p, None, true)
            .unwrap()
            .input(12, Duration::from_micros(50), &[1])
            .unwrap();
        assert_eq!(
            std::fs::read_to_string(&p).unwrap(),
            "1 12 00ab\n7 30 \nend 9 40\n12 50 01\n"
        );
    }
}
