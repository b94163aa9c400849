//! Condition-decision coverage (Anjum & Ryan 2021): every atomic condition and every decision
//! takes both outcomes.
//!
//! **Objectives**, counted as the paper counts them, n = 2(l + m):
//! * every **decision** (a branching node: an `if`, loop or `?:` condition, a `&&`/`||` used as a
//!   value) gives two goals, true and false;
//! * every atomic **condition** of a decision with more than one gives two more; a decision of
//!   one condition is not counted twice;
//! * every label of a `switch` (each `case`, and the default, written or not) is a decision:
//!   true = taken, false = the switch ran and took another label;
//! * a compare stored into a variable (`int t = a > b;`) is a condition of its own (two goals),
//!   since it is tested later through the variable.
//!
//! The decisions come from the pass ([`crate::program::Decision`]): `&&`/`||` chains, `&`/`|` of
//! compares, and loop conditions lowered to a `phi`. Conditions that have no branch of their own
//! are condition-only sites ([`evotest_abi::meta::SiteKind::Cond`]).
//!
//! **Fitness** (minimised, 0 iff covered), approach level + normalised branch distance as for
//! branch coverage ([`super::branch`]):
//! * a condition outcome, and a decision of one condition: that site outcome's
//!   [`BranchGoal`];
//! * a decision of several conditions: the best of its own site's outcome (when it has one) and of
//!   the condition outcomes that end its evaluation with the wanted value (`ends`); for `&`/`|`,
//!   once the decision's site ran, the distances of its conditions combined as Bueno & Jino (2002)
//!   combine AND (sum) and OR (minimum);
//! * a `switch` label not taken: the distance to the nearest other label at the switch (K when
//!   the label taken is a case: any other value will do), or the approach to the switch.

use super::branch::BranchGoal;
use super::{Analysis, Criterion, Goal, Row, RowCell};
use crate::fitness::normalise;
use crate::program::{Program, SiteId};
use crate::trace::Trace;
use evotest_abi::meta::{DecisionForm, SiteKind};
use evotest_abi::K;
use std::collections::{HashMap, HashSet};

/// The condition-decision criterion.
pub struct ConditionDecision;

/// What one goal stands for, for reports.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Part {
    /// A decision (or a `switch` label).
    Decision,
    /// An atomic condition.
    Condition,
}

/// A decision outcome of a decision of several conditions.
pub struct DecisionGoal {
    /// The decision's own site outcome, if it has a site.
    pub site: Option<BranchGoal>,
    /// Condition outcomes after which the decision has the wanted value.
    pub ends: Vec<BranchGoal>,
    /// `&`/`|`: whether all (`true`: distances summed) or any (minimum) of these condition
    /// outcomes must hold for the wanted value.
    pub combine: Option<(bool, Vec<BranchGoal>)>,
    pub text: String,
    pub file: String,
    pub line: u32,
    pub col: u32,
    pub value: bool,
}

impl DecisionGoal {
    /// The part whose fitness is the goal's in execution `t`: among its site (unless its branch
    /// distances are combined and it ran) and the ends, not yet met, the one of least fitness,
    /// the larger margin among parts of equal fitness. `None` when every part is met.
    fn nearest_part(&self, t: &Trace) -> Option<&BranchGoal> {
        let own = self
            .site
            .as_ref()
            .filter(|s| self.combine.is_none() || !t.executed(s.site));
        let parts = own
            .into_iter()
            .chain(self.ends.iter())
            .map(|g| (g.fitness(t), g))
            .filter(|&(f, _)| f > 0.0);
        parts
            .map(|(f, g)| (f, g.margin(t), g))
            .fold(
                None,
                |best: Option<(f64, f64, &BranchGoal)>, p| match best {
                    Some(b) if b.0 < p.0 || (b.0 == p.0 && b.1 >= p.1) => Some(b),
                    _ => Some(p),
                },
            )
            .map(|(_, _, g)| g)
    }

    fn covered(&self, t: &Trace) -> bool {
        match &self.site {
            Some(s) => t.covered(s.site, s.outcome),
            None => self.ends.iter().any(|e| t.covered(e.site, e.outcome)),
        }
    }
}

