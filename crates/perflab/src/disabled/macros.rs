//! What the public macros of `lib.rs` expand to without probes: names are
//! still checked to be `&str` constants and amounts to be expressions, but
//! nothing is evaluated or recorded.

/// Enters a span (disabled build: a zero-sized guard).
#[doc(hidden)]
#[macro_export]
macro_rules! __enter_span {
    ($name:expr, $kind:ident) => {{
        const _: &str = $name;
        $crate::__private::disabled_span()
    }};
}

/// Adds to a counter (disabled build: the amount is type-checked, not evaluated).
#[doc(hidden)]
#[macro_export]
macro_rules! __count {
    ($name:expr, $amount:expr) => {{
        const _: &str = $name;
        if false {
            let _ = $amount;
        }
    }};
}

/// Sets a gauge (disabled build: the value is type-checked, not evaluated).
#[doc(hidden)]
#[macro_export]
macro_rules! __gauge {
    ($name:expr, $value:expr) => {{
        const _: &str = $name;
        if false {
            let _ = $value;
        }
    }};
}

/// Measures a future (disabled build: the future unchanged).
#[doc(hidden)]
#[macro_export]
macro_rules! __measure_future {
    ($name:expr, $future:expr) => {{
        const _: &str = $name;
        $future
    }};
}
