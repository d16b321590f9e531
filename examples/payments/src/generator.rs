//! Workloads for the six scenarios, each changing exactly one thing against
//! the uniform baseline: the same number of transactions and of accounts
//! everywhere.
//!
//! | scenario       | what changes against `baseline`                             |
//! | -------------- | ----------------------------------------------------------- |
//! | baseline       | nothing: uniform clients, ids 1..=A, 5% dispute flow         |
//! | hot-accounts   | clients drawn 80/20: 80% of operations on 20% of accounts    |
//! | dispute-heavy  | the mix: 20% disputes, resolves and chargebacks              |
//! | store-heavy    | the mix: 85% deposits, so the deposit store grows 1.4x longer |
//! | sparse-ids     | the same A accounts, ids spread over the whole 1..=65535     |
//! | multi-threaded | nothing here: the baseline's stream, applied on shards       |
//!
//! The stream opens every account with a deposit (so every scenario has
//! exactly A accounts), then draws each operation's client from the
//! scenario's client distribution and, independently, its kind from the
//! scenario's mix. A dispute refers to a settled deposit of that client, a
//! resolve or chargeback to a disputed one, picked at random among them;
//! when the client has none, the operation becomes the closest one it can
//! do (a resolve becomes a dispute, a dispute a deposit), and a locked
//! client (after a chargeback) is drawn again. So every reference is real
//! and the mix is the one stated, within a fraction of a percent.
//!
//! `broken` reproduces the generator this investigation started from: one
//! draw decides both the kind and the client (so each kind goes to its own
//! slice of the clients), and a referring operation names a random earlier
//! transaction id. Its disputes almost never name a deposit of their own
//! client, and the engine ignores them.

use std::io::{self, Write};
use std::str::FromStr;

use crate::amount::Amount;
use crate::record::{ClientId, Kind, TxId};

/// The six scenarios.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Scenario {
    /// Uniform clients, dense ids, the everyday mix.
    Baseline,
    /// 80% of operations on 20% of the accounts.
    HotAccounts,
    /// 20% of operations are disputes, resolves and chargebacks.
    DisputeHeavy,
    /// 85% deposits: a longer deposit store.
    StoreHeavy,
    /// Account ids spread over the whole id space.
    SparseIds,
    /// The baseline's stream (the engine shards it).
    MultiThreaded,
}

impl Scenario {
    /// Every scenario, in the order of the table above.
    pub const ALL: [Scenario; 6] = [
        Scenario::Baseline,
        Scenario::HotAccounts,
        Scenario::DisputeHeavy,
        Scenario::StoreHeavy,
        Scenario::SparseIds,
        Scenario::MultiThreaded,
    ];

    /// Its name on the command line and in the suite.
    pub fn name(self) -> &'static str {
        match self {
            Scenario::Baseline => "baseline",
            Scenario::HotAccounts => "hot-accounts",
            Scenario::DisputeHeavy => "dispute-heavy",
            Scenario::StoreHeavy => "store-heavy",
            Scenario::SparseIds => "sparse-ids",
            Scenario::MultiThreaded => "multi-threaded",
        }
    }

    /// Shares of deposit, withdrawal, dispute, resolve and chargeback, in
    /// ten-thousandths of the drawn operations. Chargebacks lock accounts
    /// for good, so they stay rare: a few percent of the accounts by the end.
    pub fn mix(self) -> [u32; 5] {
        match self {
            Scenario::DisputeHeavy => [4500, 3500, 1100, 880, 20],
            Scenario::StoreHeavy => [8500, 1000, 300, 195, 5],
            _ => [6000, 3500, 300, 195, 5],
        }
    }
}

impl FromStr for Scenario {
    type Err = String;

    fn from_str(text: &str) -> Result<Scenario, String> {
        Scenario::ALL
            .into_iter()
            .find(|s| s.name() == text)
            .ok_or_else(|| {
                let names: Vec<&str> = Scenario::ALL.iter().map(|s| s.name()).collect();
                format!(
                    "`{text}` is not a scenario: use one of {}",
                    names.join(", ")
                )
            })
    }
}

