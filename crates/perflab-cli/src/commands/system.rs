//! `perflab system show | tune | reset`: the machine's settings that help
//! or hurt measurements ([`crate::system`]).

use crate::cli::{SystemAction, SystemArgs};
use crate::error::{EXIT_OK, Result, to_json_pretty};
use crate::system::{show, tune};

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
    }
    Ok(EXIT_OK)
}
