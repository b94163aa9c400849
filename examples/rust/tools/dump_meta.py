#!/usr/bin/env python3
"""Print the evotest metadata of an object or executable: the `evotest_meta` section, split into its
frames (b"EVOTMETA", u32 little-endian length, JSON; zero padding between frames), as
runtime/abi/src/meta.rs `unframe_all` does.

usage: dump_meta.py FILE [--summary] [--user]
  --summary   one line per function and per site instead of the whole JSON
  --user      with --summary: leave out functions (and their sites) whose file is Rust's standard
              library (rustc's remapped paths start with library/ or /rustc/): the generic and
              #[inline] std code that rustc instantiates in the user's crate
"""
import json, os, struct, subprocess, sys, tempfile

def section(path):
    with tempfile.TemporaryDirectory() as d:
        out = os.path.join(d, "meta.bin")
        subprocess.run(["llvm-objcopy-22", "--dump-section", f"evotest_meta={out}", path, os.path.join(d, "junk")],
                       check=True)
        return open(out, "rb").read()

def unframe(b):
    i, out = 0, []
    while i < len(b):
        if b[i] == 0:
            i += 1
            continue
        assert b[i:i + 8] == b"EVOTMETA", f"bad frame at byte {i}"
        n = struct.unpack("<I", b[i + 8:i + 12])[0]
        out.append(json.loads(b[i + 12:i + 12 + n]))
        i += 12 + n
    return out

def ty(t):
    s = t["c_spelling"]
    sc = t.get("scalar")
    extra = f" scalar={sc['kind']}{sc['bits']}" if sc else ""
    if t.get("pointee"):
        extra += f" pointee={ty(t['pointee'])}"
    return f"{s!r} ir={t['ir']!r}{extra}"

def main():
    path = sys.argv[1]
    mods = unframe(section(path))
    if "--summary" not in sys.argv:
        json.dump(mods, sys.stdout, indent=1)
        print()
        return
    user_only = "--user" in sys.argv
    is_std = lambda f: f["file"].startswith(("library/", "/rustc/"))
    for m in mods:
        print(f"module {m['source_file']}: {len(m['functions'])} functions, {len(m['sites'])} sites, "
              f"{m['n_outcomes']} outcomes"
              + (f" ({sum(not is_std(f) for f in m['functions'])} functions outside std)" if user_only else ""))
        for fi, f in enumerate(m["functions"]):
            if user_only and is_std(f):
                continue
            extra = ""
            if f.get("source_name") is not None:
                extra = f" = {f['source_name']} [{f.get('language')}]"
            print(f"  fn[{fi}] {f['name']}{extra} ({f['file']}:{f['line']}) external={f['external']} "
                  f"blocks={len(f['blocks'])} calls={len(f['calls'])}")
            for p in f["params"]:
                print(f"      param {p['name']}: {ty(p['ty'])}")
            print(f"      ret: {ty(f['ret'])}")
        for s in m["sites"]:
            if user_only and is_std(m["functions"][s["function"]]):
                continue
            print(f"  site {s['id']} fn{s['function']} {s['kind']} {s['line']}:{s['col']} "
                  f"[{s['operand_type']} {s['pred']}] {s['cond']!r} {s['outcome_labels']}"
                  + (f" check={s['check']['kind']}@{s['check']['outcome']}" if s.get("check") else ""))

try:
    main()
except BrokenPipeError:  # e.g. piped into head
    sys.stderr.close()
