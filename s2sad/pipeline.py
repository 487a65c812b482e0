"""The s2sad pipeline: parse -> SSA IR -> differentiate -> clean up -> emit.

This is the library face of the tool: the CLI and the tests call these
functions. Each step lives in its own package (``parse``, ``adjoint``, ``opt``,
``emit_py``); this module only strings them together and resolves the user's
choices (which function, which parameters) into IR terms, with diagnostics.

Every diagnostic leaving these functions shows its source line and caret: the stages raise them
with a location only, and ``_shows_source`` adds the lines of the source here, at one boundary.
"""

from __future__ import annotations

import functools
import keyword
import os
import shlex
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Callable, Optional, Sequence, TypeVar

from .adjoint.gradient import differentiate
from .adjoint.activity import unreached_inputs
from .analysis.call_unit_axes import mark_call_unit_axes
from .analysis.effects import OverlappingCall, overlapping_calls, source_written_params
from .ssa.attrs import Schedule, grad_info
from .adjoint.report import MemoryReport
from .adjoint.report import finish as finish_report
from .adjoint.naming import grad_name
from .adjoint.shape_generic import find_shape_generic
from .adjoint.signature import GradSignature
from .diagnostics import Diagnostic, DiagnosticError, error
from .emit_c.emitter import emit_c
from .emit_cuda.emitter import emit_cuda
from .emit_py.emitter import emit_python
from .opt.dce import dce_module, remove_unreachable_functions
from .opt.passes import (ADJOINT_PIPELINES, PRIMAL_PIPELINES, TARGET_PIPELINES, PassContext, Ran, observing,
                         run_pipeline)
from .parse.c_frontend import list_c_external_functions, list_c_functions, list_cuda_kernels, parse_c
from .parse.translation import one_translation
from .parse.c_global_arrays import GLOBAL_ARRAYS, STATIC_ARRAYS, user_param_count
from .parse.c_static_locals import LOCAL_STATICS
from .analysis.extents import Sizes
from .analysis.overwritten import written_before_read
from .parse.c_preprocess import CFlags
from .parse.custom_adjoints import NONE as NO_DERIVATIVES
from .parse.custom_adjoints import Derivatives
from .opt.kernelize import kernelize, launch_text
from .opt.lower_arrays import has_array_ops, refuse as refuse_for_c
from .ssa.ir import Function, Module, SourceLines, SourceLoc
from .ssa.printer import print_module
from .ssa.types import STR, Type

from .languages import TARGETS, is_c, is_cuda
from .progress import stage
from .version import VERSION
from .source_files import source_lines


@dataclass(frozen=True)
class Options:
    """How to optimize: a level, or an exact primal pipeline, and the aliasing assumption."""

    level: int = 2
    passes: Optional[str] = None  # overrides the level's primal pipeline ("inline,cse,licm,dce")
    may_alias: bool = False
    checkpoint: Optional[Schedule] = None  # the schedule of every outermost for loop (--checkpoint)
    report: bool = False  # a memory summary atop each gradient function (--report)
    all_atomic: bool = False  # CUDA: every adjoint accumulation an atomicAdd (bench/gpu.py's baseline)
    cflags: CFlags = CFlags()  # C input: -I directories and -D/-U macros
    derivatives: Derivatives = NO_DERIVATIVES  # custom adjoints (--derivatives)
    with_value: bool = False  # the gradient gives back the primal's value too (--with-value)
    parallel: bool = False  # the gradient's independent loops run in parallel (--parallel)
    workspace: bool = False  # C: the entry's tapes kept across calls in the caller's workspace (--workspace)

    @property
    def primal_pipeline(self) -> str:
        return PRIMAL_PIPELINES[self.level] if self.passes is None else self.passes

    @property
    def adjoint_pipeline(self) -> str:
        return ADJOINT_PIPELINES[self.level]

    @property
    def context(self) -> PassContext:
        return PassContext(may_alias=self.may_alias, all_atomic=self.all_atomic)


DEFAULT = Options()

# How each target runs a loop in parallel (--parallel): the loop attribute its emitter reads.
PARALLEL_LOOPS = {"c": "omp", "numba": "prange"}


Entry = TypeVar("Entry", bound=Callable)


def _shows_source(entry: Entry) -> Entry:
    """``entry(source, filename, ...)``, its diagnostics given the lines of ``source`` where they carry
    none; a file is parsed once while it runs (``one_translation``), however many questions its
    stages ask of the file."""

    @functools.wraps(entry)
    def located(source: str, filename: str, *args, **kwargs):
        try:
            with one_translation():
                return entry(source, filename, *args, **kwargs)
        except DiagnosticError as e:
            if not e.source_lines:
                e.source_lines = source_lines(source)
                if is_c(filename):  # a location in a header the file includes shows no line of this one
                    e.source_lines = SourceLines(e.source_lines, Path(filename).name)
            raise

    return located  # type: ignore[return-value]


