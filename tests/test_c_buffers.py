"""Buffers and tapes of the C output that out-of-SSA lets share a variable.

Out-of-SSA (emit/outofssa.py) gives values of one source name and type whose lives do not
overlap one variable; for C, whose buffers are freed by variable at the end of a block, that
takes care (the fuzzer's reproducers, tests/fuzzgen, shrunk):

* two tapes of one name in one block, the first of a known size, the second growing: the
  variable's capacity must be made for the second (the emitter crashed, ``KeyError``);
* a tape of a checkpointed loop's recomputed iteration, freed at the end of the reverse loop's
  body, must not reuse the variable of a tape of the same name freed at the end of the function:
  that ``free`` would free the last iteration's tape again (``double free detected``). Such
  buffers now keep variables of their own (``_buffers_freed_at``).

Gradients run under -fsanitize=address,undefined (a double free or a leak fails the test) and are
checked against central differences; the IR case runs against the reference interpreter.
"""

from __future__ import annotations

import re

import numpy as np
import pytest

from cbuild import CFunction, build, have_gcc
from s2sad.emit_c.emitter import emit_c
from s2sad.ssa.interp import Interpreter
from s2sad.ssa.parser import parse_module
from test_c_warnings import Case, _check

pytestmark = pytest.mark.skipif(not have_gcc(), reason="gcc is not installed")

# A tape of known size popped empty, then a growing tape of the same name in the same block.
TWO_TAPES_ONE_NAME = """
module "tapes.py"

func @f(%x: array<f64,1>, %n: i64) -> f64 {
  %c0 = const() {value = 0} : i64
  %c1 = const() {value = 1} : i64
  %c16 = const() {value = 16} : i64
  %z = const() {value = 0.0} : f64
  %tape = tape.new(%n) {elem = "f64", grow = false} : array<f64,1>
  for(%c0, %n, %c1) {
  ^(%i: i64):
    %v = load(%x, %i) : f64
    tape.push(%tape, %v)
    yield()
  }
  %s = for(%c0, %n, %c1, %z) : f64 {
  ^(%i.1: i64, %s.1: f64):
    %t = tape.pop(%tape) : f64
    %s.2 = add(%s.1, %t) : f64
    yield(%s.2)
  }
  %tape.1 = tape.new(%c16) {elem = "f64", grow = true} : array<f64,1>
  %k, %m = while(%c0, %c0) : i64, i64 {
  ^(%k.1: i64, %m.1: i64):
    %v.1 = load(%x, %k.1) : f64
    %more = lt(%v.1, %s) : bool
    %inside = lt(%k.1, %n) : bool
    %go = and(%inside, %more) : bool
    condition(%go)
  } {
  ^(%k.2: i64, %m.2: i64):
    %w = load(%x, %k.2) : f64
    tape.push(%tape.1, %w)
    %k.3 = add(%k.2, %c1) : i64
    %m.3 = add(%m.2, %c1) : i64
    yield(%k.3, %m.3)
  }
  %r = for(%c0, %m, %c1, %z) : f64 {
  ^(%j: i64, %r.1: f64):
    %u = tape.pop(%tape.1) : f64
    %r.2 = mul(%r.1, %u) : f64
    %r.3 = add(%r.2, %u) : f64
    yield(%r.3)
  }
  %out = add(%s, %r) : f64
  return(%out)
}
"""


def test_a_growing_tape_sharing_a_variable_with_a_fixed_one_has_a_capacity():
    module = parse_module(TWO_TAPES_ONE_NAME)
    text = emit_c(module, "", "f")
    # one variable, two tapes: the fixed one allocated, the growing one empty until pushed to
    assert len(re.findall(r"\btape = calloc\(", text)) == 1 and len(re.findall(r"\btape = NULL;", text)) == 1, text
    assert "tape_cap = 2 * tape_cap + 1;" in text
    fn = CFunction(build(text), "f", ["double *", "long"], "double")
    n = 8
    for seed in range(3):
        x = np.random.default_rng(seed).uniform(0.0, 1.0, n + 1)  # the condition reads x[n]
        want = Interpreter(parse_module(TWO_TAPES_ONE_NAME)).call("f", x.copy(), n)
        assert fn(x.copy(), n) == pytest.approx(want, rel=1e-12)


CASES = {
    # The checkpointed loop's recomputed iteration tapes s and k; so does the while loop after it.
    "recomputed_iteration_tapes_of_an_outer_name": Case(
        """#include <math.h>

double f(double *x, double a, double b, int n)
{
    double s = 0.5;
    int k = 0;
    for (int i = 0; i < n; i++) {
        k = 0;
        while (k < n && s > -0.25) {
            k++;
            s *= 0.5 + 0.1 * x[n - k];
        }
    }
    double t = s;
    k = 0;
    while (k < n && s < 3.0) {
        k++;
        s += s * x[k - 1] * a;
    }
    return s + t * b;
}
""", ["x", "a", "b"], schedules=("recompute", "periodic(2)", "binomial(2)"), sanitize=True),
    # Python in: the tape of the branch's condition after the recomputed loop (of known size)
    # and the one of its break's condition in the loop (growing) shared a variable.
    "py_condition_tapes_in_and_after_a_recomputed_loop": Case(
        """def f(x: "f64[n]", a: float, n: int) -> float:
    d = 0.25
    s = 1.0
    k = 0
    # s2sad: checkpoint recompute
    while k < n and x[3] < 0.25:
        k += 1
        for i in range(n - 1, -1, -2):
            if x[i] < 0.0:
                break
            d -= x[i] * x[k - 1]
    for i in range(n - 1, 0, -1):
        for j in range(n - 1, -1, -1):
            s += x[j] if x[j] - a < -0.25 else a - s
    x[1] = d
    return s
""", ["x", "a"], lang="py", sanitize=True,
        py_params=[("double *", "x"), ("double", "a"), ("long", "n")], shapes={}),
}


@pytest.mark.parametrize(
    "name,level,schedule",
    [(name, level, schedule) for name, case in CASES.items() for level in case.levels for schedule in case.schedules],
)
def test_gradient_frees_each_buffer_once_and_is_right(name, level, schedule):
    _check(CASES[name], level, schedule)


_FILLED_BY_A_HELPER = """#include <stdlib.h>
static void fill(const double *b, double *x, int n)
{
    for (int i = 0; i < n; i++) x[i] = 2.0 * b[i];
}

static double dot(const double *a, const double *b, int n)
{
    double s = 0.0;
    for (int i = 0; i < n; i++) s += a[i] * b[i];
    return s;
}

double f(const double *b, const double *c, int n)
{
    double *x = malloc(n * sizeof(double));
    fill(b, x, n);
    double s = dot(c, x, n);
    free(x);
    return s;
}
"""


def test_an_array_a_helper_fills_first_is_zeroed_so_gcc_sees_it_set():
    """probe t23b: x, malloc'd and filled by a helper, then read by another, made gcc -O1 report
    'x may be used uninitialized' in the gradient (not in the primal); it is calloc'd."""
    from s2sad import pipeline

    text = pipeline.gradient_source(_FILLED_BY_A_HELPER, "t.c", "f", ["b"], "c", pipeline.Options())
    assert "double *x = calloc(1, n * sizeof(double));" in text
    for level in ("-O1", "-O2"):
        build(text, (level,))  # -Wall -Wextra -Werror
