"""The Python front end, checked on the IR it produces (no adjoint, no emitter).

Each program is parsed to IR, verified, run by the reference interpreter on
random inputs, and compared with running the source itself in Python (the
tests may execute the input; the tool never does). Beyond semantics: the IR
carries the source's names and locations, keeps no dead code, and every
unsupported construct gives exactly one compiler-style diagnostic at the right
place.
"""

from __future__ import annotations

import json
import textwrap
from pathlib import Path
from typing import Any, Callable

import numpy as np
import pytest

from s2sad.pipeline import parse_source
from s2sad.diagnostics import DiagnosticError
from s2sad.parse.python_frontend import list_functions
from s2sad.ssa.interp import Interpreter
from s2sad.ssa.ir import Module, Op
from s2sad.ssa.printer import print_module

try:
    from s2sad.ssa.verifier import verify_module
except ImportError:  # the verifier is written separately; verify when it exists
    def verify_module(module: Module) -> None:
        return None

GOLDEN = Path(__file__).resolve().parent.parent / "golden"


# ----------------------------------------------------------------- helpers
Arg = Callable[[np.random.Generator], Any]


def F(low: float = -1.0, high: float = 1.0) -> Arg:
    return lambda rng: float(rng.uniform(low, high))


def I(value: int) -> Arg:  # noqa: E743 - short names keep the case table readable
    return lambda rng: value


def A(*shape: int, low: float = -1.0, high: float = 1.0) -> Arg:
    return lambda rng: rng.uniform(low, high, size=shape)


def IA(*shape: int, low: int = 0, high: int = 4) -> Arg:
    return lambda rng: rng.integers(low, high, size=shape).astype(np.int64)


def parse(source: str, func: str, filename: str = "prog.py") -> Module:
    module = parse_source(textwrap.dedent(source), filename, func)
    verify_module(module)
    return module


def run_both(source: str, func: str, args: list[Arg], seeds: int = 3) -> Module:
    """Parse ``source``, then check interpreter == Python on a few random inputs."""
    source = textwrap.dedent(source)
    module = parse(source, func)
    namespace: dict[str, Any] = {}
    exec(compile(source, "prog.py", "exec"), namespace)
    for seed in range(seeds):
        rng = np.random.default_rng(seed)
        values = [make(rng) for make in args]
        py_args = [v.copy() if isinstance(v, np.ndarray) else v for v in values]
        ir_args = [v.copy() if isinstance(v, np.ndarray) else v for v in values]
        want = namespace[func](*py_args)
        got = Interpreter(module).call(func, *ir_args)
        if want is None:
            assert got is None
        else:
            assert got is not None, print_module(module)
            # a function that returns several values: the same number of them, each alike
            assert isinstance(got, tuple) == isinstance(want, tuple), (got, want)
            pairs = zip(got, want, strict=True) if isinstance(want, tuple) else [(got, want)]
            for g, w in pairs:
                np.testing.assert_allclose(g, w, rtol=1e-12, atol=1e-12, err_msg=print_module(module))
                assert isinstance(g, bool) == isinstance(w, (bool, np.bool_))
                assert isinstance(g, int) == isinstance(w, int), (type(g), type(w))
        for p, q in zip(py_args, ir_args):
            if isinstance(p, np.ndarray):
                np.testing.assert_allclose(q, p, rtol=1e-12, atol=1e-12, err_msg=print_module(module))
    return module


def ops_of(module: Module, func: str) -> list[Op]:
    return list(module.functions[func].walk())


def op_names(module: Module, func: str) -> list[str]:
    return [op.name for op in ops_of(module, func)]


def diagnose(source: str, func: str = "f", filename: str = "prog.py") -> DiagnosticError:
    with pytest.raises(DiagnosticError) as info:
        parse_source(textwrap.dedent(source), filename, func)
    return info.value


# ----------------------------------------------------------------- golden inputs
def _golden_cases() -> list[Path]:
    return sorted(p for p in GOLDEN.iterdir() if (p / "case.json").exists()) if GOLDEN.exists() else []


def _golden_arg(spec: dict) -> Arg:
    kind = spec["kind"]
    if kind == "int":
        return I(spec["value"])
    if kind == "float":
        return F(spec.get("low", -1.0), spec.get("high", 1.0))
    if kind == "str":  # a string parameter: the value the case gives
        return lambda rng: spec["text"]
    shape = tuple(spec["shape"])
    if spec.get("dtype") == "i64":
        lo, hi = spec.get("ints", [0, 1])
        return IA(*shape, low=lo, high=hi)
    return A(*shape, low=spec.get("low", -1.0), high=spec.get("high", 1.0))


@pytest.mark.parametrize("folder", _golden_cases(), ids=lambda p: p.name)
def test_golden_input_runs_like_python(folder: Path):
    case = json.loads((folder / "case.json").read_text())
    source = (folder / "input.py").read_text()
    module = run_both(source, case["func"], [_golden_arg(p) for p in case["params"]])
    assert module.source_file == "prog.py"
    assert module.source_lines == source.splitlines()
    assert print_module(module) == print_module(parse(source, case["func"])), "not deterministic"


def test_there_are_golden_inputs():
    assert len(_golden_cases()) >= 30


