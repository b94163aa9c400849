//! The function-under-test frontend: one C function whose parameters are scalars, fixed-length
//! arrays, NUL-terminated strings, (pointer, length) buffers ([`shape`]) or structures of
//! scalars ([`record`]). Its inputs are the
//! parameters' fields packed in order; a generated harness ([`harness`]) decodes them and calls
//! the function, and [`ctests`] writes the suite as a standalone C file.

pub mod ctests;
pub mod harness;
pub mod outputs;
pub mod record;
pub mod shape;

use super::{Frontend, Peer, TestFile};
use crate::archive::TestCase;
use crate::input::spec::RangeSpec;
use crate::input::{Domain, Input, Range};
use anyhow::Result;
use ctests::Outputs;
use evotest_abi::meta::{FunctionMeta, GlobalMeta};
use harness::Signature;
use serde_json::{json, Value as Json};
use shape::{Param, Shape, ShapeSpec};
use std::fmt::Write;
use std::path::PathBuf;

/// See module docs.
#[derive(Clone, Debug)]
pub struct FunctionFrontend {
    pub signature: Signature,
    pub params: Vec<Param>,
    pub domain: Domain,
    /// The source files, space-separated, for generated comments.
    pub sources: String,
    /// The source that defines the function: `tests.c` includes it (so that a `static` function
    /// can be called, and a `main` of the source renamed without renaming the tests' own).
    pub defining_source: Option<PathBuf>,
    /// The other sources, which `tests.c` is linked with.
    pub other_sources: Vec<PathBuf>,
    /// Those of `other_sources` that define a `main` (a driver): `tests.c`'s build command
    /// compiles them first with it renamed.
    pub main_sources: Vec<PathBuf>,
    /// Compile flags the sources need (`-I`, `-D`, …), for the build hint of `tests.c`.
    pub cflags: Vec<String>,
    /// The shapes evotest inferred from the signature ([`shape::infer_buffers`]), as notes.
    pub inferred: Vec<String>,
    /// For a C++ function: the expression `tests.cpp` calls it by (`geo::classify`, or for an
    /// overload `static_cast<int (*)(int)>(&f)`); the harness calls it by its linkage name.
    pub cxx_call: Option<String>,
    /// Mutable global variables the function (or a function it calls, directly or not) reads that are not
    /// inputs, for a note.
    pub unset_globals: Vec<String>,
    /// Those of `unset_globals` that cannot be inputs (a pointer, a union, …), for the note.
    pub unsettable_globals: Vec<String>,
    /// Whether each test of `tests.c` runs in a child process of its own: the sources write
    /// global variables, which the search restored (or forked for) before each input.
    pub isolate_tests: bool,
    /// Functions outside the sources that the function (or one it calls) calls and that may keep
    /// state between calls (`rand`): each test of `tests.c` runs in a child process of its own,
    /// as each input ran (or was checked) in a fresh process in the search.
    pub hidden_state_calls: Vec<String>,
    /// How the function (or one it calls) reads standard input (`getchar`, `scanf`, `stdin`),
    /// if it does: no input of the search, whose target reads an empty one (a note), as
    /// `tests.c` does.
    pub reads_stdin: Option<String>,
    /// The sizes chosen by default ([`Frontend::default_caps`]).
    pub default_caps: Vec<String>,
    /// The global inputs defined in a source other than [`Self::defining_source`], which
    /// `tests.c` does not include.
    pub foreign_globals: Vec<ForeignGlobal>,
    /// Names the defining source gives its own functions and variables that the system headers
    /// of `tests.c` and the harness also declare (`index`, `sleep`, `time`, `write` in a
    /// freestanding source): both rename them (`#define index evotest_src_index`), the harness
    /// keeping the symbol through an `__asm__` label ([`helper_header_names`]).
    pub renamed: Vec<String>,
    /// The sources' functions whose symbols were renamed in the instrumented objects (their
    /// names are those of C library functions the runtime calls: `read`, `malloc`): the harness
    /// calls them by their new symbols (`evotest_src_read`).
    pub relinked: Vec<String>,
}

/// A global input (`--global`) defined in a source that `tests.c` does not include.
#[derive(Clone, Debug)]
pub struct ForeignGlobal {
    /// Its name (and symbol).
    pub name: String,
    /// The source that defines it.
    pub source: PathBuf,
    /// Whether that source declares it `static`: `tests.c`, built from the sources without the
    /// pass, cannot reach it.
    pub internal: bool,
}

