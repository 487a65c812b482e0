"""Bad command lines and odd paths: unknown options, a missing or wrong ``--wrt``, repeated
flags, bad ``--checkpoint`` and ``--passes`` values; ``-o`` naming a folder, a path ending in
'/', a missing folder, /dev/null, /dev/full, a FIFO, a symbolic link (to a file, a folder, a
device, nowhere, itself), a character device, the input itself; input paths that are FIFOs,
folders, /dev/zero behind a link named ``x.py``, missing files, files of unknown languages.

A case starts from a valid command line on a valid input and applies one or two faults.
"""

from __future__ import annotations

import random
from dataclasses import dataclass, field
from pathlib import Path

from .case import Case, Entry, file

ROOT = Path(__file__).resolve().parents[2]
NORM_PY = (ROOT / "examples" / "norm.py").read_bytes()
NORM_C = b"""#include <math.h>

double norm2(const double *x, int n) {
    double s = 0.0;
    for (int i = 0; i < n; i++)
        s += x[i] * x[i];
    return sqrt(s);
}
"""
SAXPY_CU = b"""__global__ void saxpy(int n, double a, const double *x, double *y) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n)
        y[i] = a * x[i] + y[i];
}
"""
HEADER_C = b"""#include "consts.h"

double scaled(double x) {
    return SCALE * x * x;
}
"""
# (file name, bytes, --func, --wrt)
BASES = [("norm.py", NORM_PY, "norm", "in"), ("norm2.c", NORM_C, "norm2", "x"),
         ("saxpy.cu", SAXPY_CU, "saxpy", "x,a"), ("scaled.c", HEADER_C, "scaled", "x")]


@dataclass
class State:
    entries: list[Entry]
    argv: list[str]
    drain: list[str] = field(default_factory=list)
    watch: list[str] = field(default_factory=list)
    what: list[str] = field(default_factory=list)

    @property
    def input(self) -> str:
        return self.argv[1]

    def set_option(self, flag: str, value: str | None) -> None:
        """Replace ``flag``'s value (or drop the flag, for None); add it when it is not there."""
        if flag in self.argv:
            k = self.argv.index(flag)
            if value is None:
                del self.argv[k:k + 2]
            elif k + 1 < len(self.argv):
                self.argv[k + 1] = value
            else:  # the flag last, its value left out by an earlier fault (doorfuzz seed 17100... crash)
                self.argv.append(value)
        elif value is not None:
            self.argv += [flag, value]

    def insert(self, rng: random.Random, *args: str) -> None:
        """``args`` at a random place after the subcommand and the input."""
        k = rng.randrange(2, len(self.argv) + 1)
        self.argv[k:k] = list(args)


def unknown_option(rng, s):
    opt = rng.choice([["--bogus"], ["-x"], ["--frobnicate=3"], ["-O3"], ["-O"], ["-Ox"], ["--target"],
                      ["--target=fortran"], ["--target", "FORTRAN"], ["---wrt", "in"], ["-"], ["--"], ["--help"],
                      ["-h"], ["--wrt"], ["--func"], ["-o"], ["--checkpoint"], ["--passes"], ["-I"], ["-D"],
                      ["--report=yes"], ["--may-alias=no"], ["-O", "-1"], ["--target", ""], ["--Wrt", "x"],
                      ["--func=\n"], ["-O2", "-O9"], ["--all-atomic", "--all-atomic"]])
    if rng.random() < 0.3:
        s.argv += opt  # at the end, where a missing value stays missing
    else:
        s.insert(rng, *opt)
    s.what.append(f"option {' '.join(opt)!r}")


def missing_wrt(rng, s):
    s.set_option("--wrt", None)
    s.what.append("no --wrt")


def wrong_wrt(rng, s):
    w = rng.choice(["zz", "", ",", " ", "in,zz", "n", "out,in", "in in", "IN", "d_in", "return", "-", "1", "é",
                    "x" * 5000, "in,,in", " in ", "in,in", "x,a,x", "s", "i", "norm", "threadIdx", "*", "x[0]",
                    "\t", "a,", ",x"])
    s.set_option("--wrt", w)
    s.what.append(f"--wrt {w[:20]!r}")


