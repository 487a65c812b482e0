"""A dict parameter of the function differentiated, read by literal keys (issue 18, plain Python):
``def loss(theta, X, config)`` with ``config["lam"]``, ``config.get("scale", 1.0)`` and
``config["penalty"] == "l2"``, passed on to helpers that read it so too.

The lowering takes a parameter per key (``parse/py_dicts``); the Python gradient takes the dict
as the function does and reads each key first thing, as the function reads it (a missing key
raises KeyError, a ``.get`` gives its default). Numba and C output refuse it, and so does
``--wrt`` naming it, each as a located error.
"""

from __future__ import annotations

import numpy as np
import pytest

from s2sad import pipeline
from s2sad.diagnostics import DiagnosticError

SOURCE = '''
import numpy as np


def reg(theta, cfg):
    return cfg["lam"] * np.sum(theta**2)


def loss(theta, X, cfg, opts):
    base = np.sum((X @ theta) ** 2) * opts.get("w", 0.5)
    if opts.get("kind", "sq") == "abs":
        base = np.sum(np.abs(X @ theta))
    if cfg["penalty"] == "l2":
        base += reg(theta, cfg)
    return base * cfg.get("scale", 1.0)
'''


def _load(text: str) -> dict:
    namespace: dict = {}
    exec(compile(text, "t.py", "exec"), namespace)
    return namespace


@pytest.mark.parametrize("level", [0, 2])
def test_the_gradient_takes_the_dicts_and_reads_their_keys_as_the_function_does(level):
    text = pipeline.gradient_source(SOURCE, "t.py", "loss", ["theta"], "py", pipeline.Options(level=level))
    assert "def grad_loss(theta, d_theta, X, cfg, opts, d_return=1.0):" in text
    assert 'opts_w = opts.get("w", 0.5)' in text and 'cfg_penalty = cfg["penalty"]' in text
    grad, f = _load(text)["grad_loss"], _load(SOURCE)["loss"]
    rng = np.random.default_rng(4)
    X, theta = rng.normal(size=(4, 3)), rng.normal(size=3)
    for cfg, opts in [({"lam": 0.2, "penalty": "l2"}, {}), ({"lam": 0.2, "penalty": "l1", "scale": 3.0},
                                                            {"w": 2.0, "kind": "abs"}),
                      ({"lam": 1.0, "penalty": "l2", "scale": 0.5}, {"kind": "sq"})]:
        d_theta = np.zeros(3)
        grad(theta, d_theta, X, cfg, opts)
        h = 1e-6
        fd = [(f(theta + h * e, X, cfg, opts) - f(theta - h * e, X, cfg, opts)) / (2 * h) for e in np.eye(3)]
        np.testing.assert_allclose(d_theta, fd, rtol=1e-6, atol=1e-8, err_msg=f"{cfg} {opts}")
    with pytest.raises(KeyError):  # as the function would
        grad(theta, np.zeros(3), X, {"lam": 1.0}, {})


def _error(source: str, wrt: list[str], target: str = "py") -> str:
    with pytest.raises(DiagnosticError) as info:
        pipeline.gradient_source(source, "t.py", "loss", wrt, target, pipeline.Options())
    d = info.value.diagnostics[0]
    return f"{d.loc.line}:{d.loc.col}: {d.message}"


@pytest.mark.parametrize("target, what", [("numba", "Numba functions do"), ("c", "C output does")])
def test_other_targets_refuse_a_dict_parameter_at_it(target, what):
    assert _error(SOURCE, ["theta"], target) == (
        f"9:20: --target {target}: parameter 'cfg' of 'loss' is a dict, which {what} not take")


def test_differentiating_with_respect_to_a_dict_is_refused():
    assert _error(SOURCE, ["theta", "cfg"]) == (
        "9:1: --wrt cfg: parameter 'cfg' of 'loss' is a dict, which s2sad does not differentiate with respect to")


def test_a_dict_read_otherwise_is_refused_at_the_other_use():
    source = SOURCE.replace('base * cfg.get("scale", 1.0)', 'base * cfg.get("scale", 1.0) + len(cfg)')
    line = next(k for k, text in enumerate(source.splitlines(), 1) if "len(cfg)" in text)
    message = _error(source, ["theta"])
    assert message.startswith(f"{line}:") and "'cfg' is read by its keys (cfg[\"penalty\"], line 13)" in message
    assert message.endswith("and used otherwise here")


LOOPED = """import numpy as np


def loss(x, cfg):
    s = cfg["a"] * np.sum(x)
    for k in cfg:
        s += cfg[k] * np.sum(x)
    return s
"""

FORWARDED = """import numpy as np


def loss(x, cfg):
    c = cfg
    return np.sum(x) * c["a"]
"""

HELPER = """import numpy as np


def scaled(x, p):
    return p["a"] * x


def loss(x, a):
    return np.sum(scaled(x, dict(a=a)))
"""


@pytest.mark.parametrize("source, where, message", [
    (LOOPED, "6:14", "'cfg' is read by its keys (cfg[\"a\"], line 5) and used otherwise here"),
    (FORWARDED, "6:24", "'c' is read by its keys, but it is not a dict s2sad follows"),
    (HELPER, "5:12", "'p' is read by its keys in scaled, but not every call passes a dict made in the caller"),
], ids=["looped_over", "another_name", "helper"])
def test_keys_read_of_what_is_not_followed_as_a_dict_are_refused_at_the_cause(source, where, message):
    """Not "strings are not supported" at the key: the use that keeps the dict from being read
    by its keys, named in Python's words."""
    got = _error(source, ["x"] if "def loss(x" in source else ["theta"])
    assert got.startswith(where + ": " + message), got
    assert "strings are not supported" not in got

