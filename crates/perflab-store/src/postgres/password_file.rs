//! libpq's password file (`~/.pgpass`, or the file `PGPASSFILE` or the
//! URL's `passfile` names), read by libpq's rules so that a file written
//! for `psql` gives perflab the same password.
//!
//! Each line is `hostname:port:database:username:password`. A field `*`
//! matches anything; `\:` and `\\` stand for `:` and `\` (a backslash
//! before any other character stands for that character); the first line
//! whose four fields match gives the password. Empty lines and lines
//! beginning with `#` are skipped. The file is ignored, with a warning,
//! when it is not a plain file or when its group or others may read, write
//! or run it (it must be `chmod 0600`), as libpq ignores it; a missing file
//! is no error.
//!
//! Written here rather than taken from a crate: the Rust parsers of this
//! file that exist are a single release of a crate with no other user
//! (`postgres_secrets`) or part of a proxy (`halephant-core`), and neither
//! applies libpq's permission rule; libpq's own rules fit in this file.

use std::os::unix::fs::PermissionsExt;
use std::path::{Path, PathBuf};

/// What a password file gave for one connection.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum PasswordLookup {
    /// A line matched: its password and its line number (from 1).
    Found {
        /// The password.
        password: String,
        /// The line it is on.
        line: usize,
    },
    /// The file was read, and no line matched.
    NoMatch,
    /// There is no file there.
    Missing,
    /// The file was ignored; why, as libpq says it.
    Ignored(String),
}

/// The connection a password is looked up for: the four fields a line
/// matches.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct PasswordKey<'a> {
    /// The host name, `localhost` for a Unix socket in the default folder,
    /// or the socket's folder.
    pub hostname: &'a str,
    /// The port, as written (`5432`).
    pub port: &'a str,
    /// The database.
    pub database: &'a str,
    /// The user.
    pub username: &'a str,
}

/// The password for `key` in the file at `path`.
pub(crate) fn look_up(path: &Path, key: &PasswordKey<'_>) -> PasswordLookup {
    let metadata = match std::fs::metadata(path) {
        Ok(metadata) => metadata,
        Err(_) => return PasswordLookup::Missing,
    };
    if !metadata.is_file() {
        return PasswordLookup::Ignored(format!(
            "password file {} is not a plain file",
            path.display()
        ));
    }
    if metadata.permissions().mode() & 0o077 != 0 {
        return PasswordLookup::Ignored(format!(
            "password file {} has group or world access, so it is ignored; permissions should be \
             u=rw (0600) or less: `chmod 0600 {}`",
            path.display(),
            path.display()
        ));
    }
    match std::fs::read(path) {
        Ok(bytes) => find(&String::from_utf8_lossy(&bytes), key),
        Err(e) => PasswordLookup::Ignored(format!(
            "password file {} cannot be read: {e}",
            path.display()
        )),
    }
}

/// The password for `key` in the text of a password file.
fn find(text: &str, key: &PasswordKey<'_>) -> PasswordLookup {
    let wanted = [key.hostname, key.port, key.database, key.username];
    for (i, line) in text.lines().enumerate() {
        let line = line.trim_end_matches('\r');
        if line.is_empty() || line.starts_with('#') {
            continue;
        }
        let fields = split_fields(line);
        if fields.len() < 5 {
            continue;
        }
        let matches = fields
            .iter()
            .zip(wanted)
            .all(|(field, value)| field.is_wildcard || field.text == value);
        if matches {
            return PasswordLookup::Found {
                password: fields[4].text.clone(),
                line: i + 1,
            };
        }
    }
    PasswordLookup::NoMatch
}

/// A field of a line, unescaped.
struct Field {
    text: String,
    /// Written as a lone `*` (an escaped `\*` is a star to match).
    is_wildcard: bool,
}

/// The first five fields of `line`, split at unescaped colons; the fifth
/// (the password) ends at the next unescaped colon, as in libpq.
fn split_fields(line: &str) -> Vec<Field> {
    let mut fields = Vec::new();
    let mut text = String::new();
    let mut raw = String::new();
    let mut chars = line.chars();
    while let Some(c) = chars.next() {
        match c {
            '\\' => {
                raw.push(c);
                // A backslash at the end of the line stands for itself.
                let escaped = chars.next().unwrap_or('\\');
                raw.push(escaped);
                text.push(escaped);
            }
            ':' => {
                fields.push(Field {
                    is_wildcard: raw == "*",
                    text: std::mem::take(&mut text),
                });
                raw.clear();
                if fields.len() == 5 {
                    return fields;
                }
            }
            _ => {
                raw.push(c);
                text.push(c);
            }
        }
    }
    fields.push(Field {
        is_wildcard: raw == "*",
        text,
    });
    fields
}

