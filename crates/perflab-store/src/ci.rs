//! The CI job a command runs in, read from the variables the CI system sets:
//! which system, which pipeline, and which pull or merge request it tests.
//! Recorded in the provenance, so that a number in the history leads back to
//! the job that measured it, and used to keep live progress displays out of
//! job logs, which keep every redraw as a line of their own.
//!
//! Variables read (documented by each system):
//! - GitHub Actions (`GITHUB_ACTIONS=true`): `GITHUB_RUN_ID` and
//!   `GITHUB_RUN_ATTEMPT`, the run's address from `GITHUB_SERVER_URL` and
//!   `GITHUB_REPOSITORY`, the pull request from `GITHUB_REF`
//!   (`refs/pull/N/merge`), else the branch or tag from `GITHUB_REF_NAME`;
//! - GitLab CI (`GITLAB_CI=true`): `CI_PIPELINE_ID`, `CI_PIPELINE_URL`, the
//!   merge request from `CI_MERGE_REQUEST_IID`, else `CI_COMMIT_REF_NAME`;
//! - any other system that sets `CI` (most do): only that it is CI.

use serde::{Deserialize, Serialize};

/// The CI job a measurement was made in.
#[derive(Debug, Clone, Default, Serialize, Deserialize, PartialEq, Eq)]
pub struct CiJob {
    /// `github-actions`, `gitlab-ci`, or `ci` for a system known only by `CI`.
    pub system: String,
    /// The pipeline (GitHub: the workflow run) id, with the attempt when it
    /// was re-run (`1234/2`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub pipeline: Option<String>,
    /// The pipeline's web address.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub pipeline_url: Option<String>,
    /// The pull request (`#12`) or merge request (`!12`) tested, if any.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub change_request: Option<String>,
    /// The branch or tag tested, when no pull or merge request is.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub git_ref: Option<String>,
}

impl CiJob {
    /// The job of this process's environment; None outside CI.
    pub(crate) fn from_environment() -> Option<Self> {
        Self::from_variables(|name| std::env::var(name).ok())
    }

    /// The job described by the variables `var` gives; None outside CI.
    pub(crate) fn from_variables(var: impl Fn(&str) -> Option<String>) -> Option<Self> {
        let set = |name: &str| var(name).filter(|v| !v.is_empty());
        if is_true(set("GITHUB_ACTIONS")) {
            Some(github_actions(&set))
        } else if is_true(set("GITLAB_CI")) {
            Some(gitlab_ci(&set))
        } else if is_true(set("CI")) {
            Some(Self {
                system: "ci".into(),
                ..Self::default()
            })
        } else {
            None
        }
    }

    /// One line for reports: "GitHub Actions run 1234 for pull request #12".
    pub fn describe(&self) -> String {
        let mut line = match self.system.as_str() {
            "github-actions" => "GitHub Actions".to_string(),
            "gitlab-ci" => "GitLab CI".to_string(),
            "ci" => "CI".to_string(),
            other => other.to_string(),
        };
        if let Some(pipeline) = &self.pipeline {
            let word = if self.system == "github-actions" {
                "run"
            } else {
                "pipeline"
            };
            line.push_str(&format!(" {word} {pipeline}"));
        }
        match (&self.change_request, &self.git_ref) {
            (Some(request), _) if request.starts_with('!') => {
                line.push_str(&format!(" for merge request {request}"))
            }
            (Some(request), _) => line.push_str(&format!(" for pull request {request}")),
            (None, Some(git_ref)) => line.push_str(&format!(" on {git_ref}")),
            (None, None) => {}
        }
        line
    }
}

/// True when this process runs in a CI job.
pub fn in_ci() -> bool {
    CiJob::from_environment().is_some()
}

/// CI systems set these to `true` (GitHub, GitLab) or `1`; `false` and `0`
/// are what a user writes to say "not CI" for a local run of a job's steps.
fn is_true(value: Option<String>) -> bool {
    value.is_some_and(|v| !matches!(v.to_ascii_lowercase().as_str(), "false" | "0"))
}

