"""Statements from a function's ops: the part of building them that is the same in every output.

``StatementBuilder`` walks a function's blocks and turns each op into statements
(``s2sad.emit.stmt``): comments, returns, stores, and the structured ops, whose shape
survives (loops stay loops, branches stay branches). Out-of-SSA's parallel copies
(``s2sad.emit.outofssa``) are sequentialised at a loop's entry and at the end of each
region; an ``if`` whose branches make a copy alike makes it once before it, an empty
then-branch becomes ``if not c``, ``if a`` holding only ``if b`` becomes ``if a and b``,
and a branch that only picks one of two values for a variable becomes a choice
(``_choose``) or a ternary the renderer prints.

The expressions every language prints alike are built here too (comparisons, ``and``/``or``,
``not``, negation, choices, calls), and so is the bookkeeping of loops, tapes and calls that
does not depend on the spelling: a loop's bounds evaluated before the copies that overwrite
what they read, one top per tape variable, a call folded into its user printing nothing.

What an output language spells its own way, a subclass supplies (``emit_py``, ``emit_c``):
``spell_expr`` (the expression of every other op: constants, arithmetic, casts, math, memory),
``_isnan``, ``function_name``, ``_for`` (a counted loop), ``_bound_temp`` (the variable a bound
is saved in), ``_tape_new``/``_tape_push``/``_tape_pop`` (a tape's memory statements),
``_several_results`` (a call of several results), ``_break_cycle`` (a copy cycle) and
``_choose`` (``a if c else b``). A subclass sets ``module``, ``fn``, ``namer``, ``var``
(value -> variable), ``plan`` (the inlining plan), ``unread`` and ``tape_tops`` in its
constructor.
"""

from __future__ import annotations

import json

from typing import Callable, Collection

from ..diagnostics import error
from ..ssa.attrs import grad_info
from ..ssa.mpi import is_mpi
from ..ssa.ir import Block, Function, Module, Op, Value
from ..ssa.types import Type
from .expr import (
    Call,
    Expr,
    IfExp,
    Name,
    Subscript,
    Tuple,
    binop,
    bool_op,
    compare,
    literal_value,
    logical_not,
    names_in,
    negate,
    number,
)
from .inline import InlinePlan
from .names import Namer
from .outofssa import carried_targets
from .stmt import Assign, Comment, ExprStmt, If, Keyword, Return, Stmt, While, hoist_common_copies, stmt_names, tidy

# The IR's comparisons, as both languages write them.
COMPARE_OPERATORS = {"lt": "<", "le": "<=", "gt": ">", "ge": ">=", "eq": "==", "ne": "!="}


