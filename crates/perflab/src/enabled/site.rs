//! Call sites: one static per `span!`, `count!`, `gauge!` and `#[measure]`,
//! gathered at link time into distributed slices.
//!
//! Because every call site is in a slice before `main` runs, a session can
//! report a span that exists in the code but never ran, and per-thread tables
//! can be sized once, so recording never allocates.

use std::sync::atomic::{AtomicBool, AtomicU32, Ordering};

use linkme::distributed_slice;
pub use perflab_format::profile::SpanKind;

/// Every span call site linked into the program.
#[distributed_slice]
pub static SPAN_SITES: [SpanSite];

/// Every counter call site linked into the program.
#[distributed_slice]
pub static COUNTER_SITES: [CounterSite];

/// Every gauge call site linked into the program.
#[distributed_slice]
pub static GAUGE_SITES: [GaugeSite];

/// Where a probe is in the source code.
#[derive(Debug)]
pub struct SiteLocation {
    /// Name given in the source.
    pub name: &'static str,
    /// Source file.
    pub file: &'static str,
    /// Source line.
    pub line: u32,
    /// Module path of the call site.
    pub module: &'static str,
}

/// Position of a site in its slice, cached in the site itself.
///
/// Stored as index + 1 so that the all-zero static means "not yet resolved":
/// resolving takes a pointer subtraction in a cold function, and every later
/// probe pays one relaxed load.
#[derive(Debug)]
pub(crate) struct SiteIndex(AtomicU32);

impl SiteIndex {
    const fn new() -> Self {
        SiteIndex(AtomicU32::new(0))
    }

    /// An index known at creation (sites registered while the program runs).
    fn resolved(index: usize) -> Self {
        SiteIndex(AtomicU32::new(index as u32 + 1))
    }

    #[inline(always)]
    fn get<T>(&self, site: &T, all: fn() -> &'static [T]) -> usize {
        // `all` is a function so that the slice bounds are only computed on
        // the cold path.
        match self.0.load(Ordering::Relaxed) {
            0 => self.resolve(site, all()),
            plus_one => plus_one as usize - 1,
        }
    }

    #[cold]
    #[inline(never)]
    fn resolve<T>(&self, site: &T, all: &'static [T]) -> usize {
        let start = all.as_ptr() as usize;
        let offset = (site as *const T as usize).wrapping_sub(start);
        let index = offset / std::mem::size_of::<T>().max(1);
        if index >= all.len() {
            // A site outside the slice (cannot happen with linkme); an index
            // past every table makes the probe a no-op instead of a crash.
            return usize::MAX;
        }
        self.0.store(index as u32 + 1, Ordering::Relaxed);
        index
    }
}

/// What a span site's figures are reported as.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub(crate) enum SitePurpose {
    /// A span in the span table.
    Span,
    /// The time a lock was held in a mode (its wait is a span of its own):
    /// reported with the lock, not as a span, because holds need not nest.
    LockHold(perflab_format::profile::LockMode),
}

/// A span call site: a `span!`, or a function with `#[measure]`.
#[derive(Debug)]
pub struct SpanSite {
    /// Name and place in the source.
    pub location: SiteLocation,
    /// What kind of code the span measures.
    pub kind: SpanKind,
    pub(crate) purpose: SitePurpose,
    /// Set when one instance of the span was entered more than once (a
    /// `tracing` span around a future, entered at each poll): it is then
    /// reported as async.
    pub(crate) reentered: AtomicBool,
    index: SiteIndex,
}

impl SpanSite {
    /// A call site; used by the macros.
    pub const fn new(
        name: &'static str,
        kind: SpanKind,
        file: &'static str,
        line: u32,
        module: &'static str,
    ) -> Self {
        SpanSite {
            location: SiteLocation {
                name,
                file,
                line,
                module,
            },
            kind,
            purpose: SitePurpose::Span,
            reentered: AtomicBool::new(false),
            index: SiteIndex::new(),
        }
    }

    /// A site registered while the program runs, at table index `index`.
    pub(crate) fn registered(
        location: SiteLocation,
        kind: SpanKind,
        purpose: SitePurpose,
        index: usize,
    ) -> Self {
        SpanSite {
            location,
            kind,
            purpose,
            reentered: AtomicBool::new(false),
            index: SiteIndex::resolved(index),
        }
    }

    /// The kind to report: async once an instance was entered more than once.
    pub(crate) fn reported_kind(&self) -> SpanKind {
        if self.reentered.load(Ordering::Relaxed) {
            SpanKind::Async
        } else {
            self.kind
        }
    }

    /// Position in [`SPAN_SITES`], the index of this site's slot in every thread table.
    #[inline(always)]
    pub(crate) fn index(&self) -> usize {
        self.index.get(self, || SPAN_SITES.static_slice())
    }
}

/// A counter call site: a `count!`.
#[derive(Debug)]
pub struct CounterSite {
    /// Name and place in the source.
    pub location: SiteLocation,
    index: SiteIndex,
}

impl CounterSite {
    /// A call site; used by the macros.
    pub const fn new(
        name: &'static str,
        file: &'static str,
        line: u32,
        module: &'static str,
    ) -> Self {
        CounterSite {
            location: SiteLocation {
                name,
                file,
                line,
                module,
            },
            index: SiteIndex::new(),
        }
    }

    #[inline(always)]
    pub(crate) fn index(&self) -> usize {
        self.index.get(self, || COUNTER_SITES.static_slice())
    }
}

/// A gauge call site: a `gauge!`.
#[derive(Debug)]
pub struct GaugeSite {
    /// Name and place in the source.
    pub location: SiteLocation,
    index: SiteIndex,
}

impl GaugeSite {
    /// A call site; used by the macros.
    pub const fn new(
        name: &'static str,
        file: &'static str,
        line: u32,
        module: &'static str,
    ) -> Self {
        GaugeSite {
            location: SiteLocation {
                name,
                file,
                line,
                module,
            },
            index: SiteIndex::new(),
        }
    }

    #[inline(always)]
    pub(crate) fn index(&self) -> usize {
        self.index.get(self, || GAUGE_SITES.static_slice())
    }
}
