//! Havoc: mutation of archive inputs as a fuzzer would do it (AFL's "havoc" stage, libFuzzer's
//! mutators), aimed at one goal. Each evaluation takes a parent (the goal's best input, or an input
//! of the archive, or a fresh random one) and stacks 1–8 random mutations on it, at the level of
//! fields and of bytes:
//!
//! * a field set to a fresh random value, a small integer (−128..=255), an interesting value (0,
//!   ±1, the type's extremes, and for floats ±0, ±inf, NaN, the smallest normal), a program
//!   constant, the value of another field of the same type (the function-level form of
//!   input-to-state: `x1 == x2`), or moved by a small amount or negated;
//! * a bit flipped, a byte set to a random or interesting value, or a byte incremented;
//! * for a string, three times in ten: a character inserted or deleted, a string of the
//!   program's pool inserted, or a part of the string copied (the edits that change its length
//!   and shift what follows);
//! * for an element of an array, three times in ten: a run of elements from it set to its value,
//!   or the array sorted.
//!
//! The child replaces the parent of the next step when it is at least as good for the goal (a
//! (1+1) walk across plateaus). An attempt ends when the goal is covered, after `patience`
//! evaluations without improving the best fitness of the attempt, or when the budget is spent.
//! Interesting values are used whatever the initialisation mode: they are what a byte fuzzer would
//! try, and what uniform sampling of a range never gives (a NaN, an exact 0.0).

use super::{Algorithm, AlgorithmSpec, GoalSearch, Patience, SearchContext};
use crate::input::{Input, Range, Role, ScalarType, Value};
use anyhow::Result;
use rand::Rng;

pub const SPEC: AlgorithmSpec = AlgorithmSpec {
    name: "havoc",
    about: "havoc mutation of archive inputs (fields and bytes: random, small, interesting and program values, copies, bit flips)",
    build: |_| Algorithm::PerGoal(Box::new(Havoc)),
};

/// Most mutations stacked on one child.
const MAX_STACK: u32 = 8;

pub struct Havoc;

/// A parent for the next child: the goal's best input half of the time, else a random input of the
/// archive, else (when the archive is empty) a random input.
fn parent(cx: &mut SearchContext, goal: usize, current: &Input) -> Input {
    let r: f64 = cx.rng.random();
    if r < 0.5 {
        return current.clone();
    }
    let n = cx.archive().tests.len();
    if r < 0.9 && n > 0 {
        let i = cx.rng.random_range(0..n);
        return cx.archive().tests[i].input.clone();
    }
    if let Some((_, x)) = cx.best(goal) {
        if r < 0.95 {
            return x.clone();
        }
    }
    cx.random_input()
}

/// One interesting value for field `i` (see module docs).
fn interesting(cx: &mut SearchContext, i: usize) -> Value {
    let g = &cx.domain.fields[i];
    match g.range {
        Range::Int { lo, hi } => {
            let cands = [
                0,
                1,
                -1,
                lo,
                hi,
                lo.saturating_add(1),
                hi.saturating_sub(1),
                127,
                128,
                255,
                256,
                32767,
                65535,
            ];
            Value::Int(cands[cx.rng.random_range(0..cands.len())])
        }
        Range::Float { lo, hi } => {
            let min_pos = if g.ty == ScalarType::F32 {
                f32::MIN_POSITIVE as f64
            } else {
                f64::MIN_POSITIVE
            };
            let cands = [
                0.0,
                -0.0,
                1.0,
                -1.0,
                lo,
                hi,
                min_pos,
                f64::INFINITY,
                f64::NEG_INFINITY,
                f64::NAN,
            ];
            Value::Float(cands[cx.rng.random_range(0..cands.len())])
        }
    }
}

/// The string field `i` belongs to, if any: (its length field, its first character field, its
/// number of character fields, i.e. its maximum length).
fn string_of(d: &crate::input::Domain, i: usize) -> Option<(usize, usize, usize)> {
    d.string_at(i).map(|(l, n)| (l, l + 1, n))
}

/// Longest part of a string that one edit copies ([`edit_string`]).
const MAX_COPIED_PART: usize = 8;

