//! The drop-in compilers `evotest-cc` and `evotest-cxx` (installed also as `evotest-c++`): clang-22
//! with the evotest pass on every translation unit and the runtime on every link, every other
//! flag passed through.
//!
//! * **Compiling** (any source input): adds `-fpass-plugin=libevotest_pass.so` and `-g` before the
//!   user's flags (a later `-g0` or `-O2` of the user wins; the pass runs at the start of the
//!   pipeline, before any optimisation, at every `-O` level).
//! * **Linking** (no `-c`, `-S`, `-E`, `-M`, `-MM`, `-fsyntax-only`, and some input that is not
//!   a header): adds the runtime `libevotest_rt.a` and the libraries it needs, no more (the
//!   unwinder and libc: no `-lm`, which would answer configure's library probes for the user),
//!   after `-x none` if the user gave a sticky `-x LANG`. With `-fsanitize=fuzzer` (libFuzzer's
//!   link flag, which OSS-Fuzz scripts pass as `$LIB_FUZZING_ENGINE`) it links evotest's
//!   libFuzzer-compatible driver `libevotest_driver.a` (which includes the runtime) instead. A
//!   `-shared` link gets no runtime: the executable that loads the library provides it; nor does
//!   a relocatable link (`-r`, `-Wl,-r`) or a precompiled header (`h.h -o h.pch`). A `-static`
//!   link gets `-lgcc_eh` instead of `-lgcc_s`.
//! * `fuzzer` and `fuzzer-no-link` are removed from every `-fsanitize=` list (evotest needs no
//!   SanitizerCoverage); the other sanitizers (`address`, `undefined`, …) stay.
//! * `main` is never renamed (the pass's `EVOTEST_RENAME_MAIN` and `EVOTEST_EXPOSE` are removed
//!   from the compiler's environment): a program keeps its own `main`, and `evotest fuzz` runs it
//!   as a whole program.
//!
//! Queries without inputs (`--version`, `-print-search-dirs`, …) pass through unchanged.

use crate::toolchain::{private_libm_archive, runtime_link_libs, Toolchain};
use anyhow::Result;
use evotest_abi::names::{ENV_PASS_EXPOSE, ENV_PASS_RENAME_MAIN};
use std::ffi::{OsStr, OsString};
use std::path::{Path, PathBuf};
use std::process::Command;

/// Options whose value is the next argument (so that the value is not taken for an input file).
const TAKES_VALUE: &[&str] = &[
    "-o",
    "-I",
    "-D",
    "-U",
    "-include",
    "-imacros",
    "-isystem",
    "-iquote",
    "-idirafter",
    "-iprefix",
    "-iwithprefix",
    "-iwithprefixbefore",
    "-isysroot",
    "-x",
    "-MF",
    "-MT",
    "-MQ",
    "-MJ",
    "-L",
    "-l",
    "-Xlinker",
    "-Xassembler",
    "-Xpreprocessor",
    "-Xclang",
    "-mllvm",
    "-target",
    "-arch",
    "-z",
    "-T",
    "-u",
    "-e",
    "--sysroot",
    "-F",
    "-framework",
    "-include-pch",
    "-ivfsoverlay",
    "-resource-dir",
    "-gcc-toolchain",
    "-dependency-file",
    "-serialize-diagnostics",
    "--param",
    "-Xoffload-linker",
    "-B",
    "-aux-info",
    "-isystem-after",
    "-cxx-isystem",
    "-idirafter",
];

/// Flags after which clang does not link.
const NO_LINK: &[&str] = &[
    "-c",
    "-S",
    "-E",
    "-M",
    "-MM",
    "-fsyntax-only",
    "-emit-llvm",
    "-###",
];

/// What a command line asks the compiler to do, as far as the wrapper cares.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Plan {
    /// The arguments for clang: the user's, with `fuzzer` removed from `-fsanitize=` lists, and
    /// evotest's added.
    pub args: Vec<OsString>,
    /// Whether the command compiles some source (the pass is added).
    pub compiles: bool,
    /// Whether the command links an executable (the runtime or driver is added).
    pub links: bool,
    /// Whether `-fsanitize=fuzzer` asked for a fuzzing engine at link time.
    pub fuzzer: bool,
}

