//! `perflab serve`: a read-only web application over a perflab store
//! (SQLite or PostgreSQL), with a JSON API beside every page.
//!
//! - [`site`]: what each page shows, read from the store on every request
//!   (so experiments stored later appear without a restart), as plain data
//!   that the JSON API serializes and the pages render;
//! - `pages`: the HTML of each page, written as maud templates (checked at
//!   compile time, every string from the store escaped); an experiment is
//!   drawn by perflab-report's renderers, as `perflab report` draws it;
//! - `server`: the router, the bearer token, TLS (rustls), the limits on
//!   what a request may ask;
//! - `schema` (feature `schema`): the JSON Schemas of the API's answers,
//!   kept in `docs/schema/`;
//! - [`source`]: what the pages need computed the way the `perflab`
//!   command computes it (change points of every series, an experiment's
//!   report, a series' history), supplied by the command, so that it is
//!   written once.
//!
//! The store is opened read-only ([`perflab_store::Store::open_read_only`]):
//! nothing a request does can change it.
#![deny(missing_docs)]
#![warn(unreachable_pub)]

mod compare_commits;
mod error;
mod filters;
mod pages;
#[cfg(feature = "schema")]
pub mod schema;
mod server;
pub mod site;
pub mod source;

pub use compare_commits::{CommitsCompareData, CommitsQuery};
pub use error::{Error, PageError};
pub use filters::{CompareQuery, HomeQuery, SeriesQuery};
pub use server::{ServeSettings, TlsFiles, serve};
pub use site::Site;
pub use source::{SeriesHistory, SeriesKey, SourceError, StoreSource};

/// Renders the pages as the server sends them, for benchmarks that time
/// a page's server-side work without a network in between.
pub mod render {
    pub use crate::pages::{
        compare_commits_page, compare_page, experiment_page, home_page, series_page,
    };
}
