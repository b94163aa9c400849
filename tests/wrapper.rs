//! End-to-end tests of the compiler wrappers `evotest-cc`/`evotest-c++` on the command lines of
//! build systems: a sticky `-x LANG`, `-static` and relocatable (`-r`) links, library probes
//! (`-lm`), precompiled headers; and of `evotest run`'s message when the harness does not link.

mod common;

use common::*;
use std::io::Write;
use std::path::{Path, PathBuf};
use std::process::{Command, Output, Stdio};
use std::time::{Duration, Instant};

/// The wrapper `name` (`evotest-cc` or `evotest-cxx`), built next to the pass and runtime.
fn wrapper(name: &str) -> Command {
    let exe = match name {
        "evotest-cc" => env!("CARGO_BIN_EXE_evotest-cc"),
        _ => env!("CARGO_BIN_EXE_evotest-cxx"),
    };
    Command::new(exe)
}

/// Run `evotest-cc ARGS…` in `dir`, with `stdin` as its input; killed after `limit`.
fn cc_in(dir: &Path, args: &[&str], stdin: &str, limit: Duration) -> Output {
    let mut child = wrapper("evotest-cc")
        .args(args)
        .current_dir(dir)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    child
        .stdin
        .take()
        .unwrap()
        .write_all(stdin.as_bytes())
        .unwrap();
    let start = Instant::now();
    while child.try_wait().unwrap().is_none() {
        if start.elapsed() > limit {
            let _ = child.kill();
            let o = child.wait_with_output().unwrap();
            panic!(
                "evotest-cc {args:?} still running after {limit:?}:\n{}",
                String::from_utf8_lossy(&o.stderr)
            );
        }
        std::thread::sleep(Duration::from_millis(20));
    }
    child.wait_with_output().unwrap()
}

/// Run `evotest-cc ARGS…` in `dir`, which must succeed within 60 s.
fn cc_ok(dir: &Path, args: &[&str]) -> Output {
    let o = cc_in(dir, args, "", Duration::from_secs(60));
    assert!(
        o.status.success(),
        "evotest-cc {args:?} failed:\n{}",
        String::from_utf8_lossy(&o.stderr)
    );
    o
}

/// Run program `exe` and return its exit status code.
fn run(exe: &Path, args: &[&str]) -> i32 {
    let o = Command::new(exe).args(args).output().unwrap();
    o.status
        .code()
        .unwrap_or_else(|| panic!("{} killed: {:?}", exe.display(), o.status))
}

/// A fresh temporary directory with `files` (name, text) written in it.
fn dir_with(files: &[(&str, &str)]) -> tempfile::TempDir {
    let d = tempfile::tempdir().unwrap();
    for (name, text) in files {
        std::fs::write(d.path().join(name), text).unwrap();
    }
    d
}

/// The ELF file `p`, parsed.
fn elf(p: &Path) -> (object::FileKind, Vec<u8>) {
    let data = std::fs::read(p).unwrap();
    (object::FileKind::parse(&*data).unwrap(), data)
}

/// Names of the symbols that the ELF file `data` defines.
fn defined_symbols(data: &[u8]) -> Vec<String> {
    use object::{Object, ObjectSymbol};
    let f = object::File::parse(data).unwrap();
    f.symbols()
        .filter(|s| s.is_definition())
        .filter_map(|s| s.name().ok().map(String::from))
        .collect()
}

#[test]
fn a_sticky_language_does_not_apply_to_the_runtime() {
    let d = dir_with(&[
        ("prog.txt", "int f(int x) { return x > 2 ? 3 : 4; }\nint main(int c, char **v) { return f(c + 1); }\n"),
        ("m.S", ".globl main\nmain:\n xor %eax,%eax\n ret\n"),
    ]);
    // a file clang would not take for C by its name
    cc_ok(d.path(), &["-x", "c", "prog.txt", "-o", "p"]);
    assert_eq!(run(&d.path().join("p"), &["a", "b"]), 3);
    // the joined form, from standard input
    let o = cc_in(
        d.path(),
        &["-xc", "-", "-o", "s"],
        "int main(void) { return 5; }\n",
        Duration::from_secs(60),
    );
    assert!(
        o.status.success(),
        "stdin: {}",
        String::from_utf8_lossy(&o.stderr)
    );
    assert_eq!(run(&d.path().join("s"), &[]), 5);
    // preprocessed assembler: the archive must not be preprocessed (that took minutes)
    let o = cc_in(
        d.path(),
        &["-x", "assembler-with-cpp", "m.S", "-o", "m"],
        "",
        Duration::from_secs(30),
    );
    assert!(
        o.status.success(),
        "assembler: {}",
        String::from_utf8_lossy(&o.stderr)
    );
    assert_eq!(run(&d.path().join("m"), &[]), 0);
}

