//! The profile file written by the instrumentation library (`perflab-profile/1`).
