//! Peer fuzzers: libFuzzer and AFL++, measured by evotest's observer.
//!
//! * Both get a generated harness that maps their bytes onto the declared domain
//!   ([`crate::input::mapped`]), and the run's starting input as their only seed.
//! * **libFuzzer** (`clang-22 -fsanitize=fuzzer`, `-use_value_profile=1`): the target is also
//!   compiled with the evotest pass and the runtime runs in observer mode in the fuzzer's process,
//!   logging every input that covers a branch outcome for the first time with its execution number
//!   and time (and ending the run once all feasible outcomes are covered, when the binary's outcome
//!   count matches the goals').
//! * **AFL++** (Debian's 4.04c, `afl-clang-fast` on clang 14, persistent mode, CmpLog with `-c`):
//!   its queue entries carry `time:` and `execs:`; they are replayed through evotest's own binary as
//!   they appear, and the run ends once all feasible outcomes are covered. Only inputs AFL++ keeps
//!   (its own new edge coverage) are seen, and its execution count is AFL++'s own (`execs_done`).
//!
//! In both cases the goals covered, and when, are computed by replaying the logged inputs through
//! evotest's instrumented binary: the same observer as for evotest's own runs.

use super::tools::{Observed, ProgramCtx, RunSpec, Tool};
use crate::frontend::Peer;
use crate::input::mapped::{self, PeerEncoding};
use crate::input::Input;
use crate::toolchain::{Toolchain, RUNTIME_LINK_LIBS};
use anyhow::{anyhow, bail, Context, Result};
use evotest_abi::names::ENV_PASS_EXPOSE;
use std::collections::BTreeSet;
use std::os::unix::process::CommandExt;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

/// One input a peer ran, with the peer's execution number and time.
#[derive(Clone, Debug)]
pub struct Entry {
    pub exec: u64,
    pub seconds: f64,
    pub bytes: Vec<u8>,
}

/// Replay `entries` (in execution order) through evotest's binary, recording in `first` the goals
/// each covers first, and in `inputs` the inputs that covered something first.
pub fn replay(
    cx: &mut ProgramCtx,
    enc: PeerEncoding,
    entries: &[Entry],
    first: &mut [Option<(u64, f64)>],
    inputs: &mut Vec<Input>,
) -> Result<()> {
    for e in entries {
        let input = mapped::decode(cx.target.frontend.domain(), &e.bytes, enc);
        let ex = cx
            .target
            .executor
            .run(&input.bytes, crate::exec::Stop::NONE)?;
        let mut new = false;
        for (g, goal) in cx.goals.iter().enumerate() {
            if first[g].is_none() && goal.fitness(&ex.trace) == 0.0 {
                first[g] = Some((e.exec, e.seconds));
                new = true;
            }
        }
        if new {
            inputs.push(input);
        }
    }
    Ok(())
}

fn covered_feasible(first: &[Option<(u64, f64)>], feasible: usize) -> bool {
    first.iter().filter(|f| f.is_some()).count() >= feasible
}

pub(super) use crate::compile::run_tool;

/// Write the run's seed into `dir` as `start`: an all-zero input of the harness's length when
/// `spec.zero_seed`, else the run's starting input in encoding `enc`.
pub(super) fn write_seed(
    dir: &Path,
    cx: &ProgramCtx,
    spec: &RunSpec,
    enc: PeerEncoding,
) -> Result<()> {
    std::fs::create_dir_all(dir)?;
    let d = cx.target.frontend.domain();
    let bytes = if spec.zero_seed {
        vec![0u8; mapped::input_len(d, enc).max(1)]
    } else {
        mapped::encode(d, &spec.start, enc)
    };
    std::fs::write(dir.join("start"), bytes)?;
    Ok(())
}

/// Empty `p`, creating it if needed.
pub(super) fn fresh_dir(p: &Path) -> Result<()> {
    if p.exists() {
        std::fs::remove_dir_all(p)?;
    }
    std::fs::create_dir_all(p)?;
    Ok(())
}

