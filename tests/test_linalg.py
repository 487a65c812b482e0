"""Linear algebra, einsum, stacking and convolution (s2sad/parse/py_linalg.py,
s2sad/adjoint/linalg_rules.py).

The golden cases array_linalg_solve_det, array_norms, array_einsum, array_stacking,
array_concatenate_lists and array_convolve check the gradients numerically in every target; here:
what is refused (a located error naming the construct, never a traceback), the convention at the
zero vector, the adjoints' shapes of spelling (a solve with the transpose, not an inverse), and
lists of numbers among the parts of a concatenation.
"""

from __future__ import annotations

import textwrap

import numpy as np
import pytest

from fd import check_source_function
from source_gradients import check_command

from s2sad import pipeline
from s2sad.diagnostics import DiagnosticError


def _gradient(source: str, wrt: list[str], target: str = "py") -> str:
    return pipeline.gradient_source(textwrap.dedent(source), "prog.py", "f", wrt, target, pipeline.Options())


def _diagnose(source: str, wrt: list[str], target: str = "py") -> str:
    with pytest.raises(DiagnosticError) as info:
        _gradient(source, wrt, target)
    return info.value.render()


@pytest.mark.parametrize("body, fragment", [
    ('return np.einsum("...i,i->", A, x)', "np.einsum with an ellipsis ('...') is not supported"),
    ("return np.einsum(s, A, x)", "the subscripts of np.einsum must be a string literal"),
    ('return np.einsum("iij->", T)', "np.einsum term 'iij' repeats a letter"),
    ('return np.einsum("ij,j->i", x, A)', "np.einsum term 'ij' has 2 letter(s), but operand 1 has rank 1"),
    ('return np.einsum("ij,jk->ik", A)', "name 2 operand(s), but 1 are given"),
    ('return np.einsum("ij->ik", A)', "output 'ik' must be distinct letters of the inputs"),
    ("return np.sum(np.stack(k))", "np.stack takes a list or tuple of arrays written in the call"),
    ("return np.sum(np.stack([x, A]))", "np.stack takes arrays of one rank; these have ranks 1, 2"),
    ("return np.sum(np.concatenate([x, x], axis=None))", "np.concatenate with axis=None (flattening) is not"),
    ("return np.sum(np.concatenate([x, x], axis=k))", "axis= must be an integer literal"),
    ("return np.sum(np.stack([x, x], axis=2))", "axis 2 is out of range for a 2-D result"),
    ("return np.linalg.norm(x, 3)", "np.linalg.norm takes ord=None, 1, 2, np.inf or 'fro' here"),
    ("return np.linalg.norm(A, 1)", "of the matrix norms, only the Frobenius norm"),
    ("return np.linalg.norm(T)", "np.linalg.norm of a rank-3 array needs axis="),
    ("return np.sum(np.convolve(x, x, mode=m))", "mode= of np.convolve must be the literal"),
    ("return np.trace(x)", "np.trace takes a matrix; this array has rank 1"),
    ("return np.sum(np.linalg.cholesky(x))", "np.linalg.cholesky takes a matrix; this array has rank 1"),
    ("return np.sum(np.tril(x))", "np.tril takes a matrix; this array has rank 1"),
    ("return np.linalg.slogdet(A)", "np.linalg.slogdet gives a pair (sign, logabsdet): unpack it or take one"),
    ("return np.linalg.slogdet(A)[2]", "np.linalg.slogdet's pair has the parts 0 (sign) and 1 (logabsdet)"),
    ("return np.sum(np.linalg.eigh(A))", "np.linalg.eigh gives a pair (eigenvalues, eigenvectors): unpack it"),
    ("return np.sum(np.linalg.eigh(A).vectors)", "np.linalg.eigh's pair has the parts 0 (eigenvalues) and 1"),
    ("return np.sum(np.linalg.eigvalsh(x))", "np.linalg.eigvalsh takes a matrix; this array has rank 1"),
])
def test_what_is_not_supported_is_a_located_error(body, fragment):
    source = f"""
        import numpy as np


        def f(x: "f64[n]", A: "f64[n, n]", T: "f64[n, n, n]", parts: "f64[n, n]", s: int, k: int, m: int):
            {body}
        """
    text = _diagnose(source, ["x"])
    assert fragment in text
    assert text.startswith("prog.py:6:") and "^" in text and "Traceback" not in text


