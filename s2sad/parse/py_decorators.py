"""Whether a function's decorators leave it as written, on every path through the module.

A decorator rebinds the function's name to whatever it returns, and s2sad reads the function's
source, so a decorator is accepted only when s2sad can show that it returns the function
unchanged. The library decorators that compile or cache pure code (``HARMLESS``: numba's
``njit``/``jit``, with any arguments, ``functools.cache``/``lru_cache``) count as returning it.

A user's fallback decorator is judged by running it here, abstractly, on the call the
decorator line makes (``@njit`` calls ``njit(f)``; ``@njit(cache=True)`` calls
``njit(cache=True)`` and then its result on ``f``). The interpreter knows only a small part of
Python: parameters (defaults, ``*args``, ``**kwargs``), ``if``, ``return``, nested ``def`` and
``lambda``, literals, ``len``, ``callable``, ``is None``, comparisons, ``and``/``or``/``not``,
subscripts of literal tuples and dicts, and the module's names as they were when the function
was defined. A name bound differently on different paths (``try: from numba import njit`` /
``except ImportError: def njit(f): return f``) is tried with each of its bindings; a condition
that cannot be decided here takes both branches. A path that raises (``None.njit``, a name
left unbound) makes the module fail to import, so the function does not exist there and the
path is no objection. Anything else unknown is: the decorator is then refused.
"""

from __future__ import annotations

import itertools
import operator
from collections import Counter
from dataclasses import dataclass
from typing import Optional, Union

import libcst as cst

from .py_module import Binding, State, _free_name, flatten, representative

# Decorators that leave what a function computes as it is (compilers and caches of pure code).
HARMLESS = frozenset({"numba.njit", "numba.jit", "functools.cache", "functools.lru_cache"})

_LIMIT = 64  # possible values of one expression, and call depth, before giving up


class _Mark:
    def __init__(self, name: str):
        self.name = name

    def __repr__(self) -> str:
        return self.name


FUNC = _Mark("the decorated function")
CRASH = _Mark("an exception")  # the module does not import on this path
UNKNOWN = _Mark("unknown")


@dataclass(frozen=True)
class Lib:
    """A library module or function, by canonical name."""

    canonical: str


@dataclass(frozen=True)
class Keep:
    """What ``numba.njit(...)``/``functools.lru_cache(...)`` return: applied to a function, it returns it."""

    canonical: str


@dataclass(frozen=True, eq=False)
class Closure:
    node: Union[cst.FunctionDef, cst.Lambda]
    frame: Optional["Frame"]


@dataclass
class Frame:
    values: dict
    assigned: frozenset[str]
    parent: Optional["Frame"]


def _is_data(v) -> bool:
    if isinstance(v, (tuple, list)):
        return all(_is_data(x) for x in v)
    if isinstance(v, dict):
        return all(_is_data(x) for x in v.values())
    return v is None or isinstance(v, (bool, int, float, complex, str, bytes))


def _has_unknown(v) -> bool:
    if isinstance(v, (tuple, list)):
        return any(_has_unknown(x) for x in v)
    if isinstance(v, dict):
        return any(_has_unknown(x) for x in v.values())
    return v is UNKNOWN


class _Return(Exception):
    pass


