"""Generated C compiles without a warning under the project's own standard, at every gcc level.

The programs below are the fuzzer's minimized reproducers (tests/fuzzgen, issue 14) of output
that ``gcc -std=c99 -Wall -Wextra -Werror`` rejected once gcc optimized:

* unused variables: a value only a pruned branch, or code after an always-taken early return,
  needed; a condition whose two branches folded into one; a reduction's temporary in a
  checkpointed loop (out-of-SSA left its assignment behind: cstmt.drop_dead removes it);
* ``may be used uninitialized``: a value cached in one branch of an ``if`` in the forward sweep
  and read in the same branch of the reverse sweep, or cached in a checkpointed loop's branch
  (correct, but gcc cannot always tell: cstmt.declare now starts such a variable at zero);
* ``array subscript [-9223372036854775808, -1] is outside array bounds``: a pop of a tape whose
  pushes gcc proves never run (a ``while`` whose condition is constant false, a loop that
  breaks in its first iteration) in a reverse loop whose trip count comes from another tape
  (fold now removes such a ``while``; tape tops are ``size_t``, which gcc cannot prove negative);
* ``value computed is not used``: a call kept for its effects where the value around it was
  dropped (now only the call stays);
* an OpenMP sum whose updates the gradient does not need, declared for the pragma alone (the
  pragma now reduces only the sums its loop still adds to);
* ``argument 1 range [...] exceeds maximum object size``: a tape of branch conditions (one byte
  each), or a calloc'd work array, sized by a parameter gcc took for negative on some path (the
  count is now clamped at zero where gcc cannot see it is not negative);
* ``'*tape_h0' may be used uninitialized``: a cache indexed by the iteration, read back by a
  reverse loop whose start gcc cannot tie to the forward loop's iterations; ``'tape_cond[-1]'
  may be used uninitialized``: a pop of a tape whose pushes gcc cannot tie to the pops (caches
  and tapes are now zero-filled: calloc, its count clamped at zero where gcc cannot see it is
  not negative, since gcc checks calloc's count unwrapped);
* ``'__builtin_memcpy' writing 18446744073709551608 bytes into a region of size 0``: a slice's
  copy allocated max(n - 1, 0) numbers and filled by a loop to n - 1 (both now count the
  slice's length, max(hi - lo, 0));
* ``iteration 2305843009213693950 invokes undefined behavior``: an adjoint added into a slice by a
  loop to n - 1 over a value allocated max(n - 1, 0) numbers (the loop now runs to the value's
  own length).

Each gradient is built with -O1 and -O2 of gcc (-Wall -Wextra -Werror, so any warning fails)
and checked against central differences.
"""

from __future__ import annotations

import ctypes
import re
from dataclasses import dataclass, field
from typing import Any, Callable, Optional

import numpy as np
import pytest

from cbuild import CFLAGS, INPUT_FLAGS, CFunction, Out, build, build_sanitized, compile_c, have_gcc
from cprimal import CSignature
from s2sad import pipeline
from s2sad.ssa.attrs import parse_schedule

pytestmark = pytest.mark.skipif(not have_gcc(), reason="gcc is not installed")

N, M = 5, 3


@dataclass
class Case:
    source: str
    wrt: list[str]
    lang: str = "c"
    levels: tuple[int, ...] = (0, 1, 2)
    schedules: tuple[Optional[str], ...] = (None,)
    ints: dict[str, int] = field(default_factory=lambda: {"n": N, "m": M})
    # Python in: the parameters as C sees them, and the 2-D arrays' shapes
    py_params: list[tuple[str, str]] = field(default_factory=lambda: [
        ("double *", "x"), ("double *", "y"), ("double *", "A"), ("double", "a"), ("double", "b"),
        ("long", "n"), ("long", "m")])
    shapes: dict[str, tuple[int, int]] = field(default_factory=lambda: {"A": (N, M)})
    # Run the gradient built with -fsanitize=address,undefined (a double free, a leak, a read
    # past a buffer fail the test with the sanitizer's report) rather than loaded.
    sanitize: bool = False


