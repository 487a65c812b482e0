"""A C or Python element loop as a CUDA kernel (``--target cuda`` for ``.c`` and ``.py`` input).

``kernelize(module, name)`` rewrites the function ``name``, as its front end
wrote it, into the ``__global__`` kernel the CUDA front end would have made of
the same loop written by hand::

    for (int i = lo; i < hi; i += step) { body }

becomes

    long i = lo + (blockIdx.x * blockDim.x + threadIdx.x) * step;   // gid alone: lo 0, step 1
    if (i < hi) { body }                                              // i > hi for a step < 0

and the function is marked ``cuda = "global"`` (its callees ``"device"``). From
there nothing is special: the primal passes, the reverse transform, the
accumulation classification (``analysis.accumulation``: the thread's own
elements get ``+=``, a scalar every thread reads a block reduction, the rest
``atomicAdd``) and the CUDA emitter treat it as a ``.cu`` kernel. It runs before
the primal pipeline, on the front end's IR, so that the optimizer sees the kernel
(one iteration per thread) and not a loop it would hoist work out of.

Why a separate step rather than a front-end feature: the decision is the same for
both languages and needs only the IR: which loop, and whether its iterations are
independent, which is what makes one thread per iteration the same computation.

Preconditions, each a located error when it fails (never a kernel that computes
something else):

* the function returns no value, and its body is pure scalar setup (constants,
  arithmetic, reads of arrays the function never writes: each thread recomputes
  it), then one counted ``for`` loop with a constant step (a counted ``while``
  such as C's ``i + 1 < n`` is made one first, by ``opt.counted``), then the
  ``return``; no ``break`` or ``return`` in the loop, no call of the function to
  itself, no checkpoint annotation on the loop (there is no loop left);
* the loop carries no value from one iteration to the next (a running sum is a
  reduction, not a kernel);
* its iterations are independent: the loop is marked (``#pragma omp parallel
  for``, ``numba.prange``: the user says so), or every array it writes is read
  and written only at elements no other iteration reaches (``y[i]``, ``y[2 * i]``
  with ``y[2 * i + 1]``, the row ``A[i, j]``, ``A[i * m + j]`` with ``j`` in
  ``[0, m)``; ``accumulation.iteration_owned``), and passed to no callee that
  writes it. Arrays the loop allocates itself are its own.

The launch: one thread per iteration along x, with a one-dimensional grid and
block; ``launch_text`` says how many threads, for the output's header. This is
the loop-to-thread mapping of OpenACC's ``parallel loop`` / OpenMP's ``target
teams distribute parallel for`` when the loop has one level of parallelism.
"""

from __future__ import annotations

from typing import Optional, Union

from ..analysis.accumulation import iteration_owned
from ..analysis.effects import written_arrays, written_params
from ..diagnostics import Diagnostic, DiagnosticError
from . import counted
from ..ssa import build
from ..ssa.attrs import loop_schedule
from ..ssa.ir import Block, Builder, Function, Module, Op, SourceLoc, Value
from ..ssa.opdefs import is_pure
from ..ssa.ops import view_base

LAUNCH_ATTR = "launch"  # the kernel's launch, in words, for the output's header (``launch_text``)


# How a user says that a loop's iterations are independent, and writes a counted loop, in C and Python.
_MARKER = {"c": "mark it '#pragma omp parallel for'", "py": "write it 'for i in numba.prange(n)'"}
_COUNTED = {"c": "for (i = lo; i < hi; i += step)", "py": "for i in range(lo, hi, step)"}


class _Reject(Exception):
    def __init__(self, message: str, where: Union[Op, SourceLoc, None], hint: str):
        super().__init__(message)
        loc = where.loc if isinstance(where, Op) else where
        self.diagnostic = Diagnostic("--target cuda: " + message, loc, hint)


def kernelize(module: Module, name: str) -> None:
    """Turn ``name``'s outermost loop into the thread index of a ``__global__`` kernel (in place)."""
    fn = module.functions[name]
    lang = "c" if "c_params" in fn.attrs else "py"
    try:
        loop = _the_loop(module, fn, lang)
        _check_independent(module, loop, _MARKER[lang])
        launch = _rewrite(fn, loop)
    except _Reject as r:
        if r.diagnostic.loc is None:
            r.diagnostic.loc = fn.loc
        raise DiagnosticError([r.diagnostic], module.source_lines) from None
    fn.attrs["cuda"] = "global"
    fn.attrs[LAUNCH_ATTR] = launch
    for other in module.functions.values():
        if other is not fn:
            other.attrs["cuda"] = "device"


