"""A workspace for the tapes of C output (``--workspace``): memory a gradient keeps across calls.

Each call of a C gradient allocates its tapes afresh, and the first touch of every page of fresh
memory is a page fault: on a gradient called many times with large tapes, faulting them in costs
more than the arithmetic (issue 19). With ``--workspace`` the entry is printed as

    void grad_f_ws(grad_f_workspace *ws, <the parameters of grad_f>)

whose tapes are slots of ``*ws``: a slot grows (``realloc``) when a call needs more than it holds
and is kept, not freed, at the end of the call, so the next call with the same workspace faults
nothing in. A slot is not zero-filled as a fresh tape's ``calloc`` is: every pop reads what its push
wrote in the same call (a tape that grows relies on it already: what ``realloc`` adds is not zeroed).

``grad_f`` keeps its signature and makes a workspace for its one call. The caller makes one
with ``grad_f_workspace_new()`` and frees it, with what it holds, with ``grad_f_workspace_free``:
the type's layout stays the file's own.

Its tapes are the stacks (``tape.new``) and the indexed caches (``alloc`` with ``cache``: a
value per iteration, read back by index) that the entry makes. Only the entry's own tapes that
are freed where they are made live in the workspace: a helper's
gradient keeps its own (it may run on several OpenMP threads at once), and so does a tape that
leaves its block. A gradient that calls itself is refused: its nested calls would share the
slots.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from ..diagnostics import error
from ..emit.expr import Call, Expr, Lit, Name
from ..ssa.callgraph import callees, reachable
from ..ssa.ir import Function, Module


@dataclass
class Workspace:
    """The slots of the entry ``c_name``'s workspace, one per tape variable, and the name of the
    parameter that points to it."""

    c_name: str
    param: str
    slots: dict[str, int] = field(default_factory=dict)

    @classmethod
    def of(cls, module: Module, fn: Function, c_name: str, param: str) -> Workspace:
        if fn.name in reachable(module, callees(fn)):
            raise error(f"--workspace: '{c_name}' calls itself, and its nested calls would share the "
                        "workspace's tapes", fn.loc, hint="drop --workspace")
        return cls(c_name, param)

    @property
    def type_name(self) -> str:
        return f"{self.c_name}_workspace"

    def keep(self, var: str) -> None:
        """``var``'s tapes live in a slot of the workspace."""
        self.slots.setdefault(var, len(self.slots))

    def room(self, var: str, nbytes: Expr) -> Expr:
        """``realloc``'s memory for ``var``: its slot, with room for ``nbytes``, what it held kept."""
        return Call(Name("ws_room"), (Name(self.param), Lit(str(self.slots[var])), nbytes))

    def declarations(self) -> list[str]:
        """The workspace's type, the function that hands out its slots, and the two that make an
        empty workspace and free one with what it holds (its caller needs no more than their
        prototypes and ``typedef struct grad_f_workspace grad_f_workspace;``)."""
        t, count = self.type_name, max(len(self.slots), 1)
        room = [
            "/* Slot k of the workspace with room for n bytes, what it held kept (a realloc when it is short). */",
            f"static void *ws_room({t} *ws, int k, size_t n) {{",
            "    if (ws->bytes[k] < n) {",
            "        ws->buf[k] = realloc(ws->buf[k], n);",
            "        ws->bytes[k] = n;",
            "    }",
            "    return ws->buf[k];",
            "}",
            "",
        ] if self.slots else []  # (none used: every tape lives in a loop's body)
        return [
            f"/* The tapes {self.c_name}_ws keeps from one call to the next: slot k holds bytes[k] bytes. */",
            f"typedef struct {t} {{",
            f"    void *buf[{count}];",
            f"    size_t bytes[{count}];",
            f"}} {t};",
            "",
            *room,
            f"/* An empty workspace for {self.c_name}_ws, to pass to every call; free it with {t}_free. */",
            f"{t} *{t}_new(void) {{",
            f"    return calloc(1, sizeof({t}));",
            "}",
            "",
            "/* Frees the workspace and the tapes it holds. */",
            f"void {t}_free({t} *ws) {{",
            "    if (ws == NULL) {",
            "        return;",
            "    }",
            f"    for (int k = 0; k < {count}; k++) {{",
            "        free(ws->buf[k]);",
            "    }",
            "    free(ws);",
            "}",
        ]

    def wrapper(self, ret: str, head: list[str], args: list[str]) -> list[str]:
        """``grad_f`` itself (``head``: its signature's lines), on a workspace of its own."""
        t = self.type_name
        ws, value = (_unlike(name, args) for name in ("ws", "value"))
        call = f"{self.c_name}_ws({ws}{''.join(', ' + a for a in args)})"
        body = [f"    {t} *{ws} = {t}_new();"]
        if ret == "void":
            body += [f"    {call};", f"    {t}_free({ws});"]
        else:
            body += [f"    {ret} {value} = {call};", f"    {t}_free({ws});", f"    return {value};"]
        about = f"// The gradient of {self.c_name.removeprefix('grad_')}, as {self.c_name}_ws computes it, on a " \
            "workspace for this call alone."
        return [about] + head + body + ["}"]


def _unlike(name: str, taken: list[str]) -> str:
    """``name``, with underscores after it until no parameter has it."""
    while name in taken:
        name += "_"
    return name
