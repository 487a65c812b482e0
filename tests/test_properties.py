"""Property-based tests: random programs from a small grammar, gradients checked numerically.

Hypothesis draws straight-line programs and loop programs (a carried scalar, an
array written in the loop, branches on data) over a few float parameters and
one array. Each is differentiated end to end (front end, reverse mode, DCE,
Python emitter); the emitted gradient must match central finite differences of
the source function under the contract's shadow semantics, and the gradient IR
run by the reference interpreter must agree with the emitted Python.

Expressions are kept well conditioned by construction: divisions are by
``1.5 + cos(e)`` or ``1.0 + e * e``, square roots and logs take ``1.0 + e * e``.
"""

from __future__ import annotations

import types

import numpy as np
from fd import ParamSpec, check_gradient, written_arrays
from hypothesis import HealthCheck, given, reject, settings
from hypothesis import strategies as st

from s2sad.pipeline import parse_source
from s2sad import pipeline

UNARY = [
    "math.sin({})",
    "math.cos({})",
    "math.tanh({})",
    "math.exp(0.3 * {})",
    "math.sqrt(1.0 + {0} * {0})",
    "math.log(1.0 + {0} * {0})",
    "abs({})",
    "-{}",
]
BINARY = ["({} + {})", "({} - {})", "({} * {})", "{} / (1.5 + math.cos({}))", "max({}, {})", "{} ** 2 * {}"]


@st.composite
def expressions(draw, leaves: list[str], depth: int = 3) -> str:
    if depth == 0 or draw(st.integers(0, 3)) == 0:
        if draw(st.integers(0, 4)) == 0:
            return repr(draw(st.sampled_from([0.5, 1.25, 2.0, -0.75])))
        return draw(st.sampled_from(leaves))
    if draw(st.booleans()):
        inner = draw(expressions(leaves, depth - 1))
        return draw(st.sampled_from(UNARY)).format(inner)
    left = draw(expressions(leaves, depth - 1))
    right = draw(expressions(leaves, depth - 1))
    return draw(st.sampled_from(BINARY)).format(left, right)


@st.composite
def straight_line_programs(draw) -> str:
    names = ["a", "b"]
    lines = ["import math", "", "", "def f(a: float, b: float) -> float:"]
    for k in range(draw(st.integers(1, 4))):
        lines.append(f"    v{k} = {draw(expressions(names))}")
        names.append(f"v{k}")
    lines.append(f"    return {draw(expressions(names))}")
    return "\n".join(lines) + "\n"


@st.composite
def loop_programs(draw) -> str:
    # Annotated, so that a parameter the drawn body happens not to use keeps its type.
    lines = [
        "import math",
        "",
        "import numpy as np",
        "",
        "",
        "def f(x: np.ndarray, y: np.ndarray, a: float, n: int) -> float:",
        f"    s = {draw(expressions(['a']))}",
    ]
    lines.append("    for i in range(n):")
    body_leaves = ["s", "a", "x[i]", "x[(i + 1) % n]"]
    if draw(st.booleans()):
        lines.append(f"        t = {draw(expressions(body_leaves))}")
        body_leaves.append("t")
    if draw(st.booleans()):
        lines.append(f"        if {draw(st.sampled_from(body_leaves))} > 0.0:")
        lines.append(f"            s = {draw(expressions(body_leaves, 2))}")
        lines.append("        else:")
        lines.append(f"            s = {draw(expressions(body_leaves, 2))}")
    else:
        lines.append(f"        s = {draw(expressions(body_leaves))}")
    if draw(st.booleans()):
        lines.append(f"        y[i] = {draw(expressions(body_leaves, 2))}")
    if draw(st.booleans()):
        lines.append(f"        x[i] = {draw(expressions(body_leaves, 2))}")
    lines.append(f"    return {draw(expressions(['s', 'a'], 2))}")
    return "\n".join(lines) + "\n"


def _exec(source: str) -> types.SimpleNamespace:
    namespace: dict = {}
    exec(compile(source, "<generated>", "exec"), namespace)
    return types.SimpleNamespace(**namespace)


def _gradient(source: str, wrt: list[str], level: int):
    text = pipeline.gradient_source(source, "prog.py", "f", wrt, "py", pipeline.Options(level=level))
    return getattr(_exec(text), "grad_f")


