//! The experiments measured into the spool while the store's server was
//! lost (see perflab-store's `spool`): moved into the store by the next
//! command that writes to it, and mentioned by one that only reads it.

use perflab_store::Store;

/// Before a command: moves the store's waiting spool into it, or, for a
/// command that only reads the store, says that one waits. Each says so in
/// one line; a move that fails leaves the spool for the next command and
/// does not stop this one.
pub fn move_spool(store: &Store, only_reads: bool) {
    if only_reads {
        if let Some(spool) = store.waiting_spool() {
            eprintln!(
                "perflab: note: {} holds experiments measured while the store {} was lost; \
                 the next command that writes to the store moves them there (or `perflab \
                 --store {} push --to URL`)",
                spool.display(),
                store.path().display(),
                spool.display()
            );
        }
        return;
    }
    let Some(moved) = store.move_spool() else {
        return;
    };
    let s = &moved.summary;
    let what = format!(
        "{} measured while the store was lost ({} copied, {} there already) from the spool {} \
         into {}",
        plural(s.experiments_copied + s.experiments_present, "experiment"),
        plural(s.runs_copied, "run"),
        s.runs_present,
        moved.spool.display(),
        store.path().display()
    );
    match &moved.kept {
        None => eprintln!("perflab: moved {what}; the spool is removed"),
        Some(why) => eprintln!(
            "perflab: warning: moved {what}, and kept the spool: {why}; the next command that \
             writes to the store moves the rest"
        ),
    }
}

fn plural(n: usize, what: &str) -> String {
    if n == 1 {
        format!("1 {what}")
    } else {
        format!("{n} {what}s")
    }
}
