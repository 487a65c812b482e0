"""np.roll and np.pad (s2sad/parse/py_roll_pad.py, the ``arr.roll``/``arr.pad``/``arr.unpad`` ops
and their rules).

The golden cases array_roll and array_pad check the gradients
numerically in every target (Python, Numba, and C through tests/test_emit_c.py); here: the
forms of the arguments (widths, shifts, axes) against central differences, the helpers the
output prints against NumPy, the reference interpreter, arrays rebound in a loop to a value
made from a roll or a padding, and what is refused (a located error, never a traceback).
"""

from __future__ import annotations

import shutil
import subprocess
import textwrap

import numpy as np
import pytest

from fd import check_source_function

from s2sad import pipeline
from s2sad.diagnostics import DiagnosticError
from s2sad.ssa import special
from s2sad.ssa.interp import Interpreter

MODES = ("edge", "wrap", "reflect", "symmetric")


def _source(signature: str, body: str) -> str:
    return f"import numpy as np\n\n\ndef f({signature}):\n" + textwrap.indent(textwrap.dedent(body), "    ")


@pytest.mark.parametrize("target", ["py", "numba"])
@pytest.mark.parametrize("body", [
    "return np.sum(np.roll(u, -3) * u ** 2)",
    "return np.sum(np.roll(u, s) * np.cos(u))",
    "return np.sum(np.roll(A, -1, axis=1) * A ** 2) + np.sum(np.roll(A, s, axis=-2) ** 3)",
    "return np.sum(np.roll(A, (2, -1), axis=(1, 0)) * np.sin(A))",
    "return np.sum(np.roll(A, (1, 2), axis=1) * A)",
    "return np.sum(np.roll(A, s) * A * A)",
    "return np.sum(np.roll(u, shift=2) * np.roll(u, -2) * u)",
])
def test_roll_gradients_match_central_differences(body, target):
    source = _source('u: "f64[n]", A: "f64[m, k]", s: int', body + "\n")
    rng = np.random.default_rng(1)
    args = [rng.normal(size=7), rng.normal(size=(3, 5)), -4]
    check_source_function(source, "f", args, ["u", "A"], target)


@pytest.mark.parametrize("target", ["py", "numba"])
@pytest.mark.parametrize("mode", MODES)
@pytest.mark.parametrize("widths", ["3", "(0, 4)", "((2, 0), (1, 7))", "((1,), (2,))", "((2, 1),)"])
def test_pad_gradients_match_central_differences(mode, widths, target):
    # widths past an axis's extent (7 on an axis of 4) repeat the pattern, as NumPy's do
    body = f"""\
        p = np.pad(A, {widths}, mode="{mode}")
        return np.sum(np.sin(p) * p * p)
        """
    source = _source('A: "f64[m, k]"', body)
    check_source_function(source, "f", [np.random.default_rng(2).normal(size=(3, 4))], ["A"], target)


@pytest.mark.parametrize("target", ["py", "numba"])
def test_constant_padding_and_its_value_match_central_differences(target):
    body = """\
        p = np.pad(u, (2, w), constant_values=c * c)
        q = np.pad(u, 1, "constant")
        return np.sum(p**3) + np.sum(q * np.arange(q.shape[0])) + c
        """
    source = _source('u: "f64[n]", c: float, w: int', body)
    check_source_function(source, "f", [np.random.default_rng(3).normal(size=5), 0.7, 3], ["u", "c"], target)


def test_a_negative_width_raises_as_numpy_does():
    source = _source('u: "f64[n]", w: int', "return np.sum(np.pad(u, w) ** 2)\n")
    namespace: dict = {}
    exec(compile(pipeline.gradient_source(source, "prog.py", "f", ["u"], "py"), "<grad>", "exec"), namespace)
    with pytest.raises(ValueError, match="negative"):
        namespace["grad_f"](np.ones(3), np.zeros(3), -1)


EMPTY_EDGE = _source('u: "f64[n]"', 'p = np.pad(u, 1, mode="edge")\nreturn np.sum(p * p)\n')


@pytest.mark.parametrize("mode", MODES)
def test_padding_an_empty_axis_by_copying_raises_as_numpy_does(mode):
    """NumPy has no entry to copy: the gradient raises where the primal does (C output would
    otherwise read outside the array); a constant padding of it is fine."""
    source = EMPTY_EDGE.replace('"edge"', f'"{mode}"')
    namespace: dict = {}
    exec(compile(pipeline.gradient_source(source, "prog.py", "f", ["u"], "py"), "<grad>", "exec"), namespace)
    with pytest.raises(ValueError, match="can't extend empty axis 0"):
        namespace["grad_f"](np.zeros(0), np.zeros(0))
    d_u = np.zeros(2)
    namespace["grad_f"](np.array([1.0, -2.0]), d_u)
    assert d_u.tolist() == [4.0, -8.0]  # each entry twice in a padding of two: 2 * 2u


