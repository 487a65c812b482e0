"""The command line, end to end: the README's example, exit codes, error messages, files.

Each run is a real ``python -m s2sad`` subprocess, as a user would type it: bad
input must give a compiler-style message (file:line:col, the source line, a
caret, a hint), exit status 1 and no output file; bad command-line use exits 2;
nothing ever prints a Python traceback.
"""

from __future__ import annotations

import importlib.util
import re
import shutil
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest
from fd import ParamSpec, check_gradient

ROOT = Path(__file__).resolve().parent.parent


def s2sad(*args: str, cwd: Path = ROOT) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "s2sad", *args], cwd=cwd, capture_output=True, text=True)


def _load(path: Path, name: str):
    spec = importlib.util.spec_from_file_location(name, path)
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod


def test_readme_quick_start_example(tmp_path):
    out = tmp_path / "grad_norm.py"
    r = s2sad("grad", "examples/norm.py", "--wrt", "in", "-o", str(out))
    assert r.returncode == 0, r.stderr
    assert r.stdout == ""
    assert out.stat().st_mode & 0o044, "the output file must be readable like any file the user writes"
    text = out.read_text()
    assert "def grad_norm(out, d_out, in_, d_in_, n):" in text
    assert "def grad_mag(" in text
    assert not re.search(r"^\s*(import|from)\s+s2sad", text, re.M), "the output must not import s2sad"
    grad = _load(out, "quick_start_grad_norm").grad_norm
    primal = _load(ROOT / "examples" / "norm.py", "quick_start_norm").norm
    params = [
        ParamSpec("out", "array", shape=(5,)),
        ParamSpec("in_", "array", shape=(5,)),
        ParamSpec("n", "int", value=5),
    ]
    check_gradient(primal, grad, params, ["in"], {"out"}, np.random.default_rng(0))


def test_readme_shows_the_generated_gradient(tmp_path):
    r = s2sad("grad", "examples/norm.py", "--wrt", "in")
    assert r.returncode == 0, r.stderr
    body = r.stdout.split("\n\n", 1)[1]  # the README shows the code below the header
    assert body.strip() in (ROOT / "README.md").read_text(), "README's norm example is out of date"


def test_output_is_deterministic(tmp_path):
    a = s2sad("grad", "examples/norm.py", "--wrt", "in", "--target", "numba")
    b = s2sad("grad", "examples/norm.py", "--wrt", "in", "--target", "numba")
    assert a.returncode == 0 and a.stdout == b.stdout
    assert "@numba.njit" in a.stdout


def test_target_from_output_suffix_and_stdout_dash(tmp_path):
    r = s2sad("grad", "examples/norm.py", "--wrt", "in", "-o", "-")
    assert r.returncode == 0 and "def grad_norm" in r.stdout


@pytest.mark.skipif(shutil.which("gcc") is None, reason="gcc is not installed")
def test_c_target_from_suffix_compiles_without_warnings(tmp_path):
    out = tmp_path / "grad_norm.c"
    r = s2sad("grad", "examples/norm.py", "--wrt", "in", "-o", str(out))
    assert r.returncode == 0, r.stderr
    text = out.read_text()
    assert "void grad_norm(double *out, double *d_out, double *in_, double *d_in_, long n)" in text
    assert "static void grad_mag(" in text
    cc = subprocess.run(
        ["gcc", "-std=c99", "-Wall", "-Wextra", "-Werror", "-c", str(out), "-o", str(tmp_path / "g.o")],
        capture_output=True,
        text=True,
    )
    assert cc.returncode == 0, cc.stderr


def test_ir_subcommand_prints_the_ir():
    r = s2sad("ir", "examples/norm.py", "--func", "norm")
    assert r.returncode == 0, r.stderr
    assert "func @norm(" in r.stdout and "func @mag(" in r.stdout


