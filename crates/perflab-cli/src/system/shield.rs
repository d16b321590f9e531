//! A CPU shield (`--shield CPUS`): for an experiment's duration every
//! other process of the machine, and whatever it starts, runs on the
//! remaining CPUs, interrupts are steered there too, and the runs have the
//! shielded CPUs to themselves (they are pinned there). The method is the
//! one of `cset shield`: a cpuset cgroup for the rest of the machine.
//!
//! - Processes of the root cgroup move into `perflab-system`, a cgroup
//!   limited to the remaining CPUs; their children are born there.
//!   perflab itself and its children (the runs) stay where they are.
//! - Other cgroups (containers, services) keep their processes but have
//!   their CPUs narrowed to the remaining ones.
//! - Interrupts the kernel lets move are steered to the remaining CPUs.
//! - Threads that had an affinity of their own (`taskset`) get it back
//!   afterwards, whatever the kernel does with affinities when a cpuset
//!   changes.
//!
//! Everything a shield will change is read and written to a state file
//! (`shield.json` in [`run_dir`](super::run_dir)) with the owner's
//! pid before anything changes. The owner undoes it when the experiment
//! ends, fails or is interrupted ([`Shield`] undoes it when dropped); if
//! the owner is killed (`kill -9`, a crash), the next perflab command finds
//! the state file of a process that has ended and undoes it
//! ([`undo_stale_shield`], one `stat` when there is none).
//!
//! Kernel threads the kernel will not move (most are bound to a CPU) are
//! left where they are and counted.

use std::collections::{HashMap, HashSet};
use std::path::{Path, PathBuf};

use perflab_format::machine::ShieldDoc;
use perflab_runner::CpuSet;
use serde::{Deserialize, Serialize};

use super::cpuset::{self, Hierarchy};
use super::irq::{self, SavedAffinities};
use super::run_dir::{Owner, create_run_dir, read_state, remove_state, run_dir};
use super::{is_root, root_needed, without};
use crate::error::{Error, Result};
use crate::experiment::pin::{PinSetting, checked_pin};
use crate::machine::online_cpus;

/// The state file of a shield, in the run folder.
pub const SHIELD_STATE: &str = "shield.json";

/// The path of the shield's state file.
pub fn state_path() -> PathBuf {
    run_dir().join(SHIELD_STATE)
}

/// Everything a shield changes, with the values it replaces: written
/// before the first change, so that whoever undoes the shield (its owner,
/// or a later perflab after the owner was killed) knows all of it.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
struct ShieldState {
    /// The perflab process that made the shield.
    owner: Owner,
    /// The cpuset hierarchy used.
    hierarchy: Hierarchy,
    /// The shielded CPUs.
    cpus: String,
    /// The CPUs left to the rest of the machine.
    rest: String,
    /// Cgroups narrowed, each with its CPUs before, parents first.
    narrowed: Vec<(PathBuf, String)>,
    /// The owner's cgroup, when it was not the root and the owner moved
    /// itself to the root so that its runs could use the shielded CPUs.
    owner_cgroup: Option<String>,
    /// Threads with an affinity of their own, to give back.
    affinities: Vec<ThreadAffinity>,
    /// Interrupt affinities before.
    irqs: SavedAffinities,
}

/// A thread's own CPU affinity, as it was before the shield.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
struct ThreadAffinity {
    tid: u32,
    start_ticks: u64,
    cpus: String,
}

/// A shield in effect; undone when dropped (or by [`Shield::lower`]).
#[derive(Debug)]
pub struct Shield {
    state: Option<ShieldState>,
    path: PathBuf,
    doc: ShieldDoc,
}

impl Shield {
    /// Shields the CPUs of `shield` for the runs. Where they were given
    /// (`--shield`, or the file's `path:line:column: shield`) is named in
    /// refusals, which are usage errors (exit 2): not root, no cpuset
    /// hierarchy, a CPU that is not online, no CPU left for the rest of the
    /// machine, another perflab's shield in effect.
    pub fn raise(shield: &PinSetting) -> Result<Self> {
        let refuse = |message: String| Error::usage(&shield.given_as, message);
        if !is_root() {
            return Err(refuse(root_needed(
                "moves every other process of the machine into a cpuset cgroup and steers its interrupts",
            )));
        }
        let hierarchy = Hierarchy::find().map_err(|why| {
            refuse(format!(
                "{why}; mount one (mount -t cgroup -o cpuset cpuset /sys/fs/cgroup/cpuset) or drop the shield"
            ))
        })?;
        let path = state_path();
        undo_stale_shield();
        if let Some(held) = read_state::<ShieldState>(&path)? {
            return Err(refuse(format!(
                "perflab process {} holds a shield of CPUs {} (state in {}); wait for it to end",
                held.owner.pid,
                held.cpus,
                path.display()
            )));
        }
        let (cpus, online, rest) = checked_cpus(shield)?;
        let cpus = &cpus;
        let state = plan(hierarchy, cpus, &rest, &online);
        claim(&path, &state)?;
        let mut raised = Shield {
            state: Some(state),
            path,
            doc: ShieldDoc::default(),
        };
        match raised.apply(cpus, &rest) {
            Ok(doc) => {
                raised.doc = doc;
                Ok(raised)
            }
            Err(e) => {
                raised.lower();
                Err(e)
            }
        }
    }

