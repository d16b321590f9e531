"""perflab for Python: spans, counters and gauges written as the same
``perflab-profile/1`` document as the Rust crate and ``perflab.h``, so that
``perflab run``, ``perflab ab`` and ``perflab report`` show where a Python
program spends its time.

    import perflab

    @perflab.measure                  # span `module.parse` (kind "function")
    def parse(line): ...

    @perflab.measure                  # async: first step to completion; self
    async def fetch(url): ...         # time only while the coroutine runs

    with perflab.span("compute"):     # a phase
        ...
    perflab.count("retries")          # +1 (perflab.count("bytes", n): +n)
    perflab.gauge("queue_depth", len(queue))

Recording happens only when ``PERFLAB_PROFILE`` names a file (``perflab``
sets it for every run), ``PERFLAB_TABLE=1`` or ``PERFLAB_TRACE`` names a file
for the timeline (``perflab run --trace DIR`` sets it); the environment is read once,
at import. Otherwise ``span`` returns a context manager that does nothing,
``measure`` returns the function unchanged and ``count``/``gauge`` return
at once. The profile is written when the interpreter exits.

While recording, spans are entered and left in C when the package was built
with its accelerator and ``PERFLAB_PURE_PYTHON=1`` is not set
(``accelerated`` says which), else in Python; the document is the same.
"""

import os as _os

from . import _session

__all__ = ["span", "measure", "count", "gauge", "recording", "accelerated"]
__version__ = "0.1.0"

_profile_path, _print_table, _trace_path = _session.settings(_os.environ)

#: Whether this process records (and writes a profile, a table or a trace at exit).
recording = bool(_profile_path or _print_table or _trace_path)

#: Whether this process records through the C accelerator (``_accelerator.c``,
#: built by pip when a compiler is there) rather than the pure-Python probes,
#: which ``PERFLAB_PURE_PYTHON=1`` asks for; both write the same document.
accelerated = False

if recording:
    import inspect as _inspect

    from ._coroutines import measure_coroutine_function as _measure_coroutine
    from ._probes import count, gauge, span
    from ._probes import measure_function as _measure_function
    from ._probes import refuse_generators as _refuse_generators
    from ._tables import ACCELERATOR as _ACCELERATOR

    _session.start(_profile_path, _print_table, _trace_path)
    accelerated = _ACCELERATOR is not None

    def measure(function=None, *, name=None):
        """Measures every call of ``function``: ``@perflab.measure`` or
        ``@perflab.measure(name="Store.flush")``. Functions are named
        ``module.qualname`` (just the qualname in the main script)."""
        if function is None:
            return lambda function: measure(function, name=name)
        _refuse_generators(function)
        if _inspect.iscoroutinefunction(function):
            return _measure_coroutine(function, name)
        return _measure_function(function, name)

else:
    from ._disabled import count, gauge, measure, span
