//! A set of CPUs that runs are pinned to, written as Linux writes CPU lists
//! (`0-1,4`, as in `Cpus_allowed_list` and `taskset -c`), and the affinity
//! system calls that apply it.
//!
//! Written here rather than taken from a crate: it is a parser of a dozen
//! lines and two system calls that `libc` already binds, and the child side
//! must run between fork and exec, where only a prepared `cpu_set_t` may be
//! used.

use std::fmt;

/// CPUs by number, sorted and without repeats; never empty.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct CpuSet {
    cpus: Vec<usize>,
}

/// Why a CPU list could not be read.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum CpuListError {
    /// Not a list of numbers and ranges.
    #[error("'{0}' is not a CPU list; write CPU numbers and ranges, e.g. 0-1 or 2,3")]
    Syntax(String),
    /// A CPU number beyond what the kernel's affinity mask holds.
    #[error("CPU {0} is beyond the {max} CPUs an affinity mask holds", max = libc::CPU_SETSIZE)]
    TooLarge(usize),
}

impl CpuSet {
    /// Reads a list like `0-1,4`.
    pub fn parse(text: &str) -> Result<Self, CpuListError> {
        let syntax = || CpuListError::Syntax(text.to_string());
        let mut cpus = Vec::new();
        for part in text.trim().split(',') {
            let (first, last) = match part.trim().split_once('-') {
                Some((a, b)) => (a.trim(), b.trim()),
                None => (part.trim(), part.trim()),
            };
            let first: usize = first.parse().map_err(|_| syntax())?;
            let last: usize = last.parse().map_err(|_| syntax())?;
            if last < first {
                return Err(syntax());
            }
            if last >= libc::CPU_SETSIZE as usize {
                return Err(CpuListError::TooLarge(last));
            }
            cpus.extend(first..=last);
        }
        cpus.sort_unstable();
        cpus.dedup();
        Ok(Self { cpus })
    }

    /// The CPUs this process may run on.
    pub fn allowed() -> std::io::Result<Self> {
        // SAFETY: cpu_set_t is plain data, filled by sched_getaffinity.
        let mut set: libc::cpu_set_t = unsafe { std::mem::zeroed() };
        let size = std::mem::size_of::<libc::cpu_set_t>();
        if unsafe { libc::sched_getaffinity(0, size, &mut set) } != 0 {
            return Err(std::io::Error::last_os_error());
        }
        let cpus = (0..libc::CPU_SETSIZE as usize)
            .filter(|&cpu| unsafe { libc::CPU_ISSET(cpu, &set) })
            .collect();
        Ok(Self { cpus })
    }

    /// The CPU numbers, ascending.
    pub fn cpus(&self) -> &[usize] {
        &self.cpus
    }

    /// How many CPUs.
    pub fn len(&self) -> usize {
        self.cpus.len()
    }

    /// Never true for a parsed set; a process always has a CPU.
    pub fn is_empty(&self) -> bool {
        self.cpus.is_empty()
    }

    /// The CPUs of this set that are not in `other`.
    pub fn outside(&self, other: &CpuSet) -> Vec<usize> {
        let other = &other.cpus;
        self.cpus
            .iter()
            .copied()
            .filter(|cpu| other.binary_search(cpu).is_err())
            .collect()
    }

    /// The kernel's mask of this set, prepared before a fork.
    pub(crate) fn mask(&self) -> libc::cpu_set_t {
        // SAFETY: cpu_set_t is plain data; CPU_SET stays within it, as
        // parse refuses numbers beyond CPU_SETSIZE.
        let mut set: libc::cpu_set_t = unsafe { std::mem::zeroed() };
        for &cpu in &self.cpus {
            unsafe { libc::CPU_SET(cpu, &mut set) };
        }
        set
    }
}

/// Pins the calling process (its threads started later, and what it execs)
/// to `mask`. Async-signal-safe: one system call on prepared memory.
pub(crate) fn pin_to(mask: &libc::cpu_set_t) -> std::io::Result<()> {
    let size = std::mem::size_of::<libc::cpu_set_t>();
    // SAFETY: sched_setaffinity reads `size` bytes of the mask.
    if unsafe { libc::sched_setaffinity(0, size, mask) } != 0 {
        return Err(std::io::Error::last_os_error());
    }
    Ok(())
}

/// Writes the set as a CPU list with ranges, e.g. `0-3,6`.
impl fmt::Display for CpuSet {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let mut first = true;
        let mut i = 0;
        while i < self.cpus.len() {
            let mut j = i;
            while j + 1 < self.cpus.len() && self.cpus[j + 1] == self.cpus[j] + 1 {
                j += 1;
            }
            if !first {
                f.write_str(",")?;
            }
            first = false;
            if j == i {
                write!(f, "{}", self.cpus[i])?;
            } else {
                write!(f, "{}-{}", self.cpus[i], self.cpus[j])?;
            }
            i = j + 1;
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_list_of_numbers_and_ranges_reads_and_prints_back_in_linux_form() {
        let set = CpuSet::parse("4, 0-2,1").unwrap();
        assert_eq!(set.cpus(), &[0, 1, 2, 4]);
        assert_eq!(set.to_string(), "0-2,4");
    }

    #[test]
    fn lists_that_are_not_cpu_lists_are_refused() {
        for bad in ["", "a", "1-", "3-1", "0,,1", "-1"] {
            assert!(
                matches!(CpuSet::parse(bad), Err(CpuListError::Syntax(_))),
                "{bad}"
            );
        }
        assert_eq!(
            CpuSet::parse("0-100000"),
            Err(CpuListError::TooLarge(100000))
        );
    }

    #[test]
    fn this_process_is_allowed_at_least_one_cpu() {
        let allowed = CpuSet::allowed().unwrap();
        assert!(!allowed.is_empty());
        assert!(allowed.outside(&allowed).is_empty());
    }
}
