//! The error for a run that could not be started, whichever process tried:
//! perflab itself, the one-shot `perflab-exec` or the fork server.

use crate::RunSpec;
use crate::error::Error;

/// The error for a run that could not be started, with the usual causes.
pub(crate) fn spawn_error(spec: &RunSpec, e: std::io::Error) -> Error {
    let what = spec.command.display();
    let message = match (e.kind(), &spec.cwd) {
        (std::io::ErrorKind::NotFound, Some(dir)) if !dir.is_dir() => {
            format!(
                "the working directory {} does not exist; fix --cwd or the experiment file's cwd",
                dir.display()
            )
        }
        (std::io::ErrorKind::NotFound, _) => {
            "the program was not found; check the spelling and PATH, or give a path like ./prog"
                .to_string()
        }
        (std::io::ErrorKind::PermissionDenied, _) => {
            "the program is not executable; chmod +x it or run it through an interpreter"
                .to_string()
        }
        _ => format!("it could not be started: {e}"),
    };
    Error::Run {
        run: format!("command '{what}'"),
        message,
    }
}