# ----------------------------------------------------------------- programs
# name -> (source, function, argument makers)
PROGRAMS: dict[str, tuple[str, str, list[Arg]]] = {
    # arithmetic and Python's numeric rules
    "float_arith": ("""
        def f(x, y):
            return (x + y) * (x - y) / (1.5 + y * y) + -x + +y
        """, "f", [F(), F()]),
    "int_division_gives_float": ("""
        def f(n, m):
            return n / m + n // m + n % m
        """, "f", [I(7), I(-3)]),
    "floored_int_ops": ("""
        def f(x, n):
            a = (-7) // 2
            b = (-7) % 3
            return x[(a + b + n) % n]
        """, "f", [A(5), I(5)]),
    "float_floordiv_mod": ("""
        def f(x, y):
            return x // 0.3 + y % 0.7
        """, "f", [F(-2, 2), F(-2, 2)]),
    "int_times_float": ("""
        def f(x, n):
            s = 0.0
            for i in range(n):
                s += i * x[i] + (i // 2) * 0.5 - i / n
            return s
        """, "f", [A(6), I(6)]),
    "int_result": ("""
        def f(n: int, k: int):
            return n * k - (n // 2) + 3 ** 2 + k ** 0
        """, "f", [I(9), I(4)]),
    "int_negative_power_is_float": ("""
        def f(n):
            return n ** -1 + 2 ** n
        """, "f", [I(3)]),
    "float_power_int_variable": ("""
        def f(x, k):
            return x ** k + x ** 2 + x ** 0.5 + (-x) ** 2 - x ** 3
        """, "f", [F(0.5, 2), I(3)]),
    "local_int_becomes_float": ("""
        def f(x, n):
            t = 0
            for i in range(n):
                t = t + x[i]
            return t
        """, "f", [A(4), I(4)]),
    "int_accumulator_stays_int": ("""
        def f(x, n):
            count = 0
            for i in range(n):
                if x[i] > 0.0:
                    count += 1
            return count
        """, "f", [A(7), I(7)]),
    "bool_arithmetic": ("""
        def f(x, y):
            b = x > y
            return b + 1.5 * (x < y)
        """, "f", [F(), F()]),
    "augmented_scalar_ops": ("""
        def f(x, y, n):
            s = x
            s += y
            s -= 0.25
            s *= y
            s /= 1.5
            s **= 2
            k = n
            k //= 2
            k %= 3
            k *= 5
            return s + k
        """, "f", [F(), F(), I(11)]),
    # comparisons and booleans
    "chained_comparison": ("""
        def f(x, y, z):
            s = 0.0
            if x < y < z:
                s = 1.0
            if x <= y >= z:
                s += 2.0
            if x != y == y:
                s += 4.0
            return s
        """, "f", [F(), F(), F()]),
    "chained_comparison_with_load": ("""
        def f(x, i, n):
            if 0 <= i < n and x[i] > 0.0:
                return x[i]
            return -1.0
        """, "f", [A(4), I(4), I(4)]),
    "short_circuit_and": ("""
        def f(x, n):
            k = 0
            while k < n and x[k] > -0.5:
                k += 1
            return k
        """, "f", [A(5), I(5)]),
    "short_circuit_or": ("""
        def f(x, k, n):
            if k >= n or x[k] < 0.0:
                return 0.0
            return x[k]
        """, "f", [A(3), I(3), I(3)]),
    "eager_and_or_not": ("""
        def f(x, y):
            s = x * y
            if x > 0.0 and y > 0.0:
                s = s * 2.0
            if not (x < -0.5 or y < -0.5):
                s = s + x
            if not x > y:
                s -= 1.0
            return s
        """, "f", [F(), F()]),
    "boolean_variables": ("""
        def f(x, n):
            seen = False
            for i in range(n):
                big = x[i] > 0.5
                seen = seen or big
            return 1.0 if seen else 0.0
        """, "f", [A(5), I(5)]),
    "truthiness": ("""
        def f(x, n):
            s = 0.0
            if n:
                s += 1.0
            if x:
                s += 2.0
            if not n % 2:
                s += 4.0
            return s
        """, "f", [F(), I(3)]),
    "conditional_expressions": ("""
        def f(x, y):
            m = x if x > y else y
            a = 1 if x > 0.0 else 2.5
            return m * m + (x * y if x < 0.0 else 2.0 * y) + a
        """, "f", [F(), F()]),
    "conditional_expression_guards_load": ("""
        def f(x, k, n):
            return x[k] if k < n else 0.0
        """, "f", [A(3), I(3), I(3)]),
    "conditional_expression_guards_division": ("""
        def f(x):
            return 1.0 / x if x != 0.0 else 0.0
        """, "f", [lambda rng: 0.0]),
    # module level names
    "constants_and_aliases": ("""
        from math import exp as e, log
        import numpy
        import math as m

        SCALE = 2.5
        EPS = 1e-8
        N = 3
        TWO_PI = 2 * m.pi
        NEG = -SCALE

        def f(x):
            return SCALE * e(x) / (log(x + 2.0) + EPS) + numpy.cos(x) * N + TWO_PI + NEG + math_pi()

        def math_pi():
            return m.pi + numpy.e
        """, "f", [F(0.2, 0.9)]),
    "ignores_unrelated_code": ("""
        import numpy as np


        class Model:
            def run(self):
                return [i for i in range(3)]


        def helper_never_called(x):
            return {x: lambda: x}


        def f(x):
            \"\"\"Docstrings are comments.\"\"\"
            pass
            assert x > -10.0
            "another string statement"
            return x * 2.0


        if __name__ == "__main__":
            print(f(np.ones(3)))
        """, "f", [F()]),
    # intrinsics
    "math_one_argument": ("""
        import math

        def f(x):
            s = math.sin(x) + math.cos(x) + math.tan(x) + math.asin(x) + math.acos(x) + math.atan(x)
            s += math.sinh(x) + math.cosh(x) + math.tanh(x) + math.asinh(x) + math.acosh(1.0 + x)
            s += math.atanh(x) + math.exp(x) + math.expm1(x) + math.exp2(x) + math.log(x)
            s += math.log1p(x) + math.log2(x) + math.log10(x) + math.sqrt(x) + math.cbrt(x)
            s += math.erf(x) + math.erfc(x) + math.fabs(-x) + math.log(x, 3.0)
            return s
        """, "f", [F(0.1, 0.9)]),
    "math_two_arguments": ("""
        import math

        def f(x, y):
            return (math.pow(x, y) + math.atan2(y, x) + math.hypot(x, y) + math.copysign(x, -y)
                    + math.fmod(x, y) + math.hypot(x, y, 0.5))
        """, "f", [F(0.5, 1.5), F(0.5, 1.5)]),
    "math_rounding_gives_ints": ("""
        import math

        def f(x, t):
            return x[math.floor(t)] + x[math.ceil(t)] + x[math.trunc(t)]
        """, "f", [A(4), F(0.1, 2.5)]),
    "numpy_spellings": ("""
        import numpy as np

        def f(x, y):
            s = np.sin(x) * np.exp(-x) + np.sqrt(x) * np.arctan2(x, 2.0) + np.maximum(x, 0.5)
            s += np.arcsin(x) + np.arccos(x) + np.arctan(x) + np.arcsinh(x) + np.arctanh(x)
            s += np.arccosh(1.0 + y) + np.minimum(x, y) + np.abs(-y) + np.absolute(x - y)
            s += np.fabs(x) + np.power(x, 3) + np.square(y) + np.hypot(x, y) + np.log(y)
            s += np.floor(x * 10.0) + np.ceil(y) + np.trunc(-y) + np.float64(2) + np.log2(y) + np.pi
            return s
        """, "f", [F(0.1, 0.9), F(0.1, 0.9)]),
    "abs_min_max": ("""
        def f(x, y, n):
            k = abs(n - 5) + max(n, 2) + min(n, 1, 0)
            return abs(y) * max(x, -y, 0.5) + min(x * x, y * y) + k + max(n, 2.5)
        """, "f", [F(0.2, 0.9), F(-0.9, -0.2), I(3)]),
    "casts": ("""
        def f(x, n):
            return float(n) / 4 + int(x * 10.0) + int(-2.7) + float(True) + pow(x, 2) + pow(n, 2)
        """, "f", [F(), I(5)]),
    "from_import_star": ("""
        from math import *

        def f(x):
            return sin(x) + sqrt(x) + pi
        """, "f", [F(0.1, 1.0)]),
    # arrays
    "array_load_store": ("""
        def f(x, y, n):
            for i in range(n):
                y[i] = 2.0 * x[i] + y[i]
            y[0] = 1
        """, "f", [A(5), A(5), I(5)]),
    "array_2d_forms": ("""
        def f(A, B, n, m):
            s = 0.0
            for i in range(n):
                for j in range(m):
                    B[i, j] = A[i][j] * 2.0
                    s += A[i, j] * B[i][j]
            return s
        """, "f", [A(3, 4), A(3, 4), I(3), I(4)]),
    "negative_literal_index": ("""
        def f(x, A):
            x[-1] = x[-2] + A[-1, 0] + A[0][-1]
            return x[-1]
        """, "f", [A(4), A(2, 3)]),
    "index_expressions": ("""
        def f(x, out, n):
            for i in range(n):
                out[i] = x[(i + 1) % n] - 2.0 * x[i] + x[(i + n - 1) % n] + x[n - 1 - i] * x[i // 2]
        """, "f", [A(6), A(6), I(6)]),
    "index_arrays": ("""
        def f(w, idx, out, n):
            s = 0.0
            for i in range(n):
                k = idx[i]
                s += w[idx[i]] * w[k]
                out[idx[i]] += w[i]
            return s
        """, "f", [A(5), IA(5, low=0, high=5), A(5), I(5)]),
    "augmented_stores": ("""
        def f(x, A, n):
            for i in range(n):
                x[i] += 1.0
                x[i] -= 0.5 * x[0]
                x[i] *= 3.0
                x[i] /= 2.0
                A[i, 0] += x[i]
                A[i][1] *= x[i]
        """, "f", [A(3), A(3, 2), I(3)]),
    "len_and_shape": ("""
        def f(x, A):
            n, m = A.shape
            s = 0.0
            for i in range(len(x)):
                for k in range(A.shape[0]):
                    s += A[k, i] * x[i] + A.shape[1] + A.shape[-1]
            return s + n * m + A.size + A.ndim + x.shape[0]
        """, "f", [A(5), A(2, 5)]),
    "local_arrays": ("""
        import numpy as np

        def f(x, n):
            tmp = np.zeros(n)
            grid = np.zeros((n, 2))
            scratch = np.empty(n)
            copy = np.zeros_like(x)
            other = np.empty_like(x)
            counts = np.zeros(n, dtype=int)
            for i in range(n):
                tmp[i] = x[i] * x[i]
                grid[i, 1] = tmp[i] + 1.0
                scratch[i] = 2.0
                copy[i] = x[i]
                other[i] = copy[i] + scratch[i]
                counts[i] = i
            s = 0.0
            for i in range(n):
                s += tmp[i] * x[i] + grid[i, 1] + grid[i, 0] + other[i] + counts[i]
            return s
        """, "f", [A(4), I(4)]),
    "array_alias": ("""
        def f(x, n):
            y = x
            for i in range(n):
                y[i] = y[i] * 2.0
            return x[0]
        """, "f", [A(3), I(3)]),
    "annotated": ("""
        import numpy as np
        import numpy.typing as npt
        from numpy.typing import NDArray

        def f(x: np.ndarray, a: float, n: int, idx: NDArray[np.int64], w: npt.NDArray[np.float64]) -> float:
            s: float = 0
            k: int = 1
            for i in range(n):
                s += a * x[i] ** 2 + w[idx[i]] * k
            return s

        def g(x: "np.ndarray", m: int) -> None:
            x[m] = 0.0
        """, "f", [A(4), F(), I(4), IA(4, low=0, high=3), A(3)]),
    "annotated_int_parameter_as_float": ("""
        def f(a: int, b: float):
            return a / 2 + b
        """, "f", [I(5), F()]),
    "tuple_assignment": ("""
        def f(x, n):
            a, b = x, 1.0
            for i in range(n):
                a, b = b, a + b * x
            (c, d) = [a, b]
            return a + c * d
        """, "f", [F(0.5, 1.0), I(5)]),
    "chained_assignment": ("""
        def f(x):
            a = b = x * 2.0
            return a + b
        """, "f", [F()]),
    # calls
    "scalar_helper": ("""
        import math

        def f(x, a, n):
            s = 0.0
            for i in range(n):
                s += softplus(x[i], a)
            return s

        def softplus(z, a):
            return math.log(1.0 + math.exp(a * z))
        """, "f", [A(4), F(), I(4)]),
    "array_helper_and_procedures": ("""
        import math

        def mag(x, n):
            s = 0.0
            for i in range(n):
                s += x[i] * x[i]
            return math.sqrt(s)

        def scale(out, k, n):
            for i in range(n):
                out[i] *= k

        def f(out, in_, n):
            for i in range(n):
                out[i] = in_[i] / mag(in_, n)
            scale(out, 2, n)
        """, "f", [A(4), A(4), I(4)]),
    "helper_with_default_and_int_param": ("""
        def pick(x, i, scale=2.0):
            return x[i] * scale

        def f(x, n):
            s = 0.0
            for i in range(n):
                s += pick(x, i) + pick(x, n - 1 - i, 0.5)
            return s
        """, "f", [A(3), I(3)]),
    "nested_calls": ("""
        def sq(v):
            return v * v

        def quad(v):
            return sq(sq(v))

        def f(x):
            return quad(x) + sq(3)
        """, "f", [F()]),
    "helper_returning_int": ("""
        def last(n):
            return n - 1

        def f(x, n):
            return x[last(n)]
        """, "f", [A(3), I(3)]),
    # loops
    "range_forms": ("""
        def f(x, n):
            s = 0.0
            for i in range(n):
                s += x[i]
            for i in range(2, n - 1):
                s += x[i - 1] * x[i + 1]
            for i in range(1, n, 2):
                s = s * x[i] + x[i - 1]
            for i in range(n - 1, -1, -1):
                s = 0.5 * s + x[i]
            for i in range(n - 1, 0, -3):
                s += x[i]
            for i in range(5, 2):
                s += 100.0
            return s
        """, "f", [A(9), I(9)]),
    "range_with_variable_step": ("""
        def f(x, start, stop, step):
            s = 0.0
            for i in range(start, stop, step):
                s = s * 0.5 + x[i]
            return s
        """, "f", [A(8), I(7), I(-1), I(-2)]),
    "loop_variable_after_loop": ("""
        def f(x, n):
            i = 100
            for i in range(n):
                x[i] = 1.0
            j = -1
            for j in range(0):
                pass
            return i + j
        """, "f", [A(4), I(4)]),
    "loop_variable_reassigned": ("""
        def f(x, n):
            s = 0.0
            for i in range(n):
                s += x[i]
                i = 0
                s += x[i]
            return s
        """, "f", [A(4), I(4)]),
    "first_defined_in_loop": ("""
        def f(x, n):
            for i in range(n):
                last = x[i] * 2.0
            return last
        """, "f", [A(4), I(4)]),
    "value_from_previous_iteration": ("""
        def f(x, n):
            s = 0.0
            for i in range(n):
                if i > 0:
                    s += prev * x[i]
                prev = x[i]
            return s
        """, "f", [A(5), I(5)]),
    "nested_loops": ("""
        def f(x, n):
            total = 0.0
            for i in range(n):
                row = 1.0
                for j in range(i + 1):
                    row = row * x[j] + 0.5
                total += row
            return total
        """, "f", [A(4), I(4)]),
    "if_elif_else": ("""
        def f(x):
            if x < -1.0:
                y = -x * x
            elif x < 0.0:
                y = x ** 3
            elif x < 1.0:
                y = 2.0
            else:
                y = 3.0 * x - 2.0
            return y
        """, "f", [F(-2.0, 2.0)]),
    "variable_defined_in_one_branch": ("""
        def f(x):
            s = 1.0
            if x > 0.0:
                t = x * 2.0
                s = t
            return s
        """, "f", [F()]),
    "nested_ifs": ("""
        def f(x, y):
            s = 0.0
            if x > 0.0:
                if y > 0.0:
                    s = x * y
                else:
                    s = x - y
                s += 1.0
            else:
                if y > x:
                    s = y
            return s
        """, "f", [F(), F()]),
    "while_loop": ("""
        def f(x, a):
            k = 0
            while a < 10.0:
                a = a * x[k % 3] + 0.25
                k += 1
            return a
        """, "f", [A(3, low=1.5, high=2.0), F(0.5, 1.0)]),
    # break / continue / return
    "break_in_for": ("""
        def f(x, n):
            s = 0.0
            for i in range(n):
                if s > 1.5:
                    break
                s += x[i] * x[i]
            return s
        """, "f", [A(8, low=0.0, high=1.0), I(8)]),
    "break_keeps_loop_variable": ("""
        def f(x, n):
            for i in range(n):
                if x[i] > 0.5:
                    break
            return i
        """, "f", [A(6, low=0.0, high=1.0), I(6)]),
    "break_with_negative_and_variable_step": ("""
        def f(x, n, step):
            s = 0.0
            for i in range(n - 1, -1, -1):
                if x[i] < -0.5:
                    break
                s += x[i]
            for i in range(0, n, step):
                if x[i] > 0.7:
                    break
                s += 2.0 * x[i]
            return s
        """, "f", [A(8), I(8), I(2)]),
    "break_in_nested_if": ("""
        def f(x, n):
            s = 0.0
            for i in range(n):
                if x[i] > 0.0:
                    if x[i] > 0.8:
                        break
                    s += 1.0
                s += x[i]
            return s
        """, "f", [A(8), I(8)]),
    "break_inner_loop_only": ("""
        def f(A, n):
            s = 0.0
            for i in range(n):
                for j in range(n):
                    if A[i, j] > 0.5:
                        break
                    s += A[i, j]
                s *= 1.5
            return s
        """, "f", [A(4, 4), I(4)]),
    "continue_in_for": ("""
        def f(x, n):
            s = 0.0
            for i in range(n):
                if x[i] < 0.0:
                    continue
                s += x[i] ** 3
            return s
        """, "f", [A(8), I(8)]),
    "continue_in_nested_if": ("""
        def f(x, n):
            s = 0.0
            for i in range(n):
                if x[i] > -0.5:
                    if x[i] < 0.0:
                        continue
                    s += 1.0
                s += x[i]
            return s
        """, "f", [A(8), I(8)]),
    "break_and_continue": ("""
        def f(x, n):
            s = 0.0
            k = 0
            while True:
                k += 1
                if k >= n:
                    break
                if x[k] < 0.0:
                    continue
                s += x[k]
            return s
        """, "f", [A(8), I(8)]),
    "continue_in_while": ("""
        def f(x, n):
            s = 0.0
            k = 0
            while k < n:
                k += 1
                if x[k - 1] < 0.0:
                    continue
                s += x[k - 1]
            return s
        """, "f", [A(8), I(8)]),
    "while_break_before_bad_condition": ("""
        def f(x, n):
            k = 0
            while x[k] > -0.9:
                k += 1
                if k == n:
                    break
            return k
        """, "f", [A(5), I(5)]),
    "early_return_in_branch": ("""
        def f(x, y):
            if x > y:
                return x * x * y
            t = x - y
            return t * t
        """, "f", [F(), F()]),
    "early_return_in_loop": ("""
        def f(x, n):
            p = 1.0
            for i in range(n):
                p = p * (x[i] + 0.5)
                if p > 2.0:
                    return p * x[0]
            return p
        """, "f", [A(8, low=0.0, high=1.0), I(8)]),
    "return_from_nested_loops": ("""
        def f(A, n):
            s = 0.0
            for i in range(n):
                for j in range(n):
                    s += A[i, j]
                    if s > 1.0:
                        return s * 10.0 + i + j
                s *= 0.5
            return -s
        """, "f", [A(4, 4, low=-0.2, high=0.6), I(4)]),
    "return_from_while_in_for": ("""
        def f(x, n):
            for i in range(n):
                k = 0
                while k < 3:
                    if x[i] * k > 1.2:
                        return i * 1.0 + k
                    k += 1
            return -1.0
        """, "f", [A(6, low=0.0, high=1.0), I(6)]),
    "return_in_while_true": ("""
        def f(x, a):
            k = 0
            while True:
                a = a * 1.5 + x[k % 3]
                k += 1
                if a > 5.0:
                    return a
        """, "f", [A(3, low=0.5, high=1.0), F(0.5, 1.0)]),
    "returns_in_elif_chain": ("""
        def f(x, y):
            if x < -0.5:
                return -1.0
            elif x < 0.0:
                y = y * 2.0
            elif x < 0.5:
                return y
            else:
                y = y + x
            return y * 3.0
        """, "f", [F(), F()]),
    "return_inside_nested_if_then_more_code": ("""
        def f(x, y):
            s = 0.0
            if x > 0.0:
                if y > 0.0:
                    return 1.0
                s = 2.0
            s += x + y
            return s
        """, "f", [F(), F()]),
    "early_return_in_procedure": ("""
        def f(x, n):
            for i in range(n):
                if x[i] < -0.5:
                    return
                x[i] = x[i] * 2.0
            x[0] = 7.0
        """, "f", [A(6), I(6)]),
    "return_only_at_end_of_both_branches": ("""
        def f(x):
            if x > 0.0:
                return x
            else:
                return -x
        """, "f", [F()]),
}


