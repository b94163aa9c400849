//! Branch coverage: one goal per outcome of every branch site.
//!
//! Fitness (minimised) = approach level + d/(d+1), EvoSuite's `ControlFlowDistance` with its
//! normalisation (McMinn & Holcombe 2004, Eq. 1, use the same shape). If the goal's site was executed, the
//! approach level is 0 and d is the minimum branch distance of the wanted outcome over the
//! execution. Otherwise the approach level is the first level of the site's approach-level
//! ladder ([`crate::cfg::Cfg::ladder`]) that holds an executed branch, and d is the smallest
//! distance, at that level, to the outcome that leads towards the goal. An execution that reached
//! none of them (the function was not entered) scores ladder length + 1.

use super::{Analysis, Criterion, Goal, Row, RowCell};
use crate::fitness::normalise;
use crate::program::{OutcomeId, Program, SiteId};
use crate::trace::Trace;
use anyhow::{anyhow, bail, Result};
use std::collections::HashMap;

/// The branch-coverage criterion.
pub struct BranchCoverage;

/// One branch outcome to cover.
#[derive(Clone, Debug)]
pub struct BranchGoal {
    pub site: SiteId,
    /// Global outcome ID.
    pub outcome: OutcomeId,
    /// Outcome index within the site (0 = true / default).
    pub k: u32,
    /// `ladder[i]` = branch outcomes (site, global outcome) at approach level i + 1.
    pub ladder: Vec<Vec<(SiteId, OutcomeId)>>,
    /// `rivals[i][j]` = the other outcomes of the site of `ladder[i][j]` (what the execution
    /// would take if it lost that rung), for [`BranchGoal::margin`]; empty: no margins.
    pub rivals: Vec<Vec<Vec<OutcomeId>>>,
}

/// The other outcomes of each rung's site: the `rivals` of a [`BranchGoal`] with this ladder.
pub fn rivals(program: &Program, ladder: &[Vec<(SiteId, OutcomeId)>]) -> Vec<Vec<Vec<OutcomeId>>> {
    ladder
        .iter()
        .map(|level| {
            level
                .iter()
                .map(|&(s, o)| {
                    program.sites[s as usize]
                        .outcomes()
                        .filter(|&r| r != o)
                        .collect()
                })
                .collect()
        })
        .collect()
}

