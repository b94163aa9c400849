//! The documented examples work: every `evotest` command shown in `--help` texts and in the
//! README is run (with its output directed to a temporary directory), and must succeed. Commands
//! written as templates (`FILE.c`, `NAME`, `…`) are skipped; `run` and `path` get a budget of
//! 2,000 executions (what is checked is that the example is valid, not how far it gets);
//! benchmark commands, which take minutes to hours, are checked by the argument parser only.

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
        if !t.starts_with("evotest ") {
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
    ["FILE", "NAME", "SPEC", "prog.c", "[options]", "…", "...", "<", "DIR"].iter().any(|p| cmd.contains(p))
}

/// Run `cmd` (documented text) with its outputs in a temporary directory.
fn run_documented(cmd: &str, source: &str) {
    let words = shell_words(cmd);
    assert_eq!(words[0], "evotest");
    let sub = words.get(1).map(String::as_str).unwrap_or("");
    let mut args: Vec<String> = words[1..].to_vec();
    let dir = tempfile::tempdir().unwrap();
    match sub {
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
    let o = evotest().args(&args).output().unwrap();
    assert!(
        o.status.success(),
        "documented command failed ({source}): {cmd}\n{}{}",
        String::from_utf8_lossy(&o.stdout),
        String::from_utf8_lossy(&o.stderr)
    );
}

#[test]
fn the_commands_in_the_help_texts_work() {
    let mut n = 0;
    for help in [vec!["--help"], vec!["run", "--help"], vec!["path", "--help"], vec!["sites", "--help"]] {
        let o = evotest().args(&help).output().unwrap();
        let text = String::from_utf8_lossy(&o.stdout).to_string();
        for cmd in commands(&text, true) {
            if is_template(&cmd) {
                continue;
            }
            run_documented(&cmd, &format!("evotest {}", help.join(" ")));
            n += 1;
        }
    }
    assert!(n >= 5, "only {n} commands found in the help texts");
}

#[test]
fn the_commands_in_the_readme_work() {
    let text = std::fs::read_to_string(path("README.md")).unwrap();
    let mut n = 0;
    for cmd in commands(&text, false) {
        if is_template(&cmd) {
            continue;
        }
        run_documented(&cmd, "README.md");
        n += 1;
    }
    assert!(n >= 2, "only {n} commands found in the README");
}

#[test]
fn the_command_extraction_reads_continuations_and_quotes() {
    let c = commands("x\n```\n$ evotest path a.c --path '1:true 2:false' \\\n   --max-execs 5   # note\n```\nevotest is prose\n", false);
    assert_eq!(c, vec!["evotest path a.c --path '1:true 2:false' --max-execs 5"]);
    assert_eq!(shell_words(&c[0])[3..5], ["--path".to_string(), "1:true 2:false".to_string()]);
}
