//! Branch distances of Korel (1990) and Tracey et al. (1998) with K = [`crate::K`] = 1.
//!
//! For a compare `a ⋈ b` each function returns `(d_true, d_false)`: how far the operands are from
//! making the compare true, and false. Exactly one of the two is 0 (the outcome taken), except
//! where an outcome is impossible (`fcmp true`/`false`), which gets [`D_MAX`].
//!
//! | relation | distance to true (when false)  | distance to false (when true) |
//! |----------|--------------------------------|-------------------------------|
//! | a == b   | \|a − b\|                      | K                             |
//! | a != b   | K                              | \|a − b\|                     |
//! | a <  b   | a − b + K                      | b − a                         |
//! | a <= b   | a − b                          | b − a + K                     |
//! | a >  b   | b − a + K                      | a − b                         |
//! | a >= b   | b − a                          | a − b + K                     |
//!
//! Integers are computed exactly in `u64` on order-preserving keys (a signed operand has its sign
//! bit flipped), so every width from i1 to i64, signed or unsigned, is exact before the one final
//! conversion to `f64` (which rounds above 2^53). Floats are computed in `f64`;
//! a result that overflows to infinity is clamped to [`D_MAX`].
//!
//! NaN (seed requirement of issue 2): an *ordered* predicate is false when either operand is NaN,
//! and no finite step changes that, so its true outcome is [`D_MAX`] away. An *unordered* predicate
//! is true on NaN; its false outcome is [`D_MAX`] away.

use crate::pred::{Pred, Rel};
use crate::{D_MAX, K};

/// An integer operand as an order-preserving `u64` key: a signed value has its sign bit flipped,
/// so that `key(a) < key(b)` exactly when `a < b`, and `key(b) - key(a)` is `b - a`.
#[inline(always)]
fn key(v: u64, signed: bool) -> u64 {
    if signed {
        v ^ (1 << 63)
    } else {
        v
    }
}

/// `hi - lo + extra` (`hi >= lo` as keys, `extra` 0 or K = 1) as `f64`, rounded once: exact in
/// u64 arithmetic (a difference of two 64-bit values fits in 64 bits), with no 128-bit
/// conversion on the probes' hot path.
#[inline(always)]
fn gap(hi: u64, lo: u64, extra: u64) -> f64 {
    match (hi - lo).checked_add(extra) {
        Some(d) => d as f64,
        None => 18_446_744_073_709_551_616.0, // 2^64, exactly
    }
}

/// Distances `(true, false)` for a relation over the integer keys `a`, `b` (see [`key`]).
#[inline(always)]
fn rel_int(rel: Rel, a: u64, b: u64) -> (f64, f64) {
    let k = K as u64;
    // a > b is b < a, a >= b is b <= a (no recursion, so that it inlines into the probes)
    let (rel, a, b) = match rel {
        Rel::Gt => (Rel::Lt, b, a),
        Rel::Ge => (Rel::Le, b, a),
        r => (r, a, b),
    };
    match rel {
        Rel::Eq => {
            if a == b {
                (0.0, K)
            } else {
                (gap(a.max(b), a.min(b), 0), 0.0)
            }
        }
        Rel::Ne => {
            if a != b {
                (0.0, gap(a.max(b), a.min(b), 0))
            } else {
                (K, 0.0)
            }
        }
        Rel::Lt => {
            if a < b {
                (0.0, gap(b, a, 0))
            } else {
                (gap(a, b, k), 0.0)
            }
        }
        // Le (Gt and Ge were swapped into Lt and Le above)
        _ => {
            if a <= b {
                (0.0, gap(b, a, k))
            } else {
                (gap(a, b, 0), 0.0)
            }
        }
    }
}

/// Distances `(true, false)` for a relation over non-NaN floats.
#[inline(always)]
fn rel_float(rel: Rel, a: f64, b: f64) -> (f64, f64) {
    // a > b is b < a, a >= b is b <= a (no recursion, so that it inlines into the probes)
    let (rel, a, b) = match rel {
        Rel::Gt => (Rel::Lt, b, a),
        Rel::Ge => (Rel::Le, b, a),
        r => (r, a, b),
    };
    let (t, f) = match rel {
        Rel::Eq => {
            if a == b {
                (0.0, K)
            } else {
                ((a - b).abs(), 0.0)
            }
        }
        Rel::Ne => {
            if a != b {
                (0.0, (a - b).abs())
            } else {
                (K, 0.0)
            }
        }
        Rel::Lt => {
            if a < b {
                (0.0, b - a)
            } else {
                (a - b + K, 0.0)
            }
        }
        // Le (Gt and Ge were swapped into Lt and Le above)
        _ => {
            if a <= b {
                (0.0, b - a + K)
            } else {
                (a - b, 0.0)
            }
        }
    };
    (clamp(t), clamp(f))
}

