"""Spans, ``@measure`` on plain functions, counters and gauges: the probes a
program calls while perflab records.

A span site is one ``Site`` object, made once per name (``span``) or per
decorated function (``measure``); entering it pushes a frame on the calling
thread's (or asyncio task's) stack, leaving it pops the frame and adds the
duration to the site's slot in the thread's table. The clock is read last on
entry and first on exit, so the bookkeeping is not measured.
"""

import functools
import inspect
import math
import os
import sys
import threading
import time

from ._histogram import BUCKETS
from . import _tables
from ._tables import TRACE_COUNTER, TRACE_GAUGE, TRACE_SPAN
from ._tables import ACCELERATOR, Registry, SpanSlot, stack_closed, stack_of, trace_event

_clock = time.perf_counter_ns
_modules = sys.modules
SESSION_START_NS = _clock()
STARTED_UNIX_MS = time.time_ns() // 1_000_000
REGISTRY = Registry(SESSION_START_NS)
_local = REGISTRY.local
_new_table = REGISTRY.table
if ACCELERATOR is not None:
    ACCELERATOR.configure(REGISTRY.table, stack_of, _tables, _tables.TRACE_EVENTS)

# Every span site, in the order they were made; a site's index is its place here.
SPAN_SITES = []
# Held while a site is made: two threads reaching a new name at once must
# get one site, and two new sites must not get one index.
_SITES_LOCK = threading.RLock()
_SPANS_BY_NAME = {}
# Name -> (file, line) of the first call, for counters and gauges.
COUNTER_SITES = {}
GAUGE_SITES = {}


def _table():
    try:
        return _local.table
    except AttributeError:
        return _new_table()


def _where(depth):
    """File and line of the caller ``depth`` frames up, the file relative
    to the current directory when it lies below it."""
    frame = sys._getframe(depth + 1)
    return _display_path(frame.f_code.co_filename), frame.f_lineno


def _display_path(path):
    try:
        relative = os.path.relpath(path)
    except ValueError:
        return path
    return path if relative.startswith("..") else relative


def slot_of(table, index):
    slot = table.slots.get(index)
    if slot is None:
        slot = table.slots[index] = SpanSlot()
    return slot


class PureSite:
    """A span site entered and left in Python: the probe itself."""

    __slots__ = ("name", "kind", "file", "line", "index")

    # Enter and exit are the hot path: the helpers they would call
    # (``stack_of``'s common case, ``SpanSlot.record_call``, ``stack_opened`` and
    # ``stack_closed``) are written out here, as a Python call costs more
    # than the bookkeeping it does. Until asyncio is imported no task can
    # run, so the thread's stack is taken without asking ``stack_of``; a
    # bucket seen before is counted in place, without ``dict.get``.
    def __enter__(self):
        try:
            table = _local.table
        except AttributeError:
            table = _new_table()
        if "asyncio" not in _modules:
            stack = table.stack
        else:
            stack = stack_of(table)
        slot = table.slots.get(self.index)
        if slot is None:
            slot = slot_of(table, self.index)
        slot.active += 1
        frames = stack.frames
        saved = stack.children_ns
        stack.children_ns = 0
        start = _clock()
        frames.append((self, slot, saved, start))
        if len(frames) == 1 and not stack.polls:
            if table.open_stacks == 0:
                table.busy_since = start
            table.open_stacks += 1
        return self

    def __exit__(self, kind, value, traceback):
        now = _clock()
        try:
            table = _local.table
        except AttributeError:
            table = _new_table()
        if "asyncio" not in _modules:
            stack = table.stack
        else:
            stack = stack_of(table)
        frames = stack.frames
        if not frames or frames[-1][0] is not self:
            table.unbalanced += 1
            return False
        _, slot, saved, start = frames.pop()
        elapsed = now - start
        children = stack.children_ns
        stack.children_ns = saved + elapsed
        if not frames and not stack.polls:
            stack_closed(table, now)
            if stack is not table.stack:
                # The event loop ran this task's span inside whatever span is
                # open on the thread (around asyncio.run): it is that span's child.
                table.stack.children_ns += elapsed
        if elapsed > children:
            slot.self_ns += elapsed - children
        active = slot.active = slot.active - 1
        if active == 0:
            # Only the outermost of recursive calls adds to inclusive time.
            slot.inclusive_ns += elapsed
        slot.calls += 1
        slot.call_ns += elapsed
        if elapsed < slot.min_ns:
            slot.min_ns = elapsed
        if elapsed > slot.max_ns:
            slot.max_ns = elapsed
        if elapsed < 64:
            bucket = elapsed
        else:
            shift = elapsed.bit_length() - 6
            bucket = (shift << 5) + (elapsed >> shift)
            if bucket >= BUCKETS:
                bucket = BUCKETS - 1
        try:
            slot.histogram[bucket] += 1
        except KeyError:
            slot.histogram[bucket] = 1
        if kind is not None:
            slot.unwound += 1
        if table.trace is not None:
            trace_event(table, (TRACE_SPAN, self.name, start, now))
        return False


