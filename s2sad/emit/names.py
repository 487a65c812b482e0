"""The one namer of the emitters: deterministic, collision-free identifiers.

Every identifier an emitter writes that is not a function name comes from a
``Namer``: the variables out-of-SSA assigns (named after the IR's
``name_hint``), tape tops, and the temporaries that line breaking introduces.

Approach: a name is *claimed* once per function; a wanted base that is taken
gets the smallest free numeric suffix (``s``, ``s2``, ``s3``; ``x1_v2`` after a
base that ends in a digit, ``x_v2`` after one that ends in ``_``: never ``_<digits>``,
which Numba keeps for its own versions of a variable, a rule every output follows
so that all of them name alike). Names the output itself uses (the output
language's keywords, its library and helper names, the module's function names) are
reserved up front (``reserved``: each emitter passes its language's,
``emit_py.names`` and ``emit_c.names``), and so are all source names of the function,
so a suffixed or temporary name never steals a user's name that is claimed later.
Nothing here iterates over a set, so the same IR always gives the same names.
"""

from __future__ import annotations

import functools
import re
from typing import Callable, Iterable

_NOT_IDENT = re.compile(r"[^0-9A-Za-z_]")


@functools.lru_cache(maxsize=1 << 16)  # asked of the same few hints again and again (each value's)
def sanitize(hint: str) -> str:
    """``hint`` as an identifier of every output language (empty when nothing usable is left)."""
    name = _NOT_IDENT.sub("_", hint.strip())
    if name.strip("_") == "":
        return ""  # "_" and friends say "unnamed"; the emitter decides
    if name[0].isdigit():
        name = "v" + name
    return name


class Namer:
    """Hands out identifiers for one function; all checks are by membership only.

    ``reserved`` says which names the output language keeps for itself (Python's keywords,
    builtins and modules; C's keywords and library names).
    """

    def __init__(self, function_names: Iterable[str], reserved: Callable[[str], bool]):
        # The module's names, shared by every function's namer (a frozenset is kept, not copied:
        # a file of a thousand functions would copy a thousand names per function).
        self._shared = function_names if isinstance(function_names, frozenset) else frozenset(function_names)
        self._taken: set[str] = set()
        self._params: set[str] = set()
        self._preferred: set[str] = set()  # source names: kept for their owners
        self._temp_counter = 0
        self._reserved = reserved
        # Per base, the suffix to try first: every one below it was taken when last asked, and
        # taken names stay taken (a long function's thousand `a`s counted up from 2 each time).
        self._next_suffix: dict[str, int] = {}

    def prefer(self, hint: str) -> None:
        """Keep ``hint``'s identifier for the value that carries it (no suffixed name takes it)."""
        name = sanitize(hint)
        if name:
            self._preferred.add(name)

    def claim_fixed(self, name: str) -> str:
        """Claim a parameter's name; returns the name to use for it (a keyword of the output
        language gets a trailing underscore: C's ``in`` is Python's ``in_``, as the contract says)."""
        name = self.fixed_name(name)
        while name in self._params:  # never two parameters of one name (the signature's names
            name += "_"  # are chosen apart in adjoint/naming.py: this is a last guard)
        self._params.add(name)
        self._taken.add(name)
        return name

    def fixed_name(self, name: str) -> str:
        """A parameter's name as the output spells it: a reserved name gets trailing underscores."""
        while self._reserved(name):
            name = name + "_"
        return name

    def is_free(self, name: str) -> bool:
        return name not in self._taken and name not in self._shared and not self._reserved(name)

    def fresh(self, hint: str) -> str:
        """A new identifier close to ``hint`` (``t<k>`` when the hint is unusable)."""
        base = sanitize(hint)
        if not base:
            return self.temp()
        if self._reserved(base):
            base = base + "_"  # `in` -> `in_`, as the contract spells keyword parameters
        if self.is_free(base):
            self._taken.add(base)
            return base
        # The number goes right after a letter (`s2`). After a digit or an underscore it takes a
        # `v` (`s0_v2`, `x_v2`): a name that ends in `_<digits>` is how Numba's parfor lowering
        # spells its own SSA version `s0.2` of a variable `s0`, and a variable of that name
        # beside a prange loop that reads `s0` stops Numba ("key already in dictionary").
        if base[-1].isalpha():
            sep = ""
        else:
            sep = "v" if base[-1] == "_" else "_v"
        k = self._next_suffix.get(base, 2)
        while True:
            cand = f"{base}{sep}{k}"
            if self.is_free(cand) and cand not in self._preferred:
                self._taken.add(cand)
                self._next_suffix[base] = k + 1
                return cand
            k += 1

    def temp(self) -> str:
        """A temporary: ``t0``, ``t1``, ... (skipping any name in use or wanted)."""
        while True:
            cand = f"t{self._temp_counter}"
            self._temp_counter += 1
            if self.is_free(cand) and cand not in self._preferred:
                self._taken.add(cand)
                return cand
