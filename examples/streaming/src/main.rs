//! `streaming`: run the pipeline once and print what it did and the
//! program's own phase figures.
#![warn(unreachable_pub)]

use std::process::ExitCode;
use std::time::Duration;

use clap::Parser;
use streaming::{Config, Engine, Wait};
use tracing_subscriber::layer::SubscriberExt;
use tracing_subscriber::util::SubscriberInitExt;

#[derive(Parser)]
#[command(
    name = "streaming",
    about = "A tokio streaming pipeline: reader, coordinator, partitions, writer"
)]
struct Cli {
    /// Records to stream (K and M suffixes: 100K).
    #[arg(long, default_value = "100K", value_parser = parse_count)]
    records: u64,
    /// Records per batch.
    #[arg(long, default_value_t = 100, value_parser = clap::value_parser!(u64).range(1..))]
    batch_size: u64,
    /// Partition tasks.
    #[arg(long, default_value_t = 4, value_parser = clap::value_parser!(u64).range(1..=1024))]
    partitions: u64,
    /// Worker threads of the runtime.
    #[arg(long, default_value_t = 2, value_parser = clap::value_parser!(u64).range(1..=256))]
    workers: u64,
    /// What a partition does: sql (parse, filter, aggregate) or passthrough.
    #[arg(long, value_enum, default_value = "sql")]
    engine: Engine,
    /// How a partition waits for a batch: spin (yield_now), notify or recv.
    #[arg(long, value_enum, default_value = "spin")]
    wait: Wait,
    /// Reproduce the original timers, stopped before the work they name.
    #[arg(long)]
    misplaced_timers: bool,
    /// Reproduce the fixed sleep inside the timed region (milliseconds).
    #[arg(long, default_value_t = 0)]
    settle_ms: u64,
    /// A bug: drop the partial batches left at the end of the stream.
    #[arg(long)]
    drop_partial_batches: bool,
}

fn parse_count(text: &str) -> Result<u64, String> {
    let (digits, factor) = match text.strip_suffix(['K', 'k']) {
        Some(d) => (d, 1_000),
        None => match text.strip_suffix('M') {
            Some(d) => (d, 1_000_000),
            None => (text, 1),
        },
    };
    digits
        .parse::<u64>()
        .ok()
        .and_then(|n| n.checked_mul(factor))
        .filter(|&n| n > 0)
        .ok_or_else(|| format!("`{text}` is not a record count: give a positive whole number, such as 100000 or 100K"))
}

#[perflab::main]
fn main() -> ExitCode {
    let cli = Cli::parse();
    tracing_subscriber::registry()
        .with(perflab_tracing::layer())
        .init();
    let config = Config {
        records: cli.records,
        batch_size: cli.batch_size as usize,
        partitions: cli.partitions as usize,
        workers: cli.workers as usize,
        engine: cli.engine,
        wait: cli.wait,
        misplaced_timers: cli.misplaced_timers,
        settle: Duration::from_millis(cli.settle_ms),
        drop_partial_batches: cli.drop_partial_batches,
    };
    match streaming::run(&config) {
        Ok(summary) => {
            print!("{}", summary.render());
            ExitCode::SUCCESS
        }
        Err(e) => {
            eprintln!("streaming: cannot start the tokio runtime: {e}");
            ExitCode::FAILURE
        }
    }
}
