//! Every probe of perflab, compiled with the `enabled` feature off: the same
//! code as an instrumented program, which must build and run unchanged.

use std::cell::Cell;

/// A measured function.
#[perflab::measure]
pub fn add(a: u64, b: u64) -> u64 {
    a + b
}

/// A renamed measured function returning a result, with `?` inside.
#[perflab::measure(name = "parse")]
pub fn parse(text: &str) -> Result<u64, std::num::ParseIntError> {
    let value = text.trim().parse::<u64>()?;
    Ok(value)
}

/// A measured async function with `?`.
#[perflab::measure]
pub async fn parse_later(text: String) -> Result<u64, std::num::ParseIntError> {
    parse(&text)
}

/// A method.
pub struct Counter(u64);

impl Counter {
    /// A measured method.
    #[perflab::measure("Counter::bump")]
    pub fn bump(&mut self) -> u64 {
        self.0 += 1;
        self.0
    }
}

/// Phases, counters and gauges.
pub fn phases(evaluated: &Cell<u32>) -> u64 {
    let _phase = perflab::span!("phase");
    let sum = perflab::span!("sum", { add(2, 3) });
    perflab::count!("events");
    perflab::count!("amount", {
        evaluated.set(evaluated.get() + 1);
        5u32
    });
    perflab::gauge!("level", {
        evaluated.set(evaluated.get() + 1);
        0.5
    });
    sum
}

/// `#[perflab::main]` on a function that is not main.
#[perflab::main]
pub fn instrumented_main() -> u64 {
    add(1, 1)
}

/// The file that uses every public item, shared with the recording build's
/// `tests/public_api.rs`: both builds must compile it.
#[cfg(test)]
#[path = "../../api/every_public_item.rs"]
mod every_public_item;

#[cfg(test)]
mod tests {
    use super::*;
    use std::future::Future;
    use std::pin::pin;
    use std::task::{Context, Poll, Waker};

    #[test]
    fn probes_are_off_and_zero_sized() {
        assert!(!perflab::ENABLED);
        assert_eq!(std::mem::size_of::<perflab::SpanGuard>(), 0);
        assert_eq!(std::mem::size_of::<perflab::Session>(), 0);
        assert!(!perflab::span!("off").is_recording());
    }

    #[test]
    fn every_public_item_is_usable_with_probes_off() {
        assert!(
            !crate::every_public_item::use_every_public_item(),
            "no profile without probes"
        );
    }

    #[test]
    fn instrumented_code_runs_unchanged() {
        let session = perflab::Session::builder()
            .name("off")
            .this_thread_only()
            .print_table(false)
            .no_profile_file()
            .start();
        let handle = session.handle();
        std::thread::spawn(move || {
            let _attached = handle.attach();
            add(1, 2)
        })
        .join()
        .unwrap();
        assert_eq!(add(2, 2), 4);
        assert_eq!(parse(" 42 "), Ok(42));
        assert!(parse("x").is_err());
        let mut counter = Counter(0);
        assert_eq!(counter.bump(), 1);
        assert_eq!(instrumented_main(), 2);
        let evaluated = Cell::new(0);
        assert_eq!(phases(&evaluated), 5);
        assert_eq!(evaluated.get(), 0, "probe arguments are not evaluated");
        let mut future = pin!(parse_later("7".to_string()));
        let mut context = Context::from_waker(Waker::noop());
        assert_eq!(future.as_mut().poll(&mut context), Poll::Ready(Ok(7)));
        let mut received = pin!(perflab::future!("receive", async { 3u8 }));
        assert_eq!(received.as_mut().poll(&mut context), Poll::Ready(3));
        let lock = perflab::sync::Mutex::named("off", 1u32);
        *lock.lock().unwrap() += 1;
        assert_eq!(*lock.try_lock().unwrap(), 2);
        let table = perflab::sync::RwLock::new(vec![1]);
        table.write().unwrap().push(2);
        assert_eq!(table.read().unwrap().len(), 2);
        assert!(session.finish().is_none(), "no profile without probes");
    }

    #[test]
    fn measured_async_functions_stay_plain_futures() {
        fn assert_send<F: Future + Send>(_: &F) {}
        assert_send(&parse_later(String::new()));
    }
}
