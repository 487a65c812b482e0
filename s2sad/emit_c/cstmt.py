"""Statements only C output has, and where each C variable is declared.

The statement tree is the emitters' shared one (``s2sad.emit.stmt``: ``Assign``, ``If``,
``For``, ...); C adds declarations.
``declare`` places each local variable's declaration the way a person writes
C99: at its first assignment (``double s = 0.0;``) in the innermost block that
holds all its uses, and inside a loop or branch when every use is there and
the variable carries nothing in or out (each reversed iteration's
``double d_y_i = d_y[i];``). A loop variable is declared by its ``for``.
Where the first statement that touches a variable is not an assignment to it
(a variable both branches of an ``if`` assign), a bare ``double y;`` goes just
before it, with a zero initialiser (``double t2 = 0.0;``) when some path may
read it before any assigns it (a value cached in one branch of the forward sweep
and read in the same branch of the reverse sweep: correct, but compilers cannot
tell, and ``-Wmaybe-uninitialized`` is an error under ``-Werror``). A variable is
never redeclared in a nested scope while an outer declaration of it is visible:
later uses then assign the outer variable.

``drop_dead`` runs first: an assignment to a local that nothing reads (left over
once out-of-SSA and folding removed its last use: a condition whose branches
agree, a forward value only a pruned branch needed) goes, and with it what only
it read, so that no variable is unused (``-Wunused-variable``).
"""

from __future__ import annotations

import bisect
from dataclasses import dataclass, replace
from typing import Optional

from ..emit.expr import Call, Expr, Lit, Name, Subscript, names_in, number, walk
from ..emit.stmt import (AugAssign, Assign, Comment, ExprStmt, For, If, Keyword, Return, Stmt, While, child_blocks,
                         stmt_names)
from .cexpr import Cast, F32Lit, IncDec


@dataclass
class Decl:
    """``ctype name = value;`` (no initialiser when ``value`` is None)."""

    ctype: str
    name: str
    value: Optional[Expr] = None


@dataclass
class ArrayDecl:
    """A small array of constant size on the stack: ``double acc[3] = {0};``, or a table with
    its initializer (``values``, row-major): ``double w[3] = {0.25, 0.5, 0.25};``; with ``dims``,
    declared with them: ``double c[2][2] = {{1.0, 2.0}, {3.0, 4.0}};``."""

    ctype: str
    name: str
    size: int
    zero: bool
    values: tuple = ()
    dims: tuple[int, ...] = ()


def _reads(st: Stmt) -> list[str]:
    """Names a simple statement reads (not nested blocks)."""
    if isinstance(st, Assign):
        out = names_in(st.value)
        for t in st.targets:
            if not isinstance(t, Name):
                out += names_in(t)
        return out
    if isinstance(st, AugAssign):
        return names_in(st.target) + names_in(st.value)
    if isinstance(st, ExprStmt):
        return names_in(st.value)
    if isinstance(st, Return):
        return [n for v in st.values for n in names_in(v)]
    if isinstance(st, Decl) and st.value is not None:
        return names_in(st.value)
    return []


def _header_reads(st: Stmt) -> list[str]:
    if isinstance(st, If):
        return names_in(st.cond)
    if isinstance(st, For):
        return [n for a in st.args for n in names_in(a)]
    if isinstance(st, While) and st.cond is not None:
        return names_in(st.cond)
    return []




def _own_exprs(st: Stmt) -> list[Expr]:
    """The expressions a statement holds itself (not those of the blocks nested in it)."""
    if isinstance(st, Assign):
        return [*st.targets, st.value]
    if isinstance(st, AugAssign):
        return [st.target, st.value]
    if isinstance(st, ExprStmt):
        return [st.value]
    if isinstance(st, Return):
        return list(st.values)
    if isinstance(st, Decl):
        return [st.value] if st.value is not None else []
    if isinstance(st, If):
        return [st.cond]
    if isinstance(st, For):
        return list(st.args)
    if isinstance(st, While):
        return [st.cond] if st.cond is not None else []
    return []


