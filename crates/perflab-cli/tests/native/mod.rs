//! Helpers for the tests that run real perf and valgrind on small C programs
//! built in the test. perflab's CI installs the tools (scripts/install-test-deps.sh);
//! a missing tool fails the test with that advice instead of skipping it.
#![allow(dead_code)]

use std::path::{Path, PathBuf};
use std::process::Command;

/// Panics with the install advice when `tool` is not on PATH.
pub fn require_tool(tool: &str) {
    let found = std::env::var_os("PATH")
        .map(|p| std::env::split_paths(&p).any(|d| d.join(tool).is_file()))
        .unwrap_or(false);
    assert!(
        found,
        "{tool} is not installed, and this test needs it: run scripts/install-test-deps.sh \
         (CI does) and run the tests again"
    );
}

/// Compiles `source` with `cc` into `dir/name`; frame pointers kept, no inlining,
/// so that every function of the source is a frame of its own.
pub fn compile_c(dir: &Path, name: &str, source: &str, extra: &[&str]) -> PathBuf {
    require_tool("cc");
    let src = dir.join(format!("{name}.c"));
    std::fs::write(&src, source).expect("write C source");
    let out = dir.join(name);
    let status = Command::new("cc")
        .args(["-O1", "-fno-omit-frame-pointer", "-fno-inline"])
        .args(extra)
        .arg("-o")
        .arg(&out)
        .arg(&src)
        .status()
        .expect("run cc");
    assert!(status.success(), "cc failed on {}", src.display());
    out
}

/// A program with two functions of known relative cost: `heavy` runs
/// `FACTOR` times the loop iterations of `light` (argv[2], default 3), over
/// argv[1] iterations of `light` in total. `tag` makes the binary unique.
pub fn two_costs_source(tag: u32) -> String {
    format!(
        r#"#include <stdio.h>
#include <stdlib.h>
static volatile unsigned long sink;
__attribute__((noinline)) unsigned long light(unsigned long n) {{
    unsigned long x = {tag};
    for (unsigned long i = 0; i < n; i++) {{ x = x * 2654435761u + i; __asm__ volatile("" : "+r"(x)); }}
    return x;
}}
__attribute__((noinline)) unsigned long heavy(unsigned long n, unsigned long factor) {{
    unsigned long x = 2;
    for (unsigned long i = 0; i < factor * n; i++) {{ x = x * 2654435761u + i; __asm__ volatile("" : "+r"(x)); }}
    return x;
}}
int main(int argc, char **argv) {{
    unsigned long n = strtoul(argv[1], 0, 10);
    unsigned long factor = argc > 2 ? strtoul(argv[2], 0, 10) : 3;
    for (int r = 0; r < 20; r++) {{ sink += light(n / 20); sink += heavy(n / 20, factor); }}
    printf("%lu\n", sink);
    return 0;
}}
"#
    )
}

/// A program whose loop runs argv[1] times through a function of a fixed
/// number of instructions; printing its result keeps the loop alive.
pub const LOOP_SOURCE: &str = r#"#include <stdio.h>
#include <stdlib.h>
__attribute__((noinline)) unsigned long step(unsigned long x) { return x * 2654435761u + 7; }
int main(int argc, char **argv) {
    unsigned long n = strtoul(argv[1], 0, 10), x = 1;
    for (unsigned long i = 0; i < n; i++) x = step(x);
    printf("%lu\n", x & 0xff);
    return 0;
}
"#;

/// A program that blocks in `wait_for_disk` ten times for argv[1] ms each
/// (through `read_block`, a function of its own, so that frame-pointer
/// stacks keep `wait_for_disk` although glibc's sleep keeps no frame) and
/// computes for a few milliseconds between the waits.
pub fn blocking_source() -> String {
    r#"#include <stdlib.h>
#include <time.h>
static volatile unsigned long sink;
__attribute__((noinline)) void read_block(long ms) {
    struct timespec pause = { ms / 1000, (ms % 1000) * 1000000L };
    while (nanosleep(&pause, &pause) != 0) {}
    sink++;
}
__attribute__((noinline)) void wait_for_disk(long ms) { read_block(ms); sink++; }
__attribute__((noinline)) void compute(void) {
    unsigned long x = 1;
    for (unsigned long i = 0; i < 5000000; i++) { x = x * 2654435761u + i; __asm__ volatile("" : "+r"(x)); }
    sink += x;
}
int main(int argc, char **argv) {
    long ms = argc > 1 ? strtol(argv[1], 0, 10) : 20;
    for (int i = 0; i < 10; i++) { wait_for_disk(ms); compute(); }
    return 0;
}
"#
    .to_string()
}
