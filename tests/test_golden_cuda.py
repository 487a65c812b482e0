"""Golden CUDA cases: .cu in, .cu out, checked on the CPU through an emulation of CUDA.

Each folder golden/cuda/<case>/ holds ``input.cu`` (one kernel, possibly with
``__device__`` helpers) and ``case.json``: as golden/c (func, wrt, params,
written, optional rtol/atol), plus ``launch`` (``grid`` and ``block``, x/y/z)
and an optional ``level`` for the expected output (a case about calls keeps
them with ``"level": 0``: -O2 inlines small device functions). ``expected.cu``
is ``--target cuda`` at that level; ``pytest --update-golden`` rewrites it.

For every case: the primal and the gradient (-O2 and -O0 with classified
accumulation, -O2 with ``--all-atomic``) compile with g++ -Wall -Wextra -Werror
against tests/cuda_emu.h and run one emulated thread at a time; the gradient
has the contract's signature and matches central differences of the emulated
primal (tests/fd.py). Where nvcc is installed, every expected.cu compiles with it.
Where a GPU is (``nvidia-smi -L`` lists one), the same checks run again on it
(tests/cudadev.py): the primal and the three gradients launched with nvcc's build;
and each gradient runs once more under NVIDIA's compute-sanitizer, whose memcheck finds
out-of-bounds and misaligned accesses and whose racecheck finds shared-memory races (a
missing ``__syncthreads``), which neither the emulation nor the comparison with finite
differences can see. Without a GPU, those runs are skipped and say so.

golden/cuda_from_c/<case>/ and golden/cuda_from_py/<case>/ are the same for kernels
made from an element loop (``--target cuda`` of ``input.c`` or ``input.py``,
s2sad/opt/kernelize.py): ``launch`` gives at least one thread per iteration, and
the gradients are compared with central differences of the original primal, the C
compiled by gcc or the Python run as it is. A case's name is its folder under
golden/cuda, or ``cuda_from_c/<case>``.
"""

from __future__ import annotations

import functools
import json
import shutil
import subprocess
import sys
import tempfile
from dataclasses import dataclass
from pathlib import Path

import numpy as np
import pytest
from cbuild import INPUT_FLAGS, build
from cudadev import DeviceKernel, have_gpu
from cudaemu import EmulatedKernel, as_c, have_gxx, have_nvcc, primal_declaration
from cprimal import CSignature
from fd import ParamSpec, check_gradient
from golden_cases import GOLDEN, compare_with_golden, load_module

from s2sad import pipeline

# Case name -> folder: golden/cuda/<case> by its name, the kernels made from loops by folder/case.
FOLDERS = {
    (p.name if top == "cuda" else f"{top}/{p.name}"): p
    for top in ("cuda", "cuda_from_c", "cuda_from_py")
    for p in sorted((GOLDEN / top).iterdir()) if (p / "case.json").exists()
}
CASE_NAMES = sorted(FOLDERS)

needs_gxx = pytest.mark.skipif(not have_gxx(), reason="g++ is not installed")
# Where each kernel runs: emulated on the CPU (g++), or on a GPU (nvcc), each skipped without its tool.
BACKENDS = [
    pytest.param("emulated", marks=needs_gxx),
    pytest.param("device", marks=pytest.mark.skipif(not have_gpu(), reason="no GPU: device runs skipped")),
]


@dataclass
class CudaCase:
    name: str
    folder: Path
    spec: dict

    @property
    def input(self) -> Path:
        """input.cu, or the input.c / input.py whose loop becomes the kernel."""
        return next(self.folder / f"input{s}" for s in (".cu", ".c", ".py") if (self.folder / f"input{s}").exists())

    @property
    def source(self) -> str:
        return self.input.read_text()

    @property
    def func(self) -> str:
        return self.spec["func"]

    @property
    def wrt(self) -> list[str]:
        return self.spec["wrt"]

    @property
    def written(self) -> list[str]:
        return self.spec.get("written", [])

    @property
    def params(self) -> list[ParamSpec]:
        return [ParamSpec.from_json(p) for p in self.spec["params"]]

    @property
    def declaration(self) -> str:
        """Source that declares the primal: the input, or for Python, read off the gradient."""
        if self.input.suffix == ".py":
            return primal_declaration(self.generate(pipeline.DEFAULT.level), self.func)
        return self.source

    def generate(self, level: int, all_atomic: bool = False) -> str:
        options = pipeline.Options(level=level, all_atomic=all_atomic)
        return pipeline.gradient_source(self.source, self.input.name, self.func, self.wrt, "cuda", options)


