"""The differential fuzzer (tests/fuzzgen) in CI.

A fixed-seed run over the grammar (minus any feature that waits on a known bug,
driver.KNOWN_BUGS: none today) must find no mismatch; the other tests make sure the checker really fails
on a wrong gradient, a crash, output that does not compile, and counts a located refusal as a
refusal, and that the shrinker keeps a failure while it shrinks. ``scripts/fuzz`` runs the same
code for as long as asked.
"""

from __future__ import annotations

import ctypes
import functools

import numpy as np
import pytest

from cbuild import have_gcc
from fuzzgen import check, driver, gradients
from fuzzgen.check import configs_for
from fuzzgen.frontend import shared_work
from fuzzgen.intrinsics import guarded
from fuzzgen.isolate import run_isolated as check_program
from fuzzgen.generate import FEATURES, generate
from fuzzgen.gradients import Config
from fuzzgen import primal as primal_mod
from fuzzgen.primal import source_of
from fuzzgen.program import (
    ArrayArg, Assign, Bin, BoolOp, CallF, Cmp, For, Function, IAssign, IBin, IConst, ICmp, If, Intr, IRef, Load,
    Not, Num, Param, Program, Ref, Return, Store, Trunc, walk_body, written_params,
)
from fuzzgen.shrink import shrink, size
from s2sad.diagnostics import error
from s2sad.ssa.ir import SourceLoc

pytestmark = pytest.mark.skipif(not have_gcc(), reason="gcc is not installed")

# The CI run: programs drawn with driver.CI_FEATURES (Python for even seeds, C for odd ones),
# every feature of the grammar (``recursion`` included) since no class waits on a fix; about a
# minute and a half on two cores. The seeds left out of 1..52 (12, 20, 21, 26, 33, 36) draw a
# program refused under every configuration (a while loop checkpointed periodically, unannotated
# arrays for C: right, but nothing is checked); picked again when ``recursion`` joined.
# Checks run in forked children (isolate.py), which inherit the monkeypatches below.
CI_SEED = 0
CI_SEEDS = [1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 13, 14, 15, 16, 17, 18, 19, 22, 23, 24, 25, 27, 28,
            29, 30, 31, 32, 34, 35, 37, 38, 39, 40, 41, 42, 43, 44, 45, 46, 47, 48, 49, 50, 51, 52]


def test_fixed_seed_run_finds_no_mismatch():
    seeds = CI_SEEDS
    outcome = driver.run(None, None, CI_SEED, ["py", "c"], jobs=2, features=driver.CI_FEATURES,
                         numba_every=5, seeds=seeds)
    found = [f"{kind} at {config}: seeds {[c[0] for c in cases]}: {cases[0][2].detail[-600:]}"
             for (kind, config), cases in outcome.classes.items()]
    assert not found, "\n\n".join(found)
    assert outcome.invalid == 0, outcome.notes
    assert outcome.programs == len(seeds)
    assert outcome.gradients >= 5 * len(seeds), outcome.summary()


@functools.lru_cache(maxsize=None)
def _small_program(lang: str):
    """The first CI program that s2sad differentiates at -O2 and at -O0 for its own language."""
    for seed in range(100):
        program = generate(seed, lang, driver.CI_FEATURES)
        config = Config("py" if lang == "py" else "c", 2)
        report = check_program(program, seed, [Config(config.target, 0), config])
        if report.status == "ok" and report.gradients == 2:
            return program, seed, config
    raise AssertionError("no program")


@pytest.mark.parametrize("lang", ["py", "c"])
def test_a_wrong_gradient_is_a_mismatch(monkeypatch, lang):
    program, seed, config = _small_program(lang)
    real_load = check.load

    def off_by_a_little(program, text, config, build=""):  # in every build: not a miscompile
        gradient = real_load(program, text, config, build)

        def wrong(inputs, seeds, d_return):
            scalars, arrays, shadows = gradient(inputs, seeds, d_return)
            shadows["x"][0] += 1e-3 * (1.0 + abs(shadows["x"][0]))
            return scalars, arrays, shadows

        return wrong

    monkeypatch.setattr(check, "load", off_by_a_little)
    report = check_program(program, seed, [config])
    assert report.status == "mismatch"
    assert [m.kind for m in report.mismatches] == ["wrong-gradient"]
    assert "d_x[0]" in report.mismatches[0].detail


