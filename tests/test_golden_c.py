"""Golden C cases: C in, C (and Python) out, checked against the C primal compiled by gcc.

Each folder golden/c/<case>/ holds ``input.c`` (one C feature in a small
numerical kernel; the headers it includes, if any, beside it) and ``case.json``: the function, ``--wrt``, how to sample
each parameter (as golden/*/case.json, plus dtypes "f32" for ``float *`` or
``float`` and "i32" for ``int *``; a struct pointer is sampled as a float64
array holding the structs' bytes), ``written`` (the pointer parameters the
function writes, directly or through a callee: they get shadows), optional
``rtol``/``atol`` (single-precision cases) and optional ``sources``: C files of the
folder that define functions input.c only declares, linked with the primal and with
every gradient as a user's build links them. A case whose parameters ctypes cannot
build (a struct passed by value, a struct with pointer members) names instead a
``driver``: a C file of the folder that builds them itself and compares the gradient
with central differences of the primal (tests/c/struct_fd.h), its ``params`` left
empty. Beside them, the expected outputs:
``expected.c`` (``--target c``) for every case and ``expected.py``
(``--target py``) for the cases in PY_CASES; ``pytest --update-golden``
rewrites them.

For every case: input.c compiles with gcc -Werror and its primal runs through
ctypes (tests/cprimal.py), with ``written`` checked against what it really
writes; the C gradient (at -O2 and -O0) has the contract's signature, compiles
with ``gcc -std=c99 -Wall -Wextra -Werror``, runs clean under
``-fsanitize=address,undefined`` and matches central differences of
the compiled C primal (tests/fd.py); the Python gradient of the PY_CASES
matches them too and passes ``ruff check --isolated``.
"""

from __future__ import annotations

import ctypes
import functools
import json
import shutil
import subprocess
import sys
from dataclasses import dataclass
from pathlib import Path
from typing import Optional

import numpy as np
import pytest
from cbuild import INPUT_FLAGS, build, build_sanitized, compile_c, have_gcc
from cprimal import CSignature
from fd import ParamSpec, check_gradient
from golden_cases import GOLDEN, compare_with_golden, load_cases

from s2sad import pipeline
from s2sad.diagnostics import DiagnosticError
from s2sad.ssa.attrs import parse_schedule

pytestmark = pytest.mark.skipif(not have_gcc(), reason="gcc is not installed")

C_GOLDEN = GOLDEN / "c"
LEVELS = (2, 0)

# Cases with struct types: their Python output takes the structs as one flat array.
STRUCT_CASES = ["struct_bodies_array", "struct_2d_member", "struct_pointer_fields", "struct_nested_typedef",
                "struct_written", "struct_callee", "struct_pointer_walk", "local_header"]

# Cases also generated as Python (--target py): no structs, no single precision.
PY_CASES = [
    "scratch_call_in_loop",
    "dot_int_n",
    "define_constants",
    "math_exp_log",
    "flat_matvec",
    "local_array_init_list",
    "subarray_address",
    "pointer_walk",
    "malloc_free",
    "while_data_dependent",
    "scalar_wrt",
    "return_and_write",
    "void_output_array",
    "callee_writes_array",
    "int_index_array",
    "struct_bodies_array",
    "struct_nested_typedef",
    "struct_array_member_to_helper",
    "memcpy_memset",
    "checkpoint_binomial",
    "checkpoint_call_view",
    "recursive_divide_conquer",
    "checkpoint_while",
    "call_copy_in_branch",
    "nested_helper_calls",
    "function_like_macros",
    "if_expressions",
    "libm_special",
    "builtin_spellings",
    "switch_fallthrough",
    "switch_jumps",
    "const_tables",
    "typedef_restrict",
    "float_counter",
    "size_t_loops",
    "comma_operator",
    "bitwise_ops",
    "switch_enum",
    "vla_matvec",
    "pointer_rows_param",
    "pointer_rows_written_by_helper",
    "struct_returned_by_value",
    "struct_call_as_argument",
    "struct_2d_member",
    "local_struct_array",
    "malloc_structs",
    "pointer_accessors",
    "fixed_2d_param",
    "pointer_to_rows",
    "vla_3d",
    "local_2d_array",
    "row_to_helper",
    "row_call_in_loop",
    "whole_2d_to_helper",
]

