//! `perflab serve` started for real on a free port, over stores filled by
//! real perflab commands: every page and API route answers, every string
//! from the store is escaped, malformed URLs get a 400 and unknown ids a
//! 404, the store is never written, experiments stored later appear
//! without a restart, an address beyond the loopback needs a token; and
//! the pages, opened in headless Chromium, draw their charts with every
//! label inside and show a regression made in the test on the home page.
//!
//! With PERFLAB_SCREENSHOTS=DIR the home page's screenshot is written to
//! DIR/serve-home.png (docs/images/ holds the README's).

mod common;
mod profiled;

use std::path::PathBuf;
use std::process::Command;
use std::time::Duration;

use common::history::{commit_and_measure, cost_is_lower_better, repository};
use common::serve::{Served, encode, get_raw, perflab_process};
use common::{Scratch, assert_exit, stderr_of_refusal};
use headless_chrome::protocol::cdp::{Emulation, Page};
use headless_chrome::{Browser, LaunchOptions};
use profiled::{span_profile, writes_profiles};

const HOSTILE_NAME: &str = "<script>document.title='pwned-name'</script>";
const HOSTILE_VARIANT: &str = "<script>variant</script>";
const HOSTILE_HOST: &str = "<script>host</script>";
const HOSTILE_SPAN: &str = "<script>span</script>";
const HOSTILE_OUTPUT: &str = "<script>output</script>";

/// A store made by real commands: a series of `insert-10K` that regresses
/// at its ninth commit, and an A/B whose name, variant, host, span and
/// command output are HTML.
fn store_with_a_regression_and_hostile_names() -> Scratch {
    let s = repository();
    cost_is_lower_better(&s);
    for step in 1..=8 {
        commit_and_measure(&s, step, 200.0);
    }
    for step in 9..=13 {
        commit_and_measure(&s, step, 260.0);
    }
    for i in 0..6 {
        let wall = 10_000_000 + i * 10_000;
        s.write(
            &format!("p{i}.json"),
            &span_profile(&[(HOSTILE_SPAN, 3, wall / 2)], wall, &[]),
        );
    }
    let command = format!("echo '{HOSTILE_OUTPUT}'; {}", writes_profiles("p", 6));
    s.write(
        "hostile.toml",
        &format!(
            "[[variant]]\nname = \"{}\"\ncommand = \"{}\"\n\n[[variant]]\nname = \"plain\"\ncommand = \"{}\"\n",
            HOSTILE_VARIANT.replace('"', "\\\""),
            command.replace('\\', "\\\\").replace('"', "\\\""),
            command.replace('\\', "\\\\").replace('"', "\\\""),
        ),
    );
    let out = s
        .perflab()
        .env("PERFLAB_HOST", HOSTILE_HOST)
        .args([
            "ab",
            "--quiet",
            "-f",
            "hostile.toml",
            "--name",
            HOSTILE_NAME,
        ])
        .args(["--min-runs", "4", "--max-runs", "6", "--warmup", "0"])
        .args(["--max-cpu-wait", "off"])
        .output()
        .unwrap();
    common::assert_reached_a_result(&out);
    s
}

fn serve(s: &Scratch, store: &str, extra: &[&str]) -> Served {
    let mut command = perflab_process(s.dir.path());
    command
        .args(["--store", store, "serve", "--listen", "127.0.0.1:0"])
        .args(extra);
    Served::start(command)
}

/// The id of the newest experiment named `name`, from the API.
fn experiment_named(served: &Served, name: &str) -> i64 {
    let home = served
        .get(&format!("/api/home?name={}", encode(name)))
        .json();
    home["experiments"]["items"]
        .as_array()
        .unwrap()
        .iter()
        .find(|e| e["name"] == name)
        .unwrap_or_else(|| panic!("no experiment {name} in {home}"))["id"]
        .as_i64()
        .unwrap()
}

/// Asserts that no hostile string appears unescaped in a page.
fn assert_escaped(path: &str, html: &str) {
    for hostile in [
        HOSTILE_NAME,
        HOSTILE_VARIANT,
        HOSTILE_HOST,
        HOSTILE_SPAN,
        HOSTILE_OUTPUT,
    ] {
        assert!(!html.contains(hostile), "{path} holds {hostile} unescaped");
    }
    assert!(!html.contains("<script"), "{path} holds a script element");
}

