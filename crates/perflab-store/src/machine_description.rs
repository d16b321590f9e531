//! Which machine a measurement ran on (host name, CPU model, cores, memory,
//! kernel), read back from a provenance, and the warning given when two
//! results that are compared or reported together ran on different ones.
//!
//! Two results of different machines differ by the machines as well as by
//! the code, so perflab never puts them side by side silently. A field one
//! side does not record (a document written before perflab recorded cores
//! and memory, an import whose harness does not say) is not a difference:
//! only what both sides state is compared, never guessed.

use std::collections::BTreeMap;

use serde_json::Value;

/// What identifies the machine a measurement ran on.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct MachineDescription {
    /// Host name.
    pub host: String,
    /// CPU model.
    pub cpu_model: Option<String>,
    /// Logical CPUs (hardware threads).
    pub logical_cores: Option<usize>,
    /// Physical cores.
    pub physical_cores: Option<usize>,
    /// Total memory in bytes.
    pub memory_bytes: Option<u64>,
    /// Kernel release.
    pub kernel: Option<String>,
}

impl MachineDescription {
    /// The machine of a stored provenance; None when it names no host.
    pub fn from_provenance(p: &BTreeMap<String, Value>) -> Option<Self> {
        let text = |key: &str| {
            p.get(key)
                .and_then(Value::as_str)
                .map(str::trim)
                .filter(|s| !s.is_empty())
                .map(str::to_string)
        };
        let number = |key: &str| p.get(key).and_then(Value::as_u64);
        Some(Self {
            host: text("host")?,
            cpu_model: text("cpu_model"),
            logical_cores: number("logical_cores").map(|n| n as usize),
            physical_cores: number("physical_cores").map(|n| n as usize),
            memory_bytes: number("memory_bytes"),
            kernel: text("kernel"),
        })
    }

    /// Each recorded trait as its reader sees it: ("CPU", "Xeon E5"),
    /// ("cores", "8 logical, 4 physical cores"), ("memory", "15.6 GiB
    /// memory"), ("kernel", "kernel 6.1.0").
    fn traits(&self) -> Vec<(&'static str, String)> {
        let mut out = Vec::new();
        if let Some(cpu) = &self.cpu_model {
            out.push(("CPU", cpu.clone()));
        }
        let cores = match (self.logical_cores, self.physical_cores) {
            (Some(l), Some(p)) => Some(format!("{l} logical, {p} physical cores")),
            (Some(l), None) => Some(format!("{l} logical cores")),
            (None, Some(p)) => Some(format!("{p} physical cores")),
            (None, None) => None,
        };
        if let Some(cores) = cores {
            out.push(("cores", cores));
        }
        if let Some(bytes) = self.memory_bytes {
            out.push((
                "memory",
                format!("{:.1} GiB memory", bytes as f64 / (1u64 << 30) as f64),
            ));
        }
        if let Some(kernel) = &self.kernel {
            out.push(("kernel", format!("kernel {kernel}")));
        }
        out
    }

    /// The hardware as recorded: CPU model, cores, memory ("Xeon E5", "8
    /// logical, 4 physical cores", "15.6 GiB memory").
    pub fn hardware(&self) -> Vec<String> {
        self.traits()
            .into_iter()
            .filter(|(what, _)| *what != "kernel")
            .map(|(_, shown)| shown)
            .collect()
    }

    /// "alpha (Xeon E5, 8 logical, 4 physical cores, 15.6 GiB memory,
    /// kernel 6.1.0)".
    pub fn describe(&self) -> String {
        let traits: Vec<String> = self.traits().into_iter().map(|(_, t)| t).collect();
        if traits.is_empty() {
            self.host.clone()
        } else {
            format!("{} ({})", self.host, traits.join(", "))
        }
    }

