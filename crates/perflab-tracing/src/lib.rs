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
//! without the layer (see the crate's README). Per span the layer takes an
//! instance from a pool of its thread and finds it again in a short list of
//! the thread's recent instances, so a span made, entered and closed on one
//! thread costs no allocation and no look-up in the registry.
#![deny(missing_docs)]
#![warn(unreachable_pub)]

mod instances;
mod site_cache;

use std::sync::atomic::{AtomicU64, Ordering};

use instances::{Published, SpanKey};
use tracing_core::span::{Attributes, Id};
use tracing_core::subscriber::Interest;
use tracing_core::{Metadata, Subscriber};
use tracing_subscriber::layer::{Context, Layer};
use tracing_subscriber::registry::LookupSpan;

/// The last id space given to a layer.
static ID_SPACES: AtomicU64 = AtomicU64::new(0);

/// A fresh id space: span ids are unique only within one subscriber.
fn new_id_space() -> u64 {
    ID_SPACES.fetch_add(1, Ordering::Relaxed) + 1
}

/// The layer: add it to a `tracing_subscriber::registry()`.
pub fn layer() -> PerflabLayer {
    PerflabLayer {
        target_in_name: false,
        id_space: new_id_space(),
    }
}

/// A `tracing-subscriber` [`Layer`] recording spans into perflab's tables.
#[derive(Debug, Clone)]
pub struct PerflabLayer {
    target_in_name: bool,
    /// Tells this layer's spans from those of other subscribers, whose
    /// span ids may be the same; a new one each time the layer is added to
    /// a subscriber.
    id_space: u64,
}

impl PerflabLayer {
    /// Names each span `target::name` (for `#[instrument]`, the module path
    /// and the function), so that functions of the same name in different
    /// modules are reported apart.
    pub fn with_target_in_name(mut self, yes: bool) -> PerflabLayer {
        self.target_in_name = yes;
        self
    }

    fn key(&self, id: &Id) -> SpanKey {
        SpanKey {
            id_space: self.id_space,
            id: id.into_u64(),
        }
    }
}

/// The instance published in span `id`'s extensions, if any.
fn published<S>(ctx: &Context<'_, S>, id: &Id) -> Option<Published>
where
    S: Subscriber + for<'a> LookupSpan<'a>,
{
    ctx.span(id)?.extensions().get::<Published>().copied()
}

/// Puts `instance` into span `key`'s extensions.
fn publish<S>(ctx: &Context<'_, S>, key: SpanKey, instance: &'static instances::Instance)
where
    S: Subscriber + for<'a> LookupSpan<'a>,
{
    if let Some(span) = ctx.span(&Id::from_u64(key.id)) {
        span.extensions_mut().replace(Published(instance));
    }
}

impl<S> Layer<S> for PerflabLayer
where
    S: Subscriber + for<'a> LookupSpan<'a>,
{
    fn on_layer(&mut self, _subscriber: &mut S) {
        self.id_space = new_id_space();
    }

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
        instances::create(self.key(id), site, |key, instance| {
            publish(&ctx, key, instance)
        });
    }

    fn on_enter(&self, id: &Id, ctx: Context<'_, S>) {
        instances::enter(
            self.key(id),
            || published(&ctx, id),
            |key, instance| publish(&ctx, key, instance),
        );
    }

    fn on_exit(&self, id: &Id, _ctx: Context<'_, S>) {
        instances::exit(self.key(id));
    }

    fn on_close(&self, id: Id, ctx: Context<'_, S>) {
        instances::close(self.key(&id), || published(&ctx, &id));
    }
}
