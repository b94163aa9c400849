//! The `evotest` binary: see `evotest --help`.

fn main() {
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
