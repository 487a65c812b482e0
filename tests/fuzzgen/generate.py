"""Random valid programs, in Python or C, from one grammar (see program.py).

``generate(seed, lang, features)`` draws a program whose main function is
``f(x, [y], [idx], [A | W], a, b, n, [m]) -> float``; the ``features`` switch parts of the
grammar on and off (``FEATURES`` lists them all; tests/test_fuzz.py leaves out the ones that
wait on known bugs). Every loop index stays inside its array, every intrinsic inside its
domain, every ``while`` loop has a counter bound, and a data-dependent bound or step is
computed once, before its loop, from a ``tanh`` (so C's int conversion never overflows), so
Python and C read the program the same way.
"""

from __future__ import annotations

import random
from typing import Callable, Optional

from .intrinsics import KINKED, SCALAR, UFUNC, guarded
from .program import (
    AAxis, ABin, AMat, ArrayArg, AUn, AVar, AWhere, Assign, Bin, BoolOp, Break, CallF, CallS, Cmp, Continue,
    For, Function, IAssign, IBin, ICmp, IConst, If, ILoad, IMin, Intr, IRef, Load, Not, Num, Param, Program, Reduce,
    Ref, Return, Select, Store, Trunc, While,
)

FEATURES = frozenset({
    "loops",  # for loops
    "nested_loops",  # loops inside loops
    "down_loops",  # range(hi - 1, lo - 1, -step)
    "data_bounds",  # a loop bound computed from the data
    "data_steps",  # a loop step computed from the data
    "while",  # while loops with a counter bound and a data-dependent condition
    "break",  # break and continue
    "early_return",
    "select",  # conditional expressions
    "inplace",  # x written in place (x is also in --wrt)
    "output",  # an output array y
    "index_array",  # gathers through an integer array idx
    "matrix",  # a 2-D array read in element loops (C: flattened A[i * m + j])
    "helpers",  # helper functions returning floats
    "helper_writes",  # helpers that write an array argument
    "helper_in_loop",  # helper calls inside loops
    "recursion",  # a helper that writes one array and calls itself with the two swapped (f(v, u, ...))
    "nested_calls",  # a helper call inside another call's arguments (issue 14, class 12)
    "kinks",  # fabs, floor, fmax, fmod, atan2, ... (decisions traced, kinks avoided)
    "ties",  # max(e, e) and the like (issue 14, class 8)
    "numpy",  # whole-array NumPy expressions with broadcasting (Python)
    "np_spelling",  # scalar intrinsics spelled np.sin, np.maximum (Python)
    "unannotated",  # Python parameters without annotations (issue 14, class 1)
    "parallel",  # OpenMP parallel for with a reduction (C), numba.prange (Python)
    "parallel_calls",  # helper calls inside a parallel loop (issue 14, class 4)
    "checkpoint_annotation",  # s2sad checkpoint annotations above outermost loops
    "name_clash",  # locals named like s2sad's own names: t0, d_a, tmp_... (issue 14, classes 10, 14)
    "registers",  # shift registers in loops (s1 = s0; s0 = x[i]): carried values read one iteration back
})

CONSTANTS = (0.5, 1.25, 2.0, -0.75, 3.0, 0.1)
ANNOTATIONS = ("recompute", "periodic(2)", "binomial(2)", "binomial(snapshots=3)", "store-all", "periodic(3)")


class _Scope:
    """What the statement being drawn may use."""

    def __init__(self, floats, locals_, arrays, writable, ints, helpers, is_main, gathers=False):
        self.gathers = gathers  # the index array idx may be read
        self.floats = list(floats)  # readable float names
        self.locals = list(locals_)  # assignable float names
        self.arrays = list(arrays)  # readable 1-D float arrays
        self.writable = list(writable)  # 1-D float arrays that may be stored to
        self.ints = list(ints)  # (IExpr, extent) usable as indices: extent "n" or "m"
        self.helpers = helpers  # Function list callable here
        self.is_main = is_main
        self.loop_depth = 0
        self.in_parallel = False