@pytest.mark.parametrize("name", sorted(PROGRAMS))
def test_program_runs_like_python(name: str):
    source, func, args = PROGRAMS[name]
    run_both(source, func, args)


def test_every_program_is_deterministic():
    for source, func, _ in PROGRAMS.values():
        assert print_module(parse(source, func)) == print_module(parse(source, func))


# ----------------------------------------------------------------- module shape
def test_module_holds_callees_in_source_order():
    module = parse(PROGRAMS["array_helper_and_procedures"][0], "f")
    assert list(module.functions) == ["mag", "scale", "f"]
    module = parse(PROGRAMS["nested_calls"][0], "quad")
    assert list(module.functions) == ["sq", "quad"]
    module = parse(PROGRAMS["ignores_unrelated_code"][0], "f")
    assert list(module.functions) == ["f"]


def test_parameter_types_are_inferred():
    source = """
        def f(x, idx, A, n, a, flag: bool):
            s = 0.0
            for i in range(n):
                s += x[idx[i]] * A[i][0] * a
            return s
    """
    fn = parse(source, "f").functions["f"]
    assert [str(p.type) for p in fn.params] == ["array<f64,1>", "array<i64,1>", "array<f64,2>", "i64", "f64", "bool"]
    assert [str(t) for t in fn.result_types] == ["f64"]


