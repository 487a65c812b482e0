"""Calls in C: a gradient returns its adjoints through pointers, fused into the caller's sums.

A float scalar whose adjoint a gradient returns gets a shadow pointer right after it, and the
callee adds the adjoint where it points (``grad_g(x[i], &d_x[i], a, &d_a_local, d_s)``): where the
caller's only use of the adjoint is to add it to a variable or an array element right after the
call, the address of that variable or element is passed (``_fuse``), else of a zeroed temporary.
A call in a parallel loop (or in an atomic copy) that passes arrays calls the callee's atomic
copy. A flat buffer passed where the callee declares rows is cast to them.
"""

from __future__ import annotations


from typing import Optional

from ..diagnostics import error
from ..emit.expr import Call, Expr, Name, Subscript, walk
from ..emit.inline import InlinePlan
from ..emit.stmt import Assign, ExprStmt, Stmt
from ..parse.c_declarators import is_array_spelling, is_pointer_rows, pointer_to_rows
from ..ssa.ir import Block, Function, Module, Op, Value
from .aggregates import EACH, each_of, struct_params
from .cexpr import CPrinter, Cast, address_of, ctype
from .cfile import ModuleContext
from .names import CNamer
from .signature import declared_params, results_through_pointers


class CCalls:
    """Calls of functions and gradients for ``CFunctionEmitter``.

    Needs from the host: the attributes below; ``expr`` and ``_lit`` (expressions), ``_element``,
    ``_extent`` and ``_declared_rows`` (``indexing.CArrayAccess``), ``_threads_share``
    (``loops.CLoops``), and ``StatementBuilder``'s ``_call`` for calls of functions that are no
    gradients, after this class in the method resolution order."""

    ctx: ModuleContext
    module: Module
    fn: Function
    namer: CNamer
    var: dict[Value, str]
    types: dict[str, str]
    plan: InlinePlan
    printer: CPrinter
    rows_declared: bool
    atomic: bool
    parallel: list[Op]
    skip: set[Op]  # ops folded into a call (accumulation through a pointer)
    fused: dict[Value, Expr]  # call result -> where the callee accumulates it
    positions: dict[Block, dict[Op, int]]  # each block's ops' places in it, worked out once (``_at``)
    row_tables: dict[str, str]  # flat buffers passed as double ** -> their tables of rows (CMemory)

    def _zeroed_before_call(self) -> frozenset:
        """The results of calls to gradients that return adjoints through pointers: each one's
        variable is set to zero before the call reads its arguments (``_call``), so it cannot
        share a variable with any of them (``h(2.0, h(y, 3.0))``: the outer call's ``d_return`` is
        the inner one's own result's adjoint, of the same name)."""
        out = set()
        for op in self.fn.walk():
            if op.name == "call" and op.attrs["callee"] in self.module.functions:
                if self.ctx.returned(self.module.functions[op.attrs["callee"]]) is not None:
                    out.update(op.results)
        return frozenset(out)

    def _call(self, op: Op) -> list[Stmt]:
        callee = self.module.functions.get(op.attrs["callee"])
        returned = self.ctx.returned(callee) if callee is not None else op.attrs.get("returned")
        if op.name == "extern.adjoint" and (self.parallel or self.atomic) and any(a.type.is_array for a in op.operands):
            # Its scalar adjoints come back through pointers to each thread's own variables, as a
            # gradient's do; but it adds into the shadows of the arrays it is passed, which other
            # iterations running at once may pass too, and it has no atomic copy.
            raise error(f"C output: the custom adjoint '{op.attrs['callee']}' adds into the adjoints of the arrays it "
                        "is passed, in iterations that run at once and may pass the same arrays", op.loc,
                        hint="drop the loop's parallel pragma, or differentiate the function through")
        if returned is None and callee is not None and results_through_pointers(callee):  # read or not
            return [] if self.plan.folded_op(op) else self._several_results(op, self.op_expr(op))
        if returned is None:
            return super()._call(op)
        # A gradient returns the adjoints of ``returned`` through pointers the caller passes.
        self._fuse(op, returned)
        pre: list[Stmt] = []
        args: list[Expr] = []
        for j, a in enumerate(op.operands):
            args += self._arg_exprs(op, j)
            if j not in returned:
                continue
            r = op.results[returned.index(j)]
            if r in self.fused:
                args.append(address_of(self.fused[r]))
                continue
            name = self.var.get(r)
            if name is None:
                name = self.namer.fresh(f"{r.name_hint or 'adjoint'}_unused")
                self.types[name] = ctype(r.type)
            pre.append(Assign([Name(name)], self._lit(0, r.type)))
            args.append(address_of(Name(name)))
        if callee is None:  # a custom adjoint: declared at the top of the file (c_file)
            return pre + [ExprStmt(Call(Name(op.attrs["callee"]), tuple(args)))]
        name = self.ctx.c_name(op.attrs["callee"])
        if (self.parallel or self.atomic) and any(a.type.is_array for a in op.operands):
            # Other iterations may pass the same shadow (d_c + k * d): the callee's copy that
            # accumulates into the arrays it is passed atomically.
            name = self.ctx.atomic_name(op.attrs["callee"])
        return pre + [ExprStmt(Call(Name(name), tuple(args)))]

    def call_args(self, op: Op) -> tuple[Expr, ...]:
        """The arguments; the members across an array of structs the callee takes whole are the
        array, passed once (``forward(layers, nl, x)``)."""
        return tuple(e for k in range(len(op.operands)) for e in self._arg_exprs(op, k))

    def _arg_exprs(self, op: Op, k: int) -> list[Expr]:
        """What the operand ``k`` is in C: one argument, or none for a member of an array of
        structs after its first (the array is passed once, for its first member)."""
        given = self.struct_array_arg(op, k)
        if given is not None:
            return [given]
        return [] if self._array_member(op, k) else [self.call_arg(op, k)]

    def _array_member(self, op: Op, k: int) -> bool:
        """Whether the callee's ``k``-th parameter is a member across an array of structs."""
        callee = self.module.functions.get(op.attrs["callee"])
        return callee is not None and k < len(callee.params) and \
            callee.params[k].name_hint in struct_params(callee) and \
            struct_params(callee)[callee.params[k].name_hint].kind == EACH

    def struct_array_arg(self, op: Op, k: int) -> Optional[Expr]:
        """For the first member of an array of structs the callee takes (``const Layer *layers``,
        its shadow ``Layer *d_layers``): the caller's array, which holds the members it passes;
        None for any other parameter. A member that is not the caller's own array as it was
        given (a copy, a scratch shadow) is an error: C has no array of structs to pass."""
        if not self._array_member(op, k):
            return None
        callee = self.module.functions[op.attrs["callee"]]
        group = struct_params(callee)[callee.params[k].name_hint].group
        first = next(j for j, p in enumerate(callee.params)
                     if struct_params(callee).get(p.name_hint) is not None
                     and struct_params(callee)[p.name_hint].group == group)
        a = op.operands[k]
        leaf = each_of(a, self.struct_leaves)
        head = each_of(op.operands[first], self.struct_leaves)
        if leaf is None or head is None or leaf.group != head.group:
            raise error(f"C output: '{op.attrs['callee']}' takes an array of structs here, and this argument is "
                        "not the caller's array of them", op.loc,
                        hint="pass the array parameter itself, and differentiate with respect to it where the "
                        "callee's gradient needs its adjoints")
        return Name(leaf.group) if k == first else None

    def call_arg(self, op: Op, k: int) -> Expr:
        """An argument; a flat buffer (a copy, an array on the heap) where the callee declares
        rows (``double B[n][m]``) is cast to them, ``(double (*)[m])t0``, as C wants."""
        a = op.operands[k]
        e = self.expr(a)
        callee = self.module.functions.get(op.attrs["callee"])
        spelled = declared_params(callee) if callee is not None else None
        if not (a.type.is_array and a.type.rank > 1 and spelled and len(spelled) == len(op.operands)  # type: ignore
                and self.rows_declared and is_array_spelling(spelled[k]) and not self._declared_rows(a)):
            return e
        if is_pointer_rows(spelled[k]):  # double **: the buffer's table of rows (CMemory._row_table)
            table = self.row_tables.get(self.var.get(a, ""))
            if table is None:
                raise error(f"C output: '{op.attrs['callee']}' takes rows of pointers (double **) here, and this "
                            "argument is part of a flat array", op.loc,
                            hint="pass an array of rows, or declare the parameter with its extents: double A[n][m]")
            return Name(table)
        rows = [self.printer(self._extent(a, axis, op)) for axis in range(1, a.type.rank)]  # type: ignore
        return Cast(pointer_to_rows(spelled[k], rows), e)

    def _several_results(self, op: Op, value: Expr) -> list[Stmt]:
        """A call of a function of several results passes where each goes: ``polar(x, y, &r,
        &theta)``; a result nothing reads goes to a variable of its own, ``polar_unused``."""
        assert isinstance(value, Call)
        outs: list[Expr] = []
        for r in op.results:
            name = self.var.get(r)
            if name is None:
                name = self.namer.fresh(f"{op.attrs['callee']}_unused")
                self.types[name] = ctype(r.type)
            outs.append(address_of(Name(name)))
        return [ExprStmt(Call(value.func, (*value.args, *outs)))]

    def _may_fuse_into(self, store: Op) -> bool:
        """Whether a callee may add an adjoint straight into the element ``store`` writes: not
        where other threads may add to it at once (the callee adds with a plain ``+=``)."""
        return not self._threads_share(store)

    def _fuse(self, op: Op, returned: list[int]) -> None:
        """Let the callee add an adjoint where the caller would add it next (``&d_a_local``, ``&d_x[i]``).

        A gradient adds each returned adjoint to ``*d_p`` once. When the caller's only
        use of it is to add it to a variable (``d_a = d_a + r``) or to an array element
        (``d_x[i] += r``) right after the call, passing that variable's or element's
        address gives the same sum without the temporary.
        """
        block = op.parent
        k = self._at(block, op)
        callee_roots = {self.ctx.effects.root(a) for a in op.operands if a.type.is_array}
        taken: set[str] = set()
        progress = True
        while progress:  # one fusion can clear the way for another (the add it removes sat between)
            progress = False
            for r in op.results:
                if r not in self.fused and self._fuse_one(op, r, block, k, callee_roots, taken):
                    progress = True

    def _fuse_one(self, op: Op, r: Value, block: Block, k: int, callee_roots: set, taken: set[str]) -> bool:
        if len(r.uses) != 1:
            return False
        (user, at) = next(iter(r.uses))
        if user.parent is not block:
            return False
        if user.name == "accum" and at == len(user.operands) - 1:  # d_x[i] += r: the callee adds into &d_x[i]
            arr, *idx, _ = user.operands
            if (self.ctx.effects.root(arr) in callee_roots
                    or not self._only_folded_between(block, k, self._at(block, user)) or not self._may_fuse_into(user)):
                return False
            element = self._element(arr, idx, user)
            if any(isinstance(x, (Subscript, Call)) for x in walk(element) if x is not element):
                return False
            return self._fused(r, element, user, taken)
        if user.name != "add" or user.result.type != r.type:
            return False
        other = user.operands[1] if user.operands[0] is r else user.operands[0]
        # d_a = d_a + r: the callee adds into &d_a
        if (other is not r and user.result in self.var and other in self.var
                and self.var[user.result] == self.var[other]
                and self._only_folded_between(block, k, self._at(block, user))):
            return self._fused(r, Name(self.var[other]), user, taken)
        return False

    def _at(self, block: Block, op: Op) -> int:
        """``op``'s place in ``block`` (a search of a long block for each call was quadratic; the
        emitter does not change the IR)."""
        if block not in self.positions:
            self.positions[block] = {x: k for k, x in enumerate(block.ops)}
        return self.positions[block][op]

    def _fused(self, r: Value, target: Expr, skip: Op, taken: set[str]) -> bool:
        key = self.printer(target)
        if key in taken:
            return False
        taken.add(key)
        self.fused[r] = target
        self.skip.add(skip)
        return True

    def _only_folded_between(self, block: Block, lo: int, hi: int) -> bool:
        for x in block.ops[lo + 1 : hi]:
            if x.name == "comment" or x in self.skip:
                continue
            if len(x.results) == 1 and self.plan.folded_op(x):
                continue
            return False
        return True
