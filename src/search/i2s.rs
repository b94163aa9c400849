//! Input-to-state moves at the level of fields (Aschermann et al. 2019, REDQUEEN; AFL++'s CmpLog):
//! when the compare that decides a goal's critical branch has an operand equal to an input field,
//! set the field to the *other* operand.
//!
//! This solves in one evaluation what a distance-guided search may never solve: `x == y` for two
//! inputs (the distance changes with both, but a uniform start puts them 1e300 apart), and
//! `x == g(y)` with a value computed from other inputs (a checksum, a hash, a product), where
//! moving `x` towards `g(y)` one step at a time can take longer than the budget. Every copy is
//! tried as the value and its two neighbours (for `<`, `<=`, `>`, `>=`).
//!
//! The operands come from the trace's operand log ([`crate::trace::Trace::operands`]), the first
//! evaluation of each compare site in the execution.

use crate::fitness::Goal;
use crate::input::{Domain, Input, Range, Value};
use crate::trace::{OperandRec, Trace, OPERANDS_FLOAT};
use evotest_abi::pred::{Pred, Rel};

/// Inputs that copy one operand of the goal's critical branch into a field of `x` equal to the
/// other operand (see module docs), in field order, without duplicates and without `x` itself.
/// Empty when the critical branch is not a compare that ran, or no field matches.
pub fn candidates(domain: &Domain, goal: &dyn Goal, x: &Input, trace: &Trace) -> Vec<Input> {
    let Some(site) = goal.critical_branch(trace) else { return vec![] };
    let Some(rec) = trace.operands(site) else { return vec![] };
    copies(domain, x, rec)
}

/// The *flips* of the goal's critical branch: for each field equal to one operand of its compare
/// (of the same kind: an integer field of an integer compare, a float field of a float compare),
/// the input with that field set to the value nearest the other operand that turns the compare's
/// outcome around (`x < c` true: `x := c`; false: `x := c − 1`; `x == c` false: `x := c`). A float
/// field is moved past the other operand by `margin(field index)` (the search's additive step; at
/// least one ulp in the field's precision), so that `x < c` false becomes `x := c − margin`, not
/// a value one ulp below `c` that the next exploratory move undoes. One input per matching field
/// and side, in field order, so they are
/// cheap enough to try at the start of every local search, before any move (as CmpLog tries its
/// replacements before havoc). Empty when the critical branch is not a compare that ran.
pub fn flips(domain: &Domain, goal: &dyn Goal, x: &Input, trace: &Trace, margin: &dyn Fn(usize) -> f64) -> Vec<Input> {
    let Some(site) = goal.critical_branch(trace) else { return vec![] };
    let Some(rec) = trace.operands(site) else { return vec![] };
    flips_of(domain, x, rec, margin)
}