/// What to generate.
#[derive(Debug, Clone, Copy)]
pub struct Workload {
    /// The scenario.
    pub scenario: Scenario,
    /// Lines in the stream, the opening deposits included.
    pub transactions: usize,
    /// Accounts, each opened by the stream's first deposits.
    pub accounts: usize,
    /// Seed of the random draws.
    pub seed: u64,
    /// Draw kind and client together, as the original generator did.
    pub broken: bool,
}

/// Why a workload cannot be generated.
#[derive(Debug, thiserror::Error)]
pub enum WorkloadError {
    /// More accounts than 16-bit ids, or none.
    #[error("--accounts {0}: use 1 to 65535 accounts (client ids are 16-bit)")]
    Accounts(usize),
    /// Fewer transactions than accounts.
    #[error(
        "--transactions {transactions} is fewer than --accounts {accounts}: every account opens with a deposit"
    )]
    TooFewTransactions {
        /// Transactions asked for.
        transactions: usize,
        /// Accounts asked for.
        accounts: usize,
    },
    /// The stream could not be written.
    #[error("cannot write the workload: {0}")]
    Write(#[from] io::Error),
}

/// One client's deposits that a dispute, resolve or chargeback can name.
#[derive(Default)]
struct History {
    settled: Vec<TxId>,
    disputed: Vec<TxId>,
    locked: bool,
}

/// Writes the workload's stream as CSV to `out`.
pub fn generate(w: &Workload, out: &mut impl Write) -> Result<(), WorkloadError> {
    if w.accounts == 0 || w.accounts > usize::from(u16::MAX) {
        return Err(WorkloadError::Accounts(w.accounts));
    }
    if w.transactions < w.accounts {
        return Err(WorkloadError::TooFewTransactions {
            transactions: w.transactions,
            accounts: w.accounts,
        });
    }
    let mut rng = fastrand::Rng::with_seed(w.seed);
    let ids = client_ids(w, &mut rng);
    let mut out = io::BufWriter::new(out);
    writeln!(out, "type,client,tx,amount")?;
    let mut histories: Vec<History> = (0..ids.len()).map(|_| History::default()).collect();
    let mut next_tx: TxId = 1;
    for (index, &id) in ids.iter().enumerate() {
        write_amount_line(
            &mut out,
            Kind::Deposit,
            id,
            next_tx,
            deposit_amount(&mut rng),
        )?;
        histories[index].settled.push(next_tx);
        next_tx += 1;
    }
    let mix = w.scenario.mix();
    for _ in w.accounts..w.transactions {
        if w.broken {
            broken_operation(&mut out, &mut rng, &ids, mix, &mut next_tx)?;
            continue;
        }
        let index = draw_client(w, &mut rng, &histories);
        let kind = draw_kind(&mut rng, mix);
        let history = &mut histories[index];
        let (id, tx) = (ids[index], next_tx);
        match feasible(kind, history) {
            Kind::Deposit => {
                write_amount_line(&mut out, Kind::Deposit, id, tx, deposit_amount(&mut rng))?;
                history.settled.push(tx);
                next_tx += 1;
            }
            Kind::Withdrawal => {
                let amount = Amount::from_ten_thousandths(rng.i64(10_000..=1_000_000));
                write_amount_line(&mut out, Kind::Withdrawal, id, tx, amount)?;
                next_tx += 1;
            }
            Kind::Dispute => {
                let deposit = take_random(&mut rng, &mut history.settled);
                history.disputed.push(deposit);
                writeln!(out, "dispute,{id},{deposit},")?;
            }
            kind @ (Kind::Resolve | Kind::Chargeback) => {
                let deposit = take_random(&mut rng, &mut history.disputed);
                if kind == Kind::Resolve {
                    history.settled.push(deposit);
                } else {
                    history.locked = true;
                }
                writeln!(out, "{},{id},{deposit},", kind.name())?;
            }
        }
    }
    out.flush()?;
    Ok(())
}

