//! Path targets (Bueno & Jino 2002): a **path** of a function is the sequence of
//! decisions its execution takes, each a (branch site, outcome) pair, loop iterations included.
//!
//! * [`parse`] reads a path written by hand (`--path`), naming each decision by site ID, by source
//!   line (and column, or condition text) and outcome label, with `[ … ]*N` for repetition.
//! * [`check`] walks the function's CFG along a path, so that a path which skips a decision, or
//!   stops before the function returns, is refused with a one-line reason.
//! * [`enumerate`] lists the function's paths from its CFG: the acyclic ones, plus up to k
//!   iterations of each loop (`--paths enumerate:k`).
//! * [`executed`] reads the path an execution took from its ordered trace.
//!
//! Only the `br` and `switch` sites of the function under test are decisions of its paths: a
//! `select` is a decision inside a block (clang emits few at -O0), and the decisions of callees
//! belong to their own paths. Calls do not interrupt a path; recursion is not supported (the
//! decisions of nested activations would interleave).

pub mod base;

use crate::program::{Program, SiteId};
use crate::trace::{Event, EVENT_DEF};
use anyhow::{anyhow, bail, Result};
use evotest_abi::meta::SiteKind;
use serde::{Deserialize, Serialize};

/// One decision of a path: outcome `k` of branch site `site` (0 = true / `default`, as in
/// [`crate::program::Site::outcomes`]).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize, PartialOrd, Ord)]
pub struct Step {
    pub site: SiteId,
    pub k: u32,
}

/// The decision sites of one function: a filter over global site IDs.
#[derive(Clone, Debug)]
pub struct Decisions {
    /// Index into [`Program::functions`].
    pub function: usize,
    /// By global site ID: whether it is a `br` or `switch` of the function.
    pub is_decision: Vec<bool>,
    /// A short-circuiting outcome of a `&&`/`||` lowered to a `phi` (a loop header's `while (a &&
    /// b)`) → the outcome it forces on the branch on the `phi`: `a` false makes the whole
    /// condition false, so a path with `a` false and the loop entered is impossible.
    pub forces: std::collections::HashMap<Step, Step>,
}

impl Decisions {
    /// The decision sites of function `function`.
    pub fn of(program: &Program, function: usize) -> Decisions {
        let is_decision: Vec<bool> = program
            .sites
            .iter()
            .map(|s| {
                s.function == function && matches!(s.meta.kind, SiteKind::Br | SiteKind::Switch)
            })
            .collect();
        let mut forces = std::collections::HashMap::new();
        for d in program.decisions.iter().filter(|d| {
            d.function == function && d.meta.form == evotest_abi::meta::DecisionForm::Phi
        }) {
            let Some(phi) = d
                .site
                .filter(|&s| is_decision.get(s as usize).copied().unwrap_or(false))
            else {
                continue;
            };
            for (k, ends) in d.ends.iter().enumerate() {
                for &(s, o) in ends
                    .iter()
                    .filter(|(s, _)| is_decision.get(*s as usize).copied().unwrap_or(false))
                {
                    forces.insert(
                        Step { site: s, k: o },
                        Step {
                            site: phi,
                            k: k as u32,
                        },
                    );
                }
            }
        }
        Decisions {
            function,
            is_decision,
            forces,
        }
    }

    /// Whether global site `s` is one of the decisions.
    pub fn contains(&self, s: SiteId) -> bool {
        self.is_decision.get(s as usize).copied().unwrap_or(false)
    }
}

/// The path an execution took: its decision events in order (from the ordered trace, which must
/// have been enabled).
pub fn executed(events: &[Event], decisions: &Decisions) -> Vec<Step> {
    events
        .iter()
        .filter(|e| e.id & EVENT_DEF == 0 && decisions.contains(e.id))
        .map(|e| Step {
            site: e.id,
            k: e.outcome,
        })
        .collect()
}

/// Length of the longest common prefix of two paths (Bueno & Jino's similarity, counted in
/// decisions rather than nodes).
pub fn common_prefix(a: &[Step], b: &[Step]) -> usize {
    a.iter().zip(b).take_while(|(x, y)| x == y).count()
}

