//! imagesize: the type and dimensions of an image read from the first bytes of untrusted data
//! (PNG, JPEG, GIF, BMP, WebP, TIFF, ICO, HEIF, … headers).
#![no_main]
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let _ = imagesize::image_type(data);
    let _ = imagesize::blob_size(data);
});
