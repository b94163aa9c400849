//! What a fuzzing run shows and writes about its progress: `fuzzer_stats.json` (rewritten
//! atomically every second), `coverage.csv` (one row per second in which something changed, and
//! one at the end), `coverage.svg` (branch outcomes covered against time, at the end), and the
//! status on standard error: one line redrawn in place on a terminal (indicatif), or
//! libFuzzer-style lines (`#N NEW cov: …`) otherwise.

use crate::util::{thousands, write_replace as write_atomic};
use anyhow::{anyhow, Context, Result};
use indicatif::{ProgressBar, ProgressDrawTarget, ProgressStyle};
use serde::{Deserialize, Serialize};
use std::io::Write;
use std::path::{Path, PathBuf};
use std::time::Duration;

/// The content of `fuzzer_stats.json`: a snapshot of one worker.
#[derive(Clone, Debug, Default, Serialize, Deserialize, PartialEq)]
pub struct Stats {
    /// The worker's name (`main`, `worker-1`, `HOST-PID`).
    pub worker: String,
    pub target: String,
    /// `libfuzzer`, `stdin` or `file`.
    pub delivery: String,
    pub seed: u64,
    /// Unix time of the start, seconds.
    pub start_time: u64,
    /// Unix time of this snapshot, seconds.
    pub last_update: u64,
    pub run_time_seconds: f64,
    pub execs_done: u64,
    pub execs_per_sec: f64,
    /// Inputs in the corpus (seeds and corpus files kept, and new ones).
    pub corpus_count: usize,
    /// Inputs this run found and added to the corpus directory (not the seeds it copied there;
    /// libFuzzer's `new_units_added`).
    pub corpus_new: usize,
    /// Inputs other workers added to the corpus directory that this one ran.
    pub corpus_synced: usize,
    /// Bytes of all corpus inputs.
    #[serde(default)]
    pub corpus_bytes: u64,
    /// Corpus entries replaced by a shorter input with the same features (`-reduce_inputs`).
    #[serde(default)]
    pub corpus_reduced: u64,
    /// Executions that re-ran a shorter candidate with every site recorded in full (outcomes of
    /// quiet sites are seen only so), to decide a replacement.
    #[serde(default)]
    pub reduce_runs: u64,
    /// Havoc's coverage-only executions (`-lite`), those of them that added coverage and ran
    /// again in full, and havoc's full executions.
    #[serde(default)]
    pub lite_execs: u64,
    #[serde(default)]
    pub lite_reruns: u64,
    #[serde(default)]
    pub havoc_full_execs: u64,
    /// Length control's current limit on havoc's inputs (`-len_control`; libFuzzer's `lim`).
    #[serde(default)]
    pub len_limit: usize,
    /// Branch outcomes taken by the corpus, and their number in the program.
    pub outcomes_covered: usize,
    pub outcomes_total: usize,
    /// Outcomes plus (site, hit-count bucket) features.
    pub features: usize,
    /// Unique crashes in the shared crash record (every worker and earlier run on this corpus).
    pub unique_crashes: usize,
    /// Unique crashes this worker found.
    pub crashes_found: usize,
    /// The signatures of recorded crashes (an earlier run's on this corpus, or another
    /// worker's) that this worker met again.
    #[serde(default)]
    pub crashes_met_again: Vec<String>,
    /// Crashing executions (unique or not).
    pub crashes_total: u64,
    pub timeouts_unique: usize,
    pub timeouts_total: u64,
    pub ooms_unique: usize,
    pub ooms_total: u64,
    /// Seconds since the start at the last new coverage.
    pub last_new_seconds: f64,
    pub max_len: usize,
    /// Inputs per target process (1: a process per input).
    pub inputs_per_process: u32,
    /// Longest execution seen, seconds.
    pub slowest_exec_seconds: f64,
    /// Peak resident memory of this worker's process, MB: evotest's engine, and in-process
    /// (`--in_process`) the harness it calls.
    pub peak_rss_mb: u64,
    pub done: bool,
}

/// Peak resident memory of this process in MB (`VmHWM`), 0 if unknown.
pub fn peak_rss_mb() -> u64 {
    std::fs::read_to_string("/proc/self/status")
        .ok()
        .and_then(|s| {
            s.lines()
                .find(|l| l.starts_with("VmHWM:"))
                .and_then(|l| l.split_whitespace().nth(1)?.parse::<u64>().ok())
        })
        .map_or(0, |kb| kb / 1024)
}

/// How progress shows on standard error.
#[derive(Clone, Copy, Debug, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub enum Display {
    /// A status line redrawn in place (a terminal).
    Bar,
    /// libFuzzer-style lines.
    Lines,
    /// Nothing but errors and the summary.
    Quiet,
}

