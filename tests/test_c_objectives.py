"""The benchmark objectives in bench/c/: their C math, and s2sad's C gradients of them.

For each objective (GMM, bundle adjustment, LSTM) at small sizes:

- the primal compiles with ``gcc -std=c99 -Wall -Wextra -Werror`` (at -O1 as a shared
  library, and at -O2 as an object file, as bench/c_suite.py builds it);
- its value equals an independent NumPy implementation of the same mathematics written
  here (the GMM's Q_k built as a matrix, the rotation as the matrix exponential form
  I + sin(t) K + (1 - cos(t)) K^2, the LSTM in matrix form);
- the gradient from ``s2sad.pipeline.gradient_source(..., target="c")`` has the
  contract's signature, compiles with -Werror, leaves the inputs unchanged and, with
  random seeds in the shadows and a random ``d_return``, adds ``d_return * df/da`` to
  each shadow: checked against central differences of the compiled primal for every
  coordinate of every ``--wrt`` array.
"""

from __future__ import annotations

import math
import subprocess
import sys
from pathlib import Path
from typing import Callable

import numpy as np
import pytest
from cbuild import CFLAGS, CFunction, build, build_sanitized, have_gcc

from s2sad import pipeline

pytestmark = pytest.mark.skipif(not have_gcc(), reason="gcc is not installed")

sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "bench"))
from objectives import C_DIR, OBJECTIVES, Objective, central_difference  # noqa: E402

HEADERS = ("-I", str(C_DIR))  # the objectives' own headers (bench/c/gmm.h)


# ----------------------------------------------------------------------------- references


def _lse(v: np.ndarray, axis=None) -> np.ndarray:
    m = np.max(v, axis=axis, keepdims=True)
    out = m + np.log(np.sum(np.exp(v - m), axis=axis, keepdims=True))
    return np.squeeze(out, axis=axis) if axis is not None else out.item()


def gmm_q_matrix(d: int, block: np.ndarray) -> np.ndarray:
    """Q_k from its icf block: exp of the first d entries on the diagonal, then the
    strictly-lower entries column by column."""
    q = np.diag(np.exp(block[:d]))
    idx = d
    for c in range(d):
        for r in range(c + 1, d):
            q[r, c] = block[idx]
            idx += 1
    return q


def gmm_reference(d, k, n, alphas, means, icf, x) -> float:
    isz = d * (d + 1) // 2
    xs = x.reshape(n, d)
    mus = means.reshape(k, d)
    terms = np.empty((n, k))
    frob = 0.0
    for kk in range(k):
        block = icf[kk * isz : (kk + 1) * isz]
        q = gmm_q_matrix(d, block)
        frob += np.sum(q * q)
        qx = (xs - mus[kk]) @ q.T
        terms[:, kk] = alphas[kk] + np.sum(block[:d]) - 0.5 * np.sum(qx * qx, axis=1)
    return float(np.sum(_lse(terms, axis=1)) - n * _lse(alphas) + 0.5 * frob)


def gmm_written_reference(d, k, n, alphas, means, icf, x, gamma, m) -> float:
    """bench/c/gmm_written.c's objective: the mixture's log-likelihood with its constant, and the
    Wishart prior with its normalising constant (lgamma), from the matrices Q_k."""
    isz = d * (d + 1) // 2
    xs = x.reshape(n, d)
    mus = means.reshape(k, d)
    terms = np.empty((n, k))
    prior = 0.0
    for kk in range(k):
        block = icf[kk * isz : (kk + 1) * isz]
        q = gmm_q_matrix(d, block)
        qx = (xs - mus[kk]) @ q.T
        terms[:, kk] = alphas[kk] + np.sum(block[:d]) - 0.5 * np.sum(qx * qx, axis=1)
        prior += 0.5 * gamma * gamma * np.sum(q * q) - m * np.sum(block[:d])
    dof = d + m + 1
    log_gamma_d = 0.25 * d * (d - 1) * math.log(math.pi) + sum(math.lgamma(0.5 * dof + 0.5 * (1 - j))
                                                               for j in range(1, d + 1))
    c = dof * d * (math.log(gamma) - 0.5 * math.log(2.0)) - log_gamma_d
    constant = -n * d * 0.5 * math.log(2.0 * math.pi)
    return float(constant + np.sum(_lse(terms, axis=1)) - n * _lse(alphas) + prior - k * c)


def _skew(w: np.ndarray) -> np.ndarray:
    return np.array([[0.0, -w[2], w[1]], [w[2], 0.0, -w[0]], [-w[1], w[0], 0.0]])


def ba_rotation(r: np.ndarray) -> np.ndarray:
    sq = float(r @ r)
    if sq > 1e-12:
        t = np.sqrt(sq)
        k = _skew(r / t)
        return np.eye(3) + np.sin(t) * k + (1.0 - np.cos(t)) * (k @ k)
    return np.eye(3) + _skew(r)