@pytest.mark.parametrize("body, what", [
    ("return np.linalg.det(A)", "np.linalg.det"),
    ("return np.sum(np.linalg.inv(A))", "np.linalg.inv"),
    ("return np.sum(np.linalg.solve(A, x))", "np.linalg.solve"),
    ("return np.sum(np.convolve(x, x))", "np.convolve"),
    ("return np.linalg.slogdet(A)[1]", "np.linalg.slogdet"),
    ("return np.sum(np.linalg.cholesky(A))", "np.linalg.cholesky"),
    ("return np.sum(np.linalg.eigvalsh(A))", "np.linalg.eigh"),
])
def test_c_output_refuses_what_has_no_loops_at_its_line(body, what):
    source = f"""
        import numpy as np


        def f(x: "f64[n]", A: "f64[n, n]"):
            {body}
        """
    text = _diagnose(source, ["x", "A"], "c")
    assert text.startswith("prog.py:6:") and f"{what} is not supported for C output yet" in text, text


TRIANGLES = """
import numpy as np


def f(A: "f64[m, n]"):
    return np.sum(np.triu(A, -1) * A) + np.sum(np.tril(A, 2) ** 2) + np.sum(np.tril(A, -1) * np.sin(A))
"""


@pytest.mark.parametrize("target", ["c", "py"])
def test_triangles_of_a_wide_matrix_match_central_differences(target, tmp_path, capsys):
    # (C output: loops keeping j <= i + k; it was refused, and np.triu's refusal named np.tril)
    from source_gradients import check_command

    check_command(tmp_path, capsys, TRIANGLES, "f", "A", "A=3x5", target)


def _run(source: str, wrt: list[str], *args):
    namespace: dict = {}
    exec(_gradient(source, wrt), namespace)
    return namespace["grad_f"](*args)


def test_the_norm_at_the_zero_vector_has_the_adjoint_zero():
    source = """
        import numpy as np


        def f(x: "f64[n]", A: "f64[m, n]"):
            return np.linalg.norm(x) + np.sum(np.linalg.norm(A, axis=1)) + np.linalg.norm(A)
        """
    x, d_x = np.zeros(3), np.zeros(3)
    A, d_A = np.array([[0.0, 0.0, 0.0], [3.0, 0.0, 4.0]]), np.zeros((2, 3))
    _run(source, ["x", "A"], x, d_x, A, d_A)
    assert np.array_equal(d_x, np.zeros(3))
    # row 0 is zero (adjoint 0); row 1 has the norm 5; the Frobenius norm is 5 too
    assert np.allclose(d_A, [[0.0, 0.0, 0.0], [1.2, 0.0, 1.6]])


def test_the_adjoint_of_solve_solves_with_the_transpose():
    text = _gradient("""
        import numpy as np


        def f(A: "f64[n, n]", b: "f64[n]"):
            return np.sum(np.linalg.solve(A, b) ** 2)
        """, ["A", "b"])
    assert "t1 = np.linalg.solve(A.T, d_return * 2.0 * t0)" in text
    assert "d_A += -np.outer(t1, t0)" in text and "d_b += t1" in text
    assert "np.linalg.inv" not in text


def test_the_adjoint_of_an_einsum_is_an_einsum_and_of_a_concatenation_its_slices():
    text = _gradient("""
        import numpy as np


        def f(A: "f64[m, n]", x: "f64[n]", y: "f64[k]"):
            z = np.concatenate([x, y])
            return np.einsum("ij,j->", A, x) + np.sum(z * z)
        """, ["A", "x", "y"])
    # j is summed inside A only: stretched back over the rows with ones
    assert 'd_A += d_return * np.einsum("j,i->ij", x, np.ones(A.shape[0]))' in text
    assert 'd_x += d_return * np.einsum("ij->j", A)' in text
    assert "d_x += d_z[: x.shape[0]]" in text
    assert "d_y += d_z[x.shape[0] :]" in text


