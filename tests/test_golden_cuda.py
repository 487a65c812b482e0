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
"""

from __future__ import annotations

import functools
import json
import subprocess
import tempfile
from dataclasses import dataclass
from pathlib import Path

import numpy as np
import pytest
from cudaemu import EmulatedKernel, as_c, have_gxx, have_nvcc
from cprimal import CSignature
from fd import ParamSpec, check_gradient
from golden_cases import GOLDEN, compare_with_golden

from s2sad import pipeline

CUDA_GOLDEN = GOLDEN / "cuda"
CASE_NAMES = sorted(p.name for p in CUDA_GOLDEN.iterdir() if (p / "case.json").exists())

needs_gxx = pytest.mark.skipif(not have_gxx(), reason="g++ is not installed")


@dataclass
class CudaCase:
    name: str
    folder: Path
    spec: dict

    @property
    def source(self) -> str:
        return (self.folder / "input.cu").read_text()

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

    def generate(self, level: int, all_atomic: bool = False) -> str:
        options = pipeline.Options(level=level, all_atomic=all_atomic)
        return pipeline.gradient_source(self.source, "input.cu", self.func, self.wrt, "cuda", options)


def load(name: str) -> CudaCase:
    folder = CUDA_GOLDEN / name
    return CudaCase(name, folder, json.loads((folder / "case.json").read_text()))


@functools.cache
def kernel(name: str) -> EmulatedKernel:
    case = load(name)
    return EmulatedKernel(case.source, case.func, case.spec["launch"])


@functools.cache
def primal(name: str):
    return kernel(name).primal()


def test_cuda_golden_cases_exist():
    assert {"daxpy_shared_scalar", "stencil_1d", "gather_index_list", "device_function_call"} <= set(CASE_NAMES)


@pytest.mark.parametrize("name", CASE_NAMES)
def test_cuda_golden_output(name, request):
    case = load(name)
    level = case.spec.get("level", pipeline.DEFAULT.level)
    text = case.generate(level)
    assert text == case.generate(level), "output is not deterministic"
    path = case.folder / "expected.cu"
    compare_with_golden(request, path, text)


def _contract(case: CudaCase) -> list[tuple[str, str, bool]]:
    sig = CSignature.parse(as_c(case.source), case.func)
    out = []
    for p in sig.params:
        out.append((p.name, p.base, p.pointer))
        if (p.pointer and (p.name in case.wrt or p.name in case.written)) or (p.is_float and p.name in case.wrt):
            out.append((f"d_{p.name}", p.base, True))
    return out


@needs_gxx
@pytest.mark.parametrize("variant", ["O2", "O0", "O2-all-atomic"])
@pytest.mark.parametrize("name", CASE_NAMES)
def test_cuda_gradient_matches_finite_differences(name, variant):
    case = load(name)
    text = case.generate(2 if variant.startswith("O2") else 0, all_atomic=variant.endswith("atomic"))
    assert f"__global__ void grad_{case.func}(" in text
    grad = CSignature.parse(as_c(text), f"grad_{case.func}")
    assert [(p.name, p.base, p.pointer) for p in grad.params] == _contract(case)
    gradient = kernel(name).gradient(text, case.wrt, case.written)
    for seed in range(2):
        check_gradient(primal(name), gradient, case.params, case.wrt, set(case.written),
                       np.random.default_rng(seed), rtol=case.spec.get("rtol", 2e-5),
                       atol=case.spec.get("atol", 2e-6), returns_float=False)


@needs_gxx
def test_emulated_primal_writes_what_case_json_says():
    for name in CASE_NAMES:
        case = load(name)
        rng = np.random.default_rng(0)
        inputs = [p.sample(rng) for p in case.params]
        after = [v.copy() if isinstance(v, np.ndarray) else v for v in inputs]
        primal(name)(*after)
        for spec, a, b in zip(case.params, inputs, after):
            if spec.kind == "array":
                assert (not np.array_equal(a, b)) == (spec.name in case.written), (name, spec.name)


@pytest.mark.skipif(not have_nvcc(), reason="nvcc is not installed")
def test_expected_cuda_compiles_with_nvcc():
    """Every expected.cu (and one --all-atomic output) is CUDA that nvcc accepts, warnings as errors."""
    with tempfile.TemporaryDirectory(prefix="s2sad_nvcc_") as tmp:
        files = []
        for name in CASE_NAMES:
            path = Path(tmp) / f"{name}.cu"
            path.write_text((CUDA_GOLDEN / name / "expected.cu").read_text())
            files.append(str(path))
        atomic = Path(tmp) / "all_atomic.cu"
        atomic.write_text(load("daxpy_shared_scalar").generate(2, all_atomic=True))
        files.append(str(atomic))
        # PTX only (no ptxas, no host object): what the front end and code generator accept.
        r = subprocess.run(["nvcc", "--ptx", "-arch=compute_75", "-Werror", "all-warnings", "-odir", tmp, *files],
                           capture_output=True, text=True, timeout=300)
        assert r.returncode == 0, r.stdout + r.stderr
