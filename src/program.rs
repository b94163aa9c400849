//! The instrumented program as the engine sees it: the static metadata of every instrumented
//! module, read back from the executable's `evotest_meta` section with the `object` crate, and
//! renumbered into global site and outcome IDs with the bases the runtime assigned at
//! registration (`evotest_abi::shm::ModuleEntry`).

use anyhow::{anyhow, bail, Context, Result};
use evotest_abi::meta::{
    unframe_all, ConstantMeta, DecisionMeta, DefMeta, FunctionMeta, ModuleMeta, SiteMeta, VarKind,
    VarMeta,
};
use evotest_abi::names::META_SECTION;
use evotest_abi::shm::ModuleEntry;
use object::{Object, ObjectSection};
use std::collections::HashMap;
use std::path::Path;

/// Global index of a branch site.
pub type SiteId = u32;
/// Global index of a branch outcome (`site.outcome_base + k`).
pub type OutcomeId = u32;
/// Global index of a definition site (the runtime's numbering, as in the ordered trace).
pub type DefId = u32;
/// Global index of a tracked variable.
pub type VarId = u32;

/// A tracked variable with global numbering.
#[derive(Clone, Debug)]
pub struct Var {
    pub id: VarId,
    /// Index into [`Program::functions`] (`None` for globals).
    pub function: Option<usize>,
    pub meta: VarMeta,
}

/// A definition site with global numbering.
#[derive(Clone, Debug)]
pub struct Def {
    pub id: DefId,
    pub var: VarId,
    /// Index into [`Program::functions`].
    pub function: usize,
    pub meta: DefMeta,
    /// Variables the defined value reads (global IDs).
    pub uses: Vec<VarId>,
}

/// One branch site with global numbering.
#[derive(Clone, Debug)]
pub struct Site {
    pub id: SiteId,
    /// Global ID of outcome 0.
    pub outcome_base: OutcomeId,
    /// Index into [`Program::functions`].
    pub function: usize,
    pub meta: SiteMeta,
    /// Variables the condition reads (global IDs).
    pub uses: Vec<VarId>,
}

impl Site {
    /// Global IDs of this site's outcomes.
    pub fn outcomes(&self) -> std::ops::Range<OutcomeId> {
        self.outcome_base..self.outcome_base + self.meta.n_outcomes
    }

    /// `file:line:col`.
    pub fn location(&self) -> String {
        format!("{}:{}:{}", self.meta.file, self.meta.line, self.meta.col)
    }

    /// The label of outcome `k` (`true`, `false`, `default`, `case 3`), or `?`.
    pub fn label(&self, k: u32) -> &str {
        self.meta
            .outcome_labels
            .get(k as usize)
            .map(String::as_str)
            .unwrap_or("?")
    }

    /// `file:line:col `cond` → label`: outcome `k` for people.
    pub fn describe(&self, k: u32) -> String {
        format!(
            "{} `{}` → {}",
            self.location(),
            self.meta.cond,
            self.label(k)
        )
    }

    /// `L14 a <= 0:T`: outcome `k` in short, for listings and test-file comments.
    pub fn short(&self, k: u32) -> String {
        let l = match self.label(k) {
            "true" => "T",
            "false" => "F",
            other => other,
        };
        format!("L{} {}:{}", self.meta.line, self.meta.cond, l)
    }
}

/// A source decision of more than one atomic condition, with global site IDs (see
/// [`DecisionMeta`]; condition-decision coverage, Anjum & Ryan 2021).
#[derive(Clone, Debug)]
pub struct Decision {
    /// Index into [`Program::functions`].
    pub function: usize,
    pub meta: DecisionMeta,
    /// Global site IDs of its atomic conditions, in evaluation order.
    pub conditions: Vec<SiteId>,
    /// The site whose outcomes 0 (true) and 1 (false) are the decision's, if any.
    pub site: Option<SiteId>,
    /// (site, outcome index) pairs whose taking ends the decision true (`ends[0]`) or false.
    pub ends: [Vec<(SiteId, u32)>; 2],
}

/// One function, with its blocks' sites in global numbering.
#[derive(Clone, Debug)]
pub struct Function {
    pub module: usize,
    pub meta: FunctionMeta,
    /// Per block: the global site ending it.
    pub block_site: Vec<Option<SiteId>>,
    /// Per block: global `select` sites inside it.
    pub block_selects: Vec<Vec<SiteId>>,
}

impl Function {
    /// The name for reports: the source-level path of a Rust or C++ function
    /// (`triangle::triangle`, not `_ZN8triangle8triangle17h…E`; `shapes::locate`, not
    /// `_ZN6shapes6locateEdd`), else the linkage name.
    pub fn display_name(&self) -> &str {
        self.meta.display_name()
    }
}

/// The whole instrumented program.
#[derive(Clone, Debug)]
pub struct Program {
    pub modules: Vec<ModuleMeta>,
    pub functions: Vec<Function>,
    /// By global site ID.
    pub sites: Vec<Site>,
    pub n_outcomes: u32,
    /// Tracked variables (globals of the same name in several modules are one variable).
    pub vars: Vec<Var>,
    /// Definitions by global ID.
    pub defs: Vec<Def>,
    /// Decisions of more than one condition, module after module.
    pub decisions: Vec<Decision>,
}

/// Read the metadata of every instrumented module in an object file or executable.
///
/// Errors: unreadable file, not an object file, no `evotest_meta` section (not built with the
/// evotest pass), or a malformed blob.
pub fn read_metadata(path: &Path) -> Result<Vec<ModuleMeta>> {
    read_section(path)?.ok_or_else(|| {
        anyhow!(
            "{} has no evotest metadata (was it compiled with the evotest pass?)",
            path.display()
        )
    })
}

