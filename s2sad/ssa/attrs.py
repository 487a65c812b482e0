"""Typed readings of attributes the front ends put on ops, for the stages after them.

A loop's checkpointing schedule: the front ends read the annotation on the line above a loop
(``parse/annotations.py``) into ``checkpoint = "binomial(10)"`` and ``checkpoint_at = [line,
column, end column]`` (where the schedule is written, for errors about it); reverse mode
(``adjoint/checkpoint.py``) and the CUDA kernelizer read them back with ``loop_schedule``.
The ``--checkpoint`` option is read with the same ``parse_schedule``.

A gradient function: reverse mode records, by parameter name, which function it is the
gradient of, which parameters are shadows and of what, which parameters its results are the
adjoints of, and its seed parameter (``set_grad_info``). Every later stage reads them back as
parameter indices with ``grad_info``, the one place that also knows how to read IR written
without them (hand-written ``.ir``: shadows by their ``d_`` names). A gradient keeps what the
front end recorded of its primal's source (``SOURCE_ATTRS``): the emitters spell its
declaration from the primal's and ``grad_info`` (C: ``emit_c/signature.py``).
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Optional

from .ir import Function, Op, SourceLoc, Value
from .ops import points_into_member, storage_of, struct_in_member

# What the front ends record of a function's source for the emitters, which its gradient keeps:
# annotated shapes; C input's declaration (parameter and result types, struct parameters),
# macros, structs, typedefs and unsigned types; CUDA's kind of function and launch; the packed
# parameters of Python's function differentiated (dicts, tuples) and the fills of its None defaults.
SOURCE_ATTRS = ("shapes", "c_params", "c_result", "c_aggregates", "c_macros", "c_structs", "c_mixed", "c_typedefs",
                "c_unsigned", "cuda", "launch", "result_names", "specialized_from", "given",
                "array_helpers", "global_arrays", "static_arrays", "local_statics", "dict_params",
                "none_fills", "tuple_params")

# A float op the source spelled with NumPy on numbers (``np.log(x)``, ``np.divide(a, b)``), and the
# ops its derivative rule made: the Python output computes them with NumPy's function, which gives
# inf or NaN where ``math`` and float division raise (``emit_py``). Other targets compute as C does.
NUMPY = "numpy"
# The operands of an ``arr.`` op that are shape-generic (``adjoint.shape_generic``): numbers in the
# IR that may be arrays of any broadcasting shape when the Python output runs, so the op's result
# may be bigger than its array operands.
GENERIC_OPERANDS = "generic_operands"
# A ``math.<fn>`` op the source spelled with scipy.special's function (``gammaln(k + 1)``), an array
# function as NumPy's are (``NUMPY``); on numbers it is the number's function.
SCIPY = "scipy"
# Such an op of values of a shape-generic parameter that takes no adjoint (``adjoint.shape_generic``):
# the Python output applies the array function, whatever the shape it runs at.
GENERIC_MATH = "generic_math"
# An op whose result is computed from a shape-generic parameter (``adjoint.shape_generic``): a
# number in the IR, maybe an array when the Python output runs, so never kept on a tape of numbers
# (``adjoint.availability``): the reverse sweep computes it again.
GENERIC_VALUE = "generic_value"
# A ``dim`` op that is the source's own read of an extent counted from the front (``len(x)``,
# ``x.shape[0]``): the same number at any rank the array has, unlike an extent the lowering reads
# for the IR's rank (``np.zeros_like(x)``, ``x.size``), so a shape-generic array may have it.
SOURCE_EXTENT = "source_extent"
# Where a whole reduction of a number was (``np.sum(total)`` of a number ``total``: the IR takes
# the number for its own value and has no op for it): on the op whose result it reduced, for a loop
# or branch the indices of those results, and on a function the names of its parameters. A number
# may be an array when the Python output runs (``adjoint.shape_generic``), and then the reduction
# is not its own value: ``mark_whole_reduced`` and ``whole_reduced`` keep that known.
WHOLE_REDUCED = "whole_reduced"
# A ``for`` of a reverse sweep (``adjoint.reverse``): every number it carries is an adjoint, which
# its iterations add contributions to in an order reverse mode does not fix (``opt/factor_sums``).
REVERSED = "reversed"
NUMPY_OPS = ("div", "pow")  # besides the math.<fn> ops
# How the output adds an accumulation where threads or iterations run at once (``opt/accum_modes``):
# on an ``accum`` op, or the store of the user's ``x[k] += g``, one of ``analysis.accumulation``'s
# modes ("private", "block", "warp", "atomic"); on a kernel's gradient, how it adds the scalar
# adjoints it returns. Emitters print the mode; none decides it.
ACCUMULATE = "accumulate"
# On a ``prange`` loop whose iterations Numba cannot run in parallel: why (``opt/accum_modes``).
SERIAL = "serial"
# A ``select`` that counts a Python index from the end where it is negative (``x[i - 1]`` at
# ``i = 0``, ``x[k]`` of a negative ``k``, an index array's negative entries): ``k + n`` where
# ``k < 0``. NumPy and Numba index so themselves, so for the Python targets the select is its
# index again (``opt.native_indices``); C and CUDA keep it, where ``x[-1]`` reads before the array.
FROM_END = "from_end"
# An ``if`` of C input's pointer dispatch (``parse.c_pointers``): one branch per array a pointer
# that is swapped or chosen at run time may hold. Calls in such branches pass every combination
# of the arrays the pointers may hold, also those no run takes (two swapped pointers holding one
# array), so ``analysis.effects.overlapping_calls`` does not count their arguments as overlapping.
POINTER_CASES = "pointer_cases"


def mark_whole_reduced(fn: Function, v: Value) -> None:
    """Record that the source reduced the number ``v`` of ``fn`` as a whole (``WHOLE_REDUCED``)."""
    op = v.defining_op
    if op is not None:
        op.attrs[WHOLE_REDUCED] = sorted({*op.attrs.get(WHOLE_REDUCED, ()), v.index})
    elif v.owner is fn.body:
        fn.attrs[WHOLE_REDUCED] = sorted({*fn.attrs.get(WHOLE_REDUCED, ()), v.name_hint})
    elif v.owner.parent_op is not None:  # a value a loop carries into its body
        loop = v.owner.parent_op
        loop.attrs[WHOLE_REDUCED + "_args"] = sorted({*loop.attrs.get(WHOLE_REDUCED + "_args", ()), v.index})


def c_input(fn: Function) -> bool:
    """Whether ``fn`` comes from C input (its front end recorded the parameters' C spelling)."""
    return fn.attrs.get("c_params") is not None


def c_param_spelled(fn: Function, at: int) -> Optional[str]:
    """How C input declares ``fn``'s parameter ``at`` (``const double *``); None for Python
    input, or where passes have added parameters since."""
    spelled = fn.attrs.get("c_params")
    if spelled is None or len(spelled) != len(fn.params):
        return None
    return spelled[at]


def whole_reduced(fn: Function, v: Value) -> bool:
    """Whether the source reduced the number ``v`` as a whole (``mark_whole_reduced``)."""
    op = v.defining_op
    if op is not None:
        return v.index in op.attrs.get(WHOLE_REDUCED, ())
    if v.owner is fn.body:
        return v.name_hint in fn.attrs.get(WHOLE_REDUCED, ())
    loop = v.owner.parent_op
    return loop is not None and v.index in loop.attrs.get(WHOLE_REDUCED + "_args", ())


def numpy_spelled(op: Op) -> bool:
    return bool(op.attrs.get(NUMPY))


SCHEDULES = ("store-all", "recompute", "periodic", "binomial")
SCHEDULE_HELP = "store-all, recompute, periodic(K) or binomial(S), with K and S positive integers"
_ARG_NAMES = {"periodic": ("k", "every", "period"), "binomial": ("snapshots", "s")}
_SPEC = re.compile(r"^([a-z-]+)\s*(?:\(\s*(?:([a-z_]+)\s*=\s*)?([^)]*?)\s*\))?\s*$")


@dataclass(frozen=True)
class Schedule:
    """A checkpointing schedule: its kind and its number (period or snapshots; 0 if none)."""

    kind: str
    n: int = 0

    def __str__(self) -> str:
        if self.kind == "periodic":
            return f"periodic({self.n})"
        if self.kind == "binomial":
            return f"binomial({self.n})"
        return self.kind


STORE_ALL = Schedule("store-all")


def parse_schedule(text: str) -> Schedule:
    """``binomial(snapshots=10)`` -> Schedule; ValueError (with the reason) when malformed."""
    m = _SPEC.match(text.strip())
    if not m or m.group(1) not in SCHEDULES:
        raise ValueError(f"unknown checkpointing schedule '{text.strip()}'")
    kind, key, arg = m.group(1), m.group(2), m.group(3)
    if kind in ("store-all", "recompute"):
        if arg is not None:
            raise ValueError(f"schedule '{kind}' takes no argument")
        return Schedule(kind)
    if arg is None:
        raise ValueError(f"schedule '{kind}' needs a number, as in {kind}(10)")
    if key is not None and key not in _ARG_NAMES[kind]:
        raise ValueError(f"schedule '{kind}' has no parameter '{key}' (it takes {_ARG_NAMES[kind][0]}=N)")
    if not arg.isdigit() or int(arg) < 1:
        raise ValueError(f"the argument of '{kind}' must be a positive integer, not '{arg}'")
    return Schedule(kind, int(arg))


def set_loop_schedule(op: Op, schedule: Schedule, where: SourceLoc) -> None:
    op.attrs["checkpoint"] = str(schedule)
    op.attrs["checkpoint_at"] = [where.line, where.col, where.end_col]


def loop_schedule(op: Op) -> Optional[tuple[Schedule, Optional[SourceLoc]]]:
    """The schedule annotated on loop ``op``, and where it is written; None when there is none."""
    text = op.attrs.get("checkpoint")
    if text is None:
        return None
    at = op.attrs.get("checkpoint_at")
    where = None
    if at is not None and op.loc is not None:
        line, col, end_col = at
        where = SourceLoc(op.loc.file, line, col, line, end_col)
    return parse_schedule(text), where


@dataclass(frozen=True)
class GradInfo:
    """A gradient function's parameters, by index (read afresh: passes may add parameters)."""

    primal: str
    shadows: dict[int, int]  # shadow parameter -> the parameter it shadows (right before it)
    returned: Optional[list[int]]  # the parameters the results are the adjoints of; None: unknown
    d_return: Optional[int]  # the seed of the primal's result; None: it has none


def set_grad_info(g: Function, primal: str, shadows: dict[str, str], returned: list[str],
                  d_return: Optional[str]) -> None:
    """Record on gradient ``g`` what ``grad_info`` reads back (by names, which the IR prints)."""
    if d_return is not None:
        g.attrs["d_return"] = d_return
    g.attrs["primal"] = primal
    # Which parameters the results are the adjoints of (C passes them back through pointers).
    g.attrs["returned"] = returned
    # Which parameters are shadows, and of which parameter (a user's `d_x` is no shadow).
    g.attrs["shadows"] = shadows


def shadows_of(fn: Function) -> dict[int, int]:
    """A gradient's shadow parameters -> the parameters they shadow; {} for other functions."""
    info = grad_info(fn)
    return info.shadows if info is not None else {}


def is_gradient(fn: Function) -> bool:
    return "primal" in fn.attrs or "returned" in fn.attrs


def grad_info(fn: Function) -> Optional[GradInfo]:
    """What ``set_grad_info`` recorded on ``fn``, by parameter index; None for a non-gradient."""
    if not is_gradient(fn):
        return None
    params = fn.params
    names = [p.name_hint for p in params]
    named = fn.attrs.get("shadows")  # shadow name -> parameter name
    shadows = {}
    for i in range(1, len(params)):
        p, q = params[i - 1], params[i]
        is_shadow = (named.get(q.name_hint) == p.name_hint if named is not None
                     else q.name_hint == f"d_{p.name_hint}")
        if q.type.is_array and q.type == p.type and is_shadow:
            shadows[i] = i - 1
    seed = fn.attrs.get("d_return", "d_return")
    d_return = names.index(seed) if seed in names else None
    return GradInfo(fn.attrs.get("primal", fn.name), shadows, _returned(fn, names, d_return), d_return)


def primal_positions(fn: Function, count: int) -> list[Optional[int]]:
    """For the gradient ``fn`` of a function of ``count`` parameters: for each of its parameters,
    the primal's parameter it is or shadows, by index; None for those after them (the seeds, and
    parameters a pass added). A gradient keeps its primal's parameters in order, each shadow
    right after its parameter (``reverse.py``)."""
    shadows = shadows_of(fn)
    out: list[Optional[int]] = []
    j = 0
    for i in range(len(fn.params)):
        if i in shadows:
            out.append(out[shadows[i]])
        elif j < count:
            out.append(j)
            j += 1
        else:
            out.append(None)
    return out


def _returned(fn: Function, names: list[str], d_return: Optional[int]) -> Optional[list[int]]:
    if "returned" in fn.attrs:
        return [names.index(n) for n in fn.attrs["returned"]]
    # IR without the attribute: the float scalar parameters, matched by count or by name.
    floats = [i for i, p in enumerate(fn.params) if p.type.is_float and i != d_return]
    if len(floats) == len(fn.result_types):
        return floats
    ret = fn.body.terminator
    by_hint = [names.index(v.name_hint[2:]) for v in ret.operands if v.name_hint[2:] in names]
    if len(by_hint) == len(fn.result_types):
        return by_hint
    return None


def pointee_struct(declared: str, structs: list[list]) -> Optional[list]:
    """The ``c_structs`` entry ``[name, definition, size]`` of the struct a parameter declared
    ``declared`` (``const struct Body *``) points to, or None for a pointer to numbers."""
    name = " ".join(w for w in declared.replace("*", " ").split() if w not in ("const", "restrict"))
    return next((entry for entry in structs if entry[0] == name), None)


def struct_attrs(fn: Function, v: Value) -> dict:
    """The ``struct`` attribute of memory made in place of the array ``v`` of ``fn`` (a copy, a
    scratch buffer, a checkpoint's work array): C output declares it as the structs ``v`` holds
    (``Body b[1]``), which a callee's parameter (``Body *``) takes; none for numbers."""
    struct = struct_array(fn, v)
    return {"struct": struct} if struct is not None else {}


def struct_array(fn: Function, v: Value, declared: Optional[list[str]] = None) -> Optional[str]:
    """The struct type the array ``v`` of C input holds (through its views and copies: the
    ``alloc`` it is says, or the parameter it is, by its declaration), None for numbers
    (``&b->vel[0]`` points at numbers inside the structs). ``declared``: how each of ``fn``'s
    parameters is spelled (default its ``c_params``; a gradient's emitter knows its own)."""
    inside = struct_in_member(v)
    if inside is not None:
        return inside
    if points_into_member(v):
        return None
    base = storage_of(v)
    made = base.defining_op
    if made is not None and made.name == "if":  # a copy made in one branch only (the other yields a
        k = made.results.index(base)  # placeholder): the structs of the branch that makes it
        for region in made.regions:
            end = region.terminator
            if end is not None and end.name == "yield" and k < len(end.operands):
                struct = struct_array(fn, end.operands[k], declared)
                if struct is not None:
                    return struct
        return None
    if made is not None:
        return made.attrs.get("struct") if made.name == "alloc" else None
    declared = declared if declared is not None else fn.attrs.get("c_params")
    if base.owner is not fn.body or not declared or base not in fn.params:
        return None
    entry = pointee_struct(declared[fn.params.index(base)], fn.attrs.get("c_structs", []))
    return entry[0] if entry is not None else None
