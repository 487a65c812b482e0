"""The C benchmark objectives (bench/c/*.c): signatures, --wrt lists, input data, sizes.

One description serves the benchmark (bench/c_suite.py: timing and its --check) and the
tests (tests/test_c_objectives.py: NumPy references and full finite-difference checks),
so the two always exercise the same functions with the same kind of data.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Callable

import numpy as np

C_DIR = Path(__file__).resolve().parent / "c"


def gmm_data(rng: np.random.Generator, d: int, k: int, n: int) -> list:
    isz = d * (d + 1) // 2
    return [
        d,
        k,
        n,
        rng.normal(size=k),
        rng.normal(size=k * d),
        rng.uniform(-0.5, 0.5, size=k * isz),
        rng.normal(size=n * d),
    ]


def gmm_written_data(rng: np.random.Generator, d: int, k: int, n: int) -> list:
    """gmm_data's arrays, then the Wishart prior's gamma and m."""
    return gmm_data(rng, d, k, n) + [float(rng.uniform(0.5, 1.5)), 2]


def ba_data(rng: np.random.Generator, ncam: int, npts: int, nobs: int) -> list:
    """bench/c/ba.c's arguments: the Camera structs as the 11 doubles each is made of (r, c, f,
    x0, kappa), points X[npts][3], weights w, observations obs[nobs][2] (camera, point) and
    features feats[nobs][2], every array flat and C-contiguous."""
    cams = np.empty((ncam, 11))
    cams[:, 0:3] = rng.uniform(-0.3, 0.3, size=(ncam, 3))  # angle-axis rotation
    cams[:, 3:6] = rng.uniform(-0.5, 0.5, size=(ncam, 3))  # centre
    cams[:, 6] = rng.uniform(0.8, 1.2, size=ncam)  # focal length
    cams[:, 7:9] = rng.uniform(-0.1, 0.1, size=(ncam, 2))  # principal point
    cams[:, 9:11] = rng.uniform(-0.05, 0.05, size=(ncam, 2))  # radial distortion
    pts = np.empty((npts, 3))
    pts[:, 0:2] = rng.uniform(-2.0, 2.0, size=(npts, 2))
    pts[:, 2] = rng.uniform(4.0, 8.0, size=npts)  # in front of every camera
    w = rng.uniform(0.5, 1.5, size=nobs)
    obs = np.stack([rng.integers(0, ncam, size=nobs), rng.integers(0, npts, size=nobs)], axis=1).astype(np.int32)
    feats = rng.uniform(-0.8, 0.8, size=2 * nobs)
    return [nobs, cams.ravel(), pts.ravel(), w, obs.ravel(), feats]


def lstm_data(rng: np.random.Generator, steps: int, layers: int, width: int) -> list:
    """bench/c/lstm.c's arguments: W[layers][4 width][2 width], b[layers][4 width], x[steps][width],
    h0 and c0[layers][width], y[steps][width], flat."""
    return [
        steps,
        layers,
        width,
        rng.normal(scale=0.5 / np.sqrt(2 * width), size=layers * 8 * width * width),
        rng.normal(scale=0.5, size=layers * 4 * width),
        rng.normal(size=steps * width),
        rng.normal(scale=0.5, size=layers * width),
        rng.normal(scale=0.5, size=layers * width),
        rng.uniform(-0.5, 0.5, size=steps * width),
    ]


def _transforms(rng: np.random.Generator, count: int) -> np.ndarray:
    """``count`` 4 x 4 affine transforms near the identity (a small linear part, a translation)."""
    t = np.zeros((count, 4, 4))
    t[:, :3, :3] = np.eye(3) + rng.uniform(-0.2, 0.2, size=(count, 3, 3))
    t[:, :3, 3] = rng.uniform(-1.0, 1.0, size=(count, 3))
    t[:, 3, 3] = 1.0
    return t


def hand_data(rng: np.random.Generator, bones: int, verts: int) -> list:
    """bench/c/hand.c's arguments: a chain of bones (each bone's parent an earlier one), its pose,
    rest transforms and their inverses' stand-ins, homogeneous points, weights summing to 1, targets."""
    parents = np.array([-1] + [int(rng.integers(0, b)) for b in range(1, bones)], dtype=np.int32)
    theta = np.empty((bones, 3))
    theta[:, 0:2] = rng.uniform(-0.5, 0.5, size=(bones, 2))
    theta[:, 2] = rng.uniform(0.8, 1.2, size=bones)
    points = np.ones((verts, 4))
    points[:, :3] = rng.uniform(-1.0, 1.0, size=(verts, 3))
    weights = rng.uniform(0.0, 1.0, size=(verts, bones))
    weights /= weights.sum(axis=1, keepdims=True)
    targets = rng.uniform(-2.0, 2.0, size=(verts, 3))
    return [bones, verts, parents, theta.ravel(), _transforms(rng, bones).ravel(), _transforms(rng, bones).ravel(),
            points.ravel(), weights.ravel(), targets.ravel()]


