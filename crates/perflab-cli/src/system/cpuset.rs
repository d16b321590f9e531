//! The cpuset cgroup hierarchy of the machine, whichever it has: cgroup v1
//! with the `cpuset` controller mounted (often `/sys/fs/cgroup/cpuset`),
//! or cgroup v2 whose root enables `cpuset` for its children. What a
//! shield needs of it: a cgroup of its own limited to some CPUs, moving
//! processes into and out of it, and narrowing other cgroups' CPUs.
//!
//! The two versions differ in what a cgroup may hold: in v1 a child's CPUs
//! must lie within its parent's, so every cgroup of the tree is narrowed,
//! the deepest first (and widened again the other way round); in v2 a
//! cgroup's CPUs are always limited by its parent's, so narrowing the
//! children of the root confines every cgroup below them.

use std::io;
use std::path::{Path, PathBuf};

use perflab_runner::CpuSet;
use serde::{Deserialize, Serialize};

/// The cpuset hierarchy's version.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub enum Version {
    /// cgroup v1, the `cpuset` controller in a hierarchy of its own.
    V1,
    /// cgroup v2 (the unified hierarchy), `cpuset` enabled at its root.
    V2,
}

impl Version {
    /// Its name in documents: `cgroup-v1` or `cgroup-v2`.
    pub fn as_str(self) -> &'static str {
        match self {
            Version::V1 => "cgroup-v1",
            Version::V2 => "cgroup-v2",
        }
    }
}

/// A mounted cpuset hierarchy.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Hierarchy {
    /// v1 or v2.
    pub version: Version,
    /// Where its root is mounted.
    pub root: PathBuf,
}

/// The name of the cgroup a shield confines the rest of the machine to.
pub const SYSTEM_CGROUP: &str = "perflab-system";

impl Hierarchy {
    /// The machine's cpuset hierarchy, or why there is none that perflab
    /// can use (a sentence naming what is missing).
    pub fn find() -> Result<Self, String> {
        let mounts = std::fs::read_to_string("/proc/self/mounts")
            .map_err(|e| format!("/proc/self/mounts cannot be read ({e})"))?;
        let mut v2_roots = Vec::new();
        for line in mounts.lines() {
            let fields: Vec<&str> = line.split_whitespace().collect();
            let [_, target, kind, options, ..] = fields[..] else {
                continue;
            };
            let target = PathBuf::from(unescape_mount_path(target));
            if kind == "cgroup" && options.split(',').any(|o| o == "cpuset") {
                return Ok(Self {
                    version: Version::V1,
                    root: target,
                });
            }
            if kind == "cgroup2" {
                v2_roots.push(target);
            }
        }
        let mut why = Vec::new();
        for root in v2_roots {
            let controllers = read_words(&root.join("cgroup.controllers"));
            let enabled = read_words(&root.join("cgroup.subtree_control"));
            if enabled.iter().any(|c| c == "cpuset") {
                return Ok(Self {
                    version: Version::V2,
                    root,
                });
            }
            why.push(if controllers.iter().any(|c| c == "cpuset") {
                format!(
                    "the cgroup v2 hierarchy at {} has the cpuset controller but does not enable it \
                     for its children (echo +cpuset > {}/cgroup.subtree_control)",
                    root.display(),
                    root.display()
                )
            } else {
                format!(
                    "the cgroup v2 hierarchy at {} has no cpuset controller",
                    root.display()
                )
            });
        }
        if why.is_empty() {
            why.push("no cgroup hierarchy is mounted".to_string());
        }
        Err(format!(
            "no cpuset cgroup is available: no cgroup v1 hierarchy with the cpuset controller is \
             mounted, and {}",
            why.join("; ")
        ))
    }

    /// The cgroup of the rest of the machine under a shield.
    pub fn system_cgroup(&self) -> PathBuf {
        self.root.join(SYSTEM_CGROUP)
    }

    /// The cgroup of process `pid` in this hierarchy, as a path under the
    /// root (`/` for the root itself).
    pub fn cgroup_of(&self, pid: &str) -> Option<String> {
        let text = std::fs::read_to_string(format!("/proc/{pid}/cgroup")).ok()?;
        text.lines().find_map(|line| {
            let mut parts = line.splitn(3, ':');
            let (id, controllers, path) = (parts.next()?, parts.next()?, parts.next()?);
            let ours = match self.version {
                Version::V1 => controllers.split(',').any(|c| c == "cpuset"),
                Version::V2 => id == "0" && controllers.is_empty(),
            };
            ours.then(|| path.to_string())
        })
    }

    /// The directory of a cgroup given as a path under the root.
    pub fn dir_of(&self, cgroup: &str) -> PathBuf {
        self.root.join(cgroup.trim_start_matches('/'))
    }

    /// The cgroups whose CPUs a shield narrows, parents before children:
    /// in v1 every cgroup below the root, in v2 the root's children; never
    /// the shield's own.
    pub fn cgroups_to_narrow(&self) -> Vec<PathBuf> {
        let mut found = Vec::new();
        let depth = match self.version {
            Version::V1 => usize::MAX,
            Version::V2 => 1,
        };
        collect_children(&self.root, depth, &mut found);
        found.retain(|dir| !dir.starts_with(self.system_cgroup()));
        found
    }

