#![no_main]
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    if let Some((k, v)) = fuzzshape::parse(data) {
        if k == b'q' && v < 0 {
            panic!("negative q");
        }
    }
});