def test_shape_and_callee_give_array_ranks():
    source = """
        def fill(B, i):
            B[i, 0] = 1.0

        def f(A, B, C, k):
            n, m = A.shape
            fill(B, k)
            return C.shape[2] + n
    """
    fn = parse(source, "f").functions["f"]
    assert [str(p.type) for p in fn.params] == ["array<f64,2>", "array<f64,2>", "array<f64,3>", "i64"]
    assert [str(t) for t in fn.result_types] == ["i64"]


def test_procedures_return_nothing():
    module = parse(PROGRAMS["array_load_store"][0], "f")
    fn = module.functions["f"]
    assert fn.result_types == []
    assert fn.body.ops[-1].name == "return" and not fn.body.ops[-1].operands


# ----------------------------------------------------------------- lowering shapes
def test_loops_without_jumps_stay_for_loops():
    names = op_names(parse(PROGRAMS["range_forms"][0], "f"), "f")
    assert names.count("for") == 6 and "while" not in names


def test_negative_step_is_a_constant_operand():
    module = parse(PROGRAMS["range_forms"][0], "f")
    steps = [op.operands[2].defining_op.attrs["value"] for op in ops_of(module, "f") if op.name == "for"]
    assert steps == [1, 1, 2, -1, -3, 1]


def test_break_turns_for_into_while():
    module = parse(PROGRAMS["break_in_for"][0], "f")
    names = op_names(module, "f")
    assert "for" not in names and names.count("while") == 1
    (loop,) = [op for op in ops_of(module, "f") if op.name == "while"]
    assert [r.name_hint for r in loop.results] == ["i", "done", "s"]
    cond = loop.regions[0]
    assert [op.name for op in cond.ops] == ["lt", "not", "and", "condition"]


def test_continue_keeps_for_and_guards_rest():
    module = parse(PROGRAMS["continue_in_for"][0], "f")
    names = op_names(module, "f")
    assert names.count("for") == 1 and "while" not in names
    (branch,) = [op for op in ops_of(module, "f") if op.name == "if"]
    assert [r.name_hint for r in branch.results] == ["s"]
    # no flag survives: `if c: continue` puts the rest of the body in the else branch
    assert all(v.name_hint != "skip" for op in ops_of(module, "f") for v in op.results)


