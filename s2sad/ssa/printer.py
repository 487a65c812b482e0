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
``s2sad.ssa.parser`` reads this form back: ``print(parse(print(m))) == print(m)``.
"""

from __future__ import annotations

from typing import Any

from .ir import Block, Function, Module, Op, Value


def format_attr(value: Any) -> str:
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, (int, float)):
        return repr(value)
    if isinstance(value, str):
        return '"' + value.replace("\\", "\\\\").replace('"', '\\"') + '"'
    raise TypeError(f"attribute value of unsupported kind: {value!r}")


class _Namer:
    def __init__(self) -> None:
        self.names: dict[int, str] = {}
        self.used: set[str] = set()
        self.counter = 0

    def name(self, v: Value) -> str:
        key = id(v)
        if key not in self.names:
            if v.name_hint:
                base, n = v.name_hint, 0
                cand = base
                while cand in self.used:
                    n += 1
                    cand = f"{base}.{n}"
            else:
                while str(self.counter) in self.used:
                    self.counter += 1
                cand = str(self.counter)
            self.used.add(cand)
            self.names[key] = cand
        return "%" + self.names[key]


def _loc(op: Op) -> str:
    return f" @{op.loc.line}:{op.loc.col}" if op.loc is not None else ""


def _print_block(block: Block, namer: _Namer, indent: str, out: list[str], header: bool) -> None:
    if header:
        args = ", ".join(f"{namer.name(a)}: {a.type}" for a in block.args)
        out.append(f"{indent[:-2]}^({args}):")
    for op in block.ops:
        _print_op(op, namer, indent, out)


def _print_op(op: Op, namer: _Namer, indent: str, out: list[str]) -> None:
    operands = ", ".join(namer.name(v) for v in op.operands)
    text = f"{op.name}({operands})"
    if op.attrs:
        text += " {" + ", ".join(f"{k} = {format_attr(op.attrs[k])}" for k in sorted(op.attrs)) + "}"
    if op.results:
        text = ", ".join(namer.name(r) for r in op.results) + " = " + text
        text += " : " + ", ".join(str(r.type) for r in op.results)
    text += _loc(op)
    if not op.regions:
        out.append(indent + text)
        return
    out.append(indent + text + " {")
    for i, region in enumerate(op.regions):
        if i:
            out.append(indent + "} {")
        _print_block(region, namer, indent + "  ", out, header=True)
    out.append(indent + "}")


def print_function(fn: Function) -> str:
    namer = _Namer()
    params = ", ".join(f"{namer.name(p)}: {p.type}" for p in fn.params)
    results = ", ".join(str(t) for t in fn.result_types) or "()"
    loc = f" @{fn.loc.line}:{fn.loc.col}" if fn.loc else ""
    out = [f"func @{fn.name}({params}) -> {results}{loc} {{"]
    _print_block(fn.body, namer, "  ", out, header=False)
    out.append("}")
    return "\n".join(out) + "\n"


def print_module(module: Module) -> str:
    parts = [f"module {format_attr(module.source_file)}\n"]
    parts += [print_function(fn) for fn in module.functions.values()]
    return "\n".join(parts)
