//! What a page's URL may ask for, checked before the store is read: every
//! text at most [`MAX_TEXT`] bytes, pages of at most
//! [`perflab_store::MAX_PAGE_SIZE`] experiments, dates as dates. A URL
//! that asks for anything else gets a 400 naming the parameter.

use serde::Deserialize;

use crate::error::PageError;
use crate::source::SeriesKey;

/// The longest text a parameter may hold, in bytes.
pub(crate) const MAX_TEXT: usize = 200;

/// Experiments listed per page unless `per_page` says otherwise.
pub(crate) const DEFAULT_PAGE_SIZE: usize = 50;

/// The highest page number asked for (a page beyond the last is empty).
const MAX_PAGE: usize = 1_000_000;

/// The parameters of the home page and `/api/home`.
#[derive(Debug, Clone, Default, Deserialize)]
pub struct HomeQuery {
    /// Experiments whose name contains this text.
    pub name: Option<String>,
    /// Experiments (and regressions) of this host.
    pub host: Option<String>,
    /// Experiments whose CI job tested this branch or tag.
    pub branch: Option<String>,
    /// Experiments started on or after this date (`2026-01-31` or RFC 3339).
    pub since: Option<String>,
    /// Experiments started before this date.
    pub until: Option<String>,
    /// The page of experiments, from 1.
    pub page: Option<String>,
    /// Experiments per page.
    pub per_page: Option<String>,
    /// How many of each series' newest commits "changed most" looks at.
    pub commits: Option<String>,
}

/// The parameters of a series page and `/api/series`.
#[derive(Debug, Clone, Default, Deserialize)]
pub struct SeriesQuery {
    /// The experiments' name (absent: unnamed experiments).
    pub name: Option<String>,
    /// The metric.
    pub metric: Option<String>,
    /// The variant.
    pub variant: Option<String>,
    /// The host (absent: experiments whose host is unknown).
    pub host: Option<String>,
    /// The page of the commits' table (newest first), from 1.
    pub page: Option<String>,
}

/// The parameters of the compare page and `/api/compare`.
#[derive(Debug, Clone, Default, Deserialize)]
pub struct CompareQuery {
    /// The baseline experiment's id.
    pub a: Option<String>,
    /// The candidate experiment's id.
    pub b: Option<String>,
    /// The baseline's variant (default: its first).
    pub a_variant: Option<String>,
    /// The candidate's variant (default: its first).
    pub b_variant: Option<String>,
}

/// A text parameter, checked: at most [`MAX_TEXT`] bytes, no control
/// characters; an empty one counts as absent (as an empty form field).
pub(crate) fn text(name: &str, value: &Option<String>) -> Result<Option<String>, PageError> {
    let Some(v) = value.as_deref().filter(|v| !v.is_empty()) else {
        return Ok(None);
    };
    if v.len() > MAX_TEXT {
        return Err(PageError::BadRequest(format!(
            "parameter '{name}' is {} bytes long; at most {MAX_TEXT} are accepted",
            v.len()
        )));
    }
    if v.chars().any(char::is_control) {
        return Err(PageError::BadRequest(format!(
            "parameter '{name}' holds a control character; give plain text"
        )));
    }
    Ok(Some(v.to_string()))
}

/// A required text parameter.
pub(crate) fn required(name: &str, value: &Option<String>) -> Result<String, PageError> {
    text(name, value)?.ok_or_else(|| {
        PageError::BadRequest(format!(
            "parameter '{name}' is missing; it is required here"
        ))
    })
}

/// A number parameter within `1..=max`, or `default` when absent.
pub(crate) fn number(
    name: &str,
    value: &Option<String>,
    default: usize,
    max: usize,
) -> Result<usize, PageError> {
    let Some(v) = text(name, value)? else {
        return Ok(default);
    };
    match v.parse::<usize>() {
        Ok(n) if (1..=max).contains(&n) => Ok(n),
        _ => Err(PageError::BadRequest(format!(
            "parameter '{name}' is '{v}'; give a whole number from 1 to {max}"
        ))),
    }
}

/// A page number.
pub(crate) fn page(value: &Option<String>) -> Result<usize, PageError> {
    number("page", value, 1, MAX_PAGE)
}

/// An experiment id.
pub(crate) fn experiment_id(name: &str, value: &str) -> Result<i64, PageError> {
    let trimmed = value.trim_start_matches('#');
    trimmed
        .parse::<i64>()
        .ok()
        .filter(|id| *id > 0)
        .ok_or_else(|| {
            let shown: String = value.chars().take(40).collect();
            PageError::BadRequest(format!(
                "'{shown}' ({name}) is not an experiment id; give the number `perflab history` lists"
            ))
        })
}

/// A date or time bound: `YYYY-MM-DD`, optionally followed by an RFC 3339
/// time (`T12:00:00Z`), as the store's start times are written.
pub(crate) fn date(name: &str, value: &Option<String>) -> Result<Option<String>, PageError> {
    let Some(v) = text(name, value)? else {
        return Ok(None);
    };
    let b = v.as_bytes();
    let digits = |r: std::ops::Range<usize>| r.into_iter().all(|i| b[i].is_ascii_digit());
    let looks_like_date = b.len() >= 10
        && b.len() <= 35
        && digits(0..4)
        && b[4] == b'-'
        && digits(5..7)
        && b[7] == b'-'
        && digits(8..10)
        && (b.len() == 10
            || (b[10] == b'T'
                && v[11..]
                    .chars()
                    .all(|c| c.is_ascii_digit() || ":.+-Z".contains(c))));
    if looks_like_date {
        Ok(Some(v))
    } else {
        Err(PageError::BadRequest(format!(
            "parameter '{name}' is '{v}'; give a date as 2026-01-31 or a time as 2026-01-31T12:00:00Z"
        )))
    }
}

impl SeriesQuery {
    /// The series the query names.
    pub(crate) fn key(&self) -> Result<SeriesKey, PageError> {
        Ok(SeriesKey {
            name: text("name", &self.name)?,
            metric: required("metric", &self.metric)?,
            variant: required("variant", &self.variant)?,
            host: text("host", &self.host)?,
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_date_with_a_time_is_accepted_and_a_word_is_refused() {
        assert!(date("since", &Some("2026-01-31T12:00:00Z".into())).is_ok());
        assert!(date("since", &Some("2026-01-31".into())).is_ok());
        let e = date("since", &Some("yesterday".into())).unwrap_err();
        assert!(e.to_string().contains("since"), "{e}");
    }

    #[test]
    fn a_text_longer_than_the_limit_is_refused_naming_its_parameter() {
        let e = text("name", &Some("x".repeat(MAX_TEXT + 1))).unwrap_err();
        assert_eq!(e.status(), 400);
        assert!(e.to_string().contains("'name'"), "{e}");
    }

    #[test]
    fn an_experiment_id_must_be_a_positive_number() {
        assert_eq!(experiment_id("id", "#12").unwrap(), 12);
        assert!(experiment_id("id", "12abc").is_err());
        assert!(experiment_id("id", "0").is_err());
    }
}
