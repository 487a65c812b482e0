"""Unsigned integers: accept what the IR's signed integers compute the same way, refuse the rest.

The IR computes every integer in a signed type (``i64`` for locals; see c_types). For
unsigned C values that agrees with C exactly as long as no value would go below zero: then
C wraps around (``n - 1`` with ``n == 0`` is ``UINT_MAX``; ``for (unsigned i = n - 1; i < n;
i--)`` ends when ``i`` wraps), while the signed IR goes negative, so the reversed loop would
never end and would read out of bounds. s2sad never changes what a program means, so every
operation through which an unsigned value can wrap below zero is refused with a located error:

* ``-`` (binary or unary), ``~``, ``--`` and ``-=`` whose result has an unsigned type (by C's usual
  arithmetic conversions: an operand of unsigned type, a ``u`` literal or ``sizeof``, no
  floating-point operand), except a subtraction inside an array subscript built with
  ``+``, ``-`` and ``*`` only (``x[i - 1]``: see ``visit_ArrayRef``);
* storing a value computed with ``-`` into an unsigned variable (the conversion wraps a
  negative value).

Past the top of the type, C wraps too (modulo 2^32 for ``unsigned``, 2^64 for ``uint64_t``, 2^8 or
2^16 when stored into an ``unsigned char`` or ``short``), where the IR's integers grow or go
negative (an LCG's state shifted right: a negative uniform). Sizes, counters and strides stay far
below the top; what is made to pass it is refused where it is made (probe round 8):

* ``<<`` and ``<<=`` of an unsigned value (xorshift, bit mixing);
* an unsigned product with an integer constant of at least 2^16 (``_WRAPPING_FACTOR``: an LCG's
  or a hash's multiplier), outside a subscript (see above);
* a sum, difference, product, shift or step stored into an ``unsigned char`` or ``short`` (by a
  declaration, an assignment, a compound assignment, ``++``, a cast). Their values are promoted
  to ``int`` in C's arithmetic (``img[i] - 128`` is an int), and are read as such.

Adding, multiplying by small numbers, dividing and comparing unsigned values are accepted. This is
a syntactic check, by declared name in C's block scopes: a loop's ``int i`` after another loop's
``size_t i`` is signed.
"""

from __future__ import annotations

from collections import ChainMap
from typing import Callable, Optional

from pycparser import c_ast

from ..diagnostics import Diagnostic, SourceLoc
from .c_expr import constant_step, math_intrinsic, walk
from .c_loop_tests import MIRRORED
from .c_structs import int_constant

_FLOAT_WORDS = frozenset({"double", "float"})
HINT = "use a signed type (int, long, ptrdiff_t) for values that count down or may go below zero"
GROWTH_HINT = ("compute it in a signed type that holds it (long), or, for a random generator's or a hash's bits, "
               "make them outside the function and pass them in")


def _words(names: list[str], typedefs: dict[str, list[str]], depth: int = 0) -> list[str]:
    out: list[str] = []
    for w in names:
        if w in typedefs and depth < 16:
            out += _words(typedefs[w], typedefs, depth + 1)
        else:
            out.append(w)
    return out


def _kind(node: c_ast.Node, typedefs: dict[str, list[str]]) -> str:
    """``'unsigned'``, ``'narrow'`` (an unsigned char or short: ``uint8_t``, ``uint16_t``),
    ``'float'``, ``'pointer'`` or ``'signed'`` for a declaration's type node."""
    if isinstance(node, (c_ast.PtrDecl, c_ast.ArrayDecl)):
        return "pointer"
    if isinstance(node, c_ast.TypeDecl) and isinstance(node.type, c_ast.IdentifierType):
        words = _words(list(node.type.names), typedefs)
        if _FLOAT_WORDS & set(words):
            return "float"
        if "unsigned" in words:
            return "narrow" if {"char", "short"} & set(words) else "unsigned"
    return "signed"


def is_unsigned(node: c_ast.Node, typedefs: dict[str, list[str]]) -> bool:
    """Whether a declaration's type node is an unsigned integer (``size_t``, ``unsigned``, a
    typedef of one, ``unsigned char``)."""
    return _kind(node, typedefs) in ("unsigned", "narrow")