    /// What the shield did, for the result's machine section.
    pub fn doc(&self) -> ShieldDoc {
        self.doc.clone()
    }

    /// Undoes the shield now; problems are printed, not returned, since
    /// the experiment's own outcome matters more.
    pub fn lower(&mut self) {
        if let Some(state) = self.state.take() {
            for problem in undo(&state, true) {
                eprintln!("perflab: warning: undoing the shield: {problem}");
            }
            if let Err(e) = remove_state(&self.path) {
                eprintln!("perflab: warning: {e}");
            }
        }
    }

    fn apply(&self, cpus: &CpuSet, rest: &CpuSet) -> Result<ShieldDoc> {
        let state = self.state.as_ref().expect("a shield being raised");
        let h = &state.hierarchy;
        let io = |path: &Path| {
            let path = path.to_path_buf();
            move |source| Error::Io { path, source }
        };
        let system = h.make_system_cgroup(rest).map_err(io(&h.system_cgroup()))?;
        if state.owner_cgroup.is_some() {
            Hierarchy::move_process(&h.root, std::process::id()).map_err(io(&h.root))?;
        }
        let moved = move_all(&h.root, &system);
        // v1: children first, since a parent may not hold fewer CPUs than
        // its children; v2: only the root's children, in any order.
        let mut narrowed = 0;
        for (dir, old) in state.narrowed.iter().rev() {
            let new = new_cpus(state, dir, rest);
            if new != *old {
                Hierarchy::set_cpus(dir, &new).map_err(io(dir))?;
                narrowed += 1;
            }
        }
        let irqs = irq::steer(rest);
        Ok(ShieldDoc {
            cpus: cpus.to_string(),
            rest: rest.to_string(),
            cpuset: h.version.as_str().to_string(),
            processes_moved: moved.moved,
            cgroups_narrowed: narrowed,
            kernel_threads_left: moved.kernel_threads_left,
            processes_left: moved.processes_left,
            irqs_steered: irqs.moved,
            irqs_left: irqs.left,
        })
    }
}

impl Drop for Shield {
    fn drop(&mut self) {
        self.lower();
    }
}

/// The shield's CPUs, the CPUs online and those left to the rest of the
/// machine; refused (exit 2) when a CPU is not online, when no CPU online
/// is left for the rest, or when perflab may not run on one of them (its
/// own affinity: the runs could not go there).
fn checked_cpus(shield: &PinSetting) -> Result<(CpuSet, CpuSet, CpuSet)> {
    let refuse = |message: String| Error::usage(&shield.given_as, message);
    let online = online_cpus().ok_or_else(|| {
        refuse(
            "/sys/devices/system/cpu/online cannot be read, so the CPUs online are unknown".into(),
        )
    })?;
    let offline = shield.cpus.outside(&online);
    if !offline.is_empty() {
        let listed: Vec<String> = offline.iter().map(ToString::to_string).collect();
        return Err(refuse(format!(
            "CPU {} is not online (online: {online}); shield CPUs of that list",
            listed.join(", ")
        )));
    }
    let rest = without(&online, &shield.cpus).ok_or_else(|| {
        refuse(format!(
            "{} leaves no CPU for the rest of the machine (online: {online}); keep at least one \
             CPU out of the shield",
            shield.cpus
        ))
    })?;
    let cpus = checked_pin(shield.clone())?;
    Ok((cpus, online, rest))
}

/// What a shield will change, read before any change.
fn plan(hierarchy: Hierarchy, cpus: &CpuSet, rest: &CpuSet, online: &CpuSet) -> ShieldState {
    let owner_cgroup = hierarchy
        .cgroup_of("self")
        .filter(|c| c != "/" && !c.is_empty());
    let narrowed = hierarchy
        .cgroups_to_narrow()
        .into_iter()
        .filter_map(|dir| Some((dir.clone(), Hierarchy::cpus_of(&dir).ok()?)))
        .collect();
    let ours = family_of_this_process();
    ShieldState {
        owner: Owner::this_process(),
        hierarchy,
        cpus: cpus.to_string(),
        rest: rest.to_string(),
        narrowed,
        owner_cgroup,
        affinities: own_affinities(online, &ours),
        irqs: irq::save(),
    }
}