def ba_reference(nobs, cams, X, w, obs, feats) -> float:
    cams = cams.reshape(-1, 11)
    X = X.reshape(-1, 3)
    obs = obs.reshape(-1, 2)
    feats = feats.reshape(-1, 2)
    total = 0.0
    for i in range(nobs):
        cam = cams[obs[i, 0]]
        xc = ba_rotation(cam[0:3]) @ (X[obs[i, 1]] - cam[3:6])
        p = xc[:2] / xc[2]
        rsq = p @ p
        proj = cam[6] * (1.0 + cam[9] * rsq + cam[10] * rsq * rsq) * p + cam[7:9]
        e = w[i] * (proj - feats[i])
        total += float(e @ e) + (1.0 - w[i] * w[i]) ** 2
    return total


def _sigmoid(a):
    return 1.0 / (1.0 + np.exp(-a))


def lstm_reference(steps, layers, h, W, b, x, h0, c0, y) -> float:
    """bench/c/lstm.c's stacked LSTM in matrix form: each layer's gates from [input, hidden]."""
    ws = W.reshape(layers, 4 * h, 2 * h)
    bs = b.reshape(layers, 4 * h)
    xs = x.reshape(steps, h)
    ys = y.reshape(steps, h)
    hid, cel = h0.reshape(layers, h).copy(), c0.reshape(layers, h).copy()
    loss = 0.0
    for t in range(steps):
        inp = xs[t]
        for layer in range(layers):
            z = ws[layer] @ np.concatenate([inp, hid[layer]]) + bs[layer]
            i, f, o = _sigmoid(z[:h]), _sigmoid(z[h : 2 * h]), _sigmoid(z[2 * h : 3 * h])
            g = np.tanh(z[3 * h :])
            cel[layer] = f * cel[layer] + i * g
            hid[layer] = o * np.tanh(cel[layer])
            inp = hid[layer]
        loss += float(np.sum((inp - ys[t]) ** 2))
    return loss


def _pose(a: float, b: float, s: float) -> np.ndarray:
    """hand.c's pose_matrix: a rotation about z by a, then about x by b, scaled by s."""
    rz = np.array([[np.cos(a), -np.sin(a), 0.0], [np.sin(a), np.cos(a), 0.0], [0.0, 0.0, 1.0]])
    rx = np.array([[1.0, 0.0, 0.0], [0.0, np.cos(b), -np.sin(b)], [0.0, np.sin(b), np.cos(b)]])
    out = np.eye(4)
    out[:3, :3] = s * (rz @ rx)
    return out


def hand_reference(nbones, nverts, parents, theta, base, inv_base, points, weights, targets) -> float:
    """bench/c/hand.c's skinned mesh from 4 x 4 matrices: A_b = A_parent base_b R(theta_b)."""
    th = theta.reshape(nbones, 3)
    rest, inverse = base.reshape(nbones, 4, 4), inv_base.reshape(nbones, 4, 4)
    absolute = []
    for b in range(nbones):
        local = rest[b] @ _pose(*th[b])
        absolute.append(local if b == 0 else absolute[parents[b]] @ local)
    skin = np.stack([absolute[b] @ inverse[b] for b in range(nbones)])
    moved = np.einsum("bck,vk->vbc", skin[:, :3, :], points.reshape(nverts, 4))
    posed = np.einsum("vb,vbc->vc", weights.reshape(nverts, nbones), moved)
    return float(np.sum((posed - targets.reshape(nverts, 3)) ** 2))


# ----------------------------------------------------------------------------- objectives

# The objectives (signatures, --wrt, data) are bench/objectives.py's, as the benchmark runs them.
REFERENCES: dict[str, Callable[..., float]] = {"gmm": gmm_reference, "gmm_written": gmm_written_reference,
                                               "ba": ba_reference, "lstm": lstm_reference, "hand": hand_reference}
IDS = [o.func for o in OBJECTIVES]


def _inputs(obj: Objective, rng: np.random.Generator) -> list:
    """Small inputs; for BA, one camera at zero rotation (the small-angle branch) and every camera seen."""
    args = obj.data(rng, **obj.sizes["check"])
    if obj.key == "ba":
        ncam = args[1].size // 11
        args[1][0:3] = 0.0
        args[4][0 : 2 * ncam : 2] = np.arange(ncam)  # obs[i][0], the camera of observation i
    return args


def _primal(obj: Objective) -> CFunction:
    return CFunction(build(obj.path.read_text(), HEADERS), obj.func, obj.types, "double")


# ----------------------------------------------------------------------------- tests


