//! A stored variant read back whole, to run it again: its command, its
//! environment overrides and the folder its runs started in (`perflab
//! history --confirm` reruns a series' command at two commits).

use std::path::PathBuf;

use super::Store;
use super::sql::values;
use crate::error::{Result, StoreError};

/// How one variant of an experiment was run, as stored.
#[derive(Debug, Clone, PartialEq)]
pub struct StoredVariant {
    /// The command text (as `sh -c` runs it; a command given as separate
    /// arguments is stored quoted for the shell).
    pub command: String,
    /// Environment overrides, sorted by name.
    pub env: Vec<(String, String)>,
    /// The folder its runs started in: the variant's own (`--cwd`, a
    /// revision's worktree), else the folder perflab was started in; None
    /// when neither was recorded.
    pub run_dir: Option<PathBuf>,
}

impl Store {
    /// The variant `name` of experiment `experiment_id`, if there is one.
    pub fn stored_variant(&self, experiment_id: i64, name: &str) -> Result<Option<StoredVariant>> {
        let row = self.first_row(
            "SELECT v.command, v.env_json, v.cwd, e.cwd FROM variants v
             JOIN experiments e ON e.id = v.experiment_id
             WHERE v.experiment_id = ?1 AND v.name = ?2",
            values![experiment_id, name],
        )?;
        let Some(row) = row else {
            return Ok(None);
        };
        let read = || -> std::result::Result<StoredVariant, StoreError> {
            let env: std::collections::BTreeMap<String, String> =
                serde_json::from_str(&row.text(1)?)?;
            let started_in = row.opt_text(3)?.map(PathBuf::from);
            // A variant's own folder may be relative to where perflab started.
            let run_dir = match (row.opt_text(2)?.map(PathBuf::from), started_in) {
                (Some(own), Some(base)) if own.is_relative() => Some(base.join(own)),
                (Some(own), _) => Some(own),
                (None, base) => base,
            };
            Ok(StoredVariant {
                command: row.text(0)?,
                env: env.into_iter().collect(),
                run_dir,
            })
        };
        read().map(Some).map_err(|e| self.err(e))
    }
}

#[cfg(test)]
mod tests {
    use std::path::Path;

    use perflab_format::vocabulary::ExperimentKind;

    use crate::provenance::Provenance;
    use crate::{Store, VariantRecord};

    #[test]
    fn a_variant_reads_back_with_its_command_environment_and_folder() {
        let store = Store::in_memory().unwrap();
        let env = [("N".to_string(), "3".to_string())];
        let (id, _) = store
            .begin_experiment(
                ExperimentKind::Ab,
                Some("parse"),
                Some("wall"),
                &Provenance::default(),
                "{}",
                &[
                    VariantRecord {
                        name: "A",
                        command: "./app --fast",
                        env: &env,
                        cwd: Some(Path::new("/work/tree")),
                    },
                    VariantRecord {
                        name: "B",
                        command: "./app",
                        env: &[],
                        cwd: Some(Path::new("bench")),
                    },
                ],
            )
            .unwrap();
        let a = store.stored_variant(id, "A").unwrap().unwrap();
        assert_eq!(a.command, "./app --fast");
        assert_eq!(a.env, env);
        assert_eq!(a.run_dir.as_deref(), Some(Path::new("/work/tree")));
        let b = store.stored_variant(id, "B").unwrap().unwrap();
        let started_in = std::env::current_dir().unwrap();
        assert_eq!(b.run_dir, Some(started_in.join("bench")));
        assert_eq!(store.stored_variant(id, "C").unwrap(), None);
    }
}