/// The metadata of a whole executable: its own ([`read_metadata`]; errors as there), then that
/// of each shared library it loads at start-up that was compiled with the pass (a harness linked
/// with an instrumented `libfoo.so`, as `./configure && make` builds by default). The libraries
/// are those `ldd` resolves, as the dynamic loader would; a library loaded later with `dlopen`
/// is not found (its probes then make the target register more code than this describes).
pub fn read_program_metadata(exe: &Path) -> Result<Vec<ModuleMeta>> {
    if let Some(program) = libtool_wrapper(exe) {
        return Err(WrapperScript {
            script: exe.to_path_buf(),
            program,
        }
        .into());
    }
    let mut metas = read_metadata(exe)?;
    for lib in shared_libraries(exe) {
        // a library that cannot be read or parsed is not one of ours
        if let Ok(Some(m)) = read_section(&lib) {
            metas.extend(m);
        }
    }
    Ok(metas)
}

/// [`read_program_metadata`]'s error for a libtool wrapper script: it says what to run instead,
/// so callers add no advice of their own.
#[derive(Debug, thiserror::Error)]
#[error(
    "{} is a libtool wrapper script, not the program; fuzz the program it runs, {} (with LD_LIBRARY_PATH naming the \
     build's .libs directories), or run `libtool --mode=execute evotest fuzz {} …`",
    script.display(),
    program.display(),
    script.display()
)]
pub struct WrapperScript {
    /// The script given.
    pub script: std::path::PathBuf,
    /// The program it runs (`DIR/.libs/NAME`).
    pub program: std::path::PathBuf,
}

/// The program a libtool wrapper script `exe` runs (`DIR/.libs/NAME`, or `lt-NAME` there), when
/// `exe` is such a script (what `make` leaves in place of a program linked with uninstalled
/// shared libraries); `None` for anything else.
fn libtool_wrapper(exe: &Path) -> Option<std::path::PathBuf> {
    let head = std::fs::read(exe).ok()?;
    let head = &head[..head.len().min(4096)];
    if !head.starts_with(b"#!") || !head.windows(7).any(|w| w == b"libtool") {
        return None;
    }
    let dir = exe.parent().unwrap_or(Path::new(".")).join(".libs");
    let name = exe.file_name()?.to_string_lossy().to_string();
    [dir.join(&name), dir.join(format!("lt-{name}"))]
        .into_iter()
        .find(|p| p.is_file())
        .or(Some(dir.join(name)))
}

/// The shared libraries `exe` loads at start-up, as `ldd` resolves them (none if `ldd` fails:
/// a static executable, or no `ldd`), as absolute paths.
fn shared_libraries(exe: &Path) -> Vec<std::path::PathBuf> {
    let Ok(out) = std::process::Command::new("ldd")
        .arg(exe)
        .stdin(std::process::Stdio::null())
        .output()
    else {
        return vec![];
    };
    if !out.status.success() {
        return vec![];
    }
    String::from_utf8_lossy(&out.stdout)
        .lines()
        .filter_map(|l| {
            l.split_once("=> ")
                .map(|(_, r)| r.split(" (").next().unwrap_or("").trim().to_string())
        })
        .filter(|p| !p.is_empty() && p != "not found")
        // a relative LD_LIBRARY_PATH or RUNPATH entry gives a path relative to the working
        // directory, where ldd and the target both run
        .filter_map(|p| std::path::absolute(&p).ok())
        .collect()
}

/// Shared libraries `exe` loads that were not built with the pass while a copy that was sits
/// beside it (in its directory, its `.libs` or `../lib`, as a build tree leaves them): pairs of
/// (the library loaded, the instrumented copy). The usual cause is a missing `LD_LIBRARY_PATH`,
/// so the program runs the system's copy and its branches are not seen (bzip2 against Debian's
/// `libbz2`: 660 branch outcomes instead of 2,769). Empty when `ldd` cannot tell.
pub fn uninstrumented_libraries(exe: &Path) -> Vec<(std::path::PathBuf, std::path::PathBuf)> {
    let exe = std::path::absolute(exe).unwrap_or_else(|_| exe.to_path_buf());
    let dir = exe.parent().map(Path::to_path_buf).unwrap_or_default();
    let places = [dir.clone(), dir.join(".libs"), dir.join("../lib")];
    let mut out = Vec::new();
    for lib in shared_libraries(&exe) {
        let Some(name) = lib.file_name() else {
            continue;
        };
        // (a copy beside the program first: a stat, where reading the libraries costs more)
        let copies: Vec<_> = places
            .iter()
            .map(|p| p.join(name))
            .filter(|c| c.is_file() && *c != lib)
            .collect();
        if copies.is_empty() || !matches!(read_section(&lib), Ok(None)) {
            continue;
        }
        if let Some(c) = copies
            .into_iter()
            .find(|c| matches!(read_section(c), Ok(Some(_))))
        {
            out.push((lib, c));
        }
    }
    out
}

/// As [`read_metadata`], for an object the pass compiled: one without a metadata section (a
/// source that defines no function) has no modules.
pub fn read_metadata_if_any(path: &Path) -> Result<Vec<ModuleMeta>> {
    Ok(read_section(path)?.unwrap_or_default())
}

fn read_section(path: &Path) -> Result<Option<Vec<ModuleMeta>>> {
    let data = std::fs::read(path).with_context(|| format!("cannot read {}", path.display()))?;
    let file = object::File::parse(&*data)
        .with_context(|| format!("{} is not an object file", path.display()))?;
    let Some(sec) = file.section_by_name(META_SECTION) else {
        return Ok(None);
    };
    let bytes = sec.data().context("cannot read the evotest_meta section")?;
    let blobs = unframe_all(bytes).map_err(|at| {
        anyhow!(
            "malformed evotest metadata at byte {at} of {}",
            path.display()
        )
    })?;
    let mut out = Vec::new();
    for b in blobs {
        let m: ModuleMeta = serde_json::from_slice(b).context("malformed evotest metadata")?;
        if m.version != evotest_abi::meta::META_VERSION {
            bail!(
                "{} was instrumented by another evotest version (metadata v{})",
                path.display(),
                m.version
            );
        }
        out.push(m);
    }
    Ok(Some(out))
}