impl Criterion for BranchCoverage {
    fn name(&self) -> &'static str {
        "branch"
    }

    fn goals(&self, program: &Program, analysis: &Analysis, scope: &[usize]) -> Vec<Box<dyn Goal>> {
        let mut goals: Vec<Box<dyn Goal>> = Vec::new();
        for site in program
            .sites
            .iter()
            .filter(|s| scope.contains(&s.function) && s.meta.kind.is_branch())
        {
            let ladder = ladder(program, analysis, site.function, site.meta.block as usize);
            let rivals = rivals(program, &ladder);
            for (k, outcome) in site.outcomes().enumerate() {
                goals.push(Box::new(BranchGoal {
                    site: site.id,
                    outcome,
                    k: k as u32,
                    ladder: ladder.clone(),
                    rivals: rivals.clone(),
                }));
            }
        }
        goals
    }

    /// `LINE:OUTCOME` (e.g. `38:true`, `70:case 1`), `LINE:COL:OUTCOME`, or `sSITE:OUTCOME`.
    fn select(
        &self,
        program: &Program,
        goals: &[Box<dyn Goal>],
        specs: &[String],
    ) -> Result<Vec<bool>> {
        if specs.is_empty() {
            return Ok(vec![true; goals.len()]);
        }
        let mut keep = vec![false; goals.len()];
        for t in specs {
            let (loc, outcome) = t
                .rsplit_once(':')
                .ok_or_else(|| anyhow!("--target {t}: expected LINE:OUTCOME (e.g. 38:true), LINE:COL:OUTCOME or sSITE:OUTCOME"))?;
            let outcome = outcome.trim();
            let (line, col) = match loc.split_once(':') {
                Some((l, c)) => (l, c.trim().parse::<u32>().ok()),
                None => (loc, None),
            };
            // whether site `s` is the one the spec names
            let at = |s: &crate::program::Site| match line.trim().strip_prefix('s') {
                Some(id) => id.parse::<u32>().ok() == Some(s.id),
                None => {
                    line.trim().parse::<u32>().ok() == Some(s.meta.line)
                        && col.is_none_or(|c| c == s.meta.col)
                }
            };
            let mut found = false;
            for (g, goal) in goals.iter().enumerate() {
                let Some((site, k)) = goal.target_outcome() else {
                    continue;
                };
                let s = &program.sites[site as usize];
                if at(s) && s.label(k) == outcome {
                    keep[g] = true;
                    found = true;
                }
            }
            if !found {
                // a site of the program outside the run's scope: say so, not that it does not exist
                let elsewhere = program
                    .sites
                    .iter()
                    .find(|s| at(s) && (0..s.meta.n_outcomes).any(|k| s.label(k) == outcome));
                if let Some(s) = elsewhere {
                    let f = program
                        .functions
                        .get(s.function)
                        .map_or("?", |f| f.meta.display_name());
                    bail!(
                        "--target {t}: that outcome is in `{f}`, which the function under test does not reach (it neither calls it nor takes its address, directly or through the functions it calls); test `{f}` itself with --function"
                    );
                }
                bail!("--target {t}: no branch outcome `{outcome}` at {loc} among the goals (see `evotest sites`)");
            }
        }
        Ok(keep)
    }

    /// One row per site with at least one goal, in site order.
    fn rows(&self, program: &Program, goals: &[Box<dyn Goal>]) -> Vec<Row> {
        let goal_of: HashMap<(SiteId, u32), usize> = goals
            .iter()
            .enumerate()
            .filter_map(|(g, goal)| goal.target_outcome().map(|o| (o, g)))
            .collect();
        program
            .sites
            .iter()
            .filter(|site| (0..site.meta.n_outcomes).any(|k| goal_of.contains_key(&(site.id, k))))
            .map(|site| Row {
                id: site.id,
                function: program.functions[site.function].display_name().to_string(),
                file: site.meta.file.clone(),
                line: site.meta.line,
                col: site.meta.col,
                kind: serde_json::to_value(site.meta.kind)
                    .ok()
                    .and_then(|v| v.as_str().map(String::from))
                    .unwrap_or_default(),
                text: site.meta.cond.clone(),
                cells: (0..site.meta.n_outcomes)
                    .map(|k| RowCell {
                        label: site.label(k).to_string(),
                        goal: goal_of.get(&(site.id, k)).copied(),
                    })
                    .collect(),
            })
            .collect()
    }
}

/// The approach-level ladder of block `block` of function `function`: `ladder[i]` holds the
/// branch outcomes (site, global outcome) at approach level i + 1, across calls
/// ([`interprocedural_ladder`] over [`crate::cfg::Cfg::ladder`]).
pub fn ladder(
    program: &Program,
    analysis: &Analysis,
    function: usize,
    block: usize,
) -> Vec<Vec<(SiteId, OutcomeId)>> {
    interprocedural_ladder(&analysis.callers, function, block, |f, b| {
        intra_ladder(program, &analysis.cfgs[f], f, b)
    })
}

/// The ladder of block `block` of function `function` within the function's CFG `cfg`, as
/// (site, global outcome) pairs per level (levels without a branch site are dropped).
pub fn intra_ladder(
    program: &Program,
    cfg: &crate::cfg::Cfg,
    function: usize,
    block: usize,
) -> Vec<Vec<(SiteId, OutcomeId)>> {
    let f = &program.functions[function];
    if block >= cfg.n_blocks() {
        return vec![];
    }
    cfg.ladder(block)
        .into_iter()
        .map(|level| {
            level
                .into_iter()
                .filter_map(|d| {
                    let s = (*f.block_site.get(d.block)?)?;
                    Some((s, program.sites.get(s as usize)?.outcome_base + d.outcome))
                })
                .collect::<Vec<_>>()
        })
        .filter(|l: &Vec<_>| !l.is_empty())
        .collect()
}

/// Most call levels an interprocedural ladder climbs.
pub const MAX_CALL_DEPTH: usize = 8;