#[test]
fn static_links_run_and_relocatable_links_get_no_runtime() {
    let d = dir_with(&[(
        "a.c",
        "int f(int x) { return x > 3 ? 7 : 9; }\nint main(int c, char **v) { return f(c); }\n",
    )]);
    // -static: links (no -lgcc_s), is static, runs
    cc_ok(d.path(), &["-static", "a.c", "-o", "st"]);
    let st = d.path().join("st");
    let (_, data) = elf(&st);
    {
        use object::Object;
        let f = object::File::parse(&*data).unwrap();
        assert!(
            f.section_by_name(".interp").is_none(),
            "-static gave a dynamic executable"
        );
    }
    assert!(
        defined_symbols(&data)
            .iter()
            .any(|s| s == "__evotest_register_module"),
        "no runtime in the static program"
    );
    assert_eq!(run(&st, &[]), 9);
    assert_eq!(run(&st, &["a", "b", "c", "d"]), 7);
    // -r, -Wl,-r: a relocatable object without the runtime, which then links as usual (the linker's
    // `-r` needs `-nostdlib -no-pie`, as with clang)
    cc_ok(d.path(), &["-c", "a.c", "-o", "a.o"]);
    for (flags, out) in [
        (&["-r"][..], "r1.o"),
        (&["-nostdlib", "-no-pie", "-Wl,-r"], "r2.o"),
        (&["-nostdlib", "-no-pie", "-Xlinker", "-r"], "r3.o"),
    ] {
        let mut args = flags.to_vec();
        args.extend(["a.o", "-o", out]);
        cc_ok(d.path(), &args);
        let (kind, data) = elf(&d.path().join(out));
        assert_eq!(kind, object::FileKind::Elf64, "{flags:?}");
        {
            use object::Object;
            let f = object::File::parse(&*data).unwrap();
            assert_eq!(f.kind(), object::ObjectKind::Relocatable, "{flags:?}");
        }
        let defs = defined_symbols(&data);
        assert!(defs.iter().any(|s| s == "f"), "{flags:?}: {defs:?}");
        assert!(
            !defs.iter().any(|s| s.starts_with("__evotest_register")
                || s.starts_with("_ZN")
                || s.starts_with("_R")),
            "{flags:?}: the runtime was linked in"
        );
    }
    cc_ok(d.path(), &["r1.o", "-o", "fromr"]);
    assert_eq!(run(&d.path().join("fromr"), &[]), 9);
}

#[test]
fn libm_is_linked_only_when_asked_for() {
    // autoconf's AC_SEARCH_LIBS([cbrt], [m]) probe, and a real user of libm
    let d = dir_with(&[
        ("probe.c", "char cbrt ();\nint main (void) { return cbrt (); }\n"),
        ("m.c", "#include <math.h>\nint main(int c, char **v) { return (int)(cbrt(27.0 * c) + floor(0.5 * c)); }\n"),
    ]);
    let o = cc_in(
        d.path(),
        &["probe.c", "-o", "probe"],
        "",
        Duration::from_secs(60),
    );
    let err = String::from_utf8_lossy(&o.stderr);
    assert!(
        !o.status.success() && err.contains("undefined reference to `cbrt'"),
        "cbrt resolved without -lm:\n{err}"
    );
    cc_ok(d.path(), &["probe.c", "-o", "probe", "-lm"]);
    let o = cc_in(d.path(), &["m.c", "-o", "m"], "", Duration::from_secs(60));
    assert!(!o.status.success(), "math functions resolved without -lm");
    cc_ok(d.path(), &["m.c", "-o", "m", "-lm"]);
    assert_eq!(run(&d.path().join("m"), &[]), 3);
    // cbrt(54) + floor(1)
    assert_eq!(run(&d.path().join("m"), &["a"]), 4);
    // the runtime's own needs are met without libraries of the user (`-lpthread`, `-ldl`, …),
    // in C++ too
    let d2 = dir_with(&[("p.cc", "#include <string>\nint main(int c, char **) { std::string s(c, 'x'); return s.size() > 1 ? 6 : 2; }\n")]);
    let o = wrapper("evotest-cxx")
        .current_dir(d2.path())
        .args(["p.cc", "-o", "p"])
        .output()
        .unwrap();
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    assert_eq!(run(&d2.path().join("p"), &[]), 2);
}

