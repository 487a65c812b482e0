"""CUDA in: qualifiers, thread built-ins as IR ops (printer, parser, verifier, interpreter),
the accumulation analysis, and located errors for what is not supported yet.

The golden kernels (tests/test_golden_cuda.py) check the output end to end; here the
pieces are checked on their own, and the analysis is checked against what really
happens: the gradient IR runs in the interpreter over a whole launch, and no element
that an accumulation classified PRIVATE adds to may be touched by two threads.
"""

from __future__ import annotations

import json
from collections import defaultdict

import numpy as np
import pytest
from golden_cases import GOLDEN

from s2sad import cli, pipeline
from s2sad.adjoint.accumulation import ATOMIC, BLOCK, PRIVATE, accumulation, classify
from s2sad.diagnostics import DiagnosticError
from s2sad.parse.c_frontend import parse_c
from s2sad.ssa.gpu import Launch
from s2sad.ssa.interp import Interpreter
from s2sad.ssa.parser import parse_module
from s2sad.ssa.printer import print_module
from s2sad.ssa.verifier import VerifyError, verify_module

CUDA_GOLDEN = GOLDEN / "cuda"

DAXPY = """\
__global__ void daxpy(int n, double a, const double *x, double *y)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) {
        y[i] = a * x[i] + y[i];
    }
}
"""


def test_qualifiers_give_each_function_its_kind():
    src = """\
__device__ __forceinline__ double sq(double v) { return v * v; }
__host__ __device__ double twice(double v) { return 2.0 * v; }
double host_only(double v) { return v; }
__global__ void
k(int n, double *y)
{
    int i = threadIdx.x;
    if (i < n) { y[i] = sq(y[i]) + twice(y[i]) + host_only(y[i]); }
}
"""
    m = parse_c(src, "k.cu", "k")
    kinds = {name: fn.attrs["cuda"] for name, fn in m.functions.items()}
    assert kinds == {"sq": "device", "twice": "device", "host_only": "host", "k": "global"}


def test_thread_builtins_are_ops_that_print_parse_and_verify():
    m = parse_c(DAXPY, "daxpy.cu", "daxpy")
    text = print_module(m)
    for op in ("gpu.block_idx", "gpu.block_dim", "gpu.thread_idx"):
        assert f'{op}() {{axis = "x"}} : i64' in text
    verify_module(m)
    assert print_module(parse_module(text)) == text


def test_verifier_rejects_a_bad_axis():
    text = print_module(parse_c(DAXPY, "daxpy.cu", "daxpy")).replace('gpu.thread_idx() {axis = "x"}',
                                                                     'gpu.thread_idx() {axis = "w"}')
    with pytest.raises(VerifyError, match="axis 'w' is not one of x, y, z"):
        verify_module(parse_module(text))


def test_interpreter_launches_a_kernel_thread_by_thread():
    m = parse_c(DAXPY, "daxpy.cu", "daxpy")
    rng = np.random.default_rng(1)
    x, y = rng.normal(size=70), rng.normal(size=70)
    expected = 0.5 * x + y
    Interpreter(m).launch("daxpy", Launch((3, 1, 1), (32, 1, 1)), 70, 0.5, x, y)
    np.testing.assert_allclose(y, expected)
    with pytest.raises(RuntimeError, match="outside a kernel launch"):
        Interpreter(m).call("daxpy", 70, 0.5, x, y)


def test_builtins_are_cuda_only_and_yield_to_user_declarations():
    c_src = "void f(int n, double *y) { int i = threadIdx.x; if (i < n) { y[i] = 1.0; } }\n"
    with pytest.raises(DiagnosticError, match="'threadIdx' is a CUDA built-in, and this is a C file"):
        parse_c(c_src, "f.c", "f")
    own = ("struct P { double x; };\n"
           "__global__ void f(struct P *threadIdx, double *y) { y[0] = threadIdx->x + threadIdx[0].x; }\n")
    m = parse_c(own, "f.cu", "f")
    assert not [op for op in m.functions["f"].walk() if op.name.startswith("gpu.")]


def _grad(name: str, level: int = 2):
    spec = json.loads((CUDA_GOLDEN / name / "case.json").read_text())
    src = (CUDA_GOLDEN / name / "input.cu").read_text()
    module = pipeline.gradient_module(src, "input.cu", spec["func"], spec["wrt"], pipeline.Options(level=level))
    return spec, module, module.functions[f"grad_{spec['func']}"]


def _modes(fn) -> dict[str, list[str]]:
    plan = classify(fn, kernel=True)
    out: dict[str, list[str]] = defaultdict(list)
    for op, mode in plan.modes.items():
        out[op.operands[0].name_hint].append(mode)
    return {k: sorted(set(v)) for k, v in out.items()}