class Generator:
    def __init__(self, seed: int, lang: str, features: frozenset):
        self.rng = random.Random(seed)
        self.lang = lang
        self.features = set(features)
        if lang == "c":
            self.features -= {"numpy", "np_spelling", "unannotated"}
        self.counter = 0
        self.params: list[Param] = []

    def has(self, feature: str) -> bool:
        return feature in self.features

    def fresh(self, prefix: str) -> str:
        self.counter += 1
        return f"{prefix}{self.counter}"

    def chance(self, p: float) -> bool:
        return self.rng.random() < p

    # -- programs --

    def program(self) -> Program:
        r = self.rng
        numpy = self.has("numpy") and self.chance(0.4)
        matrix = not numpy and self.has("matrix") and self.chance(0.3)
        params = [Param("x", "array")]
        if self.has("output") and self.chance(0.7):
            params.append(Param("y", "array"))
        if self.has("index_array") and self.chance(0.3):
            params.append(Param("idx", "index"))
        if matrix:
            params.append(Param("A", "matrix"))
        if numpy:
            params.append(Param("W", "matrix"))
        params += [Param("a", "float"), Param("b", "float"), Param("n", "int")]
        if matrix or numpy:
            params.append(Param("m", "int"))
        self.params = params
        self.numpy = numpy
        self.matrix = "A" if matrix else None
        helpers: list[Function] = []
        if self.has("helpers"):
            for _ in range(r.choice((0, 1, 1, 2))):
                helpers.append(self.helper(len(helpers), helpers))
        names = {p.name for p in params}
        arrays = [n for n in ("x", "y") if n in names]
        writable = [n for n in ("y",) if n in names]
        if self.has("inplace") and not numpy and self.chance(0.5):
            writable.append("x")
        locals_ = ["s0", "s1", "s2"]
        if self.has("name_clash") and self.chance(0.5):
            locals_ += [r.choice(["t0", "t1", "d_a", "d_x", "tmp", "d_return", "grad_f", "x_before", "n_iter"])]
        # A helper that calls itself on two arrays, swapped: main writes both, so two it may write.
        recursive = self.has("recursion") and len(writable) > 1 and self.chance(0.6)
        if recursive:
            helpers.append(self.recursive_helper(len(helpers)))
        scope = _Scope(["a", "b"] + locals_, locals_, arrays, writable, [], helpers, True, "idx" in names)
        body = self.block(scope, r.randint(2, 6), 0)
        if recursive:  # called at least once
            body.insert(r.randint(0, len(body)), self.recursive_call(scope))
        body.append(Return(self.fexpr(scope, 3, extra=["s0", "s1", "s2"])))
        main = Function("f", tuple(params), tuple(body), True)
        wrt = ["x", "a", "b"]
        if "y" in names and self.chance(0.3):
            wrt.insert(1, "y")
        sizes = (("n", r.choice((4, 5, 6))), ("m", r.choice((2, 3))))
        annotate = not (self.has("unannotated") and self.chance(0.5))
        return Program(self.lang, tuple(helpers) + (main,), tuple(wrt), sizes, annotate, frozenset(self.features))

    def helper(self, k: int, earlier: list) -> Function:
        kind = self.rng.choice(["scalar", "reduce", "write"] if self.has("helper_writes") else ["scalar", "reduce"])
        locals_ = ["h0", "h1"]
        if kind == "scalar":
            params = (Param("u", "float"), Param("v", "float"))
            scope = _Scope(["u", "v"] + locals_, locals_, [], [], [], earlier, False)
            body = self.block(scope, self.rng.randint(0, 2), 1, loops=False)
            body.append(Return(self.fexpr(scope, 2, extra=["u", "v"])))
            return Function(f"g{k}", params, tuple(body), True)
        if kind == "reduce":
            params = (Param("z", "array"), Param("c", "float"), Param("n", "int"))
            scope = _Scope(["c"] + locals_, locals_, ["z"], [], [], earlier, False)
            body = self.block(scope, self.rng.randint(1, 3), 0)
            body.append(Return(self.fexpr(scope, 2, extra=["h0", "h1"])))
            return Function(f"r{k}", params, tuple(body), True)
        params = (Param("out", "array"), Param("z", "array"), Param("c", "float"), Param("n", "int"))
        scope = _Scope(["c"] + locals_, locals_, ["z", "out"], ["out"], [], earlier, False)
        body = self.block(scope, self.rng.randint(1, 3), 0)
        i = self.fresh("i")
        store = Store("out", (IRef(i),), self.fexpr(self._with_index(scope, IRef(i)), 2), self.rng.choice(["", "+"]))
        body.append(For(i, IConst(0), IRef("n"), IConst(1), (store,)))
        return Function(f"w{k}", params, tuple(body), False)

    def recursive_helper(self, k: int) -> Function:
        """``q(u, v, c, n, k)``: at ``k < 1`` a number of ``u`` and ``v``; else it writes ``u``
        element by element, calls itself as ``q(v, u, c, n, k - 1)`` (so it writes ``v`` too) and
        combines that call's value with more reads of both arrays. The call is a statement of its
        own: C does not order a call that writes an array against a read of it in one expression."""
        name = f"q{k}"
        params = (Param("u", "array"), Param("v", "array"), Param("c", "float"), Param("n", "int"),
                  Param("k", "int"))
        scope = _Scope(["c", "h0"], ["h0"], ["u", "v"], [], [], [], False)
        base = If(ICmp("<", IRef("k"), IConst(1)), (Return(self.fexpr(scope, 2, extra=["c"])),))
        i = self.fresh("i")
        store = Store("u", (IRef(i),), self.fexpr(self._with_index(scope, IRef(i)), 2), self.rng.choice(["", "+"]))
        again = Assign("h0", CallF(name, (ArrayArg("v"), ArrayArg("u"), Ref("c"), IRef("n"),
                                          IBin("-", IRef("k"), IConst(1)))))
        result = Return(Bin("+", Bin("*", Ref("h0"), self.fexpr(scope, 1, extra=["c"])), self.fexpr(scope, 2)))
        return Function(name, params, (base, For(i, IConst(0), IRef("n"), IConst(1), (store,)), again, result),
                        True, recursive=True)

    def recursive_call(self, scope: _Scope) -> Assign:
        """``s = q(u, v, c, n, depth)``: both arrays it is passed are written, two of main's writable ones."""
        r = self.rng
        helper = next(h for h in scope.helpers if h.recursive)
        u, v = r.sample(scope.writable, 2)
        call = CallF(helper.name, (ArrayArg(u), ArrayArg(v), self.fexpr(scope, 1), IRef("n"), IConst(r.randint(1, 3))))
        return Assign(r.choice(scope.locals), call)

    @staticmethod
    def _with_index(scope: _Scope, index, extent: str = "n") -> _Scope:
        inner = _Scope(scope.floats, scope.locals, scope.arrays, scope.writable,
                       scope.ints + [(index, extent)], scope.helpers, scope.is_main, scope.gathers)
        inner.loop_depth = scope.loop_depth
        inner.in_parallel = scope.in_parallel
        return inner

    # -- statements --

    def jump_chain(self, scope: _Scope, jump: Callable[[], object]) -> "If":
        """``if (c) jump;``, now and then with an else that may jump too (``else if (d) jump;``,
        an assignment before it): the statements after such an if run only where neither jumped
        (the C front end once ran them after the else-if's jump)."""
        r = self.rng
        orelse: tuple = ()
        if self.chance(0.35):
            inner = If(self.cond(scope, 1), (jump(),))
            before = () if self.chance(0.6) else (Assign(r.choice(scope.locals), self.fexpr(scope, 2), "+"),)
            orelse = (*before, inner)
        return If(self.cond(scope, 1), (jump(),), orelse)

    def block(self, scope: _Scope, count: int, depth: int, loops: bool = True) -> list:
        out: list = []
        for _ in range(count):
            out += self.statement(scope, depth, loops)
        return out

    def statement(self, scope: _Scope, depth: int, loops: bool) -> list:
        r = self.rng
        kinds = {"assign": 4, "if": 2 if depth < 3 else 0}
        if scope.writable:
            kinds["store"] = 3
        if loops and self.has("loops") and (depth == 0 or self.has("nested_loops")) and depth < 3:
            kinds["for"] = 3
            if self.has("while"):
                kinds["while"] = 1
            if self.has("parallel") and depth == 0 and scope.is_main and not scope.in_parallel:
                kinds["parallel"] = 1
        if scope.loop_depth and self.has("registers") and len(scope.locals) > 1 and not scope.in_parallel:
            kinds["register"] = 1.5
        if scope.loop_depth and self.has("break") and not scope.in_parallel:
            kinds["jump"] = 1
        if self.has("early_return") and not scope.in_parallel:
            kinds["return"] = 0.5
        if self.has("helper_writes") and scope.is_main and scope.writable and not scope.in_parallel:
            if any(not h.returns for h in scope.helpers) and (not scope.loop_depth or self.has("helper_in_loop")):
                kinds["call"] = 1.5
        if scope.is_main and len(scope.writable) > 1 and not scope.in_parallel and not scope.loop_depth \
                and any(h.recursive for h in scope.helpers):
            kinds["recurse"] = 1.5
        kind = r.choices(list(kinds), list(kinds.values()))[0]
        if kind == "assign":
            op = r.choice(["", "", "+", "-", "*"])
            return [Assign(r.choice(scope.locals), self.fexpr(scope, 3), op)]
        if kind == "register":  # the previous value moves along, a new one comes in
            older, newer = r.sample(scope.locals, 2)
            return [Assign(older, Ref(newer)), Assign(newer, self.fexpr(scope, 1) if self.chance(0.5)
                                                      else self.leaf(scope, None))]
        if kind == "store":
            return [Store(r.choice(scope.writable), self.index(scope), self.fexpr(scope, 3), r.choice(["", "+", "*"]))]
        if kind == "if":
            body = self.block(scope, r.randint(1, 2), depth + 1, loops)
            orelse = self.block(scope, r.randint(1, 2), depth + 1, loops) if self.chance(0.5) else []
            return [If(self.cond(scope, 2), tuple(body), tuple(orelse))]
        if kind == "for":
            return self.for_loop(scope, depth)
        if kind == "while":
            return self.while_loop(scope, depth)
        if kind == "parallel":
            return self.parallel_loop(scope)
        if kind == "jump":
            return [self.jump_chain(scope, lambda: r.choice([Break(), Continue()]))]
        if kind == "return":
            return [self.jump_chain(scope, lambda: Return(self.fexpr(scope, 2) if self._returns(scope) else None))]
        if kind == "recurse":
            return [self.recursive_call(scope)]
        helper = r.choice([h for h in scope.helpers if not h.returns])
        out = r.choice(scope.writable)
        source = r.choice([a for a in ("x", "y") if a != out and a in {p.name for p in self.params}] or ["x"])
        if source == out:
            return []
        return [CallS(helper.name, (ArrayArg(out), ArrayArg(source), self.fexpr(scope, 2), IRef("n")))]

    def _returns(self, scope: _Scope) -> bool:
        # Only helpers with writable arrays return nothing.
        return scope.is_main or "out" not in scope.writable

    def for_loop(self, scope: _Scope, depth: int) -> list:
        r = self.rng
        pre: list = []
        extent = "m" if self.matrix and self.chance(0.35) else "n"
        size = IRef(extent)
        hi = size
        lo = IConst(r.choice((0, 0, 0, 1)))
        if self.has("data_bounds") and self.chance(0.35):
            bound = self.fresh("m")
            data = Trunc(r.choice((2.0, 3.0)), Intr("tanh", (self.fexpr(scope, 2),)))
            pre.append(IAssign(bound, IMin(size, IBin("+", IConst(1), data))))
            hi = IRef(bound)
        elif self.chance(0.2):
            hi = IBin("-", size, IConst(1))
        step = IConst(r.choice((1, 1, 1, 2, 3)))
        if self.has("data_steps") and self.chance(0.25):
            name = self.fresh("p")
            pre.append(IAssign(name, IBin("+", IConst(1), Trunc(2.5, Intr("tanh", (self.fexpr(scope, 2),))))))
            step = IRef(name)
        var = self.fresh("i")
        inner = self._with_index(scope, IRef(var), extent)
        inner.loop_depth += 1
        body = tuple(self.block(inner, r.randint(1, 3), depth + 1))
        down = self.has("down_loops") and self.chance(0.3)
        note = ""
        if depth == 0 and self.has("checkpoint_annotation") and isinstance(step, IConst) and self.chance(0.3):
            note = r.choice(ANNOTATIONS)
        return pre + [For(var, lo, hi, step, body, down, note)]

    def while_loop(self, scope: _Scope, depth: int) -> list:
        var = self.fresh("k")
        inner = self._with_index(scope, IBin("-", IRef(var), IConst(1)))
        inner.loop_depth += 1
        body = tuple(self.block(inner, self.rng.randint(1, 3), depth + 1))
        cond = self.cond(scope, 1) if self.chance(0.7) else None
        note = "recompute" if depth == 0 and self.has("checkpoint_annotation") and self.chance(0.2) else ""
        return [While(var, IRef("n"), cond, body, note)]

    def parallel_loop(self, scope: _Scope) -> list:
        """A loop whose iterations are independent: a private temporary, y[i], a + reduction."""
        var = self.fresh("i")
        private = self.fresh("q")
        reduce = self.rng.choice(scope.locals[:3])
        frozen = [f for f in scope.floats if f not in scope.locals] + [
            f for f in scope.locals if f != reduce
        ]
        inner = _Scope(frozen, [], ["x"], [], [(IRef(var), "n")],
                       scope.helpers if self.has("parallel_calls") else [], True, scope.gathers)
        inner.in_parallel = True
        body = [Assign(private, self.fexpr(inner, 2))]
        inner.floats.append(private)
        if "y" in scope.writable:
            body.append(Store("y", (IRef(var),), self.fexpr(inner, 2)))
        body.append(Assign(reduce, self.fexpr(inner, 2), "+"))
        kind = "omp" if self.lang == "c" else "prange"
        return [For(var, IConst(0), IRef("n"), IConst(1), tuple(body), parallel=kind, reduce=reduce)]

    # -- expressions --

    def index(self, scope: _Scope, extent: str = "n"):
        r = self.rng
        candidates = [e for e, x in scope.ints if x == extent]
        if not candidates or self.chance(0.1):
            return (IConst(r.randrange(2 if extent == "m" else 4)),)
        base = r.choice(candidates)
        roll = r.random()
        if roll < 0.6:
            return (base,)
        if roll < 0.75:
            return (IBin("%", IBin("+", base, IConst(r.randint(1, 3))), IRef(extent)),)
        if roll < 0.9 or not scope.gathers or extent != "n":
            return (IBin("-", IBin("-", IRef(extent), IConst(1)), base),)
        return (ILoad("idx", base),)

    def fexpr(self, scope: _Scope, depth: int, extra: Optional[list] = None):
        r = self.rng
        if depth <= 0 or self.chance(0.25):
            return self.leaf(scope, extra)
        kinds = {"intr": 4, "bin": 4}
        if self.has("select"):
            kinds["select"] = 0.7
        calls = [h for h in scope.helpers if h.returns and not h.recursive
                 and (scope.arrays or all(p.kind != "array" for p in h.params))]
        if calls and (not scope.loop_depth or self.has("helper_in_loop")) and not scope.in_parallel:
            kinds["call"] = 1.2
        if calls and scope.in_parallel:
            kinds["call"] = 1.2
        if self.numpy and scope.is_main and not scope.in_parallel:
            kinds["reduce"] = 1.5
        kind = r.choices(list(kinds), list(kinds.values()))[0]
        if kind == "intr":
            names = [n for n in SCALAR if self.has("kinks") or n not in KINKED]
            name = r.choice(names)
            args = [self.fexpr(scope, depth - 1, extra) for _ in range(SCALAR[name].arity)]
            if name in ("max", "min") and not self.has("ties") and args[0] == args[1]:
                args[1] = Bin("+", args[1], Num(0.5))
            return guarded(name, tuple(args))
        if kind == "bin":
            return Bin(r.choice("+-*"), self.fexpr(scope, depth - 1, extra), self.fexpr(scope, depth - 1, extra))
        if kind == "select":
            return Select(self.cond(scope, 1), self.fexpr(scope, depth - 1, extra), self.fexpr(scope, depth - 1, extra))
        if kind == "call":
            return self.call(scope, r.choice(calls), depth)
        return self.reduction(scope)

    def call(self, scope: _Scope, helper: Function, depth: int):
        args = []
        nested = depth - 1 if self.has("nested_calls") else 0
        arrays = scope.arrays if scope.arrays else ["x"]
        for p in helper.params:
            if p.kind == "float":
                args.append(self.fexpr(scope, nested) if nested else self.leaf(scope, None))
            elif p.kind == "int":
                args.append(IRef("n"))
            else:
                args.append(ArrayArg(self.rng.choice(arrays)))
        return CallF(helper.name, tuple(args))

    def leaf(self, scope: _Scope, extra: Optional[list]):
        r = self.rng
        roll = r.random()
        if roll < 0.15:
            return Num(r.choice(CONSTANTS))
        if roll < 0.55 and scope.arrays:
            array = r.choice(scope.arrays)
            return Load(array, self.index(scope))
        if roll < 0.65 and self.matrix and scope.is_main:
            return Load(self.matrix, self.index(scope, "n") + self.index(scope, "m"))
        return Ref(r.choice(extra or scope.floats))

    def cond(self, scope: _Scope, depth: int, tested: Optional[set] = None):
        # ``tested``: the ints whose parity this condition already tests. A second test of
        # the same parity could meet the first negated (``p && !p``), which gcc rejects as
        # always false; people do not write that, so the generator does not either.
        r = self.rng
        tested = set() if tested is None else tested
        roll = r.random()
        if depth > 0 and roll < 0.2:
            op = r.choice(["and", "or"])
            left = self.cond(scope, depth - 1, tested)
            return BoolOp(op, left, self.cond(scope, depth - 1, tested))
        if depth > 0 and roll < 0.25:
            return Not(self.cond(scope, depth - 1, tested))
        untested = [i for i, *_ in scope.ints if i not in tested]
        if roll < 0.35 and untested:
            i = r.choice(untested)
            tested.add(i)
            return ICmp("==", IBin("%", i, IConst(2)), IConst(0))
        right = Num(r.choice((0.0, 0.5, -0.25))) if self.chance(0.5) else self.fexpr(scope, 1)
        return Cmp(r.choice("<>"), self.fexpr(scope, 2), right)

    # -- whole-array NumPy --

    def reduction(self, scope: _Scope):
        r = self.rng
        roll = r.random()
        if roll < 0.15:
            return Reduce("dot", (self.aexpr(scope, "n", 2), self.aexpr(scope, "n", 2)))
        if roll < 0.25:
            return Reduce("shiftdot", (self.aexpr(scope, "n", 2),))
        fn = r.choice(["sum", "sum", "mean", "max", "min"] if self.has("kinks") else ["sum", "sum", "mean"])
        return Reduce(fn, (self.aexpr(scope, r.choice(["n", "m", "mn"]), 3),))

    def aexpr(self, scope: _Scope, shape: str, depth: int):
        r = self.rng
        if depth <= 0 or self.chance(0.2):
            if shape == "n":
                return AVar("x", "n")
            if shape == "mn":
                return AVar("W", "mn")
            return AMat("matvec", AVar("W", "mn"), AVar("x", "n"))
        roll = r.random()
        if roll < 0.3:
            names = [n for n in UFUNC if self.has("kinks") or n != "abs"]
            return AUn(r.choice(names), self.aexpr(scope, shape, depth - 1))
        if roll < 0.55:
            left = self.aexpr(scope, shape, depth - 1)
            if self.chance(0.35):
                return ABin(r.choice("+-*"), left, self.leaf(_Scope(scope.floats, [], [], [], [], [], True), None))
            if shape == "mn" and self.chance(0.5):
                if self.chance(0.5):
                    return ABin(r.choice("+-*"), left, self.aexpr(scope, "n", depth - 1))
                if self.chance(0.3):  # a row made by transposing a keepdims column: its unit axis stretches
                    inner = self.aexpr(scope, "mn", depth - 1)
                    return ABin(r.choice("+-*"), left, AMat("trow", inner, inner))
                keep = AAxis(r.choice(["sum", "mean"]), self.aexpr(scope, "mn", depth - 1), 1, True)
                return ABin(r.choice("+-*"), left, keep)
            return ABin(r.choice("+-*"), left, self.aexpr(scope, shape, depth - 1))
        if roll < 0.65 and self.has("kinks"):
            parts = [self.aexpr(scope, shape, depth - 1) for _ in range(4)]
            return AWhere(*parts)
        if shape == "n":
            if self.chance(0.4):
                return AMat("tvec", AVar("W", "mn"), self.aexpr(scope, "m", depth - 1))
            if self.chance(0.5):
                return AMat("vecmat", self.aexpr(scope, "m", depth - 1), AVar("W", "mn"))
            return AAxis(r.choice(["sum", "mean"]), self.aexpr(scope, "mn", depth - 1), 0, False)
        if shape == "m":
            if self.chance(0.6):
                return AMat("matvec", self.aexpr(scope, "mn", depth - 1), self.aexpr(scope, "n", depth - 1))
            return AAxis(r.choice(["sum", "mean"]), self.aexpr(scope, "mn", depth - 1), 1, False)
        # np.outer, or an outer product or sum by broadcasting axes of extent 1 (None, reshape)
        kind = r.choice(["outer", "outer", "bouter", "router"])
        return AMat(kind, self.aexpr(scope, "m", depth - 1), self.aexpr(scope, "n", depth - 1))


def generate(seed: int, lang: str, features: frozenset = FEATURES) -> Program:
    return Generator(seed, lang, features).program()
