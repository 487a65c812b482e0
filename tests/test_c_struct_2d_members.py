"""Structs with members of two or more dimensions (``double P[3][3]``, ``double T[2][2][2]``).

A Kalman filter's state (``typedef struct { double x[NS]; double P[NS][NS]; } kstate;``) or a
rigid body's rotation (``double R[3][3]``) is read as C lays it out: a local struct or one passed
by value holds each such member as a local array of its dimensions (``c_records``), a pointer to
structs of one floating type reaches it in their run of numbers (``c_structs``), and a member
passed to a helper that takes its rows (``const double P[3][3]``, ``double (*P)[3]``) is the
member's array, or, for the run, an array of its own copied in and back
(``c_expr.member_rows``). golden/c/kalman_struct_2d is the filter's predict and update step;
here, each construct against central differences of the compiled primal, and the refusals that
remain, each one located diagnostic with a hint.
"""

from __future__ import annotations

import numpy as np
import pytest

from cbuild import have_gcc

from s2sad import pipeline
from s2sad.diagnostics import DiagnosticError

pytestmark = pytest.mark.skipif(not have_gcc(), reason="gcc is not installed")

KSTATE = "typedef struct { double x[2]; double P[2][2]; } kstate;\n" \
    "typedef struct { int n; double x[2]; double P[2][2]; } kmixed;\n" \
    "static inline double det(const double P[2][2]) { return P[0][0] * P[1][1] - P[0][1] * P[1][0]; }\n" \
    "static inline void scale(double (*P)[2], double a) { for (int i = 0; i < 2; i++) for (int j = 0; j < 2; j++) " \
    "P[i][j] *= a; }\n"


def _matches_finite_differences(body: str, level: int) -> None:
    """``double w(const double *z)`` of ``body`` (after KSTATE): its C gradient against central
    differences of the compiled primal, z of 6 numbers."""
    from cbuild import build
    from cprimal import CSignature
    from fd import ParamSpec, check_gradient

    source = KSTATE + body
    text = pipeline.gradient_source(source, "t.c", "w", ["z"], "c", pipeline.Options(level=level))
    sig = CSignature.parse(source, "w")
    check_gradient(sig.primal(build(source)), sig.gradient(build(text), ["z"], []), [ParamSpec("z", "array", (6,))],
                   ["z"], set(), np.random.default_rng(3), returns_float=True)


CASES = {
    "local": "double w(const double *z) { kstate s; s.x[0] = z[0]; s.x[1] = z[5];\n"
             "  for (int i = 0; i < 2; i++) for (int j = 0; j < 2; j++) s.P[i][j] = z[i] * z[j + 1];\n"
             "  return s.x[0] * s.P[0][1] + s.P[1][0] * s.P[1][1] * s.x[1]; }\n",
    "initialized_copied": "double w(const double *z) {\n"
                          "  kstate s = {{z[0], 1.0}, {{z[1], 0.5}, {z[2] * z[3], z[4]}}};\n"
                          "  kstate t = s; t.P[1][1] *= z[5]; s.P[0][0] = 2.0;\n"
                          "  return t.P[0][0] * s.P[1][0] + t.P[1][1] * t.x[0] + s.P[0][0]; }\n",
    "memcpy_member": "#include <string.h>\n"
                     "double w(const double *z) { kstate s, t; memcpy(s.P, z, sizeof s.P);\n"
                     "  memcpy(s.x, z + 4, 2 * sizeof(double)); memcpy(&t, &s, sizeof t); t.P[1][1] *= z[0];\n"
                     "  return t.P[0][1] * s.P[1][0] + t.x[1] * t.P[1][1]; }\n",
    "address_to_helper": "static void pred(kstate *s, double q) {\n"
                         "  for (int i = 0; i < 2; i++) for (int j = 0; j < 2; j++)\n"
                         "    s->P[i][j] += q * s->x[i] * s->x[j];\n"
                         "  scale(s->P, 0.5); }\n"
                         "double w(const double *z) { kstate s = {{z[0], z[1]}, {{z[2], z[3]}, {z[4], z[5]}}};\n"
                         "  pred(&s, z[0]); pred(&s, z[1]);\n"
                         "  return det(s.P) + s.P[0][1] * s.x[1]; }\n",
    "members_to_helpers": "double w(const double *z) { kmixed s = {2, {z[0], z[1]}, {{z[2], z[3]}, {z[4], z[5]}}};\n"
                          "  scale(s.P, z[0]); double (*Q)[2] = s.P; Q[0][1] += s.n * z[1];\n"
                          "  return det(s.P) * s.x[1] + Q[1][1]; }\n",
    "by_value_and_pointer": "static double g(kmixed s, kmixed *q) { scale(q->P, s.x[0]);\n"
                            "  return det(s.P) * q->P[0][1] + det(q->P); }\n"
                            "double w(const double *z) { kmixed s = {2, {z[0], z[1]}, {{z[2], z[3]}, {z[4], z[5]}}};\n"
                            "  kmixed q = s; q.P[1][0] = z[1] * z[2];\n"
                            "  return g(s, &q) + q.P[0][0] * q.P[1][1]; }\n",
    "run_member_rows": "static double h(kstate *s, double a) { scale(s->P, a); return det(s->P) + s->x[1]; }\n"
                       "double w(const double *z) { kstate s = {{z[0], z[1]}, {{z[2], z[3]}, {z[4], z[5]}}};\n"
                       "  double v = h(&s, z[1]); return v * s.P[1][0] + s.P[0][0]; }\n",
    "run_element_by_value": "typedef struct { double m[2][2]; double t; double v[2]; } Frame;\n"
                            "static double tr(Frame g) { return g.m[0][0] * g.m[1][0] + g.t * g.m[0][1] * g.v[1]; }\n"
                            "static double f(const Frame *p) { return tr(*p) + tr(p[1]); }\n"
                            "double w(const double *z) { Frame fr[2];\n"
                            "  for (int k = 0; k < 2; k++) { fr[k].t = z[4 - k]; fr[k].v[0] = 1.0; fr[k].v[1] = z[5];\n"
                            "    for (int i = 0; i < 2; i++) for (int j = 0; j < 2; j++) "
                            "fr[k].m[i][j] = z[2 * i + j] * (k + 1); }\n"
                            "  return f(fr) * z[5]; }\n",
    "three_dimensions": "typedef struct { double T[2][2][2]; double c; } cube;\n"
                        "double w(const double *z) { cube a; a.c = z[5];\n"
                        "  for (int i = 0; i < 2; i++) for (int j = 0; j < 2; j++) for (int k = 0; k < 2; k++)\n"
                        "    a.T[i][j][k] = z[i] * z[j + 2] + z[k + 3];\n"
                        "  cube b = a; return det(b.T[1]) * a.c + b.T[0][1][1] * det(a.T[0]); }\n",
    "nested": "typedef struct { kstate k; double q; int steps; } filt;\n"
              "double w(const double *z) { filt F = {{{0.0, 0.0}, {{1.0, 0.0}, {0.0, 1.0}}}, 0.5, 3};\n"
              "  F.k.P[0][1] = z[0]; F.k.P[1][0] = z[1] * F.q; F.k.x[1] = z[2];\n"
              "  filt G = F; G.k.P[1][1] += z[3];\n"
              "  return det(G.k.P) + det(F.k.P) * G.k.x[1] * z[4]; }\n",
}


