//! A thread's time off the CPU, split into preempted (ready to run, waiting
//! for a CPU) and blocked (not runnable), from the scheduler's statistics.
//!
//! Tolerances: a sleep of S guarantees at least S not runnable, so blocked
//! time is at least S less the microseconds between the clock reads; a busy
//! machine only adds to the time a woken thread waits for a CPU, which is
//! preempted, not blocked. A thread sharing one CPU with two busy loops gets
//! about a third of it on a quiet machine and less on a loaded one, so at
//! least half of its wall time is preempted (a margin for the scheduler's
//! slices); it never sleeps, so its blocked time is only page faults and the
//! like, well under a tenth.
#![cfg(target_os = "linux")]

mod common;

use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::{Duration, Instant};

use common::quiet_session;
use perflab::profile::{ThreadRecord, WarningKind};

const MS: u64 = 1_000_000;

/// The scheduler's statistics exist on this kernel (the tests below need them).
fn scheduler_statistics_exist() -> bool {
    std::path::Path::new("/proc/thread-self/schedstat").exists()
}

/// Pins the calling thread to `cpu`.
fn pin_to(cpu: usize) {
    // SAFETY: a zeroed cpu_set_t is a valid empty set; CPU_SET writes within it.
    unsafe {
        let mut set: libc::cpu_set_t = std::mem::zeroed();
        libc::CPU_SET(cpu, &mut set);
        let status = libc::sched_setaffinity(0, size_of::<libc::cpu_set_t>(), &set);
        assert_eq!(
            status,
            0,
            "sched_setaffinity: {}",
            std::io::Error::last_os_error()
        );
    }
}

/// The CPU the calling thread runs on now.
fn current_cpu() -> usize {
    // SAFETY: sched_getcpu takes no arguments.
    let cpu = unsafe { libc::sched_getcpu() };
    usize::try_from(cpu).expect("sched_getcpu failed")
}

fn split(thread: &ThreadRecord) -> (u64, u64, u64) {
    (
        thread.cpu_ns.expect("cpu time"),
        thread.preempted_ns.expect("preempted time"),
        thread.blocked_ns.expect("blocked time"),
    )
}

#[test]
fn a_thread_that_sleeps_is_blocked_for_at_least_its_sleep() {
    assert!(scheduler_statistics_exist());
    let profile = std::thread::spawn(|| {
        let session = quiet_session();
        {
            let _span = perflab::span!("wait_for_reply");
            std::thread::sleep(Duration::from_millis(100));
        }
        session.finish().unwrap()
    })
    .join()
    .unwrap();
    let thread = &profile.threads[0];
    let (cpu, preempted, blocked) = split(thread);
    assert!(blocked >= 99 * MS, "{thread:?}");
    assert!(cpu + preempted + blocked <= thread.wall_ns, "{thread:?}");
    let warning = profile
        .warnings_of(WarningKind::MostlyWaiting)
        .next()
        .expect("a mostly-waiting warning");
    assert!(
        warning.message.contains("mostly blocked"),
        "{}",
        warning.message
    );
}

#[test]
fn a_thread_sharing_one_cpu_with_busy_loops_is_preempted() {
    assert!(scheduler_statistics_exist());
    let cpu = current_cpu();
    let stop = Arc::new(AtomicBool::new(false));
    let competitors: Vec<_> = (0..2)
        .map(|_| {
            let stop = Arc::clone(&stop);
            std::thread::spawn(move || {
                pin_to(cpu);
                while !stop.load(Ordering::Relaxed) {
                    std::hint::spin_loop();
                }
            })
        })
        .collect();
    let profile = std::thread::spawn(move || {
        pin_to(cpu);
        let session = quiet_session();
        {
            let _span = perflab::span!("compute");
            let start = Instant::now();
            while start.elapsed() < Duration::from_millis(300) {
                std::hint::spin_loop();
            }
        }
        session.finish().unwrap()
    })
    .join()
    .unwrap();
    stop.store(true, Ordering::Relaxed);
    for competitor in competitors {
        competitor.join().unwrap();
    }
    let thread = &profile.threads[0];
    let (_, preempted, blocked) = split(thread);
    assert!(preempted * 2 >= thread.wall_ns, "{thread:?}");
    assert!(blocked * 10 < thread.wall_ns, "{thread:?}");
    let warning = profile
        .warnings_of(WarningKind::MostlyWaiting)
        .next()
        .expect("a mostly-waiting warning");
    assert!(
        warning.message.contains("mostly preempted"),
        "{}",
        warning.message
    );
}

#[test]
fn the_thread_table_shows_the_split_and_what_it_means() {
    let session = quiet_session();
    {
        let _span = perflab::span!("pause");
        std::thread::sleep(Duration::from_millis(5));
    }
    let profile = session.finish().unwrap();
    let table = perflab::render_table(&profile);
    let header = table
        .lines()
        .find(|line| line.starts_with("thread"))
        .unwrap_or_else(|| panic!("{table}"));
    for column in ["wall", "cpu", "preempted", "blocked", "in spans"] {
        assert!(header.contains(column), "{header}");
    }
    assert!(
        table.contains("wall = cpu + preempted (ready to run, waiting for a CPU) + blocked"),
        "{table}"
    );
}
