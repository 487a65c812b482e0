"""np.add.at(a, idx, v): an unbuffered scatter-add (repeated indices add up), differentiated as
``arr.accum_take``: ``a``'s adjoint passes through, ``v``'s is gathered from it (``d_v +=
d_a[idx]``); np.bincount(idx, weights, minlength) is one into new zeros. Each program is checked
against central differences by ``s2sad check`` for every output language; the index arrays it
draws repeat indices (more indices than rows)."""

from __future__ import annotations

import numpy as np
import pytest

from source_gradients import HEADER, check_command, the_refusal

PROGRAMS = HEADER + '''
def embed_loss(E: "f64[m, d]", X: "f64[n, d]", idx: "i64[n]", w: "f64[n]"):
    G = np.zeros_like(E)
    np.add.at(G, idx, X * w[:, None])
    return np.sum(np.tanh(G) * E)


def pair_loss(H: "f64[m, m]", i: "i64[n]", j: "i64[n]", v: "f64[n]"):
    A = H.copy()
    np.add.at(A, (i, j), v * v)
    np.add.at(A, i, 0.5)
    return np.sum(A * A)


def histogram_energy(x: "f64[n]", bins: "i64[n]", m: int):
    h = np.zeros(m)
    np.add.at(h, bins, np.sin(x))
    return np.sum(h ** 3)


def binned(x: "f64[n]", idx: "i64[n]", m: int):
    h = np.bincount(idx, weights=np.exp(x), minlength=m)
    c = np.bincount(idx)
    return np.sum(h * h) + np.sum(h[idx] * x * c[idx]) + np.sum(np.bincount(idx, x) ** 3)
'''

CASES = [
    ("embed_loss", "E,X,w", "E=4x3,X=7x3,idx=7,w=7"),
    ("pair_loss", "H,v", "H=4x4,i=7,j=7,v=7"),
    ("histogram_energy", "x", "x=9,bins=9,m=9"),
    ("binned", "x", "x=9,idx=9,m=3"),
]


@pytest.mark.parametrize("target", ["py", "numba", "c"])
@pytest.mark.parametrize("func, wrt, sizes", CASES, ids=[c[0] for c in CASES])
def test_scatter_add_matches_central_differences(func, wrt, sizes, target, tmp_path, capsys):
    check_command(tmp_path, capsys, PROGRAMS, func, wrt, sizes, target)


def test_bincount_is_as_long_as_its_largest_index_or_minlength():
    from s2sad import pipeline

    text = pipeline.gradient_source(PROGRAMS, "prog.py", "binned", ["x"], "py")
    assert "np.max(idx) + 1 if idx.shape[0] > 0 else 0" in text and "np.add.at(" in text
    namespace: dict = {}
    exec(compile(text, "<grad>", "exec"), namespace)
    primal: dict = {}
    exec(compile(PROGRAMS, "<prog>", "exec"), primal)
    x, h = np.linspace(0.1, 0.9, 5), 1e-6
    for idx in (np.array([4, 0, 4, 1, 4]), np.array([0, 0, 1, 0, 1])):  # past minlength, and within it
        d_x = np.zeros(5)
        namespace["grad_binned"](x, d_x, idx, 3)
        want = [(primal["binned"](x + h * e, idx, 3) - primal["binned"](x - h * e, idx, 3)) / (2 * h)
                for e in np.eye(5)]
        np.testing.assert_allclose(d_x, want, rtol=1e-6)


def test_the_gradient_gathers_what_was_scattered():
    from s2sad import pipeline

    text = pipeline.gradient_source(PROGRAMS, "prog.py", "histogram_energy", ["x"], "py")
    assert "np.add.at(h, bins, np.sin(x))" in text and "d_h[bins]" in text


@pytest.mark.parametrize("body, message", [
    ("np.add.at(h, x, x)", "np.add.at's indices here are arrays of integers"),
    ("y = np.add.at(h, bins, x)", "np.add.at(...) adds into its first argument and gives None"),
    ("np.add.at(h, bins)", "np.add.at takes three arguments"),
    ("np.add.at(h, bins, np.outer(x, x))", "np.add.at's values here are an array of rank 1"),
])
def test_misuse_is_located(body, message):
    source = HEADER + f'''
def f(x: "f64[n]", bins: "i64[n]", m: int):
    h = np.zeros(m)
    {body}
    return np.sum(h * h)
'''
    d = the_refusal(source, ["x"])
    assert message in d.message and d.loc.line == 9, d
