//! Random search: inputs drawn independently from the domain until the budget is spent or every
//! goal is covered. The baseline every other algorithm must beat.

use super::{Algorithm, AlgorithmSpec, Search, SearchContext};
use anyhow::Result;

pub const SPEC: AlgorithmSpec = AlgorithmSpec {
    name: "random",
    about: "random inputs from the domain (the baseline)",
    build: |_| Algorithm::Whole(Box::new(RandomSearch)),
};

pub struct RandomSearch;

impl Search for RandomSearch {
    fn run(&mut self, cx: &mut SearchContext) -> Result<()> {
        // Random search never gives goals up; it stops on coverage or budget.
        while !cx.out_of_budget() && cx.archive().n_covered() < cx.goals().len() {
            let x = cx.random_input();
            cx.evaluate(&x)?;
            if cx.domain.is_trivial() {
                break;
            }
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use crate::search::testkit::*;
    use crate::search::SearchConfig;

    /// Random search over a small range covers x == 3 and never sets a goal aside.
    #[test]
    fn random_search_covers_a_small_range_and_never_gives_up() {
        let d = ints(&["x"], Some((0, 9)));
        let r = run_algorithm(
            "random",
            &d,
            eq_landscape(vec![3]),
            SearchConfig::default(),
            5,
            1_000,
        );
        assert_eq!(r.covered, 2, "{r:?}");
        assert!(r.given_up.is_empty());
        assert!(r.executions < 1_000, "stops at full coverage: {r:?}");
    }
}