@_shows_source
def parse_source(source: str, filename: str, func: str, cflags: CFlags = CFlags(),
                 derivatives: Derivatives = NO_DERIVATIVES) -> Module:
    """The front end for the file's language, its output cleaned of dead ops (``filename``:
    where the file is; a C file's headers are looked for beside it, then in ``cflags``).

    Lowering leaves values nothing reads (a variable's value overwritten before any read,
    a branch merge no one uses); every pipeline, -O0's empty one too, starts without them."""
    stage(f"reading {Path(filename).name}")
    if is_c(filename):
        module = parse_c(source, filename, func, cflags, derivatives)
    else:
        from .parse.python_frontend import parse_python  # libcst loads for Python input only

        module = parse_python(source, Path(filename).name, func, derivatives)
    dce_module(module)
    mark_call_unit_axes(module)
    return module


@_shows_source
def choose_function(source: str, filename: str, func: Optional[str], cflags: CFlags = CFlags()) -> str:
    """The function to differentiate: ``func``, the only one, the one named after the file, a
    .cu file's only ``__global__`` kernel, or a C file's only function that is not ``static``."""
    if func is not None:
        return func  # the front end reports an unknown name, with candidates (no parse here)
    if is_c(filename):
        names = list_c_functions(source, filename, cflags)
    else:
        from .parse.python_frontend import list_functions  # libcst loads for Python input only

        names = list_functions(source, filename)
    if len(names) == 1:
        return names[0]
    stem = Path(filename).stem
    if stem in names:
        return stem
    kernels = list_cuda_kernels(source, filename, cflags) if is_cuda(filename) else []
    if len(kernels) == 1:
        return kernels[0]  # a .cu file's device functions are the kernel's helpers
    if is_c(filename) and not is_cuda(filename):
        external = list_c_external_functions(source, filename, cflags)
        if len(external) == 1:
            return external[0]  # the others are `static`: helpers of this file only
    listing = ", ".join(names) if names else "none"
    raise error(
        f"cannot tell which function to differentiate in {Path(filename).name}",
        hint=f"choose one with --func NAME (functions: {listing})",
    )


def resolve_wrt(fn: Function, names: list[str], source_lines: list[str]) -> set[int]:
    """Parameter indices for the ``--wrt`` names (``in`` matches a parameter ``in_``)."""
    arrays = fn.attrs.get(GLOBAL_ARRAYS) or {}
    params = fn.param_names[:user_param_count(fn)]  # file-scope arrays are not the caller's
    aggregates = fn.attrs.get("c_aggregates") or {}
    dicts = fn.attrs.get("dict_params") or {}  # a dict read by its keys (parse/py_dicts): its items
    in_dict = {item[1]: d for d, items in dicts.items() for item in items}
    tuples = fn.attrs.get("tuple_params") or {}  # a parameter the function unpacks (parse/py_entry_tuples)
    in_dict.update({item: t for t, items in tuples.items() for item in items})
    shown = ", ".join(dict.fromkeys(aggregates[p][0] if p in aggregates else in_dict.get(p, p) for p in params))
    wrt: set[int] = set()
    problems: list[Diagnostic] = []
    for name in names:
        spelled = name + "_" if keyword.iskeyword(name) and name + "_" in params else name
        members = [i for i, p in enumerate(params) if p in aggregates and aggregates[p][0] == name]
        if members and spelled not in params:  # a C struct: its floating-point members
            floats = [i for i in members if _differentiable(fn.params[i].type)]
            if not floats:
                problems.append(Diagnostic(
                    f"--wrt {name}: the struct '{name}' of '{fn.name}' has no floating-point members", fn.loc,
                    hint="list only structs that hold floating-point numbers, or arrays of them, in --wrt"))
            wrt.update(floats)
            continue
        if name in tuples and spelled not in params:  # its floating-point items, each a parameter
            floats = [i for i in map(params.index, tuples[name]) if _differentiable(fn.params[i].type)]
            if not floats:
                problems.append(Diagnostic(
                    f"--wrt {name}: the items of '{name}' ({', '.join(tuples[name])}) hold no floating-point numbers",
                    fn.loc, hint="list only parameters that hold floating-point numbers in --wrt"))
            wrt.update(floats)
            continue
        if name in dicts and spelled not in params:
            problems.append(Diagnostic(
                f"--wrt {name}: parameter '{name}' of '{fn.name}' is a dict, which s2sad does not differentiate "
                "with respect to", fn.loc, hint="pass the numbers to differentiate with respect to as parameters "
                "of their own"))
            continue
        if spelled not in params:
            problems.append(
                Diagnostic(
                    f"--wrt {name}: function '{fn.name}' has no parameter '{name}'"
                    + (f" ('{name}' is an array at file scope, which the function uses)" if name in arrays else ""),
                    fn.loc,
                    hint=f"its parameters are: {shown or 'none'}",
                )
            )
            continue
        i = params.index(spelled)
        t = fn.params[i].type
        if not _differentiable(t):
            problems.append(
                Diagnostic(
                    f"--wrt {name}: parameter '{spelled}' of '{fn.name}' is an integer and cannot be differentiated",
                    fn.loc,
                    hint="list only floating-point scalars and arrays in --wrt "
                    + ("(declare it double if it holds real numbers)" if "c_params" in fn.attrs
                       else "(annotate it `: float` if it holds real numbers)"),
                )
            )
            continue
        wrt.add(i)
    if problems:
        raise DiagnosticError(problems, source_lines)
    return wrt