#[test]
fn a_precompiled_header_is_not_a_link() {
    let d = dir_with(&[
        ("h.h", "static inline int hh(int x) { return x > 5; }\n"),
        (
            "use.c",
            "int main(int c, char **v) { return hh(c + 5) ? 4 : 8; }\n",
        ),
    ]);
    for (args, out) in [
        (&["-x", "c-header", "h.h", "-o", "h.pch"][..], "h.pch"),
        (&["h.h", "-o", "h2.pch"], "h2.pch"),
    ] {
        cc_ok(d.path(), args);
        let data = std::fs::read(d.path().join(out)).unwrap();
        assert!(
            data.starts_with(b"CPCH"),
            "{args:?}: {out} is no precompiled header"
        );
    }
    // and it is usable
    cc_ok(d.path(), &["-include-pch", "h.pch", "use.c", "-o", "u"]);
    assert_eq!(run(&d.path().join("u"), &[]), 4);
}

#[test]
fn run_quotes_the_linkers_message() {
    let d = dir_with(&[(
        "u.c",
        "int c_tolower(int c);\nint f(int a) {\n  if (c_tolower(a) == 'x')\n    return 1;\n  return 0;\n}\n",
    )]);
    let src: PathBuf = d.path().join("u.c");
    let o = evotest()
        .arg("run")
        .arg(&src)
        .args(["-f", "f", "--max-time", "2s", "--out"])
        .arg(d.path().join("out"))
        .output()
        .unwrap();
    let line = assert_one_line_error(&o);
    assert!(line.contains("linking the harness failed"), "{line}");
    assert!(
        line.contains("undefined reference to `c_tolower'"),
        "{line}"
    );
    assert!(line.len() < 400, "too long: {line}");
}

/// A shared library built with `-Wl,--no-undefined` or `-Wl,-z,defs` (meson's default) links:
/// the probes it calls are the executable's, and an instrumented program that loads it runs.
#[test]
fn a_shared_library_links_under_no_undefined() {
    let d = dir_with(&[
        ("lib.c", "int pick(int x) { if (x > 3) return 1; return 0; }\n"),
        ("main.c", "int pick(int);\nint main(int argc, char **argv) { (void)argv; return pick(argc + 5); }\n"),
    ]);
    for flag in ["-Wl,--no-undefined", "-Wl,-z,defs"] {
        cc_ok(
            d.path(),
            &["-shared", "-fPIC", flag, "lib.c", "-o", "libpick.so"],
        );
    }
    cc_ok(
        d.path(),
        &[
            "main.c",
            "-L.",
            "-lpick",
            "-Wl,-rpath,$ORIGIN",
            "-o",
            "prog",
        ],
    );
    assert_eq!(run(&d.path().join("prog"), &[]), 1);
}

/// A harness that finds its instrumented library through a relative search path (a relative
/// RUNPATH or LD_LIBRARY_PATH, resolved against the working directory) is fuzzed with the
/// library's metadata; a libtool wrapper script in its place gets a one-line error that names
/// the program it runs.
#[test]
fn a_harness_with_a_relative_library_path_and_a_libtool_wrapper() {
    let d = dir_with(&[
        ("lib.c", "int pick(const unsigned char *d, unsigned long n) { if (n > 2 && d[0] == 'k') return 1; return 0; }\n"),
        ("h.c", "int pick(const unsigned char *, unsigned long);\nint LLVMFuzzerTestOneInput(const unsigned char *d, unsigned long n) { pick(d, n); return 0; }\n"),
    ]);
    std::fs::create_dir_all(d.path().join("lib")).unwrap();
    cc_ok(
        d.path(),
        &["-shared", "-fPIC", "lib.c", "-o", "lib/libpick.so"],
    );
    cc_ok(
        d.path(),
        &[
            "-fsanitize=fuzzer",
            "h.c",
            "-Llib",
            "-lpick",
            "-Wl,-rpath,lib",
            "-o",
            "harness",
        ],
    );
    let o = evotest()
        .current_dir(d.path())
        .args(["fuzz", "./harness", "corpus", "-runs=3000", "-seed=1"])
        .output()
        .unwrap();
    let err = String::from_utf8_lossy(&o.stderr);
    assert!(o.status.success(), "{err}");
    // the library's two sites count: 4 outcomes of pick, besides the harness's none
    assert!(err.contains("/4 branch outcomes"), "{err}");
    std::fs::write(d.path().join("wrapped"), "#! /bin/sh\n# wrapped - temporary wrapper script for .libs/wrapped\n# Generated by libtool (GNU libtool) 2.4.7\nexit 1\n").unwrap();
    let o = evotest()
        .current_dir(d.path())
        .args(["fuzz", "./wrapped", "corpus2", "-seed=1"])
        .output()
        .unwrap();
    let e = assert_one_line_error(&o);
    assert!(
        e.contains("is a libtool wrapper script") && e.contains(".libs/wrapped"),
        "{e}"
    );
}

