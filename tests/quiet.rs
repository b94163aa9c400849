//! The probes' inline quiet path (`evotest_abi::names::PROBE_CMP_INT`): at a site the engine
//! marked quiet, later evaluations in an execution only count the hit in instrumented code,
//! without calling the runtime. What the engine reads must not change: the hit counts (the
//! fuzzer's hit-count buckets), the outcomes taken and the first evaluation's distances.

mod common;

use evotest::exec::{Executor, ForkServer, ForkServerConfig, Stop};
use std::path::{Path, PathBuf};

/// A harness whose loop evaluates its compares `d[0]` times, and a switch and a compare of
/// doubles inside it, so that every kind of probe with an inline quiet path runs repeatedly.
const HARNESS: &str = r#"
#include <stddef.h>
#include <stdint.h>
int LLVMFuzzerTestOneInput(const uint8_t *d, size_t n) {
    if (n < 2) return 0;
    int odd = 0, big = 0, k = 0;
    double x = 0.0;
    for (int i = 0; i < d[0]; i++) {
        if ((d[1] + i) & 1) odd++;
        switch ((d[1] + i) % 3) { case 0: k += 2; break; case 1: k -= 1; break; default: break; }
        x += 0.5;
        if (x > 3.0 && d[1] > 7) big++;
    }
    return odd + big + k > 1000;
}
"#;

fn build(dir: &Path) -> PathBuf {
    common::build_fuzz_harness(dir, HARNESS)
}

#[test]
fn quiet_sites_count_the_same_hits_and_outcomes_as_recorded_ones() {
    let _ = common::evotest(); // checks that the pass and runtime were built
    let dir = tempfile::tempdir().unwrap();
    let exe = build(dir.path());
    let config = ForkServerConfig {
        sites: 64,
        outcomes: 256,
        persistent: Some(100),
        ..Default::default()
    };
    let mut fs = ForkServer::start(&exe, &config).unwrap();
    let inputs: [&[u8]; 3] = [&[40, 9], &[7, 2], &[200, 8]];
    let mut recorded = vec![];
    for input in inputs {
        recorded.push(fs.run(input, Stop::NONE).unwrap().trace);
    }
    let hits = |t: &evotest::trace::Trace| t.sites.iter().map(|r| r.hits).collect::<Vec<_>>();
    let reached = |t: &evotest::trace::Trace| {
        t.sites
            .iter()
            .enumerate()
            .filter(|(_, r)| r.hits > 0)
            .map(|(s, _)| s)
            .collect::<Vec<_>>()
    };
    let looped = recorded[2].sites.iter().filter(|r| r.hits >= 200).count();
    assert!(
        looped >= 4,
        "the loop's sites ran 200 times each: {:?}",
        hits(&recorded[2])
    );
    // every site quiet: later evaluations take the inline path
    for s in 0..recorded[2].sites.len() as u32 {
        fs.set_quiet(s);
    }
    for (input, before) in inputs.iter().zip(&recorded) {
        let after = fs.run(input, Stop::NONE).unwrap().trace;
        assert_eq!(hits(&after), hits(before), "hit counts of {input:?}");
        assert_eq!(
            reached(&after),
            reached(before),
            "sites reached by {input:?}"
        );
    }
    // and the sites come back when the quiet map is suspended
    fs.suspend_quiet(true);
    let again = fs.run(inputs[2], Stop::NONE).unwrap().trace;
    assert_eq!(
        again.dist, recorded[2].dist,
        "every evaluation recorded again"
    );
    assert_eq!(hits(&again), hits(&recorded[2]));
}
