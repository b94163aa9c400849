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
use fixedbitset::FixedBitSet;
use petgraph::visit::{DfsPostOrder, Walker};
use petgraph::Direction;

/// Reaching definitions of one function.
///
/// The sets are bit sets over the function's definitions (bit `i` is `defs[i]`, in ascending
/// [`DefId`] order), and the blocks are visited in reverse postorder, so the analysis converges
/// in a few passes over the blocks (loop nesting depth + 2): a function of thousands of blocks
/// and definitions takes milliseconds.
#[derive(Clone, Debug, Default)]
pub struct ReachingDefs {
    /// The function's definitions, ascending: bit `i` of a set is `defs[i]`.
    defs: Vec<DefId>,
    /// Variable of each definition, by bit.
    var_of: Vec<VarId>,
    /// Per block: definitions reaching its entry.
    reach_in: Vec<FixedBitSet>,
    /// Per block: its definitions in instruction order: (index, bit, variable, partial).
    by_block: Vec<Vec<(u32, usize, VarId, bool)>>,
}

impl ReachingDefs {
    /// Analyse a function with CFG `cfg` and definitions `defs` (all of this function; those
    /// outside its blocks are ignored).
    pub fn new<'a>(cfg: &Cfg, defs: impl Iterator<Item = &'a Def>) -> ReachingDefs {
        let n = cfg.n_blocks();
        let mut list: Vec<&Def> = defs.filter(|d| (d.meta.block as usize) < n).collect();
        list.sort_by_key(|d| d.id);
        list.dedup_by_key(|d| d.id);
        let m = list.len();
        let mut by_block: Vec<Vec<(u32, usize, VarId, bool)>> = vec![Vec::new(); n];
        // per variable: the bits of its definitions
        let mut of_var: std::collections::HashMap<VarId, FixedBitSet> = Default::default();
        for (i, d) in list.iter().enumerate() {
            by_block[d.meta.block as usize].push((d.meta.index, i, d.var, d.meta.partial));
            of_var
                .entry(d.var)
                .or_insert_with(|| FixedBitSet::with_capacity(m))
                .insert(i);
        }
        for b in &mut by_block {
            b.sort();
        }
        // gen: the last full definition of each variable and the partial ones after it;
        // kill: every definition of a variable the block defines fully, except its gen
        let empty = FixedBitSet::with_capacity(m);
        let mut gen = vec![empty.clone(); n];
        let mut kill = vec![empty.clone(); n];
        for (b, defs) in by_block.iter().enumerate() {
            for &(_, i, v, partial) in defs {
                if !partial {
                    let all = &of_var[&v];
                    gen[b].difference_with(all);
                    kill[b].union_with(all);
                }
                gen[b].insert(i);
            }
            kill[b].difference_with(&gen[b]);
        }
        // blocks in reverse postorder from the entry, then any the entry does not reach
        let mut order: Vec<usize> =
            DfsPostOrder::new(&cfg.graph, petgraph::graph::NodeIndex::new(0))
                .iter(&cfg.graph)
                .map(|x| x.index())
                .filter(|&b| b < n)
                .collect();
        order.reverse();
        let mut placed = vec![false; n];
        for &b in &order {
            placed[b] = true;
        }
        order.extend((0..n).filter(|&b| !placed[b]));
        let mut reach_in = vec![empty.clone(); n];
        let mut reach_out = gen.clone();
        let mut out = empty.clone();
        let mut changed = n > 0;
        while changed {
            changed = false;
            for &b in &order {
                let node = petgraph::graph::NodeIndex::new(b);
                let inb = &mut reach_in[b];
                for p in cfg.graph.neighbors_directed(node, Direction::Incoming) {
                    if p.index() < n {
                        inb.union_with(&reach_out[p.index()]);
                    }
                }
                out.clone_from(inb);
                out.difference_with(&kill[b]);
                out.union_with(&gen[b]);
                if out != reach_out[b] {
                    std::mem::swap(&mut reach_out[b], &mut out);
                    changed = true;
                }
            }
        }
        ReachingDefs {
            defs: list.iter().map(|d| d.id).collect(),
            var_of: list.iter().map(|d| d.var).collect(),
            reach_in,
            by_block,
        }
    }

    /// Definitions of `var` (from this function) that reach instruction `index` of `block`,
    /// ascending.
    pub fn at(&self, block: usize, index: u32, var: VarId) -> Vec<DefId> {
        let Some(reach) = self.reach_in.get(block) else {
            return Vec::new();
        };
        let mut set: Vec<usize> = reach.ones().filter(|&i| self.var_of[i] == var).collect();
        for &(i, bit, v, partial) in &self.by_block[block] {
            if i >= index {
                break;
            }
            if v == var {
                if !partial {
                    set.clear();
                }
                set.push(bit);
            }
        }
        set.sort_unstable();
        set.dedup();
        set.into_iter().map(|i| self.defs[i]).collect()
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

    /// The textbook round-robin algorithm over sets (the analysis as first written here), as the
    /// oracle of the bit-set one.
    fn reference(cfg: &Cfg, defs: &[Def], block: usize, index: u32, var: VarId) -> Vec<DefId> {
        use std::collections::BTreeSet;
        let n = cfg.n_blocks();
        let var_of: std::collections::HashMap<DefId, VarId> =
            defs.iter().map(|d| (d.id, d.var)).collect();
        let mut by_block: Vec<Vec<(u32, DefId, VarId, bool)>> = vec![Vec::new(); n];
        for d in defs {
            by_block[d.meta.block as usize].push((d.meta.index, d.id, d.var, d.meta.partial));
        }
        for b in &mut by_block {
            b.sort();
        }
        let mut gen: Vec<BTreeSet<DefId>> = vec![BTreeSet::new(); n];
        let mut killed: Vec<BTreeSet<VarId>> = vec![BTreeSet::new(); n];
        for (b, list) in by_block.iter().enumerate() {
            for &(_, d, v, partial) in list {
                if !partial {
                    gen[b].retain(|x| var_of[x] != v);
                    killed[b].insert(v);
                }
                gen[b].insert(d);
            }
        }
        let mut reach_in: Vec<BTreeSet<DefId>> = vec![BTreeSet::new(); n];
        let mut reach_out = gen.clone();
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
                        .filter(|d| !killed[b].contains(&var_of[d])),
                );
                if out != reach_out[b] {
                    reach_out[b] = out;
                    changed = true;
                }
                reach_in[b] = inb;
            }
        }
        let mut set: BTreeSet<DefId> = reach_in[block]
            .iter()
            .copied()
            .filter(|d| var_of[d] == var)
            .collect();
        for &(i, d, v, partial) in &by_block[block] {
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

    proptest::proptest! {
        #[test]
        fn the_bit_sets_agree_with_the_textbook_algorithm(
            succs in proptest::collection::vec(proptest::collection::vec(0usize..10, 0..3), 1..10),
            raw in proptest::collection::vec((0u32..3, 0usize..10, 0u32..4, proptest::bool::ANY), 0..14),
        ) {
            let n = succs.len();
            let succs: Vec<Vec<u32>> = succs
                .into_iter()
                .map(|s| { let mut s: Vec<u32> = s.into_iter().map(|x| (x % n) as u32).collect(); s.dedup(); s })
                .collect();
            let cfg = Cfg::new(&succs);
            // distinct (block, index) per definition, ids in an order unlike the blocks'
            let mut defs: Vec<Def> = Vec::new();
            for (k, &(v, b, i, partial)) in raw.iter().enumerate() {
                let b = (b % n) as u32;
                if defs.iter().any(|d| d.meta.block == b && d.meta.index == i) {
                    continue;
                }
                defs.push(def((raw.len() - k) as DefId * 3, v, b, i, partial));
            }
            let rd = ReachingDefs::new(&cfg, defs.iter());
            for b in 0..n {
                for i in 0..5 {
                    for v in 0..3 {
                        proptest::prop_assert_eq!(rd.at(b, i, v), reference(&cfg, &defs, b, i, v), "block {} index {} var {}", b, i, v);
                    }
                }
            }
        }
    }
}
