//! The machine's state during an experiment, in one line, for every format.

use perflab_format::machine::{MachineDoc, QuietWaitDoc, ShieldDoc};

/// "Machine: 2 CPUs online, runs pinned to CPU 1, governor performance,
/// boost on, SMT off; load 0.12 before the first run; steal 0.0% and
/// interrupts 0.3% of CPU time during the runs."
pub(crate) fn machine_line(m: &MachineDoc) -> String {
    let on = |b: bool| if b { "on" } else { "off" };
    let mut setup = Vec::new();
    if let Some(n) = m.cpus_online {
        setup.push(format!("{n} CPU{} online", if n == 1 { "" } else { "s" }));
    }
    match (&m.pinned, &m.cpus_allowed) {
        (Some(pin), _) if m.shield.is_some() => {
            setup.push(format!("runs pinned to shielded CPUs {pin}"))
        }
        (Some(pin), _) => setup.push(format!("runs pinned to CPUs {pin}")),
        (None, Some(allowed)) => setup.push(format!("runs on CPUs {allowed}")),
        (None, None) => {}
    }
    if let Some(g) = &m.governor {
        setup.push(format!("governor {g}"));
    }
    if let Some(b) = m.boost {
        setup.push(format!("boost {}", on(b)));
    }
    if let Some(s) = m.smt {
        setup.push(format!("SMT {}", on(s)));
    }
    let mut parts = vec![setup.join(", ")];
    if let Some(load) = m.load_before {
        parts.push(format!("load {load:.2} before the first run"));
    }
    if let (Some(steal), Some(irq)) = (m.steal_share, m.interrupt_share) {
        parts.push(format!(
            "steal {:.1}% and interrupts {:.1}% of CPU time during the runs",
            steal * 100.0,
            irq * 100.0
        ));
    }
    let parts: Vec<String> = parts.into_iter().filter(|p| !p.is_empty()).collect();
    format!("Machine: {}.", parts.join("; "))
}

/// What perflab did about the rest of the machine during the runs (a
/// shield, waits for a quiet machine), one sentence each, before the
/// warnings: every line a report shows as "machine state".
pub(crate) fn machine_state_lines(m: &MachineDoc) -> Vec<String> {
    let mut lines: Vec<String> = m.shield.iter().map(shield_note).collect();
    lines.extend(m.quiet_wait.iter().map(quiet_wait_note));
    lines.extend(m.warnings.iter().cloned());
    lines
}

/// "the runs had CPUs 1 to themselves (cgroup-v1 shield): 212 processes
/// and 3 cgroups were confined to CPUs 0, 40 kernel threads stayed (the
/// kernel does not move them); 17 interrupts were steered to CPUs 0, 2
/// interrupts the kernel would not move".
pub(crate) fn shield_note(s: &ShieldDoc) -> String {
    let cgroups = match s.cgroups_narrowed {
        0 => String::new(),
        n => format!(" and {}", plural(n, "cgroup", "cgroups")),
    };
    let mut note = format!(
        "the runs had CPUs {} to themselves ({} shield): {}{cgroups} {} confined to CPUs {}",
        s.cpus,
        s.cpuset,
        plural(s.processes_moved, "process", "processes"),
        if s.processes_moved == 1 && cgroups.is_empty() {
            "was"
        } else {
            "were"
        },
        s.rest
    );
    if s.kernel_threads_left > 0 {
        note.push_str(&format!(
            ", {} stayed (the kernel does not move them)",
            plural(s.kernel_threads_left, "kernel thread", "kernel threads")
        ));
    }
    if s.processes_left > 0 {
        note.push_str(&format!(
            ", {} could not be moved",
            plural(s.processes_left, "process", "processes")
        ));
    }
    note.push_str(&format!(
        "; {} steered to CPUs {}",
        plural(s.irqs_steered, "interrupt was", "interrupts were"),
        s.rest
    ));
    if s.irqs_left > 0 {
        note.push_str(&format!(
            ", {} the kernel would not move",
            plural(s.irqs_left, "interrupt", "interrupts")
        ));
    }
    note
}

/// "waited 12 s for a quiet machine (CPU pressure below 5.0%) before 3
/// blocks", or that the time limit ran out while waiting.
pub(crate) fn quiet_wait_note(q: &QuietWaitDoc) -> String {
    let threshold = format!("CPU pressure below {:.1}%", q.threshold * 100.0);
    let mut note = if q.blocks_waited == 0 {
        format!("no block had to wait for a quiet machine ({threshold})")
    } else {
        format!(
            "waited {:.0} s in all for a quiet machine ({threshold}) before {}",
            q.waited_s,
            plural(q.blocks_waited, "block", "blocks")
        )
    };
    if q.gave_up {
        note.push_str(&format!(
            "; the time limit ran out while waiting (CPU pressure last {}), so the experiment \
             stopped there with the runs measured before",
            q.last_pressure
                .map_or("unknown".to_string(), |p| format!("{:.1}%", p * 100.0))
        ));
    }
    note
}

fn plural(n: usize, one: &str, many: &str) -> String {
    format!("{n} {}", if n == 1 { one } else { many })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_line_says_what_was_read_and_leaves_out_what_was_not() {
        let m = MachineDoc {
            cpus_online: Some(2),
            cpus_allowed: Some("0-1".into()),
            pinned: Some("1".into()),
            governor: None,
            boost: None,
            smt: Some(false),
            load_before: Some(0.125),
            steal_share: Some(0.0),
            interrupt_share: Some(0.003),
            warnings: Vec::new(),
            shield: None,
            quiet_wait: None,
        };
        assert_eq!(
            machine_line(&m),
            "Machine: 2 CPUs online, runs pinned to CPUs 1, SMT off; load 0.12 before the first run; \
             steal 0.0% and interrupts 0.3% of CPU time during the runs."
        );
    }

    #[test]
    fn a_shield_and_the_waits_are_said_before_the_warnings() {
        let m = MachineDoc {
            pinned: Some("1".into()),
            warnings: vec!["the load average was 3.00".into()],
            shield: Some(ShieldDoc {
                cpus: "1".into(),
                rest: "0".into(),
                cpuset: "cgroup-v1".into(),
                processes_moved: 212,
                cgroups_narrowed: 0,
                kernel_threads_left: 40,
                processes_left: 0,
                irqs_steered: 1,
                irqs_left: 2,
            }),
            quiet_wait: Some(QuietWaitDoc {
                threshold: 0.05,
                blocks_waited: 3,
                waited_s: 12.2,
                gave_up: false,
                last_pressure: Some(0.01),
            }),
            ..MachineDoc::default()
        };
        assert_eq!(
            machine_state_lines(&m),
            [
                "the runs had CPUs 1 to themselves (cgroup-v1 shield): 212 processes were \
                 confined to CPUs 0, 40 kernel threads stayed (the kernel does not move them); \
                 1 interrupt was steered to CPUs 0, 2 interrupts the kernel would not move",
                "waited 12 s in all for a quiet machine (CPU pressure below 5.0%) before 3 blocks",
                "the load average was 3.00",
            ]
        );
        assert!(machine_line(&m).contains("runs pinned to shielded CPUs 1"));
    }
}
