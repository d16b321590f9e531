//! `hash-trie STRUCTURE OPERATION N [--pool-slots SLOTS]`: runs the
//! workload of `n` operations on one structure, prints the CPU time of the
//! timed phase as `PERFLAB_METRIC op_cpu_ns` (its wall time as `op_wall_ns`),
//! and a checksum of the results that is the same for every structure.
//!
//! - STRUCTURE: `trie` (this crate's HAMT), `std` (`std::collections::HashMap`)
//!   or `rpds` (`rpds::HashTrieMap`), all with the same hash function.
//! - OPERATION: `insert` (timed: `n` inserts into an empty map) or `query`
//!   (the map built untimed, then `n` timed lookups).
//! - `--pool-slots`: the trie's pool size [default: sized for `n` keys];
//!   `--pool-slots 65536` is the fixed size the trie had before.
//!
//! The trie reports its pool as perflab gauges (`pool_utilisation_pct`, the
//! most slots needed at once over the pool's size; `pool_fallback_rate_pct`,
//! node arrays taken from the global allocator over all) and counters
//! (`pool_allocations`, `pool_fallbacks`, as totals).
#![warn(unreachable_pub)]

use std::collections::HashMap;
use std::hint::black_box;
use std::process::ExitCode;
use std::time::Instant;

use hash_trie::workload::{
    Map, contents_checksum, insert_keys, query_keys, rpds_map, run_inserts, run_queries,
};
use hash_trie::{BuildKeyHasher, HashTrie, PoolStats};

const USAGE: &str = "usage: hash-trie trie|std|rpds insert|query N [--pool-slots SLOTS]";

struct Args {
    structure: String,
    operation: String,
    n: usize,
    pool_slots: Option<usize>,
}

/// A count with an optional K or M suffix, decimal like perflab's (`64K` is 64,000).
fn count(text: &str, what: &str) -> Result<usize, String> {
    let (digits, scale) = match text.strip_suffix(['K', 'k']) {
        Some(d) => (d, 1_000),
        None => match text.strip_suffix('M') {
            Some(d) => (d, 1_000_000),
            None => (text, 1),
        },
    };
    digits
        .parse::<usize>()
        .ok()
        .and_then(|d| d.checked_mul(scale))
        .ok_or_else(|| format!("{what} '{text}' is not a count; use e.g. 1000, 64K or 4M\n{USAGE}"))
}

fn parse(args: &[String]) -> Result<Args, String> {
    let (positional, pool_slots) = match args {
        [rest @ .., flag, slots] if flag == "--pool-slots" => {
            (rest, Some(count(slots, "--pool-slots")?))
        }
        _ => (args, None),
    };
    let [structure, operation, n] = positional else {
        return Err(format!(
            "expected 3 arguments, got {}\n{USAGE}",
            positional.len()
        ));
    };
    if !["trie", "std", "rpds"].contains(&structure.as_str()) {
        return Err(format!(
            "unknown structure '{structure}'; use trie, std or rpds\n{USAGE}"
        ));
    }
    if !["insert", "query"].contains(&operation.as_str()) {
        return Err(format!(
            "unknown operation '{operation}'; use insert or query\n{USAGE}"
        ));
    }
    let n = count(n, "N")?;
    if n == 0 {
        return Err(format!("N must be at least 1\n{USAGE}"));
    }
    if pool_slots.is_some() && structure != "trie" {
        return Err(format!(
            "--pool-slots is a setting of the trie only\n{USAGE}"
        ));
    }
    Ok(Args {
        structure: structure.clone(),
        operation: operation.clone(),
        n,
        pool_slots,
    })
}

/// CPU time of the calling thread, in nanoseconds. The timed phase is
/// judged on it rather than on wall time: on a shared machine a run can be
/// preempted for most of its wall time, and that time is other programs'
/// work (`op_wall_ns` is printed beside it).
fn thread_cpu_ns() -> u128 {
    let mut t = libc::timespec {
        tv_sec: 0,
        tv_nsec: 0,
    };
    // SAFETY: clock_gettime writes the timespec it is given.
    let rc = unsafe { libc::clock_gettime(libc::CLOCK_THREAD_CPUTIME_ID, &mut t) };
    assert_eq!(rc, 0, "CLOCK_THREAD_CPUTIME_ID is available on Linux");
    t.tv_sec as u128 * 1_000_000_000 + t.tv_nsec as u128
}