ERRORS = {
    "call_unknown": (
        "def helper(x):\n    return x\n\n\ndef f(x, n):\n    s = 0.0\n    for i in range(n):\n"
        "        s += x[i] / foo(x)\n    return s\n",
        ["x"],
        "8:21",
        "cannot differentiate through call to 'foo': its source is not in",
    ),
    "class_use": ("class A:\n    pass\n\n\ndef f(x):\n    a = A()\n    return x\n", ["x"], "6:9", "A"),
    "generator": ("def f(x):\n    yield x\n", ["x"], "2:5", "yield"),
    "try": (
        "def f(x):\n    try:\n        y = x\n    except ValueError:\n        y = 0.0\n    return y\n",
        ["x"],
        "2:5",
        "try",
    ),
    "lambda": ("def f(x):\n    return (lambda t: t * t)(x)\n", ["x"], "2:13", "lambda"),  # one bound to a name works
    "syntax": ("def f(x):\n    return x +\n", ["x"], "2:", "syntax"),
}


@pytest.mark.parametrize("name", sorted(ERRORS))
def test_unsupported_input_gives_one_located_error(name, tmp_path):
    source, wrt, where, fragment = ERRORS[name]
    src = tmp_path / f"{name}.py"
    src.write_text(source)
    out = tmp_path / "out.py"
    r = s2sad("grad", str(src), "--func", "f", "--wrt", ",".join(wrt), "-o", str(out))
    assert r.returncode == 1, r.stderr
    assert "Traceback" not in r.stderr
    assert f"{name}.py:{where}" in r.stderr
    assert ": error: " in r.stderr and fragment.lower() in r.stderr.lower()
    assert "^" in r.stderr and "hint: " in r.stderr
    assert not out.exists()
    assert list(tmp_path.iterdir()) == [src], "no temporary file may be left behind"


@pytest.mark.parametrize(
    "args, status, fragment",
    [
        (["grad", "examples/norm.py", "--wrt", "n"], 1, "integer"),
        (["grad", "examples/norm.py", "--wrt", "nope"], 1, "has no parameter 'nope'"),
        (["grad", "examples/norm.py", "--func", "nope", "--wrt", "x"], 1, "nope"),
        (["grad", "examples/missing.py", "--wrt", "x"], 2, "no such file"),
        (["grad", "examples/norm.py"], 2, "--wrt"),
        (["grad", "examples/norm.py", "--wrt", "in", "--target", "fortran"], 2, "fortran"),
        (["grad", "examples/norm.py", "--wrt", "in", "-o", "examples/norm.py"], 2, "overwrite the input"),
        (["grad", "examples/norm.py", "--wrt", "in", "-o", "no/such/dir/g.py"], 2, "does not exist"),
        (["grad", "examples/norm.py", "--wrt", "in", "-I", "examples"], 2, "-I, -D and -U apply to C and CUDA input"),
        (["ir", "golden/c/define_constants/input.c", "-D", "1N=3"], 2, "-D 1N=3: '1N' is not a macro name"),
        (["grad", "golden/c/define_constants/input.c", "--wrt", "x", "-UA=1"], 2, "-U A=1: not a macro name"),
        (["grad", "examples/norm.py", "--wrt", "in", "-o", "examples"], 2, "examples: is a directory"),
        # An option the subcommand does not know: that subcommand's usage, not the top level's.
        (["grad", "examples/norm.py", "--wrt", "in", "--bogus"], 2, "usage: s2sad grad"),
        (["check", "examples/norm.py", "--wrt", "in", "--all-atomic"], 2, "usage: s2sad check"),
        # Contradictory options.
        (["grad", "examples/norm.py", "--wrt", "in", "--all-atomic"], 2, "--all-atomic applies to CUDA output"),
        (["grad", "examples/norm.py", "--wrt", "in", "-O2", "--passes", "cse"], 2,
         "-O2 and --passes both choose the passes: give one of them"),
        (["ir", "examples/norm.py", "-O0", "--passes", "cse"], 2, "-O0 and --passes both choose the passes"),
        (["grad", "examples/norm.py", "--wrt", "in,n,in"], 2, "--wrt: 'in' is listed twice"),
        (["grad", "examples/norm.py", "--wrt", "in", "--derivatives", "examples/nope.py"], 2,
         "--derivatives examples/nope.py: no such file"),
    ],
)
def test_bad_use_exit_codes(args, status, fragment):
    r = s2sad(*args)
    assert r.returncode == status, (r.stdout, r.stderr)
    assert fragment in r.stderr
    assert "Traceback" not in r.stderr