/// libFuzzer with the evotest observer in-process.
pub struct LibFuzzer {
    exe: Option<PathBuf>,
    /// Whether the observer may stop the run at full feasible coverage.
    early_stop: bool,
    encoding: PeerEncoding,
}

impl LibFuzzer {
    pub fn new(encoding: PeerEncoding) -> LibFuzzer {
        LibFuzzer {
            exe: None,
            early_stop: false,
            encoding,
        }
    }
}

impl Tool for LibFuzzer {
    fn name(&self) -> String {
        "libfuzzer".into()
    }

    fn is_peer(&self) -> bool {
        true
    }

    fn prepare(&mut self, cx: &ProgramCtx) -> Result<()> {
        let tc = Toolchain::locate()?;
        let dir = cx.dir.join("libfuzzer");
        std::fs::create_dir_all(&dir)?;
        let src = &cx.options.target.sources;
        let harness_c = dir.join("harness.c");
        let h = cx
            .target
            .frontend
            .peer_harness(Peer::LibFuzzer, self.encoding)
            .ok_or_else(|| anyhow!("this target has no libFuzzer harness"))?;
        std::fs::write(&harness_c, h)?;
        let mut objects = Vec::new();
        for (i, s) in src.iter().enumerate() {
            let obj = dir.join(format!("target{i}.o"));
            let mut c = tc.clang();
            c.args(["-O1", "-g", "-fsanitize=fuzzer-no-link"])
                .arg(format!("-fpass-plugin={}", tc.pass.display()))
                .args(&cx.options.target.cflags)
                .arg("-c")
                .arg(s)
                .arg("-o")
                .arg(&obj)
                .env(ENV_PASS_EXPOSE, &cx.options.target.function);
            run_tool(c, "compiling the libFuzzer target")?;
            objects.push(obj);
        }
        let exe = dir.join("fuzzer");
        let mut c = tc.clang();
        c.args(["-O1", "-g", "-fsanitize=fuzzer"])
            .arg(&harness_c)
            .args(&objects)
            .arg(&tc.runtime)
            .args(&cx.options.target.ldflags)
            .args(RUNTIME_LINK_LIBS)
            .arg("-o")
            .arg(&exe);
        run_tool(
            c,
            "linking the libFuzzer harness (is libclang-rt-22-dev installed? run `make setup`)",
        )?;
        // The observer counts outcomes of the whole binary; stopping early is exact only when that
        // is the same set as the goals.
        let metas = crate::program::read_metadata(&exe)?;
        let outcomes: u32 = metas.iter().map(|m| m.n_outcomes).sum();
        self.early_stop =
            outcomes as usize == cx.goals.len() && outcomes == cx.target.program.n_outcomes;
        self.exe = Some(exe);
        Ok(())
    }

