"""Values the reverse sweep restores instead of taping: integer counters of ``for`` loops
(``adjoint/counters.py``) and work arrays a helper filled (``adjoint/remade_copies.py``).

Each program is differentiated at every level and checked against central differences; the
text of the gradient shows whether the value was restored (no tape of it) or, where a rule does
not apply, taped as before, and right either way.
"""

from __future__ import annotations

import pytest
from fd import ParamSpec
from source_gradients import HEADER, arr, check_source, count

LEVELS = [0, 1, 2]

PACKED = HEADER + '''def f(ltri, x, n: int):
    s = 0.0
    at = 0
    for i in range(n):
        for j in range(i + 1, n):
            s += ltri[at] * x[i] * x[j]
            at += 1
    return s
'''


@pytest.mark.parametrize("level", LEVELS)
def test_a_counter_an_inner_loop_advances_is_counted_back(level):
    text = check_source(PACKED, ["ltri", "x"], [arr("ltri", 10), arr("x", 5), count("n", 5)], level=level)
    assert "tape" not in text
    assert "at -= max(n - " in text  # the outer reversed loop takes away the inner loop's count


STRIDED = HEADER + '''def f(w, x, n: int, m: int):
    s = 0.0
    k = 1
    for r in range(n - 1, -1, -3):
        for c in range(m):
            s += math.sin(w[k + c] * x[r])
        k += m
        k -= 1
    return s
'''


@pytest.mark.parametrize("level", LEVELS)
def test_a_counter_with_a_constant_step_has_a_closed_form_in_a_loop_counting_down_by_three(level):
    text = check_source(STRIDED, ["w", "x"], [arr("w", 12), arr("x", 7), count("n", 7), count("m", 4)], level=level)
    assert "tape" not in text


BRANCHED = HEADER + '''def f(x, y, n: int):
    s = 0.0
    k = 0
    for i in range(n):
        if x[i] > 0.0:
            k += 1
        s += y[k] * x[i]
    return s
'''


@pytest.mark.parametrize("level", LEVELS)
def test_a_counter_an_if_advances_is_taped(level):
    text = check_source(BRANCHED, ["x", "y"], [arr("x", 6), arr("y", 7), count("n", 6)], level=level)
    assert "tape_k" in text


LOADED = HEADER + '''def f(x, lens, n: int):
    s = 0.0
    k = 0
    for i in range(n):
        for j in range(lens[i]):
            s += x[k + j] ** 2 * (i + 1)
        k += lens[i]
    return s
'''


@pytest.mark.parametrize("level", LEVELS)
def test_a_counter_advanced_by_a_loaded_integer_is_taped(level):
    lens = ParamSpec("lens", "array", (3,), dtype="i64", ints=(0, 3))
    text = check_source(LOADED, ["x"], [arr("x", 6), lens, count("n", 3)], level=level, seeds=4)
    assert "tape_k" in text


WORK = HEADER + '''def subtract(d: int, a, b, out):
    for i in range(d):
        out[i] = a[i] - b[i]


def scale_running(d: int, q, v, out):
    for i in range(d):
        out[i] = q[i] * v[i]
    for i in range(1, d):
        out[i] += out[i - 1]


def sqnorm(d: int, v):
    s = 0.0
    for i in range(d):
        s += v[i] * v[i]
    return s


def f(x, mu, q, diff, scaled, n: int, k: int, d: int):
    total = 0.0
    for i in range(n):
        for c in range(k):
            subtract(d, x[i * d :], mu[c * d :], diff)
            scale_running(d, q[c * d :], diff, scaled)
            total += math.exp(-sqnorm(d, scaled))
    return total
'''
WORK_PARAMS = [arr("x", 9), arr("mu", 6), arr("q", 6), arr("diff", 3), arr("scaled", 3),
               count("n", 3), count("k", 2), count("d", 3)]


@pytest.mark.parametrize("level", LEVELS)
def test_work_arrays_filled_by_helpers_are_filled_again_not_taped(level):
    text = check_source(WORK, ["mu", "q"], WORK_PARAMS, level=level)
    if level == 2:
        return  # inlined: no call left to re-run
    assert "tape_diff" not in text and "tape_scaled" not in text
    assert "subtract of line" in text and "scale_running of line" in text


# The producer reads `w`, which the loop changes after the call, and needs no gradient (nothing
# active flows through it), so no copy of `w` is kept: re-running it in the reverse sweep would
# read w's final values, and the work array is taped instead.
STALE = HEADER + '''def twice(d: int, w, out):
    for i in range(d):
        out[i] = 2.0 * w[i]


def dot(d: int, a, b):
    s = 0.0
    for i in range(d):
        s += a[i] * b[i]
    return s


def f(x, n: int, d: int):
    w = np.ones(d)
    tmp = np.zeros(d)
    total = 0.0
    for i in range(n):
        twice(d, w, tmp)
        total += math.sin(dot(d, x[i * d :], tmp))
        w[i % d] += 0.5
    return total
'''


@pytest.mark.parametrize("level", [0, 1])
def test_a_work_array_whose_producer_reads_an_array_changed_later_is_taped(level):
    text = check_source(STALE, ["x"], [arr("x", 9), count("n", 3), count("d", 3)], level=level)
    assert "tape_tmp" in text and "twice of line" not in text


# A copy the producer's own gradient keeps serves the producer again: `q` changes after the call,
# its copy before the call is what `scale` is re-run from.
COPIED = HEADER + '''def scale(d: int, q, v, out):
    for i in range(d):
        out[i] = q[i] * v[i]


def sqnorm(d: int, v):
    s = 0.0
    for i in range(d):
        s += v[i] * v[i]
    return s


def f(x, q, tmp, n: int, d: int):
    total = 0.0
    for i in range(n):
        scale(d, q, x[i * d :], tmp)
        total += math.sin(sqnorm(d, tmp))
        q[i % d] += 0.5
    return total
'''


@pytest.mark.parametrize("level", [0, 1])
def test_a_producer_is_re_run_from_the_copies_its_gradient_keeps(level):
    text = check_source(COPIED, ["x", "q"], [arr("x", 9), arr("q", 3), arr("tmp", 3), count("n", 3), count("d", 3)],
                        level=level)
    assert "tape_tmp" not in text and "scale(d, q_before_scale, " in text


# The producer reads the work array before filling all of it: what it leaves depends on what the
# array held, so it cannot be re-run on a fresh buffer.
PARTIAL = HEADER + '''def shift(d: int, v, out):
    out[0] = out[0] * 0.5 + v[0]
    for i in range(1, d):
        out[i] = v[i] - v[i - 1]


def sqnorm(d: int, v):
    s = 0.0
    for i in range(d):
        s += v[i] * v[i]
    return s


def f(x, tmp, n: int, d: int):
    total = 0.0
    for i in range(n):
        shift(d, x[i * d :], tmp)
        total += math.sin(sqnorm(d, tmp))
    return total
'''


@pytest.mark.parametrize("level", [0, 1])
def test_a_work_array_its_producer_reads_first_is_taped(level):
    text = check_source(PARTIAL, ["x", "tmp"], [arr("x", 9), arr("tmp", 3), count("n", 3), count("d", 3)],
                        level=level)
    assert "shift of line" not in text