def test_a_c_gradient_only_gcc_O2_gets_wrong_is_set_aside_not_hidden(monkeypatch):
    """A C gradient that is wrong as gcc -O2 built it, and right built without gcc 12.2's faulty
    passes and under the sanitizers, is right C: listed apart (the program counts as checked),
    not a mismatch. Wrong in every build (the test above), it stays a mismatch."""
    program, seed, config = _small_program("c")
    real_load = check.load
    builds = []

    def wrong_at_O2(program, text, config, build=""):
        gradient = real_load(program, text, config, build)
        builds.append(build)

        def maybe_wrong(inputs, seeds, d_return):
            scalars, arrays, shadows = gradient(inputs, seeds, d_return)
            if build == "":
                shadows["x"][0] += 1.0
            return scalars, arrays, shadows

        return maybe_wrong

    monkeypatch.setattr(check, "load", wrong_at_O2)
    report = check.check_program(program, seed, [config])
    assert report.status == "ok" and not report.mismatches and report.gradients == 1
    assert builds == ["", "no-ipa", "sanitized"]
    assert len(report.miscompiled) == 1 and "wrong-gradient" in report.miscompiled[0]


def test_configurations_that_disagree_are_a_mismatch(monkeypatch):
    program, seed, config = _small_program("py")
    real_load = check.load
    calls = []

    def slightly_off_the_second_time(program, text, config, build=""):
        gradient = real_load(program, text, config, build)
        calls.append(config)

        def maybe_off(inputs, seeds, d_return):
            scalars, arrays, shadows = gradient(inputs, seeds, d_return)
            if len(calls) > 1:  # the largest entry: inside the difference tolerance, outside the cross one
                shadow = max(shadows.values(), key=lambda a: float(np.max(np.abs(a))))
                shadow.flat[np.argmax(np.abs(shadow))] *= 1.0 + 1e-6
            return scalars, arrays, shadows

        return maybe_off

    monkeypatch.setattr(check, "load", slightly_off_the_second_time)
    report = check_program(program, seed, [Config("py", 0), config])
    assert [m.kind for m in report.mismatches] == ["disagree"]


def test_a_crash_and_output_that_does_not_compile_are_mismatches(monkeypatch):
    program, seed, config = _small_program("c")

    def crash(*args, **kwargs):
        raise KeyError("boom")

    monkeypatch.setattr(gradients.pipeline, "gradient_source", crash)
    assert [m.kind for m in check_program(program, seed, [config]).mismatches] == ["crash"]
    monkeypatch.setattr(gradients.pipeline, "gradient_source",
                        lambda *a, **k: "void grad_f(double *x, double *d_x) { nonsense; }")
    kinds = [m.kind for m in check_program(program, seed, [config]).mismatches]
    assert kinds == ["signature"] or kinds == ["compile"]


def test_a_located_refusal_is_counted_not_a_mismatch(monkeypatch):
    program, seed, config = _small_program("py")

    def refuse(*args, **kwargs):
        raise error("cannot differentiate this", SourceLoc("prog.py", 3, 5))

    monkeypatch.setattr(gradients.pipeline, "gradient_source", refuse)
    report = check_program(program, seed, [config])
    assert report.status == "refused" and not report.mismatches
    assert report.refusals[0][1].startswith("prog.py:3:5: error: cannot differentiate this")

    monkeypatch.setattr(gradients.pipeline, "gradient_source", lambda *a, **k: (_ for _ in ()).throw(
        error("no location")))
    assert [m.kind for m in check_program(program, seed, [config]).mismatches] == ["unlocated-refusal"]


def test_a_rank_guard_that_stops_another_rank_is_a_refusal():
    """The documented check of an assumed rank (README) refuses inputs of another rank; stopping
    the rank it asks for would refuse a caller the gradient serves: a mismatch."""
    matrix = ValueError('W must be a 1-D array: its rank is not evident in f (else annotate W: "f64[m, n]")')
    number = ValueError('b must be a number: its rank is not evident in f (for an array, annotate b: "f64[n]")')
    assert check.rank_guard_refused(matrix, {"W": np.ones((3, 2))})
    assert not check.rank_guard_refused(matrix, {"W": np.ones(3)})
    assert check.rank_guard_refused(number, {"b": np.ones(3)})
    assert not check.rank_guard_refused(number, {"b": 0.5})
    assert not check.rank_guard_refused(ValueError("math domain error"), {"W": np.ones(3)})


