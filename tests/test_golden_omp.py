"""Golden OpenMP cases: C with ``#pragma omp parallel for`` in, C with parallel adjoint loops out.

Each folder golden/omp/<case>/ holds ``input.c`` and ``case.json`` (as golden/c: a 2-D
parameter's "shape" has two extents) and ``expected.c`` (``--target c``; ``pytest
--update-golden`` rewrites it). The primal and
the gradients (-O2 and -O0) are compiled with ``gcc -std=c99 -fopenmp -Wall -Wextra
-Werror`` and run with two and four threads, three times each (checked: a parallel region
of each library reports that many), and the gradients are compared with central
differences of the parallel primal.
Each case also checks the clauses the adjoint loop needs: a reduction for a scalar every
iteration reads, ``omp atomic`` for accumulations iterations share, none where each
iteration has its own element.
"""

from __future__ import annotations

import ctypes
import functools
import json
import re

import numpy as np
import pytest
from cbuild import compile_c, have_gcc
from cprimal import CSignature
from fd import ParamSpec, check_gradient
from golden_cases import GOLDEN

from s2sad import pipeline
from s2sad.diagnostics import DiagnosticError

pytestmark = pytest.mark.skipif(not have_gcc(), reason="gcc is not installed")

OMP_GOLDEN = GOLDEN / "omp"
CASE_NAMES = sorted(p.name for p in OMP_GOLDEN.iterdir() if (p / "case.json").exists())
THREADS = 4
RUN_THREADS = (2, 4)

# Appended to every library: sets the thread count and reports how many threads a region gets.
THREADS_PROBE = """
#include <omp.h>
int test_threads(int n) {
    int count = 0;
    omp_set_num_threads(n);
    #pragma omp parallel
    {
        #pragma omp atomic
        count++;
    }
    return count;
}
"""

# What each adjoint loop must say (substrings of the output), and must not.
CLAUSES = {
    "dot_reduction": (["#pragma omp parallel for\n"], ["atomic"]),
    "shared_scalar": (["schedule(static) reduction(+: d_a_local)"], ["atomic"]),
    "gather_atomic": (["#pragma omp atomic\n        d_x[idx[i]] +="], []),
    "stencil_atomic": (["#pragma omp atomic\n        d_x[i - 1] +="], []),
    # The helper's adjoint adds into d_c + lab[i] * d, which iterations share: atomically (the
    # helper, called in the loop, is inlined at -O2; test_helper_called_in_parallel_loop_atomic).
    "helper_shared_shadow": (["#pragma omp atomic\n            d_b[j] +="], ["grad_dist2("]),
    # y[k] += e under omp atomic: the adjoint reads d_y[k] and writes no bin.
    "histogram_atomic": (["double d_y_elem = d_y[bin[i]];"], ["d_y[bin[i]] =", "d_y[bin[i]] +="]),
    # A 2-D parameter: iteration i owns the row d_A[i], indexed d_A[i][j] as the input is.
    "rows_2d": (["#pragma omp parallel for\n", "d_A[i][j] += d_B_i_j * r;"], ["atomic"]),
    # The pragma applies to the outer loop only, though both loops start on the line after it.
    # The last iteration's t: its adjoint goes to the reversed loop's first iteration only.
    "lastprivate": (["i == t0 ? d_t : 0.0"], ["atomic", "reduction"]),
    # Iteration (i, j) owns d_A[i * m + j]; d_c[j] is shared by the rows: atomic.
    "collapse_2": (["#pragma omp parallel for collapse(2) reduction(+: d_a_local)",
                    "#pragma omp atomic\n            d_c[j] +="],
                   ["d_A[i * m + j] += d_B_elem * (t2 * t1) + t3 * t2;\n            #"]),
    # s += e under critical is a sum of the loop: its adjoint only reads d_s; y[bin[i]] an atomic update.
    "critical_sum": (["double d_e = d_y_elem + d_s;"], ["critical", "reduction", "d_y[bin[i]] +="]),
    "firstprivate": (["reduction(+: d_a_local)"], ["atomic"]),
    "parallel_region_for": (["schedule(static) reduction(+: d_c)"], ["nowait", "atomic"]),
    "pragma_same_line": (["#pragma omp parallel for\n    for (long i"], ["for\n        for (long j", "atomic"]),
}