/// The approach-level ladder of block `block` of function `function` across direct calls: the
/// ladder within the function (`intra(function, block)`), then, level by level, the ladders of
/// the blocks that call it (`callers[function]`, merged level-wise over all callers), then those
/// of their callers, up to [`MAX_CALL_DEPTH`] calls and never through a function twice. So an
/// execution that never enters the function still gets guidance: the approach level and branch
/// distance of the branch that kept it from the call (the interprocedural approach level of
/// McMinn 2004, in the control-dependence form of Wegener, Baresel & Sthamer 2001).
pub fn interprocedural_ladder(
    callers: &[Vec<(usize, usize)>],
    function: usize,
    block: usize,
    mut intra: impl FnMut(usize, usize) -> Vec<Vec<(SiteId, OutcomeId)>>,
) -> Vec<Vec<(SiteId, OutcomeId)>> {
    let mut levels = intra(function, block);
    levels.extend(caller_ladder(callers, function, intra));
    levels
}

/// The levels [`interprocedural_ladder`] adds above a block's own ladder: those of the calls
/// into `function`, merged level-wise over its callers, then their callers' (up to
/// [`MAX_CALL_DEPTH`] calls, never through a function twice). They are the same for every block
/// of `function`, so a caller that needs the ladders of many of its blocks computes them once.
pub fn caller_ladder(
    callers: &[Vec<(usize, usize)>],
    function: usize,
    mut intra: impl FnMut(usize, usize) -> Vec<Vec<(SiteId, OutcomeId)>>,
) -> Vec<Vec<(SiteId, OutcomeId)>> {
    use std::collections::HashSet;
    let mut levels = Vec::new();
    let mut visited: HashSet<usize> = HashSet::from([function]);
    let mut current = vec![function];
    for _ in 0..MAX_CALL_DEPTH {
        // per level: its pairs in first-seen order, and the set of them (a function called from
        // many places would make a linear look-up quadratic)
        type Level = (Vec<(SiteId, OutcomeId)>, HashSet<(SiteId, OutcomeId)>);
        let mut merged: Vec<Level> = Vec::new();
        let mut next = Vec::new();
        let mut in_next = HashSet::new();
        for &f in &current {
            for &(g, c) in callers.get(f).map_or(&[][..], |v| &v[..]) {
                if visited.contains(&g) {
                    continue;
                }
                for (i, level) in intra(g, c).into_iter().enumerate() {
                    if merged.len() <= i {
                        merged.push(Default::default());
                    }
                    let (order, seen) = &mut merged[i];
                    for x in level {
                        if seen.insert(x) {
                            order.push(x);
                        }
                    }
                }
                if in_next.insert(g) {
                    next.push(g);
                }
            }
        }
        let merged: Vec<Vec<(SiteId, OutcomeId)>> =
            merged.into_iter().map(|(order, _)| order).collect();
        if next.is_empty() {
            break;
        }
        visited.extend(&next);
        levels.extend(merged);
        current = next;
    }
    levels
}

impl BranchGoal {
    /// The goal of outcome `k` of `site`, with the ladder of the site's block.
    pub fn new(program: &Program, analysis: &Analysis, site: SiteId, k: u32) -> BranchGoal {
        let s = &program.sites[site as usize];
        let ladder = ladder(program, analysis, s.function, s.meta.block as usize);
        BranchGoal {
            site,
            outcome: s.outcome_base + k,
            k,
            rivals: rivals(program, &ladder),
            ladder,
        }
    }

