"""Print a program as Python, or as its traced twin.

The traced twin (``traced=True``) is the same Python with every decision that a difference step
could flip routed through ``_fz`` (tracing.Tracer): comparisons, kinked intrinsics, truncations,
NumPy's max and where. Its float arithmetic is NumPy's, which raises on overflow under the strict
run (Python's floats give inf silently). It serves Python and C programs alike (see program.py).
"""

from __future__ import annotations

from .intrinsics import SCALAR, UFUNC, py_spelling
from .names import float_init, int_init, locals_of
from .program import (
    AAxis, ABin, AMat, ArrayArg, AUn, AVar, AWhere, Assign, Bin, BoolOp, Break, CallF, CallS, Cmp, Continue,
    For, Function, IAssign, IBin, ICmp, IConst, If, ILoad, IMin, Intr, IRef, Load, Not, Num, Program, Reduce,
    Ref, Return, Select, Store, Trunc, While, walk_body,
)

ANNOTATIONS = {"float": "float", "int": "int", "array": '"f64[n]"', "index": '"i64[n]"'}
MATRIX_SHAPE = {"A": '"f64[n, m]"', "W": '"f64[m, n]"'}


class PyPrinter:
    def __init__(self, program: Program, traced: bool = False):
        self.program = program
        self.traced = traced
        self.np_spelling = "np_spelling" in program.features
        self.lines: list[str] = []

    # -- expressions --

    def i(self, e) -> str:
        if isinstance(e, IConst):
            return str(e.value)
        if isinstance(e, IRef):
            return e.name
        if isinstance(e, IBin):
            return f"({self.i(e.left)} {e.op} {self.i(e.right)})"
        if isinstance(e, IMin):
            return f"min({self.i(e.left)}, {self.i(e.right)})"
        if isinstance(e, Trunc):
            if self.traced:
                return f"_fz.trunc({e.scale!r}, {self.f(e.expr)})"
            return f"int({e.scale!r} * abs({self.f(e.expr)}))"
        if isinstance(e, ILoad):
            return f"{e.array}[{self.i(e.index)}]"
        raise TypeError(e)

    def f(self, e) -> str:
        if isinstance(e, Num):
            return repr(e.value) if e.value >= 0 else f"({e.value!r})"
        if isinstance(e, Ref):
            return e.name
        if isinstance(e, Load):
            return f"{e.array}[{', '.join(self.i(k) for k in e.index)}]"
        if isinstance(e, Bin):
            if self.traced:  # NumPy's arithmetic, which raises on overflow under the strict run
                return f"(np.float64({self.f(e.left)}) {e.op} {self.f(e.right)})"
            return f"({self.f(e.left)} {e.op} {self.f(e.right)})"
        if isinstance(e, Intr):
            return self.intrinsic(e)
        if isinstance(e, Select):
            return f"({self.f(e.then)} if {self.c(e.cond)} else {self.f(e.orelse)})"
        if isinstance(e, CallF):
            return f"{e.fn}({self.args(e.args)})"
        if isinstance(e, Reduce):
            return self.reduce(e)
        raise TypeError(e)

    def intrinsic(self, e) -> str:
        args = [self.f(a) for a in e.args]
        # Parenthesized as Bin is: ** groups to the right, so the square of a cube printed bare,
        # a ** 3 ** 2, would be a ** 9 in Python where C's pow(pow(a, 3), 2) is a ** 6.
        if e.fn == "square":
            return f"({args[0]} ** 2)"
        if e.fn == "cube":
            return f"({args[0]} ** 3)"
        if e.fn == "powop":
            return f"({args[0]} ** {args[1]})"
        if e.fn == "div":
            return f"({args[0]} / {args[1]})"
        name = py_spelling(e.fn, self.np_spelling)
        if self.traced and SCALAR[e.fn].trace:
            # The twin computes what the program does: math.floor gives an int, but np.floor and
            # C's floor a float, whose zero has a sign (copysign(1.0, np.ceil(-0.5)) is -1.0).
            floats = e.fn in ("floor", "ceil") and (self.program.lang == "c" or name != SCALAR[e.fn].py)
            name = f"_fz.{e.fn}_float" if floats else f"_fz.{e.fn}"
        return f"{name}({', '.join(args)})"

    def args(self, args) -> str:
        out = []
        for a in args:
            if isinstance(a, ArrayArg):
                out.append(a.name)
            elif isinstance(a, (IConst, IRef, IBin, IMin, Trunc, ILoad)):
                out.append(self.i(a))
            else:
                out.append(self.f(a))
        return ", ".join(out)

    def c(self, e) -> str:
        if isinstance(e, Cmp):
            if self.traced:
                return f"_fz.cmp({self.f(e.left)}, {e.op!r}, {self.f(e.right)})"
            return f"({self.f(e.left)} {e.op} {self.f(e.right)})"
        if isinstance(e, ICmp):
            return f"({self.i(e.left)} {e.op} {self.i(e.right)})"
        if isinstance(e, BoolOp):
            return f"({self.c(e.left)} {e.op} {self.c(e.right)})"
        if isinstance(e, Not):
            return f"(not {self.c(e.arg)})"
        raise TypeError(e)

    # -- whole arrays --

    def reduce(self, e: Reduce) -> str:
        a = [self.a(x) for x in e.arrays]
        if e.fn == "dot":
            return f"np.dot({a[0]}, {a[1]})"
        if e.fn == "shiftdot":
            return f"np.sum({a[0]}[1:] * {a[0]}[:-1])"
        if self.traced and e.fn in ("max", "min"):
            return f"_fz.np_{e.fn}({a[0]})"
        return f"np.{e.fn}({a[0]})"

    def a(self, e) -> str:
        if isinstance(e, AVar):
            return e.name
        if isinstance(e, AUn):
            return UFUNC[e.fn].format(self.a(e.arg), np="np", abs="_fz.np_abs" if self.traced else "np.abs")
        if isinstance(e, ABin):
            right = self.a(e.right) if isinstance(e.right, (AVar, AUn, ABin, AMat, AAxis, AWhere)) else self.f(e.right)
            return f"({self.a(e.left)} {e.op} {right})"
        if isinstance(e, AMat):
            left, right = self.a(e.left), self.a(e.right)
            return {
                "matvec": f"({left} @ {right})",
                "vecmat": f"({left} @ {right})",
                "tvec": f"({left}.T @ {right})",
                "outer": f"np.outer({left}, {right})",
                "bouter": f"({left}[:, None] * {right}[None, :])",
                "router": f"({left}.reshape(-1, 1) + {right}.reshape(1, -1))",
                "trow": f"np.sum({left}.T, axis=1, keepdims=True).T",
            }[e.kind]
        if isinstance(e, AAxis):
            keep = ", keepdims=True" if e.keepdims else ""
            fn = f"_fz.np_{e.fn}" if self.traced and e.fn == "max" else f"np.{e.fn}"
            return f"{fn}({self.a(e.arg)}, axis={e.axis}{keep})"
        if isinstance(e, AWhere):
            test = f"_fz.np_gt({self.a(e.left)}, {self.a(e.right)})" if self.traced else (
                f"{self.a(e.left)} > {self.a(e.right)}")
            return f"np.where({test}, {self.a(e.then)}, {self.a(e.orelse)})"
        raise TypeError(e)

    # -- statements --

    def emit(self, depth: int, text: str) -> None:
        self.lines.append("    " * depth + text)

    def block(self, body, depth: int) -> None:
        if not body:
            self.emit(depth, "pass")
        for s in body:
            self.stmt(s, depth)

    def stmt(self, s, depth: int) -> None:
        if isinstance(s, Assign):
            # The twin's floats are NumPy's, locals too (``s0 = 0.5``; ``s0 += s0 * s0`` then
            # raises on overflow instead of giving inf silently: seed 10000758).
            value = f"_fz.held({self.f(s.expr)})" if self.traced else self.f(s.expr)
            self.emit(depth, f"{s.name} {s.op}= {value}")
            if self.traced and s.op:  # s0 *= s0: what it holds after
                self.emit(depth, f"{s.name} = _fz.held({s.name})")
        elif isinstance(s, IAssign):
            self.emit(depth, f"{s.name} = {self.i(s.expr)}")
        elif isinstance(s, Store):
            target = f"{s.array}[{', '.join(self.i(k) for k in s.index)}]"
            self.emit(depth, f"{target} {s.op}= {self.f(s.expr)}")
            if self.traced:
                self.emit(depth, f"_fz.held({target})")
        elif isinstance(s, If):
            self.emit(depth, f"if {self.c(s.cond)}:")
            self.block(s.body, depth + 1)
            if s.orelse:
                self.emit(depth, "else:")
                self.block(s.orelse, depth + 1)
        elif isinstance(s, For):
            self.for_loop(s, depth)
        elif isinstance(s, While):
            self.emit(depth, f"{s.var} = 0")
            if s.checkpoint:
                self.emit(depth, f"# s2sad: checkpoint {s.checkpoint}")
            cond = f" and {self.c(s.cond)}" if s.cond is not None else ""
            self.emit(depth, f"while {s.var} < {self.i(s.limit)}{cond}:")
            self.emit(depth + 1, f"{s.var} += 1")
            self.block(s.body, depth + 1)
        elif isinstance(s, Break):
            self.emit(depth, "break")
        elif isinstance(s, Continue):
            self.emit(depth, "continue")
        elif isinstance(s, Return):
            self.emit(depth, "return" if s.expr is None else f"return {self.f(s.expr)}")
        elif isinstance(s, CallS):
            self.emit(depth, f"{s.fn}({self.args(s.args)})")
        else:
            raise TypeError(s)

    def for_loop(self, s: For, depth: int) -> None:
        if s.checkpoint:
            self.emit(depth, f"# s2sad: checkpoint {s.checkpoint}")
        if s.parallel == "prange" and not self.traced:
            header = f"numba.prange({self.i(s.hi)})"
        elif s.down:
            header = f"range({self.i(s.hi)} - 1, {self.i(s.lo)} - 1, -{self.i(s.step)})"
        elif s.step == IConst(1):
            header = f"range({self.i(s.hi)})" if s.lo == IConst(0) else f"range({self.i(s.lo)}, {self.i(s.hi)})"
        else:
            header = f"range({self.i(s.lo)}, {self.i(s.hi)}, {self.i(s.step)})"
        self.emit(depth, f"for {s.var} in {header}:")
        self.block(s.body, depth + 1)

    # -- functions --

    def function(self, fn: Function) -> None:
        params = []
        for p in fn.params:
            if not self.program.annotate:
                params.append(p.name)
            elif p.kind == "matrix":
                params.append(f"{p.name}: {MATRIX_SHAPE[p.name]}")
            else:
                params.append(f"{p.name}: {ANNOTATIONS[p.kind]}")
        result = (" -> float" if fn.returns else " -> None") if self.program.annotate else ""
        self.emit(0, f"def {fn.name}({', '.join(params)}){result}:")
        floats, ints = locals_of(fn)
        for name in floats:
            self.emit(1, f"{name} = {float_init(name)!r}")
        for name in ints:
            self.emit(1, f"{name} = {int_init(name)}")
        self.block(fn.body, 1)

    def module(self) -> str:
        imports = ["import math", "", "import numpy as np"]
        nodes = (n for fn in self.program.functions for n in walk_body(fn.body))
        if any(isinstance(n, For) and n.parallel == "prange" for n in nodes):
            imports.append("import numba")
        self.lines = imports
        for fn in self.program.functions:
            self.lines += ["", ""]
            self.function(fn)
        return "\n".join(self.lines) + "\n"


def render_python(program: Program, traced: bool = False) -> str:
    return PyPrinter(program, traced).module()