def _case(name: str) -> tuple[dict, str]:
    folder = OMP_GOLDEN / name
    return json.loads((folder / "case.json").read_text()), (folder / "input.c").read_text()


def _build(source: str) -> ctypes.CDLL:
    lib = ctypes.CDLL(str(compile_c(source + THREADS_PROBE, ("-fopenmp",))))
    assert lib.test_threads(THREADS) == THREADS, "the library does not run parallel regions on several threads"
    return lib


def _generate(name: str, level: int = pipeline.DEFAULT.level) -> str:
    spec, source = _case(name)
    return pipeline.gradient_source(source, "input.c", spec["func"], spec["wrt"], "c", pipeline.Options(level=level))


@functools.cache
def _primal(name: str):
    spec, source = _case(name)
    return CSignature.parse(source, spec["func"]).primal(_build(source))


def test_omp_cases_exist():
    assert set(CLAUSES) <= set(CASE_NAMES)


def test_helper_called_in_parallel_loop_atomic():
    """Where the helper stays a call (-O1: nothing inlined), the parallel loop calls a copy of
    its gradient whose accumulations are atomic, and never the plain one."""
    text = _generate("helper_shared_shadow", level=1)
    reverse = text.split("// reverse sweep")[-1]
    assert "grad_dist2_atomic(" in reverse and "grad_dist2(" not in reverse
    assert "#pragma omp atomic\n        d_b[j] +=" in text.split("grad_dist2_atomic(")[1]


@pytest.mark.parametrize("name", CASE_NAMES)
def test_omp_golden_output(name, request):
    text = _generate(name)
    assert text == _generate(name), "output is not deterministic"
    path = OMP_GOLDEN / name / "expected.c"
    if request.config.getoption("--update-golden"):
        path.write_text(text)
        return
    assert path.exists(), f"{path} is missing: run pytest --update-golden and review the diff"
    assert text == path.read_text(), f"{path} differs from the generated output (pytest --update-golden)"
    present, absent = CLAUSES.get(name, ([], []))
    reverse = text.split("// reverse sweep")[-1]  # no section labels when there is no forward sweep
    assert "#pragma omp parallel for" in reverse, "the adjoint loop is not parallel"
    for s in present:
        assert s in reverse, s
    for s in absent:
        assert s not in reverse, s


@pytest.mark.parametrize("level", [2, 0], ids=["O2", "O0"])
@pytest.mark.parametrize("name", CASE_NAMES)
def test_omp_gradient_matches_finite_differences_with_threads(name, level):
    spec, source = _case(name)
    text = _generate(name, level)
    sig = CSignature.parse(source, spec["func"])
    lib = _build(text)
    gradient = sig.gradient(lib, spec["wrt"], spec.get("written", []))
    params = [ParamSpec.from_json(p) for p in spec["params"]]
    for threads in RUN_THREADS:  # races show up as results that change with the thread count, or run to run
        assert lib.test_threads(threads) == threads
        for seed in range(3):
            check_gradient(_primal(name), gradient, params, spec["wrt"], set(spec.get("written", [])),
                           np.random.default_rng(seed), returns_float=sig.returns_float)


def _error(source: str, wrt: str = "x") -> str:
    with pytest.raises(DiagnosticError) as e:
        pipeline.gradient_source(source, "k.c", "k", [wrt], "c")
    return e.value.render()


LOOP = """\
void k(int n, const double *x, double *y)
{{
    {pragma}
    {loop}
        y[i] = x[i];
    }}
}}
"""


