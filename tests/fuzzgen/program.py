"""The program tree the fuzzer draws, prints, checks and shrinks.

One tree serves both languages: the generator only uses constructs whose meaning is the same in
Python and C (non-negative integers, ``%`` on non-negative values, truncation of non-negative
floats), so a C program's Python rendering is a faithful twin used to trace branch decisions.
Nodes are frozen dataclasses with tuple children, so a shrink step is a rebuilt tree.
"""

from __future__ import annotations

from dataclasses import dataclass, field, fields, replace
from typing import Iterator, Optional, Union

# -- integer expressions (indices, bounds) --


@dataclass(frozen=True)
class IConst:
    value: int


@dataclass(frozen=True)
class IRef:
    name: str


@dataclass(frozen=True)
class IBin:
    op: str  # "+", "-", "%" (operands never negative)
    left: "IExpr"
    right: "IExpr"


@dataclass(frozen=True)
class IMin:
    left: "IExpr"
    right: "IExpr"


@dataclass(frozen=True)
class Trunc:
    """``int(scale * abs(e))``: a data-dependent non-negative integer."""

    scale: float
    expr: "FExpr"


@dataclass(frozen=True)
class ILoad:
    """An element of an integer index array (values in [0, n))."""

    array: str
    index: "IExpr"


IExpr = Union[IConst, IRef, IBin, IMin, Trunc, ILoad]

# -- float expressions --


@dataclass(frozen=True)
class Num:
    value: float


@dataclass(frozen=True)
class Ref:
    name: str


@dataclass(frozen=True)
class Load:
    array: str
    index: tuple  # one IExpr, or (row, column) of a matrix


@dataclass(frozen=True)
class Intr:
    """A math intrinsic from intrinsics.SCALAR, printed with its domain guard."""

    fn: str
    args: tuple


@dataclass(frozen=True)
class Bin:
    op: str  # "+", "-", "*"
    left: "FExpr"
    right: "FExpr"


@dataclass(frozen=True)
class Select:
    cond: "Cond"
    then: "FExpr"
    orelse: "FExpr"


@dataclass(frozen=True)
class CallF:
    """A call of a helper that returns a float; args are FExpr, IExpr or ArrayArg."""

    fn: str
    args: tuple


@dataclass(frozen=True)
class Reduce:
    """``np.sum(a)`` and friends of a whole-array expression (Python only)."""

    fn: str  # "sum", "mean", "max", "min", "dot", "shiftdot"
    arrays: tuple  # of AExpr


FExpr = Union[Num, Ref, Load, Intr, Bin, Select, CallF, Reduce]

# -- whole-array expressions (Python only); shapes "n", "m", "mn" --


@dataclass(frozen=True)
class AVar:
    name: str
    shape: str


@dataclass(frozen=True)
class AUn:
    fn: str  # from intrinsics.UFUNC
    arg: "AExpr"


@dataclass(frozen=True)
class ABin:
    op: str  # "+", "-", "*"
    left: "AExpr"
    right: Union["AExpr", "FExpr"]  # an array of the same shape, a row ("n" against "mn") or a scalar


@dataclass(frozen=True)
class AMat:
    # "matvec" (W @ v), "vecmat" (u @ W), "tvec" (W.T @ u), "outer", "bouter" (u[:, None] * v[None, :]),
    # "router" (u.reshape(-1, 1) + v.reshape(1, -1)), "trow" (the row np.sum(A.T, axis=1, keepdims=True).T
    # of A, the left, which is also the right)
    kind: str
    left: "AExpr"
    right: "AExpr"


@dataclass(frozen=True)
class AAxis:
    fn: str  # "sum", "mean", "max"
    arg: "AExpr"  # a matrix
    axis: int
    keepdims: bool


@dataclass(frozen=True)
class AWhere:
    left: "AExpr"  # np.where(left > right, then, orelse)
    right: "AExpr"
    then: "AExpr"
    orelse: "AExpr"


AExpr = Union[AVar, AUn, ABin, AMat, AAxis, AWhere]

# -- conditions --


@dataclass(frozen=True)
class Cmp:
    op: str  # "<", ">"
    left: FExpr
    right: FExpr


@dataclass(frozen=True)
class ICmp:
    op: str  # "<", "==" on integers
    left: IExpr
    right: IExpr


@dataclass(frozen=True)
class BoolOp:
    op: str  # "and", "or"
    left: "Cond"
    right: "Cond"


@dataclass(frozen=True)
class Not:
    arg: "Cond"


Cond = Union[Cmp, ICmp, BoolOp, Not]


@dataclass(frozen=True)
class ArrayArg:
    """An array passed whole to a helper."""

    name: str


# -- statements --


@dataclass(frozen=True)
class Assign:
    name: str
    expr: FExpr
    op: str = ""  # "" for =, else "+", "-", "*" (compound assignment)


