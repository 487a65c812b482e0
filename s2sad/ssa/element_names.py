"""The name hint of one array element's value: ``out_i`` for ``out[i]``, ``ps_i_mass`` for
``ps[i].mass``. Both the adjoint (an element's adjoint read into a local) and the optimizer (a
sum kept in a local, opt/local_sums) name elements so; the names are hints only, the emitters'
``Namer`` makes them unique."""

from __future__ import annotations

import re
from typing import Optional

from .ir import Value


def element_hint(shadow: Value, index: list[Value]) -> str:
    """``d_out_i`` for the adjoint of ``out[i]``, ``d_ps_i_mass`` for that of ``ps[i].mass``;
    ``d_out_elem`` when an index has no name."""
    if not shadow.name_hint:
        return ""
    words = [_index_words(i) for i in index]
    if index and all(words):
        return "_".join([shadow.name_hint, *words])  # type: ignore[list-item]
    return f"{shadow.name_hint}_elem"


def _index_words(index: Value) -> Optional[str]:
    """An index in words: a constant's value (not a name CSE gave it: a ``0`` merged with a
    loop's start is no ``i``), else its name; for a struct member's slot (a ``field`` op, C
    input), the struct's index (none for the one struct a pointer points at), the member and the
    member's own indices (``i_pos_1`` for ``[i].pos[1]``, ``rest`` for ``->rest``)."""
    op = index.defining_op
    if op is not None and op.name == "const":
        value = op.attrs.get("value")
        return str(value) if type(value) is int and value >= 0 else None
    if index.name_hint:
        return index.name_hint
    if op is None or op.name != "field" or not op.attrs.get("path"):
        return None
    inner = [_index_words(v) for v in op.operands]
    words = [] if inner[0] == "0" else inner[:1]
    slots = iter(inner[1:])
    for part in re.findall(r"\w+|\[\]", op.attrs["path"]):
        words.append(next(slots, None) if part == "[]" else part)
    if any(w is None for w in words):
        return None
    return "_".join(words)  # type: ignore[arg-type]
