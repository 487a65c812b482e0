"""Who owns an address: the mixed-radix index forms behind the race analysis.

Each case is a small kernel (or OpenMP loop) whose gradient accumulates into ``d_x``;
the test says whether that accumulation is thread-private. The negative cases are the
ones a sloppy analysis gets wrong: a weight that may be zero, a digit whose range is
not known, a digit that overflows into the next, an axis the kernel reads but the
index does not use. Each positive kernel is also run in the interpreter over a whole
launch (tests/test_cuda.py does it for the goldens) to confirm no element is shared.
"""

from __future__ import annotations

from collections import defaultdict

import numpy as np
import pytest
from hypothesis import HealthCheck, event, given, settings
from hypothesis import strategies as st

from s2sad import pipeline
from s2sad.analysis.accumulation import PRIVATE, accumulation, classify, private_accumulations
from s2sad.ssa.gpu import Launch
from s2sad.ssa.interp import Interpreter

KERNEL = """\
__global__ void k(int n, int m, int w, const double *x, double *y)
{{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    int col = blockIdx.x * blockDim.x + threadIdx.x;
    int row = blockIdx.y * blockDim.y + threadIdx.y;
    {body}
}}
"""


def _modes(body: str) -> set[str]:
    src = KERNEL.format(body=body)
    module = pipeline.gradient_module(src, "k.cu", "k", ["x"], pipeline.Options(level=2))
    fn = module.functions["grad_k"]
    plan = classify(fn, kernel=True, module=module)
    return {mode for op, mode in plan.modes.items() if op.operands[0].name_hint == "d_x"}


@pytest.mark.parametrize(
    "body",
    [
        "if (i < n) { y[i] = x[i] * x[i]; }",
        "if (i < n) { y[i] = x[2 * i + 1]; }",
        "if (i < n) { y[i] = x[n - 1 - i]; }",
        "if (i < n) { for (int j = 0; j < m; j++) { y[i] += x[i * m + j]; } }",
        "if (i < n) { for (int j = 0; j < m; j++) { y[i] += x[j * n + i]; } }",  # column walk
        "if (i < n) { for (int j = 1; j < m; j++) { y[i] += x[i * m + j]; } }",  # j in [1, m), within [0, m)
        "if (row < n && col < w) { y[row * w + col] = x[row * w + col]; }",
        "if (row < n && col < w) { y[row * w + col] = x[col * n + row]; }",  # transpose
        "if (row < n && col < w) { y[row * w + col] = x[(row * w + col) * m]; }".replace("* m", "* 3"),
        # A grid-stride loop: thread t visits t, t + stride, ..., and its reversed loop the same.
        "for (int j = i; j < n; j += blockDim.x * gridDim.x) { y[j] = x[j] * x[j]; }",
        "if (i < n) { y[i] = x[i + n * (i / 2)]; }",  # i / 2: any integer, as the highest digit
        # Points of three coordinates: 3 * i, 3 * i + 1, 3 * i + 2 and 3 * i + j are thread i's.
        "if (i < n) { y[i] = x[3 * i] * x[3 * i + 1] + x[3 * i + 2]; }",
        "if (i < n) { for (int j = 0; j < 3; j++) { y[i] += x[3 * i + j] * x[3 * i]; } }",
    ],
)
def test_thread_private(body):
    assert _modes(body) == {PRIVATE}


