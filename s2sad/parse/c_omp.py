"""OpenMP constructs in C function bodies, lowered as the serial program they compute.

A race-free OpenMP program computes what its serial reading computes, with the work of its
worksharing loops spread over threads. So the front end lowers every construct serially and
marks the loops whose iterations may run at once (``parallel = "omp"``); reverse mode keeps
the mark and the C emitter makes the adjoint loops' shared accumulations race-free. What
this module adds is the check that the serial reading *is* what the construct computes, and
a located error where it is not (or where s2sad cannot tell):

* ``#pragma omp parallel`` runs its region once per thread. Code in the region outside its
  ``#pragma omp for`` loops is run once by the serial program, which is the same only while
  that code writes nothing the threads share: it may compute variables declared in the
  region (each thread's own) and call functions on them; a store to an array declared
  outside, a call that may write one, or an assignment to a variable declared outside is
  an error (the result would depend on the number of threads).
* ``private(v)``: a copy of ``v`` of each iteration (of the region, for ``parallel``), not
  initialized; ``v`` keeps its value outside. ``firstprivate(v)``: a copy that starts with
  ``v``'s value, which a loop may only read (a thread would carry its copy from one of its
  iterations to the next). A variable of the region that a ``for`` loop of it assigns is
  the thread's own: each iteration gets a copy, and after the loop the variable holds what
  the thread's last iteration left, which depends on the schedule: reading it is an error.
* ``lastprivate(v)``: the loop carries ``v`` serially, and every iteration must assign it
  before reading it; then the value after the loop is the last iteration's, and its
  adjoint flows back to that iteration only (``s2sad.adjoint.reverse``).
* ``collapse(n)``: the ``n`` perfectly nested loops are all marked parallel (the inner ones
  ``collapsed``, printed under the outer loop's pragma), so an accumulation is private only
  when each index of the nest owns its element.
* ``nowait`` on a ``for`` loop drops the barrier after it: allowed when nothing after the
  loop in the region reads or writes the arrays it writes, writes the arrays it reads, or
  reads a sum it reduces.
* ``#pragma omp critical`` around ``y[k] += e`` is an atomic update; around ``s += e`` on a
  variable declared outside the enclosing parallel loop it is a sum into that variable,
  which the loop then carries as a reduction (the loop may only update ``s`` under
  critical). Other critical bodies order work between threads, which s2sad does not model.
"""

from __future__ import annotations

from contextlib import contextmanager
from dataclasses import dataclass, field, replace
from typing import Iterator, Optional

from pycparser import c_ast
from pycparser.c_generator import CGenerator

from ..diagnostics import Diagnostic
from ..ssa.ir import Block, Builder, Op, SourceLoc, Value
from ..ssa.ops import view_base
from .c_expr import INCREMENTS, walk
from .c_flow import block_exits, statements
from .c_pragmas import PlacedPragma, attach_pragmas, body_lines
from .omp import OmpClauses, OmpProblem, omp_directive, parse_atomic, parse_omp, unconsumed_problem
from .py_common import Env, Fail, Poison
from .structured import BREAK, CONTINUE, RETURN

_REGION_HINT = "move it before or after the parallel region, or into a '#pragma omp for' loop"


@dataclass
class Region:
    """A ``#pragma omp parallel`` region being lowered."""

    clauses: OmpClauses
    loc: SourceLoc
    shared: frozenset[str]  # keys declared before the region: the threads share them
    loops: list[Op] = field(default_factory=list)  # its worksharing loops
    loop_keys: set[str] = field(default_factory=set)  # shared keys its loops may update (sums, lastprivate)


@dataclass
class OmpLoop:
    """A parallel loop being lowered: its clauses and the sums critical sections add to."""

    clauses: OmpClauses
    critical_sums: dict[str, list[c_ast.Node]] = field(default_factory=dict)  # name -> the updates