def wrong_func(rng, s):
    f = rng.choice(["", "nope", "mag", "norm norm", "123", "grad_norm", "__init__", "math.sqrt", "sqrt", "main",
                    "f" * 5000, "-o", "é", "norm2 ", "NORM", "SCALE", "blockIdx"])
    s.set_option("--func", f)
    s.what.append(f"--func {f[:20]!r}")


def repeated_flag(rng, s):
    kind = rng.choice(["wrt", "func", "o", "target", "O", "checkpoint", "report"])
    if kind == "wrt":
        s.argv += ["--wrt", rng.choice(["zz", "in", "x", "n"])]
    elif kind == "func":
        s.argv += ["--func", rng.choice(["nope", "mag", "norm"])]
    elif kind == "o":
        s.argv += ["-o", "a.py", "-o", rng.choice(["b.py", "b.c", "sub/", "/dev/full"])]
    elif kind == "target":
        s.argv += ["--target", "c", "--target", rng.choice(["py", "numba", "cuda", "c"])]
    elif kind == "O":
        s.argv += ["-O0", "-O2", "-O1"]
    elif kind == "checkpoint":
        s.argv += ["--checkpoint", "recompute", "--checkpoint", rng.choice(["binomial(2)", "periodic(0)"])]
    else:
        s.argv += ["--report", "--report"]
    s.what.append(f"repeated {kind}")


CHECKPOINTS = ["", "periodic", "periodic()", "periodic(0)", "periodic(-1)", "periodic(1.5)", "binomial(x)",
               "binomial(1e400)", "periodic(99999999999999999999)", "store-all(3)", "recompute()", "foo",
               "binomial(snapshots=3)", "binomial(0)", "binomial(3", "BINOMIAL(3)", " recompute", "periodic(0x10)",
               "binomial(" + "9" * 5000 + ")", "periodic(1)periodic(2)", "revolve(3)", "binomial(3) ", "\n"]
PASSES = ["", ",", "inline,,cse", "nope", ",".join(["inline"] * 300), "dce,dce", "cse licm", "INLINE", "licm,",
          "all", "-O2", "inline;cse", "é"]


def bad_checkpoint(rng, s):
    v = rng.choice(CHECKPOINTS)
    s.set_option("--checkpoint", v)
    s.what.append(f"--checkpoint {v[:20]!r}")


def bad_passes(rng, s):
    v = rng.choice(PASSES)
    s.set_option("--passes", v)
    s.what.append(f"--passes {v[:20]!r}")


def c_flags(rng, s):
    opt = rng.choice([["-I", "nodir"], ["-I", s.input], ["-I", "/dev/null"], ["-D", ""], ["-D", "=1"], ["-D", "1x"],
                      ["-D", "F(=1"], ["-U", ""], ["-D", "SCALE"], ["-D", "SCALE=("], ["-D", "SCALE=1e400"],
                      ["-U", "SCALE"], ["-I", ""], ["-Isub"], ["-D", "x=y"], ["-D", "double=int"],
                      ["-D", "N=" + "1" * 5000], ["-D", "F(x)=F(x)"], ["-D", "SCALE=SCALE"]])
    s.insert(rng, *opt)
    s.what.append(f"C flag {' '.join(opt)[:30]!r}")


def subcommand(rng, s):
    kind = rng.choice(["none", "gard", "ir", "ir-o", "empty"])
    if not s.argv:  # an earlier fault left no command line: there is no subcommand to change
        return
    if kind == "none":
        s.argv = s.argv[1:]
    elif kind == "gard":
        s.argv[0] = "gard"
    elif kind == "ir":
        s.argv[0] = "ir"
        s.set_option("--wrt", None)
        s.set_option("-o", None)
    elif kind == "ir-o":
        s.argv[0] = "ir"
        s.argv += ["-o", "x.ir"]
    else:
        s.argv = []
    s.what.append(f"subcommand {kind}")


def _output(s: State, path: str) -> None:
    s.set_option("-o", path)