impl FunctionFrontend {
    /// The frontend of function `f` (from the pass's metadata), with its pointer parameters shaped
    /// by `specs` and its parameters' ranges narrowed by `ranges`; the pointer parameters named in
    /// `null_checked` (the function compares them with NULL) may be NULL ([`shape::build`]).
    ///
    /// Errors (one line each): a spec or range naming no parameter or the wrong kind of parameter,
    /// an unsupported parameter type, a variadic function.
    pub fn new(
        f: &FunctionMeta,
        specs: &[ShapeSpec],
        ranges: &[RangeSpec],
        sources: &str,
        globals: &[GlobalMeta],
        null_checked: &[String],
    ) -> Result<FunctionFrontend> {
        // the return type first: an aggregate return shows up as a hidden parameter
        harness::ret_of(f)?;
        // a structure parameter: the source's parameters, not the IR's arguments (which split,
        // coerce or pass it by reference)
        let with_source_params;
        let f = match &f.source_params {
            Some(sp) => {
                with_source_params = FunctionMeta {
                    params: sp.clone(),
                    ..f.clone()
                };
                &with_source_params
            }
            None => f,
        };
        // a parameter the ABI passes in parts that are not a structure's members (`double
        // _Complex z` as `z.0` and `z.8`, a vector type): the harness could not declare it
        if let Some(p) = f.params.iter().find(|p| p.name.contains('.')) {
            let whole = p.name.split('.').next().unwrap_or(&p.name);
            let parts: Vec<&str> = f
                .params
                .iter()
                .filter(|q| q.name.split('.').next() == Some(whole))
                .map(|q| q.name.as_str())
                .collect();
            anyhow::bail!(
                "parameter `{whole}` of `{}` is passed in parts ({}): its type (a `_Complex` number or a vector) is one evotest \
                 cannot generate yet",
                f.display_name(),
                parts.join(", ")
            );
        }
        let guessed = shape::infer_buffers(f, specs, ranges);
        let mut default_caps: Vec<String> = guessed
            .iter()
            .filter_map(|s| match s {
                ShapeSpec::Buffer {
                    name,
                    len_param,
                    max,
                } => Some(format!(
                    "`{name}` (at most {max} elements: --buffer {name}={len_param}:N)"
                )),
                _ => None,
            })
            .collect();
        let mut inferred: Vec<String> = guessed
            .iter()
            .filter_map(|s| match s {
                ShapeSpec::Buffer { name, len_param, max } => Some(format!(
                    "shape: `{name}` is taken as a buffer of 0 to {max} elements whose length `{len_param}` receives \
                     (as --buffer {name}={len_param}:{max}); give --buffer, --array or --string to say otherwise"
                )),
                _ => None,
            })
            .collect();
        let tied = shape::array_length_ranges(f, specs, ranges);
        for (r, array) in &tied {
            inferred.push(format!(
                "shape: `{}` ranges over {}..{}, the length --array gives `{array}` (--range {}=LO..HI to say otherwise)",
                r.name, r.lo, r.hi, r.name
            ));
        }
        let ranges: Vec<RangeSpec> = ranges
            .iter()
            .cloned()
            .chain(tied.into_iter().map(|(r, _)| r))
            .collect();
        let ranges = &ranges[..];
        let all: Vec<ShapeSpec> = specs.iter().cloned().chain(guessed).collect();
        let (params, fields) = shape::build(f, &all, ranges, globals, null_checked)?;
        for p in params
            .iter()
            .filter(|p| !p.global && matches!(p.shape, Shape::String { .. }))
        {
            if !all.iter().any(|s| s.name() == p.name) {
                let (name, max) = (&p.name, shape::DEFAULT_STRING_MAX);
                default_caps.push(format!(
                    "`{name}` (at most {max} characters: --string {name}=N)"
                ));
                inferred.push(format!(
                    "shape: `{name}` is taken as a NUL-terminated input string of 0 to {max} printable characters (as --string \
                     {name}={max}); if the function writes into it, give its size with --array {name}=N"
                ));
            }
        }
        // string members: fixed at most STRING_MAX printable characters, never NULL
        for p in params.iter() {
            if let Shape::Record { record, .. } = &p.shape {
                let members = record.string_paths(&p.name);
                if !members.is_empty() {
                    default_caps.push(format!(
                        "{} (string member{}: at most {} printable characters, never NULL; not shaped by options yet)",
                        members.iter().map(|m| format!("`{m}`")).collect::<Vec<_>>().join(", "),
                        if members.len() == 1 { "" } else { "s" },
                        record::STRING_MAX
                    ));
                }
            }
        }
        for p in params.iter().filter(|p| p.null_field.is_some()) {
            let name = &p.name;
            inferred.push(format!(
                "shape: `{name}` may be NULL, as the function compares it with NULL (--range {name}:null=1..3: never NULL)"
            ));
        }
        for m in f.params.iter().filter(|m| shape::is_long_double(&m.ty)) {
            inferred.push(format!(
                "shape: `{}` is a long double, searched over the doubles (each widened exactly): an outcome that needs a value no double has (`x == 0.1L`) is out of reach",
                m.name
            ));
        }
        let signature = Signature::of(f, &params)?;
        Ok(FunctionFrontend {
            signature,
            params,
            domain: Domain::packed(fields),
            sources: sources.to_string(),
            defining_source: None,
            renamed: Vec::new(),
            relinked: Vec::new(),
            other_sources: vec![],
            cflags: vec![],
            inferred,
            cxx_call: None,
            unset_globals: vec![],
            unsettable_globals: vec![],
            isolate_tests: false,
            hidden_state_calls: vec![],
            reads_stdin: None,
            main_sources: vec![],
            foreign_globals: vec![],
            default_caps,
        })
    }