impl Program {
    /// Number sites with the bases the runtime reported. Every module must have registered.
    pub fn new(modules: Vec<ModuleMeta>, entries: &[ModuleEntry]) -> Result<Program> {
        let mut bases = Vec::new();
        for m in &modules {
            let e = entries
                .iter()
                .find(|e| e.module_id == m.module_id)
                .ok_or_else(|| {
                    anyhow!(
                        "instrumented module {} did not register with the runtime",
                        m.source_file
                    )
                })?;
            if e.n_sites as usize != m.sites.len() || e.n_outcomes != m.n_outcomes {
                bail!(
                    "module {} registered with sizes that disagree with its metadata",
                    m.source_file
                );
            }
            bases.push((e.site_base, e.outcome_base, e.def_base));
        }
        Ok(Self::build(modules, &bases))
    }

    /// Number sites module after module, as if modules registered in order (tests, offline use).
    pub fn with_sequential_bases(modules: Vec<ModuleMeta>) -> Program {
        let mut bases = Vec::new();
        let (mut s, mut o, mut d) = (0, 0, 0);
        for m in &modules {
            bases.push((s, o, d));
            s += m.sites.len() as u32;
            o += m.n_outcomes;
            d += m.defs.len() as u32;
        }
        Self::build(modules, &bases)
    }

    fn build(modules: Vec<ModuleMeta>, bases: &[(u32, u32, u32)]) -> Program {
        let mut functions = Vec::new();
        let n_sites: usize = bases
            .iter()
            .zip(&modules)
            .map(|(b, m)| b.0 as usize + m.sites.len())
            .max()
            .unwrap_or(0);
        let mut sites: Vec<Option<Site>> = vec![None; n_sites];
        let mut n_outcomes = 0;
        let mut vars: Vec<Var> = Vec::new();
        let n_defs: usize = bases
            .iter()
            .zip(&modules)
            .map(|(b, m)| b.2 as usize + m.defs.len())
            .max()
            .unwrap_or(0);
        let mut defs: Vec<Option<Def>> = vec![None; n_defs];
        let mut decisions = Vec::new();
        for (mi, (m, &(sb, ob, db))) in modules.iter().zip(bases).enumerate() {
            let fbase = functions.len();
            // variables: module-local ID -> global; globals unify by name across modules
            let mut var_map = Vec::with_capacity(m.vars.len());
            for v in &m.vars {
                let existing = (v.kind == VarKind::Global)
                    .then(|| {
                        vars.iter()
                            .find(|g| g.meta.kind == VarKind::Global && g.meta.name == v.name)
                            .map(|g| g.id)
                    })
                    .flatten();
                let id = existing.unwrap_or_else(|| {
                    let id = vars.len() as VarId;
                    vars.push(Var {
                        id,
                        function: v.function.map(|f| fbase + f as usize),
                        meta: v.clone(),
                    });
                    id
                });
                var_map.push(id);
            }
            for d in &m.defs {
                let id = db + d.id;
                defs[id as usize] = Some(Def {
                    id,
                    var: var_map[d.var as usize],
                    function: fbase + d.function as usize,
                    meta: d.clone(),
                    uses: d
                        .uses
                        .iter()
                        .filter_map(|u| var_map.get(*u as usize).copied())
                        .collect(),
                });
            }
            for f in &m.functions {
                functions.push(Function {
                    module: mi,
                    meta: f.clone(),
                    block_site: f.blocks.iter().map(|b| b.site.map(|s| s + sb)).collect(),
                    block_selects: f
                        .blocks
                        .iter()
                        .map(|b| b.selects.iter().map(|s| s + sb).collect())
                        .collect(),
                });
            }
            for s in &m.sites {
                let id = sb + s.id;
                sites[id as usize] = Some(Site {
                    id,
                    outcome_base: ob + s.outcome_base,
                    function: fbase + s.function as usize,
                    meta: s.clone(),
                    uses: s
                        .uses
                        .iter()
                        .filter_map(|u| var_map.get(*u as usize).copied())
                        .collect(),
                });
            }
            for d in &m.decisions {
                decisions.push(Decision {
                    function: fbase + d.function as usize,
                    meta: d.clone(),
                    conditions: d.conditions.iter().map(|c| sb + c).collect(),
                    site: d.site.map(|c| sb + c),
                    ends: [
                        d.ends[0].iter().map(|&(c, o)| (sb + c, o)).collect(),
                        d.ends[1].iter().map(|&(c, o)| (sb + c, o)).collect(),
                    ],
                });
            }
            n_outcomes = n_outcomes.max(ob + m.n_outcomes);
        }
        Program {
            modules,
            functions,
            sites: sites.into_iter().flatten().collect(),
            n_outcomes,
            vars,
            defs: defs.into_iter().flatten().collect(),
            decisions,
        }
    }

    /// Definitions of variable `v`.
    pub fn defs_of(&self, v: VarId) -> impl Iterator<Item = &Def> {
        self.defs.iter().filter(move |d| d.var == v)
    }

    /// Total sites.
    pub fn n_sites(&self) -> u32 {
        self.sites.len() as u32
    }

    /// The function with this linkage name.
    pub fn function(&self, name: &str) -> Option<(usize, &Function)> {
        self.functions
            .iter()
            .enumerate()
            .find(|(_, f)| f.meta.name == name)
    }