/// The first line of `coverage.csv`.
const CSV_HEADER: &str = "seconds,executions,outcomes_covered,features,corpus,unique_crashes";

/// The stats files and the status display of one worker.
pub struct Monitor {
    dir: PathBuf,
    display: Display,
    bar: Option<ProgressBar>,
    csv: Option<std::fs::File>,
    /// (seconds, outcomes covered) for the plot.
    curve: Vec<(f64, usize)>,
    last_row: Option<(usize, usize, usize, usize)>,
    next_pulse: u64,
}

impl Monitor {
    /// A monitor writing into `dir` (created), showing progress as `display` says. `resume`: a
    /// worker that goes on from one that ended (an in-process restart): the coverage history
    /// already in `coverage.csv` is kept, and the plot starts from it.
    ///
    /// Errors: `dir` or its CSV file cannot be created.
    pub fn new(dir: &Path, display: Display, resume: bool) -> Result<Monitor> {
        std::fs::create_dir_all(dir).with_context(|| format!("cannot create {}", dir.display()))?;
        let p = dir.join("coverage.csv");
        let mut curve = vec![];
        let kept = if resume {
            std::fs::read_to_string(&p)
                .ok()
                .filter(|t| t.starts_with(CSV_HEADER))
        } else {
            None
        };
        let csv = match kept {
            Some(text) => {
                for row in text.lines().skip(1) {
                    let f: Vec<&str> = row.split(',').collect();
                    if let (Some(Ok(t)), Some(Ok(c))) = (
                        f.first().map(|x| x.parse::<f64>()),
                        f.get(2).map(|x| x.parse::<usize>()),
                    ) {
                        curve.push((t, c));
                    }
                }
                std::fs::OpenOptions::new()
                    .append(true)
                    .open(&p)
                    .with_context(|| format!("cannot open {}", p.display()))?
            }
            None => {
                let mut csv = std::fs::File::create(&p)
                    .with_context(|| format!("cannot create {}", p.display()))?;
                writeln!(csv, "{CSV_HEADER}")?;
                csv
            }
        };
        let bar = (display == Display::Bar).then(|| {
            let b = ProgressBar::with_draw_target(None, ProgressDrawTarget::stderr_with_hz(4));
            if let Ok(s) = ProgressStyle::with_template("{spinner} {msg}") {
                b.set_style(s);
            }
            b
        });
        Ok(Monitor {
            dir: dir.to_path_buf(),
            display,
            bar,
            csv: Some(csv),
            curve,
            last_row: None,
            next_pulse: 1,
        })
    }

    /// The directory of the stats files.
    pub fn dir(&self) -> &Path {
        &self.dir
    }

    /// Print a line above the status (a crash, a notice), whatever the display but `Quiet`… which
    /// still prints it: such lines are results.
    pub fn println(&self, line: &str) {
        match &self.bar {
            Some(b) => b.println(line),
            None => eprintln!("{line}"),
        }
    }

    /// A libFuzzer-style event line (`NEW`, `INITED`, `DONE`, `pulse`), in `Lines` mode.
    pub fn event(&mut self, what: &str, s: &Stats) {
        if !self.prints_events() {
            return;
        }
        eprintln!(
            "#{}\t{what:<6} cov: {} ft: {} corp: {}/{} lim: {} exec/s: {:.0} crashes: {} timeouts: {} oom: {}",
            s.execs_done,
            s.outcomes_covered,
            s.features,
            s.corpus_count,
            fmt_bytes(s.corpus_bytes),
            s.len_limit,
            s.execs_per_sec,
            s.crashes_found + s.crashes_met_again.len(),
            kept_of(s.timeouts_unique, s.timeouts_total),
            kept_of(s.ooms_unique, s.ooms_total)
        );
    }

    /// Whether [`Monitor::event`] prints anything (so that callers need not gather the stats).
    pub fn prints_events(&self) -> bool {
        self.display == Display::Lines
    }

    /// Called every second: rewrite `fuzzer_stats.json`, add a CSV row if something changed,
    /// redraw the status (or print a `pulse` line at powers of two of executions).
    ///
    /// Errors: the stats files cannot be written.
    pub fn tick(&mut self, s: &Stats) -> Result<()> {
        write_atomic(
            &self.dir.join("fuzzer_stats.json"),
            &serde_json::to_vec_pretty(s)?,
        )?;
        let row = (
            s.outcomes_covered,
            s.features,
            s.corpus_count,
            s.unique_crashes,
        );
        if self.last_row != Some(row) || s.done {
            self.last_row = Some(row);
            self.curve.push((s.run_time_seconds, s.outcomes_covered));
            if let Some(f) = self.csv.as_mut() {
                writeln!(
                    f,
                    "{:.1},{},{},{},{},{}",
                    s.run_time_seconds,
                    s.execs_done,
                    s.outcomes_covered,
                    s.features,
                    s.corpus_count,
                    s.unique_crashes
                )?;
            }
        }
        match self.display {
            Display::Bar => {
                if let Some(b) = &self.bar {
                    b.set_message(status_line(s));
                    b.tick();
                }
            }
            Display::Lines => {
                if s.execs_done >= self.next_pulse && !s.done {
                    while self.next_pulse <= s.execs_done {
                        self.next_pulse *= 2;
                    }
                    self.event("pulse", s);
                }
            }
            Display::Quiet => {}
        }
        Ok(())
    }

