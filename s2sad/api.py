"""In-process use of s2sad: gradients of Python functions as Python callables.

    import s2sad
    grad_f = s2sad.grad(f, wrt=("x",))           # the contract's grad_f, compiled
    fun = s2sad.value_and_grad(f, wrt=("x",))    # fun(x) -> (f(x), df/dx): scipy's jac=True
    text = s2sad.gradient_source("f.py", wrt=("x",), target="c")

The function's module is read from its source file and translated, never imported or run by
s2sad (``value_and_grad`` calls ``f`` itself, as the caller would). The generated source is
kept in a disk cache (``cache_dir``) and loaded from there as an ordinary module file, so a
second process with the same inputs skips the translation, and Numba finds a file behind the
functions it compiles. Bad input raises ``DifferentiationError`` with the message the command
line prints.
"""

from __future__ import annotations

import functools
import hashlib
import importlib.util
import inspect
import json
import os
import sys
import tempfile
from pathlib import Path
from types import ModuleType
from typing import Any, Callable, Iterable, Optional, Union

import numpy as np

from . import pipeline
from .deep_stack import run_deep
from .diagnostics import DiagnosticError
from .languages import TARGETS, source_language, suffixes_text
from .opt.passes import PipelineError, parse_pipeline
from .parse.c_preprocess import CFlags, macro_flag_problem
from .parse.derivatives import read_derivatives
from .version import VERSION  # the cache key also hashes s2sad's own sources
from .source_files import SourceFileError, c_text, python_text, read_source_bytes
from .ssa.attrs import SCHEDULE_HELP, Schedule, parse_schedule

IN_PROCESS_TARGETS = ("py", "numba")


class DifferentiationError(Exception):
    """s2sad could not differentiate the input. ``str(e)`` is the compiler-style message the
    command line prints (``norm.py:7:15: error: ...``, the source line, a caret, a hint);
    ``diagnostics`` holds the problems one by one (empty for an internal error)."""

    def __init__(self, message: str, diagnostics: Iterable[Any] = ()):
        super().__init__(message)
        self.message = message
        self.diagnostics = list(diagnostics)


# ----------------------------------------------------------------------------------------------
# Options


def make_options(level: int = 2, passes: Optional[str] = None, may_alias: bool = False,
                 checkpoint: Union[None, str, Schedule] = None, all_atomic: bool = False,
                 include_dirs: Iterable[str] = (), defines: Iterable[str] = (),
                 derivatives: Iterable[str] = (), with_value: bool = False,
                 workspace: bool = False) -> pipeline.Options:
    """``pipeline.Options`` from the API's keyword options, which spell the command line's:
    ``level`` (-O), ``passes``, ``may_alias``, ``checkpoint`` ("binomial(10)"), ``all_atomic``,
    ``include_dirs`` (-I), ``defines`` (-D, "NAME" or "NAME=VALUE"), ``derivatives`` (the
    paths of --derivatives files), ``with_value`` and ``workspace`` (C output only). ValueError
    when one is malformed."""
    if level not in (0, 1, 2):
        raise ValueError(f"level must be 0, 1 or 2, not {level!r}")
    if passes is not None:
        try:
            parse_pipeline(passes)
        except PipelineError as e:
            raise ValueError(f"passes: {e}") from None
    if isinstance(checkpoint, str):
        try:
            checkpoint = parse_schedule(checkpoint)
        except ValueError as e:
            raise ValueError(f"checkpoint: {e} (use {SCHEDULE_HELP})") from None
    if isinstance(include_dirs, str) or isinstance(defines, str) or isinstance(derivatives, str):
        raise ValueError("include_dirs, defines and derivatives take a list of strings")
    paths = [str(p) for p in derivatives]
    missing = [p for p in paths if not os.path.isfile(p)]
    if missing:
        raise ValueError(f"derivatives: no such file: {missing[0]}")
    macros = tuple(("D", text) for text in defines)
    for flag, text in macros:
        problem = macro_flag_problem(flag, text)
        if problem is not None:
            raise ValueError(problem)
    return pipeline.Options(level=level, passes=passes, may_alias=may_alias, checkpoint=checkpoint,
                            all_atomic=all_atomic, cflags=CFlags(tuple(include_dirs), macros),
                            derivatives=_translating(lambda: read_derivatives(paths)), with_value=with_value,
                            workspace=workspace)


