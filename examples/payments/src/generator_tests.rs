//! The workloads do what their scenarios say, and both versions and both
//! paths (one thread, shards) print the same balances for them.

use std::collections::{HashMap, HashSet};
use std::path::Path;

use crate::engine::{Engine, Outcome};
use crate::generator::{Scenario, Workload, generate};
use crate::process::{Settings, parse_all, process};
use crate::record::{Kind, Record};
use crate::version::{V1Hasher, Version};

const TRANSACTIONS: usize = 20_000;
const ACCOUNTS: usize = 200;

fn stream(scenario: Scenario, broken: bool) -> String {
    let workload = Workload {
        scenario,
        transactions: TRANSACTIONS,
        accounts: ACCOUNTS,
        seed: 7,
        broken,
    };
    let mut out = Vec::new();
    generate(&workload, &mut out).unwrap();
    String::from_utf8(out).unwrap()
}

fn records(text: &str) -> Vec<Record> {
    parse_all(Path::new("stream.csv"), text, Version::V2).unwrap()
}

/// Outcomes of the stream's operations by kind.
fn outcomes(records: &[Record]) -> HashMap<(Kind, Outcome), usize> {
    let mut engine = Engine::<V1Hasher>::new();
    let mut tally = HashMap::new();
    for r in records {
        *tally.entry((r.kind, engine.apply(r))).or_insert(0) += 1;
    }
    tally
}

fn applied_share(tally: &HashMap<(Kind, Outcome), usize>, kinds: &[Kind]) -> f64 {
    let n: usize = kinds
        .iter()
        .map(|&k| tally.get(&(k, Outcome::Applied)).unwrap_or(&0))
        .sum();
    n as f64 / TRANSACTIONS as f64
}

#[test]
fn every_scenario_has_the_same_transactions_and_accounts_and_no_bad_reference() {
    for scenario in Scenario::ALL {
        let records = records(&stream(scenario, false));
        assert_eq!(records.len(), TRANSACTIONS, "{scenario:?}");
        let clients: HashSet<u16> = records.iter().map(|r| r.client).collect();
        assert_eq!(clients.len(), ACCOUNTS, "{scenario:?}");
        let bad: usize = outcomes(&records)
            .iter()
            .filter(|((_, o), _)| o.is_bad_reference())
            .map(|(_, n)| n)
            .sum();
        assert_eq!(bad, 0, "{scenario:?}");
    }
}

#[test]
fn the_dispute_heavy_mix_really_disputes_resolves_and_charges_back() {
    let tally = outcomes(&records(&stream(Scenario::DisputeHeavy, false)));
    let flow = applied_share(&tally, &[Kind::Dispute, Kind::Resolve, Kind::Chargeback]);
    assert!((0.15..=0.25).contains(&flow), "dispute flow {flow}");
    for kind in [Kind::Dispute, Kind::Resolve, Kind::Chargeback] {
        assert!(applied_share(&tally, &[kind]) > 0.0, "{kind:?}");
    }
    let baseline = outcomes(&records(&stream(Scenario::Baseline, false)));
    let base_flow = applied_share(&baseline, &[Kind::Dispute, Kind::Resolve, Kind::Chargeback]);
    assert!(
        (0.03..=0.07).contains(&base_flow),
        "baseline dispute flow {base_flow}"
    );
}

#[test]
fn the_broken_generator_issues_disputes_that_never_apply() {
    let records = records(&stream(Scenario::DisputeHeavy, true));
    let issued = records.iter().filter(|r| !r.kind.has_amount()).count();
    assert!(
        issued as f64 > 0.15 * TRANSACTIONS as f64,
        "{issued} referring lines"
    );
    let flow = applied_share(
        &outcomes(&records),
        &[Kind::Dispute, Kind::Resolve, Kind::Chargeback],
    );
    assert!(flow < 0.01, "dispute flow {flow}");
}

#[test]
fn hot_accounts_take_four_fifths_of_the_drawn_operations() {
    let records = records(&stream(Scenario::HotAccounts, false));
    let drawn = &records[ACCOUNTS..];
    let hot = drawn
        .iter()
        .filter(|r| usize::from(r.client) <= ACCOUNTS / 5)
        .count();
    let share = hot as f64 / drawn.len() as f64;
    assert!((0.77..=0.83).contains(&share), "hot share {share}");
}

#[test]
fn sparse_ids_spread_the_same_accounts_over_the_whole_id_space() {
    let records = records(&stream(Scenario::SparseIds, false));
    let ids: HashSet<u16> = records.iter().map(|r| r.client).collect();
    assert_eq!(ids.len(), ACCOUNTS);
    assert!(ids.iter().any(|&id| id > 50_000) && ids.iter().any(|&id| id < 15_000));
    assert!(
        ids.iter()
            .filter(|&&id| usize::from(id) <= ACCOUNTS)
            .count()
            < ACCOUNTS / 10
    );
}

#[test]
fn the_store_heavy_stream_stores_more_deposits() {
    let count = |s| {
        let tally = outcomes(&records(&stream(s, false)));
        applied_share(&tally, &[Kind::Deposit])
    };
    let (store, base) = (count(Scenario::StoreHeavy), count(Scenario::Baseline));
    assert!(store > 1.3 * base, "store-heavy {store}, baseline {base}");
}

#[test]
fn both_versions_on_one_thread_and_on_shards_print_the_same_balances() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("stream.csv");
    std::fs::write(&path, stream(Scenario::DisputeHeavy, false)).unwrap();
    let balances = |version, threads, presize| {
        let mut out = Vec::new();
        let settings = Settings {
            version,
            threads,
            presize,
        };
        process(&path, settings, &mut out).unwrap();
        String::from_utf8(out).unwrap()
    };
    let reference = balances(Version::V1, 0, false);
    assert_eq!(reference.lines().count(), ACCOUNTS + 1);
    assert!(reference.contains(",true"), "some account is locked");
    for (version, threads, presize) in [
        (Version::V2, 0, false),
        (Version::V1, 0, true),
        (Version::V2, 0, true),
        (Version::V1, 3, false),
        (Version::V2, 4, false),
    ] {
        assert_eq!(
            balances(version, threads, presize),
            reference,
            "{version:?} on {threads} threads, presize {presize}"
        );
    }
}

#[test]
fn the_same_seed_writes_the_same_stream() {
    assert_eq!(
        stream(Scenario::HotAccounts, false),
        stream(Scenario::HotAccounts, false)
    );
}
