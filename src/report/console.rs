//! The console report: one row per row of the criterion (for branch coverage: a site, with its
//! source line, condition, and for each outcome the execution at which it was first covered), the
//! inputs kept and what each covers, the faults, and a summary line.

use super::{cells, json::fault_file, thousands, CellState};
use crate::chaining::ChainOrder;
use crate::suite::Suite;
use std::fmt::Write;

/// Event sequences listed per chaining goal on the console, besides those that succeeded.
const CHAIN_LINES: usize = 5;

fn cell(o: &CellState) -> String {
    match o.first_exec {
        _ if o.goal.is_none() => "(no goal)".into(),
        Some(e) => format!("#{}", thousands(e)),
        None if o.suspected_infeasible => "infeasible?".into(),
        None => "-".into(),
    }
}

/// The whole console report.
pub fn render(run: &Suite) -> String {
    let mut s = String::new();
    let o = &run.info;
    let _ = writeln!(
        s,
        "evotest: {} from {} ({} search, seed {})",
        run.frontend.describe(),
        o.sources_display(),
        o.algorithm,
        o.seed
    );
    let cw = run
        .rows
        .iter()
        .map(|r| r.text.chars().count())
        .max()
        .unwrap_or(9)
        .clamp(9, 48);
    let _ = writeln!(
        s,
        "\n  {:>4}  {:>9}  {:<cw$}  {:>12}  {:>12}",
        "site", "line:col", "condition", "true", "false"
    );
    let several = run.rows.iter().any(|r| r.function != run.rows[0].function);
    for (i, r) in run.rows.iter().enumerate() {
        if several && (i == 0 || run.rows[i - 1].function != r.function) {
            let _ = writeln!(s, "  in {} ({})", r.function, r.file);
        }
        let loc = format!("{}:{}", r.line, r.col);
        let mut cond: String = r.text.chars().take(cw).collect();
        if r.text.chars().count() > cw {
            cond.pop();
            cond.push('…');
        }
        let cs = cells(run, i);
        if cs.len() == 2 && cs[0].label == "true" && cs[1].label == "false" {
            let _ = writeln!(
                s,
                "  {:>4}  {:>9}  {:<cw$}  {:>12}  {:>12}",
                r.id,
                loc,
                cond,
                cell(&cs[0]),
                cell(&cs[1])
            );
        } else {
            let cells: Vec<String> = cs
                .iter()
                .map(|c| format!("{} {}", c.label, cell(c)))
                .collect();
            let what = if r.kind == "switch" {
                format!("switch ({cond})")
            } else {
                cond
            };
            let _ = writeln!(
                s,
                "  {:>4}  {:>9}  {:<cw$}  {}",
                r.id,
                loc,
                what,
                cells.join(" | ")
            );
        }
    }
    let _ = writeln!(s, "  (#N: first covered by execution N; -: not covered; infeasible?: given up, suspected infeasible)");

    if !run.archive.tests.is_empty() {
        let _ = writeln!(
            s,
            "\ntests ({}), each with the {} it covers:",
            run.archive.tests.len(),
            goals_word(run)
        );
        for (i, t) in run.archive.tests.iter().enumerate() {
            let ended = match (&t.ret, t.exit) {
                (Some(_), _) => String::new(),
                (None, e) => format!(" -> {e}"),
            };
            let covers: Vec<String> = t.covers_all.iter().map(|&g| run.goal_short(g)).collect();
            let covers = if covers.is_empty() {
                "covers nothing: a test of the result (no branch to cover)".to_string()
            } else {
                format!("covers {}: {}", covers.len(), covers.join(", "))
            };
            let _ = writeln!(
                s,
                "  {:>3}. {}{ended}\n       {covers}",
                i + 1,
                run.frontend.call_text(&t.input, t.ret.as_ref())
            );
        }
    }
    // attempts that tried no event sequence (the chaining tree had no definition to add, or
    // the budget ran out first): one line per goal and reason
    let mut empty: Vec<(&str, bool, usize)> = Vec::new();
    // a failed attempt on a goal that the run covered later is no news (report.json keeps it)
    let later = |r: &&crate::chaining::ChainReport| !r.covered && run.archive.is_covered(r.goal);
    for r in run
        .chain_reports
        .iter()
        .filter(|r| r.sequences.is_empty() && !r.covered)
        .filter(|r| !later(r))
    {
        match empty
            .iter_mut()
            .find(|(t, d, _)| *t == r.target.as_str() && *d == r.no_definitions)
        {
            Some((_, _, n)) => *n += 1,
            None => empty.push((r.target.as_str(), r.no_definitions, 1)),
        }
    }
    for (target, none, n) in &empty {
        let times = if *n == 1 {
            String::new()
        } else {
            format!(" ({n} attempts)")
        };
        let why = if *none {
            "the branch reads no variable with a definition the chaining tree could add"
        } else {
            "the budget ran out before the first"
        };
        let _ = writeln!(
            s,
            "\nchaining for {target}: no event sequence tried ({why}){times}"
        );
    }
    for r in run
        .chain_reports
        .iter()
        .filter(|r| !r.sequences.is_empty() || r.covered)
        .filter(|r| !later(r))
    {
        let _ = writeln!(
            s,
            "\nchaining for {}: {} in {} executions, {} event sequence{} tried ({} order):",
            r.target,
            if r.covered { "covered" } else { "not covered" },
            thousands(r.executions),
            r.sequences.len(),
            if r.sequences.len() == 1 { "" } else { "s" },
            match r.order {
                ChainOrder::Bfs => "breadth-first",
                ChainOrder::Dfs => "depth-first",
                ChainOrder::Best => "best-first",
            }
        );
        // the sequences that succeeded, and the first few others: a goal that is infeasible
        // tries dozens (report.json lists them all)
        let mut others = 0;
        for q in &r.sequences {
            if !q.succeeded {
                others += 1;
                if others > CHAIN_LINES {
                    continue;
                }
            }
            let _ = writeln!(
                s,
                "  {} depth {} {:>8} execs  {}",
                if q.succeeded { "✓" } else { "·" },
                q.depth,
                thousands(q.executions),
                q.sequence
            );
        }
        if others > CHAIN_LINES {
            let _ = writeln!(
                s,
                "  … and {} more, listed in report.json (\"chaining\")",
                others - CHAIN_LINES
            );
        }
    }
    if !run.archive.fault_counts.is_empty() {
        let counts: Vec<String> = run
            .archive
            .fault_counts
            .iter()
            .map(|(k, v)| format!("{} {k}", thousands(*v)))
            .collect();
        let n: u64 = run.archive.fault_counts.values().sum();
        let _ = writeln!(
            s,
            "\nfaults: {} executions ({}); {}",
            thousands(n),
            counts.join(", "),
            if run.archive.faults.is_empty() {
                // the check before the suite is written ran each kept fault alone in a fresh
                // process, and none ended so again
                if run.inputs_per_process > 1 {
                    "none recurred when run again alone in a fresh process (they depended on the inputs run before them in the same process, or on the machine's load): try --persistent 1".to_string()
                } else {
                    "none recurred when run again alone in a fresh process (a timeout under load, or state outside the process)".to_string()
                }
            } else if run
                .verification
                .as_ref()
                .is_some_and(|v| v.same_message > 0)
            {
                let n = run.verification.as_ref().map_or(0, |v| v.same_message);
                format!(
                    "reproducers ({n} more that ended and said the same as one of these left out):"
                )
            } else {
                "reproducers:".to_string()
            }
        );
        for (i, f) in run.archive.faults.iter().enumerate() {
            let _ = writeln!(
                s,
                "  {}  {} -> {}{}",
                o.out_dir.join(fault_file(run, i)).display(),
                run.frontend.call_text(&f.input, None),
                f.exit,
                run.frontend
                    .fault_message(f)
                    .or_else(|| f.message.clone())
                    .map(|m| format!("\n       {m}"))
                    .unwrap_or_default()
            );
        }
    }
    let _ = writeln!(s, "\n{}", summary(run));
    for n in &run.notes {
        let _ = writeln!(s, "{n}");
    }
    if run.interrupted {
        let _ = writeln!(s, "interrupted: results so far were written");
    }
    if let Some(v) = run.verification.as_ref().filter(|v| v.changed > 0) {
        let lost = if v.lost_goals > 0 {
            format!(
                " ({} goals were covered only in the search's run)",
                v.lost_goals
            )
        } else {
            String::new()
        };
        // the fresh results are the suite's, and tests.c runs each test in a fresh process: only
        // goals covered through state an earlier input left need another search
        let hint = if run.inputs_per_process == 1 {
            " (e.g. a timeout that does not recur)"
        } else if v.lost_goals > 0 {
            "; the code keeps state between calls that persistent mode cannot undo: --persistent 1 searches with a fresh process per input, where those goals count only if a fresh run covers them"
        } else {
            "; the code keeps state between calls that persistent mode cannot undo"
        };
        let _ = writeln!(
            s,
            "note: {} of {} kept inputs ended differently when run again in a fresh process{lost}; the suite has the fresh results{hint}",
            v.changed, v.replayed
        );
    }
    if run.exhausted {
        let _ = writeln!(
            s,
            "stopped early: the search proposed no input it had not run before (the input domain is too small for the budget)"
        );
    }
    s
}