def test_help_lists_subcommands():
    r = s2sad("--help")
    assert r.returncode == 0 and "grad" in r.stdout and "ir" in r.stdout


def test_help_lists_the_passes_as_the_readme_says():
    from s2sad.opt.passes import PASSES

    assert "`s2sad --help` lists them" in (ROOT / "README.md").read_text()
    listed = " ".join(s2sad("--help").stdout.split())
    assert f"optimization passes (--passes LIST, in order): {', '.join(sorted(PASSES))}." in listed


@pytest.mark.parametrize("command", ["grad", "ir", "check"])
def test_each_commands_help_names_every_pass_whole(command):
    # (argparse broke accum-modes-gpu at a hyphen in the commands' help, not in the top level's)
    from s2sad.opt.passes import PASSES

    words = {w.strip(",.);") for w in s2sad(command, "--help").stdout.split()}
    assert set(PASSES) <= words


# -- C headers and macros from the command line: -I, -D, -U as gcc takes them --------------------

C_PROJECT = {
    "src/dot.c": '#include <math.h>\n#include "vec.h"\n\nreal dot(const real *x, const real *y) {\n'
                 "    real s = 0;\n    for (int i = 0; i < LEN; i++)\n        s += SCALE(x[i]) * y[i];\n"
                 "    return s;\n}\n",
    "include/vec.h": "#ifndef VEC_H\n#define VEC_H\ntypedef double real;\n#ifndef LEN\n#define LEN 4\n#endif\n"
                     "#ifdef DOUBLED\n#define SCALE(v) (2.0 * (v))\n#else\n#define SCALE(v) (v)\n#endif\n#endif\n",
}


def _project(tmp_path: Path) -> Path:
    for name, text in C_PROJECT.items():
        (tmp_path / name).parent.mkdir(parents=True, exist_ok=True)
        (tmp_path / name).write_text(text)
    return tmp_path / "src" / "dot.c"


def test_a_header_outside_the_files_folder_needs_its_include_path(tmp_path):
    src = _project(tmp_path)
    out = tmp_path / "grad_dot.c"
    r = s2sad("grad", str(src), "--wrt", "x", "-o", str(out))
    assert r.returncode == 1 and not out.exists()
    assert r.stderr == (f'{src}:2:10: error: cannot find "vec.h"\n    #include "vec.h"\n             ^~~~~~~\n'
                        f"hint: looked in {src.parent} (beside dot.c); add -I DIR for the directory that "
                        "holds it\n")
    for flags in (["-I", str(tmp_path / "include")], [f"-I{tmp_path / 'include'}"], ["-I", "include"]):
        r = s2sad("grad", str(src), "--wrt", "x", "-o", str(out), *flags, cwd=tmp_path)
        assert r.returncode == 0, r.stderr
        text = out.read_text()
        assert "typedef double real;" in text and "void grad_dot(const real *x, real *d_x, const real *y" in text
        assert "for (long i = 0; i < LEN; i++)" in text and "#define LEN 4" in text
        assert not [line for line in text.split("\n") if line.startswith('#include "')]


