"""The reverse-mode transform, checked on the IR itself (no emitter involved).

Each program is parsed, differentiated and cleaned; the gradient IR is then
verified and run by the reference interpreter, and compared with central
finite differences of the interpreted primal under the contract's shadow
semantics. A failure here points at the adjoint, not at code generation.
"""

from __future__ import annotations

import numpy as np
import pytest

from fd import ParamSpec, check_gradient, written_arrays
from s2sad.adjoint.gradient import differentiate
from s2sad.opt.dce import dce_module, remove_unreachable_functions
from s2sad.pipeline import resolve_wrt, parse_source
from s2sad.ssa.interp import Interpreter
from s2sad.ssa.printer import print_module
from s2sad.ssa.verifier import verify_module


def _arr(name, n=6, **kw):
    return ParamSpec(name, "array", shape=(n,) if isinstance(n, int) else n, **kw)


def _f(name, **kw):
    return ParamSpec(name, "float", **kw)


def _i(name, value):
    return ParamSpec(name, "int", value=value)


CASES = {
    "scalar_poly": (
        "def f(x, y):\n    z = x * y + x ** 3\n    return z / y\n",
        ["x", "y"],
        [_f("x"), _f("y", low=0.5, high=2.0)],
    ),
    "dot": (
        "def dot(a, b, n):\n    s = 0.0\n    for i in range(n):\n        s += a[i] * b[i]\n    return s\n",
        ["a", "b"],
        [_arr("a"), _arr("b"), _i("n", 6)],
    ),
    "carried_product": (
        "def prod(x, n):\n    p = 1.0\n    for i in range(n):\n        p = p * x[i]\n    return p\n",
        ["x"],
        [_arr("x"), _i("n", 6)],
    ),
    "overwrite_scalar_in_loop": (
        "import math\n\ndef f(x, n):\n    t = 0.5\n    for i in range(n):\n"
        "        t = math.sin(t * x[i]) + x[i]\n    return t\n",
        ["x"],
        [_arr("x"), _i("n", 6)],
    ),
    "inplace_array": (
        "def f(x, n):\n    for i in range(1, n):\n        x[i] = x[i] * x[i - 1]\n",
        ["x"],
        [_arr("x", low=0.5, high=1.5), _i("n", 6)],
    ),
    "out_array": (
        "import math\n\ndef f(out, x, a, n):\n    for i in range(n):\n"
        "        out[i] = a * math.exp(x[i]) - x[(i + 1) % n]\n",
        ["x", "a"],
        [_arr("out"), _arr("x"), _f("a"), _i("n", 6)],
    ),
    "branch_in_loop": (
        "def f(x, n):\n    s = 0.0\n    for i in range(n):\n        if x[i] > 0.0:\n"
        "            s += x[i] * x[i]\n        else:\n            s -= 3.0 * x[i]\n    return s\n",
        ["x"],
        [_arr("x"), _i("n", 6)],
    ),
    "negative_step": (
        "def f(x, n):\n    s = 0.0\n    for i in range(n - 1, -1, -2):\n"
        "        s = s * 0.5 + x[i] ** 2\n    return s\n",
        ["x"],
        [_arr("x", 7), _i("n", 7)],
    ),
    "while_loop": (
        "def f(x, a):\n    k = 0\n    while a < 10.0:\n        a = a * x[k % 3] + 1.0\n        k += 1\n    return a\n",
        ["a", "x"],
        [_arr("x", 3, low=1.5, high=2.0), _f("a", low=0.5, high=1.0)],
    ),
    "nested_loops_2d": (
        "def f(A, x, y, n, m):\n    for i in range(n):\n        acc = 0.0\n        for j in range(m):\n"
        "            acc += A[i, j] * x[j]\n        y[i] = acc * acc\n",
        ["A", "x"],
        [_arr("A", (3, 4)), _arr("x", 4), _arr("y", 3), _i("n", 3), _i("m", 4)],
    ),
    "call_helper": (
        "import math\n\ndef mag(v, n):\n    s = 0.0\n    for i in range(n):\n        s += v[i] * v[i]\n"
        "    return math.sqrt(s)\n\n\ndef norm(out, in_, n):\n    for i in range(n):\n"
        "        out[i] = in_[i] / mag(in_, n)\n",
        ["in_"],
        [_arr("out"), _arr("in_"), _i("n", 6)],
    ),
    "call_writes_array": (
        "def scale(y, x, a, n):\n    for i in range(n):\n        y[i] = a * x[i] * x[i]\n\n\n"
        "def f(x, y, a, n):\n    scale(y, x, a, n)\n    s = 0.0\n    for i in range(n):\n"
        "        s += y[i] * x[i]\n        x[i] = 0.5 * s\n    scale(y, x, a, n)\n    return s + y[2]\n",
        ["x", "a"],
        [_arr("x"), _arr("y"), _f("a"), _i("n", 6)],
    ),
    "break_and_early_return": (
        "def f(x, n):\n    s = 0.0\n    for i in range(n):\n        if x[i] > 0.9:\n            break\n"
        "        s += x[i] * s + x[i]\n    if s > 100.0:\n        return s\n    return s * 2.0\n",
        ["x"],
        [_arr("x", low=-1.0, high=1.0), _i("n", 6)],
    ),
}


@pytest.mark.parametrize("name", sorted(CASES))
def test_gradient_ir_matches_finite_differences(name):
    source, wrt, params = CASES[name]
    filename = f"{name}.py"
    func = [ln.split("(")[0][4:] for ln in source.splitlines() if ln.startswith("def ")][-1]
    module = parse_source(source, filename, func)
    written = written_arrays(module, func)
    indices = resolve_wrt(module.functions[func], wrt, module.source_lines)
    grad = differentiate(module, func, indices)
    dce_module(grad)
    remove_unreachable_functions(grad, [f"grad_{func}"])
    verify_module(grad)
    text = print_module(grad)
    assert "grad_" + func in text

    primal_i = Interpreter(module)
    grad_i = Interpreter(grad)

    def primal(*args):
        return primal_i.call(func, *args)

    def gradient(*args, d_return=None):
        return grad_i.call(f"grad_{func}", *(list(args) + ([d_return] if d_return is not None else [])))

    check_gradient(primal, gradient, params, wrt, written, np.random.default_rng(0))
