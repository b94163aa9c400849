//! Secant moves: Newton's method on the operands of a goal's critical branch, with the
//! derivative taken numerically from two executions (the gradient descent of Angora, Chen &
//! Chen 2018, which treats a branch predicate `a ⋈ b` as the function `a − b` of the input and
//! descends it with finite differences; here in one variable at a time, as AVM moves).
//!
//! A compare whose operand is a smooth function of an input variable (`num / den == 1.0`,
//! `3 * x + 7 > 1000000`, `fabs(q) > FLT_MAX` with `q = num / den`) is solved for that variable
//! in one step from two points: the current input and the same input with the variable moved by
//! one step, whose operands the trace's operand log holds. The root of the line through them is
//! where the operands meet. Pattern moves reach it too, but they need a doubling per binary digit
//! of the distance and a refinement per decimal digit of a float's precision; and where the
//! branch distance is flat (`FLT_MAX − q` rounds to `FLT_MAX` in a double for every `q` below
//! about 1e22, so no move of `q` changes it), they do not move at all. The operands still change
//! there, so the secant still sees the slope.
//!
//! The differences of like operands are taken before the operands are subtracted from each other
//! (`(a₁ − a₀) − (b₁ − b₀)`), so a small operand's change is not lost next to a large constant.
//!
//! Three roots: [`root`] on the values; [`key_root`] on the floats' ordered keys, for what is
//! linear in the logarithms (a quotient, a product); [`wrapped_root`], a linear congruence
//! modulo 2^32 for an integer equality whose operand wrapped around. The AVM
//! (`super::avm`) tries them in that order at a local optimum, and [`root`] after every
//! exploratory move that improves; this module only computes them, from operand records.

use evotest_abi::shm::{OperandRec, OPERANDS_FLOAT, OPERANDS_POINTER};

/// The numeric values of a compare's operands `(a, b)`: floats from their bit patterns, integers
/// read as the predicate reads them (signed or unsigned). `None` for pointers, a predicate that
/// is not a relation (`fcmp ord`, `uno`, `true`, `false`), or a NaN.
pub fn operand_values(rec: &OperandRec) -> Option<(f64, f64)> {
    if rec.kind & OPERANDS_POINTER != 0 {
        return None;
    }
    let pred = rec.pred()?;
    pred.rel()?;
    let (a, b) = if rec.kind & OPERANDS_FLOAT != 0 {
        (f64::from_bits(rec.a), f64::from_bits(rec.b))
    } else if pred.int_operands_signed() {
        (rec.a as i64 as f64, rec.b as i64 as f64)
    } else {
        (rec.a as f64, rec.b as f64)
    };
    (!a.is_nan() && !b.is_nan()).then_some((a, b))
}

/// [`root`] on the floats' ordered keys: the variable and both operands read as their keys
/// (a float's bit pattern ordered as the floats are, about a linear function of its logarithm;
/// an integer operand's sign-flipped value), the root taken there and turned back into a
/// float. It solves in one step what is linear in the logarithms, as products and quotients
/// are (`num / den` against `FLT_MAX`, with `den` far from the root), where the value secant
/// overshoots. For a float variable only; `None` as for [`root`].
pub fn key_root(r0: &OperandRec, v0: f64, r1: &OperandRec, v1: f64) -> Option<f64> {
    use crate::input::mapped::{key64, unkey64};
    if r0.site != r1.site || r0.kind != r1.kind {
        return None;
    }
    // a float's ordered key as a signed integer, centred on +0.0
    let key = |v: f64| (key64(v.to_bits()) ^ (1 << 63)) as i64 as f64;
    let keyed = |r: &OperandRec| operand_values(r).map(|(a, b)| (key(a), key(b)));
    let r = secant(key(v0), keyed(r0)?, key(v1), keyed(r1)?)?;
    let r = r.clamp(i64::MIN as f64, i64::MAX as f64).round() as i64;
    Some(f64::from_bits(unkey64(r as u64 ^ (1 << 63))))
}

/// The value of a variable at which the operands of one compare would meet, by the secant
/// through two executions: variable value `v0` with operand record `r0`, and `v1` with `r1`
/// (the same compare site, first evaluation in each execution). `None` when the records are of
/// different compares or predicates, when neither operand moved with the variable, or when the
/// root is not a finite number.
pub fn root(r0: &OperandRec, v0: f64, r1: &OperandRec, v1: f64) -> Option<f64> {
    if r0.site != r1.site || r0.kind != r1.kind {
        return None;
    }
    secant(v0, operand_values(r0)?, v1, operand_values(r1)?)
}

