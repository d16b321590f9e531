//! Tests that change the whole machine (a CPU shield, `perflab system
//! tune`) run one at a time, and put the machine back even when they fail:
//! [`MachineGuard`] notes what they may change and restores it when
//! dropped, whatever perflab did or did not undo.

use std::path::{Path, PathBuf};
use std::process::{Child, Command};
use std::sync::{Mutex, MutexGuard};

use perflab_cli::system::cpuset::{Hierarchy, SYSTEM_CGROUP};

/// One machine-wide test at a time within a test binary (cargo runs test
/// binaries one after the other).
static ONE_AT_A_TIME: Mutex<()> = Mutex::new(());

/// True when the tests run as root.
pub fn is_root() -> bool {
    // SAFETY: geteuid has no preconditions.
    unsafe { libc::geteuid() == 0 }
}

/// Why a test that changes the machine cannot run here, if it cannot: it
/// needs root, a cpuset hierarchy and two CPUs online.
pub fn cannot_shield_here() -> Option<String> {
    if !is_root() {
        return Some("not root: a shield needs root (the CI runs as root)".into());
    }
    if let Err(why) = Hierarchy::find() {
        return Some(why);
    }
    if online_cpus().len() < 2 {
        return Some("fewer than two CPUs online: nothing is left beside a shield".into());
    }
    None
}

/// The CPUs online, by number.
pub fn online_cpus() -> Vec<usize> {
    let text = std::fs::read_to_string("/sys/devices/system/cpu/online").unwrap_or_default();
    perflab_runner::CpuSet::parse(text.trim())
        .map(|s| s.cpus().to_vec())
        .unwrap_or_default()
}

/// What a machine-wide test may change, noted before it starts and put
/// back when dropped: interrupt affinities, the shield's cgroup, test
/// cgroups, a kernel setting, child processes.
pub struct MachineGuard {
    _one_at_a_time: MutexGuard<'static, ()>,
    irqs: Vec<(PathBuf, String)>,
    settings: Vec<(PathBuf, String)>,
    cgroups: Vec<PathBuf>,
    children: Vec<Child>,
    /// The folder of perflab's state files for this test (`PERFLAB_RUN_DIR`).
    pub run_dir: tempfile::TempDir,
}

impl MachineGuard {
    /// Takes the machine for one test.
    pub fn take() -> Self {
        let lock = ONE_AT_A_TIME.lock().unwrap_or_else(|e| e.into_inner());
        let mut irqs = vec![(
            PathBuf::from("/proc/irq/default_smp_affinity"),
            read("/proc/irq/default_smp_affinity"),
        )];
        if let Ok(entries) = std::fs::read_dir("/proc/irq") {
            for entry in entries.flatten() {
                let path = entry.path().join("smp_affinity_list");
                if path.exists() {
                    let value = read(&path);
                    irqs.push((path, value));
                }
            }
        }
        Self {
            _one_at_a_time: lock,
            irqs,
            settings: Vec::new(),
            cgroups: Vec::new(),
            children: Vec::new(),
            run_dir: tempfile::tempdir().expect("a temporary folder"),
        }
    }

    /// Notes a kernel setting's value, to put back.
    pub fn keep_setting(&mut self, path: &str) -> String {
        let value = read(path);
        self.settings.push((PathBuf::from(path), value.clone()));
        value
    }

    /// Starts `sleep 1000`, killed when the guard is dropped.
    pub fn sleeper(&mut self) -> u32 {
        let child = Command::new("sleep")
            .arg("1000")
            .spawn()
            .expect("sleep starts");
        let pid = child.id();
        self.children.push(child);
        pid
    }

    /// Makes a cgroup `name` under the cpuset hierarchy's root with
    /// `cpus`, removed when the guard is dropped.
    pub fn cgroup(&mut self, name: &str, cpus: &str) -> PathBuf {
        let h = Hierarchy::find().expect("a cpuset hierarchy");
        let dir = h.root.join(name);
        std::fs::create_dir(&dir).expect("a test cgroup");
        self.cgroups.push(dir.clone());
        if let Ok(mems) = std::fs::read_to_string(h.root.join("cpuset.mems")) {
            let _ = std::fs::write(dir.join("cpuset.mems"), mems.trim());
        }
        std::fs::write(dir.join("cpuset.cpus"), cpus).expect("the test cgroup's CPUs");
        dir
    }
}

