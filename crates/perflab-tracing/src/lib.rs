//! `tracing` spans as perflab spans: a program already instrumented with
//! `tracing` gets perflab's span table (self and inclusive time, calls,
//! percentiles, the unattributed share of each thread) without new
//! annotations.
//!
//! ```
//! use tracing_subscriber::layer::SubscriberExt;
//!
//! #[tracing::instrument]
//! fn parse(input: &str) -> usize {
//!     input.len()
//! }
//!
//! let session = perflab::Session::builder().print_table(false).no_profile_file().start();
//! let subscriber = tracing_subscriber::registry().with(perflab_tracing::layer());
//! tracing::subscriber::with_default(subscriber, || parse("a line"));
//! let profile = session.finish().unwrap();
//! assert_eq!(profile.span("parse").unwrap().calls, 1);
//! ```
//!
//! How spans map:
//! - **Identity**: one perflab span per callsite name and target; fields
//!   are ignored (`#[instrument]` on `fn parse(input)` is one span, `parse`,
//!   whatever the input). Callsites with the same name are reported
//!   together; [`PerflabLayer::with_target_in_name`] tells them apart.
//! - **One call** is one span instance, from its first entry to its last
//!   exit. Each entry is a frame on the entering thread's stack, so spans
//!   entered inside it are its children, as with `perflab::span!`.
//! - **Async**: `#[instrument]` on an async function enters its span at
//!   each poll. An instance entered more than once is reported as async:
//!   polls, busy time (inside the polls), wake-ups (polls after the first)
//!   and idle time (the rest of its lifetime); its inclusive time is the
//!   lifetime, as for `#[perflab::measure]` on an async function.
//!
//! Spans record into the perflab session the entering thread records into,
//! so start a session (`#[perflab::main]` or [`perflab::Session`]) as usual.
//! Cost: `cargo bench -p perflab-tracing --bench layer_cost` measures a span
//! through this layer against `perflab::span!` and against a registry
//! without the layer (see the crate's README).
#![deny(missing_docs)]
#![warn(unreachable_pub)]

mod open_entries;
mod recent_spans;
mod site_cache;

use std::sync::Arc;

use perflab::span_life::SpanLife;
use recent_spans::Instance;
use tracing_core::span::{Attributes, Id};
use tracing_core::subscriber::Interest;
use tracing_core::{Metadata, Subscriber};
use tracing_subscriber::layer::{Context, Layer};
use tracing_subscriber::registry::LookupSpan;

/// The layer: add it to a `tracing_subscriber::registry()`.
pub fn layer() -> PerflabLayer {
    PerflabLayer {
        target_in_name: false,
    }
}

/// A `tracing-subscriber` [`Layer`] recording spans into perflab's tables.
#[derive(Debug, Clone)]
pub struct PerflabLayer {
    target_in_name: bool,
}

impl PerflabLayer {
    /// Names each span `target::name` (for `#[instrument]`, the module path
    /// and the function), so that functions of the same name in different
    /// modules are reported apart.
    pub fn with_target_in_name(mut self, yes: bool) -> PerflabLayer {
        self.target_in_name = yes;
        self
    }
}

impl<S> Layer<S> for PerflabLayer
where
    S: Subscriber + for<'a> LookupSpan<'a>,
{
    fn register_callsite(&self, metadata: &'static Metadata<'static>) -> Interest {
        if metadata.is_span() {
            site_cache::site_of(metadata, self.target_in_name);
        }
        Interest::always()
    }

    fn on_new_span(&self, attrs: &Attributes<'_>, id: &Id, ctx: Context<'_, S>) {
        let Some(site) = site_cache::site_of(attrs.metadata(), self.target_in_name) else {
            return;
        };
        if let Some(span) = ctx.span(id) {
            let instance = Arc::new(Instance::new(SpanLife::new(site)));
            recent_spans::remember(id, &instance);
            span.extensions_mut().insert(instance);
        }
    }

    fn on_enter(&self, id: &Id, ctx: Context<'_, S>) {
        // The instance without a registry look-up when this thread made it.
        let instance = recent_spans::find(id)
            .or_else(|| ctx.span(id)?.extensions().get::<Arc<Instance>>().cloned());
        if let Some(instance) = instance {
            open_entries::push(id, instance);
        }
    }

    fn on_exit(&self, id: &Id, _ctx: Context<'_, S>) {
        open_entries::pop(id);
    }

    fn on_close(&self, id: Id, ctx: Context<'_, S>) {
        if let Some(instance) = recent_spans::take(&id) {
            instance.close();
        } else if let Some(span) = ctx.span(&id) {
            if let Some(instance) = span.extensions().get::<Arc<Instance>>() {
                instance.close();
            }
        }
    }
}
