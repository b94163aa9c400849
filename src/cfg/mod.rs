//! Control-flow analysis of one function: the CFG (petgraph), post-dominators, the control
//! dependence graph, and approach-level ladders.
//!
//! * **Post-dominators** are the dominators of the reversed CFG rooted at a virtual exit node
//!   (petgraph's Cooper–Harvey–Kennedy `simple_fast`). Every block without successors gets an edge
//!   to the exit; so does every block that cannot reach it (an infinite loop), the usual
//!   augmentation that keeps post-dominance defined.
//! * **Control dependence** (Ferrante, Ottenstein & Warren 1987): for each CFG edge a →ₖ b (k is
//!   the outcome of a's branch site), walk the post-dominator tree from b up to, but not including,
//!   ipdom(a); every block on the walk is control dependent on (a, k).
//! * **Approach-level ladder** of a block B: level 1 holds the control dependences of B, level 2
//!   those of the level-1 blocks, and so on (breadth first, each block once). An execution that
//!   did not reach B diverged at the first level holding an executed branch: the approach level
//!   (McMinn & Holcombe 2004, §2; EvoSuite's `ControlFlowDistance`).

pub mod reaching;

use petgraph::algo::dominators::simple_fast;
use petgraph::graph::{DiGraph, NodeIndex};
use petgraph::visit::{Bfs, Reversed};
use std::collections::HashSet;

/// Most control dependences an approach-level ladder keeps ([`Cfg::ladder`]): a bound on the
/// time and memory of one ladder, meant to lie far above what nested structured code gives.
pub const MAX_LADDER_DEPS: usize = 256;

/// A control dependence: the block is executed (eventually) if `block`'s branch takes outcome
/// `outcome`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct ControlDep {
    pub block: usize,
    pub outcome: u32,
}

/// Edge label of the CFG.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Edge {
    /// Successor `k` of the terminator (= outcome `k` of the block's branch site).
    Outcome(u32),
    /// Augmentation edge to the virtual exit.
    Exit,
}

/// The analysed CFG of one function.
#[derive(Clone, Debug)]
pub struct Cfg {
    /// Nodes `0..n_blocks` are the blocks (weights = block index), node `n_blocks` is the exit.
    pub graph: DiGraph<usize, Edge>,
    pub exit: NodeIndex,
    /// Immediate post-dominator of each block; `None` means the virtual exit.
    ipdom: Vec<Option<usize>>,
    /// Control dependences of each block, sorted.
    cd: Vec<Vec<ControlDep>>,
}

impl Cfg {
    /// Analyse a function given each block's successors in terminator order. Block 0 is the entry.
    pub fn new(succs: &[Vec<u32>]) -> Cfg {
        let n = succs.len();
        let mut graph = DiGraph::with_capacity(n + 1, n * 2);
        for b in 0..n {
            graph.add_node(b);
        }
        let exit = graph.add_node(usize::MAX);
        for (b, ss) in succs.iter().enumerate() {
            if ss.is_empty() {
                graph.add_edge(NodeIndex::new(b), exit, Edge::Exit);
            }
            for (k, &s) in ss.iter().enumerate() {
                graph.add_edge(
                    NodeIndex::new(b),
                    NodeIndex::new(s as usize),
                    Edge::Outcome(k as u32),
                );
            }
        }
        // Blocks that cannot reach the exit (infinite loops) get an augmentation edge.
        let mut reaches = vec![false; n + 1];
        let rev = Reversed(&graph);
        let mut bfs = Bfs::new(rev, exit);
        while let Some(v) = bfs.next(rev) {
            reaches[v.index()] = true;
        }
        for (b, r) in reaches.iter().enumerate().take(n) {
            if !r {
                graph.add_edge(NodeIndex::new(b), exit, Edge::Exit);
            }
        }

        let doms = simple_fast(Reversed(&graph), exit);
        let ipdom: Vec<Option<usize>> = (0..n)
            .map(|b| {
                doms.immediate_dominator(NodeIndex::new(b))
                    .filter(|d| *d != exit)
                    .map(|d| d.index())
            })
            .collect();

        let mut cd: Vec<Vec<ControlDep>> = vec![Vec::new(); n];
        for e in graph.edge_indices() {
            let Edge::Outcome(k) = graph[e] else { continue };
            let (a, b) = graph.edge_endpoints(e).unwrap();
            let (a, b) = (a.index(), b.index());
            let stop = ipdom[a];
            let mut t = Some(b);
            let mut guard = 0;
            while let Some(x) = t {
                if Some(x) == stop || guard > n {
                    break;
                }
                let dep = ControlDep {
                    block: a,
                    outcome: k,
                };
                if !cd[x].contains(&dep) {
                    cd[x].push(dep);
                }
                t = ipdom[x];
                guard += 1;
            }
        }
        for v in &mut cd {
            v.sort();
        }
        Cfg {
            graph,
            exit,
            ipdom,
            cd,
        }
    }

