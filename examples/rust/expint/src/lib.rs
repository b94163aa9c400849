//! Port of `examples/expint.c`: E_n(x) with Lentz's continued fraction for x > 1 and the power
//! series otherwise. Same 15 decisions and 30 outcomes as the C version (all feasible over the
//! whole float range), plus rustc's overflow checks on `i32` arithmetic (`n - 1`, `i + 1`,
//! `i - nm1`, `ii + 1`): `n - 1` panics for n = i32::MIN, where C would overflow silently.

const MAXIT: i32 = 100;
const EULER: f64 = 0.5772156649;
const FPMIN: f64 = 1.0e-30;
const EPS: f64 = 1.0e-7;
pub const EXPINT_ERROR: f32 = -1.0;

pub fn expint(n: i32, x: f32) -> f32 {
    let nm1 = n - 1;
    if n < 0 || (x as f64) < 0.0 || ((x as f64) == 0.0 && (n == 0 || n == 1)) {
        return EXPINT_ERROR; // bad arguments
    }
    if n == 0 {
        return (-x).exp() / x;
    }
    if (x as f64) == 0.0 {
        return 1.0 / nm1 as f32;
    }
    if (x as f64) > 1.0 {
        let mut b = x + n as f32;
        let mut c = (1.0 / FPMIN) as f32;
        let mut d = 1.0f32 / b;
        let mut h = d;
        let mut i = 1;
        while i <= MAXIT {
            let a = -(i as f32) * (nm1 as f32 + i as f32);
            b += 2.0;
            d = 1.0 / (a * d + b);
            c = b + a / c;
            let del = c * d;
            h *= del;
            if ((del - 1.0) as f64).abs() < EPS {
                return h * (-x).exp();
            }
            i += 1;
        }
        return EXPINT_ERROR; // continued fraction failed
    }
    let mut ans = if nm1 != 0 { 1.0 / nm1 as f32 } else { -x.ln() - EULER as f32 };
    let mut fact = 1.0f32;
    let mut i = 1;
    while i <= MAXIT {
        let del;
        fact *= -x / i as f32;
        if i != nm1 {
            del = -fact / (i - nm1) as f32;
        } else {
            let mut psi = -EULER as f32;
            let mut ii = 1;
            while ii <= nm1 {
                psi += 1.0 / ii as f32;
                ii += 1;
            }
            del = fact * (-x.ln() + psi);
        }
        ans += del;
        if (del.abs() as f64) < (ans.abs() as f64) * EPS {
            return ans;
        }
        i += 1;
    }
    EXPINT_ERROR // series failed
}
