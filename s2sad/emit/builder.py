"""Statements from a function's ops: the part of building them that is the same in every output.

``StatementBuilder`` walks a function's blocks and turns each op into statements
(``s2sad.emit.stmt``): comments, returns, stores, and the structured ops, whose shape
survives (loops stay loops, branches stay branches). Out-of-SSA's parallel copies
(``s2sad.emit.outofssa``) are sequentialised at a loop's entry and at the end of each
region; an ``if`` whose branches make a copy alike makes it once before it, an empty
then-branch becomes ``if not c``, ``if a`` holding only ``if b`` becomes ``if a and b``,
and a branch that only picks one of two values for a variable becomes a choice
(``_choose``) or a ternary the renderer prints.

What an output language spells its own way, a subclass supplies (``emit_py``, ``emit_c``):
``op_expr`` (an op's expression), ``_for`` (a counted loop and its bounds), ``_tape`` (tape
pushes and pops), ``_call`` (calls and their results), ``_break_cycle`` (a copy cycle) and
``_choose`` (``a if c else b``). A subclass sets ``module``, ``fn``, ``namer``, ``var``
(value -> variable), ``plan`` (the inlining plan) and ``unread`` in its constructor.
"""

from __future__ import annotations

from typing import Collection

from ..ssa.ir import Block, Function, Module, Op, Value
from .expr import Expr, IfExp, Name, Subscript, bool_op, literal_value, logical_not, names_in
from .inline import InlinePlan
from .names import Namer
from .outofssa import carried_targets
from .stmt import Assign, Comment, If, Keyword, Return, Stmt, While, hoist_common_copies, tidy


class StatementBuilder:
    """Statements from ops; a subclass per output language supplies the spellings (see above)."""

    language = ""  # "Python", "C": for the message of an op no statement is made for
    # Calls that read no memory, for hoisting a copy both branches make (``hoist_common_copies``).
    pure_calls: Collection[str] = ()

    module: Module
    fn: Function
    namer: Namer
    var: dict[Value, str]
    plan: InlinePlan
    unread: set

    # -- the language's spellings ----------------------------------------------------------
    def op_expr(self, op: Op) -> Expr:
        raise NotImplementedError

    def _for(self, op: Op) -> list[Stmt]:
        raise NotImplementedError

    def _tape(self, op: Op) -> list[Stmt]:
        raise NotImplementedError

    def _call(self, op: Op) -> list[Stmt]:
        raise NotImplementedError

    def _break_cycle(self, pending: list[tuple[str, Expr]], out: list[Stmt]) -> bool:
        """Emit what a copy cycle needs; True when that finished all ``pending`` copies."""
        raise NotImplementedError

    def _choose(self, c: Expr, a: Expr, b: Expr) -> Expr:
        """``a if c else b`` in the target's spelling."""
        raise NotImplementedError

    # -- expressions -----------------------------------------------------------------------
    def expr(self, v: Value) -> Expr:
        if v in self.var:
            return Name(self.var[v])
        op = v.defining_op
        assert op is not None and self.plan.is_expr(v), f"value {v!r} has neither a variable nor an expression"
        return self.op_expr(op)

    # -- statements ------------------------------------------------------------------------
    def gen_block(self, block: Block) -> list[Stmt]:
        out: list[Stmt] = []
        for op in block.ops:
            if op.name not in ("yield", "condition"):
                out += self.gen_op(op)
        return out

    def gen_op(self, op: Op) -> list[Stmt]:
        n = op.name
        if n == "comment":
            text = op.attrs.get("text", "").strip()
            return [Comment(text, bool(op.attrs.get("section")), bool(op.attrs.get("keep")))] if text else []
        if n == "return":
            return [Return([self.expr(v) for v in op.operands])] if op.operands else []
        if n == "for":
            return self._for(op)
        if n == "while":
            return self._while(op)
        if n == "if":
            return [] if self.plan.inline_if(op) else self._if(op)
        if n == "store":
            arr, *idx, val = op.operands
            return [Assign([Subscript(self.expr(arr), tuple(self.expr(i) for i in idx))], self.expr(val))]
        if n.startswith("tape."):
            return self._tape(op)
        if n == "call":
            return self._call(op)
        if len(op.results) == 1:
            v = op.result
            if v in self.var:
                return [Assign([Name(self.var[v])], self.op_expr(op))]
            return []  # folded into its users, or dead
        raise NotImplementedError(f"{self.language} emitter: no statement for op {n}")

    def copies(self, pairs: list[tuple[Value, Value]]) -> list[Stmt]:
        """A parallel copy (variable of dst <- src), sequentialised; ``_break_cycle`` for cycles."""
        pending = [(self.var[d], self.expr(s)) for d, s in pairs]
        pending = [(d, s) for d, s in pending if s != Name(d)]
        out: list[Stmt] = []
        while pending:
            for k, (d, s) in enumerate(pending):
                if not any(d in names_in(s2) for j, (_, s2) in enumerate(pending) if j != k):
                    out.append(Assign([Name(d)], s, copy=True))
                    pending.pop(k)
                    break
            else:
                # Every remaining copy overwrites a variable another one still reads.
                if self._break_cycle(pending, out):
                    break
        return out

    def _yield_copies(self, region: Block) -> list[Stmt]:
        term = region.terminator
        pairs = zip(carried_targets(term), term.operands)
        return self.copies([p for k, p in enumerate(pairs) if (term, k) not in self.unread])

    def _while(self, op: Op) -> list[Stmt]:
        cond, body = op.regions
        pre = self.copies(list(zip(cond.args, op.operands)))
        cond_stmts = self.gen_block(cond)
        c = self.expr(cond.terminator.operands[0])
        stmts = tidy(self.gen_block(body) + self._yield_copies(body))
        if cond_stmts:
            return pre + [While(None, cond_stmts + [If(logical_not(c), [Keyword("break")])] + stmts)]
        return pre + [While(c, stmts or [Keyword("pass")])]

    def _if(self, op: Op) -> list[Stmt]:
        c = self.expr(op.operands[0])
        then, orelse = (tidy(self.gen_block(r) + self._yield_copies(r)) for r in op.regions)
        known = literal_value(c)
        if isinstance(known, bool):
            return then if known else orelse
        pre, then, orelse = hoist_common_copies(c, then, orelse, self.pure_calls)
        if not then and not orelse:
            return pre
        return pre + self._if_stmt(len(op.results), c, then, orelse)

    def _if_stmt(self, n_results: int, c: Expr, then: list[Stmt], orelse: list[Stmt]) -> list[Stmt]:
        if not then:
            if not orelse:
                return []
            c, then, orelse = logical_not(c), orelse, []
        if not orelse and len(then) == 1:
            s = then[0]
            if isinstance(s, Assign) and len(s.targets) == 1 and isinstance(s.targets[0], Name):
                # `if x > m: m = x` is `m = max(m, x)` where the target spells it so (`_choose`)
                chosen = self._choose(c, s.value, s.targets[0])
                if not isinstance(chosen, IfExp):
                    return [Assign(s.targets, chosen)]
            if isinstance(s, If) and not s.orelse:
                return [If(bool_op("and", c, s.cond), s.body)]  # `if a:` + `if b:` -> `if a and b:`
        ternary = (
            n_results >= 1
            and len(then) == 1
            and len(orelse) == 1
            and all(isinstance(s, Assign) and s.copy and len(s.targets) == 1 for s in then + orelse)
            and then[0].targets == orelse[0].targets
        )
        return [If(c, then, orelse, ternary)]
