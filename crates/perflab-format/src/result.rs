//! The result document written by `perflab ab --json` and friends (`perflab-result/1`).
