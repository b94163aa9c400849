//! The instrumented program as the engine sees it: the static metadata of every instrumented
//! module, read back from the executable's `evotest_meta` section with the `object` crate, and
//! renumbered into global site and outcome IDs with the bases the runtime assigned at
//! registration (`evotest_abi::shm::ModuleEntry`).

use anyhow::{anyhow, bail, Context, Result};
use evotest_abi::meta::{unframe_all, FunctionMeta, ModuleMeta, SiteMeta};
use evotest_abi::names::META_SECTION;
use evotest_abi::shm::ModuleEntry;
use object::{Object, ObjectSection};
use std::path::Path;

/// Global index of a branch site.
pub type SiteId = u32;
/// Global index of a branch outcome (`site.outcome_base + k`).
pub type OutcomeId = u32;

/// One branch site with global numbering.
#[derive(Clone, Debug)]
pub struct Site {
    pub id: SiteId,
    /// Global ID of outcome 0.
    pub outcome_base: OutcomeId,
    /// Index into [`Program::functions`].
    pub function: usize,
    pub meta: SiteMeta,
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

/// The whole instrumented program.
#[derive(Clone, Debug)]
pub struct Program {
    pub modules: Vec<ModuleMeta>,
    pub functions: Vec<Function>,
    /// By global site ID.
    pub sites: Vec<Site>,
    pub n_outcomes: u32,
}

/// Read the metadata of every instrumented module in an object file or executable.
///
/// Errors: unreadable file, not an object file, no `evotest_meta` section (not built with the
/// evotest pass), or a malformed blob.
pub fn read_metadata(path: &Path) -> Result<Vec<ModuleMeta>> {
    let data = std::fs::read(path).with_context(|| format!("cannot read {}", path.display()))?;
    let file = object::File::parse(&*data).with_context(|| format!("{} is not an object file", path.display()))?;
    let sec = file
        .section_by_name(META_SECTION)
        .ok_or_else(|| anyhow!("{} has no evotest metadata (was it compiled with the evotest pass?)", path.display()))?;
    let bytes = sec.data().context("cannot read the evotest_meta section")?;
    let blobs = unframe_all(bytes).map_err(|at| anyhow!("malformed evotest metadata at byte {at} of {}", path.display()))?;
    let mut out = Vec::new();
    for b in blobs {
        let m: ModuleMeta = serde_json::from_slice(b).context("malformed evotest metadata")?;
        if m.version != evotest_abi::meta::META_VERSION {
            bail!("{} was instrumented by another evotest version (metadata v{})", path.display(), m.version);
        }
        out.push(m);
    }
    Ok(out)
}

impl Program {
    /// Number sites with the bases the runtime reported. Every module must have registered.
    pub fn new(modules: Vec<ModuleMeta>, entries: &[ModuleEntry]) -> Result<Program> {
        let mut bases = Vec::new();
        for m in &modules {
            let e = entries
                .iter()
                .find(|e| e.module_id == m.module_id)
                .ok_or_else(|| anyhow!("instrumented module {} did not register with the runtime", m.source_file))?;
            if e.n_sites as usize != m.sites.len() || e.n_outcomes != m.n_outcomes {
                bail!("module {} registered with sizes that disagree with its metadata", m.source_file);
            }
            bases.push((e.site_base, e.outcome_base));
        }
        Ok(Self::build(modules, &bases))
    }

    /// Number sites module after module, as if modules registered in order (tests, offline use).
    pub fn with_sequential_bases(modules: Vec<ModuleMeta>) -> Program {
        let mut bases = Vec::new();
        let (mut s, mut o) = (0, 0);
        for m in &modules {
            bases.push((s, o));
            s += m.sites.len() as u32;
            o += m.n_outcomes;
        }
        Self::build(modules, &bases)
    }

    fn build(modules: Vec<ModuleMeta>, bases: &[(u32, u32)]) -> Program {
        let mut functions = Vec::new();
        let n_sites: usize = bases.iter().zip(&modules).map(|(b, m)| b.0 as usize + m.sites.len()).max().unwrap_or(0);
        let mut sites: Vec<Option<Site>> = vec![None; n_sites];
        let mut n_outcomes = 0;
        for (mi, (m, &(sb, ob))) in modules.iter().zip(bases).enumerate() {
            let fbase = functions.len();
            for f in &m.functions {
                functions.push(Function {
                    module: mi,
                    meta: f.clone(),
                    block_site: f.blocks.iter().map(|b| b.site.map(|s| s + sb)).collect(),
                    block_selects: f.blocks.iter().map(|b| b.selects.iter().map(|s| s + sb).collect()).collect(),
                });
            }
            for s in &m.sites {
                let id = sb + s.id;
                sites[id as usize] = Some(Site {
                    id,
                    outcome_base: ob + s.outcome_base,
                    function: fbase + s.function as usize,
                    meta: s.clone(),
                });
            }
            n_outcomes = n_outcomes.max(ob + m.n_outcomes);
        }
        Program { modules, functions, sites: sites.into_iter().flatten().collect(), n_outcomes }
    }

    /// Total sites.
    pub fn n_sites(&self) -> u32 {
        self.sites.len() as u32
    }

    /// The function with this linkage name.
    pub fn function(&self, name: &str) -> Option<(usize, &Function)> {
        self.functions.iter().enumerate().find(|(_, f)| f.meta.name == name)
    }

    /// Indices of the functions reachable from function `root` through direct calls, `root`
    /// first. Calls through function pointers are not followed.
    pub fn reachable_from(&self, root: usize) -> Vec<usize> {
        let mut seen = vec![false; self.functions.len()];
        let mut order = vec![root];
        seen[root] = true;
        let mut i = 0;
        while i < order.len() {
            let f = &self.functions[order[i]];
            for callee in &f.meta.calls {
                // prefer a callee in the same module (a static function), else any definition
                let found = self
                    .functions
                    .iter()
                    .enumerate()
                    .filter(|(_, g)| &g.meta.name == callee)
                    .min_by_key(|(_, g)| (g.module != f.module) as u8)
                    .map(|(j, _)| j);
                if let Some(j) = found {
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

    /// The site and outcome index of a global outcome ID.
    pub fn outcome(&self, o: OutcomeId) -> Option<(&Site, u32)> {
        // sites are sorted by id and outcome bases increase with id within a module
        self.sites.iter().find(|s| s.outcomes().contains(&o)).map(|s| (s, o - s.outcome_base))
    }

    /// Integer and float constants from all modules' compares and switches.
    pub fn constants(&self) -> (Vec<i128>, Vec<f64>) {
        let mut ints = Vec::new();
        let mut floats = Vec::new();
        for m in &self.modules {
            for c in &m.constants {
                match *c {
                    evotest_abi::meta::ConstantMeta::Int(i) => {
                        if !ints.contains(&(i as i128)) {
                            ints.push(i as i128)
                        }
                    }
                    evotest_abi::meta::ConstantMeta::Float(f) => {
                        if !floats.contains(&f) {
                            floats.push(f)
                        }
                    }
                }
            }
        }
        (ints, floats)
    }
}