def test_an_array_taken_for_a_number_and_checked_is_a_refusal():
    """Seed 2000480, shrunk: `x` is never read, so s2sad takes it for a number, gives it no
    shadow, and checks on entry that it is one: called as the contract says for an array, the
    gradient stops. That is the refusal of a guess, not a wrong signature."""
    params = (Param("x", "array"), Param("y", "array"), Param("W", "matrix"), Param("a", "float"),
              Param("b", "float"), Param("n", "int"), Param("m", "int"))
    program = Program("py", (Function("f", params, (Return(Num(1.0)),)),), ("x", "a", "b"), annotate=False)
    report = check_program(program, 2000480, [Config("py", 0), Config("c", 0)])
    assert report.status == "refused" and not report.mismatches, report.mismatches
    assert "checks that on entry" in report.refusals[0][1]
    assert "the kind of parameter 'x' is not evident in 'f'" in report.refusals[1][1]


def test_an_unannotated_f_that_returns_an_int_takes_no_d_return():
    """Seed 4000074, shrunk: `return math.floor(x[1])` returns an int in Python, so the gradient
    has no d_return (the contract's, followed by s2sad); C's floor returns a double, and so does
    a Python `f` one of whose returns is a float, or that says `-> float`: those take it."""
    params = (Param("x", "array"), Param("W", "matrix"), Param("a", "float"), Param("b", "float"),
              Param("n", "int"), Param("m", "int"))
    floor = Intr("floor", (Load("x", (IConst(1),)),))
    mixed = (If(Cmp(">", Ref("a"), Num(0.0)), (Return(floor),)), Return(Load("x", (IConst(2),))))
    cases = [("py", False, (Return(floor),), False), ("py", False, (Return(Bin("*", floor, floor)),), False),
             ("py", False, mixed, True), ("py", True, (Return(floor),), True), ("c", True, (Return(floor),), True)]
    for lang, annotate, body, d_return in cases:
        program = Program(lang, (Function("f", params, body),), ("x", "a", "b"), annotate=annotate)
        assert (gradients.expected_params(program, "py")[-1][1] == "return") == d_return
        # (C output of an unannotated f is refused: the kinds of its unread parameters are not evident)
        configs = [Config("py", 1), Config("numba", 1)] * (lang == "py") + [Config("c", 1)] * annotate
        report = check_program(program, 4000074, configs)
        assert report.status == "ok" and report.gradients == len(configs), (lang, annotate, report.mismatches)


def test_extents_of_unannotated_arrays_that_c_output_asks_for_are_passed():
    """Seed 5000038, shrunk: y, unannotated, is passed to r1 and written after the call, so C
    output at -O0 and -O1 snapshots it and needs its extent: a `long y_shape0` parameter before
    d_return, as the README says (at -O2 r1 is inlined and it is not needed). The checker takes
    such a parameter where the README puts it, and passes the array's true extent."""
    r1 = Function("r1", (Param("z", "array"), Param("c", "float"), Param("n", "int")),
                  (Return(Bin("*", Load("z", (IConst(3),)), Ref("c"))),))
    params = (Param("x", "array"), Param("y", "array"), Param("a", "float"), Param("b", "float"), Param("n", "int"))
    body = (Assign("s0", CallF("r1", (ArrayArg("y"), Ref("a"), IRef("n")))),
            Store("y", (IBin("%", IConst(2), IRef("n")),), Num(0.5), "+"),
            Return(Bin("*", Ref("s0"), Bin("*", Ref("b"), Load("x", (IConst(1),))))))
    program = Program("py", (r1, Function("f", params, body)), ("x", "a", "b"), annotate=False)
    text = gradients.differentiate(program, source_of(program), Config("c", 0))
    assert "long n, long y_shape0, double d_return)" in text
    configs = [Config("c", level) for level in (0, 1, 2)]
    report = check_program(program, 5000038, configs)
    assert report.status == "ok" and report.gradients == len(configs), report.mismatches


