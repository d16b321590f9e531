//! The HTML report opened in headless Chromium: built from real runs of the
//! perflab binary (runs at two commits with span profiles, an A/B, a sweep
//! against a reference, a differential sampling profile under perf, an A/B
//! counted under valgrind and a suite of six cells), it must load with no console error and no
//! network request, and draw every chart with titles, axes and marks. A
//! screenshot is written for the reviewer (its path is printed).
//!
//! Chromium, perf and valgrind come from Debian
//! (`scripts/install-test-deps.sh` installs them); without one this test
//! fails and says how to install it.

mod common;
mod native;
mod profiled;

use std::path::PathBuf;
use std::sync::{Arc, Mutex};
use std::time::Duration;

use common::{Scratch, busy, git, init_git_repository, stdout_of_result};
use headless_chrome::protocol::cdp::types::Event;
use headless_chrome::protocol::cdp::{Emulation, Network, Page};
use headless_chrome::{Browser, LaunchOptions};
use native::{LOOP_SOURCE, compile_c, require_tool, two_costs_source};
use profiled::{span_profile, writes_profiles};

fn chromium() -> PathBuf {
    let candidates = std::env::var_os("PERFLAB_CHROMIUM")
        .map(PathBuf::from)
        .into_iter()
        .chain(
            [
                "/usr/bin/chromium",
                "/usr/bin/chromium-browser",
                "/usr/bin/google-chrome",
            ]
            .map(PathBuf::from),
        );
    for path in candidates {
        if path.is_file() {
            return path;
        }
    }
    panic!(
        "headless Chromium is needed to check the HTML report: install it with \
         `apt-get install chromium` (scripts/install-test-deps.sh does so), or set \
         PERFLAB_CHROMIUM to the browser's path"
    );
}

/// A span profile as an instrumented program would write it (`perflab-profile/1`).
fn profile(run: i64) -> String {
    let wall: u64 = 10_000_000 + (run as u64 % 7) * 100_000;
    span_profile(
        &[
            ("read_input", 1, wall * 20 / 100),
            ("parse::tokens", 400, wall * 50 / 100),
            ("write <output>", 1, wall * 18 / 100),
        ],
        wall,
        &["12% of main's time is in no span"],
    )
}

/// The profile of one run of the A/B's program: `analysis` takes
/// `percent` of its 10 ms, a little different in each `run`.
fn ab_profile(percent: u64, run: u64) -> String {
    let wall: u64 = 10_000_000 + run * 50_000;
    span_profile(
        &[
            (
                "ns::analysis::summarise_every_input_record",
                40,
                wall * percent / 100,
            ),
            ("write", 1, wall * 10 / 100),
        ],
        wall,
        &["12% of main's time is in no span"],
    )
}