@pytest.mark.parametrize(
    "pragma, loop, message",
    [
        ("#pragma omp parallel for collapse(2)", "for (int i = 0; i < n; i++) {",
         "collapse(2) needs 2 perfectly nested loops"),
        ("#pragma omp parallel for reduction(*: p)", "for (int i = 0; i < n; i++) {",
         "reduction(*: p) is not supported"),
        ("#pragma omp task", "for (int i = 0; i < n; i++) {", "'#pragma omp task' is not supported"),
        ("#pragma omp parallel for", "for (int i = 0; i < n && x[i] > 0.0; i++) {",
         "'#pragma omp parallel for' needs a counted loop"),
    ],
)
def test_unsupported_openmp_is_a_located_error(pragma, loop, message):
    text = _error(LOOP.format(pragma=pragma, loop=loop))
    first = text.splitlines()[0]
    assert first.startswith(("k.c:3:5:", "k.c:4:5:")) and first.endswith(message), text
    assert "^" in text and "hint:" in text


def test_a_carried_value_must_be_declared_a_reduction():
    src = ("double k(const double *x, int n)\n{\n    double s = 0.0;\n    #pragma omp parallel for\n"
           "    for (int i = 0; i < n; i++) {\n        s += x[i];\n    }\n    return s;\n}\n")
    text = _error(src)
    assert text.startswith("k.c:5:5: error: the parallel loop updates 's'") and "reduction(+: s)" in text


def test_a_parallel_loop_that_needs_a_tape_is_an_error():
    # The inner loop runs a data-dependent number of times: its values go on a stack, whose
    # order is the serial order of the iterations.
    src = ("void k(int n, const double *x, double *y)\n{\n    #pragma omp parallel for\n"
           "    for (int i = 0; i < n; i++) {\n        double s = x[i];\n        while (s > 0.1) {\n"
           "            s = s * s;\n        }\n        y[i] = s;\n    }\n}\n")
    text = _error(src)
    assert "parallel loop need a tape" in text and text.startswith("k.c:4:5:"), text


def test_iteration_indexed_caches_stay_parallel():
    src = ("void k(int n, int m, const double *x, double *y)\n{\n    #pragma omp parallel for\n"
           "    for (int i = 0; i < n; i++) {\n        double s = 1.0;\n        for (int j = 0; j < m; j++) {\n"
           "            if (s < x[i * m + j]) {\n                s = s * x[i * m + j];\n            }\n"
           "        }\n        y[i] = s;\n    }\n}\n")
    text = pipeline.gradient_source(src, "k.c", "k", ["x"], "c")
    assert text.count("#pragma omp parallel for\n") == 2 and "private" not in text
    assert "tape_s[i * m + j] = s;" in text
    lib = _build(text)  # compiles with -fopenmp -Werror
    assert lib.grad_k


def test_pragma_is_read_from_the_line_above_only():
    src = LOOP.format(pragma="#pragma omp parallel for", loop="for (int i = 0; i < n; i++) {")
    fn = pipeline.gradient_module(src, "k.c", "k", ["x"]).functions["grad_k"]
    assert [op.attrs.get("parallel") for op in fn.walk() if op.name == "for"] == ["omp", "omp"]
    plain = src.replace("#pragma omp parallel for", "")
    fn = pipeline.gradient_module(plain, "k.c", "k", ["x"]).functions["grad_k"]
    assert not [op for op in fn.walk() if op.name == "for" and "parallel" in op.attrs]