impl Goal for DecisionGoal {
    fn fitness(&self, t: &Trace) -> f64 {
        if self.covered(t) {
            return 0.0;
        }
        let mut best = f64::INFINITY;
        if let Some(s) = &self.site {
            best = match (&self.combine, t.executed(s.site)) {
                (Some((all, conds)), true) => {
                    let ds: Vec<f64> = conds
                        .iter()
                        .map(|c| t.distance(c.site, c.outcome).unwrap_or(K))
                        .collect();
                    // all of the wanted outcomes: sum; any: minimum (Bueno & Jino 2002, Table 1)
                    let d = if *all {
                        ds.iter().sum::<f64>()
                    } else {
                        ds.iter().copied().fold(f64::INFINITY, f64::min)
                    };
                    // the site did not take the outcome, whatever the per-outcome minima say
                    normalise(d.max(K))
                }
                _ => s.fitness(t),
            };
        }
        for e in &self.ends {
            let f = e.fitness(t);
            if f > 0.0 {
                best = best.min(f);
            }
        }
        if best.is_finite() {
            best
        } else {
            1.0
        }
    }

    /// The margin ([`BranchGoal::margin`]) of the part whose fitness is the goal's: its own site
    /// (branch distances not combined) or the end nearest the wanted value, the larger margin
    /// among parts of equal fitness.
    fn margin(&self, t: &Trace) -> f64 {
        self.nearest_part(t).map_or(0.0, |g| g.margin(t))
    }

    fn describe(&self, _program: &Program) -> String {
        format!(
            "{}:{}:{} decision `{}` → {}",
            self.file, self.line, self.col, self.text, self.value
        )
    }

    fn short(&self, _program: &Program) -> String {
        format!(
            "L{} {}:{}",
            self.line,
            self.text,
            if self.value { "T" } else { "F" }
        )
    }

    fn target_outcome(&self) -> Option<(SiteId, u32)> {
        self.site
            .as_ref()
            .filter(|_| self.combine.is_none())
            .map(|s| (s.site, s.k))
    }

    /// The critical branch ([`BranchGoal::critical_branch`]) of the part whose fitness is the
    /// goal's, the one [`DecisionGoal::margin`] reads (its own site, branch distances not
    /// combined, or the end nearest the wanted value), so that input-to-state and secant moves
    /// read that compare's operands.
    fn critical_branch(&self, t: &Trace) -> Option<SiteId> {
        self.nearest_part(t).and_then(|g| g.critical_branch(t))
    }
}

/// An outcome of a site as a goal: a condition, or a decision of one condition. Condition-only
/// sites have no branch events, so the chaining approach does not target them.
pub struct SiteGoal {
    pub goal: BranchGoal,
    pub part: Part,
    pub condition_only: bool,
}

impl Goal for SiteGoal {
    fn fitness(&self, t: &Trace) -> f64 {
        self.goal.fitness(t)
    }

    fn margin(&self, t: &Trace) -> f64 {
        self.goal.margin(t)
    }

    fn describe(&self, program: &Program) -> String {
        let what = if self.part == Part::Condition {
            "condition "
        } else {
            ""
        };
        let s = &program.sites[self.goal.site as usize];
        format!(
            "{} {what}`{}` → {}",
            s.location(),
            s.meta.cond,
            s.label(self.goal.k)
        )
    }

    fn short(&self, program: &Program) -> String {
        program.sites[self.goal.site as usize].short(self.goal.k)
    }

    fn target_outcome(&self) -> Option<(SiteId, u32)> {
        (!self.condition_only).then_some((self.goal.site, self.goal.k))
    }

    fn critical_branch(&self, t: &Trace) -> Option<SiteId> {
        self.goal.critical_branch(t)
    }
}

/// A `switch` label not taken while the switch ran (the label's false outcome).
pub struct NotLabelGoal {
    /// The label's own outcome (its ladder leads to the switch).
    pub label: BranchGoal,
    pub n_outcomes: u32,
    pub outcome_base: u32,
}

impl Goal for NotLabelGoal {
    fn fitness(&self, t: &Trace) -> f64 {
        if !t.executed(self.label.site) {
            return self.label.fitness(t);
        }
        // the nearest other label: its branch distance (|value − case| for a case, 0 or K for
        // the default)
        (0..self.n_outcomes)
            .filter(|&k| k != self.label.k)
            .filter_map(|k| t.distance(self.label.site, self.outcome_base + k))
            .map(normalise)
            .fold(1.0, f64::min)
    }

    /// The switch itself once it ran (its value is no compare operand, so input-to-state finds
    /// none there), else the label's critical branch on the way to it.
    fn critical_branch(&self, t: &Trace) -> Option<SiteId> {
        self.label.critical_branch(t)
    }

