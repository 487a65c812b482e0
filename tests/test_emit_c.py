"""The C emitter: generated C compiled with gcc and run, exact text for small cases, diagnostics.

* Every golden case's gradient (at -O2, -O1 and -O0, so with and without inlined
  helpers) is emitted as C, compiled with ``gcc -std=c99 -Wall -Wextra -Werror``
  (no warning allowed) and ``-fsanitize=address,undefined`` (any memory error, leak
  or undefined behaviour fails: cbuild.build_sanitized), called with the contract's C
  calling convention (shadow pointers, ``double *d_a`` out-parameters for scalar
  adjoints, ``d_return`` last), and checked against central finite differences
  of the Python primal for two random seeds. Its signature is checked against
  the contract, spelled out independently from the case description.
* Cases whose array sizes C cannot tell give the clean diagnostic instead.
* The IR programs of the Python emitter's tests (tests/emit_py_programs.py) are
  compiled too, primal and gradient, and compared with the IR interpreter.
* Output layout: deterministic, ``static`` on every function but the entry,
  standard headers only, lines under 100 characters, 4-space indentation.
"""

from __future__ import annotations

import importlib.util
import re
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest
from hypothesis import HealthCheck, given, reject, settings
from hypothesis import strategies as st

from cbuild import CFunction, Out, build, build_sanitized, have_gcc
from emit_py_programs import GRADIENTS, PROGRAMS
from fd import ParamSpec, check_gradient, written_arrays
from golden_cases import load_cases
from test_properties import loop_programs, straight_line_programs
from s2sad.pipeline import parse_source
from s2sad import pipeline
from s2sad.adjoint.gradient import differentiate
from s2sad.diagnostics import DiagnosticError
from s2sad.emit_c.cexpr import ctype
from s2sad.emit_c.emitter import emit_c
from s2sad.emit_c.names import c_reserved
from s2sad.opt.dce import dce_module
from s2sad.ssa.interp import Interpreter
from s2sad.ssa.ir import Module
from s2sad.ssa.array_ops import is_array_op
from s2sad.ssa.parser import parse_module

pytestmark = pytest.mark.skipif(not have_gcc(), reason="gcc is not installed")

CASES = load_cases()
LEVELS = (2, 1, 0)


def _whole_array(case) -> bool:
    """A case written with whole-array NumPy, which the C target lowers to element loops."""
    module = parse_source(case.source, "input.py", case.func)
    return any(is_array_op(op.name) for fn in module.functions.values() for op in fn.walk())


WHOLE_ARRAY = {c.name for c in CASES if _whole_array(c)}


def _returns_array(case) -> bool:
    """A function that returns an array: its C gradient is refused (tests/test_array_return.py)."""
    result = parse_source(case.source, "input.py", case.func).functions[case.func].result_types
    return bool(result) and result[0].is_array


def _returns_several(case) -> bool:
    """The function differentiated returns several values: C refuses it (tests/test_several_values.py).
    A callee that does writes them through pointers, and is checked here."""
    module = parse_source(case.source, "input.py", case.func)
    return len(module.functions[case.func].result_types) > 1


def _calls_array_helpers(case) -> bool:
    """The function calls a helper that returns an array: C output refuses it, located at the
    helper (``pipeline._refuse_array_helpers``; tested below and in tests/test_helper_instances.py)."""
    return bool(parse_source(case.source, "input.py", case.func).functions[case.func].attrs.get("array_helpers"))


def _leaves_out_parameters(case) -> bool:
    """The case calls the function as Python callers may, leaving out parameters with defaults
    (or keyword-only ones): C has no defaults, and its gradient takes them all
    (tests/test_plain_python.py runs such a C gradient)."""
    fn = parse_source(case.source, "input.py", case.func).functions[case.func]
    return len(case.params) < len(fn.params)


ARRAY_HELPERS = [c for c in CASES if _calls_array_helpers(c) and c.c]  # (C_REFUSED: refused first for another op)
C_CASES = [c for c in CASES
           if not _returns_array(c) and not _returns_several(c) and not _leaves_out_parameters(c) and c.c
           and c not in ARRAY_HELPERS]
C_REFUSED = [c for c in CASES if not c.c]