def _wrt_list(wrt: Union[str, Iterable[str]]) -> list[str]:
    names = wrt.split(",") if isinstance(wrt, str) else list(wrt)
    names = [n.strip() for n in names if n.strip()]
    if not names:
        raise ValueError("wrt needs at least one parameter name")
    return names


# ----------------------------------------------------------------------------------------------
# Translation


def _translating(step: Callable[[], str]) -> str:
    """``step()``, its diagnostics raised as DifferentiationError. Anything else escaping the
    pipeline is a bug in s2sad: it is said so, with the original kept as the cause."""
    try:
        return run_deep(step)  # on a deep stack, as the command line translates (deep_stack)
    except DiagnosticError as e:
        raise DifferentiationError(e.render(), e.diagnostics) from None
    except RecursionError as e:
        raise DifferentiationError(f"s2sad: error: the input is nested too deeply to translate ({e}); "
                                   "hint: split the deepest expression or call chain into statements") from None
    except Exception as e:
        raise DifferentiationError(
            f"s2sad: internal error: {type(e).__name__}: {e}\n"
            "hint: this is a bug in s2sad; please report it with the input file") from e


def _read_file(path: Union[str, os.PathLike]) -> tuple[str, str]:
    """The text of the source file ``path``, read as the command line reads it, and its name."""
    path = os.fspath(path)
    language = source_language(path)
    if language is None:
        raise ValueError(f"{path}: unknown input language (give a {suffixes_text()} file)")
    try:
        data = read_source_bytes(path)
    except SourceFileError as e:
        raise ValueError(f"{path}: {e}") from None
    return (python_text(data, path) if language == "python" else c_text(data)), path


def _function_file(f: Callable) -> tuple[str, str]:
    """The source file and the name of the module-level Python function ``f`` (a
    ``numba.njit`` dispatcher stands for its ``py_func``; decorators that keep
    ``__wrapped__`` are seen through)."""
    f = getattr(f, "py_func", f)
    f = inspect.unwrap(f)
    if not inspect.isfunction(f):
        raise TypeError(f"s2sad differentiates Python functions, not {type(f).__name__} objects")
    # The front end finds functions by name at the top of the module: a nested function or a
    # method would be another function of the same name, or none.
    if f.__qualname__ != f.__name__:
        raise DifferentiationError(
            f"s2sad: error: '{f.__qualname__}' is not defined at the top level of its module\n"
            "hint: s2sad differentiates module-level functions; move it out of the class or function")
    path = inspect.getsourcefile(f)
    if path is None or not os.path.isfile(path):
        raise DifferentiationError(
            f"s2sad: error: the source file of '{f.__name__}' cannot be found (defined interactively?)\n"
            "hint: define it in a .py file")
    return path, f.__name__


Source = Union[str, os.PathLike, Callable]  # a source file's path, or a Python function in one


def _source_of(path_or_function: Source, func: Optional[str]) -> tuple[str, str, Optional[str]]:
    """(source text, file name, function name) for a path or a function."""
    if callable(path_or_function) and not isinstance(path_or_function, (str, os.PathLike)):
        path, name = _function_file(path_or_function)
        source, path = _read_file(path)
        return source, path, func or name
    source, path = _read_file(path_or_function)
    return source, path, func


def gradient_source(path_or_function: Source, func: Optional[str] = None,
                    wrt: Union[str, Iterable[str]] = ("x",), target: str = "py", **options: Any) -> str:
    """The text ``s2sad grad FILE --func FUNC --wrt ... --target TARGET`` writes, for a source
    file's path or a Python function (whose module file is read); ``options`` as ``make_options``."""
    if target not in TARGETS:
        raise ValueError(f"target must be one of {', '.join(TARGETS)}, not {target!r}")
    source, path, func = _source_of(path_or_function, func)
    opts = make_options(**options)
    if opts.workspace and target != "c":
        raise ValueError("workspace applies to C output (target='c')")
    names = _wrt_list(wrt)
    return _translating(lambda: pipeline.gradient_source(source, path, func, names, target, opts))


def ir(path_or_function: Source, func: Optional[str] = None, **options: Any) -> str:
    """The SSA IR ``s2sad ir`` prints (as there, unoptimized unless ``level`` or ``passes`` say)."""
    source, path, func = _source_of(path_or_function, func)
    options.setdefault("level", 0)
    opts = make_options(**options)
    return _translating(lambda: pipeline.ir_text(source, path, func, opts))


