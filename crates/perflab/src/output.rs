//! Writing a profile or a trace to a file, so that a reader never sees half of one.

use std::io::Write;
use std::path::Path;

use perflab_format::profile::Profile;

/// Writes `profile` as JSON to `path`.
///
/// A regular file (or a new one) is written beside the target and renamed
/// over it, so a reader never sees half a profile. Anything else (a pipe, a
/// device) is written in place: renaming over it would replace it.
pub fn write_profile(path: &Path, profile: &Profile) -> std::io::Result<()> {
    let mut text = profile.to_json_pretty()?;
    text.push('\n');
    write_whole(path, &text)
}

/// Writes a trace as compact JSON to `path`, as [`write_profile`] writes a profile.
#[cfg(feature = "enabled")]
pub(crate) fn write_trace(
    path: &Path,
    trace: &perflab_format::trace::TraceDocument,
) -> std::io::Result<()> {
    let mut text = trace.to_json()?;
    text.push('\n');
    write_whole(path, &text)
}

fn write_whole(path: &Path, text: &str) -> std::io::Result<()> {
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
