"""The C accelerator and the pure-Python probes: chosen as documented, and
writing the same document for the same program."""

import json

import pytest

from conftest import Program, accelerator_built

needs_accelerator = pytest.mark.skipif(
    not accelerator_built(), reason="perflab._accelerator is not built (pip builds it where a C "
    "compiler and Python's headers are installed)")

SAYS_WHICH = """
    import perflab
    print(perflab.accelerated)
    with perflab.span("one"):
        pass
"""

# Threads, asyncio tasks, recursion, an exception, a span left out of
# order, a span never entered, counters and gauges: every path of the probes.
EVERYTHING = """
    import asyncio, threading, perflab

    NEVER = perflab.span("never")

    @perflab.measure
    def fib(n):
        return n if n < 2 else fib(n - 1) + fib(n - 2)

    @perflab.measure
    async def fetch(i):
        with perflab.span("request"):
            await asyncio.sleep(0.001 * (i % 3))
        perflab.count("fetched")
        return fib(5)

    async def tasks():
        results = await asyncio.gather(*(fetch(i) for i in range(6)))
        task = asyncio.ensure_future(fetch(99))
        await asyncio.sleep(0)
        task.cancel()
        try:
            await task
        except asyncio.CancelledError:
            pass
        return results

    def worker(k):
        for i in range(20):
            with perflab.span("work"):
                fib(6)
            perflab.count("items", i)
            perflab.gauge("depth", k * i)

    def left_out_of_order():
        outer, inner = perflab.span("outer"), perflab.span("inner")
        outer.__enter__()
        inner.__enter__()
        outer.__exit__(None, None, None)
        inner.__exit__(None, None, None)
        outer.__exit__(None, None, None)

    with perflab.span("main"):
        threads = [threading.Thread(target=worker, args=(k,), name="worker-%d" % k) for k in range(3)]
        for thread in threads:
            thread.start()
        for thread in threads:
            thread.join()
        with perflab.span("event_loop"):
            asyncio.run(tasks())
        for _ in range(3):
            try:
                with perflab.span("fails"):
                    raise ValueError("no")
            except ValueError:
                pass
        left_out_of_order()
"""

# Figures that depend on how long things took or on the process, not on
# what the program did.
VARYING = {"inclusive_ns", "self_ns", "mean_ns", "min_ns", "p50_ns", "p95_ns", "p99_ns", "max_ns",
         "poll_ns", "wall_ns", "cpu_ns", "preempted_ns", "blocked_ns", "attributed_ns",
         "unattributed_ns", "span_cost_ns", "instrumentation_ns", "started_unix_ms", "pid",
         "os_tid", "last", "min", "max", "mean", "message", "ts", "dur", "id", "args", "tid"}
TIMED_WARNINGS = {"near_span_cost", "zero_time", "unattributed", "mostly_waiting", "instrumentation_cost"}


def shape(value):
    """``value`` with its varying figures replaced by their type, so that two
    runs of one program compare equal when they recorded the same things."""
    if isinstance(value, dict):
        return {key: type(item).__name__ if key in VARYING else shape(item) for key, item in value.items()}
    if isinstance(value, list):
        return [shape(item) for item in value]
    return value


def comparable(profile):
    profile = dict(profile)
    # Spans are listed by self time; the order of equal records is what matters.
    profile["spans"] = sorted(shape(profile["spans"]), key=lambda span: (span["name"], span["kind"]))
    # Threads are numbered in the order of their first probe, which the
    # scheduler decides: compared by name.
    profile["threads"] = sorted(shape(profile["threads"]), key=lambda thread: thread["name"])
    profile["warnings"] = sorted((warning["kind"], warning["subject"]) for warning in profile["warnings"]
                                 if warning["kind"] not in TIMED_WARNINGS)
    return shape(profile)


def run_both(tmp_path, source, env=None):
    documents = {}
    for probes in ("accelerated", "pure"):
        directory = tmp_path / probes
        directory.mkdir()
        documents[probes] = Program(directory, probes).run(source, env=env)
    return documents


def test_pure_python_probes_are_used_when_asked(tmp_path):
    (_, completed) = Program(tmp_path, "pure").run(SAYS_WHICH)
    assert completed.stdout.strip() == "False"


@needs_accelerator
def test_the_accelerator_records_when_it_is_built_and_pure_python_is_not_asked_for(tmp_path):
    (profile, completed) = Program(tmp_path, "accelerated").run(SAYS_WHICH)
    assert completed.stdout.strip() == "True"
    assert [span["calls"] for span in profile["spans"]] == [1]


@needs_accelerator
def test_both_probes_write_the_same_document_for_the_same_program(tmp_path):
    documents = run_both(tmp_path, EVERYTHING)
    accelerated, pure = (documents[probes][0] for probes in ("accelerated", "pure"))
    assert comparable(accelerated) == comparable(pure)
    # The comparison covers what matters: it would see a call or a warning less.
    spans = {span["name"]: span for span in accelerated["spans"]}
    assert spans["fib"]["calls"] == 3 * 20 * 25 + 6 * 15
    assert spans["work"]["threads"] == 3
    assert spans["fetch"]["async"]["cancelled"] == 1
    assert spans["fails"]["unwound"] == 3
    kinds = {warning["kind"] for warning in accelerated["warnings"]}
    assert {"never_entered", "unwound", "unbalanced_spans"} <= kinds
    for thread in accelerated["threads"]:
        assert thread["preempted_ns"] is not None and thread["blocked_ns"] is not None


@needs_accelerator
def test_both_probes_write_the_same_trace_for_the_same_program(tmp_path):
    traces = {}
    for probes in ("accelerated", "pure"):
        directory = tmp_path / probes
        directory.mkdir()
        path = directory / "trace.json"
        Program(directory, probes).run(EVERYTHING, env={"PERFLAB_TRACE": str(path)})
        events = json.loads(path.read_text())["traceEvents"]
        traces[probes] = sorted(json.dumps(shape(event), sort_keys=True) for event in events)
    assert traces["accelerated"] == traces["pure"]
    assert sum('"cat": "span"' in event for event in traces["accelerated"]) > 100