class Site(PureSite if ACCELERATOR is None else ACCELERATOR.Site):
    """One span: a context manager that may be entered on any thread, in
    any task, and recursively. Its ``__enter__`` and ``__exit__`` are the C
    accelerator's when it is loaded, else ``PureSite``'s."""

    __slots__ = ()

    def __init__(self, name, kind, file, line):
        self.name, self.kind, self.file, self.line = name, kind, file, line
        with _SITES_LOCK:
            self.index = len(SPAN_SITES)
            SPAN_SITES.append(self)

    def __repr__(self):
        return "perflab.Site(%r, kind=%r, at %s:%d)" % (self.name, self.kind, self.file, self.line)


def span(name):
    """The span called ``name``: ``with perflab.span("parse"): ...``.

    One site per name: the file and line shown are those of the first call.
    Made at module level (``PARSE = perflab.span("parse")``) a span is listed,
    with a ``never_entered`` warning, even if the program never enters it."""
    site = _SPANS_BY_NAME.get(name)
    if site is None:
        file, line = _where(1)
        with _SITES_LOCK:
            site = _SPANS_BY_NAME.get(name)
            if site is None:
                site = _SPANS_BY_NAME[name] = Site(str(name), "span", file, line)
    return site


def function_name(function):
    """``module.qualname``, or just the qualname in the main script."""
    module = getattr(function, "__module__", None)
    qualname = getattr(function, "__qualname__", None) or getattr(function, "__name__", "function")
    return qualname if module in (None, "__main__") else module + "." + qualname


def refuse_generators(function):
    if inspect.isgeneratorfunction(function) or inspect.isasyncgenfunction(function):
        raise TypeError(
            "perflab.measure cannot measure the generator function %s: its calls only create "
            "the generator; put `with perflab.span(...)` around the loop that consumes it"
            % function_name(function)
        )


def measure_function(function, name):
    """``function`` wrapped in a span of kind ``function``."""
    code = getattr(function, "__code__", None)
    file = _display_path(code.co_filename) if code else "<unknown>"
    line = code.co_firstlineno if code else 0
    site = Site(name or function_name(function), "function", file, line)

    @functools.wraps(function)
    def measured(*args, **kwargs):
        with site:
            return function(*args, **kwargs)

    measured.__perflab_site__ = site
    return measured


def count(name, amount=1):
    """Adds ``amount`` (a negative one counts as 0) to the counter ``name``: one event."""
    table = _table()
    counters = table.counters
    cell = counters.get(name)
    if cell is None:
        if name not in COUNTER_SITES:
            COUNTER_SITES[name] = _where(1)
        cell = counters[name] = [0, 0]
    cell[0] += 1
    if amount > 0:
        cell[1] += int(amount)
    if table.trace is not None:
        trace_event(table, (TRACE_COUNTER, name, _clock(), int(amount) if amount > 0 else 0))


def gauge(name, value):
    """Sets the gauge ``name`` to ``value``; NaN and infinities are ignored,
    as by the Rust crate: one would poison the mean for good."""
    value = float(value)
    if not math.isfinite(value):
        return
    table = _table()
    gauges = table.gauges
    cell = gauges.get(name)
    if cell is None:
        if name not in GAUGE_SITES:
            GAUGE_SITES[name] = _where(1)
        # samples, sum, min, max, last, when last was set
        cell = gauges[name] = [0, 0.0, value, value, value, 0]
    cell[0] += 1
    cell[1] += value
    if value < cell[2]:
        cell[2] = value
    if value > cell[3]:
        cell[3] = value
    cell[4] = value
    cell[5] = now = _clock()
    if table.trace is not None:
        trace_event(table, (TRACE_GAUGE, name, now, value))
