//! The shared store on a real PostgreSQL server (started by the tests, see
//! `common::postgres`): the same commands give the same documents as on
//! SQLite, push and pull copy each experiment and run once, concurrent
//! writers lose nothing, history keeps hosts apart, a killed perflab's experiment is marked
//! `incomplete`, runs replaced by the contention rule are kept but left out, and a wrong URL is
//! a usage error naming it without its password.

mod common;

use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

use common::postgres::PostgresServer;
use common::{Scratch, assert_exit, stdout_of_success};

/// A command printing `v N`, N a deterministic ripple around `base` taken
/// from a run counter in `counter_file`, so both stores see the same values.
fn counted(base: u32, counter_file: &str) -> String {
    format!(
        "c=$(cat {counter_file} 2>/dev/null || echo 0); echo $((c+1)) > {counter_file}; echo \"v $(({base} + c % 7))\""
    )
}

/// The same investigation: a run, two A/B experiments of one name, a
/// sweep, the metric's history and the report of each experiment. Returns
/// the documents written, in order.
fn investigate(s: &Scratch, store: &str) -> Vec<(String, String)> {
    let perflab = || {
        let mut c = s.perflab();
        c.args(["--store", store]);
        c
    };
    let metric = ["--metric", "v=v ([0-9]+)", "--measure", "v"];
    // `run` summarises a built-in measure (wall time); its runs' `v` are compared.
    stdout_of_success(
        &perflab()
            .args(["run", "--quiet", "-r", "6", "--json", "run.json"])
            .args(["--metric", "v=v ([0-9]+)"])
            .arg(counted(100, "run.count"))
            .output()
            .unwrap(),
    );
    for (i, step) in ["ab1", "ab2"].iter().enumerate() {
        let out = perflab()
            .args([
                "ab", "--quiet", "--name", "cmp", "--better", "higher", "--seed", "7",
            ])
            .args(["--min-runs", "5", "--max-runs", "12", "--warmup", "0"])
            // The same runs on both stores, however busy the machine.
            .args(["--max-cpu-wait", "off"])
            .args(["--json", &format!("{step}.json")])
            .args(metric)
            .arg(counted(100, &format!("{step}.a")))
            .arg(counted(104 + i as u32, &format!("{step}.b")))
            .output()
            .unwrap();
        common::assert_reached_a_result(&out);
    }
    let sweep = "c=$(cat sweep.count 2>/dev/null || echo 0); echo $((c+1)) > sweep.count; \
                 echo \"v $(({n} * 10 + c % 3))\"";
    stdout_of_success(
        &perflab()
            .args([
                "sweep",
                "--quiet",
                "-p",
                "n=1,2,4",
                "--min-runs",
                "3",
                "--seed",
                "7",
            ])
            .args(["--warmup", "0", "--better", "lower", "--json", "sweep.json"])
            .args(["--max-cpu-wait", "off"])
            .args(metric)
            .arg(sweep)
            .output()
            .unwrap(),
    );
    let out = perflab()
        .args([
            "history", "--metric", "v", "--name", "cmp", "--better", "higher",
        ])
        .args(["--json", "history.json"])
        .output()
        .unwrap();
    assert!(
        out.status.code() != Some(1) && out.status.code() != Some(2),
        "{out:?}"
    );
    let mut run = s.json("run.json");
    for variant in run["variants"].as_array_mut().unwrap() {
        let variant = variant.as_object_mut().unwrap();
        variant.remove("summary");
        variant.remove("samples");
    }
    let mut documents = vec![("run".to_string(), normalised(&run))];
    for name in ["ab1", "ab2", "sweep", "history"] {
        documents.push((
            name.to_string(),
            normalised(&s.json(&format!("{name}.json"))),
        ));
    }
    // Not the run's (1): it reports wall time, whose outliers are the clock's.
    for id in 2..=4 {
        let md = format!("report{id}.md");
        stdout_of_success(
            &perflab()
                .args(["report", &id.to_string(), "--markdown", &md])
                .output()
                .unwrap(),
        );
        let text = std::fs::read_to_string(s.path(&md)).unwrap();
        documents.push((md, without_clock_readings(&text)));
    }
    documents
}

/// Keys whose values are the clock's or the machine's, not the store's.
const VOLATILE: &[&str] = &[
    "provenance",
    "machine",
    "started_at",
    "finished_at",
    "wall_s",
    "user_s",
    "sys_s",
    "peak_memory_kib",
    "other_metrics",
    "cpu_wait",
    "cpu-wait",
    "cpu-wait-full",
];