def test_implicit_einsum_output_is_numpys():
    source = """
        import numpy as np


        def f(A: "f64[m, n]", B: "f64[n, k]"):
            return np.sum(np.einsum("ij,jk", A, B) ** 2)
        """
    rng = np.random.default_rng(0)
    A, B = rng.normal(size=(2, 3)), rng.normal(size=(3, 4))
    d_A, d_B = np.zeros_like(A), np.zeros_like(B)
    _run(source, ["A", "B"], A, d_A, B, d_B)
    assert np.allclose(d_A, 2 * (A @ B) @ B.T)
    assert np.allclose(d_B, 2 * A.T @ (A @ B))


# ------------------------------------------------------------------ slogdet, cholesky, tril
DECOMPOSITIONS = """
import numpy as np


def gp_nll_chol(X: "f64[n, d]", y: "f64[n]", log_ell: float, log_sn: float):
    d2 = np.sum(X ** 2, 1).reshape(-1, 1) + np.sum(X ** 2, 1) - 2 * X @ X.T
    K = np.exp(-0.5 * d2 / np.exp(2 * log_ell)) + np.exp(2 * log_sn) * np.eye(X.shape[0])
    L = np.linalg.cholesky(K)
    alpha = np.linalg.solve(L.T, np.linalg.solve(L, y))
    return 0.5 * y @ alpha + np.sum(np.log(np.diag(L)))


def gp_nll_slogdet(X: "f64[n, d]", y: "f64[n]", ell: float, sn: float):
    d2 = np.sum(X ** 2, 1).reshape(-1, 1) + np.sum(X ** 2, 1) - 2 * X @ X.T
    K = np.exp(-0.5 * d2 / ell ** 2) + sn ** 2 * np.eye(X.shape[0])
    sign, logdet = np.linalg.slogdet(K)
    return 0.5 * y @ np.linalg.solve(K, y) + 0.5 * logdet * sign


def parts(A: "f64[n, n]"):
    return np.linalg.slogdet(A)[1] - 2.0 * np.linalg.slogdet(A).logabsdet + np.sum(np.tril(A) ** 2)


def lower_only(A: "f64[n, n]"):
    L = np.linalg.cholesky(A)
    return np.sum(L * L * L)


def spectrum(A):
    w, V = np.linalg.eigh(A + A.T)
    return np.sum(w ** 2) + np.sum(np.abs(V[:, 0]) * np.arange(A.shape[0]))


def eigh_lower(A: "f64[n, n]"):
    w, V = np.linalg.eigh(A)
    return w[-1] + np.sum(V[:, -1] ** 4) + np.sum(np.linalg.eigvalsh(A) ** 3)


def eigh_parts(A: "f64[n, n]"):
    return np.sum(np.linalg.eigh(A)[0] * np.linalg.eigh(A).eigenvalues) + np.sum(np.linalg.eigh(A)[1] ** 2)
"""


@pytest.mark.parametrize("target", ["py", "numba"])
@pytest.mark.parametrize(("func", "wrt"), [("gp_nll_chol", ["y", "log_ell", "log_sn"]),
                                           ("gp_nll_slogdet", ["X", "ell", "sn"]),
                                           ("parts", ["A"]), ("lower_only", ["A"]),
                                           ("spectrum", ["A"]), ("eigh_lower", ["A"]), ("eigh_parts", ["A"])])
