//! `perflab history --changes --notify URL`: each new regression posted once
//! to a real HTTP server started by the test (`common::webhook`), what was
//! posted remembered in the store, a failed post posted again by the next
//! run, a bad URL refused before anything is read.

mod common;

use common::history::{commit_and_measure, cost_is_lower_better, repository};
use common::machine_history::MachineHistory;
use common::postgres::PostgresServer;
use common::webhook::{WebhookServer, url_without_server};
use common::{Scratch, git, stderr_of_refusal, stdout_of_success};

/// The proxy settings a developer's or runner's environment may hold: the
/// posts of these tests go straight to the local receiver.
const PROXY_VARIABLES: &[&str] = &[
    "http_proxy",
    "HTTP_PROXY",
    "https_proxy",
    "HTTPS_PROXY",
    "all_proxy",
    "ALL_PROXY",
];

/// `perflab history --changes ARGS` in `s`, without proxies; its exit code
/// and stderr.
fn changes(s: &Scratch, args: &[&str]) -> (Option<i32>, String, String) {
    let mut perflab = s.perflab();
    for variable in PROXY_VARIABLES {
        perflab.env_remove(variable);
    }
    let out = perflab
        .args(["history", "--changes"])
        .args(args)
        .output()
        .unwrap();
    (
        out.status.code(),
        String::from_utf8_lossy(&out.stdout).into_owned(),
        String::from_utf8_lossy(&out.stderr).into_owned(),
    )
}

/// A repository whose series `insert-10K` costs 100 for six commits and
/// 130 from the seventh on: one regression, at the newest commit's series.
fn regressed() -> Scratch {
    let s = repository();
    cost_is_lower_better(&s);
    for (step, value) in [[100.0; 6].as_slice(), &[130.0; 5]]
        .concat()
        .into_iter()
        .enumerate()
    {
        commit_and_measure(&s, step + 1, value);
    }
    s
}

#[test]
fn a_new_regression_is_posted_once_and_a_post_that_failed_is_posted_again_by_the_next_run() {
    let s = regressed();
    let cost = ["--metric", "cost"];

    // Nothing listens: a warning naming the URL, the exit code of the history.
    let nowhere = url_without_server();
    let (code, stdout, stderr) = changes(&s, &[&cost[..], &["--notify", &nowhere]].concat());
    assert_eq!(code, Some(3), "{stdout}{stderr}");
    assert!(
        stderr.contains("perflab: warning: --notify: the regression of insert-10K cost")
            && stderr.contains(&format!("POST {nowhere} failed"))
            && stderr.contains("the next run posts it again"),
        "{stderr}"
    );

    // The receiver refuses: a warning with its status and reason.
    let server = WebhookServer::start(500);
    let url = server.url();
    let notify = [&cost[..], &["--notify", &url]].concat();
    let (code, _, stderr) = changes(&s, &notify);
    assert_eq!(code, Some(3), "{stderr}");
    assert!(
        stderr.contains(&format!(
            "POST {} answered 500 Internal Server Error (invalid_token)",
            server.url()
        )),
        "{stderr}"
    );
    assert_eq!(server.requests().len(), 1);

    // The receiver accepts: the regression is posted, as JSON.
    server.answer_with(200);
    let (code, _, stderr) = changes(&s, &notify);
    assert_eq!(code, Some(3), "{stderr}");
    assert!(
        stderr.contains(&format!(
            "perflab: --notify: posted 1 new regression to {}",
            server.url()
        )),
        "{stderr}"
    );
    let requests = server.requests();
    assert_eq!(requests.len(), 2, "{requests:?}");
    let post = &requests[1];
    assert_eq!(post.method, "POST");
    assert_eq!(post.path, "/hooks/perflab");
    assert_eq!(post.content_type.as_deref(), Some("application/json"));
    // The refused post was the same notice.
    assert_eq!(requests[0].body, post.body);
    let notice = post.json();
    let text = notice["text"].as_str().unwrap();
    assert!(
        text.starts_with("perflab: regression of insert-10K cost (variant insert-10K)")
            && text.contains("NO-GO"),
        "{text}"
    );
    assert_eq!(notice["event"], "regression");
    assert_eq!(notice["name"], "insert-10K");
    assert_eq!(notice["metric"], "cost");
    assert_eq!(notice["unit"], "ns");
    assert_eq!(notice["better"], "lower");
    assert_eq!(notice["variant"], "insert-10K");
    assert!(notice["host"].is_string(), "{notice}");
    // The seventh commit is the first at the new level; the store's
    // experiments are the calibration (1) and one per commit (2 to 12).
    let dir = s.dir.path();
    assert_eq!(notice["commit"], git(dir, &["rev-parse", "HEAD~4"]));
    assert_eq!(
        notice["previous_commit"],
        git(dir, &["rev-parse", "HEAD~5"])
    );
    assert_eq!(
        notice["step"],
        git(dir, &["rev-parse", "--short=8", "HEAD~4"])
    );
    assert_eq!(notice["experiments"], serde_json::json!([8]));
    let change = &notice["change"];
    assert_eq!(change["verdict"], "NO-GO");
    let ratio = change["ratio"].as_f64().unwrap();
    let [lo, hi] = [0, 1].map(|i| change["interval"][i].as_f64().unwrap());
    assert!(lo < 1.3 && 1.3 < hi && lo > 1.0, "{change}");
    assert!((ratio - 1.3).abs() < 0.02, "{change}");
    assert!(
        change["percent"].as_str().unwrap().starts_with("+30"),
        "{change}"
    );
    assert!(
        text.contains(change["percent_interval"].as_str().unwrap()),
        "{text}"
    );
    assert_eq!(notice["confirmed"], false);
    assert!(notice["confirmation"].is_null(), "{notice}");

    // Posted once: the next run sends nothing, and says why.
    let (code, _, stderr) = changes(&s, &notify);
    assert_eq!(code, Some(3), "{stderr}");
    assert!(
        stderr.contains("no new regression to post (1 posted by an earlier run)"),
        "{stderr}"
    );
    assert_eq!(server.requests().len(), 2);

    // Without --metric the same series is judged among the others: the
    // regression is known by its series, not by the command that found it.
    // (The runs' wall time is judged too, and on a loaded machine it may
    // show a change of its own: only the posts about `cost` are counted.)
    let cost_posts = || {
        server
            .requests()
            .into_iter()
            .filter(|r| r.json()["metric"] == "cost")
            .collect::<Vec<_>>()
    };
    let (code, _, stderr) = changes(&s, &["--notify", &server.url()]);
    assert_eq!(code, Some(3), "{stderr}");
    assert_eq!(cost_posts().len(), 2, "{stderr}");

    // A new regression of the series is news again.
    for step in 12..=16 {
        commit_and_measure(&s, step, 170.0);
    }
    let (code, stdout, stderr) = changes(&s, &notify);
    assert_eq!(code, Some(3), "{stdout}{stderr}");
    let requests = cost_posts();
    assert_eq!(requests.len(), 3, "{stdout}{stderr}");
    assert_eq!(
        requests[2].json()["commit"],
        git(dir, &["rev-parse", "HEAD~4"])
    );
}