fn normalised(doc: &serde_json::Value) -> String {
    fn strip(v: &mut serde_json::Value) {
        match v {
            serde_json::Value::Object(map) => {
                map.retain(|k, _| !VOLATILE.contains(&k.as_str()));
                // Warnings about the machine (its load, the runs' CPU wait)
                // are the moment's, not the store's.
                if let Some(serde_json::Value::Array(warnings)) = map.get_mut("warnings") {
                    warnings.retain(|w| {
                        let w = w.as_str().unwrap_or_default();
                        !w.contains("waited for a CPU")
                            && !MACHINE_STATE.iter().any(|m| w.contains(m))
                    });
                    if warnings.is_empty() {
                        map.remove("warnings");
                    }
                }
                map.values_mut().for_each(strip);
            }
            serde_json::Value::Array(items) => items.iter_mut().for_each(strip),
            _ => {}
        }
    }
    let mut doc = doc.clone();
    strip(&mut doc);
    serde_json::to_string_pretty(&doc).unwrap()
}

/// What the machine's state warnings (load, steal, drift, CPU settings) say.
const MACHINE_STATE: &[&str] = &[
    "load average",
    "steal",
    "drifted",
    "governor",
    "turbo",
    "interrupt",
];

/// A report without the lines that tell times of day, durations or the
/// machine's state while it ran (and without blank lines, which separate
/// the machine-state notes that one run printed and the other did not).
fn without_clock_readings(text: &str) -> String {
    let duration = regex::Regex::new(r"[0-9.]+ ?(ns|µs|ms|s|min|KiB|MiB|GiB)\b").unwrap();
    let about_the_machine = |l: &str| {
        l.starts_with("Machine:")
            || l.starts_with("CPU wait")
            || l.contains("waited for a CPU")
            || l.starts_with("> Machine state:")
            || (l.starts_with("> warning:") && MACHINE_STATE.iter().any(|w| l.contains(w)))
    };
    text.lines()
        .filter(|l| {
            !l.trim().is_empty()
                && !l.contains("started")
                && !l.contains("kernel")
                && !about_the_machine(l)
        })
        .map(|l| duration.replace_all(l, "T").into_owned())
        .collect::<Vec<_>>()
        .join("\n")
}

#[test]
fn run_ab_sweep_history_and_report_give_the_same_documents_on_sqlite_and_postgres() {
    let server = PostgresServer::start();
    let url = server.database("same");
    let on_sqlite = Scratch::new();
    let on_postgres = Scratch::new();
    let expected = investigate(&on_sqlite, "local.db");
    let found = investigate(&on_postgres, &url);
    // Not a comparison of empty documents: the decisions rest on the runs' values.
    for (name, doc) in &expected[1..3] {
        assert!(
            doc.contains("\"samples\"") && doc.contains("\"verdict\""),
            "{name}: {doc}"
        );
    }
    for ((name, want), (_, got)) in expected.iter().zip(&found) {
        assert_eq!(want, got, "{name} differs between SQLite and PostgreSQL");
    }
    assert_eq!(expected.len(), found.len());
}

/// Rows in `table`, 0 while perflab has not created it yet.
fn count(server: &PostgresServer, db: &str, table: &str) -> i64 {
    let exists = server.psql(db, &format!("SELECT to_regclass('{table}') IS NOT NULL"));
    if exists != "t" {
        return 0;
    }
    server
        .psql(db, &format!("SELECT COUNT(*) FROM {table}"))
        .parse()
        .unwrap()
}