/// `LINE:COL:LABEL` of a step, as [`parse`] reads it back.
pub fn step_text(program: &Program, s: Step) -> String {
    let site = &program.sites[s.site as usize];
    let label = site
        .meta
        .outcome_labels
        .get(s.k as usize)
        .map(String::as_str)
        .unwrap_or("?");
    format!("{}:{}:{}", site.meta.line, site.meta.col, label)
}

/// A path as text: its steps separated by spaces, runs of a repeated group written `[ … ]*N`.
pub fn path_text(program: &Program, path: &[Step]) -> String {
    let tokens: Vec<String> = path.iter().map(|s| step_text(program, *s)).collect();
    compress(&tokens)
}

/// Write repeated runs of 1–8 tokens as `[ … ]*N` (N ≥ 3), greedily from the left.
fn compress(tokens: &[String]) -> String {
    let mut out: Vec<String> = Vec::new();
    let mut i = 0;
    'outer: while i < tokens.len() {
        for len in 1..=8usize {
            if i + len > tokens.len() {
                break;
            }
            let unit = &tokens[i..i + len];
            let mut n = 1;
            while i + (n + 1) * len <= tokens.len()
                && &tokens[i + n * len..i + (n + 1) * len] == unit
            {
                n += 1;
            }
            if n >= 3 {
                out.push(format!("[{}]*{n}", unit.join(" ")));
                i += n * len;
                continue 'outer;
            }
        }
        out.push(tokens[i].clone());
        i += 1;
    }
    out.join(" ")
}

/// A site reference as written in a path, before resolution.
#[derive(Clone, Debug, PartialEq)]
enum Loc {
    Site(SiteId),
    Line {
        line: u32,
        col: Option<u32>,
        cond: Option<String>,
    },
}

/// Parse a path: whitespace- or comma-separated steps, each `LOC:OUTCOME`, where LOC is `sID`
/// (site ID, as `evotest sites` prints it), `LINE`, `LINE:COL` or `LINE{CONDITION}` (the condition
/// text as `evotest sites` prints it), and OUTCOME is an outcome label: `true`, `false` (or `T`,
/// `F`), `default`, `case N`. A group `[STEPS]*N` stands for STEPS repeated N times. Steps are
/// resolved among the decision sites of function `decisions.function`.
///
/// Errors (one line): syntax, an unknown or ambiguous site, an unknown outcome label.
pub fn parse(program: &Program, decisions: &Decisions, spec: &str) -> Result<Vec<Step>> {
    let mut p = Parser {
        s: spec.as_bytes(),
        i: 0,
    };
    let steps = p.seq(program, decisions, 0)?;
    p.skip_ws();
    if p.i < p.s.len() {
        bail!(
            "path: unexpected `{}` at character {}",
            p.s[p.i] as char,
            p.i + 1
        );
    }
    if steps.is_empty() {
        bail!("path: no steps");
    }
    Ok(steps)
}

struct Parser<'a> {
    s: &'a [u8],
    i: usize,
}