def _differentiable(t: Type) -> bool:
    """A floating-point number, or an array of them."""
    return t.is_float or (t.is_array and t.elem.is_float)  # type: ignore[attr-defined]


@_shows_source
def primal_module(source: str, filename: str, func: Optional[str], options: Options = DEFAULT,
                  kernel: bool = False, native_indices: bool = False) -> tuple[Module, str]:
    """The parsed function (and its callees), optimized by the options' primal pipeline; with
    ``kernel``, its outermost loop first made a CUDA kernel (``--target cuda`` of C or Python);
    with ``native_indices``, for Python and Numba output, indices that may be negative are left
    for NumPy and Numba to count from the end, first (``opt.native_indices``)."""
    name = choose_function(source, filename, func, options.cflags)
    module = parse_source(source, filename, name, options.cflags, options.derivatives)
    if kernel:
        kernelize(module, name)
    passes = options.primal_pipeline
    if native_indices:
        passes = ",".join(["native-indices", passes]) if passes else "native-indices"
    context = replace(options.context, called_from_outside=name)
    if not options.may_alias:
        overlapping = overlapping_calls(module)
        if overlapping:  # the contract's no-overlap holds for the entry's arguments, not these
            module.may_alias, module.overlapping = True, [_overlap_note(c) for c in overlapping]
            context = replace(context, may_alias=True)
    run_pipeline(module, passes, context, "primal")
    remove_unreachable_functions(module, [name])
    # At every level: a np.where branch undefined where it is thrown away gives no NaN to the
    # adjoint (opt.masked_where).
    run_pipeline(module, "masked-where", context, "pre-differentiation")
    return module, name


