"""The histogram has the Rust crate's layout (crates/perflab/src/histogram.rs)
and its percentiles are within the stated error of the exact nearest rank."""

import math
import random

from perflab import _histogram as h


def test_small_values_have_exact_buckets():
    for value in range(64):
        assert h.bucket_bounds(h.bucket_of(value)) == (value, 1)


def test_the_layout_is_the_rust_crates():
    assert h.BUCKETS == 1312
    assert h.PERCENTILE_RELATIVE_ERROR == 1 / 64
    # Values the Rust bucket_of maps: 32 buckets per power of two above 64.
    assert [h.bucket_of(v) for v in (64, 65, 66, 127, 128, 131, 132, 1 << 20)] == [64, 64, 65, 95, 96, 96, 97, 512]


def test_buckets_tile_the_range_without_gaps():
    expected_low = 0
    for index in range(h.BUCKETS):
        low, width = h.bucket_bounds(index)
        assert low == expected_low
        assert h.bucket_of(low) == index and h.bucket_of(low + width - 1) == index
        expected_low = low + width


def test_huge_values_land_in_the_last_bucket():
    assert h.bucket_of(1 << 50) == h.BUCKETS - 1
    assert h.bucket_of(2**64 - 1) == h.BUCKETS - 1


def exact_nearest_rank(values, fraction):
    ordered = sorted(values)
    rank = min(max(math.ceil(fraction * len(ordered)), 1), len(ordered))
    return ordered[rank - 1]


def test_percentiles_are_within_the_stated_error_of_the_exact_values():
    rng = random.Random(7)
    for trial in range(200):
        values = [int(rng.lognormvariate(10, 2)) for _ in range(rng.randint(1, 400))]
        histogram = {}
        for value in values:
            index = h.bucket_of(value)
            histogram[index] = histogram.get(index, 0) + 1
        for fraction in (0.5, 0.95, 0.99):
            exact = exact_nearest_rank(values, fraction)
            estimate = h.percentile(histogram, fraction, min(values), max(values))
            # The bound holds before rounding to whole nanoseconds.
            assert abs(estimate - exact) <= exact * h.PERCENTILE_RELATIVE_ERROR + 0.5, (trial, fraction)


def test_an_empty_histogram_gives_zero():
    assert h.percentile({}, 0.5, 0, 0) == 0
