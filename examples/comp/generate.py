#!/usr/bin/env python3
"""Generate the synthetic comp(n, c) benchmark programs of Anjum & Ryan 2021.

Anjum & Ryan 2021 (a grammar seeded with program constants for grammatical evolution, Ariadne) describes
18 synthetic programs comp(n, c): nesting complexity n = 0..5 (the maximum nesting depth of the
decisions) and condition complexity c = 1..3 (the atomic conditions in each decision), ten int
inputs, conditions comparing inputs with each other and with constants through <, <=, >, >=, ==,
!= joined by && and ||. Its Fig. 4 (comp(3, 2): 4 decisions of 2 conditions, 24 objectives) is
not reproduced in the text, so the conditions here are our own, drawn at random from a fixed
seed. Like the paper's programs they share their common parts: one master table of 6 decisions
with 3 conditions each is drawn, and comp(n, c) uses decisions 0..n and the first c conditions
of each. Decision k + 1 sits inside one side (then or else, fixed per level) of decision k.

Every branch outcome of every program is feasible over the declared domain (each input in
[-1000, 1000]): while drawing the table, each new condition is redrawn until every outcome of
every affected program is feasible. Feasibility is decided exactly: an outcome is feasible iff
some short-circuit path to it has a satisfiable conjunction of comparisons, and a conjunction of
comparisons between integer variables and constants (x < y, x <= K, x == y, ...; x != y split
into x < y or x > y) is a system of difference constraints, satisfiable iff its constraint graph
has no negative cycle (Bellman-Ford), which also yields an integer witness. Each witness is then
checked by simulating the program.

Usage:
    python3 generate.py            write comp_n{0..5}_c{1..3}.c beside this script and print the
                                   site / outcome / feasible counts
    python3 generate.py --check    regenerate in memory and compare with the files (exit 1 if any
                                   differs), writing nothing
    python3 generate.py --out DIR  write into DIR instead

The output depends only on this script: the random generator is our own (splitmix64), so the
files are reproduced byte for byte by any Python 3.
"""

import argparse
import os
import sys

SEED = 2004
NVARS = 10
LO, HI = -1000, 1000          # the declared range of every input
CONST_LO, CONST_HI = -900, 900  # constants in the conditions
MAX_N, MAX_C = 5, 3
SAMPLES = 20000               # uniform samples per program for the rarity figures in the headers
OPS = ["<", "<=", ">", ">=", "==", "!="]
NEG = {"<": ">=", "<=": ">", ">": "<=", ">=": "<", "==": "!=", "!=": "=="}


class Rng:
    """splitmix64: small, and the same on every Python."""

    def __init__(self, seed):
        self.s = seed & 0xFFFFFFFFFFFFFFFF

    def next(self):
        self.s = (self.s + 0x9E3779B97F4A7C15) & 0xFFFFFFFFFFFFFFFF
        z = self.s
        z = ((z ^ (z >> 30)) * 0xBF58476D1CE4E5B9) & 0xFFFFFFFFFFFFFFFF
        z = ((z ^ (z >> 27)) * 0x94D049BB133111EB) & 0xFFFFFFFFFFFFFFFF
        return z ^ (z >> 31)

    def below(self, n):
        return self.next() % n

    def between(self, lo, hi):
        return lo + self.below(hi - lo + 1)


# An atom is (lhs, op, rhs): lhs a variable index, rhs ("v", index) or ("c", constant).
def atom_text(a):
    lhs, op, rhs = a
    r = "v%d" % rhs[1] if rhs[0] == "v" else str(rhs[1])
    return "v%d %s %s" % (lhs, op, r)


def holds(op, x, y):
    return {"<": x < y, "<=": x <= y, ">": x > y, ">=": x >= y, "==": x == y, "!=": x != y}[op]


def atom_value(a, v):
    lhs, op, rhs = a
    return holds(op, v[lhs], v[rhs[1]] if rhs[0] == "v" else rhs[1])


