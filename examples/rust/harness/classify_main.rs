//! Hand-written Rust harness for `samples::shapes::classify(name: &str) -> i32`: the shape a
//! generated harness would have for a function whose parameters are Rust types that C cannot
//! build (`&str`, slices, `String`, `Vec`, structs). It is compiled together with the
//! instrumented crate, calls the function by its path (the pass's `source_name`), so neither
//! `#[no_mangle]` nor the mangled name is needed. Input: the bytes of `name` (invalid UTF-8 is
//! replaced, as a generated harness would have to decide). Run by hand: `./classify FILE`.

use std::ffi::{c_char, CString};

fn main() {
    // A panic in the function under test must end the process with a signal (a crash for the
    // engine), not unwind out of main with exit code 101.
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
        let name = String::from_utf8_lossy(input);
        let r = samples::shapes::classify(&name);
        unsafe { evotest_rt::__evotest_return(1 /* RET_SIGNED */, r as i64 as u64) };
    }
}
