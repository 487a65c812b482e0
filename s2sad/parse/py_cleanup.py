"""Dead-code sweep of freshly lowered IR (mark and sweep over structured control flow).

Lowering is deliberately generous: it carries through loops and merges out of
branches every variable that *might* be observed, creates the ``returned``/
``done``/``skip`` flags on every path, and leaves constants whose only user was
folded away. This pass removes all of that, so the primal IR holds only what
the source computes (DESIGN.md: no unused values in the output).

Liveness starts from effects (``store``, ``return``, calls to functions that
write memory) and flows backwards: operands of live ops; the control operands
of a live loop or branch; and a loop-carried or branch-result *slot* is live
when its result or one of its block arguments is, which makes its initial and
yielded values live (Cytron et al. 1991, applied per region as in MLIR).

Why not ``s2sad.opt.dce``: its sweep visits a region before removing the dead
slots of the op that owns it, so a dead value still yielded by a dead slot
cannot be erased (an assertion fails). Here slots are dropped first.

Pre: well-formed IR. Post: the same effects, no dead op, no dead slot.
"""

from __future__ import annotations

from ..ssa.ir import Block, Function, Module, Op, Value

_CONTROL = ("for", "if", "while")
_TERMINATORS = ("yield", "condition", "return")


class _Live:
    def __init__(self, module: Module):
        self.module = module
        self.ops: set[Op] = set()
        self.values: set[Value] = set()
        self.work: list[object] = []
        self.writes: dict[str, bool] = {}

    def callee_writes(self, name: str) -> bool:
        if name not in self.writes:
            self.writes[name] = True  # a recursion guard (the front end rejects recursion)
            fn = self.module.functions.get(name)
            self.writes[name] = fn is None or any(
                op.name == "store" or (op.name == "call" and self.callee_writes(op.attrs["callee"]))
                for op in fn.walk()
            )
        return self.writes[name]

    def is_effect(self, op: Op) -> bool:
        if op.name in ("store", "return"):
            return True
        return op.name == "call" and self.callee_writes(op.attrs["callee"])

    def op(self, op: Op) -> None:
        if op not in self.ops:
            self.ops.add(op)
            self.work.append(op)

    def value(self, v: Value) -> None:
        if v not in self.values:
            self.values.add(v)
            self.work.append(v)

    def run(self, fn: Function) -> None:
        for op in fn.walk():
            if self.is_effect(op):
                self.op(op)
        while self.work:
            x = self.work.pop()
            if isinstance(x, Op):
                self.op_live(x)
            else:
                self.value_live(x)  # type: ignore[arg-type]

    def op_live(self, op: Op) -> None:
        if op.name == "for":
            for v in op.operands[:3]:
                self.value(v)
        elif op.name == "if":
            self.value(op.operands[0])
        elif op.name == "while":
            self.op(op.regions[0].ops[-1])  # its condition
        elif op.name != "yield":
            for v in op.operands:
                self.value(v)
        parent = op.parent.parent_op if op.parent is not None else None
        if parent is not None:
            self.op(parent)

    def slot(self, cf: Op, k: int) -> None:
        if cf.name == "if":
            yields = [r.ops[-1] for r in cf.regions]
        else:
            first = 3 if cf.name == "for" else 0
            self.value(cf.operands[first + k])
            yields = [cf.regions[-1].ops[-1]]
        for y in yields:
            self.value(y.operands[k])
            self.op(y)
        self.op(cf)

    def value_live(self, v: Value) -> None:
        if v.is_block_arg:
            owner = v.owner.parent_op
            if owner is None:
                return  # a parameter
            if owner.name == "for":
                if v.index == 0:
                    self.op(owner)
                else:
                    self.slot(owner, v.index - 1)
            elif owner.name == "while":
                self.slot(owner, v.index)
            return
        op = v.defining_op
        assert op is not None
        if op.name in _CONTROL:
            self.slot(op, v.index)
        else:
            self.op(op)


def _slot_values(op: Op, k: int) -> list[Value]:
    vals = [op.results[k]]
    if op.name == "for":
        vals.append(op.regions[0].args[1 + k])
    elif op.name == "while":
        vals += [op.regions[0].args[k], op.regions[1].args[k]]
    return vals


def _drop_slot(op: Op, k: int) -> None:
    for region in op.regions:
        term = region.ops[-1]
        if term.name == "yield":
            operands = list(term.operands)
            del operands[k]
            term.set_operands(operands)
    if op.name in ("for", "while"):
        first = 3 if op.name == "for" else 0
        operands = list(op.operands)
        del operands[first + k]
        op.set_operands(operands)
        offset = 1 if op.name == "for" else 0
        for region in op.regions:
            region.args.pop(offset + k)
            for i, a in enumerate(region.args):
                a.index = i
    op.results.pop(k)
    for i, r in enumerate(op.results):
        r.index = i


def _sweep(block: Block, live: _Live) -> None:
    for op in block.ops:
        if op in live.ops and op.name in _CONTROL:
            for k in reversed(range(len(op.results))):
                if not any(v in live.values for v in _slot_values(op, k)):
                    _drop_slot(op, k)
        if op in live.ops:
            for region in op.regions:
                _sweep(region, live)
    for op in reversed(list(block.ops)):
        if op.name not in _TERMINATORS and op not in live.ops:
            op.erase()


def sweep_dead_code(fn: Function, module: Module) -> None:
    live = _Live(module)
    live.run(fn)
    _sweep(fn.body, live)
