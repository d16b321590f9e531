"""``@measure`` on ``async def``: busy time counted only while the coroutine runs.

As in the Rust crate, one call is the coroutine's life from its first step
to its completion (wall time, waiting included: ``calls``, ``incl``, the
percentiles), and each step (one ``send`` by the event loop, up to the next
suspension) is a poll: its time is the span's self time, minus spans run
inside the step, and makes the thread busy; the time between steps is not
the span's self time, so a coroutine that mostly waits shows little.

A step is not pushed as a frame: spans the coroutine body keeps open across
an ``await`` stay on the task's stack between steps, and a frame for the
step on top of them would keep them from closing. Instead a step saves and
restores the stack's children sum as a frame does, and counts in
``Stack.polls`` so the stack stays busy while it runs.
"""

import functools
import sys
import time

from ._probes import Site, _display_path, _local, _new_table, function_name, slot_of
from ._tables import TRACE_ASYNC, TRACE_POLL, stack_closed, stack_of, stack_opened, trace_event

_clock = time.perf_counter_ns


def measure_coroutine_function(function, name):
    """``function`` (an ``async def``) wrapped in a span of kind ``async``."""
    code = function.__code__
    site = Site(name or function_name(function), "async", _display_path(code.co_filename), code.co_firstlineno)

    @functools.wraps(function)
    async def measured(*args, **kwargs):
        return await _Steps(site, function(*args, **kwargs))

    measured.__perflab_site__ = site
    return measured


def _begin_step(site):
    try:
        table = _local.table
    except AttributeError:
        table = _new_table()
    stack = stack_of(table)
    slot = slot_of(table, site.index)
    saved = stack.children_ns
    stack.children_ns = 0
    depth = len(stack.frames)
    start = _clock()
    if depth == 0 and not stack.polls:
        stack_opened(table, start)
    stack.polls += 1
    return table, stack, slot, saved, depth, start, site.name


def _end_step(step):
    """Closes a step; returns when it ended."""
    now = _clock()
    table, stack, slot, saved, depth, start, name = step
    elapsed = now - start
    frames = stack.frames
    if len(frames) > depth:
        # A span opened in this step is still open (it spans an await): the
        # step's children are the spans closed before it, plus its time so
        # far; it now closes into the step's parent.
        first_open = frames[depth]
        children = first_open[2] + (now - first_open[3])
        frames[depth] = first_open[:2] + (saved,) + first_open[3:]
    else:
        children = stack.children_ns
        stack.children_ns = saved + elapsed
    stack.polls -= 1
    if not frames and not stack.polls:
        stack_closed(table, now)
        if depth == 0 and stack is not table.stack:
            table.stack.children_ns += elapsed  # as a task's top-level span (see _probes)
    if elapsed > children:
        slot.self_ns += elapsed - children
    slot.polls += 1
    slot.poll_ns += elapsed
    if table.trace is not None:
        trace_event(table, (TRACE_POLL, name, start, now))
    return now


def _is_cancellation(error):
    if isinstance(error, GeneratorExit):
        return True
    asyncio = sys.modules.get("asyncio")
    return asyncio is not None and isinstance(error, asyncio.CancelledError)


class _Steps:
    """Drives the wrapped coroutine one step at a time, timing each."""

    __slots__ = ("site", "coroutine")

    def __init__(self, site, coroutine):
        self.site, self.coroutine = site, coroutine

    def __await__(self):
        inner = self.coroutine.__await__()
        first_start = None
        to_send = to_throw = None
        while True:
            step = _begin_step(self.site)
            slot = step[2]
            if first_start is None:
                first_start = step[5]
            try:
                if to_throw is None:
                    request = inner.send(to_send)
                else:
                    error, to_throw = to_throw, None
                    request = inner.throw(error)
            except StopIteration as done:
                end = _end_step(step)
                wall = end - first_start
                slot.inclusive_ns += wall
                slot.record_call(wall)
                table = step[0]
                if table.trace is not None:
                    trace_event(table, (TRACE_ASYNC, self.site.name, first_start, end))
                return done.value
            except BaseException as error:
                _end_step(step)
                if _is_cancellation(error):
                    slot.cancelled += 1
                else:
                    slot.unwound += 1
                raise
            _end_step(step)
            to_send = None
            try:
                to_send = yield request
            except GeneratorExit:
                inner.close()
                slot.cancelled += 1
                raise
            except BaseException as error:
                to_throw = error