fn bytes_of(path: &PathBuf) -> Vec<u8> {
    std::fs::read(path).unwrap()
}

#[test]
fn every_page_and_api_route_of_a_sqlite_store_answers_escaped_read_only_and_live() {
    let s = store_with_a_regression_and_hostile_names();
    let store = s.store();
    let before = bytes_of(&store);
    let served = serve(
        &s,
        store.to_str().unwrap(),
        &["--commit-url", "https://example.invalid/commit/{commit}"],
    );

    // Home: the regression made above, first, with its series linked.
    let home_html = served.page("/");
    assert_escaped("/", &home_html);
    let home = served.get("/api/home").json();
    let regressions = home["regressions"].as_array().unwrap();
    let change = regressions
        .iter()
        .flat_map(|h| h["changes"].as_array().unwrap())
        .find(|c| c["series"]["name"] == "insert-10K")
        .unwrap_or_else(|| panic!("the regression is not on the home page: {home}"));
    assert_eq!(change["verdict"], "NO-GO", "{change}");
    assert!(change["fails_gate"].as_bool().unwrap(), "{change}");
    assert!(home_html.contains("insert-10K"), "{home_html}");
    assert!(
        home["experiments"]["total"].as_u64().unwrap() >= 15,
        "{home}"
    );

    // The series page and its JSON.
    let key = &change["series"];
    let series_query = format!(
        "?name={}&metric={}&variant={}&host={}",
        encode(key["name"].as_str().unwrap()),
        encode(key["metric"].as_str().unwrap()),
        encode(key["variant"].as_str().unwrap()),
        encode(key["host"].as_str().unwrap_or_default()),
    );
    let series_html = served.page(&format!("/series{series_query}"));
    assert!(series_html.contains("<svg"), "the series page has no chart");
    let to_commit = change["to_commit"].as_str().unwrap();
    assert!(
        series_html.contains(&format!(
            "href=\"https://example.invalid/commit/{to_commit}\""
        )),
        "the commits are not linked to the repository"
    );
    let series = served.get(&format!("/api/series{series_query}")).json();
    assert_eq!(
        series["history"]["series"][0]["steps"]
            .as_array()
            .unwrap()
            .len(),
        13
    );
    assert_eq!(series["change_points"][0]["to"], change["to"], "{series}");

    // Every experiment's page and JSON; the hostile one escaped.
    let hostile = experiment_named(&served, HOSTILE_NAME);
    for id in 1..=hostile {
        let html = served.page(&format!("/experiments/{id}"));
        assert_escaped(&format!("/experiments/{id}"), &html);
        let json = served.get(&format!("/api/experiments/{id}")).json();
        assert_eq!(json["id"], id);
    }
    let hostile_html = served.page(&format!("/experiments/{hostile}"));
    for shown in [
        "&lt;script&gt;variant&lt;/script&gt;",
        "&lt;script&gt;span&lt;/script&gt;",
    ] {
        assert!(hostile_html.contains(shown), "{shown} is not shown escaped");
    }
    assert_eq!(
        served.get(&format!("/api/experiments/{hostile}")).json()["name"],
        HOSTILE_NAME
    );

    // Compare: two runs of the series, with the decision.
    let compare = served
        .get(&format!("/api/compare?a={}&b={}", 3, hostile - 1))
        .json();
    assert!(compare["decision"]["verdict"].is_string(), "{compare}");
    let compare_html = served.page(&format!("/compare?a=3&b={}", hostile - 1));
    assert!(compare_html.contains("perflab compare"), "{compare_html}");
    assert_escaped(
        "/compare",
        &served.page(&format!("/compare?a=3&b={hostile}")),
    );
    served.page("/compare");
    served.page("/api");
    served.page("/?page=2&per_page=5");
    served.page(&format!("/?host={}", encode(HOSTILE_HOST)));

    // Errors: a message, never a crash.
    for (path, status, words) in [
        ("/experiments/999999", 404, "999999"),
        ("/api/experiments/999999", 404, "999999"),
        ("/experiments/abc", 400, "not an experiment id"),
        ("/api/experiments/abc", 400, "not an experiment id"),
        ("/?since=yesterday", 400, "since"),
        ("/?page=0", 400, "page"),
        ("/?per_page=100000", 400, "per_page"),
        ("/series?metric=cost", 400, "variant"),
        ("/compare?a=1", 400, "'b'"),
        ("/nowhere", 404, "no page"),
    ] {
        let a = served.get(path);
        assert_eq!(a.status, status, "{path}: {}", a.body);
        assert!(a.body.contains(words), "{path}: {}", a.body);
        if path.starts_with("/api") {
            assert!(a.json()["error"].is_string());
        }
    }
    let long = served.get(&format!("/?name={}", "x".repeat(300)));
    assert_eq!(long.status, 400, "{}", long.body);
    let huge = served.get(&format!("/?name={}", "x".repeat(5000)));
    assert_eq!(huge.status, 400, "{}", huge.body);
    let a = served.get("/");
    assert!(
        a.header("content-security-policy")
            .is_some_and(|p| p.contains("default-src 'none'")),
        "{:?}",
        a.headers
    );

    // Nothing was written to the store.
    assert!(bytes_of(&store) == before, "serving changed the store file");

    // An experiment stored now is on the next page asked for.
    let out = s
        .perflab()
        .args([
            "run",
            "--quiet",
            "--name",
            "stored-later",
            "-r",
            "2",
            "true",
        ])
        .output()
        .unwrap();
    assert_exit(&out, 0);
    let later = served.page("/?name=stored-later");
    assert!(later.contains("stored-later"), "{later}");

    check_pages_in_chromium(&s, &served, &series_query, hostile);
}

