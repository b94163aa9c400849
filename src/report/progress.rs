//! Progress on the terminal during a run (indicatif), drawn on stderr (indicatif draws nothing
//! when stderr is not a terminal): an observer of the search.

use crate::observe::{Observer, Status};
use indicatif::{ProgressBar, ProgressDrawTarget, ProgressStyle};

/// A progress bar over the execution budget (a spinner when only time is limited).
pub struct ProgressMonitor {
    bar: ProgressBar,
}

impl ProgressMonitor {
    pub fn new(max_execs: Option<u64>) -> ProgressMonitor {
        let bar = ProgressBar::with_draw_target(max_execs, ProgressDrawTarget::stderr());
        let style = if max_execs.is_some() {
            ProgressStyle::with_template(
                "{elapsed:>4} [{bar:30}] {human_pos}/{human_len} execs  {msg}",
            )
        } else {
            ProgressStyle::with_template("{elapsed:>4} {spinner} {human_pos} execs  {msg}")
        };
        if let Ok(style) = style {
            bar.set_style(style.progress_chars("=> "));
        }
        ProgressMonitor { bar }
    }

    /// Remove the bar.
    pub fn finish(&self) {
        self.bar.finish_and_clear();
    }
}

impl Observer for ProgressMonitor {
    fn progress(&mut self, s: &Status) {
        self.bar.set_position(s.executions);
        let faults = if s.faults > 0 {
            format!(", {} faults", s.faults)
        } else {
            String::new()
        };
        self.bar
            .set_message(format!("covered {}/{}{faults}", s.covered, s.goals));
    }
}
