//! Rust port of `examples/triangle.c` (Myers-style triangle classification).
//!
//! Branch sites at opt-level 0 (each atomic condition of `||`/`&&` is its own `br`):
//! `a <= 0`, `b <= 0`, `c <= 0`; `a + b <= c`, `a + c <= b`, `b + c <= a`; `a == b`, `b == c`;
//! `a == b`, `b == c`, `a == c`: the C version's 11 sites and 22 outcomes. The sums are in i64,
//! so they cannot overflow, but rustc still checks them at opt-level 0: 3 more sites whose
//! overflow outcome is infeasible (14 sites, 28 outcomes; 11 with `-C overflow-checks=off`).

pub const INVALID: i32 = 0;
pub const NOT_A_TRIANGLE: i32 = 1;
pub const EQUILATERAL: i32 = 2;
pub const ISOSCELES: i32 = 3;
pub const SCALENE: i32 = 4;

/// The Rust-ABI function (mangled name).
pub fn triangle(a: i32, b: i32, c: i32) -> i32 {
    if a <= 0 || b <= 0 || c <= 0 {
        return INVALID;
    }
    let (sa, sb, sc) = (a as i64, b as i64, c as i64);
    if sa + sb <= sc || sa + sc <= sb || sb + sc <= sa {
        return NOT_A_TRIANGLE;
    }
    if a == b && b == c {
        return EQUILATERAL;
    }
    if a == b || b == c || a == c {
        return ISOSCELES;
    }
    SCALENE
}

/// The C-ABI variant (unmangled), callable from a C harness.
#[no_mangle]
pub extern "C" fn triangle_c(a: i32, b: i32, c: i32) -> i32 {
    triangle(a, b, c)
}