class COmpLowering:
    """OpenMP for ``CFunctionLowerer``: which pragma a statement has, and the constructs."""

    def init_omp(self) -> None:
        self.omp_used: set[int] = set()  # lines of the OpenMP pragmas a statement took
        self.omp_regions: list[Region] = []
        self.omp_loops: list[OmpLoop] = []
        self.omp_collapsed: dict[int, OmpClauses] = {}  # id(inner loop of a collapse) -> clauses
        self.attached = attach_pragmas(self.fn.body, self.ctx.pragmas, self.ctx.lines,
                                       body_lines(self.fn, self._sources.code))

    # -- which pragma ------------------------------------------------------------------------
    def next_omp_pragma(self, st: c_ast.Node) -> Optional[PlacedPragma]:
        """The first OpenMP pragma on ``st`` that no construct took yet (stacked pragmas apply
        outermost first: ``parallel`` over ``for``)."""
        for p in self.attached.get(id(st), []):
            if p.line not in self.omp_used and omp_directive(p.text) is not None:
                return p
        return None

    def take(self, p: PlacedPragma) -> None:
        self.omp_used.add(p.line)

    def pragma_loc(self, line: int) -> SourceLoc:
        text = self.ctx.lines[line - 1]
        col = text.index("#") + 1 if "#" in text else 1
        return self._sources.line_loc(line, col, len(text.rstrip()) + 1)

    def pragma_fail(self, p: PlacedPragma, message: str, hint: str = "") -> Fail:
        return Fail(Diagnostic(message, self.pragma_loc(p.line), hint))

    def check_omp_pragmas(self) -> None:
        """Every OpenMP pragma in the body that no statement took changes what the code means (a
        barrier, single, a pragma with no statement after it...): each is a located error."""
        if self.diagnostics:
            return  # lowering stopped early somewhere: pragmas there were not reached
        for line in body_lines(self.fn, self._sources.code):
            text = self.ctx.pragmas.get(line)
            if text is None or line in self.omp_used or omp_directive(text) is None:
                continue
            p = unconsumed_problem(text)
            self.diagnostics.append(Diagnostic(p.message, self.pragma_loc(line), p.hint))

    # -- statements ---------------------------------------------------------------------------
    def omp_statement(self, st: c_ast.Node, b: Builder, env: Env) -> bool:
        """``st`` lowered when an OpenMP construct (atomic, critical, parallel) is on it; False
        when none is (loops read theirs in ``omp_pragma``)."""
        p = self.next_omp_pragma(st)
        if p is None:
            return False
        directive = omp_directive(p.text)
        if directive == "atomic" and not isinstance(st, c_ast.For):
            self.take(p)
            try:
                parse_atomic(p.text)
            except OmpProblem as e:
                raise self.pragma_fail(p, e.message, e.hint) from None
            self.atomic_update(st, b, env)
            return True
        if directive == "critical":
            self.take(p)
            self.critical(st, p, b, env)
            return True
        if directive == "parallel":
            self.take(p)
            self.parallel_region(st, p, b, env)
            return True
        if directive not in ("for", "parallel for") and not isinstance(st, c_ast.For):
            # single, master, sections, barrier...: refused here, before the statement below is
            # read as what every thread runs
            self.take(p)
            problem = unconsumed_problem(p.text)
            raise self.pragma_fail(p, problem.message, problem.hint)
        return False  # a loop's pragma

    def atomic_update(self, st: c_ast.Node, b: Builder, env: Env) -> None:
        """``st`` under ``#pragma omp atomic``: lowered, its store marked ``atomic``."""
        if not _is_update(st):
            raise self.fail(st, "'#pragma omp atomic' is supported on an update by + or - only "
                            "('y[k] += e', 'y[k] -= e', 'y[k]++')",
                            "s2sad differentiates atomic sums; other atomic updates depend on the order "
                            "of the threads")
        target = _target(st)
        if isinstance(target, c_ast.ID):
            raise self.fail(st, f"'#pragma omp atomic' on the variable '{target.name}' is not supported",
                            f"declare it a sum on the loop instead: reduction(+: {target.name})")
        self.atomic_store(st, st, b, env, "'#pragma omp atomic' on this statement is not supported",
                          "write the update as 'y[k] += e;' with e free of calls")

    def critical(self, st: c_ast.Node, p: PlacedPragma, b: Builder, env: Env) -> None:
        """``#pragma omp critical`` over updates: of memory, atomic updates; of a variable
        declared outside the enclosing parallel loop, a sum the loop carries (see the module)."""
        updates = statements(st) if isinstance(st, c_ast.Compound) else [st]
        hint = ("s2sad differentiates sums under critical ('y[k] += e;', 's += e;'); other critical "
                "sections depend on the order of the threads: compute the value into a variable of the "
                "iteration first, then add it under critical")
        for u in updates:
            if not _is_update(u) or any(isinstance(n, c_ast.FuncCall) for n in walk(u)):
                raise self.fail(u, "'#pragma omp critical' is supported around updates by + or - only", hint)
        for u in updates:
            target = _target(u)
            if not isinstance(target, c_ast.ID):
                self.atomic_store(u, u, b, env, "'#pragma omp critical' on this update is not supported",
                                  "write the update as 'y[k] += e;' with e free of calls")
                continue
            if self.omp_loops:
                added = _added(u)
                if added is not None and any(isinstance(n, c_ast.ID) and n.name == target.name for n in walk(added)):
                    raise self.fail(u, f"the update of '{target.name}' reads '{target.name}' in the value it adds",
                                    hint)
                self.omp_loops[-1].critical_sums.setdefault(target.name, []).append(u)
            elif self.omp_regions:
                raise self.fail(u, f"each thread of the parallel region adds to '{target.name}' once here, so "
                                "the sum depends on the number of threads", _REGION_HINT)
            self.expr(u, b, env)

    # -- parallel regions ---------------------------------------------------------------------------
    def parallel_region(self, st: c_ast.Node, p: PlacedPragma, b: Builder, env: Env) -> None:
        omp = self.clauses(p)
        if self.omp_regions or self.omp_loops:
            raise self.pragma_fail(p, "nested parallel regions are not supported",
                                   "remove the inner '#pragma omp parallel': its threads would run the region "
                                   "once each")
        if block_exits([st]).may & {BREAK, CONTINUE, RETURN}:
            raise self.fail(st, "a parallel region cannot be left by return, break or continue",
                            "compute a flag in the region and act on it after it")
        region = Region(omp, self.pragma_loc(p.line), frozenset(self.ctypes))
        before = dict(env)
        start = len(b.block.ops)
        self.omp_regions.append(region)
        try:
            with self.scope():
                self.private_copies(omp.private + omp.firstprivate, omp.firstprivate, st, env)
                self.stmt(st, b, env, None)
        finally:
            self.omp_regions.pop()
        ops = b.block.ops[start:]
        self.check_region_writes(region, ops)
        self.check_nowait(region, b.block, ops)
        for key in sorted(region.shared):
            if key in before and env.get(key) is not before[key] and key not in region.loop_keys:
                where = _assignment_to(self.hint(key), st) or st
                raise self.fail(where, f"each thread of the parallel region assigns '{self.hint(key)}', which the "
                                "threads share", f"declare it inside the region, list it private({self.hint(key)}), "
                                "or " + _REGION_HINT)

    def private_copies(self, names: list[str], initialized: list[str], where: c_ast.Node, env: Env) -> None:
        """Declare a copy of each of ``names`` in the current scope (``initialized``: starting with
        the variable's value)."""
        for name in names:
            key = self.lookup(name)
            if key is None:
                raise self.fail(where, f"the OpenMP clause names '{name}', which is not declared here")
            t = self.ctypes[key]
            if t.kind != "scalar":
                raise self.fail(where, f"a private copy of the array or pointer '{name}' is not supported",
                                f"declare '{name}' inside the parallel code instead")
            value = env.get(key)
            copy = self.declare(name, t, where)
            if name in initialized and value is not None:
                env[copy] = value

    def check_region_writes(self, region: Region, ops: list[Op]) -> None:
        """The region's code outside its worksharing loops writes no memory the threads share."""
        made = {op.result for op in _walk(ops, region.loops) if op.name == "alloc"}
        for op in _walk(ops, region.loops):
            if op.name == "store" and view_base(op.operands[0]) not in made:
                name = view_base(op.operands[0]).name_hint or "an array"
                raise Fail(Diagnostic(f"each thread of the parallel region runs this store into '{name}', which "
                                      "the threads share", op.loc, _REGION_HINT))
            if op.name == "call" and op.attrs.get("callee") in self.ctx.signatures:
                params = self.ctx.signatures[op.attrs["callee"]].params
                for a, t in zip(op.operands, params):
                    if a.type.is_array and view_base(a) not in made and not t.spelling.startswith("const"):
                        raise Fail(Diagnostic(
                            f"each thread of the parallel region runs this call, which may write "
                            f"'{view_base(a).name_hint or 'an array'}', shared by the threads", op.loc,
                            "declare the parameter const if the function only reads it; otherwise "
                            + _REGION_HINT))

    def check_nowait(self, region: Region, block: Block, ops: list[Op]) -> None:
        """A ``nowait`` loop's writes and sums are not used by the region's code after it."""
        for loop in region.loops:
            if not loop.attrs.get("nowait"):
                continue
            del loop.attrs["nowait"]
            top = loop
            while top.parent is not block:
                top = top.parent.parent_op
            later = ops[ops.index(top) + 1:]
            reads, writes = _memory(loop)
            later_reads, later_writes = _memory(*later)
            clash = sorted((writes & (later_reads | later_writes)) | (reads & later_writes), key=lambda v: v.name_hint)
            sums = [r for r in loop.results if any(_inside(use, later) for use, _ in r.uses)]
            if top is not loop:
                why = "it is inside other code of the region"
            elif clash:
                why = f"the region's code after it uses '{clash[0].name_hint}', which the loop writes or reads"
            elif sums:
                why = f"the region's code after it reads '{sums[0].name_hint}', which the loop sums"
            else:
                continue
            raise Fail(Diagnostic(f"'nowait' on this loop is not supported: {why}, and without the barrier "
                                  "a thread may get there before the others finish the loop", loop.loc,
                                  "remove 'nowait'"))

    # -- parallel loops --------------------------------------------------------------------------------
    def clauses(self, p: PlacedPragma) -> OmpClauses:
        try:
            omp = parse_omp(p.text)
        except OmpProblem as e:
            raise self.pragma_fail(p, e.message, e.hint) from None
        assert omp is not None
        return omp

    def omp_pragma(self, st: c_ast.For) -> Optional[OmpClauses]:
        """The clauses that make the loop ``st`` parallel (its pragma's, or the collapse it is the
        inner loop of); None for a serial loop."""
        if id(st) in self.omp_collapsed:
            return self.omp_collapsed.pop(id(st))
        p = self.next_omp_pragma(st)
        if p is None:
            return None
        self.take(p)
        omp = self.clauses(p)
        if omp.directive == "parallel":
            raise self.pragma_fail(p, "'#pragma omp parallel' right above a loop makes every thread run the "
                                   "whole loop", "write '#pragma omp parallel for' to share its iterations out")
        if self.omp_loops and omp.directive == "for":  # a nested 'parallel for' is a team of its own
            raise self.pragma_fail(p, "'#pragma omp for' inside a parallel loop is not supported",
                                   "make only the outer loop parallel, or use collapse(2) on it")
        if omp.directive == "for" and not self.omp_regions:
            raise self.pragma_fail(p, "'#pragma omp for' outside a parallel region is not supported",
                                   "write '#pragma omp parallel for', or put the loop in a '#pragma omp parallel' "
                                   "region")
        if omp.directive == "parallel for" and self.omp_regions:
            raise self.pragma_fail(p, "'#pragma omp parallel for' inside a parallel region is not supported",
                                   "write '#pragma omp for' there: the region's threads share the loop out")
        if omp.collapse > 1:
            inner = statements(st.stmt)
            if len(inner) != 1 or not isinstance(inner[0], c_ast.For):
                raise self.pragma_fail(p, f"collapse({omp.collapse}) needs {omp.collapse} perfectly nested loops",
                                       "put the inner for loop alone in the outer loop's body")
            if omp.lastprivate:
                raise self.pragma_fail(p, "lastprivate with collapse is not supported",
                                       "assign the variable after the loop nest instead")
            self.omp_collapsed[id(inner[0])] = replace(omp, collapse=omp.collapse - 1, directive="collapsed")
        return omp

    def omp_private(self, st: c_ast.For, omp: OmpClauses, carried: list[str]) -> list[str]:
        """The names whose copies each iteration of the parallel loop ``st`` gets (not carried):
        private ones, and those of the enclosing region the loop assigns."""
        assigned = {self.hint(k) for k in carried}
        for name in omp.firstprivate:
            if name in assigned:
                raise self.fail(st, f"the loop assigns the firstprivate variable '{name}': each thread would carry "
                                "its copy from one of its iterations to the next",
                                f"declare a variable inside the loop body, initialized from '{name}'")
        region = self.omp_regions[-1] if self.omp_regions else None
        own = [self.hint(k) for k in carried if region is not None and k not in region.shared]
        sums = set(omp.reduction) | set(region.clauses.reduction if region else ())
        return sorted((set(omp.private) | set(own)) & assigned - sums - set(omp.lastprivate)) + \
            [n for n in omp.private if n not in assigned]

    @contextmanager
    def omp_body(self, st: c_ast.For, omp: Optional[OmpClauses], private: list[str],
                 env: Env) -> Iterator[Optional[OmpLoop]]:
        """Lowering the body of a parallel loop: the iteration's private copies declared (in the
        innermost loop of a collapsed nest), the loop on the stack critical sections read."""
        if omp is None:
            yield None
            return
        loop = OmpLoop(omp)
        self.omp_loops.append(loop)
        try:
            with self.scope():
                if omp.collapse == 1:
                    self.private_copies(private, [], st, env)
                yield loop
        finally:
            self.omp_loops.pop()

    def omp_loop_attrs(self, st: c_ast.For, omp: OmpClauses, carried: list[str], blk: Block,
                       critical: dict[str, list[c_ast.Node]]) -> dict:
        """The ``for`` op's attributes, once every carried variable is checked: a sum it declares
        (or a critical section adds to), or a lastprivate variable no iteration reads first."""
        region = self.omp_regions[-1] if self.omp_regions else None
        sums = set(omp.reduction) | set(region.clauses.reduction if region else ()) | set(critical)
        for k, arg in zip(carried, blk.args[1:]):
            name = self.hint(k)
            if name in omp.lastprivate:
                if arg.uses:
                    raise self.fail(st, f"an iteration of the loop reads the lastprivate variable '{name}' before "
                                    "assigning it", f"assign '{name}' at the start of every iteration")
            elif name not in sums:
                raise self.fail(st, f"the parallel loop updates '{name}' from one iteration to the next",
                                f"declare it a sum, reduction(+: {name}), or make it local to the body")
            if region is not None:
                region.loop_keys.add(k)
        for name, updates in critical.items():
            allowed = set()
            for u in updates:
                added = {id(n) for n in walk(_added(u))} if _added(u) is not None else set()
                allowed |= {id(n) for n in walk(u) if id(n) not in added}
            for n in walk(st.stmt):
                if isinstance(n, c_ast.ID) and n.name == name and id(n) not in allowed:
                    raise self.fail(n, f"the parallel loop reads '{name}', which '#pragma omp critical' adds to: "
                                    "the value depends on the order of the threads",
                                    f"read '{name}' after the loop")
        attrs: dict = {"parallel": "omp"}
        if omp.schedule:
            attrs["schedule"] = omp.schedule
        if omp.directive == "collapsed":
            attrs["collapsed"] = True
        elif omp.collapse > 1:
            attrs["collapse"] = omp.collapse
        if omp.nowait:
            attrs["nowait"] = True  # checked, then dropped, once the region is lowered
        return attrs

    def omp_after_loop(self, op: Op, private: list[str], env: Env) -> None:
        """After a worksharing loop of a region: the region's variables the loop assigned hold what
        each thread's last iteration left, which depends on the schedule."""
        if not self.omp_regions:
            return
        region = self.omp_regions[-1]
        region.loops.append(op)
        for name in private:
            key = self.lookup(name)
            if key is not None and key not in region.shared:
                env[key] = Poison(f"after the '#pragma omp for' loop, each thread's '{name}' holds what the last "
                                  "iteration it ran assigned, which depends on the schedule",
                                  f"declare '{name}' inside the loop body, or use it only inside the loop")