/// Map NaN and overflow to [`D_MAX`]; keep everything else.
#[inline]
fn clamp(d: f64) -> f64 {
    if d.is_nan() || d > D_MAX {
        D_MAX
    } else {
        d
    }
}

/// Distances `(true, false)` of an `icmp` with predicate `pred` over the 64-bit patterns `a`, `b`.
///
/// The pass widens operands to 64 bits as [`Pred::int_operands_signed`] says (sign extension for
/// signed predicates and `eq`/`ne`, zero extension for unsigned ones), and this reads them the
/// same way. A float predicate passed here is treated as its relation over the signed values.
#[inline(always)]
pub fn icmp(pred: Pred, a: u64, b: u64) -> (f64, f64) {
    let signed = pred.int_operands_signed();
    match pred.rel() {
        Some(rel) => rel_int(rel, key(a, signed), key(b, signed)),
        None => (0.0, D_MAX),
    }
}

/// [`icmp`] for an LLVM integer predicate code (`ICMP_EQ` = 32 … `ICMP_SLE` = 41), by table
/// rather than through [`Pred`] (the probes' hot path); `None` for any other code.
#[inline(always)]
pub fn icmp_code(code: u32, a: u64, b: u64) -> Option<(f64, f64)> {
    // eq ne ugt uge ult ule sgt sge slt sle; eq/ne read sign-extended, as [`Pred::int_operands_signed`]
    const REL: [Rel; 10] = [
        Rel::Eq,
        Rel::Ne,
        Rel::Gt,
        Rel::Ge,
        Rel::Lt,
        Rel::Le,
        Rel::Gt,
        Rel::Ge,
        Rel::Lt,
        Rel::Le,
    ];
    const SIGNED: u32 = 0b11_1100_0011;
    let i = code.wrapping_sub(32);
    if i >= 10 {
        return None;
    }
    let signed = (SIGNED >> i) & 1 != 0;
    Some(rel_int(REL[i as usize], key(a, signed), key(b, signed)))
}

/// Whether `icmp pred a, b` holds (operands as [`icmp`] reads them), without its distances.
#[inline(always)]
pub fn icmp_holds(pred: Pred, a: u64, b: u64) -> bool {
    let signed = pred.int_operands_signed();
    let (a, b) = (key(a, signed), key(b, signed));
    match pred.rel() {
        Some(Rel::Eq) => a == b,
        Some(Rel::Ne) => a != b,
        Some(Rel::Lt) => a < b,
        Some(Rel::Le) => a <= b,
        Some(Rel::Gt) => a > b,
        Some(Rel::Ge) => a >= b,
        None => true,
    }
}

/// Whether `fcmp pred a, b` holds (LLVM's semantics, NaN included), without its distances.
#[inline(always)]
pub fn fcmp_holds(pred: Pred, a: f64, b: f64) -> bool {
    use core::cmp::Ordering::*;
    let ord = a.partial_cmp(&b);
    let rel = |r: Rel| match (r, ord) {
        (_, None) => pred.is_unordered(),
        (Rel::Eq, Some(o)) => o == Equal,
        (Rel::Ne, Some(o)) => o != Equal,
        (Rel::Lt, Some(o)) => o == Less,
        (Rel::Le, Some(o)) => o != Greater,
        (Rel::Gt, Some(o)) => o == Greater,
        (Rel::Ge, Some(o)) => o != Less,
    };
    match pred {
        Pred::FFalse => false,
        Pred::FTrue => true,
        Pred::Ord => ord.is_some(),
        Pred::Uno => ord.is_none(),
        _ => pred.rel().is_some_and(rel),
    }
}

/// Distances `(true, false)` of an `fcmp` with predicate `pred` (any of the 16 LLVM predicates).
#[inline(always)]
pub fn fcmp(pred: Pred, a: f64, b: f64) -> (f64, f64) {
    let nan = a.is_nan() || b.is_nan();
    match pred {
        Pred::FFalse => (D_MAX, 0.0),
        Pred::FTrue => (0.0, D_MAX),
        // ord: true iff neither is NaN. Making a NaN non-NaN is not a small step: D_MAX.
        Pred::Ord => {
            if nan {
                (D_MAX, 0.0)
            } else {
                (0.0, K)
            }
        }
        Pred::Uno => {
            if nan {
                (0.0, K)
            } else {
                (D_MAX, 0.0)
            }
        }
        _ => {
            let rel = pred.rel().expect("relational fcmp predicate");
            if nan {
                if pred.is_unordered() {
                    (0.0, D_MAX)
                } else {
                    (D_MAX, 0.0)
                }
            } else {
                rel_float(rel, a, b)
            }
        }
    }
}