    /// The margin of an execution (in [0, 1], larger is safer; a tie-break, never a fitness):
    /// the normalised branch distance to losing the nearest rung of the ladder the execution
    /// satisfied, i.e. to the other outcome of the executed critical branch just above the
    /// level it reached (`ladder[0]` when the goal's site ran). The largest over that level's
    /// satisfied rungs evaluated once; 0 when none was. A rung evaluated more than once (in a
    /// loop) has no margin: its distances are minima over the iterations, which do not say how
    /// near one evaluation came to the other outcome (measured: with loop rungs counted, GE needed
    /// 38% more evaluations on check_isbn, 100 runs).
    /// Two executions at the same fitness on a plateau differ in how easily a move breaks what
    /// they reached: `g >= 350 && credits == 15` with `g = 363` is closer to losing `g >= 350`
    /// than with `g = 400`, and raising `credits` lowers `g`.
    pub fn margin(&self, trace: &Trace) -> f64 {
        let (al, _) = self.distance(trace);
        let level = al as usize;
        let (Some(rungs), Some(rivals)) = (self.ladder.get(level), self.rivals.get(level)) else {
            return 0.0;
        };
        rungs
            .iter()
            .zip(rivals)
            .filter(|((s, o), _)| trace.hits(*s) == 1 && trace.covered(*s, *o))
            .map(|((s, _), rs)| {
                rs.iter()
                    .filter_map(|&r| trace.distance(*s, r))
                    .map(normalise)
                    .fold(1.0f64, f64::min)
            })
            .fold(0.0, f64::max)
    }

    /// (approach level, normalised branch distance) of an execution; both 0 iff covered.
    pub fn distance(&self, trace: &Trace) -> (u32, f64) {
        if let Some(d) = trace.distance(self.site, self.outcome) {
            return (0, normalise(d));
        }
        for (i, level) in self.ladder.iter().enumerate() {
            let best = level
                .iter()
                .filter_map(|&(s, o)| trace.distance(s, o))
                .map(normalise)
                .fold(None, |m: Option<f64>, d| Some(m.map_or(d, |m| m.min(d))));
            if let Some(b) = best {
                return (i as u32 + 1, b);
            }
        }
        (self.ladder.len() as u32 + 1, 0.0)
    }
}

impl Goal for BranchGoal {
    fn fitness(&self, trace: &Trace) -> f64 {
        let (al, d) = self.distance(trace);
        al as f64 + d
    }

    fn margin(&self, trace: &Trace) -> f64 {
        BranchGoal::margin(self, trace)
    }

    fn reach(&self) -> Option<(Vec<(SiteId, u32)>, f64)> {
        // with none of these run, `distance` finds no level: (ladder length + 1, 0)
        let mut sites: Vec<(SiteId, u32)> = std::iter::once((self.site, 0))
            .chain(
                self.ladder
                    .iter()
                    .enumerate()
                    .flat_map(|(i, l)| l.iter().map(move |&(s, _)| (s, i as u32 + 1))),
            )
            .collect();
        // each site at its smallest level
        sites.sort_unstable();
        sites.dedup_by_key(|(s, _)| *s);
        Some((sites, self.ladder.len() as f64 + 1.0))
    }

    fn fitness_at(&self, trace: &Trace, level: u32) -> Option<f64> {
        // `distance` finds the first level with a rung that has a distance; no rung above
        // `level` ran, so that is `level` if one of its rungs has one (else: in full)
        if level == 0 {
            return None;
        }
        let rungs = self.ladder.get(level as usize - 1)?;
        let best = rungs
            .iter()
            .filter_map(|&(s, o)| trace.distance(s, o))
            .map(normalise)
            .fold(None, |m: Option<f64>, d| Some(m.map_or(d, |m| m.min(d))))?;
        Some(level as f64 + best)
    }

    fn describe(&self, program: &Program) -> String {
        program.sites[self.site as usize].describe(self.k)
    }

    fn short(&self, program: &Program) -> String {
        program.sites[self.site as usize].short(self.k)
    }

    fn target_outcome(&self) -> Option<(SiteId, u32)> {
        Some((self.site, self.k))
    }