def launch_text(fn: Function, grad: str) -> Optional[str]:
    """How to launch the gradient ``grad`` of a kernel ``kernelize`` made (None: not one)."""
    if LAUNCH_ATTR not in fn.attrs:
        return None
    threads = fn.attrs[LAUNCH_ATTR] or "N"
    where = "" if fn.attrs[LAUNCH_ATTR] else ", N the loop's trip count"
    return (f"Launch with at least {threads} threads along x, one per iteration of the loop{where}, on a\n"
            f"1-D grid of 1-D blocks: {grad}<<<({threads} + 255) / 256, 256>>>(...)")


# -- which loop ------------------------------------------------------------------------------


def _the_loop(module: Module, fn: Function, lang: str) -> Op:
    if fn.result_types:
        raise _Reject(f"a kernel returns no value, and '{fn.name}' returns one", None,
                      "write the result into an array parameter (one element per iteration)")
    loops = [op for op in fn.body.ops if op.name in ("for", "while")]
    if not loops:
        raise _Reject(f"'{fn.name}' has no loop to run as a kernel", None,
                      "--target cuda makes the function's outermost loop the kernel's thread index")
    if len(loops) > 1:
        lines = " and ".join(str(op.loc.line) for op in loops[:2] if op.loc is not None)
        raise _Reject(f"'{fn.name}' has more than one outermost loop (lines {lines}); one loop becomes "
                      "one kernel", loops[1], "split the function, one function per loop, each its own kernel")
    loop = loops[0]
    line = loop.loc.line if loop.loc is not None else 0
    if loop.name == "while":
        # A counted loop C spells otherwise (i + 1 < n, a pointer walk), before -O2 would see it.
        counted.run_function(fn)
        loop = next(op for op in fn.body.ops if op.name in ("for", "while"))
    if loop.name != "for":
        raise _Reject(f"the loop at line {line} is not a counted for loop, or it can stop early (break, "
                      "return); only a loop that runs every iteration of a range becomes a kernel", loop,
                      f"write it as {_COUNTED[lang]} with a constant step and no break or return "
                      "(an iteration that stops the loop makes the others depend on it)")
    s = build.const_int(loop.operands[2])
    if s is None or s == 0:  # (first: a step of unknown sign leaves its indices' signs unknown too)
        raise _Reject(f"the loop at line {line} steps by an amount that is not a constant; thread t runs "
                      "iteration lo + t * step, which needs the step's sign", loop, "step by a constant")
    body = loop.regions[0]
    if len(body.args) > 1:
        carried = ", ".join(f"'{a.name_hint}'" for a in body.args[1:])
        raise _Reject(f"the loop at line {line} carries {carried} from one iteration to the next; only loops "
                      "whose iterations are independent become kernels", loop,
                      "compute it inside the body of each iteration, or differentiate this loop for "
                      "the CPU (another --target)")
    annotated = loop_schedule(loop)
    if annotated is not None:
        raise _Reject(f"the loop at line {line} becomes the kernel, one iteration per thread: no loop is "
                      "left to checkpoint", annotated[1], "remove the checkpoint annotation")
    for op in fn.walk():
        if op.name == "call" and op.attrs["callee"] == fn.name:
            raise _Reject(f"'{fn.name}' calls itself, and a kernel cannot call a kernel", op,
                          "keep the recursion in a helper function that the loop calls")
    written = {view_base(a) for a in written_arrays(module, fn)}
    at = fn.body.ops.index(loop)
    for op in fn.body.ops[:at]:
        if not _setup(op, written):
            raise _Reject(f"this runs once before the loop at line {line}, but a kernel runs only the loop "
                          "(each thread recomputes scalar setup, nothing else)", op,
                          "move it into the loop, or into a function of its own")
    for op in fn.body.ops[at + 1:-1]:
        raise _Reject(f"this runs once after the loop at line {line}, but a kernel runs only the loop", op,
                      "move it into a function of its own")
    return loop


def _setup(op: Op, written: set[Value]) -> bool:
    """Work every thread may redo: pure scalar arithmetic, reads of arrays nothing writes."""
    if op.regions:
        return False
    if is_pure(op) or op.name == "comment":
        return True
    return op.name == "load" and view_base(op.operands[0]) not in written


# -- are its iterations independent? ---------------------------------------------------------