def test_a_primal_that_overflows_on_the_way_is_rejected():
    """Seed 2001055 (2001000 before the generator drew jump chains) makes np.cosh of a number so
    large it is inf before np.tanh makes it finite again: generated Python, calling math.cosh,
    raises there, and a reverse sweep multiplies the inf by a zero. The draw is rejected, not the
    gradients blamed."""
    report = check_program(generate(2001055, "py", driver.CI_FEATURES), 2001055, [])
    assert report.status == "rejected" and "FloatingPointError('overflow" in report.note


def test_the_twin_keeps_the_float_and_the_int_of_floor_and_ceil():
    """Seed 5000094, shrunk: np.ceil(-0.3) is -0.0 and gives copysign its sign; the twin called
    math.ceil, whose int 0 has none, and disagreed with the program ("invalid"). It calls what
    the program calls (NumPy's, C's: a float). And seed 5000142: math.floor of exp(150.0 + x[0])
    is an int past 2**63, which np.tanh cannot take: the primal overflows on the way, and the
    draw is rejected, as for any other overflow."""
    params = (Param("x", "array"), Param("a", "float"), Param("n", "int"))
    x0, x1 = Load("x", (IConst(0),)), Load("x", (IConst(1),))
    ceil = Intr("ceil", (Bin("-", Bin("*", Num(0.3), Intr("tanh", (x1,))), Num(0.5)),))
    for lang, features in (("py", frozenset({"np_spelling"})), ("c", frozenset())):
        body = (Return(Bin("+", Intr("copysign", (x0, ceil)), Ref("a"))),)
        program = Program(lang, (Function("f", params, body),), ("x", "a"), features=features)
        report = check_program(program, 5000094, [Config(lang, 1)])
        assert report.status == "ok", (lang, report.note, report.mismatches)
    huge = Intr("tanh", (Intr("floor", (Intr("exp", (Bin("+", Num(150.0), x0),)),)),))
    program = Program("py", (Function("f", params, (Return(huge),)),), ("x", "a"),
                      features=frozenset({"np_spelling"}))
    report = check_program(program, 5000142, [Config("py", 1)])
    assert report.status == "rejected" and "TypeError" in report.note, report.note


def test_a_power_of_a_power_means_in_the_twin_what_it_means_in_c():
    """Seeds 5000223 and 5000259, shrunk: C's pow(pow(a, 2), 3) printed for the twin as
    a ** 2 ** 3, which Python groups as a ** 8; the twin disagreed with the program."""
    params = (Param("x", "array"), Param("a", "float"), Param("n", "int"))
    body = (Return(Bin("*", Load("x", (IConst(0),)), Intr("cube", (Intr("square", (Ref("a"),)),)))),)
    for lang in ("c", "py"):
        program = Program(lang, (Function("f", params, body),), ("x", "a"))
        report = check_program(program, 5000223, [Config(lang, 1)])
        assert report.status == "ok", (lang, report.note, report.mismatches)


def test_a_draw_whose_scalars_overflow_on_the_way_is_rejected():
    """Seed 9400313, shrunk: s squared n * n times overflows to inf, and tanh(inf) = 1 hides it
    from the value; every gradient is then 0 * inf = NaN where the function is flat. The twin
    computes in NumPy's floats, which raise on the overflow: the draw is rejected."""
    params = (Param("x", "array"), Param("a", "float"), Param("n", "int"))
    body = (Assign("s0", Bin("+", Ref("a"), Num(3.0))),
            For("i1", IConst(0), IRef("n"), IConst(1),
                (For("i2", IConst(0), IRef("n"), IConst(1), (Assign("s0", Ref("s0"), "*"),)),)),
            Return(Bin("+", Intr("tanh", (Ref("s0"),)), Load("x", (IConst(0),)))))
    for lang in ("py", "c"):
        report = check_program(Program(lang, (Function("f", params, body),), ("x", "a")), 9400313, [Config(lang, 1)])
        assert report.status == "rejected" and "overflow" in report.note, (lang, report.note, report.mismatches)


