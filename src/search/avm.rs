//! The alternating variable method (Korel 1990), in the iterated-pattern-search form of AUSTIN
//! (Lakhotia, Harman & Gross) and AVMf (McMinn & Kapfhammer 2016).
//!
//! For one goal at a time ([`super::GoalScheduler`]), starting from the best input known for it:
//! variables are taken in turn; for each, **exploratory moves** try x ± δ; if one improves
//! fitness, **pattern moves** keep going that way with steps 2δ, 4δ, 8δ, … until fitness stops
//! improving, and then exploration resumes on the same variable. When a full cycle over all
//! variables improves nothing, float variables are refined (δ ÷ 10 while above 1e-9, so down to about 1e-10, AVMf's
//! increasing precision); when nothing is left to refine, the search restarts from a random
//! input. δ is 1 for integers (a flip for `_Bool`) and starts at 1.0 for floats; it never drops
//! below a few ULPs of the current value, so large floats still move.
//!
//! At the first local optimum of an attempt (before the first random restart), unless
//! initialisation is uniform (`--init uniform`), the search makes a **boundary probe**: each variable in turn is set to each of its boundary values (range ends,
//! 0, ±1, and ±inf/NaN for full-range floats) and to each program constant, moving on
//! improvement. This reaches outcomes whose branch distance is deceptive or flat but which sit at
//! extreme values (expint's "continued fraction failed" needs x ≥ 8.6e37 or +inf, while its
//! distance rewards x → 1).
//!
//! An attempt ends when the goal is covered, after [`super::SearchConfig::patience`] evaluations
//! without improving the goal's best fitness, or when the budget is spent.

use super::{Algorithm, AlgorithmSpec, GoalSearch, Patience, SearchContext};
use crate::input::{same, Input, ScalarType, Value};
use anyhow::Result;

pub const SPEC: AlgorithmSpec = AlgorithmSpec {
    name: "avm",
    about: "alternating variable method: exploratory and pattern moves per variable, random restarts (Korel 1990; AUSTIN, AVMf)",
    build: |_| Algorithm::PerGoal(Box::new(Avm)),
};

/// Smallest float step AVM refines to.
const MIN_FLOAT_STEP: f64 = 1e-9;

#[derive(Default)]
pub struct Avm;

/// Why a local search stopped.
enum Stop {
    Covered,
    Patience,
    Budget,
}

struct Local<'c, 'a> {
    cx: &'c mut SearchContext<'a>,
    goal: usize,
    x: Input,
    fx: f64,
    float_step: f64,
    patience: Patience,
}

impl Local<'_, '_> {
    /// Evaluate `y`; move there if it is better. `Err(stop)` when the attempt must end.
    fn try_move(&mut self, y: Input) -> Result<std::result::Result<bool, Stop>> {
        if self.cx.out_of_budget() {
            return Ok(Err(Stop::Budget));
        }
        let ev = self.cx.evaluate(&y)?;
        let fy = self.cx.fitness(self.goal, &ev);
        if fy == 0.0 || self.cx.is_covered(self.goal) {
            return Ok(Err(Stop::Covered));
        }
        if self.cx.finished() {
            return Ok(Err(Stop::Budget));
        }
        if self.patience.exhausted(fy) {
            return Ok(Err(Stop::Patience));
        }
        if fy < self.fx {
            self.x = ev.input;
            self.fx = fy;
            return Ok(Ok(true));
        }
        Ok(Ok(false))
    }

    fn step(&self, i: usize) -> f64 {
        let g = &self.cx.domain.fields[i];
        if g.ty.is_float() {
            let v = self.cx.domain.get(&self.x, i).as_f64().abs();
            let eps = if g.ty == ScalarType::F32 { f32::EPSILON as f64 } else { f64::EPSILON };
            self.float_step.max(v * eps * 4.0).max(g.step.unwrap_or(0.0))
        } else {
            1.0
        }
    }

    /// Whether some float gene could still take a finer step.
    fn refinable(&self) -> bool {
        self.float_step > MIN_FLOAT_STEP
            && self.cx.domain.fields.iter().any(|g| g.ty.is_float() && g.step.is_none_or(|s| s < self.float_step))
    }

    fn moved(&self, i: usize, delta: f64) -> Option<Input> {
        let d = self.cx.domain;
        let old = d.get(&self.x, i);
        let v = match old {
            Value::Int(n) => {
                let d = delta.clamp(-1e38, 1e38) as i128;
                Value::Int(n.saturating_add(d))
            }
            Value::Float(f) => Value::Float(f + delta),
        };
        let v = d.normalise(i, v);
        if same(v, old) {
            return None;
        }
        let mut y = self.x.clone();
        d.set(&mut y, i, v);
        Some(y)
    }

