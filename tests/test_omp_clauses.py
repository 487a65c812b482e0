"""OpenMP constructs s2sad still refuses: each is a located error with a true hint, never a
dropped pragma or a gradient that depends on the number of threads or the schedule."""

from __future__ import annotations

import pytest

from s2sad import pipeline
from s2sad.diagnostics import DiagnosticError

_FN = "void k(int n, const double *x, double *y, double *z)\n{{\n{body}}}\n"


def _error(body: str) -> str:
    with pytest.raises(DiagnosticError) as e:
        pipeline.gradient_source(_FN.format(body=body), "k.c", "k", ["x"], "c")
    return e.value.render()


_LOOP = "for (int i = 0; i < n; i++) {\n"
_REFUSED = [
    # Without the barrier, the second loop may read y[i - 1] before another thread wrote it.
    ("    #pragma omp parallel\n    {\n        #pragma omp for nowait\n        " + _LOOP
     + "            y[i] = x[i];\n        }\n        #pragma omp for\n        for (int i = 1; i < n; i++) {\n"
     "            z[i] = y[i - 1];\n        }\n    }\n", "k.c:6:9:", "'nowait' on this loop is not supported"),
    # Each thread stores: the region's code outside its loops runs once per thread.
    ("    #pragma omp parallel\n    {\n        z[0] = x[0];\n        #pragma omp for\n        " + _LOOP
     + "            y[i] = x[i];\n        }\n    }\n", "k.c:5:9:",
     "each thread of the parallel region runs this store into 'z'"),
    # A region variable the loop assigns holds each thread's last iteration's value after it.
    ("    #pragma omp parallel\n    {\n        double t = 0.0;\n        #pragma omp for\n        " + _LOOP
     + "            t = x[i];\n            y[i] = t;\n        }\n        z[0] = t;\n    }\n", "k.c:11:16:",
     "each thread's 't' holds what the last iteration it ran assigned"),
    ("    #pragma omp for\n    " + _LOOP + "        y[i] = x[i];\n    }\n", "k.c:3:5:",
     "'#pragma omp for' outside a parallel region is not supported"),
    ("    #pragma omp parallel\n    {\n        #pragma omp parallel for\n        " + _LOOP
     + "            y[i] = x[i];\n        }\n    }\n", "k.c:5:9:",
     "'#pragma omp parallel for' inside a parallel region is not supported"),
    ("    double t = 0.0;\n    #pragma omp parallel for lastprivate(t)\n    " + _LOOP
     + "        if (x[i] > 0.0) {\n            t = x[i];\n        }\n        y[i] = t;\n    }\n    z[0] = t;\n",
     "k.c:5:5:", "reads the lastprivate variable 't' before assigning it"),
    ("    double a = 1.0;\n    #pragma omp parallel for firstprivate(a)\n    " + _LOOP
     + "        a = a * x[i];\n        y[i] = a;\n    }\n", "k.c:5:5:", "assigns the firstprivate variable 'a'"),
    ("    double s = 0.0;\n    #pragma omp parallel for\n    " + _LOOP
     + "        #pragma omp critical\n        {\n            s += x[i];\n            y[i] = s;\n        }\n    }\n",
     "k.c:9:13:", "'#pragma omp critical' is supported around updates by + or - only"),
    ("    double s = 0.0;\n    #pragma omp parallel for\n    " + _LOOP
     + "        #pragma omp critical\n        s += x[i];\n        y[i] = s;\n    }\n    z[0] = s;\n",
     "k.c:8:16:", "the parallel loop reads 's', which '#pragma omp critical' adds to"),
    ("    double p = 1.0;\n    #pragma omp parallel for reduction(max: p)\n    " + _LOOP
     + "        p = x[i];\n    }\n    y[0] = p;\n", "k.c:4:5:", "reduction(max: p) is not supported"),
    ("    #pragma omp parallel for collapse(2)\n    " + _LOOP + "        for (int j = 0; j < i; j++) {\n"
     "            y[i * n + j] = x[j];\n        }\n        z[i] = x[i];\n    }\n", "k.c:3:5:",
     "collapse(2) needs 2 perfectly nested loops"),
    ("    #pragma omp parallel\n    {\n        #pragma omp single\n        z[0] = x[0];\n    }\n", "k.c:5:9:",
     "'#pragma omp single' is not supported"),
    # doorfuzz seed 17531598: an unknown schedule kind was copied into the gradient's pragmas,
    # which gcc then refused (a written file that does not compile).
    ("    #pragma omp parallel for schedule(_static)\n    " + _LOOP + "        y[i] = x[i];\n    }\n", "k.c:3:5:",
     "schedule(_static) is not an OpenMP schedule"),
    ("    #pragma omp parallel for schedule(auto, 4)\n    " + _LOOP + "        y[i] = x[i];\n    }\n", "k.c:3:5:",
     "schedule(auto, 4) is not an OpenMP schedule"),
    # doorfuzz seed 43700: the directive's words went into a regular expression unescaped
    # ("internal error: missing ), unterminated subpattern").
    ("    #pragma omp (parallel for\n    " + _LOOP + "        y[i] = x[i];\n    }\n", "k.c:3:5:",
     "'#pragma omp (parallel for' is not supported"),
]


@pytest.mark.parametrize("body, where, message", _REFUSED, ids=[m for _, _, m in _REFUSED])
def test_refused_openmp_is_located(body, where, message):
    text = _error(body)
    assert any(line.startswith(where + " error: ") and message in line for line in text.splitlines()), text
    assert "^" in text and "hint:" in text, text


def test_a_region_variable_computed_by_each_thread_is_accepted():
    body = ("    #pragma omp parallel\n    {\n        double c = x[0] * x[0];\n        #pragma omp for\n        "
            + _LOOP + "            y[i] = c * x[i];\n        }\n    }\n")
    text = pipeline.gradient_source(_FN.format(body=body), "k.c", "k", ["x"], "c")
    assert text.count("#pragma omp parallel for") == 2 and "#pragma omp for" not in text


def test_a_pragma_applies_to_the_next_statement_only():
    body = ("    #pragma omp parallel for\n    for (int i = 0; i < n; i++) for (int j = 0; j < n; j++) {\n"
            "        y[i * n + j] = x[i * n + j];\n    }\n")
    fn = pipeline.gradient_module(_FN.format(body=body), "k.c", "k", ["x"]).functions["grad_k"]
    outer = [op for op in fn.walk() if op.name == "for" and op.parent.parent_op is None]
    assert outer and all(op.attrs.get("parallel") == "omp" for op in outer)
    inner = [op for op in fn.walk() if op.name == "for" and op.parent.parent_op is not None]
    assert inner and not any("parallel" in op.attrs for op in inner)