fn chromium() -> PathBuf {
    for path in std::env::var_os("PERFLAB_CHROMIUM")
        .map(PathBuf::from)
        .into_iter()
        .chain(
            [
                "/usr/bin/chromium",
                "/usr/bin/chromium-browser",
                "/usr/bin/google-chrome",
            ]
            .map(PathBuf::from),
        )
    {
        if path.is_file() {
            return path;
        }
    }
    panic!(
        "headless Chromium is needed to check the pages: install it with \
         `apt-get install chromium` (scripts/install-test-deps.sh does so), or set \
         PERFLAB_CHROMIUM to the browser's path"
    );
}

fn evaluate(tab: &headless_chrome::Tab, script: &str) -> serde_json::Value {
    tab.evaluate(script, false)
        .unwrap()
        .value
        .unwrap_or(serde_json::Value::Null)
}

fn check_pages_in_chromium(s: &Scratch, served: &Served, series_query: &str, hostile: i64) {
    let args: Vec<&std::ffi::OsStr> = [
        "--disable-gpu",
        "--no-first-run",
        "--disable-background-networking",
        "--disable-component-update",
        "--disable-sync",
        "--hide-scrollbars",
    ]
    .iter()
    .map(std::ffi::OsStr::new)
    .collect();
    let browser = Browser::new(
        LaunchOptions::default_builder()
            .path(Some(chromium()))
            .sandbox(false)
            .headless(true)
            .window_size(Some((1200, 900)))
            .user_data_dir(Some(s.path("chromium-profile")))
            .idle_browser_timeout(Duration::from_secs(300))
            .args(args)
            .build()
            .unwrap(),
    )
    .expect("Chromium starts headless");
    let tab = browser.new_tab().unwrap();
    tab.set_default_timeout(Duration::from_secs(300));
    let open = |path: &str| {
        tab.navigate_to(&served.url(path))
            .unwrap()
            .wait_until_navigated()
            .unwrap();
    };

    // Home: the regression is listed, the hostile name is text.
    open("/");
    let text = evaluate(&tab, "document.body.innerText");
    let text = text.as_str().unwrap();
    assert!(
        text.contains("Regressions") && text.contains("insert-10K"),
        "{text}"
    );
    assert!(text.contains("NO-GO"), "{text}");
    assert!(
        text.contains(HOSTILE_NAME),
        "the hostile name is shown as text"
    );
    assert_eq!(
        evaluate(&tab, "document.querySelectorAll('script').length"),
        serde_json::json!(0)
    );
    assert!(
        !tab.get_title().unwrap().contains("pwned"),
        "a script from the store ran"
    );
    if let Some(dir) = std::env::var_os("PERFLAB_SCREENSHOTS") {
        screenshot(&tab, &PathBuf::from(dir).join("serve-home.png"));
    }

    // Series and experiment pages: charts drawn, no label outside.
    for path in [
        format!("/series{series_query}"),
        format!("/experiments/{hostile}"),
    ] {
        open(&path);
        let charts = evaluate(
            &tab,
            r#"JSON.stringify([...document.querySelectorAll("figure.chart svg")].map(svg => {
                const b = svg.getBoundingClientRect();
                return [b.width, b.height, svg.querySelectorAll(".mark").length];
            }))"#,
        );
        let charts: Vec<(f64, f64, usize)> =
            serde_json::from_str(charts.as_str().unwrap()).unwrap();
        assert!(!charts.is_empty(), "{path} draws no chart");
        for (w, h, marks) in &charts {
            assert!(*w > 300.0 && *h > 80.0 && *marks > 0, "{path}: {charts:?}");
        }
        let clipped = evaluate(
            &tab,
            r#"JSON.stringify([...document.querySelectorAll("figure.chart:not([data-chart=flamegraph]) svg")].flatMap(svg => {
                const frame = svg.getBoundingClientRect();
                return [...svg.querySelectorAll("text.row-label, text.tick, text.axis-label")].filter(t => {
                    const b = t.getBoundingClientRect();
                    return b.left < frame.left - 0.5 || b.right > frame.right + 0.5
                        || b.top < frame.top - 0.5 || b.bottom > frame.bottom + 0.5;
                }).map(t => t.textContent);
            }))"#,
        );
        assert_eq!(
            clipped,
            serde_json::json!("[]"),
            "{path}: labels outside their chart"
        );
    }
    let text = evaluate(&tab, "document.body.innerText");
    assert!(
        text.as_str().unwrap().contains(HOSTILE_SPAN),
        "the hostile span name is shown as text"
    );
}

