//! The account rules: balances per client and the store of deposits that
//! disputes refer to.
//!
//! Rules (the usual ones for this kind of engine):
//! - a deposit credits available and total funds and is stored, so that it
//!   can be disputed later; a repeated transaction id is ignored;
//! - a withdrawal debits available and total funds if enough is available,
//!   and is ignored otherwise;
//! - a dispute refers to an earlier deposit of the same client: its amount
//!   moves from available to held (available may go negative);
//! - a resolve releases a disputed deposit's funds back to available;
//! - a chargeback takes a disputed deposit's funds out of held and total and
//!   locks the account;
//! - a locked account takes no further operations;
//! - a reference to an unknown transaction, another client's deposit, or a
//!   deposit not in the state the operation needs is ignored.
//!
//! Every ignored operation is counted by its reason, so that a workload
//! whose references never matched shows it in its counters.

use std::collections::HashMap;
use std::hash::BuildHasher;

use crate::amount::Amount;
use crate::record::{ClientId, Kind, Record, TxId};

/// Operations applied between two readings of the store-size gauge: often
/// enough to follow its growth, rarely enough to cost nothing measurable.
pub const GAUGE_EVERY: usize = 4096;

/// One client's balances.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct Account {
    /// Funds the client can withdraw.
    pub available: Amount,
    /// Funds held by open disputes.
    pub held: Amount,
    /// Whether a chargeback locked the account.
    pub locked: bool,
}

impl Account {
    /// Available plus held.
    pub fn total(&self) -> Amount {
        self.available
            .checked_add(self.held)
            .unwrap_or(Amount::ZERO)
    }
}

/// Where a stored deposit stands.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum DepositState {
    /// Never disputed, or disputed and resolved.
    Settled,
    /// Its funds are held.
    Disputed,
    /// Reversed by a chargeback.
    ChargedBack,
}

/// A deposit as the store keeps it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct StoredDeposit {
    /// Whose deposit it is.
    pub client: ClientId,
    /// How much it credited.
    pub amount: Amount,
    /// Where it stands.
    pub state: DepositState,
}

/// What became of one operation.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Outcome {
    /// The balances changed.
    Applied,
    /// The deposit's id was used before.
    DuplicateTx,
    /// The withdrawal asked for more than is available.
    InsufficientFunds,
    /// The account is locked by a chargeback.
    AccountLocked,
    /// The referred transaction is not a stored deposit.
    UnknownTx,
    /// The referred deposit belongs to another client.
    OtherClient,
    /// The referred deposit is not in the state the operation needs
    /// (disputing a disputed deposit, resolving an undisputed one).
    WrongState,
    /// A balance would leave the range an `i64` of ten-thousandths holds.
    Overflow,
}

impl Outcome {
    /// Whether this is a dispute, resolve or chargeback whose reference did not hold.
    pub fn is_bad_reference(self) -> bool {
        matches!(
            self,
            Outcome::UnknownTx | Outcome::OtherClient | Outcome::WrongState
        )
    }
}

/// Balances and the deposit store, with maps hashed by `H`.
#[derive(Debug, Default)]
pub struct Engine<H> {
    accounts: HashMap<ClientId, Account, H>,
    deposits: HashMap<TxId, StoredDeposit, H>,
}

impl<H: BuildHasher + Default> Engine<H> {
    /// An engine with no accounts.
    pub fn new() -> Self {
        Engine {
            accounts: HashMap::default(),
            deposits: HashMap::default(),
        }
    }

    /// Applies one operation under its span, and counts it by outcome.
    pub fn apply(&mut self, record: &Record) -> Outcome {
        let outcome = match record.kind {
            Kind::Deposit => perflab::span!("deposit", { self.deposit(record) }),
            Kind::Withdrawal => perflab::span!("withdrawal", { self.withdrawal(record) }),
            Kind::Dispute => perflab::span!("dispute", { self.dispute(record) }),
            Kind::Resolve => perflab::span!("resolve", { self.resolve(record) }),
            Kind::Chargeback => perflab::span!("chargeback", { self.chargeback(record) }),
        };
        count_outcome(record.kind, outcome);
        outcome
    }

    /// An engine whose maps hold `accounts` accounts and `deposits` stored
    /// deposits before they grow: with room for a whole stream, no insert
    /// ever rehashes a map into a larger one (`payments process --presize`,
    /// which measures what that growth costs).
    pub fn with_capacity(accounts: usize, deposits: usize) -> Self {
        Engine {
            accounts: HashMap::with_capacity_and_hasher(accounts, H::default()),
            deposits: HashMap::with_capacity_and_hasher(deposits, H::default()),
        }
    }

    /// The account of `client`, if it ever had an operation.
    pub fn account(&self, client: ClientId) -> Option<&Account> {
        self.accounts.get(&client)
    }