/// `--in_process` loads the engine into the harness with `dlopen`: a `-static` harness is
/// refused in one line that says so (the fork server fuzzes it).
#[test]
fn in_process_refuses_a_static_harness_in_one_line() {
    let d = dir_with(&[("h.c", "int LLVMFuzzerTestOneInput(const unsigned char *d, unsigned long n) { return n > 3 && d[0] == 'x'; }\n")]);
    cc_ok(
        d.path(),
        &["-fsanitize=fuzzer", "-static", "h.c", "-o", "h.static"],
    );
    let o = evotest()
        .current_dir(d.path())
        .args(["fuzz", "./h.static", "c1", "-runs=2000", "-seed=1"])
        .output()
        .unwrap();
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    let o = evotest()
        .current_dir(d.path())
        .args([
            "fuzz",
            "./h.static",
            "c2",
            "-runs=2000",
            "-seed=1",
            "--in_process",
        ])
        .output()
        .unwrap();
    let e = assert_one_line_error(&o);
    assert!(
        e.contains("statically linked") && e.contains("without --in_process"),
        "{e}"
    );
}

/// The probes compute distances in `double`; they must leave the program's floating-point
/// environment as its own compare left it: no IEEE flag raised (`1e-20 < 1.0` raised
/// `FE_INEXACT`, `-DBL_MAX < DBL_MAX` `FE_OVERFLOW`), and no `SIGFPE` where the program enabled
/// the overflow trap (it died in the probe).
#[test]
fn probes_leave_the_floating_point_environment_as_the_program_left_it() {
    let d = dir_with(&[(
        "fp.c",
        r#"#define _GNU_SOURCE
#include <fenv.h>
#include <float.h>
#include <stdio.h>
__attribute__((noinline)) int less(double a, double b) { if (a < b) return 1; return 0; }
__attribute__((noinline)) int big(long long a) { if (a == 123456789012345678LL) return 2; return 0; }
int main(void) {
  volatile double lo = -DBL_MAX, hi = DBL_MAX, tiny = 1e-20, one = 1.0;
  volatile long long n = 987654321987654321LL;
  feclearexcept(FE_ALL_EXCEPT);
  int r = less(lo, hi) + less(tiny, one) + big(n);
  if (fetestexcept(FE_ALL_EXCEPT)) { printf("flags %x\n", fetestexcept(FE_ALL_EXCEPT)); return 1; }
  feenableexcept(FE_OVERFLOW | FE_INEXACT);
  r += less(lo, hi) + less(tiny, one) + big(n);
  return r == 4 ? 0 : 2;
}
"#,
    )]);
    for opt in ["-O0", "-O2"] {
        cc_ok(d.path(), &[opt, "fp.c", "-o", "fp", "-lm"]);
        assert_eq!(run(&d.path().join("fp"), &[]), 0, "{opt}");
    }
}

/// `__float128` and `_Float16` arithmetic goes to libgcc's helpers, which honour the rounding
/// mode, not to the Rust runtime's copies of them (which came first in the link).
#[test]
fn soft_float_arithmetic_honours_the_rounding_mode() {
    let d = dir_with(&[(
        "q.c",
        r#"#include <fenv.h>
#include <string.h>
int main(void) {
  volatile __float128 one = 1, three = 3;
  __float128 n = one / three;
  fesetround(FE_UPWARD);
  __float128 u = one / three;
  fesetround(FE_TONEAREST);
  return memcmp(&n, &u, 16) != 0 ? 0 : 1;
}
"#,
    )]);
    cc_ok(d.path(), &["q.c", "-o", "q", "-lm"]);
    assert_eq!(
        run(&d.path().join("q"), &[]),
        0,
        "1/3 rounded upward equals round-to-nearest"
    );
}