CASES = {
    # Fuzz seed 13107706: an adjoint's accumulation into a slice (``v[1:]``, ``v[:-1]``) looped to
    # n - 1 over a buffer allocated max(n - 1, 0) numbers; gcc -O2 warned that iteration 2 ** 61 - 2
    # would pass any object (the loop now runs to the buffer's own length).
    "slice_accumulation_bound": Case('''import math

import numpy as np


def g0(u: float, v: float) -> float:
    if (v > 0.0):
        return 0.5
    return u


def r1(z: "f64[n]", c: float, n: int) -> float:
    h1 = 0.75
    return math.sin((h1 * h1))


def f(x: "f64[n]", y: "f64[n]", A: "f64[m, n]", a: float, b: float, n: int, m: int) -> float:
    s2 = 1.0
    s1 = -0.25
    m2 = 0
    if (y[3] > 0.5):
        return y[1]
    for i1 in range(0, n, 2):
        if (math.log((2.0 + np.tanh(g0(y[i1], s2)))) > (b + s1)):
            return np.min((np.abs(np.outer((A @ x), x)) @ np.cos(np.where(x > x, x, x))))
        else:
            if ((i1 % 2) == 0):
                return a
        m2 = min(n, (1 + int(2.0 * abs(np.tanh(((1.5 + np.tanh(x[((n - 1) - i1)])) ** g0(s1, a)))))))
        for i3 in range(0, m2, 3):
            y[i1] += b
    y[1] = np.dot((A.T @ np.mean(A, axis=1)), (np.where(x > x, x, x) - np.where(x > x, x, x)))
    y[1] = ((np.tanh(s2) * np.abs(x[1])) * np.sum((np.abs((A @ x)) @ A)[1:] * (np.abs((A @ x)) @ A)[:-1]))
    return np.cosh((0.5 * np.arccos((0.8 * np.tanh(g0(x[2], y[0]))))))''', ["x", "a", "b"], lang="py", levels=(2,),
                                       shapes={"A": (M, N)}),
    # Fuzz seed 10104952, shrunk by hand: a loop by -3 over a range gcc proves empty (m is
    # min(n, 1)). Its tape was sized by the floored trip count and its reversed loop started
    # from a truncated one; gcc proved the tape empty but not the reversed loop, and reported its
    # pops ("array subscript [0, ...] is outside array bounds of 'double[0]'"). Both use one trip
    # count now (structured.trip_count). The second loop runs, so the gradient is not zero.
    "strided_reverse_of_an_empty_loop": Case('''import math

import numpy as np


def f(x, n):
    s = 0.5
    m = min(n, 1 + int(3.0 * abs(np.tanh(-0.25))))
    for i in range(m - 1, 0, -3):
        s = math.sin(s) * x[i]
    for i in range(n - 1, 0, -2):
        s = math.sin(s) * x[i]
    return s * x[0]
''', ["x"], lang="py", py_params=[("double *", "x"), ("long", "n")], shapes={}),
    # Fuzz seed 10930572, shrunk: the copy of a slice x[1:] was allocated max(n - 1, 0) numbers
    # and filled by a loop to n - 1; gcc -O2 made the loop a memcpy of (n - 1) * 8 bytes and
    # reported 2^64 - 8 of them written into the empty copy where n is 0. A slice's length is
    # now max(hi - lo, 0) (opt/lower_arrays._length): allocation and loop count the same.
    "slice_copy_of_an_empty_array": Case('''import numpy as np


def f(x: "f64[n]", y: "f64[n]", W: "f64[m, n]", a: float, b: float, n: int, m: int) -> float:
    s1 = -0.25
    s2 = 1.0
    for i1 in range(n - 1, 0 - 1, -2):
        s1 = s2
    y[0] *= np.sum(np.outer((W @ x), x))
    return s1 * np.sum(np.where(x > x, x, x)[1:] * np.where(x > x, x, x)[:-1])
''', ["x", "y", "a", "b"], lang="py", py_params=[("double *", "x"), ("double *", "y"), ("double *", "W"),
                                                  ("double", "a"), ("double", "b"), ("long", "n"), ("long", "m")],
        shapes={"W": (M, N)}),
    # Fuzz seed 13103312, shrunk: the adjoint of a keepdims row summed to its shape, transposed and
    # broadcast back read the element at the broadcast index, not 0 on the unit axis (d_b wrong).
    "transposed_keepdims_row_broadcast_back": Case('''import numpy as np


def f(x: "f64[n]", y: "f64[n]", W: "f64[m, n]", a: float, b: float, n: int, m: int) -> float:
    s2 = 1.0
    s2 = np.mean((np.outer((W @ x), x) * np.sum((W + b).T, axis=1, keepdims=True).T))
    return s2
''', ["x", "y", "a", "b"], lang="py", py_params=[("double *", "x"), ("double *", "y"), ("double *", "W"),
                                                  ("double", "a"), ("double", "b"), ("long", "n"), ("long", "m")],
        shapes={"W": (M, N)}),
    # Fuzz seed 13010354, shrunk: y's copy before w1 (whose gradient re-reads y[1]) was
    # malloc'd and filled with n numbers; inlined into grad_f, gcc -O2 could not tell n > 1 and
    # reported 'y_before_w1[1]' may be used uninitialized. A copy is now calloc'd, then filled.
    "copy_read_past_what_gcc_knows_filled": Case('''import numpy as np


def w1(out: "f64[n]", z: "f64[n]", c: float, n: int) -> None:
    h0 = 0.0
    h0 += z[0] if out[1] > 0.5 else h0
    for i in range(n):
        out[i] = h0


def f(x: "f64[n]", y: "f64[n]", a: float, b: float, n: int) -> float:
    for i in range(n):
        return y[i]
    w1(y, x, x[2] * np.cosh(a), n)
    return x[1] * b
''', ["x", "a", "b"], lang="py", py_params=[("double *", "x"), ("double *", "y"), ("double", "a"),
                                         ("double", "b"), ("long", "n")], shapes={}),
    # s1 = -0.25 + a was kept for a return that an always-true early return never reaches.
    "dead_after_early_return": Case(
        """#include <math.h>

double g1(double u, double v)
{
    return 0.5;
}

double f(double *x, const int *idx, double a, double b, int n)
{
    double s1 = -0.25;
    double s2 = 1.0;
    s1 += a;
    if ((0.1 < 0.5) || (0.5 > 0.5)) {
        return 0.5;
    }
    return g1(s2, s1);
}
""", ["x", "a", "b"]),
    # Fuzz seed 6000427, shrunk: d_s2, whose address grad_g0 is passed in one branch, was zeroed
    # in the other where nothing reads it after (the loop's early return means s2 is never
    # assigned). A variable whose address a call takes was never dropped, so it stayed, declared
    # and unused (-Wunused-variable at -O0). The call reads it; nothing else does.
    "address_taken_in_one_branch": Case(
        """#include <math.h>

double g0(double u, double v)
{
    return 0.5;
}

double f(double *x, double a, double b, int n)
{
    double s2 = 1.0;
    int m6 = 0;
    int m10 = 0;
    for (int i7 = m6 - 1; i7 >= 0; i7 -= 2) {
        if (!(1.25 < 0.0)) {
            return 0.5;
        }
        s2 = x[i7];
    }
    for (int i11 = 0; i11 < m10; i11++) {
        if (g0(s2, b) > 0.5) {
            x[((n - 1) - i11)] += 0.5;
        }
    }
    x[3] += s2;
    return 0.5;
}
""", ["x", "a", "b"]),
    # Fuzz seed 9000269, shrunk: at -O2, CSE made both branches of the && in the condition yield
    # k4 after fold had run, so the condition still read s2 in the IR, and the recompute
    # checkpoint snapshot of s2 was stored; C's emitter then folded the condition, and nothing
    # loaded the snapshot (-Wunused-but-set-variable). Fold now makes such an if's result the
    # value both branches yield.
    "snapshot_only_a_folded_condition_read": Case(
        """#include <math.h>

double f(double *x, double *y, const int *idx, double a, double b, int n)
{
    double s2 = 1.0;
    int k4 = 0;
    k4 = 0;
    #pragma s2sad checkpoint recompute
    while (k4 < n && ((s2 > y[1]) && (cos(0.5) < 0.0))) {
        k4++;
        s2 += a;
    }
    for (int i5 = 1; i5 < n; i5++) {
        y[((i5 + 2) % n)] *= s2;
    }
    return 0.5;
}
""", ["x", "y", "a", "b"]),
    # Fuzz seed 9100176, shrunk: a tape of a loop stepping down by 2 was indexed by
    # floordiv_l(t0 - i5, 2), whose sign gcc cannot follow: with m4 <= 2 the tape holds one slot,
    # and gcc took the index for negative (-Warray-bounds at -O2). The distance from the first
    # iteration is never negative, so the index is a plain (t0 - i5) / 2.
    "tape_index_of_a_loop_stepping_down": Case(
        """import math

import numpy as np


def f(x, y, a, b, n):
    s2 = 1.0
    s0 = 0.5
    m4 = 0
    m6 = 0
    m4 = min(n, (1 + int(2.0 * abs(0.5))))
    for i5 in range(m4 - 1, 0 - 1, -2):
        for i7 in range(0, m6, 2):
            s2 = s0
            y[((i5 + 1) % n)] = s2
        s0 *= (min(y[((n - 1) - i5)], a) if ((x[i5] > 0.5) or ((i5 % 2) == 0))
               else ((-0.75) if ((math.cos(y[i5]) > b) or ((i5 % 2) == 0)) else s2))
    return 0.5
""", ["x", "y", "a", "b"], lang="py",
        py_params=[("double *", "x"), ("double *", "y"), ("double", "a"), ("double", "b"), ("long", "n")],
        shapes={}),
    # Fuzz seed 9700082, shrunk: a recomputed iteration copies both array arguments of w0
    # in one branch, for the reverse sweep after it. Only the first copy's variable was set to
    # NULL before the branch; the second, declared outside the loop, kept the pointer freed in
    # the last iteration, and an iteration taking the other branch freed it again (a double
    # free). Every buffer that leaves the branch now starts as NULL.
    "two_copies_leave_one_branch": Case(
        """def w0(out: "f64[n]", z: "f64[n]", n: int) -> None:
    for i in range(n):
        out[i] = 0.5 * z[i]


def f(x: "f64[n]", y: "f64[n]", a: float, n: int) -> float:
    # s2sad: checkpoint recompute
    for k in range(n):
        if (k % 2) == 0:
            w0(y, x, n)
        else:
            x[k] = x[k] * y[k]
    return y[0] * x[1]
""", ["x", "y"], lang="py", sanitize=True, ints={"n": N},
        py_params=[("double *", "x"), ("double *", "y"), ("double", "a"), ("long", "n")], shapes={}),
    # Fuzz seed 9600514, shrunk: C prints a < a as false, so the replay of a checkpointed
    # iteration came out empty, and with it the read of the state saved for it: the saved
    # state, a small array on the stack, was written and never read (-Wunused-but-set-variable
    # at every level). cstmt.drop_dead now drops such an array with its stores.
    "checkpoint_state_no_replay_reads": Case(
        """import math


def f(x, a, n):
    h = 0.75
    # s2sad: checkpoint recompute
    for i in range(n):
        if a < a:
            h = a - x[i] * h
    s = 0.0
    for j in range(n):
        s += math.exp(0.3 * h) * x[j]
    return s
""", ["x", "a"], lang="py", schedules=(None, "periodic(2)", "binomial(2)"),
        py_params=[("double *", "x"), ("double", "a"), ("long", "n")], shapes={}),
    # Fuzz seed 9100531, shrunk: a loop in a branch, its bounds computed there, pushed to a
    # growing tape that the mirrored branch of the reverse sweep pops; gcc could not tie the
    # pops to the pushes, and from the 16-slot buffer the tape started with it took a pop for
    # an index of -1 (-Warray-bounds at -O2). A growing tape now starts empty, from NULL.
    "growing_tape_in_a_branch": Case(
        """#include <math.h>

double g0(double u, double v)
{
    double h1 = 0.75;
    if (2.0 < u) {
        return (-0.75);
    }
    return ((hypot(v, h1) > 0.5) ? v : u);
}

double f(double *x, double a, double b, int n)
{
    double s0 = 0.5;
    double s2 = 1.0;
    double s1 = -0.25;
    int m1 = 0;
    int k4 = 0;
    int m11 = 0;
    int m13 = 0;
    int p15 = 1;
    for (int i2 = 0; i2 < m1; i2++) {
        s0 *= a;
    }
    k4 = 0;
    while (k4 < n && (s2 > (-0.25))) {
        k4++;
        for (int i5 = 0; i5 < (n - 1); i5++) {
            return 0.5;
        }
    }
    if (g0(3.0, (x[0] + s2)) < (-0.25)) {
        if (g0(fmin(x[1], x[1]), g0(x[2], 0.5)) > x[3]) {
            return acosh((2.5 + tanh((2.0 * b))));
        }
        m11 = (n < (1 + (int)(2.0 * fabs(tanh((b * g0(a, s0)))))) ? n : (1 + (int)(2.0 * fabs(tanh((b * g0(a, s0)))))));
        for (int i12 = 1; i12 < m11; i12++) {
            s1 *= x[((i12 + 2) % n)];
        }
    } else {
        m13 = (n < (1 + (int)(3.0 * fabs(tanh(x[1])))) ? n : (1 + (int)(3.0 * fabs(tanh(x[1])))));
        for (int i14 = m13 - 1; i14 >= 0; i14 -= 3) {
            s1 = s0;
            for (int i16 = n - 1; i16 >= 0; i16 -= p15) {
                s1 = ceil(x[2]);
            }
        }
    }
    return (x[3] - pow((x[1] * s1), 3));
}
""", ["x", "a", "b"], sanitize=True),
    # Fuzz seed 9301077, shrunk: under binomial(2) the statements of a checkpointed iteration
    # stand twice in the C tree (rebuilt, then run again with taping). Placing k3's declaration
    # in the first made its assignment a declaration, which the second placement did not count
    # as assigning k3: it took k3 for read before set there and declared it outside the loop
    # that declares its own, "long k3;", unused (-Wunused-variable at -O2).
    "declaration_in_code_the_tree_holds_twice": Case(
        """#include <math.h>

double f(double *x, double *A, double a, double b, int n, int m)
{
    double s2 = 1.0;
    int k3 = 0;
    for (int i2 = 0; i2 < n; i2++) {
        k3 = 0;
        while (k3 < n) {
            k3++;
            for (int i4 = 0; i4 < m; i4 += 2) {
                s2 -= x[i2];
                if ((0.5 < 0.5) || (((0.5 < x[(k3 - 1)]) ? s2 : x[i2]) > (-0.25))) {
                    break;
                }
            }
        }
    }
    return s2;
}
""", ["x", "a", "b"], schedules=("binomial(2)", "periodic(2)", "recompute")),
    # The condition of c ? x[1] : x[1] folded away; its temporary stayed.
    "folded_condition": Case(
        """#include <math.h>

double f(double *x, double *y, const int *idx, double *A, double a, double b, int n, int m)
{
    y[1] *= x[1];
    x[3] += (((0.5 > a) && (a < 0.5)) ? x[1] : x[1]);
    return 0.5;
}
""", ["x", "a", "b"]),
    # An else branch copying the initial value of a while loop's variable nothing reads after.
    "branch_copy_nothing_reads": Case(
        """#include <math.h>

double f(double *x, double *y, double a, double b, int n)
{
    double s1 = -0.25;
    double s2 = 1.0;
    double s0 = 0.5;
    int k1 = 0;
    if (((s1 - s1) + cbrt((2.0 + tanh(x[1])))) < (-0.25)) {
        k1 = 0;
        while (k1 < n && (pow(2.0, 2) < (s1 + 1.25))) {
            k1++;
            s1 -= (-0.75);
        }
    }
    s2 += pow((1.5 + tanh((((s2 > 0.5) || (cbrt((2.0 + tanh(((x[0] > 0.5) ? x[2] : 1.25)))) > (y[0] * s0)))
        ? ((-0.75) - y[1]) : (s0 - s1)))), atanh((0.8 * tanh(a))));
    return (fmax((s2 + s2), fmin(y[3], 0.1)) - expm1((0.3 * asin((0.8 * tanh(3.0))))));
}
""", ["x", "y", "a", "b"]),
    # Cached in one branch of the forward sweep, read in the same branch of the reverse sweep.
    "branch_cached_product": Case(
        """#include <math.h>

double f(double *x, double *y, double a, double b, int n)
{
    double s1 = -0.25;
    s1 = ((y[2] < 0.0) ? 0.5 : y[3]);
    if (s1 > 0.5) {
    } else {
        y[0] *= y[1];
    }
    return fabs(s1);
}
""", ["x", "y", "a", "b"]),
    # The same through a helper's result, under checkpointing of every loop.
    "branch_cached_call": Case(
        """#include <math.h>

double g0(double u, double v)
{
    return u;
}

double f(double *x, double *y, double a, double b, int n)
{
    double s2 = 1.0;
    y[2] += ((0.5 < x[3]) ? tanh(g0(x[0], s2)) : 0.5);
    return y[0];
}
""", ["x", "a", "b"], schedules=(None, "periodic(2)", "binomial(2)")),
    # A loop whose condition's operand a recomputed sweep no longer needs.
    "recompute_unused_operand": Case(
        """#include <math.h>

double f(double *x, const int *idx, double a, double b, int n)
{
    double s2 = 1.0;
    for (int i5 = n - 1; i5 >= 1; i5 -= 1) {
        if (((0.5 > (((a > (-0.25)) || (((0.5 < a) ? 0.5 : a) > (-0.25))) ? s2 : x[i5])) ? x[i5] : x[i5]) > 0.5) {
            return a;
        }
    }
    return 0.5;
}
""", ["x", "a", "b"], schedules=(None, "recompute")),
    # Fuzz seed 13002891, shrunk: the reversed parallel loop sets a branch flag only where a
    # first test fails and reads it only there (`if (!t9) t10 = ...; if (!t9 && !t10)`). The
    # flag, declared before the loop, was private(t10): a thread's copy unset where gcc looks,
    # so maybe-uninitialized. A private variable read before it is surely assigned is now
    # firstprivate (it starts from its declared value, as in a serial run).
    "parallel_flag_set_in_a_branch": Case(
        """#include <math.h>

double f(double *x, double *y, double a, double b, int n)
{
    double s1 = -0.25;
    #pragma omp parallel for reduction(+: s1)
    for (int i1 = 0; i1 < n; i1++) {
        y[i1] = ((0.5 < a) ? 0.5 : ((x[((n - 1) - i1)] > 0.5) ? 1.0 : x[i1]));
        s1 += ((((2.0 + tanh(b)) > x[i1]) || ((i1 % 2) == 0)) ? 1.25 : a);
    }
    for (int i3 = 0; i3 < n; i3++) {
        x[i3] = (y[((n - 1) - i3)] - 0.5) * ((b > (-0.25)) ? 0.5 : x[i3]) - (s1 + b);
    }
    return x[3] + y[2];
}
""", ["x", "y", "a", "b"], levels=(0, 1), schedules=("recompute", "periodic(2)")),
    # A parallel loop's temporary, recomputed: its value is read by nothing.
    "recompute_parallel_temporary": Case(
        """#include <math.h>

double f(double *x, double *y, const int *idx, double a, double b, int n)
{
    double s2 = 1.0;
    double s1 = -0.25;
    double s0 = 0.5;
    #pragma omp parallel for reduction(+: s0)
    for (int i1 = 0; i1 < n; i1++) {
        double q2 = 0.0;
        q2 = ((1.25 < s2) ? ((((a + a) - ((-0.75) + a)) < (b + s2)) ? a : 3.0) : s1);
        y[i1] = 3.0;
        s0 += (((tan((0.7 * tanh(q2))) < (-0.25)) ? s1 : q2) * ceil(b));
    }
    s0 *= ((fabs(y[1]) + (y[0] + x[1])) * atan(fmod(a, (1.5 + tanh(y[3])))));
    if ((a < asin((0.8 * tanh(x[1])))) || (!(((s0 * 1.25) * hypot(y[0], a)) > fmin(y[0], a)))) {
        y[3] *= ceil((((b + cosh((0.5 * a))) < 0.5) ? y[2] : ((3.0 > (-0.25)) ? x[0] : x[3])));
    }
    if ((((s1 > 0.5) ? s1 : x[2]) + (y[1] * x[2])) > 1.25) {
        s2 *= atan((tan((0.7 * tanh(b))) - 3.0));
        x[0] *= atan(pow((1.5 + tanh(((x[0] < x[3]) ? 0.1 : s0))), 0.1));
    } else {
        s2 += log2((2.0 + tanh(sinh((0.5 * log2((2.0 + tanh(y[1]))))))));
    }
    s2 += y[1];
    return pow((1.5 + tanh((fmax(s0, 3.0) * erf(s2)))), ((y[0] + 2.0) + (-0.75)));
}
""", ["x", "a", "b"], schedules=(None, "recompute")),
    # Values cached in branches of a checkpointed loop's body, read again by its reverse sweep.
    "checkpointed_branch_cache": Case(
        """#include <math.h>

double g0(double u, double v)
{
    double h1 = 0.75;
    double h0 = 0.0;
    if ((v * (h1 / (1.5 + tanh(v)))) > 0.5) {
        return tan((0.7 * tanh(v)));
    }
    if (v < 0.0) {
        h1 += (((h0 + h1) + h1) - ((cos(fmin(1.25, u)) < (-0.25)) ? (0.1 * u) : (u + h1)));
        h0 = cos(1.25);
    }
    return sin((u * u));
}

double f(double *x, double *y, double a, double b, int n)
{
    double s1 = -0.25;
    double s0 = 0.5;
    double s2 = 1.0;
    if ((cbrt((2.0 + tanh(x[1]))) > (-0.25)) && (fabs(s1) > 0.5)) {
        s1 = x[2];
    } else {
        s1 *= (g0(x[1], s1) + s0);
    }
    s1 += pow((1.5 + tanh((s2 * x[1]))), 2.0);
    for (int i1 = 0; i1 < n; i1++) {
        if (sin((b * x[((i1 + 1) % n)])) > (s0 * y[((i1 + 1) % n)])) {
            if ((i1 % 2) == 0) {
                s2 = fmod(cos(expm1((0.3 * b))), (1.5 + tanh(floor((x[i1] + x[((n - 1) - i1)])))));
                y[i1] *= (b * s2);
            }
            s2 = cbrt((2.0 + tanh(y[i1])));
        } else {
            s1 *= 3.0;
        }
        s0 += expm1((0.3 * s0));
        s1 = ((g0(s0, b) * s2) + pow(((-0.75) * 0.1), 2));
    }
    s0 -= expm1((0.3 * fmod(0.1, (1.5 + tanh(cbrt((2.0 + tanh(x[2]))))))));
    y[1] *= hypot(asinh(g0(y[3], s2)), erf(fmod(x[1], (1.5 + tanh(x[1])))));
    return sin(log((2.0 + tanh((s0 + y[2])))));
}
""", ["x", "y", "a", "b"], schedules=(None, "periodic(2)", "binomial(2)", "recompute")),
    # Python in, C out: values cached under an early return's condition.
    "py_early_return_cache": Case(
        """import math

import numpy as np


def f(x: "f64[n]", y: "f64[n]", A: "f64[n, m]", a: float, b: float, n: int, m: int) -> float:
    s2 = 1.0
    s1 = -0.25
    s0 = 0.5
    p1 = 1
    s2 *= x[3]
    p1 = (1 + int(2.5 * abs(np.tanh(((0.1 + x[0]) - (A[2, 1] * x[0]))))))
    for i2 in range(0, m, p1):
        s1 *= (3.0 + (np.arctan(s0) + s1))
        for i3 in range(n - 1, 0 - 1, -1):
            if ((i3 % 2) == 0):
                continue
            x[i3] *= 3.0
            y[((i3 + 2) % n)] = b
    s0 = (s1 * min(np.cosh((0.5 * s1)), y[3]))
    for i4 in range(m):
        s0 -= math.erf(math.hypot(x[0], x[1]))
    if (((y[0] if (x[3] > math.floor(a)) else A[3, 0]) * (0.5 - x[2])) < 0.0):
        return math.acosh((2.0 + np.tanh((y[0] if ((min(x[3], (s0 - s0)) < (-0.25))
                                                     or (x[2] > np.log2((2.0 + np.tanh(x[0]))))) else A[2, 0]))))
    return ((math.pow((1.5 + np.tanh(s1)), x[2]) + x[0]) + s2)
""", ["x", "y", "a", "b"], lang="py", levels=(1, 2)),
    # np.max of a temporary started from its element 0, which an empty extent does not have.
    "py_max_of_temporary": Case(
        """import numpy as np


def f(x: "f64[n]", W: "f64[m, n]", a: float, b: float, n: int, m: int) -> float:
    s0 = 0.5
    s0 *= (0.5 if ((0.5 < (-0.25)) or (np.max(np.outer((W @ x), (np.abs(x) + x))) < 3.0)) else a)
    return s0 + np.min(W @ x) * b
""", ["x", "W", "a", "b"], lang="py", levels=(0, 1, 2),
        py_params=[("double *", "x"), ("double *", "W"), ("double", "a"), ("double", "b"), ("long", "n"),
                   ("long", "m")],
        shapes={"W": (M, N)}),
    # Fuzz seed 11400722, shrunk: the branch flags of a loop to n, calloc(1, (n > 0 ? n : 0) *
    # sizeof(bool)), even calloc(1, n): gcc 12 threaded the n = 0 path into one on which it took
    # the byte count for 2^63 or more. Allocations of bools ask for one element at least.
    "py_bool_tape_of_n": Case(
        """import math

import numpy as np


def f(x: "f64[n]", y: "f64[n]", A: "f64[n, m]", a: float, b: float, n: int, m: int) -> float:
    s2 = 1.0
    s1 = -0.25
    if x[2] < math.acosh(2.5 + np.tanh(y[1])):
        m6 = min(n, 1 + int(2.0 * abs(np.tanh(A[2, 1]))))
        for i7 in range(m6):
            t = s2 if math.erfc(y[i7]) > A[i7, 1] else x[(i7 + 3) % n]
            s1 += math.pow(1.5 + np.tanh(y[i7] * a), t) - x[i7] * s1
        m9 = min(n, 2)
        for i10 in range(0, m9, 2):
            s2 *= x[i10] + s1
    for i12 in range(n):
        y[i12] = abs(3.0 if x[i12] * b < 0.5 and A[i12, 0] < 0.5 else s2)
        s1 += b * 3.0 - A[i12, 0]
    return s1 + y[3] + a
""", ["x", "a", "b"], lang="py", levels=(0, 2),
        py_params=[("double *", "x"), ("double *", "y"), ("double *", "A"), ("double", "a"), ("double", "b"),
                   ("long", "n"), ("long", "m")],
        shapes={"A": (N, M)}),
    # A bool buffer whose byte count gcc -O2 took for negative on an impossible path.
    "py_bool_buffer_size": Case(
        """import numpy as np


def f(x: "f64[n]", y: "f64[n]", W: "f64[m, n]", a: float, b: float, n: int, m: int) -> float:
    s1 = -0.25
    m2 = min(n, (1 + int(3.0 * abs(0.5))))
    # s2sad: checkpoint periodic(2)
    for i3 in range(1, m2, 2):
        for i5 in range(n - 1, 0 - 1, -1):
            for i6 in range(n):
                y[i5] += np.fmod(y[((n - 1) - i3)], 3.0 + a)
        s1 += np.sum(np.where(W > np.outer((W @ x), np.expm1(0.3 * x)), (W + W),
                              np.outer(np.where((W @ x) > (W @ x), (W @ x), (W @ x)), x)))
    return (s1 + s1)
""", ["x", "a", "b"], lang="py", levels=(2,),
        py_params=[("double *", "x"), ("double *", "y"), ("double *", "W"), ("double", "a"), ("double", "b"),
                   ("long", "n"), ("long", "m")],
        shapes={"W": (M, N)}),
    # A while whose condition folds to false (k6 < n && 1.25 < -0.25): gcc sees that nothing is
    # pushed on the tape of the branch's condition, while the reverse loop's trip count is popped
    # from the tape of the inner loop's trip counts.
    "pops_of_a_tape_nothing_pushes": Case(
        """#include <math.h>

double f(double *x, double *y, double a, double b, int n)
{
    int k6 = 0;
    for (int i1 = 0; i1 < (n - 1); i1++) {
        k6 = 0;
        while (k6 < n && (1.25 < (-0.25))) {
            k6++;
            if (((i1 % 2) == 0) || (0.5 < x[(k6 - 1)])) {
                return 0.5;
            }
            x[((i1 + 3) % n)] += x[3];
        }
    }
    return 0.5;
}
""", ["x", "a", "b"], schedules=(None, "recompute", "periodic(2)", "binomial(2)")),
    # The outer loop breaks in its first iteration (i4 = 0 is even), which gcc sees and s2sad
    # does not: the pushes in the rest of its body never run, the pops may.
    "pops_after_a_first_iteration_break": Case(
        """#include <math.h>

double f(double *x, double *A, double a, double b, int n, int m)
{
    double s1 = -0.25;
    double s0 = 0.5;
    double s2 = 1.0;
    for (int i4 = 0; i4 < n; i4 += 2) {
        if ((i4 % 2) == 0) {
            break;
        }
        for (int i5 = n - 1; i5 >= 0; i5 -= 1) {
            for (int i6 = n - 1; i6 >= 1; i6 -= 1) {
                s1 *= ((((!(0.5 < 0.0)) ? s0 : x[i6]) < s1) ? pow((1.5 + tanh(x[1])), s0) : erf(x[i6]));
            }
            s2 = (fabs(tan((0.7 * tanh(x[i5])))) * ((A[i4 * m + 0] + a) - (s1 + b)));
        }
    }
    return (((1.25 > (A[2 * m + 0] * x[3])) ? x[1] : (A[0 * m + 1] - s2))
            + ((((pow((3.0 + b), 3) < (x[1] - 3.0)) ? x[0] : atan(a)) > (x[1] * x[3])) ? (s2 + x[1]) : (s0 * x[1])));
}
""", ["x", "A", "a", "b"], schedules=(None, "periodic(2)", "binomial(2)")),
    # Python in, C out: a tape of conditions sized by n, on a path where gcc takes n for negative.
    "py_condition_tape_size": Case(
        """import numpy as np


def f(x: "f64[n]", y: "f64[n]", a: float, b: float, n: int) -> float:
    for i in range(n):
        y[i] = 0.5
    if np.tanh(y[1]) < 0.5:
        for j in range(n):
            y[n - 1 - j] += x[j] ** 3 if np.tanh(y[(j + 1) % n]) < 0.0 else x[n - 1 - j]
    return y[0] * a + x[2] * b
""", ["x", "y", "a", "b"], lang="py", schedules=(None, "recompute"),
        py_params=[("double *", "x"), ("double *", "y"), ("double", "a"), ("double", "b"), ("long", "n")],
        shapes={}),
    # Python in (seed 3000170, its start values moved off zero so that the gradient is not): a
    # cache indexed by the iteration (tape_h0[i2 / 3]) of a loop that runs at most once (m1 =
    # min(n, 2), step 3); gcc -O2 cannot tie the reverse loop's start, ((m1 + 2) / 3 - 1) * 3,
    # to the slots the forward loop wrote.
    "py_cache_of_a_loop_run_at_most_once": Case(
        """import numpy as np


def r0(z: "f64[n]", c: float, n: int) -> float:
    h0 = 1.0
    m1 = 0
    m1 = min(n, (1 + int(3.0 * abs(0.5))))
    # s2sad: checkpoint store-all
    for i2 in range(0, m1, 3):
        h0 *= (z[i2] if (h0 < 1.5) else 0.5)
    return h0


def f(x: "f64[n]", a: float, b: float, n: int) -> float:
    return r0(x, 0.5, n)
""", ["x", "a", "b"], lang="py",
        py_params=[("double *", "x"), ("double", "a"), ("double", "b"), ("long", "n")], shapes={}),
    # Seed 5000236: in each recomputed iteration of the checkpointed loop, a tape of the while's
    # conditions (the while stops at once: gcc proves its condition false, s2sad cannot), popped
    # n_iter times under the same if; gcc does not tie the pops to the pushes.
    "pops_gcc_cannot_tie_to_pushes": Case(
        """#include <math.h>

double f(double *x, double *y, const int *idx, double a, double b, int n)
{
    double s1 = -0.25;
    double s0 = 0.5;
    int k2 = 0;
    s1 -= y[0];
    for (int i1 = n - 1; i1 >= 0; i1 -= 2) {
        if (0.5 > a) {
            k2 = 0;
            while (k2 < n && (((!((a + copysign(1.25, s0)) > 0.0)) ? a : 0.5) > 0.5)) {
                k2++;
                s1 = s0;
                if ((a > (-0.25)) || (((k2 - 1) % 2) == 0)) {
                    break;
                }
            }
        }
    }
    return s1;
}
""", ["x", "y", "a", "b"], schedules=("recompute", "periodic(2)", "binomial(2)")),
    # Seed 5000027: the caches of a loop sized by n (calloc(n, ...)) after a while (k2 < n) on
    # whose paths gcc takes n for negative (-Walloc-size-larger-than: calloc's count as a size_t).
    # n = 3: with 5, h0 overflows, and at -O0/-O1 the unused gradient of r1 is 0 * inf.
    "calloc_count_gcc_takes_for_negative": Case(
        """#include <math.h>

double r0(double *z, double c, int n)
{
    return 0.5;
}

double r1(double *z, double c, int n)
{
    double h1 = 0.75;
    double h0 = 0.0;
    int k2 = 0;
    k2 = 0;
    while (k2 < n) {
        k2++;
        for (int i5 = 0; i5 < (n - 1); i5++) {
            h1 = z[1];
        }
    }
    for (int i6 = 0; i6 < n; i6++) {
        h0 += ((h0 / h1) - fmax(z[((n - 1) - i6)], r0(z, z[((i6 + 2) % n)], n)));
    }
    return pow(0.5, h0);
}

double f(double *x, double *y, double a, double b, int n)
{
    double s1 = -0.25;
    return r0(x, r1(y, s1, n), n);
}
""", ["x", "y", "a", "b"], ints={"n": 3}),
    # Fuzz seed 6000229, shrunk: at -O0 the reduced sum s2 is read only in a branch that never
    # runs, which the gradient drops; the loop's update went, its pragma still named s2, and
    # s2 = 1.0 stayed for it alone: gcc calls s2 unused (a pragma's clause is no use).
    "omp_sum_nothing_needs": Case(
        """#include <math.h>

double f(double *x, double a, double b, int n)
{
    double s2 = 1.0;
    double s1 = -0.25;
    #pragma omp parallel for reduction(+: s2)
    for (int i = 0; i < n; i++) {
        s2 += erfc(3.0);
    }
    if (3.0 < (-0.25)) {
        s1 = tanh(0.5 - s2);
    }
    x[2] += exp(0.3 * x[1]) * a * s1;
    return cos(3.0) + b * x[0];
}
""", ["x", "a", "b"]),
    # Fuzz seed 7000160, shrunk: at -O0 s1, the product of a call, is read only by a condition
    # that folds; the call stays for its effects, but it stayed inside its product:
    # "0.5 * g0(0.5, 0.5);", whose value gcc calls unused (-Wunused-value). Only the call stays.
    "py_call_in_a_dead_product": Case(
        """def g0(u: float, v: float) -> float:
    return 0.5


def f(x: "f64[n]", a: float, b: float, n: int) -> float:
    s1 = -0.25
    s1 = (0.5 * g0(0.5, 0.5))
    if ((0.5 < 0.5) and ((0.5 if ((s1 < 0.5) and (0.5 > 0.5)) else 2.0) > 0.5)):
        return 0.5
    return a * x[0] + b
""", ["x", "a", "b"], lang="py",
        py_params=[("double *", "x"), ("double", "a"), ("double", "b"), ("long", "n")], shapes={}),
    # Fuzz seed 5000216, shrunk: calloc(m, ...) of the adjoint of W.T @ v, in a branch of a loop,
    # on a path where gcc takes m for negative (calloc's count is an argument by itself).
    "py_calloc_count": Case(
        """import numpy as np


def f(x: "f64[n]", y: "f64[n]", W: "f64[m, n]", a: float, b: float, n: int, m: int) -> float:
    m8 = min(n, (1 + int(2.0 * abs(0.5))))
    for i9 in range(m8):
        y[2] += (0.5 if (a > 0.5) else np.min((W.T @ (np.log(2.0 + np.tanh(W)) @ np.arctan(x)))))
    return 0.5
""", ["x", "a", "b"], lang="py",
        py_params=[("double *", "x"), ("double *", "y"), ("double *", "W"), ("double", "a"), ("double", "b"),
                   ("long", "n"), ("long", "m")],
        shapes={"W": (M, N)}),
    # x[1:] has n - 1 elements, none when n = 0: gcc, which knows from the entry check that n is
    # not negative, saw malloc((n - 1) * sizeof(double)) ask for 2^64 - 8 bytes when n = 0
    # (fuzz seeds 10910020, 10910078). The count is clamped, max_l(n - 1, 0).
    "py_slice_count": Case(
        """import numpy as np


def f(x: "f64[n]", W: "f64[m, n]", n: int, m: int) -> float:
    s = 0.0
    for i in range(n):
        s += np.sum(np.abs(x)[1:] * np.abs(x)[:-1]) * x[i]
    return s + np.sum(np.tanh(W @ x)[1:])
""", ["x", "W"], lang="py",
        py_params=[("double *", "x"), ("double *", "W"), ("long", "n"), ("long", "m")],
        shapes={"W": (M, N)}),
    # A loop that never runs (its start, min(n, 1) - 1, is never above its end): gcc proved its
    # caches empty but not the reversed loop that reads them dead, and reported reads out of the
    # bounds of an empty object (fuzz seed 10910002). Such caches hold one element.
    "py_never_runs": Case(
        """import math

import numpy as np


def f(x, y, a, b, n):
    s1 = -0.25
    s0 = 0.25
    m3 = min(n, (1 + int(2.0 * abs(np.tanh(s1)))))
    for i4 in range(m3 - 1, 1 - 1, -3):
        for i5 in range(1, n):
            y[i5] += np.abs(((s0 - x[i5]) * (3.0 + x[i4])))
            s0 = (y[((n - 1) - i5)] if (math.hypot((x[2] - 3.0), (y[((i4 + 2) % n)] - x[i5])) < 0.5)
                   else np.sqrt((1.5 + np.tanh((x[((i4 + 1) % n)] + s1)))))
    if (a * y[0]) > (x[3] + s1):
        s0 -= x[1]
    elif (math.log10((2.0 + np.tanh((x[2] * b)))) < 0.0) or (s1 > (y[1] * y[1])):
        if y[0] < 0.0:
            return y[3]
    return -0.75
""", ["x", "y", "a", "b"], lang="py", levels=(0, 1, 2),
        py_params=[("double *", "x"), ("double *", "y"), ("double", "a"), ("double", "b"), ("long", "n")]),
}