def _promoted(kind: str) -> str:
    """The kind of a value of a declared kind in C's arithmetic: an unsigned char or short is
    promoted to ``int`` first (``img[i] - 128`` is an int, never wraps)."""
    return "signed" if kind == "narrow" else kind


# An integer literal this large multiplying an unsigned value (a hash's or a random generator's
# constant: 2654435761u, 1103515245u, 6364136223846793005ULL) makes it wrap around past the top
# of its type at once; sizes and strides are multiplied by small numbers.
_WRAPPING_FACTOR = 1 << 16


class _Checker(c_ast.NodeVisitor):
    def __init__(self, typedefs: dict[str, list[str]], loc: Callable[[c_ast.Node], SourceLoc]):
        self.typedefs = typedefs
        self.loc = loc
        # variable -> its kind, and pointer variable -> the kind of its elements, in the scope
        # being checked: C's block scopes, innermost first (a loop's ``int i`` after another
        # loop's ``unsigned i`` is signed)
        self.kinds: ChainMap[str, str] = ChainMap()
        self.pointees: ChainMap[str, str] = ChainMap()
        self.problems: list[Diagnostic] = []
        self.reported: set[int] = set()
        self.ring: set[int] = set()  # subtractions inside a subscript (visit_ArrayRef)
        self.known: dict[int, str] = {}  # id of an expression node (alive while checked) -> its kind
        self.guarded: set[int] = set()  # decrements a loop's test keeps above zero (visit_For)

    # -- declarations ------------------------------------------------------------------
    def declare(self, name: Optional[str], node: c_ast.Node) -> None:
        if not name:
            return
        kind = self.kinds[name] = _kind(node, self.typedefs)
        self.pointees.pop(name, None)
        if kind == "pointer":
            inner = node.type
            while isinstance(inner, (c_ast.PtrDecl, c_ast.ArrayDecl)):
                inner = inner.type
            self.pointees[name] = _kind(inner, self.typedefs)

    # -- the type of an expression -------------------------------------------------------
    def kind(self, e: Optional[c_ast.Node]) -> str:
        """The kind of ``e``'s value, kept for each node: every node of an expression asks it of
        its operands as it is visited (a sum of 8,000 terms asked it down the sum at each)."""
        if e is None:
            return "signed"
        found = self.known.get(id(e))
        if found is None:
            found = self.known[id(e)] = self._kind_of(e)
        return found

    def _kind_of(self, e: c_ast.Node) -> str:
        if isinstance(e, c_ast.ID):
            return _promoted(self.kinds.get(e.name, "signed"))
        if isinstance(e, c_ast.Constant):
            if e.type in ("double", "float"):
                return "float"
            # an integer literal with a u suffix (hexadecimal digits have no u)
            return "unsigned" if e.type != "char" and "u" in e.value.lower() else "signed"
        if isinstance(e, c_ast.ArrayRef):
            base = e.name
            while isinstance(base, c_ast.ArrayRef):
                base = base.name
            return _promoted(self.pointees.get(base.name, "signed")) if isinstance(base, c_ast.ID) else "signed"
        if isinstance(e, c_ast.Cast):
            return _promoted(_kind(e.to_type.type, self.typedefs))
        if isinstance(e, c_ast.UnaryOp):
            if e.op == "sizeof":
                return "unsigned"
            if e.op in ("!",):
                return "signed"
            if e.op == "*" and isinstance(e.expr, c_ast.ID):
                return _promoted(self.pointees.get(e.expr.name, "signed"))
            return self.kind(e.expr)
        if isinstance(e, c_ast.BinaryOp):
            if e.op in ("<", ">", "<=", ">=", "==", "!=", "&&", "||"):
                return "signed"
            if e.op in ("<<", ">>"):
                return self.kind(e.left)
            return _arith(self.kind(e.left), self.kind(e.right))
        if isinstance(e, c_ast.TernaryOp):
            return _arith(self.kind(e.iftrue), self.kind(e.iffalse))
        if isinstance(e, c_ast.Assignment):
            return self.kind(e.lvalue)
        if isinstance(e, c_ast.FuncCall):
            # math.h's functions (mathfns, as the front end reads them) give floats.
            return "float" if isinstance(e.name, c_ast.ID) and math_intrinsic(e.name.name) else "signed"
        return "signed"

    # -- the checks ------------------------------------------------------------------------
    def report(self, node: c_ast.Node, what: str, name: str = "", where: str = "below zero") -> None:
        if id(node) in self.reported:
            return
        self.reported.add(id(node))
        subject = f"'{name}' is unsigned: " if name else ""
        self.problems.append(Diagnostic(
            f"{subject}{what} can wrap around {where} in C, which s2sad does not model "
            "(it computes integers as signed)", self.loc(node), HINT if where == "below zero" else GROWTH_HINT))

    def report_growth(self, node: c_ast.Node, what: str, name: str = "") -> None:
        """An unsigned value made past the top of its type: C keeps it modulo 2^k (a hash, a random
        generator's state), the IR's signed integer does not."""
        self.report(node, what, name, "past the largest value of its type")

    def stored_kind(self, target: c_ast.Node) -> str:
        """The declared kind of what an assignment stores into: a variable, an element, ``*p``."""
        if isinstance(target, c_ast.ID):
            return self.kinds.get(target.name, "signed")
        base = target
        while isinstance(base, c_ast.ArrayRef):
            base = base.name
        if isinstance(target, c_ast.UnaryOp) and target.op == "*":
            base = target.expr
        if base is not target and isinstance(base, c_ast.ID):
            return self.pointees.get(base.name, "signed")
        return "signed"

    def check_narrow(self, value: Optional[c_ast.Node], name: str) -> None:
        """A sum, difference, product or shift converted to an unsigned char or short: C keeps it
        modulo 2^8 or 2^16."""
        for n in _value_nodes(value):
            if isinstance(n, c_ast.BinaryOp) and n.op in ("+", "-", "*", "<<") and self.kind(n) != "float" \
                    or isinstance(n, c_ast.UnaryOp) and n.op == "-" and self.kind(n) != "float":
                self.report_growth(n, "storing this value into it", name)
                return

    def visit_Decl(self, node: c_ast.Decl) -> None:
        if not isinstance(node.type, c_ast.FuncDecl):
            self.declare(node.name, node.type)
            if node.init is not None and self.kinds.get(node.name) == "unsigned":
                self.check_stored(node.init, node.name)
            elif node.init is not None and self.kinds.get(node.name) == "narrow":
                self.check_narrow(node.init, node.name)
        self.generic_visit(node)

    def scoped(self, visit: Callable[[], None]) -> None:
        """``visit`` in a new block scope: what it declares is gone after it."""
        self.kinds, self.pointees = self.kinds.new_child(), self.pointees.new_child()
        try:
            visit()
        finally:
            self.kinds, self.pointees = self.kinds.parents, self.pointees.parents

    def visit_FuncDef(self, node: c_ast.FuncDef) -> None:
        def parameters_and_body() -> None:
            args = node.decl.type.args
            for p in args.params if args is not None else []:
                if isinstance(p, c_ast.Decl):
                    self.declare(p.name, p.type)
            self.visit(node.body)

        self.scoped(parameters_and_body)

    def visit_Compound(self, node: c_ast.Compound) -> None:
        self.scoped(lambda: self.generic_visit(node))

    def visit_For(self, node: c_ast.For) -> None:
        """``for (size_t i = n; i > 0; i--)`` (the body indexing ``x[i - 1]``): the step runs only
        after the test found ``i`` positive and a body that never changes ``i`` ran, so ``i`` is at
        least 1 there and never wraps."""
        step, name = node.next, _name(getattr(node.next, "expr", None) or getattr(node.next, "lvalue", None))
        if name and constant_step(step, name) == -1 and _above_zero(node.cond, name) \
                and not _changes(node.stmt, name):
            self.guarded.add(id(step))
        # for (size_t i = n; i-- > 0; ): the count-down idiom of unsigned C (see counted_down)
        declared = node.init.decls if isinstance(node.init, c_ast.DeclList) else []
        tested = (counted_down(node.cond) or (None, 0))[0]
        if tested is not None and any(d.name == _name(tested.expr) for d in declared) \
                and not _changes(node.stmt, _name(tested.expr)) and node.next is None:
            self.guarded.add(id(tested))
        self.scoped(lambda: self.generic_visit(node))  # (what its first clause declares is the loop's)

    def visit_UnaryOp(self, node: c_ast.UnaryOp) -> None:
        if id(node) in self.guarded:
            pass
        elif node.op in ("--", "p--") and self.kind(node.expr) == "unsigned":
            self.report(node, "decrementing it", _name(node.expr))
        elif node.op in ("--", "p--", "++", "p++") and self.stored_kind(node.expr) == "narrow":
            self.report_growth(node, "stepping it (an unsigned char or short)", _name(node.expr))
        elif node.op == "-" and self.kind(node.expr) == "unsigned":
            self.report(node, "negating an unsigned value")
        elif node.op == "~" and self.kind(node.expr) == "unsigned":
            self.report(node, "complementing an unsigned value (~)")
        if node.op != "sizeof":
            self.generic_visit(node)

    def visit_BinaryOp(self, node: c_ast.BinaryOp) -> None:
        if node.op == "-" and self.kind(node) == "unsigned" and "pointer" not in (
            self.kind(node.left), self.kind(node.right)
        ) and id(node) not in self.ring:
            self.report(node, "this unsigned subtraction")
        elif node.op == "<<" and self.kind(node) == "unsigned":
            self.report_growth(node, "shifting an unsigned value left")
        elif node.op == "*" and self.kind(node) == "unsigned" and id(node) not in self.ring \
                and _wrapping_factor(node.left, node.right):
            self.report_growth(node, "multiplying an unsigned value by a constant this large")
        self.generic_visit(node)

    def visit_Cast(self, node: c_ast.Cast) -> None:
        if _kind(node.to_type.type, self.typedefs) == "narrow":
            self.check_narrow(node.expr, "")
        self.generic_visit(node)

    def visit_ArrayRef(self, node: c_ast.ArrayRef) -> None:
        # A subscript made of +, - and * only: C computes it modulo 2^k, the IR exactly; the two
        # agree whenever the exact value is a valid index, and when it is negative C's wrapped
        # index is out of bounds too (the primal itself is wrong), so nothing changes meaning.
        stack = [node.subscript]
        while stack:
            e = stack.pop()
            if isinstance(e, c_ast.BinaryOp) and e.op in ("+", "-", "*"):
                self.ring.add(id(e))
                stack += [e.left, e.right]
        self.generic_visit(node)

    def visit_Assignment(self, node: c_ast.Assignment) -> None:
        if self.kind(node.lvalue) == "unsigned" and id(node) not in self.guarded:
            if node.op == "-=":
                self.report(node, "subtracting from it", _name(node.lvalue))
            elif node.op == "=":
                self.check_stored(node.rvalue, _name(node.lvalue))
            elif node.op == "<<=":
                self.report_growth(node, "shifting it left", _name(node.lvalue))
            elif node.op == "*=" and _wrapping_factor(node.rvalue):
                self.report_growth(node, "multiplying it by a constant this large", _name(node.lvalue))
        elif self.stored_kind(node.lvalue) == "narrow":
            if node.op != "=" and node.op not in ("&=", "|=", "^=", ">>=", "/=", "%="):
                self.report_growth(node, "adding to it (an unsigned char or short)", _name(node.lvalue))
            else:
                self.check_narrow(node.rvalue, _name(node.lvalue))
        self.generic_visit(node)

    def check_stored(self, value: c_ast.Node, name: str) -> None:
        """A value computed with ``-`` converted to an unsigned type: negative ones wrap."""
        for n in _value_nodes(value):
            if (isinstance(n, c_ast.BinaryOp) and n.op == "-") or (isinstance(n, c_ast.UnaryOp) and n.op == "-"):
                if self.kind(n) != "float":
                    self.report(n, "storing a difference into it", name)
                return


