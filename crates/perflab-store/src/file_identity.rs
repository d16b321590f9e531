//! Noticing a store file deleted or replaced while a command writes to it.
//!
//! SQLite keeps writing to the file it opened, also after `rm` took its
//! name away: without a check, every run measured since would go into a
//! file nobody can open again. The store remembers which file it opened
//! (device and inode); when an experiment finishes and the path no longer
//! leads to that file, the open database, which still holds every run, is
//! written out again (`VACUUM INTO`, a consistent copy) and the command
//! says where.

use std::os::unix::fs::MetadataExt;
use std::path::{Path, PathBuf};

use crate::Store;
use crate::backend::Backend;
use crate::error::{Error, Result};

/// The file a store was opened on.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct FileIdentity {
    device: u64,
    inode: u64,
}

impl FileIdentity {
    /// The identity of the file at `path`, if there is one.
    pub(crate) fn of(path: &Path) -> Option<Self> {
        let meta = std::fs::metadata(path).ok()?;
        Some(FileIdentity {
            device: meta.dev(),
            inode: meta.ino(),
        })
    }
}

impl Store {
    /// When the store's path no longer leads to the file it opened, writes
    /// the open database out again, at the path if it is free, or beside
    /// it if another file took its place, and keeps a notice saying so.
    pub(crate) fn write_back_if_deleted(&self) -> Result<()> {
        let (Some(opened), Backend::Sqlite(_)) = (self.file, &self.db) else {
            return Ok(());
        };
        if FileIdentity::of(&self.path) == Some(opened) {
            return Ok(());
        }
        let taken = self.path.exists();
        let target = if taken {
            recovered_path(&self.path)
        } else {
            self.path.clone()
        };
        // Written beside the target first, then renamed: a reader never
        // sees half a store. The log files left by the deleted store are
        // removed, as they would otherwise be replayed onto the new file.
        let partial = with_suffix(&target, ".writing");
        let _ = std::fs::remove_file(&partial);
        let quoted = partial.to_string_lossy().replace('\'', "''");
        self.db
            .batch(&format!("VACUUM INTO '{quoted}'"))
            .map_err(|e| self.err(e))?;
        if !taken {
            for log in ["-wal", "-shm"] {
                let _ = std::fs::remove_file(with_suffix(&self.path, log));
            }
        }
        std::fs::rename(&partial, &target).map_err(|source| Error::Io {
            path: target.clone(),
            source,
        })?;
        let notice = if taken {
            format!(
                "the store {} was replaced by another file while this command wrote to it; \
                 everything this command could still see, its runs included, is in {} \
                 (copy it back with `perflab pull --from {}`)",
                self.path.display(),
                target.display(),
                target.display()
            )
        } else {
            format!(
                "the store {} was deleted while this command wrote to it; it was written \
                 back from the copy this command still had open, with every run it measured",
                self.path.display()
            )
        };
        self.notices
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner)
            .push(notice);
        Ok(())
    }
}

/// `path` with `suffix` added to its file name.
fn with_suffix(path: &Path, suffix: &str) -> PathBuf {
    let mut name = path.as_os_str().to_owned();
    name.push(suffix);
    PathBuf::from(name)
}

/// A free name beside `path` for a store written back: `NAME.recovered`,
/// then `NAME.recovered-2` and so on.
fn recovered_path(path: &Path) -> PathBuf {
    (1..)
        .map(|n| match n {
            1 => with_suffix(path, ".recovered"),
            n => with_suffix(path, &format!(".recovered-{n}")),
        })
        .find(|p| !p.exists())
        .expect("some name is free")
}