class Interpreter:
    """Abstract evaluation of decorator expressions in the module scope ``scope``."""

    def __init__(self, scope: State, star_imports: list[str]):
        self.scope = scope
        self.star_imports = star_imports
        self.pinned: dict[str, Binding] = {}
        self.depth = 0

    # -- names -----------------------------------------------------------------------------------

    def global_values(self, name: str) -> list:
        if name in self.pinned:
            return self.binding_values(self.pinned[name])
        meanings = self.scope.get(name)
        if meanings is None:
            if name in ("None", "True", "False"):
                return [{"None": None, "True": True, "False": False}[name]]
            canonical = _free_name(name, self.star_imports)
            return [Lib(canonical)] if canonical else [CRASH]  # NameError
        out = []
        for key, bindings in meanings.items():
            if bindings[0].kind == "import":
                out.append(Lib(representative(bindings)))
            else:
                for b in bindings:
                    out += self.binding_values(b)
        return _unique(out)

    def binding_values(self, b: Binding) -> list:
        if b.kind == "unbound":
            return [CRASH]
        if b.kind == "import":
            return [Lib(b.canonical)]
        if b.kind == "const":
            return [b.value]
        if b.kind in ("def", "lambda"):
            assert isinstance(b.node, (cst.FunctionDef, cst.Lambda))
            return [Closure(b.node, None)]
        if b.kind == "value" and b.expr is not None and _literal(b.expr):
            return self.ev(b.expr, None)
        return [UNKNOWN]

    def lookup(self, name: str, frame: Optional[Frame]) -> list:
        f = frame
        while f is not None:
            if name in f.values:
                return [f.values[name]]
            if name in f.assigned:
                return [UNKNOWN]  # assigned later (or on another branch): not followed
            f = f.parent
        return self.global_values(name)

    # -- expressions -----------------------------------------------------------------------------

    def ev(self, node: cst.BaseExpression, frame: Optional[Frame]) -> list:
        out = self._ev(node, frame)
        return out if len(out) <= _LIMIT else [UNKNOWN]

    def _ev(self, node: cst.BaseExpression, frame: Optional[Frame]) -> list:
        if isinstance(node, cst.Name):
            return self.lookup(node.value, frame)
        if isinstance(node, (cst.Integer, cst.Float, cst.Imaginary, cst.SimpleString)):
            return [node.evaluated_value]
        if isinstance(node, cst.Tuple):
            if any(not isinstance(e, cst.Element) for e in node.elements):
                return [UNKNOWN]
            options = [self.ev(e.value, frame) for e in node.elements]
            return [tuple(p) for p in itertools.islice(itertools.product(*options), _LIMIT + 1)]
        if isinstance(node, cst.Attribute):
            return [self.attribute(v, node.attr.value) for v in self.ev(node.value, frame)]
        if isinstance(node, cst.Lambda):
            return [Closure(node, frame)]
        if isinstance(node, cst.Call):
            return self.call_expr(node, frame)
        if isinstance(node, cst.UnaryOperation) and isinstance(node.operator, cst.Not):
            return _unique([r for v in self.ev(node.expression, frame) for r in _not(v)])
        if isinstance(node, cst.BooleanOperation):
            out = []
            for left in self.ev(node.left, frame):
                for truth in _truth(left):
                    if truth is CRASH:
                        out.append(CRASH)
                    elif truth == isinstance(node.operator, cst.Or):
                        out.append(left)  # `a or b` is a when a is true; `a and b` is a when a is false
                    else:
                        out += self.ev(node.right, frame)
            return _unique(out)
        if isinstance(node, cst.IfExp):
            out = []
            for test in self.ev(node.test, frame):
                for truth in _truth(test):
                    out += [CRASH] if truth is CRASH else self.ev(node.body if truth else node.orelse, frame)
            return _unique(out)
        if isinstance(node, cst.Comparison):
            return self.comparison(node, frame)
        if isinstance(node, cst.Subscript):
            if len(node.slice) != 1 or not isinstance(node.slice[0].slice, cst.Index):
                return [UNKNOWN]
            out = []
            for base in self.ev(node.value, frame):
                for index in self.ev(node.slice[0].slice.value, frame):
                    out.append(_subscript(base, index))
            return _unique(out)
        return [UNKNOWN]

    def attribute(self, v, attr: str):
        if v is CRASH or v is UNKNOWN:
            return v
        if isinstance(v, Lib):
            return Lib(f"{v.canonical}.{attr}")
        if v is None or isinstance(v, (int, float)):
            return CRASH  # `numba = None` ... `numba.njit`: AttributeError
        return UNKNOWN

    def comparison(self, node: cst.Comparison, frame: Optional[Frame]) -> list:
        out = []
        for left in self.ev(node.left, frame):
            results = [(left, True)]
            for comp in node.comparisons:
                nxt = []
                for current, so_far in results:
                    if so_far is not True:
                        nxt.append((current, so_far))
                        continue
                    for right in self.ev(comp.comparator, frame):
                        nxt.append((right, _compare(current, comp.operator, right)))
                results = nxt
            out += [r for _, r in results]
        return _unique(out)

    def call_expr(self, node: cst.Call, frame: Optional[Frame]) -> list:
        options: list[list] = []
        for arg in node.args:
            options.append(self.ev(arg.value, frame))
        out = []
        for func in self.ev(node.func, frame):
            for values in itertools.islice(itertools.product(*options), _LIMIT + 1):
                args: list = []
                kwargs: dict = {}
                bad = None
                for arg, v in zip(node.args, values):
                    if arg.star == "*":
                        bad = v if v is CRASH or v is UNKNOWN else None if isinstance(v, tuple) else UNKNOWN
                        args += list(v) if isinstance(v, tuple) else []
                    elif arg.star == "**":
                        bad = v if v is CRASH or v is UNKNOWN else None if isinstance(v, dict) else UNKNOWN
                        kwargs.update(v if isinstance(v, dict) else {})
                    elif arg.keyword is not None:
                        kwargs[arg.keyword.value] = v
                    else:
                        args.append(v)
                    if bad is not None:
                        break
                out += [bad] if bad is not None else self.call(func, args, kwargs)
        return _unique(out) if len(out) <= _LIMIT else [UNKNOWN]

    # -- calls -----------------------------------------------------------------------------------

    def call(self, func, args: list, kwargs: dict) -> list:
        if func is CRASH or func is UNKNOWN:
            return [func]
        if any(a is CRASH for a in args) or any(v is CRASH for v in kwargs.values()):
            return [CRASH]
        if isinstance(func, Lib):
            return [self.library(func.canonical, args, kwargs)]
        if isinstance(func, Keep):
            return [FUNC if args == [FUNC] and not kwargs else UNKNOWN]
        if isinstance(func, Closure):
            if self.depth >= _LIMIT:
                return [UNKNOWN]
            self.depth += 1
            try:
                return self.run_closure(func, args, kwargs)
            finally:
                self.depth -= 1
        if _is_data(func):
            return [CRASH]  # not callable: TypeError
        return [UNKNOWN]  # calling the decorated function itself while decorating it

    def library(self, canonical: str, args: list, kwargs: dict):
        if canonical in HARMLESS:
            if args == [FUNC] and not kwargs:
                return FUNC
            if any(a is FUNC or isinstance(a, (Closure, Keep)) for a in (*args, *kwargs.values())):
                return UNKNOWN  # numba.njit(g) compiles g, which the decorator line then calls on f
            return Keep(canonical)
        if canonical == "builtins.callable" and len(args) == 1 and not kwargs:
            v = args[0]
            if v is FUNC or isinstance(v, (Closure, Keep)):
                return True
            return False if _is_data(v) else UNKNOWN  # a library name may be a module
        if canonical == "builtins.len" and len(args) == 1 and not kwargs:
            v = args[0]
            if isinstance(v, (tuple, dict, str, bytes)):
                return len(v)
            return UNKNOWN if v is UNKNOWN else CRASH  # len of a number or a function: TypeError
        return UNKNOWN

    def run_closure(self, closure: Closure, args: list, kwargs: dict) -> list:
        node = closure.node
        if isinstance(node, cst.FunctionDef) and (node.decorators or node.asynchronous is not None):
            return [UNKNOWN]
        params = node.params
        assigned = _assigned(node)
        if assigned is None:
            return [UNKNOWN]
        values = _bind_arguments(params, args, kwargs, lambda e: self.ev(e, closure.frame))
        if not isinstance(values, dict):
            return [values]
        frame = Frame(values, assigned, closure.frame)
        if isinstance(node, cst.Lambda):
            return self.ev(node.body, frame)
        return _unique([v for v, _ in self.run(_lines(node.body), frame)])

    def run(self, stmts, frame: Frame) -> list[tuple[object, Optional[Frame]]]:
        """Outcomes of running ``stmts``: (returned value, None), or (None, frame) when it falls through."""
        paths: list[tuple[object, Optional[Frame]]] = [(None, frame)]
        for stmt in stmts:
            nxt: list[tuple[object, Optional[Frame]]] = []
            for value, current in paths:
                if current is None:
                    nxt.append((value, None))
                else:
                    nxt += self.statement(stmt, current)
            if len(nxt) > _LIMIT:
                return [(UNKNOWN, None)]
            paths = nxt
        return paths

    def statement(self, stmt: cst.CSTNode, frame: Frame):
        if isinstance(stmt, cst.FunctionDef):
            return [(None, _with(frame, stmt.name.value, Closure(stmt, frame)))]
        if isinstance(stmt, cst.If):
            out = []
            for test in self.ev(stmt.test, frame):
                for truth in _truth(test):
                    if truth is CRASH:
                        out.append((CRASH, None))
                    elif truth:
                        out += self.run(_lines(stmt.body), frame)
                    elif isinstance(stmt.orelse, cst.If):
                        out += self.statement(stmt.orelse, frame)
                    elif stmt.orelse is not None:
                        out += self.run(_lines(stmt.orelse.body), frame)
                    else:
                        out.append((None, frame))
            return out
        if not isinstance(stmt, cst.SimpleStatementLine) or len(stmt.body) != 1:
            return [(UNKNOWN, None)]
        small = stmt.body[0]
        if isinstance(small, cst.Return):
            return [(v, None) for v in (self.ev(small.value, frame) if small.value is not None else [None])]
        if isinstance(small, cst.Pass):
            return [(None, frame)]
        if isinstance(small, cst.Expr) and isinstance(small.value, (cst.SimpleString, cst.ConcatenatedString)):
            return [(None, frame)]  # a docstring (a string statement does nothing)
        if isinstance(small, cst.Raise):
            return [(CRASH, None)]
        if isinstance(small, cst.Assign) and len(small.targets) == 1 and isinstance(small.targets[0].target, cst.Name):
            name = small.targets[0].target.value
            return [(v, None) if v is CRASH else (None, _with(frame, name, v)) for v in self.ev(small.value, frame)]
        return [(UNKNOWN, None)]