def called_names(stmts: list[Stmt]) -> set[str]:
    """The functions the statements call by name (``f(...)``, at any depth): those a C file must
    define or declare for them."""
    out: set[str] = set()
    pending = list(stmts)
    while pending:
        st = pending.pop()
        for e in _own_exprs(st):
            out.update(n.func.id for n in walk(e) if isinstance(n, Call) and isinstance(n.func, Name))
        for block in child_blocks(st):
            pending += block
    return out


def touched(st: Stmt, memo: dict) -> set[str]:
    """Every name a statement (and what it holds) reads or assigns.

    ``memo`` is keyed by identity and keeps each statement alive, so that a
    statement replaced meanwhile cannot hand its ``id`` to a new one.
    """
    key = id(st)
    if key not in memo:
        out = set(_reads(st)) | set(_header_reads(st))
        if isinstance(st, Assign):
            out.update(t.id for t in st.targets if isinstance(t, Name))
        if isinstance(st, Decl):
            out.add(st.name)
        if isinstance(st, For):
            out.add(st.target)
        for b in child_blocks(st):
            for inner in b:
                out |= touched(inner, memo)
        memo[key] = (st, out)
    return memo[key][1]


def exposed(stmts: list[Stmt], x: str, memo) -> tuple[bool, bool]:
    """(whether ``x`` may be read before it is assigned, whether it is surely assigned at the end)."""
    for st in stmts:
        read_first, assigned = _stmt_exposed(st, x, memo)
        if read_first:
            return True, False
        if assigned:
            return False, True
    return False, False


def _stmt_exposed(st: Stmt, x: str, memo) -> tuple[bool, bool]:
    """``exposed`` of one statement, kept in ``memo`` (by identity, the statement with it):
    placement asks it of a nest at every level it descends, so nested loops asked each of
    their statements once per level around them (cubic in the depth). Placement replaces an
    assignment only by a declaration that reads and assigns the same, so answers hold."""
    if x not in touched(st, memo):
        return False, False
    key = (id(st), x)
    if key not in memo:
        memo[key] = (st, _ask_exposed(st, x, memo))
    return memo[key][1]


def _ask_exposed(st: Stmt, x: str, memo) -> tuple[bool, bool]:
    if x in _reads(st) or x in _header_reads(st):
        return True, False
    if isinstance(st, Assign):
        if any(isinstance(t, Name) and t.id == x for t in st.targets):
            return False, True
    elif isinstance(st, Decl):
        # Placed already: a statement list the tree holds twice (a checkpointed iteration's
        # code, run again in the reverse sweep) is met again after its assignment became
        # ``long k3 = k3_v4 + 1;``, which assigns as much as the assignment did.
        if st.name == x and st.value is not None:
            return False, True
    elif isinstance(st, If):
        e1, d1 = exposed(st.body, x, memo)
        e2, d2 = exposed(st.orelse, x, memo)
        if e1 or e2:
            return True, False
        if d1 and d2:
            return False, True
    elif isinstance(st, For):
        if st.target != x and exposed(st.body, x, memo)[0]:
            return True, False
    elif isinstance(st, While):
        if exposed(st.body, x, memo)[0]:
            return True, False
    return False, False


def declare(body: list[Stmt], types: dict[str, str], memo: Optional[dict] = None) -> None:
    """Insert the declarations of the variables in ``types`` into ``body`` (in place); ``memo``:
    what ``touched`` knew of its statements already (``drop_dead``'s, of the statements it kept)."""
    memo = {} if memo is None else memo  # touched (by id) and _stmt_exposed (by id and name), each with its statement
    order: list[str] = []
    seen: set[str] = set()  # order's names (a set made from it at every statement was quadratic)

    def collect(stmts: list[Stmt]) -> None:
        for st in stmts:
            for n in sorted(touched(st, memo) - seen):
                if n in types:
                    order.append(n)  # sorted within a statement: deterministic
                    seen.add(n)
            for b in child_blocks(st):
                collect(b)

    collect(body)
    inserts: list[tuple[list[Stmt], int, Decl]] = []
    where: dict[int, dict[str, list[int]]] = {}
    for x in order:
        _place(x, body, False, types[x], memo, inserts, where)
    # Insert from the back so that earlier indices stay valid; at one position, names keep their order.
    for _, (block, k, decl) in sorted(enumerate(inserts), key=lambda t: (-t[1][1], -t[0])):
        block.insert(k, decl)


