//! Branch-distance normalisation onto [0, 1] (Arcuri 2010), with a logarithmic tail.
//!
//! It lives in the engine, not in `evotest_abi`, because its tail calls `log2`: the runtime
//! archives that link into targets must not reference libm (the compiler wrappers do not add
//! `-lm`, see [`crate::toolchain::runtime_link_libs`]).

use evotest_abi::D_MAX;

/// Distances up to this are normalised as d/(d+1); larger ones on a logarithmic tail.
pub const NORMALISE_TAIL: f64 = (1u64 << 20) as f64;

/// Branch-distance normalisation onto [0, 1], strictly increasing in d: EvoSuite's d/(d+1)
/// (Arcuri 2010) up to [`NORMALISE_TAIL`], then a logarithmic tail that keeps distances of every
/// magnitude apart. d/(d+1) alone rounds to exactly 1.0 beyond about 2^53, so a search far out
/// (a double near 1e300 that must reach [0, 10]) would see a plateau; on the tail each doubling
/// of d still changes the value by more than f64's resolution near 1. `D_MAX`, infinity and NaN
/// map to 1.0 (no information).
pub fn normalise(d: f64) -> f64 {
    if d.is_nan() || d >= D_MAX {
        1.0
    } else if d <= NORMALISE_TAIL {
        d / (d + 1.0)
    } else {
        let t = NORMALISE_TAIL / (NORMALISE_TAIL + 1.0);
        let l = d.log2() - NORMALISE_TAIL.log2();
        t + (1.0 - t) * (l / (l + 8.0))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn normalisation_is_increasing_and_keeps_huge_distances_apart() {
        assert_eq!(normalise(0.0), 0.0);
        assert_eq!(normalise(1.0), 0.5);
        assert_eq!(normalise(3.0), 0.75);
        assert_eq!(normalise(f64::INFINITY), 1.0);
        assert_eq!(normalise(f64::NAN), 1.0);
        assert_eq!(normalise(D_MAX), 1.0);
        // continuous at the tail's start, below 1 everywhere
        let t = normalise(NORMALISE_TAIL);
        assert!((normalise(NORMALISE_TAIL * (1.0 + 1e-9)) - t).abs() < 1e-12);
        assert!(normalise(1.7e308) < 1.0);
        // every doubling, out to 1e308, is seen
        let mut d = 1.0;
        let mut last = normalise(d);
        while d < 8e307 {
            d *= 2.0;
            let n = normalise(d);
            assert!(n > last, "{d}: {n} <= {last}");
            last = n;
        }
    }
}