def _size_symbols(case, text: str = "") -> list[tuple[str, int]]:
    """The shape symbols of the case's annotations that are not parameters, with their values
    in the test data: C takes them as ``long`` parameters before ``d_return``; then the
    extents of unannotated arrays that the generated ``text`` takes (``A_shape1``: A.shape[1])."""
    source = getattr(case, "source", None)
    if source is None:  # the ad-hoc cases of _compile_and_check: no annotations
        return []
    head = re.search(rf"\bgrad_{case.func}\(([^)]*)\)", text)  # the entry's, not a callee gradient's
    taken = re.findall(r"\blong (\w+)_shape(\d+)\b", head.group(1)) if head else []
    arrays = {p.name: p for p in case.params if p.kind == "array"}
    extents = [(f"{a}_shape{k}", arrays[a].shape[int(k)]) for a, k in taken if a in arrays]
    fn = parse_source(source, "input.py", case.func).functions[case.func]
    shapes = fn.attrs.get("shapes") or {}
    names = {p.name for p in case.params}
    out: dict[str, int] = {}
    for p in case.params:
        for sym, extent in zip(shapes.get(p.name) or [], p.shape):
            if isinstance(sym, str) and sym.isidentifier() and sym not in names:
                out.setdefault(sym, extent)
    return list(out.items()) + extents
HEADER = "# Generated by a test.\n# Second line.\n"


def _case(name: str):
    return next(c for c in CASES if c.name == name)


def _grad_module(case, level: int = 2) -> Module:
    return pipeline.gradient_module(case.source, "input.py", case.func, case.wrt, pipeline.Options(level=level))


def _emit_case(case, level: int = 2) -> str:
    return pipeline.emit_source(_grad_module(case, level), "c", f"grad_{case.func}", HEADER)


def _load_primal(case):
    spec = importlib.util.spec_from_file_location(f"c_input_{case.name}", case.folder / "input.py")
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return getattr(mod, case.func)


def _contract_params(case, written: set[str], returns_float: bool, text: str = "") -> list[tuple[str, str]]:
    """The C signature the contract promises, as (type, name) pairs: written out from case.json."""
    out = []
    for p in case.params:
        if p.kind == "array":
            out.append(("long *" if p.dtype == "i64" else "double *", p.name))
            if p.is_float_array and (p.name in case.wrt or p.name in written):
                out.append(("double *", f"d_{p.name}"))
        elif p.kind == "float":
            out.append(("double", p.name))
            if p.name in case.wrt:
                out.append(("double *", f"d_{p.name}"))
        else:
            out.append(("long", p.name))
    out += [("long", sym) for sym, _ in _size_symbols(case, text)]
    if returns_float:
        out.append(("double", "d_return"))
    return out


def _signature(name: str, params: list[tuple[str, str]]) -> str:
    inner = ", ".join(f"{t}{n}" if t.endswith("*") else f"{t} {n}" for t, n in params)
    return f"void {name}({inner}) {{"


def _c_gradient(lib, case, params: list[ParamSpec], written: set[str], returns_float: bool, text: str = ""):
    """``grad_<func>`` from the library, callable the way tests/fd.py calls a Python gradient."""
    types = [t for t, _ in _contract_params(case, written, returns_float, text)]
    fn = CFunction(lib, f"grad_{case.func}", types)
    sizes = _size_symbols(case, text)

    def gradient(*args, d_return=None):
        full, outs = [], []
        it = iter(args)
        for p in params:
            full.append(next(it))
            if p.is_float_array and (p.name in case.wrt or p.name in written):
                full.append(next(it))
            if p.kind == "float" and p.name in case.wrt:
                outs.append(Out(0.0))
                full.append(outs[-1])
        full += [value for _, value in sizes]
        if returns_float:
            full.append(d_return)
        fn(*full)
        values = [o.value for o in outs]
        if not values:
            return None
        return values[0] if len(values) == 1 else tuple(values)

    return gradient


# -- every golden case, compiled and run ------------------------------------------------------


@pytest.mark.parametrize("level", LEVELS, ids=lambda lv: f"O{lv}")
@pytest.mark.parametrize("case", C_CASES, ids=lambda c: c.name)
def test_golden_gradient_compiles_cleanly_and_matches_finite_differences(case, level):
    text = _emit_case(case, level)
    source_module = parse_source(case.source, "input.py", case.func)
    written = written_arrays(source_module, case.func)
    result_types = source_module.functions[case.func].result_types
    returns_float = bool(result_types) and result_types[0].is_float
    expected = _signature(f"grad_{case.func}", _contract_params(case, written, returns_float, text))
    assert expected in " ".join(text.split()), f"signature {expected!r} not in:\n{text}"
    _check_layout(text, f"grad_{case.func}")
    # -fsanitize=address,undefined (with -Werror): memory errors and undefined behaviour fail.
    lib = build_sanitized(text)
    gradient = _c_gradient(lib, case, case.params, written, returns_float, text)
    primal = _load_primal(case)
    for seed in range(2):
        check_gradient(primal, gradient, case.params, case.wrt, written, np.random.default_rng(seed))


