"""C output's workspace (``s2sad grad --workspace``, emit_c/workspace.py): the entry's tapes kept
across calls in memory the caller passes.

The golden case golden/c/workspace_tapes shows the output and checks ``grad_f`` (the wrapper on a
workspace of its own) against central differences; here a C driver calls ``grad_f_ws`` many times
on one workspace, with sizes that grow and shrink, under the address and undefined-behaviour
sanitizers (leaks included: ``grad_f_workspace_free`` frees every slot), and compares each call
with ``grad_f`` bit for bit and with central differences of the primal.
"""

from __future__ import annotations

import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from s2sad import pipeline
from s2sad.diagnostics import DiagnosticError

ROOT = Path(__file__).resolve().parent.parent
CASE = ROOT / "golden" / "c" / "workspace_tapes"

pytestmark = pytest.mark.skipif(shutil.which("gcc") is None, reason="gcc is not installed")

DRIVER = r"""
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

double f(double *u, const double *k, int n, int steps);

static void start(double *u, double *k, int n, int seed) {
    for (int i = 0; i < n; i++) {
        u[i] = 0.4 * sin(1.7 * i + seed);
        k[i] = 0.5 + 0.3 * cos(0.9 * i + seed);
    }
    if (seed % 3 == 2 && n > 4) {
        k[n - 3] = -1.0;  /* the while loop stops early: a shorter tape than the last call's */
    }
}

int main(void) {
    static const int sizes[][2] = {{6, 3}, {40, 5}, {62, 5}, {3, 2}, {200, 4}, {7, 9}, {200, 4}, {1, 1}};
    grad_f_workspace *ws = grad_f_workspace_new();
    int bad = 0;
    for (int c = 0; c < (int)(sizeof sizes / sizeof sizes[0]); c++) {
        int n = sizes[c][0], steps = sizes[c][1];
        double *u = malloc(n * sizeof(double)), *k = malloc(n * sizeof(double));
        double *u1 = malloc(n * sizeof(double)), *d1 = calloc(n, sizeof(double));
        double *u2 = malloc(n * sizeof(double)), *d2 = calloc(n, sizeof(double));
        start(u, k, n, c);
        memcpy(u1, u, n * sizeof(double));
        memcpy(u2, u, n * sizeof(double));
        grad_f_ws(ws, u1, d1, k, n, steps, 1.0);
        grad_f(u2, d2, k, n, steps, 1.0);
        if (memcmp(u1, u2, n * sizeof(double)) != 0 || memcmp(d1, d2, n * sizeof(double)) != 0) {
            printf("call %d: grad_f_ws and grad_f differ\n", c);
            bad = 1;
        }
        for (int j = 0; j < n; j += (n > 10 ? n / 7 : 1)) {
            double h = 1e-6, fp, fm;
            memcpy(u2, u, n * sizeof(double));
            u2[j] += h;
            fp = f(u2, k, n, steps);
            memcpy(u2, u, n * sizeof(double));
            u2[j] -= h;
            fm = f(u2, k, n, steps);
            double fd = (fp - fm) / (2 * h);
            if (fabs(fd - d1[j]) > 1e-6 * (1.0 + fabs(fd))) {
                printf("call %d: d_u[%d] = %.12g, central differences %.12g\n", c, j, d1[j], fd);
                bad = 1;
            }
        }
        free(u); free(k); free(u1); free(d1); free(u2); free(d2);
    }
    grad_f_workspace_free(ws);
    return bad;
}
"""


def _gradient() -> str:
    return pipeline.gradient_source((CASE / "input.c").read_text(), str(CASE / "input.c"), "f", ["u"], "c",
                                    pipeline.Options(workspace=True))


