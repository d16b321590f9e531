"""The API when nothing is recorded (neither ``PERFLAB_PROFILE`` nor
``PERFLAB_TABLE=1`` set): a span is one shared context manager that does
nothing, ``measure`` returns the function itself, probes return at once."""


class _NoSpan:
    __slots__ = ()

    def __enter__(self):
        return self

    def __exit__(self, kind, value, traceback):
        return False


_NO_SPAN = _NoSpan()


def span(name):
    return _NO_SPAN


def measure(function=None, *, name=None):
    if function is None:
        return lambda function: function
    return function


def count(name, amount=1):
    pass


def gauge(name, value):
    pass