@pytest.mark.parametrize("case", C_REFUSED, ids=lambda c: c.name)
def test_golden_cases_c_cannot_express_are_refused_at_their_line(case):
    with pytest.raises(DiagnosticError) as info:
        _emit_case(case, 2)
    diagnostic = info.value.diagnostics[0]
    assert "is not supported for C output yet" in diagnostic.message
    assert diagnostic.loc is not None and diagnostic.loc.line > 1


@pytest.mark.parametrize("case", ARRAY_HELPERS, ids=lambda c: c.name)
@pytest.mark.parametrize("level", [0, 2])
def test_golden_cases_calling_helpers_that_return_arrays_are_refused_at_the_helper(case, level):
    with pytest.raises(DiagnosticError) as info:
        pipeline.gradient_source(case.source, "input.py", case.func, case.wrt, "c", pipeline.Options(level=level))
    diagnostic = info.value.diagnostics[0]
    assert "C output of a helper that returns an array is not supported yet" in diagnostic.message
    assert diagnostic.loc is not None and diagnostic.loc.line > 1


def test_annotated_sizes_make_an_unknown_size_known():
    case = _case("len_and_shape")
    module = _grad_module(case)
    module.functions["grad_f"].attrs["shapes"] = {"x": [5], "A": ["2", "5"]}
    text = emit_c(module, "", "grad_f")
    assert "// Array sizes: x, d_x: [5]; A, d_A: [2][5] (row-major).\n" in text
    assert "d_A[k * 5 + i] += d_s * x[i];" in text
    written = written_arrays(parse_source(case.source, "input.py", case.func), case.func)
    gradient = _c_gradient(build(text), case, case.params, written, True)
    check_gradient(_load_primal(case), gradient, case.params, case.wrt, written, np.random.default_rng(0))


def test_annotations_are_expressions_in_the_integer_parameters():
    source = "def f(x, n):\n    return x[0] * x[n]\n"
    module = pipeline.gradient_module(source, "t.py", "f", ["x"])
    module.functions["grad_f"].attrs["shapes"] = {"x": ["n + 1"]}
    text = emit_c(module, "", "grad_f")
    assert "// Array sizes: x, d_x: [n + 1].\n" in text
    build(text)


# -- the Python emitter's IR programs, primal and gradient ------------------------------------

# Functions C cannot express, with the first words of their diagnostic: an entry point of several
# results (``user`` calls ``two``, which writes its two through pointers).
PROGRAM_DIAGNOSTICS = {
    ("calls", "two"): "function 'two' returns 2 values",
    ("ops", "ops"): "function 'ops' returns 3 values",
}


def _c_types(fn, returned) -> list[str]:
    """C parameter types from the IR: a scalar whose adjoint is returned gets a pointer after it."""
    out = []
    for i, p in enumerate(fn.params):
        out.append(ctype(p.type))
        if returned is not None and i in returned:
            out.append(ctype(p.type) + " *")
    return out


def _run_c_and_interpreter(module: Module, func: str, args: list) -> None:
    """Call ``func`` compiled from ``module`` and interpreted; compare results and arrays."""
    fn = module.functions[func]
    returned = None
    if "returned" in fn.attrs:
        returned = [fn.param_names.index(n) for n in fn.attrs["returned"]]
    names = [n for n in fn.param_names if not re.fullmatch(r"\w+_shape\d+", n)]  # as the args have them
    text = emit_c(module, "", func)
    # Extents C needs and nothing gives become parameters (A_shape1: A.shape[1]), passed here too.
    by_name = dict(zip(names, args))
    args = [by_name[p] if p in by_name else np.shape(by_name[p.rsplit("_shape", 1)[0]])[int(p.rsplit("_shape", 1)[1])]
            for p in fn.param_names]
    if returned is not None:
        returned = [fn.param_names.index(n) for n in fn.attrs["returned"]]
    c_name = func + "_" if c_reserved(func) else func  # a function named `long` is `long_` in C
    _check_layout(text, c_name)
    lib = build(text)
    types = _c_types(fn, returned)
    result = "void" if returned is not None or not fn.result_types else ctype(fn.result_types[0])
    cfn = CFunction(lib, c_name, types, result)
    want_args = [a.copy() if isinstance(a, np.ndarray) else a for a in args]
    got_args = [a.copy() if isinstance(a, np.ndarray) else a for a in args]
    want = Interpreter(module).run(fn, want_args)
    full, outs = [], []
    for i, a in enumerate(got_args):
        full.append(a)
        if returned is not None and i in returned:
            outs.append(Out(0.0))
            full.append(outs[-1])
    got = cfn(*full)
    if returned is not None:
        np.testing.assert_allclose([o.value for o in outs], want, rtol=1e-12, atol=1e-12)
    elif want:
        np.testing.assert_allclose(got, want[0], rtol=1e-12, atol=1e-12)
    for g, w in zip(got_args, want_args):
        if isinstance(w, np.ndarray):
            np.testing.assert_allclose(g, w, rtol=1e-12, atol=1e-12)


