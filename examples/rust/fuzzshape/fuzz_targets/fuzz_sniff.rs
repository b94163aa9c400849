#![no_main]
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    if fuzzshape::sniff(data) == 2 && fuzzshape::is_echo(&data[12..]) {
        panic!("a WebP header and an echo");
    }
});
