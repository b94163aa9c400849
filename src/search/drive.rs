//! The driver of single-goal algorithms: schedule goals (closest first), attempt each, let the
//! algorithm (or a decorator around it) react to how the attempt went, and set aside goals that
//! stall. Also the one patience rule every algorithm uses.

use super::{GoalSearch, SearchContext};
use crate::input::Input;
use anyhow::Result;

/// How one attempt on a goal went.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Attempt {
    /// The goal's best fitness improved (or it was covered).
    pub improved: bool,
    /// The goal has now failed `give_up_after` attempts in a row: it is about to be set aside.
    pub stalled: bool,
}

/// Run `search` on the context's goals until every goal is covered or set aside, or the budget
/// is spent. A goal whose attempts stop improving it is set aside as suspected infeasible after
/// [`super::SearchConfig::give_up_after`] attempts; when every open goal is set aside they are
/// revived with doubled patience (unless [`super::SearchConfig::stop_when_stalled`]).
///
/// Errors: only when the executor breaks.
pub fn drive(cx: &mut SearchContext, search: &mut dyn GoalSearch) -> Result<()> {
    if cx.domain.is_trivial() {
        if !cx.finished() {
            cx.evaluate(&Input::default())?;
        }
        return Ok(());
    }
    let mut scheduler = GoalScheduler::default();
    while !cx.finished() {
        let Some(goal) = scheduler.next(cx) else {
            break;
        };
        if scheduler.revivals_without_executions >= 2 {
            // every open goal was revived twice and no new input was evaluated in between: the
            // algorithm only proposes inputs already evaluated (a domain of one value)
            cx.set_exhausted();
            break;
        }
        let before = cx.best(goal).map(|b| b.0);
        if cx.tracing() {
            cx.set_label(format!("goal {goal}"));
        }
        // a first look only where another goal is open to turn to (a run with one target, as
        // chaining's, gains nothing from cutting its attempt short)
        let first_look = scheduler.first_look(goal) && cx.open_goals().len() > 1;
        let start = if first_look {
            cx.best(goal).map(|(_, x)| x.clone())
        } else {
            None
        };
        if start
            .as_ref()
            .is_some_and(|x| scheduler.looked_from.contains(x))
        {
            // another goal's first look from this same input found nothing, and none of the
            // inputs it asked improved this goal either (every execution updates every goal's
            // best): a first look here would ask them again from the cache. Later rounds give
            // the goal its full attempts.
            continue;
        }
        let patience = cx.config.patience;
        if first_look {
            cx.config.patience = (patience / FIRST_LOOK).max(1);
            cx.record();
        } else if let Some(look) = scheduler.fruitless_looks.remove(&goal) {
            // the goal's next attempt starts where its first look did: what it asks again is
            // not counted again, as if the look were resumed
            cx.replay(look);
        }
        search.attempt(cx, goal)?;
        cx.config.patience = patience;
        cx.end_replay();
        let look = if first_look {
            cx.take_recording()
        } else {
            Vec::new()
        };
        let improved =
            cx.is_covered(goal) || before.is_none() || cx.best(goal).map(|b| b.0) != before;
        if first_look && !improved {
            // a first look that found nothing does not count against the goal, nor moves it on
            // to another search: it gets its full attempts in later rounds
            scheduler.fruitless_looks.insert(goal, look);
            scheduler.looked_from.extend(start);
            continue;
        }
        let attempt = scheduler.attempted(cx, goal, before);
        search.after_attempt(cx, goal, attempt)?;
        if attempt.stalled && !cx.is_covered(goal) && !cx.out_of_budget() {
            cx.give_up(goal);
        }
    }
    Ok(())
}

/// A goal's first attempt (its first look) has this fraction of the patience
/// ([`super::SearchConfig::patience`]): 1/10. Closest first ranks a goal by its best fitness, and
/// an infeasible or hard goal can look close (payday's `h < 0` after `h = … % 7`, at approach
/// level 0 and a distance of at most 7, is infeasible); with its full patience it held up every
/// goal ranked after it (payday: 302 executions to full coverage, 85 with first looks). No first
/// look for the only open goal (a run for one target, as chaining's): nothing else could use
/// the executions, and cutting its attempt short only restarted it.
pub const FIRST_LOOK: u64 = 10;