/// A structural edit of the string whose length field is `l` (characters from field `first`, at
/// most `max`), as a byte fuzzer edits its input: insert a character (a random one of the
/// alphabet, or a copy of one of the string's), delete one, insert a string of the program's
/// pool, or insert a copy of a part of the string (up to [`MAX_COPIED_PART`] characters, half of
/// the time right after the part, a repeat; libFuzzer's CopyPart). A character-wise search
/// cannot turn `7.0.3.0` into `127.0.3.0` (each digit it changes in place keeps the length);
/// this can. Copies of parts are what inputs of repeated structure need: the events of a state
/// machine that must go round a cycle three times (`bobx`, then `obx` twice).
fn edit_string(cx: &mut SearchContext, x: &mut Input, (l, first, max): (usize, usize, usize)) {
    let d = cx.domain;
    let len = (d.get(x, l).as_i128().max(0) as usize).min(max);
    let mut chars: Vec<Value> = (0..len).map(|k| d.get(x, first + k)).collect();
    let at = cx.rng.random_range(0..=len);
    match cx.rng.random_range(0..4u32) {
        0 if len > 0 => {
            chars.remove(at.min(len - 1));
        }
        1 if !d.str_pool.is_empty() => {
            let s = &d.str_pool[cx.rng.random_range(0..d.str_pool.len())];
            for (k, &c) in s.iter().enumerate() {
                chars.insert(at + k, Value::Int(c as i128));
            }
        }
        3 if len > 1 => {
            // a copy of a part of the string, half of the time right after itself (a repeat)
            let start = cx.rng.random_range(0..len);
            let n = cx.rng.random_range(1..=(len - start).min(MAX_COPIED_PART));
            let part: Vec<Value> = chars[start..start + n].to_vec();
            let to = if cx.rng.random_bool(0.5) {
                start + n
            } else {
                at
            };
            for (k, c) in part.into_iter().enumerate() {
                chars.insert(to + k, c);
            }
        }
        _ => {
            let c = if len > 0 && cx.rng.random_bool(0.5) {
                chars[cx.rng.random_range(0..len)]
            } else {
                d.uniform_value(first + at.min(max - 1), &mut cx.rng)
            };
            chars.insert(at, c);
        }
    }
    chars.truncate(max);
    d.set(x, l, Value::Int(chars.len() as i128));
    for (k, c) in chars.into_iter().enumerate() {
        d.set(x, first + k, c);
    }
}

/// The array field `i` is an element of ([`crate::input::Domain::array_runs`]): (its first
/// element field, its number of elements), for arrays of two or more.
fn array_of(d: &crate::input::Domain, i: usize) -> Option<(usize, usize)> {
    d.array_run_at(i).filter(|&(_, n)| n >= 2)
}

/// A structural edit of the array whose elements are fields `first..first + n`, around its
/// element `i`, as a byte fuzzer's block operations act on repeated bytes: a run of elements
/// from `i` set to element `i`'s value (AFL's block fill), or the whole array sorted ascending.
/// Moves on one element at a time cannot keep a sortedness guard while they change a value, nor
/// make eight elements equal (a binary search's duplicates, a run of equal readings).
fn edit_array(cx: &mut SearchContext, x: &mut Input, (first, n): (usize, usize), i: usize) {
    let d = cx.domain;
    let mut values: Vec<Value> = (first..first + n).map(|k| d.get(x, k)).collect();
    let at = i - first;
    if cx.rng.random_bool(0.5) {
        let len = cx.rng.random_range(1..=n - at);
        let v = values[at];
        values[at..at + len].fill(v);
    } else {
        crate::input::sort_values(&mut values);
    }
    for (k, v) in values.into_iter().enumerate() {
        d.set(x, first + k, v);
    }
}

