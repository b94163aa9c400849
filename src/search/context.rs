//! The search context: what an algorithm may use, in two parts.
//!
//! * The **evaluator** runs inputs: the executor (a trait object), the evaluation cache, the
//!   budget and clock, the observers, and whether the ordered trace is recorded.
//! * The **goal state**: the goals (real ones, and auxiliary ones such as event sequences), the
//!   best input and fitness seen for each, the goals set aside, and the archive.
//!
//! [`SearchContext`] joins them with the domain, the random generator and the configuration, and
//! is the only thing algorithms see.
//!
//! **The search trace** (a developer's tool): with the environment variable
//! [`TRACE_SEARCH_ENV`] set to a non-empty value, every execution prints one line to standard
//! error, `evotest-trace exec=N by="LABEL" input=[values] new=[goals]`, where LABEL is what the
//! running search set with [`SearchContext::set_label`] (the portfolio's `avm goal 12`,
//! `explore random`, …). It shows where a run's executions go: which search proposed each input,
//! on which goal, and what it covered first. An evaluation answered from the cache prints
//! `evotest-trace cache by="LABEL" input=[values]` (a replayed attempt's answers, which are not
//! counted, print nothing).

use super::cache::EvalCache;
use super::SearchConfig;
use crate::archive::{Archive, TestCase};
use crate::exec::{Executor, ExitKind, Stop};
use crate::fitness::Goal;
use crate::input::{Domain, Input};
use crate::observe::{Evaluation, Observer, Status};
use anyhow::Result;
use rand_chacha::ChaCha8Rng;
use serde::Serialize;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::{Duration, Instant};

/// The budget of a search: executions and/or wall time.
#[derive(Clone, Copy, Debug, Default, Serialize)]
pub struct Budget {
    pub max_execs: Option<u64>,
    #[serde(serialize_with = "ser_opt_secs")]
    pub max_time: Option<Duration>,
}

fn ser_opt_secs<S: serde::Serializer>(
    d: &Option<Duration>,
    s: S,
) -> std::result::Result<S::Ok, S::Error> {
    match d {
        Some(d) => s.serialize_some(&d.as_secs_f64()),
        None => s.serialize_none(),
    }
}

/// Runs inputs: executor, cache, budget, observers.
struct Evaluator<'a> {
    executor: &'a mut dyn Executor,
    observers: Vec<&'a mut dyn Observer>,
    interrupt: &'a AtomicBool,
    budget: Budget,
    start: Instant,
    execs: u64,
    last_report: Instant,
    cache: EvalCache,
    /// Whether the ordered trace is being recorded, and whether a caller asked for it explicitly.
    ordered: bool,
    ordered_asked: bool,
    /// The search stopped because it proposed no input that had not been evaluated.
    exhausted: bool,
    /// Hashes of the inputs evaluated so far (up to [`NOVELTY_CAPACITY`]), and how many were new.
    seen: std::collections::HashSet<u64>,
    novel: u64,
    /// Whether each execution is printed ([`TRACE_SEARCH_ENV`]), and the label it is printed with.
    trace: bool,
    label: String,
    /// Hashes of the inputs evaluated since [`SearchContext::record`] (an attempt being recorded).
    recording: Option<Vec<u64>>,
    /// A recorded attempt being replayed ([`SearchContext::replay`]): its input hashes and how far
    /// the evaluations since have followed them.
    replay: Option<(Vec<u64>, usize)>,
}

/// The environment variable that turns on the search trace (see module docs).
pub const TRACE_SEARCH_ENV: &str = "EVOTEST_TRACE_SEARCH";

/// Most input hashes kept to tell new inputs from repeated ones (8 bytes each); past it every
/// input counts as new.
pub const NOVELTY_CAPACITY: usize = 1 << 21;

/// Goals, their bests, the goals set aside, and the archive.
struct GoalState<'a> {
    goals: &'a [Box<dyn Goal>],
    best: Vec<Option<(f64, Input)>>,
    /// Set aside now (not searched until revived).
    given_up: Vec<bool>,
    /// Ever set aside.
    suspected: Vec<bool>,
    /// Auxiliary goals (event sequences), numbered after the real goals, and their bests.
    aux: Vec<Box<dyn Goal>>,
    aux_best: Vec<Option<(f64, Input)>>,
    archive: Archive,
    /// By site: the goals whose [`Goal::reach`] lists it, with its level there.
    site_goals: Vec<Vec<(u32, u32)>>,
    /// By goal: its fitness when none of its reach sites ran (`None`: always computed).
    unreached: Vec<Option<f64>>,
    /// By goal: the smallest reach level the last execution ran (`u32::MAX`: none); kept to
    /// spare an allocation per execution.
    reached: Vec<u32>,
}