    /// Per global site ID, its first global outcome and its number of outcomes (shape: one pair
    /// per site, indexed by [`SiteId`]); what the executors' coverage reads and the evaluation
    /// cache read a trace's outcomes by.
    pub fn site_outcomes(&self) -> Vec<(u32, u32)> {
        let mut v = vec![(0, 0); self.sites.len()];
        for s in &self.sites {
            if let Some(x) = v.get_mut(s.id as usize) {
                *x = (s.outcome_base, s.meta.n_outcomes);
            }
        }
        v
    }

    /// The index of the function `meta` describes: the one of that name, file and line, else the
    /// first of that name.
    pub fn index_of(&self, meta: &FunctionMeta) -> Option<usize> {
        self.functions
            .iter()
            .position(|f| {
                f.meta.name == meta.name && f.meta.file == meta.file && f.meta.line == meta.line
            })
            .or_else(|| self.function(&meta.name).map(|(i, _)| i))
    }

    /// Indices of the functions reachable from function `root`, `root` first: through direct
    /// calls, and through the functions whose address a reached function uses
    /// ([`evotest_abi::meta::FunctionMeta::address_refs`]: a callback it passes, a table of
    /// handlers it reads), which it may call through a pointer. An over-approximation of what
    /// runs; a function reached only through a pointer that some other function made is missed.
    pub fn reachable_from(&self, root: usize) -> Vec<usize> {
        let by_name = self.by_name();
        let mut seen = vec![false; self.functions.len()];
        let mut order = vec![root];
        seen[root] = true;
        let mut i = 0;
        while i < order.len() {
            let f = &self.functions[order[i]];
            for callee in f.meta.calls.iter().chain(&f.meta.address_refs) {
                if let Some(j) = self.resolve(&by_name, callee, f.module) {
                    if !seen[j] {
                        seen[j] = true;
                        order.push(j);
                    }
                }
            }
            i += 1;
        }
        order
    }

    /// The direct call sites of every function: `callers()[f]` lists (calling function, block)
    /// pairs whose block calls function `f` (a name defined in several modules resolves to the
    /// caller's own module first, as [`Program::reachable_from`] does). Calls through function
    /// pointers are not known.
    pub fn callers(&self) -> Vec<Vec<(usize, usize)>> {
        let mut out = self.call_instructions();
        for sites in &mut out {
            let mut seen = std::collections::HashSet::new();
            sites.retain(|s| seen.insert(*s));
        }
        out
    }

    /// As [`Program::callers`], with one (calling function, block) pair per call instruction:
    /// a block that calls `f` twice is listed twice.
    pub fn call_instructions(&self) -> Vec<Vec<(usize, usize)>> {
        let by_name = self.by_name();
        let mut out = vec![Vec::new(); self.functions.len()];
        for (g, f) in self.functions.iter().enumerate() {
            for (b, block) in f.meta.blocks.iter().enumerate() {
                for &k in &block.calls {
                    let Some(name) = f.meta.calls.get(k as usize) else {
                        continue;
                    };
                    if let Some(j) = self.resolve(&by_name, name, f.module) {
                        out[j].push((g, b));
                    }
                }
            }
        }
        out
    }

    /// The functions by linkage name (a name several modules define, `static` in each, has
    /// several).
    fn by_name(&self) -> HashMap<&str, Vec<usize>> {
        let mut by_name: HashMap<&str, Vec<usize>> = HashMap::new();
        for (i, f) in self.functions.iter().enumerate() {
            by_name.entry(f.meta.name.as_str()).or_default().push(i);
        }
        by_name
    }

    /// The function a call to `name` from module `module` reaches: the one of that module (a
    /// `static` function) if it defines one, else any definition ([`Program::by_name`]).
    fn resolve(
        &self,
        by_name: &HashMap<&str, Vec<usize>>,
        name: &str,
        module: usize,
    ) -> Option<usize> {
        by_name
            .get(name)?
            .iter()
            .copied()
            .min_by_key(|&j| (self.functions[j].module != module) as u8)
    }

    /// The site and outcome index of a global outcome ID.
    pub fn outcome(&self, o: OutcomeId) -> Option<(&Site, u32)> {
        // sites are sorted by id and outcome bases increase with id within a module
        self.sites
            .iter()
            .find(|s| s.outcomes().contains(&o))
            .map(|s| (s, o - s.outcome_base))
    }

    /// The functions of `within` in the functions' order, each once, or every function for
    /// `None`: a module all of whose functions are in scope then gives its constants and strings
    /// in the module's order.
    fn in_function_order(&self, within: Option<&[usize]>) -> Vec<usize> {
        match within {
            Some(w) => {
                let mut w = w.to_vec();
                w.sort_unstable();
                w.dedup();
                w
            }
            None => (0..self.functions.len()).collect(),
        }
    }

