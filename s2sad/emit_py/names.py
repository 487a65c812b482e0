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
        reserved = keyword.iskeyword(name) or name in ("True", "False", "None") or name in OUTPUT_NAMES
        return name + "_" if reserved else name
