"""Timelines: with PERFLAB_TRACE a program writes every span's call, every
step and life of a coroutine, and every counter and gauge with their times,
in the Chrome trace event format (``perflab-trace/1``)."""

import json


def traced(program, source, events=None):
    trace = program.directory / "trace.json"
    env = {"PERFLAB_TRACE": str(trace)}
    if events is not None:
        env["PERFLAB_TRACE_EVENTS"] = str(events)
    _, completed = program.run(source, env=env, profile=False)
    return json.loads(trace.read_text()), completed


def slices(trace, name):
    return [e for e in trace["traceEvents"] if e["name"] == name and e["ph"] == "X"]


def test_a_trace_holds_exactly_the_calls_made_each_inside_its_caller(program):
    trace, _ = traced(program, """
        import perflab
        with perflab.span("outer"):
            for _ in range(3):
                with perflab.span("inner"):
                    pass
        """)
    assert trace["otherData"]["format"] == "perflab-trace/1"
    assert trace["displayTimeUnit"] == "ns"
    (outer,) = slices(trace, "outer")
    inners = slices(trace, "inner")
    assert len(inners) == 3
    for inner in inners:
        assert outer["ts"] <= inner["ts"] and inner["ts"] + inner["dur"] <= outer["ts"] + outer["dur"] + 0.002
        assert inner["tid"] == outer["tid"] and inner["cat"] == "span"
    names = [e["args"]["name"] for e in trace["traceEvents"] if e["name"] == "thread_name"]
    assert names == ["main (#1)"]


def test_a_coroutine_is_an_async_slice_over_its_steps(program):
    trace, _ = traced(program, """
        import asyncio, perflab

        @perflab.measure
        async def fetch():
            await asyncio.sleep(0.001)

        asyncio.run(fetch())
        """)
    steps = slices(trace, "fetch")
    assert len(steps) == 2 and all(step["cat"] == "poll" for step in steps)
    life = [e for e in trace["traceEvents"] if e["name"] == "fetch" and e["ph"] in ("b", "e")]
    assert [e["ph"] for e in life] == ["b", "e"] and life[0]["id"] == life[1]["id"]
    for step in steps:
        assert life[0]["ts"] <= step["ts"] <= life[1]["ts"]


def test_counters_are_running_totals_over_threads_and_gauges_their_values(program):
    trace, _ = traced(program, """
        import threading, perflab
        perflab.count("records", 2)
        perflab.gauge("depth", 3)
        worker = threading.Thread(target=lambda: (perflab.count("records", 5), perflab.gauge("depth", 1)))
        worker.start()
        worker.join()
        perflab.count("records", 1)
        """)

    def values(name):
        return [e["args"][name] for e in trace["traceEvents"] if e["name"] == name and e["ph"] == "C"]

    assert values("records") == [2, 7, 8]
    assert values("depth") == [3.0, 1.0]


def test_events_past_the_buffer_are_dropped_counted_and_warned_about(program):
    trace, completed = traced(program, """
        import perflab
        for _ in range(10):
            with perflab.span("step"):
                pass
        """, events=4)
    assert len(slices(trace, "step")) == 4
    assert trace["otherData"]["dropped_events"] == 6
    assert trace["otherData"]["events_per_thread"] == 4
    assert "missing 6 events" in completed.stderr and "PERFLAB_TRACE_EVENTS" in completed.stderr
