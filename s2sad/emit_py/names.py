"""Names the Python output keeps for itself, and the Python namer.

The emitters' one namer (``s2sad.emit.names.Namer``) serves Python with Python's
reserved set: the keywords, ``True``/``False``/``None``, the modules and builtins the
output refers to (``math``, ``np``, ``numba``, ``range``, ``len``, ...) and the
single letters pycodestyle calls ambiguous. A parameter named after a keyword, module
or builtin gets a trailing underscore (``in_``), as the contract spells it; one named
``l`` keeps its name (it is the user's; only the names s2sad makes avoid it).
"""

from __future__ import annotations

import keyword
from typing import Iterable

from ..emit.names import Namer
from ..ssa.ir import Module

# Names the emitted code refers to: modules, and the builtins it calls.
OUTPUT_NAMES = frozenset(
    {"math", "np", "numba", "range", "abs", "min", "max", "float", "int", "bool", "len", "hasattr"}
)

# Single-letter names pycodestyle (ruff E741) rejects as ambiguous.
AMBIGUOUS = frozenset({"l", "O", "I"})


def is_reserved(name: str) -> bool:
    return keyword.iskeyword(name) or name in OUTPUT_NAMES or name in AMBIGUOUS or name in ("True", "False", "None")


class PyNamer(Namer):
    """The shared namer with Python's reserved names."""

    def __init__(self, function_names: Iterable[str] = ()):
        super().__init__(function_names, reserved=is_reserved)

    def fixed_name(self, name: str) -> str:
        # A parameter named like a module or builtin the output uses (`math`, `np`, `len`) would
        # hide it from the body: it gets the keyword's trailing underscore too.
        # A C name may hold a `$` (gcc takes it in identifiers), which no Python name can.
        name = python_identifier(name)
        reserved = keyword.iskeyword(name) or name in ("True", "False", "None") or name in OUTPUT_NAMES
        return name + "_" if reserved else name


def python_identifier(name: str) -> str:
    """``name`` as a Python identifier: a character Python refuses in names (C's ``$``) becomes ``_``."""
    if name.isidentifier():
        return name
    return "".join(c if ("a" + c).isidentifier() else "_" for c in name)


def python_function_names(module: Module, entry: str) -> str:
    """Renames the functions of ``module`` that Python cannot spell (a C function ``f$``: gcc
    takes ``$`` in identifiers) to a free Python name (``f_``), in the module and at every call;
    returns ``entry``'s name after the renaming."""
    taken = set(module.functions)
    renamed: dict[str, str] = {}
    for name in module.functions:
        if not name.isidentifier():
            new = python_identifier(name)
            while new in taken:
                new += "_"
            taken.add(new)
            renamed[name] = new
    if not renamed:
        return entry
    functions = dict(module.functions)
    module.functions.clear()
    for name, fn in functions.items():
        fn.name = renamed.get(name, name)
        module.functions[fn.name] = fn
        for op in fn.walk():
            if op.attrs.get("callee") in renamed:
                op.attrs["callee"] = renamed[op.attrs["callee"]]
    return renamed.get(entry, entry)
