//! Off-CPU intervals from perf's scheduler records: where a command's
//! threads were when they left the CPU, for how long, and why.
//!
//! Method. `perf record --switch-events -e sched:sched_switch -c 1 -g`
//! gives, per thread of the command, one `sched:sched_switch` sample with
//! the stack at each switch off a CPU (its `prev_state` says whether the
//! thread was still runnable, `R`, or waiting, `S`, `D`, ...), and a
//! `PERF_RECORD_SWITCH OUT` and `PERF_RECORD_SWITCH IN` record with the
//! time of each switch off and back on. An off-CPU interval runs from a
//! thread's switch off to its next switch on; it is attributed to the stack
//! of the `sched_switch` sample before it, as *preempted* when the thread
//! left runnable and *blocked* otherwise. This is the switch-to-switch
//! accounting of Brendan Gregg's off-CPU analysis ("Off-CPU Analysis",
//! brendangregg.com/offcpuanalysis.html), taken from per-thread records
//! instead of system-wide tracing, so it needs no privilege beyond reading
//! the command's own scheduler events.
//!
//! Assumptions: the `sched_switch` sample and the switch-off record of one
//! switch arrive in that order (perf writes the tracepoint's sample inside
//! the switch and the record at its end); a blocked thread's wait for a CPU
//! after its wake-up is part of its blocked interval (the scheduler reports
//! no time for the wake-up apart). Stacks are folded by inferno, as the
//! on-CPU ones are, from a perf-script text with one sample per interval
//! whose period is the interval's length: one implementation of frame
//! names for both.
//!
//! Written here rather than taken from a crate: inferno folds samples, and
//! no maintained crate pairs perf's switch records into intervals.

use std::collections::{BTreeMap, HashMap};
use std::io::BufRead;

use perflab_format::sampling::{
    OffCpuCause, OffCpuFunction, OffCpuProfile, OffCpuStack, OffCpuThread,
};

use super::folded::FoldedStacks;

/// The event name of the synthetic samples handed to the folder.
const INTERVAL_EVENT: &str = "off-cpu";

/// Kernel frames of the scheduler itself: on every off-CPU stack, so they
/// say nothing about where a thread waited; left out of the function table.
const SCHEDULER_FRAMES: [&str; 7] = [
    "__schedule_[k]",
    "schedule_[k]",
    "preempt_schedule_[k]",
    "preempt_schedule_irq_[k]",
    "preempt_schedule_common_[k]",
    "__cond_resched_[k]",
    "_cond_resched_[k]",
];

/// The store's attachment kind for a profiled command's wall-time stacks
/// ([`SchedulerTrace::wall_stacks`]), from which reports draw the flame graph.
pub fn wall_stacks_attachment(variant: &str) -> String {
    format!("wall-stacks {variant}")
}

/// An off-CPU time in a unit that keeps three significant digits; `0` for none.
pub(crate) fn off_cpu_time(ns: u64) -> String {
    if ns == 0 {
        return "0".to_string();
    }
    crate::units::format_seconds(ns as f64 / 1e9)
}

/// The totals of an off-CPU profile in a sentence.
pub(crate) fn off_cpu_summary(off_cpu: &OffCpuProfile) -> String {
    format!(
        "off the CPU: {} blocked (sleep, I/O, locks, channels), {} preempted (waiting for a CPU), in {} intervals; on the CPU {} (the samples' periods)",
        off_cpu_time(off_cpu.blocked_ns),
        off_cpu_time(off_cpu.preempted_ns),
        off_cpu.intervals,
        off_cpu_time(off_cpu.on_cpu_ns),
    )
}

/// The cause's word in tables.
pub(crate) fn cause_word(cause: OffCpuCause) -> &'static str {
    match cause {
        OffCpuCause::Blocked => "blocked",
        OffCpuCause::Preempted => "preempted",
    }
}

/// Whether `frame` is one of the scheduler's own (on every off-CPU stack).
pub(crate) fn is_scheduler_frame(frame: &str) -> bool {
    SCHEDULER_FRAMES.contains(&frame)
}

/// Whether `frame` is the kernel's (inferno marks those `_[k]`).
pub(crate) fn is_kernel_frame(frame: &str) -> bool {
    frame.ends_with("_[k]")
}

