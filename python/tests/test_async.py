"""asyncio: each task has its own stack, and a measured coroutine's self
time is the time it runs, not the time it waits."""

from conftest import span, warnings_of


def test_a_measured_coroutine_counts_busy_time_as_self_and_its_life_as_a_call(program):
    profile, completed = program.run(
        """
        import asyncio, perflab

        @perflab.measure
        async def fetch(n):
            sum(range(20000))
            await asyncio.sleep(0.1)
            sum(range(20000))
            return n * 2

        print(asyncio.run(fetch(21)))
        """
    )
    assert completed.stdout.strip() == "42"
    fetch = span(profile, "fetch")
    assert fetch["kind"] == "async"
    assert fetch["calls"] == 1
    assert fetch["async"]["polls"] >= 2 and fetch["async"]["cancelled"] == 0
    assert fetch["inclusive_ns"] >= 100_000_000, "one call is first step to completion, waiting included"
    assert fetch["async"]["poll_ns"] == fetch["self_ns"], "no spans inside: self time is poll time"
    assert fetch["inclusive_ns"] - fetch["self_ns"] >= 100_000_000, "the sleep is not self time"
    main = profile["threads"][0]
    assert main["attributed_ns"] == fetch["async"]["poll_ns"], "the thread is busy only during the polls"


def test_spans_inside_a_coroutine_are_its_children(program):
    profile, _ = program.run(
        """
        import asyncio, perflab

        @perflab.measure
        def decode():
            sum(range(20000))

        @perflab.measure
        async def fetch():
            await asyncio.sleep(0.01)
            decode()

        asyncio.run(fetch())
        """
    )
    fetch, decode = span(profile, "fetch"), span(profile, "decode")
    assert fetch["self_ns"] == fetch["async"]["poll_ns"] - decode["inclusive_ns"]


def test_tasks_that_interleave_inside_spans_keep_their_own_stacks(program):
    profile, _ = program.run(
        """
        import asyncio, perflab

        async def job(i):
            with perflab.span("job"):
                for _ in range(5):
                    with perflab.span("step"):
                        await asyncio.sleep(0.001 * (i + 1))

        async def main():
            await asyncio.gather(*(job(i) for i in range(4)))

        asyncio.run(main())
        """
    )
    assert span(profile, "job")["calls"] == 4
    assert span(profile, "step")["calls"] == 20
    assert not warnings_of(profile, "unbalanced_spans")
    main = profile["threads"][0]
    assert main["attributed_ns"] <= main["wall_ns"]


def test_a_cancelled_coroutine_is_counted_as_cancelled_not_completed(program):
    profile, completed = program.run(
        """
        import asyncio, perflab

        @perflab.measure
        async def slow():
            await asyncio.sleep(10)

        async def main():
            task = asyncio.create_task(slow())
            await asyncio.sleep(0.01)
            task.cancel()
            try:
                await task
            except asyncio.CancelledError:
                print("cancelled")

        asyncio.run(main())
        """
    )
    assert completed.stdout.strip() == "cancelled"
    slow = span(profile, "slow")
    assert slow["calls"] == 0
    assert slow["async"]["cancelled"] == 1 and slow["async"]["polls"] >= 1
    assert not warnings_of(profile, "never_entered"), "polled, so entered"


def test_a_task_span_is_a_child_of_the_span_around_the_event_loop(program):
    profile, _ = program.run(
        """
        import asyncio, perflab

        @perflab.measure
        async def work():
            sum(range(50000))

        async def main():
            await asyncio.gather(work(), work())

        with perflab.span("loop"):
            asyncio.run(main())
        """
    )
    loop, work = span(profile, "loop"), span(profile, "work")
    assert loop["self_ns"] == loop["inclusive_ns"] - work["async"]["poll_ns"]
