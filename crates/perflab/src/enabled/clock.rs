//! The wall-clock timer behind every span: raw ticks on the hot path,
//! nanoseconds only when a report is built.
//!
//! Recording raw ticks keeps the conversion (a multiply and a shift) off the
//! hot path. Conversion is linear, so sums, extremes and histogram bucket
//! bounds kept in ticks convert to nanoseconds with the same relative error.

use std::sync::OnceLock;

/// How ticks are read.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum TickSource {
    /// `rdtsc` directly: quanta found an invariant TSC and calibrated it.
    #[cfg(target_arch = "x86_64")]
    Tsc,
    /// Whatever quanta's clock reads (ARM counter, or `CLOCK_MONOTONIC` in nanoseconds).
    Quanta,
}

/// The process-wide timer.
#[derive(Debug)]
pub(crate) struct Timer {
    source: TickSource,
    clock: quanta::Clock,
    ns_per_tick: f64,
    name: &'static str,
}

static TIMER: OnceLock<Timer> = OnceLock::new();

/// The timer, set up (and calibrated by quanta, a few milliseconds) on first use.
pub(crate) fn timer() -> &'static Timer {
    TIMER.get_or_init(Timer::new)
}

impl Timer {
    #[cold]
    fn new() -> Timer {
        let clock = quanta::Clock::new();
        let (source, name) = match quanta_reads_the_cpu_counter() {
            #[cfg(target_arch = "x86_64")]
            true => (TickSource::Tsc, "tsc"),
            #[cfg(not(target_arch = "x86_64"))]
            true => (TickSource::Quanta, "cntvct"),
            false => (TickSource::Quanta, "clock_monotonic"),
        };
        let probe = 1u64 << 40;
        let ns_per_tick = clock.delta_as_nanos(0, probe) as f64 / probe as f64;
        Timer {
            source,
            clock,
            ns_per_tick,
            name,
        }
    }

    /// Current time in ticks of the timer's source.
    #[inline(always)]
    pub(crate) fn ticks(&self) -> u64 {
        match self.source {
            #[cfg(target_arch = "x86_64")]
            // SAFETY: quanta only picks its counter on x86_64 after checking
            // that the CPU has an invariant TSC, so the instruction exists.
            TickSource::Tsc => unsafe { core::arch::x86_64::_rdtsc() },
            TickSource::Quanta => self.clock.raw(),
        }
    }

    /// A number of ticks as whole nanoseconds.
    pub(crate) fn ns(&self, ticks: u64) -> u64 {
        self.clock.delta_as_nanos(0, ticks)
    }

    /// A fractional number of ticks (a mean, a bucket midpoint) as nanoseconds.
    pub(crate) fn ns_f64(&self, ticks: f64) -> f64 {
        ticks * self.ns_per_tick
    }

    /// Whether ticks are read with `rdtsc` directly (tables keep a copy of
    /// this flag so that the hot path does not follow a pointer to learn it).
    pub(crate) fn reads_tsc(&self) -> bool {
        #[cfg(target_arch = "x86_64")]
        return self.source == TickSource::Tsc;
        #[cfg(not(target_arch = "x86_64"))]
        false
    }

    /// Name of the source, as written to the profile.
    pub(crate) fn name(&self) -> &'static str {
        self.name
    }
}

/// Whether `quanta::Clock::new` reads the CPU's counter (the TSC, or the
/// AArch64 system counter) rather than `CLOCK_MONOTONIC`.
///
/// quanta 0.13 has no API that tells which source it chose (its
/// `ClockType` is private), so this repeats quanta's own test,
/// `detection::has_counter_support`: on x86_64, CPUID must report an
/// invariant TSC and `rdtscp`; on AArch64 (not iOS) the counter is always
/// there; elsewhere quanta never uses a counter. When quanta is upgraded,
/// this must follow it; the test below checks the two agree on this machine.
fn quanta_reads_the_cpu_counter() -> bool {
    #[cfg(all(target_arch = "x86_64", target_feature = "sse2"))]
    {
        let cpuid = raw_cpuid::CpuId::new();
        let invariant_tsc = cpuid
            .get_advanced_power_mgmt_info()
            .is_some_and(|apm| apm.has_invariant_tsc());
        let rdtscp = cpuid
            .get_extended_processor_and_feature_identifiers()
            .is_some_and(|features| features.has_rdtscp());
        invariant_tsc && rdtscp
    }
    #[cfg(all(target_arch = "aarch64", not(target_os = "ios")))]
    {
        true
    }
    #[cfg(not(any(
        all(target_arch = "x86_64", target_feature = "sse2"),
        all(target_arch = "aarch64", not(target_os = "ios"))
    )))]
    {
        false
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ticks_advance_and_convert_to_plausible_nanoseconds() {
        let timer = timer();
        let start = timer.ticks();
        let wall = std::time::Instant::now();
        while wall.elapsed() < std::time::Duration::from_millis(20) {}
        let ticks = timer.ticks().saturating_sub(start);
        let ns = timer.ns(ticks);
        // Generous bounds: 20 ms of busy waiting, measured by another clock.
        assert!(ns >= 15_000_000, "{ns} ns for a 20 ms wait");
        assert!(ns < 2_000_000_000, "{ns} ns for a 20 ms wait");
        let float = timer.ns_f64(ticks as f64);
        assert!((float - ns as f64).abs() <= ns as f64 * 1e-6 + 2.0);
    }

    /// quanta's raw reading lies between two TSC readings exactly when it
    /// reads the TSC itself (`CLOCK_MONOTONIC` counts nanoseconds, far
    /// below a TSC that counts at GHz rates from the same boot).
    #[cfg(target_arch = "x86_64")]
    #[test]
    fn the_detected_source_is_the_one_quanta_reads() {
        let clock = quanta::Clock::new();
        let reads_tsc = (0..5).any(|_| {
            // SAFETY: `rdtsc` exists on every x86_64 CPU.
            let before = unsafe { core::arch::x86_64::_rdtsc() };
            let raw = clock.raw();
            let after = unsafe { core::arch::x86_64::_rdtsc() };
            before <= raw && raw <= after
        });
        assert_eq!(reads_tsc, quanta_reads_the_cpu_counter());
        assert_eq!(timer().reads_tsc(), reads_tsc);
    }
}