/// Where a thread waited, in a line: the innermost `keep` frames of the
/// program (outermost first, `…` when some were cut), then the innermost
/// kernel frame besides the scheduler's, which names the wait
/// (`do_nanosleep`, `futex_wait`, `pipe_read`, an interrupt's return).
pub(crate) fn where_it_waited(stack: &OffCpuStack, keep: usize) -> String {
    let frames = stack.frames.iter().skip(1).map(String::as_str);
    let program: Vec<&str> = frames.clone().filter(|f| !is_kernel_frame(f)).collect();
    let kernel = frames
        .clone()
        .rfind(|f| is_kernel_frame(f) && !is_scheduler_frame(f));
    let cut = program.len().saturating_sub(keep);
    let mut text = if cut > 0 {
        "… → ".to_string()
    } else {
        String::new()
    };
    text.push_str(&program[cut..].join(" → "));
    if let Some(kernel) = kernel {
        if !program.is_empty() {
            text.push_str(" → ");
        }
        text.push_str(kernel);
    }
    text
}

/// A thread's totals.
#[derive(Debug, Clone, Default)]
struct ThreadTimes {
    name: String,
    first_seen: usize,
    on_cpu_ns: u64,
    preempted_ns: u64,
    blocked_ns: u64,
    intervals: u64,
}

/// A switch off a CPU not yet matched with the switch back on.
#[derive(Debug)]
struct Departure {
    time_ns: Option<u64>,
    cause: OffCpuCause,
    stack: Vec<String>,
    comm: String,
    pid: String,
}

/// The off-CPU intervals of one recording, folded by stack.
#[derive(Debug, Clone, Default)]
pub struct SchedulerTrace {
    /// Blocked time per folded stack (thread name first), ns.
    pub blocked: FoldedStacks,
    /// Preempted time per folded stack, ns.
    pub preempted: FoldedStacks,
    /// Blocked intervals per folded stack.
    pub blocked_intervals: FoldedStacks,
    /// Preempted intervals per folded stack.
    pub preempted_intervals: FoldedStacks,
    threads: BTreeMap<u64, ThreadTimes>,
    intervals: u64,
    unmatched_switches: u64,
    lost_events: u64,
}

/// One header line of `perf script`: who, when, and the rest.
struct Header<'a> {
    comm: &'a str,
    pid: &'a str,
    tid: u64,
    time_ns: u64,
    rest: &'a str,
}

/// Parses `COMM PID/TID TIME: REST` (COMM may hold spaces; perf may indent
/// the line to align it).
fn header(line: &str) -> Option<Header<'_>> {
    let words: Vec<(usize, &str)> = line
        .split(' ')
        .scan(0usize, |at, word| {
            let start = *at;
            *at += word.len() + 1;
            Some((start, word))
        })
        .filter(|(_, word)| !word.is_empty())
        .collect();
    for pair in words.windows(2) {
        let [(id_at, ids), (time_at, time)] = [pair[0], pair[1]];
        let Some((pid, tid)) = ids.split_once('/') else {
            continue;
        };
        let all_digits = |text: &str| !text.is_empty() && text.bytes().all(|b| b.is_ascii_digit());
        if !all_digits(pid) || !all_digits(tid) {
            continue;
        }
        let Some(time_ns) = time.strip_suffix(':').and_then(seconds_to_ns) else {
            continue;
        };
        return Some(Header {
            comm: line[..id_at].trim(),
            pid,
            tid: tid.parse().ok()?,
            time_ns,
            rest: line[time_at + time.len()..].trim(),
        });
    }
    None
}

/// `34678.926033` seconds as nanoseconds, exactly (no floating point).
fn seconds_to_ns(text: &str) -> Option<u64> {
    let (whole, fraction) = text.split_once('.').unwrap_or((text, ""));
    if fraction.len() > 9 || !fraction.bytes().all(|b| b.is_ascii_digit()) {
        return None;
    }
    let whole: u64 = whole.parse().ok()?;
    let digits = format!("{fraction:0<9}");
    let fraction: u64 = if digits.is_empty() {
        0
    } else {
        digits.parse().ok()?
    };
    whole.checked_mul(1_000_000_000)?.checked_add(fraction)
}

