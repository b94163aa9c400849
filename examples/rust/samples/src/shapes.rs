//! Enums and matches, slices, `&str`, Option/Result with `unwrap`/`expect`/`?`, bounds checks,
//! i128 and funnel shifts.

#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Shape {
    Circle(f64),
    Rect { w: f64, h: f64 },
    Triangle(f64, f64, f64),
    Empty,
}

/// A match on an enum with data (a `switch` on the discriminant at opt-level 0).
pub fn area(s: Shape) -> f64 {
    match s {
        Shape::Circle(r) if r < 0.0 => -1.0,
        Shape::Circle(r) => std::f64::consts::PI * r * r,
        Shape::Rect { w, h } => w * h,
        Shape::Triangle(a, b, c) => {
            let p = (a + b + c) / 2.0;
            (p * (p - a) * (p - b) * (p - c)).sqrt()
        }
        Shape::Empty => 0.0,
    }
}

/// A C-like enum taken from a u8 (switch on an integer, with a default).
#[derive(Clone, Copy, Debug, PartialEq)]
#[repr(u8)]
pub enum Op {
    Add = 1,
    Sub = 2,
    Mul = 3,
}

pub fn apply(op: u8, a: i64, b: i64) -> Option<i64> {
    let op = match op {
        1 => Op::Add,
        2 => Op::Sub,
        3 => Op::Mul,
        _ => return None,
    };
    match op {
        Op::Add => a.checked_add(b),
        Op::Sub => a.checked_sub(b),
        Op::Mul => a.checked_mul(b),
    }
}

/// A slice (a fat pointer: two IR arguments) with indexing (bounds checks).
pub fn count_peaks(xs: &[i32]) -> usize {
    let mut n = 0;
    let mut i = 1;
    while i + 1 < xs.len() {
        if xs[i] > xs[i - 1] && xs[i] > xs[i + 1] {
            n += 1;
        }
        i += 1;
    }
    n
}

/// `&str`: a string compare (`==` on str is a call to a memcmp-like `bcmp` after a length check)
/// and `chars()`, `parse()`, `unwrap`/`expect`.
pub fn classify(name: &str) -> i32 {
    if name == "test1" {
        return 1;
    }
    if name.starts_with("id:") {
        let v: i32 = name[3..].parse().expect("id: needs a number");
        return if v > 100 { 2 } else { 3 };
    }
    let mut digits = 0;
    for ch in name.chars() {
        if ch.is_ascii_digit() {
            digits += 1;
        } else if ch == 'é' {
            return 4;
        }
    }
    if digits > 3 {
        5
    } else {
        0
    }
}

/// `Option::unwrap` and `Result` with `?`.
pub fn first_even(xs: &[u32]) -> Result<u32, String> {
    let first = xs.iter().copied().find(|x| x % 2 == 0);
    let v = first.ok_or_else(|| "no even number".to_string())?;
    let w = xs.first().unwrap();
    Ok(v + *w)
}

/// 128-bit arithmetic and compares (the pass skips compares wider than 64 bits).
pub fn wide(a: u128, b: i128) -> i32 {
    if a > (1u128 << 100) {
        return 1;
    }
    if b < -(1i128 << 70) {
        return 2;
    }
    if (a as i128).wrapping_add(b) == 12345678901234567890123456789 {
        return 3;
    }
    0
}

/// Funnel shifts: `rotate_left` is `llvm.fshl` at opt-level 0.
pub fn rot(x: u32, k: u32) -> bool {
    x.rotate_left(k) == 0xdead_beef
}
