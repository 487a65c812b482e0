"""The passes that tidy a gradient's writes to its shadows (``opt/shadow_writes.py``).

merge-clears: an adjoint cleared and then added to is one store (``d_y[i] = v``); merge-accums:
a statement's additions into one adjoint element are summed before they are added (at every
level: ``d_y[3] -= t; d_y[3] += t`` lost the caller's seed where t was large). Each pass on IR
(what it merges, and each reason it must not: primal memory, another element, a read or write
of that memory between, an atomic addition, --may-alias), the IR verified and run by the
interpreter before and after; the fuzz reproducer, numerically; then every golden output,
which must not contain the identity ``d_y[i] = 0.0`` followed by ``d_y[i] += ...`` (the goldens
run numerically in test_golden*.py).
"""

from __future__ import annotations

import re
from pathlib import Path

import numpy as np
import pytest

from s2sad import pipeline
from s2sad.opt import merge_accums, merge_clears
from s2sad.opt.passes import ADJOINT_PIPELINES
from s2sad.opt.passes import PassContext
from s2sad.ssa.interp import Interpreter
from s2sad.ssa.parser import parse_module
from s2sad.ssa.printer import print_module
from s2sad.ssa.verifier import verify_module

GOLDEN = Path(__file__).resolve().parent.parent / "golden"

ATTRS = 'attributes {primal = "f", shadows = {d_y = "y", d_x = "x"}}'


def _gradient(between: str = "", accum: str = "accum(%d_y, %i, %v)", array: str = "%d_y") -> str:
    """A gradient's loop over i: read d_y[i], clear it, add back v (``between`` in between)."""
    params = "%x: array<f64,1>, %d_x: array<f64,1>, %y: array<f64,1>, %d_y: array<f64,1>, %a: f64"
    return f"""func @g({params}) -> () {ATTRS} {{
  %0 = const() {{value = 0}} : i64
  %n = const() {{value = 3}} : i64
  %1 = const() {{value = 1}} : i64
  for(%0, %n, %1) {{
  ^(%i: i64):
    %d = load({array}, %i) : f64
    %z = const() {{value = 0.0}} : f64
    store({array}, %i, %z)
{between}    %v = mul(%d, %a) : f64
    {accum}
    yield()
  }}
  return()
}}
"""


def _run(text: str, ctx: PassContext = PassContext(), pass_=merge_clears.run):
    module = parse_module(text)
    verify_module(module)
    before = _interpret(module)
    pass_(module, ctx)
    verify_module(module)
    assert _interpret(module) == pytest.approx(before)
    return module


def _interpret(module) -> list[float]:
    arrays = [np.array([1.0, -2.0, 3.0]) * (k + 1) for k in range(4)]
    Interpreter(module).call("g", *arrays, 1.5)
    return [float(v) for a in arrays for v in a]


def _stores(module) -> list[str]:
    return [line.strip() for line in print_module(module).splitlines() if line.strip().startswith(("store", "accum"))]


def test_a_cleared_adjoint_added_back_is_one_store():
    m = _run(_gradient())
    assert _stores(m) == ["store(%d_y, %i, %v)"]


@pytest.mark.parametrize(
    "why, text",
    [
        ("primal memory keeps the sign of its zeros", _gradient(accum="accum(%y, %i, %v)", array="%y")),
        ("another element", _gradient(accum="accum(%d_y, %0, %v)")),
        ("an atomic addition: other threads add into it", _gradient(accum="accum(%d_y, %i, %v) {atomic = true}")),
        ("a read of that array between", _gradient("    %r = load(%d_y, %0) : f64\n    store(%d_x, %0, %r)\n")),
        ("a write of that array between", _gradient("    store(%d_y, %0, %a)\n")),
    ],
)
def test_left_alone(why, text):
    stores = _stores(_run(text))
    assert any(s.endswith("%z)") for s in stores) and any(s.startswith("accum") for s in stores), why


def test_an_addition_between_that_may_reach_the_element_moves_after_the_store():
    # d_y[0] is d_y[i] when i == 0 (the interpreter runs that iteration): added after the store.
    m = _run(_gradient("    accum(%d_y, %0, %a)\n"))
    assert _stores(m) == ["store(%d_y, %i, %v)", "accum(%d_y, %0, %a)"]
    # d_y[i + 1] is evidently another element: it stays where it is.
    text = _gradient("    %i1 = add(%i, %1) : i64\n    accum(%d_y, %i1, %a)\n")
    m = _run(text.replace("%n = const() {value = 3}", "%n = const() {value = 2}"))  # (i + 1 < 3)
    assert _stores(m) == ["accum(%d_y, %i1, %a)", "store(%d_y, %i, %v)"]