/// The inputs of [`flips`] for one operand record.
pub fn flips_of(domain: &Domain, x: &Input, rec: &OperandRec, margin: &dyn Fn(usize) -> f64) -> Vec<Input> {
    let float = rec.kind & OPERANDS_FLOAT != 0;
    let Some(rel) = Pred::from_u32(rec.kind & !OPERANDS_FLOAT).and_then(Pred::rel) else { return vec![] };
    // `this rel other` with this on the right-hand side is `other rel' this`
    let mirror = |r: Rel| match r {
        Rel::Lt => Rel::Gt,
        Rel::Le => Rel::Ge,
        Rel::Gt => Rel::Lt,
        Rel::Ge => Rel::Le,
        r => r,
    };
    let mut out: Vec<Input> = Vec::new();
    for i in 0..domain.fields.len() {
        let old = domain.get(x, i);
        let mut targets: Vec<Value> = Vec::new();
        match (old, float) {
            (Value::Int(v), false) => {
                for (this, other, r) in [(rec.a, rec.b, rel), (rec.b, rec.a, mirror(rel))] {
                    if !int_matches(v, this) {
                        continue;
                    }
                    let o = if domain.fields[i].ty.is_signed() { other as i64 as i128 } else { other as i128 };
                    let holds = holds(r, v.cmp(&o));
                    let t = match (r, holds) {
                        (Rel::Eq, false) | (Rel::Ne, true) => o,
                        (Rel::Eq, true) | (Rel::Ne, false) => o.saturating_add(1),
                        (Rel::Lt, true) | (Rel::Ge, false) | (Rel::Gt, true) | (Rel::Le, false) => o,
                        (Rel::Lt, false) | (Rel::Ge, true) => o.saturating_sub(1),
                        (Rel::Le, true) | (Rel::Gt, false) => o.saturating_add(1),
                    };
                    targets.push(Value::Int(t));
                }
            }
            (Value::Float(v), true) => {
                let (a, b) = (f64::from_bits(rec.a), f64::from_bits(rec.b));
                // neighbours in the field's own precision
                let single = domain.fields[i].ty == crate::input::ScalarType::F32;
                // an ordering is turned with a margin of one additive step, so that the search's
                // next exploratory move does not turn it back; never less than one ulp
                let m = margin(i);
                let up = |f: f64| {
                    let u = if single { (f as f32).next_up() as f64 } else { f.next_up() };
                    if f + m > u { f + m } else { u }
                };
                let down = |f: f64| {
                    let u = if single { (f as f32).next_down() as f64 } else { f.next_down() };
                    if f - m < u { f - m } else { u }
                };
                for (this, other, r) in [(a, b, rel), (b, a, mirror(rel))] {
                    if v != this || other.is_nan() {
                        continue;
                    }
                    let Some(ord) = v.partial_cmp(&other) else { continue };
                    let t = match (r, holds(r, ord)) {
                        (Rel::Eq, false) | (Rel::Ne, true) => other,
                        (Rel::Eq, true) | (Rel::Ne, false) => up(other),
                        (Rel::Lt, true) | (Rel::Ge, false) | (Rel::Gt, true) | (Rel::Le, false) => other,
                        (Rel::Lt, false) | (Rel::Ge, true) => down(other),
                        (Rel::Le, true) | (Rel::Gt, false) => up(other),
                    };
                    targets.push(Value::Float(t));
                }
            }
            _ => {}
        }
        for t in targets {
            let mut y = x.clone();
            domain.set(&mut y, i, t);
            if y != *x && !out.contains(&y) {
                out.push(y);
            }
        }
    }
    out
}

/// Whether `rel` holds for operands ordered `ord` (left against right).
fn holds(rel: Rel, ord: std::cmp::Ordering) -> bool {
    use std::cmp::Ordering::*;
    match rel {
        Rel::Eq => ord == Equal,
        Rel::Ne => ord != Equal,
        Rel::Lt => ord == Less,
        Rel::Le => ord != Greater,
        Rel::Gt => ord == Greater,
        Rel::Ge => ord != Less,
    }
}

