"""A log-linear histogram of durations, laid out as the Rust crate's and
perflab.h's: values below 64 ns get a bucket each; above, every power of two
is cut into 32 equal buckets, so a bucket's midpoint is within 1/64 (1.6%) of
any value in it. Values of 2^45 ns and more share the last bucket.

A histogram here is a dict from bucket index to count: most spans fill a few
dozen of the 1312 buckets, and a dict costs nothing for the others.
"""

SUB_BUCKET_BITS = 5
TOP_POWER = 44
BUCKETS = ((TOP_POWER - SUB_BUCKET_BITS) + 2) << SUB_BUCKET_BITS
PERCENTILE_RELATIVE_ERROR = 1.0 / (2 << SUB_BUCKET_BITS)


def bucket_of(ns):
    """Index of the bucket holding a duration of ``ns`` nanoseconds."""
    if ns < 64:
        return ns if ns > 0 else 0
    shift = ns.bit_length() - 1 - SUB_BUCKET_BITS
    index = (shift << SUB_BUCKET_BITS) + (ns >> shift)
    return index if index < BUCKETS else BUCKETS - 1


def bucket_bounds(index):
    """Smallest value and width of bucket ``index``."""
    per_power = 1 << SUB_BUCKET_BITS
    if index < 2 * per_power:
        return index, 1
    shift = (index >> SUB_BUCKET_BITS) - 1
    mantissa = (index & (per_power - 1)) + per_power
    return mantissa << shift, 1 << shift


def merge(into, other):
    """Adds the counts of ``other`` to ``into``."""
    # A copy: a daemon thread may still record while the report is built.
    for index, count in list(other.items()):
        into[index] = into.get(index, 0) + count


def percentile(histogram, fraction, low, high):
    """Nearest-rank percentile ``fraction`` (0.5 for the median) as the
    midpoint of its bucket, clamped to the exact ``[low, high]``, rounded to
    whole nanoseconds; 0 when nothing was recorded."""
    total = sum(histogram.values())
    if total == 0:
        return 0
    rank = min(max(_ceil(fraction * total), 1), total)
    seen = 0
    for index in sorted(histogram):
        seen += histogram[index]
        if seen >= rank:
            start, width = bucket_bounds(index)
            midpoint = start + (width - 1) / 2.0
            # Half away from zero, as Rust's round(): midpoints end in .5.
            return int(min(max(midpoint, low), high) + 0.5)
    return high


def _ceil(x):
    whole = int(x)
    return whole + 1 if whole < x else whole
