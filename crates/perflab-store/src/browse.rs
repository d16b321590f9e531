//! Browsing the experiments of a store a page at a time, filtered by name,
//! host, branch and date, for `perflab serve`: a store of thousands of
//! experiments is never read whole to show fifty of them.
//!
//! Every filter is a parameter of one query (never text pasted into SQL),
//! and a page holds at most [`MAX_PAGE_SIZE`] experiments.

use crate::error::Result;
use crate::sql::values;
use crate::{ExperimentRow, Store};

/// The most experiments one page holds, whatever is asked.
pub const MAX_PAGE_SIZE: usize = 200;

/// Which experiments to list, and which page of them.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct ExperimentFilter {
    /// Experiments whose name contains this text (ASCII letters in either case).
    pub name: Option<String>,
    /// Experiments that ran on this host (exactly).
    pub host: Option<String>,
    /// Experiments whose CI job tested this branch or tag (the provenance's
    /// `ci.git_ref`, exactly).
    pub branch: Option<String>,
    /// Experiments started at or after this time (RFC 3339, or a date such
    /// as `2026-01-31`, compared as text, as the stored times sort).
    pub since: Option<String>,
    /// Experiments started before this time (same form as `since`).
    pub until: Option<String>,
    /// How many of the newest matching experiments to skip.
    pub offset: usize,
    /// How many to list (at most [`MAX_PAGE_SIZE`]).
    pub limit: usize,
}

/// One page of experiments.
#[derive(Debug, Clone)]
pub struct ExperimentPage {
    /// The experiments, newest first.
    pub experiments: Vec<ExperimentRow>,
    /// How many experiments match the filter in all.
    pub total: usize,
}

/// `text` as a LIKE pattern matching it anywhere, with LIKE's special
/// characters escaped by `\`.
fn contains_pattern(text: &str) -> String {
    let mut pattern = String::from("%");
    for c in text.chars() {
        if matches!(c, '%' | '_' | '\\') {
            pattern.push('\\');
        }
        pattern.push(c);
    }
    pattern.push('%');
    pattern
}

/// The LIKE pattern finding a CI job's `git_ref` of `branch` in a stored
/// result document (written by serde_json without spaces).
fn branch_pattern(branch: &str) -> String {
    let quoted = serde_json::Value::String(branch.to_string()).to_string();
    let mut pattern = String::from("%\"git_ref\":");
    for c in quoted.chars() {
        if matches!(c, '%' | '_' | '\\') {
            pattern.push('\\');
        }
        pattern.push(c);
    }
    pattern.push('%');
    pattern
}

impl Store {
    /// The page of experiments `filter` asks for, newest first, and how
    /// many match in all.
    pub fn browse_experiments(&self, filter: &ExperimentFilter) -> Result<ExperimentPage> {
        const WHERE: &str = "WHERE (CAST(?1 AS TEXT) IS NULL OR LOWER(COALESCE(e.name, '')) LIKE LOWER(?1) ESCAPE '\\')
             AND (CAST(?2 AS TEXT) IS NULL OR COALESCE(e.host, '') = ?2)
             AND (CAST(?3 AS TEXT) IS NULL OR COALESCE(e.result_json, '') LIKE ?3 ESCAPE '\\')
             AND (CAST(?4 AS TEXT) IS NULL OR e.started_at >= ?4)
             AND (CAST(?5 AS TEXT) IS NULL OR e.started_at < ?5)";
        let name = filter.name.as_deref().map(contains_pattern);
        let branch = filter.branch.as_deref().map(branch_pattern);
        let limit = filter.limit.min(MAX_PAGE_SIZE);
        let total = self.count(
            &format!("SELECT COUNT(*) FROM experiments e {WHERE}"),
            values![
                name.clone(),
                filter.host.as_deref(),
                branch.clone(),
                filter.since.as_deref(),
                filter.until.as_deref()
            ],
        )?;
        let rows = self.rows(
            &format!(
                "SELECT e.id, e.kind, e.name, e.status, e.metric, e.verdict, e.change, e.ci_lo, e.ci_hi, e.started_at,
                 e.git_commit, e.git_dirty,
                 (SELECT COUNT(*) FROM runs r WHERE r.experiment_id = e.id AND r.warmup = 0 AND r.replaced = 0), e.host
                 FROM experiments e {WHERE}
                 ORDER BY e.id DESC LIMIT ?6 OFFSET ?7"
            ),
            values![
                name,
                filter.host.as_deref(),
                branch,
                filter.since.as_deref(),
                filter.until.as_deref(),
                limit,
                filter.offset
            ],
        )?;
        let experiments = self.experiment_rows(&rows)?;
        Ok(ExperimentPage {
            experiments,
            total: usize::try_from(total).unwrap_or(0),
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn like_characters_in_a_name_filter_match_only_themselves() {
        assert_eq!(contains_pattern("a_b%c\\"), "%a\\_b\\%c\\\\%");
    }

    #[test]
    fn a_branch_filter_looks_for_the_quoted_json_value() {
        assert_eq!(branch_pattern("main"), "%\"git_ref\":\"main\"%");
    }

    #[test]
    fn an_empty_store_browses_to_an_empty_page() {
        let store = Store::in_memory().unwrap();
        let page = store
            .browse_experiments(&ExperimentFilter {
                name: Some("x".into()),
                limit: 10,
                ..Default::default()
            })
            .unwrap();
        assert_eq!((page.experiments.len(), page.total), (0, 0));
    }

    #[test]
    fn a_kind_or_status_this_perflab_does_not_know_is_refused_by_name() {
        let store = Store::in_memory().unwrap();
        let (id, _) = crate::batch::tests::one_variant_experiment(
            &store,
            perflab_format::vocabulary::ExperimentKind::Ab,
            Some("parse"),
            None,
        );
        let listed = store.list_experiments(5, None).unwrap();
        assert_eq!(
            listed[0].kind,
            perflab_format::vocabulary::ExperimentKind::Ab
        );
        store
            .execute(
                "UPDATE experiments SET kind = 'frobnicate' WHERE id = ?1",
                crate::sql::values![id],
            )
            .unwrap();
        let e = store.list_experiments(5, None).unwrap_err().to_string();
        assert!(
            e.contains("\"frobnicate\"") && e.contains("not an experiment kind"),
            "{e}"
        );
    }
}