def _program_functions():
    return [(p, f) for p in sorted(PROGRAMS) for f in PROGRAMS[p][1]]


@pytest.mark.parametrize("program,func", _program_functions(), ids=lambda x: x)
def test_ir_program_compiles_and_matches_interpreter(program, func):
    module = parse_module(PROGRAMS[program][0])
    if (program, func) in PROGRAM_DIAGNOSTICS:
        with pytest.raises(DiagnosticError) as info:
            emit_c(module, "", func)
        assert info.value.diagnostics[0].message.startswith(PROGRAM_DIAGNOSTICS[(program, func)])
        return
    rng = np.random.default_rng(1)
    for _ in range(2):
        _run_c_and_interpreter(module, func, PROGRAMS[program][1][func](rng))


@pytest.mark.parametrize("program,func,wrt", GRADIENTS, ids=[f"{p}.{f}" for p, f, _ in GRADIENTS])
def test_ir_program_gradient_compiles_and_matches_interpreter(program, func, wrt):
    primal = parse_module(PROGRAMS[program][0])
    grad = differentiate(primal, func, wrt)
    dce_module(grad)
    if (program, func) in PROGRAM_DIAGNOSTICS:
        with pytest.raises(DiagnosticError) as info:
            emit_c(grad, "", f"grad_{func}")
        assert info.value.diagnostics[0].message.startswith(PROGRAM_DIAGNOSTICS[(program, func)])
        return
    rng = np.random.default_rng(2)
    by_name_args = PROGRAMS[program][1][func]
    params = list(grad.functions[f"grad_{func}"].params)  # emit_c may add size parameters
    for _ in range(2):
        args = by_name_args(rng)
        by_name = dict(zip(primal.functions[func].param_names, args))
        full = []
        for p in params:
            if p.name_hint in by_name:
                full.append(by_name[p.name_hint])
            elif p.name_hint == "d_return":
                full.append(float(rng.uniform(0.5, 1.5)))
            else:
                full.append(rng.uniform(-1.0, 1.0, size=np.shape(by_name[p.name_hint[2:]])))
        _run_c_and_interpreter(grad, f"grad_{func}", full)


# -- layout, linkage, determinism ----------------------------------------------------------------

_DEFINITION = re.compile(r"^(static )?[a-z_][a-z0-9_ ]*[ *]([A-Za-z_][A-Za-z0-9_]*)\(", re.M)


def _check_layout(text: str, entry: str) -> None:
    lines = text.splitlines()
    assert not [line for line in lines if len(line) >= 100], "a line of 100 characters or more"
    assert "\t" not in text
    assert text.endswith("}\n")
    for prev, line in zip([""] + lines, lines):
        if line.startswith(" ") and not line.lstrip().startswith("*") and not prev.endswith(","):
            assert (len(line) - len(line.lstrip())) % 4 == 0, line  # (parameter lists align after "(")
        assert line.strip() != "{", "an opening brace on its own line"
    defs = _DEFINITION.findall(text)
    assert defs, text
    for static, name in defs:
        assert (static == "") == (name == entry), f"{name}: static only for non-entry functions"
    includes = re.findall(r"^#include <(.*)>$", text, re.M)
    assert set(includes) <= {"math.h", "stddef.h", "stdio.h", "stdlib.h", "string.h", "stdbool.h"}  # stddef.h: size_t
    assert includes == sorted(includes)


def test_every_function_but_the_entry_is_static():
    text = _emit_case(_case("call_vector_helper"), 0)
    assert "\nstatic double mag(double *x, long n) {\n" in text
    assert "\nstatic void grad_mag(double *x, double *d_x, long n, double d_return) {\n" in text
    assert "\nvoid grad_norm(double *out, double *d_out, double *in_, double *d_in_, long n) {\n" in text
    _check_layout(text, "grad_norm")


@pytest.mark.parametrize("name", ["call_writes_array", "break_in_loop", "tuple_assignment", "several_scalar_wrt"])
@pytest.mark.parametrize("level", LEVELS, ids=lambda lv: f"O{lv}")
def test_emission_is_deterministic(name, level):
    case = _case(name)
    assert _emit_case(case, level) == _emit_case(case, level)


_EMIT = """
import sys
sys.path.insert(0, "tests")
from golden_cases import load_cases
from test_properties import loop_programs, straight_line_programs
from s2sad import pipeline
from s2sad.emit_c.emitter import emit_c
for case in load_cases():
    if case.name in ("call_writes_array", "break_in_loop", "nested_loops_carried", "augmented_assignment"):
        m = pipeline.gradient_module(case.source, "input.py", case.func, case.wrt)
        print(emit_c(m, "", "grad_" + case.func))
"""


