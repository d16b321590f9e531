//! `perflab store check` and `perflab store backup`: looking after the
//! store file.

use perflab_store::{Location, Store};

use crate::cli::StoreBackupArgs;
use crate::error::{EXIT_FAILURE, EXIT_OK, Result};

/// `perflab store check`: exit 0 for a sound store, 1 with what is wrong
/// and what to do for a damaged one.
pub fn store_check(location: &Location) -> Result<i32> {
    let report = perflab_store::check_file(location, "--store")?;
    let counts = report.counts.map_or(String::new(), |(experiments, runs)| {
        format!(" ({experiments} experiments, {runs} runs)")
    });
    if report.problems.is_empty() {
        println!("{location}: sound{counts}");
        return Ok(EXIT_OK);
    }
    println!("{location}: damaged{counts}; SQLite's integrity check found:");
    // SQLite may give several findings in one row, a line each.
    for line in report.problems.iter().flat_map(|p| p.lines()) {
        println!("  {}", perflab_runner::escape_control(line));
    }
    println!(
        "`sqlite3 {location} .recover > recovered.sql` saves what can still be read (then \
         `sqlite3 new.db < recovered.sql` and `perflab pull --from new.db` into a new store); \
         keep {location} as it is until then."
    );
    Ok(EXIT_FAILURE)
}

/// `perflab store backup PATH`.
pub fn store_backup(args: &StoreBackupArgs, store: &Store) -> Result<i32> {
    store.backup_to(&args.path, "PATH")?;
    println!(
        "{}: a consistent copy of {}",
        args.path.display(),
        store.path().display()
    );
    Ok(EXIT_OK)
}
