//! The calls under measurement, and the list of cases.

use std::hint::black_box;
use std::time::Instant;

/// A call under measurement.
pub type Call = fn(&quanta::Clock);

/// One kind of call, run by one or two threads at once, in a session that
/// records a timeline or not.
pub struct Case {
    pub name: &'static str,
    pub threads: usize,
    pub call: Call,
    pub traced: bool,
}

const fn case(name: &'static str, threads: usize, call: Call) -> Case {
    Case {
        name,
        threads,
        call,
        traced: false,
    }
}

const fn traced_case(name: &'static str, threads: usize, call: Call) -> Case {
    Case {
        name,
        threads,
        call,
        traced: true,
    }
}

/// Every case, in the order they take turns. Cases are found by position
/// in a child process, so the order is the same in every process.
pub const CASES: [Case; 12] = [
    case(PLAIN, 1, |_| plain_call()),
    case(CLOCK_READS, 1, two_quanta_reads),
    case("two Instant::now()", 1, |_| two_instant_reads()),
    case(PERFLAB_SPAN, 1, |_| perflab_span()),
    traced_case(PERFLAB_SPAN_TRACED, 1, |_| perflab_span()),
    case("perflab #[measure] fn", 1, |_| perflab_measure()),
    case(HOTPATH, 1, |_| hotpath_measure()),
    case(CLOCK_READS, 2, two_quanta_reads),
    case(PERFLAB_SPAN, 2, |_| perflab_span()),
    case(HOTPATH, 2, |_| hotpath_measure()),
    case(STD_MUTEX, 1, |_| std_mutex_lock()),
    case(PERFLAB_MUTEX, 1, |_| perflab_mutex_lock()),
];

pub const PLAIN: &str = "plain call (loop baseline)";
pub const CLOCK_READS: &str = "two quanta clock reads (raw)";
pub const PERFLAB_SPAN: &str = "perflab span!";
pub const PERFLAB_SPAN_TRACED: &str = "perflab span!, traced";
pub const HOTPATH: &str = "hotpath #[measure] fn";
pub const STD_MUTEX: &str = "std Mutex lock (uncont.)";
pub const PERFLAB_MUTEX: &str = "perflab Mutex lock (uncont.)";

static STD_LOCK: std::sync::Mutex<u64> = std::sync::Mutex::new(0);
static PERFLAB_LOCK: std::sync::LazyLock<perflab::sync::Mutex<u64>> =
    std::sync::LazyLock::new(|| perflab::sync::Mutex::named("bench_lock", 0));

/// A perflab session and a hotpath guard, both quiet, so that the probes of
/// both libraries record; the session records a timeline when `traced`
/// (its buffers sized by the parent through `PERFLAB_TRACE_EVENTS`).
pub fn start_libraries(traced: bool) -> (perflab::Session, hotpath::HotpathGuard) {
    let builder = perflab::Session::builder()
        .name("span_cost")
        .print_table(false)
        .no_profile_file();
    let session = if traced {
        builder.trace_path("/dev/null").start()
    } else {
        builder.no_trace_file().start()
    };
    let hotpath_guard = hotpath::HotpathGuardBuilder::new("span_cost")
        .format(hotpath::Format::None)
        .build();
    (session, hotpath_guard)
}

#[inline(never)]
pub fn plain_call() {
    black_box(());
}

#[inline(never)]
pub fn perflab_span() {
    let _span = perflab::span!("bench_span");
    black_box(());
}

#[perflab::measure(name = "bench_measure")]
#[inline(never)]
fn perflab_measure() {
    black_box(());
}

#[hotpath::measure]
#[inline(never)]
pub fn hotpath_measure() {
    black_box(());
}

#[inline(never)]
fn two_quanta_reads(clock: &quanta::Clock) {
    let start = clock.raw();
    let end = clock.raw();
    black_box(clock.delta_as_nanos(start, end));
}

#[inline(never)]
fn two_instant_reads() {
    let start = Instant::now();
    black_box(start.elapsed());
}

#[inline(never)]
pub fn std_mutex_lock() {
    *black_box(&STD_LOCK).lock().unwrap() += 1;
}

#[inline(never)]
pub fn perflab_mutex_lock() {
    *black_box(&*PERFLAB_LOCK).lock().unwrap() += 1;
}
