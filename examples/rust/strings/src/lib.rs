//! Subjects whose branches compare strings and byte strings. At -O0, Rust's `==` on `&str`,
//! a `match` on a string and `starts_with`/`ends_with` are calls of std functions returning
//! `bool`; the evotest pass probes such a branch with the distance between the compared bytes
//! (see passes/src/collect.rs, `rust_bytes_compare`). Written for evotest's tests: without that
//! distance, no search finds "launch" among the printable strings of up to 16 characters.

/// 1 for "launch", 3 for "abort", else 2. 4 outcomes.
pub fn command(s: &str) -> i32 {
    if s == "launch" {
        1
    } else if s != "abort" {
        2
    } else {
        3
    }
}

/// An HTTP-like router: a `match` on the verb, with guards on the path. 10 outcomes.
pub fn route(verb: &str, path: String) -> i32 {
    match verb {
        "GET" if path.starts_with("/api/") => 1,
        "PUT" if path.ends_with(".json") => 2,
        "DELETE" => 3,
        _ => 0,
    }
}

/// A request: a verb and an owned body.
pub struct Request<'a> {
    pub verb: &'a str,
    pub body: String,
}

/// `String == &str` and `&str == String` through a struct. 4 outcomes.
pub fn accept(r: Request) -> i32 {
    if r.body == "{}" {
        1
    } else if "PATCH" == r.body {
        2
    } else {
        0
    }
}

/// Byte strings: a file signature. 4 outcomes.
pub fn signature(header: &[u8]) -> i32 {
    if header == b"PK\x03\x04" {
        1
    } else if header.starts_with(b"GIF8") {
        2
    } else {
        0
    }
}