/// Everything an algorithm may use. See module docs.
pub struct SearchContext<'a> {
    pub domain: &'a Domain,
    pub rng: ChaCha8Rng,
    pub config: SearchConfig,
    /// Inputs an algorithm should put in its initial population (taken by the first that does):
    /// the solutions base's inputs of similar paths (Bueno & Jino 2002, §8).
    pub seeds: Vec<Input>,
    eval: Evaluator<'a>,
    state: GoalState<'a>,
    /// Work run between the executions of the search in progress (see [`Interleaved`]).
    interleaved: Option<Box<dyn Interleaved>>,
}

/// Work that runs between the executions of another search: a portfolio's exploration share
/// (`super::portfolio`). Installed with [`SearchContext::set_interleaved`]; the search in
/// progress keeps its own state (an AVM's pattern moves), and sees the hook's work only through
/// the archive and the goals' bests.
pub trait Interleaved {
    /// Called after each execution of the search in progress, never after the hook's own
    /// evaluations. Errors: only when the executor breaks.
    fn between(&mut self, cx: &mut SearchContext) -> Result<()>;
}

impl<'a> SearchContext<'a> {
    /// A context over `goals` of inputs in `domain`, run by `executor`, stopped by `budget` or by
    /// `interrupt` becoming true.
    pub fn new(
        domain: &'a Domain,
        goals: &'a [Box<dyn Goal>],
        rng: ChaCha8Rng,
        config: SearchConfig,
        budget: Budget,
        executor: &'a mut dyn Executor,
        interrupt: &'a AtomicBool,
    ) -> Self {
        let n = goals.len();
        let mut site_goals: Vec<Vec<(u32, u32)>> = Vec::new();
        let mut unreached = vec![None; n];
        for (g, goal) in goals.iter().enumerate() {
            if let Some((sites, f)) = goal.reach() {
                for (s, level) in sites {
                    let s = s as usize;
                    if site_goals.len() <= s {
                        site_goals.resize(s + 1, Vec::new());
                    }
                    site_goals[s].push((g as u32, level));
                }
                unreached[g] = Some(f);
            }
        }
        let mut cx = SearchContext {
            domain,
            rng,
            config,
            seeds: Vec::new(),
            eval: Evaluator {
                executor,
                observers: Vec::new(),
                interrupt,
                budget,
                start: Instant::now(),
                execs: 0,
                last_report: Instant::now(),
                cache: EvalCache::new(),
                ordered: false,
                ordered_asked: false,
                exhausted: false,
                seen: Default::default(),
                novel: 0,
                trace: std::env::var_os(TRACE_SEARCH_ENV).is_some_and(|v| !v.is_empty()),
                label: String::new(),
                recording: None,
                replay: None,
            },
            state: GoalState {
                goals,
                best: vec![None; n],
                given_up: vec![false; n],
                suspected: vec![false; n],
                aux: Vec::new(),
                aux_best: Vec::new(),
                archive: Archive::new(n),
                site_goals,
                unreached,
                reached: vec![u32::MAX; n],
            },
            interleaved: None,
        };
        cx.apply_ordered_trace();
        cx
    }

    /// Label the executions that follow in the search trace (see module docs); returns the label
    /// before, for the caller to put back.
    pub fn set_label(&mut self, label: impl Into<String>) -> String {
        std::mem::replace(&mut self.eval.label, label.into())
    }

    /// Whether the search trace is on (so that a search builds labels only then).
    pub fn tracing(&self) -> bool {
        self.eval.trace
    }

    /// Add an observer of the evaluations that follow.
    pub fn observe(&mut self, o: &'a mut dyn Observer) {
        self.eval.observers.push(o);
        self.apply_ordered_trace();
    }

    /// Install (`Some`) or remove (`None`) the work run between executions; returns the hook
    /// installed before.
    pub fn set_interleaved(
        &mut self,
        hook: Option<Box<dyn Interleaved>>,
    ) -> Option<Box<dyn Interleaved>> {
        std::mem::replace(&mut self.interleaved, hook)
    }