/// The summary line: `covered 22/22 branch outcomes (100.0%) …; 61 executions, 0.02 s, 2,534 exec/s`.
pub fn summary(run: &Suite) -> String {
    let total = run.goals.len();
    let covered = run.archive.n_covered();
    let pct = if total > 0 {
        100.0 * covered as f64 / total as f64
    } else {
        100.0
    };
    let secs = run.elapsed.as_secs_f64();
    let rate = if secs > 0.0 {
        run.executions as f64 / secs
    } else {
        0.0
    };
    let infeasible = if run.given_up.is_empty() {
        String::new()
    } else {
        format!(", {} suspected infeasible", run.given_up.len())
    };
    let full = match run.full_coverage_exec() {
        Some(e) => format!(" (full coverage at execution {})", thousands(e)),
        None => String::new(),
    };
    let what = goals_word(run);
    let parts = match super::part_counts(run) {
        Some([(dt, dc), (ct, cc)]) => format!(" [decisions {dc}/{dt}, conditions {cc}/{ct}]"),
        None => String::new(),
    };
    if total == 0 && run.frontend.called_functions().is_some() {
        // an API (its operations called by the harness)
        return format!(
            "no {what} to cover: the API's functions have no branch; {} execution{}, {secs:.2} s",
            thousands(run.executions),
            if run.executions == 1 { "" } else { "s" }
        );
    }
    if total == 0 {
        return format!(
            "no {what} to cover: `{}` and the functions it calls directly have no branch (code reached only through a function pointer, a closure or trait object passed as a value, or another thread is not followed); {} execution{}, {secs:.2} s",
            run.info.function,
            thousands(run.executions),
            if run.executions == 1 { "" } else { "s" }
        );
    }
    format!(
        "covered {covered}/{total} {what}{parts} ({pct:.1}%){infeasible}{full}; {} executions, {secs:.2} s, {} exec/s",
        thousands(run.executions),
        thousands(rate.round() as u64)
    )
}

/// What the goals are called: `branch outcomes`, `path goals`.
fn goals_word(run: &Suite) -> String {
    if run.info.criterion == "branch" {
        "branch outcomes".to_string()
    } else {
        format!("{} goals", run.info.criterion)
    }
}
