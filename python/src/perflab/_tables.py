"""What each thread records, and which stack a probe pushes onto.

Every thread that touches a probe gets a ``ThreadTable`` of its own, written
only by that thread, so probes take no lock. Each table keeps one stack of
open spans for the thread's plain code and one per asyncio task running on
it: tasks interleave at every ``await``, and a span entered in one task
must not become the parent of a span entered in another.

A top-level span of a task is a child of the span open on the thread's own
stack, if any (the one around ``asyncio.run``): the event loop runs the task
inside it, as a Rust executor polls futures inside the span around
``block_on``.

A thread's attributed time is the time during which at least one of its
stacks had a span open (the union, not the sum: two tasks each inside a
span for the same 10 ms attribute 10 ms of the thread's wall time).
"""

import os
import sys
import threading

# Events each thread's timeline keeps when PERFLAB_TRACE names a file (0:
# no timeline), as perflab.h reads PERFLAB_TRACE_EVENTS.
TRACE_PATH = os.environ.get("PERFLAB_TRACE") or None
TRACE_EVENTS = 0
if TRACE_PATH:
    _wanted = os.environ.get("PERFLAB_TRACE_EVENTS")
    TRACE_EVENTS = 1000000
    if _wanted is not None:
        if _wanted.strip().isdigit() and int(_wanted) > 0:
            TRACE_EVENTS = int(_wanted)
        else:
            sys.stderr.write("perflab: PERFLAB_TRACE_EVENTS=%s is not a positive whole number of "
                             "events; each thread keeps up to 1000000\n" % _wanted)

# Kinds of timeline events.
TRACE_SPAN, TRACE_POLL, TRACE_ASYNC, TRACE_COUNTER, TRACE_GAUGE = range(5)


def trace_event(table, event):
    """Appends ``event`` to the thread's timeline, or counts it as dropped when full."""
    trace = table.trace
    if len(trace) < TRACE_EVENTS:
        trace.append(event)
    else:
        table.trace_dropped += 1
import time

from ._histogram import bucket_of

_clock = time.perf_counter_ns
_modules = sys.modules
# Above any duration: a slot's min_ns before its first call.
_NO_MIN = 1 << 64


def _load_accelerator(environ):
    """The C accelerator (``_accelerator.c``), built by pip when a compiler
    is there; None when it was not built, cannot be loaded, or
    ``PERFLAB_PURE_PYTHON=1`` asks for the pure-Python probes. Both write
    the same document."""
    if environ.get("PERFLAB_PURE_PYTHON") == "1":
        return None
    try:
        from . import _accelerator
    except ImportError:
        return None
    return _accelerator


ACCELERATOR = _load_accelerator(os.environ)


class PureSpanSlot:
    """Figures of one span site on one thread, in nanoseconds; ``min_ns``
    is above any duration until the first call."""

    __slots__ = (
        "calls", "call_ns", "inclusive_ns", "self_ns", "min_ns", "max_ns",
        "unwound", "active", "histogram", "polls", "poll_ns", "cancelled",
    )

    def __init__(self):
        self.calls = self.call_ns = self.inclusive_ns = self.self_ns = 0
        self.min_ns = _NO_MIN
        self.max_ns = self.unwound = self.active = 0
        self.polls = self.poll_ns = self.cancelled = 0
        self.histogram = {}

    def record_call(self, elapsed):
        """Counts one completed call of ``elapsed`` nanoseconds."""
        self.calls += 1
        self.call_ns += elapsed
        if elapsed < self.min_ns:
            self.min_ns = elapsed
        if elapsed > self.max_ns:
            self.max_ns = elapsed
        histogram = self.histogram
        bucket = bucket_of(elapsed)
        histogram[bucket] = histogram.get(bucket, 0) + 1


class PureStack:
    """Open spans of one thread or one task, a tuple ``(site, slot, saved
    children_ns, start)`` each in ``frames``. ``children_ns`` is the time of
    spans closed inside the innermost open span: entering a span saves it in
    the frame and starts a fresh sum, so self time needs no walk of the stack.
    ``polls`` counts steps of measured coroutines running on it: a step is
    not a frame (see ``_coroutines``) but keeps the stack busy."""

    __slots__ = ("frames", "children_ns", "polls")

    def __init__(self):
        self.frames = []
        self.children_ns = 0
        self.polls = 0


class PureTableFields:
    """The fields of a thread table that a span reads and writes."""

    __slots__ = ("stack", "slots", "trace", "open_stacks", "busy_since", "attributed_ns",
                 "unbalanced", "trace_dropped")


# The same classes in C when the accelerator is loaded: its probes read and
# write them, and everything else uses them as it uses the pure ones.
if ACCELERATOR is None:
    SpanSlot, Stack, TableFields = PureSpanSlot, PureStack, PureTableFields
else:
    SpanSlot, Stack, TableFields = ACCELERATOR.SpanSlot, ACCELERATOR.Stack, ACCELERATOR.TableFields


def stack_opened(table, start_ns):
    """A stack of ``table`` went from idle to busy at ``start_ns``."""
    if table.open_stacks == 0:
        table.busy_since = start_ns
    table.open_stacks += 1


def stack_closed(table, end_ns):
    """A stack of ``table`` went from busy to idle at ``end_ns``."""
    table.open_stacks -= 1
    if table.open_stacks == 0:
        table.attributed_ns += end_ns - table.busy_since