def test_a_draw_whose_locals_overflow_on_the_way_is_rejected():
    """Seed 10000758, shrunk: s0 = 0.5, then s0 += s0 * s0 n * n times, never mixed with an input,
    overflowed in Python's floats with no error, and every gradient was NaN. The twin's
    arithmetic is NumPy's, locals too: the draw is rejected."""
    params = (Param("x", "array"), Param("a", "float"), Param("n", "int"))
    body = (Assign("s0", Num(0.5)),
            For("i1", IConst(0), IRef("n"), IConst(1),
                (For("i2", IConst(0), IRef("n"), IConst(1), (Assign("s0", Bin("*", Ref("s0"), Ref("s0")), "+"),)),)),
            Return(Bin("+", Intr("tanh", (Bin("*", Ref("s0"), Ref("a")),)), Load("x", (IConst(0),)))))
    for lang in ("py", "c"):
        report = check_program(Program(lang, (Function("f", params, body),), ("x", "a")), 10000758,
                               [Config(lang, 1)])
        assert report.status == "rejected" and "overflow" in report.note, (lang, report.note, report.mismatches)


def test_a_draw_whose_values_pass_the_digits_of_a_sum_is_rejected():
    """Seed 13609153, shrunk: h1 squared on and on reaches 1e40, where h1 - (z + h1) is 0, not -z;
    the program is flat in z there (central differences 0), the gradient is right of the
    expression as written (-h1, 1e43). Neither is the derivative of anything: the twin refuses
    values past 1e15 and the draw is rejected."""
    params = (Param("x", "array"), Param("a", "float"), Param("n", "int"))
    body = (Assign("s0", Bin("*", Num(1e17), Bin("+", Ref("a"), Num(3.0)))),
            Assign("s1", Bin("-", Ref("s0"), Bin("+", Load("x", (IConst(0),)), Ref("s0")))),
            Return(Bin("+", Ref("s1"), Intr("tanh", (Ref("a"),)))))
    for lang in ("py", "c"):
        report = check_program(Program(lang, (Function("f", params, body),), ("x", "a")), 13609153, [Config(lang, 1)])
        assert report.status == "rejected" and "overflows 1e+15" in report.note, (lang, report.note)


@pytest.mark.parametrize("error, status", [(1e-8, "rejected"), (1e-3, "invalid")])
def test_a_value_rounding_moves_from_its_twin_is_rejected(monkeypatch, error, status):
    """Seed 10000413: an OpenMP sum's order moved a C program's value 1e-8 away from its twin's.
    So close, the value depends on rounding, and the draw is rejected; a program further from its
    twin than rounding goes is still the generator's fault (invalid)."""
    run = primal_mod.Primal.run

    def off(self, inputs, strict=False):
        value, arrays = run(self, inputs, strict)
        return value * (1 + error), arrays

    monkeypatch.setattr(primal_mod.Primal, "run", off)
    report = check_program(generate(3, "py", driver.CI_FEATURES), 3, [])
    assert report.status == status, report.note


def test_a_c_primal_whose_twin_raises_is_rejected_before_it_runs():
    """Seed 6000047, shrunk: s0 overflows to inf, (int) of the NaN s0 - s0 makes the step of a
    loop negative, and the C primal reads x at negative indices until it dies, taking the checking
    child with it ("invalid"). The twin runs first, raises on the overflow, and the draw is rejected."""
    params = (Param("x", "array"), Param("a", "float"), Param("n", "int"))
    huge = Intr("sinh", (Bin("*", Num(800.0), Bin("+", Num(2.0), Intr("tanh", (Ref("a"),)))),))
    body = (Assign("s0", huge),
            IAssign("p1", IBin("+", IConst(1), Trunc(2.5, Intr("tanh", (Bin("-", Ref("s0"), Ref("s0")),))))),
            For("i2", IConst(0), IRef("n"), IRef("p1"), (Assign("s1", Load("x", (IRef("i2"),)), "+"),)),
            Return(Ref("s1")))
    report = check_program(Program("c", (Function("f", params, body),), ("x", "a")), 6000047, [])
    assert report.status == "rejected" and "OverflowError" in report.note, report.note