/// The secant's root for operand pairs `(a0, b0)` at variable value `v0` and `(a1, b1)` at `v1`:
/// where `a − b` would be 0 if it were linear in the variable. `None` when it does not move or a
/// value is not finite.
fn secant(v0: f64, (a0, b0): (f64, f64), v1: f64, (a1, b1): (f64, f64)) -> Option<f64> {
    let dv = v1 - v0;
    // like operands first: a small operand's change survives next to a large constant
    let dg = (a1 - a0) - (b1 - b0);
    let gap = a1 - b1;
    if dv == 0.0 || dg == 0.0 || !dv.is_finite() || !dg.is_finite() || !gap.is_finite() {
        return None;
    }
    let r = v1 - gap * (dv / dg);
    r.is_finite().then_some(r)
}

/// The root of an integer equality whose operands wrapped around in 32 bits, by a linear
/// congruence: from two executions one unit apart in the variable (`|v1 − v0| = 1`), the
/// difference of the operands is affine modulo 2^32 in the variable, `g(v1 + t) ≡ g1 + s·t`,
/// and `s·t ≡ −g1 (mod 2^32)` is solved exactly (`t = (−g1 / 2^z) · (s / 2^z)⁻¹` modulo
/// 2^(32 − z), with 2^z the largest power of two dividing `s`, when it also divides `g1`). The
/// solution nearest `v1` is returned (others lie 2^(32 − z) apart). `3 * k + 7 == 1000000` in
/// `int` from `k = −1206856484`, where `3k` wrapped: the secant on the values meets the
/// relation's nearest point on that wrapped piece (distance 1), and this gives k = 333331. For
/// `==` only, when all four operands fit in 32 bits (the pass widens them to 64; wider
/// operands are not solved); `None` otherwise, or when the congruence has no solution.
pub fn wrapped_root(r0: &OperandRec, v0: f64, r1: &OperandRec, v1: f64) -> Option<f64> {
    if r0.site != r1.site
        || r0.kind != r1.kind
        || r0.kind & (OPERANDS_FLOAT | OPERANDS_POINTER) != 0
    {
        return None;
    }
    if r0.pred()?.rel()? != evotest_abi::pred::Rel::Eq {
        return None;
    }
    let fits = |v: u64| v <= u32::MAX as u64 || (i32::MIN as i64..0).contains(&(v as i64));
    if ![r0.a, r0.b, r1.a, r1.b].into_iter().all(fits) {
        return None;
    }
    let g = |r: &OperandRec| (r.a as u32).wrapping_sub(r.b as u32);
    let (g0, g1) = (g(r0), g(r1));
    let s = match v1 - v0 {
        1.0 => g1.wrapping_sub(g0),
        -1.0 => g0.wrapping_sub(g1),
        _ => return None,
    };
    if s == 0 || g1 == 0 {
        return None;
    }
    let z = s.trailing_zeros();
    let need = g1.wrapping_neg();
    if need.trailing_zeros() < z {
        return None;
    }
    // the inverse of the odd part of s modulo 2^32, by Newton's iteration (each step doubles
    // the correct low bits: 1, 2, 4, … 32 after five)
    let odd = s >> z;
    let mut inv = odd;
    for _ in 0..5 {
        inv = inv.wrapping_mul(2u32.wrapping_sub(odd.wrapping_mul(inv)));
    }
    let m = 32 - z;
    let modulus = 1u64 << m;
    let t = ((need >> z).wrapping_mul(inv) as u64) & (modulus - 1);
    let t = if t >= modulus / 2 {
        t as i64 - modulus as i64
    } else {
        t as i64
    };
    Some(v1 + t as f64)
}

#[cfg(test)]
mod tests {
    use super::*;
    use evotest_abi::pred::Pred;

    fn int_rec(pred: Pred, a: i64, b: i64) -> OperandRec {
        OperandRec {
            site: 3,
            kind: pred as u32,
            a: a as u64,
            b: b as u64,
        }
    }

    fn float_rec(pred: Pred, a: f64, b: f64) -> OperandRec {
        OperandRec {
            site: 3,
            kind: pred as u32 | OPERANDS_FLOAT,
            a: a.to_bits(),
            b: b.to_bits(),
        }
    }

    #[test]
    fn a_linear_operand_is_solved_in_one_step() {
        // 3x + 7 == 1000000 from x = 10 and x = 11
        let r = root(
            &int_rec(Pred::Eq, 37, 1_000_000),
            10.0,
            &int_rec(Pred::Eq, 40, 1_000_000),
            11.0,
        )
        .unwrap();
        assert!((r - 333_331.0).abs() < 1e-6, "{r}");
        // signed operands are read as signed: -2x > -50 from x = 1 and x = 2 meets at x = 25
        let r = root(
            &int_rec(Pred::Sgt, -2, -50),
            1.0,
            &int_rec(Pred::Sgt, -4, -50),
            2.0,
        )
        .unwrap();
        assert!((r - 25.0).abs() < 1e-9, "{r}");
    }