def load(name: str) -> CudaCase:
    folder = FOLDERS[name]
    return CudaCase(name, folder, json.loads((folder / "case.json").read_text()))


@functools.cache
def kernel(name: str, backend: str = "emulated") -> EmulatedKernel:
    case = load(name)
    kind = DeviceKernel if backend == "device" else EmulatedKernel
    return kind(case.declaration, case.func, case.spec["launch"])


@functools.cache
def primal(name: str, backend: str = "emulated"):
    """The primal: the kernel (emulated or on the GPU), or the original C compiled by gcc, or the Python itself."""
    case = load(name)
    if case.input.suffix == ".c":
        return CSignature.parse(case.source, case.func).primal(build(case.source, INPUT_FLAGS))
    if case.input.suffix == ".py":
        return getattr(load_module(case.input, "cuda_golden_" + name.replace("/", "_")), case.func)
    return kernel(name, backend).primal()


def test_cuda_golden_cases_exist():
    assert {"daxpy_shared_scalar", "stencil_1d", "gather_index_list", "device_function_call"} <= set(CASE_NAMES)
    assert {"cuda_from_c/shared_scalar_wrt", "cuda_from_c/omp_parallel_for", "cuda_from_c/helper_call",
            "cuda_from_py/prange_shared_scalar"} <= set(CASE_NAMES)


@pytest.mark.parametrize("name", CASE_NAMES)
def test_cuda_golden_output(name, request):
    case = load(name)
    level = case.spec.get("level", pipeline.DEFAULT.level)
    text = case.generate(level)
    assert text == case.generate(level), "output is not deterministic"
    if case.input.suffix != ".cu":
        assert "Launch with at least" in text.split("*/")[0], "the header says how to launch the kernel"
    path = case.folder / "expected.cu"
    compare_with_golden(request, path, text)


def _contract(case: CudaCase) -> list[tuple[str, str, bool]]:
    sig = CSignature.parse(as_c(case.declaration), case.func)
    out = []
    for p in sig.params:
        out.append((p.name, p.base, p.pointer))
        if (p.pointer and (p.name in case.wrt or p.name in case.written)) or (p.is_float and p.name in case.wrt):
            out.append((f"d_{p.name}", p.base, True))
    return out


@pytest.mark.parametrize("backend", BACKENDS)
@pytest.mark.parametrize("variant", ["O2", "O0", "O2-all-atomic"])
@pytest.mark.parametrize("name", CASE_NAMES)
def test_cuda_gradient_matches_finite_differences(name, variant, backend):
    case = load(name)
    text = case.generate(2 if variant.startswith("O2") else 0, all_atomic=variant.endswith("atomic"))
    assert f"__global__ void grad_{case.func}(" in text
    grad = CSignature.parse(as_c(text), f"grad_{case.func}")
    assert [(p.name, p.base, p.pointer) for p in grad.params] == _contract(case)
    gradient = kernel(name, backend).gradient(text, case.wrt, case.written)
    for seed in range(2):
        check_gradient(primal(name, backend), gradient, case.params, case.wrt, set(case.written),
                       np.random.default_rng(seed), rtol=case.spec.get("rtol", 2e-5),
                       atol=case.spec.get("atol", 2e-6), returns_float=False)


@pytest.mark.parametrize("backend", BACKENDS)
def test_a_growing_tape_outgrows_its_local_cells(backend):
    """tape_data_dependent's tapes start in the thread's LOCAL_CELLS cells of local memory and move
    to the device heap past them (device_grow): x up to 3e5 takes up to 19 steps. Central
    differences cannot check such x in double precision (the primal's sum cancels), so the
    reference is mpmath's derivative of the primal at 50 digits."""
    import mpmath

    from s2sad.emit_cuda.emitter import LOCAL_CELLS

    case = load("tape_data_dependent")
    gradient = kernel(case.name, backend).gradient(case.generate(2), case.wrt, case.written)
    rng = np.random.default_rng(5)
    n = 30
    x = rng.uniform(1.5, 3.0e5, n)
    dx, y, dy = np.zeros(n), np.zeros(n), rng.normal(size=n)
    gradient(n, x.copy(), dx, y, dy.copy())

    def primal(v):
        s, p = mpmath.mpf(v), mpmath.mpf(1)
        while s > 1:
            p, s = p * mpmath.sin(s) + s, s / 2
        return p

    assert max(int(np.ceil(np.log2(v))) for v in x) > LOCAL_CELLS, "some thread's tape must outgrow its cells"
    with mpmath.workdps(50):
        exact = np.array([float(mpmath.diff(primal, mpmath.mpf(v))) for v in x]) * dy
    np.testing.assert_allclose(dx, exact, rtol=1e-9, atol=1e-12)


