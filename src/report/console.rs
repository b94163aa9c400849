//! The console report: one row per branch site (source line, condition, and for each outcome the
//! execution at which it was first covered), the inputs kept and what each covers, the faults,
//! and a summary line.

use super::{full_coverage_exec, goal_short, json::fault_file, site_rows};
use crate::campaign::RunResult;
use std::fmt::Write;

/// `1234567` → `1,234,567`.
pub fn thousands(n: u64) -> String {
    let s = n.to_string();
    let mut out = String::new();
    for (i, c) in s.chars().enumerate() {
        if i > 0 && (s.len() - i).is_multiple_of(3) {
            out.push(',');
        }
        out.push(c);
    }
    out
}

fn cell(o: &super::OutcomeCell) -> String {
    match o.first_exec {
        _ if o.goal.is_none() => "(no goal)".into(),
        Some(e) => format!("#{}", thousands(e)),
        None if o.suspected_infeasible => "infeasible?".into(),
        None => "-".into(),
    }
}

/// The whole console report.
pub fn render(run: &RunResult) -> String {
    let mut s = String::new();
    let o = &run.options;
    let _ = writeln!(
        s,
        "evotest: {} from {} ({} search, seed {})",
        run.signature.prototype,
        o.sources_display(),
        o.algorithm,
        o.seed
    );
    let rows = site_rows(run);
    let cw = rows.iter().map(|r| r.site.meta.cond.chars().count()).max().unwrap_or(9).clamp(9, 48);
    let _ = writeln!(s, "\n  {:>4}  {:>9}  {:<cw$}  {:>12}  {:>12}", "site", "line:col", "condition", "true", "false");
    for r in &rows {
        let m = &r.site.meta;
        let loc = format!("{}:{}", m.line, m.col);
        let mut cond: String = m.cond.chars().take(cw).collect();
        if m.cond.chars().count() > cw {
            cond.pop();
            cond.push('…');
        }
        if r.outcomes.len() == 2 && m.outcome_labels == ["true", "false"] {
            let _ = writeln!(
                s,
                "  {:>4}  {:>9}  {:<cw$}  {:>12}  {:>12}",
                r.site.id,
                loc,
                cond,
                cell(&r.outcomes[0]),
                cell(&r.outcomes[1])
            );
        } else {
            let cells: Vec<String> = r.outcomes.iter().map(|c| format!("{} {}", c.label, cell(c))).collect();
            let _ = writeln!(s, "  {:>4}  {:>9}  {:<cw$}  {}", r.site.id, loc, format!("switch ({cond})"), cells.join(" | "));
        }
    }
    let _ = writeln!(s, "  (#N: first covered by execution N; -: not covered; infeasible?: given up, suspected infeasible)");

    if !run.archive.tests.is_empty() {
        let _ = writeln!(s, "\ntests ({}), each with the branch outcomes it covers:", run.archive.tests.len());
        for (i, t) in run.archive.tests.iter().enumerate() {
            let ret = match (&t.ret, t.exit) {
                (Some(r), _) => format!(" = {r}"),
                (None, e) => format!(" -> {e}"),
            };
            let covers: Vec<String> = t.covers_all.iter().map(|&g| goal_short(run, g)).collect();
            let _ = writeln!(
                s,
                "  {:>3}. {}({}){ret}\n       covers {}: {}",
                i + 1,
                run.signature.name,
                run.domain.display(&t.input),
                covers.len(),
                covers.join(", ")
            );
        }
    }
    for r in &run.chain_reports {
        let _ = writeln!(
            s,
            "\nchaining for {}: {} in {} executions, {} event sequence{} tried ({} order):",
            r.target,
            if r.covered { "covered" } else { "not covered" },
            thousands(r.executions),
            r.sequences.len(),
            if r.sequences.len() == 1 { "" } else { "s" },
            match r.order {
                crate::search::ChainOrder::Bfs => "breadth-first",
                crate::search::ChainOrder::Dfs => "depth-first",
                crate::search::ChainOrder::Best => "best-first",
            }
        );
        for q in &r.sequences {
            let _ = writeln!(
                s,
                "  {} depth {} {:>8} execs  {}",
                if q.succeeded { "✓" } else { "·" },
                q.depth,
                thousands(q.executions),
                q.sequence
            );
        }
    }
    if !run.archive.fault_counts.is_empty() {
        let counts: Vec<String> = run.archive.fault_counts.iter().map(|(k, v)| format!("{} {k}", thousands(*v))).collect();
        let n: u64 = run.archive.fault_counts.values().sum();
        let _ = writeln!(s, "\nfaults: {} executions ({}); reproducers:", thousands(n), counts.join(", "));
        for (i, f) in run.archive.faults.iter().enumerate() {
            let _ = writeln!(
                s,
                "  {}  {}({}) -> {}",
                o.out_dir.join(fault_file(run, i)).display(),
                run.signature.name,
                run.domain.display(&f.input),
                f.exit
            );
        }
    }
    let total = run.goals.len();
    let covered = run.archive.n_covered();
    let pct = if total > 0 { 100.0 * covered as f64 / total as f64 } else { 100.0 };
    let secs = run.elapsed.as_secs_f64();
    let rate = if secs > 0.0 { run.executions as f64 / secs } else { 0.0 };
    let infeasible =
        if run.given_up.is_empty() { String::new() } else { format!(", {} suspected infeasible", run.given_up.len()) };
    let full = match full_coverage_exec(run) {
        Some(e) => format!(" (full coverage at execution {})", thousands(e)),
        None => String::new(),
    };
    let _ = writeln!(
        s,
        "\ncovered {covered}/{total} branch outcomes ({pct:.1}%){infeasible}{full}; {} executions, {secs:.2} s, {} exec/s",
        thousands(run.executions),
        thousands(rate.round() as u64)
    );
    if run.interrupted {
        let _ = writeln!(s, "interrupted: results so far were written");
    }
    s
}
