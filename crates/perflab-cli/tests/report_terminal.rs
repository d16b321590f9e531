//! `perflab report` shows the span figures `perflab ab` printed: a real A/B
//! run of a program that writes span profiles (two overlapping threads, so
//! that shares of wall time add up to more than 100%), then the report of
//! that experiment in Markdown and HTML, read back and compared with the
//! terminal line by line.

mod common;
mod profiled;

use common::{Scratch, assert_reached_a_result};
use perflab_format::profile::{Profile, ThreadRecord};
use profiled::{span_profile, writes_profiles};

/// A profile of two threads of `wall_ns` each: `parse` (on the first) and
/// `compute` (on the second) overlap, so their shares of wall time sum to
/// 120%. `jitter` varies the figures from run to run.
fn profile(parse_percent: u64, wall_ns: u64, jitter: u64) -> String {
    let wall = wall_ns + jitter * 10_000;
    let parse = (
        "ns::analysis::summarise_every_input_record",
        40,
        wall * parse_percent / 100,
    );
    let text = span_profile(&[parse], wall, &["12% of main's time is in no span"]);
    let mut p = Profile::from_json_str(&text).unwrap();
    let compute = wall / 2;
    let mut span = p.spans[0].clone();
    span.name = "compute".into();
    span.calls = 1;
    (span.inclusive_ns, span.self_ns, span.mean_ns) = (compute, compute, compute as f64);
    p.spans.push(span);
    let first = p.threads[0].clone();
    p.threads.push(ThreadRecord {
        id: first.id + 1,
        attributed_ns: compute,
        unattributed_ns: wall - compute,
        ..first
    });
    p.to_json_pretty().unwrap()
}

/// The terminal's span rows: (name, A self, B self, change with interval).
fn terminal_span_rows(stdout: &str) -> Vec<[String; 4]> {
    let lines: Vec<&str> = stdout.lines().collect();
    let start = lines
        .iter()
        .position(|l| l.trim_start().starts_with("spans:"))
        .unwrap_or_else(|| panic!("no span table in\n{stdout}"));
    lines[start + 2..]
        .iter()
        .take_while(|l| l.starts_with("    "))
        .map(|l| {
            let cells: Vec<&str> = l.trim().split("  ").filter(|c| !c.is_empty()).collect();
            let change = cells[3].trim().trim_end_matches("moved").trim().to_string();
            [cells[0], cells[1], cells[2]]
                .map(|c| c.trim().to_string())
                .into_iter()
                .chain([change])
                .collect::<Vec<_>>()
                .try_into()
                .unwrap()
        })
        .collect()
}

#[test]
fn the_report_shows_the_span_figures_and_changes_the_terminal_showed() {
    let s = Scratch::new();
    let runs = 8;
    for i in 0..runs {
        s.write(&format!("a{i}.json"), &profile(70, 10_000_000, i as u64));
        s.write(
            &format!("b{i}.json"),
            &profile(40, 8_000_000, (i as u64 * 3) % 7),
        );
    }
    let out = s
        .perflab()
        .args([
            "ab",
            &writes_profiles("a", runs),
            &writes_profiles("b", runs),
        ])
        .args(["--min-runs", "8", "--max-runs", "8", "--warmup", "0"])
        .args(["--json", "ab.json"])
        .output()
        .unwrap();
    assert_reached_a_result(&out);
    let stdout = String::from_utf8_lossy(&out.stdout).to_string();
    let rows = terminal_span_rows(&stdout);
    assert_eq!(
        rows.len(),
        3,
        "two spans and the unattributed time\n{stdout}"
    );
    assert!(
        stdout.contains("  moved"),
        "the longer parse must move:\n{stdout}"
    );

    let out = s
        .perflab()
        .args(["report", "--markdown", "report.md", "--html", "report.html"])
        .output()
        .unwrap();
    common::assert_exit(&out, 0);
    let markdown = std::fs::read_to_string(s.path("report.md")).unwrap();
    let html = std::fs::read_to_string(s.path("report.html")).unwrap();
    let doc = s.json("ab.json");
    for [name, a, b, change] in &rows {
        let shares: Vec<String> = doc["spans"]
            .as_array()
            .unwrap()
            .iter()
            .find(|d| d["name"] == name.as_str())
            .unwrap()["per_variant"]
            .as_array()
            .unwrap()
            .iter()
            .map(|v| format!("{:.1}%", v["self_share_of_wall"].as_f64().unwrap() * 100.0))
            .collect();
        let row = format!(
            "| {name} | {a} ({} of wall) | {b} ({} of wall) | {change}",
            shares[0], shares[1]
        );
        assert!(markdown.contains(&row), "{row}\nnot in\n{markdown}");
        assert!(html.contains(change.as_str()), "{change} not in the HTML");
        if name != "(unattributed)" {
            for (self_time, share) in [(a, &shares[0]), (b, &shares[1])] {
                let line = format!("| `{name}` | {self_time} | {share} |");
                assert!(markdown.contains(&line), "{line}\nnot in\n{markdown}");
            }
        }
    }
    let total: f64 = doc["spans"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|d| d["name"] != "(unattributed)")
        .map(|d| d["per_variant"][0]["self_share_of_wall"].as_f64().unwrap())
        .sum();
    assert!(
        total > 1.1,
        "overlapping threads: shares of wall time exceed 100% ({total})"
    );
    assert!(html.contains(r#"<span class="badge moved">moved</span>"#));
    // The warning every profile gave is one line, as on the terminal.
    let warning = "12% of main's time is in no span";
    assert_eq!(stdout.matches(warning).count(), 1, "{stdout}");
    assert_eq!(markdown.matches(warning).count(), 1, "{markdown}");
    let in_html = warning.replace('\'', "&#39;");
    assert_eq!(html.matches(&in_html).count(), 1, "{html}");
    assert!(markdown.contains(&format!("({} of {} profiles", 2 * runs, 2 * runs)));
}