/// The inputs of [`candidates`] for one operand record.
pub fn copies(domain: &Domain, x: &Input, rec: &OperandRec) -> Vec<Input> {
    let mut out: Vec<Input> = Vec::new();
    let float = rec.kind & OPERANDS_FLOAT != 0;
    for i in 0..domain.fields.len() {
        let old = domain.get(x, i);
        let targets: Vec<Value> = match (old, float) {
            (Value::Int(v), false) => {
                let mut t = Vec::new();
                for (this, other) in [(rec.a, rec.b), (rec.b, rec.a)] {
                    if int_matches(v, this) {
                        let o = if domain.fields[i].ty.is_signed() { other as i64 as i128 } else { other as i128 };
                        t.extend([o, o.saturating_add(1), o.saturating_sub(1)].map(Value::Int));
                    }
                }
                t
            }
            (Value::Float(v), true) => {
                let (a, b) = (f64::from_bits(rec.a), f64::from_bits(rec.b));
                let mut t = Vec::new();
                for (this, other) in [(a, b), (b, a)] {
                    if v == this || (v.is_nan() && this.is_nan()) {
                        t.extend([other, other.next_up(), other.next_down()].map(Value::Float));
                    }
                }
                t
            }
            // a float compared with a converted integer, or the reverse
            (Value::Int(v), true) => {
                let (a, b) = (f64::from_bits(rec.a), f64::from_bits(rec.b));
                let mut t = Vec::new();
                for (this, other) in [(a, b), (b, a)] {
                    if v as f64 == this && other.is_finite() {
                        t.extend([other.round(), other.floor(), other.ceil(), other.round() + 1.0, other.round() - 1.0].map(|f| Value::Int(f as i128)));
                    }
                }
                t
            }
            (Value::Float(v), false) => {
                let mut t = Vec::new();
                for (this, other) in [(rec.a, rec.b), (rec.b, rec.a)] {
                    if v.fract() == 0.0 && int_matches(v as i128, this) {
                        let o = other as i64 as f64;
                        t.extend([o, o + 1.0, o - 1.0].map(Value::Float));
                    }
                }
                t
            }
        };
        for t in targets {
            if let (Value::Float(f), Range::Float { .. }) = (t, domain.fields[i].range) {
                if f.is_nan() && old.as_f64().is_nan() {
                    continue;
                }
            }
            let mut y = x.clone();
            domain.set(&mut y, i, t);
            if y != *x && !out.contains(&y) {
                out.push(y);
            }
        }
    }
    out
}

