//! Allocation counting per span (feature `alloc`): self and inclusive, and
//! right when an async function's polls run on different threads.
//! Run with `cargo test -p perflab --features alloc`.

mod common;

use common::{YieldOnce, quiet_session};
use std::alloc::System;
use std::hint::black_box;
use std::task::{Context, Waker};

#[global_allocator]
static ALLOCATOR: perflab::CountingAllocator<System> = perflab::CountingAllocator::new(System);

#[perflab::measure(name = "inner_alloc")]
fn inner() -> Vec<u8> {
    black_box(vec![1u8; 1000])
}

#[perflab::measure(name = "outer_alloc")]
fn outer() -> usize {
    let own = black_box(vec![2u8; 500]);
    let inner = inner();
    own.len() + inner.len()
}

#[test]
fn allocations_split_into_self_and_inclusive_per_span() {
    let session = quiet_session();
    for _ in 0..3 {
        outer();
    }
    let profile = session.finish().unwrap();
    let outer = profile.span("outer_alloc").unwrap().alloc.clone().unwrap();
    let inner = profile.span("inner_alloc").unwrap().alloc.clone().unwrap();
    assert_eq!((inner.self_allocs, inner.self_bytes), (3, 3000));
    assert_eq!((inner.inclusive_allocs, inner.inclusive_bytes), (3, 3000));
    assert_eq!((outer.self_allocs, outer.self_bytes), (3, 1500));
    assert_eq!((outer.inclusive_allocs, outer.inclusive_bytes), (6, 4500));
}

#[perflab::measure(name = "hopping")]
async fn hopping() -> usize {
    let first = black_box(vec![0u8; 100]);
    YieldOnce(false).await;
    let second = black_box(vec![0u8; 200]);
    first.len() + second.len()
}

#[test]
fn allocations_of_an_async_function_are_counted_on_every_thread_that_polls_it() {
    let session = quiet_session();
    let handle = session.handle();
    let mut future = Box::pin(hopping());
    let mut context = Context::from_waker(Waker::noop());
    assert!(future.as_mut().poll(&mut context).is_pending());
    std::thread::spawn(move || {
        let _attached = handle.attach();
        let mut context = Context::from_waker(Waker::noop());
        assert!(future.as_mut().poll(&mut context).is_ready());
    })
    .join()
    .unwrap();
    let profile = session.finish().unwrap();
    let hopping = profile.span("hopping").unwrap();
    assert_eq!(hopping.threads, 2);
    let alloc = hopping.alloc.clone().unwrap();
    assert_eq!((alloc.self_allocs, alloc.self_bytes), (2, 300));
}
