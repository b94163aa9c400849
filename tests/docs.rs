//! The documented examples work: every `evotest` command shown in `--help` texts and in the
//! README is run (with its output directed to a temporary directory), and must succeed. Commands
//! written as templates (`FILE.c`, `NAME`, `…`) are skipped; `run` and `path` get a budget of
//! 2,000 executions and `fuzz` 2 s (what is checked is that the example is valid, not how far it
//! gets); benchmark commands, which take minutes to hours, are checked by the argument parser
//! only. The README's commands, `evotest-cc`/`evotest-c++` lines included, run in order in one
//! working directory in which `examples/` and `tests/` are the repository's, so that a command
//! can use what an earlier one built.

mod common;

use common::*;

/// Split a shell command line into words (single and double quotes; no expansions).
fn shell_words(line: &str) -> Vec<String> {
    let mut words = Vec::new();
    let mut cur = String::new();
    let mut quote: Option<char> = None;
    let mut any = false;
    for c in line.chars() {
        match (quote, c) {
            (Some(q), c) if c == q => quote = None,
            (Some(_), c) => cur.push(c),
            (None, '\'' | '"') => {
                quote = Some(c);
                any = true;
            }
            (None, c) if c.is_whitespace() => {
                if any || !cur.is_empty() {
                    words.push(std::mem::take(&mut cur));
                }
                any = false;
            }
            (None, c) => cur.push(c),
        }
    }
    if any || !cur.is_empty() {
        words.push(cur);
    }
    words
}

/// `evotest …` commands in `text`: lines (joined across trailing backslashes) that start with
/// `evotest ` or `$ evotest `, without trailing comments; in help texts (`help`) only the indented
/// example lines, in Markdown only lines inside code blocks.
fn commands(text: &str, help: bool) -> Vec<String> {
    let mut out = Vec::new();
    let mut lines = text.lines().peekable();
    let mut in_code = false;
    while let Some(l) = lines.next() {
        if l.trim_start().starts_with("```") {
            in_code = !in_code;
            continue;
        }
        if (help && !l.starts_with("  evotest ")) || (!help && !in_code) {
            continue;
        }
        let t = l.trim().trim_start_matches("$ ");
        if !["evotest ", "evotest-cc ", "evotest-c++ "]
            .iter()
            .any(|p| t.starts_with(p))
        {
            continue;
        }
        // output shown after a command (`evotest fuzz: 780827 executions …`) is not a command
        if t.split_whitespace().take(2).any(|w| w.ends_with(':')) {
            continue;
        }
        let mut cmd = t.to_string();
        while cmd.ends_with('\\') {
            cmd.pop();
            match lines.next() {
                Some(n) => cmd.push_str(n.trim()),
                None => break,
            }
        }
        let cmd = match cmd.find(" #") {
            Some(i) => cmd[..i].to_string(),
            None => cmd,
        };
        out.push(cmd.trim().to_string());
    }
    out
}

fn is_template(cmd: &str) -> bool {
    [
        "FILE",
        "NAME",
        "SPEC",
        "prog.c",
        "[options]",
        "…",
        "...",
        "<",
        "DIR",
    ]
    .iter()
    .any(|p| cmd.contains(p))
}

/// A working directory for documented commands: `examples/` and `tests/` link to the
/// repository's.
fn workdir() -> tempfile::TempDir {
    let dir = tempfile::tempdir().unwrap();
    for d in ["examples", "tests"] {
        std::os::unix::fs::symlink(path(d), dir.path().join(d)).unwrap();
    }
    dir
}

/// Run `cmd` (documented text) in `cwd`, with the outputs of `run` and `path` in a temporary
/// directory.
fn run_documented(cmd: &str, source: &str, cwd: &std::path::Path) {
    let words = shell_words(cmd);
    let mut args: Vec<String> = words[1..].to_vec();
    let mut c = match words[0].as_str() {
        "evotest" => evotest(),
        "evotest-cc" => std::process::Command::new(env!("CARGO_BIN_EXE_evotest-cc")),
        "evotest-c++" => std::process::Command::new(env!("CARGO_BIN_EXE_evotest-cxx")),
        w => panic!("not an evotest command: {w}"),
    };
    let sub = if words[0] == "evotest" {
        words.get(1).map(String::as_str).unwrap_or("")
    } else {
        ""
    };
    let dir = tempfile::tempdir().unwrap();
    match sub {
        "fuzz" => {
            args.retain(|a| !a.trim_start_matches('-').starts_with("max_total_time"));
            args.push("-max_total_time=2".into());
        }
        "bench" | "bench-paths" => args.push("--help".into()),
        "run" | "path" => {
            if let Some(i) = args.iter().position(|a| a == "--out" || a == "-o") {
                args.remove(i);
                args.remove(i);
            }
            args.push("--out".into());
            args.push(dir.path().display().to_string());
            // what is checked is that the example is valid; a small budget keeps the test short
            match args.iter().position(|a| a == "--max-execs") {
                Some(i) => args[i + 1] = "2000".into(),
                None => args.extend(["--max-execs".into(), "2000".into()]),
            }
        }
        _ => {}
    }
    let o = c.args(&args).current_dir(cwd).output().unwrap();
    // `evotest fuzz` exits 1 when it found a new crash, which a documented example may do
    let found_crash = sub == "fuzz"
        && o.status.code() == Some(1)
        && String::from_utf8_lossy(&o.stderr).contains("unique crash");
    assert!(
        o.status.success() || found_crash,
        "documented command failed ({source}): {cmd}\n{}{}",
        String::from_utf8_lossy(&o.stdout),
        String::from_utf8_lossy(&o.stderr)
    );
}

#[test]
fn the_commands_in_the_help_texts_work() {
    let cwd = workdir();
    let mut n = 0;
    for help in [
        vec!["--help"],
        vec!["run", "--help"],
        vec!["path", "--help"],
        vec!["sites", "--help"],
    ] {
        let o = evotest().args(&help).output().unwrap();
        let text = String::from_utf8_lossy(&o.stdout).to_string();
        for cmd in commands(&text, true) {
            if is_template(&cmd) {
                continue;
            }
            run_documented(&cmd, &format!("evotest {}", help.join(" ")), cwd.path());
            n += 1;
        }
    }
    assert!(n >= 5, "only {n} commands found in the help texts");
}

#[test]
fn the_commands_in_the_readme_work() {
    let text = std::fs::read_to_string(path("README.md")).unwrap();
    let cwd = workdir();
    let mut n = 0;
    for cmd in commands(&text, false) {
        if is_template(&cmd) {
            continue;
        }
        run_documented(&cmd, "README.md", cwd.path());
        n += 1;
    }
    assert!(n >= 2, "only {n} commands found in the README");
}

#[test]
fn the_command_extraction_reads_continuations_and_quotes() {
    let c = commands("x\n```\n$ evotest path a.c --path '1:true 2:false' \\\n   --max-execs 5   # note\n```\nevotest is prose\n", false);
    assert_eq!(
        c,
        vec!["evotest path a.c --path '1:true 2:false' --max-execs 5"]
    );
    assert_eq!(
        shell_words(&c[0])[3..5],
        ["--path".to_string(), "1:true 2:false".to_string()]
    );
}