# The case.json dtype of an array for each C pointee type.
_DTYPE_OF = {"double": "f64", "float": "f32", "int": "i32", "long": "i64"}


@dataclass
class CCase:
    name: str
    folder: Path
    func: str
    wrt: list[str]
    params: list[ParamSpec]
    written: list[str]
    rtol: float
    atol: float
    sources: tuple[Path, ...] = ()  # defining the functions input.c declares but does not define
    driver: Optional[Path] = None  # a C check of its own (struct values): see the module's docstring
    workspace: bool = False  # made with --workspace (C output only: emit_c/workspace.py)

    @property
    def source(self) -> str:
        return (self.folder / "input.c").read_text()

    @property
    def input_flags(self) -> tuple[str, ...]:
        """gcc's flags for input.c: its headers (golden/c/local_header) are beside it."""
        return (*INPUT_FLAGS, "-I", str(self.folder))

    @functools.cached_property
    def signature(self) -> CSignature:
        return CSignature.parse(self.source, self.func, self.folder)

    def generate(self, target: str, level: int = pipeline.DEFAULT.level, checkpoint: Optional[str] = None) -> str:
        options = pipeline.Options(level=level, checkpoint=parse_schedule(checkpoint) if checkpoint else None,
                                   workspace=self.workspace and target == "c")
        # The path, not just the name, so that s2sad finds the headers beside input.c.
        return pipeline.gradient_source(self.source, str(self.folder / "input.c"), self.func, self.wrt, target,
                                        options)

    def check(self, gradient, seed: int) -> None:
        check_gradient(
            primal(self.name),
            gradient,
            self.params,
            self.wrt,
            set(self.written),
            np.random.default_rng(seed),
            rtol=self.rtol,
            atol=self.atol,
            returns_float=self.signature.returns_float,
        )


def load_c_cases(root: Path = C_GOLDEN) -> list[CCase]:
    """The cases of ``root``'s folders (golden/c, or bench/c/kernels: tests/test_c_kernels.py)."""
    cases = []
    for folder in sorted(p for p in root.iterdir() if (p / "case.json").exists()):
        spec = json.loads((folder / "case.json").read_text())
        cases.append(
            CCase(
                folder.name,
                folder,
                spec["func"],
                spec["wrt"],
                [ParamSpec.from_json(p) for p in spec["params"]],
                spec.get("written", []),
                spec.get("rtol", 2e-5),
                spec.get("atol", 2e-6),
                tuple(folder / name for name in spec.get("sources", [])),
                folder / spec["driver"] if "driver" in spec else None,
                spec.get("workspace", False),
            )
        )
    return cases


CASES = load_c_cases()
BY_NAME = {c.name: c for c in CASES}


def _params(cases: list[CCase]) -> list:
    return [pytest.param(c, id=c.name) for c in cases]


@functools.cache
def primal(name: str):
    """The case's function compiled from input.c by gcc, called through ctypes."""
    case = BY_NAME[name]
    return case.signature.primal(build(case.source, case.input_flags, case.sources))


# ------------------------------------------------------------- the cases themselves (run now)


def test_c_primal_golden_cases_load():
    assert len(CASES) >= 30
    assert all((c.folder / "input.c").exists() for c in CASES)
    assert not [c for c in load_cases() if C_GOLDEN in c.folder.parents], "golden/c leaked into the Python cases"
    assert set(STRUCT_CASES) <= set(BY_NAME) and set(PY_CASES) <= set(BY_NAME)
    assert len(PY_CASES) >= 8
    for name in PY_CASES:
        assert all(p.dtype != "f32" for p in BY_NAME[name].params), name


