"""The ``s2sad`` command line.

    s2sad grad FILE [--func NAME] --wrt P[,P...] [-o OUT] [--target py|numba|c|cuda]
               [-O0|-O1|-O2] [--passes LIST] [--may-alias] [--all-atomic] [--workspace]
               [-I DIR] [-D NAME[=VALUE]] [-U NAME]

``--target cuda`` of a .cu file differentiates its kernel; of a .c or .py file, it
first makes the function's outermost loop a kernel (``opt/kernelize.py``).
    s2sad ir FILE [--func NAME] [-O0|-O1|-O2] [--passes LIST] [--may-alias] [-I DIR] [-D ...] [-U ...]
    s2sad check FILE [--func NAME] --wrt P[,P...] [--target py|numba|c] [--size N] [--sizes P=N,...]
               [--seed S] [--range LO,HI] [--rtol R] [--atol A] [-O LEVEL] [...]

``check`` compares the generated gradient with central differences of the primal on random
inputs (``check.py``): exit status 0 when every adjoint matches, 1 on a mismatch or an input
it cannot check, 2 for bad command-line use.

``-I``, ``-D`` and ``-U`` are gcc's, for C and CUDA input: where ``#include "..."`` looks
after the including file's directory, and macros set before the file is read.

Exit status: 0 on success, 1 for a program s2sad cannot differentiate (with
compiler-style messages on stderr), 2 for bad command-line use. Output files
are written whole or not at all (temporary file, then rename), and the input
file is never overwritten.
"""

from __future__ import annotations

import argparse
import functools
import os
import stat
import sys
import tempfile
import textwrap
from pathlib import Path
from typing import Callable, Optional

from . import check, pipeline
from .ssa.attrs import SCHEDULE_HELP, parse_schedule
from .deep_stack import run_deep
from .diagnostics import DiagnosticError
from .languages import TARGETS, is_c, is_cuda, source_language, suffixes_text, target_of
from .parse.c_preprocess import CFlags, macro_flag_problem
from .parse.derivatives import read_derivatives
from .explain import explain_page
from .progress import Ticker
from .version import VERSION
from .source_files import SourceFileError, c_text, file_kind, python_text, read_source_bytes
from .opt.passes import PASSES, PipelineError, parse_pipeline



class UsageError(Exception):
    """Bad command-line use: exit status 2."""


class _WholeNames(argparse.HelpFormatter):
    """Help text wrapped at spaces only: a pass's name (``native-indices``) is never split at its hyphen."""

    def _fill_text(self, text: str, width: int, indent: str) -> str:
        return textwrap.fill(" ".join(text.split()), width, initial_indent=indent, subsequent_indent=indent,
                             break_on_hyphens=False)

    def _split_lines(self, text: str, width: int) -> list[str]:
        return textwrap.wrap(" ".join(text.split()), width, break_on_hyphens=False)


