//! The operation rules, one at a time.

use crate::amount::Amount;
use crate::engine::{Account, Engine, Outcome};
use crate::record::{Kind, Record};
use crate::version::{V1Hasher, V2Hasher};

fn money(text: &str) -> Amount {
    text.parse().unwrap()
}

fn op(kind: Kind, client: u16, tx: u32, amount: &str) -> Record {
    Record {
        kind,
        client,
        tx,
        amount: if amount.is_empty() {
            Amount::ZERO
        } else {
            money(amount)
        },
    }
}

fn engine_after(records: &[Record]) -> Engine<V1Hasher> {
    let mut engine = Engine::new();
    for r in records {
        engine.apply(r);
    }
    engine
}

fn balances(engine: &Engine<V1Hasher>, client: u16) -> (Amount, Amount, Amount, bool) {
    let a: Account = *engine.account(client).expect("account exists");
    (a.available, a.held, a.total(), a.locked)
}

#[test]
fn deposits_and_withdrawals_move_available_and_total_funds() {
    let engine = engine_after(&[
        op(Kind::Deposit, 1, 1, "10.5"),
        op(Kind::Withdrawal, 1, 2, "0.25"),
    ]);
    assert_eq!(
        balances(&engine, 1),
        (money("10.25"), Amount::ZERO, money("10.25"), false)
    );
}

#[test]
fn a_withdrawal_beyond_the_available_funds_is_ignored() {
    let mut engine = engine_after(&[op(Kind::Deposit, 1, 1, "5")]);
    assert_eq!(
        engine.apply(&op(Kind::Withdrawal, 1, 2, "5.0001")),
        Outcome::InsufficientFunds
    );
    assert_eq!(
        engine.apply(&op(Kind::Withdrawal, 1, 3, "5")),
        Outcome::Applied
    );
    assert_eq!(balances(&engine, 1).0, Amount::ZERO);
}

#[test]
fn a_repeated_deposit_id_is_ignored() {
    let mut engine = engine_after(&[op(Kind::Deposit, 1, 1, "5")]);
    assert_eq!(
        engine.apply(&op(Kind::Deposit, 2, 1, "7")),
        Outcome::DuplicateTx
    );
    assert_eq!(engine.account(2), None);
    assert_eq!(engine.stored_deposits(), 1);
}

#[test]
fn a_dispute_holds_the_deposit_and_a_resolve_releases_it() {
    let mut engine = engine_after(&[op(Kind::Deposit, 1, 1, "10"), op(Kind::Deposit, 1, 2, "3")]);
    assert_eq!(engine.apply(&op(Kind::Dispute, 1, 1, "")), Outcome::Applied);
    assert_eq!(
        balances(&engine, 1),
        (money("3"), money("10"), money("13"), false)
    );
    assert_eq!(engine.apply(&op(Kind::Resolve, 1, 1, "")), Outcome::Applied);
    assert_eq!(
        balances(&engine, 1),
        (money("13"), Amount::ZERO, money("13"), false)
    );
}

#[test]
fn a_dispute_after_a_withdrawal_leaves_available_funds_negative() {
    let engine = engine_after(&[
        op(Kind::Deposit, 1, 1, "10"),
        op(Kind::Withdrawal, 1, 2, "8"),
        op(Kind::Dispute, 1, 1, ""),
    ]);
    let minus_eight = Amount::from_ten_thousandths(-80_000);
    assert_eq!(
        balances(&engine, 1),
        (minus_eight, money("10"), money("2"), false)
    );
}

#[test]
fn a_chargeback_reverses_the_deposit_and_locks_the_account() {
    let mut engine = engine_after(&[
        op(Kind::Deposit, 1, 1, "10"),
        op(Kind::Deposit, 1, 2, "4"),
        op(Kind::Dispute, 1, 1, ""),
    ]);
    assert_eq!(
        engine.apply(&op(Kind::Chargeback, 1, 1, "")),
        Outcome::Applied
    );
    assert_eq!(
        balances(&engine, 1),
        (money("4"), Amount::ZERO, money("4"), true)
    );
    for locked in [
        op(Kind::Deposit, 1, 3, "1"),
        op(Kind::Withdrawal, 1, 4, "1"),
        op(Kind::Dispute, 1, 2, ""),
    ] {
        assert_eq!(engine.apply(&locked), Outcome::AccountLocked, "{locked:?}");
    }
    assert_eq!(
        balances(&engine, 1),
        (money("4"), Amount::ZERO, money("4"), true)
    );
}