@pytest.mark.parametrize(
    "name, expected",
    [
        ("daxpy_shared_scalar", {"d_a": [BLOCK], "d_x": [PRIVATE]}),
        ("stencil_1d", {"d_x": [ATOMIC]}),
        ("gather_index_list", {"d_w": [PRIVATE], "d_x": [ATOMIC]}),
        ("matvec_row_loop", {"d_A": [PRIVATE], "d_x": [ATOMIC]}),  # A[i * n + j], j in [0, n)
        ("shared_block_reduction", {"d_buf": [ATOMIC], "d_x": [ATOMIC]}),
        ("grid_2d", {"d_x": [PRIVATE]}),  # row * w + col under col < w
    ],
)
def test_accumulations_are_classified(name, expected):
    _, _, fn = _grad(name)
    modes = _modes(fn)
    assert {k: v for k, v in modes.items() if k in expected} == expected
    plan = classify(fn, kernel=True, all_atomic=True)
    assert set(plan.modes.values()) == {ATOMIC} and plan.returned == ATOMIC
    assert set(classify(fn, kernel=False).modes.values()) == {ATOMIC}  # a device function knows no thread


SHARED_COPY = """\
__global__ void stage(int n, const double *x, double *y)
{
    __shared__ double buf[32];
    int t = threadIdx.x;
    int i = blockIdx.x * blockDim.x + t;
    buf[t] = i < n ? x[i] : 0.0;
    __syncthreads();
    if (i < n) {
        y[i] = buf[t] * buf[t] + buf[0];
    }
}
"""


def test_shared_shadow_is_private_only_at_the_threads_own_index():
    module = pipeline.gradient_module(SHARED_COPY, "k.cu", "stage", ["x"])
    fn = module.functions["grad_stage"]
    assert [op.attrs for op in fn.walk() if op.name == "alloc"][-1]["space"] == "shared"
    assert sum(op.name == "gpu.sync" for op in fn.walk()) == 2  # forward, and mirrored
    assert _modes(fn)["d_buf"] == [ATOMIC]  # buf[0] is read by every thread
    private = SHARED_COPY.replace(" + buf[0]", "")
    fn = pipeline.gradient_module(private, "k.cu", "stage", ["x"]).functions["grad_stage"]
    assert _modes(fn)["d_buf"] == [PRIVATE]
    with pytest.raises(NotImplementedError, match="__syncthreads"):
        Interpreter(parse_c(SHARED_COPY, "k.cu", "stage")).launch("stage", Launch(), 1, np.ones(1), np.ones(1))


def _arguments(spec: dict, fn, rng) -> list:
    values = {}
    for p in spec["params"]:
        if p["kind"] == "int":
            values[p["name"]] = p["value"]
        elif p["kind"] == "float":
            values[p["name"]] = float(rng.uniform(-1, 1))
        elif p.get("dtype") == "i32":
            values[p["name"]] = rng.integers(*p["ints"], size=p["shape"])
        else:
            values[p["name"]] = rng.normal(size=p["shape"])
    args = []
    for v in fn.params:
        if v.name_hint in values:
            args.append(values[v.name_hint])
        else:  # a shadow: shaped like the array it follows
            args.append(rng.normal(size=np.shape(args[-1])))
    return args


class _Recorder(Interpreter):
    """Records, per element of memory, the threads whose accumulations add to it."""

    def __init__(self, module, stores):
        super().__init__(module)
        self.stores = stores  # accumulation store -> mode
        self.touched: dict[int, set] = defaultdict(set)
        self.private: set[int] = set()

    def _op(self, op, env):
        if op in self.stores:
            arr = env[op.operands[0]]
            (i,) = [env[v] for v in op.operands[1:-1]]
            address = arr.__array_interface__["data"][0] + i * arr.itemsize
            self.touched[address].add((self.thread.thread_idx, self.thread.block_idx))
            if self.stores[op] == PRIVATE:
                self.private.add(address)
        return super()._op(op, env)


@pytest.mark.parametrize("name", ["daxpy_shared_scalar", "stencil_1d", "gather_index_list", "matvec_row_loop",
                                  "grid_2d", "tape_in_kernel"])
def test_private_accumulations_do_not_race(name):
    spec, module, fn = _grad(name)
    stores = classify(fn, kernel=True).modes
    assert all(accumulation(op) is not None for op in stores)
    recorder = _Recorder(module, stores)
    launch = Launch(tuple(spec["launch"]["grid"]), tuple(spec["launch"]["block"]))
    recorder.launch(fn.name, launch, *_arguments(spec, fn, np.random.default_rng(0)))
    shared = {a for a, threads in recorder.touched.items() if len(threads) > 1}
    assert recorder.touched, "no accumulation ran"
    assert not recorder.private & shared, "an accumulation classified private is shared between threads"
    if name in ("stencil_1d", "gather_index_list", "matvec_row_loop"):
        assert shared, "the case is meant to have shared accumulations"


