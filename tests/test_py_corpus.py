"""The Python corpus (tests/py_corpus): 179 ordinary numerical functions, differentiated as written.

Every function s2sad differentiates must match central differences (a wrong gradient fails here,
whatever the tables say). The functions it does not differentiate yet are listed in NOT_YET with
how it answers today: ``refused`` (a located error), ``guarded`` (the gradient's rank guard stops
the rank the corpus calls it with: s2sad assumed another) or ``raised`` (the gradient cannot be
called as the function is: a parameter's rank was taken for another, or a default value dropped).
A function in NOT_YET that now works fails the test until it is taken out of the table, so the
figure only moves up. ``python tests/corpus_check.py`` prints the whole table and the figure.
"""

from __future__ import annotations

import pytest
from corpus_check import check
from py_corpus.cases import CASES

# 54 of 131 when the corpus was added; 61 once elementwise expressions gave their parameter a kind;
# 70 with np.linalg (norm, det, inv, solve), np.trace, np.einsum, np.stack/np.concatenate, np.convolve;
# 77 with slice assignment, .copy(), slice bounds from integers and arrays rebound in loops.
# 83 with defaults and keyword-only parameters kept, local functions and lambdas lifted and max(items)
# (and six plain_python functions written for those).
# 69 with np.var/std/prod/cumsum/clip and scipy.special's functions of differentiable arguments.
# (then four ml_scratch functions added that need helpers typed from their calls and returning arrays)
# 144 of 179 with ranks from uses (py_rank_uses) and shape-generic parameters (adjoint.shape_generic).
# 154 with the ranks of matrix products' operands guessed as such code writes them (py_products).
# 164 with the first parameter taken for the array where several operands could be (py_rank_uses),
# the others shape-generic; a gradient that takes an array for a number now answers with its guard.
# 166 with shape-generic values through np.exp/np.log/np.sqrt/np.tanh and meeting numbers computed
# elsewhere (x - m: m's share summed).
# 168 with the need of an array reaching np.where's condition, comparisons and x ** gamma.
# 170 with shape-generic results (return np.exp(x): every parameter any shape that broadcasts).
# 171 with items of two sequences combined elementwise taken to be alike (x - c, for x in X, c in C).
# 172 with parameters' extents a loop's rebinding needs equal checked on the gradient's entry (rnn_loop).
# 173 with data through any ufunc shape-generic (gammaln(k + 1) of a k not differentiated).
# 174 with an array centred along an axis (X - X.mean(axis=0)) guessed to have another (batch_norm_loss).
# 175 with parameters guessed to be arrays shape-generic too, where every use is elementwise or a whole
# reduction (rbf_interpolant: x a number, centers an array).
# 176 with shape-generic values through any ufunc whose adjoint maps arrays (np.abs: its sign chosen by
# np.where; np.sin: np.cos), active ones too (ufunc_spellings).
# 177 with a parameter a loop rebinds to an array taken for that array (wave_leapfrog: v = v + dt * a).
# 178 with C - X[i] reduced along an axis read as a matrix C and a row of X (soft_kmeans).
# 179 with sums a loop carries from a number shape-generic (polynomial: total = total + c[k] * x ** k).
NOT_YET: dict[str, tuple[str, str]] = {
    # holdout.py (written after the rest, without looking at what s2sad supports): 23 of 38 at first;
    # 24 once np.diff was read as its slices; 27 with ranks from uses; 32 with matrix products'
    # operand ranks (py_products); 34 with the first parameter taken for the array of an ambiguous
    # elementwise expression; 35 with shape-generic values meeting numbers computed elsewhere; 36 with
    # shape-generic results; 37 with items of two sequences alike; 38 with guessed arrays shape-generic
}


def test_the_corpus_is_large_enough_and_the_table_names_its_functions():
    assert len(CASES) >= 100
    assert set(NOT_YET) <= set(CASES)
    print(f"\ncorpus: {len(CASES) - len(NOT_YET)} of {len(CASES)} functions differentiated (--target py) and checked")


@pytest.mark.parametrize("key", list(CASES))
def test_corpus_function(key):
    try:
        status, detail = check(key, "py")
    except TypeError as e:  # the gradient cannot be called the way the function is
        status, detail = "raised", str(e)
    if key in NOT_YET:
        want, reason = NOT_YET[key]
        assert status != "ok", f"{key} is now differentiated and checked: take it out of NOT_YET"
        assert status == want and reason in detail, f"{key}: {status}: {detail}"
    else:
        assert status == "ok", f"{key}: {status}: {detail}"