def test_emission_does_not_depend_on_hash_seeds():
    root = Path(__file__).resolve().parent.parent
    outs = set()
    for seed in ("1", "2"):
        env = {"PYTHONHASHSEED": seed, "PATH": ""}
        r = subprocess.run([sys.executable, "-c", _EMIT], cwd=root, env=env, capture_output=True, text=True)
        assert r.returncode == 0, r.stderr
        outs.add(r.stdout)
    assert len(outs) == 1


def test_emitting_does_not_change_the_ir():
    from s2sad.ssa.printer import print_module

    for name in ("call_writes_array", "call_scalar_helper", "while_data_dependent"):
        m = _grad_module(_case(name), 0)
        before = print_module(m)
        emit_c(m, HEADER, f"grad_{_case(name).func}")
        assert print_module(m) == before


# -- exact text ------------------------------------------------------------------------------------


def test_dot_product_exact_text():
    assert _emit_case(_case("for_dot_product")) == (
        "/*\n"
        " * Generated by a test.\n"
        " * Second line.\n"
        " */\n"
        "\n"
        "// The gradient of dot, by s2sad's reverse mode.\n"
        "//\n"
        "// It runs dot (its effects on arrays included), then the reverse sweep, for\n"
        "//\n"
        "//     J = d_return * dot(...) + <d_a, a> + <d_b, b>\n"
        "//\n"
        "// with the seeds as passed in and the arrays as dot leaves them, each <,> a sum of\n"
        "// elementwise products. On return, d_a and d_b hold the derivatives of J with\n"
        "// respect to a and b as they were on entry to dot (for an array that dot only\n"
        "// reads, that is the value passed in plus the derivative).\n"
        "//\n"
        "// Array sizes: a, d_a, b, d_b: [n].\n"
        "void grad_dot(double *a, double *d_a, double *b, double *d_b, long n, double d_return) {\n"
        "    // line 3: for i in range(n):\n"
        "    double d_s = d_return;\n"
        "    for (long i = 0; i < n; i++) {\n"
        "        // line 4: s += a[i] * b[i]\n"
        "        d_b[i] += d_s * a[i];\n"
        "        d_a[i] += d_s * b[i];\n"
        "    }\n"
        "}\n"
    )


def test_scalar_adjoints_accumulate_in_a_local_and_callees_add_through_pointers():
    text = _emit_case(_case("call_scalar_helper"), 0)
    assert "static void grad_softplus(double z, double *d_z, double a, double *d_a, double d_return) {" in text
    assert "    *d_z += d_z_local;\n    *d_a += d_a_local;\n}" in text
    assert (
        "    double d_a_local = 0.0;\n"
        "    for (long i = n - 1; i >= 0; i--) {\n"
        "        // line 11: s += softplus(x[i], a)\n"
        "        grad_softplus(x[i], &d_x[i], a, &d_a_local, d_s);\n"
        "    }\n"
        "    *d_a += d_a_local;\n"
    ) in text


def test_index_arithmetic_on_sizes_uses_c_remainder():
    text = _emit_case(_case("index_arithmetic"))
    assert "out[i] = x[(i + 1) % n] - 2.0 * x[i] + x[(i + n - 1) % n];" in text
    assert "long t0 = (i + n - 1) % n;" in text
    assert "mod_l" not in text


def test_strided_loops_and_their_iteration_caches():
    text = _emit_case(_case("for_stride_two"))
    # One trip count sizes the tape and starts the reversed loop (fuzz seed 10104952).
    assert "    long t0 = n / 2;\n    double *tape_s = calloc(1, t0 * sizeof(double));\n" in text
    assert "    for (long i = 1; i < n; i += 2) {\n        tape_s[(i - 1) / 2] = s;\n" in text
    assert "    for (long i = 1 + (t0 - 1) * 2; i >= 1; i -= 2) {\n        s = tape_s[(i - 1) / 2];\n" in text
    assert text.rstrip().endswith("    free(tape_s);\n}")


_STRIDED = """\
double f(const double *x, int n) {
    double s = 0.0;
    for (int i = START; COND; i += STEP) {
        s += x[i] * x[i];
    }
    return s;
}
"""


