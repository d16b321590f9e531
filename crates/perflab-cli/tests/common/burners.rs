//! Busy loops that make real runs wait for a CPU.

use std::process::{Child, Command, Stdio};

/// Busy loops, each pinned to one CPU, ended (and reaped) when dropped,
/// even when the test fails.
pub struct Burners(Vec<Child>);

impl Burners {
    /// `count` busy loops allowed only on `cpu`.
    pub fn on_cpu(cpu: usize, count: usize) -> Self {
        let mut burners = Burners(Vec::new());
        for _ in 0..count {
            let child = Command::new("sh")
                .args(["-c", "while :; do :; done"])
                .stdin(Stdio::null())
                .spawn()
                .expect("sh starts");
            pin(child.id(), cpu);
            burners.0.push(child);
        }
        burners
    }
}

impl Drop for Burners {
    fn drop(&mut self) {
        for child in &mut self.0 {
            let _ = child.kill();
            let _ = child.wait();
        }
    }
}

/// Pins process `pid` to `cpu`.
fn pin(pid: u32, cpu: usize) {
    // SAFETY: a zeroed cpu_set_t is an empty set; CPU_SET and
    // sched_setaffinity only read and write that local set.
    let pinned = unsafe {
        let mut set: libc::cpu_set_t = std::mem::zeroed();
        libc::CPU_SET(cpu, &mut set);
        libc::sched_setaffinity(pid as libc::pid_t, std::mem::size_of_val(&set), &set)
    };
    assert_eq!(pinned, 0, "pinning burner {pid} to CPU {cpu}");
}

/// The highest CPU this process may run on.
pub fn last_allowed_cpu() -> usize {
    let status = std::fs::read_to_string("/proc/self/status").unwrap();
    let list = status
        .lines()
        .find_map(|l| l.strip_prefix("Cpus_allowed_list:"))
        .unwrap()
        .trim()
        .to_string();
    let last = list.rsplit(',').next().unwrap();
    last.rsplit('-').next().unwrap().parse().unwrap()
}

/// True, after saying so, where perflab cannot give runs a cgroup of their
/// own (not root, or no cgroup v2), so that a test of their CPU wait has
/// nothing to check.
pub fn skipped_without_cgroups() -> bool {
    let mountinfo = std::fs::read_to_string("/proc/self/mountinfo").unwrap_or_default();
    let v2 = mountinfo.lines().any(|l| l.contains(" - cgroup2 "));
    // SAFETY: geteuid has no preconditions.
    let here = v2 && unsafe { libc::geteuid() } == 0;
    if !here {
        eprintln!("skipped: runs get no cgroup of their own here (not root, or no cgroup v2)");
    }
    !here
}
