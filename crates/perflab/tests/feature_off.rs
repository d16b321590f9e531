//! The `enabled` feature switched off: builds and tests a crate that uses
//! the whole API against perflab with `default-features = false`.
//!
//! That crate is its own workspace (see its Cargo.toml), so this test runs
//! Cargo on it, offline, with a target directory of its own under the
//! workspace's `target/`.

use std::path::Path;
use std::process::Command;

#[test]
fn a_crate_built_with_probes_off_compiles_and_passes_its_tests() {
    let manifest_dir = Path::new(env!("CARGO_MANIFEST_DIR"));
    let crate_dir = manifest_dir.join("tests/feature-off");
    let target_dir = manifest_dir.join("../../target/perflab-feature-off");
    let cargo = std::env::var_os("CARGO").unwrap_or_else(|| "cargo".into());
    let output = Command::new(cargo)
        .args(["test", "--offline", "--quiet", "--manifest-path"])
        .arg(crate_dir.join("Cargo.toml"))
        .env("CARGO_TARGET_DIR", &target_dir)
        // Flags meant for this build (coverage, -D warnings) stay valid there.
        .env_remove("CARGO_ENCODED_RUSTFLAGS")
        .output()
        .expect("cargo runs");
    let stdout = String::from_utf8_lossy(&output.stdout);
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(
        output.status.success(),
        "the feature-off crate failed:\n{stdout}\n{stderr}"
    );
    assert!(stdout.contains("4 passed"), "{stdout}");
}