#[test]
fn pushing_twice_stores_once_and_pulling_back_changes_nothing() {
    let server = PostgresServer::start();
    let url = server.database("shared");
    let local = Scratch::new();
    for name in ["one", "two"] {
        let out = local
            .perflab()
            .args(["run", "--quiet", "-r", "3", "--name", name, "true"])
            .output()
            .unwrap();
        assert_exit(&out, 0);
    }
    let push = || {
        stdout_of_success(
            &local
                .perflab()
                .args(["push", "--to", &url])
                .output()
                .unwrap(),
        )
    };
    let first = push();
    assert!(
        first.contains("2 experiments copied, 0 already there; 6 runs copied, 0 already there"),
        "{first}"
    );
    // The copy leaves the planner statistics of what it copied, not the
    // empty tables' (autovacuum would gather them only a minute later).
    let analysed = server.psql(
        "shared",
        "SELECT COUNT(*) FROM pg_stat_user_tables WHERE relname IN ('experiments', 'runs', 'variants') AND last_analyze IS NOT NULL",
    );
    assert_eq!(analysed, "3", "tables analysed after the push");
    let second = push();
    assert!(
        second.contains("0 experiments copied, 2 already there; 0 runs copied, 6 already there"),
        "{second}"
    );
    assert_eq!(count(&server, "shared", "experiments"), 2);
    assert_eq!(count(&server, "shared", "runs"), 6);
    assert_eq!(count(&server, "shared", "variants"), 2);

    // Another machine pulls one experiment by name, then everything.
    let elsewhere = Scratch::new();
    let pull = |extra: &[&str]| {
        stdout_of_success(
            &elsewhere
                .perflab()
                .args(["pull", "--from", &url])
                .args(extra)
                .output()
                .unwrap(),
        )
    };
    let only_two = pull(&["--name", "two"]);
    assert!(
        only_two.contains("1 experiments copied, 0 already there; 3 runs copied"),
        "{only_two}"
    );
    let all = pull(&[]);
    assert!(
        all.contains("1 experiments copied, 1 already there; 3 runs copied, 3 already there"),
        "{all}"
    );
    let again = pull(&[]);
    assert!(
        again.contains("0 experiments copied, 2 already there; 0 runs copied, 6 already there"),
        "{again}"
    );

    // The copy tells the same story as the original.
    // Ids are each store's own; the order of pulling made them differ.
    let report = |s: &Scratch, name: &str| {
        let text = stdout_of_success(&s.perflab().args(["report", name]).output().unwrap());
        regex::Regex::new("#[0-9]+")
            .unwrap()
            .replace_all(&text, "#ID")
            .into_owned()
    };
    assert_eq!(report(&local, "one"), report(&elsewhere, "one"));
    assert_eq!(report(&local, "two"), report(&elsewhere, "two"));

    // Pulled back where they came from: all there already.
    let back = stdout_of_success(
        &local
            .perflab()
            .args(["pull", "--from", &url])
            .output()
            .unwrap(),
    );
    assert!(
        back.contains("0 experiments copied, 2 already there; 0 runs copied, 6 already there"),
        "{back}"
    );
}

#[test]
fn concurrent_writers_on_a_new_database_lose_nothing() {
    let server = PostgresServer::start();
    let url = server.database("busy");
    let s = Scratch::new();
    let children: Vec<_> = (0..4)
        .map(|_| {
            Command::new(env!("CARGO_BIN_EXE_perflab"))
                .args([
                    "--store", &url, "run", "--quiet", "-r", "25", "--warmup", "0", "true",
                ])
                .current_dir(s.dir.path())
                .stdout(Stdio::null())
                .stderr(Stdio::piped())
                .spawn()
                .unwrap()
        })
        .collect();
    for child in children {
        let out = child.wait_with_output().unwrap();
        assert_exit(&out, 0);
    }
    assert_eq!(count(&server, "busy", "runs"), 100);
    assert_eq!(
        server.psql(
            "busy",
            "SELECT COUNT(DISTINCT id) FROM experiments WHERE status = 'complete'"
        ),
        "4"
    );
    assert_eq!(
        server.psql("busy", "SELECT COUNT(DISTINCT uid) FROM runs"),
        "100"
    );
}

#[test]
fn a_killed_perflab_leaves_its_experiment_incomplete_on_postgres() {
    let server = PostgresServer::start();
    let url = server.database("killed");
    let s = Scratch::new();
    let mut child = Command::new(env!("CARGO_BIN_EXE_perflab"))
        .args([
            "--store",
            &url,
            "run",
            "--quiet",
            "-r",
            "10000",
            "--warmup",
            "0",
            "sleep 0.01",
        ])
        .current_dir(s.dir.path())
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .spawn()
        .unwrap();
    let deadline = Instant::now() + Duration::from_secs(60);
    while count(&server, "killed", "runs") < 3 {
        assert!(Instant::now() < deadline, "no runs stored within a minute");
        std::thread::sleep(Duration::from_millis(50));
    }
    child.kill().unwrap();
    child.wait().unwrap();
    let history = stdout_of_success(
        &s.perflab()
            .args(["--store", &url, "history"])
            .output()
            .unwrap(),
    );
    assert!(history.contains("incomplete"), "{history}");
}