def _touching(block: list[Stmt], memo, where: dict[int, dict[str, list[int]]]) -> dict[str, list[int]]:
    """Name -> the positions of ``block``'s statements that touch it, worked out once per block
    (asking each statement for each variable is quadratic in a long function). Placement only
    replaces an assignment by a declaration of the same names and inserts afterwards, so the
    positions hold while declarations are placed."""
    found = where.get(id(block))
    if found is None:
        found = where[id(block)] = {}
        for k, st in enumerate(block):
            for n in touched(st, memo):
                found.setdefault(n, []).append(k)
    return found


def _place(x: str, block: list[Stmt], loop_body: bool, ctype: str, memo, inserts,
           where: dict[int, dict[str, list[int]]]) -> None:
    idxs = _touching(block, memo, where).get(x, [])
    main: Optional[int] = None
    for k in idxs:
        st = block[k]
        if main is None and child_blocks(st) and _self_contained(x, block, k, loop_body, memo, where):
            if isinstance(st, For) and st.target == x:
                continue  # the loop declares it
            for b in child_blocks(st):
                if x in _touching(b, memo, where):
                    _place(x, b, isinstance(st, (For, While)), ctype, memo, inserts, where)
        elif main is None:
            main = k
        elif isinstance(st, For) and st.target == x:
            pass  # the loop's own declaration shadows the dead outer variable
    if main is None:
        return
    st = block[main]
    if (
        isinstance(st, Assign)
        and len(st.targets) == 1
        and st.targets[0] == Name(x)
        and x not in names_in(st.value)
    ):
        block[main] = Decl(ctype, x, st.value)
    else:
        # Bare where every path assigns it before any reads it (both arms of an if); else zero.
        first = zero_of(ctype) if _exposed_from(block, main, x, memo, where) else None
        inserts.append((block, main, Decl(ctype, x, first)))


def _self_contained(x: str, block: list[Stmt], k: int, loop_body: bool, memo, where) -> bool:
    """Whether ``x`` carries no value into or out of ``block[k]``."""
    if exposed([block[k]], x, memo)[0]:
        return False
    if _exposed_from(block, k + 1, x, memo, where):
        return False
    return not (loop_body and _exposed_from(block, 0, x, memo, where))


def _exposed_from(block: list[Stmt], start: int, x: str, memo, where) -> bool:
    """``exposed(block[start:], x)[0]``, asking only the statements that touch ``x`` (the others
    neither read nor assign it): a long block asked for each of its many variables from each of
    their places was quadratic."""
    positions = _touching(block, memo, where).get(x, [])
    i = bisect.bisect_left(positions, start)
    return i < len(positions) and _exposed_after(block, positions, x, memo)[i]


def _exposed_after(block: list[Stmt], positions: list[int], x: str, memo) -> list[bool]:
    """For each of ``positions`` (the statements touching ``x``), whether ``x`` may be read before
    it is assigned from that statement on: one backward pass per block and name, kept in ``memo``.
    Asked statement by statement from each place, a temporary that many loops of a long block
    assign (and no loop surely assigns) made every question walk every later loop."""
    key = ("after", id(block), x)
    if key not in memo:
        out = [False] * len(positions)
        later = False
        for j in range(len(positions) - 1, -1, -1):
            read_first, assigned = _stmt_exposed(block[positions[j]], x, memo)
            later = read_first or (not assigned and later)
            out[j] = later
        memo[key] = (block, out)
    return memo[key][1]


