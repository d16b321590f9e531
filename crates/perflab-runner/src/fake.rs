//! A deterministic executor for tests: outcomes come from a script.

use std::collections::BTreeMap;

use crate::error::Result;
use crate::{Executor, ExitState, RunOutcome, RunSpec};

type Script = Box<dyn FnMut(&RunSpec, usize) -> Result<RunOutcome>>;

/// An executor whose runs are scripted: the closure gets the spec and the
/// number of runs performed so far, and returns what the run "measured".
pub struct FakeExecutor {
    script: Script,
    performed: usize,
}

impl FakeExecutor {
    /// An executor that answers every run with `script`.
    pub fn new(script: impl FnMut(&RunSpec, usize) -> Result<RunOutcome> + 'static) -> Self {
        Self {
            script: Box::new(script),
            performed: 0,
        }
    }

    /// How many runs were performed.
    pub fn performed(&self) -> usize {
        self.performed
    }

    /// A successful outcome with this wall time and nothing else.
    pub fn outcome(wall_s: f64) -> RunOutcome {
        RunOutcome {
            wall_s,
            user_s: wall_s * 0.9,
            sys_s: wall_s * 0.05,
            peak_memory_kib: 4096.0,
            exit: ExitState::Code(0),
            unreadable_metrics: Default::default(),
            metrics: BTreeMap::new(),
            output_tail: String::new(),
            profile_json: None,
            answer: None,
            containment: Default::default(),
        }
    }
}

impl Executor for FakeExecutor {
    fn runs_on_this_machine(&self) -> bool {
        false
    }

    fn execute(&mut self, spec: &RunSpec) -> Result<RunOutcome> {
        let outcome = (self.script)(spec, self.performed);
        self.performed += 1;
        outcome
    }
}