    /// The items of the functions in `within` (see [`Program::in_function_order`]) that `own`
    /// indexes into their module's `pool`, in function order (repeats kept): each function's own,
    /// or, for a module whose metadata attributes none to its functions (every `own` empty:
    /// objects an earlier evotest instrumented), the whole module's pool once.
    fn scoped_items<'s, T>(
        &'s self,
        within: Option<&[usize]>,
        own: impl Fn(&FunctionMeta) -> &[u32],
        pool: impl Fn(&'s ModuleMeta) -> &'s [T],
    ) -> Vec<&'s T> {
        let attributed: Vec<bool> = self
            .modules
            .iter()
            .map(|m| m.functions.iter().any(|g| !own(g).is_empty()))
            .collect();
        let mut whole_modules: Vec<usize> = Vec::new();
        let mut out: Vec<&T> = Vec::new();
        for f in self.in_function_order(within) {
            let func = &self.functions[f];
            let items = pool(&self.modules[func.module]);
            if attributed[func.module] {
                out.extend(
                    own(&func.meta)
                        .iter()
                        .filter_map(|&k| items.get(k as usize)),
                );
            } else if !whole_modules.contains(&func.module) {
                whole_modules.push(func.module);
                out.extend(items);
            }
        }
        out
    }

    /// The constants that seed a search's pools: those of the functions in `within` (a search on
    /// one function passes the functions reachable from it, [`Program::reachable_from`], so that
    /// the module's unrelated functions do not dilute its pools), or of every function of every
    /// module for `None`; each function's own ([`evotest_abi::meta::FunctionMeta::constants`]),
    /// or, for a module whose metadata attributes none to its functions (objects an earlier
    /// evotest instrumented), the whole module's. Each constant once, in function order.
    pub fn scoped_constants(&self, within: Option<&[usize]>) -> Vec<&ConstantMeta> {
        let mut out: Vec<&ConstantMeta> = Vec::new();
        for c in self.scoped_items(within, |f| &f.constants, |m| &m.constants) {
            if !out.contains(&c) {
                out.push(c);
            }
        }
        out
    }

    /// The strings of tables and calls ([`evotest_abi::meta::ModuleMeta::table_strings`]) that
    /// the functions in `within` use ([`evotest_abi::meta::FunctionMeta::strings`]), in the
    /// functions' order, or every module's for `None`. A module whose metadata attributes none to
    /// its functions (objects an earlier evotest instrumented) gives all of its own when one of
    /// its functions is in `within`.
    fn scoped_table_strings(&self, within: Option<&[usize]>) -> Vec<&str> {
        if within.is_none() {
            let all = self.modules.iter().flat_map(|m| &m.table_strings);
            return all.map(String::as_str).collect();
        }
        self.scoped_items(within, |f| &f.strings, |m| &m.table_strings)
            .into_iter()
            .map(String::as_str)
            .collect()
    }

    /// The pools that seed a search (the search domain's `int_pool`, `float_pool`,
    /// `str_pool`, `lattice`, `bit_ops`, `predicate_ints` and `predicate_floats`), from the
    /// functions in `within`, or from all for `None` (see [`Program::scoped_constants`]). The
    /// strings of the modules' tables and calls are those the functions in `within` use
    /// ([`Program::scoped_table_strings`]).
    pub fn pools(&self, within: Option<&[usize]>) -> Pools {
        let constants = self.scoped_constants(within);
        let mut in_scope = vec![within.is_none(); self.functions.len()];
        for &f in within.unwrap_or_default() {
            in_scope[f] = true;
        }
        let mut pools = Pools::default();
        for c in &constants {
            match **c {
                ConstantMeta::Int(i) => pools.ints.push(i as i128),
                // each once by its bits (a NaN is unequal to itself, so each function's is kept)
                ConstantMeta::Float(f) => {
                    if !pools.floats.iter().any(|x| x.to_bits() == f.to_bits()) {
                        pools.floats.push(f)
                    }
                }
                ConstantMeta::Lattice(s) => pools.lattice.push(s as i128),
                ConstantMeta::Str(ref s) => pools.strings.push(s.as_bytes().to_vec()),
            }
        }
        for s in self.scoped_table_strings(within) {
            if !pools.strings.iter().any(|o| o == s.as_bytes()) {
                pools.strings.push(s.as_bytes().to_vec());
            }
        }
        // least common multiples of pairs of steps: `x % 4 == 0 && x % 100 == 0` lives on
        // multiples of 100
        let base = pools.lattice.clone();
        for (i, &a) in base.iter().enumerate() {
            for &b in &base[i + 1..] {
                let l = a / gcd(a, b) * b;
                if l < (1 << 62) && !pools.lattice.contains(&l) {
                    pools.lattice.push(l);
                }
            }
        }
        pools.lattice.sort();
        for s in self.sites.iter().filter(|s| in_scope[s.function]) {
            pools.bit_ops |= bitwise_operator(&s.meta.cond);
            for lit in literals(&s.meta.cond) {
                match lit {
                    Literal::Int(i) if !pools.predicate_ints.contains(&i) => {
                        pools.predicate_ints.push(i)
                    }
                    Literal::Float(f)
                        if !pools
                            .predicate_floats
                            .iter()
                            .any(|x| x.to_bits() == f.to_bits()) =>
                    {
                        pools.predicate_floats.push(f)
                    }
                    _ => {}
                }
            }
        }
        pools
    }

    /// The functions a fuzzing harness may run: those reachable ([`Program::reachable_from`]) from
    /// the entry points of a libFuzzer harness (`LLVMFuzzerTestOneInput`, `LLVMFuzzerInitialize`)
    /// or of a program (`main`), or `None` when the program has none of them instrumented (the
    /// fuzzer then takes every function's constants).
    pub fn harness_scope(&self) -> Option<Vec<usize>> {
        const ENTRIES: [&str; 4] = [
            "LLVMFuzzerTestOneInput",
            "LLVMFuzzerInitialize",
            "main",
            evotest_abi::names::RENAMED_MAIN,
        ];
        let mut seen = vec![false; self.functions.len()];
        let mut out = Vec::new();
        for (i, f) in self.functions.iter().enumerate() {
            if ENTRIES.contains(&f.meta.name.as_str()) {
                for j in self.reachable_from(i) {
                    if !seen[j] {
                        seen[j] = true;
                        out.push(j);
                    }
                }
            }
        }
        (!out.is_empty()).then_some(out)
    }

    /// Whether some branch compares floats (operands of type `float` or `double`).
    pub fn compares_floats(&self) -> bool {
        self.sites
            .iter()
            .any(|s| matches!(s.meta.operand_type.as_str(), "float" | "double"))
    }
}