def _value_nodes(value: Optional[c_ast.Node]) -> list[c_ast.Node]:
    """The nodes of the expression ``value`` that compute the number it gives: not those of the
    subscripts it reads elements at, nor of the arguments of the calls it makes."""
    out: list[c_ast.Node] = []
    pending = [value] if value is not None else []
    while pending:
        n = pending.pop()
        out.append(n)
        if isinstance(n, c_ast.ArrayRef) or isinstance(n, c_ast.FuncCall):
            continue
        pending += [child for _, child in reversed(n.children())]
    return out


def _wrapping_factor(*operands: c_ast.Node) -> bool:
    """Whether one of ``operands`` is an integer literal of at least ``_WRAPPING_FACTOR``."""
    for e in operands:
        if isinstance(e, c_ast.Cast):
            e = e.expr
        if isinstance(e, c_ast.Constant) and e.type not in ("double", "float", "char", "string"):
            try:
                if int(e.value.rstrip("uUlL"), 0) >= _WRAPPING_FACTOR:
                    return True
            except ValueError:
                continue
    return False


def _arith(a: str, b: str) -> str:
    if "float" in (a, b):
        return "float"
    if "pointer" in (a, b):
        return "pointer"
    return "unsigned" if "unsigned" in (a, b) else "signed"