@_shows_source
def gradient_module(
    source: str,
    filename: str,
    func: Optional[str],
    wrt: list[str],
    options: Options = DEFAULT,
    report_lines: Optional[list[str]] = None,
    kernel: bool = False,
    shape_generic: Optional[str] = None,
    c_output: bool = False,
    parallel: Optional[str] = None,
    memory: Optional[list[MemoryReport]] = None,
) -> Module:
    """The gradient module; with ``options.report``, its memory summary goes into ``report_lines``
    and, when ``memory`` is a list, the reports themselves into it (bench/tape_bytes.py runs them)
    (``kernel``: see primal_module); ``shape_generic``: "py" or "numba", for Python and Numba
    output, which serve parameters of any broadcasting shape (adjoint.shape_generic; Numba
    compiles the gradient for each kind of argument it is called with, but gives a variable that a
    loop carries one type; C fixes each parameter's kind: there they stay checked numbers)."""
    module, name = primal_module(source, filename, func, options, kernel, native_indices=shape_generic is not None)
    if module.may_alias:  # one array passed twice to a function that writes it (overlapping_calls)
        options = replace(options, may_alias=True)
    primal = module.functions[name]
    _refuse_stale_statics(module, primal)
    indices = resolve_wrt(primal, wrt, module.source_lines)
    reports: Optional[list[MemoryReport]] = [] if options.report or memory is not None else None
    assumed = dict(primal.attrs.get("assumed") or {})
    guards = _entry_guards(primal, indices)
    # Assumed ranks of parameters that only meet arrays in broadcasting arithmetic: any shape that
    # broadcasts there is served (adjoint.shape_generic); their rank check becomes a check of their
    # axes. (Not a number with a default: its shadow would follow it in the signature without one.)
    defaults = primal.attrs.get("param_defaults") or {}
    never = set(primal.attrs.get("not_shape_generic") or ())  # (py_types: np.mean of a number, Z[i])
    generic = find_shape_generic(primal, [n for n, rank in guards.items() if (rank != 0 or n not in defaults)
                                          and n not in never], indices,
                                 carried=shape_generic == "py") if shape_generic else {}
    for n in generic:
        del guards[n]
    stage(f"differentiating {name}")
    if report_lines is not None:
        for i in unreached_inputs(module, primal, indices):
            report_lines.append(f"s2sad: note: '{name}' depends on '{primal.params[i].name_hint}' only through "
                                "comparisons, branches or integers, never through arithmetic: its adjoint is 0")
    out = differentiate(module, name, indices, options.may_alias, options.checkpoint, reports, options.with_value)
    if c_output:
        _refuse_for_c(out, module)
    grad = out.functions[grad_name(name)]
    if assumed:  # the kinds the code does not prove: C and CUDA output refuse them (gradient_source)
        grad.attrs["assumed"] = assumed
        grad.attrs["rank_free"] = list(primal.attrs.get("rank_free") or [])
    if guards:  # those the generated Python depends on: the entry gradient checks them (emit_py)
        grad.attrs["guards"] = guards
    if primal.attrs.get("same_extents"):  # extents the lowering took to be equal: checked on entry too
        grad.attrs["same_extents"] = primal.attrs["same_extents"]
    if shape_generic:  # Python output: an unannotated array parameter it only reads may come as a list
        # (Numba's entry ignores it: Numba takes no list for an array)
        written = source_written_params(module, primal)
        grad.attrs["sequences"] = [p.name_hint for i, p in enumerate(primal.params)
                                   if p.type.is_array and i not in written and p.name_hint in assumed]
    if generic:  # name -> the most axes it may have; a differentiated one's adjoint goes to a shadow
        grad.attrs["shape_generic"] = generic
        if primal.attrs.get("generic_fewest"):
            grad.attrs["generic_fewest"] = primal.attrs["generic_fewest"]
        sig = GradSignature.of(module, primal, indices)
        grad.attrs["generic_shadows"] = {primal.params[i].name_hint: sig.pointer_names[i] for i in sig.returned
                                         if primal.params[i].name_hint in generic}
    out.may_alias, out.overlapping = options.may_alias, module.overlapping
    run_pipeline(out, options.adjoint_pipeline,
                 replace(options.context, called_from_outside=grad_name(name), parallel=parallel), "adjoint")
    remove_unreachable_functions(out, [grad_name(name)])
    if reports is not None:
        lines = finish_report(out, reports)  # after the cleanups: only the tapes they kept
        if report_lines is not None:
            report_lines += lines
        if memory is not None:
            memory += reports
    return out


# The guard of a parameter that must be an array of any rank (emit_py.rank_checks).
ANY_RANK = -1


def _refuse_for_c(gradients: Module, primal: Module) -> None:
    """A located error where the gradient has an op C output cannot have yet, naming what the
    source wrote there where the primal has one (np.linalg.slogdet, not the inverse its adjoint
    takes); ``lower-arrays`` would refuse the same op later, by the name it has in the gradient."""
    try:
        for fn in gradients.functions.values():
            if has_array_ops(fn):
                refuse_for_c(fn)
    except DiagnosticError:
        for fn in primal.functions.values():
            if has_array_ops(fn):
                refuse_for_c(fn)
        raise


def _entry_guards(primal: Function, wrt: set[int]) -> dict[str, int]:
    """The assumed parameter ranks (attrs "assumed") that Python output checks on entry: all
    but those no generated code depends on (attrs "rank_free"), unless such a one is
    differentiated: then its kind decides the gradient's signature (a number's adjoint is
    returned, an array's added into a shadow), so a number stays checked to be one, and an
    array to be an array, of any rank (ANY_RANK: a number passed there would leave its shadow,
    a float the gradient cannot add into, as it was)."""
    assumed = primal.attrs.get("assumed") or {}
    free = set(primal.attrs.get("rank_free") or ())
    differentiated = {primal.params[i].name_hint for i in wrt}
    out = {}
    for name, rank in assumed.items():
        if name not in free:
            out[name] = rank
        elif name in differentiated:
            out[name] = rank if rank == 0 else ANY_RANK
    return out


def _header(filename: str, func: str, wrt: list[str], target: str, options: Options,
            overlapping: Sequence[str] = ()) -> str:
    flags = "" if options == DEFAULT else " " + " ".join(_flags(options, filename))
    notes = "".join(f"# {note}\n" for note in overlapping)
    if notes:
        notes += "# Translated as with --may-alias: a store to one array parameter may change another.\n"
    return (
        f"# Generated by s2sad {VERSION} from {Path(filename).name}: the gradient of {func} "
        f"with respect to {', '.join(wrt)}.\n"
        f"# Regenerate with: s2sad grad {shlex.quote(Path(filename).name)} --func {shlex.quote(func)} "
        f"--wrt {shlex.quote(','.join(wrt))} --target {target}{flags}\n" + notes
    )


