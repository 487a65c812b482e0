"""Lowering of C's ``switch`` to the IR's structured control flow (a mixin of the C lowerer).

The IR has no multiway branch, so a switch becomes what a person would write instead: an
``if``/``else if`` chain over the value, evaluated once. Each *chain* of groups (``c_flow``:
groups joined by fall-through) is one branch, taken when the value matches one of the chain's
labels; the chain holding ``default`` is the final ``else``. Inside a chain of several groups,
a group runs when control entered the chain at it or before it::

    switch (k) {                    if (k == 2 || k == 1) {
    case 2: x *= 2;       ->            if (k == 2) { x *= 2; }
    case 1: x += 1; break;              x += 1;
    default: x = 0;                 } else { x = 0; }
    }

A ``break`` that ends a group ends its chain, so it is simply dropped; any other ``break``
sets a flag (as a loop's does) under which the rest of the chain is skipped. ``continue`` and
``return`` inside a case keep their meaning (the enclosing loop's flag, the function's).
"""

from __future__ import annotations

from typing import Callable, Optional

from pycparser import c_ast

from ..ssa import build
from ..ssa.ir import Block, Builder, Value
from ..ssa.types import BOOL
from .c_flow import Arm, Group, block_exits, chains, nested_label, switch_groups
from .py_common import Env
from .structured import BREAK, LoopFrame


class CSwitchLowering:
    """``switch_stmt`` and ``arm``; the host (the C function lowerer, which lists this class
    last among its bases) provides ``integer``, ``fail``, ``loc``, ``scope``, ``block`` and
    ``branch``."""

    def switch_stmt(self, st: c_ast.Switch, b: Builder, env: Env, loop: Optional[LoopFrame]) -> None:
        sel = self.integer(st.cond, b, env, "the value of a switch")
        if not sel.name_hint and build.const_value(sel) is None:
            sel.name_hint = "key"
        before, groups = switch_groups(st)
        if before:
            raise self.fail(before[0], "this statement comes before the first 'case' of the switch, so it never "
                            "runs", "move it above the switch")
        for g in groups:
            inner = nested_label(g.body)
            if inner is not None:
                raise self.fail(inner, "a 'case' label inside a nested statement of the switch is not supported",
                                "put every case label directly in the switch's braces")
            for label in g.labels:  # checked once, up front, in a scratch block
                self.case_value(label, Builder(Block(), self.loc(label)), env)
        # ``break`` leaves the switch; ``continue`` still belongs to the loop around it (if any).
        frame = LoopFrame(self.new_key("break", BOOL), loop.skip if loop is not None else "")
        if any(BREAK in block_exits(g.lowered_body).may for g in groups):
            env[frame.done] = build.const(b, False, BOOL, "break")
        runs = chains(groups)
        ordered = [c for c in runs if not any(g.default for g in c)] + [c for c in runs if any(g.default for g in c)]
        with self.scope():
            self.chain_ifs(ordered, sel, b, env, frame)
        env.pop(frame.done, None)

    def case_value(self, label: c_ast.Node, b: Builder, env: Env) -> Value:
        """A case label: an integer constant expression (a literal, a ``#define``, ``'a'``)."""
        v = self.integer(label, b, env, "a case label")
        if build.const_value(v) is None:
            raise self.fail(label, "a case label must be an integer constant", "use a literal or a #define")
        return v

    def matches(self, sel: Value, labels: list[c_ast.Node], b: Builder, env: Env) -> Value:
        """``sel == a || sel == b || ...`` (eager: comparisons with constants cannot fail)."""
        out: Optional[Value] = None
        for label in labels:
            eq = build.cmp(self.at(b, label), "eq", sel, self.case_value(label, b, env))
            out = eq if out is None else b.op1("or", [out, eq], BOOL)
        assert out is not None
        return out

    def chain_ifs(self, runs: list[list[Group]], sel: Value, b: Builder, env: Env, frame: LoopFrame) -> None:
        """``if (value in chain 1) {...} else if (value in chain 2) {...} else {default's chain}``."""
        if not runs:
            return
        first, rest = runs[0], runs[1:]
        if any(g.default for g in first):  # ordered last: the final else
            self.chain(first, sel, b, env, frame)
            return
        b.loc = self.loc(first[0].at)
        cond = self.matches(sel, [label for g in first for label in g.labels], b, env)
        b.loc = self.loc(first[0].at)
        other: Optional[Callable[[Builder, Env], None]] = None
        if rest:
            def other(bb: Builder, e: Env) -> None:
                self.chain_ifs(rest, sel, bb, e, frame)
        self.branch(b, env, cond, lambda bb, e: self.chain(first, sel, bb, e, frame), other)

    def chain(self, run: list[Group], sel: Value, b: Builder, env: Env, frame: LoopFrame) -> None:
        """The groups of one chain: each but the last runs when the value's label is in it or in
        an earlier group (or, past ``default``, when it is in no later group)."""
        arms = []
        for k, g in enumerate(run):
            test: Optional[tuple[Value, list[c_ast.Node], bool]] = None
            if k < len(run) - 1:
                if any(h.default for h in run[:k + 1]):
                    test = (sel, [label for h in run[k + 1:] for label in h.labels], True)
                else:
                    test = (sel, [label for h in run[:k + 1] for label in h.labels], False)
            arms.append(Arm(g.lowered_body, test, g.at.coord))
        self.block(arms, b, env, frame)

    def arm(self, st: Arm, b: Builder, env: Env, loop: Optional[LoopFrame]) -> None:
        if st.cond is None:
            self.block(st.body, b, env, loop)
            return
        sel, labels, negate = st.cond
        cond = self.matches(sel, labels, b, env)
        if negate:
            cond = b.op1("not", [cond], BOOL)
        b.loc = self.loc(st)
        self.branch(b, env, cond, lambda bb, e: self.block(st.body, bb, e, loop), None)
