"""The front-door fuzzer (tests/doorfuzz) in CI.

A fixed-seed slice of the campaign (mutated golden inputs, pathological files, bad command
lines; each case one ``python -m s2sad`` run) must find nothing: no traceback, no internal
error, no error without its location, no hang, no crash, no partial file, no FIFO, device or
link replaced. The other tests make sure that each of those checks fires: on crafted outcomes,
and through the real runner on a fake ``s2sad`` that misbehaves in each way, so that the slice
cannot pass because a check looks at nothing. ``scripts/doorfuzz`` runs the same code for as
long as asked.
"""

from __future__ import annotations

import os
import textwrap
from pathlib import Path

import pytest

from doorfuzz import driver
from doorfuzz.case import Case, Entry, file
from doorfuzz.classify import CLASSES, classify, located_problem, syntax_problem
from doorfuzz.run import Output, Result, run_case

# The CI slice: cases SLICE_SEED .. SLICE_SEED + SLICE_COUNT - 1, less the seeds that wait on a
# known s2sad bug (KNOWN_BUGS: seed -> the bug; remove an entry once its bug is fixed).
SLICE_SEED = 0
SLICE_COUNT = 80
KNOWN_BUGS: dict[int, str] = {
    37: "slow: a __device__ function of 3,005 statements takes some 40 s (emit/outofssa.py: naming is still "
        "quadratic where many values of one name are live at once)",
}
SLICE_SEEDS = [s for s in range(SLICE_SEED, SLICE_SEED + SLICE_COUNT) if s not in KNOWN_BUGS]


def test_fixed_seed_slice_finds_nothing():
    outcome = driver.run(None, None, SLICE_SEED, jobs=2, timeout=60.0, seeds=SLICE_SEEDS)
    assert outcome.cases == len(SLICE_SEEDS)
    found = [driver.describe_failure(f) + "\n    stderr: " + f.result.stderr.decode("utf-8", "replace")[:600]
             for f in outcome.failures]
    assert not found, outcome.summary() + "\n\n" + "\n\n".join(found)
    assert all(n == 0 for n in outcome.counts.values()), outcome.summary()
    # Not vacuous: every family ran, and the runs succeeded, were refused as bad input and as
    # bad command lines.
    assert set(outcome.families) == set(driver.FAMILIES), outcome.spread()
    assert all(outcome.exits.get(code, 0) >= 3 for code in (0, 1, 2)), outcome.spread()


def test_cases_are_drawn_by_seed():
    for seed in (0, 7, 12345):
        assert driver.draw(seed).to_json() == driver.draw(seed).to_json()
        assert Case.from_json(driver.draw(seed).to_json()) == driver.draw(seed)
    assert driver.draw(1).to_json() != driver.draw(2).to_json()
    assert {driver.draw(s, ["patho"]).family for s in range(20)} == {"patho"}


# -- the checks, on crafted outcomes ------------------------------------------------------------


def outcome(code, stderr: str = "", stdout: bytes = b"", before=None, after=None, **kw) -> Result:
    case = Case(0, "cmdline", "crafted", [file("f.py", "def f(x):\n    return x\n")], ["grad", "f.py", "--wrt", "x"])
    before = before if before is not None else {"case": ("dir", ""), "case/f.py": ("file", "1")}
    return Result(case, code, stdout, stderr.encode(), 1.0, before, after if after is not None else dict(before), **kw)


def classes(r: Result) -> set[str]:
    return {c for c, _ in classify(r)}


LOCATED = "f.py:2:12: error: cannot differentiate 'g'\n    return g(x)\n           ^~~~\nhint: define g\n"


def test_clean_outcomes_are_fine():
    assert classes(outcome(1, LOCATED)) == set()
    assert classes(outcome(1, "s2sad: error: cannot write /dev/full: No space left on device\n")) == set()
    assert classes(outcome(2, "usage: s2sad grad [-h] ...\ns2sad grad: error: the following arguments are "
                              "required: --wrt\n")) == set()
    assert classes(outcome(2, "s2sad: error: --checkpoint: nope\n")) == set()
    good = Output("stdout", "py", b"def grad_f(x, d_return=1.0):\n    return d_return\n")
    assert classes(outcome(0, stdout=good.text, outputs=[good], gradient=True)) == set()


def test_a_traceback_is_found():
    r = outcome(1, "Traceback (most recent call last):\n  File \"x.py\", line 1, in <module>\nValueError: bad\n")
    assert "traceback" in classes(r)
    assert "traceback" in classes(outcome(0, "Exception ignored in: <_io.TextIOWrapper name='<stdout>'>\n"
                                             "BrokenPipeError: [Errno 32] Broken pipe\n"))