@pytest.mark.parametrize("mode", MODES)
def test_the_numba_helper_refuses_to_copy_from_an_empty_axis(mode):
    with pytest.raises(ValueError, match="empty axis"):
        special.pad(np.zeros((0, 3)), ((1, 0), (0, 0)), mode)


@pytest.mark.skipif(shutil.which("gcc") is None, reason="gcc is not installed")
def test_c_output_stops_where_an_empty_axis_would_be_copied(tmp_path):
    (tmp_path / "grad.c").write_text(pipeline.gradient_source(EMPTY_EDGE, "prog.py", "f", ["u"], "c"))
    (tmp_path / "main.c").write_text(
        "#include <stdio.h>\nvoid grad_f(double *u, double *d_u, long n, double d_return);\n"
        "int main(void) { double u[1] = {0.0}, d_u[1] = {0.0};\n"
        "    grad_f(u, d_u, 0, 1.0);\n    puts(\"returned\");\n    return 0;\n}\n")
    exe = tmp_path / "prog"
    subprocess.run(["gcc", "-std=c99", "-Wall", "-Wextra", "-Werror", "-o", str(exe), str(tmp_path / "grad.c"),
                    str(tmp_path / "main.c"), "-lm"], check=True)
    r = subprocess.run([str(exe)], capture_output=True, text=True)
    assert r.returncode == 1 and "returned" not in r.stdout


@pytest.mark.parametrize("target", ["py", "numba"])
def test_arrays_rebound_in_a_loop_to_a_roll_or_a_padding_of_themselves(target):
    # The probes p62 (finite volumes, np.roll) and p77 (heat equation, np.pad): the new value's
    # shape is evidently the old one's, through the roll, the slices of the padding, and a helper's
    # np.where of its two parameters.
    body = """\
        u = u0.copy()
        for _ in range(3):
            slope = minmod(u - np.roll(u, 1), np.roll(u, -1) - u)
            up = np.pad(u, 1, mode="edge")
            u = u + c * (up[2:] - 2.0 * u + up[:-2]) - 0.1 * (slope - np.roll(slope, 1))
        return np.sum(u ** 2)
        """
    helper = ("\n\ndef minmod(a, b):\n"
              "    return np.where(a * b > 0.0, np.where(np.abs(a) < np.abs(b), a, b), 0.0)\n")
    source = _source("u0, c", body) + helper
    check_source_function(source, "f", [np.random.default_rng(4).normal(size=6), 0.3], ["u0", "c"], target)


def test_the_rank_of_a_padded_parameter_follows_its_pairs_of_widths():
    source = _source("A", 'p = np.pad(A, ((1, 1), (2, 0)), mode="wrap")\nreturn np.sum(p * p)\n')
    text = pipeline.gradient_source(source, "prog.py", "f", ["A"], "py")
    assert "must be a 2-D array" in text
    check_source_function(source, "f", [np.random.default_rng(5).normal(size=(3, 2))], ["A"])


def test_python_output_spells_numpy_and_the_adjoints_roll_back():
    source = _source('u: "f64[n]", A: "f64[m, k]"', """\
        p = np.pad(A, 1, mode="edge")
        return np.sum(np.roll(u, -1) * u) + np.sum(p[1:, :-1] * p[:-1, 1:]) + np.sum(np.roll(A, 2, axis=1) * A)
        """)
    text = pipeline.gradient_source(source, "prog.py", "f", ["u", "A"], "py")
    for line in ('p = np.pad(A, 1, mode="edge")', "np.roll(u, -1)", "np.roll(d_return * u, 1)",
                 "np.roll(A, 2, axis=1)", 'unpad(d_p, ((1, 1), (1, 1)), "edge")', "def unpad(", "def pad_sources("):
        assert line in text, line