    /// The real goals.
    pub fn goals(&self) -> &'a [Box<dyn Goal>] {
        self.state.goals
    }

    /// Goal `goal` (real or auxiliary).
    pub fn goal(&self, goal: usize) -> &dyn Goal {
        match goal.checked_sub(self.state.goals.len()) {
            None => self.state.goals[goal].as_ref(),
            Some(a) => self.state.aux[a].as_ref(),
        }
    }

    /// Add an auxiliary goal; returns its goal index (after the real goals).
    pub fn add_aux(&mut self, goal: Box<dyn Goal>) -> usize {
        self.state.aux.push(goal);
        self.state.aux_best.push(None);
        self.apply_ordered_trace();
        self.state.goals.len() + self.state.aux.len() - 1
    }

    /// Remove the most recently added auxiliary goal.
    pub fn pop_aux(&mut self) {
        self.state.aux.pop();
        self.state.aux_best.pop();
        self.apply_ordered_trace();
    }

    /// Tell the evaluation cache which outcomes belong to which site (`site_outcomes[s]`: site
    /// `s`'s first global outcome and number of outcomes), so that it keeps the distances of the
    /// sites an execution ran only, and holds as many evaluations in a large program as in a
    /// small one. Call before the first evaluation: the cache starts empty again.
    pub fn set_site_outcomes(&mut self, site_outcomes: Vec<(u32, u32)>) {
        self.eval.cache = EvalCache::with_layout(site_outcomes.into());
    }

    /// Ask for the ordered trace in the following executions (`false`: no longer ask). It is
    /// recorded while anyone needs it: a caller that asked, a goal, or an observer.
    pub fn set_ordered_trace(&mut self, on: bool) {
        self.eval.ordered_asked = on;
        self.apply_ordered_trace();
    }

    /// Switch the ordered trace to what is needed now. The evaluation cache keeps its entries:
    /// each says whether it holds the ordered trace ([`EvalCache::peek`]).
    fn apply_ordered_trace(&mut self) {
        let s = &self.state;
        let on = self.eval.ordered_asked
            || s.goals
                .iter()
                .chain(&s.aux)
                .any(|g| g.needs_ordered_trace())
            || self.eval.observers.iter().any(|o| o.needs_ordered_trace());
        if self.eval.ordered != on {
            self.eval.ordered = on;
            self.eval.executor.set_ordered_trace(on);
        }
    }

    /// Whether the ordered trace is recorded now.
    pub fn ordered_trace(&self) -> bool {
        self.eval.ordered
    }

    /// Start recording the inputs evaluated (an attempt that may be replayed later, see
    /// [`SearchContext::replay`]); a recording in progress is dropped.
    pub fn record(&mut self) {
        self.eval.recording = Some(Vec::new());
    }

    /// Stop recording; the hashes of the inputs evaluated since [`SearchContext::record`], in
    /// order (empty if nothing was being recorded).
    pub fn take_recording(&mut self) -> Vec<u64> {
        self.eval.recording.take().unwrap_or_default()
    }

    /// Replay a recorded attempt: while the evaluations that follow ask, in order, for the
    /// inputs of `recording` (as a deterministic search restarted from the same state does), they
    /// are answered from the cache without counting as evaluations (neither executions nor cache
    /// hits), so that an attempt cut short and started again costs what resuming it would. The
    /// first evaluation that departs from the recording ends the replay; so does
    /// [`SearchContext::end_replay`].
    pub fn replay(&mut self, recording: Vec<u64>) {
        self.eval.replay = (!recording.is_empty()).then_some((recording, 0));
    }

    /// End a replay ([`SearchContext::replay`]) early.
    pub fn end_replay(&mut self) {
        self.eval.replay = None;
    }

    /// Evaluations answered from the cache instead of executing (not counted as executions).
    pub fn cache_hits(&self) -> u64 {
        self.eval.cache.hits()
    }

    /// Executions so far.
    pub fn executions(&self) -> u64 {
        self.eval.execs
    }

    /// Wall time since the search started.
    pub fn elapsed(&self) -> Duration {
        self.eval.start.elapsed()
    }

    /// Whether the budget is spent or the user interrupted.
    pub fn out_of_budget(&self) -> bool {
        let e = &self.eval;
        e.budget.max_execs.is_some_and(|m| e.execs >= m)
            || e.budget.max_time.is_some_and(|t| e.start.elapsed() >= t)
            || e.interrupt.load(Ordering::Relaxed)
    }

    /// Record that the search ended because it could propose no input not evaluated before.
    pub fn set_exhausted(&mut self) {
        self.eval.exhausted = true;
    }

    /// Whether the search ended because it could propose no new input (see
    /// [`SearchContext::set_exhausted`]).
    pub fn exhausted(&self) -> bool {
        self.eval.exhausted
    }

    /// Distinct inputs evaluated so far (executed or answered from the cache): a search that
    /// stops finding new ones has exhausted what it can propose.
    pub fn novel_inputs(&self) -> u64 {
        self.eval.novel
    }

    /// Whether the user interrupted.
    pub fn interrupted(&self) -> bool {
        self.eval.interrupt.load(Ordering::Relaxed)
    }

    /// Whether the search should stop: out of budget, or every goal covered or (when stopping on
    /// stagnation) set aside.
    pub fn finished(&self) -> bool {
        self.out_of_budget()
            || (!self.config.keep_going && self.state.archive.n_covered() == self.state.goals.len())
            || self
                .config
                .stop_at_covered
                .is_some_and(|n| self.state.archive.n_covered() >= n)
            || (self.config.stop_when_stalled && self.open_goals().is_empty())
    }

    /// The archive: first covering inputs and faults.
    pub fn archive(&self) -> &Archive {
        &self.state.archive
    }

    /// Take the archive out at the end of a search, leaving an empty one with every goal
    /// uncovered (ask for [`SearchContext::given_up`] first).
    pub fn take_archive(&mut self) -> Archive {
        std::mem::replace(
            &mut self.state.archive,
            Archive::new(self.state.goals.len()),
        )
    }

    /// Whether `goal` is covered: in the archive for a real goal, at fitness 0 for an auxiliary one.
    pub fn is_covered(&self, goal: usize) -> bool {
        match goal.checked_sub(self.state.goals.len()) {
            None => self.state.archive.is_covered(goal),
            Some(a) => self.state.aux_best[a].as_ref().is_some_and(|b| b.0 == 0.0),
        }
    }

    pub fn is_given_up(&self, goal: usize) -> bool {
        self.state.given_up[goal]
    }

    /// Goals neither covered nor set aside, in goal order.
    pub fn open_goals(&self) -> Vec<usize> {
        let s = &self.state;
        (0..s.goals.len())
            .filter(|&g| !s.archive.is_covered(g) && !s.given_up[g])
            .collect()
    }

    /// Revive every set-aside goal with doubled patience, unless stopping when stalled or out of
    /// budget. Returns whether any goal was revived.
    pub fn revive(&mut self) -> bool {
        if self.config.stop_when_stalled || self.out_of_budget() {
            return false;
        }
        let mut any = false;
        for g in 0..self.state.goals.len() {
            if self.state.given_up[g] && !self.state.archive.is_covered(g) {
                self.state.given_up[g] = false;
                any = true;
            }
        }
        if any {
            self.config.patience = self.config.patience.saturating_mul(2);
        }
        any
    }

    /// Set `goal` aside as suspected infeasible: it is not searched for until revived.
    pub fn give_up(&mut self, goal: usize) {
        self.state.given_up[goal] = true;
        self.state.suspected[goal] = true;
    }

    /// Goals still uncovered that were ever set aside: the suspected infeasible ones.
    pub fn given_up(&self) -> Vec<usize> {
        let s = &self.state;
        (0..s.goals.len())
            .filter(|&g| s.suspected[g] && !s.archive.is_covered(g))
            .collect()
    }

    /// Best (lowest) fitness seen for `goal` (real or auxiliary), and the input that achieved it.
    pub fn best(&self, goal: usize) -> Option<&(f64, Input)> {
        match goal.checked_sub(self.state.goals.len()) {
            None => self.state.best[goal].as_ref(),
            Some(a) => self.state.aux_best[a].as_ref(),
        }
    }

    /// Fitness of an evaluation for `goal` (real or auxiliary).
    pub fn fitness(&self, goal: usize, ev: &Evaluation) -> f64 {
        self.goal(goal).fitness(&ev.trace)
    }

    /// The evaluation of `input` from the cache when it is there, without counting a cache hit
    /// (a search re-reading the trace of an input it has evaluated, as the secant moves re-read
    /// the current input's operands, asks for no new fitness evaluation); otherwise
    /// [`SearchContext::evaluate`]; but with the budget spent, an evaluation that ended
    /// [`ExitKind::Stopped`] with an empty trace, as an execution cut short by the engine (the
    /// cache is bounded, so an input evaluated before may have left it; running it again would
    /// overrun the budget).
    ///
    /// Errors: only when the executor breaks.
    pub fn recall(&mut self, input: &Input) -> Result<Evaluation> {
        let key = self.domain.normalise_input(input);
        match self.eval.cache.peek(&key, self.eval.ordered) {
            Some(ev) => Ok(ev),
            None if self.out_of_budget() => Ok(Evaluation {
                input: key,
                exit: ExitKind::Stopped,
                ret: None,
                trace: Default::default(),
                exec: self.eval.execs,
            }),
            None => self.evaluate(input),
        }
    }

    /// Normalise `input` into the domain, run it, and update the archive, per-goal bests, faults
    /// and observers. Callers should check [`SearchContext::finished`] first; this always runs,
    /// unless the same input was evaluated recently, in which case the cached result is returned
    /// and nothing is executed.
    ///
    /// Errors: only when the executor breaks.
    pub fn evaluate(&mut self, input: &Input) -> Result<Evaluation> {
        let input = self.domain.normalise_input(input);
        let e = &mut self.eval;
        let hash = {
            use std::hash::{Hash, Hasher};
            let mut h = std::hash::DefaultHasher::new();
            input.hash(&mut h);
            h.finish()
        };
        if let Some(r) = &mut e.recording {
            r.push(hash);
        }
        if let Some((inputs, at)) = &mut e.replay {
            if inputs.get(*at) == Some(&hash) {
                if let Some(ev) = e.cache.peek(&input, e.ordered) {
                    // the replayed attempt asks what it asked before: answered, not counted again
                    *at += 1;
                    return Ok(ev);
                }
            }
            e.replay = None;
        }
        if e.seen.len() >= NOVELTY_CAPACITY || e.seen.insert(hash) {
            e.novel += 1;
        }
        if let Some(ev) = self.eval.cache.get(&input, self.eval.ordered) {
            if self.eval.trace {
                eprintln!(
                    "evotest-trace cache by={:?} input={:?}",
                    self.eval.label,
                    self.domain.values(&input)
                );
            }
            self.update_aux(&ev);
            return Ok(ev);
        }
        let e = &self.eval;
        let stop = Stop {
            deadline: e.budget.max_time.map(|t| e.start + t),
            interrupt: Some(e.interrupt),
        };
        let ex = self.eval.executor.run(&input.bytes, stop)?;
        self.eval.execs += 1;
        let exec = self.eval.execs;
        if ex.exit == ExitKind::Stopped {
            // cut short by the engine: says nothing about the input
            return Ok(Evaluation {
                input,
                exit: ex.exit,
                ret: None,
                trace: ex.trace,
                exec,
            });
        }
        let s = &mut self.state;
        let mut covers_new = Vec::new();
        let mut covers_all = Vec::new();
        // the goals near which the execution ran: the others keep their unreached fitness
        // (the smallest level that ran, from which the fitness is computed)
        let mut reached = std::mem::take(&mut s.reached);
        reached.fill(u32::MAX);
        for (site, rec) in ex.trace.sites.iter().enumerate().take(s.site_goals.len()) {
            if rec.hits > 0 {
                for &(g, level) in &s.site_goals[site] {
                    let r = &mut reached[g as usize];
                    *r = (*r).min(level);
                }
            }
        }
        for (g, goal) in s.goals.iter().enumerate() {
            let f = match s.unreached[g] {
                Some(f) if reached[g] == u32::MAX => f,
                Some(_) => goal
                    .fitness_at(&ex.trace, reached[g])
                    .unwrap_or_else(|| goal.fitness(&ex.trace)),
                None => goal.fitness(&ex.trace),
            };
            if f == 0.0 {
                covers_all.push(g);
                if !s.archive.is_covered(g) {
                    covers_new.push(g);
                    s.best[g] = Some((0.0, input.clone()));
                }
            } else if !s.archive.is_covered(g) && s.best[g].as_ref().is_none_or(|(b, _)| f < *b) {
                s.best[g] = Some((f, input.clone()));
            }
        }
        s.reached = reached;
        if self.eval.trace {
            eprintln!(
                "evotest-trace exec={exec} by={:?} input={:?} new={covers_new:?}",
                self.eval.label,
                self.domain.values(&input)
            );
        }
        let test = TestCase {
            input: input.clone(),
            exit: ex.exit,
            ret: ex.ret,
            exec,
            at: self.eval.start.elapsed(),
            covers_new: covers_new.clone(),
            covers_all,
            message: None,
            slow: false,
        };
        let new_fault = ex.exit.is_fault() && s.archive.add_fault(test.clone());
        for o in self.eval.observers.iter_mut() {
            if new_fault {
                o.kept(&test, true);
            }
            if !test.covers_new.is_empty() {
                o.kept(&test, false);
            }
        }
        self.state.archive.add_test(test);
        let ev = Evaluation {
            input,
            exit: ex.exit,
            ret: ex.ret,
            trace: ex.trace,
            exec,
        };
        for o in self.eval.observers.iter_mut() {
            o.evaluated(&ev);
        }
        if !covers_new.is_empty()
            || new_fault
            || self.eval.last_report.elapsed() >= Duration::from_millis(100)
        {
            self.eval.last_report = Instant::now();
            let status = self.status();
            for o in self.eval.observers.iter_mut() {
                o.progress(&status);
            }
        }
        self.update_aux(&ev);
        self.eval.cache.put(&ev, self.eval.ordered);
        // taken out while it runs, so that its own evaluations do not call it again
        if let Some(mut hook) = self.interleaved.take() {
            // the hook's evaluations are not the recorded attempt's
            let recording = self.eval.recording.take();
            let r = hook.between(self);
            self.eval.recording = recording;
            self.interleaved = Some(hook);
            r?;
        }
        Ok(ev)
    }

    fn update_aux(&mut self, ev: &Evaluation) {
        let s = &mut self.state;
        for (a, goal) in s.aux.iter().enumerate() {
            let f = goal.fitness(&ev.trace);
            if s.aux_best[a].as_ref().is_none_or(|(b, _)| f < *b) {
                s.aux_best[a] = Some((f, ev.input.clone()));
            }
        }
    }

    /// Current progress.
    pub fn status(&self) -> Status {
        Status {
            executions: self.eval.execs,
            covered: self.state.archive.n_covered(),
            goals: self.state.goals.len(),
            elapsed: self.eval.start.elapsed(),
            faults: self.state.archive.faults.len(),
        }
    }

    /// A random input from the domain.
    pub fn random_input(&mut self) -> Input {
        self.domain.sample(&mut self.rng)
    }
}

