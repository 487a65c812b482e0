"""Finite-difference checks of gradients under the contract's shadow semantics.

For a primal ``f`` and its gradient ``grad_f`` (any implementation: the IR
interpreter, emitted Python, emitted Numba, compiled C), with random inputs and
random seeds, the scalar

    J(inputs) = d_return * f(inputs) + sum over shadowed arrays a of <seed_a, a(exit)>

(for a function that returns an array, ``<d_return, f(inputs)>`` with a random array seed),

has the gradient the contract promises: each shadow holds dJ/da(entry) on exit
and each scalar ``--wrt`` adjoint is dJ/dx. Central differences of J check
every component, and the gradient function must also leave the arrays exactly
as the primal does.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Callable, Optional

import inspect

import numpy as np


@dataclass
class ParamSpec:
    """How to make a test value for one parameter (mirrors golden/*/case.json)."""

    name: str
    kind: str  # "float" | "int" | "array" | "str"
    shape: tuple[int, ...] = ()
    value: int = 0  # for "int"
    low: float = -1.0
    high: float = 1.0
    dtype: str = "f64"  # "f64", "f32" (arrays and floats), "i64" or "i32" (arrays)
    ints: tuple[int, int] = (0, 1)  # for integer arrays: [low, high)
    text: str = ""  # for "str": a string parameter's value

    @staticmethod
    def from_json(d: dict) -> "ParamSpec":
        d = dict(d)
        if "shape" in d:
            d["shape"] = tuple(d["shape"])
        if "ints" in d:
            d["ints"] = tuple(d["ints"])
        return ParamSpec(**d)

    @property
    def is_float_array(self) -> bool:
        return self.kind == "array" and self.dtype in ("f64", "f32")

    @property
    def np_dtype(self) -> type:
        return _DTYPES[self.dtype]

    def sample(self, rng: np.random.Generator) -> Any:
        if self.kind == "int":
            return int(self.value)
        if self.kind == "str":
            return self.text
        if self.kind == "float":
            return float(self.np_dtype(rng.uniform(self.low, self.high)))
        if self.dtype in ("i64", "i32"):
            return rng.integers(self.ints[0], self.ints[1], size=self.shape).astype(self.np_dtype)
        return rng.uniform(self.low, self.high, size=self.shape).astype(self.np_dtype)


_DTYPES = {"f64": np.float64, "f32": np.float32, "i64": np.int64, "i32": np.int32}
# Single precision: a wider difference step, and the gradient's forward sweep may round differently.
_STEP = {"f32": 1e-3}
_SIDE_EFFECT_TOL = {"f32": 1e-6}


def central_differences(f, xs: list[float], h: float = 1e-6) -> list[float]:
    """The central differences of a function of scalars, one per argument."""
    out = []
    for i in range(len(xs)):
        up, down = list(xs), list(xs)
        up[i] += h
        down[i] -= h
        out.append((f(*up) - f(*down)) / (2 * h))
    return out


def central_difference(f, args: list, k: int, h: float = 1e-6) -> np.ndarray:
    """d f / d args[k], entry by entry (args[k] a number or an array; a list is read as one)."""
    x = np.asarray(args[k], dtype=float)
    out = np.zeros(x.shape)
    for index in np.ndindex(*x.shape):
        values = []
        for sign in (1.0, -1.0):
            trial = x.copy()
            trial[index] += sign * h
            moved = list(args)
            moved[k] = trial if x.shape else float(trial)
            values.append(f(*moved))
        out[index] = (values[0] - values[1]) / (2 * h)
    return out


def check_source_function(source: str, func: str, args: list, wrt: list[str], target: str = "py",
                          rtol: float = 1e-6, atol: float = 1e-8) -> None:
    """The gradient of ``func`` in ``source`` (Python, or Numba, output) called the way its
    signature says (a shadow array after each parameter that has one, the other adjoints
    returned), against central differences of the primal at ``args``, with the seed 1."""
    from s2sad import pipeline

    namespace: dict = {}
    exec(compile(pipeline.gradient_source(source, "prog.py", func, wrt, target), f"<grad_{func}>", "exec"),
         namespace)
    primal_ns: dict = {}
    exec(compile(source, "<primal>", "exec"), primal_ns)
    primal, grad = primal_ns[func], namespace[f"grad_{func}"]

    def f(*values):  # of copies: a function that writes its arrays is differentiated at its inputs
        return primal(*[_copy(v) for v in values])

    names = list(inspect.signature(primal).parameters)[:len(args)]
    takes = inspect.signature(grad).parameters
    call, shadows = [], {}
    for name, value in zip(names, args):
        call.append(_copy(value))
        if "d_" + name in takes:
            shadows[name] = np.zeros(np.shape(value))
            call.append(shadows[name])
    out = grad(*call, 1.0)
    returned = list(out) if isinstance(out, tuple) else [out] if out is not None else []
    for k, name in enumerate(names):
        if name in wrt:
            got = shadows[name] if name in shadows else returned.pop(0)
            np.testing.assert_allclose(got, central_difference(f, args, k), rtol=rtol, atol=atol, err_msg=name)


def written_arrays(module, func: str) -> set[str]:
    """Names of the array parameters ``func`` writes (they get shadows too)."""
    from s2sad.analysis.effects import written_params

    fn = module.functions[func]
    return {fn.param_names[i] for i in written_params(module, fn)}


def _copy(v: Any) -> Any:
    return v.copy() if isinstance(v, np.ndarray) else v


def _is_float_value(r: Any) -> bool:
    """A returned value with a seed that counts: a float, or an array of floats."""
    return isinstance(r, (float, np.floating)) or (isinstance(r, np.ndarray) and r.dtype.kind == "f")


def _is_int_value(r: Any) -> bool:
    return isinstance(r, (int, np.integer)) or (isinstance(r, np.ndarray) and r.dtype.kind != "f")


def _seed_for(r: Any, rng: np.random.Generator) -> Any:
    """A random seed for the returned value ``r``: an array of its shape for an array; 0.0 for
    an integer (its seed is never read)."""
    if isinstance(r, np.ndarray) and r.dtype.kind == "f":
        return rng.normal(size=r.shape).astype(r.dtype)
    return 0.0 if _is_int_value(r) else float(rng.normal())


def _takes_shadow(gradient: Callable[..., Any], name: str) -> bool:
    """Whether the gradient's parameter after ``name`` is its shadow (a shape-generic number's)."""
    try:
        names = list(inspect.signature(gradient).parameters)
    except (TypeError, ValueError):  # a Numba dispatcher without a Python signature
        names = list(getattr(getattr(gradient, "py_func", None), "__code__", None).co_varnames) \
            if hasattr(gradient, "py_func") else []
    return name in names and names.index(name) + 1 < len(names) and names[names.index(name) + 1] == f"d_{name}"


def check_gradient(
    primal: Callable[..., Any],
    gradient: Callable[..., Any],
    params: list[ParamSpec],
    wrt: list[str],
    written: set[str],
    rng: np.random.Generator,
    rtol: float = 2e-5,
    atol: float = 2e-6,
    returns_float: Optional[bool] = None,
) -> None:
    """Assert that ``gradient`` matches central differences of ``primal``.

    ``gradient(*args, d_return=...)`` takes the primal's arguments with each
    shadowed array followed by its shadow; ``d_return`` is passed only when the
    primal returns a float or an array of floats (then an array of its shape).
    Scalar ``--wrt`` adjoints come back as the return value (one value, or a
    tuple in parameter order).
    """
    wrt_names = [
        w + "_" if w + "_" in {p.name for p in params} and w not in {p.name for p in params} else w for w in wrt
    ]
    inputs = {p.name: p.sample(rng) for p in params}
    shadowed = [p for p in params if p.is_float_array and (p.name in wrt_names or p.name in written)]
    seeds = {p.name: rng.normal(size=p.shape).astype(p.np_dtype) for p in shadowed}
    # A shape-generic number (README, "annotate"): its shadow is a 0-d array the gradient adds into.
    generic = [p for p in params if p.kind == "float" and p.name in wrt_names and _takes_shadow(gradient, p.name)]
    generic_seeds = {p.name: np.array(rng.normal()) for p in generic}

    exit_primal = {k: _copy(v) for k, v in inputs.items()}
    result = primal(*[exit_primal[p.name] for p in params])
    # A returned array of floats takes an array seed of its shape (no default); a returned
    # tuple, a tuple of seeds, one per value (an integer's is not read).
    parts = result if isinstance(result, tuple) else (result,)
    if returns_float is None:
        returns_float = any(_is_float_value(r) for r in parts)
    seeds_out = [_seed_for(r, rng) for r in parts] if returns_float else [0.0]
    d_return: Any = tuple(seeds_out) if isinstance(result, tuple) else seeds_out[0]
    returns_array = any(isinstance(r, np.ndarray) for r in parts)

    def J(values: dict[str, Any]) -> float:
        work = {k: _copy(v) for k, v in values.items()}
        r = primal(*[work[p.name] for p in params])
        # <d_return, f(...)>, taken before the shadowed arrays' exit values are read
        total = 0.0
        if returns_float:
            for seed, part in zip(seeds_out, r if isinstance(r, tuple) else (r,)):
                if not _is_int_value(part):
                    total += float(np.sum(np.asarray(seed, dtype=np.float64) * np.asarray(part, dtype=np.float64)))
        for p in shadowed:
            total += float(np.sum(seeds[p.name].astype(np.float64) * work[p.name]))
        for p in generic:
            total += float(generic_seeds[p.name]) * float(work[p.name])
        return total

    # The gradient.
    work = {k: _copy(v) for k, v in inputs.items()}
    shadows = {k: s.copy() for k, s in seeds.items()}
    generic_shadows = {k: s.copy() for k, s in generic_seeds.items()}
    args: list[Any] = []
    for p in params:
        args.append(work[p.name])
        if p in shadowed:
            args.append(shadows[p.name])
        if p in generic:
            args.append(generic_shadows[p.name])  # changed in place
    seed = tuple(_copy(x) for x in d_return) if isinstance(d_return, tuple) else _copy(d_return)
    got = gradient(*args, d_return=seed) if returns_float else gradient(*args)
    if returns_array:
        for after, before in zip(seed if isinstance(seed, tuple) else (seed,), seeds_out):
            np.testing.assert_array_equal(after, before, err_msg="the gradient changed d_return")

    # Side effects of the forward sweep are the primal's.
    for p in params:
        if p.kind == "array":
            tol = _SIDE_EFFECT_TOL.get(p.dtype, 1e-12)
            np.testing.assert_allclose(
                work[p.name],
                exit_primal[p.name],
                rtol=tol,
                atol=tol,
                err_msg=f"array {p.name} at exit differs from the primal's",
            )

    scalar_wrt = [p for p in params if p.kind == "float" and p.name in wrt_names and p not in generic]
    if len(scalar_wrt) == 0:
        assert got is None, f"gradient returned {got!r}, expected None"
        returned = {}
    elif len(scalar_wrt) == 1:
        returned = {scalar_wrt[0].name: got}
    else:
        assert isinstance(got, tuple) and len(got) == len(scalar_wrt), (
            f"expected {len(scalar_wrt)} adjoints, got {got!r}"
        )
        returned = {p.name: g for p, g in zip(scalar_wrt, got)}

    spec = {p.name: p for p in params}

    def fd(name: str, index: Optional[tuple] = None) -> float:
        base = inputs[name]
        x0 = float(base[index]) if index is not None else float(base)
        dtype = spec[name].dtype
        h = _STEP.get(dtype, 1e-6) * max(1.0, abs(x0))
        vals, points = [], []
        for sign in (1.0, -1.0):
            trial = {k: _copy(v) for k, v in inputs.items()}
            point = float(spec[name].np_dtype(x0 + sign * h)) if dtype == "f32" else x0 + sign * h
            if index is not None:
                trial[name][index] = point
            else:
                trial[name] = point
            points.append(point)
            vals.append(J(trial))
        # In single precision the step is what rounding left of it.
        step = points[0] - points[1] if dtype == "f32" else 2 * h
        return (vals[0] - vals[1]) / step

    for p in scalar_wrt:
        expect = fd(p.name)
        np.testing.assert_allclose(
            float(returned[p.name]), expect, rtol=rtol, atol=atol, err_msg=f"adjoint of scalar {p.name}"
        )
    for p in generic:
        np.testing.assert_allclose(float(generic_shadows[p.name]), fd(p.name), rtol=rtol, atol=atol,
                                   err_msg=f"0-d shadow d_{p.name} at exit")
    for p in shadowed:
        expect = np.zeros(p.shape)
        for index in np.ndindex(*p.shape):
            expect[index] = fd(p.name, index)
        np.testing.assert_allclose(shadows[p.name], expect, rtol=rtol, atol=atol, err_msg=f"shadow d_{p.name} at exit")
