"""__shared__ tiles that the reverse sweep fills again (s2sad/analysis/shared_refill.py).

One tiled kernel, written nine ways: where each reversed iteration can fill the tile again as
its forward iteration did, the gradient reads the tile instead of taping each thread's reads
(the refill comment is in its text; no tape, or one of the stored values where they depend on
a value the loop carries); a guarded fill whose branches both store, or whose guard the loop
does not change, is run again whole; where it cannot (the fill's index moves with the loop, a
fill in every other iteration, a read of the tile before the fill, a write of the tile after
the loop), it tapes as before. Every variant's gradient is
checked against central differences of its primal, emulated on the CPU and, where there is
one, on a GPU (the device runs are skipped without one, and say so).
"""

from __future__ import annotations

import numpy as np
import pytest
from cudadev import DeviceKernel, have_gpu
from cudaemu import EmulatedKernel, have_gxx
from fd import ParamSpec, check_gradient

from s2sad import pipeline

TILE = 4
KERNEL = """\
#include <math.h>
#define TILE 4

__global__ void tiles(int n, const double *x, const double *w, double *y)
{{
    __shared__ double xs[TILE];
    int i = blockIdx.x * TILE + threadIdx.x;
    double acc = 0.0;
    {before}
    for (int t = 0; t < n / TILE; t++) {{
        {fill}
        __syncthreads();
        for (int k = 0; k < TILE; k++) {{
            acc += sin(xs[k] * w[i]) + xs[k] * xs[(k + 1) % TILE];
        }}
        __syncthreads();
    }}
    {after}
    y[i] = acc;
}}
"""
FILL = "xs[threadIdx.x] = x[t * TILE + threadIdx.x];"
ZEROED = "xs[threadIdx.x] = 0.0;\n    __syncthreads();"
VARIANTS = {
    "refilled": (dict(fill=FILL), True),
    "index moves with the loop": (dict(fill="xs[(threadIdx.x + t) % TILE] = x[t * TILE + threadIdx.x];"), False),
    # a guard the loop does not change: every iteration fills the same elements
    "fill under a thread's guard": (dict(fill="if (threadIdx.x < TILE) " + FILL), True),
    "fill in every other iteration": (dict(before=ZEROED, fill="if (t % 2 == 0) " + FILL), False),
    "guarded fill, both branches": (dict(fill="int j = t * TILE + threadIdx.x;\n        if (j < n) {\n"
                                         "            xs[threadIdx.x] = x[j];\n        } else {\n"
                                         "            xs[threadIdx.x] = 0.0;\n        }"), True),
    # the stored value is taped (one per iteration), not each read of it (TILE per iteration)
    "value carried by the loop": (dict(fill="xs[threadIdx.x] = x[t * TILE + threadIdx.x] * cos(acc);"), True),
    "value under a guard": (dict(fill="int j = t * TILE + threadIdx.x;\n        xs[threadIdx.x] = j < n ? x[j] : 0.0;"),
                            True),
    "read before the fill": (dict(before=ZEROED, fill="acc += xs[(threadIdx.x + 1) % TILE];\n"
                                  "        __syncthreads();\n        " + FILL), False),
    "written after the loop": (dict(fill=FILL, after="xs[threadIdx.x] = acc;\n    __syncthreads();\n"
                                    "    acc += xs[(threadIdx.x + 1) % TILE];"), False),
}
STORED_VALUE_TAPED = {"value carried by the loop", "value under a guard"}
LAUNCH = {"grid": [2, 1, 1], "block": [TILE, 1, 1]}
N = 12  # three tiles of x
PARAMS = [ParamSpec("n", "int", value=N), ParamSpec("x", "array", (N,)), ParamSpec("w", "array", (8,)),
          ParamSpec("y", "array", (8,))]
BACKENDS = [
    pytest.param("emulated", marks=pytest.mark.skipif(not have_gxx(), reason="g++ is not installed")),
    pytest.param("device", marks=pytest.mark.skipif(not have_gpu(), reason="no GPU: device runs skipped")),
]


def _source(parts: dict[str, str]) -> str:
    return KERNEL.format(**{"before": "", "after": "", **parts})


@pytest.mark.parametrize("backend", BACKENDS)
@pytest.mark.parametrize("variant", list(VARIANTS))
def test_a_tile_is_filled_again_only_where_that_rebuilds_what_was_read(variant, backend):
    parts, refilled = VARIANTS[variant]
    source = _source(parts)
    text = pipeline.gradient_source(source, "tiles.cu", "tiles", ["x", "w"], "cuda")
    assert ("xs as this iteration filled them" in text) == refilled, text
    # what it reads of the tile, taped or read again (one stored value per iteration is taped
    # where the reversed iteration cannot compute it again: carried by the loop, or a guarded load)
    assert ("tape" not in text) == (refilled and variant not in STORED_VALUE_TAPED), text
    kind = DeviceKernel if backend == "device" else EmulatedKernel
    kernel = kind(source, "tiles", LAUNCH)
    gradient = kernel.gradient(text, ["x", "w"], ["y"])
    for seed in range(2):
        check_gradient(kernel.primal(), gradient, PARAMS, ["x", "w"], {"y"}, np.random.default_rng(seed),
                       returns_float=False)


def test_the_refill_comes_before_the_reversed_iteration_and_ends_with_a_barrier():
    text = pipeline.gradient_source(_source(VARIANTS["refilled"][0]), "tiles.cu", "tiles", ["x", "w"], "cuda")
    reverse = text.split("// reverse sweep")[1]
    loop = reverse[reverse.index("for (long t = "):]
    refill = loop.index("// xs as this iteration filled them")
    assert refill < loop.index("// line "), "the refill comes first in the reversed iteration"
    fill = loop[refill:loop.index("__syncthreads();", refill)]
    assert "xs[threadIdx.x] = x[" in fill and "d_" not in fill, fill
