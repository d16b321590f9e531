//! Threads that make the timed calls, each pinned to a CPU of its own.
//!
//! A thread starts on its parent's CPU and shares it until the scheduler
//! moves it. In loops of a few tens of milliseconds that sharing made two
//! threads' clock reads look 1.20 times as costly as one thread's here,
//! against 1.07 with pinned threads. Pinned threads that start together on
//! a barrier leave only the cost of the calls.

use std::sync::Barrier;
use std::time::Instant;

use crate::calls::Call;

/// Runs `call` `warm_up` times untimed, then `ops` times timed, on `threads`
/// threads at once. Returns nanoseconds per call (mean of the threads' own
/// rates) and where the threads ran.
pub fn run(call: Call, threads: usize, warm_up: u64, ops: u64) -> (f64, String) {
    let cpus = allowed_cpus();
    let barrier = Barrier::new(threads);
    let results: Vec<(f64, Option<usize>)> = std::thread::scope(|scope| {
        let handles: Vec<_> = (0..threads)
            .map(|worker| {
                let cpu = cpus.get(worker).copied();
                let barrier = &barrier;
                scope.spawn(move || {
                    let pinned = cpu.filter(|&cpu| pin_to(cpu));
                    let clock = quanta::Clock::new();
                    for _ in 0..warm_up {
                        call(&clock);
                    }
                    barrier.wait();
                    let start = Instant::now();
                    for _ in 0..ops {
                        call(&clock);
                    }
                    (start.elapsed().as_nanos() as f64 / ops as f64, pinned)
                })
            })
            .collect();
        handles
            .into_iter()
            .map(|handle| handle.join().expect("a benchmark thread panicked"))
            .collect()
    });
    let rate = results.iter().map(|(rate, _)| rate).sum::<f64>() / threads as f64;
    let placement: Vec<String> = results
        .iter()
        .map(|(_, cpu)| cpu.map_or("unpinned".to_string(), |cpu| format!("cpu {cpu}")))
        .collect();
    (rate, placement.join(", "))
}

/// CPUs this process may run on, in order.
fn allowed_cpus() -> Vec<usize> {
    // SAFETY: a zeroed cpu_set_t is a valid empty set; the call fills it.
    unsafe {
        let mut set: libc::cpu_set_t = std::mem::zeroed();
        if libc::sched_getaffinity(0, std::mem::size_of_val(&set), &mut set) != 0 {
            return Vec::new();
        }
        (0..libc::CPU_SETSIZE as usize)
            .filter(|&cpu| libc::CPU_ISSET(cpu, &set))
            .collect()
    }
}

/// Pins the calling thread to `cpu`; false if the system refused.
fn pin_to(cpu: usize) -> bool {
    // SAFETY: as above; pid 0 is the calling thread.
    unsafe {
        let mut set: libc::cpu_set_t = std::mem::zeroed();
        libc::CPU_SET(cpu, &mut set);
        libc::sched_setaffinity(0, std::mem::size_of_val(&set), &set) == 0
    }
}
