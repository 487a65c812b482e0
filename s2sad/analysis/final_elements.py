"""Array elements that hold, when the function returns, the value a load read or a store wrote.

The reverse sweep runs after the whole forward sweep, and arrays keep the values the function
leaves in them (the sweep writes only adjoints). So a value a load read, or a store wrote, inside
a loop nest can be read back from its element in the reverse sweep instead of taped, when no
write executed after it touches that element. LU factorization in place is the model:

    for (i = 0; i < n; i++)
        for (j = 0; j < i; j++) {
            for (k = 0; k < j; k++)
                A[i][j] -= A[i][k] * A[k][j];   /* A[i][k], A[k][j]: final already */
            A[i][j] /= A[j][j];                 /* A[j][j] final; the quotient too */
        }

Every operand of the products is an element no later iteration writes, so the gradient reads
them from ``A`` as the factorization leaves it (a tape of two numbers per innermost iteration
before).

The question is one of dependence. For a read (or write) ``X`` of element ``f(iv_X)`` of an array
and each store ``S`` to it in the same top-level statement (the last that writes the array), is
there an iteration of ``S`` that runs after the one of ``X`` and writes ``f(iv_X)``? The iteration
vectors of the two accesses are integer variables bounded by their loops (``lo <= i <= hi - 1``
for a positive step), the indices equal, and "after" one of a few cases in execution order: a
later iteration of a loop around both (the loops outside it at the same iteration), or the same
iteration of all of them with ``S`` later in the body. Each case is a system of linear
constraints; Fourier-Motzkin elimination, with the integer tightening of each constraint, shows
it has no solution, or the answer is no. Whatever is not affine in the loop counters and values
fixed before the statement (``i * n``, a loaded index) adds no constraint: that only makes a
solution easier to find, so the answer stays no where unsure. So are writes other than plain
stores to the array itself (a call, a view, an accumulation), parallel loops' iterations (either
order), checkpointed loops (their reversed iterations run the forward code again), GPU code
(other threads) and ``--may-alias``.

The mirror question has the same answer machinery: a load reads the value its element held when
the top-level statement began (``reads_entry``) when no store of the statement that runs before
it writes that element. TRMM reads ``B[k][j]``, ``k > i``, before row ``k`` is rewritten:

    for (i = 0; i < m; i++)
        for (j = 0; j < n; j++)
            for (k = i + 1; k < m; k++)
                B[i][j] += A[k][i] * B[k][j];

so one copy of ``B`` taken before the loop serves every such read of the reverse sweep, where a
tape holds one number per innermost iteration.
"""

from __future__ import annotations

from math import gcd
from typing import Hashable, Optional

from ..ssa.build import const_int
from ..ssa.ir import Block, Function, Module, Op, Value
from .effects import array_root, written_operands

Linear = dict[Hashable, int]  # variable -> coefficient; the key None is the constant
Constraint = dict[Hashable, int]  # sum(coefficient * variable) + constant >= 0 (the constant at None)
_MAX_CONSTRAINTS = 4000  # past this, elimination gives up (and the answer is no)


