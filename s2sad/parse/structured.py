"""SSA construction over structured control flow, shared by the Python and C front ends.

Both front ends lower a function the same way: an environment (``Env``) maps
each variable (a key) to its current SSA value; an ``if`` is lowered with a
copy of the environment per branch and yields, as results, every key whose
value differs between them; a loop carries chosen keys as block arguments.
Jumps (``break``, ``continue``, ``return``) become flag keys that are carried
and merged like variables. What differs between the languages is how
statements are read (libcst or pycparser trees); this base class holds what
does not: keys with their hints and types, the two-branch merge and the
helpers loops use to enter and leave their bodies.

Arrays are references, never merged: a key whose array would depend on the
branch taken, or on the iteration, becomes a ``Poison`` that explains the
problem when (and only when) it is read.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Callable, Optional, Sequence, Union

from ..diagnostics import Diagnostic
from ..ssa import build
from ..ssa.ir import Block, Builder, Value
from ..ssa.types import BOOL, I64, ArrayType, Type
from .py_common import RESULT, RETURNED, Env, Fail, Poison

BREAK, CONTINUE, RETURN = "break", "continue", "return"


@dataclass(frozen=True)
class Exits:
    """The jumps a statement may take (``may``) and whether it always jumps (``always``)."""

    may: frozenset[str] = frozenset()
    always: bool = False


@dataclass(frozen=True)
class LoopFrame:
    """Environment keys of the flags of the innermost loop."""

    done: str  # set by break
    skip: str  # set by continue, for the rest of the iteration


class StructuredLowering:
    """Keys, branch merging and loop plumbing; subclasses lower their language's statements."""

    def __init__(self) -> None:
        self.diagnostics: list[Diagnostic] = []
        self.hints: dict[str, str] = {RESULT: "result", RETURNED: "returned"}
        self.key_types: dict[str, Type] = {RETURNED: BOOL}
        self.counter = 0

    def report(self, f: Fail) -> None:
        """Collect a statement's failure (None: already reported where it arose)."""
        if f.diagnostic is not None:
            self.diagnostics.append(f.diagnostic)

    # -- keys --------------------------------------------------------------------------------
    def new_key(self, hint: str, t: Type) -> str:
        """A fresh internal key (flags, counters); ``<...>`` cannot clash with a source name."""
        self.counter += 1
        key = f"<{hint}#{self.counter}>"
        self.hints[key] = hint
        self.key_types[key] = t
        return key

    def hint(self, key: str) -> str:
        return self.hints.get(key, key)

    def key_type(self, key: str) -> Type:
        return self.key_types[key]

    # -- statement lists -------------------------------------------------------------------
    # Each front end provides: stmt (lower one statement), attempt (lower, or report and poison),
    # stmt_exits, if_exits (an if's two branches' Exits, or None for other statements),
    # if_stmt (lower an if, with ``rest`` folded into one branch) and stmt_loc.
    def block(self, stmts: Sequence[Any], b: Builder, env: Env, loop: Optional[LoopFrame]) -> None:
        """Lower a statement list; after a statement that may jump, the rest runs under a guard."""
        for k, st in enumerate(stmts):
            more = k + 1 < len(stmts)  # (the rest is copied only where it is lowered apart: a copy
            # at every statement was quadratic in a long function)
            branches = self.if_exits(st) if more else None
            if branches is not None and branches[0].always != branches[1].always:
                # The rest can only run after the branch that falls through: lower it there.
                into_then = branches[1].always
                rest = list(stmts[k + 1:])
                if self.attempt(st, env, lambda st=st: self.if_stmt(st, b, env, loop, rest, into_then)):
                    return
                continue
            self.attempt(st, env, lambda st=st: self.stmt(st, b, env, loop))
            ex = self.stmt_exits(st)
            if ex.always:
                return  # the rest is unreachable
            if ex.may and more:
                self.after(ex, list(stmts[k + 1:]), b, env, loop)
                return

    def after(self, ex: Exits, rest: Sequence[Any], b: Builder, env: Env, loop: Optional[LoopFrame]) -> None:
        """Lower ``rest``, the statements after code whose jumps are ``ex``: not at all where that
        code always jumps, under a guard of the flags of the jumps it may take."""
        if ex.always or not rest:
            return
        flags = []
        for kind in sorted(ex.may):
            key = self.flag_key(kind, loop)
            v = env.get(key) if key is not None else None
            if isinstance(v, Value):
                flags.append(v)
        b.loc = self.stmt_loc(rest[0])
        self.guard(b, env, flags, lambda bb, e: self.block(rest, bb, e, loop))

    @staticmethod
    def flag_key(kind: str, loop: Optional[LoopFrame]) -> Optional[str]:
        if kind == RETURN:
            return RETURNED
        if loop is None:
            return None
        return loop.done if kind == BREAK else loop.skip

    # -- branches ----------------------------------------------------------------------------
    def branch(self, b: Builder, env: Env, cond: Value,
               then: Callable[[Builder, Env], None], other: Optional[Callable[[Builder, Env], None]]) -> None:
        """An ``if`` op over two environments; keys whose values differ become its results."""
        loc = b.loc
        tb, eb = Block(), Block()
        tbb, ebb = Builder(tb, loc), Builder(eb, loc)
        et, ee = dict(env), dict(env)
        then(tbb, et)
        if other is not None:
            other(ebb, ee)
        names = list(env)
        for side in (et, ee):  # (an array result is set by the returns alone: in no env before)
            names += [n for n in side if n not in env and (not n.startswith("<") or n.startswith(RESULT[:-1]))
                      and n not in names]
        keep, tvals, evals, arrays = [], [], [], []
        for n in names:
            vt, ve = et.get(n), ee.get(n)
            if vt is ve:  # unchanged, or both branches assign the same outer value (folding can do that)
                if vt is not None:
                    env[n] = vt
                continue
            if isinstance(vt, Poison) or isinstance(ve, Poison):
                p = vt if isinstance(vt, Poison) else ve
                env[n] = p  # type: ignore[assignment]
                continue
            t = vt.type if vt is not None else ve.type  # type: ignore[union-attr]
            if isinstance(t, ArrayType):
                arrays.append(n)
                continue
            tbb.loc = ebb.loc = loc
            tvals.append(vt if vt is not None else tbb.op1("undef", [], t, self.hint(n)))
            evals.append(ve if ve is not None else ebb.op1("undef", [], t, self.hint(n)))
            keep.append(n)
        b.loc = loc
        merged = self.merge_arrays(arrays, b, [(tbb, et), (ebb, ee)]) if arrays else {}
        for n in arrays:
            m = merged.get(n, Poison(f"'{self.hint(n)}' refers to a different array depending on the branch taken",
                                     "assign the array once, before the if"))
            if m is None:  # bound in no branch that goes on
                env.pop(n, None)
            else:
                env[n] = m
        tbb.loc = ebb.loc = loc
        tbb.create("yield", tvals, [])
        ebb.create("yield", evals, [])
        b.loc = loc
        op = b.create("if", [cond], [v.type for v in tvals], regions=[tb, eb], hints=[self.hint(n) for n in keep])
        env.update(zip(keep, op.results))

    def merge_arrays(self, names: list[str], b: Builder, sides: list[tuple[Builder, Env]]
                     ) -> dict[str, Union[Value, Poison, None]]:
        """The arrays ``names`` name after an if whose branches (``sides``: each one's builder, before
        its yield, and environment) bind them to different arrays: those a front end can give one
        array (built in ``b``, before the if, and in the branches); None for a name no branch that
        goes on binds; a Poison saying why for one it cannot. The names left out are poisoned.
        Here: all."""
        return {}

    def guard(self, b: Builder, env: Env, flags: list[Value], then: Callable[[Builder, Env], None]) -> None:
        """Run ``then`` under ``if not (flag or ...)``; directly when there is no flag."""
        if not flags:
            then(b, env)
            return
        self.branch(b, env, self.none_set(b, flags), then, None)

    @staticmethod
    def none_set(b: Builder, flags: list[Value]) -> Value:
        """``not (flag or ...)``: no jump flag is set (``flags`` not empty)."""
        any_flag = flags[0]
        for f in flags[1:]:
            any_flag = b.op1("or", [any_flag, f], BOOL)
        return b.op1("not", [any_flag], BOOL)

    # -- loops -------------------------------------------------------------------------------
    def init_values(self, keys: list[str], env: Env, b: Builder) -> list[Value]:
        """Initial values of carried keys; a key first set inside the loop starts ``undef``."""
        out = []
        for k in keys:
            v = env.get(k)
            out.append(v if isinstance(v, Value) else b.op1("undef", [], self.key_type(k), self.hint(k)))
        return out

    def enter_body(self, env: Env, keys: list[str], args: list[Value], arrays: list[str]) -> Env:
        inner = dict(env)
        inner.update(zip(keys, args))
        for n in arrays:
            if n in inner:
                inner[n] = Poison(f"'{self.hint(n)}' is an array reassigned inside this loop, so which array it "
                                  "names depends on the iteration", "allocate the array once, before the loop")
        return inner

    def leave_loop(self, env: Env, keys: list[str], results: list[Value], arrays: list[str]) -> None:
        env.update(zip(keys, results))
        for n in arrays:
            env[n] = Poison(f"'{self.hint(n)}' is an array assigned inside a loop, so it cannot be used after "
                            "the loop", "allocate the array once, before the loop")

    @staticmethod
    def exit_values(keys: list[str], inner: Env, args: list[Value]) -> list[Value]:
        return [v if isinstance(v := inner.get(k), Value) else a for k, a in zip(keys, args)]

    @staticmethod
    def in_range(b: Builder, i: Value, ub: Value, step: Value) -> Value:
        """``i`` has not reached ``ub`` going by ``step`` (of either sign)."""
        s = build.const_value(step)
        if s is not None:
            return build.cmp(b, "lt" if s > 0 else "gt", i, ub)
        up = build.cmp(b, "gt", step, build.const(b, 0, I64))
        return b.op1("select", [up, build.cmp(b, "lt", i, ub), build.cmp(b, "gt", i, ub)], BOOL)