@pytest.mark.parametrize("case", _params(CASES))
def test_c_input_compiles(case):
    compile_c(case.source, case.input_flags, case.sources)  # gcc -std=c99 -Wall -Wextra -Werror: any warning fails


@pytest.mark.parametrize("case", _params(CASES))
def test_c_primal_runs(case):
    """case.json agrees with the C signature, and ``written`` with what the function writes."""
    if case.driver is not None:
        pytest.skip("its driver runs the primal (test_c_gradient_matches_finite_differences)")
    sig = case.signature
    assert [p.name for p in sig.params] == [p.name for p in case.params]
    for c, spec in zip(sig.params, case.params):
        if c.pointer:
            assert spec.kind == "array", c.name
            if c.is_struct:
                assert spec.dtype == "f64" and 8 * int(np.prod(spec.shape)) % ctypes.sizeof(c.ctype) == 0, c.name
            else:
                assert spec.dtype == _DTYPE_OF[c.base], c.name
        elif c.is_float:
            assert spec.kind == "float" and spec.dtype == _DTYPE_OF[c.base], c.name
        else:
            assert spec.kind == "int", c.name
    floats = {c.name for c in sig.params if c.is_float or c.is_struct}
    assert set(case.wrt) <= floats and set(case.written) <= {c.name for c in sig.params if c.pointer}

    run = primal(case.name)
    for seed in range(2):
        rng = np.random.default_rng(seed)
        inputs = [p.sample(rng) for p in case.params]
        first = [v.copy() if isinstance(v, np.ndarray) else v for v in inputs]
        second = [v.copy() if isinstance(v, np.ndarray) else v for v in inputs]
        result = run(*first)
        assert result == run(*second), "the primal is not deterministic"
        if sig.returns_float:
            assert np.isfinite(result)
        for spec, before, after in zip(case.params, inputs, first):
            if spec.kind == "array":
                assert np.all(np.isfinite(after)), spec.name
                changed = not np.array_equal(before, after)
                assert changed == (spec.name in case.written), f"{spec.name}: written is {changed}"


# ------------------------------------------------------------- gradients (need the C front end)


@pytest.mark.parametrize("case", _params(CASES))
def test_c_golden_output(case, request):
    text = case.generate("c")
    assert text == case.generate("c"), "output is not deterministic"
    path = case.folder / "expected.c"
    compare_with_golden(request, path, text)


def _contract_signature(case: CCase) -> list[tuple[str, str, bool]]:
    """grad_<func>'s parameters as (name, base type, pointer), spelled out from the contract."""
    sig = case.signature
    out = []
    for p in sig.params:
        out.append((p.name, p.base, p.pointer))
        if (p.pointer and (p.name in case.wrt or p.name in case.written)) or (p.is_float and p.name in case.wrt):
            out.append((f"d_{p.name}", p.base, True))
    if sig.returns_float:
        out.append(("d_return", sig.result, False))
    return out


@pytest.mark.parametrize("level", LEVELS, ids=lambda lv: f"O{lv}")
@pytest.mark.parametrize("case", _params(CASES))
def test_c_gradient_matches_finite_differences(case, level, tmp_path):
    text = case.generate("c", level)
    if case.driver is not None:
        _run_driver(case, text, tmp_path)
        return
    grad = CSignature.parse(text, f"grad_{case.func}")
    assert grad.result == "void"
    assert [(p.name, p.base, p.pointer) for p in grad.params] == _contract_signature(case)
    # Built with -fsanitize=address,undefined (and -Wall -Wextra -Werror): a gradient that reads
    # or writes out of bounds, uses freed memory, frees twice, leaks or overflows fails here.
    gradient = case.signature.gradient(build_sanitized(text, sources=case.sources), case.wrt, case.written)
    for seed in range(2):
        case.check(gradient, seed)