/// Distances `(true, false)` of a condition that is not a compare: 0 for the outcome taken and K
/// for the other (no gradient is available).
#[inline]
pub fn boolean(value: bool) -> (f64, f64) {
    if value {
        (0.0, K)
    } else {
        (K, 0.0)
    }
}

/// The distance to the outcome not taken of a two-outcome condition with distances `(t, f)`
/// (one of them 0): what it takes to turn the condition around.
#[inline]
pub fn flip((t, f): (f64, f64)) -> f64 {
    t.max(f)
}

/// The flag distance of a flag function's return ([`crate::names::FRAME_RET`]): how far the call
/// came from returning the other truth value, as a testability transformation of the function's
/// flag would measure it (Wappler, Baresel & Wegener 2007): an approach level, the function's
/// `points` (conditions) less the `evaluated` ones (a conjunction that failed at its third term
/// is nearer than one that failed at its first), plus the distance `flip` to the other outcome
/// of the last condition evaluated, the one that decided the result (K when none ran), mapped
/// onto (0, 1) by [`unit_key`]. Always > 0: the value returned is never the other one.
#[inline]
pub fn flag_distance(points: u32, evaluated: u32, flip: f64) -> f64 {
    let flip = if flip > 0.0 { flip } else { K };
    points.saturating_sub(evaluated) as f64 + unit_key(flip)
}

/// A distance `d > 0` mapped onto (0, 1], increasing: its bit pattern (which orders the positive
/// doubles) over 2^63, so that every binade from the smallest to 1e308 keeps its own part of the
/// unit interval, as a logarithm would, without the C math library (the runtime links none);
/// 1.0 for infinity, NaN and [`D_MAX`].
#[inline]
pub fn unit_key(d: f64) -> f64 {
    if d.is_nan() || d >= D_MAX {
        1.0
    } else {
        d.max(0.0).to_bits() as f64 / 9_223_372_036_854_775_808.0
    }
}

/// Distance of a `switch` on `value` to case value `case`: |value − case| (0 when equal), over
/// exact integers in the given signedness.
#[inline]
pub fn switch_case(value: u64, case: u64, signed: bool) -> f64 {
    let (v, c) = (key(value, signed), key(case, signed));
    gap(v.max(c), v.min(c), 0)
}

/// Complete the case distances of a `switch` site that ran more than once in an execution.
///
/// The switch probe computes every case's distance |value − case| on the site's first
/// evaluation, but on later evaluations, to stay O(log n) in hot loops (interpreters, lexers),
/// it updates only the case taken, or the two cases around the value. The true distance of a
/// case c is min over the evaluated values v of |v − c|; the nearest such v lies beyond some
/// neighbouring case c' in the same direction, whose slot holds |v − c'|, so one forward and one
/// backward pass of `d(c) = min(d(c), d(c') + |c − c'|)` over the cases in value order restore
/// every case's exact minimum (up to f64 rounding of the sums).
///
/// `keys` are the cases' order keys in ascending order (see [`switch_key`]) and `d` their
/// distances in the same order (the caller gathers them from the site's slots and puts them back).
pub fn relax_switch(keys: &[u64], d: &mut [f64]) {
    let n = keys.len().min(d.len());
    for j in 1..n {
        d[j] = d[j].min(d[j - 1] + (keys[j] - keys[j - 1]) as f64);
    }
    for j in (0..n.saturating_sub(1)).rev() {
        d[j] = d[j].min(d[j + 1] + (keys[j + 1] - keys[j]) as f64);
    }
}

/// The order key of a switch case or value (switches are probed as signed 64-bit values): keys
/// compare as the values do, and their difference is the values' distance.
#[inline]
pub fn switch_key(v: u64) -> u64 {
    key(v, true)
}

/// [`crate::names::PROBE_STR`] `func` code: `strcmp(a, b)`.
pub const STR_STRCMP: u32 = 0;
/// `strncmp(a, b, n)`.
pub const STR_STRNCMP: u32 = 1;
/// `memcmp(a, b, n)` (and `bcmp`).
pub const STR_MEMCMP: u32 = 2;
/// `strcasecmp(a, b)`: compared after ASCII case folding. (Codes 3 to 5 are Rust's, below.)
pub const STR_STRCASECMP: u32 = 6;
/// `strncasecmp(a, b, n)`.
pub const STR_STRNCASECMP: u32 = 7;
/// `strstr(a, b)` compared with NULL: the needle `b` found in the haystack `a`. Its probe's `n` is
/// the call's result (non-zero: found), and its distance [`substring_distance`].
pub const STR_STRSTR: u32 = 8;
/// `strcasestr(a, b)`: [`STR_STRSTR`] after ASCII case folding.
pub const STR_STRCASESTR: u32 = 9;

