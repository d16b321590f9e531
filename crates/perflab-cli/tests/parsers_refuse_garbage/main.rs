//! Every parser of outside input, fed arbitrary bytes and near-misses of
//! valid documents (one field changed, truncated, a line dropped or
//! doubled, a very long line, non-UTF-8): none panics, and every error
//! names the input at fault (the file with its line, the flag, the run).

mod experiment_files;
mod near_miss;
mod profile_documents;
mod sample_files;
mod stacks;
mod sweep_specs;
mod units;