/// The password file to read: `passfile` from the URL, else `PGPASSFILE`,
/// else `.pgpass` in the home folder.
pub(crate) fn path_of(
    from_url: Option<&str>,
    from_environment: Option<&str>,
    home: Option<&Path>,
) -> Option<PathBuf> {
    from_url
        .or(from_environment)
        .map(PathBuf::from)
        .or_else(|| home.map(|h| h.join(".pgpass")))
}

#[cfg(test)]
mod tests {
    use super::*;

    const KEY: PasswordKey<'static> = PasswordKey {
        hostname: "perf-db",
        port: "5432",
        database: "perflab",
        username: "ann",
    };

    fn password(text: &str, key: &PasswordKey<'_>) -> Option<(String, usize)> {
        match find(text, key) {
            PasswordLookup::Found { password, line } => Some((password, line)),
            _ => None,
        }
    }

    #[test]
    fn the_first_matching_line_gives_the_password() {
        let text = "# the shared store\n\
                    other-db:5432:perflab:ann:no\n\
                    perf-db:5432:perflab:ann:first\n\
                    perf-db:5432:perflab:ann:second\n";
        assert_eq!(password(text, &KEY), Some(("first".into(), 3)));
    }

    #[test]
    fn a_lone_star_matches_any_value_and_an_escaped_star_only_a_star() {
        assert_eq!(password("*:*:*:ann:any\n", &KEY), Some(("any".into(), 1)));
        assert_eq!(password("\\*:*:*:ann:star\n", &KEY), None);
        let star_host = PasswordKey {
            hostname: "*",
            ..KEY
        };
        assert_eq!(
            password("\\*:*:*:ann:star\n", &star_host),
            Some(("star".into(), 1))
        );
        // A star inside a field is a character like any other.
        assert_eq!(password("perf-*:*:*:ann:x\n", &KEY), None);
    }

    #[test]
    fn escaped_colons_and_backslashes_are_part_of_a_field() {
        let key = PasswordKey {
            hostname: "/run/a:b",
            database: "per\\flab",
            ..KEY
        };
        assert_eq!(
            password("/run/a\\:b:5432:per\\\\flab:ann:p\\:w\\\\d\n", &key),
            Some(("p:w\\d".into(), 1))
        );
        // The password ends at the next unescaped colon.
        assert_eq!(
            password("perf-db:5432:perflab:ann:secret:extra\n", &KEY),
            Some(("secret".into(), 1))
        );
    }

    #[test]
    fn short_lines_comments_and_carriage_returns_are_handled_as_libpq_does() {
        assert_eq!(password("perf-db:5432:perflab:ann\n", &KEY), None);
        assert_eq!(password("#perf-db:5432:perflab:ann:x\n", &KEY), None);
        assert_eq!(
            password("\r\nperf-db:5432:perflab:ann:dos\r\n", &KEY),
            Some(("dos".into(), 2))
        );
        assert_eq!(
            password("perf-db:5432:perflab:ann:\n", &KEY),
            Some((String::new(), 1))
        );
    }

    #[test]
    fn a_file_others_may_read_is_ignored_with_the_command_that_fixes_it() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("pgpass");
        std::fs::write(&path, "*:*:*:*:secret\n").unwrap();
        std::fs::set_permissions(&path, std::fs::Permissions::from_mode(0o644)).unwrap();
        match look_up(&path, &KEY) {
            PasswordLookup::Ignored(why) => {
                assert!(why.contains("group or world access"), "{why}");
                assert!(
                    why.contains(&format!("chmod 0600 {}", path.display())),
                    "{why}"
                );
            }
            other => panic!("{other:?}"),
        }
        std::fs::set_permissions(&path, std::fs::Permissions::from_mode(0o600)).unwrap();
        assert_eq!(
            look_up(&path, &KEY),
            PasswordLookup::Found {
                password: "secret".into(),
                line: 1
            }
        );
        assert_eq!(
            look_up(&dir.path().join("none"), &KEY),
            PasswordLookup::Missing
        );
        assert!(matches!(
            look_up(dir.path(), &KEY),
            PasswordLookup::Ignored(why) if why.contains("not a plain file")
        ));
    }

    #[test]
    fn passfile_in_the_url_wins_over_pgpassfile_which_wins_over_the_home_folder() {
        let home = Path::new("/home/ann");
        assert_eq!(
            path_of(Some("/u"), Some("/e"), Some(home)),
            Some(PathBuf::from("/u"))
        );
        assert_eq!(
            path_of(None, Some("/e"), Some(home)),
            Some(PathBuf::from("/e"))
        );
        assert_eq!(
            path_of(None, None, Some(home)),
            Some(PathBuf::from("/home/ann/.pgpass"))
        );
        assert_eq!(path_of(None, None, None), None);
    }
}