def test_decompositions_match_central_differences(func, wrt, target):
    """A Gaussian process's negative log-likelihood through np.linalg.cholesky and through
    np.linalg.slogdet, as such code is written. Cholesky's adjoint (two triangular solves, no
    inverse) is taken with respect to the lower triangle NumPy reads: the central differences
    below move one entry at a time, the upper ones too (whose derivative is 0); so are
    np.linalg.eigh's (eigenvalues: V diag(dw) V.T; eigenvectors, of distinct eigenvalues, and of
    quantities their signs do not change: V (F o V.T dV) V.T)."""
    text = pipeline.gradient_source(DECOMPOSITIONS, "prog.py", func, wrt, target)
    assert "np.linalg.inv" not in text or func in ("parts", "gp_nll_slogdet")
    rng = np.random.default_rng(4)
    spd = np.array([[4.0, 1.0, 0.5], [1.0, 3.0, 0.2], [0.5, 0.2, 2.0]])
    X, y = rng.normal(size=(4, 2)), rng.normal(size=4)
    args = {"gp_nll_chol": [X, y, 0.1, -1.0], "gp_nll_slogdet": [X, y, 1.1, 0.4],
            "parts": [spd - 5.0 * np.eye(3)], "lower_only": [spd], "spectrum": [rng.normal(size=(4, 4))],
            "eigh_lower": [rng.normal(size=(4, 4))], "eigh_parts": [rng.normal(size=(3, 3))]}[func]
    check_source_function(DECOMPOSITIONS, func, args, wrt, target, atol=1e-7)


def _part_source(signature: str, body: str) -> str:
    return f"import numpy as np\n\n\ndef f({signature}):\n" + textwrap.indent(textwrap.dedent(body), "    ")


@pytest.mark.parametrize("target", ["py", "numba"])
def test_lists_of_numbers_beside_arrays_in_concatenate_and_hstack(target):
    body = """\
        a = np.concatenate(([0.0], np.cumsum(x)))
        b = np.concatenate([[1.0, s * s], x, [2 * s]])
        c = np.hstack(([s], x[::-1]))
        return np.sum(a * a * np.arange(a.shape[0])) + np.sum(np.sin(b)) + np.sum(c ** 3)
        """
    source = _part_source('x: "f64[n]", s: float', body)
    check_source_function(source, "f", [np.random.default_rng(6).normal(size=5), 0.4], ["x", "s"], target)


def test_one_number_list_reads_as_a_full_array():
    source = _part_source('x: "f64[n]"', "return np.sum(np.concatenate(([0.0], np.cumsum(x))) ** 2)\n")
    text = pipeline.gradient_source(source, "prog.py", "f", ["x"], "py")
    assert "np.concatenate((np.zeros(1), np.cumsum(x)))" in text


def test_a_tuple_of_one_number_is_a_part_and_of_several_a_located_error():
    ok = _part_source('x: "f64[n]", a: float', "return np.sum(np.concatenate(((a,), x, (1.0,))) ** 3)\n")
    check_source_function(ok, "f", [np.random.default_rng(9).normal(size=4), 0.3], ["x", "a"])
    bad = _part_source('x: "f64[n]", a: float', "return np.sum(np.concatenate(((a, 2.0), x)) ** 3)\n")
    with pytest.raises(DiagnosticError) as info:
        pipeline.gradient_source(bad, "prog.py", "f", ["x"], "py")
    text = info.value.render()
    assert text.startswith("prog.py:5:") and "with one number only" in text and "[a, b]" in text


KRON = """
import numpy as np


def kron_vec(a: "f64[m]", b: "f64[p]"):
    return np.sum(np.kron(a, b) ** 2 * np.arange(a.shape[0] * b.shape[0]))


def kron_mat(A: "f64[m, n]", B: "f64[p, q]", W: "f64[k, l]"):
    return np.sum(np.sin(np.kron(A, B)) * W)


def kron_plain(A, B):
    return np.trace(np.kron(A, B) @ np.kron(B, A))
"""


@pytest.mark.parametrize("func, wrt, sizes, target", [
    (func, wrt, sizes, target) for func, wrt, sizes in [
        ("kron_vec", "a,b", "a=3,b=4"), ("kron_mat", "A,B", "A=2x3,B=3x2,W=6x6"),
        ("kron_plain", "A,B", "A=2x2,B=3x3")]
    for target in ("py", "numba", "c") if target != "c" or func != "kron_plain"])  # (C: ranks annotated)
def test_kron_is_every_entry_times_the_other_array(tmp_path, capsys, func, wrt, sizes, target):
    """np.kron of two vectors or two matrices, as broadcast products reshaped."""
    check_command(tmp_path, capsys, KRON, func, wrt, sizes, target)