/// The timed phase's cost.
struct Cost {
    cpu_ns: u128,
    wall_ns: u128,
}

/// Times `phase` in a span named `timed`.
fn timed<T>(phase: impl FnOnce() -> T) -> (T, Cost) {
    let (cpu, wall) = (thread_cpu_ns(), Instant::now());
    let result = {
        let _timed = perflab::span!("timed");
        phase()
    };
    let cost = Cost {
        cpu_ns: thread_cpu_ns() - cpu,
        wall_ns: wall.elapsed().as_nanos(),
    };
    (result, cost)
}

/// Runs the operation on `map`; returns the timed phase's cost and the
/// checksum line. Spans: `keys`, `timed`, and `untimed` (the map's build
/// before the lookups, or the contents checksum after the inserts).
fn run(map: &mut impl Map, operation: &str, n: usize) -> (Cost, String) {
    let inserts = {
        let _keys = perflab::span!("keys");
        insert_keys(n)
    };
    if operation == "insert" {
        let ((), cost) = timed(|| run_inserts(map, black_box(&inserts)));
        let _untimed = perflab::span!("untimed");
        let (keys, sum) = contents_checksum(map, n);
        (
            cost,
            format!("checksum insert n={n}: keys={keys} sum={sum}"),
        )
    } else {
        let queries = {
            let _keys = perflab::span!("keys");
            query_keys(n)
        };
        {
            let _untimed = perflab::span!("untimed");
            run_inserts(map, &inserts);
        }
        let ((found, sum), cost) = timed(|| run_queries(map, black_box(&queries)));
        (
            cost,
            format!("checksum query n={n}: found={found} sum={sum}"),
        )
    }
}

/// Drops the map in a span of its own: freeing node arrays that came from
/// the global allocator is part of what a fallback costs.
fn dropped<M>(map: M) {
    let _drop = perflab::span!("drop");
    drop(map);
}

fn report_pool(stats: PoolStats) {
    perflab::count!("pool_allocations", stats.allocations);
    perflab::count!("pool_fallbacks", stats.fallbacks);
    perflab::gauge!("pool_slots", stats.capacity);
    perflab::gauge!("pool_utilisation_pct", stats.utilisation_pct());
    perflab::gauge!("pool_fallback_rate_pct", stats.fallback_rate_pct());
    eprintln!(
        "pool: {} slots ({} handed out), {:.1}% utilisation, {} of {} node arrays from the global allocator ({:.1}%)",
        stats.capacity,
        stats.used,
        stats.utilisation_pct(),
        stats.fallbacks,
        stats.allocations,
        stats.fallback_rate_pct()
    );
}

#[perflab::main]
fn main() -> ExitCode {
    let argv: Vec<String> = std::env::args().skip(1).collect();
    let args = match parse(&argv) {
        Ok(args) => args,
        Err(message) => {
            eprintln!("hash-trie: {message}");
            return ExitCode::from(2);
        }
    };
    let (cost, checksum) = match args.structure.as_str() {
        "trie" => {
            let mut trie = match args.pool_slots {
                Some(slots) => HashTrie::with_pool_slots(slots),
                None => HashTrie::with_capacity(args.n),
            };
            let result = run(&mut trie, &args.operation, args.n);
            report_pool(trie.pool_stats());
            dropped(trie);
            result
        }
        "std" => {
            let mut map: HashMap<u64, u64, BuildKeyHasher> = HashMap::default();
            let result = run(&mut map, &args.operation, args.n);
            dropped(map);
            result
        }
        _ => {
            let mut map = rpds_map();
            let result = run(&mut map, &args.operation, args.n);
            dropped(map);
            result
        }
    };
    println!("PERFLAB_METRIC op_cpu_ns {} ns", cost.cpu_ns);
    println!("PERFLAB_METRIC op_wall_ns {} ns", cost.wall_ns);
    println!("{checksum}");
    ExitCode::SUCCESS
}