@pytest.mark.parametrize(
    "body",
    [
        "if (i < n) { y[i] = x[i * m]; }",  # m may be 0: every thread at x[0]
        "if (i < n) { y[i] = x[i / 2]; }",  # two threads per element
        "if (i < n) { y[i] = x[i] + x[i + 1]; }",  # the neighbour's element
        "if (i < n) { for (int j = 0; j <= m; j++) { y[i] += x[i * m + j]; } }",  # j reaches m
        "if (i < n) { for (int j = -1; j < m; j++) { y[i] += x[i * m + j]; } }",  # j reaches the row before
        "y[row * w + col] = x[row * w + col];",  # no guard: col may pass w
        "if (row < n) { y[row * w + col] = x[row * w + col]; }",  # col unguarded
        "if (i < n) { y[i] = x[i] * row; }",  # a 2-D launch: the threads of one i differ in row
        "for (int j = i; j < n; j += blockDim.x) { y[j] = x[j]; }",  # stride of one block: blocks meet
        "if (i < n) { y[i] = x[i / 2 + n * i]; }",  # the opaque digit is not the highest
        "if (i < n) { y[i] = x[3 * i] * x[3 * i + 3]; }",  # 3 * i + 3 is the next thread's 3 * i
        "if (i < n) { y[i] = x[2 * i] * x[2 * i - 1]; }",  # 2 * i - 1 is the previous thread's
        "if (i < n) { for (int j = 0; j < 4; j++) { y[i] += x[3 * i + j]; } }",  # j reaches 3 * i + 3
    ],
)
def test_not_thread_private(body):
    assert PRIVATE not in _modes(body)


class _Recorder(Interpreter):
    """Runs the gradient over a launch and records which threads add to which element."""

    def __init__(self, module, stores, size=None):
        super().__init__(module)
        self.stores = stores
        self.size = size  # of the array: a negative index wraps around, as numpy reads it
        self.touched: dict[int, set] = defaultdict(set)

    def _op(self, op, env):
        if op in self.stores:
            (k,) = [env[v] for v in op.operands[1:-1]]
            if self.size is not None:
                k %= self.size
            self.touched[k].add((self.thread.thread_idx, self.thread.block_idx))
        return super()._op(op, env)


@pytest.mark.parametrize(
    "body, size, launch",
    [
        ("if (i < n) { for (int j = 0; j < m; j++) { y[i] += x[j * n + i]; } }", 5 * 3,
         Launch((2, 1, 1), (4, 1, 1))),
        ("if (row < n && col < w) { y[row * w + col] = x[col * n + row]; }", 5 * 7,
         Launch((2, 2, 1), (4, 4, 1))),
    ],
)
def test_private_means_unshared_in_a_launch(body, size, launch):
    src = KERNEL.format(body=body)
    module = pipeline.gradient_module(src, "k.cu", "k", ["x"], pipeline.Options(level=2))
    fn = module.functions["grad_k"]
    stores = {op for op, mode in classify(fn, kernel=True, module=module).modes.items()
              if mode == PRIVATE and op.operands[0].name_hint == "d_x"}
    assert stores
    rec = _Recorder(module, stores)
    n, m, w = 5, 3, 7
    rng = np.random.default_rng(0)
    args = [n, m, w, rng.standard_normal(size), np.zeros(size), rng.standard_normal(size), np.zeros(size)]
    rec.launch("grad_k", launch, *args)
    assert len(rec.touched) == size  # every element of d_x is reached
    assert all(len(threads) == 1 for threads in rec.touched.values())


OMP = """\
void f(int n, int m, const double *x, double *y)
{{
    #pragma omp parallel for
    for (int i = 0; i < n; i++) {{
        {body}
    }}
}}
"""


@pytest.mark.parametrize(
    "body, private",
    [
        ("y[i] = x[i] * x[i];", True),
        ("for (int j = 0; j < m; j++) { y[i] += x[i * m + j] * x[i * m + j]; }", True),
        ("for (int j = 0; j < m; j++) { y[i] += x[j * n + i]; }", True),
        ("for (int j = 0; j < m; j++) { y[i] += x[i + j]; }", False),
        ("for (int j = 0; j < m; j++) { y[i] += x[j]; }", False),
    ],
)
def test_parallel_loop_iterations_own(body, private):
    module = pipeline.gradient_module(OMP.format(body=body), "f.c", "f", ["x"], pipeline.Options(level=2))
    fn = module.functions["grad_f"]
    loops = [op for op in fn.walk() if op.name == "for" and op.attrs.get("parallel")]
    assert loops
    owned = set().union(*(private_accumulations(loop) for loop in loops))
    stores = [op for op in fn.walk() if accumulation(op) is not None and op.operands[0].name_hint == "d_x"]
    assert stores
    assert all(op in owned for op in stores) == private


