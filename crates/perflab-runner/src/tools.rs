//! Finding the external programs perflab drives (perf, valgrind, setarch),
//! and saying how to install the ones that are missing.

use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};

use crate::error::{Error, Result};

/// How to install `perf`.
pub const PERF_INSTALL: &str = "install it: on Debian `apt-get install linux-perf`, on Ubuntu \
`apt-get install linux-tools-common linux-tools-$(uname -r)`, on Fedora `dnf install perf` \
(perflab's scripts/install-test-deps.sh installs it for the tests)";

/// How to install valgrind.
pub(crate) const VALGRIND_INSTALL: &str = "install it: on Debian or Ubuntu `apt-get install valgrind`, \
on Fedora `dnf install valgrind` (perflab's scripts/install-test-deps.sh installs it for the tests)";

/// How to install setarch.
pub(crate) const SETARCH_INSTALL: &str =
    "it is part of util-linux: on Debian or Ubuntu `apt-get install util-linux`";

/// The first executable file called `name` on `PATH`.
pub fn find_on_path(name: &str) -> Option<PathBuf> {
    let path = std::env::var_os("PATH")?;
    std::env::split_paths(&path)
        .map(|dir| dir.join(name))
        .find(|candidate| is_executable(candidate))
}

/// True for an existing regular file with an execute bit.
pub(crate) fn is_executable(path: &Path) -> bool {
    use std::os::unix::fs::PermissionsExt;
    std::fs::metadata(path).is_ok_and(|m| m.is_file() && m.permissions().mode() & 0o111 != 0)
}

/// Finds `name` on `PATH` and checks that `name --version` runs; the error
/// says how to install it.
pub fn require(name: &str, install: &str) -> Result<PathBuf> {
    let Some(path) = find_on_path(name) else {
        return Err(Error::Tool {
            tool: name.to_string(),
            message: format!("is not installed (not found on PATH); {install}"),
        });
    };
    let output = Command::new(&path)
        .arg("--version")
        .stdin(Stdio::null())
        .output();
    match output {
        Ok(o) if o.status.success() => Ok(path),
        Ok(o) => {
            let said = String::from_utf8_lossy(&o.stderr).trim().to_string();
            Err(Error::Tool {
                tool: name.to_string(),
                message: format!(
                    "is on PATH ({}) but does not run: {said}\nIt may be built for another kernel; {install}",
                    path.display()
                ),
            })
        }
        Err(e) => Err(Error::Tool {
            tool: name.to_string(),
            message: format!("{} could not be started: {e}; {install}", path.display()),
        }),
    }
}

/// The program a command line starts, resolved like the shell would, or an
/// error naming the command when it does not exist.
pub fn resolve_program(program: &str, cwd: Option<&Path>) -> Result<PathBuf> {
    let not_found = |why: &str| Error::Run {
        run: format!("command '{program}'"),
        message: format!("{why}; check the spelling and PATH, or give a path like ./prog"),
    };
    if program.contains('/') {
        let path = match cwd {
            Some(dir) if Path::new(program).is_relative() => dir.join(program),
            _ => PathBuf::from(program),
        };
        if !path.exists() {
            return Err(not_found("the program does not exist"));
        }
        if !is_executable(&path) {
            return Err(Error::Run {
                run: format!("command '{program}'"),
                message:
                    "the program is not executable; chmod +x it or run it through an interpreter"
                        .into(),
            });
        }
        return Ok(path);
    }
    find_on_path(program).ok_or_else(|| not_found("the program was not found on PATH"))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_missing_tool_says_how_to_install_it() {
        let err = require("perflab-no-such-tool", PERF_INSTALL).unwrap_err();
        assert!(matches!(err, Error::Tool { .. }), "{err:?}");
        assert!(
            err.to_string().contains("apt-get install linux-perf"),
            "{err}"
        );
    }

    #[test]
    fn a_missing_program_is_named() {
        let err = resolve_program("./no-such-program", None).unwrap_err();
        assert!(err.to_string().contains("'./no-such-program'"), "{err}");
        assert!(resolve_program("sh", None).is_ok());
    }
}