    /// How `other` differs, trait by trait, as "kernel 6.1.0 against kernel
    /// 6.2.0"; compared as shown, so that no difference is one the reader
    /// cannot see (memory to a tenth of a GiB).
    fn differences(&self, other: &Self) -> Vec<String> {
        let theirs = other.traits();
        self.traits()
            .into_iter()
            .filter_map(|(what, mine)| {
                let (_, their) = theirs.iter().find(|(w, _)| *w == what)?;
                let what = if what == "CPU" { "CPU " } else { "" };
                (mine != *their).then(|| format!("{what}{mine} against {their}"))
            })
            .collect()
    }
}

/// The warning when `a` and `b` (each a label and its machine) ran on
/// different machines: another host, or the same host name with another
/// description (a new kernel, a resized virtual machine, a host name reused
/// by CI runners); None when they ran on one machine as far as both say.
pub fn different_machines_warning(
    (a_label, a): (&str, &MachineDescription),
    (b_label, b): (&str, &MachineDescription),
) -> Option<String> {
    let consequence = "the difference between them includes the machines', not only the code's: \
                       measure both on one machine to judge the code";
    if a.host != b.host {
        return Some(format!(
            "{a_label} and {b_label} ran on different machines: {a_label} on {}, {b_label} on {}; {consequence}",
            a.describe(),
            b.describe()
        ));
    }
    let differences = a.differences(b);
    (!differences.is_empty()).then(|| {
        format!(
            "{a_label} and {b_label} ran on host {} described differently ({}): {a_label} on {}, {b_label} on {}; {consequence}",
            a.host,
            differences.join("; "),
            a.describe(),
            b.describe()
        )
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn machine(host: &str, kernel: &str) -> MachineDescription {
        MachineDescription {
            host: host.into(),
            cpu_model: Some("Xeon E5".into()),
            logical_cores: Some(8),
            physical_cores: Some(4),
            memory_bytes: Some(16 << 30),
            kernel: Some(kernel.into()),
        }
    }

    #[test]
    fn one_machine_gives_no_warning() {
        let m = machine("alpha", "6.1.0");
        assert_eq!(different_machines_warning(("A", &m), ("B", &m)), None);
    }

    #[test]
    fn two_hosts_are_named_with_their_descriptions() {
        let warning = different_machines_warning(
            ("A", &machine("alpha", "6.1.0")),
            ("B", &machine("beta", "6.1.0")),
        )
        .unwrap();
        assert!(warning.starts_with("A and B ran on different machines: A on alpha (Xeon E5, 8 logical, 4 physical cores, 16.0 GiB memory, kernel 6.1.0), B on beta ("), "{warning}");
    }

    #[test]
    fn one_host_name_with_another_kernel_is_a_different_machine() {
        let warning = different_machines_warning(
            ("A", &machine("alpha", "6.1.0")),
            ("B", &machine("alpha", "6.2.0")),
        )
        .unwrap();
        assert!(
            warning.contains(
                "ran on host alpha described differently (kernel 6.1.0 against kernel 6.2.0)"
            ),
            "{warning}"
        );
    }

    #[test]
    fn what_one_side_does_not_record_is_no_difference() {
        let old = MachineDescription {
            logical_cores: None,
            physical_cores: None,
            memory_bytes: None,
            ..machine("alpha", "6.1.0")
        };
        assert_eq!(
            different_machines_warning(("A", &old), ("B", &machine("alpha", "6.1.0"))),
            None
        );
    }

    #[test]
    fn a_provenance_without_host_has_no_machine() {
        let mut p = BTreeMap::new();
        p.insert("kernel".to_string(), Value::from("6.1.0"));
        assert_eq!(MachineDescription::from_provenance(&p), None);
        p.insert("host".to_string(), Value::from("alpha"));
        p.insert("memory_bytes".to_string(), Value::from(1u64 << 30));
        let m = MachineDescription::from_provenance(&p).unwrap();
        assert_eq!(m.describe(), "alpha (1.0 GiB memory, kernel 6.1.0)");
    }
}
