"""Checkpointing schedules: revolve's arithmetic, the generated drivers, errors and --report.

The golden cases golden/checkpoint_* and golden/c/checkpoint_* check each schedule's output
and its gradient against finite differences; here, every schedule must give store-all's
gradient on random loop programs (hypothesis), the generated binomial driver must re-run
exactly as many iterations as the revolve formula says, and a schedule that cannot apply
must be reported compiler-style.
"""

from __future__ import annotations

import re
from functools import lru_cache
from math import comb

import numpy as np
import pytest
from hypothesis import assume, given, settings
from fd import written_arrays
from hypothesis import strategies as st
from test_properties import _exec, loop_programs

from s2sad.pipeline import parse_source
from s2sad import pipeline
from s2sad.adjoint import revolve
from s2sad.ssa.attrs import parse_schedule
from s2sad.cli import main

SCHEDULES = ["recompute", "periodic(1)", "periodic(3)", "binomial(1)", "binomial(2)", "binomial(4)"]

HEAT = """\
def heat(u, work, n: int, steps: int, c: float):
    # s2sad: checkpoint {schedule}
    for t in range(steps):
        for i in range(1, n - 1):
            work[i] = u[i] + c * (u[i - 1] - 2.0 * u[i] + u[i + 1]) - 0.1 * u[i] ** 3
        for i in range(1, n - 1):
            u[i] = work[i]
    s = 0.0
    for i in range(n):
        s += u[i] * u[i]
    return s
"""


# ------------------------------------------------------------------ revolve arithmetic
@lru_cache(maxsize=None)
def _optimal(steps: int, free: int) -> int:
    """The least number of advances to reverse ``steps`` steps with ``free`` spare snapshots (DP)."""
    if steps <= 1:
        return 0
    if free == 0:
        return steps * (steps - 1) // 2
    return min(m + _optimal(steps - m, free - 1) + _optimal(m, free) for m in range(1, steps))


def _cost(steps: int, free: int) -> int:
    if steps <= 1:
        return 0
    m = revolve.split(steps, free)
    assert 1 <= m < steps
    return m + _cost(steps - m, free - 1) + _cost(m, free)


def test_split_is_optimal_and_formula_matches_the_dynamic_program():
    for free in range(0, 5):
        for steps in range(1, 120):
            assert _cost(steps, free) == _optimal(steps, free), (steps, free)
            assert revolve.advances(steps, free + 1) == _optimal(steps, free), (steps, free)


def test_simulated_driver_recomputes_what_the_formula_says():
    for s in range(1, 7):
        for steps in range(0, 200):
            assert revolve.simulate(steps, s) == revolve.recomputed(steps, s), (steps, s)
    # binomial(1) is recompute: iteration k re-runs k iterations, except the last one.
    assert revolve.recomputed(10, 1) == comb(9, 2)


def test_parse_schedule():
    assert str(parse_schedule("binomial(snapshots=10)")) == "binomial(10)"
    assert str(parse_schedule(" periodic( k = 4 ) ")) == "periodic(4)"
    assert str(parse_schedule("recompute")) == "recompute"
    for bad in ("binomial", "binomial(0)", "periodic(x)", "revolve(3)", "store-all(2)", "binomial(k=3)"):
        with pytest.raises(ValueError):
            parse_schedule(bad)


# ------------------------------------------------------------ generated code, numerically
def _heat_gradient(schedule: str, instrument: bool = False):
    text = pipeline.gradient_source(HEAT.format(schedule=schedule), "heat.py", "heat", ["u", "c"], "py")
    if instrument:
        text = _count_advances(text)
    return _exec(text)


def _count_advances(text: str) -> str:
    """Count each iteration the reverse sweep re-runs: a counter bump inside every advance loop."""
    lines = text.splitlines()
    out = []
    found = 0
    for k, line in enumerate(lines):
        out.append(line)
        if re.match(r"\s*for \w+ in range\((ck_at, ck_mid|ck_from, t)\):", line):
            indent = re.match(r"\s*", lines[k + 1]).group(0)
            out.append(f"{indent}ADVANCES[0] += 1")
            found += 1
    assert found == 1, "one advance loop per checkpointed loop"
    return "\n".join(out) + "\n"


def _run_heat(g, steps: int, n: int = 6, seed: int = 0):
    rng = np.random.default_rng(seed)
    u = rng.uniform(-1, 1, n)
    work = np.zeros(n)
    d_u = rng.normal(size=n)
    d_work = rng.normal(size=n)
    d_c = g.grad_heat(u, d_u, work, d_work, n, steps, 0.2, d_return=0.9)
    return d_c, d_u, d_work, u, work


