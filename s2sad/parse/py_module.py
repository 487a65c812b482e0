"""Module-level facts of a Python input file: functions, imports, numeric constants.

The contract asks that only the chosen function and its callees be supported
code, while imports are understood under any alias and module-level numeric
constants are usable inside functions. So the module is scanned once, shallowly:

* the final binding of every top-level name, as Python leaves it once the module
  has run: a later ``def``, import or assignment replaces an earlier one of any
  kind; a name a compound statement or a ``global`` may bind is refused on use;
* top-level ``def``s;
* ``import``/``from ... import`` aliases, mapped to canonical dotted names
  (``np`` -> ``numpy``, ``e`` -> ``math.exp``), through which calls and
  annotations are resolved (``canonical_name``);
* names bound at top level to a numeric constant expression
  (``EPS = 1e-8``, ``TWO_PI = 2 * math.pi``), evaluated here without running
  the input: only literals, arithmetic and the library constants are followed;
* every other module-level name, so that a use of one inside a function gets
  an accurate error instead of "not defined".

Everything else at module level (classes, ``if __name__ == "__main__":``,
statements) is ignored.
"""

from __future__ import annotations

import builtins
import math
from dataclasses import dataclass, field
from typing import Optional, Union

import libcst as cst

from .py_intrinsics import CONSTANTS, INTRINSICS

Number = Union[int, float, bool]


@dataclass
class ModuleInfo:
    filename: str
    functions: dict[str, cst.FunctionDef] = field(default_factory=dict)  # in source order
    imports: dict[str, str] = field(default_factory=dict)  # local name -> canonical dotted name
    star_imports: list[str] = field(default_factory=list)  # modules of `from M import *`
    constants: dict[str, Number] = field(default_factory=dict)
    other_globals: set[str] = field(default_factory=set)  # module-level names that are not constants
    classes: set[str] = field(default_factory=set)

    def canonical_name(self, node: cst.BaseExpression, local_names: frozenset[str] = frozenset()) -> Optional[str]:
        """The canonical dotted name ``node`` refers to, or None when it is not a library name.

        A name bound in the function (``local_names``), a user function or a
        module-level variable is not a library name.
        """
        if isinstance(node, cst.Name):
            n = node.value
            if n in local_names or n in self.functions or n in self.constants or n in self.other_globals:
                return None
            if n in self.imports:
                return self.imports[n]
            for mod in self.star_imports:
                if f"{mod}.{n}" in INTRINSICS or f"{mod}.{n}" in CONSTANTS:
                    return f"{mod}.{n}"
            if hasattr(builtins, n):
                return f"builtins.{n}"
            return None
        if isinstance(node, cst.Attribute):
            base = self.canonical_name(node.value, local_names)
            return f"{base}.{node.attr.value}" if base else None
        return None


def dotted_source(node: cst.BaseExpression) -> Optional[str]:
    """``np.linalg.norm`` as written, for messages; None when not a dotted name."""
    if isinstance(node, cst.Name):
        return node.value
    if isinstance(node, cst.Attribute):
        base = dotted_source(node.value)
        return f"{base}.{node.attr.value}" if base else None
    return None


def _attribute_dotted(node: Union[cst.Attribute, cst.Name]) -> str:
    return dotted_source(node) or ""


def scan_module(module: cst.Module, filename: str) -> ModuleInfo:
    """The module's names with their final bindings, as Python leaves them once the module has run
    (functions run after that): top-level statements bind in order, a later binding replaces an
    earlier one of any kind (``def sin`` then ``from math import sin`` is math's). A name that a
    compound statement (``if``, ``for``, ``try``...) or a function's ``global`` may bind depends on
    what runs: it is only an "other" global, whose use is refused."""
    info = ModuleInfo(filename)
    for stmt in module.body:
        if isinstance(stmt, cst.FunctionDef):
            _unbind(info, stmt.name.value)
            if stmt.asynchronous is None:
                info.functions[stmt.name.value] = stmt
            else:
                info.other_globals.add(stmt.name.value)
        elif isinstance(stmt, cst.ClassDef):
            _unbind(info, stmt.name.value)
            info.other_globals.add(stmt.name.value)
            info.classes.add(stmt.name.value)
        elif isinstance(stmt, cst.SimpleStatementLine):
            for small in stmt.body:
                _scan_small(small, info)
    for name in _conditional_bindings(module):
        _unbind(info, name)
        info.other_globals.add(name)
    return info


