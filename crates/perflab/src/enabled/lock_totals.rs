//! Lock records: each `perflab::sync` lock's hold site and wait span,
//! summed over threads and merged by name and mode.

use perflab_format::profile::{LockRecord, SpanKind};

use crate::imp::clock::Timer;
use crate::imp::site::SpanSite;
use crate::imp::span_totals::SpanTotals;

/// One record per (lock name, mode), in order of total wait, then hold.
/// Reads `totals` (from [`crate::imp::span_totals::site_totals`]); the wait
/// spans stay there, to be reported as spans too.
pub(crate) fn lock_records(
    totals: &[(&'static SpanSite, SpanTotals)],
    timer: &Timer,
) -> Vec<LockRecord> {
    let mut merged: Vec<(&'static SpanSite, SpanTotals, SpanTotals)> = Vec::new();
    for sites in crate::sync::registered_locks() {
        let (Some((_, hold)), Some((_, wait))) = (
            totals.get(sites.hold.index()),
            totals.get(sites.wait.index()),
        ) else {
            continue;
        };
        let same = merged.iter_mut().find(|(other, _, _)| {
            other.location.name == sites.hold.location.name && other.purpose == sites.hold.purpose
        });
        match same {
            Some((_, holds, waits)) => {
                holds.merge(hold.clone());
                waits.merge(wait.clone());
            }
            None => merged.push((sites.hold, hold.clone(), wait.clone())),
        }
    }
    let mut records: Vec<LockRecord> = merged
        .into_iter()
        .map(|(site, holds, waits)| {
            let hold = holds.record(&site.location, SpanKind::Span, timer);
            let wait = waits.record(&site.location, SpanKind::Span, timer);
            LockRecord {
                name: site.location.name.to_string(),
                mode: match site.purpose {
                    crate::imp::site::SitePurpose::LockHold(mode) => mode,
                    crate::imp::site::SitePurpose::Span => perflab_format::profile::LockMode::Other,
                },
                file: site.location.file.to_string(),
                line: site.location.line,
                acquisitions: hold.calls,
                contended: wait.calls,
                wait_ns: wait.inclusive_ns,
                wait_p50_ns: wait.p50_ns,
                wait_p99_ns: wait.p99_ns,
                wait_max_ns: wait.max_ns,
                hold_ns: hold.inclusive_ns,
                hold_p50_ns: hold.p50_ns,
                hold_p99_ns: hold.p99_ns,
                hold_max_ns: hold.max_ns,
                threads: hold.threads,
            }
        })
        .collect();
    records.sort_by(|a, b| {
        b.wait_ns
            .cmp(&a.wait_ns)
            .then(b.hold_ns.cmp(&a.hold_ns))
            .then(a.name.cmp(&b.name))
    });
    records
}
