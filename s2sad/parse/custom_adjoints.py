"""Custom adjoints: what a ``--derivatives`` file declares (``derivatives.py`` reads it), and
whether a call fits one.

A custom adjoint of ``f`` is a function named ``grad_f`` with the signature the contract gives
``f``'s gradient when every floating-point parameter of ``f`` is differentiated: each argument,
each floating-point array followed by its shadow (``d_x``, accumulated: ``f`` only reads its
arrays), then ``d_return``, the adjoint of ``f``'s result. Python returns the adjoints of the
floating-point scalar arguments (one value, a tuple for several, None for none); C adds each
through a ``double *`` that follows the argument. So a gradient s2sad wrote for ``f`` elsewhere
is a custom adjoint as it stands. The front ends check each call's arguments against the
adjoint's parameters (``expected_python``, ``expected_c``).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Optional, Sequence

from ..ssa.ir import SourceLoc

PREFIX = "grad_"


@dataclass(frozen=True)
class CustomAdjoint:
    """``grad_<primal>`` as one ``--derivatives`` file defines it."""

    primal: str  # the function it is the adjoint of, as calls name it
    path: str  # the file, as the command line gave it
    loc: SourceLoc  # its definition
    params: tuple[str, ...]  # Python: the parameter names; C: each parameter as declared
    c_pointer: tuple[bool, ...] = ()  # C: whether each parameter is a pointer
    prototype: str = ""  # C: the declaration the output prints
    module: str = ""  # Python: the module the output imports it from
    defines_primal: bool = False  # Python: the file defines the primal too (imported from it)

    @property
    def name(self) -> str:
        return PREFIX + self.primal


@dataclass(frozen=True)
class Derivatives:
    """The custom adjoints of every ``--derivatives`` file, by the primal's name."""

    adjoints: tuple[CustomAdjoint, ...] = ()

    def of(self, primal: str) -> Optional[CustomAdjoint]:
        return next((a for a in self.adjoints if a.primal == primal), None)

    @property
    def paths(self) -> list[str]:
        return list(dict.fromkeys(a.path for a in self.adjoints))

    def files(self, c: bool) -> list[str]:
        """The C files (those the gradient is linked with), or the Python ones (those generated
        Python imports)."""
        return list(dict.fromkeys(a.path for a in self.adjoints if bool(a.prototype) == c))  # C's have one

    def __bool__(self) -> bool:
        return bool(self.adjoints)


NONE = Derivatives()


def argument_kind(array: bool, floating: bool) -> str:
    """An argument's kind as a custom adjoint's signature sees it: "float" and "array" have
    adjoints (returned; a shadow), "int" and "int array" none."""
    return ("array" if floating else "int array") if array else ("float" if floating else "int")


def expected_python(adjoint: CustomAdjoint, kinds: Sequence[str], result: bool) -> Optional[str]:
    """Why ``adjoint`` cannot be called for arguments of ``kinds`` ("float", "int", "array",
    "int array"), or None: the parameters it must have, in order."""
    want = _expected(kinds, result)
    if len(adjoint.params) == len(want):
        return None
    returned = [f"d_{n}" for n, k in zip(_arg_names(kinds), kinds) if k == "float"]
    gives = ("returns " + (returned[0] if len(returned) == 1 else "(" + ", ".join(returned) + ")")
             if returned else "returns None")
    return (f"'{adjoint.name}' takes {len(adjoint.params)} parameter(s), and this call needs "
            f"{len(want)}: def {adjoint.name}({', '.join(want)}), which {gives}")


def expected_c(adjoint: CustomAdjoint, params: Sequence[tuple[str, str, str]], result: str) -> Optional[str]:
    """Why ``adjoint`` does not fit the primal's ``params`` (name, spelled C type, kind: "float",
    "int", "array", "int array") and floating-point ``result`` (its C type; "" for none), or None."""
    want: list[tuple[str, bool]] = []  # (text, pointer)
    generic = _arg_names([k for _, _, k in params])
    for (name, spelled, kind), other in zip(params, generic):
        name = name or other
        want.append((_declarator(spelled, name), kind in ("array", "int array")))
        if kind == "array":
            want.append((_declarator(spelled.replace("const ", ""), f"d_{name}"), True))
        elif kind == "float":
            want.append((_declarator(f"{spelled} *", f"d_{name}"), True))
    if result:
        want.append((f"{result} d_return", False))
    if len(want) == len(adjoint.params) and all(p == w for (_, w), p in zip(want, adjoint.c_pointer)):
        return None
    return (f"'{adjoint.name}' does not take what the gradient passes: "
            f"void {adjoint.name}({', '.join(t for t, _ in want) or 'void'})")


def _declarator(spelled: str, name: str) -> str:
    """``double x``, ``const double *x``: a C type as declared, then the name."""
    return f"{spelled}{'' if spelled.endswith('*') else ' '}{name}"


def _expected(kinds: Sequence[str], result: bool) -> list[str]:
    names = _arg_names(kinds)
    out: list[str] = []
    for n, k in zip(names, kinds):
        out.append(n)
        if k == "array":
            out.append(f"d_{n}")
    return out + (["d_return"] if result else [])


def _arg_names(kinds: Sequence[str]) -> list[str]:
    return ["x"] if len(kinds) == 1 else [f"x{k + 1}" for k in range(len(kinds))]


def replaced(functions: list[str], root: str, derivatives: Derivatives) -> list[str]:
    """The functions of the input that a custom adjoint replaces: called as the primal calls
    them, never read or differentiated, as if defined in another file (the function being
    differentiated is never one of them)."""
    return [name for name in functions if name != root and derivatives.of(name) is not None]
