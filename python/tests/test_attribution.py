"""Self and inclusive time from per-thread stacks, threads, unattributed
time and the warnings about it: figures checked against what the program
did, never against a duration."""

from conftest import span, warnings_of


def test_self_time_is_inclusive_time_minus_the_spans_inside(program):
    profile, _ = program.run(
        """
        import perflab
        for _ in range(50):
            with perflab.span("outer"):
                sum(range(5000))
                with perflab.span("inner"):
                    sum(range(20000))
        """
    )
    outer, inner = span(profile, "outer"), span(profile, "inner")
    assert (outer["calls"], inner["calls"]) == (50, 50)
    assert inner["self_ns"] == inner["inclusive_ns"]
    assert outer["self_ns"] == outer["inclusive_ns"] - inner["inclusive_ns"]


def test_a_recursive_function_counts_only_its_outermost_calls_in_inclusive_time(program):
    profile, _ = program.run(
        """
        import perflab

        @perflab.measure
        def depth(n):
            sum(range(2000))
            return depth(n - 1) if n else 0

        for _ in range(10):
            depth(4)
        """
    )
    record = span(profile, "depth")
    main = profile["threads"][0]
    assert record["calls"] == 50
    assert record["inclusive_ns"] <= main["wall_ns"]
    # Every call's own work is self time; the nested calls add no more inclusive time.
    assert record["self_ns"] == record["inclusive_ns"]


def test_each_thread_has_its_own_stack_and_record(program):
    profile, _ = program.run(
        """
        import threading, perflab

        def worker():
            for _ in range(20):
                with perflab.span("job"):
                    sum(range(10000))

        threads = [threading.Thread(target=worker, name="worker-%d" % i) for i in range(2)]
        for thread in threads:
            thread.start()
        for thread in threads:
            thread.join()
        """
    )
    job = span(profile, "job")
    assert (job["calls"], job["threads"]) == (40, 2)
    names = [thread["name"] for thread in profile["threads"]]
    # Threads are numbered in the order they first record, which the
    # scheduler decides: either worker may come first.
    assert names[0] == "main" and sorted(names[1:]) == ["worker-0", "worker-1"]
    assert [thread["id"] for thread in profile["threads"]] == [1, 2, 3]
    for thread in profile["threads"][1:]:
        assert thread["ended"] is True
        assert thread["cpu_ns"] is not None and thread["cpu_ns"] > 0
        assert thread["attributed_ns"] + thread["unattributed_ns"] == thread["wall_ns"]
        assert thread["os_tid"] != profile["threads"][0]["os_tid"]
    assert profile["threads"][0]["ended"] is False
    assert sum(t["attributed_ns"] for t in profile["threads"][1:]) == job["inclusive_ns"]


def test_time_outside_spans_is_unattributed_and_warned_about(program):
    profile, _ = program.run(
        """
        import time, perflab
        with perflab.span("short"):
            pass
        time.sleep(0.05)
        """
    )
    main = profile["threads"][0]
    assert main["attributed_ns"] == span(profile, "short")["inclusive_ns"]
    assert main["unattributed_ns"] == main["wall_ns"] - main["attributed_ns"]
    assert warnings_of(profile, "unattributed")[0]["subject"] == "main (#1)"


def test_a_span_around_a_sleep_is_mostly_waiting(program):
    profile, _ = program.run(
        """
        import time, perflab
        with perflab.span("nap"):
            time.sleep(0.2)
        """
    )
    warning = warnings_of(profile, "mostly_waiting")
    assert [w["subject"] for w in warning] == ["main (#1)"]
    # A 0.2 s sleep is at least 0.2 s not runnable, less the microseconds
    # between the reads; load only adds to the wait for a CPU after waking.
    main = profile["threads"][0]
    assert main["blocked_ns"] >= 199_000_000, main
    assert main["cpu_ns"] + main["preempted_ns"] + main["blocked_ns"] <= main["wall_ns"], main
    assert "mostly blocked" in warning[0]["message"], warning


def test_a_thread_sharing_its_cpu_with_two_busy_processes_is_preempted(program):
    profile, completed = program.run(
        """
        import os, signal, time, perflab
        cpu = os.sched_getaffinity(0).pop()
        os.sched_setaffinity(0, {cpu})
        rivals = []
        for _ in range(2):
            pid = os.fork()  # inherits the affinity
            if pid == 0:
                while True:
                    pass
            rivals.append(pid)
        with perflab.span("compute"):
            start = time.monotonic()
            while time.monotonic() - start < 0.3:
                pass
        # Killed, not waited for: on a busy machine a killed rival may wait
        # tens of milliseconds for its turn on this CPU to die, and this
        # thread would be blocked all that time. The zombies go with us.
        for pid in rivals:
            os.kill(pid, signal.SIGKILL)
        """,
        env={"PERFLAB_TABLE": "1"},
    )
    # A third of one CPU on a quiet machine, less on a busy one: at least
    # half of the wall time waiting for it; never asleep, so hardly blocked.
    main = profile["threads"][0]
    assert main["preempted_ns"] * 2 >= main["wall_ns"], main
    assert main["blocked_ns"] * 10 < main["wall_ns"], main
    warning = warnings_of(profile, "mostly_waiting")
    assert "mostly preempted" in warning[0]["message"], warning
    header = next(line for line in completed.stderr.splitlines() if line.startswith("thread "))
    assert header.split() == ["thread", "wall", "cpu", "preempted", "blocked", "in", "spans", "unattributed"]
    assert "* wall = cpu + preempted (ready to run, waiting for a CPU) + blocked" in completed.stderr


def test_spans_left_out_of_order_are_ignored_and_warned_about(program):
    profile, _ = program.run(
        """
        import perflab
        a, b = perflab.span("a"), perflab.span("b")
        a.__enter__(); b.__enter__()
        a.__exit__(None, None, None)   # not the innermost: ignored
        b.__exit__(None, None, None)
        a.__exit__(None, None, None)
        """
    )
    assert span(profile, "a")["calls"] == 1 and span(profile, "b")["calls"] == 1
    assert warnings_of(profile, "unbalanced_spans")[0]["message"].startswith("a span was left 1 times")