def _unbind(info: ModuleInfo, name: str) -> None:
    """Forget what ``name`` meant: a new top-level binding replaces it."""
    info.functions.pop(name, None)
    info.imports.pop(name, None)
    info.constants.pop(name, None)
    info.other_globals.discard(name)
    info.classes.discard(name)


def _conditional_bindings(module: cst.Module) -> list[str]:
    """Module-level names bound where whether (or how often) it runs is not known here: inside a
    compound statement at top level, or through ``global`` in a function."""
    names: list[str] = []
    for stmt in module.body:
        if isinstance(stmt, (cst.FunctionDef, cst.ClassDef)):
            for node in _walk(stmt):
                if isinstance(node, cst.Global):
                    names += [n.name.value for n in node.names]
        elif not isinstance(stmt, cst.SimpleStatementLine):
            names += _stores(stmt)
    return names


def _walk(node: cst.CSTNode):
    yield node
    for child in node.children:
        yield from _walk(child)


def _stores(stmt: cst.CSTNode) -> list[str]:
    """Names a top-level compound statement may bind in the module's namespace (not inside the
    functions or classes it defines, which are their own scopes)."""
    out: list[str] = []

    def visit(node: cst.CSTNode) -> None:
        if isinstance(node, (cst.FunctionDef, cst.ClassDef)):
            out.append(node.name.value)
            return
        if isinstance(node, cst.Lambda):
            return
        if isinstance(node, (cst.Assign, cst.AugAssign, cst.AnnAssign)):
            targets = ([t.target for t in node.targets] if isinstance(node, cst.Assign) else [node.target])
            for t in targets:
                out.extend(_bound_names(t))
        elif isinstance(node, (cst.For, cst.CompFor)):
            out.extend(_bound_names(node.target))
        elif isinstance(node, cst.AsName) and isinstance(node.name, (cst.Name, cst.Tuple, cst.List)):
            out.extend(_bound_names(node.name))
        elif isinstance(node, cst.NamedExpr):
            out.extend(_bound_names(node.target))
        elif isinstance(node, cst.Import):
            out.extend(a.asname.name.value if a.asname is not None and isinstance(a.asname.name, cst.Name)
                       else _attribute_dotted(a.name).split(".")[0] for a in node.names)
        elif isinstance(node, cst.ImportFrom) and not isinstance(node.names, cst.ImportStar):
            out.extend(a.asname.name.value if a.asname is not None and isinstance(a.asname.name, cst.Name)
                       else _attribute_dotted(a.name) for a in node.names)
        elif isinstance(node, cst.Del):
            out.extend(_bound_names(node.target))
        for child in node.children:
            visit(child)

    visit(stmt)
    return out


