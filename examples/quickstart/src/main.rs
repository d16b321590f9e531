//! A program whose speed an environment toggle changes by a known amount,
//! while its answer stays the same.
//!
//! It hashes a fixed number of blocks, then hashes a tenth of them again as
//! a "check" whose result is never used. With `QUICKSTART_FAST=1` it skips
//! that check, as an optimisation would: 1.0 units of work instead of 1.1,
//! so it runs about 10% faster (1.1/1.0 − 1); with `QUICKSTART_SLOW=1` it
//! checks a fifth (1.2 units), about 8% slower (1.1/1.2 − 1). Every variant prints the same
//! digest, so perflab sees that both sides did the same job. It also
//! reports its own throughput as a metric line, which `perflab ab --measure
//! items_per_s` can decide on.
#![warn(unreachable_pub)]

use std::hint::black_box;
use std::time::Instant;

/// Blocks hashed by the baseline; about 25 ms on a 2020s x86 core.
const BASELINE_BLOCKS: u64 = 400_000;

fn enabled(name: &str) -> bool {
    std::env::var(name).is_ok_and(|v| v == "1")
}

/// A few rounds of a 64-bit mix (splitmix64) per block: cheap, branch-free
/// and impossible for the compiler to skip thanks to `black_box`.
fn hash_blocks(blocks: u64) -> u64 {
    let mut state = 0x9e37_79b9_7f4a_7c15_u64;
    for i in 0..blocks {
        let mut z = black_box(state ^ i);
        for _ in 0..16 {
            z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
            z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
            z ^= z >> 31;
        }
        state = state.wrapping_add(z);
    }
    state
}

fn main() {
    let blocks = BASELINE_BLOCKS;
    let checked = if enabled("QUICKSTART_FAST") {
        0
    } else if enabled("QUICKSTART_SLOW") {
        blocks / 5
    } else {
        blocks / 10
    };
    let started = Instant::now();
    let digest = hash_blocks(blocks);
    // The redundant check: its result is never used, only paid for.
    black_box(hash_blocks(checked));
    let seconds = started.elapsed().as_secs_f64();
    println!("hashed {blocks} blocks, digest {digest:016x}");
    println!(
        "PERFLAB_METRIC items_per_s {:.0} blocks/s",
        blocks as f64 / seconds
    );
}