    /// The last snapshot of this worker (`own`): stats, CSV row, the SVG plot; the status line
    /// is removed, and the `DONE` line gives `all` (the run's figures: with `-j`, every
    /// worker's executions and coverage).
    ///
    /// Errors: the files cannot be written.
    pub fn finish(&mut self, own: &Stats, all: &Stats) -> Result<()> {
        self.tick(own)?;
        if let Some(b) = self.bar.take() {
            b.finish_and_clear();
        }
        self.event("DONE", all);
        // the plot is a picture of the CSV: a file-size limit or a full disk that only it meets
        // must not cost the run its summary
        if let Err(e) = plot(&self.dir.join("coverage.svg"), &self.curve, own) {
            eprintln!("evotest fuzz: warning: {e:#}");
        }
        Ok(())
    }
}

/// The status line: executions, exec/s, coverage, corpus, crashes, time since new coverage.
pub fn status_line(s: &Stats) -> String {
    let pct = if s.outcomes_total > 0 {
        100.0 * s.outcomes_covered as f64 / s.outcomes_total as f64
    } else {
        0.0
    };
    format!(
        "{}  execs {} ({}/s) │ cov {}/{} outcomes ({pct:.1}%), {} features │ corpus {} (+{}) │ crashes {} unique ({} total) │ timeouts {} │ oom {} │ last new {}",
        fmt_secs(s.run_time_seconds),
        thousands(s.execs_done),
        thousands(s.execs_per_sec as u64),
        thousands(s.outcomes_covered as u64),
        thousands(s.outcomes_total as u64),
        thousands(s.features as u64),
        thousands(s.corpus_count as u64),
        s.corpus_new,
        s.unique_crashes,
        s.crashes_total,
        kept_of(s.timeouts_unique, s.timeouts_total),
        kept_of(s.ooms_unique, s.ooms_total),
        fmt_secs((s.run_time_seconds - s.last_new_seconds).max(0.0)) + " ago",
    )
}

/// The timeouts (or out-of-memory kills) kept as artifacts, and how many executions had one when
/// that is more (a timeout is kept when it recurs in a fresh process and reached new coverage):
/// `2`, or `0 (48 runs)`.
pub fn kept_of(unique: usize, total: u64) -> String {
    if total > unique as u64 {
        format!("{unique} ({total} runs)")
    } else {
        unique.to_string()
    }
}

/// Bytes as libFuzzer prints them: `845b`, `12Kb`, `3Mb`.
pub fn fmt_bytes(b: u64) -> String {
    if b < 1 << 14 {
        format!("{b}b")
    } else if b < 1 << 24 {
        format!("{}Kb", b >> 10)
    } else {
        format!("{}Mb", b >> 20)
    }
}

/// `1h02m03s`, `4m05s`, `6s`.
pub fn fmt_secs(secs: f64) -> String {
    let t = secs.max(0.0) as u64;
    let (h, m, s) = (t / 3600, t / 60 % 60, t % 60);
    if h > 0 {
        format!("{h}h{m:02}m{s:02}s")
    } else if m > 0 {
        format!("{m}m{s:02}s")
    } else {
        format!("{s}s")
    }
}

