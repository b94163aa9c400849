//! `evotest fuzz` as a benchmark tool (`fuzz`, `fuzz+i2s`, `fuzz+noguide`): the function under
//! test wrapped in the same generated `LLVMFuzzerTestOneInput` as the peers' (the same encoding
//! of its parameters, [`crate::input::mapped`]), built the way `evotest-cc -fsanitize=fuzzer`
//! builds a harness (the pass on every translation unit, evotest's libFuzzer-compatible driver),
//! and fuzzed by an `evotest fuzz` process with `--guidance on`, `i2s` or `off`.
//!
//! It is measured as the peers are: `evotest fuzz --new_coverage_log` writes every input that
//! added coverage with its execution number, and those inputs are replayed, as they appear,
//! through evotest's own instrumented binary of the function ([`super::peers::replay`]); the run
//! is stopped once every feasible goal is covered. Inputs the fuzzer ran without keeping them
//! cover nothing new by its own coverage, so none that covers a goal first is missed.

use super::peers::{fresh_dir, replay, run_tool, write_seed, Entry};
use super::tools::{Observed, ProgramCtx, RunSpec, Tool};
use crate::frontend::Peer;
use crate::input::mapped::{self, PeerEncoding};
use crate::toolchain::Toolchain;
use anyhow::{anyhow, bail, Context, Result};
use std::ffi::OsString;
use std::path::PathBuf;
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

/// `evotest fuzz` with one guidance mode.
pub struct Fuzz {
    /// Column name (`fuzz`, `fuzz+i2s`, `fuzz+noguide`).
    name: String,
    /// `--guidance` value: `on`, `i2s` or `off`.
    guidance: &'static str,
    encoding: PeerEncoding,
    exe: Option<PathBuf>,
}

impl Fuzz {
    /// The tool `fuzz[+i2s|+noguide]`, or `None` when `name` is not one.
    pub fn by_name(name: &str, encoding: PeerEncoding) -> Option<Fuzz> {
        let guidance = match name {
            "fuzz" => "on",
            "fuzz+i2s" => "i2s",
            "fuzz+noguide" => "off",
            _ => return None,
        };
        Some(Fuzz {
            name: name.to_string(),
            guidance,
            encoding,
            exe: None,
        })
    }

    fn dir(&self, cx: &ProgramCtx) -> PathBuf {
        cx.dir.join(self.name.replace('+', "-"))
    }
}

/// The `evotest` executable: this process when it is one, else `evotest` beside it or one
/// directory up (a test binary in `deps/`).
fn evotest_exe() -> Result<PathBuf> {
    let me = std::env::current_exe().context("cannot locate the evotest executable")?;
    if me.file_name().is_some_and(|n| n == "evotest") {
        return Ok(me);
    }
    let dir = me.parent().unwrap_or(std::path::Path::new("."));
    [dir.join("evotest"), dir.join("../evotest")]
        .into_iter()
        .find(|p| p.is_file())
        .ok_or_else(|| anyhow!("the evotest executable is not next to {} (build it with `cargo build --workspace`)", me.display()))
}

/// Parse the complete lines of a new-coverage log (see [`crate::fuzz::newlog`]) from byte `from`
/// on: the entries, the executions of an `end` line, and where the next read starts.
fn parse_log(text: &[u8], from: usize) -> (Vec<Entry>, Option<u64>, usize) {
    let mut entries = Vec::new();
    let mut end = None;
    let mut at = from;
    if from > text.len() {
        // a read that failed or caught the file while it was being replaced: later
        return (entries, end, from);
    }
    while let Some(nl) = text[at..].iter().position(|&b| b == b'\n') {
        let line = String::from_utf8_lossy(&text[at..at + nl]).into_owned();
        at += nl + 1;
        let f: Vec<&str> = line.split(' ').collect();
        if f.first() == Some(&"end") {
            end = f.get(1).and_then(|e| e.parse().ok());
        } else if f.len() >= 2 {
            let Ok(exec) = f[0].parse() else { continue };
            entries.push(Entry {
                exec,
                seconds: f[1].parse::<f64>().unwrap_or(0.0) / 1e6,
                bytes: crate::util::unhex(f.get(2).copied().unwrap_or("")).unwrap_or_default(),
            });
        }
    }
    (entries, end, at)
}

impl Tool for Fuzz {
    fn name(&self) -> String {
        self.name.clone()
    }

    fn prepare(&mut self, cx: &ProgramCtx) -> Result<()> {
        let tc = Toolchain::locate()?;
        let driver = Toolchain::driver()?;
        let dir = self.dir(cx);
        std::fs::create_dir_all(&dir)?;
        let harness_c = dir.join("harness.c");
        let h = cx
            .target
            .frontend
            .peer_harness(Peer::EvotestFuzz, self.encoding)
            .ok_or_else(|| anyhow!("this target has no libFuzzer harness"))?;
        std::fs::write(&harness_c, h)?;
        let exe = dir.join("fuzzer");
        // what `evotest-cc -O1 -g -fsanitize=fuzzer harness.c sources… -lm -o fuzzer` runs
        let mut args: Vec<OsString> = vec![
            "-O1".into(),
            "-g".into(),
            "-fsanitize=fuzzer".into(),
            harness_c.into_os_string(),
        ];
        args.extend(
            cx.options
                .target
                .sources
                .iter()
                .map(|s| s.clone().into_os_string()),
        );
        args.extend(cx.options.target.cflags.iter().map(OsString::from));
        args.extend(cx.options.target.ldflags.iter().map(OsString::from));
        // the C math library, as the peers' builds get it (the wrappers add no library the
        // user's code could resolve symbols from)
        args.extend(["-lm".into(), "-o".into(), exe.clone().into_os_string()]);
        let plan = crate::wrapper::plan(&args, &tc.pass, &tc.runtime, Some(&driver));
        let mut c = tc.clang();
        c.args(&plan.args);
        run_tool(c, "building the evotest fuzz harness")?;
        self.exe = Some(exe);
        Ok(())
    }