impl Drop for MachineGuard {
    fn drop(&mut self) {
        for child in &mut self.children {
            let _ = child.kill();
            let _ = child.wait();
        }
        if let Ok(h) = Hierarchy::find() {
            let mut leftover = self.cgroups.clone();
            leftover.push(h.root.join(SYSTEM_CGROUP));
            for dir in leftover.iter().rev() {
                empty_into(dir, &h.root);
                let _ = std::fs::remove_dir(dir);
            }
        }
        for (path, value) in self.irqs.iter().chain(&self.settings) {
            if read(path) != *value {
                let _ = std::fs::write(path, value);
            }
        }
    }
}

/// Moves every process of cgroup `dir` into `root`.
fn empty_into(dir: &Path, root: &Path) {
    for _ in 0..5 {
        let procs = std::fs::read_to_string(dir.join("cgroup.procs")).unwrap_or_default();
        if procs.trim().is_empty() {
            return;
        }
        for pid in procs.lines() {
            let _ = std::fs::write(root.join("cgroup.procs"), pid.trim());
        }
    }
}

/// A small procfs or sysfs file, trimmed.
pub fn read(path: impl AsRef<Path>) -> String {
    std::fs::read_to_string(path)
        .map(|t| t.trim().to_string())
        .unwrap_or_default()
}

/// A process's cpuset cgroup and the CPUs it may use.
pub fn placement(pid: u32) -> (String, String) {
    let status = read(format!("/proc/{pid}/status"));
    let allowed = status
        .lines()
        .find_map(|l| l.strip_prefix("Cpus_allowed_list:"))
        .unwrap_or("")
        .trim()
        .to_string();
    (read(format!("/proc/{pid}/cpuset")), allowed)
}

/// Where perflab reads a run's peak memory from a memory cgroup here: the
/// home of the cgroups it makes for that, v1's memory cgroup of this
/// process, or `None` for cgroup v2 (whose run cgroups are the
/// containment's). `Err` says why there is none: not root, no memory
/// controller for perflab's v2 cgroups and no v1 memory hierarchy.
pub fn memory_cgroup_here() -> Result<Option<PathBuf>, String> {
    if !is_root() {
        return Err("not root: perflab makes no cgroups".into());
    }
    let mountinfo = read("/proc/self/mountinfo");
    let membership = read("/proc/self/cgroup");
    let mount = |wanted: &dyn Fn(&str, &str) -> bool| {
        mountinfo.lines().find_map(|line| {
            let (before, after) = line.split_once(" - ")?;
            let mut fields = after.split_whitespace();
            let (kind, options) = (fields.next()?, fields.nth(1)?);
            wanted(kind, options).then(|| before.split_whitespace().nth(4).map(PathBuf::from))?
        })
    };
    let v2 = mount(&|kind, _| kind == "cgroup2").and_then(|m| {
        let own = membership.lines().find_map(|l| l.strip_prefix("0::"))?;
        Some(m.join(own.trim_start_matches('/')))
    });
    // perflab turns the controller on for its children where it can: where
    // its cgroup has it and is the root, or has it on for its children.
    if let Some(home) = v2 {
        let has = |file: &str| {
            read(home.join(file))
                .split_whitespace()
                .any(|c| c == "memory")
        };
        let root = !home.join("cgroup.type").exists();
        if has("cgroup.subtree_control") || (root && has("cgroup.controllers")) {
            return Ok(None);
        }
    }
    let v1 = mount(&|kind, options| kind == "cgroup" && options.split(',').any(|o| o == "memory"));
    let own = membership.lines().find_map(|line| {
        let mut fields = line.splitn(3, ':');
        let (_, controllers, path) = (fields.next()?, fields.next()?, fields.next()?);
        controllers
            .split(',')
            .any(|c| c == "memory")
            .then_some(path)
    });
    match (v1, own) {
        (Some(mount), Some(own)) => Ok(Some(mount.join(own.trim_start_matches('/')))),
        _ => Err(
            "no memory controller for perflab's cgroup v2 and no cgroup v1 memory hierarchy".into(),
        ),
    }
}

/// Asserts that no `perflab-PID-N` cgroup under `home` belongs to a perflab
/// that is no longer running: each is removed by its perflab, or by the
/// next one.
pub fn assert_no_cgroup_of_an_exited_perflab(home: &Path) {
    for entry in std::fs::read_dir(home).unwrap().flatten() {
        let name = entry.file_name().to_string_lossy().to_string();
        if let Some(pid) = name
            .strip_prefix("perflab-")
            .and_then(|rest| rest.split('-').next())
            .and_then(|p| p.parse::<u32>().ok())
        {
            assert!(
                Path::new(&format!("/proc/{pid}")).exists(),
                "{name} was left behind by a perflab that exited"
            );
        }
    }
}