/// Write the plot of outcomes covered against seconds.
///
/// Errors: the file cannot be written.
pub fn plot(path: &Path, curve: &[(f64, usize)], s: &Stats) -> Result<()> {
    use plotters::prelude::*;
    let e = |e: DrawingAreaErrorKind<std::io::Error>| anyhow!("plotting {}: {e}", path.display());
    let xmax = curve.last().map_or(1.0, |c| c.0).max(1.0);
    let ymax = curve.iter().map(|c| c.1).max().unwrap_or(1).max(1) as f64 * 1.05;
    let root = SVGBackend::new(path, (720, 440)).into_drawing_area();
    root.fill(&WHITE).map_err(e)?;
    let mut chart = ChartBuilder::on(&root)
        .caption(
            format!(
                "{}: branch outcomes covered ({} worker)",
                s.target, s.worker
            ),
            ("sans-serif", 18),
        )
        .margin(12)
        .x_label_area_size(36)
        .y_label_area_size(56)
        .build_cartesian_2d(0f64..xmax, 0f64..ymax)
        .map_err(e)?;
    chart
        .configure_mesh()
        .x_desc("seconds")
        .y_desc("outcomes covered")
        .draw()
        .map_err(e)?;
    // a step curve
    let mut pts = Vec::new();
    let mut last = 0.0;
    for &(t, c) in curve {
        pts.push((t, last));
        pts.push((t, c as f64));
        last = c as f64;
    }
    pts.push((xmax, last));
    chart
        .draw_series(LineSeries::new(pts, RGBColor(31, 119, 180).stroke_width(2)))
        .map_err(e)?;
    root.present().map_err(e)?;
    Ok(())
}

/// Read a worker's `fuzzer_stats.json`, if it is there and readable.
pub fn read(dir: &Path) -> Option<Stats> {
    serde_json::from_slice(&std::fs::read(dir.join("fuzzer_stats.json")).ok()?).ok()
}

/// Seconds since the Unix epoch, with their fraction (0 if the clock is before it).
pub fn unix_now_f64() -> f64 {
    std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map_or(0.0, |d| d.as_secs_f64())
}

/// Wall time as Unix seconds.
pub fn unix_now() -> u64 {
    std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map_or(0, |d| d.as_secs())
}

/// Seconds as a `Duration`, for the summary.
pub fn secs(d: Duration) -> f64 {
    d.as_secs_f64()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn timeouts_that_were_not_kept_are_shown_too() {
        assert_eq!(kept_of(2, 2), "2");
        assert_eq!(kept_of(0, 48), "0 (48 runs)");
        assert_eq!(kept_of(0, 0), "0");
    }

    #[test]
    fn stats_csv_and_plot_are_written() {
        let d = tempfile::tempdir().unwrap();
        let mut m = Monitor::new(d.path(), Display::Quiet, false).unwrap();
        let mut s = Stats {
            target: "t".into(),
            worker: "main".into(),
            outcomes_total: 10,
            ..Default::default()
        };
        m.tick(&s).unwrap();
        m.tick(&s).unwrap(); // unchanged: no new row
        s.outcomes_covered = 4;
        s.run_time_seconds = 2.0;
        m.tick(&s).unwrap();
        s.done = true;
        m.finish(&s, &s).unwrap();
        let csv = std::fs::read_to_string(d.path().join("coverage.csv")).unwrap();
        assert_eq!(csv.lines().count(), 1 + 3, "{csv}");
        assert_eq!(read(d.path()).unwrap(), s);
        let svg = std::fs::read_to_string(d.path().join("coverage.svg")).unwrap();
        assert!(svg.contains("<svg") && svg.contains("outcomes covered"));
        assert_eq!(fmt_secs(3723.0), "1h02m03s");
        assert!(status_line(&s).contains("cov 4/10 outcomes (40.0%)"));
    }

    /// A worker that takes over from one that ended (an in-process restart) keeps the history of
    /// coverage over time; it used to start `coverage.csv` afresh, leaving the last worker's rows.
    #[test]
    fn a_resumed_monitor_keeps_the_coverage_history() {
        let d = tempfile::tempdir().unwrap();
        let mut s = Stats {
            target: "t".into(),
            worker: "main".into(),
            outcomes_total: 10,
            ..Default::default()
        };
        let mut m = Monitor::new(d.path(), Display::Quiet, false).unwrap();
        for (t, c) in [(1.0, 2), (2.0, 5)] {
            (s.run_time_seconds, s.outcomes_covered) = (t, c);
            m.tick(&s).unwrap();
        }
        drop(m);
        let mut m = Monitor::new(d.path(), Display::Quiet, true).unwrap();
        (s.run_time_seconds, s.outcomes_covered, s.done) = (3.0, 7, true);
        m.finish(&s, &s).unwrap();
        let csv = std::fs::read_to_string(d.path().join("coverage.csv")).unwrap();
        let times: Vec<&str> = csv
            .lines()
            .skip(1)
            .map(|l| l.split(',').next().unwrap())
            .collect();
        assert_eq!(times, ["1.0", "2.0", "3.0"], "{csv}");
        assert_eq!(m.curve, [(1.0, 2), (2.0, 5), (3.0, 7)]);
        // a fresh run starts afresh
        let m = Monitor::new(d.path(), Display::Quiet, false).unwrap();
        drop(m);
        assert_eq!(
            std::fs::read_to_string(d.path().join("coverage.csv"))
                .unwrap()
                .lines()
                .count(),
            1
        );
    }
}
