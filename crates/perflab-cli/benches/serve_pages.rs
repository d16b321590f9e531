//! How long `perflab serve` takes to build its two heaviest pages on a
//! store of a team's size: 10,000 experiments, among them one series of
//! 1,000 commits × 5 runs, in SQLite and in PostgreSQL. Times the home
//! page (the change points of every series, a page of experiments) and the
//! series page (its history, change points and a page of commits),
//! server-side: reading the store and rendering the HTML, without the
//! network. Then starts the real `perflab serve` on the same store, fetches
//! both pages over HTTP, and reports the serve process's peak memory
//! (`VmHWM` of /proc/PID/status): the store is read through one
//! connection, and a page holds one page of experiments and the series it
//! draws, so it stays bounded however many experiments the store holds.
//!
//! PostgreSQL: the database of `PERFLAB_BENCH_POSTGRES` (a URL of an empty
//! database) when set, else a throwaway server started as the tests start
//! one (`initdb` of /usr/lib/postgresql/VERSION/bin, as the `postgres`
//! user under root); skipped, and said so, when neither is there or
//! `PERFLAB_BENCH_POSTGRES=off`. The PostgreSQL store is filled by copying
//! the SQLite one (`perflab push`'s copy).
//!
//! Run with `cargo bench -p perflab-cli --bench serve_pages`;
//! `PERFLAB_BENCH_EXPERIMENTS` and `PERFLAB_BENCH_COMMITS` make the store
//! smaller (e.g. 300 and 40 to check that it runs).

use std::io::{BufRead, BufReader, Read, Write};
use std::net::TcpStream;
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

use perflab_cli::commands::CommandSource;
use perflab_format::vocabulary::{ExperimentKind, ResultStatus};
use perflab_runner::FakeExecutor;
use perflab_serve::render::{home_page, series_page};
use perflab_serve::{HomeQuery, SeriesQuery, Site};
use perflab_store::provenance::Provenance;
use perflab_store::{Location, Store, VariantRecord};

#[allow(dead_code)]
#[path = "../tests/common/postgres.rs"]
mod postgres;

const REPETITIONS: usize = 7;
/// Runs per commit of the series.
const RUNS_PER_COMMIT: usize = 5;
/// Names the other experiments are spread over (each a series of its own).
const OTHER_NAMES: usize = 100;

fn size(variable: &str, default: usize) -> usize {
    std::env::var(variable)
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(default)
}

/// One stored experiment of `name` at commit `commit` with `runs` runs of
/// `level` seconds (±1%).
fn experiment(
    store: &Store,
    name: &str,
    commit: usize,
    e: usize,
    runs: usize,
    level: f64,
    rng: &mut fastrand::Rng,
) {
    let provenance = Provenance {
        git_commit: Some(format!("{:040x}", 0xc0ffee_u64 + commit as u64)),
        git_dirty: Some(false),
        host: "bench".into(),
        started_at: format!(
            "2026-01-01T{:02}:{:02}:{:02}.{:06}Z",
            e / 360_000 % 24,
            e / 6000 % 60,
            e / 100 % 60,
            e % 100
        ),
        ..Default::default()
    };
    let variant = VariantRecord {
        name: "run",
        command: "./bench",
        env: &[],
        cwd: None,
    };
    let (id, ids) = store
        .begin_experiment(
            ExperimentKind::Run,
            Some(name),
            Some("wall"),
            &provenance,
            "{}",
            &[variant],
        )
        .expect("begin");
    for i in 0..runs {
        let run = FakeExecutor::outcome(level * (1.0 + 0.02 * (rng.f64() - 0.5)));
        store
            .record_run(id, ids[0], i, i, false, &run)
            .expect("run");
    }
    store
        .finish_experiment(id, ResultStatus::Complete, None, None, None)
        .expect("finish");
}