def _parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(
        prog="s2sad",
        formatter_class=_WholeNames,
        description="Source-to-source reverse-mode automatic differentiation: "
        "reads a Python, C or CUDA function and writes its gradient as readable source.",
        epilog=f"optimization passes (--passes LIST, in order): {', '.join(sorted(PASSES))}. "
        "Run 's2sad COMMAND --help' for a command's options.",
    )
    p.add_argument("--version", action="version", version=f"s2sad {VERSION}")
    sub = p.add_subparsers(dest="command", required=True, metavar="COMMAND")
    # (each command's help wrapped as the top level's: a --passes list names passes too)
    command = functools.partial(sub.add_parser, formatter_class=_WholeNames)

    g = command("grad", help="write the gradient of a function")
    g.add_argument("file", help="input file (.py, .c or .cu)")
    g.add_argument("--func", help="function to differentiate (default: the only one, or FILE's stem)")
    g.add_argument("--wrt", required=True, help="comma-separated parameters to differentiate with respect to")
    g.add_argument("-o", "--output", help="output file (default: stdout; '-' also means stdout)")
    g.add_argument(
        "--target",
        choices=TARGETS,
        help="output language (default: from the output suffix, else the input's language); "
        "numba is Python with @numba.njit; cuda of a .c or .py file makes the function's outermost "
        "loop a __global__ kernel, one thread per iteration (the loop must have independent "
        "iterations: #pragma omp parallel for, numba.prange, or provably so)",
    )

    _checkpoint_option(g)
    g.add_argument(
        "--report",
        action="store_true",
        help="print on stderr what the reverse sweep caches per loop (tapes: value, type, bytes per "
        "iteration; schedules; snapshot sizes), and put the same summary atop the gradient function",
    )
    _optimization_options(g, default_level=2)
    _c_options(g)
    _derivatives_option(g)
    g.add_argument(
        "--with-value",
        action="store_true",
        help="the gradient also gives back the function's value: Python returns (value, adjoints), "
        "C returns the value instead of void",
    )
    g.add_argument(
        "--parallel",
        action="store_true",
        help="run the gradient's loops whose iterations are independent (each touches only its own "
        "elements) in parallel: '#pragma omp parallel for' in C (compile with -fopenmp), numba.prange "
        "with --target numba; no effect on the other targets",
    )
    g.add_argument(
        "--workspace",
        action="store_true",
        help="C output: also write grad_f_ws(grad_f_workspace *ws, ...), which keeps its tapes in *ws "
        "from one call to the next instead of allocating them on every call (no page faults on repeated "
        "calls); grad_f itself is unchanged",
    )
    g.add_argument(
        "--all-atomic",
        action="store_true",
        help="CUDA output: make every adjoint accumulation an atomicAdd instead of classifying it "
        "(thread-private +=, block reduction, atomicAdd); a baseline for benchmarks",
    )

    i = command("ir", help="print the SSA IR of a function (after an optional pipeline)")
    i.add_argument("file", help="input file (.py, .c or .cu)")
    i.add_argument("--func", help="function to print (default: as for grad)")
    i.add_argument("--stage", choices=pipeline.IR_STAGES, default="optimized",
                   help="primal: as the front end writes it; optimized (default): after -O/--passes; "
                   "adjoint: the gradient (needs --wrt) after the adjoint's cleanups")
    i.add_argument("--wrt", help="with --stage adjoint: the parameters to differentiate with respect to")
    i.add_argument("--print-after", metavar="PASS|all",
                   help="print the IR after every run of PASS (or of every pass) on the way to the stage")
    _derivatives_option(i)
    _optimization_options(i, default_level=0)
    _c_options(i)

    e = command("explain", help="write one HTML page showing how a gradient came about")
    e.add_argument("file", help="input file (.py, .c or .cu)")
    e.add_argument("--func", help="function to differentiate (default: as for grad)")
    e.add_argument("--wrt", required=True, help="comma-separated parameters to differentiate with respect to")
    e.add_argument("-o", "--output", help="the page to write (default: stdout)")
    e.add_argument("--target", choices=TARGETS, help="the gradient's language (default: the input's)")
    _optimization_options(e, default_level=2)
    _checkpoint_option(e)
    _c_options(e)
    _derivatives_option(e)

    c = command("check", help="compare a generated gradient with central differences of the function")
    c.add_argument("file", help="input file (.py or .c); a .py file is imported to run the function")
    c.add_argument("--func", help="function to check (default: as for grad)")
    c.add_argument("--wrt", required=True, help="comma-separated parameters to differentiate with respect to")
    c.add_argument("--target", choices=("py", "numba", "c"),
                   help="language of the gradient checked (default: the input's language)")
    c.add_argument("--size", type=int, default=check.Settings.size, metavar="N",
                   help=f"length of every array dimension and value of every integer parameter "
                   f"(default: {check.Settings.size})")
    c.add_argument("--sizes", metavar="P=N,...", default="",
                   help="per parameter: an array's shape (x=5, A=3x4), an integer parameter's value (n=5), "
                   "or the shape of a shape-generic number passed as an array (b=4x1)")
    c.add_argument("--seed", type=int, default=0, help="seed of the random inputs (default: 0)")
    c.add_argument("--range", dest="value_range", default="-1,1", metavar="LO,HI",
                   help="floating-point inputs are drawn uniformly from [LO, HI] (default: -1,1)")
    c.add_argument("--rtol", type=float, default=check.Settings.rtol,
                   help=f"relative tolerance (default: {check.Settings.rtol:g}; at least 1e-2 for float data)")
    c.add_argument("--atol", type=float, default=check.Settings.atol,
                   help=f"absolute tolerance (default: {check.Settings.atol:g}; at least 1e-3 for float data)")
    c.add_argument("--ranks", type=int, metavar="N",
                   help="check a distributed (MPI) program on N ranks, under mpirun: each rank its own inputs, J "
                   "summed over the ranks")
    _optimization_options(c, default_level=2)
    _checkpoint_option(c)
    _c_options(c)
    _derivatives_option(c)
    return p