/// Builds a store from real runs and writes the report; returns the HTML path.
fn report_from_real_runs(s: &Scratch) -> PathBuf {
    init_git_repository(s.dir.path());
    std::fs::write(s.path(".gitignore"), ".perflab/\ncounter\n*.html\n").unwrap();
    for (step, work) in [(1, "3000"), (2, "2000")] {
        std::fs::write(s.path("work"), work).unwrap();
        git(s.dir.path(), &["add", "."]);
        git(s.dir.path(), &["commit", "-qm", &format!("step {step}")]);
        let command = "n=$(cat work); i=0; while [ $i -lt $n ]; do i=$((i+1)); done";
        stdout_of_result(
            &s.perflab()
                .args(["run", "--name", "parse", "-r", "8", command])
                .output()
                .unwrap(),
        );
    }
    // An A/B of an instrumented program: its profiles show which spans
    // moved, under a name too long for the chart's labels.
    for i in 0..8 {
        s.write(&format!("a{i}.json"), &ab_profile(70, i));
        s.write(&format!("b{i}.json"), &ab_profile(40, i));
    }
    stdout_of_result(
        &s.perflab()
            .args([
                "ab",
                &format!("{}; {}", busy(3000), writes_profiles("a", 8)),
                &format!("{}; {}", busy(2000), writes_profiles("b", 8)),
                "--min-runs",
                "4",
                "--max-runs",
                "8",
            ])
            .output()
            .unwrap(),
    );
    let synthetic = |cost: &str| {
        format!(
            "c=$(cat counter 2>/dev/null || echo 0); echo $((c+1)) > counter; \
             awk -v n={{n}} -v c=$c 'BEGIN {{ printf \"PERFLAB_METRIC cost %.6f ns\\n\", n * ({cost}) * (1 + 0.01 * sin(c * 12.9898)) }}'"
        )
    };
    stdout_of_result(
        &s.perflab()
            .args([
                "sweep",
                "--name",
                "<hamt> & \"scale\"",
                "--measure",
                "cost",
                "--better",
                "lower",
            ])
            .args([
                "--warmup",
                "0",
                "--min-runs",
                "3",
                "-p",
                "n=1000,5000,20000,50000,100000",
            ])
            .args(["--command-name", "hamt", &synthetic("n >= 50000 ? 3.8 : 2")])
            .args([
                "--reference",
                &synthetic("1"),
                "--reference-name",
                "libhamt",
            ])
            .output()
            .unwrap(),
    );
    // The instrumented program's profiles, as the runner stores them.
    let db = rusqlite::Connection::open(s.store()).unwrap();
    let runs: Vec<i64> = db
        .prepare("SELECT id FROM runs WHERE experiment_id = 2")
        .unwrap()
        .query_map([], |r| r.get(0))
        .unwrap()
        .map(Result::unwrap)
        .collect();
    for id in runs {
        db.execute(
            "UPDATE runs SET profile_json = ?1 WHERE id = ?2",
            rusqlite::params![profile(id), id],
        )
        .unwrap();
    }
    drop(db);
    // A differential sampling profile (#5) and an A/B counted under valgrind (#6).
    require_tool("perf");
    require_tool("valgrind");
    let two = compile_c(s.dir.path(), "twocosts", &two_costs_source(21), &[]);
    let baseline = format!("{} 30000000 3", two.display());
    stdout_of_result(
        &s.perflab()
            .args(["profile", "--no-svg", "--baseline", &baseline, "--"])
            .arg(&two)
            .args(["30000000", "1"])
            .output()
            .unwrap(),
    );
    let counted = compile_c(s.dir.path(), "loop", LOOP_SOURCE, &[]);
    stdout_of_result(
        &s.perflab()
            .args(["ab", "--measure", "instructions"])
            .arg(format!("{} 1000", counted.display()))
            .arg(format!("{} 6000", counted.display()))
            .output()
            .unwrap(),
    );
    // A suite of six cells, one of which really changed.
    common::suite::write_work(s);
    s.write("suite.toml", common::suite::SIX_CELLS);
    stdout_of_result(
        &s.perflab()
            .args(["ab", "-f", "suite.toml"])
            .output()
            .unwrap(),
    );
    let html = s.path("report.html");
    let out = s
        .perflab()
        .args([
            "report",
            "2",
            "3",
            "4",
            "5",
            "6",
            "7",
            "--html",
            "report.html",
        ])
        .output()
        .unwrap();
    common::assert_exit(&out, 0);
    html
}

#[derive(Debug, serde::Deserialize)]
struct ChartFacts {
    kind: String,
    title: String,
    width: f64,
    height: f64,
    marks: usize,
    axis_labels: Vec<String>,
}