#[test]
fn a_missing_database_an_unreachable_server_or_a_bad_url_is_exit_2_without_the_password() {
    let server = PostgresServer::start();
    let s = Scratch::new();
    let history = |url: &str| {
        s.perflab()
            .args(["--store", url, "history"])
            .output()
            .unwrap()
    };

    let missing = server
        .url("nowhere")
        .replace("postgres@", "postgres:hunter2@");
    let out = history(&missing);
    assert_exit(&out, 2);
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(stderr.contains(&server.url("nowhere")), "{stderr}");
    assert!(stderr.contains("createdb"), "{stderr}");
    assert!(!stderr.contains("hunter2"), "{stderr}");

    let listener = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
    let closed = listener.local_addr().unwrap().port();
    drop(listener);
    let unreachable = format!("postgres://me:hunter2@127.0.0.1:{closed}/perflab");
    let out = history(&unreachable);
    assert_exit(&out, 2);
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(
        stderr.contains(&format!("postgres://me@127.0.0.1:{closed}/perflab")),
        "{stderr}"
    );
    assert!(stderr.contains("pg_isready"), "{stderr}");
    assert!(!stderr.contains("hunter2"), "{stderr}");

    let out = history("postgres://me@127.0.0.1:notaport/perflab");
    assert_exit(&out, 2);
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(
        stderr.contains("port 'notaport' (in the URL) is not a port number"),
        "{stderr}"
    );

    // Something to push: a push without a store of its own is refused
    // for --store first.
    let measured = s
        .perflab()
        .args(["run", "-r", "1", "--warmup", "0", "true"])
        .output()
        .unwrap();
    assert_exit(&measured, 0);
    let out = s
        .perflab()
        .args(["push", "--to", &missing])
        .output()
        .unwrap();
    assert_exit(&out, 2);
    assert!(String::from_utf8_lossy(&out.stderr).contains("--to"));
}

#[test]
fn history_keeps_each_host_apart_on_postgres_too() {
    let server = PostgresServer::start();
    let url = server.database("hosts");
    let s = Scratch::new();
    for (host, name) in [("alpha", "on-alpha"), ("beta", "on-beta")] {
        stdout_of_success(
            &s.perflab()
                .env("PERFLAB_HOST", host)
                .args(["--store", &url, "run", "--quiet", "-r", "2"])
                .args(["--warmup", "0", "--name", name, "true"])
                .output()
                .unwrap(),
        );
    }
    let alpha = stdout_of_success(
        &s.perflab()
            .args(["--store", &url, "history", "--host", "alpha"])
            .output()
            .unwrap(),
    );
    assert!(
        alpha.contains("on-alpha") && !alpha.contains("on-beta"),
        "{alpha}"
    );
    let out = s
        .perflab()
        .args(["--store", &url, "history", "--host", "gamma"])
        .output()
        .unwrap();
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(2), "{stderr}");
    assert!(
        stderr.contains("alpha") && stderr.contains("beta"),
        "{stderr}"
    );
}

#[test]
fn replaced_runs_are_kept_marked_and_left_out_on_postgres_and_their_mark_is_pulled() {
    use perflab_format::vocabulary::ExperimentKind;
    use perflab_store::{Location, Selection, Store, VariantRecord};

    let server = PostgresServer::start();
    let url = server.database("contended");
    let location = Location::parse(std::path::Path::new(&url), "--store").unwrap();
    let shared = Store::open_at(&location, "--store").unwrap();
    let provenance = perflab_store::provenance::Provenance::collect(std::path::Path::new("."));
    let variant = VariantRecord {
        name: "a",
        command: "true",
        env: &[],
        cwd: None,
    };
    let (id, variants) = shared
        .begin_experiment(
            ExperimentKind::Ab,
            Some("contended"),
            Some("wall"),
            &provenance,
            "{}",
            &[variant],
        )
        .unwrap();
    for sequence in 1..=4 {
        let run = perflab_runner::FakeExecutor::outcome(sequence as f64);
        shared
            .record_run(id, variants[0], sequence, 0, false, &run)
            .unwrap();
    }
    // The block of runs 2 and 3 was measured again.
    shared.mark_replaced(id, 2..=3).unwrap();
    let walls = |runs: Vec<perflab_store::StoredRun>| -> Vec<f64> {
        runs.iter().map(|r| r.outcome.wall_s).collect()
    };
    assert_eq!(walls(shared.runs_of(id).unwrap()), [1.0, 4.0]);
    assert_eq!(walls(shared.replaced_runs_of(id).unwrap()), [2.0, 3.0]);
    assert_eq!(shared.count_runs(id).unwrap(), 2);
    let history = shared.metric_values(Some("contended"), "wall").unwrap();
    assert_eq!(history[0].values["a"], [1.0, 4.0]);
    // Many series read in one query find what each series' own query finds.
    let names = [Some("contended".to_string()), None];
    for metric in ["wall", "a-metric-no-run-reports"] {
        let together = shared.metric_values_of_names(&names, metric).unwrap();
        let alone = shared.metric_values(Some("contended"), metric).unwrap();
        assert_eq!(together[&names[0]], alone, "{metric}");
    }

    let local = Scratch::new();
    let pulled = Store::open(&local.store()).unwrap();
    shared.copy_to(&pulled, &Selection::default()).unwrap();
    assert_eq!(walls(pulled.runs_of(1).unwrap()), [1.0, 4.0]);
    assert_eq!(walls(pulled.replaced_runs_of(1).unwrap()), [2.0, 3.0]);
}