    fn describe(&self, program: &Program) -> String {
        let s = &program.sites[self.label.site as usize];
        format!(
            "{} `switch ({})` → not {}",
            s.location(),
            s.meta.cond,
            s.label(self.label.k)
        )
    }

    fn short(&self, program: &Program) -> String {
        let s = &program.sites[self.label.site as usize];
        format!(
            "L{} {}:not {}",
            s.meta.line,
            s.meta.cond,
            s.label(self.label.k)
        )
    }
}

/// One row of the report and its goals, before goals are numbered.
struct Unit {
    function: usize,
    line: u32,
    col: u32,
    row: Row,
    /// (label, goal) per cell.
    goals: Vec<(String, Box<dyn Goal>)>,
    /// Rows of its conditions, each with its goals.
    children: Vec<(Row, Vec<(String, Box<dyn Goal>)>)>,
}

fn row(
    program: &Program,
    id: u32,
    function: usize,
    file: &str,
    line: u32,
    col: u32,
    kind: &str,
    text: String,
) -> Row {
    Row {
        id,
        function: program.functions[function].display_name().to_string(),
        file: file.to_string(),
        line,
        col,
        kind: kind.into(),
        text,
        cells: vec![],
    }
}

fn site_goals(
    program: &Program,
    analysis: &Analysis,
    site: SiteId,
    part: Part,
) -> Vec<(String, Box<dyn Goal>)> {
    let s = &program.sites[site as usize];
    (0..s.meta.n_outcomes)
        .map(|k| {
            let g = SiteGoal {
                goal: BranchGoal::new(program, analysis, site, k),
                part: part.clone(),
                condition_only: s.meta.kind == SiteKind::Cond,
            };
            (s.label(k).to_string(), Box::new(g) as Box<dyn Goal>)
        })
        .collect()
}

impl ConditionDecision {
    fn units(&self, program: &Program, analysis: &Analysis, scope: &[usize]) -> Vec<Unit> {
        let mut units = Vec::new();
        let mut in_decision: HashSet<SiteId> = HashSet::new();
        for d in program
            .decisions
            .iter()
            .filter(|d| scope.contains(&d.function))
        {
            in_decision.extend(d.conditions.iter().copied());
            in_decision.extend(d.site);
            let first = d.conditions.first().copied().unwrap_or(0);
            let mut r = row(
                program,
                d.site.unwrap_or(first),
                d.function,
                &d.meta.file,
                d.meta.line,
                d.meta.col,
                "decision",
                d.meta.text.clone(),
            );
            let combine_and = match d.meta.form {
                DecisionForm::And => Some(true),
                DecisionForm::Or => Some(false),
                _ => None,
            };
            let mut goals: Vec<(String, Box<dyn Goal>)> = Vec::new();
            for (v, value) in [(0usize, true), (1usize, false)] {
                let site = d
                    .site
                    .map(|s| BranchGoal::new(program, analysis, s, v as u32));
                let ends = d.ends[v]
                    .iter()
                    .map(|&(s, k)| BranchGoal::new(program, analysis, s, k))
                    .collect();
                // AND true / OR false: every condition must take the wanted value (sum of their
                // distances); AND false / OR true: any one (minimum)
                let combine = combine_and.map(|and| {
                    let want = if value { 0 } else { 1 };
                    (
                        and == value,
                        d.conditions
                            .iter()
                            .map(|&c| BranchGoal::new(program, analysis, c, want))
                            .collect(),
                    )
                });
                goals.push((
                    value.to_string(),
                    Box::new(DecisionGoal {
                        site,
                        ends,
                        combine,
                        text: d.meta.text.clone(),
                        file: d.meta.file.clone(),
                        line: d.meta.line,
                        col: d.meta.col,
                        value,
                    }),
                ));
            }
            r.kind = "decision".into();
            let children = d
                .conditions
                .iter()
                .map(|&c| {
                    let s = &program.sites[c as usize];
                    let cr = row(
                        program,
                        c,
                        d.function,
                        &s.meta.file,
                        s.meta.line,
                        s.meta.col,
                        "condition",
                        format!("└ {}", s.meta.cond),
                    );
                    (cr, site_goals(program, analysis, c, Part::Condition))
                })
                .collect();
            units.push(Unit {
                function: d.function,
                line: d.meta.line,
                col: d.meta.col,
                row: r,
                goals,
                children,
            });
        }
        for s in program
            .sites
            .iter()
            .filter(|s| scope.contains(&s.function) && !in_decision.contains(&s.id))
        {
            let m = &s.meta;
            match m.kind {
                SiteKind::Br | SiteKind::Select => units.push(Unit {
                    function: s.function,
                    line: m.line,
                    col: m.col,
                    row: row(
                        program,
                        s.id,
                        s.function,
                        &m.file,
                        m.line,
                        m.col,
                        "decision",
                        m.cond.clone(),
                    ),
                    goals: site_goals(program, analysis, s.id, Part::Decision),
                    children: vec![],
                }),
                SiteKind::Cond => units.push(Unit {
                    function: s.function,
                    line: m.line,
                    col: m.col,
                    row: row(
                        program,
                        s.id,
                        s.function,
                        &m.file,
                        m.line,
                        m.col,
                        "condition",
                        m.cond.clone(),
                    ),
                    goals: site_goals(program, analysis, s.id, Part::Condition),
                    children: vec![],
                }),
                SiteKind::Switch => {
                    for k in 0..m.n_outcomes {
                        let label = BranchGoal::new(program, analysis, s.id, k);
                        let not = NotLabelGoal {
                            label: label.clone(),
                            n_outcomes: m.n_outcomes,
                            outcome_base: s.outcome_base,
                        };
                        units.push(Unit {
                            function: s.function,
                            line: m.line,
                            col: m.col,
                            row: row(
                                program,
                                s.id,
                                s.function,
                                &m.file,
                                m.line,
                                m.col,
                                "case",
                                format!("switch ({}) {}", m.cond, s.label(k)),
                            ),
                            goals: vec![
                                (
                                    "true".into(),
                                    Box::new(SiteGoal {
                                        goal: label,
                                        part: Part::Decision,
                                        condition_only: false,
                                    }),
                                ),
                                ("false".into(), Box::new(not)),
                            ],
                            children: vec![],
                        });
                    }
                }
            }
        }
        // source order within each function, functions in scope order
        let pos: HashMap<usize, usize> = scope.iter().enumerate().map(|(i, &f)| (f, i)).collect();
        units.sort_by_key(|u| {
            (
                pos.get(&u.function).copied().unwrap_or(usize::MAX),
                u.line,
                u.col,
            )
        });
        units
    }
}

