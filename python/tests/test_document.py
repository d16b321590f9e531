"""The document has exactly the fields, types and units of perflab-profile/1
as crates/perflab-format defines them, and the environment contract holds."""

from conftest import span, warnings_of

# Field names of perflab_format::profile, in the order serde writes them.
TOP = ["format", "program", "pid", "session", "timer", "spans", "threads", "counters", "gauges", "warnings"]
SESSION = ["name", "scope", "wall_ns", "cpu_ns", "ended_by", "started_unix_ms", "unattributed_threshold"]
TIMER = ["name", "span_cost_ns", "percentile_relative_error", "instrumentation_ns"]
SPAN = ["name", "kind", "file", "line", "calls", "inclusive_ns", "self_ns", "mean_ns", "min_ns",
        "p50_ns", "p95_ns", "p99_ns", "max_ns", "threads", "unwound"]
THREAD = ["id", "name", "os_tid", "wall_ns", "cpu_ns", "preempted_ns", "blocked_ns", "attributed_ns",
          "unattributed_ns", "ended"]
COUNTER = ["name", "file", "line", "events", "total", "threads"]
GAUGE = ["name", "file", "line", "samples", "last", "min", "max", "mean"]

SOURCE = """
    import os, perflab

    @perflab.measure
    def work(n):
        return sum(range(n))

    with perflab.span("phase"):
        for _ in range(20):
            work(20000)
    perflab.count("items", 3)
    perflab.gauge("level", 2.5)
    print(os.getpid())
"""


def test_a_recorded_program_writes_every_field_of_the_format(program):
    profile, completed = program.run(SOURCE)
    assert list(profile) == TOP
    assert profile["format"] == "perflab-profile/1"
    assert profile["program"] == "prog.py"
    assert profile["pid"] == int(completed.stdout)
    assert list(profile["session"]) == SESSION
    assert profile["session"]["scope"] == "process" and profile["session"]["ended_by"] == "process_exit"
    assert list(profile["timer"]) == TIMER
    assert profile["timer"]["percentile_relative_error"] == 1 / 64
    assert profile["timer"]["span_cost_ns"] > 0
    for record in profile["spans"]:
        assert list(record) == SPAN
    assert list(profile["threads"][0]) == THREAD
    assert list(profile["counters"][0]) == COUNTER
    assert list(profile["gauges"][0]) == GAUGE
    work = span(profile, "work")
    assert (work["kind"], work["file"], work["line"], work["calls"]) == ("function", "prog.py", 4, 20)
    assert work["min_ns"] <= work["p50_ns"] <= work["p95_ns"] <= work["p99_ns"] <= work["max_ns"]
    assert isinstance(work["mean_ns"], float)
    assert span(profile, "phase")["kind"] == "span"


def test_the_estimated_probe_time_is_calls_times_the_cost_of_one_span(program):
    profile, _ = program.run(SOURCE)
    calls = sum(record["calls"] for record in profile["spans"])
    assert profile["timer"]["instrumentation_ns"] == round(calls * profile["timer"]["span_cost_ns"])


def test_nothing_is_recorded_or_printed_without_the_environment(program):
    profile, completed = program.run(
        """
        import perflab
        def f(): pass
        print(perflab.recording, perflab.measure(f) is f)
        with perflab.span("x"):
            perflab.count("c"); perflab.gauge("g", 1)
        """,
        profile=False,
    )
    assert profile is None
    assert completed.stdout.split() == ["False", "True"]
    assert completed.stderr == ""
    assert list(program.directory.iterdir()) == [program.directory / "prog.py"]


def test_perflab_table_1_prints_the_table_without_writing_a_file(program):
    profile, completed = program.run(SOURCE, env={"PERFLAB_TABLE": "1"}, profile=False)
    assert profile is None
    assert "perflab: session `prog.py`" in completed.stderr
    for name in ("work", "phase", "items", "level", "main (#1)"):
        assert name in completed.stderr


def test_perflab_table_other_than_1_prints_nothing(program):
    _, completed = program.run(SOURCE, env={"PERFLAB_TABLE": "0"})
    assert completed.stderr == ""


def test_an_unwritable_profile_path_is_one_line_on_stderr_and_the_exit_status_stays(program):
    _, completed = program.run(
        "import perflab, sys\nsys.exit(7)\n",
        env={"PERFLAB_PROFILE": str(program.directory / "missing" / "p.json")},
        profile=False,
        check=False,
    )
    assert completed.returncode == 7
    assert completed.stderr.count("\n") == 1
    assert "could not write the profile to" in completed.stderr and "PERFLAB_PROFILE" in completed.stderr


def test_the_profile_is_written_when_the_program_exits_by_an_uncaught_exception(program):
    profile, completed = program.run(
        """
        import perflab
        with perflab.span("before"):
            pass
        raise SystemExit("stopped")
        """,
        check=False,
    )
    assert completed.returncode == 1
    assert span(profile, "before")["calls"] == 1


def test_a_forked_child_does_not_overwrite_its_parents_profile(program):
    profile, _ = program.run(
        """
        import os, perflab
        pid = os.fork()
        if pid == 0:
            with perflab.span("child"):
                pass
            raise SystemExit(0)
        os.waitpid(pid, 0)
        with perflab.span("parent"):
            pass
        """
    )
    assert [record["name"] for record in profile["spans"]] == ["parent"]


def test_never_entered_spans_and_functions_are_listed_with_a_warning(program):
    profile, _ = program.run(
        """
        import perflab
        UNUSED = perflab.span("unused_phase")

        @perflab.measure
        def never_called():
            pass

        with perflab.span("used"):
            pass
        """
    )
    assert span(profile, "unused_phase")["calls"] == 0
    assert span(profile, "never_called")["calls"] == 0
    assert profile["spans"][0]["name"] == "used", "entered spans come first"
    subjects = {warning["subject"] for warning in warnings_of(profile, "never_entered")}
    assert subjects == {"unused_phase", "never_called"}


def test_an_exception_through_a_span_counts_as_unwound_and_its_time_is_kept(program):
    profile, _ = program.run(
        """
        import perflab
        for _ in range(3):
            try:
                with perflab.span("risky"):
                    sum(range(10000))
                    raise ValueError("x")
            except ValueError:
                pass
        """
    )
    risky = span(profile, "risky")
    assert (risky["calls"], risky["unwound"]) == (3, 3)
    assert risky["inclusive_ns"] > 0
    assert warnings_of(profile, "unwound")[0]["subject"] == "risky"


def test_measure_refuses_generator_functions_with_the_fix(program):
    _, completed = program.run(
        """
        import perflab
        try:
            @perflab.measure
            def lines():
                yield 1
        except TypeError as error:
            print(error)
        """
    )
    assert "generator" in completed.stdout and "perflab.span" in completed.stdout


def test_measure_takes_a_name_and_keeps_the_functions_metadata(program):
    profile, completed = program.run(
        """
        import perflab

        class Store:
            @perflab.measure(name="Store.flush")
            def flush(self):
                "Writes everything."
                return 5

            @perflab.measure
            def load(self):
                return 6

        store = Store()
        print(store.flush() + store.load(), Store.flush.__doc__, Store.flush.__name__)
        """
    )
    assert completed.stdout.split() == ["11", "Writes", "everything.", "flush"]
    assert span(profile, "Store.flush")["calls"] == 1
    assert span(profile, "Store.load")["calls"] == 1