def test_nested_continue_uses_skip_flag():
    module = parse(PROGRAMS["continue_in_nested_if"][0], "f")
    hints = {r.name_hint for op in ops_of(module, "f") for r in op.results}
    assert "skip" in hints


def test_early_return_needs_no_flag_outside_loops():
    module = parse(PROGRAMS["early_return_in_branch"][0], "f")
    names = op_names(module, "f")
    assert names.count("if") == 1 and "undef" not in names
    ret = module.functions["f"].body.ops[-1]
    assert ret.operands[0].name_hint == "result"


def test_return_in_loop_carries_result_and_returned():
    module = parse(PROGRAMS["early_return_in_loop"][0], "f")
    (loop,) = [op for op in ops_of(module, "f") if op.name == "while"]
    assert [r.name_hint for r in loop.results] == ["i", "p", "result", "returned"]
    assert loop.operands[2].defining_op.name == "undef"


def test_first_defined_in_loop_gets_undef_init():
    module = parse(PROGRAMS["first_defined_in_loop"][0], "f")
    (loop,) = [op for op in ops_of(module, "f") if op.name == "for"]
    assert [r.name_hint for r in loop.results] == ["last"]
    assert loop.operands[3].defining_op.name == "undef"


def test_select_only_for_simple_arms():
    module = parse(PROGRAMS["conditional_expressions"][0], "f")
    names = op_names(module, "f")
    assert names.count("select") == 3 and "if" not in names
    module = parse(PROGRAMS["conditional_expression_guards_load"][0], "f")
    # (x[k] of an integer k: the select that counts a negative k from the end, ssa.build.from_end)
    assert not [op for op in ops_of(module, "f") if op.name == "select" and not op.attrs.get("from_end")]
    assert "if" in op_names(module, "f")


def test_eager_and_or_only_without_loads():
    names = op_names(parse(PROGRAMS["eager_and_or_not"][0], "f"), "f")
    assert "and" in names and "or" in names and "not" in names
    module = parse(PROGRAMS["short_circuit_or"][0], "f")
    assert "or" not in op_names(module, "f")


def test_power_with_int_literal_uses_float_exponent():
    module = parse("def f(x):\n    return x ** 2\n", "f")
    (pow_op,) = [op for op in ops_of(module, "f") if op.name == "pow"]
    assert pow_op.operands[1].defining_op.attrs["value"] == 2.0
    assert str(pow_op.operands[1].type) == "f64"


def test_int_operand_is_cast_before_float_arithmetic():
    module = parse("def f(x, n):\n    s = 0.0\n    for i in range(n):\n        s += i * x[i]\n    return s\n", "f")
    (mul,) = [op for op in ops_of(module, "f") if op.name == "mul"]
    assert mul.operands[0].defining_op.name == "cast" and str(mul.operands[0].type) == "f64"


def test_int_and_float_assignments_make_a_float_variable():
    module = parse("""
        def f(x, n):
            t = n
            for i in range(n):
                t = t * 0.5 + x[i]
            return t
    """, "f")
    fn = module.functions["f"]
    (loop,) = [op for op in fn.walk() if op.name == "for"]
    assert loop.results[0].name_hint == "t" and str(loop.results[0].type) == "f64"
    init = loop.operands[3]
    assert init.defining_op.name == "cast" and init.name_hint == "t" and init.defining_op.operands[0] is fn.params[1]


def test_shape_and_len_are_dims():
    module = parse(PROGRAMS["len_and_shape"][0], "f")
    axes = sorted(op.attrs["axis"] for op in ops_of(module, "f") if op.name == "dim")
    assert axes == [0, 0, 0, 0, 0, 1, 1, 1, 1]  # n, m = A.shape; len; shape[0], [1], [-1]; size; x.shape[0]


def test_intrinsics_lower_to_math_ops():
    module = parse(PROGRAMS["numpy_spellings"][0], "f")
    names = set(op_names(module, "f"))
    for fn in ("sin", "exp", "sqrt", "atan2", "max", "asin", "acos", "atan", "asinh", "atanh", "acosh",
               "min", "abs", "hypot", "log", "floor", "ceil", "trunc", "log2"):
        assert f"math.{fn}" in names, fn
    assert "pow" in names  # np.power(x, 3) is x ** 3
    module = parse("def f(x, y, z):\n    return max(x, y, z)\n", "f")
    assert op_names(module, "f").count("math.max") == 2
    module = parse("import numpy as np\ndef f(x):\n    return np.square(x)\n", "f")
    assert "mul" in op_names(module, "f")


def test_abs_min_max_keep_ints():
    module = parse("def f(x, n):\n    return x[abs(n - 4)] + x[min(n, 2)]\n", "f")
    for op in ops_of(module, "f"):
        if op.name in ("math.abs", "math.min"):
            assert str(op.result.type) == "i64"


def test_allocations():
    module = parse(PROGRAMS["local_arrays"][0], "f")
    allocs = [op for op in ops_of(module, "f") if op.name == "alloc"]
    assert [(a.attrs["fill"], a.attrs["elem"], str(a.result.type)) for a in allocs] == [
        ("zeros", "f64", "array<f64,1>"),
        ("zeros", "f64", "array<f64,2>"),
        ("empty", "f64", "array<f64,1>"),
        ("zeros", "f64", "array<f64,1>"),
        ("empty", "f64", "array<f64,1>"),
        ("zeros", "i64", "array<i64,1>"),
    ]
    like = allocs[3]
    assert like.operands[0].defining_op.name == "dim"


def test_array_alias_is_the_same_value():
    module = parse(PROGRAMS["array_alias"][0], "f")
    fn = module.functions["f"]
    stores = [op for op in ops_of(module, "f") if op.name == "store"]
    assert stores[0].operands[0] is fn.params[0]


def test_calls_name_their_callee():
    module = parse(PROGRAMS["array_helper_and_procedures"][0], "f")
    calls = [op for op in ops_of(module, "f") if op.name == "call"]
    assert [c.attrs["callee"] for c in calls] == ["mag", "scale"]
    assert [str(r.type) for r in calls[0].results] == ["f64"] and calls[1].results == []


def test_module_constants_become_consts():
    module = parse(PROGRAMS["constants_and_aliases"][0], "f")
    values = [op.attrs["value"] for op in ops_of(module, "f") if op.name == "const"]
    assert 2.5 in values and 1e-8 in values and -2.5 in values


# ----------------------------------------------------------------- names and locations
def test_assigned_values_carry_the_variable_name():
    module = parse("""
        def dot(a, b, n):
            s = 0.0
            for i in range(n):
                s = s + a[i] * b[i]
            return s
    """, "dot")
    fn = module.functions["dot"]
    assert fn.param_names == ["a", "b", "n"]
    (loop,) = [op for op in fn.walk() if op.name == "for"]
    body = loop.regions[0]
    assert [a.name_hint for a in body.args] == ["i", "s"]
    assert loop.results[0].name_hint == "s"
    add = body.ops[-2]
    assert add.name == "add" and add.result.name_hint == "s"
    mul = add.operands[1].defining_op
    assert mul.name == "mul" and mul.result.name_hint == ""  # intermediates stay unnamed
    assert fn.body.ops[0].result.name_hint == "s"  # s = 0.0


def test_branch_results_and_flags_are_named():
    module = parse(PROGRAMS["if_elif_else"][0], "f")
    ifs = [op for op in ops_of(module, "f") if op.name == "if"]
    assert all(r.name_hint == "y" for op in ifs for r in op.results)
    module = parse(PROGRAMS["break_in_for"][0], "f")
    hints = {v.name_hint for op in ops_of(module, "f") for v in op.results}
    assert {"done", "s", "i"} <= hints