def test_an_internal_error_is_found():
    r = outcome(1, "s2sad: internal error: KeyError: 'x'\nhint: this is a bug in s2sad\n")
    assert "internal error" in classes(r)


@pytest.mark.parametrize("stderr", [
    "",
    "error: something went wrong\n",
    "f.py:2:12: error: cannot differentiate 'g'\nhint: define g\n",  # no source line, no caret
    "f.py: error: bad\n    return g(x)\n           ^\n",
    "warning: odd\nf.py:2:12: error: x\n    return g(x)\n           ^\n",
    LOCATED + "f.py:9:1: error: a second one without its caret\n",
])
def test_an_error_without_its_location_is_found(stderr):
    assert located_problem(stderr) is not None
    assert classes(outcome(1, stderr)) == {"unlocated error"}


def test_a_usage_error_without_its_message_is_found():
    assert classes(outcome(2, "something is wrong\n")) == {"unlocated error"}


def test_a_hang_and_a_crash_are_found():
    assert classes(outcome(None)) == {"hang"}
    assert classes(outcome(-11)) == {"crash"}
    assert "killed by SIGSEGV" in classify(outcome(-11))[0][1]
    assert classes(outcome(120)) == {"crash"}


def test_files_left_behind_are_found():
    before = {"case": ("dir", ""), "case/f.py": ("file", "1"), "case/old.py": ("file", "2")}
    tmp = dict(before, **{"case/.out.py.k2j3h4.tmp": ("file", "3")})
    assert classes(outcome(1, LOCATED, before=before, after=tmp)) == {"partial file"}
    assert classes(outcome(2, "s2sad: error: x\n", before=before, after=tmp)) == {"partial file"}
    changed = dict(before, **{"case/old.py": ("file", "9")})
    assert classes(outcome(1, LOCATED, before=before, after=changed)) == {"partial file"}
    assert classes(outcome(1, LOCATED, stdout=b"def grad_f(x")) == {"partial file"}
    assert classes(outcome(1, LOCATED, drained={"pipe.py": b"def grad_"})) == {"partial file"}
    # After exit 0, only the output may be new.
    out = dict(before, **{"case/out.py": ("file", "4")})
    good = Output("case/out.py", "py", b"def grad_f(x):\n    return 1.0\n")
    assert classes(outcome(0, before=before, after=out, outputs=[good], expected_output="case/out.py",
                           gradient=True)) == set()
    assert classes(outcome(0, before=before, after=dict(out, **tmp), outputs=[good],
                           expected_output="case/out.py", gradient=True)) == {"partial file"}
    assert classes(outcome(0, before=before, after=dict(out, **changed), outputs=[good],
                           expected_output="case/out.py", gradient=True)) == {"partial file"}
    assert classes(outcome(0, expected_output="case/f.py", input_path="case/f.py", gradient=True)) == {"partial file"}


@pytest.mark.parametrize("output", [
    Output("stdout", "py", b""),
    Output("stdout", "py", b"def grad_f(x):\n    return (x\n"),
    Output("stdout", "numba", b"import numba\n\n@numba.njit\ndef grad_f(x:\n"),
    Output("case/out.py", "py", b"def f(x):\n    return x\n"),  # complete Python, but no gradient
    Output("stdout", "c", b"void grad_f(double x, double *d_x) {\n    *d_x += 1.0;\n"),
    Output("stdout", "c", b"\xff\xfe"),
    Output("stdout", "cuda", b"__global__ void grad_k(double *x, double *d_x) {\n    d_x[threadIdx.x] += ;\n}\n"),
])
def test_an_incomplete_gradient_is_found(output):
    assert syntax_problem(output) is not None
    assert classes(outcome(0, stdout=output.text, outputs=[output], gradient=True)) == {"partial file"}


@pytest.mark.parametrize("output", [
    Output("stdout", "c", b"#include <math.h>\nvoid grad_f(double x, double *d_x) {\n    *d_x += cos(x);\n}\n"),
    Output("stdout", "cuda", b"__global__ void grad_k(double *x, double *d_x) {\n    d_x[threadIdx.x] += 1.0;\n}\n"),
])
def test_a_complete_gradient_compiles(output):
    assert syntax_problem(output) is None


@pytest.mark.parametrize("before, after", [
    (("symlink", "real.py"), ("file", "5")),  # a link replaced by the file
    (("symlink", "real.py"), ("symlink", "other.py")),
    (("fifo", ""), ("file", "5")),
    (("chardev", "1,3"), ("file", "5")),
    (("dir", ""), ("missing", "")),
])
def test_a_non_regular_file_touched_is_found(before, after):
    b = {"case": ("dir", ""), "case/f.py": ("file", "1"), "case/x.py": before}
    assert classes(outcome(0, before=b, after=dict(b, **{"case/x.py": after}))) == {"non-regular file touched"}
    watched = {"/dev/null": ("chardev", "1,3")}
    assert classes(outcome(0, before=watched, after={"/dev/null": ("file", "5")})) == {"non-regular file touched"}