@pytest.mark.parametrize("schedule", SCHEDULES)
def test_heat_schedules_match_store_all(schedule):
    reference = _heat_gradient("store-all")
    g = _heat_gradient(schedule)
    for steps in (0, 1, 2, 5, 11):
        for got, want in zip(_run_heat(g, steps), _run_heat(reference, steps)):
            np.testing.assert_allclose(got, want, rtol=1e-12, atol=1e-14)


# y is never active, but each iteration rewrites it (a while loop too), and the active x reads it:
# a re-run from a checkpoint must start from y as it was there, not as later iterations left it.
REWRITTEN_INACTIVE = """\
import numpy as np


def f(x: "f64[n]", y: "f64[n]", a: float, n: int) -> float:
    s = 0.0
    for k in range(n):
        for i in range(n):
            y[i] = y[i] * 1.1 + 0.1
            x[i] = x[i] * np.sin(y[i]) + a
        while y[0] < 5.0:
            y[0] = y[0] * 1.5 + 1.0
        s += x[k] * y[k]
    return s
"""


def _check_schedule(source: str, wrt: list[str], params, written: set[str], schedule: str, level: int) -> None:
    """The gradient of ``f`` under ``schedule`` at ``level`` matches central differences."""
    from fd import check_gradient

    text = pipeline.gradient_source(source, "prog.py", "f", wrt, "py",
                                    pipeline.Options(level=level, checkpoint=parse_schedule(schedule)))
    assert f"{schedule} checkpointing" in text
    namespace: dict = {}
    exec(compile(text, "<grad_f>", "exec"), namespace)
    primal: dict = {}
    exec(compile(source, "<f>", "exec"), primal)
    for seed in range(2):
        check_gradient(primal["f"], namespace["grad_f"], params, wrt, written, np.random.default_rng(seed))


@pytest.mark.parametrize("level", [0, 2])
@pytest.mark.parametrize("schedule", ["recompute", "periodic(2)", "binomial(2)"])
def test_a_rewritten_inactive_array_is_restored_for_each_rerun(schedule, level):
    """The question fuzzer seed 2000354 raised (an inactive y multiplied by np.sinh of itself in a
    loop): the checkpoint restores y, so neither y at exit nor the gradient changes."""
    from fd import ParamSpec

    params = [ParamSpec("x", "array", (5,)), ParamSpec("y", "array", (5,)), ParamSpec("a", "float"),
              ParamSpec("n", "int", value=5)]
    _check_schedule(REWRITTEN_INACTIVE, ["x", "a"], params, {"x", "y"}, schedule, level)


HELPER_READS_AN_ARRAY_WRITTEN_AFTER = """\
import numpy as np


def w(out, z, c, n: int):
    for i in range(n):
        out[i] = np.copysign(c, z[0])


def f(x: "f64[n]", y: "f64[n]", n: int) -> float:
    for i in range(1, n):
        for j in range(n):
            w(y, x, x[i], n)
    x[0] = -x[0]
    return y[1]
"""


@pytest.mark.parametrize("level", [0, 2])
@pytest.mark.parametrize("schedule", ["recompute", "periodic(2)", "binomial(2)"])
def test_a_call_rerun_from_a_checkpoint_reads_the_loops_entry_copy(schedule, level):
    """Fuzzer seed 10911132: a call's argument copy in a checkpointed loop was pushed from the
    array the loop's entry copy was taken of, not from the copy, so the re-run read ``x`` as the
    code after the loop left it (here its sign flipped: d_x[i] came out negated)."""
    from fd import ParamSpec

    params = [ParamSpec("x", "array", (4,)), ParamSpec("y", "array", (4,)), ParamSpec("n", "int", value=4)]
    _check_schedule(HELPER_READS_AN_ARRAY_WRITTEN_AFTER, ["x"], params, {"x", "y"}, schedule, level)


