//! What the public macros of `lib.rs` expand to when probes record: a static
//! call site registered with `linkme`, and the call that records into it.

/// Declares the static call site of a span; expands to `&'static SpanSite`.
#[doc(hidden)]
#[macro_export]
macro_rules! __span_site {
    ($name:expr, $kind:ident) => {{
        #[$crate::__private::linkme::distributed_slice($crate::__private::SPAN_SITES)]
        #[linkme(crate = $crate::__private::linkme)]
        static __PERFLAB_SPAN_SITE: $crate::__private::SpanSite = $crate::__private::SpanSite::new(
            $name,
            $crate::__private::SpanKind::$kind,
            ::core::file!(),
            ::core::line!(),
            ::core::module_path!(),
        );
        &__PERFLAB_SPAN_SITE
    }};
}

/// Enters a span of kind `$kind` (`Span`, `Function`) named `$name`.
#[doc(hidden)]
#[macro_export]
macro_rules! __enter_span {
    ($name:expr, $kind:ident) => {
        $crate::__private::enter($crate::__span_site!($name, $kind))
    };
}

/// Adds `$amount` to the counter named `$name`.
#[doc(hidden)]
#[macro_export]
macro_rules! __count {
    ($name:expr, $amount:expr) => {{
        #[$crate::__private::linkme::distributed_slice($crate::__private::COUNTER_SITES)]
        #[linkme(crate = $crate::__private::linkme)]
        static __PERFLAB_COUNTER_SITE: $crate::__private::CounterSite =
            $crate::__private::CounterSite::new(
                $name,
                ::core::file!(),
                ::core::line!(),
                ::core::module_path!(),
            );
        $crate::__private::count(&__PERFLAB_COUNTER_SITE, $amount)
    }};
}

/// Sets the gauge named `$name` to `$value`.
#[doc(hidden)]
#[macro_export]
macro_rules! __gauge {
    ($name:expr, $value:expr) => {{
        #[$crate::__private::linkme::distributed_slice($crate::__private::GAUGE_SITES)]
        #[linkme(crate = $crate::__private::linkme)]
        static __PERFLAB_GAUGE_SITE: $crate::__private::GaugeSite =
            $crate::__private::GaugeSite::new(
                $name,
                ::core::file!(),
                ::core::line!(),
                ::core::module_path!(),
            );
        $crate::__private::gauge(&__PERFLAB_GAUGE_SITE, $value)
    }};
}

/// Measures `$future` as an async span named `$name`; used by `future!`
/// and by `#[measure]` on async functions.
#[doc(hidden)]
#[macro_export]
macro_rules! __measure_future {
    ($name:expr, $future:expr) => {
        $crate::__private::MeasuredFuture::new($crate::__span_site!($name, Async), $future)
    };
}