def _check_independent(module: Module, loop: Op, marker: str) -> None:
    line = loop.loc.line if loop.loc is not None else 0
    if "parallel" in loop.attrs:
        return  # the user's word: omp parallel for, numba.prange
    hint = (f"give each iteration elements of its own in the arrays the loop writes, indexed by the loop "
            f"variable (y[i], y[2 * i] and y[2 * i + 1]), for its reads too; or, if the iterations are "
            f"independent all the same, {marker}")
    own = {op.result for op in loop.walk() if op.name == "alloc"}  # per-iteration memory
    accesses: dict[Value, list[Op]] = {}
    for op in loop.walk():
        if op.name in ("load", "store", "accum"):
            accesses.setdefault(view_base(op.operands[0]), []).append(op)
        elif op.name == "call":
            callee = module.functions[op.attrs["callee"]]
            for i in sorted(written_params(module, callee)):
                if view_base(op.operands[i]) not in own:
                    raise _Reject(f"the loop at line {line} passes '{_name(op.operands[i])}' to "
                                  f"'{callee.name}', which writes it; s2sad cannot tell that the "
                                  "iterations write different elements", op, hint)
    for root, ops in accesses.items():
        stores = [op for op in ops if op.name in ("store", "accum")]
        if root in own or not stores:
            continue
        for st in stores:
            if not iteration_owned([st], loop):
                raise _Reject(f"the loop at line {line} writes '{_name(root)}' at an element that other "
                              "iterations may write too; only loops whose iterations are independent "
                              "become kernels", st, hint)
        if not iteration_owned(ops, loop):
            other = next((op for op in ops if not iteration_owned(stores + [op], loop)), ops[0])
            raise _Reject(f"the loop at line {line} writes '{_name(root)}' and reads or writes it at "
                          "another element too, which another iteration may write", other, hint)


def _name(v: Value) -> str:
    return view_base(v).name_hint or "an array"


# -- the rewrite -----------------------------------------------------------------------------


def _rewrite(fn: Function, loop: Op) -> str:
    """Replace ``loop`` by the thread's iteration under its bounds guard; the thread count, in words."""
    lo, hi, step = loop.operands
    s = build.const_int(step)
    assert s is not None and s != 0  # (_the_loop)
    b = Builder(fn.body, loop.loc)
    b.before = loop
    body = loop.regions[0]
    iv = body.args[0]
    at_zero = build.is_const(lo, 0)
    gid = build.add(b, build.mul(b, _builtin(b, "gpu.block_idx"), _builtin(b, "gpu.block_dim")),
                    _builtin(b, "gpu.thread_idx"), iv.name_hint if at_zero and s == 1 else "gid")
    scaled = build.mul(b, gid, step, iv.name_hint if at_zero else "")
    i = build.add(b, lo, scaled, iv.name_hint)
    cond = build.cmp(b, "lt" if s > 0 else "gt", i, hi)
    then = Block()
    for op in list(body.ops):
        then.append(op)
    body.ops = []
    iv.replace_all_uses_with(i)
    orelse = Block()
    Builder(orelse, loop.loc).create("yield", [], [])
    b.create("if", [cond], [], regions=[then, orelse])
    loop.erase()
    return _threads(fn, lo, hi, s)


def _builtin(b: Builder, name: str) -> Value:
    return b.op1(name, [], build.I64, axis="x")


def _threads(fn: Function, lo: Value, hi: Value, step: int) -> str:
    """The loop's trip count as source text (``n``, ``n - 1``, ``(n - 1) / 2``); "" if it has no spelling:
    (last - first + |step| - 1) / |step|, first and last the bounds in the direction of the step."""
    first, last = (lo, hi) if step > 0 else (hi, lo)
    (a, c), (b, d) = _affine(fn, last), _affine(fn, first)
    k = c - d + abs(step) - 1
    if a == "" or b == "":
        return ""
    if a is None and b is None:
        return str(max(0, k // abs(step)))
    if a is None:
        a, k = str(c), k - c
    count = _plus(a if b is None else f"{a} - {_paren(b)}", k)
    return count if abs(step) == 1 else f"{_paren(count)} / {abs(step)}"


def _affine(fn: Function, v: Value) -> tuple[Optional[str], int]:
    """``v`` as (terms, constant): terms an expression of the function's parameters (None: no terms,
    "": none that can be spelled), so that the constants of ``n - 1`` and the loop's bounds fold."""
    c = build.const_int(v)
    if c is not None:
        return None, c
    op = v.defining_op
    if op is not None and op.name in ("add", "sub"):
        k = build.const_int(op.operands[1])
        if k is not None:
            terms, c = _affine(fn, op.operands[0])
            return terms, c + (k if op.name == "add" else -k)
    text = _spell(fn, v)
    return ("" if text is None else text), 0


def _plus(terms: str, c: int) -> str:
    return terms if c == 0 else f"{terms} {'+' if c > 0 else '-'} {abs(c)}"


_SYMBOLS = {"add": "+", "sub": "-", "mul": "*"}


def _spell(fn: Function, v: Value) -> Optional[str]:
    """``v`` as an expression of the function's parameters and constants, else None."""
    if v.is_block_arg:
        return v.name_hint if v.owner is fn.body else None
    op = v.defining_op
    c = build.const_int(v)
    if c is not None:
        return str(c)
    if op is not None and op.name == "cast":
        return _spell(fn, op.operands[0])
    if op is not None and op.name in _SYMBOLS:
        a, b = (_spell(fn, o) for o in op.operands)
        if a is not None and b is not None:
            return f"{_paren(a)} {_SYMBOLS[op.name]} {_paren(b)}"
    return None


def _paren(text: str) -> str:
    return text if text.replace("_", "").isalnum() else f"({text})"