def test_every_op_has_a_location_in_the_file():
    for source, func, _ in PROGRAMS.values():
        module = parse(source, func)
        for fn in module.functions.values():
            for op in fn.walk():
                assert op.loc is not None and op.loc.file == "prog.py", (op, print_module(module))
                assert 1 <= op.loc.line <= len(module.source_lines)


def test_locations_point_at_the_source():
    source = textwrap.dedent("""
        import math

        def f(x, n):
            s = 0.0
            for i in range(n):
                s += math.sin(x[i]) * 2.0
            return s
    """)
    module = parse(source, "f")
    lines = module.source_lines
    fn = module.functions["f"]
    assert (fn.loc.line, fn.loc.col) == (4, 1)
    by_name = {op.name: op for op in fn.walk()}
    for name, text in [("for", "for i in range(n)"), ("load", "x[i]"), ("math.sin", "math.sin(x[i])"),
                       ("mul", "math.sin(x[i]) * 2.0"), ("add", "s += math.sin(x[i]) * 2.0")]:
        loc = by_name[name].loc
        assert lines[loc.line - 1][loc.col - 1 : loc.end_col - 1] == text, name


# ----------------------------------------------------------------- no dead code
def test_no_dead_code_is_left():
    module = parse("""
        def f(x, y, n):
            s = 0.0
            count = 0
            unused = y * y
            for i in range(n):
                s += x[i] * y
                count += 1
            return s
    """, "f")
    names = op_names(module, "f")
    assert "undef" not in names
    assert names.count("mul") == 1
    (loop,) = [op for op in ops_of(module, "f") if op.name == "for"]
    assert [r.name_hint for r in loop.results] == ["s"]


def test_no_unused_values_anywhere():
    for source, func, _ in PROGRAMS.values():
        module = parse(source, func)
        for fn in module.functions.values():
            for op in fn.walk():
                if op.name in ("for", "while", "if", "call"):
                    continue
                for r in op.results:
                    assert r.uses, f"unused {op.name} in {fn.name}:\n{print_module(module)}"


# ----------------------------------------------------------------- list_functions and errors
def test_list_functions():
    source = "import math\n\ndef a():\n    pass\n\nclass C:\n    def m(self):\n        pass\n"
    source += "\ndef b(x):\n    return x\n"
    assert list_functions(source, "m.py") == ["a", "b"]


def test_syntax_error_is_a_diagnostic():
    with pytest.raises(DiagnosticError) as info:
        list_functions("def f(x):\n    return x +\n", "bad.py")
    text = info.value.render()
    assert text.startswith("bad.py:2:")
    assert "syntax error" in text


def test_unknown_function_lists_candidates():
    with pytest.raises(DiagnosticError) as info:
        parse_source("def f(x):\n    return x\n\ndef g(y):\n    return y\n", "m.py", "h")
    (d,) = info.value.diagnostics
    assert "'h'" in d.message and "f, g" in d.hint


def test_contract_message_for_unknown_callee():
    source = textwrap.dedent("""\
        import math


        def norm(out, in_, n):
            for i in range(n):
                x = 1.0
                out[i] = in_[i] / foo(in_)
    """)
    with pytest.raises(DiagnosticError) as info:
        parse_source(source, "norm.py", "norm")
    assert info.value.render() == (
        "norm.py:7:27: error: cannot differentiate through call to 'foo': its source is not in norm.py\n"
        "            out[i] = in_[i] / foo(in_)\n"
        "                              ^~~~~~~~\n"
        "hint: define foo in this file, or give it a custom derivative: a function grad_foo in a file passed with "
        "--derivatives (see README, Custom derivatives)"
    )