#[test]
fn the_html_report_loads_in_chromium_with_no_error_and_no_network_and_draws_every_chart() {
    let chromium = chromium();
    let s = Scratch::new();
    let html = report_from_real_runs(&s);
    let profile_dir = s.path("chromium-profile");
    let args: Vec<&std::ffi::OsStr> = [
        "--disable-gpu",
        "--no-first-run",
        "--disable-background-networking",
        "--disable-component-update",
        "--disable-sync",
        "--disable-quic",
        "--hide-scrollbars",
    ]
    .iter()
    .map(std::ffi::OsStr::new)
    .collect();
    let browser = Browser::new(
        LaunchOptions::default_builder()
            .path(Some(chromium))
            .sandbox(false)
            .headless(true)
            .window_size(Some((1000, 900)))
            .user_data_dir(Some(profile_dir))
            .idle_browser_timeout(Duration::from_secs(120))
            .args(args)
            .build()
            .unwrap(),
    )
    .expect("Chromium starts headless");
    let tab = browser.new_tab().unwrap();
    let problems: Arc<Mutex<Vec<String>>> = Arc::default();
    let requests: Arc<Mutex<Vec<String>>> = Arc::default();
    {
        let (problems, requests) = (problems.clone(), requests.clone());
        tab.add_event_listener(Arc::new(move |event: &Event| match event {
            Event::LogEntryAdded(e) => problems.lock().unwrap().push(format!(
                "log {:?}: {}",
                e.params.entry.level, e.params.entry.text
            )),
            Event::RuntimeExceptionThrown(e) => problems
                .lock()
                .unwrap()
                .push(format!("exception: {}", e.params.exception_details.text)),
            Event::RuntimeConsoleAPICalled(e) => problems
                .lock()
                .unwrap()
                .push(format!("console.{:?} called", e.params.Type)),
            Event::NetworkRequestWillBeSent(e) => {
                requests.lock().unwrap().push(e.params.request.url.clone())
            }
            _ => {}
        }))
        .unwrap();
    }
    tab.enable_log().unwrap();
    tab.enable_runtime().unwrap();
    let enable_network: Network::Enable = serde_json::from_value(serde_json::json!({})).unwrap();
    tab.call_method(enable_network).unwrap();
    let url = format!("file://{}", html.display());
    tab.navigate_to(&url)
        .unwrap()
        .wait_until_navigated()
        .unwrap();

    let facts = tab
        .evaluate(
            r#"JSON.stringify([...document.querySelectorAll("figure.chart")].map(f => {
                const svg = f.querySelector("svg"); const box = svg.getBoundingClientRect();
                return { kind: f.dataset.chart, title: f.querySelector(".chart-title").textContent,
                         width: box.width, height: box.height, marks: svg.querySelectorAll(".mark").length,
                         axis_labels: [...svg.querySelectorAll(".axis-label")].map(t => t.textContent) };
            }))"#,
            false,
        )
        .unwrap()
        .value
        .and_then(|v| v.as_str().map(str::to_string))
        .expect("the page answers");
    let charts: Vec<ChartFacts> = serde_json::from_str(&facts).unwrap();
    let kinds: Vec<&str> = charts.iter().map(|c| c.kind.as_str()).collect();
    for kind in [
        "distribution",
        "change",
        "sweep",
        "ratio",
        "spans",
        "history",
        "shares",
        "share-changes",
        "flamegraph",
    ] {
        assert!(kinds.contains(&kind), "no {kind} chart among {kinds:?}");
    }
    for c in &charts {
        assert!(
            c.width > 300.0 && c.height > 80.0,
            "{c:?} is not drawn at a visible size"
        );
        assert!(c.marks > 0, "{c:?} has no data marks");
        assert!(!c.title.trim().is_empty(), "{c:?} has no title");
        assert!(!c.axis_labels.is_empty(), "{c:?} has no axis label");
    }
    let title = tab.get_title().unwrap();
    assert!(title.starts_with("perflab report"), "{title}");
    let text = tab.find_element("body").unwrap().get_inner_text().unwrap();
    assert!(
        text.contains("sweep #4: <hamt> & \"scale\""),
        "the hostile name is shown as text"
    );
    assert!(
        text.contains("Instruction counts") && text.contains("Exact"),
        "the counted A/B says its counts are exact"
    );

    // The A/B shows each span's change with its interval and marks the
    // spans that moved, as the terminal does.
    assert!(
        text.contains("change of self time")
            && text.contains("ns::analysis::summarise_every_input_record"),
        "the A/B's span table is on the page"
    );
    let moved = tab
        .evaluate(
            r#"document.querySelectorAll("table.spans tr.moved .badge.moved").length"#,
            false,
        )
        .unwrap()
        .value
        .and_then(|v| v.as_u64())
        .unwrap();
    assert!(moved >= 1, "no span of the A/B is marked as moved");
    // A warning every profile gave is one line per experiment (the run and
    // the A/B), not one per profile.
    let warned = text.matches("12% of main's time is in no span").count();
    assert_eq!(warned, 2, "{text}");
    // No label is clipped: each lies inside its chart, and a shortened one
    // carries the whole name in its <title>.
    let clipped = tab
        .evaluate(
            r#"JSON.stringify([...document.querySelectorAll("figure.chart:not([data-chart=flamegraph]) svg")].flatMap(svg => {
                const frame = svg.getBoundingClientRect();
                return [...svg.querySelectorAll("text.row-label, text.tick, text.axis-label")].filter(t => {
                    const b = t.getBoundingClientRect();
                    return b.left < frame.left - 0.5 || b.right > frame.right + 0.5
                        || b.top < frame.top - 0.5 || b.bottom > frame.bottom + 0.5;
                }).map(t => t.textContent);
            }))"#,
            false,
        )
        .unwrap()
        .value
        .and_then(|v| v.as_str().map(str::to_string))
        .unwrap();
    assert_eq!(clipped, "[]", "labels drawn outside their chart");
    let shortened = tab
        .evaluate(
            r#"JSON.stringify([...document.querySelectorAll("figure.chart text.row-label")].map(t => [[...t.childNodes].filter(n => n.nodeType === 3).map(n => n.textContent).join(""), t.querySelector("title") ? t.querySelector("title").textContent : ""]).filter(([label]) => label.endsWith("…")))"#,
            false,
        )
        .unwrap()
        .value
        .and_then(|v| v.as_str().map(str::to_string))
        .unwrap();
    let shortened: Vec<(String, String)> = serde_json::from_str(&shortened).unwrap();
    assert!(
        shortened
            .iter()
            .any(|(_, full)| full == "ns::analysis::summarise_every_input_record"),
        "the long span name is shortened with its whole name on hover: {shortened:?}"
    );
    for (label, full) in &shortened {
        assert!(
            full.starts_with(label.trim_end_matches('…')),
            "{label} does not carry its whole name ({full})"
        );
    }

    // The suite's matrix: a row per scenario and the summary, a column per
    // candidate, each cell coloured by its verdict.
    let matrix = tab
        .evaluate(
            r#"JSON.stringify([...document.querySelectorAll("table.suite-matrix tbody tr")].map(tr => [...tr.querySelectorAll("td")].map(td => [td.className, getComputedStyle(td).backgroundColor, td.textContent])))"#,
            false,
        )
        .unwrap()
        .value
        .and_then(|v| v.as_str().map(str::to_string))
        .unwrap();
    let matrix: Vec<Vec<(String, String, String)>> = serde_json::from_str(&matrix).unwrap();
    assert_eq!(
        matrix.len(),
        4,
        "three scenarios and the summary: {matrix:?}"
    );
    assert!(matrix.iter().all(|row| row.len() == 3), "{matrix:?}");
    let (class, colour, text) = &matrix[1][1];
    assert!(
        class.contains("verdict-go") && text.contains("GO"),
        "beta × fast is the GO cell: {matrix:?}"
    );
    let painted = |c: &str| c != "rgba(0, 0, 0, 0)" && c != "transparent";
    assert!(painted(colour), "a GO cell is coloured: {colour}");
    assert_ne!(colour, &matrix[0][1].1, "GO and NEUTRAL differ in colour");

    // The whole page, for the reviewer.
    let height = tab
        .evaluate("document.documentElement.scrollHeight", false)
        .unwrap()
        .value
        .and_then(|v| v.as_f64())
        .unwrap();
    let metrics: Emulation::SetDeviceMetricsOverride = serde_json::from_value(serde_json::json!({
        "width": 1000, "height": height.ceil() as u64, "deviceScaleFactor": 1, "mobile": false
    }))
    .unwrap();
    tab.call_method(metrics).unwrap();
    let png = tab
        .capture_screenshot(Page::CaptureScreenshotFormatOption::Png, None, None, true)
        .unwrap();
    let shot = PathBuf::from(env!("CARGO_TARGET_TMPDIR")).join("perflab-report.png");
    std::fs::write(&shot, png).unwrap();
    std::fs::copy(&html, shot.with_extension("html")).unwrap();
    eprintln!("screenshot of the report: {}", shot.display());

    let problems = problems.lock().unwrap().clone();
    assert!(
        problems.is_empty(),
        "the page logged problems: {problems:?}"
    );
    let requests: Vec<String> = requests
        .lock()
        .unwrap()
        .iter()
        .filter(|u| **u != url)
        .cloned()
        .collect();
    assert!(
        requests.is_empty(),
        "the page made network requests: {requests:?}"
    );
}