def _is_update(st: c_ast.Node) -> bool:
    """``x += e``, ``x -= e``, ``x = x + e``, ``x = e + x``, ``x = x - e``, ``x++``, ``--x``."""
    gen = CGenerator()
    if isinstance(st, c_ast.UnaryOp):
        return st.op in INCREMENTS
    if not isinstance(st, c_ast.Assignment):
        return False
    if st.op in ("+=", "-="):
        return True
    if st.op != "=" or not isinstance(st.rvalue, c_ast.BinaryOp) or st.rvalue.op not in "+-":
        return False
    target = gen.visit(st.lvalue)
    left, right = gen.visit(st.rvalue.left), gen.visit(st.rvalue.right)
    return left == target or (st.rvalue.op == "+" and right == target)


def _target(st: c_ast.Node) -> c_ast.Node:
    return st.lvalue if isinstance(st, c_ast.Assignment) else st.expr


def _added(st: c_ast.Node) -> Optional[c_ast.Node]:
    """What the update ``st`` adds (None for ``x++``)."""
    if isinstance(st, c_ast.UnaryOp):
        return None
    if st.op in ("+=", "-="):
        return st.rvalue
    gen = CGenerator()
    same_left = gen.visit(st.rvalue.left) == gen.visit(st.lvalue)
    return st.rvalue.right if same_left else st.rvalue.left


