//! NC, EP and the stationary path fitness on hand-made traces (the function of
//! `crate::path::tests::program`: s0 `n < 0`, s1 `w <= r` (loop), s2 `switch (x)` with case 7).

use super::*;
use crate::path::tests::{once, program};
use crate::path::Decisions;
use crate::trace::Event;

fn goal(steps: Vec<Step>, prefix: bool) -> PathGoal {
    let p = program();
    PathGoal::new(&p, Arc::new(Decisions::of(&p, 0)), steps, prefix)
}

/// A trace whose ordered events are `(site, outcome taken, alt)`; alt is the distance to the
/// outcome not taken (two-outcome sites) or the switched value.
fn trace(events: &[(u32, u32, f64)]) -> Trace {
    Trace {
        events: events
            .iter()
            .map(|&(id, outcome, alt)| Event { id, outcome, alt })
            .collect(),
        ..Default::default()
    }
}

#[test]
fn stationary_fitness_is_unmatched_length_plus_normalised_distance() {
    let g = goal(once(), false); // s0 F, s1 T, s1 F, s2 default: L = 4
                                 // taken exactly
    let t = trace(&[(0, 1, 3.0), (1, 0, 5.0), (1, 1, 2.0), (2, 0, 3.0)]);
    assert_eq!(
        g.matching(&t),
        PathMatch {
            matched: 4,
            deviation: Deviation::None
        }
    );
    assert_eq!(g.fitness(&t), 0.0);
    // deviates at the first decision: n < 0 was true, 4 away from false
    let t = trace(&[(0, 0, 4.0)]);
    assert_eq!(
        g.matching(&t),
        PathMatch {
            matched: 0,
            deviation: Deviation::At { step: 0, d: 4.0 }
        }
    );
    assert_eq!(g.fitness(&t), 4.0 + 4.0 / 5.0);
    // never enters the loop (w <= r false, 2 away from true)
    let t = trace(&[(0, 1, 1.0), (1, 1, 2.0), (2, 0, 3.0)]);
    assert_eq!(g.fitness(&t), 3.0 + 2.0 / 3.0);
    // loops twice instead of once: deviates at step 2, 9 away from leaving the loop
    let t = trace(&[
        (0, 1, 1.0),
        (1, 0, 9.0),
        (1, 0, 4.0),
        (1, 1, 1.0),
        (2, 0, 3.0),
    ]);
    assert_eq!(g.matching(&t).deviation, Deviation::At { step: 2, d: 4.0 });
    assert_eq!(g.fitness(&t), 2.0 + 4.0 / 5.0);
    // the switch took case 7 instead of the default: distance K
    let t = trace(&[(0, 1, 1.0), (1, 0, 9.0), (1, 1, 1.0), (2, 1, 7.0)]);
    assert_eq!(g.fitness(&t), 1.0 + 0.5);
    // wanting case 7 from x = 3: |3 − 7| = 4
    let g7 = goal(
        vec![
            Step { site: 0, k: 1 },
            Step { site: 1, k: 1 },
            Step { site: 2, k: 1 },
        ],
        false,
    );
    let t = trace(&[(0, 1, 1.0), (1, 1, 1.0), (2, 0, 3.0)]);
    assert_eq!(g7.fitness(&t), 1.0 + 4.0 / 5.0);
    // crashed after the first decision
    let t = trace(&[(0, 1, 1.0)]);
    assert_eq!(g.matching(&t).deviation, Deviation::Ended);
    assert_eq!(g.fitness(&t), 3.0 + 1.0);
    // other functions' sites and definitions are not decisions of the path
    let t = trace(&[
        (0, 1, 3.0),
        (99, 0, 1.0),
        (EVENT_DEF | 2, 0, 0.0),
        (1, 0, 5.0),
        (1, 1, 2.0),
        (2, 0, 3.0),
    ]);
    assert_eq!(g.fitness(&t), 0.0);
}