def _overlap_note(c: OverlappingCall) -> str:
    """An overlapping call in words, for the output's header."""
    line = f" at line {c.call.loc.line}" if c.call.loc is not None else ""
    first, second = c.params
    return f"The call of {c.callee}{line} passes one array as both '{first}' and '{second}', which it writes."


def _flags(options: Options, filename: str) -> list[str]:
    """The command-line flags that reproduce ``options``, run in the folder of the input
    ``filename`` (as the header's command names the input)."""
    flags = []
    if options.passes is not None:
        flags.append("--passes " + (options.passes or "''"))
    elif options.level != DEFAULT.level:
        flags.append(f"-O{options.level}")
    if options.may_alias:
        flags.append("--may-alias")
    if options.checkpoint is not None:
        flags.append(f"--checkpoint '{options.checkpoint}'")
    if options.report:
        flags.append("--report")
    if options.all_atomic:
        flags.append("--all-atomic")
    if options.with_value:
        flags.append("--with-value")
    if options.parallel:
        flags.append("--parallel")
    if options.workspace:
        flags.append("--workspace")
    here = Path(filename).resolve().parent
    flags += [f"--derivatives {shlex.quote(os.path.relpath(Path(p).resolve(), here))}"
              for p in options.derivatives.paths]
    return flags + options.cflags.spelled()


@_shows_source
def gradient_source(
    source: str,
    filename: str,
    func: Optional[str],
    wrt: list[str],
    target: str = "py",
    options: Options = DEFAULT,
    report_lines: Optional[list[str]] = None,
) -> str:
    """The gradient as source text in the ``target`` language (``report_lines``: see gradient_module)."""
    if target not in TARGETS:
        raise error(f"target '{target}' is not supported yet", hint="use --target py, numba, c or cuda")
    kernel = target == "cuda" and not is_cuda(filename)
    name = choose_function(source, filename, func, options.cflags)
    module = gradient_module(source, filename, name, wrt, options, report_lines, kernel,
                             shape_generic=target if target in ("py", "numba") else None,
                             c_output=target in ("c", "cuda"),
                             parallel=PARALLEL_LOOPS.get(target) if options.parallel else None)
    header = _header(filename, name, wrt, target, options, module.overlapping)
    launch = launch_text(module.functions[grad_name(name)], grad_name(name))
    if launch is not None:
        header += "".join(f"# {line}\n" for line in launch.split("\n"))
    cuda = module.functions[grad_name(name)].attrs.get("cuda")
    if cuda is not None and target != "cuda":
        raise error(f"--target {target}: the gradient of CUDA {'kernel' if cuda == 'global' else 'function'} "
                    f"'{name}' is CUDA", hint="use --target cuda for .cu input")
    if target != "c":
        _refuse_struct_params(module, grad_name(name), target, module.source_lines)
        _refuse_global_arrays(module.functions[grad_name(name)], target, module.source_lines)
    tuples = module.functions[grad_name(name)].attrs.get("tuple_params")
    if target not in ("py", "numba") and tuples:
        packed, items = next(iter(tuples.items()))
        _refuse_packed_param(source, filename, name, packed, f"--target {target}: parameter '{packed}' of '{name}' "
                             f"is unpacked into {', '.join(items)}, and C output takes arrays, not tuples of them",
                             f"use --target py or numba, or take {', '.join(items)} as parameters",
                             module.source_lines)
    if target != "py" and module.functions[grad_name(name)].attrs.get("dict_params"):
        dict_name = next(iter(module.functions[grad_name(name)].attrs["dict_params"]))
        taker = "Numba functions do" if target == "numba" else "C output does"
        _refuse_packed_param(source, filename, name, dict_name, f"--target {target}: parameter '{dict_name}' of "
                             f"'{name}' is a dict, which {taker} not take", "use --target py", module.source_lines)
    if target in ("c", "cuda"):
        if not is_c(filename):
            _refuse_strings(module, source, filename, name, target)
            _refuse_assumed_kinds(module.functions[grad_name(name)], source, filename, name, target,
                                  module.source_lines)
        _refuse_array_helpers(module.functions[grad_name(name)], target, module.source_lines)
        for fn in module.functions.values():  # the function differentiated or a helper it calls
            info = grad_info(fn)
            if info is not None:
                _refuse_array_result(fn, fn.attrs.get("specialized_from", info.primal), target, module.source_lines)
        _refuse_several_results(module, name, target, module.source_lines)
    return emit_source(module, target, grad_name(name), header, options)


def _refuse_packed_param(source: str, filename: str, name: str, param: str, message: str, hint: str,
                         lines: list[str]) -> None:
    """The located error for a parameter of Python's ``name`` the target does not take as the
    function does (a dict read by keys, a tuple unpacked), at the parameter as written."""
    from .parse.python_frontend import parameter_locations  # Python input only

    raise DiagnosticError([Diagnostic(message, parameter_locations(source, Path(filename).name, name).get(param),
                                      hint=hint)], lines)


