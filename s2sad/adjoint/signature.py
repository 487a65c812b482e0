"""How a gradient is called: which parameters get shadows, which adjoints it returns, and the
names the contract gives them (``naming.py``), computed once per function and ``--wrt`` set."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Iterable

from ..analysis.effects import source_written_params
from ..ssa.ir import Function, Module
from .naming import grad_name, signature_names


@dataclass
class GradSignature:
    """How ``grad_<fn>`` is called: which params have shadows, which adjoints return."""

    fn: Function
    wrt: set[int]
    shadowed: list[int]  # array params followed by a shadow
    returned: list[int]  # float scalar params whose adjoints are returned
    has_d_return: bool
    # The generated names (naming.py): never a user name of the output.
    name: str = ""  # of the gradient function
    shadow_names: dict[int, str] = field(default_factory=dict)  # shadowed param -> its shadow
    pointer_names: dict[int, str] = field(default_factory=dict)  # returned param -> C's d_x pointer
    d_return_name: str = ""

    @staticmethod
    def of(module: Module, fn: Function, wrt: set[int], name: str = "") -> "GradSignature":
        written = source_written_params(module, fn)  # the source's: the same at every level
        shadowed = [i for i, p in enumerate(fn.params) if p.type.is_array and (i in wrt or i in written)]
        returned = [i for i in sorted(wrt) if fn.params[i].type.is_float]
        result = fn.result_types[0] if fn.result_types else None
        # A float, or an array of floats (its d_return is an array of its shape).
        has_d_return = result is not None and (result.is_float or (result.is_array and result.elem.is_float))
        shadows, pointers, d_return = signature_names(module, fn, shadowed, returned, has_d_return)
        return GradSignature(fn, wrt, shadowed, returned, has_d_return, name or grad_name(fn.name),
                             shadows, pointers, d_return)


def c_gradient_params(fn: Function, shadowed: Iterable[int], has_d_return: bool) -> list[str]:
    """The declared C types of the gradient's parameters: the primal's, a shadow's without
    ``const`` (it is written), and ``d_return`` of the primal's result type."""
    spelled = fn.attrs["c_params"]
    out: list[str] = []
    for i in range(len(fn.params)):
        out.append(spelled[i])
        if i in shadowed:
            out.append(" ".join(w for w in spelled[i].split() if w != "const"))
    if has_d_return:
        out.append(fn.attrs["c_result"])
    return out
