"""A value a loop carries is read from what the iteration before made, not taped again.

An IIR filter's shift registers (``ym2 = ym1; ym1 = y``, ``xm2 = xm1; xm1 = x[j]``) and a
recurrence whose new value the reverse sweep needs (``a = (r[k] + s) / (1 + a * a)``) each keep
one tape: the carried value of iteration ``k`` is the latch's slot ``k - 1``, or the latch
computed for the counter before (``x[j - 1]``, ``x[j - 2]``), or its init in the first iteration
(``adjoint/carried_slots.py``). Every gradient is checked against central differences, in a
nest (the slot before is the flattened index minus one) and with counters counting down or by 2.
"""

from __future__ import annotations

import re

import pytest

from s2sad import pipeline
from source_gradients import check_command

IIR = """
double iir(int n, const double *x, double a1, double a2, double b1, double b2)
{
    double ym1 = 0.5, ym2 = -0.25, xm1 = 0.125, xm2 = 0.0, s = 0.0;
    for (int j = {first}; {test}; j{step}) {
        double y = x[j] + a1 * xm1 + a2 * xm2 + b1 * ym1 + b2 * ym2;
        xm2 = xm1;
        xm1 = x[j];
        ym2 = ym1;
        ym1 = y;
        s += y * y;
    }
    return s;
}
"""

RECURRENCE = """
double rec(int m, int n, const double *r)
{
    double s = 0.0;
    for (int i = 0; i < m; i++) {
        double a = r[i];
        for (int k = 1; k < n; k++) {
            a = (r[k] + s) / (1.0 + a * a);
            s += a * r[k];
        }
    }
    return s;
}
"""

LOOPS = [("0", "j < n", "++"), ("n - 1", "j >= 0", "--"), ("1", "j < n - 1", " += 2")]


def _tapes(code: str) -> list[str]:
    """The tapes a C gradient allocates."""
    return re.findall(r"double \*(tape\w*) = calloc", code)


@pytest.mark.parametrize("target", ["c", "py"])
@pytest.mark.parametrize("first, test, step", LOOPS)
def test_shift_registers_keep_one_tape(tmp_path, capsys, first, test, step, target):
    source = IIR.replace("{first}", first).replace("{test}", test).replace("{step}", step)
    wrt = ["x", "a1", "a2", "b1", "b2"]
    code = pipeline.gradient_source(source, "iir.c", "iir", wrt, "c", pipeline.Options(level=2))
    assert _tapes(code) == ["tape_ym1"], code  # xm1 and xm2 read from x again, ym2 from ym1's tape
    check_command(tmp_path, capsys, source, "iir", ",".join(wrt), "n=7", target, "iir.c")


@pytest.mark.parametrize("target", ["c", "py"])
def test_a_recurrence_in_a_nest_reads_the_slot_before(tmp_path, capsys, target):
    code = pipeline.gradient_source(RECURRENCE, "rec.c", "rec", ["r"], "c", pipeline.Options(level=2))
    assert _tapes(code) == ["tape_a"], code
    check_command(tmp_path, capsys, RECURRENCE, "rec", "r", "m=3,n=5,r=5", target, "rec.c")


def test_values_that_carry_each_other_are_each_taped(tmp_path, capsys):
    source = """
double swap(int n, const double *x)
{
    double a = x[0], b = x[1], s = 0.0;
    for (int j = 0; j < n; j++) {
        double t = a;
        a = b;
        b = t;
        s += sin(a * x[j]) * cos(b);
    }
    return s;
}
"""
    source = "#include <math.h>\n" + source
    check_command(tmp_path, capsys, source, "swap", "x", "n=5", "c", "swap.c")


def test_a_latch_read_from_an_array_written_later_is_taped(tmp_path, capsys):
    """An in-place filter overwrites ``x[j]`` after reading it: the reverse sweep cannot read the
    value the register held from ``x`` again, so the register is taped."""
    source = """
void smooth(int n, double *x, double a)
{
    double xm1 = 0.0;
    for (int j = 0; j < n; j++) {
        double v = x[j];
        x[j] = v + a * xm1 * v;
        xm1 = v;
    }
}
"""
    code = pipeline.gradient_source(source, "smooth.c", "smooth", ["x", "a"], "c", pipeline.Options(level=2))
    assert "xm1 = x[j - 1]" not in code, code
    check_command(tmp_path, capsys, source, "smooth", "x,a", "n=6", "c", "smooth.c")
    check_command(tmp_path, capsys, source, "smooth", "x,a", "n=6", "py", "smooth.c")


SHAPES = {
    # an integer register following the counter: idx = j - 1 in the reverse sweep
    "index_register": """
double f(int n, const double *x)
{
    double s = 0.0;
    int idx = 0;
    for (int j = 0; j < n; j++) {
        s += sin(x[idx] * x[j]);
        idx = j;
    }
    return s;
}
""",
    # the init made in the outer loop, a step of 3, a latch the inner loop does not change
    "nest_step_three": """
double f(int m, int n, const double *x, double c)
{
    double s = 0.0;
    for (int i = 0; i < m; i++) {
        double prev = x[i];
        double held = x[i + 1];
        for (int j = i; j < n; j += 3) {
            s += prev * sin(held * x[j]);
            prev = x[j] * c + x[i];
            held = c;
        }
    }
    return s;
}
""",
    # a register of a value computed from two registers (a second-order difference)
    "second_difference": """
double f(int n, const double *x)
{
    double a = 0.0, b = 0.0, s = 0.0;
    for (int j = n - 1; j >= 0; j--) {
        double d = x[j] - 2.0 * a + b;
        s += d * d * x[j];
        b = a;
        a = x[j];
    }
    return s;
}
""",
    # a register inside a branch of the loop: its value is whatever the iteration before left
    "register_under_if": """
double f(int n, const double *x)
{
    double last = 1.0, s = 0.0;
    for (int j = 0; j < n; j++) {
        s += sin(last * x[j]);
        if (x[j] > 0.0)
            last = x[j];
    }
    return s;
}
""",
}


@pytest.mark.parametrize("target", ["c", "py"])
@pytest.mark.parametrize("name", sorted(SHAPES))
def test_carried_registers_match_central_differences(tmp_path, capsys, name, target):
    source = "#include <math.h>\n" + SHAPES[name]
    sizes = "m=3,n=8,x=9" if "int m" in source else "n=8,x=8"
    check_command(tmp_path, capsys, source, "f", "x", sizes, target, "f.c")