def _scan_small(small: cst.BaseSmallStatement, info: ModuleInfo) -> None:
    if isinstance(small, cst.Import):
        for alias in small.names:
            dotted = _attribute_dotted(alias.name)
            if alias.asname is not None and isinstance(alias.asname.name, cst.Name):
                _unbind(info, alias.asname.name.value)
                info.imports[alias.asname.name.value] = dotted
            else:
                top = dotted.split(".")[0]
                _unbind(info, top)
                info.imports[top] = top
    elif isinstance(small, cst.ImportFrom):
        if small.relative or small.module is None:
            return
        mod = _attribute_dotted(small.module)
        if isinstance(small.names, cst.ImportStar):
            info.star_imports.append(mod)
            return
        for alias in small.names:
            name = _attribute_dotted(alias.name)
            local = name
            if alias.asname is not None and isinstance(alias.asname.name, cst.Name):
                local = alias.asname.name.value
            _unbind(info, local)
            info.imports[local] = f"{mod}.{name}"
    elif isinstance(small, (cst.Assign, cst.AnnAssign)):
        targets = [t.target for t in small.targets] if isinstance(small, cst.Assign) else [small.target]
        value = small.value
        if isinstance(small, cst.AnnAssign) and value is None:
            return  # `K: float` binds nothing
        # The value is computed before any target is bound (`K = K * 2` reads the old K).
        const = evaluate_constant(value, info) if value is not None else None
        for target in targets:
            if not isinstance(target, cst.Name):
                for name in _bound_names(target):
                    _unbind(info, name)
                    info.other_globals.add(name)
                continue
            name = target.value
            _unbind(info, name)
            if const is not None:
                info.constants[name] = const
            else:
                info.other_globals.add(name)
    elif isinstance(small, (cst.AugAssign, cst.Del)):
        for name in _bound_names(small.target):
            _unbind(info, name)
            info.other_globals.add(name)


def _bound_names(target: cst.BaseExpression) -> list[str]:
    if isinstance(target, cst.Name):
        return [target.value]
    if isinstance(target, (cst.Tuple, cst.List)):
        return [n for el in target.elements for n in _bound_names(el.value)]
    return []


_BINARY = {
    cst.Add: lambda a, b: a + b, cst.Subtract: lambda a, b: a - b, cst.Multiply: lambda a, b: a * b,
    cst.Divide: lambda a, b: a / b, cst.FloorDivide: lambda a, b: a // b,
    cst.Modulo: lambda a, b: a % b, cst.Power: lambda a, b: a**b,
}

# Library functions a constant may call (evaluated with Python's math module).
_CONST_CALLS = {
    "math.sqrt": math.sqrt, "math.exp": math.exp, "math.log": math.log, "math.sin": math.sin,
    "math.cos": math.cos, "math.tan": math.tan, "math.atan": math.atan, "math.log10": math.log10,
    "math.log2": math.log2, "numpy.sqrt": math.sqrt, "numpy.exp": math.exp, "numpy.log": math.log,
    "builtins.float": float, "builtins.int": int, "builtins.abs": abs,
}


def evaluate_constant(node: Optional[cst.BaseExpression], info: ModuleInfo) -> Optional[Number]:
    """The value of a numeric constant expression, or None when it is not one."""
    try:
        value = _eval(node, info)
    except (ArithmeticError, ValueError, TypeError):
        return None
    if isinstance(value, complex):
        return None
    return value


def _eval(node: Optional[cst.BaseExpression], info: ModuleInfo) -> Optional[Number]:
    if isinstance(node, (cst.Integer, cst.Float)):
        return node.evaluated_value
    if isinstance(node, cst.Name):
        if node.value in ("True", "False"):
            return node.value == "True"
        if node.value in info.constants:
            return info.constants[node.value]
        return None
    if isinstance(node, cst.Attribute):
        canonical = info.canonical_name(node)
        return CONSTANTS.get(canonical) if canonical else None
    if isinstance(node, cst.UnaryOperation):
        x = _eval(node.expression, info)
        if x is None:
            return None
        if isinstance(node.operator, cst.Minus):
            return -x
        if isinstance(node.operator, cst.Plus):
            return +x
        return None
    if isinstance(node, cst.BinaryOperation):
        fn = _BINARY.get(type(node.operator))
        a, b = _eval(node.left, info), _eval(node.right, info)
        if fn is None or a is None or b is None:
            return None
        return fn(a, b)
    if isinstance(node, cst.Call):
        fn = _CONST_CALLS.get(info.canonical_name(node.func) or "")
        if fn is None or any(a.keyword is not None or a.star for a in node.args):
            return None
        args = [_eval(a.value, info) for a in node.args]
        if any(a is None for a in args) or not args:
            return None
        return fn(*args)
    return None