def _name(node: Optional[c_ast.Node]) -> str:
    return node.name if isinstance(node, c_ast.ID) else ""


def _above_zero(cond: Optional[c_ast.Node], name: str) -> bool:
    """Whether the loop test ``cond`` holds only where ``name`` is at least 1 (``i > 0``, ``i !=
    0``, ``i >= 1``, ``0 < i``, ``1 <= i``, or such a test and others joined by ``&&``)."""
    if not isinstance(cond, c_ast.BinaryOp):
        return False
    if cond.op == "&&":
        return _above_zero(cond.left, name) or _above_zero(cond.right, name)
    if _name(cond.left) == name:
        op, bound = cond.op, int_constant(cond.right, {}, set())
    elif _name(cond.right) == name and (cond.op in MIRRORED or cond.op == "!="):
        op, bound = MIRRORED.get(cond.op, cond.op), int_constant(cond.left, {}, set())  # 0 < i is i > 0
    else:
        return False
    return bound is not None and (op == "!=" and bound == 0 or op == ">" and bound >= 0 or op == ">=" and bound >= 1)


def counted_down(cond: Optional[c_ast.Node]) -> Optional[tuple[c_ast.UnaryOp, int]]:
    """The decrement of a test ``i-- > c`` (``i-- >= c + 1``, ``c < i--``, ``i-- != 0``, ``i--``;
    ``c`` a constant at least 0), and the least value the body sees, ``c``: the test wraps ``i``
    only where it finds it 0 and ends the loop, so a loop whose ``i`` lives in its own scope never
    shows the wrapped value; the body sees ``i`` already one less, at least ``c``."""
    if isinstance(cond, c_ast.UnaryOp) and cond.op == "p--" and _name(cond.expr):
        return cond, 0
    if not isinstance(cond, c_ast.BinaryOp):
        return None
    if isinstance(cond.left, c_ast.UnaryOp) and cond.left.op == "p--" and _name(cond.left.expr):
        op, decrement, bound = cond.op, cond.left, int_constant(cond.right, {}, set())
    elif isinstance(cond.right, c_ast.UnaryOp) and cond.right.op == "p--" and _name(cond.right.expr):
        op, decrement, bound = MIRRORED.get(cond.op, cond.op), cond.right, int_constant(cond.left, {}, set())
    else:
        return None
    if bound is None:
        return None
    if op == ">" and bound >= 0 or op == "!=" and bound == 0:
        return decrement, bound
    if op == ">=" and bound >= 1:
        return decrement, bound - 1
    return None


def _changes(body: Optional[c_ast.Node], name: str) -> bool:
    """Whether ``body`` assigns ``name``, steps it, or takes its address."""
    for n in walk(body) if body is not None else ():
        if isinstance(n, c_ast.Assignment) and _name(n.lvalue) == name:
            return True
        if isinstance(n, c_ast.UnaryOp) and n.op in ("++", "--", "p++", "p--", "&") and _name(n.expr) == name:
            return True
    return False



def unsigned_problems(
    fn: c_ast.FuncDef, typedefs: dict[str, list[str]], loc: Callable[[c_ast.Node], SourceLoc]
) -> list[Diagnostic]:
    """One located diagnostic per operation in ``fn`` through which an unsigned value may wrap."""
    checker = _Checker(typedefs, loc)
    checker.visit(fn)
    return checker.problems

