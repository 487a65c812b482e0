"""The C lowering of whole-array ops (s2sad/opt/lower_arrays.py).

The numerics of every whole-array golden case in C (compiled, checked against
finite differences at -O0..-O2) are in tests/test_emit_c.py; here: the lowered IR
is well formed and free of ``arr.`` ops, shape symbols become size parameters,
and the C text keeps the properties a reviewer checks (one free per buffer,
buffers made before the loops, no ``* 1`` for a ``keepdims`` axis).
"""

from __future__ import annotations

import re

import pytest

from golden_cases import load_cases
from s2sad.pipeline import parse_source
from s2sad import pipeline
from s2sad.opt.lower_arrays import add_size_params, has_array_ops, lower_module
from s2sad.ssa.array_ops import is_array_op
from s2sad.ssa.verifier import verify_module

def _whole_array(case) -> bool:
    module = parse_source(case.source, "input.py", case.func)
    return any(is_array_op(op.name) for fn in module.functions.values() for op in fn.walk())


CASES = [c for c in load_cases() if _whole_array(c) and c.c]


def _grad(case, level=2):
    return pipeline.gradient_module(case.source, "input.py", case.func, case.wrt, pipeline.Options(level=level))


@pytest.mark.parametrize("level", (2, 0), ids=lambda lv: f"O{lv}")
@pytest.mark.parametrize("case", CASES, ids=lambda c: c.name)
def test_lowered_ir_verifies_and_has_no_array_ops(case, level):
    module = _grad(case, level)
    entry = module.functions[f"grad_{case.func}"]
    assert any(has_array_ops(fn) for fn in module.functions.values())
    add_size_params(module, entry)
    lower_module(module, set(module.functions))
    verify_module(module)
    assert not [op.name for fn in module.functions.values() for op in fn.walk() if is_array_op(op.name)]


def test_shape_symbols_become_size_parameters_before_d_return():
    case = next(c for c in CASES if c.name == "array_softmax_cross_entropy")
    text = pipeline.gradient_source(case.source, "input.py", case.func, case.wrt, "c")
    assert ("void grad_softmax_xent(double *W, double *d_W, double *X, double *d_X, double *Y, long k, long d,\n"
            "                       long m, double d_return) {") in text
    assert "// Array sizes: W, d_W: [k][d] (row-major); X, d_X: [m][d] (row-major); Y: [m][k] (row-major)." in text
    # X.shape[0] is the size parameter itself
    assert "-(d_return / m)" in text


@pytest.mark.parametrize("name", ["array_matmul_transpose", "array_softmax_cross_entropy", "array_slicing_conv2d"])
def test_every_buffer_is_made_once_before_the_loops_and_freed_once(name):
    case = next(c for c in CASES if c.name == name)
    text = pipeline.gradient_source(case.source, "input.py", case.func, case.wrt, "c")
    made = re.findall(r"^    (?:double|bool|long) \*(\w+) = (?:malloc|calloc)\(", text, re.M)
    freed = re.findall(r"^    free\((\w+)\);", text, re.M)
    assert made and sorted(made) == sorted(freed)
    first_loop = text.index("for (")
    assert all(text.index(f"*{m} = ") < first_loop for m in made)
    assert " * 1]" not in text and "* 1 *" not in text and "(m * 1," not in text


def test_lowering_is_deterministic():
    case = next(c for c in CASES if c.name == "array_mlp_loss")
    a = pipeline.gradient_source(case.source, "input.py", case.func, case.wrt, "c")
    b = pipeline.gradient_source(case.source, "input.py", case.func, case.wrt, "c")
    assert a == b


def test_mlp_loss_in_c_is_fused_loops_and_walks_matrices_by_rows():
    case = next(c for c in CASES if c.name == "array_mlp_loss")
    text = pipeline.gradient_source(case.source, "input.py", case.func, case.wrt, "c")
    # W @ x + b and tanh: one loop, no temporary for the sum
    assert re.search(r"\w+\[i\] = tanh\(\w+\[i\] \+ b\[i\]\);", text)
    # d_W += np.outer(t, x): the outer product goes straight into the shadow
    assert re.search(r"d_W\[i0 \* n \+ i1\] \+= \w+\[i0\] \* x\[i1\];", text)
    # W.T @ t: no transposed copy, and W read along its rows
    assert re.search(r"\w+\[i1\] \+= W\[i0 \* n \+ i1\] \* \w+\[i0\];", text)
    assert text.count("malloc(") + text.count("calloc(") <= 5  # no transposed or outer-product copy