fn screenshot(tab: &headless_chrome::Tab, path: &PathBuf) {
    let height = evaluate(tab, "document.documentElement.scrollHeight")
        .as_f64()
        .unwrap();
    let metrics: Emulation::SetDeviceMetricsOverride = serde_json::from_value(serde_json::json!({
        "width": 1200, "height": height.ceil().min(2400.0) as u64, "deviceScaleFactor": 1, "mobile": false
    }))
    .unwrap();
    tab.call_method(metrics).unwrap();
    let png = tab
        .capture_screenshot(Page::CaptureScreenshotFormatOption::Png, None, None, true)
        .unwrap();
    std::fs::write(path, png).unwrap();
    eprintln!("screenshot of the home page: {}", path.display());
}

#[test]
fn listening_beyond_the_loopback_needs_a_token_and_every_request_must_carry_it() {
    let s = Scratch::new();
    let out = s
        .perflab()
        .args(["run", "--quiet", "--name", "one", "-r", "2", "true"])
        .output()
        .unwrap();
    assert_exit(&out, 0);
    let store = s.store();
    let out = s
        .perflab()
        .args([
            "--store",
            store.to_str().unwrap(),
            "serve",
            "--listen",
            "0.0.0.0:0",
        ])
        .output()
        .unwrap();
    let said = stderr_of_refusal(&out);
    assert!(said.contains("--token"), "{said}");

    let token = "0123456789abcdef-token";
    let mut command = perflab_process(s.dir.path());
    command.args([
        "--store",
        store.to_str().unwrap(),
        "serve",
        "--listen",
        "0.0.0.0:0",
        "--token",
        token,
    ]);
    let mut served = Served::start(command);
    let port = served.addr.rsplit(':').next().unwrap().to_string();
    served.addr = format!("127.0.0.1:{port}");
    let refused = served.get("/api/home");
    assert_eq!(refused.status, 401, "{}", refused.body);
    let wrong = get_raw(
        &served.addr,
        "/",
        "Authorization: Bearer 0123456789abcdef-wrong\r\n",
    );
    assert_eq!(wrong.status, 401);
    served.token = Some(token.to_string());
    served.page("/");
    served.page("/api/home");
}