    /// Makes the shield's cgroup for the rest of the machine, limited to
    /// `cpus` (in v1 with the root's memory nodes, which v1 requires
    /// before a process may join).
    pub fn make_system_cgroup(&self, cpus: &CpuSet) -> io::Result<PathBuf> {
        let dir = self.system_cgroup();
        match std::fs::create_dir(&dir) {
            Ok(()) => {}
            Err(e) if e.kind() == io::ErrorKind::AlreadyExists => {}
            Err(e) => return Err(e),
        }
        if self.version == Version::V1 {
            let mems = std::fs::read_to_string(self.root.join("cpuset.mems"))?;
            write_file(&dir.join("cpuset.mems"), mems.trim())?;
        }
        write_file(&dir.join("cpuset.cpus"), &cpus.to_string())?;
        Ok(dir)
    }

    /// The CPUs a cgroup asks for (`cpuset.cpus`; empty in v2 means its
    /// parent's).
    pub fn cpus_of(dir: &Path) -> io::Result<String> {
        Ok(std::fs::read_to_string(dir.join("cpuset.cpus"))?
            .trim()
            .to_string())
    }

    /// Sets the CPUs of a cgroup.
    pub fn set_cpus(dir: &Path, cpus: &str) -> io::Result<()> {
        // An empty list is written as a newline: v2 reads it as "the parent's".
        write_file(
            &dir.join("cpuset.cpus"),
            if cpus.is_empty() { "\n" } else { cpus },
        )
    }

    /// The processes of a cgroup (`cgroup.procs`).
    pub fn processes_of(dir: &Path) -> Vec<u32> {
        std::fs::read_to_string(dir.join("cgroup.procs"))
            .map(|t| t.lines().filter_map(|l| l.trim().parse().ok()).collect())
            .unwrap_or_default()
    }

    /// Moves process `pid` (all its threads) into the cgroup `dir`.
    pub fn move_process(dir: &Path, pid: u32) -> io::Result<()> {
        write_file(&dir.join("cgroup.procs"), &pid.to_string())
    }
}

/// Directories below `dir`, to `depth` levels, parents before children.
fn collect_children(dir: &Path, depth: usize, found: &mut Vec<PathBuf>) {
    if depth == 0 {
        return;
    }
    let Ok(entries) = std::fs::read_dir(dir) else {
        return;
    };
    let mut children: Vec<PathBuf> = entries
        .flatten()
        .filter(|e| e.file_type().is_ok_and(|t| t.is_dir()))
        .map(|e| e.path())
        .collect();
    children.sort();
    for child in children {
        found.push(child.clone());
        collect_children(&child, depth - 1, found);
    }
}

/// Writes a cgroup or procfs file in one `write`, as the kernel wants.
pub fn write_file(path: &Path, text: &str) -> io::Result<()> {
    use std::io::Write;
    let mut file = std::fs::OpenOptions::new().write(true).open(path)?;
    file.write_all(text.as_bytes())
}

fn read_words(path: &Path) -> Vec<String> {
    std::fs::read_to_string(path)
        .map(|t| t.split_whitespace().map(str::to_string).collect())
        .unwrap_or_default()
}

/// A mount point as /proc/self/mounts writes it, with `\040` for a space.
fn unescape_mount_path(text: &str) -> String {
    let mut out = String::new();
    let mut rest = text;
    while let Some(at) = rest.find('\\') {
        out.push_str(&rest[..at]);
        let code = rest.get(at + 1..at + 4);
        match code.and_then(|c| u8::from_str_radix(c, 8).ok()) {
            Some(byte) => {
                out.push(byte as char);
                rest = &rest[at + 4..];
            }
            None => {
                out.push('\\');
                rest = &rest[at + 1..];
            }
        }
    }
    out.push_str(rest);
    out
}

/// The CPUs of `old` outside the shield (`rest` ∩ `old`), or `fallback`
/// when none of them is: what a narrowed cgroup gets.
pub fn narrowed(old: &str, rest: &CpuSet, fallback: &CpuSet) -> CpuSet {
    let Ok(old) = CpuSet::parse(old) else {
        return fallback.clone();
    };
    let kept: Vec<String> = old
        .cpus()
        .iter()
        .filter(|cpu| rest.cpus().contains(cpu))
        .map(ToString::to_string)
        .collect();
    if kept.is_empty() {
        return fallback.clone();
    }
    CpuSet::parse(&kept.join(",")).unwrap_or_else(|_| fallback.clone())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_narrowed_cgroup_keeps_its_cpus_outside_the_shield_or_takes_its_parents() {
        let rest = CpuSet::parse("0-1").unwrap();
        let parent = CpuSet::parse("1").unwrap();
        assert_eq!(narrowed("0-3", &rest, &parent).to_string(), "0-1");
        assert_eq!(narrowed("3", &rest, &parent).to_string(), "1");
        assert_eq!(narrowed("", &rest, &parent).to_string(), "1");
    }

    #[test]
    fn mount_points_with_spaces_are_read_as_the_kernel_escapes_them() {
        assert_eq!(
            unescape_mount_path("/sys/fs/my\\040cgroup"),
            "/sys/fs/my cgroup"
        );
        assert_eq!(unescape_mount_path("/plain"), "/plain");
    }

    #[test]
    fn this_machine_has_a_cpuset_hierarchy_or_says_what_is_missing() {
        match Hierarchy::find() {
            Ok(h) => {
                assert!(h.root.join("cgroup.procs").exists(), "{h:?}");
                assert!(h.cgroup_of("self").is_some_and(|c| c.starts_with('/')));
            }
            Err(why) => assert!(why.starts_with("no cpuset cgroup is available"), "{why}"),
        }
    }
}