@pytest.mark.parametrize("level", [0, 2])
@pytest.mark.parametrize("case", sorted(CASES))
def test_two_dimensional_members_match_finite_differences(case, level):
    _matches_finite_differences(CASES[case], level)


def _error(body: str):
    source = KSTATE + body
    with pytest.raises(DiagnosticError) as info:
        pipeline.gradient_source(source, "t.c", "f", ["z"], "c")
    (d,) = info.value.diagnostics  # one problem, one message
    assert d.hint, d.message
    line = next(k for k, s in enumerate(source.split("\n"), 1) if s.startswith("double f"))
    assert d.loc.line == line
    return d


@pytest.mark.parametrize("body, message, hint", [
    ("double f(kstate *s, const double *z) { double (*Q)[2] = s->P; Q[0][1] = z[0]; return Q[0][0]; }\n",
     "'s->P' has 2 dimensions, and s2sad holds these kstate structs as one run of numbers, which has no rows",
     "index it, s->P[i][j], or pass it to a function of this file that takes its rows, double P[2][2]"),
    ("static double g(const double P[2][2], const kstate *s) { return P[0][0] * s->P[0][0]; }\n"
     "double f(kstate *s, const double *z) { s->P[0][0] = z[0]; return g(s->P, s); }\n",
     "'g' is passed 's->P' and, here, more of the same structs",
     "pass the struct alone and let g reach the member through it, or copy s->P into a local array first"),
    ("double f(const double *z) { kstate s; s.P[0][0] = z[0]; s.P[0][1] = s.P[1][0] = s.P[1][1] = 0; "
     "return s.P[0]; }\n",
     "'s.P[0]' is a row of 's.P', not a number", "index each one once, s.P[i][j]"),
    ("double f(const double *z) { kstate s = {{z[0], 0.0}, {{1.0, 2.0, 3.0}, {0.0, 1.0}}}; return s.P[0][0]; }\n",
     "more initializers than the array member 'P' of kstate holds (2x2)", "initialize"),
])
def test_refusals_that_remain_are_located(body, message, hint):
    d = _error(body)
    assert message in d.message
    assert hint in d.hint


def test_a_struct_with_a_2d_member_returned_by_value_stays_refused():
    body = ("static kstate mk(double a) { kstate s = {{a, a}, {{a, 0.0}, {0.0, a}}}; return s; }\n"
            "double f(const double *z) { kstate s = mk(z[0]); return s.P[0][0]; }\n")
    with pytest.raises(DiagnosticError) as info:
        pipeline.gradient_source(KSTATE + body, "t.c", "f", ["z"], "c")
    (d,) = info.value.diagnostics
    assert "functions returning a struct (kstate) with array or pointer members are not supported" in d.message
    assert d.hint == "write the members into a struct the caller passes by pointer"