# ----------------------------------------------------------------------------------------------
# The disk cache


def cache_dir() -> Path:
    """Where generated gradients are kept: ``$S2SAD_CACHE_DIR``, else ``$XDG_CACHE_HOME/s2sad``,
    else ``~/.cache/s2sad``."""
    if os.environ.get("S2SAD_CACHE_DIR"):
        return Path(os.environ["S2SAD_CACHE_DIR"])
    base = os.environ.get("XDG_CACHE_HOME") or os.path.join(os.path.expanduser("~"), ".cache")
    return Path(base) / "s2sad"


@functools.lru_cache(maxsize=None)
def _translator_fingerprint() -> str:
    """The version and a hash of s2sad's own source: the project changes its output between
    releases without a new version number, and a stale cached gradient would be silently wrong."""
    h = hashlib.sha256(VERSION.encode())
    root = Path(__file__).parent
    for p in sorted(root.rglob("*.py")):
        h.update(str(p.relative_to(root)).encode())
        h.update(p.read_bytes())
    return h.hexdigest()


def _cache_key(source: str, func: str, wrt: list[str], target: str, options: pipeline.Options) -> str:
    described = json.dumps([source, func, wrt, target, repr(options), _translator_fingerprint()])
    return hashlib.sha256(described.encode()).hexdigest()[:32]


def _write_atomically(path: Path, text: str) -> None:
    """``text`` into ``path`` whole or not at all: another process loading the entry meanwhile
    sees the old file or the new one, never half of one."""
    path.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(prefix=f".{path.name}.", suffix=".tmp", dir=path.parent)
    try:
        with os.fdopen(fd, "w", encoding="utf-8") as out:
            out.write(text)
        os.replace(tmp, path)
    finally:
        if os.path.exists(tmp):
            os.unlink(tmp)


_loaded: dict[str, ModuleType] = {}  # cache key -> module, for calls within one process


def load_module_file(path: Path, module_name: str, imports: Iterable[str] = ()) -> ModuleType:
    """The cache file as a module with a real ``__file__`` (what Numba's own cache keys on).
    ``imports``: the Python files it imports by their names (the custom adjoints' files): their
    folders come first on the path while it loads, and a module of the same name loaded from
    elsewhere is not the one meant."""
    spec = importlib.util.spec_from_file_location(module_name, path)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules[module_name] = module
    files = [Path(p).resolve() for p in imports]
    for f in files:
        loaded = getattr(sys.modules.get(f.stem), "__file__", None)
        if loaded is not None and Path(loaded).resolve() != f:
            del sys.modules[f.stem]
    added = [str(f.parent) for f in files if str(f.parent) not in sys.path]
    sys.path[:0] = list(dict.fromkeys(added))
    try:
        spec.loader.exec_module(module)
    except BaseException:
        del sys.modules[module_name]
        raise
    finally:
        for folder in dict.fromkeys(added):
            sys.path.remove(folder)
    return module



def _gradient_module(f: Callable, wrt: list[str], target: str, options: pipeline.Options) -> tuple[ModuleType, str]:
    """The generated module holding ``grad_<f>``, from the process's memo, the disk cache, or a
    fresh translation (then written to the cache), and ``f``'s name."""
    path, name = _function_file(f)
    source, path = _read_file(path)
    key = _cache_key(source, name, wrt, target, options)
    if key in _loaded:
        return _loaded[key], name
    entry = cache_dir() / f"{name}_{key}.py"
    if not entry.is_file():
        text = _translating(lambda: pipeline.gradient_source(source, path, name, wrt, target, options))
        try:
            _write_atomically(entry, text)
        except OSError as e:
            raise OSError(f"cannot write the s2sad cache in {entry.parent}: {e.strerror or e} "
                          "(set S2SAD_CACHE_DIR to a writable directory)") from None
    module = load_module_file(entry, f"_s2sad_cache_{key}", options.derivatives.files(c=False))
    _loaded[key] = module
    return module, name