/// Whether `arg` names a source file clang compiles (by extension).
fn is_source(arg: &OsStr) -> bool {
    let s = arg.to_string_lossy();
    let ext = s.rsplit_once('.').map(|(_, e)| e).unwrap_or("");
    matches!(
        ext,
        "c" | "cc"
            | "cpp"
            | "cxx"
            | "c++"
            | "C"
            | "cp"
            | "CPP"
            | "i"
            | "ii"
            | "m"
            | "mm"
            | "ll"
            | "bc"
    )
}

/// Remove `fuzzer` and `fuzzer-no-link` from a `-fsanitize=…` (or `-fno-sanitize=…`) argument.
/// Returns the rewritten argument (`None` if nothing is left) and whether `fuzzer` was in it.
fn strip_fuzzer(arg: &str) -> Option<(Option<String>, bool)> {
    let (prefix, list) = if let Some(l) = arg.strip_prefix("-fsanitize=") {
        ("-fsanitize=", l)
    } else if let Some(l) = arg.strip_prefix("-fno-sanitize=") {
        ("-fno-sanitize=", l)
    } else {
        return None;
    };
    let mut fuzzer = false;
    let kept: Vec<&str> = list
        .split(',')
        .filter(|s| match *s {
            "fuzzer" => {
                fuzzer = prefix == "-fsanitize=";
                false
            }
            "fuzzer-no-link" => false,
            _ => !s.is_empty(),
        })
        .collect();
    let rewritten = (!kept.is_empty()).then(|| format!("{prefix}{}", kept.join(",")));
    Some((rewritten, fuzzer))
}

/// Whether `arg` names a header, which clang precompiles (`h.h -o h.pch`) rather than links.
fn is_header(arg: &OsStr) -> bool {
    let s = arg.to_string_lossy();
    let ext = s.rsplit_once('.').map(|(_, e)| e).unwrap_or("");
    matches!(ext, "h" | "H" | "hh" | "hxx" | "hpp")
}

/// Whether an argument asks for a relocatable link (`-r`, `--relocatable`, or `-r` passed to the
/// linker by `-Wl,` or `-Xlinker`), which must get neither the runtime nor libraries.
fn is_relocatable(arg: &str, linker_value: bool) -> bool {
    const R: &[&str] = &["-r", "--relocatable", "-relocatable"];
    R.contains(&arg)
        || (!linker_value
            && arg
                .strip_prefix("-Wl,")
                .is_some_and(|l| l.split(',').any(|x| R.contains(&x))))
}