    fn run(&mut self, cx: &mut ProgramCtx, spec: &RunSpec) -> Result<Observed> {
        let exe = self
            .exe
            .clone()
            .ok_or_else(|| anyhow!("libFuzzer not prepared"))?;
        let rd = cx.dir.join("libfuzzer").join(format!("run{}", spec.run));
        fresh_dir(&rd)?;
        let corpus = rd.join("corpus");
        let seeds = rd.join("seeds");
        std::fs::create_dir_all(&corpus)?;
        write_seed(&seeds, cx, spec, self.encoding)?;
        let log = rd.join("observe.log");
        let secs = spec.max_time.as_secs_f64().ceil().max(1.0) as u64;
        let mut cmd = Command::new(&exe);
        cmd.arg("-use_value_profile=1")
            .arg(format!("-seed={}", spec.seed + 1))
            .arg(if spec.max_execs == u64::MAX {
                "-runs=-1".to_string()
            } else {
                format!("-runs={}", spec.max_execs)
            })
            .arg(format!("-max_total_time={secs}"))
            .arg(format!(
                "-max_len={}",
                mapped::input_len(cx.target.frontend.domain(), self.encoding).max(1)
            ))
            .arg(format!(
                "-timeout={}",
                spec.timeout.as_secs_f64().ceil().max(1.0) as u64
            ))
            .arg("-print_final_stats=1")
            .arg("-close_fd_mask=3")
            .arg(&corpus)
            .arg(&seeds)
            .current_dir(&rd)
            .env(evotest_abi::names::ENV_OBSERVE_LOG, &log)
            .stdin(Stdio::null())
            .stdout(Stdio::null())
            .stderr(std::fs::File::create(rd.join("libfuzzer.log"))?);
        if self.early_stop {
            cmd.env("EVOTEST_OBSERVE_STOP", cx.program.feasible.to_string());
        }
        let t0 = Instant::now();
        let status = cmd
            .status()
            .with_context(|| format!("cannot run {}", exe.display()))?;
        let elapsed = t0.elapsed().as_secs_f64();
        let text = std::fs::read_to_string(&log).unwrap_or_default();
        let mut entries = Vec::new();
        let mut executions = None;
        for line in text.lines() {
            let f: Vec<&str> = line.split(' ').collect();
            if f.first() == Some(&"end") && f.len() >= 2 {
                executions = f[1].parse().ok();
            } else if f.len() >= 2 {
                let bytes = f.get(2).map(|h| hex(h)).unwrap_or_default();
                entries.push(Entry {
                    exec: f[0].parse().unwrap_or(0),
                    seconds: f[1].parse::<f64>().unwrap_or(0.0) / 1e6,
                    bytes,
                });
            }
        }
        let mut first = vec![None; cx.goals.len()];
        let mut inputs = Vec::new();
        replay(cx, self.encoding, &entries, &mut first, &mut inputs)?;
        let note = (!status.success() && status.code() != Some(0)).then(|| {
            format!(
                "libFuzzer ended with {status} (a crash or timeout stops it); see {}",
                rd.join("libfuzzer.log").display()
            )
        });
        Ok(Observed {
            first,
            executions: executions
                .or_else(|| entries.last().map(|e| e.exec))
                .unwrap_or(0),
            seconds: elapsed,
            note,
            inputs,
            evaluations: 0,
            sequences: 0,
        })
    }
}

/// On every path out of an AFL++ run (errors included): kill afl-fuzz's process group, and every
/// process still running one of the AFL++ target binaries. AFL++ 4.04c's CmpLog fork server puts
/// itself in a new session, and its stopped children outlive afl-fuzz holding shared memory, so
/// only their executable identifies them.
struct KillLeftovers {
    group: i32,
    exes: Vec<PathBuf>,
}

impl Drop for KillLeftovers {
    fn drop(&mut self) {
        unsafe { libc::kill(-self.group, libc::SIGKILL) };
        let exes: Vec<PathBuf> = self
            .exes
            .iter()
            .filter_map(|e| e.canonicalize().ok())
            .collect();
        let Ok(procs) = std::fs::read_dir("/proc") else {
            return;
        };
        for p in procs.flatten() {
            let Some(pid) = p.file_name().to_str().and_then(|n| n.parse::<i32>().ok()) else {
                continue;
            };
            if let Ok(exe) = std::fs::read_link(p.path().join("exe")) {
                if exes.contains(&exe) {
                    unsafe { libc::kill(pid, libc::SIGKILL) };
                }
            }
        }
    }
}

fn hex(s: &str) -> Vec<u8> {
    crate::util::unhex(s).unwrap_or_default()
}

/// AFL++ in persistent mode with CmpLog, observed by replaying its queue.
pub struct Afl {
    exe: Option<(PathBuf, PathBuf)>,
    encoding: PeerEncoding,
}

impl Afl {
    pub fn new(encoding: PeerEncoding) -> Afl {
        Afl {
            exe: None,
            encoding,
        }
    }
}

