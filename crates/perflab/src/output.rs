//! Where a finished session goes: the table to stderr, the profile to a file.
//!
//! Nothing here may take the program down. Every failure is one message on
//! stderr that names the path and the fix, and the program carries on.

use std::io::Write;
use std::path::Path;

use perflab_format::profile::Profile;

/// Prints and writes a finished session's profile as its configuration says.
#[cfg(feature = "enabled")]
pub(crate) fn emit(profile: &Profile, config: &crate::registry::SessionConfig) {
    if config.print_table {
        let table = crate::session_table::render_table(profile);
        // One write, so that the table is not interleaved with other output.
        let _ = std::io::stderr().lock().write_all(table.as_bytes());
    }
    if let Some(path) = &config.profile_path {
        if let Err(error) = write_profile(path, profile) {
            eprintln!(
                "perflab: could not write the profile to {}: {error}. The program carries on without it; point {} at a writable file whose directory exists.",
                path.display(),
                perflab_format::profile::PROFILE_ENV,
            );
        }
    }
}

/// Writes `profile` as JSON to `path`.
///
/// A regular file (or a new one) is written beside the target and renamed
/// over it, so a reader never sees half a profile. Anything else (a pipe, a
/// device) is written in place: renaming over it would replace it.
pub fn write_profile(path: &Path, profile: &Profile) -> std::io::Result<()> {
    let mut text = profile.to_json_pretty()?;
    text.push('\n');
    let regular_or_new = match std::fs::metadata(path) {
        Ok(metadata) => metadata.is_file(),
        Err(_) => true,
    };
    if !regular_or_new {
        return std::fs::write(path, text.as_bytes());
    }
    let file_name = path
        .file_name()
        .map(|name| name.to_string_lossy().into_owned())
        .unwrap_or_default();
    // Unique per write: several sessions of one process may write at once.
    static WRITES: std::sync::atomic::AtomicU64 = std::sync::atomic::AtomicU64::new(0);
    let write = WRITES.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
    let temporary = path.with_file_name(format!(".{file_name}.{}-{write}.tmp", std::process::id()));
    let written = std::fs::File::create(&temporary).and_then(|mut file| {
        file.write_all(text.as_bytes())?;
        file.sync_all()
    });
    let renamed = written.and_then(|()| std::fs::rename(&temporary, path));
    if renamed.is_err() {
        let _ = std::fs::remove_file(&temporary);
    }
    renamed
}
