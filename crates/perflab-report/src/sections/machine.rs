//! The machine's state during an experiment, in one line, for every format.

use perflab_format::machine::MachineDoc;

/// "Machine: 2 CPUs online, runs pinned to CPU 1, governor performance,
/// boost on, SMT off; load 0.12 before the first run; steal 0.0% and
/// interrupts 0.3% of CPU time during the runs."
pub fn machine_line(m: &MachineDoc) -> String {
    let on = |b: bool| if b { "on" } else { "off" };
    let mut setup = Vec::new();
    if let Some(n) = m.cpus_online {
        setup.push(format!("{n} CPU{} online", if n == 1 { "" } else { "s" }));
    }
    match (&m.pinned, &m.cpus_allowed) {
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
        };
        assert_eq!(
            machine_line(&m),
            "Machine: 2 CPUs online, runs pinned to CPUs 1, SMT off; load 0.12 before the first run; \
             steal 0.0% and interrupts 0.3% of CPU time during the runs."
        );
    }
}
