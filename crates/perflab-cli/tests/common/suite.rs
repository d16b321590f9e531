//! Suites for the tests: a `./work` program whose cost is a deterministic
//! function of its scenario and variant, plus small noise, and the files
//! that run it.

use super::Scratch;

/// `./work SCENARIO [ARGS...]`: prints `PERFLAB_METRIC work <cost>`, where
/// the cost depends on the scenario (1000, 2000, 3000) and is 20 % lower only
/// for scenario `beta` under variant `fast` ($VARIANT): a change of +25 % when
/// lower is better; noise ±0.1 %.
/// Arguments other than the first are echoed, so a test can see `{args}`.
pub const WORK: &str = r#"#!/bin/sh
scenario=$1
variant=${VARIANT:-base}
case "$scenario" in alpha) cost=1000 ;; beta) cost=2000 ;; *) cost=3000 ;; esac
if [ "$scenario" = beta ] && [ "$variant" = fast ]; then cost=$((cost * 8 / 10)); fi
shift
[ $# -gt 0 ] && echo "args: $*"
r=$(od -An -N2 -tu2 /dev/urandom)
awk -v c="$cost" -v r="$r" 'BEGIN { printf "PERFLAB_METRIC work %.6f\n", c * (1 + (r / 65535 - 0.5) * 0.002) }'
"#;

/// Writes `./work` into the scratch directory, executable.
pub fn write_work(s: &Scratch) {
    use std::os::unix::fs::PermissionsExt;
    let path = s.write("work", WORK);
    std::fs::set_permissions(&path, std::fs::Permissions::from_mode(0o755)).unwrap();
}

/// Three scenarios × three variants (the baseline `base`, `fast`, `same`):
/// six cells, of which only (beta, fast) really changes.
pub const SIX_CELLS: &str = r#"name = "six-cells"
measure = "work"
better = "lower"
max_runs = 30
seed = 7

[[variant]]
name = "base"
env = { VARIANT = "base" }

[[variant]]
name = "fast"
env = { VARIANT = "fast" }

[[variant]]
name = "same"
env = { VARIANT = "same" }

[[scenario]]
name = "alpha"
command = "./work alpha"

[[scenario]]
name = "beta"
command = "./work beta"

[[scenario]]
name = "gamma"
command = "./work {args}"
args = "gamma --size 3"
"#;