def _inputs(names_types: list[tuple[str, str]], ints: dict[str, int], rng: np.random.Generator) -> dict[str, Any]:
    """A value for each parameter of the primal: arrays of N (N x M for A), well inside (-1, 1)."""
    out: dict[str, Any] = {}
    for t, name in names_types:
        if name in ints:
            out[name] = ints[name]
        elif t.endswith("*") and "int" in t:
            out[name] = rng.integers(0, N, size=N).astype(np.int32)
        elif t.endswith("*"):
            out[name] = rng.uniform(-0.9, 0.9, size=N * M if name in ("A", "W") else N)
        else:
            out[name] = float(rng.uniform(-0.9, 0.9))
    return out


def _c_primal(case: Case) -> tuple[list[tuple[str, str]], Callable]:
    sig = CSignature.parse(case.source, "f")
    # The user's program (the fuzzer's, with its unused names) need not be warning-free.
    lax = ("-Wno-unused-variable", "-Wno-unused-parameter", "-Wno-unused-but-set-variable")
    fn = sig.primal(build(case.source, (*INPUT_FLAGS, *lax)))
    params = [(f"{p.base} *" if p.pointer else p.base, p.name) for p in sig.params]
    return params, lambda args: fn(*args)


def _py_primal(case: Case) -> tuple[list[tuple[str, str]], Callable]:
    space: dict[str, Any] = {}
    exec(compile(case.source, "prog.py", "exec"), space)
    f = space["f"]
    params = case.py_params

    def call(args):
        args = [a.reshape(case.shapes[n]) if n in case.shapes else a for a, (_, n) in zip(args, params)]
        return f(*args)

    return params, call


