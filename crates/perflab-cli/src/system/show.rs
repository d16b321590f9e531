//! `perflab system show`: every setting of the machine that helps or hurts
//! measurements, each with what was found, why it matters and what perflab
//! recommends, as a `perflab-system/1` document. A setting the machine
//! does not have (no cpufreq in a VM, a kernel without pressure stall
//! information) is "not available here", never an error.

use perflab_format::system::{SYSTEM_FORMAT, SettingDoc, SettingState, SystemDocument};
use perflab_runner::CpuSet;

use super::tune::TUNED_SAMPLE_RATE;
use super::{ASLR, PERF_SAMPLE_RATE, irq};
use crate::machine::pressure::{CPU_PRESSURE, CpuPressure, DEFAULT_QUIET_PRESSURE};
use crate::machine::warnings::LOAD_PER_CPU_WARNING;
use crate::machine::{
    CPU_SYSFS, boost, boost_switch, governor_files, load_average, online_cpus, read, smt,
};

const NOT_HERE: &str = "not available here";

/// Every setting, read now.
pub fn system_document() -> SystemDocument {
    SystemDocument {
        format: SYSTEM_FORMAT.to_string(),
        settings: vec![
            governor(),
            boost_setting(),
            smt_setting(),
            aslr(),
            isolated_cpus(),
            nohz_full(),
            irq_affinity(),
            perf_sample_rate(),
            load(),
            cpu_pressure(),
        ],
    }
}

/// The document as text: one line per setting.
pub fn render(doc: &SystemDocument) -> String {
    let mut out = String::new();
    for s in &doc.settings {
        out.push_str(&format!(
            "{:<13} {}: {}. Why: {}. Recommended: {}.\n",
            s.state.as_str(),
            s.name,
            s.found,
            s.why,
            s.recommendation
        ));
    }
    out
}

fn setting(
    key: &str,
    name: &str,
    state: SettingState,
    found: String,
    why: &str,
    recommendation: String,
    source: &str,
) -> SettingDoc {
    SettingDoc {
        key: key.to_string(),
        name: name.to_string(),
        state,
        found,
        why: why.to_string(),
        recommendation,
        source: source.to_string(),
    }
}

fn governor() -> SettingDoc {
    let why = "a governor that lowers the frequency while a CPU idles (powersave, ondemand, schedutil) \
               slows the start of every run by how long the CPU idled before it, so runs after a pause \
               look slower";
    let source = format!("{CPU_SYSFS}/cpu*/cpufreq/scaling_governor");
    let files = governor_files();
    if files.is_empty() {
        return setting(
            "governor",
            "CPU frequency governor",
            SettingState::NotAvailable,
            format!(
                "{NOT_HERE} (no cpufreq: the host, the firmware or the hardware chooses the frequency)"
            ),
            why,
            "nothing to do here; where cpufreq exists, use performance (perflab system tune)"
                .into(),
            &source,
        );
    }
    let mut by_governor: std::collections::BTreeMap<String, Vec<String>> = Default::default();
    for (cpu, file) in &files {
        let g = read(&file.to_string_lossy()).unwrap_or_else(|| "unreadable".into());
        by_governor.entry(g).or_default().push(cpu.to_string());
    }
    let found = by_governor
        .iter()
        .map(|(g, cpus)| {
            let set = CpuSet::parse(&cpus.join(",")).map_or(cpus.join(","), |s| s.to_string());
            format!("{g} on CPUs {set}")
        })
        .collect::<Vec<_>>()
        .join(", ");
    let all_performance = by_governor.keys().all(|g| g == "performance");
    setting(
        "governor",
        "CPU frequency governor",
        if all_performance {
            SettingState::Ok
        } else {
            SettingState::Check
        },
        found,
        why,
        if all_performance {
            "keep performance".into()
        } else {
            "use performance: perflab system tune (as root) sets it, perflab system reset puts back the governors it replaced".into()
        },
        &source,
    )
}