fn afl_tool(name: &str) -> Result<PathBuf> {
    for d in ["/usr/bin", "/usr/local/bin"] {
        let p = Path::new(d).join(name);
        if p.is_file() {
            return Ok(p);
        }
    }
    bail!("{name} not found: AFL++ is needed for this benchmark tool (run `make setup-bench`, or apt-get install afl++)")
}

/// `execs:` and `time:` (ms) of an AFL++ queue file name.
fn afl_meta(name: &str) -> Option<(u64, f64)> {
    let mut execs = None;
    let mut time = 0.0;
    for part in name.split(',') {
        if let Some(v) = part.strip_prefix("execs:") {
            execs = v.parse().ok();
        } else if let Some(v) = part.strip_prefix("time:") {
            time = v.parse::<f64>().unwrap_or(0.0) / 1000.0;
        }
    }
    Some((execs?, time))
}

impl Tool for Afl {
    fn name(&self) -> String {
        "afl".into()
    }

    fn is_peer(&self) -> bool {
        true
    }

    fn prepare(&mut self, cx: &ProgramCtx) -> Result<()> {
        let cc = afl_tool("afl-clang-fast")?;
        afl_tool("afl-fuzz")?;
        let dir = cx.dir.join("afl");
        std::fs::create_dir_all(&dir)?;
        let harness_c = dir.join("harness.c");
        let h = cx
            .target
            .frontend
            .peer_harness(Peer::Afl, self.encoding)
            .ok_or_else(|| anyhow!("this target has no AFL++ harness"))?;
        std::fs::write(&harness_c, h)?;
        let exe = dir.join("target");
        let cmplog = dir.join("target.cmplog");
        for (out, cmplog_env) in [(&exe, false), (&cmplog, true)] {
            let mut c = Command::new(&cc);
            c.arg(&harness_c)
                .args(&cx.options.target.sources)
                .args(&cx.options.target.cflags)
                .args(&cx.options.target.ldflags)
                .arg("-lm")
                .arg("-o")
                .arg(out)
                .env("AFL_QUIET", "1");
            if cmplog_env {
                c.env("AFL_LLVM_CMPLOG", "1");
            }
            run_tool(c, "building the AFL++ target")?;
        }
        self.exe = Some((exe, cmplog));
        Ok(())
    }