def test_a_guard_keeps_its_intrinsic_off_the_end_of_its_domain():
    """Seed 8000288, shrunk: acosh(2.0 + tanh(e)) with tanh(e) rounded to -1.0 is acosh at 1.0,
    where its derivative is infinite: the gradient's 0 * inf was NaN where the function is flat.
    The guard is 2.5 + tanh(e)."""
    params = (Param("x", "array"), Param("a", "float"), Param("n", "int"))
    e = Bin("-", Bin("*", Ref("a"), Load("x", (IConst(0),))), Num(40.0))
    body = (Return(Bin("+", guarded("acosh", (e,)), Load("x", (IConst(1),)))),)
    program = Program("py", (Function("f", params, body),), ("x", "a"))
    report = check_program(program, 8000288, [Config("py", 1), Config("c", 1)])
    assert report.status == "ok" and report.gradients == 2, (report.note, report.mismatches)


def test_a_draw_at_atan2s_origin_is_rejected():
    """Seed 9101291, shrunk: atan2(x[0] - x[0], x[0] - x[0]) is atan2(0, 0) at every step of the
    differences, so no decision moved, but its derivative is undefined there (the rule gives NaN,
    as documented): the draw is rejected, not checked."""
    params = (Param("x", "array"), Param("a", "float"), Param("n", "int"))
    zero = Bin("-", Load("x", (IConst(0),)), Load("x", (IConst(0),)))
    body = (Return(Bin("+", guarded("atan2", (zero, zero)), Load("x", (IConst(1),)))),)
    program = Program("c", (Function("f", params, body),), ("x", "a"))
    report = check_program(program, 9101291, [Config("py", 1), Config("c", 1)])
    assert report.status == "rejected" and "atan2" in report.note, report.note


def test_every_program_runs_in_its_language_and_agrees_with_its_twin():
    for seed in range(12):
        for lang in ("py", "c"):
            report = check_program(generate(seed, lang), seed, [])
            assert report.status in ("ok", "rejected", "refused"), (seed, lang, report.note)


def test_a_condition_tests_each_ints_parity_once():
    """gcc rejects ``p && !p`` on one parity test as always false (seed 9502163 drew it), and
    people do not write it: one condition never tests the same int's parity twice."""
    def parities(cond):  # the ints whose parity the and/or/not tree of ``cond`` tests
        if isinstance(cond, BoolOp):
            return parities(cond.left) + parities(cond.right)
        if isinstance(cond, Not):
            return parities(cond.arg)
        return [cond.left.left] if isinstance(cond, ICmp) and isinstance(cond.left, IBin) else []

    conditions = [n for seed in range(200) for n in walk_body(generate(seed, "c").main.body)
                  if isinstance(n, (BoolOp, Not))]
    assert sum(len(parities(c)) > 1 for c in conditions) > 0  # the draw does combine parity tests
    for cond in conditions:
        tested = parities(cond)
        assert len(tested) == len(set(tested)), cond


def test_the_shrinker_keeps_the_failure_and_drops_the_rest():
    program = next(p for p in (generate(s, "c") for s in range(50))
                   if any(isinstance(n, Store) for n in walk_body(p.main.body)) and size(p) > 60)
    small = shrink(program, lambda p: any(isinstance(n, Store) for n in walk_body(p.main.body)), seconds=20)
    assert any(isinstance(n, Store) for n in walk_body(small.main.body))
    assert size(small) < size(program) / 3


def test_every_level_and_target_and_schedule_is_drawn():
    configs = {str(c) for seed in range(12) for lang in ("py", "c")
               for c in configs_for(generate(seed, lang), seed, numba=True)}
    for level in (0, 1, 2):
        for target in ("py", "c", "numba"):
            assert f"-O{level} --target {target}" in configs
    for schedule in check.SCHEDULES:
        assert any(schedule in c for c in configs)
    assert np.isfinite(check.STEPS).all()


