//! Random search: inputs drawn independently from the domain until the budget is spent or every
//! goal is covered. The baseline every other algorithm must beat.

use super::{AlgorithmSpec, Search, SearchContext};
use anyhow::Result;

pub const SPEC: AlgorithmSpec = AlgorithmSpec {
    name: "random",
    about: "random inputs from the domain (the baseline)",
    build: |_| Box::new(RandomSearch),
};

pub struct RandomSearch;

impl Search for RandomSearch {
    fn run(&mut self, cx: &mut SearchContext) -> Result<()> {
        // Random search never gives goals up; it stops on coverage or budget.
        while !cx.out_of_budget() && cx.archive.n_covered() < cx.goals.len() {
            let x = cx.random_input();
            cx.evaluate(&x)?;
            if cx.domain.genes.is_empty() {
                break;
            }
        }
        Ok(())
    }
}