@pytest.mark.parametrize("step", [2, 3, 4, -2, -3, -4])
@pytest.mark.parametrize("start", [0, 1])
def test_reversed_strided_loops_visit_the_primal_indices_for_every_trip_count(start, step):
    """A constant step's reversed loop starts at a closed form with C's truncating ``/`` (no
    helper) and stops at the primal's start; the loop must visit exactly the primal's indices,
    none when the trip count is zero or negative (n <= start): checked for n in -5..20, in C and
    in Python."""
    if step > 0:
        source = _STRIDED.replace("START", str(start)).replace("COND", "i < n")
        visited = lambda n: list(range(start, n, step))  # noqa: E731
    else:
        source = _STRIDED.replace("START", "n").replace("COND", f"i > {start}")
        visited = lambda n: list(range(n, start, step))  # noqa: E731
    source = source.replace("STEP", str(step))
    c_text = pipeline.gradient_source(source, "strided.c", "f", ["x"], "c")
    py_text = pipeline.gradient_source(source, "strided.c", "f", ["x"], "py")
    assert "floordiv_l" not in c_text, c_text
    c_grad = CFunction(build(c_text), "grad_f", ["double *", "double *", "int", "double"])
    ns: dict = {}
    exec(compile(py_text, "<strided>", "exec"), ns)
    x = np.arange(1.0, 33.0)
    for n in range(-5, 21):
        want = np.zeros(32)
        for i in visited(n):
            want[i] += 2.0 * x[i]
        got_c, got_py = np.zeros(32), np.zeros(32)
        c_grad(x, got_c, n, 1.0)
        ns["grad_f"](x, got_py, n, 1.0)
        np.testing.assert_array_equal(got_c, want, err_msg=f"C, n = {n}\n{c_text}")
        np.testing.assert_array_equal(got_py, want, err_msg=f"Python, n = {n}\n{py_text}")


def test_tapes_that_grow_and_while_loops():
    text = _emit_case(_case("while_data_dependent"))
    assert (
        "        if (tape_a_top == tape_a_cap) {\n"
        "            tape_a_cap = 2 * tape_a_cap + 1;\n"
        "            tape_a = realloc(tape_a, tape_a_cap * sizeof(double));\n"
        "        }\n"
        "        tape_a[tape_a_top++] = a;\n"
    ) in text
    assert "    while (a < 10.0) {\n" in text
    assert "    for (long it = 0; it < n_iter; it++) {\n        k = tape_k[--tape_k_top];\n" in text
    assert "        a = a * x[k % 3] + 0.25;\n        k++;\n" in text
    assert "    *d_a += d_a_local;\n    free(tape_a);\n    free(tape_k);\n}" in text


def test_swaps_compute_the_new_value_first():
    text = _emit_case(_case("tuple_assignment"))
    assert "        double b_next = a + b * x;\n        a = b;\n        b = b_next;\n" in text
    assert "        double d_b_next = d_a + d_b * x;\n        d_a = d_b;\n        d_b = d_b_next;\n" in text


def test_copies_before_calls_and_two_dimensional_indexing():
    text = _emit_case(_case("call_writes_array"))
    # smooth(y, x, n) reads x, which the second call overwrites: copied before the first call;
    # y, which the first call only writes, needs no copy, only memory for its gradient to write.
    assert (
        "    double *x_before_smooth = calloc(1, max_l(n, 2) * sizeof(double));\n"  # x[0], x[1] are read too
        "    memcpy(x_before_smooth, x, max_l(n, 2) * sizeof(double));\n"
    ) in text
    assert "    double *y_for_smooth = malloc(n * sizeof(double));\n" in text
    assert "#include <string.h>\n" in text
    text2 = _emit_case(_case("array_2d_comma_index"))
    # The row length is A's own (A.shape[1]), never the bound m of the loop that indexes it.
    assert "// Array sizes: A, d_A: [n][A_shape1] (row-major); x, d_x: [m]; y, d_y: [n].\n" in text2
    assert "            d_A[i * A_shape1 + j] += d_acc * x[j];\n" in text2


def test_branches_declare_before_and_assign_in_each_branch():
    text = _emit_case(_case("early_return_in_branch"))
    assert "    double d_x_local;\n    double d_y_local;\n    if (x > y) {\n" in text
    assert "        double t = x - y;\n" in text


def test_unused_parameters_are_cast_to_void():
    text = _emit_case(_case("inactive_code"))
    assert "    (void)x;  // not needed by the gradient\n" in text


# -- integer division, helpers, float, bool ------------------------------------------------------


def _compile_and_check(
    source: str, func: str, wrt: list[str], params: list[ParamSpec], level: int = 2, seeds=(0, 1), tol=(2e-5, 2e-6)
) -> str:
    module = pipeline.gradient_module(source, "t.py", func, wrt, pipeline.Options(level=level))
    text = emit_c(module, "", f"grad_{func}")
    src_module = parse_source(source, "t.py", func)
    written = written_arrays(src_module, func)
    returns_float = bool(src_module.functions[func].result_types)

    class _Case:
        pass

    case = _Case()
    case.func, case.wrt, case.params = func, wrt, params
    gradient = _c_gradient(build_sanitized(text), case, params, written, returns_float)
    ns: dict = {}
    exec(compile(source, "t.py", "exec"), ns)
    for seed in seeds:
        check_gradient(ns[func], gradient, params, wrt, written, np.random.default_rng(seed), rtol=tol[0], atol=tol[1])
    return text


