//! Rust port of `examples/tritype.c`: triangle classification with the right-angled case, and
//! the area (Bueno & Jino 2002). Returns kind * 10000 + area; the kinds are INVALID 0 (sides not
//! in non-increasing order), NOT_A_TRIANGLE 1, EQUILATERAL 2, ISOSCELES 3, RIGHT_ANGLED 4 and
//! SCALENE 5.
//!
//! Branch sites: the C version's 8 sites and 16 outcomes (`a >= b`, `b >= c`, `la < lb + lc`,
//! `a == b`, `b == c`, `a == b`, `b == c`, `la * la == lb * lb + lc * lc`), all feasible, plus
//! rustc's overflow checks on the i64 arithmetic (`lb + lc`, the three squares and their sum),
//! which cannot fail for i32 sides. evotest options: --range a=1..100 --range b=1..100
//! --range c=1..100.

pub const INVALID: f64 = 0.0;
pub const NOT_A_TRIANGLE: f64 = 1.0;
pub const EQUILATERAL: f64 = 2.0;
pub const ISOSCELES: f64 = 3.0;
pub const RIGHT_ANGLED: f64 = 4.0;
pub const SCALENE: f64 = 5.0;

/// kind * 10000 + area (the area is below 10000 for sides up to 150).
pub fn tritype(a: i32, b: i32, c: i32) -> f64 {
    if a >= b && b >= c {
        // sides must come in non-increasing order
        let (la, lb, lc) = (a as i64, b as i64, c as i64);
        if la < lb + lc {
            // with a >= b >= c this also forces c > 0
            let s = (a as f64 + b as f64 + c as f64) / 2.0;
            let heron = (s * (s - a as f64) * (s - b as f64) * (s - c as f64)).sqrt();
            let (kind, area);
            if a == b && b == c {
                kind = EQUILATERAL;
                area = heron;
            } else if a == b || b == c {
                kind = ISOSCELES;
                area = heron;
            } else if la * la == lb * lb + lc * lc {
                kind = RIGHT_ANGLED;
                area = b as f64 * c as f64 / 2.0;
            } else {
                kind = SCALENE;
                area = heron;
            }
            return kind * 10000.0 + area;
        }
        return NOT_A_TRIANGLE * 10000.0;
    }
    INVALID
}