fn boost_setting() -> SettingDoc {
    let why = "boost (turbo) raises the frequency while the chip is cool and few cores are busy, so a \
               run's speed depends on the temperature and on what else runs: a drift within an \
               experiment and a difference between experiments";
    let (state, found, recommendation, source) = match (boost_switch(), boost()) {
        (Some(switch), Some(true)) => (
            SettingState::Check,
            "on".to_string(),
            "turn it off: perflab system tune (as root); perflab system reset turns it back on"
                .to_string(),
            switch.path,
        ),
        (Some(switch), Some(false)) => (
            SettingState::Ok,
            "off".to_string(),
            "keep it off while measuring".to_string(),
            switch.path,
        ),
        _ => (
            SettingState::NotAvailable,
            format!("{NOT_HERE} (no cpufreq/boost or intel_pstate/no_turbo switch)"),
            "nothing to do here".to_string(),
            format!("{CPU_SYSFS}/cpufreq/boost, {CPU_SYSFS}/intel_pstate/no_turbo"),
        ),
    };
    setting(
        "boost",
        "Turbo/boost",
        state,
        found,
        why,
        recommendation,
        &source,
    )
}

fn smt_setting() -> SettingDoc {
    let why = "two hardware threads of one core share its execution units and caches, so a run is \
               slowed by whatever runs on its sibling thread";
    let source = format!("{CPU_SYSFS}/smt/active, {CPU_SYSFS}/smt/control");
    let control = read(&format!("{CPU_SYSFS}/smt/control"));
    let (state, found, recommendation) = match (smt(), control.as_deref()) {
        (_, Some("notsupported" | "notimplemented")) | (None, _) => (
            SettingState::NotAvailable,
            format!("{NOT_HERE} (the CPUs have no simultaneous multithreading, or the kernel does not say)"),
            "nothing to do here".to_string(),
        ),
        (Some(true), _) => (
            SettingState::Check,
            "on".to_string(),
            "pin runs to one thread of each core and leave its sibling idle (--pin; lscpu -e lists \
             cores), or turn SMT off (echo off > /sys/devices/system/cpu/smt/control, as root)"
                .to_string(),
        ),
        (Some(false), _) => (
            SettingState::Ok,
            "off".to_string(),
            "keep it off while measuring".to_string(),
        ),
    };
    setting(
        "smt",
        "Simultaneous multithreading (SMT)",
        state,
        found,
        why,
        recommendation,
        &source,
    )
}

fn aslr() -> SettingDoc {
    let why = "with randomisation each run gets other addresses for its stack, heap and libraries, so \
               the effect of memory layout on caches and branch prediction varies from run to run and \
               averages out over perflab's interleaved runs, instead of giving one variant a lucky or \
               unlucky layout for the whole experiment (Mytkowicz et al., ASPLOS 2009)";
    let (state, found) = match read(ASLR).as_deref() {
        Some("2") => (SettingState::Ok, "full randomisation (2)".to_string()),
        Some("1") => (
            SettingState::Check,
            "stack and libraries only, not the heap (1)".to_string(),
        ),
        Some("0") => (SettingState::Check, "off (0)".to_string()),
        Some(other) => (SettingState::Check, format!("'{other}'")),
        None => (SettingState::NotAvailable, NOT_HERE.to_string()),
    };
    let recommendation = match state {
        SettingState::Ok => "keep it on",
        SettingState::Check => "turn it fully on: perflab system tune (as root) sets 2",
        SettingState::NotAvailable => "nothing to do here",
    };
    setting(
        "aslr",
        "Address space layout randomisation (ASLR)",
        state,
        found,
        why,
        recommendation.into(),
        ASLR,
    )
}

/// The isolated CPUs (`isolcpus=`), if the kernel says.
fn isolated() -> Option<Option<CpuSet>> {
    let text = std::fs::read_to_string(format!("{CPU_SYSFS}/isolated")).ok()?;
    Some(CpuSet::parse(text.trim()).ok())
}

fn isolated_cpus() -> SettingDoc {
    let why = "the scheduler puts no task on an isolated CPU unless told to, so runs pinned there have \
               it to themselves";
    let source = format!("{CPU_SYSFS}/isolated");
    let (state, found, recommendation) = match isolated() {
        None => (
            SettingState::NotAvailable,
            NOT_HERE.to_string(),
            "nothing to do here; --shield CPUS gives the runs CPUs of their own for an experiment"
                .to_string(),
        ),
        Some(None) => (
            SettingState::Check,
            "none".to_string(),
            "on a machine kept for measurements, boot with isolcpus=CPUS and pin the runs there \
             (--pin); otherwise --shield CPUS gives the runs CPUs of their own for an experiment, \
             without a reboot"
                .to_string(),
        ),
        Some(Some(set)) => (
            SettingState::Ok,
            format!("CPUs {set}"),
            format!("pin the runs there: --pin {set}"),
        ),
    };
    setting(
        "isolated-cpus",
        "Isolated CPUs",
        state,
        found,
        why,
        recommendation,
        &source,
    )
}

