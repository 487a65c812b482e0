"""Where C code reports and stops: calls that print, and calls that end the program.

Numerical C checks its inputs and its allocations and gives up loudly: ``if (n < 1) { fprintf(
stderr, "bad n\\n"); exit(1); }``, ``if (!w) nrerror("allocation failure");`` with Numerical
Recipes' ``nrerror`` printing its message and calling ``exit(1)``, ``abort()``. None of it is part
of the value differentiated, but where the primal stops the gradient must stop too: a gradient at
inputs where the function has no value would be a wrong one. So:

* a call of ``exit``, ``_Exit``, ``quick_exit`` or ``abort``, or of a function of the file that
  always stops (*stopping*: its body is reports, then a stop; ``nrerror``), is a ``stop`` op: the
  C gradient calls ``exit`` (the same status) or ``abort`` there, a Python one raises
  ``RuntimeError``. A stopping function is never lowered itself (its message is a string);
* a call statement that only reports (``printf``, ``fprintf``, ``puts``, ``perror``...), and
  ``assert``, are left out, as the Python front end leaves out ``print`` and ``assert``: what they
  show is no part of the value (their arguments must not change anything).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Optional

from pycparser import c_ast

STOP_CALLS = frozenset({"exit", "_Exit", "quick_exit", "abort"})
REPORT_CALLS = frozenset({"printf", "fprintf", "puts", "putchar", "fputs", "fputc", "putc", "perror", "fflush"})
# assert(c) stops the program where c is false, but as compiled with NDEBUG it is nothing, and the
# Python front end leaves Python's assert out alike: left out.
LEFT_OUT = REPORT_CALLS | {"assert"}


@dataclass(frozen=True)
class Stopping:
    """How a stopping function of the file stops: the library call, and exit's status (a
    constant; 1 where the function's own is not one)."""

    call: str
    status: Optional[int]


def _call_name(st: c_ast.Node) -> Optional[str]:
    if isinstance(st, c_ast.FuncCall) and isinstance(st.name, c_ast.ID):
        return st.name.name
    return None


def stopping_functions(functions: dict[str, c_ast.FuncDef]) -> dict[str, Stopping]:
    """The functions of the file that always stop the program (see the module docstring)."""
    found: dict[str, Stopping] = {}
    changed = True
    while changed:
        changed = False
        for name, fn in functions.items():
            if name in found:
                continue
            items = list(fn.body.block_items or [])
            if not items or any(_call_name(st) not in REPORT_CALLS for st in items[:-1]):
                continue
            last = items[-1]
            called = _call_name(last)
            if called in STOP_CALLS:
                found[name] = Stopping(called, _status(last) if called != "abort" else None)
                changed = True
            elif called in found:
                found[name] = found[called]
                changed = True
    return found


def _status(call: c_ast.FuncCall) -> int:
    """exit's status where it is an integer literal (or EXIT_SUCCESS/EXIT_FAILURE); else 1."""
    args = call.args.exprs if call.args is not None else []
    arg = args[0] if len(args) == 1 else None
    if isinstance(arg, c_ast.Constant) and arg.type == "int":
        try:
            return int(arg.value.rstrip("uUlL"), 0)
        except ValueError:
            return 1
    if isinstance(arg, c_ast.ID) and arg.name in ("EXIT_SUCCESS", "EXIT_FAILURE"):
        return 0 if arg.name == "EXIT_SUCCESS" else 1
    return 1
