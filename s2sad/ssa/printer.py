"""The textual form of the IR, used by ``s2sad ir``, golden tests and teaching.

Grammar (one op per line, regions indented)::

    module "norm.py"

    func @mag(%x: array<f64,1>, %n: i64) -> f64 @3:1 {
      %c0 = const() {value = 0} : i64 @4:5
      %acc = for(%c0, %n, %c1, %z) : f64 @5:5 {
      ^(%i: i64, %acc.1: f64):
        %t = load(%x, %i) : f64 @6:16
        yield(%t)
      }
      return(%acc)
    }

Value names come from ``name_hint``; a repeated hint gets ``.1``, ``.2``...;
a value without a hint is numbered (``%0``). Results with several types are
``%a, %b = op(...) : f64, i64``. ``@line:col`` is the op's source location.
Function attributes follow the result types:
``func @grad_f(%x: f64) -> f64 attributes {defaults = {d_return = 1.0}, primal = "f"} @3:1 {``.

Attribute values are ints, floats (``repr`` form: ``1e-08``, ``inf``, ``nan``),
``true``/``false``, strings (``"a\\"b"``, with ``\\n``, ``\\t``, ``\\xNN`` escapes),
lists ``[1, 2]`` and dicts ``{key = value}`` (keys sorted). A name that is not
made of letters, digits, ``_``, ``.`` and ``$`` (for function names and keys: not
starting with a digit) is printed quoted (``%"a b"``, ``@"3d"``).
``s2sad.ssa.parser`` reads this form back: ``print(parse(print(m))) == print(m)``.
"""

from __future__ import annotations

import numbers
import re
from typing import Any, Optional

from .ir import Block, Function, Module, Op, Value

# Names matching this print bare after ``%``/``@``/as attribute keys; others are quoted
# so that any hint a pass invents still parses back.
_BARE_NAME = re.compile(r"[A-Za-z0-9_.$]+\Z")
_BARE_KEY = re.compile(r"[A-Za-z_][A-Za-z0-9_.$]*\Z")

_ESCAPES = {"\\": "\\\\", '"': '\\"', "\n": "\\n", "\t": "\\t", "\r": "\\r"}


def format_string(text: str) -> str:
    """A double-quoted string literal; control characters are escaped so one op stays one line."""
    out = []
    for ch in text:
        if ch in _ESCAPES:
            out.append(_ESCAPES[ch])
        elif ord(ch) < 0x20 or ord(ch) == 0x7F:
            out.append(f"\\x{ord(ch):02x}")
        else:
            out.append(ch)
    return '"' + "".join(out) + '"'


def format_name(name: str, bare: "re.Pattern[str]" = _BARE_NAME) -> str:
    return name if bare.match(name) else format_string(name)


def format_attr(value: Any) -> str:
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, numbers.Integral):
        return repr(int(value))
    if isinstance(value, float):
        # float() so that NumPy scalars print as plain Python floats do.
        return repr(float(value))
    if isinstance(value, str):
        return format_string(value)
    if isinstance(value, (list, tuple)):
        return "[" + ", ".join(format_attr(v) for v in value) + "]"
    if isinstance(value, dict):
        return format_attr_dict(value)
    raise TypeError(f"attribute value of unsupported kind: {value!r}")


def format_attr_dict(attrs: dict[str, Any]) -> str:
    """``{k = v, ...}`` with keys sorted, so equal dicts print equally."""
    for k in attrs:
        if not isinstance(k, str):
            raise TypeError(f"attribute key is not a string: {k!r}")
    items = (f"{format_name(k, _BARE_KEY)} = {format_attr(attrs[k])}" for k in sorted(attrs))
    return "{" + ", ".join(items) + "}"


class _Namer:
    def __init__(self) -> None:
        self.names: dict[int, str] = {}
        self.used: set[str] = set()
        self.counter = 0
        # The smallest free suffix per hint only grows, so resuming from the last one
        # gives the same names as searching from 0, without the quadratic cost.
        self.suffix: dict[str, int] = {}

    def name(self, v: Value) -> str:
        key = id(v)
        if key not in self.names:
            if v.name_hint:
                base = v.name_hint
                n = self.suffix.get(base, 0)
                cand = f"{base}.{n}" if n else base
                while cand in self.used:
                    n += 1
                    cand = f"{base}.{n}"
                self.suffix[base] = n
            else:
                while str(self.counter) in self.used:
                    self.counter += 1
                cand = str(self.counter)
            self.used.add(cand)
            self.names[key] = cand
        return "%" + format_name(self.names[key])


Namer = _Namer


def _loc(op: Op) -> str:
    return f" @{op.loc.line}:{op.loc.col}" if op.loc is not None else ""


def _print_block(block: Block, namer: _Namer, indent: str, out: list[str], header: bool) -> None:
    if header:
        args = ", ".join(f"{namer.name(a)}: {a.type}" for a in block.args)
        out.append(f"{indent[:-2]}^({args}):")
    for op in block.ops:
        _print_op(op, namer, indent, out)


def format_op(op: Op, namer: _Namer) -> str:
    """The op's own line, without its regions: ``%r = name(%a) {attrs} : types @l:c``."""
    operands = ", ".join(namer.name(v) for v in op.operands)
    text = f"{op.name}({operands})"
    if op.attrs:
        text += " " + format_attr_dict(op.attrs)
    if op.results:
        text = ", ".join(namer.name(r) for r in op.results) + " = " + text
        text += " : " + ", ".join(str(r.type) for r in op.results)
    return text + _loc(op)


def _print_op(op: Op, namer: _Namer, indent: str, out: list[str]) -> None:
    text = format_op(op, namer)
    if not op.regions:
        out.append(indent + text)
        return
    out.append(indent + text + " {")
    for i, region in enumerate(op.regions):
        if i:
            out.append(indent + "} {")
        _print_block(region, namer, indent + "  ", out, header=True)
    out.append(indent + "}")


def print_function(fn: Function, namer: Optional[_Namer] = None) -> str:
    """The function's text; pass ``namer`` to read back the names it gave (as the verifier does)."""
    namer = namer if namer is not None else _Namer()
    params = ", ".join(f"{namer.name(p)}: {p.type}" for p in fn.params)
    results = ", ".join(str(t) for t in fn.result_types) or "()"
    attrs = f" attributes {format_attr_dict(fn.attrs)}" if fn.attrs else ""
    loc = f" @{fn.loc.line}:{fn.loc.col}" if fn.loc else ""
    # Function names start like identifiers so that ``@3`` is never mistaken for a location.
    out = [f"func @{format_name(fn.name, _BARE_KEY)}({params}) -> {results}{attrs}{loc} {{"]
    _print_block(fn.body, namer, "  ", out, header=False)
    out.append("}")
    return "\n".join(out) + "\n"


def print_module(module: Module) -> str:
    parts = [f"module {format_attr(module.source_file)}\n"]
    parts += [print_function(fn) for fn in module.functions.values()]
    return "\n".join(parts)
