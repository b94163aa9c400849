//! The chaining approach (Ferguson & Korel 1996) hybridised with evolutionary testing, after
//! McMinn & Holcombe (2004).
//!
//! When plain search stalls on a goal (a branch outcome that depends on a flag, a counter, an
//! enumeration or a special return value, whose branch distance gives no guidance), the best
//! input's **ordered trace** shows the **problem node**: the branch where execution diverged from
//! the goal and could not be turned. The last definitions of the variables used there (reaching
//! definitions, [`crate::cfg::reaching`]) are the statements that decide it, and each gives a new
//! **event sequence** ⟨…, (d, {v}), (p, ∅), …, target⟩: execute definition d, keep v unchanged
//! until the problem node p, then reach the target. Sequences form a **chaining tree**, searched
//! to a depth limit (default 5) in breadth- or depth-first order; a separate search runs for each
//! sequence, minimising its fitness ([`Chain::fitness`], McMinn & Holcombe 2004, Eq. 2).
//!
//! Events are [`Node::Take`] (a branch site takes an outcome) or [`Node::Def`] (a definition
//! executes). Besides the problem node's last definitions, the tree also follows the
//! **influencing set** (McMinn & Holcombe's extension): when a definition event is reached but the
//! following event still fails, the variables its value is computed from, and their last
//! definitions before it, become events too (this is what finds black in `enumeration`: the
//! returned colour is `palette[i].colour`, so `i = 0` must not be incremented before the return).

pub mod driver;

pub use driver::{ChainConfig, ChainOrder, ChainReport, Chained, Chaining};

use crate::cfg::reaching::ReachingDefs;
use crate::fitness::normalise;
use crate::fitness::{Analysis, Goal};
use crate::program::{DefId, Program, SiteId, VarId};
use crate::trace::{Event, Trace, EVENT_DEF};
use evotest_abi::meta::{SiteKind, VarKind};
use std::sync::Arc;

/// A program node an event refers to.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, serde::Serialize)]
#[serde(tag = "node", rename_all = "snake_case")]
pub enum Node {
    /// Branch site `site` takes outcome `outcome` (index within the site).
    Take { site: SiteId, outcome: u32 },
    /// Definition `def` executes.
    Def { def: DefId },
}

/// One event of a sequence: a node and the variables that must not be redefined until the next
/// event (its constraint set).
#[derive(Clone, Debug, PartialEq, Eq, Hash, serde::Serialize)]
pub struct ChainEvent {
    pub node: Node,
    pub constraint: Vec<VarId>,
}

/// An event sequence; its last event is the target.
#[derive(Clone, Debug, PartialEq, Eq, Hash, serde::Serialize)]
pub struct Sequence {
    pub events: Vec<ChainEvent>,
}

/// Everything the chaining approach needs from the program, shared by its goals.
pub struct Chain {
    program: Program,
    /// Per site: its approach-level ladder as (site, outcome index).
    site_ladder: Vec<Vec<Vec<(SiteId, u32)>>>,
    /// Per definition: the ladder of its block.
    def_ladder: Vec<Vec<Vec<(SiteId, u32)>>>,
    /// Per function: reaching definitions, computed when a sequence first asks for them (a
    /// search needs those of the function under test and its callees, not of the whole file).
    reaching: Vec<std::sync::OnceLock<ReachingDefs>>,
    /// Per function: its CFG, for the reaching definitions.
    cfgs: Vec<crate::cfg::Cfg>,
    /// Variable of each definition.
    def_var: Vec<VarId>,
    /// Per function, per block: whether the block is in a loop (a cycle of the CFG).
    in_loop: Vec<Vec<bool>>,
    /// Per function: whether one execution may call it more than once ([`repeated_calls`]).
    repeats: Vec<bool>,
}