@dataclass(frozen=True)
class IAssign:
    name: str
    expr: IExpr


@dataclass(frozen=True)
class Store:
    array: str
    index: tuple
    expr: FExpr
    op: str = ""  # "" for =, else compound


@dataclass(frozen=True)
class If:
    cond: Cond
    body: tuple
    orelse: tuple = ()


@dataclass(frozen=True)
class For:
    """``for var in range(lo, hi, step)`` (``down``: the same indices, last first)."""

    var: str
    lo: IExpr
    hi: IExpr
    step: IExpr
    body: tuple
    down: bool = False
    checkpoint: str = ""  # an annotation right above the loop
    parallel: str = ""  # "omp" (C: parallel for, reduction of `reduce`) or "prange" (Python)
    reduce: str = ""


@dataclass(frozen=True)
class While:
    """``var = 0; while var < limit and cond: var += 1; body`` (the counter bounds the loop)."""

    var: str
    limit: IExpr
    cond: Optional[Cond]
    body: tuple
    checkpoint: str = ""


@dataclass(frozen=True)
class Break:
    pass


@dataclass(frozen=True)
class Continue:
    pass


@dataclass(frozen=True)
class Return:
    expr: Optional[FExpr]


@dataclass(frozen=True)
class CallS:
    """A helper called as a statement (one that writes an array)."""

    fn: str
    args: tuple


Stmt = Union[Assign, IAssign, Store, If, For, While, Break, Continue, Return, CallS]


@dataclass(frozen=True)
class Param:
    name: str
    kind: str  # "float", "int", "array" (1-D float), "index" (1-D int), "matrix" (2-D float)


@dataclass(frozen=True)
class Function:
    name: str
    params: tuple
    body: tuple
    returns: bool = True  # a float; else nothing
    recursive: bool = False  # calls itself (generate.recursive_helper): called by main as a statement


@dataclass(frozen=True)
class Program:
    """Helpers first, then the main function ``f``; ``lang`` is "py" or "c"."""

    lang: str
    functions: tuple
    wrt: tuple
    sizes: tuple = (("n", 5), ("m", 3))  # the integer parameters' values
    annotate: bool = True  # Python: shape annotations on every parameter
    features: frozenset = field(default_factory=frozenset)

    @property
    def main(self) -> Function:
        return self.functions[-1]

    def function(self, name: str) -> Function:
        return next(f for f in self.functions if f.name == name)


# -- traversal --

NODE_TYPES = (
    IConst, IRef, IBin, IMin, Trunc, ILoad, Num, Ref, Load, Intr, Bin, Select, CallF, Reduce, AVar, AUn, ABin,
    AMat, AAxis, AWhere, Cmp, ICmp, BoolOp, Not, ArrayArg, Assign, IAssign, Store, If, For, While, Break,
    Continue, Return, CallS,
)


def children(node) -> Iterator:
    """Every node directly below ``node`` (tuples flattened)."""
    for f in fields(node):
        value = getattr(node, f.name)
        if isinstance(value, NODE_TYPES):
            yield value
        elif isinstance(value, tuple):
            for item in value:
                if isinstance(item, NODE_TYPES):
                    yield item


def walk(node) -> Iterator:
    yield node
    for child in children(node):
        yield from walk(child)


def walk_body(body: tuple) -> Iterator:
    for stmt in body:
        yield from walk(stmt)


def local_names(fn: Function) -> set:
    """The names of ``fn``'s local variables and loop counters (a local read before any assignment
    is declared with a start value, so reads count too)."""
    out = set()
    for node in walk_body(fn.body):
        if isinstance(node, (Assign, IAssign, Ref, IRef)):
            out.add(node.name)
        elif isinstance(node, (For, While)):
            out.add(node.var)
    return out - {p.name for p in fn.params}


def written_params(program: Program, fn: Function, assumed: Optional[dict] = None) -> set:
    """Names of fn's array parameters it writes, directly or through the helpers it calls; a
    helper that calls itself (``q(v, u, ...)``) from nothing up until its calls add no more."""
    assumed = {} if assumed is None else assumed
    if fn.name in assumed:
        return assumed[fn.name]
    assumed[fn.name] = set()
    while True:
        out = set()
        for node in walk_body(fn.body):
            if isinstance(node, Store):
                out.add(node.array)
            elif isinstance(node, (CallS, CallF)):
                callee = program.function(node.fn)
                inner = written_params(program, callee, assumed)
                for p, a in zip(callee.params, node.args):
                    if isinstance(a, ArrayArg) and p.name in inner:
                        out.add(a.name)
        out &= {p.name for p in fn.params}
        if out == assumed[fn.name]:
            return out
        assumed[fn.name] = out


def rebuild(node, **changes):
    return replace(node, **changes)