@pytest.mark.parametrize("obj", OBJECTIVES, ids=IDS)
def test_primal_compiles_at_o2(obj: Objective, tmp_path: Path):
    src = tmp_path / obj.file
    src.write_text(obj.path.read_text())
    flags = [f for f in CFLAGS if f not in ("-shared", "-fPIC", "-O1")]
    r = subprocess.run(
        ["gcc", *flags, *HEADERS, "-O2", "-c", str(src), "-o", str(tmp_path / "obj.o")], capture_output=True, text=True
    )
    assert r.returncode == 0 and not r.stderr.strip(), r.stderr


@pytest.mark.parametrize("obj", OBJECTIVES, ids=IDS)
def test_primal_matches_numpy(obj: Objective):
    f = _primal(obj)
    rng = np.random.default_rng(1)
    for _ in range(5):
        args = _inputs(obj, rng)
        got = f(*args)
        want = REFERENCES[obj.key](*args)
        assert np.isfinite(got)
        assert got == pytest.approx(want, rel=1e-11, abs=1e-11), (got, want)


def test_gmm_reference_constant_free_form():
    """With d = 1 and k = 1 the GMM objective is a closed form: a check of the reference itself."""
    rng = np.random.default_rng(3)
    n = 4
    a, mu, q = rng.normal(size=1), rng.normal(size=1), rng.normal(size=1)
    x = rng.normal(size=n)
    want = np.sum(a[0] + q[0] - 0.5 * (np.exp(q[0]) * (x - mu[0])) ** 2) - n * a[0] + 0.5 * np.exp(2 * q[0])
    assert gmm_reference(1, 1, n, a, mu, q, x) == pytest.approx(want, rel=1e-13)


def test_ba_rotation_reference_is_orthonormal_and_matches_small_angle():
    r = np.array([0.2, -0.1, 0.3])
    rot = ba_rotation(r)
    assert np.allclose(rot @ rot.T, np.eye(3), atol=1e-14)
    tiny = np.array([1e-5, -2e-5, 3e-5])
    assert np.allclose(ba_rotation(tiny), np.eye(3) + _skew(tiny), atol=1e-9)


def _central_differences(f: CFunction, args: list, index: int) -> np.ndarray:
    return np.array([central_difference(f, args, index, j) for j in range(args[index].size)])


@pytest.mark.parametrize("obj", OBJECTIVES, ids=IDS)
def test_c_gradient_matches_finite_differences(obj: Objective):
    text = pipeline.gradient_source(obj.path.read_text(), str(obj.path), obj.func, obj.wrt, target="c")
    assert f"void grad_{obj.func}(" in text
    # -fsanitize=address,undefined: memory errors and undefined behaviour fail the test
    grad = CFunction(build_sanitized(text), f"grad_{obj.func}", obj.gradient_types())
    primal = _primal(obj)

    rng = np.random.default_rng(7)
    args = _inputs(obj, rng)
    before = [a.copy() if isinstance(a, np.ndarray) else a for a in args]
    d_return = 0.75
    seeds = {name: rng.normal(size=args[obj.names.index(name)].size) for name in obj.wrt}
    shadows = {name: s.copy() for name, s in seeds.items()}

    call = []
    for name, a in zip(obj.names, args):
        call.append(a)
        if name in obj.wrt:
            call.append(shadows[name])
    grad(*call, d_return)

    for name, a, b in zip(obj.names, args, before):
        if isinstance(a, np.ndarray):
            assert np.array_equal(a, b), f"grad_{obj.func} changed the input array {name}"

    for name in obj.wrt:
        i = obj.names.index(name)
        fd = d_return * _central_differences(primal, args, i)
        got = shadows[name] - seeds[name]
        scale = max(1.0, float(np.max(np.abs(fd))))
        err = np.abs(got - fd)
        worst = int(np.argmax(err))
        assert np.all(err <= 1e-6 * scale + 1e-5 * np.abs(fd)), (
            f"d_{name}[{worst}]: gradient {float(got[worst])!r}, finite differences {float(fd[worst])!r}"
        )


@pytest.mark.parametrize("level", [0, 1])
@pytest.mark.parametrize("obj", OBJECTIVES, ids=IDS)
def test_c_gradient_compiles_without_warnings_at_lower_levels(obj: Objective, level: int, tmp_path: Path):
    """-O0 and -O1 keep the helpers as calls (snapshots, scratch buffers): still no warning."""
    options = pipeline.Options(level=level)
    text = pipeline.gradient_source(obj.path.read_text(), str(obj.path), obj.func, obj.wrt, target="c",
                                    options=options)
    src = tmp_path / "grad.c"
    src.write_text(text)
    flags = [f for f in CFLAGS if f not in ("-shared", "-fPIC")]
    r = subprocess.run(["gcc", *flags, "-c", str(src), "-o", str(tmp_path / "grad.o")], capture_output=True, text=True)
    assert r.returncode == 0 and not r.stderr.strip(), r.stderr