/// Per function of `program`: whether one execution may call it more than once, so that a
/// definition in it outside its loops can still occur twice (a counter incremented by a helper
/// called from several places). True for a function with two or more call instructions, one in a
/// block in a loop, from a function that itself repeats, within a cycle of the call graph, or
/// whose address is taken (its calls through the pointer are not known); false for the function
/// under test and for any function with a single call site that runs once.
pub fn repeated_calls(program: &Program, in_loop: &[Vec<bool>]) -> Vec<bool> {
    use petgraph::graph::{DiGraph, NodeIndex};
    let n = program.functions.len();
    let callers = program.call_instructions();
    let address_taken: std::collections::HashSet<&str> = program
        .functions
        .iter()
        .flat_map(|f| f.meta.address_refs.iter().map(String::as_str))
        .collect();
    // the direct call graph, caller → callee
    let mut graph = DiGraph::<(), ()>::with_capacity(n, 0);
    for _ in 0..n {
        graph.add_node(());
    }
    for (f, sites) in callers.iter().enumerate() {
        for &(g, _) in sites {
            graph.update_edge(NodeIndex::new(g), NodeIndex::new(f), ());
        }
    }
    let mut repeats: Vec<bool> = (0..n)
        .map(|f| {
            callers[f].len() > 1
                || address_taken.contains(program.functions[f].meta.name.as_str())
                || callers[f]
                    .iter()
                    .any(|&(g, b)| in_loop[g].get(b).copied().unwrap_or(true))
        })
        .collect();
    // a function in a cycle of the call graph (recursion) runs again within one call of it
    for scc in petgraph::algo::tarjan_scc(&graph) {
        if scc.len() > 1 || graph.contains_edge(scc[0], scc[0]) {
            for v in scc {
                repeats[v.index()] = true;
            }
        }
    }
    // and so does what a function that repeats calls
    let mut work: Vec<usize> = (0..n).filter(|&f| repeats[f]).collect();
    while let Some(g) = work.pop() {
        for f in graph.neighbors(NodeIndex::new(g)) {
            if !repeats[f.index()] {
                repeats[f.index()] = true;
                work.push(f.index());
            }
        }
    }
    repeats
}

fn ladder_of(
    program: &Program,
    analysis: &Analysis,
    function: usize,
    block: usize,
) -> Vec<Vec<(SiteId, u32)>> {
    let f = &program.functions[function];
    analysis.cfgs[function]
        .ladder(block)
        .into_iter()
        .map(|level| {
            level
                .into_iter()
                .filter_map(|d| Some((f.block_site[d.block]?, d.outcome)))
                .collect::<Vec<_>>()
        })
        .filter(|l: &Vec<_>| !l.is_empty())
        .collect()
}

impl Chain {
    /// Prepare the analyses of `program`, keeping `analysis`'s CFGs for the reaching
    /// definitions.
    pub fn new(program: &Program, analysis: Analysis) -> Chain {
        let site_ladder = program
            .sites
            .iter()
            .map(|s| ladder_of(program, &analysis, s.function, s.meta.block as usize))
            .collect();
        let def_ladder = program
            .defs
            .iter()
            .map(|d| ladder_of(program, &analysis, d.function, d.meta.block as usize))
            .collect();
        let reaching = (0..program.functions.len())
            .map(|_| std::sync::OnceLock::new())
            .collect();
        let def_var = program.defs.iter().map(|d| d.var).collect();
        let in_loop = analysis
            .cfgs
            .iter()
            .map(|cfg| {
                let mut v = vec![false; cfg.n_blocks()];
                for scc in petgraph::algo::tarjan_scc(&cfg.graph) {
                    let cyclic = scc.len() > 1 || cfg.graph.contains_edge(scc[0], scc[0]);
                    for n in scc {
                        if cyclic && n.index() < v.len() {
                            v[n.index()] = true;
                        }
                    }
                }
                v
            })
            .collect::<Vec<_>>();
        let repeats = repeated_calls(program, &in_loop);
        Chain {
            program: program.clone(),
            site_ladder,
            def_ladder,
            reaching,
            cfgs: analysis.cfgs,
            def_var,
            in_loop,
            repeats,
        }
    }

    /// Whether definition `d` may run more than once in an execution: it is in a loop of its
    /// function, or its function may be called more than once ([`repeated_calls`]).
    fn def_may_repeat(&self, d: DefId) -> bool {
        let def = &self.program.defs[d as usize];
        self.repeats.get(def.function).copied().unwrap_or(true)
            || self.in_loop[def.function]
                .get(def.meta.block as usize)
                .copied()
                .unwrap_or(true)
    }

    /// Whether inserting definition `d` at `at` into `events` can ever match: a definition that
    /// runs at most once per execution ([`Chain::def_may_repeat`]) cannot occur twice, nor after
    /// an event of its function that is in a loop.
    fn plausible(&self, events: &[ChainEvent], at: usize, d: DefId) -> bool {
        if self.def_may_repeat(d) {
            return true;
        }
        if events.iter().any(|e| e.node == Node::Def { def: d }) {
            return false;
        }
        let f = self.program.defs[d as usize].function;
        !events[..at].iter().any(|e| {
            let (ef, block, _) = self.place(e.node);
            ef == f
                && self.in_loop[ef]
                    .get(block as usize)
                    .copied()
                    .unwrap_or(false)
        })
    }