/// Whether `func` is a substring search ([`STR_STRSTR`], [`STR_STRCASESTR`]).
pub fn str_is_search(func: u32) -> bool {
    matches!(func, STR_STRSTR | STR_STRCASESTR)
}

/// Whether `func` compares after ASCII case folding.
pub fn str_folds_case(func: u32) -> bool {
    matches!(func, STR_STRCASECMP | STR_STRNCASECMP | STR_STRCASESTR)
}

/// Whether `func` reads its operands as C strings (up to a NUL, or `n` bytes for the `strn`
/// functions), not as `n` bytes of memory.
pub fn str_reads_c_strings(func: u32) -> bool {
    matches!(
        func,
        STR_STRCMP | STR_STRNCMP | STR_STRCASECMP | STR_STRNCASECMP | STR_STRSTR | STR_STRCASESTR
    )
}

/// Longest haystack prefix and needle that [`substring_distance`] aligns (its cost is their
/// product); where the needle lies further on, the probe knows it was found from the call's result.
pub const SEARCH_SCAN: usize = 4096;
/// See [`SEARCH_SCAN`].
pub const SEARCH_NEEDLE: usize = 256;

/// Distance of `strstr(hay, needle)` from finding the needle: the least [`bytes_distance`] of the
/// needle to a window of the haystack's first [`SEARCH_SCAN`] bytes as long as the needle (the
/// needle cut to [`SEARCH_NEEDLE`]; a haystack shorter than the needle: their distance), each
/// byte ASCII-folded if `fold`; at least 1 when `found` is false, 0 when it is true. The outcome
/// comes from `found` (the call's result), so the cuts bound only the gradient.
pub fn substring_distance(hay: &[u8], needle: &[u8], fold: bool, found: bool) -> f64 {
    if found {
        return 0.0;
    }
    let needle = &needle[..needle.len().min(SEARCH_NEEDLE)];
    let hay = &hay[..hay.len().min(SEARCH_SCAN)];
    let d = if hay.len() < needle.len() {
        folded_distance(hay, needle, fold)
    } else {
        hay.windows(needle.len())
            .map(|w| folded_distance(w, needle, fold))
            .fold(f64::INFINITY, f64::min)
    };
    d.max(1.0)
}

/// [`bytes_distance`], each byte ASCII-lowercased first if `fold`.
pub fn folded_distance(a: &[u8], b: &[u8], fold: bool) -> f64 {
    if !fold {
        return bytes_distance(a, b);
    }
    let common: f64 = a
        .iter()
        .zip(b)
        .map(|(x, y)| {
            (x.to_ascii_lowercase() as i32 - y.to_ascii_lowercase() as i32).unsigned_abs() as f64
        })
        .sum();
    common + LENGTH_PENALTY * (a.len() as f64 - b.len() as f64).abs()
}

/// [`crate::names::PROBE_BYTES`] operation (low byte of its `func`): Rust's equality of two byte
/// strings (`str`, `[u8]`, `[u8; N]`, `String`, `Vec<u8>`), `==` through `PartialEq::eq`.
pub const STR_BYTES_EQ: u32 = 3;
/// Rust's `starts_with` of a byte string (`str`, `[u8]`) with another: the haystack's first bytes,
/// as many as the pattern has, compared with the pattern.
pub const STR_BYTES_PREFIX: u32 = 4;
/// Rust's `ends_with`: the haystack's last bytes compared with the pattern.
pub const STR_BYTES_SUFFIX: u32 = 5;

/// Operand form of a [`crate::names::PROBE_BYTES`] operand (bits 0–1 of its form byte): a slice
/// (`&str`, `&[u8]`): pointer and length, either passed as the two probe arguments (no
/// indirection) or read as a `&[u8]` where the pointer, after its indirections, points.
pub const BYTES_SLICE: u32 = 0;
/// An array `[u8; N]`: after the indirections the pointer points at its bytes; the length
/// argument is N.
pub const BYTES_ARRAY: u32 = 1;
/// A `String`: after the indirections the pointer points at it (read through Rust's own `String`,
/// so the runtime must be built by the same rustc as the target, as the bitcode route requires).
pub const BYTES_STRING: u32 = 2;
/// A `Vec<u8>`, as [`BYTES_STRING`].
pub const BYTES_VEC: u32 = 3;

/// The `func` argument of [`crate::names::PROBE_BYTES`]: operation `op` ([`STR_BYTES_EQ`] …),
/// then operand a's and b's forms, each `base | indirections << 2` (`base` one of
/// [`BYTES_SLICE`] …; indirections: how many pointers are loaded from the argument before the
/// operand is reached, at most 7).
pub fn bytes_func(op: u32, a: (u32, u32), b: (u32, u32)) -> u32 {
    op | ((a.0 & 3) | (a.1.min(7) << 2)) << 8 | ((b.0 & 3) | (b.1.min(7) << 2)) << 16
}