    #[test]
    fn a_quotient_far_below_a_huge_constant_still_has_a_slope() {
        // fabs(num / den) > FLT_MAX with den = 4: num = 1 and num = 2. The branch distance
        // FLT_MAX - q is the same double for both; the secant still finds num = FLT_MAX * 4.
        let max = f32::MAX as f64;
        assert_eq!(max - 0.25, max - 0.5, "the distance is flat here");
        let r = root(
            &float_rec(Pred::Ogt, 0.25, max),
            1.0,
            &float_rec(Pred::Ogt, 0.5, max),
            2.0,
        )
        .unwrap();
        assert!((r / (max * 4.0) - 1.0).abs() < 1e-12, "{r}");
    }

    #[test]
    fn the_key_secant_solves_what_is_linear_in_the_logarithms() {
        // q = num / den against FLT_MAX, moving den from 1e30 to 2e30: the value secant
        // overshoots (a hyperbola), the one on the keys lands within a factor of two of
        // den = num / FLT_MAX (a key is linear in the logarithm only piecewise)
        let (num, max) = (1e38, f32::MAX as f64);
        let (d0, d1) = (1e30, 2e30);
        let r0 = float_rec(Pred::Ogt, num / d0, max);
        let r1 = float_rec(Pred::Ogt, num / d1, max);
        let k = key_root(&r0, d0, &r1, d1).unwrap();
        let near = |den: f64| den > 0.0 && (0.5..2.0).contains(&(num / den / max));
        assert!(near(k), "den {k}: q {}", num / k);
        let v = root(&r0, d0, &r1, d1).unwrap();
        assert!(!near(v), "the value secant lands at den {v}");
    }

    #[test]
    fn a_wrapped_affine_equality_is_solved_by_a_congruence() {
        // 3k + 7 == 1000000 in 32 bits, from k = -1206856484 (3k wrapped)
        let w = |k: i64| (3i64.wrapping_mul(k) + 7) as i32 as i64;
        let (k0, k1) = (-1_206_856_484i64, -1_206_856_485i64);
        let r = wrapped_root(
            &int_rec(Pred::Eq, w(k0), 1_000_000),
            k0 as f64,
            &int_rec(Pred::Eq, w(k1), 1_000_000),
            k1 as f64,
        )
        .unwrap();
        assert_eq!(w(r as i64), 1_000_000, "k = {r}");
        // an even slope: 4k == 6 has no solution modulo 2^32, 4k == 8 has k = 2 (+ 2^30 j)
        let (k0, k1) = (10i64, 11i64);
        assert_eq!(
            wrapped_root(
                &int_rec(Pred::Eq, 4 * k0, 6),
                10.0,
                &int_rec(Pred::Eq, 4 * k1, 6),
                11.0
            ),
            None
        );
        let r = wrapped_root(
            &int_rec(Pred::Eq, 4 * k0, 8),
            10.0,
            &int_rec(Pred::Eq, 4 * k1, 8),
            11.0,
        )
        .unwrap();
        assert_eq!(r, 2.0);
        // not for an ordering, nor for operands wider than 32 bits
        assert_eq!(
            wrapped_root(
                &int_rec(Pred::Slt, 30, 100),
                10.0,
                &int_rec(Pred::Slt, 33, 100),
                11.0
            ),
            None
        );
        assert_eq!(
            wrapped_root(
                &int_rec(Pred::Eq, 1 << 40, 0),
                10.0,
                &int_rec(Pred::Eq, (1 << 40) + 3, 0),
                11.0
            ),
            None
        );
    }

    #[test]
    fn no_root_without_a_slope_or_across_compares() {
        // the operand did not move with the variable
        assert_eq!(
            root(&int_rec(Pred::Eq, 5, 9), 1.0, &int_rec(Pred::Eq, 5, 9), 2.0),
            None
        );
        // another compare site, or another predicate
        let mut other = int_rec(Pred::Eq, 6, 9);
        other.site = 4;
        assert_eq!(root(&int_rec(Pred::Eq, 5, 9), 1.0, &other, 2.0), None);
        assert_eq!(
            root(&int_rec(Pred::Eq, 5, 9), 1.0, &int_rec(Pred::Ne, 6, 9), 2.0),
            None
        );
        // pointers and NaNs have no numeric value
        let mut p = int_rec(Pred::Eq, 5, 9);
        p.kind |= OPERANDS_POINTER;
        assert_eq!(operand_values(&p), None);
        assert_eq!(operand_values(&float_rec(Pred::Oeq, f64::NAN, 1.0)), None);
    }
}
