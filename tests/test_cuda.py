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

from s2sad.pipeline import parse_source
from s2sad import cli, pipeline
from s2sad.analysis.accumulation import ATOMIC, BLOCK, PRIVATE, WARP, accumulation, classify
from s2sad.diagnostics import DiagnosticError
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
    m = parse_source(src, "k.cu", "k")
    kinds = {name: fn.attrs["cuda"] for name, fn in m.functions.items()}
    assert kinds == {"sq": "device", "twice": "device", "host_only": "host", "k": "global"}


def test_thread_builtins_are_ops_that_print_parse_and_verify():
    m = parse_source(DAXPY, "daxpy.cu", "daxpy")
    text = print_module(m)
    for op in ("gpu.block_idx", "gpu.block_dim", "gpu.thread_idx"):
        assert f'{op}() {{axis = "x"}} : i64' in text
    verify_module(m)
    assert print_module(parse_module(text)) == text


def test_verifier_rejects_a_bad_axis():
    text = print_module(parse_source(DAXPY, "daxpy.cu", "daxpy")).replace('gpu.thread_idx() {axis = "x"}',
                                                                     'gpu.thread_idx() {axis = "w"}')
    with pytest.raises(VerifyError, match="axis 'w' is not one of x, y, z"):
        verify_module(parse_module(text))


def test_interpreter_launches_a_kernel_thread_by_thread():
    m = parse_source(DAXPY, "daxpy.cu", "daxpy")
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
        parse_source(c_src, "f.c", "f")
    own = ("struct P { double x; };\n"
           "__global__ void f(struct P *threadIdx, double *y) { y[0] = threadIdx->x + threadIdx[0].x; }\n")
    m = parse_source(own, "f.cu", "f")
    assert not [op for op in m.functions["f"].walk() if op.name.startswith("gpu.")]


def _grad(name: str, level: int = 2, folder=CUDA_GOLDEN):
    """A golden case's gradient IR (its input.cu, or the input.c whose loop becomes a kernel)."""
    spec = json.loads((folder / name / "case.json").read_text())
    src = next(folder / name / f for f in ("input.cu", "input.c") if (folder / name / f).exists())
    module = pipeline.gradient_module(src.read_text(), src.name, spec["func"], spec["wrt"],
                                      pipeline.Options(level=level), kernel=src.suffix == ".c")
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
        # A[i * n + j], j in [0, n); x[j] at the loop's step, the same in every thread: WARP
        ("matvec_row_loop", {"d_A": [PRIVATE], "d_x": [WARP]}),
        ("shared_block_reduction", {"d_buf": [ATOMIC, WARP], "d_x": [ATOMIC]}),
        ("grid_2d", {"d_x": [PRIVATE]}),  # row * w + col under col < w
    ],
)
def test_accumulations_are_classified(name, expected):
    _, _, fn = _grad(name)
    modes = _modes(fn)
    assert {k: v for k, v in modes.items() if k in expected} == expected
    plan = classify(fn, kernel=True, all_atomic=True)
    assert set(plan.modes.values()) == {ATOMIC} and plan.returned == ATOMIC
    # A device function knows no thread: atomics, summed over the warp first at a uniform index.
    assert set(classify(fn, kernel=False).modes.values()) <= {ATOMIC, WARP}


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
    # buf[0] is read by every thread that passes i < n (WARP); so buf[t] meets it (ATOMIC)
    assert _modes(fn)["d_buf"] == [ATOMIC, WARP]
    private = SHARED_COPY.replace(" + buf[0]", "")
    fn = pipeline.gradient_module(private, "k.cu", "stage", ["x"]).functions["grad_stage"]
    assert _modes(fn)["d_buf"] == [PRIVATE]
    with pytest.raises(NotImplementedError, match="__syncthreads"):
        Interpreter(parse_source(SHARED_COPY, "k.cu", "stage")).launch("stage", Launch(), 1, np.ones(1), np.ones(1))


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
        # the shuffles are supported (golden/cuda/warp_shuffles); votes, old-style shuffles,
        # a width, a lane number that is not a constant are not
        ("", "__ballot_sync(0xffffffff, x[i] > 0.0)", "__ballot",
         "warp votes and this warp shuffle are not supported in the primal"),
        ("", "__shfl_down(x[i], 1)", "__shfl", "warp votes and this warp shuffle are not supported in the primal"),
        ("", "__shfl_down_sync(0xffffffff, x[i], 1, 16)", "16",
         "the width argument of __shfl_down_sync is not supported"),
        ("", "__shfl_sync(0xffffffff, x[i], n % 32)", "n % 32",
         "__shfl_sync from a lane that is not a constant is not supported: its adjoint would add into lanes the "
         "reverse sweep cannot tell apart"),
        # atomicAdd as a statement is a sum (golden/cuda/atomic_add_in_primal); the old value it
        # returns, and the other atomics, depend on the order of the threads.
        ("", "atomicAdd(&y[0], x[i])", "atomicAdd", "the value atomicAdd returns (the old one) is not supported"),
        ("", "atomicMax(&y[0], x[i])", "atomicMax",
         "atomic operations other than atomicAdd are not supported in the primal"),
        ("__constant__ double w[3];", "x[i]", "__constant__", "__constant__ memory is not supported yet"),
        ("", "make_double2(x[i], 0.0).x", "make_double2",
         "CUDA's vector types (double2, float4, ...) are not supported"),
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