/// The clang command line for the user's `args` (without the program name), given the pass, the
/// runtime and the driver.
///
/// A link gets the runtime (or the driver) and [`runtime_link_libs`] after the user's arguments,
/// preceded by `-x none` if a sticky `-x LANG` of the user is still in force (else clang would
/// compile the archive as LANG). No link is: a command with `-c`, `-S`, `-E`, … (`NO_LINK`),
/// `-shared`, a relocatable link (`-r`, `-Wl,-r`), or one whose inputs are all headers (a
/// precompiled header: `h.h -o h.pch`, `-x c-header`). `-static`, `-static-pie` and
/// `-static-libgcc` get the static unwinder (`-lgcc_eh`) instead of `-lgcc_s`.
pub fn plan(
    args: &[OsString],
    pass: &std::path::Path,
    runtime: &std::path::Path,
    driver: Option<&std::path::Path>,
) -> Plan {
    let mut user = Vec::new();
    let mut fuzzer = false;
    let mut no_link = false;
    let mut shared = false;
    let mut relocatable = false;
    let mut static_link = false;
    // the sticky `-x LANG` in force (`None`: by extension)
    let mut lang: Option<String> = None;
    let mut linked_inputs = 0;
    let mut sources = 0;
    let mut i = 0;
    while i < args.len() {
        let a = &args[i];
        let s = a.to_string_lossy();
        if let Some((rewritten, f)) = strip_fuzzer(&s) {
            fuzzer |= f;
            if let Some(r) = rewritten {
                user.push(OsString::from(r));
            }
            i += 1;
            continue;
        }
        if NO_LINK.contains(&s.as_ref()) {
            no_link = true;
        }
        if s == "-shared" {
            shared = true;
        }
        if matches!(
            s.as_ref(),
            "-static" | "--static" | "-static-pie" | "-static-libgcc"
        ) {
            static_link = true;
        }
        relocatable |= is_relocatable(&s, false);
        if TAKES_VALUE.contains(&s.as_ref()) {
            user.push(a.clone());
            if let Some(v) = args.get(i + 1) {
                let v_str = v.to_string_lossy();
                if s == "-x" {
                    lang = Some(v_str.to_string()).filter(|l| l != "none");
                }
                if s == "-Xlinker" {
                    relocatable |= is_relocatable(&v_str, true);
                }
                user.push(v.clone());
            }
            i += 2;
            continue;
        }
        if let Some(l) = s.strip_prefix("-x") {
            // `-xc`, the joined form
            lang = Some(l.to_string()).filter(|l| l != "none");
        }
        if s == "-" || !s.starts_with('-') {
            let header = match &lang {
                Some(l) => l.ends_with("header"),
                None => is_header(a),
            };
            if !header {
                linked_inputs += 1;
            }
            if lang.is_some() || s == "-" || is_source(a) || header {
                sources += 1;
            }
        }
        user.push(a.clone());
        i += 1;
    }
    // `-x c` makes any input a source; a stdin input (`-`) is one too; a header is precompiled.
    let compiles = sources > 0 && !args.iter().any(|a| a == "-E");
    let links = linked_inputs > 0 && !no_link && !shared && !relocatable;
    let mut out: Vec<OsString> = Vec::new();
    let driver = driver.filter(|_| fuzzer && links);
    if let Some(d) = driver {
        // first, so that its main() pulls LLVMFuzzerTestOneInput out of the user's archives
        out.push(d.as_os_str().to_owned());
    }
    if compiles {
        let mut p = OsString::from("-fpass-plugin=");
        p.push(pass.as_os_str());
        out.push(p);
        out.push("-g".into());
        out.push("-Wno-unused-command-line-argument".into());
    }
    out.extend(user);
    if links {
        if lang.is_some() {
            // the user's sticky `-x LANG` must not apply to the archive
            out.extend(["-x".into(), "none".into()]);
        }
        // last, for the probes of the user's objects (the driver includes the runtime)
        out.push(driver.unwrap_or(runtime).as_os_str().to_owned());
        out.extend(
            runtime_link_libs(static_link)
                .into_iter()
                .map(OsString::from),
        );
        if !static_link {
            // an instrumented plugin the program dlopen()s later finds the probes' symbols
            // in the program (a library linked at start-up has them exported by the linker)
            out.push("-Wl,--export-dynamic-symbol=__evotest_*".into());
        }
    }
    if shared && !no_link && linked_inputs > 0 {
        // the probes are defined by the executable that loads the library: a `-Wl,--no-undefined`
        // or `-Wl,-z,defs` of the build (meson's default, `b_lundef`) must not refuse them
        out.push("-Wl,-z,undefs".into());
    }
    Plan {
        args: out,
        compiles,
        links,
        fuzzer,
    }
}