#[test]
fn every_page_answers_on_a_postgresql_store_opened_read_only() {
    let server = common::postgres::PostgresServer::start();
    let url = server.database("served");
    let s = repository();
    cost_is_lower_better(&s);
    for step in 1..=4 {
        commit_and_measure(&s, step, 200.0);
    }
    for step in 5..=7 {
        commit_and_measure(&s, step, 260.0);
    }
    let out = s.perflab().args(["push", "--to", &url]).output().unwrap();
    assert_exit(&out, 0);
    let served = serve(&s, &url, &[]);
    let home = served.get("/api/home").json();
    assert!(
        home["experiments"]["total"].as_u64().unwrap() >= 8,
        "{home}"
    );
    served.page("/");
    let items = home["experiments"]["items"].as_array().unwrap();
    for e in items {
        let id = e["id"].as_i64().unwrap();
        served.page(&format!("/experiments/{id}"));
        served.page(&format!("/api/experiments/{id}"));
    }
    let (a, b) = (
        items[0]["id"].as_i64().unwrap(),
        items[1]["id"].as_i64().unwrap(),
    );
    served.page(&format!("/compare?a={b}&b={a}"));
    served.page(&format!("/api/compare?a={b}&b={a}"));
    // The series of the newest experiment.
    let newest = &items[0];
    let query = format!(
        "?name=insert-10K&metric=cost&variant={}&host={}",
        encode(newest["variants"][0].as_str().unwrap()),
        encode(newest["host"].as_str().unwrap())
    );
    served.page(&format!("/series{query}"));
    let series = served.get(&format!("/api/series{query}")).json();
    // Its first commit against its last, as perflab compare decides.
    let steps = series["history"]["series"][0]["steps"].as_array().unwrap();
    let commit = |step: &serde_json::Value| step["commit"].as_str().unwrap().to_string();
    let (base, head) = (commit(&steps[0]), commit(&steps[steps.len() - 1]));
    let compared = served
        .get(&format!(
            "/api/compare/commits{query}&base={base}&head={head}"
        ))
        .json();
    assert_eq!(compared["decision"]["verdict"], "NO-GO", "{compared}");
    served.page(&format!("/compare/commits{query}&base={base}&head={head}"));
    assert_eq!(served.get("/experiments/999999").status, 404);
}

#[test]
fn with_a_certificate_and_key_the_pages_are_served_over_tls() {
    let s = Scratch::new();
    let out = s
        .perflab()
        .args(["run", "--quiet", "--name", "one", "-r", "2", "true"])
        .output()
        .unwrap();
    assert_exit(&out, 0);
    let store = s.store();
    let refused = s
        .perflab()
        .args([
            "--store",
            store.to_str().unwrap(),
            "serve",
            "--listen",
            "127.0.0.1:0",
        ])
        .args(["--tls-cert", "missing.pem", "--tls-key", "missing.key"])
        .output()
        .unwrap();
    let said = stderr_of_refusal(&refused);
    assert!(said.contains("--tls-cert"), "{said}");
    let openssl = Command::new("openssl")
        .current_dir(s.dir.path())
        .args([
            "req", "-x509", "-newkey", "rsa:2048", "-nodes", "-days", "2",
        ])
        .args([
            "-keyout",
            "key.pem",
            "-out",
            "cert.pem",
            "-subj",
            "/CN=127.0.0.1",
        ])
        .args(["-addext", "subjectAltName=IP:127.0.0.1"])
        .output()
        .expect("openssl runs (apt-get install openssl)");
    assert!(openssl.status.success(), "{openssl:?}");
    let mut command = perflab_process(s.dir.path());
    command.args([
        "--store",
        store.to_str().unwrap(),
        "serve",
        "--listen",
        "127.0.0.1:0",
    ]);
    command.args(["--tls-cert", "cert.pem", "--tls-key", "key.pem"]);
    let served = Served::start(command);
    let fetched = Command::new("curl")
        .current_dir(s.dir.path())
        .args(["-sS", "--max-time", "300", "--cacert", "cert.pem"])
        .arg(format!("https://{}/api/home", served.addr))
        .output()
        .expect("curl runs (apt-get install curl)");
    assert!(fetched.status.success(), "{fetched:?}");
    let home: serde_json::Value = serde_json::from_slice(&fetched.stdout).unwrap();
    assert_eq!(home["experiments"]["total"], 1, "{home}");
}

/// A series of `insert-10K` whose sixth commit triples its work, with the
/// change point put to an A/B by `perflab history --confirm`.
fn confirmed_regression() -> common::machine_history::MachineHistory {
    let h = common::machine_history::MachineHistory::new();
    for step in 1..=10 {
        h.commit_and_measure(step, if step > 5 { 3000 } else { 1000 });
    }
    let out = h.history(&[
        "--metric",
        "work",
        "--better",
        "lower",
        "--confirm",
        "--build",
        "true",
        "--min-runs",
        "5",
        "--max-runs",
        "20",
    ]);
    assert_exit(&out, 3);
    h
}

