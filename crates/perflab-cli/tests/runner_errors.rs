//! The runner's errors reach the user as the perflab command's own: the
//! same message, and the exit code of their kind (2 for what the user can
//! fix, 1 for perflab's own I/O).

use perflab_cli::Error;
use perflab_runner::MetricExtractor;
use perflab_runner::tools::{PERF_INSTALL, require};

#[test]
fn a_bad_metric_definition_is_a_usage_error_with_the_runners_message() {
    let runner = MetricExtractor::from_definitions(&["throughput".into()]).unwrap_err();
    let message = runner.to_string();
    let error = Error::from(runner);
    assert!(matches!(error, Error::Usage { .. }), "{error:?}");
    assert_eq!(error.to_string(), message);
    assert!(
        message.starts_with("--metric: 'throughput' has no '='"),
        "{message}"
    );
    assert_eq!(error.exit_code(), 2);
}

#[test]
fn a_missing_tool_is_a_tool_error_that_says_how_to_install_it() {
    let runner = require("perflab-no-such-tool", PERF_INSTALL).unwrap_err();
    let message = runner.to_string();
    let error = Error::from(runner);
    assert!(matches!(error, Error::Tool { .. }), "{error:?}");
    assert_eq!(error.to_string(), message);
    assert!(message.contains("apt-get install linux-perf"), "{message}");
    assert_eq!(error.exit_code(), 2);
}

#[test]
fn a_failed_run_exits_2_and_the_runners_io_failure_exits_1() {
    let run = Error::from(perflab_runner::Error::Run {
        run: "command './prog'".into(),
        message: "the program was not found".into(),
    });
    assert_eq!(
        run.to_string(),
        "command './prog': the program was not found"
    );
    assert_eq!(run.exit_code(), 2);
    let io = Error::from(perflab_runner::Error::Io {
        path: "pipe".into(),
        source: std::io::Error::from_raw_os_error(libc::EMFILE),
    });
    assert!(io.to_string().starts_with("pipe: "), "{io}");
    assert_eq!(io.exit_code(), 1);
}