/// Builds that make the wrappers' private copy of the runtime at the same time (a parallel
/// `make` on a fresh account) each link that copy: none links the archive whose weak `cbrt`
/// resolves a call without `-lm`, and none prints llvm-objcopy's errors.
#[test]
fn concurrent_first_links_all_use_the_private_runtime() {
    let d = dir_with(&[(
        "probe.c",
        "char cbrt ();\nint main (void) { return cbrt (); }\n",
    )]);
    let cache = d.path().join("cache");
    let kids: Vec<_> = (0..8)
        .map(|i| {
            wrapper("evotest-cc")
                .current_dir(d.path())
                .env("XDG_CACHE_HOME", &cache)
                .args(["probe.c", "-o", &format!("p{i}")])
                .stdout(Stdio::piped())
                .stderr(Stdio::piped())
                .spawn()
                .unwrap()
        })
        .collect();
    for k in kids {
        let o = k.wait_with_output().unwrap();
        let err = String::from_utf8_lossy(&o.stderr);
        assert!(
            !o.status.success() && err.contains("undefined reference to `cbrt'"),
            "cbrt resolved without -lm:\n{err}"
        );
        assert!(!err.contains("objcopy"), "{err}");
    }
}

/// An instrumented program that `dlopen()`s an instrumented plugin: the plugin's probes resolve
/// to the program's runtime (it failed with "undefined symbol: __evotest_events_flag", as the
/// program did not export them).
#[test]
fn an_instrumented_program_loads_an_instrumented_plugin() {
    let d = dir_with(&[
        ("plug.c", "int l1(int x) { if (x > 5) return x - 5; return x + 100; }\n"),
        (
            "host.c",
            "#include <dlfcn.h>\n#include <stdio.h>\nint main(int c, char **v) { void *h = dlopen(v[1], RTLD_NOW); if (!h) { puts(dlerror()); return 2; } int (*f)(int) = (int (*)(int))dlsym(h, \"l1\"); return f(7) + f(1) == 103 ? 0 : 1; }\n",
        ),
    ]);
    cc_ok(
        d.path(),
        &["-shared", "-fPIC", "-O2", "plug.c", "-o", "plug.so"],
    );
    cc_ok(d.path(), &["-O2", "host.c", "-o", "host"]);
    let plug = d.path().join("plug.so");
    assert_eq!(run(&d.path().join("host"), &[plug.to_str().unwrap()]), 0);
}

/// Inline asm is assembled once at every level: at -O1 and above the pass gives functions a
/// coverage-only clone, and a clone of a function with inline asm repeated the asm, so that a
/// global label it defines was defined twice (the build failed) and the entries it adds to a
/// section (a linker set, `.init_array`) were there twice (the init ran twice). Such a function
/// now has no clone.
#[test]
fn inline_asm_is_assembled_once_at_every_level() {
    let d = dir_with(&[(
        "asm.c",
        r#"#include <stdio.h>
static int inits;
static void count_init(void) { inits++; }
extern const long __start_evotab[], __stop_evotab[];
extern const char evotest_marker[];
__attribute__((noinline, used)) int worker(int x) {
  if (x > 3) x *= 2;
  __asm__ volatile(".globl evotest_marker\nevotest_marker:\n\tnop\n\t.pushsection evotab,\"aw\"\n\t.quad 1f\n\t.popsection\n1:\n\t.pushsection .init_array,\"aw\"\n\t.quad %c0\n\t.popsection" :: "i"(count_init));
  return x + 1;
}
int main(int argc, char **argv) {
  (void)argv;
  printf("%d %ld %d %d\n", worker(argc + 4), (long)(__stop_evotab - __start_evotab), inits, evotest_marker[0] == (char)0x90);
  return 0;
}
"#,
    )]);
    for opt in ["-O0", "-O1", "-O2", "-O3"] {
        cc_ok(d.path(), &[opt, "asm.c", "-o", "p"]);
        let o = Command::new(d.path().join("p")).output().unwrap();
        assert!(o.status.success(), "{opt}: {:?}", o.status);
        // worker(5), one table entry, one init, the label at the `nop`
        assert_eq!(String::from_utf8_lossy(&o.stdout), "11 1 1 1\n", "{opt}");
    }
}