def tape_new_op(op: Op) -> Op:
    """The ``tape.new`` that made the tape a tape op works on (the op itself for ``tape.new``)."""
    return op if op.name == "tape.new" else op.operands[0].defining_op


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
    tape_tops: dict[str, str]  # tape variable -> the variable counting its pushes

    # -- the language's spellings ----------------------------------------------------------
    def spell_expr(self, op: Op) -> Expr:
        """The expression of an op ``op_expr`` leaves to the language (constants, arithmetic,
        casts, math, loads, memory)."""
        raise NotImplementedError

    def function_name(self, name: str) -> str:
        """A module function's name as calls spell it."""
        raise NotImplementedError

    def _isnan(self, x: Expr) -> Expr:
        raise NotImplementedError

    def _for(self, op: Op) -> list[Stmt]:
        raise NotImplementedError

    def _bound_temp(self, k: int, counter: str, t: Type) -> str:
        """The variable that saves loop bound ``k`` (0 start, 1 end, 2 step) of the loop whose
        counter is ``counter``, of type ``t`` (``_bounds_first``)."""
        raise NotImplementedError

    def _tape_new(self, op: Op, tape: Name, top: Name) -> list[Stmt]:
        raise NotImplementedError

    def _tape_push(self, op: Op, tape: Name, top: Name) -> list[Stmt]:
        raise NotImplementedError

    def _tape_pop(self, op: Op, tape: Name, top: Name) -> list[Stmt]:
        raise NotImplementedError

    def _several_results(self, op: Op, value: Expr) -> list[Stmt]:
        """The statement of a call whose several results are read (``_call``)."""
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

    def op_expr(self, op: Op) -> Expr:
        """``op``'s value as an expression: what prints alike in every language here, the rest
        in the language's ``spell_expr``."""
        n = op.name
        e = self.expr
        if n in COMPARE_OPERATORS:
            a, b = self._compare_operands(op)
            t = op.operands[0].type
            if a == b:
                return self._self_compare(n, a, t)
            return compare(COMPARE_OPERATORS[n], a, b, not t.is_float)
        if n in ("and", "or"):
            return bool_op(n, e(op.operands[0]), e(op.operands[1]))
        if n == "not":
            return logical_not(e(op.operands[0]))
        if n == "neg":
            return negate(e(op.operands[0]))
        if n == "select":
            return self._choose(*(e(o) for o in op.operands))
        if n == "if":  # an if whose branches only pick a value (``InlinePlan``)
            then, orelse = (e(r.terminator.operands[0]) for r in op.regions)
            return self._choose(e(op.operands[0]), then, orelse)
        if n == "call":
            return self.call_expr(op)
        if n == "extern.adjoint":  # a custom adjoint: named as its file defines it
            return Call(Name(op.attrs["callee"]), tuple(self.expr(o) for o in op.operands))
        return self.spell_expr(op)

    def call_expr(self, op: Op) -> Expr:
        """A call of a function of the module."""
        return Call(Name(self.function_name(op.attrs["callee"])), self.call_args(op))

    def call_args(self, op: Op) -> tuple[Expr, ...]:
        """The arguments of a call as the callee's signature takes them (one per operand here)."""
        return tuple(self.call_arg(op, k) for k in range(len(op.operands)))

    def call_arg(self, op: Op, k: int) -> Expr:
        """The ``k``-th argument of the call ``op``."""
        return self.expr(op.operands[k])

    def _compare_operands(self, op: Op) -> list[Expr]:
        return [self.expr(o) for o in op.operands]

    def _self_compare(self, n: str, x: Expr, t: Type) -> Expr:
        """``x < x`` and friends (from the derivative of ``max(a, a)``): linters reject them and
        compilers warn. Strict comparisons are always false; the others are true except for a NaN."""
        if n in ("lt", "gt"):
            return number(False)
        if not t.is_float:
            return number(n != "ne")
        isnan = self._isnan(x)
        return isnan if n == "ne" else logical_not(isnan)

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
            return self._return(op)
        if n == "for":
            return self._for(op)
        if n == "while":
            return self._while(op)
        if n == "if":
            return [] if self.plan.inline_if(op) else self._if(op)
        if n == "store":
            arr, *idx, val = op.operands
            return [Assign([Subscript(self.expr(arr), tuple(self.expr(i) for i in idx))], self.expr(val))]
        if n == "accum":
            return self._accum(op)
        if n.startswith("tape."):
            return self._tape(op)
        if n in ("call", "extern.adjoint"):
            return self._call(op)
        if n == "stop":
            return self._stop(op)
        if is_mpi(n):
            return self._mpi(op)
        if len(op.results) == 1:
            v = op.result
            if v in self.var:
                return [Assign([Name(self.var[v])], self.op_expr(op))]
            return []  # folded into its users, or dead
        raise NotImplementedError(f"{self.language} emitter: no statement for op {n}")

    def _mpi(self, op: Op) -> list[Stmt]:
        """An MPI call (``ssa/mpi``): C output spells it (``emit_c/mpi``); the others cannot yet."""
        raise error(f"{self.language} output of MPI communication is not supported yet", op.loc,
                    hint="use --target c")

    def _stop(self, op: Op) -> list[Stmt]:
        """The program stops here, as the primal's ``exit``/``abort`` stops it (``parse/c_stops``):
        C exits as the primal does; Python raises (a library's caller sees an exception)."""
        text = op.attrs.get("text", op.attrs["call"])
        if len(text) > 40:
            text = text[:37] + "..."
        line = op.loc.line if op.loc is not None else 0
        info = grad_info(self.fn)
        name = info.primal if info is not None else self.fn.name
        if op.attrs.get("exception"):  # a Python raise: the same exception (parse/py_lower.raise_stmt)
            said = op.attrs.get("message") or f"{name} raises (line {line}: {op.attrs.get('text', text)})"
            said = said.replace('"', "'")  # (no escaped quotes: ruff format would turn them)
            return [Keyword(f"raise {op.attrs['exception']}({json.dumps(said)})")]
        message = f"{name} stops the program (line {line}: {text})".replace("\\", "\\\\").replace('"', "'")
        return [Keyword(f'raise RuntimeError("{message}")')]

    def value_expr(self, v: Value) -> Expr:
        """The primal's value ``v`` as a gradient ``--with-value`` returns it."""
        return self.expr(v)

    def _return(self, op: Op) -> list[Stmt]:
        """``return a, b``; a gradient ``--with-value`` gives ``return value, adjoints``: the
        primal's value (a tuple for several), then its adjoints as it would give them alone
        (one, a tuple, or None)."""
        k = self.fn.attrs.get("with_value")
        exprs = [self.value_expr(v) if i < (k or 0) else self.expr(v) for i, v in enumerate(op.operands)]
        if not k:
            return [Return(exprs)] if exprs else []
        value = exprs[0] if k == 1 else Tuple(tuple(exprs[:k]))
        rest = exprs[k:]
        adjoints = rest[0] if len(rest) == 1 else Tuple(tuple(rest)) if rest else Name("None")
        return [Return([value, adjoints])]

    def _accum(self, op: Op) -> list[Stmt]:
        """``arr[idx] += g``, printed as the load, add and store it stands for would print:
        ``arr[idx] = arr[idx] + g``, which tidying makes ``arr[idx] += g`` (``stmt.augmented``)."""
        arr, *idx, val = op.operands

        def element() -> Expr:
            return Subscript(self.expr(arr), tuple(self.expr(i) for i in idx))
        return [Assign([element()], binop("+", element(), self.expr(val)))]

    def _tape(self, op: Op) -> list[Stmt]:
        """A tape op (``tape.new``/``push``/``pop``): a tape whose variable nothing reads prints
        nothing. Tapes out-of-SSA gives one variable (their lives do not overlap) share one
        top, made with the first of them."""
        n = op.name
        tape_var = self.var.get(op.result if n == "tape.new" else op.operands[0])
        if tape_var is None:
            return []
        tape, top = Name(tape_var), Name(self._tape_top(tape_var, op))
        if n == "tape.new":
            return self._tape_new(op, tape, top)
        if n == "tape.push":
            return self._tape_push(op, tape, top)
        if n == "tape.pop":
            return self._tape_pop(op, tape, top)
        raise NotImplementedError(f"{self.language} emitter: no statement for op {n}")

    def _tape_top(self, tape_var: str, op: Op) -> str:
        if tape_var not in self.tape_tops:
            self.tape_tops[tape_var] = self.namer.fresh(f"{tape_var}_top")
        return self.tape_tops[tape_var]

    def _call(self, op: Op) -> list[Stmt]:
        """A call as a statement: none where its value prints inside its user's expression
        (or nothing reads it and it writes no memory), else the call, assigned to what reads it."""
        if self.plan.folded_op(op):
            return []
        value = self.op_expr(op)
        live = [r for r in op.results if r in self.var]
        if not live:
            return [ExprStmt(value)]
        if len(op.results) == 1:
            return [Assign([Name(self.var[op.result])], value)]
        return self._several_results(op, value)

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

    def _region(self, region: Block) -> list[Stmt]:
        """A loop body's or branch's statements, with the copies of the values it yields."""
        return tidy(self.gen_block(region) + self._yield_copies(region))

    def _bounds_first(self, counter: str, t: Type, bounds: list[Expr], pre: list[Stmt],
                      unstable: Callable[[int, list[str]], bool] = lambda k, names: False) -> list[Stmt]:
        """The assignments that save loop bounds in variables (``bounds`` is changed to read them).

        The IR evaluates a loop's bounds and the initial values of what it carries
        together, at the loop; the printed copies of those values (``pre``) come first,
        so a bound that reads a variable they overwrite is saved before them. So is a
        bound the language finds ``unstable`` otherwise (bound ``k``, reading ``names``).
        """
        written = stmt_names(pre)[1]
        early: list[Stmt] = []
        for k, b in enumerate(bounds):
            names = names_in(b)
            if any(n in written for n in names) or unstable(k, names):
                temp = Name(self._bound_temp(k, counter, t))
                early.append(Assign([temp], b))
                bounds[k] = temp
        return early

    def _while(self, op: Op) -> list[Stmt]:
        cond, body = op.regions
        pre = self.copies(list(zip(cond.args, op.operands)))
        cond_stmts = self.gen_block(cond)
        c = self.expr(cond.terminator.operands[0])
        stmts = self._region(body)
        if cond_stmts:
            return pre + [While(None, cond_stmts + [If(logical_not(c), [Keyword("break")])] + stmts)]
        return pre + [While(c, stmts or [Keyword("pass")])]

    def _if(self, op: Op) -> list[Stmt]:
        c = self.expr(op.operands[0])
        then, orelse = (self._region(r) for r in op.regions)
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