@pytest.mark.parametrize("target", ["py", "numba", "c"])
def test_the_binomial_split_is_one_commented_helper(target):
    """The split's integer arithmetic is written once, in a function that says what it computes,
    and called where the forward and the reverse sweep place a snapshot; a function of the
    input with the helper's name keeps it (the helper takes another)."""
    text = pipeline.gradient_source(HEAT.format(schedule="binomial(3)"), "heat.py", "heat", ["u", "c"], target)
    definition = r"(?:def|static long) revolve_split\((?:long )?steps, (?:long )?free_slots\)"
    assert len(re.findall(definition, text)) == 1, text
    assert len(re.findall(r"ck_split = revolve_split\(ck_steps, ck_free\)", text)) == 2, text
    assert "Algorithm 799: revolve" in text
    assert len(re.findall(r"^\s*(?:long )?span = ", text, re.MULTILINE)) == 2  # its start, its loop
    clash = HEAT.format(schedule="binomial(3)").replace("    return s\n", "    return revolve_split(s, 0.0)\n")
    clash += "\n\ndef revolve_split(a, b):\n    return a + b\n"
    text = pipeline.gradient_source(clash, "heat.py", "heat", ["u", "c"], target, pipeline.Options(level=0))
    assert len(re.findall(r"ck_split = revolve_split_\(ck_steps, ck_free\)", text)) == 2, text
    assert "grad_revolve_split(s, " in text


@pytest.mark.parametrize("snapshots", [1, 2, 3, 5])
def test_binomial_recomputation_equals_revolve_formula(snapshots):
    g = _heat_gradient(f"binomial({snapshots})", instrument=True)
    for steps in (1, 2, 7, 30, 64):
        g.ADVANCES = np.zeros(1, dtype=np.int64)
        g.grad_heat.__globals__["ADVANCES"] = g.ADVANCES
        _run_heat(g, steps, n=4)
        assert g.ADVANCES[0] == revolve.recomputed(steps, snapshots), (steps, snapshots)