def test_one_workspace_serves_calls_of_every_size(tmp_path):
    gradient = _gradient()
    assert "ws_room(ws, 0," in gradient and "grad_f_workspace_free(ws);" in gradient
    (tmp_path / "gradient.c").write_text(gradient)
    # the driver declares what a caller of the file declares: the type, opaque, and the prototypes
    (tmp_path / "driver.c").write_text(
        "typedef struct grad_f_workspace grad_f_workspace;\n"
        "grad_f_workspace *grad_f_workspace_new(void);\nvoid grad_f_workspace_free(grad_f_workspace *ws);\n"
        "void grad_f_ws(grad_f_workspace *ws, double *u, double *d_u, const double *k, int n, int steps, "
        "double d_return);\nvoid grad_f(double *u, double *d_u, const double *k, int n, int steps, "
        "double d_return);\n" + DRIVER)
    exe = tmp_path / "check"
    flags = ["-std=c99", "-Wall", "-Wextra", "-Werror", "-g", "-fsanitize=address,undefined",
             "-fno-sanitize-recover=all"]
    built = subprocess.run(["gcc", *flags, str(CASE / "input.c"), str(tmp_path / "gradient.c"),
                            str(tmp_path / "driver.c"), "-o", str(exe), "-lm"], capture_output=True, text=True)
    assert built.returncode == 0, built.stderr
    ran = subprocess.run([str(exe)], capture_output=True, text=True)
    assert ran.returncode == 0, ran.stdout + ran.stderr


# Its reverse sweep needs nothing the forward sweep computes but what x still holds: no tape.
NO_SLOTS = """double f(const double *x, int n)
{
    double s = 0.0;
    for (int i = 0; i < n; i++)
        s += x[i] * x[i];
    return s;
}
"""


def test_a_workspace_with_nothing_to_keep_compiles_cleanly(tmp_path):
    gradient = pipeline.gradient_source(NO_SLOTS, "f.c", "f", ["x"], "c", pipeline.Options(workspace=True))
    assert "ws_room" not in gradient and "(void)ws;" in gradient, gradient
    (tmp_path / "gradient.c").write_text(gradient)
    built = subprocess.run(["gcc", "-std=c99", "-Wall", "-Wextra", "-Werror", "-c", str(tmp_path / "gradient.c"),
                            "-o", str(tmp_path / "gradient.o")], capture_output=True, text=True)
    assert built.returncode == 0, built.stderr


def test_a_gradient_that_calls_itself_has_no_workspace():
    source = (
        "double f(const double *x, int n)\n"
        "{\n"
        "    if (n <= 0) {\n"
        "        return 0.0;\n"
        "    }\n"
        "    return x[n - 1] * x[n - 1] + f(x, n - 1);\n"
        "}\n"
    )
    with pytest.raises(DiagnosticError) as info:
        pipeline.gradient_source(source, "rec.c", "f", ["x"], "c", pipeline.Options(workspace=True))
    (d,) = info.value.diagnostics
    assert "--workspace: 'grad_f' calls itself" in d.message and d.loc.line == 1
    assert "drop --workspace" in d.hint


def test_workspace_is_bad_usage_for_other_targets(tmp_path):
    (tmp_path / "f.c").write_text("double f(const double *x, int n) { double s = 0.0;"
                                  " for (int i = 0; i < n; i++) { s += x[i] * x[i]; } return s; }\n")
    r = subprocess.run([sys.executable, "-m", "s2sad", "grad", str(tmp_path / "f.c"), "--wrt", "x", "--target", "py",
                        "--workspace"], capture_output=True, text=True, cwd=tmp_path)
    assert r.returncode == 2 and "--workspace applies to C output (--target c)" in r.stderr
    assert not list(tmp_path.glob("*.py"))


def test_without_workspace_the_output_has_none():
    text = pipeline.gradient_source((CASE / "input.c").read_text(), str(CASE / "input.c"), "f", ["u"], "c")
    assert "workspace" not in text and "ws_room" not in text and "calloc(1," in text


def test_the_api_writes_a_workspace_for_c_only(tmp_path):
    import s2sad

    path = tmp_path / "f.c"
    path.write_text((CASE / "input.c").read_text())
    text = s2sad.gradient_source(str(path), "f", wrt=("u",), target="c", workspace=True)
    assert "void grad_f_ws(grad_f_workspace *ws," in text
    with pytest.raises(ValueError, match="workspace applies to C output"):
        s2sad.gradient_source(str(path), "f", wrt=("u",), target="py", workspace=True)
