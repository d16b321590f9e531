"""Counters and gauges, summed over threads as the Rust crate sums them."""

from conftest import warnings_of


def test_counters_sum_amounts_and_events_over_threads(program):
    profile, _ = program.run(
        """
        import threading, perflab

        def worker():
            for _ in range(10):
                perflab.count("bytes", 100)
            perflab.count("bytes", -5)      # a negative amount counts as 0

        threads = [threading.Thread(target=worker) for _ in range(3)]
        for t in threads: t.start()
        for t in threads: t.join()
        perflab.count("retries")
        """
    )
    counters = {counter["name"]: counter for counter in profile["counters"]}
    assert (counters["bytes"]["events"], counters["bytes"]["total"], counters["bytes"]["threads"]) == (33, 3000, 3)
    assert (counters["retries"]["events"], counters["retries"]["total"], counters["retries"]["threads"]) == (1, 1, 1)
    assert counters["bytes"]["file"] == "prog.py" and counters["bytes"]["line"] == 6


def test_gauges_keep_last_min_max_and_mean_and_ignore_non_finite_values(program):
    profile, _ = program.run(
        """
        import perflab
        for value in (3, 1, 8, float("nan"), float("inf"), 4):
            perflab.gauge("depth", value)
        """
    )
    (depth,) = profile["gauges"]
    assert (depth["samples"], depth["last"], depth["min"], depth["max"], depth["mean"]) == (4, 4.0, 1.0, 8.0, 4.0)
    assert not warnings_of(profile, "gauge_never_set")
