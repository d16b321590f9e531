//! The ways a measured run is started, one file each.
//!
//! [`ProcessExecutor`](process_executor::ProcessExecutor) picks one per run:
//!
//! - **Through the fork server** ([`fork_server_client`], the request in
//!   [`fork_server_request`]): the usual way when `perflab-exec` is installed
//!   next to perflab. One `perflab-exec --serve` per executor forks every run
//!   from a process about as small as `true`, so a run's peak memory is its
//!   own, at one fork and exec per run.
//! - **Through a one-shot `perflab-exec`** ([`one_shot_exec`], spawned by
//!   [`forked_by_perflab`]): when perf events must be attached between fork
//!   and exec (the server cannot), or when a request is too large for the
//!   server. perflab forks `perflab-exec FD -- PROGRAM`, which starts the run
//!   and writes its report to a pipe.
//! - **Directly** ([`forked_by_perflab`]): when `perflab-exec` is not
//!   installed. perflab forks the program itself and reaps it with `wait4`;
//!   the peak memory then starts from perflab's own resident size.
//!
//! The `perflab-exec` program itself, both its fork server and its one-shot
//! mode, is [`perflab_exec`] (public as [`crate::exec`]).

pub(crate) mod fork_server_client;
pub(crate) mod fork_server_request;
pub(crate) mod forked_by_perflab;
pub(crate) mod one_shot_exec;
pub mod perflab_exec;
pub(crate) mod process_executor;
pub(crate) mod run_stdio;
pub(crate) mod spawn_error;
