//! Hand-written Rust harness for `triangle::triangle` (the Rust-ABI function), in the shape of
//! evotest's generated C harnesses (src/harness.rs): inputs from the runtime, the return value
//! recorded. Input: 12 bytes, three little-endian i32. Run by hand: `./triangle_rs FILE`.
//!
//! Linked against the evotest runtime as an *rlib* (`--extern evotest_rt=…`), so that the binary
//! has one copy of std; that rlib must come from the same rustc as this harness.

use std::ffi::{c_char, CString};

fn main() {
    // A panic in the function under test must end the process with a signal, as in C, not with
    // exit code 101 after unwinding out of main.
    std::panic::set_hook(Box::new(|info| {
        eprintln!("{info}");
        std::process::abort();
    }));
    let args: Vec<CString> = std::env::args_os()
        .map(|a| CString::new(a.into_encoded_bytes()).unwrap_or_default())
        .collect();
    let argv: Vec<*const c_char> = args.iter().map(|a| a.as_ptr()).collect();
    loop {
        let mut len = 0usize;
        let p = unsafe { evotest_rt::__evotest_next(argv.len() as i32, argv.as_ptr(), &mut len) };
        if p.is_null() {
            break;
        }
        let input = unsafe { std::slice::from_raw_parts(p, len) };
        let mut buf = [0u8; 12];
        let n = len.min(12);
        buf[..n].copy_from_slice(&input[..n]);
        let word = |i: usize| i32::from_le_bytes(buf[4 * i..4 * i + 4].try_into().unwrap());
        let r = triangle::triangle(word(0), word(1), word(2));
        unsafe { evotest_rt::__evotest_return(1 /* RET_SIGNED */, r as i64 as u64) };
    }
}