def grad(f: Callable, wrt: Union[str, Iterable[str]] = ("x",), target: str = "py", **options: Any) -> Callable:
    """The gradient function ``grad_<f>`` that ``s2sad grad`` writes for the module-level function
    ``f`` (or a ``numba.njit`` one), compiled in this process: the same signature and semantics
    (shadows ``d_<name>`` after the arrays in ``wrt`` and those ``f`` writes; ``d_return=1.0``
    last; the adjoints of scalar ``wrt`` parameters returned). ``target``: "py" or "numba";
    ``options`` as ``make_options`` (``level=0``, ``may_alias=True``, ...)."""
    if target not in IN_PROCESS_TARGETS:
        raise ValueError(f"target must be 'py' or 'numba' in-process, not {target!r} "
                         "(gradient_source gives the text for every target)")
    opts = make_options(**options)
    if opts.workspace:
        raise ValueError("workspace applies to C output: gradient_source(..., target='c', workspace=True)")
    module, name = _gradient_module(f, _wrt_list(wrt), target, opts)
    return getattr(module, f"grad_{name}")


# ----------------------------------------------------------------------------------------------
# value_and_grad


def _layout(gradient: Callable, primal_names: list[str]) -> tuple[dict[str, str], bool]:
    """From the gradient's signature: the primal's parameters that have shadows (name ->
    shadow's name) and whether it takes ``d_return``. The gradient keeps the primal's
    parameters in order, each shadow right after its parameter, the seed last (CONTRACT.md)."""
    params = list(inspect.signature(getattr(gradient, "py_func", gradient)).parameters)
    shadows: dict[str, str] = {}
    j = 0
    for p in params:
        if j < len(primal_names) and p == primal_names[j]:
            j += 1
        elif p == "d_return" and j == len(primal_names):
            return shadows, True
        else:
            shadows[primal_names[j - 1]] = p
    return shadows, False


def value_and_grad(f: Callable, wrt: Union[str, Iterable[str]] = ("x",), target: str = "py",
                   **options: Any) -> Callable:
    """``fun(*args) -> (value, gradient)`` for a function ``f`` that returns a number, called with
    ``f``'s own arguments: ``value`` is ``f(*args)``; ``gradient`` is the derivative of the value
    with respect to the ``wrt`` parameters: for one, that parameter's adjoint itself (an array of
    its shape, freshly allocated, for an array; a float for a number), for several, a tuple of
    them in ``wrt``'s order. So ``scipy.optimize.minimize(fun, x0, jac=True)`` works as is for
    a function of one array.

    One call runs the gradient generated ``--with-value`` once, on the arguments themselves
    (doing what ``f`` does to them): its forward sweep computes the value. Arrays ``f`` writes
    are given zero shadows, so the gradient is that of the returned value alone. ``target``
    and ``options``: as ``grad``."""
    names = _wrt_list(wrt)
    primal = getattr(f, "py_func", f)
    try:
        gradient = grad(f, names, target, **dict(options, with_value=True))
    except DifferentiationError as e:
        if any(d.message == f"--with-value: '{primal.__name__}' returns no value" for d in e.diagnostics):
            gradient = None
        else:
            raise
    signature = inspect.signature(primal)
    primal_names = list(signature.parameters)
    shadows, seeded = _layout(gradient, primal_names) if gradient is not None else ({}, False)
    if not seeded:
        raise TypeError(f"value_and_grad needs a function that returns a number; '{primal.__name__}' returns none "
                        f"(use s2sad.grad for the gradient with respect to its outputs)")
    spelled = [n + "_" if n not in primal_names and n + "_" in primal_names else n for n in names]

    def fun(*args: Any, **kwargs: Any) -> tuple[Any, Any]:
        bound = signature.bind(*args, **kwargs)
        bound.apply_defaults()
        values = dict(bound.arguments)
        call: list[Any] = []
        fresh: dict[str, Any] = {}
        for name, v in values.items():
            call.append(v)
            if name in shadows:
                fresh[name] = np.zeros_like(np.asarray(v))
                call.append(fresh[name])
        value, returned = gradient(*call, 1.0)
        scalars = [n for n in primal_names if n in spelled and n not in shadows]
        adjoints = dict(zip(scalars, returned if len(scalars) > 1 else (returned,)))
        adjoints.update(fresh)
        result = tuple(adjoints[n] for n in spelled)
        return value, (result[0] if len(result) == 1 else result)

    fun.__name__ = f"value_and_grad_{primal.__name__}"
    fun.__doc__ = (f"(value, gradient) of {primal.__name__} with respect to {', '.join(names)}; "
                   "see s2sad.value_and_grad")
    return fun