/// The CPUs a narrowed cgroup gets: its own outside the shield, or, when
/// none of its own is left (or it had none: "the parent's" in v2), its
/// parent's new ones, since a v1 child must lie within its parent (the
/// root's children take the rest of the machine).
fn new_cpus(state: &ShieldState, dir: &Path, rest: &CpuSet) -> String {
    let old: HashMap<&Path, &str> = state
        .narrowed
        .iter()
        .map(|(d, c)| (d.as_path(), c.as_str()))
        .collect();
    // Parents first: compute down the path from the root.
    let mut fallback = rest.clone();
    let mut here = state.hierarchy.root.clone();
    let relative = dir.strip_prefix(&state.hierarchy.root).unwrap_or(dir);
    for part in relative.components() {
        here.push(part);
        let own = old.get(here.as_path()).copied().unwrap_or("");
        fallback = cpuset::narrowed(own, rest, &fallback);
    }
    fallback.to_string()
}

/// Writes the state file, failing if one exists (two shields at once).
fn claim(path: &Path, state: &ShieldState) -> Result<()> {
    use std::io::Write;
    let io = |source| Error::Io {
        path: path.to_path_buf(),
        source,
    };
    create_run_dir(path)?;
    let json = crate::error::to_json_pretty("the shield's state", state)?;
    let mut file = std::fs::OpenOptions::new()
        .write(true)
        .create_new(true)
        .open(path)
        .map_err(io)?;
    file.write_all(json.as_bytes()).map_err(io)?;
    file.sync_all().map_err(io)
}

/// Counts of a move of every process.
#[derive(Debug, Default)]
struct Moved {
    moved: usize,
    kernel_threads_left: usize,
    processes_left: usize,
}

/// Moves every process of cgroup `from` but perflab and its children into
/// `to`, again until none is left to move (processes fork meanwhile).
fn move_all(from: &Path, to: &Path) -> Moved {
    let mut counts = Moved::default();
    let mut refused: HashSet<u32> = HashSet::new();
    for _ in 0..8 {
        let ours = family_of_this_process();
        let mut moved_now = 0;
        for pid in Hierarchy::processes_of(from) {
            if ours.contains(&pid) || refused.contains(&pid) {
                continue;
            }
            match Hierarchy::move_process(to, pid) {
                Ok(()) => moved_now += 1,
                // It ended meanwhile.
                Err(e) if e.raw_os_error() == Some(libc::ESRCH) => {}
                Err(_) => {
                    refused.insert(pid);
                    if is_kernel_thread(pid) {
                        counts.kernel_threads_left += 1;
                    } else {
                        counts.processes_left += 1;
                    }
                }
            }
        }
        counts.moved += moved_now;
        if moved_now == 0 {
            break;
        }
    }
    counts
}

/// Moves every process of `from` into `to`, until `from` is empty or
/// nothing more moves.
fn move_back(from: &Path, to: &Path) -> usize {
    let mut left = 0;
    for _ in 0..8 {
        let pids = Hierarchy::processes_of(from);
        if pids.is_empty() {
            return 0;
        }
        left = pids
            .into_iter()
            .filter(|&pid| match Hierarchy::move_process(to, pid) {
                Ok(()) => false,
                Err(e) => e.raw_os_error() != Some(libc::ESRCH),
            })
            .count();
    }
    left
}

/// Undoes what `state` says a shield changed; returns what could not be
/// undone. `by_owner`: the owner itself undoes it (and moves back into its
/// own cgroup).
fn undo(state: &ShieldState, by_owner: bool) -> Vec<String> {
    let mut problems = Vec::new();
    irq::restore(&state.irqs);
    let h = &state.hierarchy;
    // Parents first: a v1 child may not hold CPUs its parent lacks.
    for (dir, old) in &state.narrowed {
        let now = Hierarchy::cpus_of(dir);
        if now.as_deref().is_ok_and(|now| now != old) {
            if let Err(e) = Hierarchy::set_cpus(dir, old) {
                problems.push(format!(
                    "{}: could not set its CPUs back to {old}: {e}",
                    dir.display()
                ));
            }
        }
    }
    let system = h.system_cgroup();
    if system.exists() {
        let left = move_back(&system, &h.root);
        if left > 0 {
            problems.push(format!(
                "{left} processes could not leave {}; move them with \
                 echo PID > {}/cgroup.procs",
                system.display(),
                h.root.display()
            ));
        }
        let mut removed = std::fs::remove_dir(&system);
        for _ in 0..20 {
            if removed.is_ok() {
                break;
            }
            // Processes that just ended may hold the cgroup for a moment.
            std::thread::sleep(std::time::Duration::from_millis(50));
            move_back(&system, &h.root);
            removed = std::fs::remove_dir(&system);
        }
        if let Err(e) = removed {
            problems.push(format!("{}: could not remove it: {e}", system.display()));
        }
    }
    if by_owner {
        if let Some(cgroup) = &state.owner_cgroup {
            let dir = h.dir_of(cgroup);
            if dir.exists() {
                let _ = Hierarchy::move_process(&dir, std::process::id());
            }
        }
    }
    for thread in &state.affinities {
        give_back_affinity(thread);
    }
    problems
}

