"""CUDA's thread built-ins are unsigned in C, where the IR's integers are signed.

Each kernel below was differentiated wrongly once: a reversed block- or grid-strided loop that
steps by ``-blockDim.x`` (2^32 - blockDim.x as C computes it: an out-of-bounds run-away, twice a
crash), a reversed loop down to ``threadIdx.x - 1`` (never reached for thread 0, whose
iterations were skipped), a guard ``threadIdx.x < n`` that the primal compares signed
(``int t = threadIdx.x; if (t < n)``: with n = -1 the gradient's forward sweep wrote y where the
primal did not). Each gradient is checked against central differences of its primal, emulated
on the CPU and, where there is one, on a GPU (those runs are skipped without one, and say so);
the output also compiles with g++ -Wall -Wextra -Werror (-Wsign-compare), as the emulator builds it.
"""

from __future__ import annotations

import numpy as np
import pytest
from cudadev import DeviceKernel, have_gpu
from cudaemu import EmulatedKernel, have_gxx
from fd import ParamSpec, check_gradient

from s2sad import pipeline

TWO_STRIDED_LOOPS = """\
__global__ void twoloops(int n, const double *x, double *y)
{
    double s = 0.0;
    for (int j = threadIdx.x; j < n; j += blockDim.x)
        s += x[j] * x[j];
    for (int j = threadIdx.x; j < n; j += blockDim.x)
        y[j] = s * x[j];
}
"""
GRID_STRIDED_ROWS = """\
__global__ void rows(int m, const double *__restrict__ x, double *y)
{
    double s = 0.0;
    for (int r = blockIdx.x; r < m; r += gridDim.x)
        s += __ldg(&x[r]) * x[r];
    for (int r = blockIdx.x; r < m; r += gridDim.x)
        y[r] = s * x[r];
}
"""
SIGNED_GUARD = """\
__global__ void sq(int n, const double *x, double *y)
{
    int t = threadIdx.x;
    if (t < n) y[t] = x[t] * x[t];
}
"""


def _arrays(n: int, *names: str) -> list[ParamSpec]:
    return [ParamSpec(name, "array", (n,)) for name in names]


CASES = {
    "two block-strided loops": (TWO_STRIDED_LOOPS, "twoloops",
                                [ParamSpec("n", "int", value=10), *_arrays(10, "x", "y")],
                                {"grid": [1, 1, 1], "block": [4, 1, 1]}),
    "two grid-strided loops": (GRID_STRIDED_ROWS, "rows", [ParamSpec("m", "int", value=11), *_arrays(11, "x", "y")],
                               {"grid": [3, 1, 1], "block": [1, 1, 1]}),
    "guard against n = -1": (SIGNED_GUARD, "sq", [ParamSpec("n", "int", value=-1), *_arrays(8, "x", "y")],
                             {"grid": [1, 1, 1], "block": [8, 1, 1]}),
    "guard against n = 5": (SIGNED_GUARD, "sq", [ParamSpec("n", "int", value=5), *_arrays(8, "x", "y")],
                            {"grid": [1, 1, 1], "block": [8, 1, 1]}),
}
BACKENDS = [
    pytest.param("emulated", marks=pytest.mark.skipif(not have_gxx(), reason="g++ is not installed")),
    pytest.param("device", marks=pytest.mark.skipif(not have_gpu(), reason="no GPU: device runs skipped")),
]


@pytest.mark.parametrize("backend", BACKENDS)
@pytest.mark.parametrize("case", list(CASES))
def test_unsigned_builtins_are_read_as_the_signed_numbers_they_are(case, backend):
    source, func, params, launch = CASES[case]
    text = pipeline.gradient_source(source, "k.cu", func, ["x"], "cuda")
    assert "-blockDim.x" not in text.replace("-(long)blockDim.x", "") and "-gridDim.x" not in text
    kind = DeviceKernel if backend == "device" else EmulatedKernel
    kernel = kind(source, func, launch)
    gradient = kernel.gradient(text, ["x"], ["y"])
    for seed in range(2):
        check_gradient(kernel.primal(), gradient, params, ["x"], {"y"}, np.random.default_rng(seed),
                       returns_float=False)
