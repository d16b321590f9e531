//! Spans named while the program runs (disabled build): sites are never
//! registered, so instances record nothing.

use std::convert::Infallible;
use std::marker::PhantomData;

/// A span site named while the program runs (disabled build: none exists).
#[derive(Debug, Clone, Copy)]
pub struct RegisteredSite {
    never: Infallible,
}

impl RegisteredSite {
    /// The site of spans named `name` in `module`: always `None` without probes.
    pub fn register(
        _name: &str,
        _module: &str,
        _file: Option<&str>,
        _line: Option<u32>,
    ) -> Option<RegisteredSite> {
        None
    }

    /// The span's name.
    pub fn name(&self) -> &'static str {
        match self.never {}
    }
}

/// One instance of a registered span (disabled build: records nothing).
#[derive(Debug)]
pub struct SpanLife {}

/// An open entry of a [`SpanLife`] (disabled build: records nothing).
#[must_use = "an entry is closed by SpanLife::exit"]
#[derive(Debug)]
pub struct Entry {
    _not_send: PhantomData<*const ()>,
}

impl SpanLife {
    /// A new instance of `site`, not yet entered.
    pub fn new(site: RegisteredSite) -> SpanLife {
        match site.never {}
    }

    /// Makes this instance a new instance of `site`, in place.
    pub fn restart(&self, site: RegisteredSite) {
        match site.never {}
    }

    /// Enters the instance on the calling thread.
    #[inline(always)]
    pub fn enter(&self) -> Entry {
        Entry {
            _not_send: PhantomData,
        }
    }

    /// Exits an entry made by [`enter`](SpanLife::enter) on this thread.
    #[inline(always)]
    pub fn exit(&self, _entry: Entry) {}

    /// Ends the instance.
    pub fn close(&self) {}
}