    pub fn program(&self) -> &Program {
        &self.program
    }

    fn is_switch(&self, site: SiteId) -> bool {
        self.program.sites[site as usize].meta.kind == SiteKind::Switch
    }

    /// Branch distance of event `e` (at `site`) to outcome `want`.
    fn dist_to(&self, site: SiteId, e: &Event, want: u32) -> f64 {
        if e.outcome == want {
            return 0.0;
        }
        if self.is_switch(site) {
            if want == 0 {
                return evotest_abi::K;
            }
            let cases = &self.program.sites[site as usize].meta.case_values;
            return cases
                .get(want as usize - 1)
                .map_or(evotest_abi::D_MAX, |&c| (e.alt - c as f64).abs());
        }
        e.alt
    }

    fn matches(node: Node, e: &Event) -> bool {
        match node {
            Node::Take { site, outcome } => e.id == site && e.outcome == outcome,
            Node::Def { def } => e.id == (EVENT_DEF | def),
        }
    }

    /// Approach level + normalised branch distance of `node` over the trace segment `seg`
    /// (McMinn & Holcombe 2004, Eq. 1, restricted to the part of the execution after the previous event). Only
    /// *critical* branches count: executions of a ladder branch that went the way leading to the
    /// node are not a divergence.
    pub fn eq1(&self, node: Node, seg: &[Event]) -> f64 {
        if let Node::Take { site, outcome } = node {
            let best = seg
                .iter()
                .filter(|e| e.id == site && e.outcome != outcome)
                .map(|e| self.dist_to(site, e, outcome))
                .reduce(f64::min);
            if let Some(d) = best {
                return normalise(d);
            }
        }
        for (k, level) in self.ladder(node).iter().enumerate() {
            let best = level
                .iter()
                .flat_map(|&(s, o)| {
                    seg.iter()
                        .filter(move |e| e.id == s && e.outcome != o)
                        .map(move |e| (s, e, o))
                })
                .map(|(s, e, o)| self.dist_to(s, e, o))
                .reduce(f64::min);
            if let Some(d) = best {
                return (k + 1) as f64 + normalise(d);
            }
        }
        (self.ladder(node).len() + 1) as f64
    }

    fn ladder(&self, node: Node) -> &Vec<Vec<(SiteId, u32)>> {
        match node {
            Node::Take { site, .. } => &self.site_ladder[site as usize],
            Node::Def { def } => &self.def_ladder[def as usize],
        }
    }

    /// Normalised distance of the last branch before position `at` (the alternative branch that
    /// would have avoided what happens at `at`).
    fn alt_before(&self, events: &[Event], at: usize) -> f64 {
        events[..at]
            .iter()
            .rev()
            .find(|e| e.id & EVENT_DEF == 0)
            .map_or(1.0, |e| normalise(e.alt))
    }

    fn violations(&self, constraint: &[VarId], events: &[Event], from: usize, to: usize) -> f64 {
        if constraint.is_empty() {
            return 0.0;
        }
        (from..to)
            .filter(|&i| {
                let e = &events[i];
                e.id & EVENT_DEF != 0
                    && self
                        .def_var
                        .get((e.id & !EVENT_DEF) as usize)
                        .is_some_and(|v| constraint.contains(v))
            })
            .map(|i| self.alt_before(events, i))
            .sum()
    }

    /// Fitness of an execution for `seq` (McMinn & Holcombe 2004, Eq. 2, minimised; 0 when every event happened
    /// in order with its constraints kept), and the index of the first event that did not happen.
    ///
    /// **Trace matching is first-fit:** each event is matched at its first occurrence after the
    /// previous event's match. The first unmatched event adds Eq. 1 (approach level + d/(d+1))
    /// computed on the rest of the trace; every event after it adds 1 (it is unreached, like an
    /// approach level across the sequence: adding their distances too would mix opposite pulls,
    /// e.g. |x| and |1/x| in McMinn & Holcombe's deceptive example, into a flat sum). A matched event with a
    /// constraint set adds, for every definition of a constrained variable before the next event's
    /// match (or the end of the trace), d/(d+1) of the last branch before that definition.
    pub fn fitness(&self, seq: &Sequence, events: &[Event]) -> (f64, Option<usize>) {
        let mut total = 0.0;
        let mut pos = 0;
        let mut prev: Option<(usize, &ChainEvent)> = None;
        // start of the segment after the event before the current run of identical events
        let mut run_start = 0;
        for (k, ev) in seq.events.iter().enumerate() {
            if k > 0 && seq.events[k - 1].node != ev.node {
                run_start = pos;
            }
            match events[pos..]
                .iter()
                .position(|e| Self::matches(ev.node, e))
                .map(|i| i + pos)
            {
                Some(q) => {
                    if let Some((pq, pe)) = prev {
                        total += self.violations(&pe.constraint, events, pq + 1, q);
                    }
                    prev = Some((q, ev));
                    pos = q + 1;
                }
                None => {
                    if let Some((pq, pe)) = prev {
                        total += self.violations(&pe.constraint, events, pq + 1, events.len());
                    }
                    // A run of identical events (⟨inc, inc, inc⟩: "n increments") is satisfied by any
                    // n occurrences, so the missing one is sought after the run began, not only after
                    // the previous occurrence.
                    total += self.eq1(ev.node, &events[run_start..]);
                    total += (seq.events.len() - k - 1) as f64;
                    return (total, Some(k));
                }
            }
        }
        if let Some((pq, pe)) = prev {
            // constraints of the last event run to the end of the execution (none for a target)
            total += self.violations(&pe.constraint, events, pq + 1, events.len());
        }
        (total, None)
    }