/// A `key=value` field of a tracepoint's text.
fn field<'a>(trace: &'a str, key: &str) -> Option<&'a str> {
    trace
        .split_whitespace()
        .find_map(|word| word.strip_prefix(key)?.strip_prefix('='))
}

impl SchedulerTrace {
    /// Reads the text of `perf script --show-switch-events
    /// --show-lost-events -F comm,pid,tid,time,period,event,ip,sym,dso,trace`;
    /// samples of `on_cpu_event` (as perf names it, e.g.
    /// `cpu-clock/freq=999/`) add their periods to their thread's CPU time.
    pub fn from_perf_script(script: impl BufRead, on_cpu_event: &str) -> std::io::Result<Self> {
        let mut trace = SchedulerTrace::default();
        let mut departures: HashMap<u64, Departure> = HashMap::new();
        // perf-script texts of one sample per interval, weighted by its
        // length and by one, per cause.
        let mut blocked_text = [String::new(), String::new()];
        let mut preempted_text = [String::new(), String::new()];
        // The sched_switch sample whose stack lines are being read.
        let mut reading: Option<(u64, Departure)> = None;
        let finish = |reading: &mut Option<(u64, Departure)>,
                      departures: &mut HashMap<u64, Departure>| {
            if let Some((tid, departure)) = reading.take() {
                departures.insert(tid, departure);
            }
        };
        for line in script.lines() {
            let line = line?;
            if let Some(frame) = line.strip_prefix('\t') {
                if let Some((_, departure)) = reading.as_mut() {
                    departure.stack.push(format!("\t{frame}"));
                }
                continue;
            }
            finish(&mut reading, &mut departures);
            let Some(header) = header(&line) else {
                continue;
            };
            let seen = trace.threads.len();
            let thread = trace.threads.entry(header.tid).or_default();
            if thread.name.is_empty() {
                thread.name = header.comm.to_string();
                thread.first_seen = seen;
            }
            if let Some(lost) = header.rest.strip_prefix("PERF_RECORD_LOST lost ") {
                trace.lost_events += lost.trim().parse::<u64>().unwrap_or(0);
            } else if let Some(out) = header.rest.strip_prefix("PERF_RECORD_SWITCH OUT") {
                let preempted = out.trim() == "preempt";
                let departure = departures.entry(header.tid).or_insert_with(|| Departure {
                    time_ns: None,
                    cause: if preempted {
                        OffCpuCause::Preempted
                    } else {
                        OffCpuCause::Blocked
                    },
                    stack: Vec::new(),
                    comm: header.comm.to_string(),
                    pid: header.pid.to_string(),
                });
                departure.time_ns = Some(header.time_ns);
            } else if header.rest.starts_with("PERF_RECORD_SWITCH IN") {
                let Some(departure) = departures.remove(&header.tid) else {
                    continue;
                };
                let Some(left) = departure.time_ns else {
                    continue;
                };
                let ns = header.time_ns.saturating_sub(left);
                let thread = trace.threads.entry(header.tid).or_default();
                thread.intervals += 1;
                trace.intervals += 1;
                let texts = match departure.cause {
                    OffCpuCause::Preempted => {
                        thread.preempted_ns += ns;
                        &mut preempted_text
                    }
                    OffCpuCause::Blocked => {
                        thread.blocked_ns += ns;
                        &mut blocked_text
                    }
                };
                for (text, period) in texts.iter_mut().zip([ns, 1]) {
                    text.push_str(&format!(
                        "{} {}/{} {}.{:09}: {period} {INTERVAL_EVENT}:\n",
                        departure.comm,
                        departure.pid,
                        header.tid,
                        left / 1_000_000_000,
                        left % 1_000_000_000
                    ));
                    for frame in &departure.stack {
                        text.push_str(frame);
                        text.push('\n');
                    }
                    text.push('\n');
                }
            } else if let Some((period_and_event, tail)) = header.rest.split_once(": ") {
                let mut words = period_and_event.split_whitespace();
                let (period, event) = match (words.next(), words.next()) {
                    (Some(period), Some(event)) => (period.parse::<u64>().ok(), event),
                    (Some(event), None) => (None, event),
                    _ => continue,
                };
                if event == "sched:sched_switch" {
                    if field(tail, "prev_pid").and_then(|pid| pid.parse::<u64>().ok())
                        != Some(header.tid)
                    {
                        continue;
                    }
                    let state = field(tail, "prev_state").unwrap_or("S");
                    let cause = if state.starts_with('R') {
                        OffCpuCause::Preempted
                    } else {
                        OffCpuCause::Blocked
                    };
                    reading = Some((
                        header.tid,
                        Departure {
                            time_ns: None,
                            cause,
                            stack: Vec::new(),
                            comm: header.comm.to_string(),
                            pid: header.pid.to_string(),
                        },
                    ));
                } else if event == on_cpu_event {
                    thread.on_cpu_ns += period.unwrap_or(0);
                }
            } else if let Some(event) = header.rest.strip_suffix(':') {
                // An on-CPU sample without a trace part: `PERIOD EVENT:`.
                let mut words = event.split_whitespace();
                if let (Some(period), Some(name)) = (words.next(), words.next())
                    && name == on_cpu_event
                {
                    thread.on_cpu_ns += period.parse::<u64>().unwrap_or(0);
                }
            }
        }
        finish(&mut reading, &mut departures);
        trace.unmatched_switches = departures
            .values()
            .filter(|departure| departure.time_ns.is_some())
            .count() as u64;
        let fold =
            |text: &String| FoldedStacks::from_perf_script_event(text.as_bytes(), INTERVAL_EVENT);
        trace.blocked = fold(&blocked_text[0])?;
        trace.blocked_intervals = fold(&blocked_text[1])?;
        trace.preempted = fold(&preempted_text[0])?;
        trace.preempted_intervals = fold(&preempted_text[1])?;
        Ok(trace)
    }