impl Criterion for ConditionDecision {
    fn name(&self) -> &'static str {
        "condition-decision"
    }

    /// Goals in source order: each decision's true and false, then its conditions' outcomes.
    fn goals(&self, program: &Program, analysis: &Analysis, scope: &[usize]) -> Vec<Box<dyn Goal>> {
        let mut out = Vec::new();
        for u in self.units(program, analysis, scope) {
            out.extend(u.goals.into_iter().map(|g| g.1));
            for (_, gs) in u.children {
                out.extend(gs.into_iter().map(|g| g.1));
            }
        }
        out
    }

    /// One row per decision (kind `decision`, or `case` for a switch label) followed by one per
    /// condition (kind `condition`), in source order.
    fn rows(&self, program: &Program, goals: &[Box<dyn Goal>]) -> Vec<Row> {
        let analysis = Analysis::new(program);
        let all: Vec<usize> = (0..program.functions.len()).collect();
        // goals are matched with the cells by their descriptions (unique per goal)
        let mut index: HashMap<String, std::collections::VecDeque<usize>> = HashMap::new();
        for (i, g) in goals.iter().enumerate() {
            index.entry(g.describe(program)).or_default().push_back(i);
        }
        let mut rows = Vec::new();
        let mut push = |mut r: Row, gs: Vec<(String, Box<dyn Goal>)>, rows: &mut Vec<Row>| {
            for (label, goal) in gs {
                let here = index
                    .get_mut(&goal.describe(program))
                    .and_then(|q| q.pop_front());
                r.cells.push(RowCell { label, goal: here });
            }
            if r.cells.iter().any(|c| c.goal.is_some()) {
                rows.push(r);
            }
        };
        for u in self.units(program, &analysis, &all) {
            push(u.row, u.goals, &mut rows);
            for (r, gs) in u.children {
                push(r, gs, &mut rows);
            }
        }
        rows
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::fitness::Analysis;
    use crate::program::testutil::{block, site};
    use evotest_abi::meta::*;

    /// `if (a > 0 && b == 7) T else F`: blocks 0 [a > 0: T->1, F->3], 1 [b == 7: T->2, F->3],
    /// 2 then, 3 else; one decision of two conditions.
    fn program() -> Program {
        let sites = vec![
            SiteMeta {
                line: 1,
                ..site(0, 0, "a > 0")
            },
            SiteMeta {
                line: 1,
                col: 12,
                ..site(1, 1, "b == 7")
            },
        ];
        let mut p = crate::program::testutil::program(
            vec![
                block(vec![1, 3], Some(0)),
                block(vec![2, 3], Some(1)),
                block(vec![], None),
                block(vec![], None),
            ],
            sites,
            vec![],
            vec![],
        );
        p.decisions.push(crate::program::Decision {
            function: 0,
            meta: DecisionMeta {
                function: 0,
                file: "f.c".into(),
                line: 1,
                col: 1,
                text: "a > 0 && b == 7".into(),
                form: DecisionForm::Branches,
                conditions: vec![0, 1],
                site: None,
                ends: [vec![(1, 0)], vec![(0, 1), (1, 1)]],
            },
            conditions: vec![0, 1],
            site: None,
            ends: [vec![(1, 0)], vec![(0, 1), (1, 1)]],
        });
        p
    }

    /// Two conditions in one decision: 2 + 2·2 = 6 goals, as Anjum & Ryan count them; the
    /// decision's true needs both conditions true, its false either one false.
    #[test]
    fn a_decision_of_two_conditions_has_six_goals() {
        let p = program();
        let goals = ConditionDecision.goals(&p, &Analysis::new(&p), &[0]);
        assert_eq!(goals.len(), 6);
        let rows = ConditionDecision.rows(&p, &goals);
        assert_eq!(
            rows.iter().map(|r| r.kind.as_str()).collect::<Vec<_>>(),
            ["decision", "condition", "condition"]
        );
        assert_eq!(
            rows[0].cells.iter().map(|c| c.goal).collect::<Vec<_>>(),
            [Some(0), Some(1)]
        );
        // a = 5, b = 3: a > 0 true, b == 7 false (distance 4): decision false covered
        let t = Trace::from_parts(2, &[0, 1], vec![0.0, 1.0, 4.0, 0.0]);
        assert_eq!(goals[1].fitness(&t), 0.0, "decision false");
        assert_eq!(
            goals[0].fitness(&t),
            4.0 / 5.0,
            "decision true: b == 7 is 4 away"
        );
        assert_eq!(goals[2].fitness(&t), 0.0, "a > 0 true");
        assert!(goals[3].fitness(&t) > 0.0, "a > 0 false not taken");
        // a = -2: only the first condition ran; the decision is false, b == 7 is one level away
        let t = Trace::from_parts(2, &[0], vec![3.0, 0.0, 9.0, 9.0]);
        assert_eq!(goals[1].fitness(&t), 0.0);
        assert_eq!(goals[0].fitness(&t), 1.0 + 3.0 / 4.0);
    }

    /// A switch: every label (the default too) is a decision with true = taken and false =
    /// another label taken.
    #[test]
    fn switch_labels_are_decisions() {
        let sw = SiteMeta {
            kind: SiteKind::Switch,
            n_outcomes: 3,
            outcome_labels: vec!["default".into(), "case 1".into(), "case 5".into()],
            case_values: vec![1, 5],
            ..site(0, 0, "c")
        };
        let p = crate::program::testutil::program(
            vec![
                block(vec![1, 2, 3], Some(0)),
                block(vec![], None),
                block(vec![], None),
                block(vec![], None),
            ],
            vec![sw],
            vec![],
            vec![],
        );
        let goals = ConditionDecision.goals(&p, &Analysis::new(&p), &[0]);
        assert_eq!(goals.len(), 6);
        // c = 1: case 1 taken (distance 0), default and case 5 not
        let t = Trace::from_parts(1, &[0], vec![1.0, 0.0, 4.0]);
        let covered: Vec<bool> = goals.iter().map(|g| g.fitness(&t) == 0.0).collect();
        assert_eq!(covered, [false, true, true, false, false, true]);
        assert_eq!(goals[3].fitness(&t), 0.5, "not case 1: one step away");
        // c = 9: the default taken; not-default is 4 away from case 5
        let t = Trace::from_parts(1, &[0], vec![0.0, 8.0, 4.0]);
        assert_eq!(goals[1].fitness(&t), 4.0 / 5.0);
    }
}