fn nohz_full() -> SettingDoc {
    let why = "on a nohz_full CPU that runs one task the kernel stops the periodic timer tick, one \
               interruption less of every run there";
    let source = format!("{CPU_SYSFS}/nohz_full");
    let (state, found, recommendation) = match read(&source).as_deref() {
        None if !std::path::Path::new(&source).exists() => (
            SettingState::NotAvailable,
            format!("{NOT_HERE} (a kernel built without CONFIG_NO_HZ_FULL)"),
            "nothing to do here".to_string(),
        ),
        None | Some("(null)") => (
            SettingState::Check,
            "none".to_string(),
            "on a machine kept for measurements, boot with nohz_full=CPUS on the isolated CPUs"
                .to_string(),
        ),
        Some(list) => (
            SettingState::Ok,
            format!("CPUs {list}"),
            "pin the runs there (--pin)".to_string(),
        ),
    };
    setting(
        "nohz-full",
        "Tickless CPUs (nohz_full)",
        state,
        found,
        why,
        recommendation,
        &source,
    )
}

fn irq_affinity() -> SettingDoc {
    let why =
        "an interrupt (disk, network) served on a run's CPU stops the run while it is handled";
    let source = "/proc/irq/*/smp_affinity_list, /proc/irq/default_smp_affinity";
    let irqs = irq::affinities();
    if irqs.is_empty() {
        return setting(
            "irq-affinity",
            "Interrupt affinity",
            SettingState::NotAvailable,
            format!("{NOT_HERE} (no /proc/irq)"),
            why,
            "nothing to do here".into(),
            source,
        );
    }
    let default = irq::default_affinity().map_or("unknown".to_string(), |s| s.to_string());
    let online = online_cpus();
    let everywhere = irqs
        .iter()
        .filter(|(_, list)| {
            online
                .as_ref()
                .is_some_and(|o| CpuSet::parse(list).is_ok_and(|s| o.outside(&s).is_empty()))
        })
        .count();
    let mut found = format!(
        "{} interrupts, {everywhere} of them on any CPU; the default for new ones is CPUs {default}",
        irqs.len()
    );
    let isolated = isolated().flatten();
    let on_isolated = isolated.as_ref().map_or(0, |iso| {
        irqs.iter()
            .filter(|(_, list)| {
                CpuSet::parse(list).is_ok_and(|s| s.cpus().iter().any(|c| iso.cpus().contains(c)))
            })
            .count()
    });
    let (state, recommendation) = match (&isolated, on_isolated) {
        (Some(iso), n) if n > 0 => {
            found.push_str(&format!("; {n} may run on the isolated CPUs {iso}"));
            (
                SettingState::Check,
                "steer them away from the isolated CPUs: perflab system tune (as root)".to_string(),
            )
        }
        _ => (
            SettingState::Ok,
            "--shield CPUS steers the interrupts that can move away from the shielded CPUs for an experiment".to_string(),
        ),
    };
    setting(
        "irq-affinity",
        "Interrupt affinity",
        state,
        found,
        why,
        recommendation,
        source,
    )
}

fn perf_sample_rate() -> SettingDoc {
    let why = "a sampling profiler running beside the runs (perf top, a continuous profiler) may \
               interrupt them this many times a second; the kernel lowers the limit by itself only \
               once sampling takes too long";
    let Some(rate) = read(PERF_SAMPLE_RATE).and_then(|v| v.parse::<u64>().ok()) else {
        return setting(
            "perf-sample-rate",
            "perf sampling rate limit",
            SettingState::NotAvailable,
            NOT_HERE.into(),
            why,
            "nothing to do here".into(),
            PERF_SAMPLE_RATE,
        );
    };
    let low = rate <= TUNED_SAMPLE_RATE;
    setting(
        "perf-sample-rate",
        "perf sampling rate limit",
        if low {
            SettingState::Ok
        } else {
            SettingState::Check
        },
        format!("{rate} samples per second"),
        why,
        if low {
            format!(
                "keep it; perflab profile -F above {rate} needs it raised (perflab system reset, \
                 if perflab system tune lowered it)"
            )
        } else {
            format!(
                "lower it to {TUNED_SAMPLE_RATE}: perflab system tune (as root), which leaves room \
                 for perflab profile's default of 999 Hz; perflab system reset puts it back"
            )
        },
        PERF_SAMPLE_RATE,
    )
}