@dataclass
class Objective:
    key: str
    file: str
    func: str
    names: list[str]
    types: list[str]  # C parameter types: "int", "double", "double *", "int *"
    wrt: list[str]
    data: Callable[..., list]
    sizes: dict[str, dict[str, int]]  # "full", "quick", "check"

    @property
    def path(self) -> Path:
        return C_DIR / self.file

    def command(self, level: int) -> str:
        opt = "" if level == 2 else f" -O{level}"
        return f"s2sad grad bench/c/{self.file} --func {self.func} --wrt {','.join(self.wrt)} --target c{opt}"

    def gradient_types(self) -> list[str]:
        """grad_<func>'s C signature per the contract: a shadow after each --wrt pointer, d_return last."""
        out = []
        for name, ty in zip(self.names, self.types):
            out.append(ty)
            if name in self.wrt:
                out.append("double *")
        return out + ["double"]


OBJECTIVES = [
    Objective(
        "gmm",
        "gmm.c",
        "gmm_objective",
        ["d", "k", "n", "alphas", "means", "icf", "x"],
        ["int", "int", "int", "double *", "double *", "double *", "double *"],
        ["alphas", "means", "icf"],
        gmm_data,
        {
            "full": dict(d=10, k=25, n=1000),
            "quick": dict(d=4, k=5, n=100),
            "check": dict(d=4, k=3, n=8),
        },
    ),
    Objective(
        "gmm_written",
        "gmm_written.c",
        "gmm_objective",
        ["d", "k", "n", "alphas", "means", "icf", "x", "gamma", "m"],
        ["int", "int", "int", "double *", "double *", "double *", "double *", "double", "int"],
        ["alphas", "means", "icf"],
        gmm_written_data,
        {
            "full": dict(d=10, k=25, n=1000),
            "quick": dict(d=4, k=5, n=100),
            "check": dict(d=4, k=3, n=8),
        },
    ),
    Objective(
        "ba",
        "ba.c",
        "ba_objective",
        ["nobs", "cams", "X", "w", "obs", "feats"],
        ["int", "double *", "double *", "double *", "int *", "double *"],  # as passed: Camera *, double (*)[3]...
        ["cams", "X", "w"],
        ba_data,
        {
            "full": dict(ncam=20, npts=2000, nobs=8000),
            "quick": dict(ncam=5, npts=100, nobs=400),
            "check": dict(ncam=3, npts=6, nobs=15),
        },
    ),
    Objective(
        "lstm",
        "lstm.c",
        "lstm_objective",
        ["steps", "layers", "h", "W", "b", "x", "h0", "c0", "y"],
        ["int", "int", "int", "double *", "double *", "double *", "double *", "double *", "double *"],
        ["W", "b"],
        lstm_data,
        {
            "full": dict(steps=10, layers=2, width=32),
            "quick": dict(steps=3, layers=2, width=8),
            "check": dict(steps=3, layers=2, width=3),
        },
    ),
    Objective(
        "hand",
        "hand.c",
        "hand_objective",
        ["nbones", "nverts", "parents", "theta", "base", "inv_base", "points", "weights", "targets"],
        ["int", "int", "int *", "double *", "double *", "double *", "double *", "double *", "double *"],
        ["theta"],
        hand_data,
        {
            "full": dict(bones=22, verts=500),
            "quick": dict(bones=5, verts=40),
            "check": dict(bones=4, verts=6),
        },
    ),
]


def central_difference(f: Callable[..., float], args: list, index: int, j: int) -> float:
    """d f / d args[index][j] by central differences (the array is restored afterwards)."""
    a = args[index]
    h = 1e-6 * max(1.0, abs(a[j]))
    keep = a[j]
    a[j] = keep + h
    up = f(*args)
    a[j] = keep - h
    down = f(*args)
    a[j] = keep
    return (up - down) / (2 * h)
