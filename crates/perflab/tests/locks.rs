//! `perflab::sync` locks: waiting and holding, told apart under real
//! contention between two threads.

mod common;

use std::sync::Arc;
use std::sync::mpsc::channel;
use std::time::Duration;

use common::quiet_session;
use perflab::profile::LockMode;
use perflab::sync::{Mutex, RwLock};

const HOLD: Duration = Duration::from_millis(100);

#[test]
fn a_thread_blocked_on_a_held_mutex_waits_while_the_holder_holds() {
    let session = quiet_session();
    let handle = session.handle();
    let lock = Arc::new(Mutex::named("shared queue", 0u64));
    let (held_tx, held_rx) = channel();
    let (asking_tx, asking_rx) = channel();
    let waiter = {
        let lock = lock.clone();
        std::thread::spawn(move || {
            let _attached = handle.attach();
            held_rx.recv().unwrap();
            asking_tx.send(()).unwrap();
            // The holder keeps the lock for HOLD after this signal, so
            // this acquisition finds it taken and waits about that long.
            let _work = perflab::span!("waiter");
            *lock.lock().unwrap() += 1;
        })
    };
    {
        let _work = perflab::span!("holder");
        let mut value = lock.lock().unwrap();
        held_tx.send(()).unwrap();
        asking_rx.recv().unwrap();
        std::thread::sleep(HOLD);
        *value += 1;
    }
    waiter.join().unwrap();
    let profile = session.finish().unwrap();

    let record = profile.lock("shared queue", LockMode::Exclusive).unwrap();
    assert_eq!(
        (record.acquisitions, record.contended),
        (2, 1),
        "{record:?}"
    );
    assert_eq!(record.threads, 2);
    // The holder's hold contains its sleep; the waiter's is an addition.
    assert!(record.hold_max_ns >= HOLD.as_nanos() as u64, "{record:?}");
    assert!(record.hold_p50_ns < record.hold_max_ns / 10, "{record:?}");
    // Only the waiter waited, for about the holder's sleep (a lower bound
    // with room for the waiter being scheduled late after its signal).
    assert!(record.wait_ns >= HOLD.as_nanos() as u64 / 4, "{record:?}");
    assert_eq!(record.wait_max_ns, record.wait_ns);
    // The wait is a span of the waiting thread, taken out of its self time.
    let wait = profile.span("shared queue (lock wait)").unwrap();
    assert_eq!((wait.calls, wait.threads), (1, 1));
    assert_eq!(wait.inclusive_ns, record.wait_ns);
    let waiter = profile.span("waiter").unwrap();
    assert!(waiter.self_ns + wait.inclusive_ns <= waiter.inclusive_ns + 2);
    assert!(waiter.self_ns < waiter.inclusive_ns / 2, "{waiter:?}");
    // The holder never waited: its own span is all self time.
    let holder = profile.span("holder").unwrap();
    assert_eq!(holder.self_ns, holder.inclusive_ns);
}

#[test]
fn an_uncontended_lock_counts_acquisitions_and_holds_but_no_wait() {
    let session = quiet_session();
    let lock = Mutex::named("counter", 0u32);
    for _ in 0..100 {
        *lock.lock().unwrap() += 1;
    }
    assert!(lock.try_lock().is_ok());
    let profile = session.finish().unwrap();
    let record = profile.lock("counter", LockMode::Exclusive).unwrap();
    assert_eq!((record.acquisitions, record.contended), (101, 0));
    assert_eq!((record.wait_ns, record.wait_max_ns), (0, 0));
    assert!(record.hold_ns > 0);
    assert_eq!(profile.span("counter (lock wait)").unwrap().calls, 0);
}

#[test]
fn readers_and_writers_of_an_rwlock_are_reported_apart() {
    let session = quiet_session();
    let handle = session.handle();
    let lock = Arc::new(RwLock::named("table", vec![1u64]));
    let (held_tx, held_rx) = channel();
    let (asking_tx, asking_rx) = channel();
    let reader = {
        let lock = lock.clone();
        std::thread::spawn(move || {
            let _attached = handle.attach();
            held_rx.recv().unwrap();
            asking_tx.send(()).unwrap();
            lock.read().unwrap().len()
        })
    };
    {
        let mut table = lock.write().unwrap();
        held_tx.send(()).unwrap();
        asking_rx.recv().unwrap();
        std::thread::sleep(HOLD);
        table.push(2);
    }
    assert_eq!(reader.join().unwrap(), 2);
    assert_eq!(lock.read().unwrap().len(), 2);
    let profile = session.finish().unwrap();
    let writes = profile.lock("table", LockMode::Exclusive).unwrap();
    let reads = profile.lock("table", LockMode::Shared).unwrap();
    assert_eq!((writes.acquisitions, writes.contended), (1, 0));
    assert_eq!((reads.acquisitions, reads.contended), (2, 1));
    assert!(writes.hold_ns >= HOLD.as_nanos() as u64);
    assert!(reads.wait_ns >= HOLD.as_nanos() as u64 / 4, "{reads:?}");
    assert_eq!(profile.span("table (read wait)").unwrap().calls, 1);
}

#[test]
fn a_lock_poisoned_by_a_panic_reports_it_as_std_does() {
    let lock = Arc::new(Mutex::new(1));
    let clone = lock.clone();
    let _ = std::thread::spawn(move || {
        let _guard = clone.lock().unwrap();
        panic!("poison the lock");
    })
    .join();
    assert!(lock.is_poisoned());
    assert_eq!(*lock.lock().unwrap_err().into_inner(), 1);
}