@pytest.mark.parametrize("lang", ["py", "c"])
def test_shared_work_changes_no_output(lang):
    """Sharing s2sad's parse and gradient modules among configurations (frontend.py) gives each
    configuration the output, or the refusal, that it gets alone."""
    seed = 40 if lang == "py" else 45  # programs no configuration refuses
    program = generate(seed, lang, driver.CI_FEATURES)
    source = source_of(program)
    configs = configs_for(program, seed, numba=True)

    def outputs() -> list[str]:
        out = []
        for config in configs:
            try:
                out.append(gradients.differentiate(program, source, config))
            except (gradients.Refused, gradients.Bad) as e:
                out.append(f"{type(e).__name__}: {e}")
        return out

    alone = outputs()
    with shared_work():
        shared = outputs()
        first = gradients.pipeline.gradient_module(source, gradients.filename(program), "f", list(program.wrt))
        again = gradients.pipeline.gradient_module(source, gradients.filename(program), "f", list(program.wrt))
        assert first is not again  # each caller may change its module
    assert shared == alone
    assert len(set(alone)) == len(configs)


def test_openmp_gradients_run_when_this_process_already_ran_openmp():
    """libgomp hangs in a child forked after its thread pool started; checks forked from such a
    process (pytest, after the OpenMP tests) run OpenMP gradients in a fresh interpreter."""
    from cbuild import build

    lib = build("double spin(int n) {\n    double s = 0.0;\n#pragma omp parallel for reduction(+ : s)\n"
                "    for (int i = 0; i < n; i++) {\n        s += i;\n    }\n    return s;\n}\n",
                ("-fopenmp",))
    lib.spin.restype = ctypes.c_double
    assert lib.spin(100) == 4950.0  # the pool of this process now exists
    seed, program = next((s, p) for s, p in ((s, generate(s, "c", driver.CI_FEATURES)) for s in range(200))
                         if check.parallel_loops(p))
    config = Config("c", 2)
    report = check_program(program, seed, [config], timeout=120.0)
    assert report.status in ("ok", "refused", "rejected"), report.mismatches


def test_a_shape_generic_shadow_pushed_past_a_local_name_is_recognized():
    """Fuzz seed 13012246: ``a`` only meets arrays in broadcasting (``np.min(W @ x - a)``), so its
    shadow is an array of its shape right after it; a local ``d_a`` of ``f`` pushes that name to
    ``d_a_`` (CONTRACT: the first free of d_a_, d_a__, ...), which the checker took for a wrong
    signature."""
    from fuzzgen.program import (ABin, AMat, AVar, BoolOp, Cmp, Function, IConst, Load, Num, Param, Program,
                                 Reduce, Ref, Return, Select)

    body = (Return(Select(Cmp(">", Ref("d_a"), Num(0.5)),
                          Select(BoolOp("and", Cmp(">", Load("x", (IConst(3),)), Ref("s0")),
                                        Cmp("<", Load("y", (IConst(2),)),
                                            Reduce("min", (ABin("-", AMat("matvec", AVar("W", "mn"), AVar("x", "n")),
                                                                Ref("a")),)))),
                                 Num(0.5), Num(0.5)),
                          Load("x", (IConst(3),)))),)
    params = (Param("x", "array"), Param("y", "array"), Param("W", "matrix"), Param("a", "float"),
              Param("b", "float"), Param("n", "int"), Param("m", "int"))
    program = Program("py", (Function("f", params, body, True),), ("x", "y", "a", "b"), (("n", 5), ("m", 3)),
                      False, frozenset(driver.CI_FEATURES))
    report = check_program(program, 13012246, [Config("py", 0)])
    assert report.status == "ok" and report.gradients == 1, report


def test_a_helper_that_calls_itself_with_its_arrays_swapped_is_drawn_and_checks_clean():
    """The ``recursion`` feature (generate.recursive_helper): ``q(u, v, ...)`` writes ``u`` and
    calls itself as ``q(v, u, ...)``, so it writes both, the class of the emitters' wrong summary
    of what a function writes (fixed in 72d5778, test_recursion.py); main calls it as a statement
    on two arrays it writes. Seed 20044 draws one whose gradient was wrong before that fix (the
    feature is not in the CI slice's: its seeds were picked before it)."""
    program = generate(20044, "py", FEATURES)
    (helper,) = [h for h in program.functions if h.recursive]
    calls = [node for node in walk_body(program.main.body) if isinstance(node, Assign)
             and isinstance(node.expr, CallF) and node.expr.fn == helper.name]
    assert calls and written_params(program, helper) == {"u", "v"}
    report = check_program(program, 20044, [Config("py", 0), Config("py", 2)])
    assert report.status == "ok" and report.gradients == 2, report
