//! Compiles the driver's `main` (C, for the weak `LLVMFuzzerInitialize`) into the staticlib, with
//! the path where cargo puts the `evotest` binary of the same build (`EVOTEST_BIN`), which a
//! harness run by hand with libFuzzer's fuzzing flags hands its arguments to.

fn main() {
    println!("cargo:rerun-if-changed=src/driver.c");
    // OUT_DIR is <target>/<profile>/build/<package>-<hash>/out; the binaries are in <target>/<profile>
    let out = std::path::PathBuf::from(std::env::var("OUT_DIR").unwrap_or_default());
    let bin = out
        .ancestors()
        .nth(3)
        .map(|d| d.join("evotest"))
        .unwrap_or_default();
    let quoted = format!(
        "\"{}\"",
        bin.display()
            .to_string()
            .replace('\\', "\\\\")
            .replace('"', "\\\"")
    );
    cc::Build::new()
        .file("src/driver.c")
        .define("EVOTEST_BIN", quoted.as_str())
        .opt_level(2)
        .warnings(true)
        .compile("evotest_driver_main");
}
