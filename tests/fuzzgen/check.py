"""Check every gradient of one program: against central differences, and against one another.

A draw (random inputs, shadow seeds, ``d_return``) is kept only when it is well conditioned:
the primal and its traced twin agree, nothing overflows (no value at exit, and no NumPy
operation on the way: a Python program and every twin run under ``np.errstate(over="raise",
divide="raise", invalid="raise")``), every perturbed evaluation makes the unperturbed one's
decisions (tracing.py), and central differences with two step sizes agree.
Then every configuration's gradient must match them, leave the arrays as the primal does, and
agree with the other configurations' gradients. OpenMP gradients run several times on 2 and
4 threads. A Python gradient that stops on entry because a parameter's rank is not the one it
had to assume (its rank guard, README) refuses the program, as a located error would; a guard
that stops a parameter of the rank it asks for is a mismatch.
"""

from __future__ import annotations

import ctypes
import ctypes.util
import re
from dataclasses import dataclass, field
from typing import Callable, Optional

import numpy as np

from .frontend import shared_work
from .gradients import Bad, Config, Gradient, Refused, differentiate, load
from .primal import Primal
from .program import For, Program, walk_body, written_params

STEPS = (1e-4, 1e-5)  # relative difference steps; the second is the one compared
FD_AGREE = (1e-6, 1e-4)  # (absolute, relative) agreement of the two steps
GRAD_TOL = (1e-5, 2e-4)  # (absolute, relative) gradient against differences
CROSS_TOL = (1e-9, 1e-7)  # configurations against one another
SIDE_TOL = 1e-9
LIMIT = 1e6  # reject draws whose values or slopes exceed this
SCHEDULES = ("recompute", "periodic(2)", "binomial(2)")
THREADS = (2, 4)
OMP_RUNS = 3


@dataclass
class Mismatch:
    config: str
    kind: str
    detail: str


@dataclass
class Report:
    status: str = "ok"  # ok, mismatch, rejected (no well-conditioned draw), invalid (the generator's fault)
    mismatches: list = field(default_factory=list)
    refusals: list = field(default_factory=list)  # (config, message)
    miscompiled: list = field(default_factory=list)  # configurations gcc -O2 got wrong (see miscompiled)
    gradients: int = 0  # configurations checked numerically
    note: str = ""


class Rejected(Exception):
    pass


def configs_for(program: Program, seed: int, numba: bool, full: bool = False) -> list[Config]:
    """Every level for every target the program allows (native target first); each checkpoint
    schedule at one level (all levels with ``full``) when there is an outermost for loop."""
    targets = ["py", "c"] if program.lang == "py" else ["c", "py"]
    out = [Config(t, level) for t in targets for level in (0, 1, 2)]
    if numba and program.lang == "py":
        out += [Config("numba", level) for level in ((0, 1, 2) if full else (seed % 3,))]
    if any(isinstance(s, For) for s in program.main.body):
        for k, schedule in enumerate(SCHEDULES):
            levels = (0, 1, 2) if full else ((seed + k) % 3,)
            out += [Config(targets[0], level, schedule) for level in levels]
    return out


