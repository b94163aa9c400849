//! The `evotest` binary: see `evotest --help`.

fn main() {
    raise_open_file_limit();
    // past a file-size limit (`ulimit -f`), a write of evotest's fails with an error it reports
    // (EFBIG) instead of killing it with no word; targets get the default back (see
    // `exec::forkserver::confine_target`)
    unsafe { libc::signal(libc::SIGXFSZ, libc::SIG_IGN) };
    let code = match evotest::cli::main() {
        Ok(code) => code,
        Err(e) => {
            // One line, whatever the error: context chain joined by ": ".
            let msg = format!("{e:#}").replace('\n', " ");
            eprintln!("error: {msg}");
            2
        }
    };
    std::process::exit(code);
}

/// A soft limit of open files below 1,024 (up to the hard limit), as AFL++ raises it: the fork
/// server's descriptors are 198 and 199, so that under `ulimit -Sn 128` no target could start
/// ("Bad file descriptor").
fn raise_open_file_limit() {
    let mut rl = libc::rlimit {
        rlim_cur: 0,
        rlim_max: 0,
    };
    unsafe {
        if libc::getrlimit(libc::RLIMIT_NOFILE, &mut rl) == 0 && rl.rlim_cur < 1024 {
            rl.rlim_cur = rl.rlim_max.min(1024);
            libc::setrlimit(libc::RLIMIT_NOFILE, &rl);
        }
    }
}