    fn run(&mut self, cx: &mut ProgramCtx, spec: &RunSpec) -> Result<Observed> {
        let exe = self
            .exe
            .clone()
            .ok_or_else(|| anyhow!("{} not prepared", self.name))?;
        let rd = self.dir(cx).join(format!("run{}", spec.run));
        fresh_dir(&rd)?;
        let corpus = rd.join("corpus");
        let seeds = rd.join("seeds");
        write_seed(&seeds, cx, spec, self.encoding)?;
        let log = rd.join("new.log");
        let secs = spec.max_time.as_secs_f64().max(0.001);
        // with an execution cap the run gets no time limit of its own, so that its directed
        // stages' credit counts executions only and the run is reproducible; the time cap is
        // then kept here, by stopping it as Ctrl-C would
        let by_execs = spec.max_execs != u64::MAX;
        let mut cmd = Command::new(evotest_exe()?);
        cmd.arg("fuzz")
            .arg(&exe)
            .arg(&corpus)
            .arg(&seeds)
            .arg(format!("--seed={}", spec.seed + 1))
            .arg(format!(
                "--max_len={}",
                mapped::input_len(cx.target.frontend.domain(), self.encoding).max(1)
            ))
            .arg(format!(
                "--timeout={}",
                spec.timeout.as_secs_f64().max(0.001)
            ))
            .arg(format!("--guidance={}", self.guidance))
            .arg("--new_coverage_log")
            .arg(&log)
            .arg(format!("--artifact_prefix={}/", rd.display()))
            .arg("-q")
            .current_dir(&rd)
            .stdin(Stdio::null())
            .stdout(Stdio::null())
            .stderr(std::fs::File::create(rd.join("fuzz.log"))?);
        if by_execs {
            cmd.arg(format!("--runs={}", spec.max_execs));
        } else {
            cmd.arg(format!("--max_total_time={secs}"));
        }
        let t0 = Instant::now();
        let mut child = cmd.spawn().context("cannot start evotest fuzz")?;
        let mut first = vec![None; cx.goals.len()];
        let mut inputs = Vec::new();
        let (mut read, mut end, mut last_exec) = (0, None, 0);
        let deadline = t0
            + spec.max_time
            + if by_execs {
                Duration::ZERO
            } else {
                Duration::from_secs(30)
            };
        let mut stopping: Option<Instant> = None;
        let status = loop {
            let exited = child.try_wait()?;
            let text = std::fs::read(&log).unwrap_or_default();
            let (entries, e, next) = parse_log(&text, read);
            read = next;
            end = end.or(e);
            last_exec = entries.last().map_or(last_exec, |x| x.exec);
            replay(cx, self.encoding, &entries, &mut first, &mut inputs)?;
            if let Some(st) = exited {
                break st;
            }
            let full = first.iter().filter(|f| f.is_some()).count() >= cx.program.feasible;
            match stopping {
                None if full || Instant::now() > deadline => {
                    // as Ctrl-C: evotest fuzz finishes (and writes the log's end line)
                    unsafe { libc::kill(child.id() as i32, libc::SIGINT) };
                    stopping = Some(Instant::now());
                }
                Some(t) if t.elapsed() > Duration::from_secs(20) => {
                    let _ = child.kill();
                }
                _ => {}
            }
            std::thread::sleep(Duration::from_millis(50));
        };
        let elapsed = t0.elapsed().as_secs_f64();
        let note = (!status.success() && stopping.is_none()).then(|| {
            format!(
                "evotest fuzz ended with {status}; see {}",
                rd.join("fuzz.log").display()
            )
        });
        if end.is_none() && !status.success() && stopping.is_none() {
            bail!(
                "evotest fuzz failed ({status}): see {}",
                rd.join("fuzz.log").display()
            );
        }
        Ok(Observed {
            first,
            executions: end.unwrap_or(last_exec),
            seconds: elapsed,
            note,
            inputs,
            evaluations: 0,
            sequences: 0,
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn log_lines_parse_incrementally() {
        let text = b"1 10 00ff\n5 20 \nend 9 30\n";
        let (e, end, at) = parse_log(&text[..12], 0);
        assert_eq!((e.len(), end, at), (1, None, 10));
        assert_eq!((e[0].exec, e[0].bytes.clone()), (1, vec![0, 255]));
        let (e, end, at) = parse_log(text, at);
        assert_eq!(e.len(), 1);
        assert_eq!((e[0].exec, e[0].seconds, e[0].bytes.len()), (5, 20e-6, 0));
        assert_eq!((end, at), (Some(9), text.len()));
        // a read that returned less than was read before (an empty one): nothing, and no panic
        let (e, end, again) = parse_log(b"", at);
        assert_eq!((e.len(), end, again), (0, None, at));
    }

    #[test]
    fn tool_names() {
        assert_eq!(
            Fuzz::by_name("fuzz+i2s", PeerEncoding::Bytes)
                .unwrap()
                .guidance,
            "i2s"
        );
        assert_eq!(
            Fuzz::by_name("fuzz+noguide", PeerEncoding::Bytes)
                .unwrap()
                .guidance,
            "off"
        );
        assert!(Fuzz::by_name("fuzz+x", PeerEncoding::Bytes).is_none());
    }
}
