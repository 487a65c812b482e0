"""Which names a Python function writes into: in place (``a[i] = v``, ``a += v``, a mutating method,
``out=a``), through the names that view them (``row`` of ``for row in Z``, ``py_flow.written_names``),
and by passing them to a function of the file that writes that parameter (``scale(row, 2.0)``), to
a fixed point over the file's functions (a helper that passes its parameter on to a writer writes
it too). NumPy passes an array, or a row of one, by reference: the callee's writes reach the
caller's array."""

from __future__ import annotations

import libcst as cst

from .py_flow import walk, written_names
from .py_module import ModuleInfo

# Methods that change the array they are called on.
MUTATING_METHODS = frozenset({"sort", "fill", "resize", "put", "itemset", "partition", "setfield", "byteswap"})


def written_in(body: cst.CSTNode, info: ModuleInfo, writes: dict[str, set[str]]) -> set[str]:
    """The names ``body`` writes into, directly, through views, or through calls of the file's
    functions (``writes``: ``written_params(info)``, found once for the file)."""
    return written_names(body, _direct(body) | passed_to_writers(body, info, writes))


def passed_to_writers(body: cst.CSTNode, info: ModuleInfo, writes: dict[str, set[str]]) -> set[str]:
    """The names ``body`` passes as an argument (by position or keyword) to a parameter a function
    of the file writes (``writes``: function name -> those parameters)."""
    out: set[str] = set()
    for n in walk(body):
        callee = info.functions.get(n.func.value) if isinstance(n, cst.Call) and isinstance(n.func, cst.Name) else None
        if callee is None or not writes.get(n.func.value):
            continue
        params = [p.name.value for p in (*callee.params.posonly_params, *callee.params.params)]
        for k, a in enumerate(n.args):
            param = a.keyword.value if a.keyword is not None else params[k] if k < len(params) else None
            if isinstance(a.value, cst.Name) and param in writes[n.func.value]:
                out.add(a.value.value)
    return out


def written_params(info: ModuleInfo) -> dict[str, set[str]]:
    """Function name -> the parameters it writes into, to a fixed point over the file's calls."""
    params = {name: {p.name.value for p in (*fn.params.posonly_params, *fn.params.params, *fn.params.kwonly_params)}
              for name, fn in info.functions.items()}
    writes = {name: written_names(fn.body, _direct(fn.body)) & params[name] for name, fn in info.functions.items()}
    grown = True
    while grown:
        grown = False
        for name, fn in info.functions.items():
            more = written_names(fn.body, passed_to_writers(fn.body, info, writes)) & params[name]
            if not more <= writes[name]:
                writes[name] |= more
                grown = True
    return writes


def _direct(body: cst.CSTNode) -> set[str]:
    """Names ``body`` writes into by a mutating method or an ``out=`` argument."""
    out: set[str] = set()
    for n in walk(body):
        if isinstance(n, cst.Call):
            func = n.func
            if isinstance(func, cst.Attribute) and isinstance(func.value, cst.Name) \
                    and func.attr.value in MUTATING_METHODS:
                out.add(func.value.value)
            out |= {a.value.value for a in n.args if a.keyword is not None and a.keyword.value == "out"
                    and isinstance(a.value, cst.Name)}
    return out
