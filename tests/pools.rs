//! The constants a search is seeded with are those of the function under test and of the
//! functions it calls, not the module's: a function among unrelated ones is searched exactly as
//! when it is alone in its file, with its constants and with as many cached evaluations.
//!
//! Before the pools were scoped (2026-12-02), the unrelated functions of
//! tests/fixtures/crowded.c made the search on `remainders` take 948–1,886 executions from the
//! biased start (78–405 alone) and 1,654–6,716 from the uniform start (460–1,266 alone), seeds
//! 1–3; on the fifteen numeric subjects concatenated into one file, `pythag` was covered in 8 of
//! 10 and 4 of 10 runs at 200,000 executions (10 of 10 in under 10,000 on average alone).

mod common;

use common::*;

const FIXTURE: &str = "tests/fixtures/crowded.c";
const MARKER: &str = "/* ---- unrelated functions below ---- */";

/// `evotest run`'s arguments for a search from `init` with `seed`, within 200,000 executions.
fn search_args<'a>(init: &'a str, seed: &'a str) -> [&'a str; 8] {
    [
        "--init",
        init,
        "--seed",
        seed,
        "--max-execs",
        "200000",
        "--max-time",
        "0",
    ]
}

/// Full coverage at the same execution, with the same seed, in the crowded file as in its part
/// above the marker.
#[test]
fn a_function_among_unrelated_ones_is_searched_as_when_alone() {
    let text = std::fs::read_to_string(FIXTURE).unwrap();
    let cut = text.find(MARKER).expect("the fixture has its marker");
    let tmp = tempfile::tempdir().unwrap();
    let alone = tmp.path().join("alone.c");
    std::fs::write(&alone, &text[..cut]).unwrap();
    let alone = alone.to_str().unwrap();
    for init in ["biased", "uniform"] {
        for seed in ["1", "2", "3"] {
            let args = search_args(init, seed);
            let mut at = Vec::new();
            for file in [FIXTURE, alone] {
                let out = tempfile::tempdir().unwrap();
                let (_, r) = run(file, "remainders", out.path(), &args);
                assert!(r["error"].is_null(), "{file}: error {}", r["error"]);
                assert_eq!(
                    r["branches_covered"],
                    r["branches_total"],
                    "{file} --init {init} --seed {seed}: uncovered {:?}",
                    uncovered(&r)
                );
                at.push(r["full_coverage_at_execution"].as_u64().unwrap());
            }
            assert_eq!(
                at[0], at[1],
                "--init {init} --seed {seed}: full coverage at execution {} in the crowded \
                 file, {} alone",
                at[0], at[1]
            );
        }
    }
}

/// The strings of a file's tables go to the searches of the functions that use them: a keyword
/// lookup that no probe sees (`bsearch`) after a table of 300 names of another function, which
/// filled the module's 256 table strings before the keywords were met (uncovered at 100,000
/// executions, seed 1, before), is covered as in its file alone (tests/fixtures/keywords.c,
/// 49–922 executions over seeds 1–3).
#[test]
fn a_table_s_strings_go_to_the_functions_that_use_it() {
    for seed in ["1", "2", "3"] {
        let args = ["--seed", seed, "--max-execs", "3000", "--max-time", "0"];
        let mut at = Vec::new();
        for file in [
            "tests/fixtures/keywords_crowded.c",
            "tests/fixtures/keywords.c",
        ] {
            let out = tempfile::tempdir().unwrap();
            let (_, r) = run(file, "keyword_class", out.path(), &args);
            assert_eq!(
                r["branches_covered"],
                r["branches_total"],
                "{file} --seed {seed}: uncovered {:?}",
                uncovered(&r)
            );
            at.push(r["full_coverage_at_execution"].as_u64().unwrap());
        }
        assert_eq!(at[0], at[1], "--seed {seed}: crowded file, alone");
    }
}

/// The evaluation cache holds as many evaluations of a function among thousands of branch sites
/// as of the function alone: it keeps the sites an execution ran, not the whole program's. Before
/// (it kept every site and outcome of the program within 32 MiB, about 460 evaluations here),
/// `pythag` after a function of 3,000 conditions reached full coverage at executions 19,128,
/// 10,186 and 33,793 (biased start, seeds 1–3) against 3,022, 18,465 and 4,745 alone, since
/// AVM's revisits past the cache's reach ran again.
#[test]
fn a_function_among_thousands_of_sites_is_searched_as_when_alone() {
    let subject = std::fs::read_to_string("examples/numeric/pythag.c").unwrap();
    let mut big = subject.clone();
    big.push_str("\nint filler(int a, int b) {\n  int r = 0;\n");
    for i in 0..3000 {
        big.push_str(&format!(
            "  if (a > {i} && b < {}) r += {};\n",
            i * 7,
            i % 13
        ));
    }
    big.push_str("  return r;\n}\n");
    let tmp = tempfile::tempdir().unwrap();
    let (alone, crowded) = (tmp.path().join("alone.c"), tmp.path().join("big.c"));
    std::fs::write(&alone, &subject).unwrap();
    std::fs::write(&crowded, &big).unwrap();
    // the runs that differed most before (uniform, seed 3: 9,505 against 605)
    for (init, seed) in [("biased", "1"), ("biased", "3"), ("uniform", "3")] {
        {
            let args = search_args(init, seed);
            let mut at = Vec::new();
            for file in [&crowded, &alone] {
                let out = tempfile::tempdir().unwrap();
                let (_, r) = run(file.to_str().unwrap(), "pythag", out.path(), &args);
                assert!(r["error"].is_null(), "error {}", r["error"]);
                assert_eq!(
                    r["branches_covered"],
                    r["branches_total"],
                    "{}",
                    file.display()
                );
                at.push(r["full_coverage_at_execution"].as_u64().unwrap());
            }
            assert_eq!(
                at[0], at[1],
                "--init {init} --seed {seed}: full coverage at execution {} among 3,000 other \
                 conditions, {} alone",
                at[0], at[1]
            );
        }
    }
}