impl Parser<'_> {
    fn skip_ws(&mut self) {
        while self.i < self.s.len()
            && (self.s[self.i].is_ascii_whitespace() || self.s[self.i] == b',')
        {
            self.i += 1;
        }
    }

    fn peek(&self) -> Option<u8> {
        self.s.get(self.i).copied()
    }

    fn number(&mut self) -> Option<u64> {
        let start = self.i;
        while self.peek().is_some_and(|c| c.is_ascii_digit()) {
            self.i += 1;
        }
        std::str::from_utf8(&self.s[start..self.i])
            .ok()?
            .parse()
            .ok()
    }

    fn seq(&mut self, program: &Program, d: &Decisions, depth: u32) -> Result<Vec<Step>> {
        if depth > 16 {
            bail!("path: groups nested too deeply");
        }
        let mut out = Vec::new();
        loop {
            self.skip_ws();
            match self.peek() {
                None | Some(b']') => return Ok(out),
                Some(b'[') | Some(b'(') => {
                    let close = if self.peek() == Some(b'[') {
                        b']'
                    } else {
                        b')'
                    };
                    self.i += 1;
                    let inner = self.seq(program, d, depth + 1)?;
                    self.skip_ws();
                    if self.peek() != Some(close) && !(close == b')' && self.peek() == Some(b']')) {
                        bail!(
                            "path: missing `{}` at character {}",
                            close as char,
                            self.i + 1
                        );
                    }
                    self.i += 1;
                    if !matches!(self.peek(), Some(b'*') | Some(b'x')) {
                        bail!(
                            "path: a group must be followed by *N (repetitions) at character {}",
                            self.i + 1
                        );
                    }
                    self.i += 1;
                    let n = self.number().ok_or_else(|| {
                        anyhow!(
                            "path: expected a repetition count at character {}",
                            self.i + 1
                        )
                    })?;
                    if n > 100_000 || (inner.len() as u64).saturating_mul(n) > 1_000_000 {
                        bail!("path: a group repeated {n} times makes the path too long");
                    }
                    for _ in 0..n {
                        out.extend_from_slice(&inner);
                    }
                }
                Some(b')') => return Ok(out),
                Some(_) => out.push(self.step(program, d)?),
            }
        }
    }

    fn step(&mut self, program: &Program, d: &Decisions) -> Result<Step> {
        let start = self.i;
        let loc = if self.peek() == Some(b's') {
            self.i += 1;
            let id = self.number().ok_or_else(|| {
                anyhow!(
                    "path: expected a site ID after `s` at character {}",
                    self.i + 1
                )
            })?;
            Loc::Site(id as SiteId)
        } else {
            let line = self
                .number()
                .ok_or_else(|| anyhow!("path: expected a step (LINE:OUTCOME, LINE:COL:OUTCOME, LINE{{COND}}:OUTCOME, LINE:COL{{COND}}:OUTCOME or sID:OUTCOME) at character {}", start + 1))?;
            let mut col = None;
            let mut cond = None;
            if self.peek() == Some(b':')
                && self.s.get(self.i + 1).is_some_and(|c| c.is_ascii_digit())
            {
                // LINE:COL:OUTCOME or LINE:COL{COND}:OUTCOME (an outcome never starts with a
                // digit)
                let save = self.i;
                self.i += 1;
                let c = self.number();
                if matches!(self.peek(), Some(b':') | Some(b'{')) {
                    col = c.map(|c| c as u32);
                } else {
                    self.i = save;
                }
            }
            if self.peek() == Some(b'{') {
                let close = self.s[self.i..]
                    .iter()
                    .position(|&c| c == b'}')
                    .ok_or_else(|| anyhow!("path: missing `}}`"))?;
                cond =
                    Some(String::from_utf8_lossy(&self.s[self.i + 1..self.i + close]).into_owned());
                self.i += close + 1;
            }
            Loc::Line {
                line: line as u32,
                col,
                cond,
            }
        };
        if self.peek() != Some(b':') {
            bail!(
                "path: expected `:` and an outcome at character {}",
                self.i + 1
            );
        }
        self.i += 1;
        let ostart = self.i;
        while self.peek().is_some_and(|c| c.is_ascii_alphabetic()) {
            self.i += 1;
        }
        let mut label = String::from_utf8_lossy(&self.s[ostart..self.i]).to_lowercase();
        if label.is_empty() {
            bail!(
                "path: expected an outcome (true, false, default, case N) at character {}",
                self.i + 1
            );
        }
        if label == "case" {
            while self.peek() == Some(b' ') {
                self.i += 1;
            }
            let neg = self.peek() == Some(b'-');
            if neg {
                self.i += 1;
            }
            let n = self.number().ok_or_else(|| {
                anyhow!("path: expected a case value at character {}", self.i + 1)
            })?;
            label = format!("case {}{n}", if neg { "-" } else { "" });
        }
        let label = match label.as_str() {
            "t" => "true".to_string(),
            "f" => "false".to_string(),
            _ => label,
        };
        let text = String::from_utf8_lossy(&self.s[start..self.i]).into_owned();
        resolve(program, d, &loc, &label, &text)
    }
}

fn norm_cond(s: &str) -> String {
    s.split_whitespace().collect::<Vec<_>>().join(" ")
}