fn github_actions(set: &impl Fn(&str) -> Option<String>) -> CiJob {
    let pipeline = set("GITHUB_RUN_ID").map(|id| match set("GITHUB_RUN_ATTEMPT") {
        Some(attempt) if attempt != "1" => format!("{id}/{attempt}"),
        _ => id,
    });
    let pipeline_url = match (
        set("GITHUB_SERVER_URL"),
        set("GITHUB_REPOSITORY"),
        set("GITHUB_RUN_ID"),
    ) {
        (Some(server), Some(repository), Some(id)) => {
            Some(format!("{server}/{repository}/actions/runs/{id}"))
        }
        _ => None,
    };
    // A pull request's workflow runs on `refs/pull/N/merge` (or `/head`).
    let change_request = set("GITHUB_REF").and_then(|r| {
        let number = r.strip_prefix("refs/pull/")?.split('/').next()?;
        Some(format!("#{number}"))
    });
    CiJob {
        system: "github-actions".into(),
        pipeline,
        pipeline_url,
        git_ref: change_request
            .is_none()
            .then(|| set("GITHUB_REF_NAME"))
            .flatten(),
        change_request,
    }
}

fn gitlab_ci(set: &impl Fn(&str) -> Option<String>) -> CiJob {
    let change_request = set("CI_MERGE_REQUEST_IID").map(|iid| format!("!{iid}"));
    CiJob {
        system: "gitlab-ci".into(),
        pipeline: set("CI_PIPELINE_ID"),
        pipeline_url: set("CI_PIPELINE_URL"),
        git_ref: change_request
            .is_none()
            .then(|| set("CI_COMMIT_REF_NAME"))
            .flatten(),
        change_request,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn job(vars: &[(&str, &str)]) -> Option<CiJob> {
        CiJob::from_variables(|name| {
            vars.iter()
                .find(|(k, _)| *k == name)
                .map(|(_, v)| v.to_string())
        })
    }

    #[test]
    fn no_ci_variable_is_no_job() {
        assert_eq!(job(&[("HOME", "/root")]), None);
        assert_eq!(job(&[("CI", "false"), ("GITHUB_ACTIONS", "")]), None);
    }

    #[test]
    fn a_github_pull_request_run_names_its_run_and_pull_request() {
        let j = job(&[
            ("CI", "true"),
            ("GITHUB_ACTIONS", "true"),
            ("GITHUB_RUN_ID", "9876"),
            ("GITHUB_RUN_ATTEMPT", "2"),
            ("GITHUB_SERVER_URL", "https://github.com"),
            ("GITHUB_REPOSITORY", "acme/app"),
            ("GITHUB_REF", "refs/pull/42/merge"),
            ("GITHUB_REF_NAME", "42/merge"),
        ])
        .unwrap();
        assert_eq!(j.system, "github-actions");
        assert_eq!(j.pipeline.as_deref(), Some("9876/2"));
        assert_eq!(
            j.pipeline_url.as_deref(),
            Some("https://github.com/acme/app/actions/runs/9876")
        );
        assert_eq!(j.change_request.as_deref(), Some("#42"));
        assert_eq!(j.git_ref, None);
        assert_eq!(
            j.describe(),
            "GitHub Actions run 9876/2 for pull request #42"
        );
    }

    #[test]
    fn a_github_push_run_names_its_branch() {
        let j = job(&[
            ("GITHUB_ACTIONS", "true"),
            ("GITHUB_RUN_ID", "5"),
            ("GITHUB_RUN_ATTEMPT", "1"),
            ("GITHUB_REF", "refs/heads/main"),
            ("GITHUB_REF_NAME", "main"),
        ])
        .unwrap();
        assert_eq!(j.pipeline.as_deref(), Some("5"));
        assert_eq!(j.change_request, None);
        assert_eq!(j.describe(), "GitHub Actions run 5 on main");
    }

    #[test]
    fn a_gitlab_merge_request_pipeline_names_its_pipeline_and_merge_request() {
        let j = job(&[
            ("CI", "true"),
            ("GITLAB_CI", "true"),
            ("CI_PIPELINE_ID", "314"),
            (
                "CI_PIPELINE_URL",
                "https://gitlab.com/acme/app/-/pipelines/314",
            ),
            ("CI_MERGE_REQUEST_IID", "7"),
            ("CI_COMMIT_REF_NAME", "feature"),
        ])
        .unwrap();
        assert_eq!(j.system, "gitlab-ci");
        assert_eq!(j.change_request.as_deref(), Some("!7"));
        assert_eq!(j.git_ref, None);
        assert_eq!(j.describe(), "GitLab CI pipeline 314 for merge request !7");
    }

    #[test]
    fn another_ci_system_is_known_only_as_ci() {
        let j = job(&[("CI", "1"), ("BUILDKITE", "true")]).unwrap();
        assert_eq!(j.system, "ci");
        assert_eq!(j.describe(), "CI");
    }
}
