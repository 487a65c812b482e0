"""Names the C output keeps for itself, and the C namer.

The emitters' one namer (``s2sad.emit.names.Namer``) serves C with C's
reserved set: the C99 keywords, the ``<stdbool.h>`` macros, and every library
function, macro and helper the output may call, so that no variable ever
hides a function a statement in its scope calls (a local ``exp`` would break
``exp(x)``). Parameters the user named after a C keyword get a trailing
underscore, as keyword parameters do in Python output.
"""

from __future__ import annotations

from typing import Iterable

from ..emit.names import Namer, sanitize
from ..ssa.mathfns import MATH

C_KEYWORDS = frozenset(
    """auto break case char const continue default do double else enum extern float for goto if
    inline int long register restrict return short signed sizeof static struct switch typedef union
    unsigned void volatile while _Bool _Complex _Imaginary bool true false main""".split()
)

# Library names the output uses (math.h with its float variants, stdlib.h, string.h) and helpers.
LIBRARY_NAMES = frozenset(
    """isnan INFINITY NAN labs abs malloc calloc realloc free memcpy size_t NULL
    floordiv_l mod_l mod_d pow_l min_l max_l""".split()
) | frozenset(fn.c for fn in MATH.values())  # math.h's, and the helpers for what it lacks (digamma)
RESERVED = C_KEYWORDS | LIBRARY_NAMES | frozenset(f"{n}f" for n in LIBRARY_NAMES)


def c_reserved(name: str) -> bool:
    return name in RESERVED


class CNamer(Namer):
    """The shared namer with C's reserved names; renames parameters that collide with them."""

    def __init__(self, function_names: Iterable[str] = ()):
        super().__init__(function_names, reserved=c_reserved)
        # Source-derived names that must read differently in C: the adjoint `d_a` of a scalar
        # whose shadow pointer is the parameter `d_a` is the local `d_a_local`.
        self.aliases: dict[str, str] = {}

    def prefer(self, hint: str) -> None:
        super().prefer(self.aliases.get(sanitize(hint), hint))

    def fresh(self, hint: str) -> str:
        return super().fresh(self.aliases.get(sanitize(hint), hint))