fn resolve(program: &Program, d: &Decisions, loc: &Loc, label: &str, text: &str) -> Result<Step> {
    let fname = &program.functions[d.function].meta.name;
    let candidates: Vec<&crate::program::Site> = program
        .sites
        .iter()
        .filter(|s| d.contains(s.id))
        .filter(|s| match loc {
            Loc::Site(id) => s.id == *id,
            Loc::Line { line, col, cond } => {
                s.meta.line == *line
                    && col.is_none_or(|c| c == s.meta.col)
                    && cond
                        .as_ref()
                        .is_none_or(|c| norm_cond(c) == norm_cond(&s.meta.cond))
            }
        })
        .collect();
    let site = match candidates.as_slice() {
        [one] => *one,
        [] => {
            // a site there that is no decision of a path: a `select` (or a condition-only site)
            let other = program.sites.iter().find(|s| {
                s.meta.function as usize == d.function
                    && match loc {
                        Loc::Site(id) => s.id == *id,
                        Loc::Line { line, col, .. } => {
                            s.meta.line == *line && col.is_none_or(|c| c == s.meta.col)
                        }
                    }
            });
            match other {
                Some(s) => bail!(
                    "path step `{text}`: site {} (`{}`) is a `{}` site, which chooses a value without branching: a path's steps are the `br` and `switch` sites of `{fname}` (leave it out)",
                    s.id,
                    s.meta.cond,
                    format!("{:?}", s.meta.kind).to_lowercase()
                ),
                None => bail!(
                    "path step `{text}`: no branch or switch of `{fname}` there (see `evotest sites`)"
                ),
            }
        }
        many => {
            let list: Vec<String> = many
                .iter()
                .map(|s| format!("{}:{}:… `{}`", s.meta.line, s.meta.col, s.meta.cond))
                .collect();
            bail!(
                "path step `{text}` is ambiguous: {} (add the column)",
                list.join(", ")
            )
        }
    };
    let k = site
        .meta
        .outcome_labels
        .iter()
        .position(|l| l == label)
        .ok_or_else(|| {
            anyhow!(
                "path step `{text}`: no outcome `{label}` (outcomes: {})",
                site.meta.outcome_labels.join(", ")
            )
        })?;
    Ok(Step {
        site: site.id,
        k: k as u32,
    })
}

/// Walk the CFG of the function along `path`. Errors (one line) when the CFG reaches a different
/// decision than the path names next, when the function returns before the path ends, or (unless
/// `prefix`) when the path ends before the function returns. A path that passes can still be
/// infeasible (no input takes it): that is for the search to find out.
pub fn check(program: &Program, d: &Decisions, path: &[Step], prefix: bool) -> Result<()> {
    let f = &program.functions[d.function];
    let succs = |b: usize| &f.meta.blocks[b].succs;
    // the calls of the function itself in block `b`: their decisions come, in order, before
    // the block's own (a path of a recursive function is every decision of the execution)
    let self_calls = |b: usize| {
        f.meta.blocks[b]
            .calls
            .iter()
            .filter(|&&c| f.meta.calls.get(c as usize) == Some(&f.meta.name))
            .count()
    };
    // the callers' blocks waiting for a recursive call to return, each with the self-calls it
    // still makes after that one
    let mut stack: Vec<(usize, usize)> = Vec::new();
    let mut b = 0usize;
    let mut resumed = false;
    let mut i = 0usize;
    let mut guard = 0u64;
    loop {
        guard += 1;
        if guard > 10_000_000 || stack.len() > 100_000 {
            bail!(
                "path: the function does not return after step {i} (an endless loop or recursion)"
            );
        }
        if !resumed {
            let n = self_calls(b);
            if n > 0 {
                stack.push((b, n - 1));
                b = 0;
                continue;
            }
        }
        resumed = false;
        match f.block_site[b].filter(|s| d.contains(*s)) {
            Some(s) => {
                if i == path.len() {
                    if prefix {
                        return Ok(());
                    }
                    bail!(
                        "path is incomplete: after its last step the function reaches {} `{}` (add steps, or use --prefix)",
                        program.sites[s as usize].meta.line,
                        program.sites[s as usize].meta.cond
                    );
                }
                if path[i].site != s {
                    let want = &program.sites[path[i].site as usize];
                    let got = &program.sites[s as usize];
                    bail!(
                        "path step {} (`{}`, line {}) cannot come next: the CFG reaches line {} `{}` first",
                        i + 1,
                        want.meta.cond,
                        want.meta.line,
                        got.meta.line,
                        got.meta.cond
                    );
                }
                let next = succs(b).get(path[i].k as usize).copied();
                b = next.ok_or_else(|| {
                    anyhow!("path step {}: the site has no outcome {}", i + 1, path[i].k)
                })? as usize;
                i += 1;
            }
            None => {
                match succs(b).as_slice() {
                    [] => {
                        // a recursive call returns to its caller's block, which may call again
                        if let Some((caller, more)) = stack.pop() {
                            if more > 0 {
                                stack.push((caller, more - 1));
                                b = 0;
                            } else {
                                b = caller;
                                resumed = true;
                            }
                            continue;
                        }
                        if i < path.len() {
                            bail!("path: the function returns after step {i}, but the path has {} steps", path.len());
                        }
                        return Ok(());
                    }
                    [only] => b = *only as usize,
                    _ => bail!(
                        "path: block {b} of `{}` branches on an uninstrumented condition",
                        f.meta.name
                    ),
                }
            }
        }
    }
}

