//! Performance counters of a run through perf_event_open(2): the software
//! ones every Linux has (task clock, context switches, page faults, CPU
//! migrations) and the hardware ones where the machine has them (cycles,
//! instructions, branch and cache misses; virtual machines usually do not).
//!
//! The counters are opened by perflab on the child between fork and exec:
//! the child tells a helper thread its pid through a pipe and waits on a
//! second pipe until the counters are attached (`std::process::Command`
//! returns from `spawn` only after exec, so the waiting thread cannot be
//! the one that spawns). They count from exec (`enable_on_exec`) and
//! follow the child's own children (`inherit`), and are read after the run
//! is reaped. perf stat would need perf installed and would add its own
//! start-up (hundreds of milliseconds here) to every run's wall time; this
//! adds one system call per counter and a pipe round trip before exec,
//! inside the run's wall time but too small to see next to it
//! (scripts/bench-measuring-modes.sh measures both). Still opt-in: it needs
//! perf_event_paranoid to allow it.

mod attach;

use std::os::fd::{FromRawFd, OwnedFd};

pub use attach::{Attached, Attaching};

use crate::error::{Error, Result};

const PERF_TYPE_HARDWARE: u32 = 0;
const PERF_TYPE_SOFTWARE: u32 = 1;
const FORMAT_TOTAL_TIME_ENABLED: u64 = 1;
const FORMAT_TOTAL_TIME_RUNNING: u64 = 2;
const FLAG_DISABLED: u64 = 1 << 0;
const FLAG_INHERIT: u64 = 1 << 1;
const FLAG_EXCLUDE_KERNEL: u64 = 1 << 5;
const FLAG_EXCLUDE_HV: u64 = 1 << 6;
const FLAG_ENABLE_ON_EXEC: u64 = 1 << 12;
const PERF_FLAG_FD_CLOEXEC: libc::c_ulong = 8;

/// `struct perf_event_attr` up to its first published size (PERF_ATTR_SIZE_VER0).
#[repr(C)]
#[derive(Default)]
struct Attr {
    kind: u32,
    size: u32,
    config: u64,
    sample_period: u64,
    sample_type: u64,
    read_format: u64,
    flags: u64,
    wakeup_events: u32,
    bp_type: u32,
    config1: u64,
}

/// One counter perflab knows.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct PerfEvent {
    /// The metric name, `perf.<event>`.
    pub metric: &'static str,
    kind: u32,
    config: u64,
    /// True for a hardware (PMU) counter.
    pub hardware: bool,
}

/// Every counter, software first.
pub(crate) const PERF_EVENTS: [PerfEvent; 8] = [
    PerfEvent {
        metric: "perf.task-clock",
        kind: PERF_TYPE_SOFTWARE,
        config: 1,
        hardware: false,
    },
    PerfEvent {
        metric: "perf.context-switches",
        kind: PERF_TYPE_SOFTWARE,
        config: 3,
        hardware: false,
    },
    PerfEvent {
        metric: "perf.cpu-migrations",
        kind: PERF_TYPE_SOFTWARE,
        config: 4,
        hardware: false,
    },
    PerfEvent {
        metric: "perf.page-faults",
        kind: PERF_TYPE_SOFTWARE,
        config: 2,
        hardware: false,
    },
    PerfEvent {
        metric: "perf.cycles",
        kind: PERF_TYPE_HARDWARE,
        config: 0,
        hardware: true,
    },
    PerfEvent {
        metric: "perf.instructions",
        kind: PERF_TYPE_HARDWARE,
        config: 1,
        hardware: true,
    },
    PerfEvent {
        metric: "perf.branch-misses",
        kind: PERF_TYPE_HARDWARE,
        config: 5,
        hardware: true,
    },
    PerfEvent {
        metric: "perf.cache-misses",
        kind: PERF_TYPE_HARDWARE,
        config: 3,
        hardware: true,
    },
];