/// The constants that seed a search ([`Program::pools`]), each once.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Pools {
    /// Integer constants of compares and switches (after Anjum & Ryan 2021).
    pub ints: Vec<i128>,
    /// Float constants of compares.
    pub floats: Vec<f64>,
    /// String literals compared with `strcmp` and its kin, then those of the modules' tables and
    /// calls ([`evotest_abi::meta::ModuleMeta::table_strings`]).
    pub strings: Vec<Vec<u8>>,
    /// Lattice steps (moduli, divisors, shift and mask periods; see
    /// [`evotest_abi::meta::ConstantMeta::Lattice`]) with the least common multiples of pairs of
    /// them, sorted.
    pub lattice: Vec<i128>,
    /// Whether some branch's condition text uses a bitwise operator (`&`, `|`, `^`, `~`, `<<`,
    /// `>>`; not `&&`, `||`, nor `&` taking an address, which a condition text rarely shows): the
    /// code tests bit patterns, counts or masks bits.
    pub bit_ops: bool,
    /// The integer literals of the sites' condition texts (as the pass rebuilds them, e.g.
    /// `y % 400 == 0`, `len != hdr + 10`, `m == '+'`), each once, in site order: where
    /// [`Pools::ints`] holds the compares' operands, these are every constant written in a
    /// predicate, as Anjum & Ryan (2021) harvest them; a character literal counts as its code.
    pub predicate_ints: Vec<i128>,
    /// The float literals of the condition texts (a literal with a fraction or an exponent,
    /// `nmol < 25.0`).
    pub predicate_floats: Vec<f64>,
}

/// Whether C-like expression text `text` has a bitwise operator outside string and character
/// literals: `&` or `|` not doubled, `^`, `~`, `<<` or `>>` (`->` is not one).
fn bitwise_operator(text: &str) -> bool {
    let b = text.as_bytes();
    let mut i = 0;
    while i < b.len() {
        match b[i] {
            b'"' | b'\'' => {
                // skip the literal
                let q = b[i];
                i += 1;
                while i < b.len() && b[i] != q {
                    i += if b[i] == b'\\' { 2 } else { 1 };
                }
            }
            b'&' | b'|' => {
                if b.get(i + 1) == Some(&b[i]) {
                    i += 1;
                } else {
                    return true;
                }
            }
            b'^' | b'~' => return true,
            b'<' | b'>' if b.get(i + 1) == Some(&b[i]) => return true,
            _ => {}
        }
        i += 1;
    }
    false
}

/// A numeric literal of a condition text.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Literal {
    Int(i128),
    Float(f64),
}

/// How a [`Literal`] is written.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum LiteralForm {
    /// A character literal (`'\n'`).
    Char,
    Hex,
    /// A decimal integer or a float.
    Decimal,
}

/// The character literal that starts at `b[i]` (a quote): its value (`'q'`, `'\n'`, `'\t'`,
/// `'\r'`, `'\0'`, `'\\'`, `'\''`, `'\"'`), or `None`, and where the text goes on after it.
fn char_literal_at(b: &[u8], i: usize) -> (Option<u8>, usize) {
    match (b.get(i + 1), b.get(i + 2), b.get(i + 3)) {
        (Some(b'\\'), Some(e), Some(b'\'')) => {
            let v = match e {
                b'n' => Some(10),
                b't' => Some(9),
                b'r' => Some(13),
                b'0' => Some(0),
                b'\\' | b'\'' | b'"' => Some(*e),
                _ => None,
            };
            (v, i + 4)
        }
        (Some(&ch), Some(b'\''), _) => (Some(ch), i + 3),
        _ => (None, i + 1),
    }
}

/// The character literals of a condition text (`*s == '\t'`, `strchr(t, '\n')`), in order;
/// not those inside string literals.
pub fn char_literals(text: &str) -> Vec<u8> {
    let b = text.as_bytes();
    let mut out = Vec::new();
    let mut i = 0;
    while i < b.len() {
        match b[i] {
            b'"' => {
                i += 1;
                while i < b.len() && b[i] != b'"' {
                    i += if b[i] == b'\\' { 2 } else { 1 };
                }
                i += 1;
            }
            b'\'' => {
                let (v, end) = char_literal_at(b, i);
                out.extend(v);
                i = end;
            }
            _ => i += 1,
        }
    }
    out
}

/// The numeric literals of C-like expression text `text`: decimal, hexadecimal and float
/// literals (suffixes ignored), character literals as their codes, a `-` directly before a
/// literal as its sign when it follows an operator, a parenthesis or the start (`x > -384`: -384;
/// `w - 1`: 1). Digits inside identifiers and string literals are not literals.
pub fn literals(text: &str) -> Vec<Literal> {
    literals_with_form(text)
        .into_iter()
        .map(|(l, _)| l)
        .collect()
}