impl Drop for SearchContext<'_> {
    /// The executor outlives the context (benchmarks reuse it): leave the ordered trace off.
    fn drop(&mut self) {
        if self.eval.ordered {
            self.eval.executor.set_ordered_trace(false);
        }
    }
}

#[cfg(test)]
mod tests {
    use crate::exec::ExitKind;
    use crate::input::Value;
    use crate::observe::{Evaluation, Observer, Status};
    use crate::search::testkit::*;
    use crate::search::SearchConfig;

    /// An input evaluated twice runs once: the second answer comes from the cache and is not an
    /// execution. An answer recorded without the ordered trace does not serve a request for it
    /// (its trace lacks the events); one recorded with it serves both, without its events when
    /// they are not asked for, so that switching the ordered trace off and on again (chaining
    /// does so for each event sequence) executes nothing again.
    #[test]
    fn the_cache_answers_repeated_inputs_and_keeps_what_the_ordered_trace_needs() {
        let d = ints(&["x"], None);
        let x = d.from_values(&[Value::Int(3)]);
        let r = run_with(
            &d,
            eq_landscape(vec![7]),
            SearchConfig::default(),
            1,
            100,
            |cx| {
                let a = cx.evaluate(&x).unwrap();
                let b = cx.evaluate(&x).unwrap();
                assert_eq!((a.exec, b.exec), (1, 1));
                assert_eq!(a.trace, b.trace);
                assert!(b.trace.events.is_empty());
                cx.set_ordered_trace(true);
                let c = cx.evaluate(&x).unwrap();
                assert_eq!(c.exec, 2);
                assert_eq!(c.trace.events.len(), 1, "the ordered trace is recorded now");
                cx.set_ordered_trace(false);
                let e = cx.evaluate(&x).unwrap();
                assert_eq!(e.exec, 2, "answered by the entry with the ordered trace");
                assert_eq!(e.trace, a.trace, "without its events");
                cx.set_ordered_trace(true);
                let f = cx.evaluate(&x).unwrap();
                assert_eq!((f.exec, f.trace.events.len()), (2, 1));
            },
        );
        assert_eq!((r.executions, r.cache_hits), (2, 3));
    }