def _parse(argv: Optional[list[str]]) -> argparse.Namespace:
    """The command line; an option the subcommand does not know is reported with that
    subcommand's usage (argparse's own report shows the top level's)."""
    parser = _parser()
    args, extra = parser.parse_known_args(_joined_negative_values(list(sys.argv[1:] if argv is None else argv)))
    if extra:
        commands = next(a for a in parser._actions if isinstance(a, argparse._SubParsersAction))
        commands.choices[args.command].error(f"unrecognized arguments: {' '.join(extra)}")
    return args


# Options whose value may begin with a minus sign: argparse takes '-3,3' for an option of its
# own (it passes only a plain negative number on), so '--range -3,3' reads as '--range=-3,3'.
_SIGNED_VALUES = ("--range",)


def _joined_negative_values(argv: list[str]) -> list[str]:
    out: list[str] = []
    for arg in argv:
        if out and out[-1] in _SIGNED_VALUES and arg[:1] == "-" and (arg[1:2].isdigit() or arg[1:2] == "."):
            out[-1] = f"{out[-1]}={arg}"
        else:
            out.append(arg)
    return out


def _checkpoint_option(p: argparse.ArgumentParser) -> None:
    p.add_argument(
        "--checkpoint",
        metavar="SCHEDULE",
        help="checkpointing schedule of every outermost for loop: store-all (default: tape every "
        "iteration), recompute (re-run from the loop's entry state), periodic(K) (a snapshot every "
        "K iterations) or binomial(S) (S snapshots placed by revolve); a loop's own annotation "
        "(`# s2sad: checkpoint binomial(snapshots=10)`, `#pragma s2sad checkpoint binomial(10)`) wins",
    )


def _derivatives_option(p: argparse.ArgumentParser) -> None:
    p.add_argument("--derivatives", action="append", default=[], metavar="FILE",
                   help="custom adjoints of functions defined elsewhere: FILE (.py, or .c for C) defines "
                   "grad_NAME for each function NAME (README, Custom derivatives); repeatable")


def _c_options(p: argparse.ArgumentParser) -> None:
    """gcc's preprocessor options, for a subcommand that reads a C or CUDA file."""
    p.add_argument("-I", dest="include_dirs", action="append", default=[], metavar="DIR",
                   help="C input: look for #include headers in DIR, after the including file's directory "
                   "(repeatable, searched in order; -IDIR also works)")
    p.add_argument("-D", dest="cmacros", action="append", default=[], type=lambda text: ("D", text),
                   metavar="NAME[=VALUE]", help="C input: define a macro before reading the file, as gcc -D "
                   "(VALUE defaults to 1; 'F(x)=BODY' defines a function-like macro); repeatable")
    p.add_argument("-U", dest="cmacros", action="append", default=[], type=lambda text: ("U", text),
                   metavar="NAME", help="C input: undefine a macro (after the -D before it), as gcc -U; repeatable")


def _optimization_options(p: argparse.ArgumentParser, default_level: int) -> None:
    # -O given is told apart from -O by default (it may not come with --passes): the level a
    # subcommand takes by default rides beside it
    p.set_defaults(default_level=default_level)
    p.add_argument(
        "-O",
        dest="level",
        type=int,
        choices=(0, 1, 2),
        default=None,
        help=f"optimization level: -O0 none, -O1 local cleanups, -O2 also inlining and loop-invariant "
        f"hoisting (default: -O{default_level})",
    )
    p.add_argument(
        "--passes",
        metavar="LIST",
        help="run exactly these passes on the primal, in order (e.g. inline,cse,licm,dce); "
        f"available: {', '.join(sorted(PASSES))}",
    )
    p.add_argument(
        "--may-alias",
        action="store_true",
        help="do not assume that array arguments are distinct memory (the default assumption, "
        "as with C's restrict, lets loads move past stores to other arrays)",
    )