def _lines(suite: cst.BaseSuite) -> list[cst.BaseStatement]:
    """A suite's statements; a one-line suite's (`def njit(f): return f`) one to a line."""
    if isinstance(suite, cst.SimpleStatementSuite):
        return [cst.SimpleStatementLine(body=[small]) for small in suite.body]
    return list(suite.body)


def _with(frame: Frame, name: str, value) -> Frame:
    return Frame({**frame.values, name: value}, frame.assigned, frame.parent)


def _assigned(node: Union[cst.FunctionDef, cst.Lambda]) -> Optional[frozenset[str]]:
    """The function's local names; None when one is bound twice (not followed here)."""
    params = node.params
    names = [p.name.value for p in (*params.posonly_params, *params.params, *params.kwonly_params)]
    for star in (params.star_arg, params.star_kwarg):
        if isinstance(star, cst.Param):
            names.append(star.name.value)
    if isinstance(node, cst.FunctionDef):
        def visit(stmts) -> None:
            for s in stmts:
                if isinstance(s, cst.FunctionDef):
                    names.append(s.name.value)
                elif isinstance(s, cst.If):
                    visit(_lines(s.body))
                    if isinstance(s.orelse, cst.If):
                        visit([s.orelse])
                    elif s.orelse is not None:
                        visit(_lines(s.orelse.body))
                elif isinstance(s, cst.SimpleStatementLine):
                    for small in s.body:
                        if isinstance(small, cst.Assign):
                            for t in small.targets:
                                if isinstance(t.target, cst.Name):
                                    names.append(t.target.value)
        visit(_lines(node.body))
    counts = Counter(names)
    return None if any(c > 1 for c in counts.values()) else frozenset(counts)