def test_floored_division_of_values_that_may_be_negative_uses_helpers():
    source = (
        "def f(x, k, n):\n"
        "    s = 0.0\n"
        "    for i in range(n):\n"
        "        s += x[(i - k) % n] * ((i - k) // 2)\n"
        "    return s\n"
    )
    params = [ParamSpec("x", "array", (6,)), ParamSpec("k", "int", value=3), ParamSpec("n", "int", value=6)]
    text = _compile_and_check(source, "f", ["x"], params)
    assert "static long mod_l(long a, long b) {" in text
    assert "static long floordiv_l(long a, long b) {" in text
    assert "mod_l(i - k, n)" in text and "floordiv_l(i - k, 2)" in text


def test_float_floor_division_and_remainder_follow_python():
    source = "import math\n\ndef f(x, y):\n    return (x // y) * y + math.sin(x % y)\n"
    params = [ParamSpec("x", "float", low=-3.0, high=3.0), ParamSpec("y", "float", low=0.5, high=1.5)]
    text = _compile_and_check(source, "f", ["x", "y"], params)
    assert "floor(x / y)" in text and "mod_d(x, y)" in text


def test_float32_code_stays_float():
    text_ir = """
    module "f.py"
    func @f(%x: array<f32,1>, %a: f32, %n: i64) -> f32 {
      %c0 = const() {value = 0} : i64
      %c1 = const() {value = 1} : i64
      %z = const() {value = 0.5} : f32
      %s = for(%c0, %n, %c1, %z) : f32 {
      ^(%i: i64, %s.1: f32):
        %0 = load(%x, %i) : f32
        %1 = math.sin(%0) : f32
        %2 = mul(%1, %a) : f32
        %3 = cast(%i) : f32
        %4 = mul(%2, %3) : f32
        %s.2 = add(%s.1, %4) : f32
        yield(%s.2)
      }
      return(%s)
    }
    """
    module = parse_module(text_ir)
    text = emit_c(module, "", "f")
    assert "static" not in text
    assert "float f(float *x, float a, long n) {" in text
    assert "float s = 0.5f;" in text and "sinf(x[i]) * a * i" in text
    lib = build(text)
    fn = CFunction(lib, "f", ["float *", "float", "long"], "float")
    x = np.linspace(-1, 1, 5).astype(np.float32)
    want = Interpreter(module).run(module.functions["f"], [x.copy(), np.float32(0.75), 5])[0]
    np.testing.assert_allclose(fn(x, 0.75, 5), want, rtol=1e-6)


def test_local_arrays_of_constant_size_live_on_the_stack():
    source = (
        "import numpy as np\n\n"
        "def f(x, n):\n"
        "    acc = np.zeros(3)\n"
        "    for i in range(n):\n"
        "        acc[i % 3] += x[i] * x[i]\n"
        "    return acc[0] * acc[1] + acc[2]\n"
    )
    params = [ParamSpec("x", "array", (7,)), ParamSpec("n", "int", value=7)]
    text = _compile_and_check(source, "f", ["x"], params)
    assert "double acc[3] = {0};" in text
    assert "double d_acc[3] = {0};" in text
    assert "free(" not in text


def test_keyword_names_get_an_underscore():
    source = "def f(double, int_):\n    return double * int_\n"
    params = [ParamSpec("double", "float"), ParamSpec("int_", "float")]
    module = pipeline.gradient_module(source, "t.py", "f", ["double"])
    text = emit_c(module, "", "grad_f")
    assert "void grad_f(double double_, double *d_double, double int_, double d_return) {" in text
    assert "    double d_double_local = d_return * int_;\n    *d_double += d_double_local;\n" in text
    build(text)
    del params


def test_header_becomes_a_block_comment_and_includes_follow():
    text = _emit_case(_case("call_vector_helper"), 0)
    assert text.startswith("/*\n * Generated by a test.\n * Second line.\n */\n\n#include <math.h>\n")
    includes = text[: text.index("\n\nstatic double mag(")].split("*/\n\n")[1]
    assert includes.splitlines() == [f"#include <{h}>" for h in sorted(re.findall(r"<(.*)>", includes))]
    assert text.endswith("}\n") and not text.endswith("\n\n")


# -- random programs (the property tests' grammar), compiled ---------------------------------------

PROPERTY_SETTINGS = settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.too_slow])