/// The home page's change point of the `work` series of
/// [`confirmed_regression`]. Its history also records wall time, whose
/// series may show a change point of its own on a busy machine, so the
/// change is found by its metric, not by its place in the list.
fn work_change(home: &serde_json::Value) -> serde_json::Value {
    home["regressions"]
        .as_array()
        .into_iter()
        .flatten()
        .flat_map(|host| host["changes"].as_array().into_iter().flatten())
        .find(|change| change["series"]["metric"] == "work")
        .cloned()
        .unwrap_or_else(|| panic!("the home page shows no change point of work: {home}"))
}

#[test]
fn a_change_point_links_its_confirming_ab_and_its_two_commits_compared() {
    let h = confirmed_regression();
    let s = &h.repo;
    let served = serve(s, s.store().to_str().unwrap(), &[]);
    let confirmation = experiment_named(&served, "confirm: insert-10K");

    // The series page and its JSON link the change point to the A/B.
    let home = served.get("/api/home").json();
    let change = work_change(&home);
    assert_eq!(change["series"]["metric"], "work", "{home}");
    let key = &change["series"];
    let series_query = format!(
        "?name=insert-10K&metric=work&variant={}&host={}",
        encode(key["variant"].as_str().unwrap()),
        encode(key["host"].as_str().unwrap_or_default()),
    );
    let series = served.get(&format!("/api/series{series_query}")).json();
    let to = series["change_points"][0]["to"]
        .as_str()
        .unwrap()
        .to_string();
    assert_eq!(
        series["confirmed_by"][&to],
        serde_json::json!([confirmation]),
        "{series}"
    );
    assert_eq!(series["confirmations"][0]["id"], confirmation, "{series}");
    // The home page's regression row names the same A/B.
    assert_eq!(
        change["confirming_abs"][0]["id"], confirmation,
        "the home page's regression lacks its stored A/B: {home}"
    );
    let home_html = served.page("/");
    assert!(
        home_html.contains(&format!("A/B <a href=\"/experiments/{confirmation}\"")),
        "{home_html}"
    );
    let html = served.page(&format!("/series{series_query}"));
    let row = html
        .split("<tr")
        .find(|r| r.contains(&format!("<code>{to}</code>")) && r.contains("A/B"))
        .unwrap_or_else(|| panic!("no change point row of {to} with its A/B: {html}"));
    assert!(
        row.contains(&format!("href=\"/experiments/{confirmation}\"")),
        "{row}"
    );

    // The two commits of the change point, compared as perflab compare does.
    let (from, to) = (
        series["change_points"][0]["from_commit"].as_str().unwrap(),
        series["change_points"][0]["to_commit"].as_str().unwrap(),
    );
    let href = row
        .split("href=\"")
        .map(|h| h.split('"').next().unwrap().replace("&amp;", "&"))
        .find(|h| h.starts_with("/compare/commits?"))
        .unwrap_or_else(|| panic!("no link comparing the two commits: {row}"));
    assert!(href.contains(from) && href.contains(to), "{href}");
    let compared = served.get(&format!("/api{href}")).json();
    assert_eq!(compared["base"]["commit"], from, "{compared}");
    assert_eq!(compared["head"]["commit"], to, "{compared}");
    let decision = &compared["decision"];
    assert_eq!(decision["verdict"], "NO-GO", "{compared}");
    assert_eq!(decision["runs"], serde_json::json!([6, 6]), "{compared}");
    let [lo, hi] = [0, 1].map(|i| decision["ci"][i].as_f64().unwrap());
    let truth = 1000.0 / 3000.0 - 1.0;
    assert!(lo < truth && truth < hi, "{compared}");
    let page = served.page(&href);
    assert!(
        page.contains("perflab compare") && page.contains("NO-GO"),
        "{page}"
    );

    // Short commits name them too; a commit the series lacks is a 404.
    let short = format!(
        "/api/compare/commits{series_query}&base={}&head={}",
        &from[..10],
        &to[..10]
    );
    assert_eq!(served.get(&short).json()["decision"]["verdict"], "NO-GO");
    for (path, status, words) in [
        (
            format!("/compare/commits{series_query}&base={from}"),
            400,
            "'head'",
        ),
        (
            format!("/api/compare/commits{series_query}&base={from}&head=ffffffff"),
            404,
            "ffffffff",
        ),
    ] {
        let a = served.get(&path);
        assert_eq!(a.status, status, "{path}: {}", a.body);
        assert!(a.body.contains(words), "{path}: {}", a.body);
    }
}