    fn critical_branch(&self, trace: &Trace) -> Option<SiteId> {
        if trace.executed(self.site) {
            return Some(self.site);
        }
        for level in &self.ladder {
            let best = level
                .iter()
                .filter_map(|&(s, o)| trace.distance(s, o).map(|d| (s, d)))
                .min_by(|a, b| a.1.total_cmp(&b.1));
            if let Some((s, _)) = best {
                return Some(s);
            }
        }
        None
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::fitness::Analysis;
    use crate::program::testutil::{block, site};
    use evotest_abi::meta::*;

    /// int f(int a, int b) { if (a > 0) { if (b == 7) return 1; } return 0; }
    /// blocks: 0 [a>0: T->1, F->2]; 1 [b==7: T->3, F->2]; 2 ret; 3 ret
    fn program() -> Program {
        program_with(
            vec![
                block(vec![1, 2], Some(0)),
                block(vec![3, 2], Some(1)),
                block(vec![], None),
                block(vec![], None),
            ],
            &[(0, "a > 0"), (1, "b == 7")],
        )
    }

    /// f0 is called from block 2 of f1 and block 4 of f2; f1 from block 1 of f2 (f2 calls both);
    /// f2 calls itself. Levels merge by depth, and no function is climbed twice.
    #[test]
    fn interprocedural_ladders_climb_to_the_callers_level_by_level() {
        let callers = vec![vec![(1, 2), (2, 4)], vec![(2, 1)], vec![(2, 0)]];
        let intra = |f: usize, b: usize| -> Vec<Vec<(SiteId, OutcomeId)>> {
            match (f, b) {
                (0, 3) => vec![vec![(0, 0)]],
                (1, 2) => vec![vec![(10, 20)], vec![(11, 22)]],
                (2, 4) => vec![vec![(20, 40)]],
                (2, 1) => vec![vec![(21, 42)]],
                other => panic!("no ladder asked for {other:?}"),
            }
        };
        let l = interprocedural_ladder(&callers, 0, 3, intra);
        // f0's own level, then f1's and f2's call blocks merged, then f1's caller f2 is visited
        assert_eq!(
            l,
            vec![vec![(0, 0)], vec![(10, 20), (20, 40)], vec![(11, 22)]]
        );
        // a function nobody calls keeps its own ladder
        let l = interprocedural_ladder(&[vec![]], 0, 3, |_, _| vec![vec![(0, 1)]]);
        assert_eq!(l, vec![vec![(0, 1)]]);
    }

    /// Sites given as (block, condition); site i has outcomes 2i, 2i+1.
    fn program_with(blocks: Vec<BlockMeta>, sites: &[(u32, &str)]) -> Program {
        let sites = sites
            .iter()
            .enumerate()
            .map(|(i, (b, c))| SiteMeta {
                line: 1,
                ..site(i as u32, *b, c)
            })
            .collect();
        crate::program::testutil::program(blocks, sites, vec![], vec![])
    }

    #[test]
    fn approach_level_and_distance_on_a_nested_target() {
        let p = program();
        let goals = BranchCoverage.goals(&p, &Analysis::new(&p), &[0]);
        assert_eq!(goals.len(), 4);
        let target = goals
            .iter()
            .find(|g| g.target_outcome() == Some((1, 0)))
            .unwrap(); // b == 7 → true
                       // a = -4: only the outer site ran, false taken; distance to its true outcome is 5
        let t = Trace::from_parts(2, &[0], vec![5.0, 0.0, 9.0, 9.0]);
        assert_eq!(target.fitness(&t), 1.0 + 5.0 / 6.0);
        assert_eq!(target.critical_branch(&t), Some(0));
        // a = 1, b = 3: the target's site ran; distance |3 - 7| = 4
        let t = Trace::from_parts(2, &[0, 1], vec![0.0, 1.0, 4.0, 0.0]);
        assert_eq!(target.fitness(&t), 4.0 / 5.0);
        assert_eq!(target.critical_branch(&t), Some(1));
        // covered
        let t = Trace::from_parts(2, &[0, 1], vec![0.0, 1.0, 0.0, 1.0]);
        assert_eq!(target.fitness(&t), 0.0);
        // function never entered: ladder length (1) + 1
        let t = Trace::from_parts(2, &[], vec![0.0; 4]);
        assert_eq!(target.fitness(&t), 2.0);
        assert_eq!(target.critical_branch(&t), None);
    }

    /// The fitness a search computes from a goal's reach (the smallest level that ran, or the
    /// unreached value) is the full ladder walk's, for every goal and every set of sites run.
    #[test]
    fn the_fitness_from_the_reached_level_is_the_full_walks() {
        let p = program();
        let goals = BranchCoverage.goals(&p, &Analysis::new(&p), &[0]);
        for executed in [&[][..], &[0], &[1], &[0, 1]] {
            let t = Trace::from_parts(2, executed, vec![3.0, 0.0, 2.0, 0.0]);
            for g in &goals {
                let (sites, unreached) = g.reach().expect("a branch goal has a reach");
                let level = sites
                    .iter()
                    .filter(|(s, _)| t.executed(*s))
                    .map(|(_, l)| *l)
                    .min();
                let f = match level {
                    None => unreached,
                    Some(l) => g.fitness_at(&t, l).unwrap_or_else(|| g.fitness(&t)),
                };
                assert_eq!(
                    f,
                    g.fitness(&t),
                    "{:?} with {executed:?} run",
                    g.target_outcome()
                );
            }
        }
    }

    /// The margin is the distance to losing the satisfied rung nearest the level reached: with
    /// the target's site run, the enclosing `a > 0`'s distance to false (a = 3: 3, normalised
    /// 0.75; a = 1: 0.5), at equal fitness; none when nothing above the reached level held.
    #[test]
    fn the_margin_is_the_distance_to_losing_the_nearest_satisfied_rung() {
        let p = program();
        let goals = BranchCoverage.goals(&p, &Analysis::new(&p), &[0]);
        let target = goals
            .iter()
            .find(|g| g.target_outcome() == Some((1, 0)))
            .unwrap(); // b == 7 → true
        let far = Trace::from_parts(2, &[0, 1], vec![0.0, 3.0, 4.0, 0.0]);
        let near = Trace::from_parts(2, &[0, 1], vec![0.0, 1.0, 4.0, 0.0]);
        assert_eq!(target.fitness(&far), target.fitness(&near));
        assert_eq!(target.margin(&far), 0.75);
        assert_eq!(target.margin(&near), 0.5);
        // the outer site turned away (approach level 1): no satisfied rung above it
        assert_eq!(
            target.margin(&Trace::from_parts(2, &[0], vec![5.0, 0.0, 9.0, 9.0])),
            0.0
        );
        // a rung evaluated twice (in a loop) has no margin
        let mut looped = far.clone();
        looped.sites[0].hits = 2;
        assert_eq!(target.margin(&looped), 0.0);
        // the outer goal itself: nothing encloses it
        let outer = goals
            .iter()
            .find(|g| g.target_outcome() == Some((0, 1)))
            .unwrap();
        assert_eq!(outer.margin(&far), 0.0);
    }

    /// for (i < n) { for (j < m) { if (x == 5) T } }: sites 0 = outer header (block 1),
    /// 1 = inner header (block 3), 2 = x == 5 (block 4)
    #[test]
    fn approach_levels_through_nested_loops() {
        let blk = block;
        let p = program_with(
            vec![
                blk(vec![1], None),       // 0 entry
                blk(vec![2, 7], Some(0)), // 1 outer header
                blk(vec![3], None),       // 2 outer body
                blk(vec![4, 6], Some(1)), // 3 inner header
                blk(vec![5, 3], Some(2)), // 4 if (x == 5)
                blk(vec![3], None),       // 5 then
                blk(vec![1], None),       // 6 outer latch
                blk(vec![], None),        // 7 return
            ],
            &[(1, "i < n"), (3, "j < m"), (4, "x == 5")],
        );
        let goals = BranchCoverage.goals(&p, &Analysis::new(&p), &[0]);
        let target = goals
            .iter()
            .find(|g| g.target_outcome() == Some((2, 0)))
            .unwrap();
        let g = |executed: &[u32], d: Vec<f64>| {
            let b = target.as_ref() as &dyn Goal;
            b.fitness(&Trace::from_parts(3, executed, d))
        };
        // outer loop never entered (n = 0): diverged two levels up, distance 3 to "i < n"
        assert_eq!(g(&[0], vec![3.0, 0.0, 9.0, 9.0, 9.0, 9.0]), 2.0 + 0.75);
        // outer entered, inner never (m = 0): one level up
        assert_eq!(g(&[0, 1], vec![0.0, 1.0, 1.0, 0.0, 9.0, 9.0]), 1.0 + 0.5);
        // the target's site ran with x = 2
        assert_eq!(g(&[0, 1, 2], vec![0.0, 1.0, 0.0, 1.0, 3.0, 0.0]), 0.75);
    }
}
