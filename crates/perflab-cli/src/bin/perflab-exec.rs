//! `perflab-exec`, the small program perflab starts its runs through; it
//! lives in the perflab-runner crate (`perflab_runner::exec`), and is built
//! here so that installing the perflab command installs it next to it,
//! where perflab looks for it.
#![warn(unreachable_pub)]

fn main() {
    perflab_runner::exec::main()
}