/// Round-robin scheduling of goals for algorithms that work on one goal at a time (AVM, GA).
///
/// Each round visits the open goals, closest first (lowest best fitness), so that easy goals and
/// the collateral coverage they bring come early (goals of equal fitness in index order: a run
/// that starts with nothing evaluated takes its first round in the order of the sites). A goal's
/// first attempt is a short look ([`FIRST_LOOK`]; not for the only open goal), not counted
/// against it when it finds nothing; its next attempt replays the look's inputs without counting
/// them ([`SearchContext::replay`]), as if resuming it. A goal whose best input is where another
/// goal's fruitless first look started gets no first look: none of the inputs that look asked
/// improved it, and its own look would ask them again from the cache (merit, under
/// condition-decision coverage: four goals each asked 127 cache answers and ran nothing).
/// An attempt that does not improve a goal's best fitness counts against it; after
/// `give_up_after` such attempts in a row the goal stalls.
#[derive(Default)]
pub struct GoalScheduler {
    queue: Vec<usize>,
    stale: Vec<u32>,
    /// Distinct inputs evaluated when goals were last revived, and revivals in a row with none in
    /// between.
    revived_at: Option<u64>,
    revivals_without_executions: u32,
    /// Goals attempted at least once.
    looked: Vec<bool>,
    /// The inputs (hashes) of each goal's first look that found nothing, replayed uncounted by
    /// its next attempt ([`SearchContext::replay`]).
    fruitless_looks: std::collections::HashMap<usize, Vec<u64>>,
    /// The inputs fruitless first looks started from.
    looked_from: std::collections::HashSet<crate::input::Input>,
}

impl GoalScheduler {
    /// The next open goal to attempt, or `None` when none is left (after reviving set-aside goals
    /// if the configuration allows).
    pub fn next(&mut self, cx: &mut SearchContext) -> Option<usize> {
        let n = cx.goals().len();
        if self.stale.len() != n {
            self.stale = vec![0; n];
        }
        loop {
            if self.queue.is_empty() {
                let mut open = cx.open_goals();
                if open.is_empty() && cx.revive() {
                    self.stale.iter_mut().for_each(|s| *s = 0);
                    let now = cx.novel_inputs();
                    if self.revived_at == Some(now) {
                        self.revivals_without_executions += 1;
                    } else {
                        self.revivals_without_executions = 0;
                    }
                    self.revived_at = Some(now);
                    open = cx.open_goals();
                }
                if open.is_empty() {
                    return None;
                }
                open.sort_by(|&a, &b| {
                    let fa = cx.best(a).map_or(f64::INFINITY, |b| b.0);
                    let fb = cx.best(b).map_or(f64::INFINITY, |b| b.0);
                    fb.total_cmp(&fa).then(b.cmp(&a))
                });
                self.queue = open; // popped from the back: closest first
            }
            let g = self.queue.pop()?;
            if !cx.is_covered(g) && !cx.is_given_up(g) {
                return Some(g);
            }
        }
    }

    /// Whether the next attempt on `goal` is its first (its first look); marks it looked at.
    pub fn first_look(&mut self, goal: usize) -> bool {
        if self.looked.len() <= goal {
            self.looked.resize(goal + 1, false);
        }
        !std::mem::replace(&mut self.looked[goal], true)
    }

    /// Report how an attempt on `goal` went, given its best fitness before.
    pub fn attempted(
        &mut self,
        cx: &mut SearchContext,
        goal: usize,
        before: Option<f64>,
    ) -> Attempt {
        let after = cx.best(goal).map(|b| b.0);
        let improved = match (before, after) {
            (_, Some(0.0)) => true,
            (Some(b), Some(a)) => a < b,
            (None, Some(_)) => true,
            _ => false,
        };
        if cx.is_covered(goal) || improved {
            self.stale[goal] = 0;
            Attempt {
                improved: true,
                stalled: false,
            }
        } else {
            self.stale[goal] += 1;
            Attempt {
                improved: false,
                stalled: self.stale[goal] >= cx.config.give_up_after,
            }
        }
    }
}