def emit_source(module: Module, target: str, entry: str, header: str = "", options: Options = DEFAULT) -> str:
    """``module`` as ``target`` source (``entry``: the function its caller calls, in C the one
    with external linkage): the target's pipeline prepares the IR for its emitter first
    (``TARGET_PIPELINES``: C has no array values), then the emitter prints it."""
    if TARGET_PIPELINES[target]:
        run_pipeline(module, TARGET_PIPELINES[target],
                     replace(options.context, entry=entry, may_alias=options.may_alias or module.may_alias), "target")
    stage(f"writing {target} output")
    if target == "cuda":
        return emit_cuda(module, header, entry)
    if target == "c":
        return emit_c(module, header, entry, options.workspace)
    return emit_python(module, target, header, entry)


def _refuse_struct_params(module: Module, entry: str, target: str, lines: list[str]) -> None:
    """Structs passed by value or by pointer to one (``c_records``) keep their C declaration in
    C output only: other targets have no such parameter to offer the caller of the gradient
    (``entry``). A helper's struct parameters are its members, parameters of their own in every
    output, as C output declares them too (``vsub(a_x, a_y, a_z, ...)``)."""
    fn = module.functions[entry]
    aggregates = fn.attrs.get("c_aggregates")
    if aggregates:
        group, spelled = next(iter(aggregates.values()))[:2]
        raise DiagnosticError([Diagnostic(
            f"--target {target}: '{fn.attrs.get('primal', fn.name)}' takes the struct '{group}' "
            f"({spelled}), which only C output passes as written", fn.loc, hint="use --target c")], lines)


def _refuse_stale_statics(module: Module, primal: Function) -> None:
    """A static array at file scope (``parse.c_global_arrays``): the gradient's file has an array of
    its own, which serves only where the function writes every element before it reads it."""
    static = primal.attrs.get(STATIC_ARRAYS) or []
    if not static:
        return
    first = user_param_count(primal)
    names = list(primal.attrs[GLOBAL_ARRAYS])
    sizes = Sizes(module)
    local = primal.attrs.get(LOCAL_STATICS) or {}
    for name in static:
        if written_before_read(module, primal, first + names.index(name), sizes):
            continue
        if name in local:  # (c_static_locals: a static local array, kept at file scope)
            what, held, hint = (
                f"'{local[name]}' is a static local array", "its initial values or what an earlier call left",
                "write every element a call reads before it reads it (a scratch buffer), and pass what one call "
                "keeps for the next as a parameter")
        else:
            what, held, hint = (f"'{name}' is a static array at file scope", "what an earlier call left",
                                "drop static (the gradient then uses the program's array, declared extern)")
        raise DiagnosticError([Diagnostic(
            f"{what}, and s2sad cannot tell that '{primal.name}' writes every element of it before reading "
            f"it: the gradient, in a file of its own, has an array of its own, which holds {held} only where "
            "nothing of that is read", primal.loc, hint=hint)], module.source_lines)


def _refuse_global_arrays(grad: Function, target: str, lines: list[str]) -> None:
    """A C function that uses arrays at file scope (``parse.c_global_arrays``): only C output
    reaches the program's arrays (declared extern there)."""
    arrays = grad.attrs.get(GLOBAL_ARRAYS)
    if arrays:
        name = next(iter(arrays))
        local = (grad.attrs.get(LOCAL_STATICS) or {}).get(name)
        what = f"the static local array '{local}'" if local else f"the array '{name}' at file scope"
        raise DiagnosticError([Diagnostic(
            f"--target {target}: '{grad_info(grad).primal}' uses {what}, which only C output can reach", grad.loc,
            hint="use --target c, or pass the array to the function as a parameter")], lines)


def _refuse_array_result(grad: Function, name: str, target: str, lines: list[str]) -> None:
    """C and CUDA gradients of a function that returns an array: not yet (the contract gives C's
    ``d_return`` as a number; an array seed would need its extents spelled as parameters)."""
    where = grad.attrs.get("array_result")
    if where is None:
        return
    loc = SourceLoc(grad.loc.file if grad.loc else "", *where)
    raise DiagnosticError([Diagnostic(
        f"--target {target}: '{name}' returns an array, and C output of its gradient is not supported yet",
        loc, hint="use --target py or numba, or write the result into an output array parameter",
    )], lines)