# -- --target cuda of C and Python loops (s2sad/opt/kernelize.py) ---------------------------

SAXPY_C = """\
void saxpy(int n, double a, const double *x, double *y)
{
    for (int i = 0; i < n; i++) {
        y[i] = a * x[i] + y[i];
    }
}
"""


def test_a_c_loop_becomes_a_kernel_with_the_thread_as_its_index(tmp_path, capsys):
    path = tmp_path / "saxpy.c"
    path.write_text(SAXPY_C)
    assert cli.main(["grad", str(path), "--wrt", "a,x", "--target", "cuda", "-o", str(tmp_path / "g.cu")]) == 0
    text = (tmp_path / "g.cu").read_text()
    assert "grad_saxpy<<<(n + 255) / 256, 256>>>(...)" in text
    assert "__global__ void grad_saxpy(int n, double a, double *d_a, const double *x, double *d_x," in text
    assert "long i = blockIdx.x * blockDim.x + threadIdx.x;\n    if (i < n) {" in text
    module, _ = pipeline.primal_module(SAXPY_C, "saxpy.c", "saxpy", pipeline.Options(level=0), kernel=True)
    verify_module(module)
    fn = module.functions["saxpy"]
    assert fn.attrs["cuda"] == "global" and not [op for op in fn.walk() if op.name in ("for", "while")]
    grad = pipeline.gradient_module(SAXPY_C, "saxpy.c", "saxpy", ["a", "x"], kernel=True).functions["grad_saxpy"]
    plan = classify(grad, kernel=True)
    assert _modes(grad) == {"d_x": [PRIVATE]} and plan.returned == BLOCK  # y[i] += ...: d_y is only read


@pytest.mark.parametrize("name, expected", [
    # d_y[i] is read, cleared and added to by its own thread only: one store (merge-clears)
    ("shared_scalar_wrt", {"d_x": [PRIVATE]}),
    ("strided_stencil", {"d_x": [ATOMIC]}),
])
def test_kernels_from_loops_have_no_private_accumulation_two_threads_share(name, expected):
    """The classification and race check of the .cu kernels, over a launch of a kernel made from a C loop."""
    spec, module, fn = _grad(name, folder=GOLDEN / "cuda_from_c")
    stores = classify(fn, kernel=True).modes
    assert _modes(fn) == expected
    recorder = _Recorder(module, stores)
    launch = Launch(tuple(spec["launch"]["grid"]), tuple(spec["launch"]["block"]))
    recorder.launch(fn.name, launch, *_arguments(spec, fn, np.random.default_rng(0)))
    assert recorder.touched, "no accumulation ran"
    assert not recorder.private & {a for a, threads in recorder.touched.items() if len(threads) > 1}


LOOPS_C = """\
void f(int n, double a, const double *x, double *y, int *idx)
{{
{body}
}}
"""


