//! Compiles the driver's `main` (C, for the weak `LLVMFuzzerInitialize`) into the staticlib.

fn main() {
    println!("cargo:rerun-if-changed=src/driver.c");
    cc::Build::new().file("src/driver.c").opt_level(2).warnings(true).compile("evotest_driver_main");
}
