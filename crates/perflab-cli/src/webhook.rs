//! `perflab history --changes --notify URL`: each new regression posted once
//! to a webhook as JSON.
//!
//! The regressions posted are those that fail the command
//! ([`StoreChanges::watched_regressions`]): the newest change point of a
//! watched series when it is a regression, and, with `--confirm`, only
//! when the interleaved A/B confirmed it. Each is posted once: the store
//! remembers what the webhook accepted (`perflab_store::NotifiedChange`), so
//! a CI job running the command after every commit posts a regression when
//! it first appears and never again. A post that fails (no answer within
//! [`POST_TIMEOUT`], or an answer other than 2xx) is not remembered, so the
//! next run posts it again.
//!
//! The JSON ([`RegressionNotice`]) has a `text` field, which Slack, Mattermost,
//! Rocket.Chat and Microsoft Teams' incoming webhooks show as the message,
//! and the structured fields of the change point for any other receiver.

use std::fmt;
use std::time::Duration;

use serde::Serialize;

use perflab_format::change_words::ChangeWords;
use perflab_format::vocabulary::{Better, StepVerdict, Verdict};
use perflab_report::changes::{SeriesChange, StoreChanges};
use perflab_report::sections::history::{describe_change_point, describe_confirmation};
use perflab_store::{NotifiedChange, Store};

use crate::error::{Result, to_json};

/// How long one post may take, from connecting to the end of the answer:
/// a webhook that does not answer must not hold up a CI job.
pub const POST_TIMEOUT: Duration = Duration::from_secs(10);

/// A webhook's address, checked when the flag is parsed: an `http` or
/// `https` URL with a host.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct WebhookUrl {
    url: String,
}

impl WebhookUrl {
    /// Checks `text` as `--notify`'s value (clap's value parser: a refusal
    /// is a usage error naming the flag, exit 2, before anything is read).
    pub fn parse(text: &str) -> std::result::Result<Self, String> {
        let Some((scheme, _)) = text.split_once("://") else {
            return Err(format!(
                "'{text}' has no scheme; write the whole address, starting with https:// (or http://)"
            ));
        };
        if !["http", "https"].contains(&scheme.to_ascii_lowercase().as_str()) {
            return Err(format!(
                "'{}' is a {scheme}: URL; a webhook is posted to over http:// or https://",
                redacted(text)
            ));
        }
        let uri: ureq::http::Uri = text.parse().map_err(|e| {
            format!(
                "'{}' is not a URL ({e}); give the webhook's address, e.g. \
                 https://hooks.slack.com/services/...",
                redacted(text)
            )
        })?;
        if uri.host().is_none_or(str::is_empty) {
            return Err(format!(
                "'{}' names no host; write the whole address, e.g. https://hooks.example.com/perflab",
                redacted(text)
            ));
        }
        Ok(Self {
            url: text.to_string(),
        })
    }

    /// The URL as given, to post to.
    fn as_str(&self) -> &str {
        &self.url
    }
}

/// The URL without the password of its user part, for messages.
impl fmt::Display for WebhookUrl {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&redacted(&self.url))
    }
}

/// `https://user:secret@host/x` as `https://user@host/x`.
fn redacted(url: &str) -> String {
    let Some((scheme, rest)) = url.split_once("://") else {
        return url.to_string();
    };
    let authority_end = rest.find(['/', '?', '#']).unwrap_or(rest.len());
    let (authority, tail) = rest.split_at(authority_end);
    match authority.rsplit_once('@') {
        Some((user_info, host)) => {
            let user = user_info.split_once(':').map_or(user_info, |(u, _)| u);
            format!("{scheme}://{user}@{host}{tail}")
        }
        None => url.to_string(),
    }
}

/// What is posted for one regression.
#[derive(Debug, Clone, Serialize)]
pub struct RegressionNotice {
    /// The regression in one line, for chat webhooks (Slack's `text`, with
    /// `&`, `<` and `>` escaped as Slack asks).
    pub text: String,
    /// Always `regression`.
    pub event: &'static str,
    /// The series' experiment name (null when unnamed).
    pub name: Option<String>,
    /// The metric.
    pub metric: String,
    /// Its unit.
    pub unit: String,
    /// Which way the metric is better: `lower` or `higher`.
    pub better: Better,
    /// The variant.
    pub variant: String,
    /// The host the series was measured on (null when unknown).
    pub host: Option<String>,
    /// The full commit of the first step at the new level (null outside git).
    pub commit: Option<String>,
    /// The full commit of the last step before it.
    pub previous_commit: Option<String>,
    /// The label of the first step at the new level (a short commit, `+`
    /// for a dirty tree, `#ID` for an experiment without one).
    pub step: String,
    /// The label of the last step before it.
    pub previous_step: String,
    /// When the first step at the new level was measured.
    pub measured_at: String,
    /// The segment after the change point against the segment before it.
    pub change: NoticeChange,
    /// True when an interleaved A/B confirmed the change point (`--confirm`);
    /// false when none was run.
    pub confirmed: bool,
    /// The confirming A/B, when the change point was put to one.
    pub confirmation: Option<NoticeConfirmation>,
    /// The experiments of the first step at the new level, oldest first.
    pub experiments: Vec<i64>,
}