#[test]
fn a_bad_webhook_url_is_refused_with_exit_2_before_any_store_is_read_or_made() {
    let s = Scratch::new();
    for (url, said) in [
        ("hooks.example.com/perflab", "no scheme"),
        ("ftp://hooks.example.com/perflab", "ftp: URL"),
        ("https:// bad", "not a URL"),
    ] {
        let refusal = stderr_of_refusal(
            &s.perflab()
                .args(["history", "--changes", "--notify", url])
                .output()
                .unwrap(),
        );
        assert!(
            refusal.contains("--notify") && refusal.contains(said),
            "{url}: {refusal}"
        );
    }
    // It posts the regressions --changes finds, and nothing else.
    let refusal = stderr_of_refusal(
        &s.perflab()
            .args([
                "history",
                "--metric",
                "wall",
                "--notify",
                "http://127.0.0.1:9/x",
            ])
            .output()
            .unwrap(),
    );
    assert!(refusal.contains("--changes"), "{refusal}");
    assert!(!s.path(".perflab").exists(), "nothing was made");
}

/// Records in the store that lower values of `work` are better (an A/B
/// decided on it, named `calibration`), as `--changes` needs to judge it.
fn work_is_lower_better(s: &Scratch) {
    let out = s
        .perflab()
        .args([
            "ab",
            "--quiet",
            "--name",
            "calibration",
            "--measure",
            "work",
        ])
        .args(["--better", "lower"])
        .args([
            "echo PERFLAB_METRIC work 100",
            "echo PERFLAB_METRIC work 50",
        ])
        .output()
        .unwrap();
    assert!(
        matches!(out.status.code(), Some(0 | 3 | 4)),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
}

#[test]
fn with_confirm_only_a_regression_the_ab_confirms_is_posted_and_says_so() {
    let server = WebhookServer::start(200);
    let confirm = [
        "--metric",
        "work",
        "--confirm",
        "--build",
        "true",
        "--min-runs",
        "5",
        "--max-runs",
        "20",
    ];
    let url = server.url();
    let notify = [&confirm[..], &["--notify", &url]].concat();

    // The machine, three times as slow from the sixth commit on, made the
    // change point; the code did not: nothing to post.
    let machine = MachineHistory::new();
    work_is_lower_better(&machine.repo);
    for step in 1..=10 {
        machine.set_machine_slowdown(if step > 5 { 3 } else { 1 });
        machine.commit_and_measure(step, 1000);
    }
    machine.set_machine_slowdown(1);
    let (code, stdout, stderr) = changes(&machine.repo, &notify);
    assert_eq!(code, Some(0), "{stdout}{stderr}");
    assert!(
        stdout.contains("not confirmed by an interleaved A/B (#"),
        "{stdout}"
    );
    assert!(stderr.contains("no new regression to post"), "{stderr}");
    assert!(server.requests().is_empty());

    // The sixth commit triples the work: confirmed, and posted as such.
    let code_made = MachineHistory::new();
    work_is_lower_better(&code_made.repo);
    for step in 1..=10 {
        code_made.commit_and_measure(step, if step > 5 { 3000 } else { 1000 });
    }
    let (code, stdout, stderr) = changes(&code_made.repo, &notify);
    assert_eq!(code, Some(3), "{stdout}{stderr}");
    let requests = server.requests();
    assert_eq!(requests.len(), 1, "{stderr}");
    let notice = requests[0].json();
    assert_eq!(notice["confirmed"], true, "{notice}");
    let confirmation = &notice["confirmation"];
    assert_eq!(confirmation["verdict"], "NO-GO", "{notice}");
    // The calibration is experiment 1, the ten commits 2 to 11.
    assert_eq!(confirmation["experiment"], 12, "{notice}");
    let [lo, hi] = [0, 1].map(|i| confirmation["interval"][i].as_f64().unwrap());
    assert!(lo < 3.0 && 3.0 < hi, "{confirmation}");
    let text = notice["text"].as_str().unwrap();
    assert!(
        text.contains("; confirmed by an interleaved A/B (#12, "),
        "{text}"
    );

    // The next run confirms again (a new A/B) but posts nothing new.
    let (code, _, stderr) = changes(&code_made.repo, &notify);
    assert_eq!(code, Some(3), "{stderr}");
    assert_eq!(server.requests().len(), 1, "{stderr}");
}

#[test]
fn the_store_of_an_older_perflab_is_upgraded_by_a_history_that_notifies() {
    let s = Scratch::new();
    std::fs::create_dir_all(s.path(".perflab")).unwrap();
    let db = rusqlite::Connection::open(s.store()).unwrap();
    db.execute_batch(include_str!("fixtures/store-schema-1.sql"))
        .unwrap();
    drop(db);
    let server = WebhookServer::start(200);
    let (code, stdout, stderr) = changes(&s, &["--notify", &server.url()]);
    assert_eq!(code, Some(0), "{stdout}{stderr}");
    assert!(stderr.contains("no new regression to post"), "{stderr}");
    let db = rusqlite::Connection::open(s.store()).unwrap();
    let posted: i64 = db
        .query_row("SELECT COUNT(*) FROM notified_changes", [], |r| r.get(0))
        .unwrap();
    assert_eq!(posted, 0);
}

#[test]
fn on_postgres_too_a_regression_is_posted_once_and_again_after_a_failed_post() {
    let s = regressed();
    let pg = PostgresServer::start();
    let store = pg.database("notify");
    stdout_of_success(&s.perflab().args(["push", "--to", &store]).output().unwrap());
    let server = WebhookServer::start(503);
    let url = server.url();
    let notify = ["--store", &store, "--metric", "cost", "--notify", &url];
    let rows = || pg.psql("notify", "SELECT COUNT(*) FROM notified_changes");

    let (code, _, stderr) = changes(&s, &notify);
    assert_eq!(code, Some(3), "{stderr}");
    assert!(
        stderr.contains(&format!("POST {url} answered 503 Service Unavailable")),
        "{stderr}"
    );
    assert_eq!(rows().trim(), "0");

    server.answer_with(204);
    let (code, _, stderr) = changes(&s, &notify);
    assert_eq!(code, Some(3), "{stderr}");
    assert!(stderr.contains("posted 1 new regression"), "{stderr}");
    assert_eq!(rows().trim(), "1");

    let (code, _, stderr) = changes(&s, &notify);
    assert_eq!(code, Some(3), "{stderr}");
    assert!(stderr.contains("1 posted by an earlier run"), "{stderr}");
    let requests = server.requests();
    assert_eq!(requests.len(), 2, "{requests:?}");
    assert_eq!(requests[0].body, requests[1].body);
    let notice = requests[1].json();
    assert_eq!(notice["name"], "insert-10K");
    assert_eq!(
        notice["commit"],
        git(s.dir.path(), &["rev-parse", "HEAD~4"])
    );
}