def test_guard_by_early_return():
    body = "if (row >= n || col >= w) return; y[row * w + col] = x[row * w + col];"
    assert _modes(body) == {PRIVATE}


# -- soundness on random kernels ---------------------------------------------------------------
# An analysis that calls a shared element private gives silently wrong gradients on a GPU and
# right ones in every sequential test. So: random index expressions, guards and loops, run
# over a 2-D launch in the interpreter; every element a PRIVATE accumulation touches must be
# touched by one thread only.

RANDOM_KERNEL = """\
__global__ void k(int n, int m, int w, const double *x, double *y)
{{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    int col = blockIdx.x * blockDim.x + threadIdx.x;
    int row = blockIdx.y * blockDim.y + threadIdx.y;
    if ({guard}) {{
        for ({loop}) {{
            y[0] += x[{index}] * x[{other}];
        }}
    }}
}}
"""

_SCALE = ["1", "2", "3", "m", "n", "w", "m + 1", "blockDim.x"]
_INDEX = st.one_of(
    st.builds("{} * i + {}".format, st.sampled_from(["-2", "-1", "0", "1", "2", "3", "4"]),
              st.sampled_from(["0", "1", "2", "n", "j"])),
    st.builds("{} * ({}) + {}".format, st.sampled_from(["i", "j", "row", "col"]), st.sampled_from(_SCALE),
              st.sampled_from(["i", "j", "row", "col", "threadIdx.x", "0"])),
    st.builds("({} * ({}) + {}) * ({}) + {}".format, st.sampled_from(["row", "i"]), st.sampled_from(_SCALE),
              st.sampled_from(["col", "i"]), st.sampled_from(_SCALE), st.sampled_from(["j", "0"])),
    st.sampled_from(["i / 2", "i % 3", "threadIdx.x", "blockIdx.x", "threadIdx.x + blockDim.x * blockIdx.y",
                     "threadIdx.y * blockDim.x + threadIdx.x", "n - 1 - i", "j", "row", "col",
                     "i + n * (i / 2)", "i + w * (j * j)", "j * j + i", "(i / 2) * 2 + j % 2"]),
)
# Loop headers: counted from a constant, past the end, and grid-stride (j starts at the thread).
_LOOPS = ["int j = 0; j < m; j++", "int j = 0; j < m + 1; j++", "int j = 1; j < m; j++", "int j = -1; j < m; j++",
          "int j = 0; j < 2; j++", "int j = i; j < n + m; j += blockDim.x * gridDim.x",
          "int j = i; j < n + m; j += 2 * blockDim.x * gridDim.x", "int j = i; j < n + m; j += blockDim.x",
          "int j = i + 1; j < n + m; j += blockDim.x * gridDim.x"]
_GUARD = st.lists(st.sampled_from(["i < n", "col < w", "row < n", "row < m", "i < m"]), max_size=3).map(
    lambda g: " && ".join(g) or "1")


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(index=_INDEX, shift=st.sampled_from(["", "", " + 1", " + 2", " + 3", " - 1", " + m"]), guard=_GUARD,
       loop=st.sampled_from(_LOOPS), sizes=st.tuples(st.integers(0, 4), st.integers(0, 3), st.integers(0, 5)))