    /// Off-CPU intervals measured.
    pub fn intervals(&self) -> u64 {
        self.intervals
    }

    /// The profile's figures: totals, threads, the `top` functions and stacks.
    pub fn profile(&self, top: usize) -> OffCpuProfile {
        let mut threads: Vec<(&u64, &ThreadTimes)> = self.threads.iter().collect();
        threads.sort_by_key(|(_, times)| times.first_seen);
        let mut functions: HashMap<String, OffCpuFunction> = HashMap::new();
        let mut add = |stacks: &FoldedStacks, counts: &FoldedStacks, cause: OffCpuCause| {
            for ((frames, ns), (_, intervals)) in stacks.stacks().zip(counts.stacks()) {
                let mut seen: Vec<&str> = Vec::with_capacity(frames.len());
                for frame in frames.iter().skip(1) {
                    if seen.contains(frame) || is_kernel_frame(frame) {
                        continue;
                    }
                    seen.push(frame);
                    let entry =
                        functions
                            .entry(frame.to_string())
                            .or_insert_with(|| OffCpuFunction {
                                name: frame.to_string(),
                                blocked_ns: 0,
                                preempted_ns: 0,
                                intervals: 0,
                            });
                    match cause {
                        OffCpuCause::Blocked => entry.blocked_ns += ns,
                        OffCpuCause::Preempted => entry.preempted_ns += ns,
                    }
                    entry.intervals += intervals;
                }
            }
        };
        add(&self.blocked, &self.blocked_intervals, OffCpuCause::Blocked);
        add(
            &self.preempted,
            &self.preempted_intervals,
            OffCpuCause::Preempted,
        );
        let mut functions: Vec<OffCpuFunction> = functions.into_values().collect();
        functions.sort_by(|a, b| {
            (b.blocked_ns + b.preempted_ns)
                .cmp(&(a.blocked_ns + a.preempted_ns))
                .then(a.name.cmp(&b.name))
        });
        functions.truncate(top);
        let mut stacks: Vec<OffCpuStack> = Vec::new();
        for (folded, counts, cause) in [
            (&self.blocked, &self.blocked_intervals, OffCpuCause::Blocked),
            (
                &self.preempted,
                &self.preempted_intervals,
                OffCpuCause::Preempted,
            ),
        ] {
            for ((frames, ns), (_, intervals)) in folded.stacks().zip(counts.stacks()) {
                stacks.push(OffCpuStack {
                    frames: frames.iter().map(|frame| frame.to_string()).collect(),
                    cause,
                    ns,
                    intervals,
                });
            }
        }
        stacks.sort_by(|a, b| b.ns.cmp(&a.ns).then(a.frames.cmp(&b.frames)));
        stacks.truncate(top);
        OffCpuProfile {
            on_cpu_ns: threads.iter().map(|(_, t)| t.on_cpu_ns).sum(),
            preempted_ns: threads.iter().map(|(_, t)| t.preempted_ns).sum(),
            blocked_ns: threads.iter().map(|(_, t)| t.blocked_ns).sum(),
            intervals: self.intervals,
            unmatched_switches: self.unmatched_switches,
            lost_events: self.lost_events,
            threads: threads
                .into_iter()
                .map(|(tid, times)| OffCpuThread {
                    tid: *tid,
                    name: times.name.clone(),
                    on_cpu_ns: times.on_cpu_ns,
                    preempted_ns: times.preempted_ns,
                    blocked_ns: times.blocked_ns,
                    intervals: times.intervals,
                })
                .collect(),
            functions,
            stacks,
        }
    }

