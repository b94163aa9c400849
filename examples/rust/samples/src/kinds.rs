//! One function per parameter kind the issue lists, so that the metadata the pass writes for
//! each can be read (see examples/rust/ROUTE.md, "What the pass sees for Rust").

pub fn ints(a: i8, b: i16, c: i32, d: i64, e: i128, f: isize) -> i64 {
    if a < 0 && b > 0 && c == 3 && d != 4 && e > 5 && f < 6 { 1 } else { 0 }
}

pub fn uints(a: u8, b: u16, c: u32, d: u64, e: u128, f: usize) -> u64 {
    if a > 1 && b > 2 && c > 3 && d > 4 && e > 5 && f > 6 { 1 } else { 0 }
}

pub fn floats(x: f32, y: f64) -> bool {
    x as f64 > y
}

pub fn flag_char(b: bool, c: char) -> u32 {
    if b && c == 'x' { 1 } else { c as u32 }
}

pub fn strs(s: &str, owned: String) -> usize {
    if s == owned { s.len() } else { 0 }
}

pub fn slices(xs: &[u8], ys: &mut [f64], v: Vec<i32>) -> i32 {
    if !xs.is_empty() && !ys.is_empty() && xs[0] == 7 {
        ys[0] = 1.0;
    }
    v.iter().sum()
}

pub fn tuples(t: (i32, u8), u: (f64, f64, f64)) -> f64 {
    if t.0 > t.1 as i32 { u.0 } else { u.1 + u.2 }
}

#[derive(Clone, Copy, Debug)]
pub struct Point {
    pub x: i32,
    pub y: i32,
}

#[derive(Clone, Debug)]
pub struct Big {
    pub p: Point,
    pub scale: f64,
    pub name: [u8; 4],
    pub id: u64,
}

pub fn structs(p: Point, b: Big, r: &Point) -> i64 {
    if p.x == r.y && b.p.x > 0 && b.scale < 2.0 { b.id as i64 } else { (p.x + p.y) as i64 }
}

pub fn arrays(a: [i32; 4], b: &[u16; 3]) -> i32 {
    if a[0] == 1 && b[2] == 2 { 1 } else { 0 }
}

pub fn options(o: Option<u32>, r: Result<i32, u8>) -> u32 {
    match (o, r) {
        (Some(x), Ok(y)) if x as i32 == y => 1,
        (None, Err(e)) => e as u32,
        _ => 0,
    }
}

pub fn generic<T: PartialOrd + Copy>(a: T, b: T) -> T {
    if a < b { a } else { b }
}

/// Instantiates `generic` for two types (monomorphised copies in this crate).
pub fn use_generic(a: i16, b: f32) -> f32 {
    generic(a, 3) as f32 + generic(b, 2.5)
}

/// A C-ABI function with C types (what evotest's C harness can call today).
#[no_mangle]
pub extern "C" fn samples_c(a: i32, x: f64, s: *const u8, n: usize) -> i32 {
    let bytes = if s.is_null() { &[][..] } else { unsafe { std::slice::from_raw_parts(s, n) } };
    if bytes.first() == Some(&b'a') && x > 1.5 { a } else { -a }
}

/// A panic whose payload is not a string (`panic_any`): std reports it as `Box<dyn Any>`.
pub fn odd_payload(x: i32) -> i32 {
    if x == 5 {
        std::panic::panic_any(42u32);
    }
    x
}

/// Lifetimes alone are no generics: callable as it is.
pub fn lifetimes<'a>(s: &'a str) -> &'a str {
    if s.starts_with('#') {
        &s[1..]
    } else {
        s
    }
}

/// Generic, and instantiated nowhere: not in the bitcode at all.
pub fn never_called<T: Copy + PartialOrd>(a: T, b: T) -> T {
    if a < b { a } else { b }
}

/// An `impl Trait` parameter is a type parameter too.
pub fn with_impl(x: impl Into<i64>) -> i64 {
    let v = x.into();
    if v > 3 { v } else { 0 }
}

/// An `unsafe fn`: the harness and the tests call it in an `unsafe` block.
///
/// # Safety
/// None needed; it is declared unsafe to be called so.
pub unsafe fn unsafe_fn(x: i32) -> i32 {
    if x == 5 { 1 } else { 0 }
}

/// Private: not callable from outside the crate (evotest says so).
fn private_helper(x: i32) -> i32 {
    if x > 2 { 1 } else { 0 }
}

pub fn uses_private(x: i32) -> i32 {
    private_helper(x) + 1
}
