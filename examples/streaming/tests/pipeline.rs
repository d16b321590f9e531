//! The pipeline keeps every record whatever its knobs, and computes the
//! aggregate a direct computation gives.

use streaming::record::{self, Aggregate};
use streaming::{Config, Engine, Wait};

fn config(engine: Engine, wait: Wait) -> Config {
    Config {
        // Not a multiple of the batch size: partial batches are left at the end.
        records: 10_007,
        batch_size: 64,
        partitions: 3,
        workers: 2,
        engine,
        wait,
        ..Config::default()
    }
}

/// The sum of kept values, computed without the pipeline.
fn direct_kept_sum(records: u64) -> i64 {
    let mut aggregate = Aggregate::default();
    for i in 0..records {
        aggregate.apply(&record::line(i)).expect("well-formed");
    }
    aggregate.total()
}

#[test]
fn every_waiting_strategy_writes_every_record_and_the_same_rows() {
    let mut checksums = Vec::new();
    for wait in [Wait::Spin, Wait::Notify, Wait::Recv] {
        let summary = streaming::run(&config(Engine::Sql, wait)).expect("runtime");
        assert_eq!(summary.records_in, 10_007, "{wait:?}");
        assert_eq!(summary.records_out, 10_007, "{wait:?}");
        assert_eq!(summary.kept_sum, direct_kept_sum(10_007), "{wait:?}");
        checksums.push(summary.checksum);
    }
    assert!(checksums.windows(2).all(|w| w[0] == w[1]), "{checksums:x?}");
}

#[test]
fn the_passthrough_engine_forwards_every_record_unchanged() {
    let summary = streaming::run(&config(Engine::Passthrough, Wait::Notify)).expect("runtime");
    assert_eq!(summary.records_out, 10_007);
    assert_eq!(summary.kept_sum, 0);
    let sql = streaming::run(&config(Engine::Sql, Wait::Notify)).expect("runtime");
    assert_ne!(
        summary.checksum, sql.checksum,
        "passthrough rows are the input lines"
    );
}

#[test]
fn dropping_the_partial_batches_loses_records() {
    let mut c = config(Engine::Sql, Wait::Recv);
    c.drop_partial_batches = true;
    let summary = streaming::run(&c).expect("runtime");
    assert!(summary.records_out < summary.records_in, "{summary:?}");
}

#[test]
fn misplaced_timers_read_zero_and_leave_everything_to_the_framework() {
    let mut c = config(Engine::Sql, Wait::Notify);
    c.misplaced_timers = true;
    let summary = streaming::run(&c).expect("runtime");
    assert_eq!(summary.records_out, 10_007);
    let text = summary.render();
    for phase in ["read", "process", "write"] {
        let line = text.lines().find(|l| l.starts_with(phase)).expect(phase);
        assert!(line.contains(" 0.000s"), "{line}");
    }
}

#[test]
fn a_malformed_line_is_refused_by_the_parser() {
    assert!(record::parse("12,x,payload").is_err());
    assert_eq!(record::parse("12,-5,payload"), Ok((12, -5)));
    assert_eq!(record::route_key("12,-5,payload"), 12);
}