/// The parts of a [`bytes_func`] code: operation, and each operand's (base, indirections).
pub fn bytes_func_parts(func: u32) -> (u32, (u32, u32), (u32, u32)) {
    let form = |f: u32| (f & 3, (f >> 2) & 7);
    (
        func & 0xff,
        form((func >> 8) & 0xff),
        form((func >> 16) & 0xff),
    )
}

/// The name of a `STR_*` code (the C function, or Rust's method), as site metadata reports it.
pub fn str_func_name(func: u32) -> &'static str {
    match func & 0xff {
        STR_STRCMP => "strcmp",
        STR_STRNCMP => "strncmp",
        STR_STRCASECMP => "strcasecmp",
        STR_STRNCASECMP => "strncasecmp",
        STR_STRSTR => "strstr",
        STR_STRCASESTR => "strcasestr",
        STR_BYTES_EQ => "eq",
        STR_BYTES_PREFIX => "starts_with",
        STR_BYTES_SUFFIX => "ends_with",
        _ => "memcmp",
    }
}

/// Cost of each character by which the lengths of two compared strings differ, in
/// [`bytes_distance`]: larger than any difference of two bytes, so that a search fixes the length
/// first and then the characters.
pub const LENGTH_PENALTY: f64 = 256.0;

/// Distance between two compared strings (the bytes a `strcmp`, `strncmp` or `memcmp` looks at,
/// without the terminating NUL): the position-wise absolute differences of the byte values
/// (compared as `unsigned char`, as the C functions do) over the common length, plus
/// [`LENGTH_PENALTY`] per character of length difference. 0 exactly when the strings are equal,
/// that is when the C function returns 0.
///
/// Source: Bueno & Jino 2002, §6.3: "EP receives the sum of absolute values of the
/// differences between the ASCII values associated to the characters in each position"; the
/// length term is evotest's, so that strings of different lengths are never at distance 0.
pub fn bytes_distance(a: &[u8], b: &[u8]) -> f64 {
    let common: f64 = a
        .iter()
        .zip(b)
        .map(|(x, y)| (*x as i32 - *y as i32).unsigned_abs() as f64)
        .sum();
    common + LENGTH_PENALTY * (a.len() as f64 - b.len() as f64).abs()
}

/// Distances `(true, false)` of `cmp(a, b) ⋈ 0` where `⋈` is `pred` (`eq` or `ne`) and `cmp` is a
/// string comparison whose [`bytes_distance`] is `d`. Other predicates fall back to 0/K.
#[inline]
pub fn string_compare(pred: Pred, d: f64) -> (f64, f64) {
    let equal = d == 0.0;
    match pred {
        Pred::Eq => {
            if equal {
                (0.0, K)
            } else {
                (d, 0.0)
            }
        }
        Pred::Ne => {
            if equal {
                (K, 0.0)
            } else {
                (0.0, d)
            }
        }
        _ => boolean(equal),
    }
}

#[cfg(test)]
mod tests {

    #[test]
    fn flag_distances_put_later_failures_nearer_and_are_never_zero() {
        // a && b && c: failing at c (all evaluated) is nearer than failing at a, whatever the
        // distances
        assert!(flag_distance(3, 3, 1e6) < flag_distance(3, 1, 0.5));
        // at the same point, a smaller distance is nearer
        assert!(flag_distance(2, 2, 3.0) < flag_distance(2, 2, 4.0));
        assert!(flag_distance(1, 1, f64::MIN_POSITIVE) > 0.0);
        // nothing evaluated: the whole approach and K
        assert_eq!(flag_distance(2, 0, 0.0), 2.0 + unit_key(K));
        // the unit key orders every magnitude, below 1
        let mut last = 0.0;
        for d in [
            1e-300,
            1e-3,
            0.5,
            1.0,
            1.0 + 1e-12,
            2.0,
            1e6,
            1e300,
            1.7e308,
        ] {
            let k = unit_key(d);
            assert!(k > last && k < 1.0, "{d}: {k}");
            last = k;
        }
        assert_eq!(unit_key(f64::INFINITY), 1.0);
        assert_eq!(flip((0.0, 7.0)), 7.0);
        assert_eq!(flip((4.0, 0.0)), 4.0);
    }
    use super::*;
    use crate::pred::Pred::*;