class Draw:
    """Inputs, seeds and the finite-difference gradient of J at one well-conditioned point."""

    def __init__(self, primal: Primal, rng: np.random.Generator):
        program = primal.program
        self.primal = primal
        self.inputs = primal.inputs(rng)
        written = written_params(program, program.main)
        self.shadowed = [p.name for p in program.main.params
                         if p.kind in ("array", "matrix") and (p.name in program.wrt or p.name in written)]
        self.scalars = [p.name for p in program.main.params if p.kind == "float" and p.name in program.wrt]
        self.seeds = {n: rng.normal(size=self.inputs[n].shape) for n in self.shadowed}
        self.d_return = float(rng.normal())
        value, self.exit_arrays = self._run_checked(self.inputs)
        _, self.trace, _ = primal.twin(self.inputs)
        self.fd = self._differences()

    def _run_checked(self, inputs: dict):
        try:
            # The twin first: where it raises (int() of a NaN, a math domain error), a C primal's
            # behaviour is undefined, and may be a crash that takes the checking process with it
            # ((int)NaN steps a loop to a negative index).
            twin_value, _, twin_arrays = self.primal.twin(inputs, strict=True)
            value, arrays = self.primal.run(inputs, strict=True)
        except (ValueError, OverflowError, ZeroDivisionError, FloatingPointError, TypeError) as e:
            # Also a NumPy overflow the primal survives (np.sinh(800.0) is inf, and inf * 0.0
            # or a later overwrite hides it): generated Python may compute it with math.sinh,
            # which raises, and its reverse sweep multiplies the inf by a zero adjoint (NaN).
            # And math.floor of a float past 2**63, an int NumPy keeps as an object, for which
            # np.tanh has no loop. Such a program's derivative is not what either computes: the
            # draw is rejected.
            if isinstance(e, TypeError) and "loop of ufunc does not support argument" not in str(e):
                raise
            raise Rejected(f"primal raised {e!r}") from None
        values = [value, twin_value] + [float(np.max(np.abs(a))) for a in arrays.values()
                                        if isinstance(a, np.ndarray) and a.dtype.kind == "f"]
        if not all(np.isfinite(v) and abs(v) < LIMIT for v in values):
            raise Rejected("a value overflows")
        def agree(rtol: float) -> bool:
            return abs(value - twin_value) <= rtol * (1 + abs(value)) and all(
                np.allclose(arrays[k], twin_arrays[k], rtol=rtol, atol=rtol * 1e-3) for k in arrays
                if isinstance(arrays[k], np.ndarray))

        if not agree(1e-9):
            if agree(1e-6):
                # Close, not equal: a value that rounding moves this far (an OpenMP sum's order, a
                # libm's last bit, grown by the code after it: seed 10000413) is one central
                # differences cannot be taken of either.
                raise Rejected(f"the value depends on rounding: {value!r} here, {twin_value!r} in the twin")
            raise AssertionError(f"the program and its Python twin disagree: {value!r} against {twin_value!r}")
        return value, arrays

    def J(self, inputs: dict) -> float:
        value, arrays = self.primal.run(inputs)
        total = self.d_return * value
        for n in self.shadowed:
            total += float(np.sum(self.seeds[n] * arrays[n]))
        return total

    def components(self):
        for n in self.scalars:
            yield n, None
        for n in self.shadowed:
            for index in np.ndindex(*self.inputs[n].shape):
                yield n, index

    def _moved(self, name: str, index, delta: float) -> dict:
        moved = {k: np.copy(v) if isinstance(v, np.ndarray) else v for k, v in self.inputs.items()}
        if index is None:
            moved[name] = moved[name] + delta
        else:
            moved[name][index] += delta
        return moved

    def _differences(self) -> dict:
        out = {}
        for name, index in self.components():
            x0 = self.inputs[name] if index is None else self.inputs[name][index]
            estimates = []
            for rel in STEPS:
                h = rel * max(1.0, abs(x0))
                values = []
                for sign in (1.0, -1.0):
                    moved = self._moved(name, index, sign * h)
                    try:
                        _, trace, _ = self.primal.twin(moved)
                    except (ValueError, OverflowError, ZeroDivisionError) as e:
                        raise Rejected(f"primal raised {e!r} near the draw") from None
                    if trace != self.trace:
                        raise Rejected(f"a decision changes when {name}{list(index or ())} moves by {sign * h:g}")
                    values.append(self.J(moved))
                estimates.append((values[0] - values[1]) / (2 * h))
            coarse, fine = estimates
            if not (np.isfinite(fine) and abs(fine) < LIMIT):
                raise Rejected("steep")
            if abs(coarse - fine) > FD_AGREE[0] + FD_AGREE[1] * max(abs(coarse), abs(fine)):
                raise Rejected(f"differences with two steps disagree at {name}{list(index or ())}")
            out[(name, index)] = fine
        return out

    def vector(self, scalars: dict, shadows: dict) -> dict:
        """The gradient's components in the order of self.fd."""
        return {(n, i): (scalars[n] if i is None else shadows[n][i]) for n, i in self.fd}


def find_draw(primal: Primal, seed: int, attempts: int = 6) -> Draw:
    reasons = []
    for k in range(attempts):
        try:
            return Draw(primal, np.random.default_rng([seed, k]))
        except Rejected as e:
            reasons.append(str(e))
    raise Rejected("; ".join(reasons[-2:]))


def _describe(key) -> str:
    name, index = key
    return f"d_{name}{list(index)}" if index is not None else f"d_{name}"


def _compare(got: dict, want: dict, tol: tuple, what: str) -> Optional[str]:
    bad = [(k, got[k], want[k]) for k in want
           if not (abs(got[k] - want[k]) <= tol[0] + tol[1] * abs(want[k]))]
    if not bad:
        return None
    shown = ", ".join(f"{_describe(k)} = {g:.10g} (expected {w:.10g})" for k, g, w in bad[:4])
    return f"{len(bad)} of {len(want)} components differ from {what}: {shown}"


def _set_threads(count: int) -> None:
    name = ctypes.util.find_library("gomp") or "libgomp.so.1"
    ctypes.CDLL(name).omp_set_num_threads(count)


# The check a Python gradient makes on entry of a parameter rank it had to assume (README,
# "Assumptions a generated gradient makes"): "W must be a 2-D array: its rank is not evident in f
# (...)", or "b must be a number: ...".
RANK_GUARD = re.compile(r"^(\w+) must be (?:a number|a (\d+)-D array): its rank is not evident in f ")