# source (the marked line holds the problem), expected line:col, message fragment, caret text
UNSUPPORTED: dict[str, tuple[str, str, str, str]] = {
    "class_use": ("""
        class Point:
            pass

        def f(x):
            p = Point(x)
            return x
    """, "6:9", "classes are not supported", "Point(x)"),
    "generator": ("""
        def f(x):
            yield x
    """, "3:5", "generators (yield)", "yield x"),
    "try": ("""
        def f(x):
            try:
                y = x
            except ValueError:
                y = 0.0
            return y
    """, "3:5", "try statements", "try"),
    "with": ("""
        def f(x):
            with open("a") as fh:
                y = x
            return y
    """, "3:5", "with statements", "with"),
    "lambda": ("""
        def f(x):
            y = (lambda t: t * 2.0)(x)
            return y
    """, "3:10", "a lambda is supported only bound to a name and called", "lambda t: t * 2.0"),
    "local_function_passed_as_value": ("""
        def f(xs):
            key = lambda t: t * t
            return sum(map(key, xs))
    """, "4:20", "the local function 'key' is used here other than in a call", "key"),
    "local_function_capture_assigned_after": ("""
        def f(x):
            s = 1.0
            g = lambda t: t * s
            s = 2.0
            return g(x)
    """, "5:5", "'s' is assigned after the local function 'g' that reads it is defined", "s"),
    "local_function_bound_twice": ("""
        def f(x):
            g = lambda t: t * 2.0
            g = lambda t: t * 3.0
            return g(x)
    """, "3:5", "the local function 'g' is bound more than once", "g = lambda t: t * 2.0"),
    "local_function_decorated": ("""
        import functools

        def f(x):
            @functools.cache
            def g(t):
                return t * 2.0
            return g(x)
    """, "5:5", "a decorator on the local function 'g'", "@functools.cache"),
    "default_not_a_number": ("""
        def f(x, w=None):
            return x * 2.0
    """, "2:12", "the default value of parameter 'w' is not a number", "None"),
    "iterable_max_with_key": ("""
        def f(x):
            return max((v for v in x), key=abs)
    """, "3:32", "max(..., key=...) is not supported", "key=abs"),
    "comprehension_of_unknown_length": ("""
        def f(x, n):
            y = [x[i, j] for i in range(n) for j in range(i)]
            return y[0]
    """, "3:45", "this list's length must be known before it is built", "range(i)"),
    "generator_outside_sum": ("""
        def f(x, n):
            g = (x[i] for i in range(n))
            return 0.0
    """, "3:10", "a generator expression is supported only in sum(...)", "x[i] for i in range(n)"),
    "list_of_arrays_literal": ("""
        def f(x: "f64[n]", i: int):
            y = [x, x]
            return y[i][0]
    """, "3:10", "the array 'x' in this list is that very array, which its later changes would change", "x"),
    "array_appended_itself": ("""
        import numpy as np

        def f(x: "f64[n]", steps: int):
            h = []
            for t in range(steps):
                x[0] = x[0] * 2.0
                h.append(x)
            return h[0][0]
    """, "8:18", "appending the array 'x' puts that very array in the list", "x"),
    "appended_shape_not_evident": ("""
        import numpy as np

        def f(W: "f64[m, n]", x: "f64[n]", steps: int):
            h = []
            for t in range(steps):
                h.append(W @ x)
            return h[0][0]
    """, "7:18", "the shape of the arrays appended to 'h' must be evident where the list is created", "W @ x"),
    "list_concatenated": ("""
        def f(x: float):
            y = [x, 2.0 * x]
            z = y + [x]
            return z[0]
    """, "4:9", "'y' is a list, which is not supported here", "y"),
    "list_returned": ("""
        def f(x: float):
            y = [x, 2.0 * x]
            return y
    """, "4:12", "'y' is a list, which is not supported here", "y"),
    "list_passed_to_function": ("""
        def g(v):
            return v[0]

        def f(x: float):
            y = [x, 2.0 * x]
            return g(y)
    """, "7:14", "'y' is a list, which is not supported here", "y"),
    "list_aliased": ("""
        def f(x: float):
            y = [x, 2.0 * x]
            z = y
            return z[0]
    """, "4:9", "'y' is a list, which is not supported here", "y"),
    "list_slice": ("""
        def f(x: float):
            y = [x, 2.0 * x, 3.0]
            return y[1:][0]
    """, "4:12", "slices of a list are not supported on the list 'y'", "y[1:]"),
    "append_in_while": ("""
        def f(x: float):
            h = []
            while x < 10.0:
                x = 2.0 * x + 1.0
                h.append(x)
            return h[-1]
    """, "6:9", "appending to 'h' inside a while loop", "h.append(x)"),
    "list_length_changes_after_creation": ("""
        def f(x: float, n: int):
            h = []
            n = n + 1
            for t in range(n):
                h.append(x * t)
            return h[-1]
    """, "5:14", "the length of 'h' must be known where it is created, but this loop's length depends on 'n'",
        "range(n)"),
    "append_while_iterating": ("""
        def f(x: float):
            h = [x, x]
            for v in h:
                h.append(v)
            return h[-1]
    """, "4:14", "appending to 'h' while looping over it is not supported", "h"),
    "append_to_a_parameter": ("""
        def f(h, x: float):
            h.append(x)
            return x
    """, "3:5", "cannot append to 'h': only to a list this function creates", "h.append(x)"),
    "sum_of_rows": ("""
        def f(A: "f64[m, n]"):
            return sum(A)[0]
    """, "3:12", "sum(...) of arrays (a list of arrays, a matrix's rows) is not supported", "sum(A)"),
    "nested_def": ("""
        def f(x):
            if x > 0:
                def g(t):
                    return t
            return x
    """, "4:9", "a local function defined here (under an if, a loop, a with)", "def"),
    "global": ("""
        T = 1.0

        def f(x):
            global T
            return x
    """, "5:5", "'global'", "global T"),
    "nonlocal": ("""
        def f(x):
            nonlocal x
            return x
    """, "3:5", "is parameter and nonlocal", "nonlocal x"),  # Python's own refusal
    "slice": ("""
        def f(x, k: int):
            y = x[1:5:k]
            return 0.0
    """, "3:15", "a slice's step must be a nonzero integer literal here", "k"),
    "string": ("""
        def f(x):
            s = "abc"
            return x
    """, "3:9", "strings", '"abc"'),
    "set_literal": ("""
        def f(x):
            y = {x, x}
            return x
    """, "3:9", "set literals", "{x, x}"),
    "dict_literal": ("""
        def f(x):
            y = {1: x}
            return x
    """, "3:9", "dict literals", "{1: x}"),
    "star_args": ("""
        def f(x, *rest):
            return x
    """, "2:10", "*args", "*rest"),
    "kwargs": ("""
        def f(x, **options):
            return x
    """, "2:10", "**kwargs", "**options"),
    "unknown_keyword_argument": ("""
        def g(a, b=1.0):
            return a * b

        def f(x):
            return g(x, c=2.0)
    """, "6:17", "'g' has no parameter named 'c'", "c=2.0"),
    "unknown_callee": ("""
        def f(x):
            return x / foo(x)
    """, "3:16", "cannot differentiate through call to 'foo': its source is not in prog.py", "foo(x)"),
    "library_function_without_rule": ("""
        import numpy as np

        def f(x):
            return np.sum(np.partition(x, 2))
    """, "5:19", "the NumPy function 'np.partition' is not supported", "np.partition(x, 2)"),
    "method_call": ("""
        def f(x):
            return x.cumprod()[0]
    """, "3:12", "method calls", "x.cumprod()"),
    "mutual_recursion": ("""
        def f(x):
            return g(x) + 1.0

        def g(x):
            return f(x) * 2.0
    """, "6:12", "mutually recursive call to 'f' is not supported (f -> g -> f)", "f(x)"),
    "for_over_a_number": ("""
        def f(x: float):
            s = 0.0
            for v in x:
                s += v
            return s
    """, "4:14", "cannot loop over 'x': it is a number", "x"),
    "for_over_map": ("""
        def f(x):
            s = 0.0
            for v in map(abs, x):
                s += v
            return s
    """, "4:14", "cannot loop over 'map(...)'", "map(abs, x)"),
    "enumerate_not_unpacked": ("""
        def f(x):
            s = 0.0
            for p in enumerate(x):
                s += x[0]
            return s
    """, "4:9", "enumerate(...) gives pairs: unpack them into as many names", "p"),
    "unpacking_rows": ("""
        def f(pairs):
            s = 0.0
            for a, b in pairs:
                s += a * b
            return s
    """, "4:9", "unpacking the items of this loop is not supported", "a, b"),
    "reversed_enumerate": ("""
        def f(x):
            s = 0.0
            for i, v in reversed(enumerate(x)):
                s += v
            return s
    """, "4:17", "reversed(...) is supported over range(...), an array or a list",
        "reversed(enumerate(x))"),
    "use_before_assignment": ("""
        def f(x):
            y = t + x
            t = 1.0
            return y
    """, "3:9", "'t' is used before it is assigned", "t"),
    "undefined_name": ("""
        def f(x):
            return x + missing
    """, "3:16", "name 'missing' is not defined", "missing"),
    "array_into_scalar_variable": ("""
        def f(x, n):
            s = 0.0
            s = x
            x[0] = s
    """, "4:9", "'s' is a float, but this value is an array", "x"),
    "array_returned_early": ("""
        def f(x, c):
            x[0] = 1.0
            if c > 0.0:
                return x
            return x * 2.0
    """, "5:16", "the array this function returns depends on the branch taken, and a branch's array is the "
        "parameter 'x'", "x"),
    "tuple_of_another_width": ("""
        def f(x, y):
            if x > 0.0:
                return x
            return x, y
    """, "4:16", "this return gives one value, but the function returns 2 values elsewhere", "x"),
    "tuple_result_as_one_value": ("""
        def g(x):
            return x, 2.0 * x

        def f(x):
            return g(x) + 1.0
    """, "6:12", "'g' returns 2 values, which are no single value", "g(x)"),
    "tuple_result_unpacked_wrong": ("""
        def g(x):
            return x, 2.0 * x

        def f(x):
            a, b, c = g(x)
            return a
    """, "6:15", "'g' returns 2 values, not 3", "g(x)"),
    "float_index": ("""
        def f(x, t):
            return x[t * 0.5]
    """, "3:14", "an array index must be an integer", "t * 0.5"),
    "wrong_index_count": ("""
        def f(A: "f64[m, n]", i, j):
            A[i, j] = 0.0
            A[i, j, 0] = 1.0
            return 0.0
    """, "4:5", "has 2 dimension(s) but is indexed with 3", "A[i, j, 0]"),
    "array_returning_helper": ("""
        def g(x):
            x[0] = 1.0
            return x

        def f(x):
            return g(x)[0]
    """, "7:12", "calling 'g', which returns its parameter 'x', is not supported", "g(x)"),
    "array_chosen_by_branch": ("""
        def f(a, b, c):
            a[0] = 1.0
            b[0] = 1.0
            if c > 0.0:
                t = a
            else:
                t = b
            return t[0]
    """, "9:12", "refers to a different array depending on the branch", "t"),
    "array_assigned_in_loop": ("""
        import numpy as np

        def f(n):
            for i in range(n):
                tmp = np.zeros(n)
                tmp[i] = 1.0
            return tmp[0]
    """, "8:12", "array assigned inside a loop", "tmp"),
    "missing_return_path": ("""
        def f(x):
            if x > 0.0:
                return x
    """, "2:1", "can reach its end without returning a value", "def f"),
    "for_else": ("""
        def f(x, n):
            for i in range(n):
                x[i] = 0.0
            else:
                x[0] = 1.0
    """, "5:5", "'for ... else'", "else"),
    "is_comparison": ("""
        def f(x):
            if x is None:
                return 0.0
            return x
    """, "3:8", "a test of None is supported only where it is decided before typing", "x is None"),
    "is_comparison_of_numbers": ("""
        def f(x, y):
            if x is y:
                return 0.0
            return x
    """, "3:8", "this comparison is not supported", "x is y"),
    "print": ("""
        def bump(a):
            a[0] += 1.0
            return a[0]

        def f(x, a):
            print(bump(a))
            return x * a[0]
    """, "7:5", "print(...) is left out of the gradient", "print(bump(a))"),
    "module_level_array": ("""
        import numpy as np

        W = np.cos(np.ones(3))

        def f(x):
            return x * W[0]
    """, "7:16", "module-level variable 'W' is not a numeric constant", "W"),
    "bad_annotation": ("""
        def f(x: list):
            return 1.0
    """, "2:10", "unsupported type annotation", "list"),
    "float_into_int_variable": ("""
        def f(x, n: int):
            n = x * 2.0
            return 1.0
    """, "3:9", "'n' holds integers", "x * 2.0"),
    "and_on_numbers_as_value": ("""
        def f(x, y):
            z = x and y
            return z
    """, "3:9", "'and'/'or' on numbers", "x"),
    "range_float_bound": ("""
        def f(x, t):
            for i in range(t * 2.0):
                x[i] = 0.0
    """, "3:20", "a range() bound must be an integer", "t * 2.0"),
    "callee_without_value": ("""
        def g(x):
            x[0] = 1.0

        def f(x):
            return g(x) + 1.0
    """, "6:12", "'g' does not return a value", "g(x)"),
}


