"""How a gradient is called: which parameters get shadows, which adjoints it returns, and the
names the contract gives them (``naming.py``), computed once per function and ``--wrt`` set."""

from __future__ import annotations

from dataclasses import dataclass, field

from ..analysis.effects import source_written_params
from ..ssa.ir import Function, Module
from ..ssa.types import F64, Type
from .naming import grad_name, signature_names, struct_shadow_names


def shadowed_params(module: Module, fn: Function, wrt: set[int]) -> list[int]:
    """The array parameters of ``fn`` whose gradient takes a shadow: those at ``wrt``, and those
    the source writes (an adjoint flows through them), but a C struct's integer members."""
    written = source_written_params(module, fn)  # the source's: the same at every level
    members = fn.attrs.get("c_aggregates") or {}
    return [i for i, p in enumerate(fn.params) if p.type.is_array and (i in wrt or i in written)
            and not (p.name_hint in members and p.type.elem.is_int)]  # type: ignore[attr-defined]


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
    # The seed parameters, one per result: [d_return_name] for a function that returns one value;
    # for one that returns several (a tuple), the names the tuple d_return is unpacked into.
    seed_names: list[str] = field(default_factory=list)
    # C input: struct parameter -> its shadow, the struct the adjoints of its leaves go to.
    struct_shadow_names: dict[str, str] = field(default_factory=dict)

    @property
    def packed(self) -> bool:
        """Whether the seeds come as one tuple ``d_return`` (the primal returns several values)."""
        return len(self.seed_names) > 1

    @staticmethod
    def of(module: Module, fn: Function, wrt: set[int], name: str = "") -> "GradSignature":
        shadowed = shadowed_params(module, fn, wrt)
        returned = [i for i in sorted(wrt) if fn.params[i].type.is_float]
        # A float, or an array of floats (its d_return is an array of its shape); of several
        # values, one seed each (an integer's is never read) when any of them is one of those.
        has_d_return = any(t.is_float or (t.is_array and t.elem.is_float) for t in fn.result_types)
        seeds = len(fn.result_types) if has_d_return else 0
        shadows, pointers, d_return, seed_names = signature_names(module, fn, shadowed, returned, seeds)
        structs = struct_shadow_names(fn, set(shadows) | set(pointers))
        return GradSignature(fn, wrt, shadowed, returned, has_d_return, name or grad_name(fn.name),
                             shadows, pointers, d_return, seed_names, structs)

    def seed_types(self) -> list[Type]:
        """The type of each seed parameter: the result's, a float for an integer result."""
        return [t if t.is_array or t.is_float else F64 for t in self.fn.result_types] if self.has_d_return else []