class FinalElements:
    """Answers, for loads and stores of one function, whether their element keeps the value."""

    def __init__(self, module: Module, fn: Function, last_write: dict[Value, int], excluded: set[Block],
                 may_alias: bool):
        self.module = module
        self.fn = fn
        self.last_write = last_write  # array root -> the last top-level op that writes it
        self.excluded = excluded  # bodies whose code the reverse sweep runs again (checkpoints)
        self.off = may_alias or bool(fn.attrs.get("cuda"))
        self._stores: dict[tuple[int, Value], Optional[list[Op]]] = {}
        self._answers: dict[Hashable, bool] = {}

    def holds(self, op: Op) -> bool:
        """Whether the element ``op`` (a ``load`` or ``store`` of an array by its own name) reads
        or writes holds that value when the function returns."""
        if op not in self._answers:
            self._answers[op] = self._holds(op)
        return self._answers[op]

    def _holds(self, op: Op) -> bool:
        if self.off or op.name not in ("load", "store") or op.parent is self.fn.body:
            return False
        root = op.operands[0]
        if array_root(root) is not root:
            return False  # a view: its elements are another array's, at an offset
        if root.defining_op is not None and root.defining_op.parent is not self.fn.body:
            return False  # made in a branch or loop: kept to the reverse sweep, it would move to the heap
        top = _top_level(self.fn, op)
        if self.last_write.get(root) != top:
            return False
        stores = self._stores_of(top, root)
        if stores is None:
            return False
        index = op.operands[1:] if op.name == "load" else op.operands[1:-1]
        return not any(_may_write_after(self.fn, s, op, index) for s in stores)

    def reads_entry(self, op: Op) -> bool:
        """Whether the load ``op`` (of an array by its own name, in a loop) reads the value its
        element held when the top-level statement around it began: no store of the statement
        that runs before it writes that element."""
        key = ("entry", op)
        if key not in self._answers:
            self._answers[key] = self._reads_entry(op)
        return self._answers[key]

    def _reads_entry(self, op: Op) -> bool:
        if self.off or op.name != "load" or op.parent is self.fn.body:
            return False
        root = op.operands[0]
        if array_root(root) is not root:
            return False
        stores = self._stores_of(_top_level(self.fn, op), root)
        if stores is None:
            return False
        return not any(_may_write_after(self.fn, s, op, op.operands[1:], before=True) for s in stores)

    def _stores_of(self, top: int, root: Value) -> Optional[list[Op]]:
        """The stores of the top-level statement ``top`` into ``root``; None when something else
        writes it there, or the reverse sweep runs some of its code again."""
        key = (top, root)
        if key not in self._stores:
            stores: Optional[list[Op]] = []
            for op in self.fn.body.ops[top].walk():
                if any(r in self.excluded for r in op.regions):
                    stores = None
                    break
                for a in written_operands(self.module, op):
                    if array_root(a) is not root and array_root(a) is not None:
                        continue
                    if op.name != "store" or a is not root:
                        stores = None
                        break
                    stores.append(op)
                if stores is None:
                    break
            self._stores[key] = stores
        return self._stores[key]


def rereads(fn: Function, op: Op) -> bool:
    """Whether the load ``op`` reads the same elements in several iterations of a ``for`` loop
    around it (one whose counter none of its indices depends on: TRMM's ``B[k][j]`` in the
    loop over ``i``), so that a tape of what it reads holds more numbers than the array."""
    path = _path(fn, op)
    forms = [_linear(i, "A", path) for i in op.operands[1:]]
    if any(f is None for f in forms):
        return False
    used = {k for f in forms for k in f}  # type: ignore[union-attr]
    return any(c.name == "for" and (c, "A") not in used for c, _, _ in path)


def _top_level(fn: Function, op: Op) -> int:
    while op.parent is not fn.body:
        op = op.parent.parent_op
    return fn.body.ops.index(op)


def _path(fn: Function, op: Op) -> list[tuple[Op, int, int]]:
    """``(container, region, position)`` from the top-level op down to ``op``: inside region
    ``region`` of ``container``, at ``position`` of its block, the next op down (``op`` last)."""
    steps = []
    while op.parent is not fn.body:
        block = op.parent
        container = block.parent_op
        steps.append((container, container.regions.index(block), block.ops.index(op)))
        op = container
    steps.reverse()
    return steps


