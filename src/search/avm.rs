//! The alternating variable method (Korel 1990), in the iterated-pattern-search form of AUSTIN
//! (Lakhotia, Harman & Gross 2013) and AVMf (McMinn & Kapfhammer 2016).
//!
//! For one goal at a time ([`super::GoalScheduler`]), starting from the best input known for it:
//! variables are taken in turn; for each, **exploratory moves** try small moves of each kind, in
//! both directions; when one improves fitness, **pattern moves** keep going that way with the same
//! kind of move, doubling it each time (2, 4, 8, … units), until fitness stops improving, and then
//! exploration resumes on the same variable. The kinds of move, tried in this order:
//!
//! * **additive**, x ± δ: δ is 1 for integers (a flip for `_Bool`) and starts at 1.0 for floats,
//!   never below a few ULPs of the current value, so large floats still move;
//! * **bit** (integers, when the program's conditions test bits,
//!   [`crate::input::Domain::bit_ops`]): clear the lowest set bit, or fill the lowest hole (the
//!   lowest clear bit above the lowest set bit), on the value's two's-complement pattern
//!   ([`bits_moved`]); pattern moves clear or fill 2, 4, 8, … bits, so a count of bits, a power
//!   of two or one run of ones is walked one bit at a time where additive steps change it
//!   erratically (`x + 1` can clear a run). Measured on bitcount from the uniform start (30 runs):
//!   74.5 → 25 median executions; from the biased start 20 → 22;
//! * **lattice** (integers): x ± m for each lattice step m of the program (the moduli and divisors
//!   of its `%` and `/`, shift and mask periods, and their pairwise least common multiples), so
//!   that `x % 100 == 0` can be approached inside `x % 4 == 0` without breaking it;
//! * **binade** (floats): one step of 2^52 (2^23 for `float`) on the float's *ordered key*, which
//!   doubles or halves the magnitude, and crosses zero and the infinities in order: pattern moves
//!   on it reach any double from any other in about 64 doublings (1e300 reaches [0, 10] in tens of
//!   evaluations, where additive steps need thousands). Tried in every exploration only for a
//!   float at least [`FAR`] additive steps from zero (or not finite); otherwise in the key stage;
//! * **ulp** (floats): one step on the ordered key, the next representable value, for exact
//!   equalities that additive steps of a few ULPs would jump over. Key stage only.
//!
//! A move (exploratory or pattern) that makes the execution leave the goal's path earlier than the
//! current input (a worse approach level) is **repaired** before it is rejected
//! ([`super::i2s::repairs`], at most [`MAX_REPAIRS`] evaluations): another field equal to the
//! unchanged operand of the compare the move broke is set to turn it back, so a variable covered
//! by a checksum (`digits[12] == checksum(digits)`) or tied to another input (`v2 > v1` above the
//! goal) can still be walked, each step followed by the check field. When no repair is better
//! but one got past the condition the move broke and broke a later one, both equalities, that
//! repair's own repairs are tried too (a **chained repair**, at most [`MAX_REPAIRS`] more): in a
//! chain of equalities between inputs (`a == b`, `e == a + c`), moving a and setting b := a
//! breaks `e == a + c`, which e := a + c restores. Measured: a helper's five-input chain 1,701 →
//! 63 and 7,585 → 55.5 median executions (biased, uniform; 20 runs); on the benchmark's sets
//! only luhn and fclamp moved, by at most 3% (|z| ≤ 0.2); chaining ordering repairs as well cost
//! pythag's orderings (z = 2.0). The flips at the start of an attempt and the input-to-state
//! moves are repaired the same way. After a repaired exploratory
//! move, pattern moves first follow the whole step taken, move and repair together (Hooke &
//! Jeeves 1961), then the variable alone, each step repaired. Measured (30 runs): comp(n, c) 20-40x
//! fewer executions, gammq 8-14x, EAN-13's check digit 50-90x; tritype 1.5-2.4x and triangle
//! 1.1-1.4x more (bench/results/repairs-ab.md).
//!
//! The **key stage** runs at each local optimum of the main cycle, before refinement: binade and
//! ulp moves on every float. Keeping them out of the main cycle saves four evaluations per float
//! per failed exploration where additive moves do the work (values of moderate magnitude). When
//! the program's conditions test bits ([`crate::input::Domain::bit_ops`]), it also makes **scale
//! moves** on every integer (x / 2^k, x · 2^k, k doubling): they bring a value to 1, −1 or the
//! range's top, whose bit patterns are the simple ones (`popcount(x) == 32` from 3e9). On other
//! programs they cost evaluations at every local optimum for nothing (gcdrel, pythag: 1.45× and
//! 3.7× more executions ungated), hence the gate.
//!
//! Before any move, an attempt tries the **flips** of the goal's critical branch
//! ([`super::i2s::flips`]): each field equal to an operand of the compare set to the value next to
//! the other operand that turns the outcome around (`n == 1` with n = 489624410: n := 1; a float
//! moved past the other operand by one additive step, `z > y` false: z := y + δ). They cost
//! one evaluation per matching field, and save the tens to hundreds that pattern moves need to walk
//! a field to a constant or to another input. A flip that improves is followed by the flips of
//! the critical branch it leads to, while they improve (`a == b && c == 5000`: a := b, then
//! c := 5000), before the exploratory moves; after one flip, a cycle of those over ten `int`s
//! cost comp(5, 3) under condition-decision coverage 77 to 385 executions from `evotest run`'s
//! own start (seeds 1-8, either start), against 19 to 37 chained.
//!
//! When a full cycle over all variables improves nothing, the search tries **input-to-state**
//! moves ([`super::i2s`]): a variable equal to one operand of the compare at the goal's critical
//! branch is set to the other operand (`x == y`, `x == checksum(y)`). Then **lattice snaps**: each
//! integer variable set to the multiples of each lattice step next to it, where `x % m == 0` has
//! its zeros (a local optimum at a range's edge, `y % 400 == 0` at y = 1, cannot reach them by
//! steps), and so each number written in a string or character buffer (a year read with `atoi`,
//! rewritten at its text's width, [`super::i2s::text_snaps`]). When no input-to-state move (nor
//! a flip at the start) improves and the first that changed one variable broke a condition above the goal that no repair restores, a **frozen
//! search** ([`Local::frozen`]) walks the other variables from it, that one kept: `h == 5.0 &&
//! a == 3.0` with `h = sqrt(a*a + b*b)` needs b to follow a := 3. Then **secant moves**
//! ([`super::secant`], Newton's method with a numeric derivative, as Angora's gradient descent):
//! each variable set to where the critical branch's operands would meet on the line through the
//! current input and its exploratory move's input (`num / den == 1.0` in one step; `fabs(q) >
//! FLT_MAX`, whose distance is flat, still has a slope in its operands). Then, when the execution
//! ran a compare in a loop, **operand moves**
//! ([`super::i2s::operand_moves`], once per local optimum, at most [`OPERAND_MOVES`], until one
//! improves): a variable equal to an operand of any logged compare evaluation set to the other
//! operand or a neighbour where that turns the compare around (a checker's `n == 10`, where `n`
//! counts the characters that pass `c >= '0' && c <= '9'`: the character that stopped the loop
//! becomes a digit). Then comes the key stage;
//! then float variables are refined (δ ÷ 10 while above 1e-9, AVMf's increasing precision); then
//! pair moves; when nothing is left, the search restarts (a scale-free, a random or a perturbed
//! input in turn: the scale-free one first, as it reaches small magnitudes as often as large ones,
//! where a relation between inputs such as a common factor with a small product or `a*a + b*b ==
//! c*c` has most of its solutions; measured against random first, 30 runs: gcdrel 61.5 → 45.5
//! median executions, pythag 8,663.5 → 4,093 and 19,605.5 → 8,801 from the uniform start,
//! enumeration's chaining cells 105 → 63; geometric means of the medians 0.94 on the numeric set,
//! 0.91 on the chaining programs, 1.007 on the 40 programs).
//!
//! At the first local optimum of an attempt, unless initialisation is uniform (`--init
//! uniform`), the search first makes a **boundary probe** (before input-to-state, refinement and
//! pair moves: it is cheap, and the biased start is for programs whose special values are
//! boundaries and constants): each
//! variable in turn is set to each of its boundary values (range ends, 0, ±1, and ±inf/NaN for
//! full-range floats) and to each program constant, moving on improvement. This reaches outcomes
//! whose branch distance is deceptive or flat but which sit at extreme values (expint's
//! "continued fraction failed" needs x ≥ 8.6e37 or +inf, while its distance rewards x → 1).
//!
//! An attempt ends when the goal is covered, after [`super::SearchConfig::patience`] evaluations
//! without improving the goal's best fitness, or when the budget is spent.