@pytest.mark.parametrize(
    "body, where, message",
    [
        ("    double s = 0.0;\n    for (int i = 0; i < n; i++) {\n        s += x[i];\n        y[i] = s;\n    }",
         "for (int i", "the loop at line 4 carries 's' from one iteration to the next; only loops whose "
         "iterations are independent become kernels"),
        ("    for (int i = 0; i < n; i++) y[i] = x[i];\n    for (int i = 0; i < n; i++) y[i] *= a;",
         "for (int i = 0; i < n; i++) y[i] *= a", "'f' has more than one outermost loop (lines 3 and 4)"),
        ("    for (int i = 0; i < n; i++) y[0] += x[i];", "y[0] +=",
         "the loop at line 3 writes 'y' at an element that other iterations may write too"),
        ("    for (int i = 0; i < n; i++) y[idx[i]] = x[i];", "y[idx[i]]",
         "the loop at line 3 writes 'y' at an element that other iterations may write too"),
        ("    for (int i = 0; i + 1 < n; i++) y[i] = y[i + 1] * a;", "y[i + 1]",
         "the loop at line 3 writes 'y' and reads or writes it at another element too"),
        ("    for (int i = 0; i < n; i++) y[i] = x[i];\n    y[0] = a;", "y[0] = a",
         "this runs once after the loop at line 3, but a kernel runs only the loop"),
        ("    y[0] = a;\n    for (int i = 1; i < n; i++) y[i] = x[i];", "y[0] = a",
         "this runs once before the loop at line 4"),
        ("    int i = 0;\n    while (x[i] > 0.0) { y[i] = x[i]; i++; }", "while",
         "the loop at line 4 is not a counted for loop"),
        ("    for (int i = 0; i < n; i += idx[0]) y[i] = x[i];", "for",
         "the loop at line 3 is not a counted for loop, or it can stop early (break, return)"),
        ("    for (int i = 0; i < n; i++) {\n        if (x[i] < 0.0) break;\n        y[i] = x[i];\n    }", "for",
         "the loop at line 3 is not a counted for loop, or it can stop early (break, return)"),
        ("    for (int i = 0; i < n; i++) {\n        f(n, a, x, y, idx);\n        y[i] = x[i];\n    }", "f(n",
         "'f' calls itself, and a kernel cannot call a kernel"),
        ("    #pragma s2sad checkpoint binomial(4)\n    for (int i = 0; i < n; i++) y[i] = x[i];", "binomial",
         "the loop at line 4 becomes the kernel, one iteration per thread: no loop is left to checkpoint"),
        ("    double t[2] = {0.0, 1.0};\n    for (int i = 0; i < n; i++) y[i] = t[1] * x[i];", "t[2]",
         "this runs once before the loop at line 4"),
        ("    y[0] = a * x[0];", "f(int", "'f' has no loop to run as a kernel"),
    ],
)
def test_loops_that_cannot_become_kernels_are_located_errors(tmp_path, capsys, body, where, message):
    src = LOOPS_C.format(body=body)
    path = tmp_path / "f.c"
    path.write_text(src)
    assert cli.main(["grad", str(path), "--wrt", "x", "--target", "cuda", "-o", str(tmp_path / "g.cu")]) == 1
    err = capsys.readouterr().err
    first, line, caret = err.splitlines()[:3]
    assert f"error: --target cuda: {message}" in first, err
    row, col = (int(k) for k in first.split(":")[1:3])
    assert src.splitlines()[row - 1].index(where) + 1 == col and caret.index("^") - 4 == col - 1, err
    assert err.splitlines()[-1].startswith("hint: ") and "Traceback" not in err
    assert not (tmp_path / "g.cu").exists()


def test_a_pragma_or_prange_vouches_for_independence_but_not_for_a_carried_value():
    pragma = LOOPS_C.format(body="    #pragma omp parallel for\n    for (int i = 0; i < n; i++) y[idx[i]] = x[i];")
    text = pipeline.gradient_source(pragma, "f.c", "f", ["x"], "cuda")
    assert "__global__ void grad_f(" in text and "d_x[i] += " in text
    module = pipeline.gradient_module(pragma, "f.c", "f", ["x"], kernel=True)
    assert _modes(module.functions["grad_f"]) == {"d_x": [PRIVATE]}
    with pytest.raises(DiagnosticError) as e:
        pipeline.gradient_source(pragma.replace("    #pragma omp parallel for\n", ""), "f.c", "f", ["x"], "cuda")
    assert "mark it '#pragma omp parallel for'" in e.value.diagnostics[0].hint
    py = "import numba\n\n\ndef f(x, y, n: int):\n    s = 0.0\n    for i in numba.prange(n):\n" \
         "        s += x[i]\n        y[i] = s\n"
    with pytest.raises(DiagnosticError, match="the loop at line 6 carries 's'"):
        pipeline.gradient_source(py, "f.py", "f", ["x"], "cuda")
    step = py.replace("numba.prange(n)", "range(0, n, k)").replace("n: int", "n: int, k: int")
    with pytest.raises(DiagnosticError, match="the loop at line 6 steps by an amount that is not a constant"):
        pipeline.gradient_source(step.replace("        s += x[i]\n        y[i] = s\n", "        y[i] = x[i]\n"),
                                 "f.py", "f", ["x"], "cuda")
    ok = py.replace("        s += x[i]\n        y[i] = s\n", "        y[i] = 2.0 * x[i]\n")
    assert "__global__ void grad_f(double *x, double *d_x, double *y, double *d_y, long n)" in \
        pipeline.gradient_source(ok, "f.py", "f", ["x"], "cuda")


