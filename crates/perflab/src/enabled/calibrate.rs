//! The cost of one span on this machine, measured once per process when the
//! first session starts, so that the report can say which figures are
//! mostly the probe's own cost.

use std::hint::black_box;
use std::sync::OnceLock;

use crate::imp::binding::current_table;
use crate::imp::clock::timer;
use crate::imp::cpu_time::ThreadCpuClock;
use crate::imp::span::SpanGuard;
use crate::imp::thread_table::{ThreadIdentity, ThreadTable};

static SPAN_COST_NS: OnceLock<f64> = OnceLock::new();

const SPANS_PER_BATCH: u32 = 2_000;
const BATCHES: usize = 11;

/// Nanoseconds one span adds to the code around it (enter, leave, two clock reads).
pub(crate) fn span_cost_ns() -> f64 {
    *SPAN_COST_NS.get_or_init(measure)
}

/// Median over batches of the mean cost of an empty span, recorded into a
/// private table so that no session sees the calibration.
#[cold]
fn measure() -> f64 {
    let timer = timer();
    let identity = ThreadIdentity {
        id: 0,
        name: None,
        os_tid: None,
        cpu_clock: ThreadCpuClock::of_this_thread(),
    };
    let table = ThreadTable::new(timer, identity, 1, 0, 0, 0);
    let Some(slot) = table.slot(0) else {
        return 0.0;
    };
    let mut batch_costs = Vec::with_capacity(BATCHES);
    for _ in 0..BATCHES {
        let start = timer.ticks();
        for _ in 0..SPANS_PER_BATCH {
            // The binding lookup a real probe makes, then enter and leave.
            black_box(current_table());
            drop(black_box(SpanGuard::enter_on(&table, slot)));
        }
        let elapsed = timer.ticks().saturating_sub(start);
        batch_costs.push(timer.ns_f64(elapsed as f64) / f64::from(SPANS_PER_BATCH));
    }
    batch_costs.sort_by(f64::total_cmp);
    batch_costs[BATCHES / 2]
}