    /// Where the wall time went, as one set of folded stacks weighted in
    /// microseconds: `on_cpu` (sample counts, each worth `1e6 / frequency_hz`
    /// µs of CPU time) under an `on-CPU` frame, and the off-CPU stacks under
    /// `off-CPU (blocked)` and `off-CPU (preempted)` frames, each below the
    /// thread's name, so that a flame graph shows the three apart.
    pub fn wall_stacks(&self, on_cpu: &FoldedStacks, frequency_hz: u32) -> FoldedStacks {
        let mut text = String::new();
        let per_sample_us = 1e6 / f64::from(frequency_hz.max(1));
        let mut add = |folded: &FoldedStacks, marker: &str, to_us: &dyn Fn(u64) -> u64| {
            for (frames, weight) in folded.stacks() {
                let us = to_us(weight);
                if us == 0 {
                    continue;
                }
                let (root, rest) = frames.split_first().map_or(("?", &[][..]), |(r, s)| (r, s));
                text.push_str(root);
                text.push(';');
                text.push_str(marker);
                for frame in rest {
                    text.push(';');
                    text.push_str(frame);
                }
                text.push_str(&format!(" {us}\n"));
            }
        };
        add(on_cpu, "on-CPU", &|samples| {
            (samples as f64 * per_sample_us).round() as u64
        });
        add(&self.blocked, "off-CPU (blocked)", &|ns| ns / 1_000);
        add(&self.preempted, "off-CPU (preempted)", &|ns| ns / 1_000);
        FoldedStacks::parse(&text).unwrap_or_default()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A thread that sleeps in `wait_for_disk` for 20 ms, runs, is preempted
    /// for 5 ms in `compute`, runs, and ends with a switch never matched.
    const SCRIPT: &str = "\
app 100/100 10.000000:    1000000 cpu-clock/freq=999/: \n\
\t            11b7 compute (/tmp/app)\n\
\t            1065 main (/tmp/app)\n\
\n\
app 100/100 10.001000:          1  sched:sched_switch: prev_comm=app prev_pid=100 prev_prio=120 prev_state=S ==> next_comm=swapper/0 next_pid=0 next_prio=120\n\
\tffffffff821f8b58 __schedule ([kernel.kallsyms])\n\
\tffffffff821f94c3 schedule ([kernel.kallsyms])\n\
\tffffffff8220043e do_nanosleep ([kernel.kallsyms])\n\
\t           cf503 clock_nanosleep@GLIBC_2.2.5 (/usr/lib/libc.so.6)\n\
\t            1100 wait_for_disk (/tmp/app)\n\
\t            1065 main (/tmp/app)\n\
\n\
app 100/100 10.001010: PERF_RECORD_SWITCH OUT        \n\
app 100/100 10.021010: PERF_RECORD_SWITCH IN         \n\
          app   100/100  10.022000:          1  sched:sched_switch: prev_comm=app prev_pid=100 prev_prio=120 prev_state=R+ ==> next_comm=rival next_pid=7 next_prio=120\n\
\tffffffff821f8b58 __schedule ([kernel.kallsyms])\n\
\tffffffff821f9999 preempt_schedule_irq ([kernel.kallsyms])\n\
\t            11b7 compute (/tmp/app)\n\
\t            1065 main (/tmp/app)\n\
\n\
app 100/100 10.022000: PERF_RECORD_SWITCH OUT preempt\n\
app 100/100 10.027000: PERF_RECORD_SWITCH IN         \n\
app 100/100 10.028000:    1000000 cpu-clock/freq=999/: \n\
\t            11b7 compute (/tmp/app)\n\
\t            1065 main (/tmp/app)\n\
\n\
app 100/100 10.029000: PERF_RECORD_LOST lost 3\n\
app 100/100 10.030000: PERF_RECORD_SWITCH OUT        \n\
";

    fn trace() -> SchedulerTrace {
        SchedulerTrace::from_perf_script(SCRIPT.as_bytes(), "cpu-clock/freq=999/").unwrap()
    }

    #[test]
    fn intervals_run_from_the_switch_off_to_the_switch_back_on_and_keep_the_stack_they_left_from() {
        let profile = trace().profile(10);
        assert_eq!(profile.intervals, 2);
        assert_eq!(profile.blocked_ns, 20_000_000);
        assert_eq!(profile.preempted_ns, 5_000_000);
        assert_eq!(profile.on_cpu_ns, 2_000_000);
        assert_eq!(profile.unmatched_switches, 1);
        assert_eq!(profile.lost_events, 3);
        let wait = profile
            .functions
            .iter()
            .find(|f| f.name == "wait_for_disk")
            .unwrap();
        assert_eq!(
            (wait.blocked_ns, wait.preempted_ns, wait.intervals),
            (20_000_000, 0, 1)
        );
        let compute = profile
            .functions
            .iter()
            .find(|f| f.name == "compute")
            .unwrap();
        assert_eq!((compute.blocked_ns, compute.preempted_ns), (0, 5_000_000));
        let main = profile.functions.iter().find(|f| f.name == "main").unwrap();
        assert_eq!(main.intervals, 2);
        assert!(profile.functions.iter().all(|f| !f.name.ends_with("_[k]")));
        assert_eq!(profile.stacks[0].cause, OffCpuCause::Blocked);
        assert_eq!(
            profile.stacks[0].frames,
            [
                "app",
                "main",
                "wait_for_disk",
                "clock_nanosleep@GLIBC_2.2.5",
                "do_nanosleep_[k]",
                "schedule_[k]",
                "__schedule_[k]"
            ]
        );
        assert_eq!(profile.threads.len(), 1);
        assert_eq!(profile.threads[0].tid, 100);
    }

    #[test]
    fn the_wall_stacks_put_on_and_off_cpu_time_under_frames_of_their_own_in_microseconds() {
        let on_cpu = FoldedStacks::parse("app;main;compute 2\n").unwrap();
        let wall = trace().wall_stacks(&on_cpu, 1000);
        let text = wall.to_text();
        assert!(text.contains("app;on-CPU;main;compute 2000\n"), "{text}");
        assert!(
            text.contains("app;off-CPU (blocked);main;wait_for_disk;"),
            "{text}"
        );
        assert!(
            text.lines().any(
                |line| line.starts_with("app;off-CPU (preempted);main;compute")
                    && line.ends_with(" 5000")
            ),
            "{text}"
        );
    }

    #[test]
    fn the_place_a_thread_waited_is_its_stack_without_the_scheduler_cut_to_the_innermost_frames() {
        let profile = trace().profile(10);
        assert_eq!(
            where_it_waited(&profile.stacks[0], 2),
            "… → wait_for_disk → clock_nanosleep@GLIBC_2.2.5 → do_nanosleep_[k]"
        );
        assert_eq!(where_it_waited(&profile.stacks[1], 3), "main → compute");
    }

    #[test]
    fn header_lines_are_read_with_spaces_in_the_name_and_exact_times() {
        let parsed = header("  opt cgu.0 31/32 34678.926033: PERF_RECORD_SWITCH IN").unwrap();
        assert_eq!(
            (parsed.comm, parsed.pid, parsed.tid, parsed.time_ns),
            ("opt cgu.0", "31", 32, 34_678_926_033_000)
        );
        assert_eq!(parsed.rest, "PERF_RECORD_SWITCH IN");
        assert!(header("\tffff __schedule ([kernel.kallsyms])").is_none());
    }
}