def test_private_is_never_shared_on_random_kernels(index, shift, guard, loop, sizes):
    """Two reads of x per iteration: ``index``, and ``index`` shifted (the same element, a
    neighbour, the next point's first coordinate...)."""
    src = RANDOM_KERNEL.format(index=index, other=f"({index}){shift}", guard=guard, loop=loop)
    module = pipeline.gradient_module(src, "k.cu", "k", ["x"], pipeline.Options(level=2))
    fn = module.functions["grad_k"]
    stores = {op for op, mode in classify(fn, kernel=True, module=module).modes.items()
              if mode == PRIVATE and op.operands[0].name_hint == "d_x"}
    event("private" if stores else "not private")
    if not stores:
        return
    n, m, w = sizes
    size = 4096
    rng = np.random.default_rng(0)
    rec = _Recorder(module, stores, size)
    # A kernel that reads no .y runs on a 1-D launch (the analysis's premise; see accumulation).
    two_d = any(".y" in text or "row" in text for text in (index, guard, loop))  # (shift reads no axis)
    launch = Launch((2, 2, 1), (3, 2, 1)) if two_d else Launch((4, 1, 1), (3, 1, 1))
    rec.launch("grad_k", launch, n, m, w, rng.standard_normal(size), np.zeros(size),
               np.zeros(1), np.ones(1))
    shared = {k: t for k, t in rec.touched.items() if len(t) > 1}
    assert not shared, f"{src}\nn, m, w = {sizes}: elements added to by several threads: {shared}"


RANDOM_LOOP = """\
void f(int n, int m, int w, const double *x, double *y)
{{
    #pragma omp parallel for
    for (int i = 0; i < n; i++) {{
        for (int j = {lo}; j < {hi}; j++) {{
            y[i] += x[{index}] * x[{other}];
        }}
    }}
}}
"""


class _IterationRecorder(Interpreter):
    """Records which iteration of its parallel loop each chosen accumulation adds from."""

    def __init__(self, module, stores, size):
        super().__init__(module)
        self.stores = stores  # store -> the counter of its parallel loop
        self.size = size
        self.touched: dict[int, set] = defaultdict(set)

    def _op(self, op, env):
        if op in self.stores:
            (k,) = [env[v] for v in op.operands[1:-1]]
            self.touched[k % self.size].add(env[self.stores[op]])
        return super()._op(op, env)


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(index=st.one_of(
    st.builds("{} * i + {}".format, st.sampled_from(["-1", "0", "1", "2"]), st.sampled_from(["0", "1", "j"])),
    st.builds("{} * ({}) + {}".format, st.sampled_from(["i", "j"]), st.sampled_from(["1", "2", "m", "n", "m + 1"]),
              st.sampled_from(["i", "j", "0", "1"])),
    st.sampled_from(["i / 2", "i % 3", "n - 1 - i", "j", "i + j"])),
    shift=st.sampled_from(["", "", " + 1", " + 2", " - 1", " + m"]),
    bounds=st.sampled_from([("0", "m"), ("0", "m + 1"), ("1", "m"), ("-1", "m"), ("0", "2")]),
    sizes=st.tuples(st.integers(0, 5), st.integers(0, 4)))
def test_iteration_owned_is_never_shared_on_random_loops(index, shift, bounds, sizes):
    src = RANDOM_LOOP.format(index=index, other=f"({index}){shift}", lo=bounds[0], hi=bounds[1])
    module = pipeline.gradient_module(src, "f.c", "f", ["x"], pipeline.Options(level=2))
    fn = module.functions["grad_f"]
    stores = {op: loop.regions[0].args[0] for loop in fn.walk()
              if loop.name == "for" and loop.attrs.get("parallel")
              for op in private_accumulations(loop) if op.operands[0].name_hint == "d_x"}
    event("private" if stores else "not private")
    if not stores:
        return
    n, m = sizes
    size = 4096
    rec = _IterationRecorder(module, stores, size)
    rec.call("grad_f", n, m, 0, np.random.default_rng(0).standard_normal(size), np.zeros(size),
             np.zeros(8), np.ones(8))
    shared = {k: t for k, t in rec.touched.items() if len(t) > 1}
    assert not shared, f"{src}\nn, m = {sizes}: elements added to by several iterations: {shared}"