    /// A hang stays in the cache when the ordered trace is switched (chaining does so for each
    /// event sequence it tries): running it again would cost a whole timeout to hang again.
    #[test]
    fn a_hang_outlives_a_switch_of_the_ordered_trace() {
        let d = ints(&["x"], None);
        let mut sc = eq_landscape(vec![7]);
        let inner = sc.program;
        sc.program = Box::new(move |v, r| {
            inner(v, r);
            if v[0].as_i128() == 5 {
                r.exit = ExitKind::Timeout;
            }
        });
        let (hang, ok) = (
            d.from_values(&[Value::Int(5)]),
            d.from_values(&[Value::Int(3)]),
        );
        let r = run_with(&d, sc, SearchConfig::default(), 1, 100, |cx| {
            assert_eq!(cx.evaluate(&hang).unwrap().exit, ExitKind::Timeout);
            cx.evaluate(&ok).unwrap();
            cx.set_ordered_trace(true);
            let h = cx.evaluate(&hang).unwrap();
            assert_eq!(
                (h.exit, h.exec),
                (ExitKind::Timeout, 1),
                "the hang comes from the cache"
            );
            assert_eq!(
                cx.evaluate(&ok).unwrap().exec,
                3,
                "the other input runs again"
            );
        });
        assert_eq!((r.executions, r.cache_hits), (3, 1));
    }

