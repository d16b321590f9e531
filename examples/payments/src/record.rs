//! One line of the transaction stream: `type, client, tx, amount`.
//!
//! Two parsers read it, one per engine version: `parse_owned` splits the
//! line into owned `String` fields first, as a first version written with a
//! CSV-to-struct habit does (four allocations per record); `parse_borrowed`
//! reads the same fields as slices of the line. Both accept exactly the same
//! lines and give the same records; the tests hold them to it. The format is
//! four unquoted fields, so a line is split by hand rather than through a
//! CSV library: the allocation behaviour is what is being compared.

use crate::amount::{Amount, AmountError};

/// Client ids are 16-bit in this format, so the id space is 1..=65535.
pub type ClientId = u16;
/// Transaction ids are globally unique 32-bit numbers.
pub type TxId = u32;

/// The five operations.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Kind {
    /// Credit `amount` to the client.
    Deposit,
    /// Debit `amount` if the client has it available.
    Withdrawal,
    /// Hold the funds of an earlier deposit of the same client.
    Dispute,
    /// Release funds held by a dispute.
    Resolve,
    /// Reverse a disputed deposit and lock the account.
    Chargeback,
}

impl Kind {
    /// The name the stream uses.
    pub fn name(self) -> &'static str {
        match self {
            Kind::Deposit => "deposit",
            Kind::Withdrawal => "withdrawal",
            Kind::Dispute => "dispute",
            Kind::Resolve => "resolve",
            Kind::Chargeback => "chargeback",
        }
    }

    fn from_name(name: &str) -> Option<Kind> {
        Some(match name {
            "deposit" => Kind::Deposit,
            "withdrawal" => Kind::Withdrawal,
            "dispute" => Kind::Dispute,
            "resolve" => Kind::Resolve,
            "chargeback" => Kind::Chargeback,
            _ => return None,
        })
    }

    /// Deposits and withdrawals carry an amount; the others refer to a deposit.
    pub fn has_amount(self) -> bool {
        matches!(self, Kind::Deposit | Kind::Withdrawal)
    }
}

/// One parsed transaction. For disputes, resolves and chargebacks `tx` is
/// the deposit referred to and `amount` is zero.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Record {
    /// The operation.
    pub kind: Kind,
    /// The client whose account it concerns.
    pub client: ClientId,
    /// Its own id (deposit, withdrawal) or the id it refers to.
    pub tx: TxId,
    /// The amount moved; zero for referring operations.
    pub amount: Amount,
}

/// What was wrong with a line.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum RecordError {
    /// Not four comma-separated fields (three allowed without an amount).
    #[error("expected `type, client, tx, amount`, found {0} field(s)")]
    FieldCount(usize),
    /// An unknown operation name.
    #[error("`{0}` is not an operation: use deposit, withdrawal, dispute, resolve or chargeback")]
    Kind(String),
    /// A client id that is not in 0..=65535.
    #[error("client `{0}` is not a 16-bit client id")]
    Client(String),
    /// A transaction id that is not in 0..=4294967295.
    #[error("tx `{0}` is not a 32-bit transaction id")]
    Tx(String),
    /// A deposit or withdrawal without an amount.
    #[error("a {0} needs an amount")]
    MissingAmount(&'static str),
    /// A dispute, resolve or chargeback with an amount.
    #[error("a {0} refers to a deposit and takes no amount")]
    UnexpectedAmount(&'static str),
    /// An amount that does not parse.
    #[error(transparent)]
    Amount(#[from] AmountError),
}

/// Whether `line` is the stream's header (`type, client, tx, amount`).
pub fn is_header(line: &str) -> bool {
    line.split(',').next().map(str::trim) == Some("type")
}

/// Parses a line through owned fields: the first engine version.
pub fn parse_owned(line: &str) -> Result<Record, RecordError> {
    let fields: Vec<String> = line.split(',').map(|f| f.trim().to_string()).collect();
    let fields: Vec<&str> = fields.iter().map(String::as_str).collect();
    build(&fields)
}

/// Parses a line as slices of it: the second engine version.
pub fn parse_borrowed(line: &str) -> Result<Record, RecordError> {
    let mut fields = [""; 4];
    let mut count = 0;
    for field in line.split(',') {
        if count == fields.len() {
            return Err(RecordError::FieldCount(line.split(',').count()));
        }
        fields[count] = field.trim();
        count += 1;
    }
    build(&fields[..count])
}

fn build(fields: &[&str]) -> Result<Record, RecordError> {
    if !(3..=4).contains(&fields.len()) {
        return Err(RecordError::FieldCount(fields.len()));
    }
    let kind = Kind::from_name(fields[0]).ok_or_else(|| RecordError::Kind(fields[0].into()))?;
    let client = fields[1]
        .parse()
        .map_err(|_| RecordError::Client(fields[1].into()))?;
    let tx = fields[2]
        .parse()
        .map_err(|_| RecordError::Tx(fields[2].into()))?;
    let amount_text = fields.get(3).copied().unwrap_or("");
    let amount = match (kind.has_amount(), amount_text.is_empty()) {
        (true, true) => return Err(RecordError::MissingAmount(kind.name())),
        (true, false) => amount_text.parse()?,
        (false, true) => Amount::ZERO,
        (false, false) => return Err(RecordError::UnexpectedAmount(kind.name())),
    };
    Ok(Record {
        kind,
        client,
        tx,
        amount,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn both(line: &str) -> Result<Record, RecordError> {
        let owned = parse_owned(line);
        assert_eq!(
            owned,
            parse_borrowed(line),
            "the two parsers differ on `{line}`"
        );
        owned
    }

    #[test]
    fn both_parsers_read_every_kind_with_or_without_spaces() {
        let r = both("deposit, 1, 7, 2.5").unwrap();
        assert_eq!((r.kind, r.client, r.tx), (Kind::Deposit, 1, 7));
        assert_eq!(r.amount, "2.5".parse().unwrap());
        assert_eq!(both("withdrawal,2,8,1").unwrap().kind, Kind::Withdrawal);
        for (line, kind) in [
            ("dispute, 1, 7,", Kind::Dispute),
            ("resolve,1,7", Kind::Resolve),
            ("chargeback, 1, 7, ", Kind::Chargeback),
        ] {
            let r = both(line).unwrap();
            assert_eq!((r.kind, r.amount), (kind, Amount::ZERO), "{line}");
        }
    }

    #[test]
    fn both_parsers_refuse_the_same_bad_lines_for_the_same_reason() {
        assert_eq!(both("deposit, 1"), Err(RecordError::FieldCount(2)));
        assert_eq!(both("deposit,1,2,3,4,5"), Err(RecordError::FieldCount(6)));
        assert_eq!(
            both("refund, 1, 2, 3"),
            Err(RecordError::Kind("refund".into()))
        );
        assert_eq!(
            both("deposit, 70000, 2, 3"),
            Err(RecordError::Client("70000".into()))
        );
        assert_eq!(both("deposit, 1, -2, 3"), Err(RecordError::Tx("-2".into())));
        assert_eq!(
            both("deposit, 1, 2,"),
            Err(RecordError::MissingAmount("deposit"))
        );
        assert_eq!(
            both("dispute, 1, 2, 3"),
            Err(RecordError::UnexpectedAmount("dispute"))
        );
        assert!(matches!(
            both("deposit, 1, 2, 1.23456"),
            Err(RecordError::Amount(_))
        ));
    }

    #[test]
    fn the_header_is_recognised() {
        assert!(is_header("type, client, tx, amount"));
        assert!(!is_header("deposit, 1, 1, 1"));
    }
}