    /// Iterated pattern search on variable `i`. Returns whether it improved anything.
    fn variable(&mut self, i: usize) -> Result<std::result::Result<bool, Stop>> {
        let mut improved = false;
        loop {
            let delta = self.step(i);
            let mut dir = 0.0;
            for d in [-1.0, 1.0] {
                if let Some(y) = self.moved(i, d * delta) {
                    match self.try_move(y)? {
                        Ok(true) => {
                            dir = d;
                            break;
                        }
                        Ok(false) => {}
                        Err(s) => return Ok(Err(s)),
                    }
                }
            }
            if dir == 0.0 {
                return Ok(Ok(improved));
            }
            improved = true;
            let mut k = 2.0;
            while let Some(y) = self.moved(i, dir * delta * k) {
                match self.try_move(y)? {
                    Ok(true) => k *= 2.0,
                    Ok(false) => break,
                    Err(s) => return Ok(Err(s)),
                }
            }
        }
    }

    /// The boundary probe (see module docs).
    fn probe(&mut self) -> Result<std::result::Result<(), Stop>> {
        let d = self.cx.domain;
        for i in 0..d.fields.len() {
            let mut cands = d.boundary_values(i);
            if d.fields[i].ty.is_float() {
                cands.extend(d.float_pool.iter().map(|&f| Value::Float(f)));
                cands.extend(d.int_pool.iter().map(|&c| Value::Float(c as f64)));
            } else {
                cands.extend(d.int_pool.iter().map(|&c| Value::Int(c)));
            }
            for c in cands {
                let mut y = self.x.clone();
                d.set(&mut y, i, c);
                if y == self.x {
                    continue;
                }
                if let Err(s) = self.try_move(y)? {
                    return Ok(Err(s));
                }
            }
        }
        Ok(Ok(()))
    }

    fn run(&mut self) -> Result<Stop> {
        let mut probed = false;
        loop {
            let mut improved = false;
            for i in 0..self.cx.domain.fields.len() {
                match self.variable(i)? {
                    Ok(b) => improved |= b,
                    Err(s) => return Ok(s),
                }
            }
            if improved {
                continue;
            }
            if self.refinable() {
                self.float_step /= 10.0;
                continue;
            }
            if !probed && self.cx.domain.biased() {
                probed = true;
                let before = self.fx;
                if let Err(s) = self.probe()? {
                    return Ok(s);
                }
                if self.fx < before {
                    continue;
                }
            }
            // restart
            let y = self.cx.random_input();
            if self.cx.out_of_budget() {
                return Ok(Stop::Budget);
            }
            let ev = self.cx.evaluate(&y)?;
            let fy = self.cx.fitness(self.goal, &ev);
            if fy == 0.0 || self.cx.is_covered(self.goal) {
                return Ok(Stop::Covered);
            }
            self.x = ev.input;
            self.fx = fy;
            self.float_step = 1.0;
            if self.patience.exhausted(fy) {
                return Ok(Stop::Patience);
            }
        }
    }
}

impl GoalSearch for Avm {
    fn attempt(&mut self, cx: &mut SearchContext, goal: usize) -> Result<()> {
        if cx.out_of_budget() {
            return Ok(());
        }
        let (x, fx) = match cx.best(goal) {
            Some((f, x)) => (x.clone(), *f),
            None => {
                let x = cx.random_input();
                let ev = cx.evaluate(&x)?;
                let f = cx.fitness(goal, &ev);
                (ev.input, f)
            }
        };
        if !cx.is_covered(goal) {
            let patience = Patience::new(cx.config.patience, fx);
            let mut local = Local { cx, goal, x, fx, float_step: 1.0, patience };
            let _ = local.run()?;
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::search::testkit::*;

    /// AVM's pattern moves reach a far-away equality: x == 1_000_000 from a random start in the
    /// whole i32 range takes a few hundred evaluations, not a million.
    #[test]
    fn pattern_moves_reach_a_distant_value_quickly() {
        let d = ints(&["x"], None);
        let r = run_per_goal(&d, eq_landscape(vec![1_000_000]), &mut Avm, 1, 100_000);
        assert_eq!(r.covered, r.goals, "{r:?}");
        assert!(r.executions < 2_000, "{r:?}");
    }

    /// Two variables, a landscape with a valley per variable: (x == 12, y == -7) both covered.
    #[test]
    fn alternating_variables_cover_a_conjunction() {
        let d = ints(&["x", "y"], Some((-10_000, 10_000)));
        let r = run_per_goal(&d, conj_landscape(12, -7), &mut Avm, 3, 50_000);
        assert_eq!(r.covered, r.goals, "{r:?}");
    }
}