# Every OpenMP pragma either does what it says in the gradient or is refused at its line: a
# dropped '#pragma omp parallel' made the primal run its region once per thread and the
# gradient once (issue 14, class 5).
_STEP = "void k(int n, const double *x, double *y)\n{{\n{body}}}\n"
_PRAGMA_ERRORS = [
    ("    double s = 0.0;\n    #pragma omp parallel\n    {\n        s += x[0];\n    }\n    y[0] = s;\n",
     "k.c:6:9:", "each thread of the parallel region assigns 's', which the threads share"),
    ("    y[0] = x[0];\n    #pragma omp barrier\n    y[1] = x[1];\n", "k.c:4:5:",
     "'#pragma omp barrier' is not supported"),
    ("    #pragma omp single\n    {\n        y[0] = x[0];\n    }\n", "k.c:3:5:",
     "'#pragma omp single' is not supported"),
    ("    #pragma omp master\n    y[0] = x[0];\n", "k.c:3:5:", "'#pragma omp master' is not supported"),
    ("    #pragma omp sections\n    {\n        #pragma omp section\n        y[0] = x[0];\n    }\n", "k.c:3:5:",
     "'#pragma omp sections' is not supported"),
    ("    #pragma omp simd\n    for (int i = 0; i < n; i++) {\n        y[i] = x[i];\n    }\n", "k.c:3:5:",
     "'#pragma omp simd' is not supported"),
    ("    #pragma omp parallel for simd\n    for (int i = 0; i < n; i++) {\n        y[i] = x[i];\n    }\n",
     "k.c:3:5:", "the OpenMP clause 'simd' is not supported"),
    ("    #pragma omp parallel for ordered\n    for (int i = 0; i < n; i++) {\n        y[i] = x[i];\n    }\n",
     "k.c:3:5:", "the OpenMP clause 'ordered' is not supported"),
    ("    #pragma omp parallel for reduction(max: s)\n    for (int i = 0; i < n; i++) {\n        y[i] = x[i];\n    }\n",
     "k.c:3:5:", "reduction(max: s) is not supported"),
    ("    #pragma omp parallel for\n    y[0] = x[0];\n", "k.c:3:5:",
     "'#pragma omp parallel for' must be followed by a counted for loop"),
    ("    y[0] = x[0];\n    #pragma omp atomic\n", "k.c:4:5:",
     "'#pragma omp atomic' must be followed by an update statement"),
    ("    #pragma omp parallel for\n    for (int i = 0; i < n; i++) {\n        #pragma omp atomic\n"
     "        y[0] *= x[i];\n"
     "    }\n", "k.c:6:9:", "'#pragma omp atomic' is supported on an update by + or - only"),
    ("    #pragma omp parallel for\n    for (int i = 0; i < n; i++) {\n        #pragma omp atomic capture\n"
     "        y[0] += x[i];\n    }\n", "k.c:5:9:", "'#pragma omp atomic capture' is not supported"),
    ("    double s = 0.0;\n    #pragma omp parallel for reduction(+: s)\n    for (int i = 0; i < n; i++) {\n"
     "        #pragma omp atomic\n        s += x[i];\n    }\n    y[0] = s;\n", "k.c:7:9:",
     "'#pragma omp atomic' on the variable 's' is not supported"),
]


@pytest.mark.parametrize("body, where, message", _PRAGMA_ERRORS, ids=[m for _, _, m in _PRAGMA_ERRORS])
def test_every_openmp_pragma_is_kept_or_refused_at_its_line(body, where, message):
    text = _error(_STEP.format(body=body))
    first = text.splitlines()[0]
    assert first.startswith(where + " error: ") and message in first, text
    assert "^" in text and "hint:" in text, text


def test_a_parallel_region_in_a_callee_is_refused():
    src = ("static void h(const double *x, double *y)\n{\n    #pragma omp parallel\n    y[0] += x[0];\n}\n\n"
           "void k(int n, const double *x, double *y)\n{\n    h(x, y);\n}\n")
    text = _error(src)
    assert text.startswith("k.c:4:5: error: each thread of the parallel region runs this store into 'y'"), text


def test_pragmas_that_are_not_openmp_are_still_ignored():
    src = _STEP.format(body="    #pragma GCC ivdep\n    for (int i = 0; i < n; i++) {\n        y[i] = x[i];\n    }\n")
    assert "grad_k" in pipeline.gradient_source(src, "k.c", "k", ["x"], "c")


def test_an_atomic_update_keeps_its_pragma_at_every_level():
    src = _STEP.format(body="    #pragma omp parallel for\n    for (int i = 0; i < n; i++) {\n"
                            "        #pragma omp atomic\n        y[i / 2] -= x[i];\n    }\n")
    for level in (0, 1, 2):
        text = pipeline.gradient_source(src, "k.c", "k", ["x"], "c", pipeline.Options(level=level))
        forward, reverse = text.split("// reverse sweep")
        assert re.search(r"#pragma omp atomic\n +y\[(i / 2|\w+)\] -= x\[i\];", forward), text
        assert not re.search(r"d_y\[[^]]*\] [-+]?=", reverse), text  # the adjoint reads d_y, never writes it
        _build(text)