def _refuse_array_helpers(grad: Function, target: str, lines: list[str]) -> None:
    """Python input whose function differentiated calls a helper that returns an array: C and CUDA
    output refuse it at every -O level, whether or not a pass inlined the helper (the source
    decides, so the answer is the same at every level)."""
    helpers = grad.attrs.get("array_helpers") or {}
    if not helpers:
        return
    name, where = next(iter(helpers.items()))
    loc = SourceLoc(grad.loc.file if grad.loc else "", *where)
    raise DiagnosticError([Diagnostic(
        f"--target {target}: '{name}' returns an array, and C output of a helper that returns an array is not "
        "supported yet", loc, hint="use --target py or numba, or write the result into an output array parameter",
    )], lines)


def _refuse_several_results(module: Module, entry: str, target: str, lines: list[str]) -> None:
    """A C function returns one value: the function differentiated (``entry``) that returns
    several (a tuple), whose gradient's C signature would take a seed for each, is refused. In C
    output a helper that does writes its results through pointers, and its gradient takes the
    seeds as parameters of their own (emit_c); CUDA output refuses it too."""
    for fn in module.functions.values():
        info = grad_info(fn)
        name = info.primal if info is not None else fn.name
        if name != entry and target == "c":
            continue
        if fn.attrs.get("result_names"):  # the gradient keeps the primal's source attributes
            raise DiagnosticError([Diagnostic(
                f"--target {target}: '{name}' returns a struct ({fn.attrs.get('c_result')}), and the function "
                "differentiated must return one number or nothing", fn.loc,
                hint="write the members into a struct the caller passes by pointer, or return one number")], lines)
        if "packed" in fn.attrs or (info is None and len(fn.result_types) > 1):
            raise DiagnosticError([Diagnostic(
                f"--target {target}: '{name}' returns several values, which a C function cannot",
                fn.loc, hint="use --target py or numba, or return one value and write the others into an "
                "output array parameter")], lines)


def _refuse_strings(module: Module, source: str, filename: str, name: str, target: str) -> None:
    """C and CUDA gradients of Python that compares strings (a parameter ``mode="mean"``): C has
    no string C callers would pass as Python's are (``char *`` compared by ``strcmp``)."""
    from .parse.python_frontend import parameter_locations  # Python input only

    entry = module.functions[grad_name(name)]
    for fn in [entry, *(f for f in module.functions.values() if f is not entry)]:  # the function's own first
        for p in fn.params:
            if p.type != STR:
                continue
            info = grad_info(fn)
            primal = info.primal if info is not None else fn.name
            where = parameter_locations(source, Path(filename).name, name).get(p.name_hint) if primal == name else None
            raise DiagnosticError([Diagnostic(
                f"--target {target}: parameter '{p.name_hint}' of '{primal}' is a string, which C output does not "
                "take", where or fn.loc, hint="use --target py or numba (they keep the string and its comparisons)")],
                module.source_lines)


def _extent_annotation(grad: Function, fact: dict) -> str:
    """The annotation that settles an extent fact for C output, where one does: a vector taken to
    have a constant length (``y0: "f64[2]"``); else nothing."""
    sides = [tuple(side) for side in fact["sides"]]
    dims = [side for side in sides if side[0] == "dim"]
    consts = [side for side in sides if side[0] == "const"]
    param = next((p for p in grad.params if dims and p.name_hint == dims[0][1]), None)
    if not consts or param is None or not param.type.is_array or param.type.rank != 1:
        return ""
    elem = "i64" if param.type.elem.is_int else "f64"  # type: ignore[attr-defined]
    return f', or annotate {param.name_hint}: "{elem}[{consts[0][1]}]"'


def _annotated_equal(sides: list, shapes: dict) -> bool:
    """Whether extents said to be equal (``["dim", name, axis]``, ``["const", k]``) are one constant
    by the parameters' annotations (``shapes``: name -> each axis's extent as written)."""
    def constant(side: list) -> Optional[int]:
        if side[0] == "const":
            return side[1]
        if side[0] == "dim" and side[1] in shapes and side[2] < len(shapes[side[1]]):
            spelled = str(shapes[side[1]][side[2]])
            return int(spelled) if spelled.isdigit() else None
        return None

    values = [constant(side) for side in sides]
    return None not in values and len(set(values)) == 1