def _may_write_after(fn: Function, store: Op, access: Op, index: list[Value], before: bool = False) -> bool:
    """Whether some run of ``store`` after (``before``: before) the run of ``access`` that touched
    ``index`` may write that element: any of the orderings has an integer solution (or is not
    known not to)."""
    path_s, path_a = _path(fn, store), _path(fn, access)
    base = _domain(path_s, "S") + _domain(path_a, "A")
    for k, (si, ai) in enumerate(zip(store.operands[1:-1], index)):
        fs, fa = _linear(si, "S", path_s), _linear(ai, "A", path_a)
        if fs is not None and fa is not None:
            base += _equal(fs, fa)
    if len(store.operands) - 2 != len(index):
        return True
    equal_counters: list[Constraint] = []
    cases: list[list[Constraint]] = []
    for depth, ((c_s, r_s, p_s), (c_a, r_a, p_a)) in enumerate(zip(path_s, path_a)):
        if c_s is not c_a:
            break
        if c_s.name == "for":
            for relation in _other_iteration(c_s, before):
                cases.append(equal_counters + relation)
            equal_counters = equal_counters + _equal({(c_s, "S"): 1}, {(c_s, "A"): 1})
        elif c_s.name == "while":
            cases.append(list(equal_counters))  # a later iteration: any element its loops reach
        elif c_s.name != "if":
            return True
        if r_s != r_a:  # both branches of an if never run in one iteration; a while's two do
            if c_s.name == "while":
                cases.append(list(equal_counters))
            break
        if p_s != p_a:
            if (p_s < p_a) if before else (p_s > p_a):
                cases.append(list(equal_counters))
            break
        if depth + 1 == len(path_s) or depth + 1 == len(path_a):
            break  # the same op: not after itself in one iteration
    return any(_feasible(base + case) for case in cases)


def _other_iteration(loop: Op, before: bool) -> list[list[Constraint]]:
    """The relations of the store's counter to the access's in a later (``before``: an earlier)
    iteration of ``loop``."""
    s, a = (loop, "S"), (loop, "A")
    step = const_int(loop.operands[2])
    up = [{s: 1, a: -1, None: -1}]  # counter_S >= counter_A + 1
    down = [{s: -1, a: 1, None: -1}]
    if loop.attrs.get("parallel") or step is None or step == 0:
        return [up, down]  # iterations in any order
    return [up] if (step > 0) != before else [down]


def _domain(path: list[tuple[Op, int, int]], copy: str) -> list[Constraint]:
    """The bounds of the counters of the ``for`` loops along ``path``, in copy ``copy``."""
    out: list[Constraint] = []
    for depth, (container, _, _) in enumerate(path):
        if container.name != "for":
            continue
        outer = path[:depth]
        iv: Linear = {(container, copy): 1}
        low, high = (_linear(container.operands[k], copy, outer) for k in (0, 1))
        step = const_int(container.operands[2])
        if step is None or step == 0:
            continue
        first, past = (low, high) if step > 0 else (_negated(low) if low is not None else None,
                                                    _negated(high) if high is not None else None)
        signed = iv if step > 0 else _negated(iv)
        if first is not None:
            out.append(_minus(signed, first))  # i - lo >= 0 (or lo - i >= 0 going down)
        if past is not None:
            c = _minus(past, signed)  # hi - i - 1 >= 0 (or i - hi - 1 >= 0)
            c[None] = c.get(None, 0) - 1
            out.append(c)
    return out


def _linear(v: Value, copy: str, path: list[tuple[Op, int, int]]) -> Optional[Linear]:
    """``v`` as an affine form of the counters of the loops on ``path`` (copy ``copy``) and of
    values fixed before the top-level statement (variables of their own); None if it is not."""
    loops = {c.regions[0].args[0]: c for c, _, _ in path if c.name == "for"}
    return _affine(v, copy, loops, path[0][0] if path else None, 0)


