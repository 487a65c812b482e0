"""A parameter the function differentiated only unpacks (``W, b = params``, parse/py_entry_tuples):
its items are the parameters, and the gradient takes the packed parameter and a tuple of the
items' shadows, unpacking both as the function does. Checked against central differences for
Python and Numba output; C output and ``check`` refuse it, each with a message."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest
from fd import central_difference
from source_gradients import HEADER, load

from s2sad import pipeline
from s2sad.cli import main
from s2sad.diagnostics import DiagnosticError

PACKED = HEADER + """
def loss(params, X: "f64[n, d]", y):
    W1, b1, W2, b2 = params
    h = np.tanh(X @ W1 + b1)
    out = h @ W2 + b2
    return np.mean((out[:, 0] - y) ** 2)
"""


def _shapes():
    rng = np.random.default_rng(11)
    params = (rng.normal(size=(3, 4)), rng.normal(size=4), rng.normal(size=(4, 1)), rng.normal(size=1))
    return params, rng.normal(size=(5, 3)), rng.normal(size=5)


@pytest.mark.parametrize("target", ["py", "numba"])
def test_the_gradient_takes_the_packed_parameter_and_its_shadows_packed(target, tmp_path):
    text = pipeline.gradient_source(PACKED, "prog.py", "loss", ["params"], target, pipeline.Options())
    _ruff_clean(text, tmp_path)  # (Numba's checked entry unpacks only the items its checks read)
    assert "def grad_loss(params, d_params, X, y, d_return=1.0):" in text, text
    assert "W1, b1, W2, b2 = params" in text and "params is unpacked into W1, b1, W2, b2" in text
    grad = load(text, "<grad loss>")["grad_loss"]  # (Numba's compiled: a heterogeneous tuple)
    f = load(PACKED, "<loss>")["loss"]
    params, X, y = _shapes()
    shadows = tuple(np.zeros(np.shape(p)) for p in params)
    grad(params, shadows, X, y)
    for k, (p, d) in enumerate(zip(params, shadows)):
        def at(v, k=k):
            return f(tuple(v if j == k else q for j, q in enumerate(params)), X, y)
        assert np.allclose(d, central_difference(at, [p], 0), rtol=1e-6, atol=1e-8), k


def test_not_differentiated_the_packed_parameter_is_unpacked_alone():
    text = pipeline.gradient_source(PACKED, "prog.py", "loss", ["y"], "py", pipeline.Options())
    assert "def grad_loss(params, X, y, d_y, d_return=1.0):" in text, text
    params, X, y = _shapes()
    d_y = np.zeros(5)
    load(text, "<grad loss>")["grad_loss"](list(params), X, y, d_y)  # (a list, as callers pass too)
    f = load(PACKED, "<loss>")["loss"]
    assert np.allclose(d_y, central_difference(lambda v: f(params, X, v), [y], 0), rtol=1e-6, atol=1e-8)


def test_c_output_and_check_refuse_a_packed_parameter(tmp_path, capsys):
    with pytest.raises(DiagnosticError) as info:
        pipeline.gradient_source(PACKED, "prog.py", "loss", ["params"], "c", pipeline.Options())
    text = info.value.render()
    assert "prog.py:7:10: error: --target c: parameter 'params' of 'loss' is unpacked into W1, b1, W2, b2" in text
    path = tmp_path / "prog.py"
    path.write_text(PACKED)
    assert main(["check", str(path), "--func", "loss", "--wrt", "params"]) == 1
    assert "parameter 'params' is a tuple the function unpacks" in capsys.readouterr().err


def test_a_parameter_read_otherwise_is_not_unpacked():
    source = PACKED.replace("    return np.mean", "    n = len(params)\n    return n * np.mean")
    text = pipeline.gradient_source(source, "prog.py", "loss", ["X"], "py", pipeline.Options())
    assert "is unpacked into" not in text and "W1, b1, W2, b2 = params" not in text.split('"""')[-1], text


def test_a_number_among_the_items_differentiated_is_refused_with_a_message():
    source = HEADER + "def f(params, x):\n    W, lam = params\n    return np.sum(np.tanh(W @ x)) * lam\n"
    with pytest.raises(DiagnosticError) as info:
        pipeline.gradient_source(source, "prog.py", "f", ["params"], "py", pipeline.Options())
    assert "--wrt params: its item 'lam' is a number" in info.value.render()
    text = pipeline.gradient_source(source, "prog.py", "f", ["x"], "py", pipeline.Options())
    assert "W, lam = params" in text  # (not differentiated, the items are unpacked as they are)


def _ruff_clean(text: str, tmp_path) -> None:
    path = tmp_path / "emitted.py"
    path.write_text(text)
    ruff = Path(sys.executable).with_name("ruff")
    r = subprocess.run([str(ruff), "check", "--isolated", "--no-cache", str(path)], capture_output=True, text=True)
    assert r.returncode == 0, r.stdout + r.stderr


def test_an_item_named_before_the_unpacking_leaves_the_parameter_packed():
    """``W`` used before ``W, b = params`` is another value there: the parameter stays as it is."""
    source = HEADER + ("def f(params, x):\n    W = x * 2.0\n    s = np.sum(W)\n    W, b = params\n"
                       "    return s + np.sum(np.tanh(W @ x) * b)\n")
    text = pipeline.gradient_source(source, "prog.py", "f", ["x"], "py", pipeline.Options())
    assert "is unpacked into" not in text, text