def _options(args: argparse.Namespace) -> pipeline.Options:
    if args.passes is not None and args.level is not None:
        raise UsageError(f"-O{args.level} and --passes both choose the passes: give one of them")
    level = args.level if args.level is not None else args.default_level
    if getattr(args, "all_atomic", False) and _target(args) != "cuda":
        raise UsageError("--all-atomic applies to CUDA output (--target cuda, or a .cu input)")
    if getattr(args, "workspace", False) and _target(args) != "c":
        raise UsageError("--workspace applies to C output (--target c)")
    if args.passes is not None:
        try:
            parse_pipeline(args.passes)
        except PipelineError as e:
            raise UsageError(f"--passes: {e}") from None
    checkpoint = None
    if getattr(args, "checkpoint", None) is not None:
        try:
            checkpoint = parse_schedule(args.checkpoint)
        except ValueError as e:
            raise UsageError(f"--checkpoint: {e} (use {SCHEDULE_HELP})") from None
    for flag, text in args.cmacros:
        problem = macro_flag_problem(flag, text)
        if problem is not None:
            raise UsageError(problem)
    if (args.include_dirs or args.cmacros) and not is_c(args.file):
        raise UsageError("-I, -D and -U apply to C and CUDA input")
    for path in getattr(args, "derivatives", []):
        if not os.path.isfile(path):
            raise UsageError(f"--derivatives {path}: no such file")
    return pipeline.Options(
        level=level,
        passes=args.passes,
        may_alias=args.may_alias,
        checkpoint=checkpoint,
        report=getattr(args, "report", False),
        all_atomic=getattr(args, "all_atomic", False),
        with_value=getattr(args, "with_value", False),
        parallel=getattr(args, "parallel", False),
        workspace=getattr(args, "workspace", False),
        cflags=CFlags(tuple(args.include_dirs), tuple(args.cmacros)),
        derivatives=read_derivatives(getattr(args, "derivatives", [])),
    )


def _read(path: str) -> str:
    language = source_language(path)
    if language is None:
        raise UsageError(f"{path}: unknown input language (give a {suffixes_text()} file)")
    try:
        data = read_source_bytes(path)
    except FileNotFoundError:
        raise UsageError(f"{path}: no such file") from None
    except SourceFileError as e:
        raise UsageError(f"{path}: {e}") from None
    except OSError as e:
        raise UsageError(f"{path}: cannot read: {e.strerror or e}") from None
    return python_text(data, path) if language == "python" else c_text(data)


def _target(args: argparse.Namespace) -> str:
    if args.target:
        return args.target
    if args.output and args.output != "-" and target_of(args.output) is not None:
        return target_of(args.output)
    return target_of(args.file) or "py"


class OutputError(Exception):
    """The output could not be written (permission denied, a read-only file system, a full disk,
    a closed standard output): exit status 1, said as what it is, not as a bug."""


def write_atomically(path: str, text: str, input_path: str) -> None:
    """Write ``text`` to ``path`` whole or not at all; refuse to overwrite the input.

    A regular file (or none yet) is replaced by renaming a finished temporary file over it. A
    symbolic link is followed: the file it points to is replaced and the link stays. A character
    device or a FIFO (``-o /dev/null``, ``-o /dev/stdout``, a named pipe) is written through,
    as ``> path`` in a shell would: it is never replaced by a regular file. Directories,
    sockets and block devices are refused.
    """
    if os.path.isdir(path):
        raise UsageError(f"{path}: is a directory (give -o the name of the file to write)")
    if path.endswith(os.sep):
        raise UsageError(f"{path}: ends in '{os.sep}', so it names a directory (give -o the name of the file to write)")
    try:
        st: Optional[os.stat_result] = os.stat(path)
    except FileNotFoundError:
        st = None
    except OSError as e:
        raise _cannot_write(path, e) from None
    if st is not None and os.path.exists(input_path) and os.path.samefile(path, input_path):
        raise UsageError(f"{path}: refusing to overwrite the input file")
    if st is not None and (stat.S_ISCHR(st.st_mode) or stat.S_ISFIFO(st.st_mode)):
        _write_through(path, text)
        return
    if st is not None and not stat.S_ISREG(st.st_mode):
        raise UsageError(f"{path}: is {file_kind(st.st_mode)}; s2sad writes regular files, "
                         "character devices and FIFOs")
    target = Path(os.path.realpath(path)) if os.path.islink(path) else Path(path)
    directory = target.parent if str(target.parent) else Path(".")
    if not directory.is_dir():
        raise UsageError(f"{path}: directory {directory} does not exist")
    try:
        fd, tmp = tempfile.mkstemp(**_temporary_name(target.name), dir=directory)
    except OSError as e:
        raise _cannot_write(path, e) from None
    try:
        with os.fdopen(fd, "w", encoding="utf-8") as f:
            f.write(text)
        # mkstemp creates the file private (0600); give it the mode the replaced file had, or
        # the mode a plain open() would give a new one.
        if st is not None:
            mode = stat.S_IMODE(st.st_mode)
        else:
            umask = os.umask(0)
            os.umask(umask)
            mode = 0o666 & ~umask
        os.chmod(tmp, mode)
        os.replace(tmp, target)
    except OSError as e:
        raise _cannot_write(path, e) from None
    finally:
        if os.path.exists(tmp):
            os.unlink(tmp)