def test_macros_from_the_command_line_change_what_is_read(tmp_path):
    src = _project(tmp_path)
    base = ["grad", str(src), "--wrt", "x", "-I", str(tmp_path / "include")]
    r = s2sad(*base, "-D", "LEN=3", "-DDOUBLED", "-D", "X", "-UX")
    assert r.returncode == 0, r.stderr
    assert "#define LEN 3" in r.stdout and "d_x[i] += d_s * y[i] * 2.0;" in r.stdout
    assert f"--target c -I {tmp_path / 'include'} -D LEN=3 -D DOUBLED -D X -U X\n" in r.stdout  # to regenerate
    r = s2sad(*base, "-DDOUBLED", "-UDOUBLED")
    assert r.returncode == 0 and "d_x[i] += d_s * y[i];" in r.stdout
    r = s2sad("ir", str(src), "-I", str(tmp_path / "include"), "-D", "LEN=2")
    assert r.returncode == 0 and "func @dot(" in r.stdout


@pytest.mark.skipif(shutil.which("gcc") is None, reason="gcc is not installed")
def test_the_gradient_of_a_file_with_headers_compiles_on_its_own(tmp_path):
    src = _project(tmp_path)
    out = tmp_path / "elsewhere" / "grad_dot.c"
    out.parent.mkdir()
    r = s2sad("grad", str(src), "--wrt", "x,y", "-o", str(out), "-I", str(tmp_path / "include"), "-DDOUBLED")
    assert r.returncode == 0, r.stderr
    cc = subprocess.run(["gcc", "-std=c99", "-Wall", "-Wextra", "-Werror", "-c", str(out), "-o",
                         str(tmp_path / "g.o")], capture_output=True, text=True)
    assert cc.returncode == 0, cc.stderr


def test_a_location_names_the_file_as_the_command_line_did(tmp_path):
    """As gcc does, so that editors and CI logs can open the place: ``sub/bad.py:2:12``, and a
    local header beside the input the same way, ``sub/h.h:1:30``."""
    (tmp_path / "sub").mkdir()
    (tmp_path / "sub" / "bad.py").write_text("def f(x):\n    return y * x\n")
    r = s2sad("grad", "sub/bad.py", "--wrt", "x", cwd=tmp_path)
    assert r.returncode == 1 and r.stderr.startswith("sub/bad.py:2:12: error: name 'y' is not defined"), r.stderr
    r = s2sad("grad", str(tmp_path / "sub" / "bad.py"), "--wrt", "x", cwd=tmp_path / "sub")
    assert r.stderr.startswith(f"{tmp_path / 'sub' / 'bad.py'}:2:12: error:"), r.stderr
    (tmp_path / "sub" / "h.h").write_text("double g(double *x) { return y; }\n")
    (tmp_path / "sub" / "inc.c").write_text('#include "h.h"\ndouble f(double *x) {\n    return g(x);\n}\n')
    r = s2sad("grad", "sub/inc.c", "--func", "f", "--wrt", "x", cwd=tmp_path)
    assert r.returncode == 1 and r.stderr.startswith("sub/h.h:1:30: error: 'y' is not declared"), r.stderr


BISECTION = """\
def bisect_root(a, c, lo=0.0, hi=2.0):
    for _ in range(60):
        mid = 0.5 * (lo + hi)
        if mid * mid - a > 0:
            hi = mid
        else:
            lo = mid
    return 0.5 * (lo + hi) * c
"""


def test_a_parameter_reaching_the_result_only_through_branches_is_noted(tmp_path):
    """The gradient of a bisection with respect to what it searches for is 0 (the function is
    piecewise constant), which s2sad printed without a word; it says so now, on stderr, and the
    gradient is written as before. A parameter with arithmetic to the result gets no note."""
    (tmp_path / "b.py").write_text(BISECTION)
    r = s2sad("grad", str(tmp_path / "b.py"), "--wrt", "a,c", "-o", str(tmp_path / "g.py"))
    assert r.returncode == 0, r.stderr
    assert r.stderr.strip() == ("s2sad: note: 'bisect_root' depends on 'a' only through comparisons, branches or "
                                "integers, never through arithmetic: its adjoint is 0"), r.stderr
    assert (tmp_path / "g.py").exists()