/// The patience rule of an attempt: it ends after `limit` evaluations in a row that do not
/// improve the best fitness seen in the attempt.
#[derive(Clone, Debug)]
pub struct Patience {
    best: f64,
    since: u64,
    limit: u64,
}

impl Patience {
    /// Patience of `limit` evaluations, starting from fitness `start` (∞ for none yet).
    pub fn new(limit: u64, start: f64) -> Patience {
        Patience {
            best: start,
            since: 0,
            limit,
        }
    }

    /// Lower the starting point without counting an evaluation (an initial population).
    pub fn seed(&mut self, f: f64) {
        self.best = self.best.min(f);
    }

    /// Count one evaluation of fitness `f`; returns `true` when patience has run out.
    pub fn exhausted(&mut self, f: f64) -> bool {
        if f < self.best {
            self.best = f;
            self.since = 0;
            false
        } else {
            self.since += 1;
            self.since >= self.limit
        }
    }

    /// The best fitness seen.
    pub fn best(&self) -> f64 {
        self.best
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::input::Value;
    use crate::search::testkit::*;
    use crate::search::SearchConfig;

    /// A search that evaluates one fixed input per attempt and records the goals it was given.
    struct Recorder {
        order: Vec<usize>,
        input: Input,
    }

    impl GoalSearch for Recorder {
        fn attempt(&mut self, cx: &mut SearchContext, goal: usize) -> Result<()> {
            self.order.push(goal);
            cx.evaluate(&self.input)?;
            Ok(())
        }
    }

    /// Goals are taken closest first: after x = 90, `x == 100` (distance 10) comes before
    /// `x == 5000` (4910), and the outcomes already covered are never attempted.
    #[test]
    fn the_scheduler_takes_the_closest_goal_first_and_skips_covered_ones() {
        let d = ints(&["x", "y"], None);
        let x = d.from_values(&[Value::Int(90), Value::Int(90)]);
        let mut rec = Recorder {
            order: vec![],
            input: x.clone(),
        };
        let c = SearchConfig {
            give_up_after: 1,
            stop_when_stalled: true,
            ..SearchConfig::default()
        };
        let r = run_with(&d, eq_landscape(vec![100, 5000]), c, 1, 100, |cx| {
            cx.evaluate(&x).unwrap();
            drive(cx, &mut rec).unwrap();
        });
        // goals: 0 = x == 100 true, 1 = false (covered), 2 = y == 5000 true, 3 = false (covered);
        // goal 0's first look finds nothing and does not count; goal 2 gets no first look (its
        // best input is where goal 0's fruitless look started); the full attempts set them aside
        assert_eq!(rec.order, vec![0, 0, 2], "{r:?}");
        assert_eq!(r.covered, 2);
        assert_eq!(r.given_up, vec![0, 2]);
    }

    /// A goal's first attempt has a tenth of the patience, its later ones all of it; a goal that
    /// is the only one open gets all of it at once.
    #[test]
    fn a_first_look_has_a_tenth_of_the_patience() {
        struct Patient(Vec<u64>, Input);
        impl GoalSearch for Patient {
            fn attempt(&mut self, cx: &mut SearchContext, _goal: usize) -> Result<()> {
                self.0.push(cx.config.patience);
                cx.evaluate(&self.1)?;
                Ok(())
            }
        }
        let d = ints(&["x"], None);
        let mut p = Patient(vec![], d.from_values(&[Value::Int(1)]));
        let c = SearchConfig {
            give_up_after: 2,
            patience: 1000,
            stop_when_stalled: true,
            ..SearchConfig::default()
        };
        run_with(&d, eq_landscape(vec![7]), c.clone(), 1, 100, |cx| {
            drive(cx, &mut p).unwrap();
        });
        // the first attempt (a first fitness) counts as an improvement; two fruitless ones set it aside
        assert_eq!(p.0, vec![1000 / FIRST_LOOK, 1000, 1000]);
        // with one goal open (x == 7 false covered before the search), no first look: there is
        // no other goal to turn to
        let mut p = Patient(vec![], d.from_values(&[Value::Int(1)]));
        let x = p.1.clone();
        run_with(&d, eq_landscape(vec![7]), c, 1, 100, |cx| {
            cx.evaluate(&x).unwrap();
            drive(cx, &mut p).unwrap();
        });
        assert_eq!(p.0, vec![1000, 1000]);
    }

    /// A goal's attempt after its fruitless first look starts where the look did and asks the
    /// same inputs first: those answers are not counted again (neither executions nor cache
    /// hits), as if the look were resumed; what it asks beyond them is.
    #[test]
    fn the_attempt_after_a_fruitless_first_look_resumes_it() {
        /// Asks x = 1, 2, 3, … from 1 each attempt, two more each time.
        struct Walk(i64);
        impl GoalSearch for Walk {
            fn attempt(&mut self, cx: &mut SearchContext, _goal: usize) -> Result<()> {
                for v in 1..=self.0 {
                    cx.evaluate(
                        &cx.domain
                            .from_values(&[Value::Int(v as i128), Value::Int(0)]),
                    )?;
                }
                self.0 += 2;
                Ok(())
            }
        }
        let d = ints(&["x", "y"], None);
        let c = SearchConfig {
            give_up_after: 1,
            stop_when_stalled: true,
            ..SearchConfig::default()
        };
        let start = d.from_values(&[Value::Int(1), Value::Int(0)]);
        let r = run_with(&d, eq_landscape(vec![-100, -200]), c, 1, 100, |cx| {
            cx.evaluate(&start).unwrap();
            drive(cx, &mut Walk(3)).unwrap();
        });
        // goal 0 (x == -100): its first look asks 1, 2, 3 (1 from the cache); goal 2 (y == -200)
        // gets no first look (same start); goal 0's attempt asks 1..5: 1, 2, 3 replayed
        // uncounted, 4, 5 run; goal 2's attempt asks 1..7: all but 6, 7 from the cache
        assert_eq!((r.executions, r.cache_hits), (7, 1 + 5), "{r:?}");
        assert_eq!(r.given_up, vec![0, 2]);
    }

    /// A goal whose attempts never improve it is set aside after `give_up_after` attempts; when
    /// every open goal is set aside, they are revived with doubled patience. A search that only
    /// proposes inputs already evaluated (here: always the same one, answered by the cache) would
    /// revive forever without executing anything: the driver ends it as exhausted.
    #[test]
    fn stalled_goals_are_revived_and_a_search_without_new_inputs_ends() {
        let d = ints(&["x"], None);
        let x = d.from_values(&[Value::Int(1)]);
        let mut rec = Recorder {
            order: vec![],
            input: x.clone(),
        };
        let c = SearchConfig {
            give_up_after: 3,
            patience: 10,
            ..SearchConfig::default()
        };
        let (mut patience_after, mut exhausted) = (0, false);
        let r = run_with(&d, eq_landscape(vec![7]), c, 1, 1_000_000, |cx| {
            drive(cx, &mut rec).unwrap();
            patience_after = cx.config.patience;
            exhausted = cx.exhausted();
        });
        assert_eq!(r.executions, 1, "{r:?}");
        // the first attempt improves (a first fitness), then 3 fruitless ones, revive, 3 more,
        // revive, 3 more, revive with nothing executed since the last two: stop
        assert_eq!(rec.order, vec![0; 10], "{:?}", rec.order);
        assert_eq!(patience_after, 80, "patience doubled on each revival");
        assert!(exhausted);
        assert_eq!(r.given_up, vec![0]);
    }

    #[test]
    fn patience_counts_evaluations_without_improvement() {
        let mut p = Patience::new(3, 10.0);
        assert!(!p.exhausted(12.0) && !p.exhausted(11.0));
        assert!(!p.exhausted(5.0), "an improvement resets the count");
        assert!(!p.exhausted(5.0) && !p.exhausted(6.0) && p.exhausted(7.0));
        p.seed(1.0);
        assert_eq!(p.best(), 1.0);
    }
}