def _cannot_write(path: str, e: OSError) -> OutputError:
    return OutputError(f"cannot write {path}: {e.strerror or e}")


def _temporary_name(name: str) -> dict[str, str]:
    """mkstemp's prefix and suffix for a temporary file beside ``name``: ``.NAME.XXXXXXXX.tmp``,
    or ``.XXXXXXXX`` where that would pass the file system's longest name (a long but valid
    output name must still work)."""
    longest = 255
    try:
        longest = os.pathconf(".", "PC_NAME_MAX")
    except (OSError, ValueError):
        pass
    if len(f".{name}.XXXXXXXX.tmp".encode()) <= longest:
        return {"prefix": f".{name}.", "suffix": ".tmp"}
    return {"prefix": ".", "suffix": ""}


def _write_through(path: str, text: str) -> None:
    try:
        with open(path, "w", encoding="utf-8") as f:
            f.write(text)
    except OSError as e:
        raise _cannot_write(path, e) from None


def _write_stdout(text: str) -> None:
    """Write to standard output; a closed one, a broken pipe or a full disk is an OutputError."""
    if sys.stdout is None:  # started with standard output closed (>&-)
        raise OutputError("cannot write to standard output: it is closed")
    try:
        sys.stdout.write(text)
        sys.stdout.flush()
    except OSError as e:
        # Nothing more can reach it: point it at /dev/null, so that the interpreter's own flush
        # at exit does not print a second, Python-worded complaint.
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, sys.stdout.fileno())
        os.close(devnull)
        raise OutputError(f"cannot write to standard output: {e.strerror or e}") from None


def _check_settings(args: argparse.Namespace) -> check.Settings:
    if args.size < 1:
        raise UsageError(f"--size must be positive, not {args.size}")
    sizes: dict[str, tuple[int, ...]] = {}
    for item in filter(None, (part.strip() for part in args.sizes.split(","))):
        name, _, shape = item.partition("=")
        try:
            dims = tuple(int(d) for d in shape.split("x"))
        except ValueError:
            dims = ()
        if not name.strip() or not dims or any(d < 0 for d in dims):
            raise UsageError(f"--sizes: cannot read '{item}' (write x=5, A=3x4 or n=5)")
        sizes[name.strip()] = dims
    try:
        low, high = (float(v) for v in args.value_range.split(","))
    except ValueError:
        raise UsageError(f"--range: cannot read '{args.value_range}' (write LO,HI, as in -1,1)") from None
    if not low < high:
        raise UsageError(f"--range: LO must be below HI, not {args.value_range}")
    if args.ranks is not None and args.ranks < 1:
        raise UsageError(f"--ranks must be positive, not {args.ranks}")
    return check.Settings(args.size, sizes, args.seed, low, high, args.rtol, args.atol, args.ranks)


def _wrt(args: argparse.Namespace) -> list[str]:
    wrt = [w.strip() for w in args.wrt.split(",") if w.strip()]
    if not wrt:
        raise UsageError("--wrt needs at least one parameter name")
    again = next((w for k, w in enumerate(wrt) if w in wrt[:k]), None)
    if again is not None:
        raise UsageError(f"--wrt: '{again}' is listed twice")
    return wrt


def _run_check(args: argparse.Namespace, source: str, options: pipeline.Options) -> int:
    if is_cuda(args.file):
        raise UsageError("check runs Python and C; it does not run CUDA kernels")
    target = args.target or ("c" if is_c(args.file) else "py")
    settings = _check_settings(args)
    if settings.ranks is not None and not os.environ.get(check.UNDER_MPIRUN):
        return check.under_mpirun(args.argv[args.argv.index("check") + 1:], settings.ranks)  # (rank 0 prints)
    report = check.check(source, args.file, args.func, _wrt(args), target, options, settings)
    status = 0 if report.ok else 1
    if not os.environ.get(check.UNDER_MPIRUN):
        _write_stdout(report.table() + "\n")
        return status
    if _rank() == 0:  # (check --ranks: the table and the status, once; each rank ran to the end)
        _write_stdout(report.table() + "\n")
        Path(os.environ[check.STATUS_FILE]).write_text(str(status))
    return 0