    /// The i128 formulas the u64 key arithmetic replaced (Korel 1990's table, exact integers).
    fn reference(pred: Pred, a: u64, b: u64) -> (f64, f64) {
        let (x, y) = if pred.int_operands_signed() {
            (a as i64 as i128, b as i64 as i128)
        } else {
            (a as i128, b as i128)
        };
        let r = |c: bool, d: i128| if c { 0.0 } else { d as f64 };
        match pred.rel().unwrap() {
            Rel::Eq => (r(x == y, (x - y).abs()), r(x != y, 1)),
            Rel::Ne => (r(x != y, 1), r(x == y, (x - y).abs())),
            Rel::Lt => (r(x < y, x - y + 1), r(x >= y, y - x)),
            Rel::Le => (r(x <= y, x - y), r(x > y, y - x + 1)),
            Rel::Gt => (r(x > y, y - x + 1), r(x <= y, x - y)),
            Rel::Ge => (r(x >= y, y - x), r(x < y, x - y + 1)),
        }
    }

    #[test]
    fn substring_distance_is_the_closest_window_and_zero_only_when_found() {
        // "HTTQ" is one off "HTTP"; the window "HTTQ" of the haystack is the closest
        assert_eq!(
            substring_distance(b"xx HTTQ yy", b"HTTP", false, false),
            1.0
        );
        assert_eq!(
            substring_distance(b"GET /", b"HTTP", false, false),
            bytes_distance(b"T /", b"HTTP")
                .min(bytes_distance(b"GET ", b"HTTP"))
                .min(bytes_distance(b"ET /", b"HTTP"))
        );
        // a haystack shorter than the needle: their distance, with the length penalty
        assert_eq!(
            substring_distance(b"HT", b"HTTP", false, false),
            2.0 * LENGTH_PENALTY
        );
        // the outcome is the call's: found is 0 whatever the bytes, not found at least 1
        assert_eq!(substring_distance(b"zzz", b"HTTP", false, true), 0.0);
        assert_eq!(substring_distance(b"HTTP", b"HTTP", false, false), 1.0);
        // case folding
        assert_eq!(substring_distance(b"a http b", b"HTTP", true, false), 1.0);
        assert_eq!(folded_distance(b"QuIt", b"quit", true), 0.0);
        assert_eq!(
            folded_distance(b"QuIt", b"quit", false),
            bytes_distance(b"QuIt", b"quit")
        );
    }

    #[test]
    fn integer_distances_equal_the_exact_i128_formulas_at_every_edge() {
        let edges: Vec<u64> = [
            0i128,
            1,
            2,
            -1,
            -2,
            7,
            -7,
            1 << 53,
            (1 << 53) + 1,
            i64::MAX as i128,
            i64::MIN as i128,
            i64::MAX as i128 - 1,
            i64::MIN as i128 + 1,
            u64::MAX as i128,
            u64::MAX as i128 - 1,
            i32::MIN as i128,
            u32::MAX as i128,
        ]
        .iter()
        .map(|&v| v as u64)
        .collect();
        for pred in [Eq, Ne, IUgt, IUge, IUlt, IUle, Sgt, Sge, Slt, Sle] {
            for &a in &edges {
                for &b in &edges {
                    assert_eq!(
                        icmp(pred, a, b),
                        reference(pred, a, b),
                        "{pred:?} {a:#x} {b:#x}"
                    );
                    assert_eq!(
                        icmp_code(pred as u32, a, b),
                        Some(icmp(pred, a, b)),
                        "{pred:?} {a:#x} {b:#x}"
                    );
                }
                for signed in [false, true] {
                    let (x, c) = if signed {
                        (a as i64 as i128, 5i64 as i128)
                    } else {
                        (a as i128, 5)
                    };
                    assert_eq!(switch_case(a, 5, signed), (x - c).abs() as f64);
                }
            }
        }
    }

    #[test]
    fn icmp_code_knows_only_the_integer_predicates() {
        for code in (0..32).chain(42..300) {
            assert_eq!(icmp_code(code, 1, 2), None, "{code}");
        }
    }

    #[test]
    fn relaxed_switch_distances_are_the_minimum_over_every_value_seen() {
        // cases 0, 10, 20; values 100 (first evaluation: every case) and then 12 (the probe
        // updates only 10 and 20); the relaxation finds 12 for case 0 as well
        let keys: Vec<u64> = [0u64, 10, 20].iter().map(|&c| switch_key(c)).collect();
        let mut d = [100.0, 2.0, 8.0];
        relax_switch(&keys, &mut d);
        assert_eq!(d, [12.0, 2.0, 8.0]);
        // negative cases and a value below them all, then one taken case
        let keys: Vec<u64> = [-50i64, -5, 40]
            .iter()
            .map(|&c| switch_key(c as u64))
            .collect();
        let mut d = [f64::MAX, 0.0, f64::MAX];
        relax_switch(&keys, &mut d);
        assert_eq!(d, [45.0, 0.0, 45.0]);
    }