#[test]
fn cmake_builds_an_lto_static_library_with_llvm_22_s_archiver() {
    // CMake looks for llvm-ar next to the compiler, then on PATH: with evotest-cc it took an
    // unversioned llvm-ar (LLVM 14 beside AFL++), which cannot read LLVM 22's bitcode, and the
    // archive step of a -flto static library failed; the wrapper puts links to LLVM 22's
    // binutils beside itself
    let d = dir_with(&[
        (
            "CMakeLists.txt",
            "cmake_minimum_required(VERSION 3.13)\nproject(lto C)\nadd_library(foo STATIC foo.c)\nadd_executable(main main.c)\ntarget_link_libraries(main foo)\n",
        ),
        ("foo.c", "int foo(int x) { if (x > 3) return x * 2; return x; }\n"),
        (
            "main.c",
            "#include <stdio.h>\nint foo(int);\nint main(void) { printf(\"%d\\n\", foo(5)); return 0; }\n",
        ),
    ]);
    let b = d.path().join("build");
    let o = Command::new("cmake")
        .args([
            "-S",
            ".",
            "-B",
            "build",
            "-DCMAKE_C_FLAGS=-flto",
            "-DCMAKE_EXE_LINKER_FLAGS=-flto",
        ])
        .arg(format!(
            "-DCMAKE_C_COMPILER={}",
            env!("CARGO_BIN_EXE_evotest-cc")
        ))
        .current_dir(d.path())
        .output()
        .expect("cmake (make setup-bench installs it)");
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    let cache = std::fs::read_to_string(b.join("CMakeCache.txt")).unwrap();
    let ar = cache
        .lines()
        .find_map(|l| l.strip_prefix("CMAKE_AR:FILEPATH="))
        .unwrap_or_default()
        .to_string();
    let real = std::fs::canonicalize(&ar).unwrap_or_default();
    assert!(
        real.to_string_lossy().contains("llvm-22"),
        "CMAKE_AR={ar} ({real:?})"
    );
    let o = Command::new("cmake")
        .args(["--build", "build"])
        .current_dir(d.path())
        .output()
        .unwrap();
    assert!(
        o.status.success(),
        "{}{}",
        String::from_utf8_lossy(&o.stdout),
        String::from_utf8_lossy(&o.stderr)
    );
    let out = Command::new(b.join("main")).output().unwrap();
    assert_eq!(String::from_utf8_lossy(&out.stdout), "10\n");
}

/// The shared libraries of the system's C library that define `name` (`libm.so.6`, `libc.so.6`),
/// as the C compiler finds them.
fn system_library(name: &str) -> PathBuf {
    let o = Command::new("cc")
        .arg(format!("-print-file-name={name}"))
        .output()
        .unwrap();
    let p = PathBuf::from(String::from_utf8_lossy(&o.stdout).trim());
    assert!(p.is_absolute() && p.exists(), "{name} not found: {p:?}");
    p
}

/// Names of the functions that the shared library `p` exports.
fn exported_functions(p: &Path) -> std::collections::HashSet<String> {
    use object::{Object, ObjectSymbol};
    let data = std::fs::read(p).unwrap();
    let f = object::File::parse(&*data).unwrap();
    f.dynamic_symbols()
        .filter(|s| s.is_definition())
        .filter_map(|s| {
            s.name()
                .ok()
                .map(|n| n.split('@').next().unwrap().to_string())
        })
        .collect()
}

#[test]
fn the_runtime_archives_need_nothing_from_libm() {
    // The wrappers link the runtime (or the fuzzing driver) without `-lm` (see
    // `libm_is_linked_only_when_asked_for`), so no member of either archive may reference a
    // function that only libm defines: whether a member is pulled into a link depends on how
    // rustc split the code into objects, so a reference from code no target calls (the engine's
    // `f64::log2` in evotest_abi) broke links of fuzz harnesses in some builds only.
    let libm = exported_functions(&system_library("libm.so.6"));
    let libc = exported_functions(&system_library("libc.so.6"));
    let dir = Path::new(env!("CARGO_BIN_EXE_evotest-cc"))
        .parent()
        .unwrap();
    for name in ["libevotest_rt.a", "libevotest_driver.a"] {
        let imports = evotest::toolchain::archive_imports(&dir.join(name));
        // read at all: the runtime writes its reports with the C library's `write`
        assert!(imports.contains("write"), "{name}: imports {imports:?}");
        let mut from_libm: Vec<&String> = imports
            .iter()
            .filter(|n| libm.contains(*n) && !libc.contains(*n))
            .collect();
        from_libm.sort();
        assert!(
            from_libm.is_empty(),
            "{name} references libm's {from_libm:?}"
        );
    }
}
