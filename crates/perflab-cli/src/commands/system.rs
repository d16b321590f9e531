//! `perflab system show | tune | reset`: the machine's settings that help
//! or hurt measurements ([`crate::system`]).

use crate::cli::{SystemAction, SystemArgs, SystemCheckArgs};
use crate::error::{EXIT_FAILURE, EXIT_OK, Error, Result, to_json_pretty};
use crate::machine::pressure::DEFAULT_QUIET_PRESSURE;
use crate::system::quiet_check::{DEFAULT_MAX_LOAD_PER_CPU, wait_for_quiet};
use crate::system::{show, tune};
use perflab_report::units::{parse_duration, parse_percent};

/// `perflab system`.
pub fn system(args: &SystemArgs) -> Result<i32> {
    match &args.action {
        SystemAction::Show(show_args) => {
            let doc = show::system_document();
            print!("{}", show::render(&doc));
            if let Some(path) = &show_args.json {
                let mut text = to_json_pretty("the system document", &doc)?;
                text.push('\n');
                perflab_report::write_text(path, &text)?;
            }
        }
        SystemAction::Tune => {
            for line in tune::tune()? {
                println!("{line}");
            }
        }
        SystemAction::Reset => {
            for line in tune::reset()? {
                println!("{line}");
            }
        }
        SystemAction::Check(check_args) => return check(check_args),
    }
    Ok(EXIT_OK)
}

/// `perflab system check`: 0 when the machine is quiet, 1 when it is busy.
fn check(args: &SystemCheckArgs) -> Result<i32> {
    let max_load = args.max_load.unwrap_or(DEFAULT_MAX_LOAD_PER_CPU);
    if !(max_load.is_finite() && max_load > 0.0) {
        return Err(Error::usage(
            "--max-load",
            format!("{max_load} is not a load above 0; write e.g. --max-load 0.5"),
        ));
    }
    let max_pressure = match &args.max_pressure {
        Some(text) => parse_percent(text)
            .ok()
            .filter(|p| *p > 0.0 && *p <= 1.0)
            .ok_or_else(|| {
                Error::usage(
                    "--max-pressure",
                    format!("'{text}' is not a share above 0% and at most 100%; write e.g. --max-pressure 5%"),
                )
            })?,
        None => DEFAULT_QUIET_PRESSURE,
    };
    let wait = match &args.wait {
        Some(text) => parse_duration(text).map_err(|m| Error::usage("--wait", m))?,
        None => std::time::Duration::ZERO,
    };
    let found = wait_for_quiet(max_load, max_pressure, wait, &mut |c| {
        eprintln!("waiting for a quiet machine: {}", c.line());
    })
    .ok_or_else(|| Error::Io {
        path: "/proc/loadavg".into(),
        source: std::io::Error::other("the load average could not be read"),
    })?;
    println!("{}", found.line());
    Ok(if found.is_quiet() {
        EXIT_OK
    } else {
        EXIT_FAILURE
    })
}