    fn run(&mut self, cx: &mut ProgramCtx, spec: &RunSpec) -> Result<Observed> {
        let (exe, cmplog) = self
            .exe
            .clone()
            .ok_or_else(|| anyhow!("AFL++ not prepared"))?;
        let rd = cx.dir.join("afl").join(format!("run{}", spec.run));
        fresh_dir(&rd)?;
        let input = rd.join("in");
        write_seed(&input, cx, spec, self.encoding)?;
        let out = rd.join("out");
        let secs = spec.max_time.as_secs_f64().ceil().max(1.0) as u64;
        let mut cmd = Command::new(afl_tool("afl-fuzz")?);
        cmd.arg("-i")
            .arg(&input)
            .arg("-o")
            .arg(&out)
            .arg("-s")
            .arg((spec.seed + 1).to_string())
            .arg("-V")
            .arg(secs.to_string())
            .args(if spec.max_execs == u64::MAX {
                vec![]
            } else {
                vec!["-E".to_string(), spec.max_execs.to_string()]
            })
            .arg("-t")
            .arg((spec.timeout.as_millis().max(1)).to_string())
            .arg("-c")
            .arg(&cmplog)
            .arg("--")
            .arg(&exe)
            .env("AFL_NO_UI", "1")
            .env("AFL_SKIP_CPUFREQ", "1")
            .env("AFL_I_DONT_CARE_ABOUT_MISSING_CRASHES", "1")
            // bind to a free CPU if there is one, as evotest's fork servers do; go on unbound if not
            .env_remove("AFL_NO_AFFINITY")
            .env("AFL_TRY_AFFINITY", "1")
            .env("AFL_SKIP_CRASHES", "1")
            .stdin(Stdio::null())
            .stdout(std::fs::File::create(rd.join("afl.log"))?)
            .stderr(Stdio::null());
        // AFL++ 4.04c leaves its CmpLog fork server's children stopped when it exits, each holding
        // its shared memory: run it in a process group of its own and kill the whole group after.
        cmd.process_group(0);
        let t0 = Instant::now();
        let mut child = cmd.spawn().context("cannot start afl-fuzz")?;
        let _cleanup = KillLeftovers {
            group: child.id() as i32,
            exes: vec![exe.clone(), cmplog.clone()],
        };
        let mut seen: BTreeSet<String> = BTreeSet::new();
        let mut first = vec![None; cx.goals.len()];
        let mut inputs = Vec::new();
        let deadline = t0 + spec.max_time + Duration::from_secs(30);
        loop {
            let done = child.try_wait()?.is_some();
            self.collect(cx, &out, &mut seen, &mut first, &mut inputs)?;
            if done {
                break;
            }
            if covered_feasible(&first, cx.program.feasible) || Instant::now() > deadline {
                unsafe { libc::kill(child.id() as i32, libc::SIGINT) };
                let _ = child.wait();
                self.collect(cx, &out, &mut seen, &mut first, &mut inputs)?;
                break;
            }
            std::thread::sleep(Duration::from_millis(200));
        }
        let elapsed = t0.elapsed().as_secs_f64();
        let stats = std::fs::read_to_string(out.join("default/fuzzer_stats")).unwrap_or_default();
        let execs = stats
            .lines()
            .find_map(|l| {
                l.strip_prefix("execs_done")
                    .map(|v| v.trim_start_matches([' ', ':']).trim().parse::<u64>())
            })
            .and_then(|r| r.ok());
        let note = if seen.is_empty() {
            Some(format!(
                "AFL++ produced no queue; see {}",
                rd.join("afl.log").display()
            ))
        } else {
            None
        };
        Ok(Observed {
            executions: execs
                .unwrap_or_else(|| first.iter().flatten().map(|f| f.0).max().unwrap_or(0)),
            first,
            seconds: elapsed,
            note,
            inputs,
            evaluations: 0,
            sequences: 0,
        })
    }
}

impl Afl {
    /// Replay queue, crash and hang entries not seen yet, in execution order.
    fn collect(
        &self,
        cx: &mut ProgramCtx,
        out: &Path,
        seen: &mut BTreeSet<String>,
        first: &mut [Option<(u64, f64)>],
        inputs: &mut Vec<Input>,
    ) -> Result<()> {
        let mut entries = Vec::new();
        for sub in ["queue", "crashes", "hangs"] {
            let Ok(rd) = std::fs::read_dir(out.join("default").join(sub)) else {
                continue;
            };
            for e in rd.flatten() {
                let name = e.file_name().to_string_lossy().to_string();
                if !name.starts_with("id:") || !seen.insert(format!("{sub}/{name}")) {
                    continue;
                }
                let Some((exec, seconds)) = afl_meta(&name) else {
                    continue;
                };
                if let Ok(bytes) = std::fs::read(e.path()) {
                    entries.push(Entry {
                        exec,
                        seconds,
                        bytes,
                    });
                }
            }
        }
        entries.sort_by_key(|e| e.exec);
        replay(cx, self.encoding, &entries, first, inputs)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn afl_queue_names() {
        assert_eq!(
            afl_meta("id:000002,src:000000,time:359,execs:25,op:havoc,rep:16,+cov"),
            Some((25, 0.359))
        );
        assert_eq!(
            afl_meta("id:000000,time:0,execs:0,orig:start"),
            Some((0, 0.0))
        );
        assert_eq!(afl_meta("README.txt"), None);
        assert_eq!(hex("00ff10"), vec![0, 255, 16]);
    }
}