def odd_output(rng, s):
    suffix = Path(s.input).suffix if Path(s.input).suffix in (".py", ".c", ".cu") else ".py"
    kind = rng.choice(["dir", "slash", "dir-slash", "missing-dir", "devnull", "devfull", "fifo", "symlink",
                       "dangling", "link-dir", "link-null", "loop", "input", "dot-input", "hardlink", "link-input",
                       "chardev-null", "chardev-full", "empty", "dot", "dotdot", "dash", "long", "too-long",
                       "newline", "existing", "existing-link", "link-missing-dir", "devzero"])
    name = "out" + suffix
    if kind == "dir":
        s.entries.append(Entry("sub", "dir"))
        _output(s, "sub")
    elif kind == "slash":
        _output(s, name + "/")
    elif kind == "dir-slash":
        s.entries.append(Entry("sub", "dir"))
        _output(s, "sub/")
    elif kind == "missing-dir":
        _output(s, "nodir/" + name)
    elif kind in ("devnull", "devfull", "devzero"):
        dev = "/dev/" + kind[3:]
        s.watch.append(dev)
        _output(s, dev)
    elif kind == "fifo":
        s.entries.append(Entry("pipe" + suffix, "fifo"))
        s.drain.append("pipe" + suffix)
        _output(s, "pipe" + suffix)
    elif kind == "symlink":
        s.entries += [file("real" + suffix, b"old contents\n"),
                      Entry("link" + suffix, "symlink", target="real" + suffix)]
        _output(s, "link" + suffix)
    elif kind == "dangling":
        s.entries.append(Entry("link" + suffix, "symlink", target="gone" + suffix))
        _output(s, "link" + suffix)
    elif kind == "link-missing-dir":
        s.entries.append(Entry("link" + suffix, "symlink", target="nodir/gone" + suffix))
        _output(s, "link" + suffix)
    elif kind == "link-dir":
        s.entries += [Entry("sub", "dir"), Entry("link" + suffix, "symlink", target="sub")]
        _output(s, "link" + suffix)
    elif kind == "link-null":
        s.watch.append("/dev/null")
        s.entries.append(Entry("null" + suffix, "symlink", target="/dev/null"))
        _output(s, "null" + suffix)
    elif kind == "loop":
        s.entries.append(Entry("loop" + suffix, "symlink", target="loop" + suffix))
        _output(s, "loop" + suffix)
    elif kind == "input":
        _output(s, s.input)
    elif kind == "dot-input":
        _output(s, "./" + s.input)
    elif kind == "hardlink":
        s.entries.append(Entry("same" + suffix, "hardlink", target=s.input))
        _output(s, "same" + suffix)
    elif kind == "link-input":
        s.entries.append(Entry("alias" + suffix, "symlink", target=s.input))
        _output(s, "alias" + suffix)
    elif kind in ("chardev-null", "chardev-full"):
        s.entries.append(Entry("dev" + suffix, "chardev", device=(1, 3) if kind == "chardev-null" else (1, 7)))
        _output(s, "dev" + suffix)
    elif kind == "empty":
        _output(s, "")
    elif kind == "dot":
        _output(s, ".")
    elif kind == "dotdot":
        _output(s, "..")
    elif kind == "dash":
        _output(s, "-")
    elif kind == "long":
        _output(s, "g" * (255 - len(suffix)) + suffix)
    elif kind == "too-long":
        _output(s, "g" * 256 + suffix)
    elif kind == "newline":
        _output(s, "a\nb" + suffix)
    elif kind == "existing":
        s.entries.append(file(name, b"old contents\n"))
        _output(s, name)
    else:
        s.entries += [Entry("sub", "dir"), file("sub/" + name, b"old contents\n"),
                      Entry("link" + suffix, "symlink", target="sub/" + name)]
        _output(s, "link" + suffix)
    s.what.append(f"-o {kind}")