def _effect(value: Expr, pure_calls: frozenset) -> Optional[Expr]:
    """What must still run of ``value`` once its result is not needed: None when nothing (no call
    that may have effects, no counter update), else the expression to keep as a statement."""
    effects = [n for n in walk(value)
               if isinstance(n, IncDec) or isinstance(n, Call) and not (isinstance(n.func, Name)
                                                                        and n.func.id in pure_calls)]
    if not effects:
        return None
    if isinstance(value, Subscript) and len(value.index) == 1 and isinstance(value.index[0], IncDec) \
            and len(effects) == 1:
        return value.index[0]  # a tape pop read into a dead variable: ``--top;``
    # Only the calls (and counter updates) themselves: around them, arithmetic whose value no
    # one uses is what gcc reports (-Wunused-value: ``0.5 * g0(a, b);``). Several stay together,
    # cast to void, in the order C would have evaluated them anyway.
    outer = _outermost(value, pure_calls)
    if len(outer) == 1:
        return outer[0]
    return value if isinstance(value, (Call, IncDec)) else Cast("void", value)


def _outermost(value: Expr, pure_calls: frozenset) -> list[Expr]:
    """The calls that may have effects, and the counter updates, not inside another of them."""
    if isinstance(value, IncDec) or isinstance(value, Call) and not (isinstance(value.func, Name)
                                                                     and value.func.id in pure_calls):
        return [value]
    return [e for c in value.children() for e in _outermost(c, pure_calls)]


class _Liveness:
    """Backward liveness over the statement tree, for the variables of ``candidates``: which
    assignments store a value no path reads (``dead``, by identity)."""

    def __init__(self, candidates: set[str], memo: dict[int, tuple[Stmt, list[str], list[str]]],
                 touched_memo: dict):
        self.candidates = candidates
        self.touched_memo = touched_memo  # (see ``touched``)
        self.dead: dict[int, Stmt] = {}
        # statement -> (itself, kept alive so that its id stays its own; what it reads; what its
        # header reads): a loop's body is walked until its liveness settles, and drop_dead walks
        # the function again after each round of drops (names_in of every statement each time)
        self.memo = memo
        self.loop_exits: list[set[str]] = []  # for each loop being walked: live at its head or after it

    def _names(self, st: Stmt) -> tuple[Stmt, list[str], list[str]]:
        found = self.memo.get(id(st))
        if found is None:
            found = self.memo[id(st)] = (st, _reads(st), _header_reads(st))
        return found

    def reads(self, st: Stmt) -> list[str]:
        return self._names(st)[1]

    def header_reads(self, st: Stmt) -> list[str]:
        return self._names(st)[2]

    def block(self, stmts: list[Stmt], live: set[str], record: bool) -> set[str]:
        # A copy of its own, which ``stmt`` updates in place: a set made at every statement was
        # quadratic in a long function (20,000 products keep 20,000 values live).
        live = set(live)
        for k in range(len(stmts) - 1, -1, -1):
            live = self.stmt(stmts[k], live, record, stmts[k + 1] if k + 1 < len(stmts) else None)
        return live

    def stmt(self, st: Stmt, live: set[str], record: bool, after: Optional[Stmt] = None) -> set[str]:
        """What is live before ``st``, given ``live`` after it (``live`` itself, updated, or a new set)."""
        if isinstance(st, Assign):
            names = [t.id for t in st.targets if isinstance(t, Name)]
            if (len(names) == len(st.targets) and all(n in self.candidates and n not in live for n in names)):
                if record:
                    self.dead[id(st)] = st
                return live  # its value reaches nothing; what it reads is not needed for it
            live.difference_update(names)
            live.update(self.reads(st))
            return live
        if isinstance(st, Return):
            return set(self.reads(st))  # nothing after a return runs
        if isinstance(st, ExprStmt) and isinstance(st.value, IncDec) and isinstance(st.value.operand, Name) \
                and st.value.operand.id in self.candidates and st.value.operand.id not in live:
            if record:  # a counter no one reads (a tape's, once its stores went): gcc calls it unused
                self.dead[id(st)] = st
            return live
        if isinstance(st, Keyword):
            if st.text in ("break", "continue") and self.loop_exits:
                live.update(self.loop_exits[-1])
            return live
        if isinstance(st, (If, For, While)):
            # Liveness is a question per variable: one the statement never names is live before
            # it exactly when it is live after it. The statement is asked about the names it has
            # alone, so that a long function's thousands of live values are not copied and
            # compared at each of its loops and branches (quadratic in a function of many loops).
            # (An ``if`` whose every arm returns passes nothing through: none is live before it
            # but what its arms read.)
            mentioned = touched(st, self.touched_memo)
            inside = live & mentioned  # (the smaller set is walked)
            before = self._compound(st, inside, record)
            if isinstance(st, If) and _returns(st.body) and _returns(st.orelse):
                return before
            live.difference_update(inside)
            live.update(before)
            return live
        live.update(self.reads(st))
        live.update(self.header_reads(st))
        # A parallel loop's pragma (parallel.Pragma, right before its loop) reads the sums it
        # reduces, those the loop still adds to: one whose updates went names a variable that
        # only the pragma would mention, which gcc calls unused (-Wunused-variable).
        written = stmt_names([after])[1] if isinstance(after, For) else set()
        live.update(r for r in getattr(st, "reduction", None) or () if r in written)
        return live

    def _compound(self, st: Stmt, live: set[str], record: bool) -> set[str]:
        """What is live before an ``if`` or a loop, given ``live`` after it (a new set)."""
        if isinstance(st, If):
            return (self.block(st.body, live, record) | self.block(st.orelse, live, record)
                    | set(self.header_reads(st)))
        assert isinstance(st, (For, While))
        head = set(live)  # (it holds all of ``live``: a loop may run no iteration)
        while True:  # live at the loop's head: after it, or in another iteration
            self.loop_exits.append(head | live)
            inner = self.block(st.body, head, False)
            self.loop_exits.pop()
            grown = head | inner | set(self.header_reads(st))
            if isinstance(st, For):
                grown.add(st.target)  # declared by the loop: never a candidate anyway
            if grown == head:
                break
            head = grown
        if record:
            self.loop_exits.append(head | live)
            self.block(st.body, head, True)
            self.loop_exits.pop()
        return head