use super::{Algorithm, AlgorithmSpec, GoalSearch, Patience, SearchContext};
use crate::input::mapped::{key32, key64, unkey32, unkey64};
use crate::input::{same, Field, Input, Role, ScalarType, Value};
use crate::observe::Evaluation;
use anyhow::Result;

pub const SPEC: AlgorithmSpec = AlgorithmSpec {
    name: "avm",
    about: "alternating variable method: exploratory and pattern moves per variable, random restarts (Korel 1990; AUSTIN, AVMf)",
    build: |_| Algorithm::PerGoal(Box::new(Avm)),
};

/// Most repairs ([`super::i2s::repairs`]) tried after one move that broke a condition: the field
/// that restores it (a check digit) may come after fields that equal the same operand by chance.
const MAX_REPAIRS: usize = 3;

/// Most integer variables for which pair moves are tried.
const MAX_PAIR_FIELDS: usize = 8;

/// Most operand moves ([`super::i2s::operand_moves`]) tried at one local optimum.
const OPERAND_MOVES: usize = 32;

/// A float this many additive steps or more from zero (or not finite) also gets binade moves in
/// every exploration: additive pattern moves would need more than log2(FAR) ≈ 20 doublings to
/// change its magnitude.
const FAR: f64 = (1u64 << 20) as f64;

/// Most executions of one search with a variable frozen ([`Local::frozen`]). With 200 the
/// benchmark's medians were about the same (bench/results/frozen-ab.md), but a search that only
/// crept back towards the current input cost up to 200 executions.
const FROZEN_EVALS: u64 = 64;

/// Executions per other variable of a search with a variable frozen, up to [`FROZEN_EVALS`].
const FROZEN_EVALS_PER_FIELD: u64 = 24;

/// A root of the secant moves ([`super::secant::root`], `key_root`, `wrapped_root`): from two
/// executions' operand records and the variable's values in them, the variable's value where
/// the operands meet.
type Root =
    fn(&evotest_abi::shm::OperandRec, f64, &evotest_abi::shm::OperandRec, f64) -> Option<f64>;

/// Most steps of one run of the secant method ([`Local::secant`]).
const SECANT_ITERATIONS: usize = 16;

/// Smallest float step AVM refines to.
const MIN_FLOAT_STEP: f64 = 1e-9;

#[derive(Default)]
pub struct Avm;

/// A kind of move on one variable (see module docs), of one unit.
#[derive(Clone, Copy, Debug, PartialEq)]
enum Move {
    /// x ± δ·k.
    Add(f64),
    /// x ± m·k for a lattice step m.
    Lattice(i128),
    /// The ordered key ± units·k (binade: 2^52 or 2^23; ulp: 1).
    Key(u64),
    /// An integer's magnitude halved (or doubled) k times: x / 2^k, x · 2^k.
    Scale,
    /// An integer's k lowest set bits cleared (`x &= x - 1`, k times), or its k lowest holes
    /// filled (clear bits above the lowest set bit, then below it), in its type's
    /// two's-complement pattern ([`bits_moved`]).
    Bits,
}

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
    /// The local optimum whose operand moves were tried last (not tried again there).
    operands_tried: Option<Input>,
}

impl Local<'_, '_> {
    /// Evaluate `y`; move there if it is better. `Err(stop)` when the attempt must end.
    fn try_move(&mut self, y: Input) -> Result<std::result::Result<bool, Stop>> {
        Ok(self.try_eval(y)?.map(|(moved, _)| moved))
    }

