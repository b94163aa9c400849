//! Reaching definitions of one function: the classic iterative data-flow analysis over basic
//! blocks (Aho, Lam, Sethi & Ullman, §9.2.4), on the petgraph CFG of [`super::Cfg`].
//!
//! `gen[b]` holds the last definition of each variable in `b` (and the partial definitions after
//! it), `kill[b]` every other definition of the variables `b` defines fully; then
//! `in[b] = ∪ out[p]` over predecessors and `out[b] = gen[b] ∪ (in[b] − kill[b])` until nothing
//! changes. A partial definition (a store through an element, `a[i] = …`) generates but does not
//! kill.
//!
//! **Scope.** Locals live in `alloca`s at -O0, so each is one variable with explicit stores. Had the
//! target been compiled at higher -O, most locals would be SSA values: their single definition is
//! the instruction itself and a `phi` merges the definitions of its incoming edges. evotest
//! instruments before optimisation, so the pass never sees that form, and this analysis does not
//! model it. For globals, definitions in other functions may also reach through calls; the callers
//! of [`ReachingDefs::at`] add them.

use super::Cfg;
use crate::program::{Def, DefId, VarId};
use petgraph::Direction;
use std::collections::BTreeSet;

/// Reaching definitions of one function.
#[derive(Clone, Debug, Default)]
pub struct ReachingDefs {
    /// Per block: definitions reaching its entry.
    reach_in: Vec<BTreeSet<DefId>>,
    /// Per block: its definitions in instruction order: (index, def, variable, partial).
    by_block: Vec<Vec<(u32, DefId, VarId, bool)>>,
    /// Variable of each definition of the function.
    var_of: std::collections::HashMap<DefId, VarId>,
}

impl ReachingDefs {
    /// Analyse a function with CFG `cfg` and definitions `defs` (all of this function).
    pub fn new<'a>(cfg: &Cfg, defs: impl Iterator<Item = &'a Def>) -> ReachingDefs {
        let n = cfg.n_blocks();
        let mut by_block: Vec<Vec<(u32, DefId, VarId, bool)>> = vec![Vec::new(); n];
        let mut var_of = std::collections::HashMap::new();
        for d in defs {
            if (d.meta.block as usize) < n {
                by_block[d.meta.block as usize].push((d.meta.index, d.id, d.var, d.meta.partial));
                var_of.insert(d.id, d.var);
            }
        }
        for b in &mut by_block {
            b.sort();
        }
        // gen and kill
        let mut gen: Vec<BTreeSet<DefId>> = vec![BTreeSet::new(); n];
        let mut killed_vars: Vec<BTreeSet<VarId>> = vec![BTreeSet::new(); n];
        for (b, list) in by_block.iter().enumerate() {
            for &(_, d, v, partial) in list {
                if !partial {
                    gen[b].retain(|x| var_of[x] != v);
                    killed_vars[b].insert(v);
                }
                gen[b].insert(d);
            }
        }
        let mut reach_in: Vec<BTreeSet<DefId>> = vec![BTreeSet::new(); n];
        let mut reach_out: Vec<BTreeSet<DefId>> = gen.clone();
        let mut changed = true;
        while changed {
            changed = false;
            for b in 0..n {
                let node = petgraph::graph::NodeIndex::new(b);
                let mut inb = BTreeSet::new();
                for p in cfg.graph.neighbors_directed(node, Direction::Incoming) {
                    if p.index() < n {
                        inb.extend(reach_out[p.index()].iter().copied());
                    }
                }
                let mut out = gen[b].clone();
                out.extend(
                    inb.iter()
                        .copied()
                        .filter(|d| !killed_vars[b].contains(&var_of[d])),
                );
                if out != reach_out[b] {
                    reach_out[b] = out;
                    changed = true;
                }
                reach_in[b] = inb;
            }
        }
        ReachingDefs {
            reach_in,
            by_block,
            var_of,
        }
    }

    /// Definitions of `var` (from this function) that reach instruction `index` of `block`.
    pub fn at(&self, block: usize, index: u32, var: VarId) -> Vec<DefId> {
        let mut set: BTreeSet<DefId> = self.reach_in[block]
            .iter()
            .copied()
            .filter(|d| self.var_of[d] == var)
            .collect();
        for &(i, d, v, partial) in &self.by_block[block] {
            if i >= index {
                break;
            }
            if v == var {
                if !partial {
                    set.clear();
                }
                set.insert(d);
            }
        }
        set.into_iter().collect()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use evotest_abi::meta::DefMeta;

    fn def(id: DefId, var: VarId, block: u32, index: u32, partial: bool) -> Def {
        Def {
            id,
            var,
            function: 0,
            uses: vec![],
            meta: DefMeta {
                id,
                var,
                function: 0,
                block,
                index,
                file: String::new(),
                line: 0,
                col: 0,
                text: String::new(),
                param_init: false,
                partial,
                probed: true,
                uses: vec![],
            },
        }
    }

    /// flag = 1; for (i = 0; i < 10; i++) if (a[i] != 0) flag = 0; if (flag) …
    ///   0: flag=1 (d0), i=0 (d1) -> 1;  1: i < 10 ? 2 : 4;  2: a[i] != 0 ? 3 : 5;
    ///   3: flag=0 (d2) -> 5;  5: i=i+1 (d3) -> 1;  4: if (flag) at index 1
    #[test]
    fn flag_in_a_loop_reaches_from_both_assignments() {
        let cfg = Cfg::new(&[
            vec![1],
            vec![2, 4],
            vec![3, 5],
            vec![5],
            vec![6, 7],
            vec![1],
            vec![],
            vec![],
        ]);
        let (flag, i) = (0, 1);
        let defs = [
            def(0, flag, 0, 0, false),
            def(1, i, 0, 1, false),
            def(2, flag, 3, 0, false),
            def(3, i, 5, 0, false),
        ];
        let rd = ReachingDefs::new(&cfg, defs.iter());
        assert_eq!(rd.at(4, 1, flag), vec![0, 2]);
        assert_eq!(rd.at(1, 0, i), vec![1, 3]);
        // inside block 3, after flag = 0: only that definition
        assert_eq!(rd.at(3, 1, flag), vec![2]);
        // at the start of block 0 nothing reaches
        assert!(rd.at(0, 0, flag).is_empty());
    }

    /// x = 1 (d0); if (c) x = 2 (d1); else a[x] = 3 (partial def of a, d2); use x, a
    #[test]
    fn a_later_definition_kills_and_a_partial_one_does_not() {
        let cfg = Cfg::new(&[vec![1, 2], vec![3], vec![3], vec![]]);
        let (x, a) = (0, 1);
        let defs = [
            def(0, x, 0, 0, false),
            def(1, x, 1, 0, false),
            def(2, a, 2, 0, true),
            def(3, a, 0, 1, false),
        ];
        let rd = ReachingDefs::new(&cfg, defs.iter());
        assert_eq!(rd.at(3, 0, x), vec![0, 1]);
        assert_eq!(rd.at(3, 0, a), vec![2, 3]);
        assert_eq!(rd.at(1, 1, x), vec![1]);
    }
}