    /// Where the search for event `k` starts in the trace, as [`Chain::fitness`] does: after the
    /// match of the event before the run of events identical to event `k`.
    fn segment_start(&self, seq: &Sequence, k: usize, events: &[Event]) -> usize {
        let mut pos = 0;
        let mut run_start = 0;
        for (j, ev) in seq.events[..k].iter().enumerate() {
            if j > 0 && seq.events[j - 1].node != ev.node {
                run_start = pos;
            }
            match events[pos..].iter().position(|e| Self::matches(ev.node, e)) {
                Some(i) => pos += i + 1,
                None => break,
            }
        }
        if k > 0 && seq.events[k - 1].node != seq.events[k].node {
            run_start = pos;
        }
        run_start
    }

    /// The problem node for event `k` of `seq` in an execution: the branch (site, wanted outcome)
    /// where control diverged from the event's node after the previous event, or `None` if the
    /// segment never came close (the function was not entered).
    pub fn problem(&self, seq: &Sequence, k: usize, events: &[Event]) -> Option<(SiteId, u32)> {
        let seg = &events[self.segment_start(seq, k, events)..];
        let node = seq.events[k].node;
        if let Node::Take { site, outcome } = node {
            if seg.iter().any(|e| e.id == site && e.outcome != outcome) {
                return Some((site, outcome));
            }
        }
        for level in self.ladder(node) {
            for &(s, o) in level {
                if seg.iter().any(|e| e.id == s && e.outcome != o) {
                    return Some((s, o));
                }
            }
        }
        None
    }

    /// Definitions of `v` that may be the last before instruction `index` of `block` of function
    /// `function`: reaching definitions for locals and parameters; every definition for globals
    /// (they may come from other functions) and return values (all of the callee's returns).
    /// Only definitions that appear in the ordered trace count.
    pub fn last_defs(&self, function: usize, block: usize, index: u32, v: VarId) -> Vec<DefId> {
        let p = &self.program;
        let kind = p.vars[v as usize].meta.kind;
        let ids: Vec<DefId> = match kind {
            VarKind::Global | VarKind::Retval => p.defs_of(v).map(|d| d.id).collect(),
            VarKind::Local | VarKind::Param => self.reaching[function]
                .get_or_init(|| {
                    ReachingDefs::new(
                        &self.cfgs[function],
                        p.defs.iter().filter(|d| d.function == function),
                    )
                })
                .at(block, index, v),
        };
        ids.into_iter()
            .filter(|d| p.defs[*d as usize].meta.probed)
            .collect()
    }