/// Label and unit of a counter metric, for [`crate::builtin_metric`].
pub fn perf_event_metric(name: &str) -> Option<(&'static str, &'static str)> {
    Some(match name {
        "perf.task-clock" => ("task clock (CPU time, perf_event)", "s"),
        "perf.context-switches" => ("context switches", ""),
        "perf.cpu-migrations" => ("CPU migrations", ""),
        "perf.page-faults" => ("page faults", ""),
        "perf.cycles" => ("CPU cycles", ""),
        "perf.instructions" => ("instructions retired (hardware)", ""),
        "perf.branch-misses" => ("branch misses", ""),
        "perf.cache-misses" => ("cache misses", ""),
        _ => return None,
    })
}

/// The counters this machine and user can open.
#[derive(Debug, Clone)]
pub struct PerfEventSet {
    counters: Vec<PerfEvent>,
    flags: u64,
    /// What the user must be told once, e.g. that there are no hardware counters.
    pub notes: Vec<String>,
}

fn open(counter: &PerfEvent, flags: u64, pid: libc::pid_t) -> std::io::Result<OwnedFd> {
    let attr = Attr {
        kind: counter.kind,
        size: std::mem::size_of::<Attr>() as u32,
        config: counter.config,
        read_format: FORMAT_TOTAL_TIME_ENABLED | FORMAT_TOTAL_TIME_RUNNING,
        flags,
        ..Attr::default()
    };
    // SAFETY: attr is a valid perf_event_attr of the size it states; the
    // kernel returns a new file descriptor or -1.
    let fd = unsafe {
        libc::syscall(
            libc::SYS_perf_event_open,
            &attr as *const Attr,
            pid,
            -1 as libc::c_int,
            -1 as libc::c_int,
            PERF_FLAG_FD_CLOEXEC,
        )
    };
    if fd < 0 {
        return Err(std::io::Error::last_os_error());
    }
    // SAFETY: fd is a new descriptor owned by nobody else.
    Ok(unsafe { OwnedFd::from_raw_fd(fd as i32) })
}

impl PerfEventSet {
    /// Finds out which counters can be opened, by opening each on perflab
    /// itself (disabled) and closing it again.
    pub fn probe() -> Result<Self> {
        let mut flags = FLAG_DISABLED | FLAG_INHERIT | FLAG_ENABLE_ON_EXEC;
        let task_clock = &PERF_EVENTS[0];
        if let Err(e) = open(task_clock, flags, 0) {
            if e.raw_os_error() != Some(libc::EACCES) && e.raw_os_error() != Some(libc::EPERM) {
                return Err(refused(&e));
            }
            // Without the right to watch the kernel, count user space only.
            flags |= FLAG_EXCLUDE_KERNEL | FLAG_EXCLUDE_HV;
            open(task_clock, flags, 0).map_err(|e| refused(&e))?;
        }
        let mut counters = Vec::new();
        let mut notes = Vec::new();
        let mut refused_hardware = None;
        for counter in &PERF_EVENTS {
            match open(counter, flags, 0) {
                Ok(_) => counters.push(*counter),
                Err(e) if counter.hardware => {
                    refused_hardware.get_or_insert(e);
                }
                Err(e) => return Err(refused(&e)),
            }
        }
        if let Some(e) = refused_hardware {
            notes.push(format!(
                "this machine has no hardware performance counters (perf_event_open refused them: \
                 {e}; usual on virtual machines), so --counters reports the software counters only: \
                 task clock, context switches, CPU migrations, page faults"
            ));
        }
        if flags & FLAG_EXCLUDE_KERNEL != 0 {
            notes.push(
                "counters count user space only (kernel.perf_event_paranoid forbids more to this \
                 user; `sudo sysctl kernel.perf_event_paranoid=1` includes the kernel)"
                    .into(),
            );
        }
        Ok(Self {
            counters,
            flags,
            notes,
        })
    }

    /// The counters that will be read.
    pub fn counters(&self) -> &[PerfEvent] {
        &self.counters
    }
}

fn refused(e: &std::io::Error) -> Error {
    let paranoid = std::fs::read_to_string("/proc/sys/kernel/perf_event_paranoid")
        .map(|s| s.trim().to_string())
        .unwrap_or_else(|_| "unknown".into());
    Error::usage(
        "--counters",
        format!(
            "perf_event_open refused the software counters ({e}); kernel.perf_event_paranoid is \
             {paranoid}. Allow counting your own programs with `sudo sysctl \
             kernel.perf_event_paranoid=2`, or run without --counters"
        ),
    )
}