    #[test]
    fn holds_agrees_with_the_outcome_the_distances_take() {
        let ints: Vec<u64> = [0i64, 1, -1, 5, i64::MIN, i64::MAX]
            .iter()
            .map(|&v| v as u64)
            .collect();
        for pred in [Eq, Ne, IUgt, IUge, IUlt, IUle, Sgt, Sge, Slt, Sle] {
            for &a in &ints {
                for &b in &ints {
                    assert_eq!(
                        icmp_holds(pred, a, b),
                        icmp(pred, a, b).0 == 0.0,
                        "{pred:?} {a} {b}"
                    );
                }
            }
        }
        let fl = [0.0, -0.0, 1.5, -2.0, f64::INFINITY, f64::NAN];
        for p in 0..16 {
            let pred = Pred::from_u32(p).unwrap();
            for &a in &fl {
                for &b in &fl {
                    assert_eq!(
                        fcmp_holds(pred, a, b),
                        fcmp(pred, a, b).0 == 0.0,
                        "{pred:?} {a} {b}"
                    );
                }
            }
        }
    }

    #[test]
    fn integer_relations_match_hand_computed_values() {
        // a == b
        assert_eq!(icmp(Eq, 3, 7), (4.0, 0.0));
        assert_eq!(icmp(Eq, 7, 7), (0.0, 1.0));
        // a != b
        assert_eq!(icmp(Ne, 3, 7), (0.0, 4.0));
        assert_eq!(icmp(Ne, 5, 5), (1.0, 0.0));
        // a < b, signed, with a negative operand
        assert_eq!(icmp(Slt, (-2i64) as u64, 5), (0.0, 7.0));
        assert_eq!(icmp(Slt, 5, (-2i64) as u64), (8.0, 0.0));
        assert_eq!(icmp(Slt, 4, 4), (1.0, 0.0));
        // a <= b
        assert_eq!(icmp(Sle, 4, 4), (0.0, 1.0));
        assert_eq!(icmp(Sle, 9, 4), (5.0, 0.0));
        assert_eq!(icmp(Sle, 0, 4), (0.0, 5.0));
        // a > b and a >= b mirror < and <=
        assert_eq!(icmp(Sgt, 4, 4), (1.0, 0.0));
        assert_eq!(icmp(Sgt, 10, 4), (0.0, 6.0));
        assert_eq!(icmp(Sge, 4, 4), (0.0, 1.0));
        assert_eq!(icmp(Sge, 1, 4), (3.0, 0.0));
    }

    #[test]
    fn unsigned_predicates_see_wrapped_values_as_large() {
        // -1 as u32 zero-extended = 4294967295 > 0 for an unsigned compare
        let minus_one_u32 = u32::MAX as u64;
        assert_eq!(icmp(IUlt, minus_one_u32, 0), (4294967296.0, 0.0));
        assert_eq!(icmp(IUgt, minus_one_u32, 0), (0.0, 4294967295.0));
        // the same bits, signed: -1 < 0
        assert_eq!(icmp(Slt, (-1i64) as u64, 0), (0.0, 1.0));
        // u64 extremes
        assert_eq!(icmp(IUlt, 0, u64::MAX), (0.0, u64::MAX as f64));
        assert_eq!(icmp(IUle, u64::MAX, 0), (u64::MAX as f64, 0.0));
        assert_eq!(icmp(IUge, u64::MAX, u64::MAX), (0.0, 1.0));
    }

    #[test]
    fn i64_extremes_do_not_overflow() {
        let min = i64::MIN as u64;
        let max = i64::MAX as u64;
        // |MIN - MAX| = 2^64 - 1
        assert_eq!(icmp(Eq, min, max), (18446744073709551615.0, 0.0));
        assert_eq!(icmp(Sgt, min, max), (18446744073709551616.0, 0.0));
        assert_eq!(icmp(Slt, min, max), (0.0, 18446744073709551615.0));
    }

    #[test]
    fn equality_reads_operands_as_signed() {
        // i32 -1 == 0: the pass sign-extends, so the distance is 1, not 2^32 - 1
        assert_eq!(icmp(Eq, (-1i64) as u64, 0), (1.0, 0.0));
        assert_eq!(icmp(Ne, (-3i64) as u64, 4), (0.0, 7.0));
        // unsigned values on the same side of 2^31 keep their difference after sign extension
        let sext = |v: u32| v as i32 as i64 as u64;
        assert_eq!(
            icmp(Eq, sext(3_999_999_999), sext(4_000_000_000)),
            (1.0, 0.0)
        );
    }

