//! Builds the C++ registration shim (`shim/shim.cpp`) with LLVM 22's clang++ and the flags of
//! `llvm-config --cxxflags`. The shim is linked into the cdylib; LLVM itself is linked dynamically
//! (never statically: clang-22 already has libLLVM.so.22.1 loaded).

use std::path::PathBuf;
use std::process::Command;

fn main() {
    let prefix = std::env::var("LLVM_SYS_221_PREFIX").unwrap_or_else(|_| "/usr/lib/llvm-22".into());
    let prefix = PathBuf::from(prefix);
    let llvm_config = prefix.join("bin/llvm-config");
    let out = Command::new(&llvm_config)
        .arg("--cxxflags")
        .output()
        .unwrap_or_else(|e| {
            panic!(
                "cannot run {}: {e}. LLVM 22 is required: run `make setup` \
             (apt-get install clang-22 llvm-22-dev lld-22 libclang-rt-22-dev)",
                llvm_config.display()
            )
        });
    let flags = String::from_utf8_lossy(&out.stdout).to_string();

    let mut build = cc::Build::new();
    build
        .cpp(true)
        .file("shim/shim.cpp")
        .compiler(prefix.join("bin/clang++"));
    for f in flags.split_whitespace() {
        // Warnings about unused flags are noise; -fno-exceptions etc. are kept.
        build.flag(f);
    }
    build
        .flag("-fPIC")
        .flag("-Wno-unused-parameter")
        .warnings(false);
    build.compile("evotest_shim");

    println!("cargo:rerun-if-changed=shim/shim.cpp");
    println!("cargo:rerun-if-env-changed=LLVM_SYS_221_PREFIX");
    println!("cargo:rustc-link-lib=dylib=stdc++");
}