# A decision of c atoms: atoms[0..c-1] and connectives conns[0..c-2], grouped from the left:
# ((a0 op0 a1) op1 a2).
def decision_text(atoms, conns):
    text = atom_text(atoms[0])
    for i in range(1, len(atoms)):
        if i >= 2 and conns[i - 1] != conns[i - 2]:
            text = "(%s)" % text
        text = "%s %s %s" % (text, conns[i - 1], atom_text(atoms[i]))
    return text


def traces(atoms, conns):
    """Every short-circuit evaluation of the decision: a list of (steps, value), where steps is
    the list of (atom index, outcome) evaluated in order."""
    result = [([(0, True)], True), ([(0, False)], False)]
    for i in range(1, len(atoms)):
        nxt = []
        for steps, val in result:
            # left-grouped: X && a_i evaluates a_i iff X is true; X || a_i iff X is false
            if (conns[i - 1] == "&&") == val:
                nxt.append((steps + [(i, True)], True))
                nxt.append((steps + [(i, False)], False))
            else:
                nxt.append((steps, val))
        result = nxt
    return result


def decision_value(atoms, conns, v, record=None):
    val = None
    for i, a in enumerate(atoms):
        if i > 0 and (conns[i - 1] == "&&") != val:
            continue
        out = atom_value(a, v)
        if record is not None:
            record.append((i, out))
        val = out  # (true && out) and (false || out) are out
    return val


# ---------------------------------------------------------------- difference constraints
ZERO = NVARS  # the node standing for the constant 0


def literal_edges(a, outcome):
    """The constraints x_p - x_q <= w of one comparison with the given outcome, as a list of
    alternatives (each a list of (p, q, w)); != has two alternatives."""
    lhs, op, rhs = a
    if not outcome:
        op = NEG[op]
    if rhs[0] == "v":
        r, k = rhs[1], 0
    else:
        r, k = ZERO, rhs[1]
    # the comparison is x_lhs OP x_r + k
    if op == "<":
        return [[(lhs, r, k - 1)]]
    if op == "<=":
        return [[(lhs, r, k)]]
    if op == ">":
        return [[(r, lhs, -k - 1)]]
    if op == ">=":
        return [[(r, lhs, -k)]]
    if op == "==":
        return [[(lhs, r, k), (r, lhs, -k)]]
    return [[(lhs, r, k - 1)], [(r, lhs, -k - 1)]]  # !=


BOUNDS = [(i, ZERO, HI) for i in range(NVARS)] + [(ZERO, i, -LO) for i in range(NVARS)]


def solve(edges):
    """An integer solution (list of NVARS values) of x_p - x_q <= w for all (p, q, w) and the
    bounds, or None."""
    dist = [0] * (NVARS + 1)
    alle = BOUNDS + edges
    for _ in range(NVARS + 1):
        changed = False
        for p, q, w in alle:
            if dist[q] + w < dist[p]:
                dist[p] = dist[q] + w
                changed = True
        if not changed:
            z = dist[ZERO]
            return [dist[i] - z for i in range(NVARS)]
    return None


def find_witness(requirements):
    """requirements: a list of groups; each group is a list of alternative literal lists (one of
    them must hold). Returns a witness input satisfying one choice per group, or None."""
    def dfs(gi, edges):
        if solve(edges) is None:
            return None
        if gi == len(requirements):
            return solve(edges)
        for alt in requirements[gi]:
            w = lits(alt, 0, edges, gi)
            if w is not None:
                return w
        return None

    def lits(alt, li, edges, gi):
        if li == len(alt):
            return dfs(gi + 1, edges)
        a, out = alt[li]
        for choice in literal_edges(a, out):
            e2 = edges + choice
            if solve(e2) is None:
                continue
            w = lits(alt, li + 1, e2, gi)
            if w is not None:
                return w
        return None

    return dfs(0, [])