def _grad_signature(text: str) -> list[tuple[str, str]]:
    from fuzzgen.gradients import c_signature

    return c_signature(text)


def _build_all_levels(text: str, sanitize: bool = False) -> Any:
    """The gradient built at -O1 (without loading) and -O2 (loaded, or sanitized when asked): any
    warning fails. (-O0 finds only unused names, which gcc reports at every level.)"""
    extra = ("-fopenmp",) if "#pragma omp" in text else ()
    compile_c(text, (*extra, "-O1"))  # a later -O overrides CFLAGS' -O2
    if extra or sanitize:
        # OpenMP runs as a program of its own: a thread pool started in this process would hang
        # the fuzzer's forked children (tests/fuzzgen/isolate.py) that run OpenMP after it.
        compile_c(text, extra)
        return build_sanitized(text, extra)
    return ctypes.CDLL(str(compile_c(text, extra)))


_EXTENT = re.compile(r"(\w+)_shape(\d+)")


def _check(case: Case, level: int, schedule: Optional[str]) -> None:
    options = pipeline.Options(level=level, checkpoint=parse_schedule(schedule) if schedule else None)
    filename = "prog.c" if case.lang == "c" else "prog.py"
    text = pipeline.gradient_source(case.source, filename, "f", case.wrt, "c", options)
    lib = _build_all_levels(text, case.sanitize)
    params, primal = (_c_primal if case.lang == "c" else _py_primal)(case)
    signature = _grad_signature(text)
    grad = CFunction(lib, "grad_f", [t for t, _ in signature])
    rng = np.random.default_rng(3)
    inputs = _inputs(params, case.ints, rng)
    arrays = [n for t, n in params if t.endswith("*") and "double" in t]
    seeds = {n: rng.normal(size=inputs[n].shape) for n in arrays}
    d_return = float(rng.normal())

    def objective(values: dict[str, Any]) -> float:
        work = {k: np.copy(v) if isinstance(v, np.ndarray) else v for k, v in values.items()}
        r = primal([work[n] for _, n in params])
        shadows = {f"d_{n}" for _, n in signature}
        return d_return * float(r) + sum(float(seeds[n] @ work[n]) for n in arrays if f"d_{n}" in shadows)

    work = {k: np.copy(v) if isinstance(v, np.ndarray) else v for k, v in inputs.items()}
    shadows = {n: np.copy(s) for n, s in seeds.items()}
    cells = {n: Out(0.0) for _, n in params if n in case.wrt and not isinstance(inputs[n], np.ndarray)}
    args = []
    for _, name in signature:
        if name == "d_return":
            args.append(d_return)
        elif name.startswith("d_") and name[2:] in cells:
            args.append(cells[name[2:]])
        elif name.startswith("d_") and name[2:] in shadows:
            args.append(shadows[name[2:]])
        elif name not in work and _EXTENT.fullmatch(name):  # an unannotated array's extent (README)
            array, axis = _EXTENT.fullmatch(name).groups()  # type: ignore[union-attr]
            args.append(case.shapes.get(array, np.shape(work[array]))[int(axis)])
        else:
            args.append(work[name])
    grad(*args)

    def fd(name: str, k: Optional[int]) -> float:
        out = []
        for h in (1e-6, -1e-6):
            values = dict(inputs)
            if k is None:
                values[name] = inputs[name] + h
            else:
                values[name] = np.copy(inputs[name])
                values[name][k] += h
            out.append(objective(values))
        return (out[0] - out[1]) / 2e-6

    for name in case.wrt:
        if isinstance(inputs[name], np.ndarray):
            got = shadows[name]
            want = np.array([fd(name, k) for k in range(inputs[name].size)])
        else:
            got = np.array([cells[name].value])
            want = np.array([fd(name, None)])
        np.testing.assert_allclose(got, want, rtol=1e-5, atol=1e-6, err_msg=f"d_{name}")