    /// [`Self::try_move`], also giving back the evaluation and fitness of a move not taken.
    fn try_eval(
        &mut self,
        y: Input,
    ) -> Result<std::result::Result<(bool, Option<(Evaluation, f64)>), Stop>> {
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
            return Ok(Ok((true, None)));
        }
        Ok(Ok((false, Some((ev, fy)))))
    }

    /// A move of one variable to `y`: [`Self::try_move`], and when `y` is not better because its
    /// execution left the goal's path earlier than the current input's (a worse approach level,
    /// the integer part of the fitness), up to [`MAX_REPAIRS`] repairs of the condition it broke
    /// ([`super::i2s::repairs`]), until one is better.
    fn try_move_repaired(&mut self, y: Input) -> Result<std::result::Result<bool, Stop>> {
        let d = self.cx.domain;
        let changed: Vec<usize> = (0..d.fields.len())
            .filter(|&j| !same(d.get(&y, j), d.get(&self.x, j)))
            .take(2)
            .collect();
        let [i] = changed[..] else {
            return self.try_move(y);
        };
        let fx = self.fx;
        let (ev, fy) = match self.try_eval(y)? {
            Ok((_, Some(e))) => e,
            Ok((moved, None)) => return Ok(Ok(moved)),
            Err(s) => return Ok(Err(s)),
        };
        if fy.floor() <= fx.floor() || self.cx.out_of_budget() {
            return Ok(Ok(false));
        }
        // the current input's evaluation, from the cache (it was evaluated recently)
        let before = self.cx.evaluate(&self.x)?;
        let cands = self.repairs_of(&before, &ev, i);
        // the repair that got furthest along the goal's path without reaching the current
        // input's approach level: it restored the broken condition and broke a later one
        let mut furthest: Option<(Evaluation, f64, usize)> = None;
        for c in cands.into_iter().take(MAX_REPAIRS) {
            let j = (0..d.fields.len()).find(|&j| j != i && !same(d.get(&c, j), d.get(&self.x, j)));
            match self.try_eval(c)? {
                Ok((true, _)) => return Ok(Ok(true)),
                Ok((false, Some((ev2, f2)))) => {
                    if f2.floor() > fx.floor()
                        && f2.floor() < furthest.as_ref().map_or(fy, |f| f.1).floor()
                    {
                        if let Some(j) = j {
                            furthest = Some((ev2, f2, j));
                        }
                    }
                }
                Ok((false, None)) => {}
                Err(s) => return Ok(Err(s)),
            }
        }
        // a chained repair (a chain of equalities between inputs, `a == b`, `e == a + c`:
        // moving a and setting b := a breaks `e == a + c`, which e := a + c restores): repairs
        // of that input's new critical branch that keep the moved field and the first repair
        let Some((ev2, _, j)) = furthest else {
            return Ok(Ok(false));
        };
        // only along equalities (both the condition the move broke and the one the repair
        // broke): a repaired ordering leaves room that a further repair often undoes, and
        // chaining those cost pythag's orderings executions (rank test z = 2.0)
        let equality = |t: &crate::trace::Trace| {
            self.cx
                .goal(self.goal)
                .critical_branch(t)
                .and_then(|site| t.operands(site))
                .and_then(|r| r.pred())
                .is_some_and(evotest_abi::pred::Pred::is_equality)
        };
        if !equality(&ev.trace) || !equality(&ev2.trace) || self.cx.out_of_budget() {
            return Ok(Ok(false));
        }
        let cands = self.repairs_of(&before, &ev2, i);
        for c in cands
            .into_iter()
            .filter(|c| same(d.get(c, j), d.get(&ev2.input, j)))
            .take(MAX_REPAIRS)
        {
            match self.try_move(c)? {
                Ok(true) => return Ok(Ok(true)),
                Ok(false) => {}
                Err(s) => return Ok(Err(s)),
            }
        }
        Ok(Ok(false))
    }

    /// The repairs ([`super::i2s::repairs`]) of the condition that `after`, an evaluation of a
    /// move of variable `i` away from the current input (evaluated as `before`), broke.
    fn repairs_of(&self, before: &Evaluation, after: &Evaluation, i: usize) -> Vec<Input> {
        super::i2s::repairs(
            self.cx.domain,
            self.cx.goal(self.goal),
            &before.trace,
            &after.input,
            &after.trace,
            i,
            &|j| self.step(j),
        )
    }

    fn step(&self, i: usize) -> f64 {
        let g = &self.cx.domain.fields[i];
        if g.ty.is_float() {
            let v = self.cx.domain.get(&self.x, i).as_f64().abs();
            let eps = if g.ty == ScalarType::F32 {
                f32::EPSILON as f64
            } else {
                f64::EPSILON
            };
            self.float_step
                .max(v * eps * 4.0)
                .max(g.step.unwrap_or(0.0))
        } else {
            1.0
        }
    }

    /// Whether some float gene could still take a finer step.
    fn refinable(&self) -> bool {
        self.float_step > MIN_FLOAT_STEP
            && self
                .cx
                .domain
                .fields
                .iter()
                .any(|g| g.ty.is_float() && g.step.is_none_or(|s| s < self.float_step))
    }

    /// The kinds of move of variable `i`, in the order exploration tries them: in the main cycle
    /// (`stage` false) the additive, bit (where conditions test bits) and lattice moves, and
    /// binade moves for a float at least [`FAR`] steps from zero; in the key stage at a local
    /// optimum (`stage` true) the binade and ulp moves of a float, an integer's scale moves where
    /// conditions test bits.
    fn moves(&self, i: usize, stage: bool) -> Vec<Move> {
        let g = &self.cx.domain.fields[i];
        let binade = if g.ty == ScalarType::F32 {
            1u64 << 23
        } else {
            1u64 << 52
        };
        if stage {
            return if g.ty.is_float() {
                vec![Move::Key(binade), Move::Key(1)]
            } else if integer_value(g) && self.cx.domain.bit_ops {
                vec![Move::Scale]
            } else {
                vec![]
            };
        }
        let step = self.step(i);
        let mut moves = vec![Move::Add(step)];
        if g.ty.is_float() {
            let v = self.cx.domain.get(&self.x, i).as_f64();
            if v.is_nan() || v.abs() >= step * FAR {
                moves.push(Move::Key(binade));
            }
        } else if integer_value(g) {
            moves.extend(self.cx.domain.lattice.iter().map(|&m| Move::Lattice(m)));
            if self.cx.domain.bit_ops {
                moves.insert(1, Move::Bits);
            }
        }
        moves
    }

    /// `x` with variable `i` moved by `k` units of `mv` in direction `dir` (±1), normalised into
    /// the domain; `None` if that does not change the variable.
    fn moved(&self, i: usize, mv: Move, dir: f64, k: f64) -> Option<Input> {
        let d = self.cx.domain;
        let old = d.get(&self.x, i);
        let v = match (old, mv) {
            (Value::Int(n), Move::Add(delta)) => {
                Value::Int(n.saturating_add((dir * delta * k).clamp(-1e38, 1e38) as i128))
            }
            (Value::Int(n), Move::Lattice(m)) => {
                let steps = (dir * k).clamp(-1e30, 1e30) as i128;
                Value::Int(n.saturating_add(m.saturating_mul(steps)))
            }
            (Value::Float(f), Move::Add(delta)) => Value::Float(f + dir * delta * k),
            (Value::Int(n), Move::Scale) => {
                let e = k.clamp(1.0, 126.0) as u32;
                Value::Int(if dir < 0.0 {
                    n / (1i128 << e)
                } else {
                    n.saturating_mul(1i128 << e)
                })
            }
            (Value::Int(n), Move::Bits) => Value::Int(bits_moved(n, d.fields[i].ty, dir < 0.0, k)),
            (Value::Float(f), Move::Key(unit)) => {
                let by = (unit as f64 * k).min(u64::MAX as f64) as u64;
                Value::Float(key_moved(f, d.fields[i].ty, by, dir < 0.0))
            }
            _ => return None,
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
    fn variable(&mut self, i: usize, stage: bool) -> Result<std::result::Result<bool, Stop>> {
        let mut improved = false;
        loop {
            let mut chosen = None;
            let start = self.x.clone();
            'explore: for mv in self.moves(i, stage) {
                for d in [-1.0, 1.0] {
                    if let Some(y) = self.moved(i, mv, d, 1.0) {
                        match self.try_move_repaired(y)? {
                            Ok(true) => {
                                chosen = Some((mv, d));
                                break 'explore;
                            }
                            Ok(false) => {}
                            Err(s) => return Ok(Err(s)),
                        }
                    }
                }
            }
            let Some((mv, dir)) = chosen else {
                return Ok(Ok(improved));
            };
            improved = true;
            if matches!(mv, Move::Add(_)) && self.step_from(&start).len() == 1 {
                // the exploratory move (not repaired) and the input before it give a secant:
                // jump to its root when that improves, and explore again from there
                match self.secant(i, &start, super::secant::root)? {
                    Ok(Some(true)) => continue,
                    Ok(_) => {}
                    Err(s) => return Ok(Err(s)),
                }
            }
            let step = self.step_from(&start);
            if step.len() > 1 {
                // the move was repaired: pattern moves along the step taken, the move and its
                // repair together (Hooke & Jeeves 1961), doubling, so that a variable tied to
                // another by an ordering or an equality is not walked one unit per evaluation;
                // where that stops (a checksum is not linear), the variable's own pattern moves,
                // each repaired, go on
                let mut k = 2.0;
                while let Some(y) = self.shifted(&step, k) {
                    match self.try_move(y)? {
                        Ok(true) => k *= 2.0,
                        Ok(false) => break,
                        Err(s) => return Ok(Err(s)),
                    }
                }
            }
            let mut k = 2.0;
            while let Some(y) = self.moved(i, mv, dir, k) {
                match self.try_move_repaired(y)? {
                    Ok(true) => k *= 2.0,
                    Ok(false) => break,
                    Err(s) => return Ok(Err(s)),
                }
            }
        }
    }

    /// The step from `start` to the current input: (field, change) of each field that differs
    /// (an integer difference, or a float one); empty if a field cannot be differenced.
    fn step_from(&self, start: &Input) -> Vec<(usize, Value)> {
        let d = self.cx.domain;
        let mut out = Vec::new();
        for j in 0..d.fields.len() {
            match (d.get(start, j), d.get(&self.x, j)) {
                (a, b) if same(a, b) => {}
                (Value::Int(a), Value::Int(b)) => out.push((j, Value::Int(b.saturating_sub(a)))),
                (Value::Float(a), Value::Float(b)) if (b - a).is_finite() => {
                    out.push((j, Value::Float(b - a)))
                }
                _ => return vec![],
            }
        }
        out
    }

    /// The current input moved by `k` times `step` ([`Self::step_from`]), normalised into the
    /// domain; `None` if that changes nothing.
    fn shifted(&self, step: &[(usize, Value)], k: f64) -> Option<Input> {
        let d = self.cx.domain;
        let mut y = self.x.clone();
        for &(j, by) in step {
            let v = match (d.get(&self.x, j), by) {
                (Value::Int(v), Value::Int(by)) => {
                    Value::Int(v.saturating_add(by.saturating_mul(k.min(1e30) as i128)))
                }
                (Value::Float(v), Value::Float(by)) => Value::Float(v + by * k),
                _ => return None,
            };
            d.set(&mut y, j, d.normalise(j, v));
        }
        (y != self.x).then_some(y)
    }

    /// A restart point near the goal (the perturbation step of iterated local search, Lourenço,
    /// Martin & Stützle 2003): the best input known for it (the one that gets closest,
    /// usually reaching the goal's branch), with each variable (at least one) replaced with
    /// probability 1/2 by a value of random magnitude up to about twice its own, log-uniform
    /// (|v'| = (2|v| + 3)^u − 1, u uniform in [0, 1)), the sign kept 3 times in 4. It keeps more
    /// of what reached the goal's branch than a random input, and lands in a new basin.
    fn perturbed(&mut self) -> Input {
        use rand::Rng;
        let d = self.cx.domain;
        let Some((_, best)) = self.cx.best(self.goal) else {
            return self.cx.random_input();
        };
        let mut y = best.clone();
        let n = d.fields.len();
        let forced = self.cx.rng.random_range(0..n);
        for i in 0..n {
            if i != forced && self.cx.rng.random_bool(0.5) {
                continue;
            }
            let u: f64 = self.cx.rng.random();
            let keep_sign = self.cx.rng.random_bool(0.75);
            let v = match d.get(&y, i) {
                Value::Int(v) => {
                    let m = ((2.0 * v.unsigned_abs() as f64 + 3.0).powf(u) - 1.0).floor() as i128;
                    Value::Int(if (v < 0) == keep_sign { -m } else { m })
                }
                Value::Float(f) if f.is_finite() => {
                    let m = (2.0 * f.abs() + 3.0).powf(u) - 1.0;
                    Value::Float(if (f < 0.0) == keep_sign { -m } else { m })
                }
                Value::Float(_) => d.uniform_value(i, &mut self.cx.rng),
            };
            d.set(&mut y, i, v);
        }
        y
    }

    /// Pair moves, tried at a local optimum of the single-variable moves: two integer variables
    /// moved by one unit together, in the same or in opposite directions, with pattern moves
    /// along the diagonal that improves. They follow ridges that single moves cannot: an
    /// ordering `a <= b <= c` that holds only if `b` and `c` move together, or a relation such as
    /// `a*a + b*b == c*c`, linear along `b + k, c + k`. Only for up to [`MAX_PAIR_FIELDS`]
    /// variables (the pairs grow quadratically). Returns whether one improved.
    fn pairs(&mut self) -> Result<std::result::Result<bool, Stop>> {
        let d = self.cx.domain;
        let ints: Vec<usize> = (0..d.fields.len())
            .filter(|&i| integer_value(&d.fields[i]))
            .collect();
        if ints.len() < 2 || ints.len() > MAX_PAIR_FIELDS {
            return Ok(Ok(false));
        }
        let mut improved = false;
        for (p, &i) in ints.iter().enumerate() {
            for &j in &ints[p + 1..] {
                for (di, dj) in [(1, 1), (-1, -1), (1, -1), (-1, 1)] {
                    let mut k = 1i128;
                    loop {
                        let Some(y) = self.pair_moved(i, j, di * k, dj * k) else {
                            break;
                        };
                        match self.try_move(y)? {
                            Ok(true) => {
                                improved = true;
                                k *= 2;
                            }
                            Ok(false) => break,
                            Err(s) => return Ok(Err(s)),
                        }
                    }
                }
            }
        }
        Ok(Ok(improved))
    }

    fn pair_moved(&self, i: usize, j: usize, by_i: i128, by_j: i128) -> Option<Input> {
        let d = self.cx.domain;
        let mut y = self.x.clone();
        for (f, by) in [(i, by_i), (j, by_j)] {
            let Value::Int(v) = d.get(&y, f) else {
                return None;
            };
            let w = d.normalise(f, Value::Int(v.saturating_add(by)));
            if same(w, Value::Int(v)) {
                return None;
            }
            d.set(&mut y, f, w);
        }
        Some(y)
    }

    /// Input-to-state moves ([`super::i2s`]) from the current input: the flips of the critical
    /// branch (`flips`, tried until one improves) or every copy of an operand (tried all, moving
    /// on each improvement). When none improves and the first of them that changed one field
    /// broke a condition on the goal's path that no repair restores, a [`Self::frozen`] search
    /// from it. Returns whether one improved.
    fn input_to_state(&mut self, flips: bool) -> Result<std::result::Result<bool, Stop>> {
        if self.cx.out_of_budget() {
            return Ok(Err(Stop::Budget));
        }
        let ev = self.cx.evaluate(&self.x)?;
        let (d, goal) = (self.cx.domain, self.cx.goal(self.goal));
        let cands = if flips {
            super::i2s::flips(d, goal, &self.x, &ev.trace, &|i| self.step(i))
        } else {
            super::i2s::candidates(d, goal, &self.x, &ev.trace)
        };
        let mut improved = false;
        let mut broke = None;
        for y in cands {
            let from = (self.x.clone(), self.fx);
            match self.try_move_repaired(y.clone())? {
                Ok(b) => improved |= b,
                Err(s) => return Ok(Err(s)),
            }
            if improved && flips {
                break;
            }
            if !improved && broke.is_none() {
                broke = self.broken_guard(&from.0, from.1, &y)?;
            }
        }
        if let (false, Some((y, i))) = (improved, broke) {
            return self.frozen(y, i);
        }
        Ok(Ok(improved))
    }

    /// Whether `y`, the input `x` (of fitness `fx`) with one field changed, left the goal's path
    /// earlier (a worse approach level): that field, and `y` as evaluated. Reads the evaluation
    /// cache (`y` was just evaluated).
    fn broken_guard(&mut self, x: &Input, fx: f64, y: &Input) -> Result<Option<(Input, usize)>> {
        let d = self.cx.domain;
        let changed: Vec<usize> = (0..d.fields.len())
            .filter(|&j| !same(d.get(y, j), d.get(x, j)))
            .take(2)
            .collect();
        let [i] = changed[..] else { return Ok(None) };
        if d.fields.len() < 2 || self.cx.out_of_budget() {
            return Ok(None);
        }
        let ev = self.cx.evaluate(y)?;
        let fy = self.cx.fitness(self.goal, &ev);
        Ok((fy.floor() > fx.floor()).then_some((ev.input, i)))
    }

    /// A search with one variable frozen: from `y`, an input-to-state move of variable `i` that
    /// satisfies the goal's critical branch but broke a condition above it (a worse approach
    /// level) that no single field restores, the other variables are searched (the main cycle,
    /// then the key stage, at most [`FROZEN_EVALS`] executions, and no further when one pass does
    /// not get back to the current input's approach level) while variable `i` keeps its value.
    /// `h == 5.0 && a == 3.0` with `h = sqrt(a*a + b*b)`: from a = 0, b = 5, the flip a := 3
    /// breaks `h == 5.0`, and walking b with a frozen at 3 reaches b = 4, where both hold; no
    /// move of one variable from (0, 5) improves, and the checksum-style repairs need a field
    /// equal to `h`. Moves there if the search ends at a better approach level than the current
    /// input's (a lower distance at the same level is not enough: such moves led the search
    /// astray on floatcomp); otherwise the current input is kept. Returns whether it moved.
    fn frozen(&mut self, y: Input, i: usize) -> Result<std::result::Result<bool, Stop>> {
        if self.cx.out_of_budget() {
            return Ok(Err(Stop::Budget));
        }
        let ev = self.cx.evaluate(&y)?;
        let fy = self.cx.fitness(self.goal, &ev);
        let saved = (
            std::mem::replace(&mut self.x, ev.input),
            std::mem::replace(&mut self.fx, fy),
            self.float_step,
        );
        self.float_step = 1.0;
        let start = self.cx.executions();
        let n = self.cx.domain.fields.len();
        let limit = (FROZEN_EVALS_PER_FIELD * (n as u64 - 1)).min(FROZEN_EVALS);
        'search: for stage in [false, true] {
            loop {
                let mut improved = false;
                for j in (0..n).filter(|&j| j != i) {
                    if self.cx.executions() - start >= limit {
                        break 'search;
                    }
                    match self.variable(j, stage)? {
                        Ok(b) => improved |= b,
                        Err(s) => return Ok(Err(s)),
                    }
                }
                if !improved {
                    break;
                }
                // one pass that did not get back to the current input's approach level: the
                // frozen value is not one the others can make up for nearby
                if !stage && self.fx.floor() > saved.1.floor() {
                    break 'search;
                }
            }
        }
        if self.fx.floor() < saved.1.floor() {
            return Ok(Ok(true));
        }
        (self.x, self.fx, self.float_step) = saved;
        Ok(Ok(false))
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

    /// Lattice snaps, tried at a local optimum: each integer variable set to the multiples of
    /// each lattice step m of the program next to it (m·⌊x/m⌋ and the next one up), moving on
    /// improvement. `x % m == 0` has its zeros there; the additive and lattice moves cannot reach
    /// them from a local optimum at the edge of a range (`y % 400 == 0` at y = 1, where y = 0 is
    /// rejected before the compare and y ± 400 keeps the remainder). Then the same for each
    /// number written in a string ([`super::i2s::text_snaps`]). Returns whether one improved.
    fn snaps(&mut self) -> Result<std::result::Result<bool, Stop>> {
        let d = self.cx.domain;
        let mut improved = false;
        for i in (0..d.fields.len()).filter(|&i| integer_value(&d.fields[i])) {
            for &m in &d.lattice {
                let Value::Int(v) = d.get(&self.x, i) else {
                    break;
                };
                if m <= 1 {
                    continue;
                }
                let below = v.div_euclid(m).saturating_mul(m);
                for c in [below, below.saturating_add(m)] {
                    let w = d.normalise(i, Value::Int(c));
                    if same(w, Value::Int(v)) {
                        continue;
                    }
                    let mut y = self.x.clone();
                    d.set(&mut y, i, w);
                    match self.try_move(y)? {
                        Ok(b) => improved |= b,
                        Err(s) => return Ok(Err(s)),
                    }
                }
            }
        }
        // the same snaps on each number written in a string or character buffer: built from the
        // input before the first move, so the first that improves ends them
        for y in super::i2s::text_snaps(d, &self.x) {
            match self.try_move(y)? {
                Ok(true) => return Ok(Ok(true)),
                Ok(false) => {}
                Err(s) => return Ok(Err(s)),
            }
        }
        Ok(Ok(improved))
    }

    /// Secant moves ([`super::secant`]) at a local optimum: for each integer or float variable,
    /// [`Self::secant`] through the current input and the input with the variable moved by one
    /// additive step (an exploratory move's input, so usually a cache hit; the other direction
    /// when that one changed neither operand), on the values, then for a float on the ordered
    /// keys ([`super::secant::key_root`]), for an integer modulo 2^32
    /// ([`super::secant::wrapped_root`]). Where none improves, at most two new executions per
    /// variable besides the cache's. Returns whether one improved.
    fn secants(&mut self) -> Result<std::result::Result<bool, Stop>> {
        let d = self.cx.domain;
        for i in 0..d.fields.len() {
            if !(d.fields[i].ty.is_float() || integer_value(&d.fields[i])) {
                continue;
            }
            let roots: [Root; 2] = if d.fields[i].ty.is_float() {
                [super::secant::root, super::secant::key_root]
            } else {
                [super::secant::root, super::secant::wrapped_root]
            };
            for dir in [1.0, -1.0] {
                let Some(y) = self.moved(i, Move::Add(self.step(i)), dir, 1.0) else {
                    continue;
                };
                let mut tried = false;
                for root in roots {
                    match self.secant(i, &y, root)? {
                        Ok(Some(true)) => return Ok(Ok(true)),
                        Ok(Some(false)) => tried = true,
                        Ok(None) => {}
                        Err(s) => return Ok(Err(s)),
                    }
                }
                if tried {
                    break;
                }
            }
        }
        Ok(Ok(false))
    }

    /// The secant move of variable `i` through the current input and `other` (the current input
    /// with variable `i` changed, both evaluated or looked up in the cache): variable `i` set to
    /// where the operands of the goal's critical branch would meet by `root`, moving on
    /// improvement. `Ok(None)` when there is no such move (the critical branch is
    /// not the same compare in both, neither operand moved, or the root is one of the two
    /// inputs); `Ok(Some(improved))` when one was tried.
    fn secant(
        &mut self,
        i: usize,
        other: &Input,
        root: Root,
    ) -> Result<std::result::Result<Option<bool>, Stop>> {
        let mut other = other.clone();
        let mut tried = None;
        // the secant method: after a root that improved, the next secant runs through it and the
        // input before it, a wider base than one step, so a linear operand is met in two
        for _ in 0..SECANT_ITERATIONS {
            if self.cx.out_of_budget() {
                return Ok(Err(Stop::Budget));
            }
            // both were evaluated already (the current input, and the exploratory move's input
            // or the one before the last root): re-read, not new fitness evaluations
            let ex = self.cx.recall(&self.x)?;
            let eo = self.cx.recall(&other)?;
            let goal = self.cx.goal(self.goal);
            let Some(site) = goal.critical_branch(&ex.trace) else {
                break;
            };
            if goal.critical_branch(&eo.trace) != Some(site) {
                break;
            }
            let (Some(r0), Some(r1)) = (ex.trace.operands(site), eo.trace.operands(site)) else {
                break;
            };
            let d = self.cx.domain;
            let (v0, v1) = (d.get(&self.x, i), d.get(&eo.input, i));
            let Some(r) = root(r0, v0.as_f64(), r1, v1.as_f64()) else {
                break;
            };
            let w = root_value(d, i, r);
            if same(w, v0) || same(w, v1) {
                break;
            }
            let mut z = self.x.clone();
            d.set(&mut z, i, w);
            let before = self.x.clone();
            match self.try_move_repaired(z)? {
                Ok(true) => tried = Some(true),
                Ok(false) => {
                    tried = tried.or(Some(false));
                    break;
                }
                Err(s) => return Ok(Err(s)),
            }
            // a repaired move changed another field too: no secant in variable i alone
            if self.step_from(&before).len() != 1 {
                break;
            }
            other = before;
        }
        Ok(Ok(tried))
    }

    /// Operand moves ([`super::i2s::operand_moves`]) at a local optimum, once per optimum input,
    /// tried until one improves (the others were made from the old input). Returns whether one
    /// improved.
    fn operand_moves(&mut self) -> Result<std::result::Result<bool, Stop>> {
        if self.operands_tried.as_ref() == Some(&self.x) {
            return Ok(Ok(false));
        }
        self.operands_tried = Some(self.x.clone());
        if self.cx.out_of_budget() {
            return Ok(Err(Stop::Budget));
        }
        let ev = self.cx.evaluate(&self.x)?;
        for y in super::i2s::operand_moves(self.cx.domain, &self.x, &ev.trace, OPERAND_MOVES) {
            match self.try_move(y)? {
                Ok(true) => return Ok(Ok(true)),
                Ok(false) => {}
                Err(s) => return Ok(Err(s)),
            }
        }
        Ok(Ok(false))
    }

    fn run(&mut self) -> Result<Stop> {
        let mut probed = false;
        let mut restarts = 0u64;
        // flips while they improve: each improvement may move the critical branch to a new compare
        loop {
            match self.input_to_state(true)? {
                Ok(true) => {}
                Ok(false) => break,
                Err(s) => return Ok(s),
            }
        }
        loop {
            let mut improved = false;
            for i in 0..self.cx.domain.fields.len() {
                match self.variable(i, false)? {
                    Ok(b) => improved |= b,
                    Err(s) => return Ok(s),
                }
            }
            if improved {
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
            match self.input_to_state(false)? {
                Ok(true) => continue,
                Ok(false) => {}
                Err(s) => return Ok(s),
            }
            match self.snaps()? {
                Ok(true) => continue,
                Ok(false) => {}
                Err(s) => return Ok(s),
            }
            match self.secants()? {
                Ok(true) => continue,
                Ok(false) => {}
                Err(s) => return Ok(s),
            }
            match self.operand_moves()? {
                Ok(true) => continue,
                Ok(false) => {}
                Err(s) => return Ok(s),
            }
            // the key stage at each local optimum before refinement: every float's key moves
            // (binade, ulp), every integer's scale moves where conditions test bits (`moves`
            // gives the other fields none)
            let mut improved = false;
            for i in 0..self.cx.domain.fields.len() {
                match self.variable(i, true)? {
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
            match self.pairs()? {
                Ok(true) => continue,
                Ok(false) => {}
                Err(s) => return Ok(s),
            }
            // restart
            restarts += 1;
            let y = match restarts % 3 {
                1 => self.cx.domain.sample_scale_free(&mut self.cx.rng),
                2 => self.cx.random_input(),
                _ => self.perturbed(),
            };
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
            let mut local = Local {
                cx,
                goal,
                x,
                fx,
                float_step: 1.0,
                patience,
                operands_tried: None,
            };
            let _ = local.run()?;
        }
        Ok(())
    }
}

/// Variable `i`'s value for a secant root `r`: `r` normalised into the field; for an integer
/// root outside the field's range, the same value modulo 2^32 inside it if there is one (the
/// wrapped-around root of an `int` field, [`super::secant::wrapped_root`]), else the nearest.
fn root_value(d: &crate::input::Domain, i: usize, r: f64) -> Value {
    let w = d.normalise(i, Value::Float(r));
    if d.fields[i].ty.is_float() || w.as_f64() == r.round() {
        return w;
    }
    let c = r.round();
    [c - 4_294_967_296.0, c + 4_294_967_296.0]
        .into_iter()
        .map(|c| (c, d.normalise(i, Value::Float(c))))
        .find(|(c, n)| n.as_f64() == *c)
        .map_or(w, |(_, n)| n)
}

/// Whether field `g` is an integer value (not a float, `_Bool`, length or other role): the
/// fields that lattice, snap and pair moves apply to.
fn integer_value(g: &Field) -> bool {
    !g.ty.is_float() && g.ty != ScalarType::Bool && g.role == Role::Value
}

/// `n` (of integer type `ty`) with its `k` lowest set bits cleared (`clear`), or `k` holes
/// filled, on its two's-complement pattern: `k` steps of `x & (x - 1)`, or of `x | (x + (x &
/// -x))` (the lowest clear bit above the lowest set bit; `x | (x + 1)`, the lowest clear bit,
/// once the ones reach the top). Each step changes the number of set bits by one and keeps the
/// high bits, and filling also closes the gaps between runs of ones, so pattern moves (k = 1,
/// 2, 4, …) bring any word to zero, a power of two, one run of ones or all ones in at most
/// log2(width) + 1 doublings, where additive steps change a count of bits erratically.
fn bits_moved(n: i128, ty: ScalarType, clear: bool, k: f64) -> i128 {
    let w = 8 * ty.size() as u32;
    let mask = if w >= 128 {
        u128::MAX
    } else {
        (1u128 << w) - 1
    };
    let mut u = (n as u128) & mask;
    for _ in 0..(k.clamp(1.0, w as f64) as u32) {
        u = if clear {
            u & u.wrapping_sub(1)
        } else {
            let hole = (u | u.wrapping_add(u & u.wrapping_neg())) & mask;
            if hole != u {
                hole
            } else {
                (u | u.wrapping_add(1)) & mask
            }
        };
    }
    if ty.is_signed() && w < 128 && u >> (w - 1) & 1 == 1 {
        u as i128 - (1i128 << w)
    } else {
        u as i128
    }
}

/// The float `by` steps down (`down`) or up from `f` on its ordered key (saturating at the ends of
/// the key space, which are NaNs; the domain's normalisation deals with them).
fn key_moved(f: f64, ty: ScalarType, by: u64, down: bool) -> f64 {
    if ty == ScalarType::F32 {
        let k = key32((f as f32).to_bits()) as u64;
        let k = if down {
            k.saturating_sub(by)
        } else {
            k.saturating_add(by).min(u32::MAX as u64)
        };
        f32::from_bits(unkey32(k as u32)) as f64
    } else {
        let k = key64(f.to_bits());
        let k = if down {
            k.saturating_sub(by)
        } else {
            k.saturating_add(by)
        };
        f64::from_bits(unkey64(k))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::search::testkit::*;
    use crate::search::{drive, SearchConfig};

    /// AVM's pattern moves reach a far-away equality: x == 1_000_000 from a random start in the
    /// whole i32 range takes a few hundred evaluations, not a million.
    #[test]
    fn pattern_moves_reach_a_distant_value_quickly() {
        let d = ints(&["x"], None);
        let r = run_per_goal(&d, eq_landscape(vec![1_000_000]), &mut Avm, 1, 100_000);
        assert_eq!(r.covered, r.goals, "{r:?}");
        assert!(r.executions < 2_000, "{r:?}");
    }

    /// Binade moves: from a double near ±1e300, `x == 0.0` (exactly) and `x in [2, 3]` take
    /// tens of evaluations, not thousands.
    #[test]
    fn binade_moves_bring_huge_doubles_down_quickly() {
        use crate::exec::mock::MockRun;
        use crate::input::{Domain, Field};
        let d = Domain::packed(vec![Field::full("x", ScalarType::F64)]);
        let sc = Scenario {
            sites: 2,
            outcomes: 4,
            goals: branch_goals(0, vec![])
                .into_iter()
                .chain(branch_goals(1, vec![]))
                .collect(),
            program: Box::new(|v: &[Value], r: &mut MockRun| {
                let x = v[0].as_f64();
                let zero = if x == 0.0 { [0.0, 1.0] } else { [x.abs(), 0.0] };
                r.branch(0, 0, &zero);
                let inside = if (2.0..=3.0).contains(&x) {
                    [0.0, 1.0]
                } else {
                    [if x < 2.0 { 2.0 - x } else { x - 3.0 }, 0.0]
                };
                r.branch(1, 2, &inside);
            }),
        };
        let mut avm = Avm;
        let r = run_with(&d, sc, SearchConfig::default(), 9, 100_000, |cx| {
            cx.evaluate(&d.from_values(&[Value::Float(-7.3e300)]))
                .unwrap();
            drive(cx, &mut avm).unwrap();
        });
        assert_eq!(r.covered, 4, "{r:?}");
        assert!(r.executions < 1_500, "{r:?}");
    }

    /// Lattice moves: `x % 100 == 0` inside `x % 4 == 0` (±1 breaks the outer condition).
    #[test]
    fn lattice_moves_keep_an_enclosing_remainder() {
        use crate::exec::mock::MockRun;
        let mut d = ints(&["x"], None);
        d.lattice = vec![4, 100];
        let sc = Scenario {
            sites: 2,
            outcomes: 4,
            goals: branch_goals(0, vec![])
                .into_iter()
                .chain(branch_goals(1, vec![vec![(0, 0)]]))
                .collect(),
            program: Box::new(|v: &[Value], r: &mut MockRun| {
                let x = v[0].as_i128();
                let m4 = x.rem_euclid(4);
                r.branch(0, 0, &eq(m4, 0));
                if m4 == 0 {
                    r.branch(1, 2, &eq(x.rem_euclid(100), 0));
                }
            }),
        };
        let r = run_with(&d, sc, SearchConfig::default(), 3, 20_000, |cx| {
            cx.evaluate(&d.from_values(&[Value::Int(1_234_568)]))
                .unwrap(); // ≡ 0 mod 4, 68 mod 100
            drive(cx, &mut Avm).unwrap();
        });
        assert_eq!(r.covered, 4, "{r:?}");
        assert!(r.executions < 500, "{r:?}");
    }

    /// Lattice snaps: a leap-year test `(y % 4 == 0 && y % 100 != 0) || y % 400 == 0` with y in
    /// 1..=9999, started at y = 1, where `y % 400 == 0` is at distance 1 and every step makes it
    /// worse (y = 0 is out of range, y ± 1 and y ± 4 raise the remainder or skip the compare, y ±
    /// 400 keeps it). Snapping y to the multiple of 400 above it covers the goal at the first local
    /// optimum, within a patience of 15 evaluations (a restart would need more: a random y first
    /// walks down to its remainder's zero).
    #[test]
    fn lattice_snaps_leave_a_remainder_optimum_at_a_range_edge() {
        use crate::exec::mock::MockRun;
        let mut d = ints(&["y"], Some((1, 9_999)));
        d.lattice = vec![4, 100, 400];
        let sc = Scenario {
            sites: 1,
            outcomes: 2,
            goals: branch_goals(0, vec![]),
            program: Box::new(|v: &[Value], r: &mut MockRun| {
                let y = v[0].as_i128();
                if !(y % 4 == 0 && y % 100 != 0) {
                    r.branch(0, 0, &eq(y % 400, 0));
                }
            }),
        };
        let c = SearchConfig {
            patience: 15,
            give_up_after: 1,
            stop_when_stalled: true,
            ..SearchConfig::default()
        };
        let r = run_with(&d, sc, c, 3, 100_000, |cx| {
            cx.evaluate(&d.from_values(&[Value::Int(1)])).unwrap();
            drive(cx, &mut Avm).unwrap();
        });
        assert_eq!(r.covered, 2, "{r:?}");
    }

    /// Operand moves: a validity checker's counter. `n` counts the leading characters that pass
    /// `c >= '0' && c <= '9'` in a loop; the goal is `n == 6`. Its distance |n − 6| is flat in
    /// every character until one becomes a digit (±1 and pattern moves see nothing), but the
    /// loop's compares show the character that stopped it, and setting it to '9' or '8' raises
    /// `n` by one. Without operand moves, AVM does not cover the goal in 20,000 executions.
    #[test]
    fn operand_moves_count_a_checkers_digits() {
        use crate::exec::mock::MockRun;
        use evotest_abi::pred::Pred;
        let d = ints(&["c0", "c1", "c2", "c3", "c4", "c5"], Some((32, 126)));
        let sc = Scenario {
            sites: 3,
            outcomes: 6,
            goals: branch_goals(2, vec![]),
            program: Box::new(|v: &[Value], r: &mut MockRun| {
                let mut n = 0;
                for c in v.iter().map(|c| c.as_i128()) {
                    r.compare(0, Pred::Sge, c as u64, b'0' as u64);
                    r.branch(
                        0,
                        0,
                        &if c >= 48 {
                            [0.0, 1.0]
                        } else {
                            [(48 - c) as f64, 0.0]
                        },
                    );
                    if c < 48 {
                        break;
                    }
                    r.compare(1, Pred::Sle, c as u64, b'9' as u64);
                    r.branch(
                        1,
                        2,
                        &if c <= 57 {
                            [0.0, 1.0]
                        } else {
                            [(c - 57) as f64, 0.0]
                        },
                    );
                    if c > 57 {
                        break;
                    }
                    n += 1;
                }
                r.branch(2, 4, &eq(n, 6));
            }),
        };
        let start =
            d.from_values(&[b'1', b'x', b'q', b'z', b'~', b'A'].map(|c| Value::Int(c as i128)));
        let r = run_with(&d, sc, SearchConfig::default(), 3, 20_000, |cx| {
            cx.evaluate(&start).unwrap();
            drive(cx, &mut Avm).unwrap();
        });
        assert_eq!(r.covered, 2, "{r:?}");
        assert!(r.executions < 2_000, "{r:?}");
    }

    /// Repairs: a goal under a check digit. `d4` must equal a weighted checksum of `d0..d3`
    /// modulo 10 (site 0, as in EAN-13) before `d0 + d1 == 1500` (site 1) is decided; every move
    /// of `d0` or `d1` breaks the check (a worse approach level), so AVM without repairs sees a
    /// local optimum at its start (it needed 2,289 executions, through restarts and pair moves);
    /// with them (62 executions), each step is followed by the check digit set to the checksum
    /// the compare saw.
    #[test]
    fn repairs_let_a_search_walk_a_variable_under_a_checksum() {
        use crate::exec::mock::MockRun;
        use evotest_abi::pred::Pred;
        let d = ints(&["d0", "d1", "d2", "d3", "d4"], Some((0, 999)));
        let sc = Scenario {
            sites: 2,
            outcomes: 4,
            goals: branch_goals(1, vec![vec![(0, 0)]]),
            program: Box::new(|v: &[Value], r: &mut MockRun| {
                let x: Vec<i128> = v.iter().map(|c| c.as_i128()).collect();
                let sum = x[0] + 3 * x[1] + x[2] + 3 * x[3];
                let check = (10 - sum % 10) % 10;
                r.compare(0, Pred::Eq, check as u64, x[4] as u64);
                r.branch(0, 0, &eq(check, x[4]));
                if check != x[4] {
                    return;
                }
                r.branch(1, 2, &eq(x[0] + x[1], 1500));
            }),
        };
        // 0, 0, 1, 2: sum 7, check digit 3
        let start = d.from_values(&[0, 0, 1, 2, 3].map(|c| Value::Int(c)));
        let r = run_with(&d, sc, SearchConfig::default(), 3, 20_000, |cx| {
            cx.evaluate(&start).unwrap();
            drive(cx, &mut Avm).unwrap();
        });
        assert_eq!(r.covered, 2, "{r:?}");
        assert!(r.executions < 500, "{r:?}");
    }

    /// A frozen search: the goal `a == 7` (site 1) lies under `a*a + b*b == 625` (site 0), and
    /// the start (0, 25) satisfies the guard. Every move of `a` breaks it, no field equals
    /// `a*a + b*b` to repair it; the flip a := 7 followed by a walk of `b` with `a` frozen reaches
    /// (7, 24) in 3 executions (without the frozen search: 434, through restarts).
    #[test]
    fn a_flip_that_breaks_a_guard_is_followed_by_a_search_of_the_other_variables() {
        use crate::exec::mock::MockRun;
        use evotest_abi::pred::Pred;
        let d = ints(&["a", "b"], Some((-1000, 1000)));
        let sc = Scenario {
            sites: 2,
            outcomes: 4,
            goals: branch_goals(1, vec![vec![(0, 0)]]),
            program: Box::new(|v: &[Value], r: &mut MockRun| {
                let (a, b) = (v[0].as_i128(), v[1].as_i128());
                let h = a * a + b * b;
                r.compare(0, Pred::Eq, h as u64, 625);
                r.branch(0, 0, &eq(h, 625));
                if h != 625 {
                    return;
                }
                r.compare(1, Pred::Eq, a as u64, 7);
                r.branch(1, 2, &eq(a, 7));
            }),
        };
        let start = d.from_values(&[0, 25].map(Value::Int));
        let r = run_with(&d, sc, SearchConfig::default(), 1, 3_000, |cx| {
            cx.evaluate(&start).unwrap();
            drive(cx, &mut Avm).unwrap();
        });
        assert_eq!(r.covered, 2, "{r:?}");
        assert!(r.executions < 100, "{r:?}");
    }

    /// Input-to-state flips are chained while they improve: `v0 == v1 && v2 == 5000 && v3 > v4`
    /// over ten ints in [-1000000, 1000000], one site per compare (short-circuit), goal the last
    /// one's true outcome. Each flip satisfies one compare and makes the next one critical, so
    /// three flips cover the goal (4 executions with the start); with one flip and then the
    /// exploratory moves (two executions per variable, all fruitless here) it took 17.
    #[test]
    fn improving_input_to_state_flips_are_chained_before_the_exploratory_moves() {
        use crate::exec::mock::MockRun;
        use evotest_abi::pred::Pred;
        let names: Vec<String> = (0..10).map(|i| format!("v{i}")).collect();
        let names: Vec<&str> = names.iter().map(|s| s.as_str()).collect();
        let d = ints(&names, Some((-1_000_000, 1_000_000)));
        let sc = Scenario {
            sites: 3,
            outcomes: 6,
            goals: branch_goals(2, vec![vec![(1, 2)], vec![(0, 0)]]),
            program: Box::new(|v: &[Value], r: &mut MockRun| {
                let x: Vec<i128> = v.iter().map(|v| v.as_i128()).collect();
                r.compare(0, Pred::Eq, x[0] as u64, x[1] as u64);
                r.branch(0, 0, &eq(x[0], x[1]));
                if x[0] != x[1] {
                    return;
                }
                r.compare(1, Pred::Eq, x[2] as u64, 5000);
                r.branch(1, 2, &eq(x[2], 5000));
                if x[2] != 5000 {
                    return;
                }
                r.compare(2, Pred::Sgt, x[3] as u64, x[4] as u64);
                r.branch(
                    2,
                    4,
                    &if x[3] > x[4] {
                        [0.0, (x[3] - x[4]) as f64]
                    } else {
                        [(x[4] - x[3] + 1) as f64, 0.0]
                    },
                );
            }),
        };
        let start =
            d.from_values(&[17, -400_000, 123_456, 3, 900_000, 5, 6, 7, 8, 9].map(Value::Int));
        let r = run_with(&d, sc, SearchConfig::default(), 1, 3_000, |cx| {
            cx.evaluate(&start).unwrap();
            drive(cx, &mut Avm).unwrap();
        });
        assert_eq!(r.covered, 2, "{r:?}");
        assert!(r.executions <= 6, "{r:?}");
    }

    /// Scale moves, for a program whose conditions test bits: `popcount(x) == 32` and `== 1`
    /// over a `u32` from 3e9, a flat landscape for additive moves (each flips a few low bits);
    /// halving reaches 1 and doubling the range's top, 0xffffffff, in a few pattern moves (from
    /// the uniform start, which makes no boundary probe: 12 executions against 46 when written).
    #[test]
    fn scale_moves_reach_all_ones_and_one_bit_where_conditions_test_bits() {
        use crate::exec::mock::MockRun;
        use crate::input::{Domain, Field};
        let run = |bit_ops: bool| {
            let d = Domain {
                bit_ops,
                init: crate::input::InitMode::Uniform,
                ..Domain::packed(vec![Field::full("x", ScalarType::U32)])
            };
            let sc = Scenario {
                sites: 2,
                outcomes: 4,
                goals: branch_goals(0, vec![])
                    .into_iter()
                    .chain(branch_goals(1, vec![]))
                    .collect(),
                program: Box::new(|v: &[Value], r: &mut MockRun| {
                    let ones = (v[0].as_i128() as u32).count_ones() as i128;
                    r.branch(0, 0, &eq(ones, 32));
                    r.branch(1, 2, &eq(ones, 1));
                }),
            };
            run_with(&d.clone(), sc, SearchConfig::default(), 3, 3_000, |cx| {
                cx.evaluate(&d.from_values(&[Value::Int(3_000_000_000)]))
                    .unwrap();
                drive(cx, &mut Avm).unwrap();
            })
        };
        let with = run(true);
        assert_eq!(with.covered, 4, "{with:?}");
        assert!(with.executions < 30, "{with:?}");
        let without = run(false);
        assert!(
            without.covered < 4 || without.executions > 2 * with.executions,
            "without scale moves: {without:?}, with: {with:?}"
        );
    }

    #[test]
    fn bit_moves_clear_and_fill_bits_one_at_a_time_in_the_types_pattern() {
        // clearing: the lowest set bits go, the high ones stay
        assert_eq!(
            bits_moved(0b1011_0110, ScalarType::U32, true, 1.0),
            0b1011_0100
        );
        assert_eq!(
            bits_moved(0b1011_0110, ScalarType::U32, true, 3.0),
            0b1010_0000
        );
        assert_eq!(bits_moved(0, ScalarType::U32, true, 4.0), 0);
        // filling: the lowest hole above the lowest set bit, so gaps between runs close
        assert_eq!(
            bits_moved(0x5B00_0000, ScalarType::U32, false, 1.0),
            0x5F00_0000
        );
        assert_eq!(
            bits_moved(0x5B00_0000, ScalarType::U32, false, 2.0),
            0x7F00_0000
        );
        // a run that reaches the top grows downwards: the lowest clear bit
        assert_eq!(
            bits_moved(0xFF00_0000, ScalarType::U32, false, 1.0),
            0xFF00_0001
        );
        assert_eq!(bits_moved(0, ScalarType::U32, false, 1.0), 1);
        assert_eq!(
            bits_moved(0xFFFF_FFF0, ScalarType::U32, false, 32.0),
            0xFFFF_FFFF
        );
        // signed types keep their two's-complement pattern: -2 (0x…fe) filled is -1
        assert_eq!(bits_moved(-2, ScalarType::I32, false, 1.0), -1);
        assert_eq!(bits_moved(i32::MIN as i128, ScalarType::I32, true, 1.0), 0);
        assert_eq!(bits_moved(0x7F, ScalarType::I8, false, 1.0), -1);
    }

    #[test]
    fn secant_roots_wrap_into_an_int_field_only_when_out_of_its_range() {
        use crate::input::{Domain, Field};
        let d = Domain::packed(vec![
            Field::full("i", ScalarType::I32),
            Field::full("l", ScalarType::I64),
        ]);
        // in range: the root itself, in either field
        assert_eq!(
            root_value(&d, 0, -1_431_322_434.4),
            Value::Int(-1_431_322_434)
        );
        assert_eq!(root_value(&d, 1, 333_331.0), Value::Int(333_331));
        // beyond an int: the same value modulo 2^32
        assert_eq!(
            root_value(&d, 0, 3_000_000_000.0),
            Value::Int(3_000_000_000 - (1 << 32))
        );
    }

    /// Two variables, a landscape with a valley per variable: (x == 12, y == -7) both covered.
    #[test]
    fn alternating_variables_cover_a_conjunction() {
        let d = ints(&["x", "y"], Some((-10_000, 10_000)));
        let r = run_per_goal(&d, conj_landscape(12, -7), &mut Avm, 3, 50_000);
        assert_eq!(r.covered, r.goals, "{r:?}");
    }
}