/// Apply one random mutation to `x`.
fn mutate_once(cx: &mut SearchContext, x: &mut Input) {
    let d = cx.domain;
    let n = d.fields.len();
    if n == 0 {
        return;
    }
    let i = cx.rng.random_range(0..n);
    if let Some(string) = string_of(d, i).filter(|_| cx.rng.random_bool(0.3)) {
        edit_string(cx, x, string);
        return;
    }
    if let Some(array) = array_of(d, i).filter(|_| cx.rng.random_bool(0.3)) {
        edit_array(cx, x, array, i);
        return;
    }
    let g = &d.fields[i];
    let old = d.get(x, i);
    let kind = cx.rng.random_range(0..10u32);
    let v = match kind {
        0 => d.uniform_value(i, &mut cx.rng),
        1 => match g.range {
            Range::Int { .. } => Value::Int(cx.rng.random_range(-128..=255)),
            Range::Float { .. } => Value::Float(cx.rng.random_range(-128.0..=255.0f64).round()),
        },
        2 => interesting(cx, i),
        3 => d
            .constant_value(i, &mut cx.rng)
            .unwrap_or_else(|| interesting(cx, i)),
        4 => {
            // another field of the same type: input-to-state between inputs
            let same_ty: Vec<usize> = (0..n)
                .filter(|&j| j != i && d.fields[j].ty == g.ty)
                .collect();
            match same_ty.is_empty() {
                true => interesting(cx, i),
                false => d.get(x, same_ty[cx.rng.random_range(0..same_ty.len())]),
            }
        }
        5 => match old {
            Value::Int(v) => Value::Int(v.saturating_add(cx.rng.random_range(-35..=35))),
            Value::Float(f) => Value::Float(f + cx.rng.random_range(-35.0..=35.0)),
        },
        6 => match old {
            Value::Int(v) => Value::Int(v.saturating_neg()),
            Value::Float(f) => Value::Float(-f),
        },
        _ => {
            // byte level, within the field
            let r = g.bytes();
            let b = r.start + cx.rng.random_range(0..r.len());
            let mut y = x.clone();
            if y.bytes.len() < r.end {
                y.bytes.resize(r.end, 0);
            }
            match kind {
                7 => y.bytes[b] ^= 1 << cx.rng.random_range(0..8),
                8 => y.bytes[b] = [0u8, 1, 0x7f, 0x80, 0xff][cx.rng.random_range(0..5)],
                _ => y.bytes[b] = y.bytes[b].wrapping_add(1),
            }
            g.read(&y.bytes)
        }
    };
    // characters stay in their alphabet, lengths in range: normalise does both
    if matches!(g.role, Role::Char { .. } | Role::Length) && kind == 4 {
        return;
    }
    d.set(x, i, v);
}

/// A child of `parent`: 1, 2, 4 or 8 stacked mutations (see module docs).
pub fn mutant(cx: &mut SearchContext, parent: &Input) -> Input {
    let mut child = parent.clone();
    let stack = 1u32 << cx.rng.random_range(0..4u32);
    for _ in 0..stack.min(MAX_STACK) {
        mutate_once(cx, &mut child);
    }
    child
}

/// A random input of the archive, or a random input when the archive is empty.
pub fn archive_input(cx: &mut SearchContext) -> Input {
    let n = cx.archive().tests.len();
    if n == 0 {
        return cx.random_input();
    }
    let i = cx.rng.random_range(0..n);
    cx.archive().tests[i].input.clone()
}

impl GoalSearch for Havoc {
    fn attempt(&mut self, cx: &mut SearchContext, goal: usize) -> Result<()> {
        if cx.out_of_budget() || cx.domain.fields.is_empty() {
            return Ok(());
        }
        let mut current = match cx.best(goal) {
            Some((_, x)) => x.clone(),
            None => cx.random_input(),
        };
        let mut fc = f64::INFINITY;
        let mut patience = Patience::new(cx.config.patience, f64::INFINITY);
        while !cx.is_covered(goal) && !cx.finished() {
            let p = parent(cx, goal, &current);
            let child = mutant(cx, &p);
            let ev = cx.evaluate(&child)?;
            let f = cx.fitness(goal, &ev);
            if f <= fc {
                (current, fc) = (ev.input, f);
            }
            if patience.exhausted(f) {
                break;
            }
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::exec::mock::MockRun;
    use crate::input::{Domain, Field};
    use crate::search::testkit::*;
    use crate::search::{drive, SearchConfig};

    /// A NaN check and an exact equality of two doubles: values uniform sampling never gives.
    #[test]
    fn havoc_finds_nan_and_equal_doubles() {
        let d = Domain {
            init: crate::input::InitMode::Uniform,
            ..Domain::packed(vec![
                Field::full("x", ScalarType::F64),
                Field::full("y", ScalarType::F64),
            ])
        };
        let sc = Scenario {
            sites: 2,
            outcomes: 4,
            goals: branch_goals(0, vec![])
                .into_iter()
                .chain(branch_goals(1, vec![]))
                .collect(),
            program: Box::new(|v: &[Value], r: &mut MockRun| {
                let (x, y) = (v[0].as_f64(), v[1].as_f64());
                r.branch(0, 0, if x.is_nan() { &[0.0, 1.0] } else { &[1.0, 0.0] });
                r.branch(1, 2, if x == y { &[0.0, 1.0] } else { &[1.0, 0.0] });
            }),
        };
        let r = run_with(&d, sc, SearchConfig::default(), 2, 20_000, |cx| {
            drive(cx, &mut Havoc).unwrap()
        });
        assert_eq!(r.covered, 4, "{r:?}");
    }
}
