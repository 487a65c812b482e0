"""Which float expressions of a program are ints once printed as Python, and so whether ``f``
returns a float: the contract gives the gradient a ``d_return`` only then.

The tree's float expressions are floats in C (``floor`` returns a double) but not all of them in
Python: ``math.floor`` and ``math.ceil`` return ints, and ``+``, ``-``, ``*``, ``**``, ``abs``,
``max``, ``min`` and ``a if c else b`` keep an int an int. s2sad types Python as Python does, a
variable by all its assignments together (``s = 0.5`` then ``s = math.floor(e)`` is a float), and
trusts a ``-> float`` annotation; an unannotated ``f`` (feature ``unannotated``) whose every
``return`` is int-valued has no ``d_return``.
"""

from __future__ import annotations

from .intrinsics import SCALAR, py_spelling
from .names import is_private
from .program import Assign, Bin, CallF, Function, Intr, Program, Ref, Return, Select, walk_body

# Spellings that give an int for int arguments (the other intrinsics are math.* or np.* functions
# of floats, or guard their argument with float arithmetic: (1.5 + tanh(e)) ** y); square and
# cube print as e ** 2 and e ** 3.
_KEEP_INT = {"abs", "max", "min", "np.abs", "np.maximum", "np.minimum"}
_POWERS = {"square", "cube"}
_MAKE_INT = {"math.floor", "math.ceil"}


def returns_float(program: Program, fn: Function) -> bool:
    """Whether s2sad types ``fn``'s return value as a float (``fn.returns`` assumed)."""
    if program.lang != "py" or program.annotate:
        return True  # C: double f(...); Python: -> float
    return any(expr is not None and not _is_int(program, fn, expr, _int_privates(program, fn))
               for expr in (n.expr for n in walk_body(fn.body) if isinstance(n, Return)))


def _int_privates(program: Program, fn: Function) -> set:
    """The parallel loops' temporaries (never declared with a float start value) that every
    assignment keeps an int: the largest such set, found by dropping the others until none is left."""
    assigns = [n for n in walk_body(fn.body) if isinstance(n, Assign) and is_private(n.name)]
    ints = {a.name for a in assigns}
    changed = True
    while changed:
        changed = False
        for a in assigns:
            if a.name in ints and not _is_int(program, fn, a.expr, ints):
                ints.discard(a.name)
                changed = True
    return ints


def _is_int(program: Program, fn: Function, e, int_names: set) -> bool:
    if isinstance(e, Ref):
        return e.name in int_names  # parameters and other locals are floats
    if isinstance(e, Bin):
        return e.op != "/" and _is_int(program, fn, e.left, int_names) and _is_int(program, fn, e.right, int_names)
    if isinstance(e, Select):
        return _is_int(program, fn, e.then, int_names) and _is_int(program, fn, e.orelse, int_names)
    if isinstance(e, Intr):
        spelling = py_spelling(e.fn, "np_spelling" in program.features) if e.fn in SCALAR else ""
        if spelling in _MAKE_INT:
            return True
        return (spelling in _KEEP_INT or e.fn in _POWERS) and all(_is_int(program, fn, a, int_names) for a in e.args)
    if isinstance(e, CallF):
        callee = program.function(e.fn)
        return not returns_float(program, callee)
    return False  # numbers print as float literals; loads and reductions are floats