# -- the checks, through the runner, on a fake s2sad that misbehaves ---------------------------

FAKE = '''
import os, signal, sys, time
func = sys.argv[sys.argv.index("--func") + 1]
good = "def grad_f(x, d_return=1.0):\\n    return d_return\\n"
if func == "good":
    sys.stdout.write(good)
elif func == "traceback":
    raise ValueError("a bug")
elif func == "internal":
    sys.exit("s2sad: internal error: KeyError: 'x'")
elif func == "unlocated":
    sys.exit("f.py:1:1: error: no source line, no caret")
elif func == "hang":
    time.sleep(60)
elif func == "crash":
    os.kill(os.getpid(), signal.SIGSEGV)
elif func == "temporary":
    open(".out.py.k2j3h4.tmp", "w").write(good[:20])
    sys.exit("s2sad: error: cannot write out.py: No space left on device")
elif func == "half":
    sys.stdout.write(good[:25])
elif func == "replace-link":
    os.remove("link.py")
    open("link.py", "w").write(good)
elif func == "fifo":
    os.remove("pipe.py")
    open("pipe.py", "w").write(good)
'''

EXPECTED = {"good": set(), "traceback": {"traceback"}, "internal": {"internal error"},
            "unlocated": {"unlocated error"}, "hang": {"hang"}, "crash": {"crash"}, "temporary": {"partial file"},
            "half": {"partial file"}, "replace-link": {"non-regular file touched"},
            "fifo": {"non-regular file touched", "partial file"}}


@pytest.fixture(scope="module")
def fake(tmp_path_factory) -> Path:
    root = tmp_path_factory.mktemp("fake")
    (root / "s2sad").mkdir()
    (root / "s2sad" / "__init__.py").write_text("")
    (root / "s2sad" / "__main__.py").write_text(textwrap.dedent(FAKE))
    return root


@pytest.mark.parametrize("behaviour", sorted(EXPECTED))
def test_each_check_fires_through_the_runner(fake, behaviour):
    entries = [file("f.py", "def f(x):\n    return x\n"), file("real.py", "old\n"),
               Entry("link.py", "symlink", target="real.py"), Entry("pipe.py", "fifo")]
    argv = ["grad", "f.py", "--func", behaviour, "--wrt", "x"]
    if behaviour == "replace-link":
        argv += ["-o", "link.py"]
    if behaviour == "fifo":
        argv += ["-o", "pipe.py"]
    case = Case(0, "cmdline", behaviour, entries, argv, drain=["pipe.py"] if behaviour == "fifo" else [])
    r = run_case(case, timeout=3.0, pythonpath=fake)
    assert classes(r) == EXPECTED[behaviour], (classify(r), r.stderr)
    assert set(EXPECTED[behaviour]) <= set(CLASSES)


def test_the_real_s2sad_keeps_a_link_and_writes_through_a_fifo():
    norm = (Path(__file__).resolve().parent.parent / "examples" / "norm.py").read_bytes()
    case = Case(0, "cmdline", "-o link", [file("norm.py", norm), file("real.py", "old\n"),
                                          Entry("link.py", "symlink", target="real.py")],
                ["grad", "norm.py", "--wrt", "in", "-o", "link.py"])
    r = run_case(case)
    assert r.returncode == 0 and classify(r) == [], (classify(r), r.stderr)
    assert r.outputs and r.outputs[0].where == os.path.join("case", "real.py")
    case = Case(0, "cmdline", "-o pipe", [file("norm.py", norm), Entry("pipe.py", "fifo")],
                ["grad", "norm.py", "--wrt", "in", "-o", "pipe.py"], drain=["pipe.py"])
    r = run_case(case)
    assert r.returncode == 0 and classify(r) == [], (classify(r), r.stderr)
    assert b"def grad_norm" in r.drained["pipe.py"]


def test_a_case_naming_one_path_twice_lays_out_the_last(tmp_path):
    """Seed 16800483 drew two odd headers for one input (a link to /dev/zero, then a FIFO, both
    h.h): laying the case out stopped the campaign on the FIFO's name being taken."""
    from doorfuzz.case import lay_out

    case = Case(16800483, "cmdline", "two headers", [Entry("h.h", "symlink", target="/dev/zero"),
                                                      Entry("h.h", "fifo"), file("a.c", "int x;\n"),
                                                      file("a.c", "double y;\n")], ["grad", "a.c"])
    lay_out(case, tmp_path)
    assert (tmp_path / "h.h").is_fifo() and (tmp_path / "a.c").read_text() == "double y;\n"