/// Run the wrapper: `cxx` selects C++ (`clang --driver-mode=g++`), `args` are the arguments
/// after the program name. Replaces the process with clang; returns only on error.
///
/// A link gets the runtime (or driver) with its libm made private ([`private_libm_archive`]).
///
/// Errors (one line): LLVM 22, the pass, the runtime or (for `-fsanitize=fuzzer` links) the
/// driver not found; clang cannot be started.
/// The flag of `args` that asks for a target other than x86-64 (`-m32`, `-m16`, `-mx32`,
/// `--target=aarch64-…`), for which evotest's runtime has no build: the link would fail with a
/// screen of the linker's errors about the runtime archive, and an object compiled alone would
/// call probes nothing provides.
fn foreign_target(args: &[OsString]) -> Option<String> {
    let mut it = args.iter().map(|a| a.to_string_lossy());
    while let Some(a) = it.next() {
        let triple = if matches!(a.as_ref(), "-m32" | "-m16" | "-mx32") {
            return Some(a.into_owned());
        } else if let Some(t) = a.strip_prefix("--target=") {
            t.to_string()
        } else if a == "-target" || a == "--target" {
            it.next().map(|t| t.into_owned()).unwrap_or_default()
        } else {
            continue;
        };
        if !(triple.starts_with("x86_64") || triple.starts_with("amd64")) || triple.contains("x32")
        {
            return Some(format!("--target={triple}"));
        }
    }
    None
}

pub fn exec(cxx: bool, args: &[OsString]) -> Result<std::convert::Infallible> {
    use std::os::unix::process::CommandExt;
    if let Some(flag) = foreign_target(args) {
        anyhow::bail!(
            "{flag} is not supported: evotest instruments and links for x86-64 only (its runtime has no other build)"
        );
    }
    let tc = Toolchain::locate_unchecked()?;
    link_binutils(&tc.clang);
    let wants_driver = args
        .iter()
        .any(|a| strip_fuzzer(&a.to_string_lossy()).is_some_and(|(_, f)| f));
    let driver: Option<PathBuf> = if wants_driver {
        Some(Toolchain::driver()?)
    } else {
        None
    };
    let mut p = plan(args, &tc.pass, &tc.runtime, driver.as_deref());
    if p.links {
        // with the runtime's own libm private, so that the user's code needs `-lm` as with clang
        let runtime = private_libm_archive(&tc.clang, &tc.runtime);
        let driver = driver.map(|d| private_libm_archive(&tc.clang, &d));
        p = plan(args, &tc.pass, &runtime, driver.as_deref());
    }
    let mut cmd = Command::new(&tc.clang);
    if cxx {
        cmd.arg("--driver-mode=g++");
    }
    cmd.args(&p.args)
        .env_remove(ENV_PASS_RENAME_MAIN)
        .env_remove(ENV_PASS_EXPOSE);
    let e = cmd.exec();
    anyhow::bail!("cannot run {}: {e}", tc.clang.display())
}

/// LLVM's binutils that build systems look for next to the compiler (CMake's
/// `CMakeFindBinUtils`, for a compiler it takes for clang: `llvm-ar`, `llvm-ranlib`, … in the
/// compiler's directory first, then on `PATH`).
const BINUTILS: [&str; 8] = [
    "llvm-ar",
    "llvm-ranlib",
    "llvm-nm",
    "llvm-objcopy",
    "llvm-objdump",
    "llvm-readelf",
    "llvm-strip",
    "ld.lld",
];

/// Put links to LLVM 22's binutils (those next to the real `clang`, [`BINUTILS`]) beside the
/// wrapper, once, when they are missing and the wrapper's directory is evotest's own (it holds
/// the runtime, `libevotest_rt.a`): CMake looks for `llvm-ar` next to the compiler, and without
/// the links it took an unversioned `llvm-ar` from `PATH` (LLVM 14 on Debian 12, beside AFL++),
/// which cannot read LLVM 22's bitcode, so a `-flto` static library failed to build. A link
/// that cannot be made (a read-only directory, another build making it at the same moment) is
/// left; the wrapper's work does not depend on it.
fn link_binutils(clang: &Path) {
    let Some(dir) = std::env::current_exe()
        .ok()
        .and_then(|e| e.parent().map(Path::to_path_buf))
    else {
        return;
    };
    if dir.join(BINUTILS[0]).symlink_metadata().is_ok() || !dir.join("libevotest_rt.a").is_file() {
        return;
    }
    let real = clang.canonicalize().unwrap_or_else(|_| clang.to_path_buf());
    let Some(llvm) = real.parent() else {
        return;
    };
    for t in BINUTILS {
        let from = llvm.join(t);
        if from.is_file() {
            let _ = std::os::unix::fs::symlink(&from, dir.join(t));
        }
    }
}