/// The validator of `docs/schema/<file_name>`.
fn api_schema(file_name: &str) -> jsonschema::Validator {
    let path = PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join("../../docs/schema")
        .join(file_name);
    let text = std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
    let schema: serde_json::Value = serde_json::from_str(&text).expect("a schema is JSON");
    jsonschema::validator_for(&schema)
        .unwrap_or_else(|e| panic!("{file_name} is no valid schema: {e}"))
}

/// Fetches `path` (which must answer 200) and checks its JSON against
/// `docs/schema/<file_name>`; returns the answer.
fn assert_answer_matches(served: &Served, path: &str, file_name: &str) -> serde_json::Value {
    let answer = served.get(path);
    assert_eq!(answer.status, 200, "{path}: {}", answer.body);
    let json = answer.json();
    let problems: Vec<String> = api_schema(file_name)
        .iter_errors(&json)
        .map(|error| format!("at {}: {error}", error.instance_path()))
        .collect();
    assert!(
        problems.is_empty(),
        "{path} does not match docs/schema/{file_name}:\n{}\n{json}",
        problems.join("\n")
    );
    json
}

#[test]
fn every_api_answer_matches_its_schema_in_docs() {
    let h = confirmed_regression();
    let s = &h.repo;
    let served = serve(s, s.store().to_str().unwrap(), &[]);

    let home = assert_answer_matches(&served, "/api/home", "perflab-serve-home.schema.json");
    let change = &work_change(&home);
    assert!(
        !change["confirming_abs"].as_array().unwrap().is_empty(),
        "the home page shows no confirmed regression to check: {home}"
    );
    // The schema asks for what the answer must hold: without its listing,
    // the home page's answer is refused.
    let mut partial = home.clone();
    partial.as_object_mut().unwrap().remove("experiments");
    assert!(
        !api_schema("perflab-serve-home.schema.json").is_valid(&partial),
        "the home schema accepts an answer without its experiments"
    );

    let key = &change["series"];
    let series_query = format!(
        "?name=insert-10K&metric=work&variant={}&host={}",
        encode(key["variant"].as_str().unwrap()),
        encode(key["host"].as_str().unwrap_or_default()),
    );
    let series = assert_answer_matches(
        &served,
        &format!("/api/series{series_query}"),
        "perflab-serve-series.schema.json",
    );

    let all = assert_answer_matches(
        &served,
        "/api/home?per_page=100",
        "perflab-serve-home.schema.json",
    );
    let ids: Vec<i64> = all["experiments"]["items"]
        .as_array()
        .unwrap()
        .iter()
        .map(|e| e["id"].as_i64().unwrap())
        .collect();
    assert!(ids.len() >= 11, "{all}");
    let mut with_history = 0;
    for id in &ids {
        let experiment = assert_answer_matches(
            &served,
            &format!("/api/experiments/{id}"),
            "perflab-serve-experiment.schema.json",
        );
        assert!(experiment["result"].is_object(), "{experiment}");
        with_history += usize::from(experiment["history"].is_object());
    }
    assert!(with_history > 0, "no experiment's answer holds its history");

    // Two measurements of the series, decided as `perflab compare` does.
    let (a, b) = (ids[ids.len() - 1], ids[1]);
    let compared = assert_answer_matches(
        &served,
        &format!("/api/compare?a={a}&b={b}"),
        "perflab-serve-compare.schema.json",
    );
    assert!(
        compared["decision"].is_object() || compared["note"].is_string(),
        "{compared}"
    );

    let (from, to) = (
        series["change_points"][0]["from_commit"].as_str().unwrap(),
        series["change_points"][0]["to_commit"].as_str().unwrap(),
    );
    let commits = assert_answer_matches(
        &served,
        &format!("/api/compare/commits{series_query}&base={from}&head={to}"),
        "perflab-serve-compare-commits.schema.json",
    );
    assert_eq!(commits["decision"]["verdict"], "NO-GO", "{commits}");
}