    /// Number of blocks (without the virtual exit).
    pub fn n_blocks(&self) -> usize {
        self.ipdom.len()
    }

    /// Immediate post-dominator of `block` (`None` = the virtual exit).
    pub fn ipdom(&self, block: usize) -> Option<usize> {
        self.ipdom[block]
    }

    /// Whether `a` post-dominates `b` (every path from `b` to the exit passes `a`).
    pub fn post_dominates(&self, a: usize, b: usize) -> bool {
        let mut t = Some(b);
        while let Some(x) = t {
            if x == a {
                return true;
            }
            t = self.ipdom[x];
        }
        false
    }

    /// Control dependences of `block`.
    pub fn control_deps(&self, block: usize) -> &[ControlDep] {
        &self.cd[block]
    }

    /// The approach-level ladder of `block` (see module docs): `ladder[i]` holds the branches at
    /// approach level `i + 1`. It keeps its nearest levels up to [`MAX_LADDER_DEPS`] control
    /// dependences in all (the level that would pass it is left out, and so are those above
    /// it): in code where control dependence reaches almost every branch (a goto-driven state
    /// machine, such as a Ragel scanner) a full ladder is as large as the function, for every
    /// block, and farther levels then count as not reached. Time and memory O(its size).
    pub fn ladder(&self, block: usize) -> Vec<Vec<ControlDep>> {
        let mut seen: HashSet<usize> = HashSet::from([block]);
        let mut levels = Vec::new();
        let mut frontier: Vec<ControlDep> = self.cd[block].to_vec();
        let mut total = 0;
        while !frontier.is_empty() {
            total += frontier.len();
            if total > MAX_LADDER_DEPS && !levels.is_empty() {
                break;
            }
            let mut next = Vec::new();
            let mut in_next: HashSet<ControlDep> = HashSet::new();
            for d in &frontier {
                if seen.insert(d.block) {
                    for dd in &self.cd[d.block] {
                        if !seen.contains(&dd.block) && in_next.insert(*dd) {
                            next.push(*dd);
                        }
                    }
                }
            }
            levels.push(frontier);
            frontier = next;
        }
        levels
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn dep(block: usize, outcome: u32) -> ControlDep {
        ControlDep { block, outcome }
    }

    /// if (c0) { B1 } else if (c2) { B3 } else { B4 }; B5: return
    ///   0 -T-> 1, 0 -F-> 2; 2 -T-> 3, 2 -F-> 4; 1,3,4 -> 5
    #[test]
    fn if_else_chain() {
        let cfg = Cfg::new(&[vec![1, 2], vec![5], vec![3, 4], vec![5], vec![5], vec![]]);
        assert_eq!(cfg.ipdom(0), Some(5));
        assert_eq!(cfg.ipdom(2), Some(5));
        assert_eq!(cfg.control_deps(1), &[dep(0, 0)]);
        assert_eq!(cfg.control_deps(2), &[dep(0, 1)]);
        assert_eq!(cfg.control_deps(3), &[dep(2, 0)]);
        assert_eq!(cfg.control_deps(4), &[dep(2, 1)]);
        assert!(cfg.control_deps(5).is_empty());
        assert!(cfg.control_deps(0).is_empty());
        // B3 is two levels below the entry decision
        assert_eq!(cfg.ladder(3), vec![vec![dep(2, 0)], vec![dep(0, 1)]]);
        assert!(cfg.post_dominates(5, 0));
        assert!(!cfg.post_dominates(1, 0));
    }

    /// A chain of 3,000 nested decisions (each block decides whether the next runs): the
    /// ladder of the innermost keeps its nearest levels, up to MAX_LADDER_DEPS dependences.
    #[test]
    fn a_ladder_is_bounded() {
        let n = 3000;
        // block i: T -> i + 1, F -> exit (block n)
        let mut succs: Vec<Vec<u32>> = (0..n as u32).map(|i| vec![i + 1, n as u32]).collect();
        succs.push(vec![]);
        succs[n - 1] = vec![n as u32];
        let cfg = Cfg::new(&succs);
        let l = cfg.ladder(n - 1);
        assert_eq!(l.len(), MAX_LADDER_DEPS);
        assert_eq!(l[0], vec![dep(n - 2, 0)]);
        assert_eq!(cfg.ladder(5).len(), 5);
    }

    /// for (i..) { for (j..) { if (c) B } }
    ///   0 -> 1 (outer header: T->2 body, F->7 exit)
    ///   2 -> 3 (inner header: T->4, F->6)
    ///   4: if c T->5 F->3' ; 5 -> 3 (latch to inner header)  (4 F -> 3 directly)
    ///   6 -> 1 (outer latch); 7: return
    #[test]
    fn nested_loops() {
        let cfg = Cfg::new(&[
            vec![1],    // 0 entry
            vec![2, 7], // 1 outer header
            vec![3],    // 2 outer body
            vec![4, 6], // 3 inner header
            vec![5, 3], // 4 if (c)
            vec![3],    // 5 then
            vec![1],    // 6 outer latch
            vec![],     // 7 exit
        ]);
        // the outer body and the inner header depend on the outer header taking "true"
        assert_eq!(cfg.control_deps(2), &[dep(1, 0)]);
        // inner header: reached from the outer body, and again via the inner loop's back edges
        assert_eq!(cfg.control_deps(3), &[dep(1, 0), dep(3, 0)]);
        assert_eq!(cfg.control_deps(4), &[dep(3, 0)]);
        assert_eq!(cfg.control_deps(5), &[dep(4, 0)]);
        // the outer header is control dependent on itself (the loop repeats)
        assert_eq!(cfg.control_deps(1), &[dep(1, 0)]);
        assert_eq!(
            cfg.ladder(5),
            vec![vec![dep(4, 0)], vec![dep(3, 0)], vec![dep(1, 0)]]
        );
    }

    /// if (a) return 1; if (b) return 2; return 3;
    ///   0 -T-> 1(ret) ; 0 -F-> 2 ; 2 -T-> 3(ret) ; 2 -F-> 4(ret)
    #[test]
    fn early_return() {
        let cfg = Cfg::new(&[vec![1, 2], vec![], vec![3, 4], vec![], vec![]]);
        assert_eq!(cfg.ipdom(0), None);
        assert_eq!(cfg.control_deps(2), &[dep(0, 1)]);
        assert_eq!(cfg.control_deps(4), &[dep(2, 1)]);
        assert_eq!(cfg.ladder(4), vec![vec![dep(2, 1)], vec![dep(0, 1)]]);
    }

    /// switch (x) { case 1: B2; case 2: B3 (falls through to B4); default: B4 }; B5
    ///   0: switch succs [default=4, case1=2, case2=3]; 2 -> 5; 3 -> 4; 4 -> 5; 5 ret
    #[test]
    fn switch_cases() {
        let cfg = Cfg::new(&[vec![4, 2, 3], vec![], vec![5], vec![4], vec![5], vec![]]);
        assert_eq!(cfg.control_deps(2), &[dep(0, 1)]);
        assert_eq!(cfg.control_deps(3), &[dep(0, 2)]);
        // B4 runs for the default and for case 2 (fall-through)
        assert_eq!(cfg.control_deps(4), &[dep(0, 0), dep(0, 2)]);
        assert!(cfg.control_deps(5).is_empty());
        // approach level 1 for B4: the switch, via its default or case 2
        assert_eq!(cfg.ladder(4), vec![vec![dep(0, 0), dep(0, 2)]]);
        assert_eq!(cfg.ladder(2), vec![vec![dep(0, 1)]]);
    }

    #[test]
    fn infinite_loop_keeps_post_dominance_defined() {
        // 0 -T-> 1 (for(;;) self loop), 0 -F-> 2 ret
        let cfg = Cfg::new(&[vec![1, 2], vec![1], vec![]]);
        assert_eq!(cfg.control_deps(1), &[dep(0, 0), dep(1, 0)]);
        assert_eq!(cfg.control_deps(2), &[dep(0, 1)]);
    }
}
