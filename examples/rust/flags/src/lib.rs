//! Rust ports of the seven programs of McMinn & Holcombe (2004), "Hybridizing Evolutionary
//! Testing with the Chaining Approach", §6, whose C versions are `examples/counter.c`,
//! `deceptive.c`, `enumeration.c`, `flag_assignment.c`, `flag_loop_assignment.c`,
//! `flag_avoid_loop_assignment.c` and `multiple_flag.c` (see their headers for the paper's
//! descriptions, ranges, target branches and the checks of their feasible outcomes). Each
//! function keeps its C version's decisions in the same order; flags are `bool`, C's `int a[10]`
//! is `&[i32; 10]`. The inputs' ranges are the C versions':
//!
//! ```text
//! evotest run --crate examples/rust/flags -f counter --range a=-15000..15000
//! evotest run --crate examples/rust/flags -f deceptive --range x=-50000..50000@0.001
//! evotest run --crate examples/rust/flags -f enumeration --range r=0..255 --range g=0..255 --range b=0..255
//! evotest run --crate examples/rust/flags -f flag_assignment --range a=-50000..50000@0.001 --range b=-50000..50000@0.001
//! evotest run --crate examples/rust/flags -f flag_loop_assignment --range a=-15000..15000
//! evotest run --crate examples/rust/flags -f flag_avoid_loop_assignment --range a=-15000..15000
//! evotest run --crate examples/rust/flags -f multiple_flag --range a=-50000..50000@0.001 --range b=-50000..50000@0.001
//! ```
//!
//! Every function returns 1 when its target was reached, else 0 (`enumeration`: the colour's
//! class). Outcomes are those of the C version (all feasible), counted without rustc's checks
//! (bounds and overflow checks, left out by default); where rustc's lowering differs, the
//! function says so.

/// At least half of the ten elements are zero; the zeros are counted in a loop, so the target's
/// condition is on a counter. Target: `count >= 5` → true. 6 outcomes: `i < 10`, `a[i] == 0`,
/// `count >= 5` (the C loop is a `while` here, so that the loop condition is a compare as in C).
pub fn counter(a: &[i32; 10]) -> i32 {
    let mut count = 0;
    let mut i = 0;
    while i < 10 {
        if a[i] == 0 {
            count += 1;
        }
        i += 1;
    }
    if count >= 5 {
        return 1; // target
    }
    0
}

/// The multiplicative inverse of x, or 0 when x is 0.
fn inverse(x: f64) -> f64 {
    if x == 0.0 {
        return 0.0;
    }
    1.0 / x
}

/// The target needs `inverse(x) == 0`, i.e. x = 0, while the distance |1/x| shrinks as |x|
/// grows. Target: `inverse(x) == 0.0` → true. 4 outcomes (2 in `inverse`).
pub fn deceptive(x: f64) -> i32 {
    if inverse(x) == 0.0 {
        return 1; // target
    }
    0
}

/// The named colours: the corners of the RGB cube.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[repr(i32)]
enum Colour {
    Other = 0,
    Black = 1,
    White = 2,
    Red = 3,
    Green = 4,
    Blue = 5,
    Yellow = 6,
    Cyan = 7,
    Magenta = 8,
}

struct NamedColour {
    r: i32,
    g: i32,
    b: i32,
    colour: Colour,
}

const PALETTE: [NamedColour; 8] = [
    NamedColour { r: 0, g: 0, b: 0, colour: Colour::Black },
    NamedColour { r: 255, g: 255, b: 255, colour: Colour::White },
    NamedColour { r: 255, g: 0, b: 0, colour: Colour::Red },
    NamedColour { r: 0, g: 255, b: 0, colour: Colour::Green },
    NamedColour { r: 0, g: 0, b: 255, colour: Colour::Blue },
    NamedColour { r: 255, g: 255, b: 0, colour: Colour::Yellow },
    NamedColour { r: 0, g: 255, b: 255, colour: Colour::Cyan },
    NamedColour { r: 255, g: 0, b: 255, colour: Colour::Magenta },
];

/// The named colour with these intensities, or `Colour::Other`.
fn colour_of(r: i32, g: i32, b: i32) -> Colour {
    let mut i = 0;
    while i < 8 {
        let p = &PALETTE[i];
        if p.r == r && p.g == g && p.b == b {
            return p.colour;
        }
        i += 1;
    }
    Colour::Other
}

/// Three intensities are looked up in a palette, which yields an enumeration value; the target
/// is black. Returns 1 for black, 2 white, 3 red/green/blue, 4 yellow/cyan/magenta, 0 other.
/// Target: the `match` → `Colour::Black`. The `match` on the enum is a `switch` on its
/// discriminant with one case per variant (9 outcomes: rustc gives `Other` a case and makes the
/// default `unreachable`, a check, where C's `default` stands for `COLOUR_OTHER`), plus the 8 of
/// `colour_of`: 17 outcomes, as in C.
pub fn enumeration(r: i32, g: i32, b: i32) -> i32 {
    match colour_of(r, g, b) {
        Colour::Black => 1, // target
        Colour::White => 2,
        Colour::Red | Colour::Green | Colour::Blue => 3,
        Colour::Yellow | Colour::Cyan | Colour::Magenta => 4,
        Colour::Other => 0,
    }
}

/// The flag is set only when the first input is zero. Target: `flag` → true. 4 outcomes. The
/// second input takes part in no branch (as in the paper).
pub fn flag_assignment(a: f64, b: f64) -> i32 {
    let _ = b;
    let mut flag = false;
    if a == 0.0 {
        flag = true;
    }
    if flag {
        return 1; // target
    }
    0
}

/// A loop sets the flag when one or more elements are zero. Target: `flag` → true. 6 outcomes.
pub fn flag_loop_assignment(a: &[i32; 10]) -> i32 {
    let mut flag = false;
    let mut i = 0;
    while i < 10 {
        if a[i] == 0 {
            flag = true;
        }
        i += 1;
    }
    if flag {
        return 1; // target
    }
    0
}

/// The flag starts true and the loop clears it for every non-zero element, so all ten must be
/// zero (Fig. 3 of the paper). Target: `flag` → true. 6 outcomes.
pub fn flag_avoid_loop_assignment(a: &[i32; 10]) -> i32 {
    let mut flag = true; // node a
    let mut i = 0; // node b
    while i < 10 {
        // node c
        if a[i] != 0 {
            flag = false; // node d
        }
        i += 1;
    }
    if flag {
        // node e
        return 1; // node f: target
    }
    0
}

/// Two flags must be true: the first is set when a is zero, the second when b is zero, and the
/// second is reset when b is 1. Target: `flag2` → true. 10 outcomes.
pub fn multiple_flag(a: f64, b: f64) -> i32 {
    let mut flag1 = false;
    let mut flag2 = false;
    if a == 0.0 {
        flag1 = true;
    }
    if b == 0.0 {
        flag2 = true;
    }
    if b == 1.0 {
        flag2 = false; // reset
    }
    if flag1 && flag2 {
        return 1; // target
    }
    0
}