@pytest.mark.parametrize("mode", ("constant",) + MODES)
@pytest.mark.parametrize("shape", [(1,), (4,), (3, 4), (2, 3, 2)])
@pytest.mark.parametrize("width", [0, 1, 6])
def test_the_helpers_pad_and_unpad_agree_with_numpy(mode, shape, width):
    rng = np.random.default_rng(7)
    x = rng.normal(size=shape)
    widths = tuple((width, (width + 1) % 4) for _ in shape)
    kw = {"constant_values": 0.5} if mode == "constant" else {}
    padded = np.pad(x, widths, mode=mode, **kw)
    assert np.array_equal(special.pad(x, widths, mode, 0.5), padded)
    if mode == "constant":
        return
    g = rng.normal(size=padded.shape)
    # the adjoint: <g, pad(x)> = <unpad(g), x> for every x
    for unpad in (special.unpad, special.unpad_numba):
        back = unpad(g, widths, mode)
        assert back.shape == x.shape
        assert np.sum(g * padded) == pytest.approx(np.sum(back * x), rel=1e-12, abs=1e-12)


@pytest.mark.parametrize("shift", [-7, -1, 0, 2, 9])
def test_roll_axis_agrees_with_numpy(shift):
    x = np.arange(24.0).reshape(2, 3, 4)
    for axis in range(3):
        assert np.array_equal(special.roll_axis(x, shift, axis), np.roll(x, shift, axis=axis))


def test_the_interpreter_runs_roll_pad_and_unpad_as_numpy():
    source = _source('u: "f64[n]", A: "f64[m, k]"', """\
        p = np.pad(A, ((1, 2), (0, 1)), mode="reflect")
        q = np.pad(u, 2, constant_values=1.5)
        return np.sum(np.roll(p, 1, axis=1) ** 2) + np.sum(np.roll(q, -3) * q)
        """)
    rng = np.random.default_rng(8)
    u, A = rng.normal(size=5), rng.normal(size=(3, 4))
    module = pipeline.gradient_module(source, "prog.py", "f", ["u", "A"], pipeline.Options())
    d_u, d_A = np.zeros(5), np.zeros((3, 4))
    Interpreter(module).call("grad_f", u, d_u, A, d_A, 1.0)
    namespace: dict = {}
    exec(compile(pipeline.gradient_source(source, "prog.py", "f", ["u", "A"], "py"), "<grad>", "exec"), namespace)
    want_u, want_A = np.zeros(5), np.zeros((3, 4))
    namespace["grad_f"](u, want_u, A, want_A)
    np.testing.assert_allclose(d_u, want_u, rtol=1e-12)
    np.testing.assert_allclose(d_A, want_A, rtol=1e-12)


@pytest.mark.parametrize("body, fragment", [
    ("return np.sum(np.roll(u, 1.5))", "the shift of np.roll must be an integer"),
    ("return np.sum(np.roll(A, 1, axis=s))", "the axis of np.roll must be an integer literal"),
    ("return np.sum(np.roll(A, 1, axis=2))", "axis 2 is out of range for a 2-D array"),
    ("return np.sum(np.roll(A, (1, 2, 3), axis=(0, 1)))", "np.roll has 3 shifts for 2 axes"),
    ("return np.sum(np.roll(u))", "np.roll needs a shift"),
    ('return np.sum(np.pad(u, 1, mode="linear_ramp"))', "mode= of np.pad must be the literal 'constant'"),
    ("return np.sum(np.pad(u, 1, mode=m))", "mode= of np.pad must be the literal"),
    ("return np.sum(np.pad(u, -1))", "np.pad's widths must not be negative"),
    ("return np.sum(np.pad(u, 1.5))", "a width of np.pad must be an integer"),
    ("return np.sum(np.pad(u, (1, 2, 3)))", "np.pad takes one width or a pair (before, after) here, not 3"),
    ("return np.sum(np.pad(A, ((1, 1), (1, 1), (2, 2))))", "np.pad of a 2-D array takes one pair of widths or 2"),
    ("return np.sum(np.pad(u, 1, constant_values=(1.0, 2.0)))", "constant_values= of np.pad must be one number"),
    ('return np.sum(np.pad(u, 1, mode="edge", constant_values=1.0))', "constant_values= goes with mode 'constant'"),
    ('return np.sum(np.pad(u, 1, mode="reflect", reflect_type="odd"))', "reflect_type= of np.pad is not supported"),
    ("return np.sum(np.pad(u, 1, stat_length=2))", "stat_length= of np.pad is not supported"),
])
def test_what_is_not_supported_is_a_located_error(body, fragment):
    source = _source('u: "f64[n]", A: "f64[m, k]", s: int, m: str', body + "\n")
    with pytest.raises(DiagnosticError) as info:
        pipeline.gradient_source(source, "prog.py", "f", ["u", "A"], "py")
    text = info.value.render()
    assert fragment in text
    assert text.startswith("prog.py:5:") and "^" in text and "Traceback" not in text