@pytest.mark.parametrize("case", _params([c for c in CASES if c.driver is not None]))
def test_struct_gradients_under_checkpointing_match_finite_differences(case, tmp_path):
    """Structs kept by checkpoints (doorfuzz seed 17404987: a struct member the loop updates, copied
    element by element into a snapshot, printed as ``&s->scale[k]``; an array of structs with
    integer members rebuilt as plain numbers and passed to a callee that takes the structs)."""
    refused = _REFUSED_UNDER_CHECKPOINTING.get(case.name)
    if refused is not None:  # a snapshot needs the extent of memory s2sad cannot bound
        with pytest.raises(DiagnosticError, match=refused):
            case.generate("c", checkpoint="binomial(3)")
        return
    _run_driver(case, case.generate("c", checkpoint="binomial(3)"), tmp_path)


_REFUSED_UNDER_CHECKPOINTING = {"struct_array_pointer_members_written": "cannot tell the size of array 'vs_data'"}


def _run_driver(case: CCase, gradient: str, tmp_path: Path) -> None:
    """The case's driver, linked with the primal and ``gradient`` under the sanitizers: it exits
    0 when the gradient matches central differences of the primal."""
    (tmp_path / "gradient.c").write_text(gradient)
    exe = tmp_path / "check"
    build_flags = ["-std=c99", "-Wall", "-Wextra", "-Werror", "-g", "-fsanitize=address,undefined",
                   "-fno-sanitize-recover=all", "-I", str(Path(__file__).parent / "c")]
    r = subprocess.run(["gcc", *build_flags, str(case.folder / "input.c"), str(tmp_path / "gradient.c"),
                        str(case.driver), "-o", str(exe), "-lm"], capture_output=True, text=True)
    assert r.returncode == 0, r.stderr
    r = subprocess.run([str(exe)], capture_output=True, text=True)
    assert r.returncode == 0, r.stdout + r.stderr


def test_functions_defined_in_another_file_are_declared_and_refused_in_python():
    """The C output declares the external functions it calls (the caller links them); Python
    output cannot call them, and says so at the call."""
    case = BY_NAME["external_inactive_call"]
    assert case.sources
    text = case.generate("c")
    assert "double weight(int k);" in text and "double scaled_norm(const double *c, int m, double scale);" in text
    with pytest.raises(DiagnosticError) as info:
        case.generate("py")
    (d,) = info.value.diagnostics
    assert d.loc.line == 11 and "'scaled_norm' is a C function defined outside the input" in d.message


# ------------------------------------------------------------- C in, Python out


PY = [BY_NAME[name] for name in PY_CASES]


@pytest.mark.parametrize("case", _params(PY))
def test_c_to_py_golden_output(case, request):
    text = case.generate("py")
    assert text == case.generate("py"), "output is not deterministic"
    path = case.folder / "expected.py"
    compare_with_golden(request, path, text)


@pytest.mark.parametrize("case", _params(PY))
def test_c_to_py_gradient_matches_finite_differences(case):
    namespace: dict = {}
    exec(compile(case.generate("py"), f"<{case.name} py>", "exec"), namespace)
    gradient = namespace[f"grad_{case.func}"]
    for seed in range(2):
        case.check(gradient, seed)


RUFF = shutil.which("ruff") or str(Path(sys.executable).with_name("ruff"))


@pytest.mark.skipif(not Path(RUFF).exists(), reason="ruff is not installed")
@pytest.mark.parametrize("case", _params(PY))
def test_c_to_py_passes_ruff(case):
    r = subprocess.run(
        [RUFF, "check", "--isolated", "--no-cache", "--stdin-filename", f"{case.name}.py", "-"],
        input=case.generate("py"),
        capture_output=True,
        text=True,
    )
    assert r.returncode == 0, r.stdout + r.stderr