fn fill(store: &Store, experiments: usize, commits: usize) {
    let mut rng = fastrand::Rng::with_seed(42);
    let others = experiments.saturating_sub(commits);
    let per_name = others.div_ceil(OTHER_NAMES).max(1);
    let mut e = 0;
    // Other series first, then the long one, whose newest commit is the host's newest.
    for k in 0..others {
        let (name, commit) = (format!("bench-{}", k / per_name), k % per_name);
        let level = 0.01
            * (1.0 + (k / per_name) as f64 / 10.0)
            * if commit > per_name / 2 { 1.1 } else { 1.0 };
        experiment(store, &name, commit, e, 2, level, &mut rng);
        e += 1;
    }
    for commit in 0..commits {
        let level = if commit < commits * 4 / 5 { 0.1 } else { 0.12 };
        experiment(
            store,
            "insert-10K",
            commits + commit,
            e,
            RUNS_PER_COMMIT,
            level,
            &mut rng,
        );
        e += 1;
    }
}

fn time(label: &str, mut work: impl FnMut() -> usize) {
    let mut seconds = Vec::new();
    let mut bytes = 0;
    for _ in 0..REPETITIONS {
        let started = Instant::now();
        bytes = work();
        seconds.push(started.elapsed().as_secs_f64());
    }
    seconds.sort_by(f64::total_cmp);
    println!(
        "{label}: median {:.1} ms (min {:.1}, max {:.1}) over {REPETITIONS} repetitions, {} KiB of HTML",
        seconds[REPETITIONS / 2] * 1e3,
        seconds[0] * 1e3,
        seconds[REPETITIONS - 1] * 1e3,
        bytes / 1024
    );
}

/// The series page's query: the long series.
fn series_query() -> SeriesQuery {
    SeriesQuery {
        name: Some("insert-10K".into()),
        metric: Some("wall".into()),
        variant: Some("run".into()),
        host: Some("bench".into()),
        page: None,
    }
}

/// Times both pages server-side on the store at `location`.
fn time_pages(back_end: &str, location: &Location) {
    let store = Store::open_read_only(location, "--store").expect("store");
    let site = Site::new(store, CommandSource::default(), None);
    time(&format!("{back_end}: home page"), || {
        let data = site.home(&HomeQuery::default()).expect("home");
        home_page(&site, &data).into_string().len()
    });
    let query = series_query();
    time(&format!("{back_end}: series page"), || {
        let data = site.series(&query).expect("series");
        series_page(&site, &data).into_string().len()
    });
}

/// `perflab serve` started on `store`, with the address it listens on.
struct Server {
    child: Child,
    addr: String,
}

impl Server {
    fn start(store: &str) -> Self {
        let mut child = Command::new(env!("CARGO_BIN_EXE_perflab"))
            .args(["--store", store, "serve", "--listen", "127.0.0.1:0"])
            .stdout(Stdio::null())
            .stderr(Stdio::piped())
            .spawn()
            .expect("perflab serve starts");
        let mut lines = BufReader::new(child.stderr.take().expect("stderr")).lines();
        let addr = lines
            .by_ref()
            .map_while(Result::ok)
            .find_map(|line| {
                let rest = &line[line.rfind("://")? + 3..];
                Some(rest.split('/').next()?.to_string())
            })
            .expect("perflab serve says where it serves");
        // Kept reading, so the server never blocks on a full pipe.
        std::thread::spawn(move || lines.for_each(drop));
        Server { child, addr }
    }

    /// GETs `path`; returns the size of the answer, which must be a 200.
    fn get(&self, path: &str) -> usize {
        let mut stream = TcpStream::connect(&self.addr).expect("connect");
        stream
            .set_read_timeout(Some(Duration::from_secs(600)))
            .expect("timeout");
        write!(
            stream,
            "GET {path} HTTP/1.1\r\nHost: {}\r\nConnection: close\r\n\r\n",
            self.addr
        )
        .expect("request");
        let mut answer = Vec::new();
        stream.read_to_end(&mut answer).expect("answer");
        assert!(
            answer.starts_with(b"HTTP/1.1 200"),
            "{path}: {}",
            String::from_utf8_lossy(&answer[..answer.len().min(300)])
        );
        answer.len()
    }