    #[test]
    fn i1_compares() {
        // icmp eq i1 %x, true with x zero-extended
        assert_eq!(icmp(Eq, 0, 1), (1.0, 0.0));
        assert_eq!(icmp(Eq, 1, 1), (0.0, 1.0));
        // signed i1: true is -1
        assert_eq!(icmp(Slt, u64::MAX, 0), (0.0, 1.0));
    }

    #[test]
    fn float_relations_and_zero_signs() {
        assert_eq!(fcmp(Oeq, 1.5, 4.0), (2.5, 0.0));
        assert_eq!(fcmp(Olt, 2.0, 1.0), (2.0, 0.0));
        assert_eq!(fcmp(Ole, 1.0, 1.0), (0.0, 1.0));
        assert_eq!(fcmp(Ogt, 1.0, 0.25), (0.0, 0.75));
        // +0.0 == -0.0
        assert_eq!(fcmp(Oeq, 0.0, -0.0), (0.0, 1.0));
        assert_eq!(fcmp(Olt, -0.0, 0.0), (1.0, 0.0));
        assert_eq!(fcmp(Une, -0.0, 0.0), (1.0, 0.0));
    }

    #[test]
    fn nan_makes_ordered_true_maximally_distant() {
        let n = f64::NAN;
        assert_eq!(fcmp(Oeq, n, 1.0), (D_MAX, 0.0));
        assert_eq!(fcmp(Olt, 1.0, n), (D_MAX, 0.0));
        assert_eq!(fcmp(One, n, n), (D_MAX, 0.0));
        // unordered predicates are true on NaN, and their false outcome is out of reach
        assert_eq!(fcmp(Ueq, n, 1.0), (0.0, D_MAX));
        assert_eq!(fcmp(Une, n, 1.0), (0.0, D_MAX));
        // unordered without NaN behaves like the ordered relation
        assert_eq!(fcmp(Ult, 3.0, 1.0), (3.0, 0.0));
        // ord / uno
        assert_eq!(fcmp(Ord, 1.0, 2.0), (0.0, 1.0));
        assert_eq!(fcmp(Ord, n, 2.0), (D_MAX, 0.0));
        assert_eq!(fcmp(Uno, n, 2.0), (0.0, 1.0));
        assert_eq!(fcmp(Uno, 1.0, 2.0), (D_MAX, 0.0));
        // constant predicates
        assert_eq!(fcmp(FTrue, 1.0, 2.0), (0.0, D_MAX));
        assert_eq!(fcmp(FFalse, 1.0, 2.0), (D_MAX, 0.0));
    }

    #[test]
    fn infinities_clamp_instead_of_overflowing() {
        assert_eq!(fcmp(Oeq, f64::INFINITY, 0.0), (D_MAX, 0.0));
        assert_eq!(fcmp(Oeq, f64::MAX, -f64::MAX), (D_MAX, 0.0));
        // inf - inf would be NaN: equal infinities compare equal, distance to false is K
        assert_eq!(fcmp(Oeq, f64::INFINITY, f64::INFINITY), (0.0, 1.0));
    }

    #[test]
    fn switch_and_boolean() {
        assert_eq!(switch_case(7, 10, true), 3.0);
        assert_eq!(switch_case((-3i64) as u64, 3, true), 6.0);
        assert_eq!(switch_case(u32::MAX as u64, 0, false), 4294967295.0);
        assert_eq!(boolean(true), (0.0, 1.0));
        assert_eq!(boolean(false), (1.0, 0.0));
    }

    #[test]
    fn string_distance_sums_character_differences_and_penalises_length() {
        assert_eq!(bytes_distance(b"test1", b"test1"), 0.0);
        assert_eq!(bytes_distance(b"test0", b"test1"), 1.0);
        assert_eq!(bytes_distance(b"sest1", b"test2"), 2.0);
        // unsigned bytes, as strcmp compares them
        assert_eq!(bytes_distance(&[0xff], &[0x01]), 254.0);
        // "test" is one character short of "test1"
        assert_eq!(bytes_distance(b"test", b"test1"), LENGTH_PENALTY);
        assert_eq!(bytes_distance(b"", b"ab"), 2.0 * LENGTH_PENALTY);
        // the right length with wrong characters beats a wrong length with right characters
        assert!(bytes_distance(b"zzzzz", b"test1") < bytes_distance(b"test", b"test1"));
        // strcmp(a, b) == 0: true when equal
        assert_eq!(string_compare(Eq, 0.0), (0.0, 1.0));
        assert_eq!(string_compare(Eq, 7.0), (7.0, 0.0));
        // strcmp(a, b) != 0: its false outcome needs equal strings
        assert_eq!(string_compare(Ne, 7.0), (0.0, 7.0));
        assert_eq!(string_compare(Ne, 0.0), (1.0, 0.0));
    }
}