    /// The children of `seq` in the chaining tree, given the execution of its best input: new
    /// sequences for the last definitions of the variables used at the problem node of the first
    /// event that did not happen, and (influencing set) for the variables the preceding
    /// definition's value depends on.
    pub fn expand(&self, seq: &Sequence, events: &[Event]) -> Vec<Sequence> {
        let (_, Some(k)) = self.fitness(seq, events) else {
            return vec![];
        };
        let mut out: Vec<Sequence> = Vec::new();
        let mut push = |s: Sequence| {
            if !out.contains(&s) && &s != seq {
                out.push(s);
            }
        };
        if let Some((psite, pout)) = self.problem(seq, k, events) {
            let site = &self.program.sites[psite as usize];
            let problem = ChainEvent {
                node: Node::Take {
                    site: psite,
                    outcome: pout,
                },
                constraint: vec![],
            };
            for &v in &site.uses {
                for d in self.last_defs(site.function, site.meta.block as usize, site.meta.index, v)
                {
                    let mut events = seq.events[..k].to_vec();
                    if seq.events[k].node != problem.node {
                        events.push(problem.clone());
                    }
                    events.extend_from_slice(&seq.events[k..]);
                    let at = self.insertion_point(&events, k, d);
                    if self.plausible(&events, at, d) {
                        events.insert(
                            at,
                            ChainEvent {
                                node: Node::Def { def: d },
                                constraint: vec![v],
                            },
                        );
                        push(Sequence { events });
                    }
                }
            }
        }
        // influencing set: the definition before the failing event was reached, but its value is
        // still wrong; its own inputs must be prepared
        if k > 0 {
            if let Node::Def { def } = seq.events[k - 1].node {
                let d = &self.program.defs[def as usize];
                for &v in &d.uses {
                    for d2 in self.last_defs(d.function, d.meta.block as usize, d.meta.index, v) {
                        if d2 == def {
                            continue;
                        }
                        let mut events = seq.events.clone();
                        let at = self.insertion_point(&events, k - 1, d2);
                        if self.plausible(&events, at, d2) {
                            events.insert(
                                at,
                                ChainEvent {
                                    node: Node::Def { def: d2 },
                                    constraint: vec![v],
                                },
                            );
                            push(Sequence { events });
                        }
                    }
                }
            }
        }
        out
    }

    /// (function, block, index) of a node, its position in layout order.
    fn place(&self, node: Node) -> (usize, u32, u32) {
        match node {
            Node::Take { site, .. } => {
                let s = &self.program.sites[site as usize];
                (s.function, s.meta.block, s.meta.index)
            }
            Node::Def { def } => {
                let d = &self.program.defs[def as usize];
                (d.function, d.meta.block, d.meta.index)
            }
        }
    }

    /// Where to insert definition `d` into `events` at or before position `k`, so that first-fit
    /// matching can find it: left past the events of the same function that come after `d` in
    /// layout order (blocks are laid out in source order at -O0, so this approximates execution
    /// order; a loop can make it wrong, and then the sequence fails and the tree moves on).
    fn insertion_point(&self, events: &[ChainEvent], k: usize, d: DefId) -> usize {
        let pd = self.place(Node::Def { def: d });
        let mut at = k;
        while at > 0 {
            let pe = self.place(events[at - 1].node);
            if pe.0 == pd.0 && (pe.1, pe.2) > (pd.1, pd.2) {
                at -= 1;
            } else {
                break;
            }
        }
        at
    }

    /// `⟨(flag = 1, {flag}), (L38 flag != 0 → true)⟩`.
    pub fn describe(&self, seq: &Sequence) -> String {
        let p = &self.program;
        let parts: Vec<String> = seq
            .events
            .iter()
            .map(|e| {
                let node = match e.node {
                    Node::Take { site, outcome } => {
                        let s = &p.sites[site as usize];
                        format!("L{} {} → {}", s.meta.line, s.meta.cond, s.label(outcome))
                    }
                    Node::Def { def } => {
                        let d = &p.defs[def as usize].meta;
                        format!("L{} {}", d.line, d.text)
                    }
                };
                if e.constraint.is_empty() {
                    format!("({node}, ∅)")
                } else {
                    let c: Vec<&str> = e
                        .constraint
                        .iter()
                        .map(|v| p.vars[*v as usize].meta.name.as_str())
                        .collect();
                    format!("({node}, {{{}}})", c.join(", "))
                }
            })
            .collect();
        format!("⟨{}⟩", parts.join(", "))
    }
}

/// A goal whose fitness is that of an event sequence (needs the ordered trace).
pub struct SequenceGoal {
    pub chain: Arc<Chain>,
    pub seq: Sequence,
}

impl Goal for SequenceGoal {
    fn fitness(&self, trace: &Trace) -> f64 {
        self.chain.fitness(&self.seq, &trace.events).0
    }

    fn describe(&self, _program: &Program) -> String {
        self.chain.describe(&self.seq)
    }

    fn needs_ordered_trace(&self) -> bool {
        true
    }
}

/// The initial sequence for a branch-outcome goal: ⟨(target, ∅)⟩.
pub fn initial(site: SiteId, outcome: u32) -> Sequence {
    Sequence {
        events: vec![ChainEvent {
            node: Node::Take { site, outcome },
            constraint: vec![],
        }],
    }
}

#[cfg(test)]
mod tests;