def test_an_addition_between_stays_under_its_source_lines_comment():
    between = '    accum(%d_y, %0, %a)\n    comment() {text = "line 3: y[i] = y[i] * a"}\n'
    assert len(_stores(_run(_gradient(between)))) == 3  # not merged: the addition would leave line 2


def test_may_alias_keeps_the_clear_before_a_write_of_another_parameter():
    between = "    store(%d_x, %0, %a)\n"
    assert len(_stores(_run(_gradient(between), PassContext(may_alias=True)))) == 3
    assert len(_stores(_run(_gradient(between), PassContext()))) == 2


# A clear, then (after comments and blank lines only) an addition into the same element.
# In one block (the same indentation: ``d_x = 0.0`` in an else branch, then ``d_x += ...`` after
# the if, is no identity: the other branch sets d_x otherwise).
_IDENTITY = re.compile(r"^(?P<indent>[ \t]*)(?P<target>[\w\[\]\.\->+* ]+?) = 0\.0;?\n"
                       r"(?:[ \t]*(?:(?://|#).*)?\n)*(?P=indent)(?P=target) \+= ", re.MULTILINE)


def test_no_golden_output_clears_an_adjoint_and_adds_it_back():
    outputs = [p for p in GOLDEN.rglob("expected*") if p.suffix in (".py", ".c", ".cu")]
    assert len(outputs) > 300
    found = [f"{p.relative_to(GOLDEN)}: {m.group(0)!r}" for p in outputs for m in _IDENTITY.finditer(p.read_text())]
    assert not found, "\n".join(found)


def test_the_identity_pattern_finds_what_it_looks_for():
    assert _IDENTITY.search("        d_y[c] = 0.0;\n        d_y[c] += d_y_c * a;\n")
    assert _IDENTITY.search("    d_u[i] = 0.0\n    # line 3\n    d_u[i] += t\n")
    assert not _IDENTITY.search("    d_u[i] = 0.0\n    d_w[i] += t\n")
    assert not _IDENTITY.search("    else:\n        d_x = 0.0\n\n    # line 9\n    d_x += d_y / x\n")


# -- merge-accums ---------------------------------------------------------------------------

def _twice(between: str = "", array: str = "%d_y", second: str = "accum(%d_y, %i, %w)") -> str:
    """Two additions into d_y[i] (``between`` in between)."""
    body = f"""    %w = neg(%v) : f64
    accum({array}, %i, %v)
{between}    {second}
"""
    return _gradient(accum=body.strip(), array=array).replace(
        "    %z = const() {value = 0.0} : f64\n    store(" + array + ", %i, %z)\n", "")


def test_two_additions_into_one_adjoint_element_are_summed_first():
    m = _run(_twice(), pass_=merge_accums.run)
    assert _stores(m) == ["accum(%d_y, %i, %2)"] and "%2 = add(%v, %w) : f64" in print_module(m), print_module(m)
    assert all("merge-accums" in ADJOINT_PIPELINES[level].split(",") for level in (0, 1, 2))


@pytest.mark.parametrize(
    "why, text",
    [
        ("primal memory keeps the source's rounding", _twice(array="%y", second="accum(%y, %i, %w)")),
        ("another element", _twice(second="accum(%d_y, %0, %w)")),
        ("an atomic addition", _twice(second="accum(%d_y, %i, %w) {atomic = true}")),
        ("a read of that array between", _twice("    %r = load(%d_y, %0) : f64\n    store(%d_x, %0, %r)\n")),
    ],
)
def test_additions_left_apart(why, text):
    assert len([s for s in _stores(_run(text, pass_=merge_accums.run)) if s.startswith("accum")]) == 2, why


FUZZ_11200059 = """\
double f(double *x, double *y, double a, int n)
{
    double s0 = 1.0;
    for (int i = 0; i < n; i++)
        s0 *= (0.8 + (s0 + 0.5));
    y[2] += ((y[3] - y[3]) * s0);
    return y[2] + a * x[0];
}
"""


@pytest.mark.parametrize("level", [0, 1, 2])
def test_a_large_contribution_that_cancels_keeps_the_callers_seed(level):
    """s0 reaches 1.7e15: d_y[3] must come out as the seed passed in, exactly (fuzz seed 11200059)."""
    text = pipeline.gradient_source(FUZZ_11200059, "f.c", "f", ["x", "y", "a"], "py", pipeline.Options(level=level))
    namespace: dict = {}
    exec(compile(text, "<grad_f>", "exec"), namespace)
    x, y = np.array([0.3, 0.1]), np.array([0.5, -1.0, 2.0, 0.7])
    d_x, d_y = np.zeros(2), np.array([0.25, -0.5, 0.75, -0.8657658101])
    namespace["grad_f"](x, d_x, y, d_y, 0.2, 6, 1.0)
    assert d_y[3] == -0.8657658101