class ThreadTable(TableFields):
    """Everything one thread recorded."""

    __slots__ = (
        "id", "name", "os_tid", "ident", "start_ns", "start_cpu_ns", "cpu_clock",
        "start_wait_ns", "end_ns", "end_cpu_ns", "end_wait_ns", "ended", "task_stacks",
        "counters", "gauges",
    )

    def __init__(self, table_id, start_ns):
        thread = threading.current_thread()
        self.id = table_id
        self.ident = threading.get_ident()
        self.name = "main" if thread is threading.main_thread() else thread.name
        self.os_tid = threading.get_native_id() if hasattr(threading, "get_native_id") else None
        self.start_ns = start_ns
        self.start_cpu_ns = _thread_cpu_ns()
        self.cpu_clock = _cpu_clock_of(self.ident)
        self.start_wait_ns = runnable_wait_ns()
        self.end_ns = self.end_cpu_ns = self.end_wait_ns = None
        # The timeline, when PERFLAB_TRACE is set: (kind, site, start, end or value).
        self.trace = [] if TRACE_EVENTS else None
        self.trace_dropped = 0
        self.ended = False
        self.stack = Stack()
        self.task_stacks = {}
        self.open_stacks = self.busy_since = self.attributed_ns = self.unbalanced = 0
        self.slots = {}
        self.counters = {}
        self.gauges = {}

    def note_end(self):
        """Called on the thread itself as it ends (see ``_ThreadEnd``)."""
        self.end_ns = _clock()
        if threading.get_ident() == self.ident:
            self.end_cpu_ns = _thread_cpu_ns()
            self.end_wait_ns = runnable_wait_ns()
        self.ended = True

    def cpu_ns_now(self):
        """The thread's CPU time now, read from another thread, if it runs."""
        if threading.get_ident() == self.ident:
            return _thread_cpu_ns()
        if self.cpu_clock is None:
            return None
        try:
            return time.clock_gettime_ns(self.cpu_clock)
        except OSError:
            return None


    def wait_ns_now(self):
        """The thread's time waiting for a CPU so far, read from any thread, if it runs."""
        if threading.get_ident() == self.ident:
            return runnable_wait_ns()
        return runnable_wait_ns(self.os_tid) if self.os_tid is not None else None


def runnable_wait_ns(os_tid=None, _os=os, _int=int, _errors=(OSError, IndexError, ValueError)):
    """A thread's total time runnable but waiting for a CPU, from the
    scheduler's statistics (field 2 of ``/proc/self/task/TID/schedstat``, in
    ns; the kernel's Documentation/scheduler/sched-stats.rst); ``os_tid``
    None reads the calling thread. Read at a thread's start and end, as CPU
    time is, never per span. None where the kernel keeps no such statistics.

    The builtins it needs are bound as defaults: the main thread's end is
    noted while the interpreter shuts down, after ``open`` and ``int`` are
    gone from the builtins."""
    path = "/proc/thread-self/schedstat" if os_tid is None else "/proc/self/task/%d/schedstat" % os_tid
    try:
        descriptor = _os.open(path, _os.O_RDONLY)
        try:
            return _int(_os.read(descriptor, 96).split()[1])
        finally:
            _os.close(descriptor)
    except _errors:
        return None


def _thread_cpu_ns():
    try:
        return time.thread_time_ns()
    except (AttributeError, OSError):
        return None


def _cpu_clock_of(ident):
    try:
        return time.pthread_getcpuclockid(ident)
    except (AttributeError, OSError):
        return None


class _ThreadEnd:
    """Kept in the thread-local next to the table: Python drops a thread's
    locals as the thread ends, on that thread, so ``__del__`` can read its
    end time and CPU clock. No other hook runs there without wrapping
    ``threading.Thread``."""

    __slots__ = ("table",)

    def __init__(self, table):
        self.table = table

    def __del__(self):
        self.table.note_end()


class Registry:
    """Every thread table of the process, for the report at exit."""

    def __init__(self, session_start_ns):
        self.lock = threading.Lock()
        self.tables = []
        self.local = threading.local()
        self.session_start_ns = session_start_ns

    def table(self):
        """The calling thread's table, made on its first probe."""
        try:
            return self.local.table
        except AttributeError:
            return self._new_table()

    def _new_table(self):
        with self.lock:
            start = self.session_start_ns if not self.tables else _clock()
            table = ThreadTable(len(self.tables) + 1, start)
            self.tables.append(table)
        self.local.table = table
        self.local.end = _ThreadEnd(table)
        return table


# Bound once asyncio is imported: until then no task can be running.
_get_running_loop = None
_current_task = None


def stack_of(table):
    """The stack a probe on the calling thread pushes onto: the running
    asyncio task's, or else the thread's."""
    if _current_task is None:
        if "asyncio" not in _modules or not _bind_asyncio():
            return table.stack
    if _get_running_loop() is None:
        return table.stack
    task = _current_task()
    if task is None:
        return table.stack
    stack = table.task_stacks.get(task)
    if stack is None:
        stack = _new_task_stack(table, task)
    return stack


def _bind_asyncio():
    global _get_running_loop, _current_task
    asyncio = _modules["asyncio"]
    try:
        get_running_loop, current_task = asyncio._get_running_loop, asyncio.current_task
    except AttributeError:
        return False  # asyncio is still being imported
    _get_running_loop, _current_task = get_running_loop, current_task
    return True


def _new_task_stack(table, task):
    stack = Stack()
    table.task_stacks[task] = stack
    task.add_done_callback(lambda done: table.task_stacks.pop(done, None))
    return stack
