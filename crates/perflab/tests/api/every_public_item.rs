//! Every public item of perflab, used once: this file is compiled against
//! the recording build (`tests/public_api.rs`) and the build without probes
//! (`tests/feature-off`), so an item, a method or a trait implementation that
//! one build has and the other lacks fails to compile there.
//! `tests/public_api.rs` also checks that every public method of either
//! build is named here.

use std::fmt::Debug;
use std::future::Future;
use std::path::{Path, PathBuf};
use std::pin::pin;
use std::task::{Context, Poll, Waker};

use perflab::span_life::{Entry, RegisteredSite, SpanLife};
use perflab::sync::{Mutex, MutexGuard, RwLock, RwLockReadGuard, RwLockWriteGuard};
use perflab::{AttachGuard, Profile, Session, SessionBuilder, SessionHandle, SpanGuard};

#[perflab::measure]
fn measured(value: u32) -> u32 {
    value + 1
}

#[perflab::measure(name = "measured later")]
async fn measured_later(value: u32) -> u32 {
    value + 1
}

#[perflab::main(name = "api main")]
fn main_like() -> u32 {
    measured(1)
}

fn debug_and_clone<T: Debug + Clone>(value: &T) -> T {
    let _ = format!("{value:?}");
    value.clone()
}

fn count_amount<A: perflab::CountAmount>(amount: A) -> A {
    amount
}

fn gauge_value<V: perflab::GaugeValue>(value: V) -> V {
    value
}

fn ready<F: Future>(future: F) -> F::Output {
    let mut future = pin!(future);
    match future
        .as_mut()
        .poll(&mut Context::from_waker(Waker::noop()))
    {
        Poll::Ready(output) => output,
        Poll::Pending => panic!("the future was expected to be ready"),
    }
}

/// Uses every public item; returns whether a profile came out (only when
/// probes record).
pub fn use_every_public_item() -> bool {
    let _: bool = perflab::ENABLED;
    let _: f64 = perflab::DEFAULT_UNATTRIBUTED_THRESHOLD;
    let _: &str = perflab::TABLE_ENV;
    let _: f64 = perflab::PERCENTILE_RELATIVE_ERROR;
    let _: f64 = perflab::INSTRUMENTATION_COST_SHARE;
    let _: f64 = perflab::NEAR_SPAN_COST_FACTOR;
    let _: &str = perflab::profile::PROFILE_ENV;
    let _: fn(&Path, &Profile) -> std::io::Result<()> = perflab::write_profile;
    let _: fn(&Profile) -> String = perflab::render_table;
    let _: fn() -> Session = Session::start;

    let builder: SessionBuilder = Session::builder()
        .name("api")
        .this_thread_only()
        .print_table(false)
        .profile_path(PathBuf::from("never-written.json"))
        .no_profile_file()
        .trace_path(PathBuf::from("never-written-trace.json"))
        .no_trace_file()
        .unattributed_threshold(0.2);
    let session: Session = debug_and_clone(&builder).start();
    let handle: SessionHandle = debug_and_clone(&session.handle());
    std::thread::scope(|scope| {
        scope.spawn(|| {
            let _attached: AttachGuard = handle.attach();
            perflab::count!("attached");
        });
    });

    {
        let guard: SpanGuard = perflab::span!("api span");
        let _: bool = guard.is_recording();
        let _ = format!("{guard:?}");
        let _: u32 = perflab::span!("api block", { measured(1) });
        perflab::count!("api counter");
        perflab::count!("api amount", count_amount(2u32));
        perflab::gauge!("api gauge", gauge_value(0.5));
        let _: u8 = ready(perflab::future!("api future", async { 3u8 }));
        let _: u32 = ready(measured_later(1));
        let _: u32 = main_like();
    }

    let site: Option<RegisteredSite> =
        RegisteredSite::register("api life", module_path!(), Some(file!()), Some(line!()));
    if let Some(site) = site {
        let _: &'static str = debug_and_clone(&site).name();
        let life = SpanLife::new(site);
        let entry: Entry = life.enter();
        let _ = format!("{entry:?} {life:?}");
        life.exit(entry);
        life.close();
        life.restart(site);
        life.exit(life.enter());
        life.close();
    }

    let mut mutex = Mutex::named("api mutex", 1u32);
    {
        let mut guard: MutexGuard<'_, u32> = mutex.lock().unwrap();
        *guard += 1;
    }
    let _ = mutex.try_lock().map(|guard| *guard);
    let _: bool = mutex.is_poisoned();
    *mutex.get_mut().unwrap() += 1;
    let _: u32 = mutex.into_inner().unwrap();
    let _ = Mutex::<u32>::default();
    let _ = format!("{:?}", Mutex::new(0u8));

    let mut lock = RwLock::named("api lock", vec![1u32]);
    {
        let mut writer: RwLockWriteGuard<'_, Vec<u32>> = lock.write().unwrap();
        writer.push(2);
    }
    {
        let reader: RwLockReadGuard<'_, Vec<u32>> = lock.read().unwrap();
        let _ = reader.len();
    }
    let _ = lock.try_read().map(|reader| reader.len());
    let _ = lock.try_write().map(|mut writer| writer.push(3));
    let _: bool = lock.is_poisoned();
    lock.get_mut().unwrap().push(4);
    let _: Vec<u32> = lock.into_inner().unwrap();
    let _ = RwLock::<u32>::default();
    let _ = format!("{:?}", RwLock::new(0u8));

    let profile: Option<Profile> = session.finish();
    profile.is_some()
}