    /// `name=value, …` for people (arrays as `[…]`, strings quoted).
    pub fn display_input(&self, input: &Input) -> String {
        self.params
            .iter()
            .filter_map(|p| {
                p.display(&self.params, &self.domain, input)
                    .map(|v| format!("{}={v}", p.name))
            })
            .collect::<Vec<_>>()
            .join(", ")
    }

    /// The `#define`s that rename [`Self::renamed`] in a file that included the system headers
    /// first, with a comment; empty when there are none.
    pub fn renaming_defines(&self) -> String {
        self.defines_of(self.renamed.iter())
    }

    /// [`Self::renaming_defines`] for a file that only declares the function and the global
    /// inputs (a harness): the names of those among them, so that the file's own calls of the C
    /// library (`memcpy`) stay the C library's.
    pub fn declared_renaming_defines(&self) -> String {
        self.defines_of(self.renamed.iter().filter(|n| {
            **n == self.signature.name || self.params.iter().any(|p| p.global && p.name == **n)
        }))
    }

    fn defines_of<'a>(&self, names: impl Iterator<Item = &'a String>) -> String {
        let mut s = String::new();
        for n in names {
            let _ = writeln!(s, "#define {n} {RELINKED_PREFIX}{n}");
        }
        if !s.is_empty() {
            s.insert_str(
                0,
                "/* Names of the source's own that the system headers above also declare: renamed here */\n",
            );
        }
        s
    }

    /// The C source of the harness linked into the instrumented executable.
    pub fn harness_c(&self) -> String {
        harness::generate(self)
    }
}

impl Frontend for FunctionFrontend {
    fn domain(&self) -> &Domain {
        &self.domain
    }

    fn name(&self) -> &str {
        &self.signature.name
    }

    fn describe(&self) -> &str {
        &self.signature.shown
    }

    /// A C++ function's source name (`shapes::locate`), not its linkage name.
    fn shown_name(&self) -> &str {
        &self.signature.shown_name
    }

    fn display(&self, input: &Input) -> String {
        self.display_input(input)
    }

    fn unrecorded_return(&self) -> Option<String> {
        (self.signature.ret == harness::ReturnKind::Unrecorded)
            .then(|| self.signature.ret_c.clone())
    }

    fn json(&self, input: &Input) -> Json {
        let m: serde_json::Map<String, Json> = self
            .params
            .iter()
            .map(|p| (p.name.clone(), p.json(&self.params, &self.domain, input)))
            .collect();
        Json::Object(m)
    }