@pytest.mark.parametrize("backend", BACKENDS)
def test_a_tape_too_long_for_its_cells_lives_on_the_block_heap(backend):
    """tape_in_kernel's tape of m values per thread is in TAPE_CELLS local cells where m fits
    (every case.json size) and in one block_tape past them (local_or_block_tape): m just past
    the cells, and two blocks, take the heap's way against central differences."""
    from s2sad.emit_cuda.emitter import TAPE_CELLS

    case = load("tape_in_kernel")
    n, m = 20, TAPE_CELLS + 3
    text = case.generate(2)
    assert "local_or_block_tape(m, " in text
    gradient = kernel(case.name, backend).gradient(text, case.wrt, case.written)
    params = [ParamSpec("n", "int", value=n), ParamSpec("m", "int", value=m), ParamSpec("x", "array", (n * m,)),
              ParamSpec("y", "array", (n,))]
    check_gradient(primal(case.name, backend), gradient, params, case.wrt, set(case.written),
                   np.random.default_rng(3), returns_float=False)


VARIANTS = {"O2": (2, False), "O0": (0, False), "O2-all-atomic": (2, True)}
SANITIZER = shutil.which("compute-sanitizer")


@pytest.mark.skipif(not (have_gpu() and SANITIZER), reason="no GPU (or no compute-sanitizer): device runs skipped")
@pytest.mark.parametrize("tool", ["memcheck", "racecheck"])
@pytest.mark.parametrize("variant", list(VARIANTS))
@pytest.mark.parametrize("name", CASE_NAMES)
def test_cuda_gradient_is_clean_under_compute_sanitizer(name, variant, tool):
    """One launch of the gradient on the GPU under compute-sanitizer (this file run as a program)."""
    r = subprocess.run([SANITIZER, "--tool", tool, "--error-exitcode", "3", sys.executable, __file__, name, variant],
                       capture_output=True, text=True, timeout=300)
    assert r.returncode == 0, r.stdout[-4000:] + r.stderr[-2000:]


def _launch_once(name: str, variant: str) -> None:
    """The gradient of ``name`` launched once on the GPU with random inputs and seeds."""
    case = load(name)
    level, all_atomic = VARIANTS[variant]
    gradient = kernel(name, "device").gradient(case.generate(level, all_atomic), case.wrt, case.written)
    rng = np.random.default_rng(0)
    args = []
    for p in case.params:
        args.append(p.sample(rng))
        if p.kind == "array" and (p.name in case.wrt or p.name in case.written):
            args.append(rng.uniform(-1, 1, size=p.shape).astype(p.np_dtype))
    gradient(*args)


@pytest.mark.parametrize("backend", BACKENDS)
def test_primal_writes_what_case_json_says(backend):
    for name in CASE_NAMES:
        case = load(name)
        rng = np.random.default_rng(0)
        inputs = [p.sample(rng) for p in case.params]
        after = [v.copy() if isinstance(v, np.ndarray) else v for v in inputs]
        primal(name, backend)(*after)
        for spec, a, b in zip(case.params, inputs, after):
            if spec.kind == "array":
                assert (not np.array_equal(a, b)) == (spec.name in case.written), (name, spec.name)


@pytest.mark.skipif(not have_nvcc(), reason="nvcc is not installed")
def test_expected_cuda_compiles_with_nvcc():
    """Every expected.cu (and one --all-atomic output) is CUDA that nvcc accepts, warnings as errors."""
    with tempfile.TemporaryDirectory(prefix="s2sad_nvcc_") as tmp:
        files = []
        for name in CASE_NAMES:
            path = Path(tmp) / f"{name.replace('/', '__')}.cu"
            path.write_text((FOLDERS[name] / "expected.cu").read_text())
            files.append(str(path))
        atomic = Path(tmp) / "all_atomic.cu"
        atomic.write_text(load("daxpy_shared_scalar").generate(2, all_atomic=True))
        files.append(str(atomic))
        # PTX only (no ptxas, no host object): what the front end and code generator accept.
        r = subprocess.run(["nvcc", "--ptx", "-arch=compute_75", "-Werror", "all-warnings", "-odir", tmp, *files],
                           capture_output=True, text=True, timeout=300)
        assert r.returncode == 0, r.stdout + r.stderr


if __name__ == "__main__":  # test_cuda_gradient_is_clean_under_compute_sanitizer's program
    _launch_once(*sys.argv[1:])