def _returns(stmts: list[Stmt]) -> bool:
    """Whether every path through ``stmts`` ends at a ``return`` (no path runs past them)."""
    if not stmts:
        return False
    last = stmts[-1]
    return isinstance(last, Return) or isinstance(last, If) and _returns(last.body) and _returns(last.orelse)


def _stored_element(st: Stmt) -> Optional[Subscript]:
    """The element of a named array a statement stores (``a[i] = v``, ``a[i] += v``, and of a
    local matrix ``y[i][j] = v``, as the array and all its indices), if it does."""
    targets = st.targets if isinstance(st, Assign) else [st.target] if isinstance(st, AugAssign) else []
    if len(targets) != 1 or not isinstance(targets[0], Subscript):
        return None
    target, index = targets[0], targets[0].index
    while isinstance(target.value, Subscript):
        target = target.value
        index = target.index + index
    return Subscript(target.value, index) if isinstance(target.value, Name) else None


def _read_arrays(stmts: list[Stmt], arrays: set[str]) -> set[str]:
    """Those of ``arrays`` that some statement reads: a store into an element reads the names in
    its index and value, not its own array; a pragma reads the sums it names."""
    out: set[str] = set()
    for st in stmts:
        element = _stored_element(st)
        if element is not None:
            names = [n for i in element.index for n in names_in(i)] + names_in(st.value)  # type: ignore[union-attr]
        else:
            names = _reads(st) + _header_reads(st) + list(getattr(st, "reduction", None) or ())
        out.update(n for n in names if n in arrays)
        for b in child_blocks(st):
            out |= _read_arrays(b, arrays)
    return out


