//! The machine's state recorded with an experiment (in the store and the
//! result JSON), and the drift warnings: `perflab compare` on series that
//! were not interleaved, and `perflab ab` on its own series.

mod common;

use common::Scratch;

fn warnings(result: &serde_json::Value) -> Vec<String> {
    result["warnings"]
        .as_array()
        .map(|w| w.iter().map(|s| s.as_str().unwrap().to_string()).collect())
        .unwrap_or_default()
}

#[test]
fn an_ab_result_records_the_state_of_the_machine_in_the_json_and_the_store() {
    let s = Scratch::new();
    // /proc/stat counts CPU time in ticks of 10 ms: runs of `true` can all
    // end within one tick, and then no share can be taken. Four runs of
    // 30 ms take several.
    let out = s
        .perflab()
        .args([
            "ab",
            "sleep 0.03",
            "--max-runs",
            "2",
            "--min-runs",
            "2",
            "--quiet",
        ])
        .args(["--json", "r.json"])
        .output()
        .unwrap();
    common::assert_reached_a_result(&out);
    let machine = &s.json("r.json")["machine"];
    let status = std::fs::read_to_string("/proc/self/status").unwrap();
    let allowed = status
        .lines()
        .find_map(|l| l.strip_prefix("Cpus_allowed_list:"))
        .unwrap()
        .trim();
    assert_eq!(machine["cpus_allowed"], allowed);
    assert!(
        machine["load_before"].as_f64().is_some_and(|l| l >= 0.0),
        "{machine}"
    );
    for share in ["steal_share", "interrupt_share"] {
        let v = machine[share].as_f64();
        assert!(
            v.is_some_and(|v| (0.0..=1.0).contains(&v)),
            "{share}: {machine}"
        );
    }
    assert!(machine.get("pinned").is_none(), "{machine}");
    // The stored document is the same, machine section included.
    let conn = rusqlite::Connection::open(s.store()).unwrap();
    let stored: String = conn
        .query_row(
            "SELECT result_json FROM experiments ORDER BY id DESC LIMIT 1",
            [],
            |r| r.get(0),
        )
        .unwrap();
    let stored: serde_json::Value = serde_json::from_str(&stored).unwrap();
    assert_eq!(&stored["machine"], machine);
    // The report shows it, under the provenance.
    let out = s.perflab().args(["report"]).output().unwrap();
    common::assert_exit(&out, 0);
    let markdown = String::from_utf8_lossy(&out.stdout);
    assert!(
        markdown.contains("Machine: ") && markdown.contains(&format!("runs on CPUs {allowed}")),
        "{markdown}"
    );
}

#[test]
fn an_ab_whose_runs_grow_slower_over_the_experiment_warns_of_drift() {
    let s = Scratch::new();
    s.write("n.txt", "");
    // Each run (of either variant) does more work than the one before it:
    // a machine that drifts, made on purpose.
    let growing =
        "n=$(wc -l < n.txt); echo >> n.txt; i=0; while [ $i -lt $((n*3000)) ]; do i=$((i+1)); done";
    let out = s
        .perflab()
        .args([
            "ab",
            growing,
            "--max-runs",
            "12",
            "--min-runs",
            "12",
            "--quiet",
        ])
        .args(["--json", "r.json"])
        .output()
        .unwrap();
    common::assert_reached_a_result(&out);
    let result = s.json("r.json");
    let warned: Vec<String> = warnings(&result["machine"])
        .into_iter()
        .filter(|w| w.starts_with("the machine drifted during the experiment"))
        .collect();
    assert!(!warned.is_empty(), "{:?}", result["machine"]);
    assert!(warned[0].contains("grew by"), "{}", warned[0]);
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert!(
        stdout.contains("machine state: the machine drifted"),
        "{stdout}"
    );
}

#[test]
fn compare_warns_when_a_series_drifts_over_its_run_order_and_names_it() {
    let s = Scratch::new();
    // hyperfine runs all of one command, then all of the other: "old" got
    // steadily slower as it ran (1.00 s to about 1.14 s), "new" did not.
    s.write(
        "h.json",
        r#"{"results":[{"command":"old","times":[1.00,1.01,1.03,1.02,1.04,1.05,1.05,1.07,1.08,1.08,1.10,1.11,1.12,1.12,1.14]},
                       {"command":"new","times":[1.10,1.08,1.11,1.09,1.10,1.12,1.08,1.11,1.09,1.10,1.08,1.11,1.10,1.09,1.10]}]}"#,
    );
    let out = s
        .perflab()
        .args(["compare", "h.json#old", "h.json#new", "--json", "r.json"])
        .output()
        .unwrap();
    common::assert_reached_a_result(&out);
    let w = warnings(&s.json("r.json"));
    assert_eq!(w.len(), 1, "{w:?}");
    assert!(w[0].starts_with("wall of \"old\" grew by 1"), "{}", w[0]);
    assert!(w[0].contains("not interleaved"), "{}", w[0]);
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert!(
        stdout.contains("warning: wall of \"old\" grew by"),
        "{stdout}"
    );
}

#[test]
fn compare_on_steady_series_gives_no_drift_warning() {
    let s = Scratch::new();
    s.write(
        "h.json",
        r#"{"results":[{"command":"old","times":[1.00,1.02,0.99,1.01,1.00,1.03,0.98,1.01,1.00,1.02]},
                       {"command":"new","times":[0.80,0.81,0.79,0.82,0.80,0.81,0.80,0.79,0.81,0.80]}]}"#,
    );
    let out = s
        .perflab()
        .args(["compare", "h.json#old", "h.json#new", "--json", "r.json"])
        .output()
        .unwrap();
    common::assert_exit(&out, 0);
    assert!(warnings(&s.json("r.json")).is_empty());
}

#[test]
fn compare_of_two_benchmark_families_names_the_benchmark_whose_series_drifted() {
    let s = Scratch::new();
    // go test -bench -count 12: BenchmarkParse got steadily slower in the
    // old run (1000 to 1132 ns/op); the other series are steady.
    let lines = |parse: &dyn Fn(usize) -> usize, sort: &dyn Fn(usize) -> usize| {
        let mut text = String::from("goos: linux\n");
        for i in 0..12 {
            text += &format!("BenchmarkParse-8   1000   {} ns/op\n", parse(i));
            text += &format!("BenchmarkSort-8   1000   {} ns/op\n", sort(i));
        }
        text + "PASS\n"
    };
    s.write(
        "old.txt",
        &lines(&|i| 1000 + 12 * i, &|i| 2000 + (i * 7) % 5),
    );
    s.write(
        "new.txt",
        &lines(&|i| 1100 + (i * 7) % 5, &|i| 2000 + (i * 3) % 5),
    );
    let out = s
        .perflab()
        .args(["compare", "old.txt", "new.txt", "--json", "r.json"])
        .output()
        .unwrap();
    common::assert_reached_a_result(&out);
    let w = warnings(&s.json("r.json"));
    assert_eq!(w.len(), 1, "{w:?}");
    assert!(
        w[0].starts_with(
            "wall of \"BenchmarkParse-8 / old\" grew by 12.4% of its median from its first run to its last"
        ),
        "{}",
        w[0]
    );
}
