//! Subjects whose parameters are tuples, structs (named, tuple and nested), fixed-size arrays,
//! slices of structs and 128-bit integers: `evotest run --crate examples/rust/records -f …`
//! builds each argument part by part (see src/frontend/rust/mod.rs). Written for evotest's tests.

pub mod geo {
    /// A point of the integer plane.
    #[derive(Clone, Copy, Debug, PartialEq, Eq)]
    pub struct Point {
        pub x: i32,
        pub y: i32,
    }

    /// A labelled segment between two points.
    #[derive(Clone, Debug)]
    pub struct Segment {
        pub from: Point,
        pub to: Point,
        pub label: String,
    }

    /// The quadrant of `p` (1 to 4 counter-clockwise from x > 0, y > 0); the axes belong to
    /// quadrants 2 and 3. 6 outcomes.
    pub fn quadrant(p: Point) -> u8 {
        if p.x > 0 {
            if p.y > 0 { 1 } else { 4 }
        } else if p.y > 0 {
            2
        } else {
            3
        }
    }

    /// 0: a point, 1: vertical, 2: horizontal, 3: slanted with a long label, 4: other.
    /// 10 outcomes: 8 here, 2 in the derived `PartialEq::eq` it calls.
    pub fn classify(s: &Segment) -> i32 {
        if s.from == s.to {
            return 0;
        }
        if s.from.x == s.to.x {
            1
        } else if s.from.y == s.to.y {
            2
        } else if s.label.len() > 3 {
            3
        } else {
            4
        }
    }
}

/// A tagged identifier (a tuple struct).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Id(pub u16, pub char);

/// Where `v` lies relative to the closed interval `r` (-1 for an empty interval). 6 outcomes.
pub fn locate(r: (i64, i64), v: i64) -> i32 {
    if r.0 > r.1 {
        -1
    } else if v < r.0 {
        0
    } else if v > r.1 {
        2
    } else {
        1
    }
}

/// The index of the first `Id` equal to `want`, or -1. 8 outcomes (the `for` loop's `next()`
/// is two sites).
pub fn find(ids: Vec<Id>, want: Id) -> i32 {
    for (i, id) in ids.iter().enumerate() {
        if id.0 == want.0 && id.1 == want.1 {
            return i as i32;
        }
    }
    -1
}

/// 1 when the three points of `t` turn left, 2 right, 0 collinear. 4 outcomes.
pub fn turn(t: &[geo::Point; 3]) -> i32 {
    let (a, b, c) = (t[0], t[1], t[2]);
    let cross = (b.x as i64 - a.x as i64) * (c.y as i64 - a.y as i64) - (b.y as i64 - a.y as i64) * (c.x as i64 - a.x as i64);
    if cross > 0 {
        1
    } else if cross < 0 {
        2
    } else {
        0
    }
}

/// 128-bit parameters. 4 outcomes (on 128-bit compares, which the probes see as booleans).
pub fn wide(a: i128, b: u128) -> i32 {
    if a < -(1i128 << 100) {
        1
    } else if b > (1u128 << 120) {
        2
    } else {
        0
    }
}

/// A nested tuple with a string. 6 outcomes.
pub fn nested(p: ((u8, bool), &str)) -> i32 {
    if (p.0).1 && (p.0).0 > 200 {
        1
    } else if p.1.len() == 2 {
        2
    } else {
        0
    }
}

/// A struct with a private field: code outside the crate cannot build it with a literal, so
/// evotest refuses a parameter of this type (tested).
pub struct Sealed {
    pub open: u8,
    hidden: u8,
}

/// Refused by evotest (see [`Sealed`]).
pub fn sealed(s: Sealed) -> u8 {
    s.open.wrapping_add(s.hidden)
}