/// A change in the one wording of changes: the later value over the
/// earlier one, as a ratio and a signed percentage, with its interval.
#[derive(Debug, Clone, Serialize)]
pub struct NoticeChange {
    /// The segment after over the segment before (1.2: 20% more).
    pub ratio: f64,
    /// Its confidence interval (null when the steps had too few runs).
    pub interval: Option<[f64; 2]>,
    /// `+20.0%`.
    pub percent: String,
    /// `[+18.0%, +22.1%]`, empty without an interval.
    pub percent_interval: String,
    /// The verdict between the segments (`NO-GO` for a regression).
    pub verdict: StepVerdict,
    /// The change-point test's permutation p-value.
    pub p_value: f64,
    /// Steps in the segment before.
    pub steps_before: usize,
    /// Steps in the segment after.
    pub steps_after: usize,
}

/// The interleaved A/B that confirmed a change point.
#[derive(Debug, Clone, Serialize)]
pub struct NoticeConfirmation {
    /// The A/B's experiment id in the store.
    pub experiment: Option<i64>,
    /// Its verdict.
    pub verdict: Option<Verdict>,
    /// The later commit over the earlier one.
    pub ratio: Option<f64>,
    /// Its confidence interval.
    pub interval: Option<[f64; 2]>,
    /// Pairs of runs the verdict rests on.
    pub pairs: usize,
    /// The A/B's confidence level.
    pub confidence: f64,
}

impl RegressionNotice {
    /// The notice of one change point.
    pub fn of(s: &SeriesChange) -> Self {
        let c = &s.change;
        let words =
            ChangeWords::from_improvement(&s.metric, s.better, c.judgement.change, c.judgement.ci);
        let on = s
            .host
            .as_deref()
            .map(|h| format!(" on {h}"))
            .unwrap_or_default();
        let confirmation_words = c
            .confirmation
            .as_ref()
            .map(|k| format!("; {}", describe_confirmation(&s.metric, s.better, k)))
            .unwrap_or_default();
        let text = format!(
            "perflab: regression of {} {} (variant {}){on}: {}{confirmation_words}",
            s.name.as_deref().unwrap_or("(unnamed)"),
            s.metric,
            s.variant,
            describe_change_point(&s.metric, s.better, c),
        );
        Self {
            text: slack_escaped(&text),
            event: "regression",
            name: s.name.clone(),
            metric: s.metric.clone(),
            unit: s.unit.clone(),
            better: s.better,
            variant: s.variant.clone(),
            host: s.host.clone(),
            commit: c.to_commit.clone(),
            previous_commit: c.from_commit.clone(),
            step: c.to.clone(),
            previous_step: c.from.clone(),
            measured_at: c.started_at.clone(),
            change: NoticeChange {
                ratio: words.ratio,
                interval: words.interval,
                percent: words.percent(),
                percent_interval: words.percent_interval(),
                verdict: c.judgement.verdict,
                p_value: c.p_value,
                steps_before: c.steps_before,
                steps_after: c.steps_after,
            },
            confirmed: c.confirmation.as_ref().is_some_and(|k| k.confirmed),
            confirmation: c.confirmation.as_ref().map(|k| {
                let ab = k
                    .change
                    .map(|change| ChangeWords::from_improvement(&s.metric, s.better, change, k.ci));
                NoticeConfirmation {
                    experiment: k.experiment,
                    verdict: k.verdict,
                    ratio: ab.map(|w| w.ratio),
                    interval: ab.and_then(|w| w.interval),
                    pairs: k.pairs,
                    confidence: k.confidence,
                }
            }),
            experiments: s.experiments_after.clone(),
        }
    }
}

/// Text for Slack's `text` field: `&`, `<` and `>` are its markup, so a
/// name holding them is escaped as Slack documents.
fn slack_escaped(text: &str) -> String {
    text.replace('&', "&amp;")
        .replace('<', "&lt;")
        .replace('>', "&gt;")
}