def _refuse_assumed_kinds(grad: Function, source: str, filename: str, name: str, target: str,
                          lines: list[str]) -> None:
    """C and CUDA gradients of Python whose parameter kinds the code does not prove (attrs
    "assumed"): a C signature fixes each parameter's kind and rank, and nothing checks a caller
    against it at run time (a pointer carries no rank, a double takes an int), so a guess there
    could be silently wrong. Python output checks the guesses on entry instead."""
    assumed = grad.attrs.get("assumed") or {}
    shapes = grad.attrs.get("shapes") or {}
    # (a C caller's arrays carry no extents to check; an annotation's constant lengths are the
    # caller's to give, as a C declaration's: y: "f64[3]" unpacked into three names says nothing more)
    extents = [fact for fact in grad.attrs.get("same_extents") or [] if not _annotated_equal(fact["sides"], shapes)]
    if extents:
        fact = extents[0]
        line, col, end_line, end_col = fact["loc"]
        if "why" not in fact:  # a rebinding in this function's loop
            what = (f"'{fact['name']}' is rebound in a loop to a value whose shape is the one it had before only "
                    "if parameters' extents are equal")
        elif fact.get("alike"):  # two extents a callee takes to be equal
            what = (f"'{fact['name']}' has the length the code takes it to have ({fact['why']}) only if "
                    "parameters' extents are equal")
        else:  # a length an unpacking takes
            what = f"'{fact['name']}' is unpacked into names, as many as it has items only if its length is right"
        raise DiagnosticError([Diagnostic(
            f"--target {target}: {what}, which a C caller's arrays do not let the gradient check",
            SourceLoc(grad.loc.file if grad.loc else filename, line, col, end_line, end_col),
            hint="use --target py or numba (their gradients check it on entry)" + _extent_annotation(grad, fact))],
            lines)
    # An integer taken for one (``x[idx]``, which NumPy takes an array of integers for too): a C
    # ``long`` takes no array (a caller's pointer does not compile), so no guess of C's is silent.
    ints = {p.name_hint for p in grad.params if p.type.is_int}
    assumed = {param: rank for param, rank in assumed.items() if not (rank == 0 and param in ints)}
    if not assumed:
        return
    from .parse.python_frontend import parameter_locations  # Python input only

    free = set(grad.attrs.get("rank_free") or ())
    where = parameter_locations(source, Path(filename).name, name)
    problems = []
    int_arrays = {p.name_hint for p in grad.params if p.type.is_array and p.type.elem.is_int}  # type: ignore
    for param, rank in assumed.items():
        if rank > 0:
            elem = "i64" if param in int_arrays else "f64"  # (an index array: y of p[np.arange(n), y])
            matrix = f'"{elem}[m, n]"' if rank == 1 else f'"{elem}[n]"'
            problems.append(Diagnostic(
                f"--target {target}: the rank of parameter '{param}' is not evident in '{name}' "
                f"(it would be taken for a {rank}-D array), and a C caller's array carries no rank to check",
                where.get(param, grad.loc),
                hint=f'annotate {param}: "{_shape_of_rank(rank, elem)}" (or {param}: {matrix} for a '
                     f'{"matrix" if rank == 1 else "vector"})'))
        else:
            why = ("its value is never used" if param in free
                   else "its use in NumPy operations takes an array as well as a number")
            problems.append(Diagnostic(
                f"--target {target}: the kind of parameter '{param}' is not evident in '{name}' ({why}), "
                f"and a C signature would have to guess it",
                where.get(param, grad.loc),
                hint=f'annotate {param}: float, {param}: int, or {param}: "f64[n]" for an array'))
    raise DiagnosticError(problems, lines)


def _shape_of_rank(rank: int, elem: str = "f64") -> str:
    """An annotation of that rank, as the rank guards spell them: "f64[n]", "f64[m, n]", ..."""
    names = ["n"] if rank == 1 else ["m", "n"] if rank == 2 else [f"n{k}" for k in range(rank)]
    return f"{elem}[{', '.join(names)}]"


IR_STAGES = ("primal", "optimized", "adjoint")


@_shows_source
def ir_text(source: str, filename: str, func: Optional[str], options: Options = Options(level=0),
            stage_name: str = "optimized", wrt: Optional[list[str]] = None, print_after: Optional[str] = None) -> str:
    """The SSA IR in its textual form (``s2sad ir``) at ``stage_name``: "primal", as the front
    end writes it; "optimized", after the options' pipeline; "adjoint", the gradient with
    respect to ``wrt`` after the adjoint pipeline. With ``print_after`` (a pass name, or "all"),
    the IR after every run of that pass on the way there instead, each under a ``//`` line
    saying which pass of which pipeline it follows."""
    shown: list[str] = []

    def after(ran: Ran, module: Module) -> None:
        if ran.place and print_after in ("all", ran.name):
            shown.append(f"// after {ran.name}: pass {ran.place} of {len(ran.names)} of the {ran.label} "
                         f"pipeline ({','.join(ran.names)})\n" + print_module(module))

    with observing(after):
        if stage_name == "primal":
            name = choose_function(source, filename, func, options.cflags)
            module = parse_source(source, filename, name, options.cflags, options.derivatives)
        elif stage_name == "adjoint":
            module = gradient_module(source, filename, func, list(wrt or []), options)
        else:
            module, _ = primal_module(source, filename, func, options)
    if print_after is not None:
        if not shown:
            return f"// {print_after}: no such pass ran on the way to the {stage_name} stage\n"
        return "\n".join(shown)
    return print_module(module)