# ---------------------------------------------------------------- programs
class Program:
    def __init__(self, table, n, c):
        self.n, self.c = n, c
        self.decisions = [(table["atoms"][k][:c], table["conns"][k][:c - 1]) for k in range(n + 1)]
        self.sides = table["sides"][:n]  # decision k + 1 sits in side sides[k] of decision k
        self.name = "comp_n%d_c%d" % (n, c)

    def unused(self):
        """The inputs that no condition reads."""
        used = set()
        for atoms, _ in self.decisions:
            for lhs, _op, rhs in atoms:
                used.add(lhs)
                if rhs[0] == "v":
                    used.add(rhs[1])
        return [i for i in range(NVARS) if i not in used]

    def sites(self):
        """(decision, atom index) of every site, in source order."""
        return [(k, i) for k in range(self.n + 1) for i in range(self.c)]

    def path_requirements(self, k):
        """Groups of alternatives that take control to decision k."""
        groups = []
        for j in range(k):
            atoms, conns = self.decisions[j]
            want = self.sides[j]
            groups.append([[(atoms[i], o) for i, o in steps]
                           for steps, val in traces(atoms, conns) if val == want])
        return groups

    def witness(self, k, i, outcome):
        atoms, conns = self.decisions[k]
        alts = []
        for steps, _val in traces(atoms, conns):
            for pos, (ai, o) in enumerate(steps):
                if ai == i and o == outcome:
                    alts.append([(atoms[x], ox) for x, ox in steps[:pos + 1]])
        return find_witness(self.path_requirements(k) + [alts])

    def run(self, v):
        """Simulate: the set of (decision, atom, outcome) taken, and the return value."""
        taken = set()
        for k, (atoms, conns) in enumerate(self.decisions):
            rec = []
            val = decision_value(atoms, conns, v, rec)
            for i, o in rec:
                taken.add((k, i, o))
            if k == self.n or val != self.sides[k]:
                return taken, 2 * k + (1 if val else 2)
        raise AssertionError("unreachable")


def all_feasible(prog):
    for k, i in prog.sites():
        for o in (True, False):
            if prog.witness(k, i, o) is None:
                return False
    return True


def draw_atom(rng):
    lhs = rng.below(NVARS)
    op = OPS[rng.below(len(OPS))]
    if rng.below(2) == 0:
        r = rng.below(NVARS - 1)
        rhs = ("v", r if r < lhs else r + 1)
    else:
        rhs = ("c", rng.between(CONST_LO, CONST_HI))
    return (lhs, op, rhs)


def draw_table():
    rng = Rng(SEED)
    table = {
        "atoms": [[None] * MAX_C for _ in range(MAX_N + 1)],
        "conns": [["&&" if rng.below(2) else "||" for _ in range(MAX_C - 1)] for _ in range(MAX_N + 1)],
        "sides": [rng.below(4) != 0 for _ in range(MAX_N)],  # then-side 3 times in 4
    }
    # Condition position by position, decision by decision: the new atom (k, c - 1) only changes
    # the programs comp(n, c) with n >= k, and of those, comp(k, c) is complete once it is drawn
    # (comp(n > k, c) are checked when their own last atom is drawn).
    for c in range(1, MAX_C + 1):
        for k in range(MAX_N + 1):
            for _attempt in range(1000):
                table["atoms"][k][c - 1] = draw_atom(rng)
                if all_feasible(Program(table, k, c)):
                    break
            else:
                raise SystemExit("no feasible atom found for decision %d, condition %d" % (k, c))
    return table