def test_a_function_returning_a_value_is_no_kernel():
    src = "double f(int n, const double *x, double *y)\n{\n    for (int i = 0; i < n; i++) y[i] = x[i];\n" \
          "    return 0.0;\n}\n"
    with pytest.raises(DiagnosticError, match="a kernel returns no value, and 'f' returns one"):
        pipeline.gradient_source(src, "f.c", "f", ["x"], "cuda")


@pytest.mark.parametrize(
    "expr, ops",
    [
        ("__expf(x[i])", ["math.exp"]),
        ("__sinf(x[i]) * __logf(x[i])", ["math.sin", "math.log"]),
        ("rsqrtf(x[i])", ["math.sqrt", "div"]),
        ("__fdividef(x[i], 3.0f)", ["div"]),
        ("__ldg(&x[i]) + __ldg(x + i)", ["load"]),
        ("fmaf(x[i], x[i], 1.0f)", ["mul", "add"]),
        ("max(x[i], 0.0f) + (float)min(i, 3)", ["math.max", "math.min"]),
    ],
)
def test_cuda_shorthands_are_the_arithmetic_they_mean(expr, ops):
    src = ("__global__ void k(int n, const float *x, float *y)\n{\n    int i = blockIdx.x * blockDim.x + threadIdx.x;\n"
           f"    if (i < n) {{\n        y[i] = {expr};\n    }}\n}}\n")
    fn = parse_source(src, "k.cu", "k").functions["k"]
    names = {op.name for op in fn.walk()}
    assert set(ops) <= names and not any(op.name == "call" for op in fn.walk())
    grad = pipeline.gradient_source(src, "k.cu", "k", ["x"], "cuda")
    code = "\n".join(line for line in grad.splitlines() if not line.strip().startswith("//"))  # not the source lines
    assert not any(word in code for word in ("__expf", "__ldg", "rsqrtf", "__fdividef"))  # the math they are


def test_an_unknown_intrinsic_is_still_a_located_error(tmp_path, capsys):
    code, err = _cli(tmp_path, capsys, KERNEL.format(decl="", expr="__fsqrt_ru(x[i])"), "--wrt", "x")
    assert code == 1 and "cannot differentiate through call to '__fsqrt_ru'" in err


def test_each_helper_declares_the_helpers_it_calls():
    """``c_file`` adds the helpers a helper calls by what it declares (``DEVICE_MEMORY_CALLS``;
    C's helpers call none): the declarations name exactly the calls the definitions make."""
    import re

    from s2sad.emit_c.cfile import strip_comments
    from s2sad.emit_c.helpers import HELPERS
    from s2sad.emit_cuda.emitter import DEVICE_MEMORY_CALLS, _helpers

    class Sums:  # what _helpers reads of an emitter: it sums and zeroes doubles
        sum_types = warp_sum_types = zeroed_types = {"double"}

    device = _helpers([Sums()])  # type: ignore[list-item]
    for helpers, declared in ((HELPERS, {}), (device, DEVICE_MEMORY_CALLS)):
        for name, text in helpers.items():
            called = {h for h in helpers if h != name and re.search(rf"\b{h}\(", strip_comments(text))}
            assert called == set(declared.get(name, ())), name


@pytest.mark.parametrize("how", ["pragma", "--checkpoint"])
def test_checkpointing_a_loop_that_writes_shared_memory_is_a_located_error(tmp_path, capsys, how):
    """Re-running an iteration is per thread, a __shared__ tile the block's: a thread that refilled
    its own element of As and read its neighbours' would read stale values (a wrong gradient)."""
    src = (CUDA_GOLDEN / "tiled_matmul" / "input.cu").read_text()
    loop = "    for (int t = 0; t < n / TILE; t++) {"
    args = ["--wrt", "A,B"]
    if how == "pragma":
        src = src.replace(loop, "#pragma s2sad checkpoint recompute\n" + loop)
    else:
        args += ["--checkpoint", "binomial(3)"]
    code, err = _cli(tmp_path, capsys, src, *args)
    line = src.splitlines().index(loop) + (0 if how == "pragma" else 1)
    first = err.splitlines()[0]
    assert code == 1 and f"k.cu:{line}:" in first, err
    assert "writes __shared__ memory (As, Bs)" in first and "^" in err and "store-all" in err
