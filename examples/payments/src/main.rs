//! `payments`: generate a workload, or process a transaction stream and
//! print the balances.
#![warn(unreachable_pub)]

use std::io::Write;
use std::path::PathBuf;
use std::process::ExitCode;

use clap::{Parser, Subcommand};
use payments::generator::{self, Scenario, Workload};
use payments::process::{self, Settings};
use payments::version::Version;

#[derive(Parser)]
#[command(
    name = "payments",
    about = "A payments engine and its workload generator"
)]
struct Cli {
    #[command(subcommand)]
    command: Command,
}

#[derive(Subcommand)]
enum Command {
    /// Apply a CSV stream (`type, client, tx, amount`) and print the balances.
    Process {
        /// The stream.
        input: PathBuf,
        /// Engine version: v1 (the first) or v2 (no per-record costs).
        #[arg(long, default_value = "v1")]
        engine: Version,
        /// Worker threads owning shards of the accounts; 0 applies on the
        /// reading thread.
        #[arg(long, default_value_t = 0)]
        threads: usize,
        /// Size the account and deposit maps for the whole stream before
        /// applying it, so that they never grow (one thread only).
        #[arg(long)]
        presize: bool,
    },
    /// Write a scenario's workload as CSV.
    Generate {
        /// baseline, hot-accounts, dispute-heavy, store-heavy, sparse-ids or
        /// multi-threaded.
        #[arg(long)]
        scenario: Scenario,
        /// Transactions in the stream, the opening deposits included.
        #[arg(long, default_value_t = 1_000_000)]
        transactions: usize,
        /// Accounts; by default one per hundred transactions.
        #[arg(long)]
        accounts: Option<usize>,
        /// Seed of the random draws: the same seed writes the same stream.
        #[arg(long, default_value_t = 1)]
        seed: u64,
        /// Draw each operation's kind and client together, as the original
        /// generator did (its disputes name no real deposit).
        #[arg(long)]
        broken: bool,
        /// Output file (default: stdout).
        #[arg(long, short)]
        output: Option<PathBuf>,
    },
}

fn main() -> ExitCode {
    let cli = Cli::parse();
    let result = match cli.command {
        Command::Process {
            input,
            engine,
            threads,
            presize,
        } => {
            if presize && threads > 0 {
                eprintln!(
                    "payments: --presize sizes the maps of one thread; drop --threads {threads} or --presize"
                );
                return ExitCode::from(2);
            }
            run_process(
                input,
                Settings {
                    version: engine,
                    threads,
                    presize,
                },
            )
        }
        Command::Generate {
            scenario,
            transactions,
            accounts,
            seed,
            broken,
            output,
        } => {
            let workload = Workload {
                scenario,
                transactions,
                accounts: accounts.unwrap_or((transactions / 100).max(1)),
                seed,
                broken,
            };
            run_generate(&workload, output)
        }
    };
    match result {
        Ok(()) => ExitCode::SUCCESS,
        Err(message) => {
            eprintln!("payments: {message}");
            ExitCode::from(2)
        }
    }
}

/// One instrumented session per run: its profile goes where
/// `PERFLAB_PROFILE` says.
#[perflab::main(name = "payments")]
fn run_process(input: PathBuf, settings: Settings) -> Result<(), String> {
    let stdout = std::io::stdout();
    let mut out = stdout.lock();
    process::process(&input, settings, &mut out).map_err(|e| e.to_string())?;
    out.flush()
        .map_err(|e| format!("cannot write the balances: {e}"))
}

fn run_generate(workload: &Workload, output: Option<PathBuf>) -> Result<(), String> {
    let result = match &output {
        Some(path) => {
            let file = std::fs::File::create(path)
                .map_err(|e| format!("cannot create {}: {e}", path.display()))?;
            generator::generate(workload, &mut std::io::BufWriter::new(file))
        }
        None => generator::generate(workload, &mut std::io::stdout().lock()),
    };
    result.map_err(|e| e.to_string())
}
