//! What an experiment leaves besides its result document: the folded stacks
//! of each command `perflab profile` sampled (from which any flame graph can be drawn again),
//! and documents attached to an experiment, such as the instruction counts
//! per function of an A/B run under valgrind.

use super::Store;
use super::sql::values;
use crate::error::{Result, StoreError};
use crate::spool::Write;

/// Tables of this file; created with the rest of the schema.
pub(super) const SCHEMA: &str = "
CREATE TABLE IF NOT EXISTS profile_stacks (
    id {id},
    experiment_id {int} NOT NULL REFERENCES experiments(id),
    variant_id {int} NOT NULL REFERENCES variants(id),
    samples {int} NOT NULL,
    folded TEXT NOT NULL
);
CREATE INDEX IF NOT EXISTS profile_stacks_by_experiment ON profile_stacks(experiment_id);
CREATE TABLE IF NOT EXISTS attachments (
    id {id},
    experiment_id {int} NOT NULL REFERENCES experiments(id),
    kind TEXT NOT NULL,
    body TEXT NOT NULL
);
CREATE INDEX IF NOT EXISTS attachments_by_experiment ON attachments(experiment_id);
";

impl Store {
    /// Keeps the folded stacks (`frame;frame COUNT` lines) of one variant's profile.
    pub fn record_folded(
        &self,
        experiment_id: i64,
        variant_id: i64,
        samples: u64,
        folded: &str,
    ) -> Result<()> {
        let write = Write::Folded {
            variant_id,
            samples,
            folded: folded.to_string(),
        };
        self.write_to_experiment(experiment_id, write)
    }

    /// Inserts a variant's folded stacks.
    pub(crate) fn insert_folded(
        &self,
        experiment_id: i64,
        variant_id: i64,
        samples: u64,
        folded: &str,
    ) -> Result<()> {
        self.execute(
            "INSERT INTO profile_stacks (experiment_id, variant_id, samples, folded) VALUES (?1, ?2, ?3, ?4)",
            values![experiment_id, variant_id, samples as i64, folded],
        )?;
        Ok(())
    }

    /// The folded stacks of an experiment's variants, in variant order.
    pub fn folded(&self, experiment_id: i64) -> Result<Vec<(String, String)>> {
        self.rows(
            "SELECT v.name, p.folded FROM profile_stacks p JOIN variants v ON v.id = p.variant_id
             WHERE p.experiment_id = ?1 ORDER BY v.position",
            values![experiment_id],
        )?
        .into_iter()
        .map(|r| Ok((r.text(0)?, r.text(1)?)))
        .collect::<std::result::Result<_, StoreError>>()
        .map_err(|e| self.err(e))
    }

    /// Attaches a document of `kind` (e.g. `instructions`) to an experiment.
    pub fn attach(&self, experiment_id: i64, kind: &str, body: &str) -> Result<()> {
        let write = Write::Attachment {
            kind: kind.to_string(),
            body: body.to_string(),
        };
        self.write_to_experiment(experiment_id, write)
    }

    /// Inserts a document attached to an experiment.
    pub(crate) fn insert_attachment(
        &self,
        experiment_id: i64,
        kind: &str,
        body: &str,
    ) -> Result<()> {
        self.execute(
            "INSERT INTO attachments (experiment_id, kind, body) VALUES (?1, ?2, ?3)",
            values![experiment_id, kind, body],
        )?;
        Ok(())
    }

    /// The newest document of `kind` attached to an experiment.
    pub fn attachment(&self, experiment_id: i64, kind: &str) -> Result<Option<String>> {
        let row = self.first_row(
            "SELECT body FROM attachments WHERE experiment_id = ?1 AND kind = ?2 ORDER BY id DESC LIMIT 1",
            values![experiment_id, kind],
        )?;
        row.map_or(Ok(None), |r| r.opt_text(0))
            .map_err(|e| self.err(e))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use perflab_format::vocabulary::ExperimentKind;

    use crate::VariantRecord;
    use crate::provenance::Provenance;

    #[test]
    fn folded_stacks_and_attachments_come_back_as_stored() {
        let store = Store::in_memory().unwrap();
        let (id, variants) = store
            .begin_experiment(
                ExperimentKind::Profile,
                None,
                None,
                &Provenance::default(),
                "{}",
                &[VariantRecord {
                    name: "A",
                    command: "./prog",
                    env: &[],
                    cwd: None,
                }],
            )
            .unwrap();
        store
            .record_folded(id, variants[0], 3, "p;main 3\n")
            .unwrap();
        assert_eq!(
            store.folded(id).unwrap(),
            vec![("A".to_string(), "p;main 3\n".to_string())]
        );
        store.attach(id, "instructions", "{\"a\":1}").unwrap();
        assert_eq!(
            store.attachment(id, "instructions").unwrap().as_deref(),
            Some("{\"a\":1}")
        );
        assert_eq!(store.attachment(id, "other").unwrap(), None);
    }
}