/// Whether field value `v` is what a compare saw as the 64-bit operand `op` (sign- or
/// zero-extended from the field's width by the pass).
fn int_matches(v: i128, op: u64) -> bool {
    v == op as i64 as i128 || v == op as i128
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::input::{Field, ScalarType};

    fn rec(a: u64, b: u64, float: bool) -> OperandRec {
        OperandRec { site: 0, kind: if float { OPERANDS_FLOAT } else { 0 }, a, b }
    }

    #[test]
    fn an_int_field_equal_to_one_operand_takes_the_other() {
        let d = Domain::packed(vec![Field::full("x", ScalarType::I32), Field::full("y", ScalarType::I32)]);
        let x = d.from_values(&[Value::Int(-5), Value::Int(9)]);
        // x == 3 * y + 1 compared as (-5, 28)
        let c = copies(&d, &x, &rec(-5i64 as u64, 28, false));
        let xs: Vec<i128> = c.iter().map(|y| match d.get(y, 0) { Value::Int(v) => v, _ => 0 }).collect();
        assert_eq!(xs, vec![28, 29, 27]);
        assert!(c.iter().all(|y| d.get(y, 1) == Value::Int(9)));
    }

    #[test]
    fn a_double_equal_to_one_operand_takes_the_other_and_its_neighbours() {
        let d = Domain::packed(vec![Field::full("x", ScalarType::F64), Field::full("y", ScalarType::F64)]);
        let x = d.from_values(&[Value::Float(1e300), Value::Float(-3.5)]);
        // x == y
        let c = copies(&d, &x, &rec(1e300f64.to_bits(), (-3.5f64).to_bits(), true));
        // x := y (and neighbours), y := x (and neighbours)
        assert!(c.iter().any(|y| d.get(y, 0) == Value::Float(-3.5)));
        assert!(c.iter().any(|y| d.get(y, 1) == Value::Float(1e300)));
        assert_eq!(c.len(), 6);
    }

    fn pred_rec(p: Pred, a: u64, b: u64) -> OperandRec {
        OperandRec { site: 0, kind: p as u32 | if p.is_int() { 0 } else { OPERANDS_FLOAT }, a, b }
    }

    /// Flips turn the compare's outcome around with the value nearest the other operand, for the
    /// field on either side of the compare.
    #[test]
    fn flips_turn_the_outcome_around_nearest_the_other_operand() {
        let d = Domain::packed(vec![Field::full("x", ScalarType::I32), Field::full("y", ScalarType::I32)]);
        let x = d.from_values(&[Value::Int(15), Value::Int(-3)]);
        let first = |c: Vec<Input>| c.iter().map(|y| d.values(y)).collect::<Vec<_>>();
        // x < 10 false: x := 9
        assert_eq!(first(flips_of(&d, &x, &pred_rec(Pred::Slt, 15, 10), &|_| 0.0)), vec![vec![Value::Int(9), Value::Int(-3)]]);
        // x <= 20 true: x := 21
        assert_eq!(first(flips_of(&d, &x, &pred_rec(Pred::Sle, 15, 20), &|_| 0.0)), vec![vec![Value::Int(21), Value::Int(-3)]]);
        // 1 == x false (x on the right): x := 1
        assert_eq!(first(flips_of(&d, &x, &pred_rec(Pred::Eq, 1, 15), &|_| 0.0)), vec![vec![Value::Int(1), Value::Int(-3)]]);
        // 0 > y true (y on the right, i.e. y < 0): y := 0
        assert_eq!(first(flips_of(&d, &x, &pred_rec(Pred::Sgt, 0, -3i64 as u64), &|_| 0.0)), vec![vec![Value::Int(15), Value::Int(0)]]);
        // x > y true: x := y (false), or y := x (false)
        let c = first(flips_of(&d, &x, &pred_rec(Pred::Sgt, 15, -3i64 as u64), &|_| 0.0));
        assert_eq!(c, vec![vec![Value::Int(-3), Value::Int(-3)], vec![Value::Int(15), Value::Int(15)]]);
        // no field holds an operand
        assert!(flips_of(&d, &x, &pred_rec(Pred::Eq, 4, 5), &|_| 0.0).is_empty());
    }

    /// Float flips step past the other operand by the margin, at least to the neighbour in the
    /// field's own precision.
    #[test]
    fn float_flips_use_the_fields_precision() {
        let d = Domain::packed(vec![Field::full("f", ScalarType::F32)]);
        let x = d.from_values(&[Value::Float(1.0)]);
        // f > 2.5 false: f := the float just above 2.5
        let c = flips_of(&d, &x, &pred_rec(Pred::Ogt, 1.0f64.to_bits(), 2.5f64.to_bits()), &|_| 0.0);
        assert_eq!(c.len(), 1);
        assert_eq!(d.get(&c[0], 0), Value::Float(2.5f32.next_up() as f64));
        // f == 2.5 false: f := 2.5
        let c = flips_of(&d, &x, &pred_rec(Pred::Oeq, 1.0f64.to_bits(), 2.5f64.to_bits()), &|_| 0.0);
        assert_eq!(d.get(&c[0], 0), Value::Float(2.5));
        // a margin of one step: f > 2.5 false: f := 3.5; f < 2.5 true: f := 2.5 (exactly)
        let c = flips_of(&d, &x, &pred_rec(Pred::Ogt, 1.0f64.to_bits(), 2.5f64.to_bits()), &|_| 1.0);
        assert_eq!(d.get(&c[0], 0), Value::Float(3.5));
        let c = flips_of(&d, &x, &pred_rec(Pred::Olt, 1.0f64.to_bits(), 2.5f64.to_bits()), &|_| 1.0);
        assert_eq!(d.get(&c[0], 0), Value::Float(2.5));
        // a margin below one ulp of a large value: the next float
        let big = 1e9f64;
        let c = flips_of(&d, &x, &pred_rec(Pred::Ogt, 1.0f64.to_bits(), big.to_bits()), &|_| 1e-3);
        assert_eq!(d.get(&c[0], 0), Value::Float((big as f32).next_up() as f64));
    }

    #[test]
    fn no_field_matches_no_candidates() {
        let d = Domain::packed(vec![Field::full("x", ScalarType::I32)]);
        let x = d.from_values(&[Value::Int(4)]);
        assert!(copies(&d, &x, &rec(5, 6, false)).is_empty());
    }
}
