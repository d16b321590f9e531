//! The locks part of the terminal table a session prints at its end.

use std::fmt::Write;

use perflab_format::profile::{LockMode, Profile};

use crate::duration_text::duration;

/// One line per lock and mode: acquisitions, how many waited, wait and hold.
pub(crate) fn locks_section(out: &mut String, profile: &Profile) {
    if profile.locks.is_empty() {
        return;
    }
    let label = |name: &str, mode: LockMode| match mode {
        LockMode::Exclusive => name.to_string(),
        LockMode::Shared => format!("{name} (read)"),
        LockMode::Other => format!("{name} (?)"),
    };
    let width = profile
        .locks
        .iter()
        .map(|lock| label(&lock.name, lock.mode).chars().count())
        .max()
        .unwrap_or(4)
        .max(4);
    let _ = writeln!(
        out,
        "{:<width$}  {:>9} {:>9} {:>9} {:>9} {:>9} {:>9} {:>9} {:>9}",
        "lock",
        "acquired",
        "waited",
        "wait",
        "wait p99",
        "wait max",
        "held",
        "hold p50",
        "hold p99"
    );
    for lock in &profile.locks {
        let _ = writeln!(
            out,
            "{:<width$}  {:>9} {:>9} {:>9} {:>9} {:>9} {:>9} {:>9} {:>9}",
            label(&lock.name, lock.mode),
            lock.acquisitions,
            lock.contended,
            duration(lock.wait_ns as f64),
            duration(lock.wait_p99_ns as f64),
            duration(lock.wait_max_ns as f64),
            duration(lock.hold_ns as f64),
            duration(lock.hold_p50_ns as f64),
            duration(lock.hold_p99_ns as f64),
        );
    }
    let _ = writeln!(
        out,
        "  waited: acquisitions that found the lock taken; wait figures are theirs (also the span `<lock> (lock wait)`)."
    );
}