/// [`literals`], each with how it is written.
pub fn literals_with_form(text: &str) -> Vec<(Literal, LiteralForm)> {
    let b = text.as_bytes();
    let mut out = Vec::new();
    let mut i = 0;
    let ident = |c: u8| c.is_ascii_alphanumeric() || c == b'_' || c == b'.';
    while i < b.len() {
        let c = b[i];
        if c == b'"' {
            // a string literal: skip to its closing quote
            i += 1;
            while i < b.len() && b[i] != b'"' {
                i += if b[i] == b'\\' { 2 } else { 1 };
            }
            i += 1;
            continue;
        }
        if c == b'\'' {
            let (v, end) = char_literal_at(b, i);
            if let Some(v) = v {
                out.push((Literal::Int(v as i128), LiteralForm::Char));
            }
            i = end;
            continue;
        }
        if c.is_ascii_digit() && (i == 0 || !ident(b[i - 1])) {
            let start = i;
            let hex = c == b'0' && matches!(b.get(i + 1), Some(b'x') | Some(b'X'));
            if hex {
                i += 2;
                while i < b.len() && b[i].is_ascii_hexdigit() {
                    i += 1;
                }
            } else {
                while i < b.len() && (b[i].is_ascii_digit() || b[i] == b'.') {
                    i += 1;
                }
                if i < b.len() && (b[i] == b'e' || b[i] == b'E') {
                    let mut j = i + 1;
                    if j < b.len() && (b[j] == b'+' || b[j] == b'-') {
                        j += 1;
                    }
                    if j < b.len() && b[j].is_ascii_digit() {
                        i = j;
                        while i < b.len() && b[i].is_ascii_digit() {
                            i += 1;
                        }
                    }
                }
            }
            let body = &text[start..i];
            while i < b.len() && b[i].is_ascii_alphabetic() {
                i += 1; // suffixes: u, l, f
            }
            // a sign: a '-' right before, itself after an operator, a parenthesis or the start
            let negative = start > 0 && b[start - 1] == b'-' && {
                let before = b[..start - 1]
                    .iter()
                    .rev()
                    .find(|c| !c.is_ascii_whitespace());
                before.is_none_or(|p| !ident(*p) && *p != b')' && *p != b']')
            };
            let lit = if hex {
                i128::from_str_radix(&body[2..], 16).ok().map(Literal::Int)
            } else if body.contains(['.', 'e', 'E']) {
                body.parse::<f64>().ok().map(Literal::Float)
            } else {
                body.parse::<i128>().ok().map(Literal::Int)
            };
            let form = if hex {
                LiteralForm::Hex
            } else {
                LiteralForm::Decimal
            };
            match lit {
                Some(Literal::Int(v)) => {
                    out.push((Literal::Int(if negative { -v } else { v }), form))
                }
                Some(Literal::Float(v)) => {
                    out.push((Literal::Float(if negative { -v } else { v }), form))
                }
                None => {}
            }
            continue;
        }
        i += 1;
    }
    out
}

pub use evotest_abi::is_library_file;

fn gcd(a: i128, b: i128) -> i128 {
    if b == 0 {
        a.abs()
    } else {
        gcd(b, a % b)
    }
}

/// Hand-built programs for unit tests: one module with one function `f` in `f.c`.
#[cfg(test)]
pub(crate) mod testutil {
    use super::Program;
    use evotest_abi::meta::*;

    /// A block with successors `succs`, ended by site `site`.
    pub fn block(succs: Vec<u32>, site: Option<u32>) -> BlockMeta {
        BlockMeta {
            succs,
            site,
            selects: vec![],
            line: 1,
            calls: vec![],
        }
    }

    /// A two-outcome `br` site `id` in `block`, at line 10 + id, outcomes 2·id and 2·id + 1.
    /// Adjust other fields with struct update syntax.
    pub fn site(id: u32, block: u32, cond: &str) -> SiteMeta {
        SiteMeta {
            id,
            outcome_base: id * 2,
            n_outcomes: 2,
            kind: SiteKind::Br,
            function: 0,
            block,
            file: "f.c".into(),
            line: 10 + id,
            col: 1,
            cond: cond.into(),
            pred: None,
            operand_type: "i32".into(),
            outcome_labels: vec!["true".into(), "false".into()],
            uses: vec![],
            index: 0,
            case_values: vec![],
            string_compare: None,
            check: None,
        }
    }

    /// The program of function `f(...)` with these blocks, sites, variables and definitions.
    pub fn program(
        blocks: Vec<BlockMeta>,
        sites: Vec<SiteMeta>,
        vars: Vec<VarMeta>,
        defs: Vec<DefMeta>,
    ) -> Program {
        let ty = TypeMeta {
            canonical: None,
            c_spelling: "int".into(),
            ir: "i32".into(),
            scalar: None,
            pointee: None,
            composite: None,
            array: None,
            reference: 0,
        };
        let n_outcomes = sites
            .iter()
            .map(|s| s.outcome_base + s.n_outcomes)
            .max()
            .unwrap_or(0);
        Program::with_sequential_bases(vec![ModuleMeta {
            version: META_VERSION,
            module_id: 1,
            source_file: "f.c".into(),
            functions: vec![FunctionMeta {
                name: "f".into(),
                external: true,
                file: "f.c".into(),
                line: 1,
                params: vec![],
                ret: ty,
                variadic: false,
                blocks,
                calls: vec![],
                address_refs: vec![],
                writes_globals: false,
                source_name: None,
                language: None,
                source_params: None,
                reads_globals: vec![],
                param_calls: vec![],
                indirect_jumps: vec![],
                constants: vec![],
                strings: vec![],
            }],
            sites,
            n_outcomes,
            constants: vec![],
            vars,
            defs,
            decisions: vec![],
            globals: vec![],
            other_globals: vec![],
            thread_locals: vec![],
            local_statics: vec![],
            table_strings: vec![],
            globals_restorable: false,
        }])
    }
}

#[cfg(test)]
mod literal_tests {
    use super::{char_literals, literals, Literal};

    #[test]
    fn bitwise_operators_are_told_from_logical_ones() {
        for t in [
            "(x & 65535) == x >> 16",
            "v & (v - 1)",
            "a | b",
            "x ^ y",
            "~m == 0",
            "1 << k",
        ] {
            assert!(super::bitwise_operator(t), "{t}");
        }
        for t in [
            "a && b",
            "a || b",
            "x == '&'",
            "s == \"a|b\"",
            "p->n < 3",
            "a < b && b > c",
        ] {
            assert!(!super::bitwise_operator(t), "{t}");
        }
    }

