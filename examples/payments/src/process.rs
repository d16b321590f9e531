//! The pipeline of one run: read the stream, parse it, apply it on one
//! thread or on shards, print the balances.

use std::hash::BuildHasher;
use std::io::{self, Write};
use std::path::{Path, PathBuf};

use crate::engine::{Account, Engine, GAUGE_EVERY};
use crate::record::{self, ClientId, Kind, Record, RecordError};
use crate::sharded;
use crate::version::{V1Hasher, V2Hasher, Version};

/// Why a run failed.
#[derive(Debug, thiserror::Error)]
pub enum ProcessError {
    /// The input could not be read.
    #[error("cannot read {path}: {source}")]
    Read {
        /// The input file.
        path: PathBuf,
        /// What the system said.
        source: io::Error,
    },
    /// A line of the input is not a transaction.
    #[error("{path}:{line}: {source}")]
    Record {
        /// The input file.
        path: PathBuf,
        /// Its line number, from 1.
        line: usize,
        /// What was wrong.
        source: RecordError,
    },
    /// The balances could not be written.
    #[error("cannot write the balances: {0}")]
    Write(#[from] io::Error),
}

/// How a run processes its input.
#[derive(Debug, Clone, Copy)]
pub struct Settings {
    /// The engine version.
    pub version: Version,
    /// Worker threads owning shards of the accounts; 0 applies on the
    /// reading thread.
    pub threads: usize,
    /// Size the maps for the whole stream before applying it, so that they
    /// never grow (on one thread only).
    pub presize: bool,
}

/// Reads `path`, applies it, and writes the balances to `out`.
pub fn process(path: &Path, settings: Settings, out: &mut impl Write) -> Result<(), ProcessError> {
    let text = perflab::span!("read", {
        std::fs::read_to_string(path).map_err(|source| ProcessError::Read {
            path: path.to_path_buf(),
            source,
        })?
    });
    let records = perflab::span!("parse", { parse_all(path, &text, settings.version)? });
    perflab::count!("transactions", records.len());
    let accounts = match (settings.version, settings.threads) {
        (Version::V1, 0) => apply_all::<V1Hasher>(&records, settings.presize),
        (Version::V2, 0) => apply_all::<V2Hasher>(&records, settings.presize),
        (Version::V1, n) => sharded::apply::<V1Hasher>(records, n, 1),
        (Version::V2, n) => sharded::apply::<V2Hasher>(records, n, settings.version.batch()),
    };
    perflab::count!("accounts", accounts.len());
    perflab::span!("output", { write_balances(accounts, out)? });
    Ok(())
}

/// Every line after the header, parsed by `version`; the first bad line
/// stops the run with its number. Kept out of line, so that a sampling
/// profile names the phase.
#[inline(never)]
pub fn parse_all(path: &Path, text: &str, version: Version) -> Result<Vec<Record>, ProcessError> {
    let mut records = Vec::with_capacity(text.len() / 24);
    for (index, line) in text.lines().enumerate() {
        if line.trim().is_empty() || (index == 0 && record::is_header(line)) {
            continue;
        }
        let record = version.parse(line).map_err(|source| ProcessError::Record {
            path: path.to_path_buf(),
            line: index + 1,
            source,
        })?;
        records.push(record);
    }
    Ok(records)
}

/// Applies every record on this thread; the accounts at the end. With
/// `presize`, the maps are first given room for every client id and every
/// deposit of the stream, so that no insert grows them. Kept out of line,
/// so that a sampling profile names the phase.
#[inline(never)]
pub fn apply_all<H: BuildHasher + Default>(
    records: &[Record],
    presize: bool,
) -> Vec<(ClientId, Account)> {
    let _apply = perflab::span!("apply");
    let mut engine = if presize {
        let deposits = records.iter().filter(|r| r.kind == Kind::Deposit).count();
        let accounts = records.len().min(usize::from(ClientId::MAX) + 1);
        Engine::<H>::with_capacity(accounts, deposits)
    } else {
        Engine::<H>::new()
    };
    for (i, record) in records.iter().enumerate() {
        engine.apply(record);
        if i.is_multiple_of(GAUGE_EVERY) {
            perflab::gauge!("stored_deposits", engine.stored_deposits());
        }
    }
    perflab::gauge!("stored_deposits", engine.stored_deposits());
    engine.accounts().collect()
}

/// `client,available,held,total,locked`, one line per account, by client id,
/// so that every run and both versions print the same text. Kept out of
/// line, so that a sampling profile names the phase.
#[inline(never)]
pub fn write_balances(
    mut sorted: Vec<(ClientId, Account)>,
    out: &mut impl Write,
) -> io::Result<()> {
    sorted.sort_unstable_by_key(|&(id, _)| id);
    let mut out = io::BufWriter::new(out);
    writeln!(out, "client,available,held,total,locked")?;
    for (id, a) in sorted {
        writeln!(
            out,
            "{id},{},{},{},{}",
            a.available,
            a.held,
            a.total(),
            a.locked
        )?;
    }
    out.flush()
}