/// Undoes the shield of a perflab process that ended without undoing it
/// (killed, crashed), if there is one: one `stat` when there is none.
/// Called as every perflab command starts; what it did is printed.
pub fn undo_stale_shield() {
    let path = state_path();
    if std::fs::symlink_metadata(&path).is_err() {
        return;
    }
    match undo_stale_shield_at(&path) {
        Ok(Some(note)) => eprintln!("perflab: note: {note}"),
        Ok(None) => {}
        Err(e) => eprintln!("perflab: warning: {e}"),
    }
}

/// [`undo_stale_shield`] for the state file `path`: what it did, if anything.
fn undo_stale_shield_at(path: &Path) -> Result<Option<String>> {
    // One process at a time: a lock on the state file itself.
    let file = match std::fs::File::open(path) {
        Ok(file) => file,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(None),
        Err(source) => {
            return Err(Error::Io {
                path: path.to_path_buf(),
                source,
            });
        }
    };
    use std::os::unix::io::AsRawFd;
    // SAFETY: flock on a descriptor this function owns.
    unsafe { libc::flock(file.as_raw_fd(), libc::LOCK_EX) };
    let Some(state) = read_state::<ShieldState>(path)? else {
        return Ok(None);
    };
    if !state.owner.has_ended() {
        return Ok(None);
    }
    if state.owner.from_another_boot() {
        remove_state(path)?;
        return Ok(Some(format!(
            "removed {}, the state of a shield from before the machine rebooted (the reboot undid it)",
            path.display()
        )));
    }
    if !is_root() {
        return Err(Error::input(
            path,
            format!(
                "perflab process {} ended without undoing its shield of CPUs {}: every other process \
                 is still confined to CPUs {}; run any perflab command as root (e.g. sudo perflab \
                 system show) to undo it",
                state.owner.pid, state.cpus, state.rest
            ),
        ));
    }
    let problems = undo(&state, false);
    remove_state(path)?;
    let mut note = format!(
        "undid the shield of CPUs {} that perflab process {} left when it ended without undoing \
         it: every process may use every CPU again, and interrupts are back where they were",
        state.cpus, state.owner.pid
    );
    for p in problems {
        note.push_str(&format!("; but {p}"));
    }
    Ok(Some(note))
}

/// Linux's flag of kernel threads in `/proc/PID/stat` (field 9).
const PF_KTHREAD: u64 = 0x0020_0000;

fn is_kernel_thread(pid: u32) -> bool {
    stat_fields(&pid.to_string())
        .and_then(|f| f.get(6)?.parse::<u64>().ok())
        .is_some_and(|flags| flags & PF_KTHREAD != 0)
}

/// The fields of `/proc/PID/stat` after the command name, from field 3
/// (state) on.
fn stat_fields(pid: &str) -> Option<Vec<String>> {
    let stat = std::fs::read_to_string(format!("/proc/{pid}/stat")).ok()?;
    let (_, rest) = stat.rsplit_once(')')?;
    Some(rest.split_whitespace().map(str::to_string).collect())
}

/// This process and every process descending from it.
fn family_of_this_process() -> HashSet<u32> {
    let me = std::process::id();
    let mut parent_of: HashMap<u32, u32> = HashMap::new();
    if let Ok(entries) = std::fs::read_dir("/proc") {
        for entry in entries.flatten() {
            let Some(pid) = entry
                .file_name()
                .to_str()
                .and_then(|n| n.parse::<u32>().ok())
            else {
                continue;
            };
            // Field 4 is the parent: index 1 from field 3.
            if let Some(ppid) = stat_fields(&pid.to_string()).and_then(|f| f.get(1)?.parse().ok()) {
                parent_of.insert(pid, ppid);
            }
        }
    }
    let mut family = HashSet::from([me]);
    let mut grew = true;
    while grew {
        grew = false;
        for (&pid, ppid) in &parent_of {
            if family.contains(ppid) && family.insert(pid) {
                grew = true;
            }
        }
    }
    family
}