def _bind_arguments(params: cst.Parameters, args: list, kwargs: dict, default):
    """The parameters' values for a call (Python's rules), or CRASH (TypeError) / UNKNOWN."""
    positional = [*params.posonly_params, *params.params]
    by_keyword = {p.name.value: p for p in (*params.params, *params.kwonly_params)}
    values: dict = {}
    for p, a in zip(positional, args):
        values[p.name.value] = a
    extra = args[len(positional):]
    if isinstance(params.star_arg, cst.Param):
        values[params.star_arg.name.value] = tuple(extra)
    elif extra:
        return CRASH
    rest: dict = {}
    for k, v in kwargs.items():
        if k in by_keyword:
            if k in values:
                return CRASH
            values[k] = v
        elif params.star_kwarg is not None:
            rest[k] = v
        else:
            return CRASH
    if params.star_kwarg is not None:
        values[params.star_kwarg.name.value] = rest
    for p in (*positional, *params.kwonly_params):
        if p.name.value not in values:
            if p.default is None:
                return CRASH
            options = default(p.default)
            if len(options) != 1:
                return UNKNOWN
            values[p.name.value] = options[0]
    return values


def _literal(node: cst.BaseExpression) -> bool:
    if isinstance(node, (cst.Integer, cst.Float, cst.SimpleString)):
        return True
    if isinstance(node, cst.Name):
        return node.value in ("None", "True", "False")
    if isinstance(node, cst.Tuple):
        return all(isinstance(e, cst.Element) and _literal(e.value) for e in node.elements)
    return False