    fn params_json(&self) -> Json {
        let range = |i: usize| match self.domain.fields[i].range {
            Range::Int { lo, hi } => {
                json!([
                    serde_json::to_value(lo).unwrap_or(Json::Null),
                    serde_json::to_value(hi).unwrap_or(Json::Null)
                ])
            }
            Range::Float { lo, hi } => json!([lo, hi]),
        };
        let params: Vec<Json> = self
            .params
            .iter()
            .map(|p| {
                let (shape, r) = match &p.shape {
                    Shape::Scalar { field } => (json!("scalar"), range(*field)),
                    Shape::Array { first, len, inner } if inner.is_empty() => (json!({"array": len}), range(*first)),
                    Shape::Array { first, len, inner } => {
                        let rows = len / inner.iter().product::<usize>().max(1);
                        (json!({"array": rows, "row_dims": inner}), range(*first))
                    }
                    Shape::String { max, first, .. } => (json!({"string": max}), range(*first)),
                    Shape::Buffer { max, first, .. } => (json!({"buffer": max}), range(*first)),
                    Shape::LengthOf { buffer } => (json!({"length_of": self.params[*buffer].name}), Json::Null),
                    Shape::Record { first, record, by_pointer, many, len_field, .. } => {
                        let mut j = json!({"struct": record.spelling, "by_pointer": by_pointer});
                        match (many, len_field) {
                            (Some(n), None) => j["array"] = json!(n),
                            (Some(n), Some(_)) if record.has_links() => j["pool"] = json!(n),
                            (Some(n), Some(_)) => j["buffer"] = json!(n),
                            _ => {}
                        }
                        (j, range(*first))
                    }
                };
                let mut j = json!({"name": p.name, "type": p.declared, "c_type": p.c_type, "shape": shape, "range": r});
                if p.global {
                    j["global"] = json!(true);
                }
                j
            })
            .collect();
        Json::Array(params)
    }

    fn test_file(&self, file: &TestFile) -> Option<(String, String)> {
        let name = if self.cxx_call.is_some() {
            "tests.cpp"
        } else {
            "tests.c"
        };
        let observed = (outputs::any_outputs(self, file)
            && ctests::unreachable_globals(self).is_empty())
        .then(|| outputs::observe(self, file));
        let mode = match &observed {
            None => Outputs::Off(None),
            Some(Ok(seen)) => Outputs::Check(seen),
            Some(Err(e)) => Outputs::Off(Some(format!("{e:#}"))),
        };
        Some((name.to_string(), ctests::render(self, file, &mode)))
    }

    fn default_caps(&self) -> Vec<String> {
        self.default_caps.clone()
    }

    fn replays(&self, _case: &TestCase) -> bool {
        ctests::unreachable_globals(self).is_empty()
    }

    fn notes(&self) -> Vec<String> {
        let mut n = self.inferred.clone();
        if let Some(r) = &self.reads_stdin {
            n.push(format!(
                "stdin: `{}` reads standard input ({r}), which is no input of the search: every execution, and each test of tests.c, reads an empty one",
                self.signature.name
            ));
        }
        if !self.unset_globals.is_empty() {
            n.push(format!(
                "globals: `{}` (with the functions it calls) reads {}, which keep{} {} initial value{} in every execution; --global NAME makes one an input",
                self.signature.name,
                self.unset_globals.iter().map(|g| format!("`{g}`")).collect::<Vec<_>>().join(", "),
                if self.unset_globals.len() == 1 { "s" } else { "" },
                if self.unset_globals.len() == 1 { "its" } else { "their" },
                if self.unset_globals.len() == 1 { "" } else { "s" },
            ));
            if !self.unsettable_globals.is_empty() {
                let last = n.last_mut().expect("pushed above");
                let names: Vec<String> = self
                    .unsettable_globals
                    .iter()
                    .map(|g| format!("`{g}`"))
                    .collect();
                let _ = write!(
                    last,
                    " (not {}: a pointer, a thread-local variable or another type evotest does not build)",
                    names.join(", ")
                );
            }
        }
        let unreachable = ctests::unreachable_globals(self);
        if !unreachable.is_empty() {
            n.push(format!(
                "tests.c: its tests are comments, not replayed: they set {}, which a build of the sources without evotest cannot reach (make it non-static to replay them)",
                unreachable.join(", ")
            ));
        }
        n
    }

    fn peer_harness(
        &self,
        peer: Peer,
        encoding: crate::input::mapped::PeerEncoding,
    ) -> Option<String> {
        Some(match peer {
            Peer::LibFuzzer => harness::generate_libfuzzer(self, encoding),
            Peer::Afl => harness::generate_afl(self, encoding),
            Peer::EvotestFuzz => harness::generate_fuzz(self, encoding),
        })
    }