#[test]
fn prefix_targets_ignore_what_follows() {
    let exact = goal(once()[..2].to_vec(), false);
    let prefix = goal(once()[..2].to_vec(), true);
    let t = trace(&[(0, 1, 3.0), (1, 0, 5.0), (1, 1, 2.0), (2, 0, 3.0)]);
    assert_eq!(prefix.fitness(&t), 0.0);
    assert_eq!(exact.matching(&t).deviation, Deviation::Extra);
    assert!(exact.fitness(&t) > 0.0);
}

#[test]
fn ep_follows_table_1() {
    // w <= r wanted true and violated (w > r): EP = w − r = d; wanted false (w > r, strict) and
    // violated (w <= r): the Korel distance r − w + K carries a K that EP does not
    assert_eq!(ep(EpKind::NonStrict, 5.0), 5.0);
    assert_eq!(ep(EpKind::Strict, 5.0), 4.0);
    assert_eq!(ep(EpKind::Strict, 1.0), 0.0); // w == r: E1 − E2 = 0
    assert_eq!(ep(EpKind::Eq, 3.5), 3.5);
    assert_eq!(ep(EpKind::Ne, 1.0), 1.0 / K1);
    assert_eq!(ep(EpKind::Bool, 1.0), K2);
    assert_eq!(K2, 100.0);
    assert_eq!(ep_and(&[2.0, 3.0]), 5.0);
    assert_eq!(ep_or(&[2.0, 3.0]), 2.0);
    // which row each step of a path uses: s0 `n < 0` wanted false is `n >= 0` (non-strict);
    // s1 `w <= r` wanted true is non-strict, wanted false is `w > r` (strict)
    let g = goal(once(), false);
    let m = |step, d| PathMatch {
        matched: step,
        deviation: Deviation::At { step, d },
    };
    assert_eq!(g.ep(&m(0, 4.0)), Some(4.0));
    assert_eq!(g.ep(&m(1, 4.0)), Some(4.0));
    assert_eq!(g.ep(&m(2, 4.0)), Some(3.0));
    assert_eq!(g.ep(&m(3, 1.0)), Some(1.0)); // switch wanting the default
    assert_eq!(
        g.ep(&PathMatch {
            matched: 4,
            deviation: Deviation::None
        }),
        None
    );
}

#[test]
fn nc_minus_ep_over_mep_is_relative_to_the_population() {
    let g = goal(once(), false); // L = 4
    let at = |step: usize, d: f64| PathMatch {
        matched: step,
        deviation: Deviation::At { step, d },
    };
    // I1, I2 deviate at the first decision (EP 8 and 2); I3, I4 at the loop exit (strict: EP = d − 1,
    // so 6 and 2); I5 takes the path; I6 crashed after one decision
    let pop = [
        at(0, 8.0),
        at(0, 2.0),
        at(2, 7.0),
        at(2, 3.0),
        PathMatch {
            matched: 4,
            deviation: Deviation::None,
        },
        PathMatch {
            matched: 1,
            deviation: Deviation::Ended,
        },
    ];
    let ft = bueno_jino(&g, &pop);
    assert_eq!(ft[0], 1.0 - 8.0 / 8.0);
    assert_eq!(ft[1], 1.0 - 2.0 / 8.0);
    assert_eq!(ft[2], 3.0 - 6.0 / 6.0);
    assert_eq!(ft[3], 3.0 - 2.0 / 6.0);
    assert_eq!(ft[4], 5.0); // NC = L + 1
    assert_eq!(ft[5], 1.0); // NC − 1: the worst at its node
                            // MEP is per node and per population: without I1, I2's penalty is its whole EP
    let ft = bueno_jino(&g, &pop[1..]);
    assert_eq!(ft[0], 0.0);
    // more matched decisions always beat fewer
    let ft = bueno_jino(&g, &pop);
    assert!(ft[2].min(ft[3]) > ft[0].max(ft[1]));
}