def _reject_blowups(primal, params: list[ParamSpec], seed: int) -> None:
    """Random programs can iterate s = 1 + s**3 to 1e21 or overflow exp: finite differences say
    nothing there (the x-terms drown in rounding), so such draws are discarded, not checked."""
    rng = np.random.default_rng(seed)
    inputs = [p.sample(rng) for p in params]
    try:
        with np.errstate(all="raise"):
            value = primal(*[v.copy() if isinstance(v, np.ndarray) else v for v in inputs])
    except (OverflowError, FloatingPointError, ZeroDivisionError, ValueError):
        reject()
    if value is not None and not abs(float(value)) < 1e6:
        reject()
    # sin(s) of an s that grew to 1e4 stays small but its slope does not: central differences
    # need a smooth, moderate function at the sample, so steep draws are discarded too.
    for k, p in enumerate(params):
        if p.kind == "float" and value is not None:
            slopes = [_slope(primal, inputs, k, h) for h in (1e-4, 1e-6)]
            if not (max(abs(d) for d in slopes) < 1e3 and abs(slopes[0] - slopes[1]) < 1e-2 * (1 + abs(slopes[1]))):
                reject()


def _slope(primal, inputs: list, k: int, h: float) -> float:
    """Central difference of the primal in its k-th (scalar) input."""
    values = []
    for sign in (1.0, -1.0):
        moved = [v.copy() if isinstance(v, np.ndarray) else v for v in inputs]
        moved[k] = inputs[k] + sign * h
        with np.errstate(all="ignore"):
            try:
                values.append(float(primal(*moved)))
            except (OverflowError, ValueError, ZeroDivisionError):
                return float("inf")
    return (values[0] - values[1]) / (2 * h)


def _check(source: str, wrt: list[str], params: list[ParamSpec], seed: int) -> None:
    module = parse_source(source, "prog.py", "f")
    primal = _exec(source).f
    _reject_blowups(primal, params, seed)
    written = written_arrays(module, "f")
    check_gradient(
        primal, _gradient(source, wrt, 2), params, wrt, written, np.random.default_rng(seed), rtol=1e-4, atol=1e-5
    )
    _check_levels_agree(source, wrt, params, written, seed)


def _check_levels_agree(source: str, wrt: list[str], params: list[ParamSpec], written: set[str], seed: int) -> None:
    """Optimized (-O2) and unoptimized (-O0) gradients give the same numbers on the same inputs."""
    rng = np.random.default_rng(seed)
    inputs = {p.name: p.sample(rng) for p in params}
    shadowed = [p.name for p in params if p.is_float_array and (p.name in wrt or p.name in written)]
    seeds = {name: rng.normal(size=inputs[name].shape) for name in shadowed}
    outcomes = []
    for level in (0, 2):
        args, shadows = [], {}
        for p in params:
            v = inputs[p.name]
            args.append(v.copy() if isinstance(v, np.ndarray) else v)
            if p.name in seeds:
                shadows[p.name] = seeds[p.name].copy()
                args.append(shadows[p.name])
        returned = _gradient(source, wrt, level)(*args, d_return=0.7)
        outcomes.append((returned, args, shadows))
    (r0, a0, s0), (r2, a2, s2) = outcomes
    np.testing.assert_allclose(np.asarray(r2, dtype=float), np.asarray(r0, dtype=float), rtol=1e-9, atol=1e-12)
    for x0, x2 in zip(a0, a2):
        if isinstance(x0, np.ndarray):
            np.testing.assert_allclose(x2, x0, rtol=1e-9, atol=1e-12)


SETTINGS = settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])


@SETTINGS
@given(straight_line_programs(), st.integers(0, 2**16))
def test_straight_line_gradients_match_finite_differences(source, seed):
    params = [ParamSpec("a", "float", low=-1.0, high=1.0), ParamSpec("b", "float", low=-1.0, high=1.0)]
    _check(source, ["a", "b"], params, seed)


@SETTINGS
@given(loop_programs(), st.integers(0, 2**16))
def test_loop_gradients_match_finite_differences(source, seed):
    params = [
        ParamSpec("x", "array", shape=(5,)),
        ParamSpec("y", "array", shape=(5,)),
        ParamSpec("a", "float", low=-1.0, high=1.0),
        ParamSpec("n", "int", value=5),
    ]
    _check(source, ["x", "a"], params, seed)