def _assignment_to(name: str, node: c_ast.Node) -> Optional[c_ast.Node]:
    for n in walk(node):
        target = n.lvalue if isinstance(n, c_ast.Assignment) else n.expr \
            if isinstance(n, c_ast.UnaryOp) and n.op in INCREMENTS else None
        if isinstance(target, c_ast.ID) and target.name == name:
            return n
    return None


def _walk(ops: list[Op], skip: list[Op]) -> Iterator[Op]:
    """The ops ``ops`` and those nested in them, leaving out the loops ``skip`` (and their bodies)."""
    for op in ops:
        if op in skip:
            continue
        yield op
        for region in op.regions:
            yield from _walk(region.ops, skip)


def _memory(*ops: Op) -> tuple[set[Value], set[Value]]:
    """The arrays the ops (and those nested in them) read and write; a call does both to the
    arrays it is passed."""
    reads: set[Value] = set()
    writes: set[Value] = set()
    for op in _walk(list(ops), []):
        if op.name == "load":
            reads.add(view_base(op.operands[0]))
        elif op.name == "store":
            writes.add(view_base(op.operands[0]))
        elif op.name == "call":
            arrays = {view_base(a) for a in op.operands if a.type.is_array}
            reads |= arrays
            writes |= arrays
    return reads, writes


def _inside(op: Op, tops: list[Op]) -> bool:
    while op is not None:
        if op in tops:
            return True
        op = op.parent.parent_op if op.parent is not None else None
    return False