/// The record of a change point in the store.
fn notified_change(s: &SeriesChange) -> NotifiedChange<'_> {
    NotifiedChange {
        name: s.name.as_deref(),
        metric: &s.metric,
        variant: &s.variant,
        host: s.host.as_deref(),
        from_step: &s.change.from,
        to_step: &s.change.to,
        to_commit: s.change.to_commit.as_deref(),
    }
}

/// What posting the new regressions came to.
#[derive(Debug, Default, Clone, PartialEq, Eq)]
pub struct NotifyOutcome {
    /// Regressions posted now.
    pub posted: usize,
    /// Regressions posted by an earlier run, left alone.
    pub already_posted: usize,
    /// Posts that failed, each saying why (to be posted again next time).
    pub failed: Vec<String>,
}

/// Posts each regression of `changes` that the store has no record of to
/// `url`, and records each the webhook accepted.
pub fn post_new_regressions(
    store: &Store,
    changes: &StoreChanges,
    url: &WebhookUrl,
) -> Result<NotifyOutcome> {
    let agent: ureq::Agent = ureq::Agent::config_builder()
        .timeout_global(Some(POST_TIMEOUT))
        // A status other than 2xx is an answer to report, not a transport error.
        .http_status_as_error(false)
        // A webhook that moved is a configuration to fix, not to follow with a
        // request that may lose its body.
        .max_redirects(0)
        .user_agent(concat!("perflab/", env!("CARGO_PKG_VERSION")))
        .build()
        .into();
    let mut outcome = NotifyOutcome::default();
    for s in changes.watched_regressions() {
        let record = notified_change(s);
        if store.was_notified(&record)? {
            outcome.already_posted += 1;
            continue;
        }
        let notice = RegressionNotice::of(s);
        let body = to_json("the regression notice", &notice)?;
        match post(&agent, url, &body) {
            Ok(()) => {
                store.record_notified(&record)?;
                outcome.posted += 1;
            }
            Err(why) => outcome.failed.push(format!(
                "the regression of {} {} (variant {}) was not posted: POST {url} {why}; \
                 it is not recorded as posted, so the next run posts it again",
                s.name.as_deref().unwrap_or("(unnamed)"),
                s.metric,
                s.variant
            )),
        }
    }
    Ok(outcome)
}

/// Posts `body` as JSON; Err says what went wrong.
fn post(agent: &ureq::Agent, url: &WebhookUrl, body: &str) -> std::result::Result<(), String> {
    let mut response = agent
        .post(url.as_str())
        .content_type("application/json")
        .send(body)
        .map_err(|e| match e {
            ureq::Error::Timeout(_) => format!("got no answer within {} s", POST_TIMEOUT.as_secs()),
            other => format!("failed: {other}"),
        })?;
    let status = response.status();
    if status.is_success() {
        return Ok(());
    }
    // The receiver's reason, when it gives one, is the best hint.
    let said = response
        .body_mut()
        .with_config()
        .limit(2048)
        .read_to_string()
        .ok()
        .map(|text| text.trim().lines().next().unwrap_or_default().to_string())
        .filter(|line| !line.is_empty())
        .map(|line| format!(" ({line})"))
        .unwrap_or_default();
    let reason = status
        .canonical_reason()
        .map(|r| format!(" {r}"))
        .unwrap_or_default();
    Err(format!("answered {}{reason}{said}", status.as_u16()))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_webhook_url_needs_http_or_https_and_a_host() {
        assert!(WebhookUrl::parse("https://hooks.example.com/x").is_ok());
        assert!(WebhookUrl::parse("http://127.0.0.1:8080/hook").is_ok());
        let refused = |text: &str| WebhookUrl::parse(text).unwrap_err();
        assert!(refused("hooks.example.com/x").contains("no scheme"));
        assert!(refused("ftp://hooks.example.com/x").contains("ftp: URL"));
        assert!(refused("https://").contains("not a URL") || refused("https://").contains("host"));
        assert!(refused("not a url").contains("no scheme"));
        assert!(refused("https:// bad").contains("not a URL"));
    }

    #[test]
    fn a_webhook_url_is_shown_without_its_password() {
        let url = WebhookUrl::parse("https://ann:secret@hooks.example.com/x?y=1").unwrap();
        assert_eq!(url.to_string(), "https://ann@hooks.example.com/x?y=1");
        assert_eq!(url.as_str(), "https://ann:secret@hooks.example.com/x?y=1");
        let plain = WebhookUrl::parse("http://127.0.0.1:9/h").unwrap();
        assert_eq!(plain.to_string(), "http://127.0.0.1:9/h");
    }

    #[test]
    fn slack_markup_in_names_is_escaped_in_the_text() {
        assert_eq!(
            slack_escaped("<script> & <b>"),
            "&lt;script&gt; &amp; &lt;b&gt;"
        );
    }
}