@PROPERTY_SETTINGS
@given(straight_line_programs(), st.integers(0, 2**16), st.sampled_from(LEVELS))
def test_random_straight_line_gradients_in_c_match_finite_differences(source, seed, level):
    params = [ParamSpec("a", "float", low=-1.0, high=1.0), ParamSpec("b", "float", low=-1.0, high=1.0)]
    _check_random(source, ["a", "b"], params, level, seed)


@PROPERTY_SETTINGS
@given(loop_programs(), st.integers(0, 2**16), st.sampled_from(LEVELS))
def test_random_loop_gradients_in_c_match_finite_differences(source, seed, level):
    params = [
        ParamSpec("x", "array", shape=(5,)),
        ParamSpec("y", "array", shape=(5,)),
        ParamSpec("a", "float", low=-1.0, high=1.0),
        ParamSpec("n", "int", value=5),
    ]
    _check_random(source, ["x", "a"], params, level, seed)


def _check_random(source: str, wrt: list[str], params: list[ParamSpec], level: int, seed: int) -> None:
    ns: dict = {}
    exec(compile(source, "prog.py", "exec"), ns)
    rng = np.random.default_rng(seed)  # the values check_gradient draws from this seed
    try:
        with np.errstate(all="raise"):
            result = ns["f"](*[p.sample(rng) for p in params])
    except (OverflowError, ZeroDivisionError, ValueError, FloatingPointError):
        reject()  # the grammar can draw programs whose primal overflows: nothing to check
    if not abs(result) < 1e4:
        reject()  # s = s * s + 0.5 five times: central differences lose their digits there
    try:
        _compile_and_check(source, "f", wrt, params, level, seeds=(seed,), tol=(1e-4, 1e-5))
    except (OverflowError, ZeroDivisionError, FloatingPointError):
        reject()  # a finite-difference step pushed the primal over the edge


def test_an_or_broken_over_lines_keeps_the_parentheses_around_its_and():
    """Fuzz seed 9301586: `a || b && c` printed whole gets its parentheses (gcc -Wparentheses,
    part of -Wall); broken over lines, the `&&` part was printed at the `||` chain's precedence,
    without them. Each part of a broken chain of one operator now keeps them around the other."""
    from s2sad.emit_c.cexpr import CPrinter
    from s2sad.emit_c.render import CRenderer
    from s2sad.emit.expr import BinOp, BoolOp, Compare, Name

    def test(k: int) -> Compare:
        product = BinOp("*", Name(f"a_rather_long_variable_{k}"), Name("another_long_name"))
        return Compare(">", product, Name(f"bound_{k}"))

    e = BoolOp("or", test(1), BoolOp("and", test(2), test(3)))
    lines = CRenderer(CPrinter(), {}).fit("    ", "if (", e, ") {")
    assert len(lines) > 1, lines
    text = "\n".join(lines)
    assert "|| (a_rather_long_variable_2 * another_long_name > bound_2" in text, text
    assert text.rstrip().endswith("bound_3)) {"), text
    whole = CPrinter()(e)
    assert "|| (a_rather_long_variable_2" in whole and whole.endswith("bound_3)")


@pytest.mark.skipif(not have_gcc(), reason="gcc is not installed")
def test_a_negative_array_length_stops_the_c_gradient_with_a_message(tmp_path: Path):
    """Python input's lengths (x: "f64[n]") are checked at the C gradient's entry (README:
    assumptions and their guards); a length of 0 runs."""
    src = ('def f(x: "f64[n]", n: int) -> float:\n    s = 0.0\n    for i in range(n):\n        s += x[i] * x[i]\n'
           "    return s\n")
    text = pipeline.gradient_source(src, "t.py", "f", ["x"], "c")
    assert "if (n < 0) {" in text and "abort();" in text
    main = text + ("\nint main(int argc, char **argv) {\n    (void)argv;\n    double x[1] = {2.0}, d_x[1] = {0.0};\n"
                   "    grad_f(x, d_x, argc > 1 ? -1 : 0, 1.0);\n    return d_x[0] == 0.0 ? 0 : 1;\n}\n")
    (tmp_path / "g.c").write_text(main)
    exe = tmp_path / "g"
    r = subprocess.run(["gcc", "-std=c99", "-Wall", "-Wextra", "-Werror", "-O2", str(tmp_path / "g.c"), "-o", str(exe),
                        "-lm"], capture_output=True, text=True)
    assert r.returncode == 0, r.stderr
    assert subprocess.run([str(exe)], capture_output=True, text=True).returncode == 0
    bad = subprocess.run([str(exe), "negative"], capture_output=True, text=True)
    assert bad.returncode != 0
    assert "grad_f: n is an array length and cannot be negative" in bad.stderr