def _affine(v: Value, copy: str, loops: dict[Value, Op], top: Optional[Op], depth: int) -> Optional[Linear]:
    if depth > 24:
        return None
    if v in loops:
        return {(loops[v], copy): 1}
    c = const_int(v)
    if c is not None:
        return {None: c}
    if not v.type.is_int:
        return None
    op = v.defining_op
    if op is None:  # a parameter (a value the loops carry has no form)
        return {("value", v): 1} if top is not None and v.owner is top.parent else None
    if top is None or _inside(op, top):
        if op.name not in ("add", "sub", "neg", "mul", "cast"):
            return None
        forms = [_affine(o, copy, loops, top, depth + 1) for o in op.operands]
        if any(f is None for f in forms):
            return None
        if op.name == "add":
            return _plus(forms[0], forms[1])  # type: ignore[arg-type]
        if op.name == "sub":
            return _minus(forms[0], forms[1])  # type: ignore[arg-type]
        if op.name in ("neg",):
            return _negated(forms[0])  # type: ignore[arg-type]
        if op.name == "cast":
            return forms[0]
        a, b = forms
        if set(a) <= {None}:  # type: ignore[arg-type]
            return _scaled(b, a.get(None, 0))  # type: ignore[arg-type, union-attr]
        if set(b) <= {None}:  # type: ignore[arg-type]
            return _scaled(a, b.get(None, 0))  # type: ignore[arg-type, union-attr]
        return None
    return {("value", v): 1}  # fixed before the statement: the same in both accesses


def _inside(op: Op, top: Op) -> bool:
    while op is not None:
        if op is top:
            return True
        op = op.parent.parent_op if op.parent is not None else None
    return False


def _plus(a: Linear, b: Linear) -> Linear:
    out = dict(a)
    for k, c in b.items():
        out[k] = out.get(k, 0) + c
    return {k: c for k, c in out.items() if c}


def _scaled(a: Linear, c: int) -> Linear:
    return {k: v * c for k, v in a.items() if v * c}


def _negated(a: Linear) -> Linear:
    return _scaled(a, -1)


def _minus(a: Linear, b: Linear) -> Linear:
    return _plus(a, _negated(b))


def _equal(a: Linear, b: Linear) -> list[Constraint]:
    d = _minus(a, b)
    return [d, _negated(d)]


def _tightened(c: Constraint) -> Optional[Constraint]:
    """``c`` divided by the gcd of its coefficients, the constant rounded down (integers only);
    None when it has no variable left (its truth is then its constant's sign)."""
    g = 0
    for k, v in c.items():
        if k is not None:
            g = gcd(g, abs(v))
    if g == 0:
        return None
    out = {k: v // g for k, v in c.items() if k is not None}
    out[None] = c.get(None, 0) // g  # floor: sum(a x) >= -k  <=>  sum(a/g x) >= ceil(-k/g)
    return out


def _key(c: Constraint) -> tuple:
    return tuple(sorted((-1 if k is None else k, v) for k, v in c.items()))


def _feasible(constraints: list[Constraint]) -> bool:
    """Whether the integer system may have a solution: False only when Fourier-Motzkin
    elimination (each constraint tightened for integers) derives a contradiction."""
    numbers: dict[Hashable, int] = {None: -1}  # each variable by a number: orderable, comparable
    system: list[Constraint] = []
    for c in constraints:
        t = _tightened({numbers.setdefault(k, len(numbers)) if k is not None else None: v for k, v in c.items()})
        if t is None:
            if c.get(None, 0) < 0:
                return False
            continue
        system.append(t)
    while system:
        names = {k for c in system for k in c if k is not None}
        if not names:
            break

        def cost(x: Hashable) -> int:
            pos = sum(1 for c in system if c.get(x, 0) > 0)
            neg = sum(1 for c in system if c.get(x, 0) < 0)
            return pos * neg - pos - neg

        x = min(names, key=lambda n: (cost(n), n))
        pos = [c for c in system if c.get(x, 0) > 0]
        neg = [c for c in system if c.get(x, 0) < 0]
        rest = [c for c in system if c.get(x, 0) == 0]
        if len(rest) + len(pos) * len(neg) > _MAX_CONSTRAINTS:
            return True
        seen = {_key(c) for c in rest}
        for p in pos:
            for q in neg:
                combined = _plus(_scaled(p, -q[x]), _scaled(q, p[x]))
                t = _tightened(combined)
                if t is None:
                    if combined.get(None, 0) < 0:
                        return False
                    continue
                key = _key(t)
                if key not in seen:
                    seen.add(key)
                    rest.append(t)
        system = rest
    return True
