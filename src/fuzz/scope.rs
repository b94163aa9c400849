//! Which branch sites the fuzz guidance may steer towards: the **scope** of the frontier
//! ([`guide`](super::guide)) and of its distance pool.
//!
//! An instrumented harness holds library code besides the user's: Rust's std, core and alloc
//! code instantiated or inlined into the user's crates (string and integer parsing, iterators,
//! formatting), C headers' inline functions, a library linked as an instrumented copy. Its
//! uncovered outcomes are as many frontier outcomes as the user's, and directed attempts on them
//! (`"1".parse::<i32>()`'s overflow checks) spend executions that find nothing in the user's code.
//! By default a branch whose source file is library code ([`is_library_file`]) stays out of the
//! frontier; the user's own files (relative paths, anything outside the system and toolchain
//! directories) stay in. Coverage feedback, the corpus and the stats still count every branch:
//! only what the guidance steers towards is narrowed.
//!
//! The user says it with patterns, AFL++'s allowlist/denylist entries on the command line
//! (`--frontier_include`, `--frontier_exclude`): a glob (`*` any text, `/` included; `?` one
//! character) that matches a branch's source file (the whole path, or its end after any `/`) or
//! its function (the source-level name of a Rust function, or the linkage name); `src:GLOB`
//! matches the file only and `fun:GLOB` the function only. With include patterns, only the
//! matching branches are in scope, library code or not (`--frontier_include='*'` puts everything
//! back); exclude patterns then take branches out.

use crate::program::{is_library_file, Program};
use anyhow::{bail, Result};

/// What part of a branch a pattern matches.
#[derive(Clone, Copy, Debug, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
enum Field {
    /// The source file or the function (no prefix).
    Any,
    /// `src:`: the source file.
    Src,
    /// `fun:`: the function.
    Fun,
}

/// One `--frontier_include` or `--frontier_exclude` pattern (see module docs).
#[derive(Clone, Debug, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub struct Pattern {
    field: Field,
    glob: String,
}

impl Pattern {
    /// Parse `src:GLOB`, `fun:GLOB` or `GLOB`.
    ///
    /// Errors (one line, naming `flag`): an empty glob.
    pub fn parse(text: &str, flag: &str) -> Result<Pattern> {
        let (field, glob) = if let Some(g) = text.strip_prefix("src:") {
            (Field::Src, g)
        } else if let Some(g) = text.strip_prefix("fun:") {
            (Field::Fun, g)
        } else {
            (Field::Any, text)
        };
        let glob = glob.trim();
        if glob.is_empty() {
            bail!("--{flag}={text}: empty pattern (give a glob of source files or functions, e.g. 'src/*' or 'fun:my_crate::*')");
        }
        Ok(Pattern {
            field,
            glob: glob.to_string(),
        })
    }

    /// Whether the pattern matches a branch in source file `file` of the function named by
    /// `names` (its source-level and linkage names).
    pub fn matches(&self, file: &str, names: &[&str]) -> bool {
        let file_hit = || {
            !file.is_empty()
                && (glob_match(&self.glob, file)
                    || file
                        .match_indices('/')
                        .any(|(i, _)| glob_match(&self.glob, &file[i + 1..])))
        };
        let fun_hit = || {
            names
                .iter()
                .any(|n| !n.is_empty() && glob_match(&self.glob, n))
        };
        match self.field {
            Field::Any => file_hit() || fun_hit(),
            Field::Src => file_hit(),
            Field::Fun => fun_hit(),
        }
    }
}

/// Whether `text` matches `glob` as a whole: `*` matches any run of characters (`/` and `:`
/// included), `?` any one character, everything else itself.
pub fn glob_match(glob: &str, text: &str) -> bool {
    let g: Vec<char> = glob.chars().collect();
    let t: Vec<char> = text.chars().collect();
    // the classic backtracking to the last star: linear in practice, never exponential
    let (mut gi, mut ti) = (0, 0);
    let mut star: Option<(usize, usize)> = None;
    while ti < t.len() {
        if gi < g.len() && (g[gi] == '?' || g[gi] == t[ti]) {
            gi += 1;
            ti += 1;
        } else if gi < g.len() && g[gi] == '*' {
            star = Some((gi, ti));
            gi += 1;
        } else if let Some((sg, st)) = star {
            gi = sg + 1;
            ti = st + 1;
            star = Some((sg, st + 1));
        } else {
            return false;
        }
    }
    g[gi..].iter().all(|&c| c == '*')
}

/// Why a branch is out of the guidance's scope.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum LeftOut {
    /// Library code by [`is_library_file`] (and no include pattern given).
    Library,
    /// No include pattern matches it.
    NotIncluded,
    /// An exclude pattern matches it.
    Excluded,
}