/// `main` of `evotest-cc` (`cxx` false) and `evotest-cxx`: run clang, or print a one-line error
/// and exit 2.
pub fn main(cxx: bool) -> ! {
    let args: Vec<OsString> = std::env::args_os().skip(1).collect();
    let name = if cxx { "evotest-c++" } else { "evotest-cc" };
    match exec(cxx, &args) {
        Ok(never) => match never {},
        Err(e) => {
            eprintln!("{name}: error: {}", format!("{e:#}").replace('\n', " "));
            std::process::exit(2)
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::path::Path;

    #[test]
    fn a_target_other_than_x86_64_is_named() {
        let a = |v: &[&str]| v.iter().map(OsString::from).collect::<Vec<_>>();
        assert_eq!(
            foreign_target(&a(&["-m32", "-c", "a.c"])).as_deref(),
            Some("-m32")
        );
        assert_eq!(
            foreign_target(&a(&["-target", "aarch64-linux-gnu", "a.c"])).as_deref(),
            Some("--target=aarch64-linux-gnu")
        );
        assert_eq!(
            foreign_target(&a(&["--target=x86_64-pc-linux-gnu", "-m64", "a.c"])),
            None
        );
        assert_eq!(foreign_target(&a(&["-O2", "a.c"])), None);
    }

    fn p(args: &[&str]) -> Plan {
        let a: Vec<OsString> = args.iter().map(OsString::from).collect();
        plan(
            &a,
            Path::new("/x/pass.so"),
            Path::new("/x/rt.a"),
            Some(Path::new("/x/driver.a")),
        )
    }

    fn strs(p: &Plan) -> Vec<String> {
        p.args
            .iter()
            .map(|a| a.to_string_lossy().into_owned())
            .collect()
    }

    #[test]
    fn compile_only_gets_the_pass_and_no_runtime() {
        let r = p(&[
            "-O2",
            "-fsanitize=address,fuzzer-no-link",
            "-c",
            "a.c",
            "-o",
            "a.o",
        ]);
        assert!(r.compiles && !r.links && !r.fuzzer);
        let a = strs(&r);
        assert_eq!(a[0], "-fpass-plugin=/x/pass.so");
        assert!(a.contains(&"-fsanitize=address".to_string()));
        assert!(!a.iter().any(|x| x.contains("fuzzer")));
        assert!(!a.contains(&"/x/rt.a".to_string()));
        // the user's -O level stays, after ours
        assert!(a.iter().position(|x| x == "-O2") > a.iter().position(|x| x == "-g"));
    }

    #[test]
    fn fuzzer_link_uses_the_driver() {
        let r = p(&["h.o", "lib.a", "-fsanitize=fuzzer", "-o", "harness"]);
        assert!(r.links && r.fuzzer && !r.compiles);
        let a = strs(&r);
        assert!(a.contains(&"/x/driver.a".to_string()) && !a.contains(&"/x/rt.a".to_string()));
        // before the user's archives (main needs their LLVMFuzzerTestOneInput) and after them
        assert_eq!(a.first().map(String::as_str), Some("/x/driver.a"));
        assert_eq!(a.iter().filter(|x| *x == "/x/driver.a").count(), 2);
        assert!(!a.iter().any(|x| x.starts_with("-fsanitize")));
        assert!(a.contains(&"-lgcc_s".to_string()) && !a.contains(&"-lm".to_string()));
        // compile and link at once, with another sanitizer kept
        let r = p(&["-fsanitize=fuzzer,address", "h.cc", "-o", "h"]);
        assert!(r.links && r.fuzzer && r.compiles);
        assert!(strs(&r).contains(&"-fsanitize=address".to_string()));
    }

    #[test]
    fn plain_link_gets_the_runtime_and_queries_pass_through() {
        let r = p(&["prog.c", "-o", "prog"]);
        assert!(r.compiles && r.links);
        assert!(strs(&r).contains(&"/x/rt.a".to_string()));
        for q in [
            &["--version"][..],
            &["-print-search-dirs"],
            &["-dumpmachine"],
            &["-E", "-dM", "-"],
        ] {
            let r = p(q);
            assert!(!r.links && !r.compiles, "{q:?}");
            assert_eq!(
                strs(&r),
                q.iter().map(|s| s.to_string()).collect::<Vec<_>>()
            );
        }
        // an option's value is not an input
        let r = p(&["-o", "out.c", "-I", "inc"]);
        assert!(!r.links && !r.compiles);
        // a shared library gets no runtime, and may leave the probes undefined even when the
        // build says --no-undefined
        let r = p(&["-shared", "a.o", "-Wl,--no-undefined", "-o", "liba.so"]);
        assert_eq!(r.args.last().unwrap(), "-Wl,-z,undefs");
        assert!(!r.links);
    }

    #[test]
    fn sticky_language_is_reset_before_the_runtime() {
        for args in [
            &["-x", "c", "prog.txt", "-o", "p"][..],
            &["-xc", "-", "-o", "p"],
        ] {
            let r = p(args);
            assert!(r.compiles && r.links, "{args:?}");
            let a = strs(&r);
            let rt = a.iter().position(|x| x == "/x/rt.a").unwrap();
            assert_eq!(&a[rt - 2..rt], ["-x", "none"], "{a:?}");
        }
        // no `-x` of the user: nothing added; a user's own `-x none` ends it
        for args in [
            &["prog.c", "-o", "p"][..],
            &["-x", "c", "a.txt", "-x", "none", "b.o", "-o", "p"],
        ] {
            let nones = |v: &[&str]| v.iter().filter(|x| **x == "none").count();
            let a = strs(&p(args));
            assert_eq!(
                nones(&a.iter().map(String::as_str).collect::<Vec<_>>()),
                nones(args),
                "{a:?}"
            );
        }
    }

    #[test]
    fn relocatable_links_and_headers_get_no_runtime() {
        for args in [
            &["-r", "a.o", "-o", "r.o"][..],
            &["-Wl,-r", "a.o", "-o", "r.o"],
            &["-Wl,--relocatable", "a.o", "-o", "r.o"],
            &["-Xlinker", "-r", "a.o", "-o", "r.o"],
            &["-r", "a.c", "-fsanitize=fuzzer", "-o", "r.o"],
            &["h.h", "-o", "h.pch"],
            &["-x", "c-header", "h.txt", "-o", "h.pch"],
            &["-x", "c++-header", "h.hh"],
        ] {
            let r = p(args);
            assert!(!r.links, "{args:?}");
            let a = strs(&r);
            assert!(
                !a.iter().any(|x| x.ends_with(".a") || x.starts_with("-l")),
                "{a:?}"
            );
        }
        // `-Wl,-rpath,…` is not `-r`; a source next to a header still links
        assert!(p(&["-Wl,-rpath,/x", "a.o", "-o", "p"]).links);
        assert!(p(&["a.c", "h.h"]).links);
    }

    #[test]
    fn static_links_get_the_static_unwinder_and_no_libm() {
        let a = strs(&p(&["-static", "a.c", "-o", "a"]));
        assert!(
            a.contains(&"-lgcc_eh".to_string()) && !a.contains(&"-lgcc_s".to_string()),
            "{a:?}"
        );
        let a = strs(&p(&["a.c", "-o", "a"]));
        assert!(
            a.contains(&"-lgcc_s".to_string()) && !a.contains(&"-lgcc_eh".to_string()),
            "{a:?}"
        );
        for lib in ["-lm", "-lutil"] {
            assert!(!a.contains(&lib.to_string()), "{a:?}");
        }
    }
}