    /// Every numeric literal of a predicate, with its sign, and nothing from identifiers or
    /// string literals.
    #[test]
    fn literals_of_condition_texts() {
        let ints = |t: &str| {
            literals(t)
                .into_iter()
                .map(|l| {
                    if let Literal::Int(i) = l {
                        i
                    } else {
                        panic!("{l:?}")
                    }
                })
                .collect::<Vec<_>>()
        };
        assert_eq!(ints("y % 400 == 0"), [400, 0]);
        assert_eq!(ints("len != hdr + 10"), [10]);
        assert_eq!(ints("v6 > -384"), [-384]);
        assert_eq!(ints("w - 1 == x-2 && (-5) < v2"), [1, 2, -5]);
        assert_eq!(ints("m == '+' && c != '\\n'"), [43, 10]);
        assert_eq!(ints("strcmp(s, \"a1 22\") == 0x1F"), [31]);
        assert_eq!(ints("p[3] < 10u"), [3, 10]);
        assert_eq!(
            literals("nmol < 25.0 || x > -1.5e3"),
            [Literal::Float(25.0), Literal::Float(-1500.0)]
        );
        assert_eq!(char_literals("strchr(t, '\\n') != NULL"), [b'\n']);
        assert_eq!(
            char_literals("*s == 'q' || strcmp(s, \"'x'\") == 0 || c == '\\''"),
            [b'q', b'\'']
        );
        assert_eq!(char_literals("x == 10"), Vec::<u8>::new());
    }
}

#[cfg(test)]
mod pool_tests {
    use super::testutil::{block, program, site};
    use super::Program;
    use evotest_abi::meta::{ConstantMeta, SiteMeta};

    /// A module of three functions: `f` calls `g`; `h` is unrelated and tests bits.
    fn three_functions(attributed: bool) -> Program {
        three_functions_named(attributed, None)
    }

    /// [`three_functions`], with `f` named `f_name` where given.
    fn three_functions_named(attributed: bool, f_name: Option<&str>) -> Program {
        let p = program(
            vec![block(vec![], Some(0))],
            vec![site(0, 0, "x < 7")],
            vec![],
            vec![],
        );
        let mut m = p.modules[0].clone();
        m.constants = vec![
            ConstantMeta::Int(7),
            ConstantMeta::Lattice(4),
            ConstantMeta::Int(99),
            ConstantMeta::Lattice(10),
            ConstantMeta::Str("magic".into()),
        ];
        m.table_strings = vec!["open".into(), "close".into(), "GIF89a".into()];
        let mut f = m.functions[0].clone();
        let mut g = f.clone();
        let mut h = f.clone();
        f.calls = vec!["g".into()];
        if let Some(n) = f_name {
            f.name = n.into();
        }
        g.name = "g".into();
        h.name = "h".into();
        if attributed {
            f.constants = vec![0];
            g.constants = vec![1];
            h.constants = vec![2, 3, 4];
            f.strings = vec![1];
            g.strings = vec![0, 1];
            h.strings = vec![2];
        }
        m.functions = vec![f, g, h];
        let site_in = |id: u32, function: u32, cond: &str| SiteMeta {
            function,
            ..site(id, 0, cond)
        };
        m.sites = vec![
            site_in(0, 0, "x < 7"),
            site_in(1, 1, "y % 4 == 0"),
            site_in(2, 2, "(w & 0xff) == 99"),
        ];
        m.n_outcomes = 6;
        Program::with_sequential_bases(vec![m])
    }

    #[test]
    fn a_function_s_pools_hold_its_own_and_its_callees_constants_only() {
        let p = three_functions(true);
        let f = p.function("f").unwrap().0;
        let within = p.reachable_from(f);
        let pools = p.pools(Some(&within));
        assert_eq!(pools.ints, vec![7]);
        assert_eq!(pools.lattice, vec![4]);
        assert_eq!(
            pools.strings,
            vec![b"close".to_vec(), b"open".to_vec()],
            "the table strings f and g use, in their order"
        );
        assert!(!pools.bit_ops, "only h tests bits");
        assert_eq!(pools.predicate_ints, vec![7, 4, 0]);
        // h's own
        let h = p.function("h").unwrap().0;
        let pools = p.pools(Some(&p.reachable_from(h)));
        assert_eq!(pools.ints, vec![99]);
        assert_eq!(pools.lattice, vec![10]);
        assert_eq!(pools.strings, vec![b"magic".to_vec(), b"GIF89a".to_vec()]);
        assert!(pools.bit_ops);
    }

    #[test]
    fn a_harness_s_pools_hold_every_function_s_constants() {
        let p = three_functions(true);
        let pools = p.pools(None);
        assert_eq!(pools.ints, vec![7, 99]);
        assert_eq!(
            pools.lattice,
            vec![4, 10, 20],
            "with the steps' least common multiple"
        );
        assert_eq!(
            pools.strings,
            vec![
                b"magic".to_vec(),
                b"open".to_vec(),
                b"close".to_vec(),
                b"GIF89a".to_vec()
            ]
        );
        assert!(pools.bit_ops);
    }

    #[test]
    fn a_fuzzing_harness_takes_the_constants_of_what_it_can_reach() {
        let p = three_functions_named(true, Some("LLVMFuzzerTestOneInput"));
        assert_eq!(
            p.harness_scope(),
            Some(vec![0, 1]),
            "the harness and g, not h"
        );
        let within = p.harness_scope();
        let ints: Vec<_> = p.scoped_constants(within.as_deref());
        assert_eq!(ints.len(), 2, "7 and the lattice step 4: {ints:?}");
        // without an entry point, every function's
        assert_eq!(three_functions(true).harness_scope(), None);
    }

    #[test]
    fn metadata_that_attributes_no_constant_gives_every_function_the_module_s() {
        let p = three_functions(false);
        let f = p.function("f").unwrap().0;
        let pools = p.pools(Some(&p.reachable_from(f)));
        assert_eq!(pools.ints, vec![7, 99]);
        assert_eq!(pools.lattice, vec![4, 10, 20]);
        assert_eq!(pools.strings.len(), 4, "magic and the three table strings");
    }
}
