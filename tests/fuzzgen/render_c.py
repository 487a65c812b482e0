"""Print a program as C99 (arrays as pointers, a matrix flattened row-major, ``int`` sizes)."""

from __future__ import annotations

from .intrinsics import SCALAR
from .names import float_init, int_init, locals_of, privates_of
from .program import (
    ArrayArg, Assign, Bin, BoolOp, Break, CallF, CallS, Cmp, Continue, For, Function, IAssign, IBin, ICmp,
    IConst, If, ILoad, IMin, Intr, IRef, Load, Not, Num, Program, Ref, Return, Select, Store, Trunc, While,
)

TYPES = {"float": "double", "int": "int", "array": "double *", "index": "const int *", "matrix": "double *"}


class CPrinter:
    def __init__(self, program: Program):
        self.program = program
        self.lines: list[str] = []
        self.stepped = 0  # compound stores of a vector printed so far

    def _step_in_target(self) -> bool:
        """Every other compound store of a vector is printed with an increment in its target."""
        self.stepped += 1
        return self.stepped % 2 == 0

    def i(self, e) -> str:
        if isinstance(e, IConst):
            return str(e.value)
        if isinstance(e, IRef):
            return e.name
        if isinstance(e, IBin):
            return f"({self.i(e.left)} {e.op} {self.i(e.right)})"
        if isinstance(e, IMin):
            left, right = self.i(e.left), self.i(e.right)
            return f"({left} < {right} ? {left} : {right})"
        if isinstance(e, Trunc):
            return f"(int)({e.scale!r} * fabs({self.f(e.expr)}))"
        if isinstance(e, ILoad):
            return f"{e.array}[{self.i(e.index)}]"
        raise TypeError(e)

    def f(self, e) -> str:
        if isinstance(e, Num):
            return repr(e.value) if e.value >= 0 else f"({e.value!r})"
        if isinstance(e, Ref):
            return e.name
        if isinstance(e, Load):
            if len(e.index) == 2:
                return f"{e.array}[{self.i(e.index[0])} * m + {self.i(e.index[1])}]"
            return f"{e.array}[{self.i(e.index[0])}]"
        if isinstance(e, Bin):
            return f"({self.f(e.left)} {e.op} {self.f(e.right)})"
        if isinstance(e, Intr):
            args = [self.f(a) for a in e.args]
            if e.fn == "square":
                return f"pow({args[0]}, 2)"
            if e.fn == "cube":
                return f"pow({args[0]}, 3)"
            if e.fn == "div":
                return f"({args[0]} / {args[1]})"
            return f"{SCALAR[e.fn].c}({', '.join(args)})"
        if isinstance(e, Select):
            return f"({self.c(e.cond)} ? {self.f(e.then)} : {self.f(e.orelse)})"
        if isinstance(e, CallF):
            return f"{e.fn}({self.args(e.args)})"
        raise TypeError(e)

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
            return f"({self.f(e.left)} {e.op} {self.f(e.right)})"
        if isinstance(e, ICmp):
            return f"({self.i(e.left)} {e.op} {self.i(e.right)})"
        if isinstance(e, BoolOp):
            return f"({self.c(e.left)} {'&&' if e.op == 'and' else '||'} {self.c(e.right)})"
        if isinstance(e, Not):
            return f"(!{self.c(e.arg)})"
        raise TypeError(e)

    def emit(self, depth: int, text: str) -> None:
        self.lines.append("    " * depth + text)

    def block(self, body, depth: int) -> None:
        for s in body:
            self.stmt(s, depth)

    def stmt(self, s, depth: int) -> None:
        if isinstance(s, Assign):
            self.emit(depth, f"{s.name} {s.op}= {self.f(s.expr)};")
        elif isinstance(s, IAssign):
            self.emit(depth, f"{s.name} = {self.i(s.expr)};")
        elif isinstance(s, Store) and s.op and len(s.index) == 1 and self._step_in_target():
            # The same update through an increment in its target (C's y[k++] += v, *q++ += v),
            # which the lowering must step once: every other compound store of a vector.
            self.emit(depth, "{")
            if self.stepped % 4 == 2:
                self.emit(depth + 1, f"long k_step = {self.i(s.index[0])};")
                self.emit(depth + 1, f"{s.array}[k_step++] {s.op}= {self.f(s.expr)};")
            else:
                self.emit(depth + 1, f"double *q_step = {s.array} + {self.i(s.index[0])};")
                self.emit(depth + 1, f"*q_step++ {s.op}= {self.f(s.expr)};")
            self.emit(depth, "}")
        elif isinstance(s, Store):
            index = self.f(Load(s.array, s.index))
            self.emit(depth, f"{index} {s.op}= {self.f(s.expr)};")
        elif isinstance(s, If):
            self.emit(depth, f"if {self.c(s.cond)} {{")
            self.block(s.body, depth + 1)
            if s.orelse:
                self.emit(depth, "} else {")
                self.block(s.orelse, depth + 1)
            self.emit(depth, "}")
        elif isinstance(s, For):
            self.for_loop(s, depth)
        elif isinstance(s, While):
            self.emit(depth, f"{s.var} = 0;")
            if s.checkpoint:
                self.emit(depth, f"#pragma s2sad checkpoint {s.checkpoint}")
            cond = f" && {self.c(s.cond)}" if s.cond is not None else ""
            self.emit(depth, f"while ({s.var} < {self.i(s.limit)}{cond}) {{")
            self.emit(depth + 1, f"{s.var}++;")
            self.block(s.body, depth + 1)
            self.emit(depth, "}")
        elif isinstance(s, Break):
            self.emit(depth, "break;")
        elif isinstance(s, Continue):
            self.emit(depth, "continue;")
        elif isinstance(s, Return):
            self.emit(depth, "return;" if s.expr is None else f"return {self.f(s.expr)};")
        elif isinstance(s, CallS):
            self.emit(depth, f"{s.fn}({self.args(s.args)});")
        else:
            raise TypeError(s)

    def for_loop(self, s: For, depth: int) -> None:
        if s.checkpoint:
            self.emit(depth, f"#pragma s2sad checkpoint {s.checkpoint}")
        if s.parallel == "omp":
            self.emit(depth, f"#pragma omp parallel for reduction(+: {s.reduce})")
        v, lo, hi, step = s.var, self.i(s.lo), self.i(s.hi), self.i(s.step)
        if s.down:
            header = f"int {v} = {hi} - 1; {v} >= {lo}; {v} -= {step}"
        else:
            header = f"int {v} = {lo}; {v} < {hi}; " + (f"{v}++" if s.step == IConst(1) else f"{v} += {step}")
        self.emit(depth, f"for ({header}) {{")
        for name in privates_of(s):
            self.emit(depth + 1, f"double {name} = 0.0;")
        self.block(s.body, depth + 1)
        self.emit(depth, "}")

    def function(self, fn: Function) -> None:
        params = ", ".join(TYPES[p.kind] + ("" if TYPES[p.kind].endswith("*") else " ") + p.name for p in fn.params)
        self.emit(0, f"{'double' if fn.returns else 'void'} {fn.name}({params})")
        self.emit(0, "{")
        floats, ints = locals_of(fn)
        for name in floats:
            self.emit(1, f"double {name} = {float_init(name)!r};")
        for name in ints:
            self.emit(1, f"int {name} = {int_init(name)};")
        self.block(fn.body, 1)
        self.emit(0, "}")

    def module(self) -> str:
        self.lines = ["#include <math.h>"]
        for fn in self.program.functions:
            self.lines.append("")
            self.function(fn)
        return "\n".join(self.lines) + "\n"


def render_c(program: Program) -> str:
    return CPrinter(program).module()