#[test]
fn a_dispute_of_an_unknown_transaction_is_ignored() {
    let mut engine = engine_after(&[op(Kind::Deposit, 1, 1, "10")]);
    assert_eq!(
        engine.apply(&op(Kind::Dispute, 1, 99, "")),
        Outcome::UnknownTx
    );
    assert_eq!(
        engine.apply(&op(Kind::Resolve, 1, 99, "")),
        Outcome::UnknownTx
    );
    assert_eq!(
        engine.apply(&op(Kind::Chargeback, 1, 99, "")),
        Outcome::UnknownTx
    );
    assert_eq!(
        balances(&engine, 1),
        (money("10"), Amount::ZERO, money("10"), false)
    );
}

#[test]
fn a_dispute_of_another_clients_deposit_is_ignored() {
    let mut engine = engine_after(&[op(Kind::Deposit, 1, 1, "10"), op(Kind::Deposit, 2, 2, "5")]);
    assert_eq!(
        engine.apply(&op(Kind::Dispute, 2, 1, "")),
        Outcome::OtherClient
    );
    assert_eq!(
        balances(&engine, 1),
        (money("10"), Amount::ZERO, money("10"), false)
    );
    assert_eq!(
        balances(&engine, 2),
        (money("5"), Amount::ZERO, money("5"), false)
    );
}

#[test]
fn a_withdrawal_cannot_be_disputed() {
    let mut engine = engine_after(&[
        op(Kind::Deposit, 1, 1, "10"),
        op(Kind::Withdrawal, 1, 2, "5"),
    ]);
    assert_eq!(
        engine.apply(&op(Kind::Dispute, 1, 2, "")),
        Outcome::UnknownTx
    );
}

#[test]
fn references_in_the_wrong_state_are_ignored() {
    let mut engine = engine_after(&[op(Kind::Deposit, 1, 1, "10")]);
    assert_eq!(
        engine.apply(&op(Kind::Resolve, 1, 1, "")),
        Outcome::WrongState
    );
    assert_eq!(
        engine.apply(&op(Kind::Chargeback, 1, 1, "")),
        Outcome::WrongState
    );
    assert_eq!(engine.apply(&op(Kind::Dispute, 1, 1, "")), Outcome::Applied);
    assert_eq!(
        engine.apply(&op(Kind::Dispute, 1, 1, "")),
        Outcome::WrongState
    );
    assert!(Outcome::WrongState.is_bad_reference());
    assert_eq!(
        balances(&engine, 1),
        (Amount::ZERO, money("10"), money("10"), false)
    );
}

#[test]
fn a_resolved_deposit_can_be_disputed_again() {
    let mut engine = engine_after(&[
        op(Kind::Deposit, 1, 1, "10"),
        op(Kind::Dispute, 1, 1, ""),
        op(Kind::Resolve, 1, 1, ""),
    ]);
    assert_eq!(engine.apply(&op(Kind::Dispute, 1, 1, "")), Outcome::Applied);
}

#[test]
fn an_overflowing_deposit_changes_nothing() {
    let huge = Amount::from_ten_thousandths(i64::MAX - 5);
    let mut engine = engine_after(&[Record {
        amount: huge,
        ..op(Kind::Deposit, 1, 1, "")
    }]);
    assert_eq!(
        engine.apply(&op(Kind::Deposit, 1, 2, "1")),
        Outcome::Overflow
    );
    assert_eq!(balances(&engine, 1).0, huge);
}

#[test]
fn both_hashers_give_the_same_balances() {
    let records = [
        op(Kind::Deposit, 3, 1, "10"),
        op(Kind::Deposit, 4, 2, "6"),
        op(Kind::Dispute, 3, 1, ""),
        op(Kind::Withdrawal, 4, 3, "1"),
        op(Kind::Chargeback, 3, 1, ""),
    ];
    let mut v1 = Engine::<V1Hasher>::new();
    let mut v2 = Engine::<V2Hasher>::new();
    for r in &records {
        assert_eq!(v1.apply(r), v2.apply(r));
    }
    let mut a: Vec<_> = v1.accounts().collect();
    let mut b: Vec<_> = v2.accounts().collect();
    a.sort_by_key(|x| x.0);
    b.sort_by_key(|x| x.0);
    assert_eq!(a, b);
}