    /// Every account, in no particular order.
    pub fn accounts(&self) -> impl Iterator<Item = (ClientId, Account)> + '_ {
        self.accounts.iter().map(|(&id, &a)| (id, a))
    }

    /// The number of deposits stored.
    pub fn stored_deposits(&self) -> usize {
        self.deposits.len()
    }

    fn open_account(&mut self, client: ClientId) -> Option<&mut Account> {
        let account = self.accounts.entry(client).or_default();
        (!account.locked).then_some(account)
    }

    fn deposit(&mut self, r: &Record) -> Outcome {
        if self.deposits.contains_key(&r.tx) {
            return Outcome::DuplicateTx;
        }
        let Some(account) = self.open_account(r.client) else {
            return Outcome::AccountLocked;
        };
        let Some(available) = account.available.checked_add(r.amount) else {
            return Outcome::Overflow;
        };
        account.available = available;
        let stored = StoredDeposit {
            client: r.client,
            amount: r.amount,
            state: DepositState::Settled,
        };
        self.deposits.insert(r.tx, stored);
        Outcome::Applied
    }

    fn withdrawal(&mut self, r: &Record) -> Outcome {
        let Some(account) = self.open_account(r.client) else {
            return Outcome::AccountLocked;
        };
        if account.available < r.amount {
            return Outcome::InsufficientFunds;
        }
        account.available = Amount::from_ten_thousandths(
            account.available.ten_thousandths() - r.amount.ten_thousandths(),
        );
        Outcome::Applied
    }

    /// The referred deposit if it is the client's and in state `needed`, and
    /// the client's unlocked account; or why not.
    fn referred(
        &mut self,
        r: &Record,
        needed: DepositState,
    ) -> Result<(&mut StoredDeposit, &mut Account), Outcome> {
        let deposit = self.deposits.get_mut(&r.tx).ok_or(Outcome::UnknownTx)?;
        if deposit.client != r.client {
            return Err(Outcome::OtherClient);
        }
        if deposit.state != needed {
            return Err(Outcome::WrongState);
        }
        let account = self.accounts.entry(r.client).or_default();
        if account.locked {
            return Err(Outcome::AccountLocked);
        }
        Ok((deposit, account))
    }

    fn dispute(&mut self, r: &Record) -> Outcome {
        move_funds(self.referred(r, DepositState::Settled), |d, a| {
            a.available = a.available.checked_sub(d.amount)?;
            a.held = a.held.checked_add(d.amount)?;
            Some(DepositState::Disputed)
        })
    }

    fn resolve(&mut self, r: &Record) -> Outcome {
        move_funds(self.referred(r, DepositState::Disputed), |d, a| {
            a.held = a.held.checked_sub(d.amount)?;
            a.available = a.available.checked_add(d.amount)?;
            Some(DepositState::Settled)
        })
    }

    fn chargeback(&mut self, r: &Record) -> Outcome {
        move_funds(self.referred(r, DepositState::Disputed), |d, a| {
            a.held = a.held.checked_sub(d.amount)?;
            a.locked = true;
            Some(DepositState::ChargedBack)
        })
    }
}

/// Applies `change` to a copy of the account, and keeps it only if no
/// balance overflowed, so that a failed operation changes nothing.
fn move_funds(
    referred: Result<(&mut StoredDeposit, &mut Account), Outcome>,
    change: impl FnOnce(&StoredDeposit, &mut Account) -> Option<DepositState>,
) -> Outcome {
    let (deposit, account) = match referred {
        Ok(pair) => pair,
        Err(outcome) => return outcome,
    };
    let mut changed = *account;
    match change(deposit, &mut changed) {
        Some(state) => {
            *account = changed;
            deposit.state = state;
            Outcome::Applied
        }
        None => Outcome::Overflow,
    }
}

/// Counters: applied operations per kind (`deposits` ... `chargebacks`),
/// `dispute_flow` for applied disputes, resolves and chargebacks together,
/// and ignored operations per reason.
fn count_outcome(kind: Kind, outcome: Outcome) {
    match outcome {
        Outcome::Applied => match kind {
            Kind::Deposit => perflab::count!("deposits"),
            Kind::Withdrawal => perflab::count!("withdrawals"),
            Kind::Dispute => perflab::count!("disputes"),
            Kind::Resolve => perflab::count!("resolves"),
            Kind::Chargeback => perflab::count!("chargebacks"),
        },
        Outcome::DuplicateTx => perflab::count!("ignored_duplicate_tx"),
        Outcome::InsufficientFunds => perflab::count!("ignored_insufficient_funds"),
        Outcome::AccountLocked => perflab::count!("ignored_locked_account"),
        Outcome::Overflow => perflab::count!("ignored_overflow"),
        Outcome::UnknownTx | Outcome::OtherClient | Outcome::WrongState => {
            perflab::count!("ignored_references")
        }
    }
    if outcome == Outcome::Applied && !kind.has_amount() {
        perflab::count!("dispute_flow");
    }
}
