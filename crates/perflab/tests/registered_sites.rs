//! Spans named while the program runs (`perflab::span_life`): the same
//! name and module give one site, and past the tables' room a new site is
//! refused rather than recorded out of bounds.

mod common;

use common::quiet_session;
use perflab::span_life::{RegisteredSite, SpanLife};

/// One test, because sites are registered for the whole process.
#[test]
fn a_site_registered_twice_is_one_site_and_past_the_tables_room_sites_are_refused() {
    let session = quiet_session();
    let first = RegisteredSite::register("decode", "codec", Some("src/codec.rs"), Some(3)).unwrap();
    let again = RegisteredSite::register("decode", "codec", None, None).unwrap();
    for site in [first, again] {
        let life = SpanLife::new(site);
        let entry = life.enter();
        life.exit(entry);
        life.close();
    }
    let profile = session.finish().unwrap();
    let decode = profile.span("decode").unwrap();
    assert_eq!(
        (decode.calls, decode.file.as_str(), decode.line),
        (2, "src/codec.rs", 3)
    );
    assert!(decode.also_at.is_empty(), "one site, not two: {decode:?}");

    // The tables have room for 1024 registered sites; `decode` is one.
    let refused = (0..1100)
        .map(|i| RegisteredSite::register(&format!("site {i}"), "many", None, None))
        .filter(Option::is_none)
        .count();
    assert_eq!(refused, 1100 - 1023);
    assert!(RegisteredSite::register("decode", "codec", None, None).is_some());
}