def _rank() -> int:
    """This process's rank, under mpirun (where ``check --ranks`` runs itself)."""
    from mpi4py import MPI

    return MPI.COMM_WORLD.Get_rank()


def _run(args: argparse.Namespace) -> int:
    source = _read(args.file)
    options = _options(args)
    if args.command == "ir":
        if args.stage == "adjoint" and not args.wrt:
            raise UsageError("--stage adjoint needs --wrt")
        if args.wrt and args.stage != "adjoint":
            raise UsageError("--wrt applies to --stage adjoint")
        if args.print_after is not None and args.print_after != "all" and args.print_after not in PASSES:
            raise UsageError(f"--print-after {args.print_after}: no such pass (passes: {', '.join(sorted(PASSES))}, "
                             "or all)")
        _write_stdout(pipeline.ir_text(source, args.file, args.func, options, args.stage,
                                       _wrt(args) if args.wrt else None, args.print_after))
        return 0
    if args.command == "check":
        return _run_check(args, source, options)
    wrt = _wrt(args)
    target = _target(args)
    if args.command == "explain":
        _write_output(args, explain_page(source, args.file, args.func, wrt, target, options))
        return 0
    cuda_in = is_cuda(args.file)
    if cuda_in and target != "cuda":
        raise UsageError(f"--target {target}: the gradient of a CUDA kernel is CUDA (use --target cuda)")
    report: list[str] = []
    text = pipeline.gradient_source(source, args.file, args.func, wrt, target, options, report)
    _write_output(args, text)
    for line in report:  # once the gradient is written: where that fails, the error comes first, alone
        print(line, file=sys.stderr)
    return 0


def _write_output(args: argparse.Namespace, text: str) -> None:
    """``text`` to ``-o OUT`` (whole or not at all), else to standard output."""
    if args.output and args.output != "-":
        write_atomically(args.output, text, args.file)
    else:
        _write_stdout(text)


def main(argv: Optional[list[str]] = None) -> int:
    args = _parse(argv)
    args.argv = list(sys.argv[1:] if argv is None else argv)  # (check --ranks runs itself again, under mpirun)
    return run_deep(lambda: _main(args))  # deeply nested input translates (deep_stack says how)


def _as_named(given: Optional[str]) -> Callable[[str], str]:
    """A location's file as the command line named it, the way compilers print it (``src/norm.c``,
    where s2sad read ``norm.c``): the input, and a file beside it (a local header)."""
    def shown(file: str) -> str:
        if not given or os.path.dirname(file) or not file:
            return file
        if file == os.path.basename(given):
            return given
        beside = os.path.join(os.path.dirname(given), file)
        return beside if os.path.dirname(given) and os.path.isfile(beside) else file
    return shown


def _main(args: argparse.Namespace) -> int:
    if os.environ.get(check.UNDER_MPIRUN) and _rank() != 0:  # (check --ranks: rank 0 speaks for all)
        sys.stderr = open(os.devnull, "w")
    try:
        if sys.stderr is not None and sys.stderr.isatty():
            with Ticker(sys.stderr):
                return _run(args)
        return _run(args)
    except DiagnosticError as e:
        print(e.render(_as_named(getattr(args, "file", None))), file=sys.stderr)
        return 1
    except (UsageError, check.CheckUsageError) as e:
        print(f"s2sad: error: {e}", file=sys.stderr)
        return 2
    except check.CheckRefused as e:
        print(f"s2sad: error: check: {e}", file=sys.stderr)
        return 1
    except OutputError as e:
        print(f"s2sad: error: {e}", file=sys.stderr)
        return 1
    except Exception as e:  # a bug in s2sad: say so plainly, without a traceback
        if os.environ.get("S2SAD_DEBUG"):
            raise
        print(
            f"s2sad: internal error: {type(e).__name__}: {e}\n"
            "hint: this is a bug in s2sad; please report it with the input file "
            "(set S2SAD_DEBUG=1 to see the traceback)",
            file=sys.stderr,
        )
        return 1


if __name__ == "__main__":
    sys.exit(main())