    /// The process's resident high-water mark, in KiB (`VmHWM`).
    fn peak_memory_kib(&self) -> Option<u64> {
        let status = std::fs::read_to_string(format!("/proc/{}/status", self.child.id())).ok()?;
        let line = status.lines().find(|l| l.starts_with("VmHWM:"))?;
        line.split_whitespace().nth(1)?.parse().ok()
    }
}

impl Drop for Server {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

/// Times both pages fetched from the real `perflab serve` over HTTP, and
/// prints the serve process's peak memory.
fn time_served(back_end: &str, store: &str) {
    let server = Server::start(store);
    let series = "/series?name=insert-10K&metric=wall&variant=run&host=bench";
    time(&format!("{back_end}: home page over HTTP"), || {
        server.get("/")
    });
    time(&format!("{back_end}: series page over HTTP"), || {
        server.get(series)
    });
    match server.peak_memory_kib() {
        Some(kib) => println!(
            "{back_end}: perflab serve's peak memory (VmHWM) {:.1} MiB after {} requests",
            kib as f64 / 1024.0,
            2 * REPETITIONS
        ),
        None => println!("{back_end}: perflab serve's peak memory: /proc has no VmHWM for it"),
    }
}

/// The PostgreSQL database to fill, and the throwaway server holding it
/// (None when `PERFLAB_BENCH_POSTGRES` names one); Err says why PostgreSQL
/// is skipped.
fn postgres_database() -> Result<(String, Option<postgres::PostgresServer>), String> {
    match std::env::var("PERFLAB_BENCH_POSTGRES") {
        Ok(v) if v == "off" => Err("PERFLAB_BENCH_POSTGRES=off".into()),
        Ok(url) if !url.is_empty() => Ok((url, None)),
        _ => {
            let installed = std::fs::read_dir("/usr/lib/postgresql")
                .into_iter()
                .flatten()
                .flatten()
                .any(|e| e.path().join("bin/initdb").exists());
            if !installed {
                return Err("no PERFLAB_BENCH_POSTGRES=URL and no PostgreSQL installed \
                     (apt-get install postgresql) to start a throwaway server"
                    .into());
            }
            let server = postgres::PostgresServer::start();
            Ok((server.database("serve_pages"), Some(server)))
        }
    }
}

fn main() {
    let experiments = size("PERFLAB_BENCH_EXPERIMENTS", 10_000);
    let commits = size("PERFLAB_BENCH_COMMITS", 1_000).min(experiments);
    let dir = tempfile::tempdir().expect("temporary directory");
    let path = dir.path().join("perflab.db");
    let started = Instant::now();
    fill(&Store::open(&path).expect("store"), experiments, commits);
    println!(
        "store of {experiments} experiments, a series of {commits} commits × {RUNS_PER_COMMIT} runs, filled in {:.1} s",
        started.elapsed().as_secs_f64()
    );
    time_pages("SQLite", &Location::File(path.clone()));
    time_served("SQLite", path.to_str().expect("a UTF-8 path"));

    match postgres_database() {
        Err(why) => println!("PostgreSQL: skipped ({why})"),
        Ok((url, _server)) => {
            let started = Instant::now();
            let location = Location::parse(std::path::Path::new(&url), "PERFLAB_BENCH_POSTGRES")
                .expect("a PostgreSQL URL");
            let target =
                Store::open_at(&location, "PERFLAB_BENCH_POSTGRES").expect("PostgreSQL store");
            Store::open(&path)
                .expect("store")
                .copy_to(&target, &Default::default())
                .expect("copy into PostgreSQL");
            drop(target);
            println!(
                "PostgreSQL store filled (copied) in {:.1} s",
                started.elapsed().as_secs_f64()
            );
            time_pages("PostgreSQL", &location);
            time_served("PostgreSQL", &url);
        }
    }
}