/// The A account ids: 1..=A, or for `sparse-ids` A distinct ids drawn from
/// the whole 1..=65535.
fn client_ids(w: &Workload, rng: &mut fastrand::Rng) -> Vec<ClientId> {
    if w.scenario != Scenario::SparseIds {
        return (1..=w.accounts as u16).collect();
    }
    let mut all: Vec<ClientId> = (1..=u16::MAX).collect();
    // A partial Fisher-Yates shuffle: the first A places hold a uniform sample.
    for i in 0..w.accounts {
        let j = rng.usize(i..all.len());
        all.swap(i, j);
    }
    all.truncate(w.accounts);
    all
}

/// An unlocked client's index: uniform, or 80/20 for `hot-accounts` (80%
/// of draws from the first fifth of the accounts). After many locked draws
/// a locked client is taken: its operation is then ignored, and counted.
fn draw_client(w: &Workload, rng: &mut fastrand::Rng, histories: &[History]) -> usize {
    let hot = (w.accounts / 5).max(1);
    for attempt in 0.. {
        let index = match w.scenario {
            Scenario::HotAccounts if hot < w.accounts => {
                if rng.u32(0..10) < 8 {
                    rng.usize(0..hot)
                } else {
                    rng.usize(hot..w.accounts)
                }
            }
            _ => rng.usize(0..w.accounts),
        };
        if !histories[index].locked || attempt == 100 {
            return index;
        }
    }
    unreachable!("the draws end at attempt 100")
}

fn draw_kind(rng: &mut fastrand::Rng, mix: [u32; 5]) -> Kind {
    kind_at(rng.u32(0..mix.iter().sum()), mix)
}

fn kind_at(mut point: u32, mix: [u32; 5]) -> Kind {
    const KINDS: [Kind; 5] = [
        Kind::Deposit,
        Kind::Withdrawal,
        Kind::Dispute,
        Kind::Resolve,
        Kind::Chargeback,
    ];
    for (kind, share) in KINDS.into_iter().zip(mix) {
        if point < share {
            return kind;
        }
        point -= share;
    }
    Kind::Chargeback
}

/// The kind the client can do: resolves and chargebacks need a disputed
/// deposit, disputes a settled one.
fn feasible(kind: Kind, history: &History) -> Kind {
    match kind {
        Kind::Resolve | Kind::Chargeback if !history.disputed.is_empty() => kind,
        Kind::Resolve | Kind::Chargeback | Kind::Dispute if !history.settled.is_empty() => {
            Kind::Dispute
        }
        Kind::Resolve | Kind::Chargeback | Kind::Dispute => Kind::Deposit,
        other => other,
    }
}

fn take_random(rng: &mut fastrand::Rng, from: &mut Vec<TxId>) -> TxId {
    let at = rng.usize(0..from.len());
    from.swap_remove(at)
}

fn deposit_amount(rng: &mut fastrand::Rng) -> Amount {
    Amount::from_ten_thousandths(rng.i64(100_000..=10_000_000))
}

/// The original generator's operation: one draw picks the kind and the
/// client, and a reference names any earlier transaction.
fn broken_operation(
    out: &mut impl Write,
    rng: &mut fastrand::Rng,
    ids: &[ClientId],
    mix: [u32; 5],
    next_tx: &mut TxId,
) -> io::Result<()> {
    let total: u32 = mix.iter().sum();
    let point = rng.u32(0..total);
    let kind = kind_at(point, mix);
    let id = ids[(point as usize * ids.len()) / total as usize];
    if kind.has_amount() {
        let amount = deposit_amount(rng);
        write_amount_line(out, kind, id, *next_tx, amount)?;
        *next_tx += 1;
        Ok(())
    } else {
        let referred = rng.u32(1..*next_tx);
        writeln!(out, "{},{id},{referred},", kind.name())
    }
}

fn write_amount_line(
    out: &mut impl Write,
    kind: Kind,
    client: ClientId,
    tx: TxId,
    amount: Amount,
) -> io::Result<()> {
    writeln!(out, "{},{client},{tx},{amount}", kind.name())
}