def odd_input(rng, s):
    suffix = Path(s.input).suffix
    kind = rng.choice(["fifo", "dir", "devzero", "chardev-zero", "missing", "missing-dir", "empty-name", "dash",
                       "txt", "upper", "h", "slash", "dangling", "loop", "link", "dotdot", "dev-direct",
                       "header-fifo", "header-devzero", "header-dir", "header-missing", "header-outside"])
    data = s.entries[0].data  # the valid input the case started from
    if kind == "fifo":
        s.entries.append(Entry("f" + suffix, "fifo"))
        s.argv[1] = "f" + suffix
    elif kind == "dir":
        s.entries.append(Entry("d" + suffix, "dir"))
        s.argv[1] = "d" + suffix
    elif kind == "devzero":
        s.watch.append("/dev/zero")
        s.entries.append(Entry("x" + suffix, "symlink", target="/dev/zero"))
        s.argv[1] = "x" + suffix
    elif kind == "chardev-zero":
        s.entries.append(Entry("z" + suffix, "chardev", device=(1, 5)))
        s.argv[1] = "z" + suffix
    elif kind == "missing":
        s.argv[1] = "missing" + suffix
    elif kind == "missing-dir":
        s.argv[1] = "nodir/missing" + suffix
    elif kind == "empty-name":
        s.argv[1] = ""
    elif kind == "dash":
        s.argv[1] = "-"
    elif kind == "txt":
        s.entries.append(file("prog.txt", data))
        s.argv[1] = "prog.txt"
    elif kind == "upper":
        s.entries.append(file("PROG" + suffix.upper(), data))
        s.argv[1] = "PROG" + suffix.upper()
    elif kind == "h":
        s.entries.append(file("prog.h", data))
        s.argv[1] = "prog.h"
    elif kind == "slash":
        s.argv[1] = s.input + "/"
    elif kind == "dangling":
        s.entries.append(Entry("gone-link" + suffix, "symlink", target="gone" + suffix))
        s.argv[1] = "gone-link" + suffix
    elif kind == "loop":
        s.entries.append(Entry("loop" + suffix, "symlink", target="loop" + suffix))
        s.argv[1] = "loop" + suffix
    elif kind == "link":
        s.entries.append(Entry("alias" + suffix, "symlink", target=s.input))
        s.argv[1] = "alias" + suffix
    elif kind == "dotdot":
        s.entries.append(Entry("sub", "dir"))
        s.argv[1] = "sub/../" + s.input
    elif kind == "dev-direct":
        s.watch.append("/dev/zero")
        s.argv[1] = "/dev/zero"
    else:  # a header of a C input that is odd: a FIFO, /dev/zero, a folder, missing, outside
        header = {"header-fifo": Entry("h.h", "fifo"), "header-devzero": Entry("h.h", "symlink", target="/dev/zero"),
                  "header-dir": Entry("h.h", "dir"), "header-missing": None,
                  "header-outside": file("../h.h", b"#define H 1\n")}[kind]
        if header is not None:
            s.entries.append(header)
        text = b'#include "h.h"\n' + (data if suffix != ".py" else NORM_C)
        if kind == "header-outside":
            text = b'#include "../h.h"\n' + (data if suffix != ".py" else NORM_C)
        name = "inc" + (suffix if suffix != ".py" else ".c")
        s.entries.append(file(name, text))
        s.argv[1] = name
        if suffix == ".py":
            s.set_option("--func", "norm2")
            s.set_option("--wrt", "x")
    s.what.append(f"input {kind}")


FAULTS = [unknown_option, missing_wrt, wrong_wrt, wrong_func, repeated_flag, bad_checkpoint, bad_passes, c_flags,
          subcommand, odd_output, odd_output, odd_output, odd_input, odd_input, odd_input]


def cmdline_case(seed: int, rng: random.Random) -> Case:
    name, data, func, wrt = rng.choice(BASES)
    entries = [file(name, data)]
    if name == "scaled.c":
        entries.append(file("consts.h", b"#define SCALE 2.0\n"))
    argv = ["grad", name, "--wrt", wrt]
    if rng.random() < 0.5:
        argv += ["--func", func]
    s = State(entries, argv)
    faults = [rng.choice(FAULTS) for _ in range(rng.choice([1, 1, 1, 2]))]
    for fault in sorted(faults, key=lambda f: f is subcommand):  # the others look for the input at argv[1]
        fault(rng, s)
    return Case(seed, "cmdline", "; ".join(s.what), s.entries, s.argv, s.drain, sorted(set(s.watch)))