def test_recompute_and_periodic_recomputation():
    for schedule, expected in (("recompute", lambda n: (n - 1) * (n - 2) // 2), ("periodic(4)", None)):
        g = _heat_gradient(schedule, instrument=True)
        for steps in (3, 10, 17):
            g.grad_heat.__globals__["ADVANCES"] = np.zeros(1, dtype=np.int64)
            _run_heat(g, steps, n=4)
            got = g.grad_heat.__globals__["ADVANCES"][0]
            if expected is not None:
                assert got == expected(steps)
            else:  # within each segment of 4, iteration j re-runs j; the last iteration none
                want = sum(k % 4 for k in range(steps - 1))
                assert got == want


@settings(max_examples=15, deadline=None)
@given(loop_programs(), st.sampled_from(SCHEDULES), st.booleans(), st.integers(0, 2**16))
def test_every_schedule_gives_store_alls_gradient(source, schedule, nested, seed):
    """Random loop programs (a carried scalar, arrays written, branches), checkpointed by
    --checkpoint; ``nested`` wraps the loop in an outer one, which is then the checkpointed unit."""
    if nested:
        head, _, rest = source.partition("    for i in range(n):\n")
        body, _, ret = rest.rpartition("    return ")
        indented = "".join("    " + line + "\n" for line in ("    for i in range(n):\n" + body).splitlines())
        source = head + "    for r in range(3):\n" + indented + "    return " + ret
    y_shadowed = "y" in written_arrays(parse_source(source, "prog.py", "f"), "f")
    results = []
    for sched in ("store-all", schedule):
        options = pipeline.Options(checkpoint=parse_schedule(sched))
        text = pipeline.gradient_source(source, "prog.py", "f", ["x", "a"], "py", options)
        rng = np.random.default_rng(seed)
        x, y = rng.uniform(-1, 1, 5), rng.uniform(-1, 1, 5)
        d_x, d_y = rng.normal(size=5), rng.normal(size=5)
        args = [x, d_x, y, d_y] if y_shadowed else [x, d_x, y]
        with np.errstate(all="ignore"):
            try:
                d_a = _exec(text).grad_f(*args, 0.3, 5, d_return=0.7)
            except OverflowError:  # math.exp of a blown-up draw: the program, not the schedule
                assume(sched != "store-all")
                raise
        results.append([np.asarray(v, dtype=float) for v in (d_a, d_x, d_y, x, y)])
    for got, want in zip(results[1], results[0]):
        np.testing.assert_allclose(got, want, rtol=1e-9, atol=1e-12, equal_nan=True)


# ------------------------------------------------------------------------- diagnostics
def _grad_cli(tmp_path, capsys, source: str, *flags: str, name: str = "prog.py"):
    path = tmp_path / name
    path.write_text(source)
    status = main(["grad", str(path), "--wrt", "x", *flags])
    captured = capsys.readouterr()
    return status, captured.out, captured.err


BAD = {
    "while": (
        "def f(x, n: int):\n    i = 0\n    # s2sad: checkpoint binomial(2)\n    while x[i] < 1.0:\n"
        "        x[i] = x[i] * x[i] + 1.0\n        i += 1\n",
        "its trip count is known only when it ends",
    ),
    "while_periodic": (
        "def f(x, n: int):\n    i = 0\n    # s2sad: checkpoint periodic(3)\n    while x[i] < 1.0:\n"
        "        x[i] = x[i] * x[i] + 1.0\n        i += 1\n",
        "cannot checkpoint this while loop with periodic(3)",
    ),
    "nested": (
        "def f(x, n: int):\n    for j in range(3):\n        # s2sad: checkpoint recompute\n"
        "        for i in range(n):\n            x[i] = x[i] * x[i]\n",
        "nested in another loop",
    ),
    "step": (
        "def f(x, n: int, k: int):\n    # s2sad: checkpoint periodic(2)\n    for i in range(0, n, k):\n"
        "        x[i] = x[i] * x[i]\n",
        "its step is not a constant",
    ),
    "stray": (
        "def f(x, n: int):\n    # s2sad: checkpoint binomial(2)\n\n    for i in range(n):\n"
        "        x[i] = x[i] * x[i]\n",
        "not on the line right above a loop",
    ),
    "malformed": (
        "def f(x, n: int):\n    # s2sad: checkpoint binomial(snapshots=0)\n    for i in range(n):\n"
        "        x[i] = x[i] * x[i]\n",
        "must be a positive integer",
    ),
}


@pytest.mark.parametrize("case", sorted(BAD))
def test_schedules_that_cannot_apply_are_reported(tmp_path, capsys, case):
    source, reason = BAD[case]
    status, out, err = _grad_cli(tmp_path, capsys, source)
    assert status == 1 and out == ""
    first, line, caret, hint = err.splitlines()[:4]
    assert re.match(r".*prog\.py:\d+:\d+: error: ", first) and reason in first
    assert "checkpoint" in line and caret.strip().startswith("^")
    assert hint.startswith("hint: ")
    assert "Traceback" not in err


def test_counted_while_loops_can_be_checkpointed(tmp_path, capsys):
    """``while (i < n) ... i++`` is a for loop after the optimizer's ``counted`` pass, so a
    schedule applies to it (a while whose count depends on the data is the error below)."""
    source = (
        "void f(double *x, int n) {\n    int i = 0;\n#pragma s2sad checkpoint binomial(3)\n"
        "    while (i < n) { x[i] = x[i] * x[i]; i++; }\n}\n"
    )
    status, out, err = _grad_cli(tmp_path, capsys, source, name="prog.c")
    assert status == 0, err
    assert "binomial" in out


WHILE = """\
import math


def f(x, w, n: int, a: float):
    k = 0
    done = False
    # s2sad: checkpoint {schedule}
    while a < 6.0 and not done:
        for j in range(n):
            w[j] = w[j] * 0.5 + math.sin(x[(j + k) % n]) * a
        a = a * 1.3 + 0.1 * w[k % n] * w[k % n] + 0.2
        if a > 5.5:
            done = True
            break
        x[k % n] = x[k % n] * 0.8 + 0.05 * a
        k += 1
    return a + w[0]
"""


@pytest.mark.parametrize("level", [2, 0])
def test_recompute_while_gives_store_alls_gradient(level):
    """A data-dependent while loop (an inner loop, a flag, a break) under ``recompute``."""
    grads = []
    for schedule in ("store-all", "recompute"):
        src = pipeline.gradient_source(WHILE.format(schedule=schedule), "w.py", "f", ["x", "w", "a"], "py",
                                       pipeline.Options(level=level))
        assert ("rebuild the state of this iteration (recompute)" in src) == (schedule == "recompute")
        ns = _exec(src)
        rng = np.random.default_rng(3)
        x, w = rng.uniform(-1, 1, 4), rng.uniform(-1, 1, 4)
        d_x, d_w = rng.normal(size=4), rng.normal(size=4)
        d_a = ns.grad_f(x, d_x, w, d_w, 4, 0.4, 0.7)
        grads.append(np.concatenate([d_x, d_w, [d_a]]))
    assert np.allclose(grads[0], grads[1], rtol=1e-12, atol=1e-12)


def test_c_pragma_error(tmp_path, capsys):
    source = (
        "void f(double *x, int n) {\n    int i = 0;\n#pragma s2sad checkpoint binomial(3)\n"
        "    while (x[i] < 1.0) { x[i] = x[i] * x[i] + 1.0; i++; }\n}\n"
    )
    status, _, err = _grad_cli(tmp_path, capsys, source, name="prog.c")
    assert status == 1
    assert "prog.c:3:" in err and "while loop" in err and "#pragma s2sad checkpoint" in err
    assert "use `checkpoint recompute`" in err


def test_may_alias_refuses_checkpointing(tmp_path, capsys):
    source = HEAT.format(schedule="recompute").replace("u[", "x[").replace("(u,", "(x,")
    status, _, err = _grad_cli(tmp_path, capsys, source, "--may-alias")
    assert status == 1
    assert "cannot checkpoint this loop with --may-alias" in err and "for t in range(steps):" in err


def test_checkpoint_option_errors_say_how_to_exempt_a_loop(tmp_path, capsys):
    source = "def f(x, n: int, k: int):\n    for i in range(0, n, k):\n        x[i] = x[i] * x[i]\n"
    status, _, err = _grad_cli(tmp_path, capsys, source, "--checkpoint", "binomial(3)")
    assert status == 1 and "prog.py:2:5: error: cannot checkpoint this loop with binomial(3)" in err
    assert "# s2sad: checkpoint store-all" in err
    exempt = source.replace("    for i", "    # s2sad: checkpoint store-all\n    for i")
    status, out, _ = _grad_cli(tmp_path, capsys, exempt, "--checkpoint", "binomial(3)")
    assert status == 0 and "ck_" not in out


def test_checkpoint_option_is_checked(tmp_path, capsys):
    status, _, err = _grad_cli(tmp_path, capsys, HEAT.format(schedule="store-all"), "--checkpoint", "revolve")
    assert status == 2 and "--checkpoint" in err


# ----------------------------------------------------------------------------- --report
def test_report_on_stderr_and_atop_the_gradient(tmp_path, capsys):
    source = HEAT.format(schedule="binomial(snapshots=4)").replace("--wrt", "")
    path = tmp_path / "heat.py"
    path.write_text(source)
    assert main(["grad", str(path), "--wrt", "u,c", "--report"]) == 0
    captured = capsys.readouterr()
    report = captured.err.splitlines()
    assert report[0] == "memory of grad_heat (reverse sweep of heat):"
    assert "  loop at line 3: binomial(4) checkpointing" in report
    assert any(r.startswith("    snapshots: 4 slots x (8 B x len(work) + 8 B x len(u))") for r in report)
    assert any("f64, 8 B x iterations of line 4, remade per line-3 iteration" in r for r in report)
    for line in report:  # the same summary, as comments at the top of grad_heat
        assert ("    # " + line).rstrip() in captured.out
    assert captured.out.index("# memory of grad_heat") < captured.out.index("# forward sweep")


def test_report_store_all_lists_tapes(tmp_path, capsys):
    status, out, err = _grad_cli(tmp_path, capsys, HEAT.format(schedule="store-all").replace("u,", "x,")
                                 .replace("(u, ", "(x, ").replace("u[", "x["), "--report")
    assert status == 0
    assert "  loop at line 3: store-all" in err
    assert "8 B x iterations of lines 3, 4" in err


def test_no_report_no_comment():
    text = pipeline.gradient_source(HEAT.format(schedule="binomial(2)"), "heat.py", "heat", ["u", "c"], "py")
    assert "memory of" not in text


# -- the annotation is the loop's attribute ---------------------------------------------------

COUNTED_WHILE = """
def f(x: "f64[n]", n: int) -> float:
    s = 0.0
    k = 0
    # s2sad: checkpoint recompute
    while k < n:
        s = s * 0.5 + x[k]
        k += 1
    return s
"""


def test_an_annotation_becomes_the_loops_attribute_and_survives_the_passes():
    """The front end reads the comment into ``checkpoint``; at -O2 ``counted`` turns this while
    into a for, which keeps it (the schedule is not looked up by source line any more)."""
    from s2sad.ssa.attrs import loop_schedule
    from s2sad.ssa.parser import parse_module
    from s2sad.ssa.printer import print_module

    module = parse_source(COUNTED_WHILE, "prog.py", "f")
    loop = next(op for op in module.functions["f"].walk() if op.name == "while")
    schedule, where = loop_schedule(loop)
    assert str(schedule) == "recompute" and (where.line, where.col) == (5, 25)
    again = parse_module(print_module(module))  # the attribute prints and parses back
    assert [str(loop_schedule(op)[0]) for op in again.functions["f"].walk() if op.name == "while"] == ["recompute"]

    optimized, name = pipeline.primal_module(COUNTED_WHILE, "prog.py", "f", pipeline.Options(level=2))
    loops = [op for op in optimized.functions[name].walk() if op.name in ("for", "while")]
    assert [(op.name, str(loop_schedule(op)[0])) for op in loops] == [("for", "recompute")]