    /// Inputs are normalised into the domain before they run: out-of-range bytes are clamped, and
    /// equal normalised inputs share a cache entry.
    #[test]
    fn inputs_are_normalised_before_they_run() {
        let d = ints(&["x"], Some((0, 10)));
        let r = run_with(
            &d,
            eq_landscape(vec![10]),
            SearchConfig::default(),
            1,
            100,
            |cx| {
                let ev = cx
                    .evaluate(&crate::input::Input::new(500i32.to_le_bytes().to_vec()))
                    .unwrap();
                assert_eq!(d.get(&ev.input, 0), Value::Int(10));
                assert!(cx.is_covered(0), "x == 10 is covered by the clamped value");
                cx.evaluate(&crate::input::Input::new(999i32.to_le_bytes().to_vec()))
                    .unwrap();
            },
        );
        assert_eq!((r.executions, r.cache_hits), (1, 1));
    }

    /// A crashing input is kept as a fault, and observers see every execution and the progress.
    #[test]
    fn faults_are_archived_and_observers_see_every_execution() {
        #[derive(Default)]
        struct Count {
            evaluated: u64,
            last: Option<Status>,
        }
        impl Observer for Count {
            fn evaluated(&mut self, _: &Evaluation) {
                self.evaluated += 1;
            }
            fn progress(&mut self, s: &Status) {
                self.last = Some(s.clone());
            }
        }
        let d = ints(&["x"], Some((0, 3)));
        let mut sc = eq_landscape(vec![2]);
        let inner = sc.program;
        sc.program = Box::new(move |v, r| {
            inner(v, r);
            if v[0].as_i128() == 3 {
                r.exit = ExitKind::Crash { signal: 11 };
            }
        });
        let mut count = Count::default();
        run_observed(&d, sc, SearchConfig::default(), 1, 100, &mut count, |cx| {
            for v in 0..4 {
                cx.evaluate(&d.from_values(&[Value::Int(v)])).unwrap();
            }
            let a = cx.archive();
            assert_eq!(a.faults.len(), 1);
            assert_eq!(d.get(&a.faults[0].input, 0), Value::Int(3));
            assert_eq!(a.fault_counts.get("crash"), Some(&1));
        });
        assert_eq!(count.evaluated, 4);
        let s = count.last.expect("progress reported");
        assert_eq!((s.covered, s.goals, s.faults), (2, 2, 1));
    }
}
