//! The `perflab` binary: parses arguments, calls [`perflab_cli::run`], maps
//! errors to exit codes.
#![warn(unreachable_pub)]

use std::any::Any;
use std::panic::{self, PanicHookInfo};

use clap::Parser;

/// The exit code of a process ended by SIGPIPE, as a shell reports it.
const EXIT_CLOSED_STDOUT: i32 = 128 + libc::SIGPIPE;

fn main() {
    let cli = perflab_cli::cli::Cli::parse();
    // A closed stdout (`perflab history | head`) ends perflab as it ends
    // `cat`: quietly, with a SIGPIPE death's exit code. std's `print!`
    // panics there; the panic unwinds through the command, so the store
    // is closed and the runs' executor ended as on any error (the runs are
    // stored before the report is printed), and is then told apart here.
    let default_hook = panic::take_hook();
    panic::set_hook(Box::new(move |info: &PanicHookInfo<'_>| {
        if !is_closed_stdout(info.payload()) {
            default_hook(info);
        }
    }));
    let code = match panic::catch_unwind(|| perflab_cli::run(cli)) {
        Ok(Ok(code)) => code,
        Ok(Err(error)) => {
            eprintln!("perflab: error: {error}");
            error.exit_code()
        }
        Err(payload) if is_closed_stdout(payload.as_ref()) => EXIT_CLOSED_STDOUT,
        Err(payload) => panic::resume_unwind(payload),
    };
    std::process::exit(code);
}

/// Whether a panic is std's "failed printing to stdout" for a closed pipe
/// (EPIPE; its number, not its text, which follows the locale).
fn is_closed_stdout(payload: &(dyn Any + Send)) -> bool {
    let message = payload
        .downcast_ref::<String>()
        .map(String::as_str)
        .or_else(|| payload.downcast_ref::<&str>().copied())
        .unwrap_or_default();
    message.starts_with("failed printing to stdout")
        && message.ends_with(&format!("(os error {})", libc::EPIPE))
}