/// The paths of function `d.function` from its CFG: every path from entry to a return that runs
/// each block at most `k + 1` times (k = 0: the acyclic paths; k = 1: also one iteration of each
/// loop; …), in depth-first order, true outcomes first, at most `max` of them. Returns the paths
/// and whether the list was cut at `max`. Listed paths may be infeasible.
pub fn enumerate(program: &Program, d: &Decisions, k: u32, max: usize) -> (Vec<Vec<Step>>, bool) {
    let f = &program.functions[d.function];
    let mut e = Enumeration {
        d,
        f,
        k,
        max,
        visits: vec![0; f.meta.blocks.len()],
        path: Vec::new(),
        out: Vec::new(),
        truncated: false,
        forced: Vec::new(),
    };
    e.dfs(0, 0);
    let (mut out, truncated) = (e.out, e.truncated);
    // a block without a site but several successors can yield the same decision sequence twice
    let mut seen = std::collections::HashSet::new();
    out.retain(|p| seen.insert(p.clone()));
    (out, truncated)
}

/// State of [`enumerate`]'s depth-first walk.
struct Enumeration<'a> {
    d: &'a Decisions,
    f: &'a crate::program::Function,
    k: u32,
    max: usize,
    /// Visits of each block on the current path.
    visits: Vec<u32>,
    path: Vec<Step>,
    out: Vec<Vec<Step>>,
    truncated: bool,
    /// Outcomes of `phi` branches that the path's short-circuiting outcomes forced and that it
    /// has not reached yet ([`Decisions::forces`]).
    forced: Vec<Step>,
}

impl Enumeration<'_> {
    fn dfs(&mut self, b: usize, depth: usize) {
        if self.out.len() >= self.max {
            self.truncated = true;
            return;
        }
        if self.visits[b] > self.k || depth > 100_000 {
            return;
        }
        self.visits[b] += 1;
        let f = self.f;
        match f.block_site[b].filter(|s| self.d.contains(*s)) {
            Some(s) => {
                // a branch on a `phi` whose outcome an earlier short-circuit decided
                let forced = self.forced.iter().rposition(|f| f.site == s);
                let taken = forced.map(|i| self.forced.remove(i));
                for (o, &succ) in f.meta.blocks[b].succs.iter().enumerate() {
                    let step = Step {
                        site: s,
                        k: o as u32,
                    };
                    if taken.is_some_and(|t| t != step) {
                        continue;
                    }
                    let forces = self.d.forces.get(&step).copied();
                    self.forced.extend(forces);
                    self.path.push(step);
                    self.dfs(succ as usize, depth + 1);
                    self.path.pop();
                    if forces.is_some() {
                        self.forced.pop();
                    }
                }
                if let (Some(i), Some(t)) = (forced, taken) {
                    self.forced.insert(i, t);
                }
            }
            None => match f.meta.blocks[b].succs.as_slice() {
                [] => self.out.push(self.path.clone()),
                succs => {
                    for &succ in succs {
                        self.dfs(succ as usize, depth + 1);
                    }
                }
            },
        }
        self.visits[b] -= 1;
    }
}

/// Number of times the path revisits a decision site (0 for a path without loop iterations).
pub fn loop_iterations(path: &[Step]) -> usize {
    let mut seen = std::collections::HashSet::new();
    path.iter().filter(|s| !seen.insert(s.site)).count()
}

#[cfg(test)]
pub(crate) mod tests;
