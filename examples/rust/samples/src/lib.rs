//! Rust functions for checking the bitcode route (see examples/rust/ROUTE.md): a port of
//! `examples/expint.c` (f32/f64, loops), a match on an enum, slices, `&str`, `String`, `Vec`,
//! tuples, structs, `char`, `bool`, 128-bit integers, funnel shifts (`rotate_left`), `unwrap`,
//! `expect` and bounds checks, and one parameter of every kind the issue lists.

pub mod expint;
pub mod kinds;
pub mod shapes;