@pytest.mark.parametrize(
    "name,level,schedule",
    [(name, level, schedule) for name, case in CASES.items() for level in case.levels for schedule in case.schedules],
)
def test_gradient_compiles_cleanly_and_is_right(name, level, schedule):
    _check(CASES[name], level, schedule)


def test_the_suite_builds_at_o2():
    """gcc finds the flow warnings only while optimizing: the suite's own C builds must."""
    assert "-O2" in CFLAGS and "-Werror" in CFLAGS and "-Wall" in CFLAGS and "-Wextra" in CFLAGS


def test_zip_of_arrays_of_one_extent_takes_that_extent():
    """``zip(a, b, c)`` of arrays annotated with one extent ``m``: the loop's length, the least of
    three extents that C prints alike, was ``min_l(m < m ? m : m, m)``, which gcc -Wextra reports
    (a comparison of ``m`` with itself; Python probe round 6)."""
    source = 'def f(a: "f64[m]", b: "f64[m]", c: "f64[m]"):\n    s = 0.0\n' \
             "    for x, y, z in zip(a, b, c):\n        s += x * y * z\n    return s\n"
    text = pipeline.gradient_source(source, "prog.py", "f", ["a", "b"], "c")
    assert "for (long i = 0; i < m; i++)" in text and "min_l" not in text
    compile_c(text)  # no warning
