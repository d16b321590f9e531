//! The `perflab` binary: parses arguments, calls [`perflab_cli::run`], maps
//! errors to exit codes.
#![warn(unreachable_pub)]

use clap::Parser;

fn main() {
    let cli = perflab_cli::cli::Cli::parse();
    let code = match perflab_cli::run(cli) {
        Ok(code) => code,
        Err(error) => {
            eprintln!("perflab: error: {error}");
            error.exit_code()
        }
    };
    std::process::exit(code);
}