def drop_dead(body: list[Stmt], types: dict[str, str], pure_calls: frozenset,
              stack: frozenset = frozenset(), touched_memo: Optional[dict] = None) -> list[Stmt]:
    """``body`` without assignments to local variables (of ``types``) whose value no path reads,
    and without the small arrays of ``stack`` (``double snap_h1[2];``) that nothing reads, with
    every store into them, until none is left (dropping one may leave another unread). A call or a
    counter update in a dropped value stays as a statement of its own; an ``if`` left empty goes
    when its condition is pure. Out-of-SSA and folding leave such assignments: a copy into a branch
    result nothing reads after an early return, a condition whose two branches came out the same
    (C prints ``c < c`` as false: the replay a checkpointed loop's state was saved for can come out
    empty, fuzz seed 9600514). ``touched_memo``: where ``touched`` keeps what it finds (for
    ``declare`` to ask again: a statement pruning keeps is kept as it was, names and all)."""
    # A variable whose address a call is passed (``grad_g(x, &d_x)``) is read by that call
    # (``names_in`` sees under ``&``): generated code passes addresses to calls only, and no
    # callee keeps the pointer, so nothing reads it later through one.
    candidates = set(types)
    memo: dict[int, tuple[Stmt, list[str], list[str]]] = {}
    touched_memo = {} if touched_memo is None else touched_memo
    while True:
        liveness = _Liveness(candidates, memo, touched_memo)
        liveness.block(body, set(), True)
        dead = liveness.dead
        changed = False
        unread = set(stack) - _read_arrays(body, set(stack))

        def prune(stmts: list[Stmt]) -> list[Stmt]:
            nonlocal changed
            out: list[Stmt] = []
            for st in stmts:
                if isinstance(st, ArrayDecl) and st.name in unread:
                    changed = True
                    continue
                if id(st) in dead and isinstance(st, ExprStmt):
                    changed = True
                    continue
                element = _stored_element(st)
                if id(st) in dead or element is not None and element.value.id in unread:  # type: ignore[attr-defined]
                    changed = True
                    index = element.index if element is not None else ()
                    for kept in (_effect(e, pure_calls) for e in (*index, st.value)):  # type: ignore[union-attr]
                        if kept is not None:
                            out.append(ExprStmt(kept))
                    continue
                if isinstance(st, If):
                    body_, orelse = prune(st.body), prune(st.orelse)
                    if not _has_code(body_) and not _has_code(orelse) and _effect(st.cond, pure_calls) is None:
                        changed = True
                        continue
                    if not (_same(body_, st.body) and _same(orelse, st.orelse)):
                        st = replace(st, body=body_, orelse=orelse)
                elif isinstance(st, (For, While)):
                    body_ = prune(st.body)
                    pragma = bool(out) and getattr(out[-1], "loop", None) is not None  # an OpenMP loop's
                    if isinstance(st, For) and not pragma and not _has_code(body_) and _has_code(st.body) \
                            and all(_effect(a, pure_calls) is None for a in st.args):
                        changed = True  # every store it made went with its array: the loop too
                        continue
                    if not _same(body_, st.body):
                        st = replace(st, body=body_)
                out.append(st)
            return out

        body = prune(body)
        if not changed:
            return body


def _same(new: list[Stmt], old: list[Stmt]) -> bool:
    """Whether pruning left ``old`` as it was (the statement keeps its identity, and with it what
    the next round's memos know of it)."""
    return len(new) == len(old) and all(a is b for a, b in zip(new, old))


def _has_code(stmts: list[Stmt]) -> bool:
    return any(not isinstance(st, Comment) and not (isinstance(st, Keyword) and st.text == "pass") for st in stmts)


def zero_of(ctype: str) -> Expr:
    """The zero a declaration starts at when some path may read it first."""
    if ctype.rstrip().endswith("*"):
        return Lit("NULL")
    if ctype in ("bool", "_Bool"):
        return number(False)
    if ctype == "float":
        return F32Lit("0.0")
    if ctype == "MPI_Request":  # (an opaque handle: a pointer in Open MPI, an int in MPICH)
        return Lit("MPI_REQUEST_NULL")
    return number(0.0 if ctype == "double" else 0)


__all__ = ["ArrayDecl", "Decl", "called_names", "declare", "drop_dead", "touched"]