def _cli(tmp_path, capsys, source: str, *args: str) -> tuple[int, str]:
    path = tmp_path / "k.cu"
    path.write_text(source)
    code = cli.main(["grad", str(path), *args])
    return code, capsys.readouterr().err


KERNEL = """\
__global__ void k(int n, const double *x, double *y)
{{
    {decl}
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) {{
        y[i] = {expr};
    }}
}}
"""


@pytest.mark.parametrize(
    "decl, expr, where, message",
    [
        ("extern __shared__ double buf[];", "x[i]", "extern",
         "dynamic shared memory (extern __shared__) is not supported yet"),
        ("__shared__ double acc;", "x[i]", "double", "only arrays can be __shared__"),
        ("__shared__ double buf[64] = {0};", "x[i]", "0}", "a __shared__ array cannot have an initializer"),
        ("__shared__ double buf[n];", "x[i]", "double", "a __shared__ array needs a constant size"),
        ("__syncwarp();", "x[i]", "__sync", "barriers other than __syncthreads() are not supported"),
        ("", "tex1Dfetch(t, i)", "tex1D", "texture and surface memory are not supported"),
        ("auto g = cooperative_groups::this_grid();", "x[i]", "cooperative", "cooperative groups are not supported"),
        ("", "__shfl_down_sync(0xffffffff, x[i], 1)", "__shfl",
         "warp-level intrinsics are not supported in the primal"),
        ("", "atomicAdd(&y[0], x[i])", "atomicAdd", "atomic operations are not supported in the primal"),
    ],
)
def test_unsupported_cuda_is_a_located_error(tmp_path, capsys, decl, expr, where, message):
    src = KERNEL.format(decl=decl, expr=expr)
    code, err = _cli(tmp_path, capsys, src, "--wrt", "x")
    assert code == 1
    line = 3 if decl else 6
    col = src.splitlines()[line - 1].index(where) + 1
    first, source_line, caret = err.splitlines()[:3]
    assert first.endswith(f"k.cu:{line}:{col}: error: {message}") or (
        where == "double" and f"k.cu:{line}:" in first and first.endswith(message)), err
    assert source_line.strip() == src.splitlines()[line - 1].strip()
    assert caret.strip().startswith("^") and "hint: " in err and "Traceback" not in err


def test_shared_array_inside_a_branch_is_a_located_error(tmp_path, capsys):
    src = KERNEL.format(decl="", expr="x[i]").replace("    if (i < n) {\n",
                                                      "    if (i < n) {\n        __shared__ double b[4];\n")
    code, err = _cli(tmp_path, capsys, src, "--wrt", "x")
    assert code == 1 and ":6:" in err.splitlines()[0] and "top level of the kernel" in err and "^" in err


def test_kernel_launch_in_the_file_is_a_located_error(tmp_path, capsys):
    src = DAXPY + "void run(double *x, double *y) { daxpy<<<1, 32>>>(32, 2.0, x, y); }\n"
    code, err = _cli(tmp_path, capsys, src, "--wrt", "x")
    assert code == 1 and ":8:" in err.splitlines()[0] and "host code" in err and "^" in err


def test_cuda_input_needs_cuda_output(tmp_path, capsys):
    code, err = _cli(tmp_path, capsys, DAXPY, "--wrt", "x", "--target", "c")
    assert code == 2 and "is CUDA" in err and "--target cuda" in err
    with pytest.raises(DiagnosticError, match="is CUDA"):  # the library says so too
        pipeline.gradient_source(DAXPY, "k.cu", "daxpy", ["x"], "c")


def test_cuda_output_is_the_default_for_cu_and_the_only_kernel_is_chosen(tmp_path, capsys):
    src = "__device__ double sq(double v) { return v * v; }\n" + DAXPY.replace("a * x[i]", "a * sq(x[i])")
    code, _ = _cli(tmp_path, capsys, src, "--wrt", "x", "-o", str(tmp_path / "out.cu"))
    assert code == 0
    out = (tmp_path / "out.cu").read_text()
    assert "__global__ void grad_daxpy(" in out and "--target cuda" in out


def test_c_target_refuses_cuda_for_plain_c(tmp_path, capsys):
    path = tmp_path / "f.c"
    path.write_text("void f(int n, const double *x, double *y) { for (int i = 0; i < n; i++) y[i] = x[i]; }\n")
    code = cli.main(["grad", str(path), "--wrt", "x", "--target", "cuda"])
    assert code == 2 and "needs a CUDA kernel (.cu)" in capsys.readouterr().err
    with pytest.raises(DiagnosticError, match="not in a .cu file"):
        pipeline.gradient_source(path.read_text(), "f.c", "f", ["x"], "cuda")