fn load() -> SettingDoc {
    let why = "the load average counts the processes running or waiting to run: another busy process \
               shares the machine with the runs, and its bursts widen the interval or bias the runs \
               they hit";
    let cpus = CpuSet::allowed()
        .ok()
        .map(|s| s.len())
        .or(online_cpus().map(|s| s.len()));
    let Some([one, five, _]) = load_average() else {
        return setting(
            "load",
            "Load average",
            SettingState::NotAvailable,
            NOT_HERE.into(),
            why,
            "nothing to do here".into(),
            "/proc/loadavg",
        );
    };
    let busy = cpus.is_some_and(|n| one > LOAD_PER_CPU_WARNING * n as f64);
    let on = cpus.map_or(String::new(), |n| {
        format!(" on {n} CPU{}", if n == 1 { "" } else { "s" })
    });
    setting(
        "load",
        "Load average",
        if busy {
            SettingState::Check
        } else {
            SettingState::Ok
        },
        format!("{one:.2} over 1 minute, {five:.2} over 5{on}"),
        why,
        if busy {
            "stop what runs (see top), or give the runs CPUs of their own (--shield CPUS, as root) \
             or let perflab wait for quiet moments (--wait-quiet)"
                .into()
        } else {
            "nothing to do".into()
        },
        "/proc/loadavg",
    )
}

fn cpu_pressure() -> SettingDoc {
    let why = "the share of recent time in which a runnable task waited for a CPU: a run started now \
               would wait too, and its wall time would count the wait";
    match CpuPressure::now() {
        Err(_) => setting(
            "cpu-pressure",
            "CPU pressure",
            SettingState::NotAvailable,
            format!(
                "{NOT_HERE} (the kernel publishes no pressure stall information: it needs Linux 4.20 \
                 or later with CONFIG_PSI, booted without psi=0)"
            ),
            why,
            "nothing to do here; --wait-quiet needs it".into(),
            CPU_PRESSURE,
        ),
        Ok(p) => {
            let busy = p.avg10 >= DEFAULT_QUIET_PRESSURE;
            setting(
                "cpu-pressure",
                "CPU pressure",
                if busy {
                    SettingState::Check
                } else {
                    SettingState::Ok
                },
                format!(
                    "some task waited {:.1}% of the last 10 seconds, {:.1}% of the last minute",
                    p.avg10 * 100.0,
                    p.avg60 * 100.0
                ),
                why,
                if busy {
                    format!(
                        "wait until it falls below {:.0}%, or let perflab wait before each block \
                         (--wait-quiet)",
                        DEFAULT_QUIET_PRESSURE * 100.0
                    )
                } else {
                    "nothing to do".into()
                },
                CPU_PRESSURE,
            )
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_setting_is_read_or_said_to_be_missing_here_with_why_and_what_to_do() {
        let doc = system_document();
        let keys: Vec<&str> = doc.settings.iter().map(|s| s.key.as_str()).collect();
        assert_eq!(
            keys,
            [
                "governor",
                "boost",
                "smt",
                "aslr",
                "isolated-cpus",
                "nohz-full",
                "irq-affinity",
                "perf-sample-rate",
                "load",
                "cpu-pressure"
            ]
        );
        for s in &doc.settings {
            assert!(!s.found.is_empty() && !s.why.is_empty() && !s.recommendation.is_empty());
            if s.state == SettingState::NotAvailable {
                assert!(s.found.starts_with(NOT_HERE), "{s:?}");
            }
        }
        let text = render(&doc);
        assert_eq!(text.lines().count(), doc.settings.len(), "{text}");
    }
}
