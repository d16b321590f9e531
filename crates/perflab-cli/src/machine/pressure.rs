//! The machine's CPU pressure, from the kernel's pressure stall
//! information (`/proc/pressure/cpu`, Linux 4.20 and later with PSI on):
//! the share of recent time in which at least one runnable task waited
//! for a CPU ("some"). Unlike the load average, it counts only waiting:
//! a background job that fits in the idle CPUs reads 0, and so does a
//! run that has a CPU to itself; a run started while it is above a few
//! percent will wait for a CPU too.

use std::io;
use std::path::Path;

/// `--wait-quiet`'s default threshold: a block starts once some task
/// waited for a CPU during less than 5% of the last 10 seconds (avg10 of
/// "some").
///
/// Why 5%: an idle machine reads 0 to 1% (timers, kernel threads, the
/// shell), and so does one whose background work fits in the idle CPUs,
/// which costs a run no CPU time; CPU-bound work competing for the same
/// CPUs reads tens of percent (a burner per CPU beside a run: 30 to 100%).
/// 5% is above the idle noise and far below contention: at 5% the CPUs
/// were contended for half a second in ten, so a run started then meets a
/// contended CPU for a few percent of its time at most, where beside a
/// build it would meet one most of the time. A lower threshold makes
/// perflab wait for noise; a higher one lets it start in the middle of a
/// build. `perflab system show` flags pressure from this level on too.
pub const DEFAULT_QUIET_PRESSURE: f64 = 0.05;

/// Where the kernel publishes the machine-wide CPU pressure.
pub const CPU_PRESSURE: &str = "/proc/pressure/cpu";

/// The "some" line of a pressure file.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct CpuPressure {
    /// Share of the last 10 seconds in which some task waited for a CPU,
    /// a fraction (the kernel prints a percentage).
    pub avg10: f64,
    /// The same over the last 60 seconds.
    pub avg60: f64,
    /// The same over the last 300 seconds.
    pub avg300: f64,
    /// Microseconds in which some task waited, since boot.
    pub total_us: u64,
}

impl CpuPressure {
    /// The machine's CPU pressure now; an error when the kernel does not
    /// publish it (built without CONFIG_PSI, or booted with `psi=0`).
    pub fn now() -> io::Result<Self> {
        Self::read(Path::new(CPU_PRESSURE))
    }

    /// The pressure in `path` (`/proc/pressure/cpu`, or a cgroup v2's `cpu.pressure`).
    pub fn read(path: &Path) -> io::Result<Self> {
        let text = std::fs::read_to_string(path)?;
        Self::parse(&text).ok_or_else(|| {
            io::Error::new(
                io::ErrorKind::InvalidData,
                format!("no \"some avg10=... total=...\" line in {text:?}"),
            )
        })
    }

    /// Reads `some avg10=0.00 avg60=3.05 avg300=7.12 total=4854254300`.
    pub fn parse(text: &str) -> Option<Self> {
        let line = text.lines().find(|l| l.starts_with("some "))?;
        let field = |name: &str| {
            line.split_whitespace()
                .find_map(|f| f.strip_prefix(name)?.strip_prefix('='))
        };
        let percent = |name: &str| -> Option<f64> {
            let v: f64 = field(name)?.parse().ok()?;
            (v.is_finite() && v >= 0.0).then_some(v / 100.0)
        };
        Some(Self {
            avg10: percent("avg10")?,
            avg60: percent("avg60")?,
            avg300: percent("avg300")?,
            total_us: field("total")?.parse().ok()?,
        })
    }
}

/// Why `--wait-quiet` cannot be used here, if it cannot: the message names
/// the file and how to get it.
pub fn unavailable_reason() -> Option<String> {
    match CpuPressure::now() {
        Ok(_) => None,
        Err(e) => Some(format!(
            "{CPU_PRESSURE} cannot be read ({e}): the kernel does not publish CPU pressure \
             (it needs Linux 4.20 or later built with CONFIG_PSI, booted without psi=0, or with \
             psi=1 where PSI is off by default)"
        )),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_some_line_is_read_as_fractions_and_the_full_line_is_ignored() {
        let p = CpuPressure::parse(
            "some avg10=12.50 avg60=3.05 avg300=7.12 total=4854254300\n\
             full avg10=99.00 avg60=0.00 avg300=0.00 total=0\n",
        )
        .unwrap();
        assert_eq!(p.avg10, 0.125);
        assert_eq!(p.avg60, 0.0305);
        assert_eq!(p.total_us, 4_854_254_300);
        assert_eq!(
            CpuPressure::parse("full avg10=1 avg60=1 avg300=1 total=1"),
            None
        );
        assert_eq!(
            CpuPressure::parse("some avg10=x avg60=1 avg300=1 total=1"),
            None
        );
    }

    #[test]
    fn this_machine_publishes_its_cpu_pressure_or_says_why_not() {
        match CpuPressure::now() {
            Ok(p) => assert!((0.0..=1.0).contains(&p.avg10), "{p:?}"),
            Err(_) => assert!(unavailable_reason().unwrap().contains(CPU_PRESSURE)),
        }
    }
}