    fn replay_program(&self, inputs: &[Input]) -> Option<String> {
        let mut s = ctests::c_feature_macros(None);
        s.push_str("#include <stdint.h>\n#include <stdio.h>\n#include <stdlib.h>\n#include <string.h>\n#include <unistd.h>\n#include <sys/wait.h>\n\n");
        s.push_str(shape::C_PROFILE_CRASHES);
        s.push_str(shape::C_TEST_GUARD);
        s.push_str(&self.declared_renaming_defines());
        let _ = writeln!(
            s,
            "{}\n",
            self.signature
                .declarations_for(&self.renamed, &self.relinked)
        );
        for (i, x) in inputs.iter().enumerate() {
            let a = shape::c_args(&self.params, &self.domain, x, "evotest_v", false, &[]);
            let _ = writeln!(s, "static void evotest_run_{i}(void) {{");
            for l in a.setup {
                let _ = writeln!(s, "    {l}");
            }
            let _ = writeln!(s, "    {}({});", self.signature.name, a.args.join(", "));
            for l in a.after {
                let _ = writeln!(s, "    {l}");
            }
            s.push_str("}\n");
        }
        let _ = writeln!(s, "static void (*const evotest_runs[])(void) = {{");
        for i in 0..inputs.len() {
            let _ = writeln!(s, "    evotest_run_{i},");
        }
        s.push_str(
            "};\n\nint main(void) {\n\
             \x20   for (size_t i = 0; i < sizeof evotest_runs / sizeof evotest_runs[0]; i++) {\n\
             \x20       pid_t p = fork();\n\
             \x20       if (p == 0) { evotest_profile_crashes(); alarm(5); evotest_runs[i](); exit(0); }\n\
             \x20       int st;\n\
             \x20       if (p > 0) waitpid(p, &st, 0);\n\
             \x20   }\n\
             \x20   return 0;\n}\n",
        );
        Some(s)
    }
}

/// The prefix of the names a source's own functions and variables take where they clash with
/// the C library: in `tests.c` and the harnesses ([`FunctionFrontend::renamed`], a `#define`),
/// and as symbols in the target's objects ([`FunctionFrontend::relinked`]).
pub const RELINKED_PREFIX: &str = "evotest_src_";

/// The system headers that `tests.c`'s helpers and the harnesses include before the code under
/// test (or its declarations).
pub const HELPER_HEADERS: &[&str] = &[
    "stddef.h",
    "stdio.h",
    "stdlib.h",
    "string.h",
    "time.h",
    "stdint.h",
    "signal.h",
    "setjmp.h",
    "unistd.h",
    "sys/resource.h",
    "sys/wait.h",
];

/// Every identifier in [`HELPER_HEADERS`] as C compiler `clang` preprocesses them after
/// `feature_macros` ([`ctests::c_feature_macros`]): the names a source's own function or
/// variable may collide with once `tests.c` includes it after them (a freestanding source's
/// `static uint8_t index;` against `<strings.h>`'s `index`). An over-approximation (parameter and
/// member names too), which costs only a needless rename. Empty when `clang` cannot preprocess
/// them (then nothing is renamed, as before).
pub fn helper_header_names(
    clang: &std::path::Path,
    feature_macros: &str,
) -> std::collections::HashSet<String> {
    use std::io::Write as _;
    let mut text = feature_macros.to_string();
    for h in HELPER_HEADERS {
        let _ = writeln!(text, "#include <{h}>");
    }
    let child = std::process::Command::new(clang)
        .args(["-E", "-P", "-x", "c", "-"])
        .stdin(std::process::Stdio::piped())
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::null())
        .spawn();
    let Ok(mut child) = child else {
        return Default::default();
    };
    if let Some(mut i) = child.stdin.take() {
        let _ = i.write_all(text.as_bytes());
    }
    let Ok(out) = child.wait_with_output() else {
        return Default::default();
    };
    if !out.status.success() {
        return Default::default();
    }
    let text = String::from_utf8_lossy(&out.stdout);
    text.split(|c: char| !(c.is_ascii_alphanumeric() || c == '_'))
        .filter(|w| w.starts_with(|c: char| c.is_ascii_alphabetic() || c == '_'))
        .map(String::from)
        .collect()
}

#[cfg(test)]
mod header_tests {
    /// Every system header the helpers of `tests.c` include before the source is one whose names
    /// [`super::helper_header_names`] reads (the list must follow the prelude).
    #[test]
    fn the_helper_headers_cover_the_prelude_s_includes() {
        for text in [super::ctests::PRELUDE, super::shape::C_PROFILE_CRASHES] {
            for l in text.lines() {
                if let Some(h) = l
                    .strip_prefix("#include <")
                    .and_then(|h| h.strip_suffix('>'))
                {
                    assert!(super::HELPER_HEADERS.contains(&h), "{h}");
                }
            }
        }
    }
}