# ---------------------------------------------------------------- C output
def emit(prog, rarest):
    params = ", ".join("int v%d" % i for i in range(NVARS))
    body = []
    line_of = {}

    def out(depth, text):
        body.append("    " * depth + text)

    def level(k, depth):
        atoms, conns = prog.decisions[k]
        line_of[k] = len(body)
        out(depth, "if (%s) {" % decision_text(atoms, conns))
        nested_then = k < prog.n and prog.sides[k]
        nested_else = k < prog.n and not prog.sides[k]
        if nested_then:
            level(k + 1, depth + 1)
        else:
            out(depth + 1, "return %d;" % (2 * k + 1))
        out(depth, "} else {")
        if nested_else:
            level(k + 1, depth + 1)
        else:
            out(depth + 1, "return %d;" % (2 * k + 2))
        out(depth, "}")

    unused = prog.unused()
    if unused:
        # the ten inputs are kept, as in the paper; silence -Wunused-parameter for the rest
        out(1, " ".join("(void)v%d;" % i for i in unused))
    level(0, 1)
    code = ["int %s(%s)" % (prog.name, params), "{"] + body + ["}"]

    nsites = len(prog.sites())
    # The header's length does not depend on the line numbers it shows: draft it, then number.
    # Lines: header 1..H, a blank line, the signature, "{", then the body from H + 4.
    height = len(header_text(prog, rarest, {k: 0 for k in line_of}))
    lines = {k: height + 4 + line_of[k] for k in line_of}
    header = header_text(prog, rarest, lines)
    assert len(header) == height
    return "\n".join(header + [""] + code) + "\n", lines, nsites


def header_text(prog, rarest, lines):
    n, c = prog.n, prog.c
    nsites = len(prog.sites())
    h = []
    h.append("/*")
    h.append(" * %s.c: the synthetic program comp(%d, %d): %d nested decision%s (nesting depth %d), each of"
             % (prog.name, n, c, n + 1, "" if n == 0 else "s", n))
    h.append(" * %d atomic condition%s joined by && / ||, comparing ten int inputs with each other and with"
             % (c, "" if c == 1 else "s"))
    h.append(" * constants. Written afresh for evotest from the description of comp(n, c) in Anjum & Ryan 2021 (its")
    h.append(" * Fig. 4, comp(3, 2), is not in the text): GENERATED by examples/comp/generate.py (seed %d)," % SEED)
    h.append(" * do not edit; see examples/comp/README.md.")
    h.append(" *")
    h.append(" * Source: Anjum & Ryan 2021 (a grammar seeded with program constants for grammatical evolution,")
    h.append(" *         Ariadne), \"Scalability Analysis\", comp(nesting 0-5, conditions 1-3).")
    h.append(" * Signature: int %s(int v0, int v1, ..., int v9)" % prog.name)
    h.append(" * Inputs and ranges: ten ints, each in [%d, %d]. (The paper used 32-bit ints; the constants" % (LO, HI))
    h.append(" *         here lie in [%d, %d] and every outcome is feasible in the narrow range, so also in"
             % (CONST_LO, CONST_HI))
    h.append(" *         the whole int range.)")
    opts = ["--range v%d=%d..%d" % (i, LO, HI) for i in range(NVARS)]
    h.append(" * evotest options: " + " ".join(opts[0:3]))
    for i in range(3, NVARS, 3):
        h.append(" *         " + " ".join(opts[i:i + 3]))
    unused = prog.unused()
    if unused:
        h.append(" * Inputs that no condition reads (kept: the paper gave every program ten): %s."
                 % ", ".join("v%d" % i for i in unused))
    h.append(" * Returns 2k+1 (then) or 2k+2 (else) for the side of decision k (0-based, outermost first)")
    h.append(" *         where control leaves the nest.")
    if n == 1:
        h.append(" * Nesting: decision 1 is in the %s side of decision 0." % ("then" if prog.sides[0] else "else"))
    elif n > 1:
        h.append(" * Nesting: decision k+1 is in the then (T) or else (E) side of decision k, k = 0..%d: %s."
                 % (n - 1, " ".join("T" if s else "E" for s in prog.sides)))
    h.append(" *")
    h.append(" * Branch sites (evotest sites): %d sites, %d outcomes (each [true, false]), one row per decision:"
             % (nsites, 2 * nsites))
    for k in range(n + 1):
        atoms, _ = prog.decisions[k]
        h.append((" *   " + "".join("%-27s" % ("line %d  %s" % (lines[k], atom_text(a))) for a in atoms)).rstrip())
    h.append(" * (Anjum & Ryan 2021 counts 2 * (decisions + conditions) objectives, a one-condition decision once:")
    objs = 2 * ((n + 1) + (nsites if c > 1 else 0))
    h.append(" * %d here; evotest counts the %d outcomes of the atomic conditions.)" % (objs, 2 * nsites))
    h.append(" * Feasible outcomes: %d of %d. None is infeasible." % (2 * nsites, 2 * nsites))
    k, i, o, hits, w = rarest
    h.append(" *   Rarest for uniform inputs: line %d `%s` → %s, taken by %d of %d samples;"
             % (lines[k], atom_text(prog.decisions[k][0][i]), "true" if o else "false", hits, SAMPLES))
    h.append(" *   e.g. (v0, ..., v9) = (%s)." % ", ".join(str(x) for x in w))
    h.append(" * Checked by: generate.py decides every outcome's feasibility exactly (difference constraints")
    h.append(" *   over every short-circuit path, a witness per outcome, each witness simulated). Independently,")
    h.append(" *   a clang-22 -fprofile-instr-generate -fcoverage-mapping build run over those witnesses and")
    h.append(" *   10^6 uniform random inputs took every outcome (llvm-cov-22 show -show-branches=count), and")
    h.append(" *   `evotest sites` lists exactly the sites above.")
    h.append(" */")
    return h


