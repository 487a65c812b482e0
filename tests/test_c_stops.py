"""Where C code reports and stops (parse/c_stops): printf, fprintf and assert are left out; exit,
abort and a function of the file that always exits (Numerical Recipes' nrerror) stop the
gradient where they stop the primal: the C gradient exits with the same status (or aborts), a
Python one raises RuntimeError. At inputs where the program goes on, the gradient is checked
against central differences of the compiled primal."""

from __future__ import annotations

import subprocess
from pathlib import Path

import numpy as np
import pytest
from cbuild import CFunction, Out, build, have_gcc

from s2sad import pipeline
from s2sad.diagnostics import DiagnosticError

SOURCE = """
#include <stdio.h>
#include <stdlib.h>
#include <assert.h>
#include <math.h>

static void nrerror(const char *msg)
{
    fprintf(stderr, "Numerical Recipes run-time error...\\n");
    fprintf(stderr, "%s\\n", msg);
    exit(1);
}

static double checked_log(double v)
{
    if (v <= 0.0) {
        fprintf(stderr, "log of %g\\n", v);
        abort();
    }
    return log(v);
}

double f(const double *x, int n, double a)
{
    if (n < 1) nrerror("bad n");
    assert(a > 0.0);
    double s = 0.0;
    for (int i = 0; i < n; i++) {
        if (x[i] > 100.0) {
            printf("too big at %d\\n", i);
            exit(3);
        }
        s += checked_log(a + x[i] * x[i]);
    }
    printf("s = %g\\n", s);
    return s;
}
"""

DRIVER = """
int main(int argc, char **argv)
{
    double x[3] = {0.5, -0.25, 1.5}, d_x[3] = {0.0, 0.0, 0.0}, d_a = 0.0;
    int n = argc > 1 ? atoi(argv[1]) : 3;
    double a = argc > 2 ? atof(argv[2]) : 0.5;
    if (argc > 3) x[1] = atof(argv[3]);
    grad_f(x, d_x, n, a, &d_a, 1.0);
    return 0;
}
"""


@pytest.mark.skipif(not have_gcc(), reason="gcc not available")
def test_the_c_gradient_goes_on_where_the_program_does():
    primal = CFunction(build(SOURCE), "f", ["double *", "int", "double"], "double")
    text = pipeline.gradient_source(SOURCE, "stops.c", "f", ["x", "a"], "c")
    assert "printf" not in text and "assert" not in text
    grad = CFunction(build(text), "grad_f", ["double *", "double *", "int", "double", "double *", "double"])
    x, a, h = np.array([0.5, -0.25, 1.5]), 0.5, 1e-6
    d_x, d_a = np.zeros(3), Out(0.0)
    grad(x.copy(), d_x, 3, a, d_a, 1.0)
    for k in range(3):
        e = np.zeros(3)
        e[k] = h
        assert np.isclose(d_x[k], (primal(x + e, 3, a) - primal(x - e, 3, a)) / (2 * h), rtol=1e-6)
    assert np.isclose(d_a.value, (primal(x, 3, a + h) - primal(x, 3, a - h)) / (2 * h), rtol=1e-6)


@pytest.mark.skipif(not have_gcc(), reason="gcc not available")
@pytest.mark.parametrize("args, status", [(["0"], 1), (["3", "0.5", "200.0"], 3), (["3", "-5.0"], -6), ([], 0)])
def test_the_c_gradient_stops_where_the_program_does(tmp_path: Path, args, status):
    text = pipeline.gradient_source(SOURCE, "stops.c", "f", ["x", "a"], "c")
    src = tmp_path / "run.c"
    src.write_text(text + DRIVER)
    exe = tmp_path / "run"
    subprocess.run(["gcc", "-std=c99", "-Wall", "-Wextra", "-Werror", "-O1", str(src), "-o", str(exe), "-lm"],
                   check=True)
    # exit(1) for n < 1, exit(3) for an x past 100, abort (SIGABRT: -6) for a log of a non-positive number
    assert subprocess.run([str(exe), *args]).returncode == status


@pytest.mark.parametrize("target", ["py", "numba"])
def test_a_python_gradient_raises_where_the_program_stops(target):
    text = pipeline.gradient_source(SOURCE, "stops.c", "f", ["x", "a"], target)
    namespace: dict = {}
    exec(compile(text, "<grad>", "exec"), namespace)
    grad = namespace["grad_f"]
    grad = getattr(grad, "py_func", grad)
    with pytest.raises(RuntimeError, match=r"f stops the program \(line \d+: nrerror\('bad n'\)\)"):
        grad(np.array([0.5]), np.zeros(1), 0, 0.5)
    with pytest.raises(RuntimeError, match=r"exit\(3\)"):
        grad(np.array([200.0]), np.zeros(1), 1, 0.5)


def test_a_stop_in_a_cuda_kernel_is_a_located_error():
    source = """
#include <stdlib.h>
__global__ void k(double *y, const double *x, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) return;
    if (x[i] < 0.0) abort();
    y[i] = x[i] * x[i];
}
"""
    with pytest.raises(DiagnosticError) as e:
        pipeline.gradient_source(source, "k.cu", "k", ["x"], "cuda")
    text = e.value.render()
    assert "abort()' stops the program, which device code cannot do" in text and "k.cu:7:" in text, text


def test_scanf_stays_refused():
    source = '#include <stdio.h>\ndouble f(double x)\n{\n    int k;\n    scanf("%d", &k);\n    return x * k;\n}\n'
    with pytest.raises(DiagnosticError) as e:
        pipeline.gradient_source(source, "s.c", "f", ["x"], "c")
    assert "'scanf' is not supported" in e.value.render()
