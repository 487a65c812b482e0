"""Check one function of the Python corpus (tests/py_corpus): differentiate it as written, run it.

``check(key, target)`` returns ``("ok", "")`` when s2sad differentiates the function and the
gradient matches central differences of the function itself at a random point (arrays the
function changes in place get shadows, as the contract says), ``("refused", message)`` with
s2sad's first diagnostic, and raises AssertionError on a wrong gradient. tests/test_py_corpus.py
runs every function; ``python tests/corpus_check.py [--target numba] [FILE | FILE:FUNCTION ...]`` prints the table.
"""

from __future__ import annotations

import importlib
import inspect
import re
import sys
from pathlib import Path

import numpy as np

HERE = Path(__file__).resolve().parent
sys.path[:0] = [str(HERE.parent), str(HERE)]

from fd import ParamSpec, check_gradient  # noqa: E402
from py_corpus.cases import CASES  # noqa: E402
from s2sad import pipeline  # noqa: E402
from s2sad.diagnostics import DiagnosticError  # noqa: E402

CORPUS = HERE / "py_corpus"
_SPEC = re.compile(r"(\w+):(f|i)(?:\[([\d,]+)\])?(?:\(([-\d.e]+),([-\d.e]+)\))?(?:\{(-?\d+),(-?\d+)\})?(?:=(-?\d+))?$")


def params_of(spec: str) -> tuple[list[str], list[ParamSpec]]:
    """``"x,W | x:f[3] W:f[3,4] n:i=2"`` -> (["x", "W"], [ParamSpec...])."""
    wrt, _, rest = spec.partition("|")
    out = []
    for item in rest.split():
        m = _SPEC.match(item)
        assert m, f"bad corpus spec {item!r}"
        name, kind, shape, lo, hi, ilo, ihi, value = m.groups()
        dims = tuple(int(d) for d in shape.split(",")) if shape else ()
        if kind == "i" and not dims:
            out.append(ParamSpec(name, "int", value=int(value)))
        elif kind == "i":
            out.append(ParamSpec(name, "array", dims, dtype="i64", ints=(int(ilo), int(ihi))))
        else:
            bounds = {"low": float(lo), "high": float(hi)} if lo is not None else {}
            out.append(ParamSpec(name, "array" if dims else "float", dims, **bounds))
    return [w.strip() for w in wrt.split(",") if w.strip()], out


def check(key: str, target: str = "py", seed: int = 0) -> tuple[str, str]:
    module_name, func = key.split(":")
    path = CORPUS / f"{module_name}.py"
    wrt, params = params_of(CASES[key])
    primal = getattr(importlib.import_module(f"py_corpus.{module_name}"), func)
    try:
        text = pipeline.gradient_source(path.read_text(), str(path), func, wrt, target, pipeline.Options())
    except DiagnosticError as e:
        return "refused", str(e).splitlines()[0]
    namespace: dict = {}
    exec(compile(text, f"<grad {key} {target}>", "exec"), namespace)
    gradient = namespace[f"grad_{func}"]
    taken_for_numbers = _taken_for_numbers(gradient, params, wrt)
    if taken_for_numbers:
        return _guard_answer(primal, gradient, params, taken_for_numbers, seed)
    try:
        check_gradient(primal, gradient, params, wrt, _written(primal, params), np.random.default_rng(seed),
                       rtol=1e-4, atol=1e-6)
    except ValueError as e:
        if "its rank is not evident" not in str(e):
            raise
        # The rank guard of a parameter whose rank s2sad had to assume stopped this rank: the
        # documented refusal (README, "Assumptions a generated gradient makes"), at run time.
        return "guarded", str(e)
    return "ok", ""


def _taken_for_numbers(gradient, params: list[ParamSpec], wrt: list[str]) -> list[str]:
    """The differentiated parameters the corpus calls with arrays that the gradient takes for
    numbers (no shadow ``d_<name>`` follows them: their adjoint is returned)."""
    names = list(inspect.signature(gradient).parameters)
    return [p.name for p in params if p.is_float_array and p.name in wrt and f"d_{p.name}" not in names]


def _guard_answer(primal, gradient, params: list[ParamSpec], numbers: list[str], seed: int) -> tuple[str, str]:
    """Call the gradient as its signature says (shadows only where it takes them) with the
    corpus's arrays: its entry check must refuse an array it took for a number; a gradient
    that runs instead is wrong (its adjoint of that parameter would be a number)."""
    names = list(inspect.signature(gradient).parameters)
    inputs = {p.name: p.sample(np.random.default_rng(seed)) for p in params}
    args: list = []
    for p in params:
        args.append(inputs[p.name])
        if f"d_{p.name}" in names:
            args.append(np.zeros_like(np.asarray(inputs[p.name], dtype=float)))
    result = primal(*[np.copy(v) if isinstance(v, np.ndarray) else v for v in inputs.values()])
    seed_out = np.ones_like(result) if isinstance(result, np.ndarray) else 1.0
    try:
        gradient(*args, d_return=seed_out)
    except ValueError as e:
        if "its rank is not evident" in str(e):
            return "guarded", str(e)
        raise
    raise AssertionError(f"the gradient takes {', '.join(numbers)} for numbers and ran with arrays")


def _written(primal, params: list[ParamSpec]) -> set[str]:
    """The arrays the function changes in place (they get shadows)."""
    inputs = {p.name: p.sample(np.random.default_rng(1)) for p in params}
    work = {k: np.copy(v) if isinstance(v, np.ndarray) else v for k, v in inputs.items()}
    primal(*[work[p.name] for p in params])
    return {p.name for p in params if p.kind == "array" and not np.array_equal(inputs[p.name], work[p.name])}


def main() -> int:
    target = sys.argv[sys.argv.index("--target") + 1] if "--target" in sys.argv else "py"
    only = [a for a in sys.argv[1:] if ":" in a or a in {k.split(":")[0] for k in CASES}]
    keys = [k for k in CASES if not only or k in only or k.split(":")[0] in only]
    ok = 0
    for key in keys:
        try:
            status, detail = check(key, target)
        except AssertionError as e:
            status, detail = "WRONG", str(e).splitlines()[0][:150]
        except Exception as e:  # noqa: BLE001 - the generated gradient raised
            status, detail = "RAISED", f"{type(e).__name__}: {e}".splitlines()[0][:150]
        ok += status == "ok"
        print(f"{status:8} {key:45} {detail[:140]}", flush=True)
    print(f"{ok} of {len(keys)} corpus functions differentiated (--target {target}) and checked")
    return 0


if __name__ == "__main__":
    sys.exit(main())