@pytest.mark.parametrize("name", sorted(UNSUPPORTED))
def test_unsupported_construct_gives_one_diagnostic(name: str):
    source, where, fragment, caret_text = UNSUPPORTED[name]
    err = diagnose(source)
    assert len(err.diagnostics) == 1, err.render()
    (d,) = err.diagnostics
    assert f"{d.loc.line}:{d.loc.col}" == where, err.render()
    assert fragment in d.message, err.render()
    assert d.hint, err.render()
    rendered = err.render().splitlines()
    assert rendered[0].startswith(f"prog.py:{where}: error: ")
    line, caret = rendered[1], rendered[2]
    start = caret.index("^")
    width = len(caret.strip())
    assert line[start : start + width] == caret_text, err.render()
    assert "Traceback" not in err.render()


def test_several_problems_are_reported_together():
    err = diagnose("""
        def f(x, n):
            y = (v for v in x)
            z = {1: 2}
            for v in map(abs, x):
                pass
            return foo(x)
    """)
    assert [d.loc.line for d in err.diagnostics] == [3, 4, 5, 7]


def test_problems_in_unreached_functions_are_ignored():
    module = parse("""
        def broken(x):
            return [x for _ in range(3)]

        def f(x):
            return x * 2.0
    """, "f")
    assert list(module.functions) == ["f"]


def test_problems_in_callees_are_reported():
    err = diagnose("""
        def helper(x):
            return x[0] if x is None else x[1]

        def f(x):
            return helper(x)
    """)
    assert [d.loc.line for d in err.diagnostics] == [3]


# ----------------------------------------------------------------- random control flow
class _ProgramGenerator:
    """Random nested loops and branches with break/continue/return, always terminating.

    ``while`` loops step their counter first thing in the body, so a ``continue``
    cannot skip it; indices are taken modulo n, so every load is in bounds.
    """

    def __init__(self, seed: int):
        import random

        self.rng = random.Random(seed)
        self.lines: list[str] = []
        self.loops = 0

    def ints(self, loop_vars: list[str]) -> str:
        return self.rng.choice(["t", *loop_vars, "n"])

    def cond(self, loop_vars: list[str]) -> str:
        k = self.ints(loop_vars)
        return self.rng.choice([
            f"x[({k} + 1) % n] > {self.rng.uniform(-0.5, 0.5):.2f}",
            f"s > {self.rng.uniform(-1.0, 2.0):.2f}",
            f"{k} % 2 == 0",
            f"x[{k} % n] < 0.0 and s < 1.0",
            "not (t > 3 or x[t % n] > 0.5)",
        ])

    def block(self, indent: int, depth: int, loop_vars: list[str], in_loop: bool) -> None:
        for _ in range(self.rng.randint(1, 3)):
            self.stmt(indent, depth, loop_vars, in_loop)

    def emit(self, indent: int, text: str) -> None:
        self.lines.append("    " * indent + text)

    def stmt(self, indent: int, depth: int, loop_vars: list[str], in_loop: bool) -> None:
        k = self.ints(loop_vars)
        choices = ["assign", "assign", "count"]
        if depth > 0:
            choices += ["if", "if", "for", "while"]
        if in_loop:
            choices += ["break", "continue"]
        choices.append("return")
        kind = self.rng.choice(choices)
        if kind == "assign":
            self.emit(indent, f"s = s * {self.rng.uniform(0.3, 0.9):.2f} + x[{k} % n] * {self.rng.uniform(-2, 2):.2f}")
        elif kind == "count":
            self.emit(indent, "t += 1")
        elif kind == "if":
            self.emit(indent, f"if {self.cond(loop_vars)}:")
            self.block(indent + 1, depth - 1, loop_vars, in_loop)
            if self.rng.random() < 0.5:
                self.emit(indent, "else:")
                self.block(indent + 1, depth - 1, loop_vars, in_loop)
        elif kind == "for":
            v = f"i{self.loops}"
            self.loops += 1
            self.emit(indent, self.rng.choice([
                f"for {v} in range(n):", f"for {v} in range(1, n, 2):", f"for {v} in range(n - 1, -1, -1):",
            ]))
            self.block(indent + 1, depth - 1, [*loop_vars, v], True)
        elif kind == "while":
            v = f"w{self.loops}"
            self.loops += 1
            self.emit(indent, f"{v} = 0")
            self.emit(indent, f"while {v} < {self.rng.randint(1, 4)}:")
            self.emit(indent + 1, f"{v} += 1")
            self.block(indent + 1, depth - 1, [*loop_vars, v], True)
        elif kind == "break":
            self.emit(indent, "break")
        elif kind == "continue":
            self.emit(indent, "continue")
        else:
            self.emit(indent, f"return s + {self.rng.uniform(-1, 1):.2f} * t")

    def program(self) -> str:
        self.lines = ["def f(x, n):", "    s = 0.0", "    t = 0"]
        self.block(1, 3, [], False)
        self.emit(1, "return s * 2.0 + t")
        return "\n".join(self.lines) + "\n"


@pytest.mark.parametrize("batch", range(4))
def test_random_control_flow_runs_like_python(batch: int):
    for seed in range(batch * 50, batch * 50 + 50):
        source = _ProgramGenerator(seed).program()
        try:
            run_both(source, "f", [A(5), I(5)], seeds=2)
        except AssertionError as e:
            raise AssertionError(f"seed {seed}:\n{source}") from e


def test_direct_recursion_is_lowered_to_a_call_to_itself_with_its_own_types():
    module = parse_source(textwrap.dedent("""
        def f(x, i):
            if i == 0:
                return x[0]
            return f(x, i - 1) * x[i]
    """), "t.py", "f")
    f = module.functions["f"]
    calls = [op for op in f.walk() if op.name == "call"]
    assert [op.attrs["callee"] for op in calls] == ["f"]
    assert calls[0].results[0].type.is_float and calls[0].operands[1].type.is_int