def _unique(values: list) -> list:
    out: list = []
    for v in values:
        if not any(v is w or (_is_data(v) and _is_data(w) and type(v) is type(w) and v == w) for w in out):
            out.append(v)
    return out


def _truth(v) -> list:
    """The truth values ``v`` may have: [True], [False], both, or [CRASH]."""
    if v is CRASH:
        return [CRASH]
    if v is UNKNOWN or _has_unknown(v):
        return [True, False]
    if _is_data(v):
        return [bool(v)]
    return [True]  # functions, modules


def _not(v) -> list:
    return [t if t is CRASH else not t for t in _truth(v)]


def _compare(left, op: cst.BaseCompOp, right):
    if left is CRASH or right is CRASH:
        return CRASH
    if isinstance(op, (cst.Is, cst.IsNot)):
        if left is UNKNOWN or right is UNKNOWN:
            return UNKNOWN
        if left is None or right is None:
            same = left is None and right is None
        elif _is_data(left) or _is_data(right):
            return UNKNOWN  # identity of numbers and strings is an implementation detail
        else:
            same = _same_object(left, right)
            if same is UNKNOWN:
                return UNKNOWN
        return same if isinstance(op, cst.Is) else not same
    if not (_is_data(left) and _is_data(right)) or _has_unknown(left) or _has_unknown(right):
        return UNKNOWN
    ops = {cst.Equal: operator.eq, cst.NotEqual: operator.ne, cst.LessThan: operator.lt,
           cst.LessThanEqual: operator.le, cst.GreaterThan: operator.gt, cst.GreaterThanEqual: operator.ge,
           cst.In: lambda a, b: a in b, cst.NotIn: lambda a, b: a not in b}
    fn = ops.get(type(op))
    if fn is None:
        return UNKNOWN
    try:
        return bool(fn(left, right))
    except Exception:
        return CRASH


def _same_object(a, b):
    """Whether two function or module values are one object: True, False or UNKNOWN."""
    if a is FUNC or b is FUNC:
        return a is b  # the function being decorated is no other value yet
    if isinstance(a, Closure) and isinstance(b, Closure):
        return True if a.node is b.node and a.frame is b.frame else False if a.node is not b.node else UNKNOWN
    if isinstance(a, Lib) and isinstance(b, Lib):
        return True if a == b else UNKNOWN  # two names may reach one object
    if isinstance(a, Keep) or isinstance(b, Keep):
        return UNKNOWN
    return False  # a library object is no function of the file


def _subscript(base, index):
    if base is CRASH or index is CRASH:
        return CRASH
    if isinstance(base, (tuple, dict)) and _is_data(index) and not _has_unknown(index):
        try:
            return base[index]
        except (IndexError, KeyError, TypeError):
            return CRASH
    return UNKNOWN


def root_name(node: cst.BaseExpression) -> Optional[str]:
    """The leftmost name of ``a.b(c).d``."""
    while True:
        if isinstance(node, cst.Name):
            return node.value
        if isinstance(node, cst.Attribute):
            node = node.value
        elif isinstance(node, cst.Call):
            node = node.func
        else:
            return None


def judge(decorator: cst.BaseExpression, scope: State, star_imports: list[str]) -> list[Optional[Binding]]:
    """The bindings of the decorator's leading name on whose path s2sad cannot show that the
    decorator returns the function unchanged ([None] when the name has one meaning); [] when it
    does on every path."""
    interp = Interpreter(scope, star_imports)
    root = root_name(decorator)
    meanings = scope.get(root) if root is not None else None
    alternatives: list[Optional[Binding]] = [None]
    if meanings is not None and len(meanings) > 1:
        alternatives = list(flatten(meanings))
    bad: list[Optional[Binding]] = []
    keeps = False
    for alt in alternatives:
        interp.pinned = {root: alt} if alt is not None and root is not None else {}
        results = [r for d in interp.ev(decorator, None) for r in interp.call(d, [FUNC], {})]
        if any(r is not FUNC and r is not CRASH for r in results):
            bad.append(alt)
        keeps = keeps or FUNC in results
    if not bad and not keeps:  # it raises on every path
        return alternatives
    return bad