/// The scope rule of the fuzz guidance (see module docs).
#[derive(Clone, Debug, Default, serde::Serialize, serde::Deserialize)]
pub struct GuideScope {
    /// `--frontier_include` patterns: when any, only matching branches are in scope.
    pub include: Vec<Pattern>,
    /// `--frontier_exclude` patterns: matching branches are out of scope.
    pub exclude: Vec<Pattern>,
}

/// How many branch sites a [`GuideScope`] left out of a program, by reason.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct ScopeCounts {
    /// Sites in scope.
    pub kept: usize,
    /// Sites of library code.
    pub library: usize,
    /// Sites no include pattern matched.
    pub not_included: usize,
    /// Sites an exclude pattern matched.
    pub excluded: usize,
}

impl ScopeCounts {
    /// Sites left out, for every reason.
    pub fn left_out(&self) -> usize {
        self.library + self.not_included + self.excluded
    }
}

impl GuideScope {
    /// The scope of the patterns given with `--frontier_include` and `--frontier_exclude`.
    ///
    /// Errors (one line): an empty pattern.
    pub fn new(include: &[String], exclude: &[String]) -> Result<GuideScope> {
        Ok(GuideScope {
            include: include
                .iter()
                .map(|p| Pattern::parse(p, "frontier_include"))
                .collect::<Result<_>>()?,
            exclude: exclude
                .iter()
                .map(|p| Pattern::parse(p, "frontier_exclude"))
                .collect::<Result<_>>()?,
        })
    }

    /// Whether a branch in source file `file`, of the function named `names`, is out of scope,
    /// and why (`None`: in scope).
    pub fn left_out(&self, file: &str, names: &[&str]) -> Option<LeftOut> {
        if self.include.is_empty() {
            if is_library_file(file) {
                return Some(LeftOut::Library);
            }
        } else if !self.include.iter().any(|p| p.matches(file, names)) {
            return Some(LeftOut::NotIncluded);
        }
        self.exclude
            .iter()
            .any(|p| p.matches(file, names))
            .then_some(LeftOut::Excluded)
    }

