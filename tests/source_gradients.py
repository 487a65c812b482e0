"""Generate a gradient from source text and check it against central differences.

For the tests whose cases are small programs written inline (not golden folders): the
program is differentiated for a target and level, the gradient and the primal are loaded
from their texts, and ``fd.check_gradient`` compares them under the contract's semantics.
"""

from __future__ import annotations

import numpy as np
from fd import ParamSpec, check_gradient, written_arrays

from s2sad import pipeline
from s2sad.cli import main
from s2sad.pipeline import parse_source


HEADER = "import math\n\nimport numpy as np\n\n\n"  # what each inline program starts with

# -O2 without the inlining of helpers with loops that loops call (opt/inline_loops): for the tests
# of what such a helper's gradient, still called in the loop, is given (copies, shadows, rows).
CALLS_KEPT = pipeline.Options(passes=pipeline.PRIMAL_PIPELINES[2].replace("inline-loops,", ""))


def arr(name: str, *shape: int) -> ParamSpec:
    return ParamSpec(name, "array", tuple(shape))


def num(name: str, low: float = -1.0, high: float = 1.0) -> ParamSpec:
    return ParamSpec(name, "float", low=low, high=high)


def count(name: str, value: int) -> ParamSpec:
    return ParamSpec(name, "int", value=value)


def load(text: str, name: str) -> dict:
    """The namespace of the Python source ``text`` run as a module."""
    namespace: dict = {}
    exec(compile(text, name, "exec"), namespace)
    return namespace


# Numba output's namespaces by their text: a gradient whose text another test (a case that differs
# only in its arguments' values) already loaded reuses what Numba compiled for it, which takes long.
_NUMBA_LOADED: dict[str, dict] = {}


def _loaded_gradient(text: str, func: str, target: str):
    if target != "numba":
        return load(text, f"<grad {func}>")[f"grad_{func}"]
    if text not in _NUMBA_LOADED:
        _NUMBA_LOADED[text] = load(text, f"<grad {func}>")
    return _NUMBA_LOADED[text][f"grad_{func}"].py_func


def check_source(source: str, wrt: list[str], params: list[ParamSpec], target: str = "py", level: int = 2,
                 func: str = "f", seeds: int = 2) -> str:
    """Check ``grad_<func>`` of ``source`` (Numba output run as Python: compiling each takes long);
    returns the gradient's text."""
    text = pipeline.gradient_source(source, "prog.py", func, wrt, target, pipeline.Options(level=level))
    gradient = _loaded_gradient(text, func, target)
    primal = load(source, f"<{func}>")[func]
    written = written_arrays(parse_source(source, "prog.py", func), func)
    for seed in range(seeds):
        check_gradient(primal, gradient, params, wrt, written, np.random.default_rng(seed))
    return text


def the_refusal(source: str, wrt: list[str], func: str = "f", target: str = "py"):
    """The one located diagnostic s2sad gives for ``func`` of ``source`` (which it must refuse)."""
    import pytest

    from s2sad.diagnostics import DiagnosticError

    with pytest.raises(DiagnosticError) as info:
        pipeline.gradient_source(source, "prog.py", func, wrt, target)
    (d,) = info.value.diagnostics
    return d


def check_command(tmp_path, capsys, source: str, func: str, wrt: str, sizes: str, target: str = "py",
                  name: str = "prog.py", extra: tuple[str, ...] = ()) -> None:
    """``s2sad check`` of ``source`` (written to ``name``): every adjoint matches central differences."""
    path = tmp_path / name
    path.write_text(source)
    code = main(["check", str(path), "--func", func, "--wrt", wrt, "--target", target, "--sizes", sizes, *extra])
    out = capsys.readouterr()
    assert code == 0 and "all adjoints match" in out.out, out.out + out.err