/// Every thread (outside `skip`'s processes, and not a kernel thread)
/// whose affinity is not all the CPUs online: one set with `taskset` or
/// `sched_setaffinity`, which a cpuset change may overwrite.
fn own_affinities(online: &CpuSet, skip: &HashSet<u32>) -> Vec<ThreadAffinity> {
    let mut found = Vec::new();
    let Ok(entries) = std::fs::read_dir("/proc") else {
        return found;
    };
    for entry in entries.flatten() {
        let Some(pid) = entry
            .file_name()
            .to_str()
            .and_then(|n| n.parse::<u32>().ok())
        else {
            continue;
        };
        if skip.contains(&pid) || is_kernel_thread(pid) {
            continue;
        }
        let Ok(tasks) = std::fs::read_dir(entry.path().join("task")) else {
            continue;
        };
        for task in tasks.flatten() {
            let Some(tid) = task
                .file_name()
                .to_str()
                .and_then(|n| n.parse::<u32>().ok())
            else {
                continue;
            };
            let Some(cpus) = allowed_cpus(&task.path()) else {
                continue;
            };
            if cpus != online.to_string() {
                if let Some(start_ticks) = thread_start(tid) {
                    found.push(ThreadAffinity {
                        tid,
                        start_ticks,
                        cpus,
                    });
                }
            }
        }
    }
    found
}

/// `Cpus_allowed_list` of a process or thread folder of /proc.
fn allowed_cpus(dir: &Path) -> Option<String> {
    let status = std::fs::read_to_string(dir.join("status")).ok()?;
    status
        .lines()
        .find_map(|l| l.strip_prefix("Cpus_allowed_list:"))
        .map(|l| l.trim().to_string())
}

fn thread_start(tid: u32) -> Option<u64> {
    // Field 22 is index 19 from field 3.
    stat_fields(&tid.to_string())?.get(19)?.parse().ok()
}

/// Sets a thread's affinity back, if it is still the same thread and its
/// affinity changed.
fn give_back_affinity(thread: &ThreadAffinity) {
    if thread_start(thread.tid) != Some(thread.start_ticks) {
        return;
    }
    let dir = PathBuf::from(format!("/proc/{}", thread.tid));
    if allowed_cpus(&dir).as_deref() == Some(thread.cpus.as_str()) {
        return;
    }
    let Ok(set) = CpuSet::parse(&thread.cpus) else {
        return;
    };
    // SAFETY: cpu_set_t is plain data; CPU_SET stays within it, as
    // CpuSet::parse refuses numbers beyond CPU_SETSIZE.
    unsafe {
        let mut mask: libc::cpu_set_t = std::mem::zeroed();
        for &cpu in set.cpus() {
            libc::CPU_SET(cpu, &mut mask);
        }
        libc::sched_setaffinity(
            thread.tid as libc::pid_t,
            std::mem::size_of::<libc::cpu_set_t>(),
            &mask,
        );
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::system::cpuset::Version;

    #[test]
    fn this_process_and_a_child_of_it_are_one_family() {
        let mut child = std::process::Command::new("sleep")
            .arg("5")
            .spawn()
            .unwrap();
        let family = family_of_this_process();
        let _ = child.kill();
        let _ = child.wait();
        assert!(family.contains(&std::process::id()));
        assert!(family.contains(&child.id()));
        assert!(!family.contains(&1) || std::process::id() == 1);
    }

    #[test]
    fn a_v1_cgroup_without_cpus_outside_the_shield_takes_its_parents() {
        let root = PathBuf::from("/cg");
        let state = ShieldState {
            owner: Owner::this_process(),
            hierarchy: Hierarchy {
                version: Version::V1,
                root: root.clone(),
            },
            cpus: "2-3".into(),
            rest: "0-1".into(),
            narrowed: vec![
                (root.join("a"), "1-3".into()),
                (root.join("a/b"), "3".into()),
                (root.join("c"), "0-3".into()),
            ],
            owner_cgroup: None,
            affinities: Vec::new(),
            irqs: SavedAffinities::default(),
        };
        let rest = CpuSet::parse("0-1").unwrap();
        assert_eq!(new_cpus(&state, &root.join("a"), &rest), "1");
        assert_eq!(new_cpus(&state, &root.join("a/b"), &rest), "1");
        assert_eq!(new_cpus(&state, &root.join("c"), &rest), "0-1");
    }
}