    /// Per global site of `program`: whether it is in scope, and the counts by reason. A site is
    /// judged by its own source file, or its function's when debug info gives the site none: a
    /// macro's branches are located where their tokens were written (the body given to
    /// libfuzzer-sys's `fuzz_target!` in the user's file, the macro's own wrapper code in the
    /// registry), and code inlined before the pass ran
    /// is located at its call site, so it counts as the caller's.
    pub fn sites(&self, program: &Program) -> (Vec<bool>, ScopeCounts) {
        let mut keep = vec![true; program.sites.len()];
        let mut counts = ScopeCounts::default();
        for s in &program.sites {
            let f = &program.functions[s.function];
            let file = if s.meta.file.is_empty() {
                f.meta.file.as_str()
            } else {
                s.meta.file.as_str()
            };
            let names = [f.display_name(), f.meta.name.as_str()];
            let why = self.left_out(file, &names);
            match why {
                None => counts.kept += 1,
                Some(LeftOut::Library) => counts.library += 1,
                Some(LeftOut::NotIncluded) => counts.not_included += 1,
                Some(LeftOut::Excluded) => counts.excluded += 1,
            }
            if let Some(k) = keep.get_mut(s.id as usize) {
                *k = why.is_none();
            }
        }
        (keep, counts)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const STD: &str = "/rustc/59807616e1fa2540724bfbac14d7976d7e4a3860/library/core/src/num/mod.rs";
    const REGISTRY: &str = "/root/.cargo/registry/src/index.crates.io-1949cf8c6b5b557f/libfuzzer-sys-0.4.13/src/lib.rs";

    #[test]
    fn library_code_is_left_out_and_the_project_kept() {
        let s = GuideScope::default();
        for lib in [
            STD,
            REGISTRY,
            "/usr/local/cargo/registry/src/index.crates.io-6f17d22bba15001f/memchr-2.7.4/src/memchr.rs",
            "/home/u/.cargo/git/checkouts/serde-1a2b/abc123/src/de.rs",
            "/home/u/.rustup/toolchains/stable-x86_64-unknown-linux-gnu/lib/rustlib/src/rust/library/alloc/src/vec/mod.rs",
            "/usr/include/x86_64-linux-gnu/bits/stdio2.h",
            "/usr/lib/llvm-22/include/c++/v1/string",
            "/usr/lib/gcc/x86_64-linux-gnu/13/include/emmintrin.h",
            "/usr/local/include/zlib.h",
        ] {
            assert_eq!(s.left_out(lib, &["f"]), Some(LeftOut::Library), "{lib}");
        }
        for own in [
            "src/lib.rs",
            "fuzz_targets/fuzz_parse.rs",
            "harness.c",
            "/home/u/proj/src/parse.c",
            "/work/rustc-fork/x.rs",
            "",
        ] {
            assert_eq!(s.left_out(own, &["f"]), None, "{own}");
        }
    }

    #[test]
    fn include_patterns_allow_only_their_branches_and_exclude_patterns_take_out() {
        let s = GuideScope::new(
            &["src:*/libfuzzer-sys-*".into(), "fun:fuzzshape::*".into()],
            &[],
        )
        .unwrap();
        assert_eq!(
            s.left_out(REGISTRY, &["libfuzzer_sys::initialize"]),
            None,
            "an include pattern overrides the library rule"
        );
        assert_eq!(
            s.left_out(
                "src/lib.rs",
                &["fuzzshape::parse", "_ZN9fuzzshape5parse17h0E"]
            ),
            None
        );
        assert_eq!(
            s.left_out("src/lib.rs", &["other::parse"]),
            Some(LeftOut::NotIncluded)
        );
        assert_eq!(
            s.left_out(STD, &["core::num::from_str_radix"]),
            Some(LeftOut::NotIncluded)
        );

        let everything =
            GuideScope::new(&["*".into()], &["vendor/*".into(), "fun:*::fmt".into()]).unwrap();
        assert_eq!(
            everything.left_out(STD, &["core::num::from_str_radix"]),
            None
        );
        // a file pattern matches the end of the path after any `/`
        assert_eq!(
            everything.left_out("/home/u/proj/vendor/zlib/inflate.c", &["inflate"]),
            Some(LeftOut::Excluded)
        );
        assert_eq!(
            everything.left_out("src/lib.rs", &["<my::T as core::fmt::Display>::fmt"]),
            Some(LeftOut::Excluded)
        );
        assert_eq!(everything.left_out("src/vendor.rs", &["my::f"]), None);

        let no_parse = GuideScope::new(&[], &["src:parse.c".into()]).unwrap();
        assert_eq!(
            no_parse.left_out("lib/parse.c", &["parse.c"]),
            Some(LeftOut::Excluded)
        );
        assert_eq!(
            no_parse.left_out("lib/xparse.c", &["parse.c"]),
            None,
            "src: does not look at function names"
        );
        assert_eq!(
            no_parse.left_out(STD, &["f"]),
            Some(LeftOut::Library),
            "the library rule still holds"
        );
    }

    #[test]
    fn sites_are_judged_by_their_own_file() {
        use crate::program::testutil::{block, program, site};
        // f in f.c: site 0 its own, site 1 std's parsing inlined into it, site 2 without a file
        // (its function's then)
        let blocks = vec![
            block(vec![1, 2], Some(0)),
            block(vec![2, 3], Some(1)),
            block(vec![3, 3], Some(2)),
            block(vec![], None),
        ];
        let mut sites = vec![site(0, 0, "a"), site(1, 1, "b"), site(2, 2, "c")];
        sites[1].file = STD.into();
        sites[2].file = String::new();
        let p = program(blocks, sites, vec![], vec![]);
        let (keep, counts) = GuideScope::default().sites(&p);
        assert_eq!(keep, vec![true, false, true]);
        assert_eq!(
            counts,
            ScopeCounts {
                kept: 2,
                library: 1,
                not_included: 0,
                excluded: 0
            }
        );
        let (keep, counts) = GuideScope::new(&[], &["fun:f".into()]).unwrap().sites(&p);
        assert_eq!(keep, vec![false, false, false]);
        assert_eq!(
            (counts.excluded, counts.library, counts.left_out()),
            (2, 1, 3)
        );
    }

    #[test]
    fn globs_match_whole_texts() {
        assert!(glob_match("*", ""));
        assert!(glob_match("a*c", "abbbc") && glob_match("a*c", "ac") && !glob_match("a*c", "acb"));
        assert!(glob_match("*.rs", "src/a.rs") && !glob_match("*.rs", "src/a.rsx"));
        assert!(glob_match("f?o*::*", "foo::bar") && !glob_match("f?o", "fo"));
        assert!(
            glob_match("*a*a*a*b", "aaaaaaaaaaaaaaaaaaaab")
                && !glob_match("*a*a*a*b", "aaaaaaaaaaaaaaaaaaaa")
        );
    }

    #[test]
    fn empty_patterns_are_one_line_errors() {
        let e = GuideScope::new(&[], &["src:".into()])
            .unwrap_err()
            .to_string();
        assert!(
            e.starts_with("--frontier_exclude=src:: empty pattern") && !e.contains('\n'),
            "{e}"
        );
        assert!(GuideScope::new(&[" ".into()], &[]).is_err());
    }
}