def build():
    table = draw_table()
    files = {}
    summary = []
    for n in range(MAX_N + 1):
        for c in range(1, MAX_C + 1):
            prog = Program(table, n, c)
            counts = {}
            witnesses = {}
            for k, i in prog.sites():
                for o in (True, False):
                    w = prog.witness(k, i, o)
                    assert w is not None, (prog.name, k, i, o)
                    assert all(LO <= x <= HI for x in w)
                    taken, _ = prog.run(w)
                    assert (k, i, o) in taken, (prog.name, k, i, o, w)
                    witnesses[(k, i, o)] = w
                    counts[(k, i, o)] = 0
            rng = Rng(SEED * 1000 + 10 * n + c)
            for _ in range(SAMPLES):
                v = [rng.between(LO, HI) for _ in range(NVARS)]
                taken, _ = prog.run(v)
                for t in taken:
                    counts[t] += 1
            key = min(counts, key=lambda t: (counts[t], t[0], t[1], not t[2]))
            rarest = key + (counts[key], witnesses[key])
            text, lines, nsites = emit(prog, rarest)
            files[prog.name + ".c"] = text
            summary.append((prog.name, nsites, 2 * nsites, 2 * nsites, lines[prog.n]))
    return files, summary, table


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--out", default=os.path.dirname(os.path.abspath(__file__)))
    ap.add_argument("--check", action="store_true", help="compare with the files, write nothing")
    args = ap.parse_args()
    files, summary, _table = build()
    print("%-12s %5s %8s %8s" % ("program", "sites", "outcomes", "feasible"))
    for name, s, o, f, _ in summary:
        print("%-12s %5d %8d %8d" % (name, s, o, f))
    bad = 0
    for name, text in sorted(files.items()):
        path = os.path.join(args.out, name)
        if args.check:
            try:
                with open(path, encoding="utf-8") as fh:
                    same = fh.read() == text
            except OSError:
                same = False
            if not same:
                print("differs: %s" % path)
                bad += 1
        else:
            with open(path, "w", encoding="utf-8", newline="\n") as fh:
                fh.write(text)
    if args.check:
        print("all %d files match" % len(files) if not bad else "%d of %d files differ" % (bad, len(files)))
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