def rank_guard_refused(e: Exception, inputs: dict) -> bool:
    """Whether ``e`` is a rank guard that rightly refused the inputs: the parameter it names has
    another rank. That is the documented refusal of a rank s2sad had to guess (a gradient that
    would be wrong for these inputs stops instead), not a mismatch; a guard that fires on the
    rank it asks for is one (an over-strict guard refuses callers the gradient serves)."""
    m = RANK_GUARD.match(str(e)) if isinstance(e, ValueError) else None
    if m is None or m.group(1) not in inputs:
        return False
    return np.ndim(inputs[m.group(1)]) != int(m.group(2) or 0)


def check_config(draw: Draw, program: Program, config: Config, report: Report, vectors: dict) -> None:
    text = differentiate(program, draw.primal.source, config)
    gradient = load(program, text, config)
    try:
        _check_runs(draw, config, gradient, text, vectors)
    except Bad as e:
        if not miscompiled(draw, program, config, text, e):
            raise
        report.miscompiled.append(f"{config}: {e.kind}: {e.detail}"[:2000])
    report.gradients += 1
    if getattr(gradient, "warnings", None) is not None:
        raise gradient.warnings


# Kinds of mismatch a C compiler's wrong code can cause in a right C gradient.
MISCOMPILE_KINDS = ("side-effects", "wrong-gradient")


def miscompiled(draw: Draw, program: Program, config: Config, text: str, e: Bad) -> bool:
    """Whether a C gradient that failed at gcc -O2 is right C that gcc got wrong: it passes every
    check built without the two passes gcc 12.2 miscompiles, and again at -O1 under the address
    and undefined-behaviour sanitizers (so no undefined behaviour of the source explains -O2's
    result). Such a gradient is not a mismatch; the fuzzer lists it apart (seeds 10300653,
    10600015: gcc deletes a call to a function whose loop writes an array it also reads)."""
    if config.target != "c" or e.kind not in MISCOMPILE_KINDS:
        return False
    try:
        for build in ("no-ipa", "sanitized"):
            _check_runs(draw, config, load(program, text, config, build), text, {})
    except (Bad, AssertionError):  # AssertionError: cbuild's CompileError and SanitizerError
        return False
    return True


def _check_runs(draw: Draw, config: Config, gradient: Gradient, text: str, vectors: dict) -> None:
    """Run ``gradient`` (several times on 2 and 4 threads where it has OpenMP loops) and check
    the arrays it leaves and its adjoints; raises Bad, or Refused for a rank guard's stop."""
    parallel = config.target == "c" and "#pragma omp" in text
    runs = [(t, r) for t in THREADS for r in range(OMP_RUNS)] if parallel else [(0, 0)]
    for threads, _ in runs:
        if threads:
            _set_threads(threads)
        where = f"{config}" + (f" OMP_NUM_THREADS={threads}" if threads else "")
        try:
            scalars, arrays, shadows = gradient(draw.inputs, draw.seeds, draw.d_return)
        except Bad:
            raise
        except Exception as e:  # noqa: BLE001 - the generated gradient raised
            if rank_guard_refused(e, draw.inputs):
                raise Refused(f"{where}: {e}") from None
            raise Bad("runtime", f"{type(e).__name__}: {e}"[:2000]) from None
        for name, want in draw.exit_arrays.items():
            if isinstance(want, np.ndarray) and want.dtype.kind == "f":
                if not np.allclose(arrays[name], want, rtol=SIDE_TOL, atol=SIDE_TOL):
                    raise Bad("side-effects", f"{where}: array {name} at exit differs from the primal's")
        got = draw.vector(scalars, shadows)
        problem = _compare(got, draw.fd, GRAD_TOL, "central differences")
        if problem:
            raise Bad("wrong-gradient", f"{where}: {problem}")
        vectors[where] = got


def check_program(program: Program, seed: int, configs: list[Config],
                  on_config: Callable[[str], None] = lambda c: None) -> Report:
    report = Report()
    try:
        primal = Primal(program)
    except Exception as e:  # noqa: BLE001 - the generator made something that does not run
        return Report(status="invalid", note=f"primal does not build: {e}"[:2000])
    try:
        draw = find_draw(primal, seed)
    except Rejected as e:
        return Report(status="rejected", note=str(e))
    except Exception as e:  # noqa: BLE001 - the twin disagrees, or the program raised: the generator's fault
        return Report(status="invalid", note=f"{type(e).__name__}: {e}"[:2000])
    vectors: dict = {}
    with shared_work():
        for config in configs:
            on_config(str(config))
            try:
                check_config(draw, program, config, report, vectors)
            except Refused as e:
                report.refusals.append((str(config), str(e)))
            except Bad as e:
                report.mismatches.append(Mismatch(str(config), e.kind, e.detail))
    if vectors:
        base_name, base = next(iter(vectors.items()))
        for name, vec in vectors.items():
            problem = _compare(vec, base, CROSS_TOL, base_name)
            if problem:
                report.mismatches.append(Mismatch(name, "disagree", problem))
    if report.mismatches:
        report.status = "mismatch"
    elif not report.gradients:
        report.status = "refused"
    return report


def parallel_loops(program: Program) -> bool:
    return any(isinstance(n, For) and n.parallel for n in walk_body(program.main.body))
