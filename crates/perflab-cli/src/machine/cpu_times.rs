//! The machine-wide CPU time counters of /proc/stat (the `cpu` line), and
//! the shares of steal and interrupt time between two readings.

/// The `cpu` line of /proc/stat: time of all CPUs in each state, in ticks.
#[derive(Debug, Clone, Copy, PartialEq)]
pub(super) struct CpuTimes {
    /// user, nice, system, idle, iowait, irq, softirq, steal.
    ticks: [u64; 8],
}

/// What share of all CPU time went where between two readings.
#[derive(Debug, Clone, Copy, PartialEq)]
pub(super) struct Shares {
    /// To other guests of the hypervisor (steal).
    pub steal: f64,
    /// To interrupts, hard and soft.
    pub interrupt: f64,
}

impl CpuTimes {
    /// The counters now, if /proc/stat can be read.
    pub(super) fn now() -> Option<Self> {
        Self::parse(&std::fs::read_to_string("/proc/stat").ok()?)
    }

    /// Reads the `cpu` line of /proc/stat's text; kernels before 2.6.11
    /// have no steal field, which then counts as zero.
    pub(super) fn parse(text: &str) -> Option<Self> {
        let line = text.lines().find(|l| l.starts_with("cpu "))?;
        let mut ticks = [0u64; 8];
        let mut fields = line.split_whitespace().skip(1);
        for (i, slot) in ticks.iter_mut().enumerate() {
            match fields.next() {
                Some(f) => *slot = f.parse().ok()?,
                None if i >= 5 => break,
                None => return None,
            }
        }
        Some(Self { ticks })
    }

    /// The shares since `earlier`; `None` when no time passed. Guest time
    /// is already counted in user time, so the eight fields are the total.
    pub(super) fn shares_since(&self, earlier: &CpuTimes) -> Option<Shares> {
        let delta: Vec<f64> = self
            .ticks
            .iter()
            .zip(earlier.ticks)
            .map(|(now, then)| now.saturating_sub(then) as f64)
            .collect();
        let total: f64 = delta.iter().sum();
        (total > 0.0).then(|| Shares {
            steal: delta[7] / total,
            interrupt: (delta[5] + delta[6]) / total,
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const BEFORE: &str = "cpu  100 0 50 800 10 5 5 30 0 0\ncpu0 50 0 25 400 5 2 3 15 0 0\n";
    const AFTER: &str = "cpu  200 0 100 1500 10 10 15 70 0 0\ncpu0 1 2 3 4 5 6 7 8 0 0\n";

    #[test]
    fn steal_and_interrupt_shares_come_from_the_machine_wide_line() {
        let (a, b) = (
            CpuTimes::parse(BEFORE).unwrap(),
            CpuTimes::parse(AFTER).unwrap(),
        );
        // Deltas: user 100, system 50, idle 700, irq 5, softirq 10, steal 40: total 905.
        let s = b.shares_since(&a).unwrap();
        assert!((s.steal - 40.0 / 905.0).abs() < 1e-12, "{s:?}");
        assert!((s.interrupt - 15.0 / 905.0).abs() < 1e-12, "{s:?}");
        assert_eq!(a.shares_since(&a), None);
    }

    #[test]
    fn an_old_kernel_without_steal_counts_none_and_garbage_is_not_read() {
        let old = CpuTimes::parse("cpu 1 2 3 4 5\n").unwrap();
        assert_eq!(old.ticks, [1, 2, 3, 4, 5, 0, 0, 0]);
        assert_eq!(CpuTimes::parse("cpu 1 2\n"), None);
        assert_eq!(CpuTimes::parse("cpu a b c d e f g h\n"), None);
        assert_eq!(CpuTimes::parse("intr 1 2 3\n"), None);
    }
}
