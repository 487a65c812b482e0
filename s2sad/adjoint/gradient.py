"""Differentiate a function and its callees: plan, check, transform, assemble.

Each user function reached through an active call gets its own ``grad_<callee>``,
differentiated with respect to the union of the arguments that are active at
any of its call sites (so one helper serves every call). The output module
holds, callees first: the primal functions the forward sweeps still call, the
callees' gradients, and ``grad_<func>``.
"""

from __future__ import annotations

from ..diagnostics import Diagnostic, DiagnosticError
from typing import Optional

from ..ssa.callgraph import callees, callers_first, reachable
from ..ssa.ir import Function, Module
from .activity import Activity, analyze_activity
from ..ssa.attrs import Schedule
from .report import MemoryReport
from .naming import gradient_names
from .naming import grad_name
from .reverse import GradientTransform
from .signature import GradSignature, shadowed_params


class _Activities:
    """The activity of each function for the parameters it is differentiated with respect to,
    found once: the plan of which callees to differentiate and their transforms read the same."""

    def __init__(self, module: Module):
        self.module = module
        self._found: dict[tuple[str, frozenset[int]], Activity] = {}

    def of(self, fn: Function, wrt: set[int]) -> Activity:
        # Every shadowed array is an input too: its shadow holds an adjoint on entry.
        inputs = frozenset(wrt) | frozenset(shadowed_params(self.module, fn, wrt))
        if (fn.name, inputs) not in self._found:
            self._found[(fn.name, inputs)] = analyze_activity(self.module, fn, set(inputs))
        return self._found[(fn.name, inputs)]


def _active_call_args(fn: Function, act: Activity) -> dict[str, set[int]]:
    found: dict[str, set[int]] = {}
    for op in fn.walk():
        if op.name != "call":
            continue
        active = {i for i, a in enumerate(op.operands) if act.is_active(a) or (a.type.is_array and act.array_active(a))}
        if active or any(act.is_active(r) or (r.type.is_array and act.array_active(r)) for r in op.results):
            found.setdefault(op.attrs["callee"], set()).update(active)
    return found


def _extra_recursive_wrt(module: Module, root: Function, extra: set[int], problems: list[Diagnostic]) -> None:
    """The root's recursive calls pass active values where its --wrt list has none: its gradient,
    which they call, would need adjoint parameters the user did not ask for."""
    names = [root.params[i].name_hint for i in sorted(extra)]
    call = next(op for op in root.walk() if op.name == "call" and op.attrs["callee"] == root.name)
    problems.append(
        Diagnostic(
            f"recursive call to '{root.name}' passes a value that depends on --wrt as parameter(s) "
            + ", ".join(f"'{n}'" for n in names)
            + ", which are not in --wrt",
            call.loc,
            hint=f"add {', '.join(names)} to --wrt (grad_{root.name} calls itself with the same signature)",
        )
    )


def _check_root_name(module: Module, root: Function) -> None:
    """The contract names the gradient ``grad_<func>``: a user function of that name that the
    output would need as well leaves no name for one of them."""
    taken = module.functions.get(grad_name(root.name))
    if taken is not None:
        raise DiagnosticError([Diagnostic(
            f"'{root.name}' calls a function named '{taken.name}', the name its gradient must have",
            taken.loc,
            hint=f"rename {taken.name} (the gradient of {root.name} is always grad_{root.name})",
        )], module.source_lines)


def differentiate(
    module: Module,
    func: str,
    wrt: set[int],
    may_alias: bool = False,
    checkpoint: Optional[Schedule] = None,
    reports: Optional[list[MemoryReport]] = None,
    with_value: bool = False,
) -> Module:
    """The output module for ``grad_<func>`` with respect to the parameters at ``wrt``;
    ``with_value``: it gives back ``func``'s value too (``--with-value``)."""
    root = module.functions[func]
    _check_root_name(module, root)
    if with_value:
        _check_with_value(module, root)
    order = callers_first(module, root.name)
    wrts: dict[str, set[int]] = {func: set(wrt)}
    problems: list[Diagnostic] = []
    activities = _Activities(module)
    for fn in order:
        if fn.name not in wrts:
            continue
        own = set(wrts[fn.name])
        while True:  # a recursive function's own calls may make more of its parameters active
            for callee, active in _active_call_args(fn, activities.of(fn, wrts[fn.name])).items():
                wrts.setdefault(callee, set()).update(active)
            if wrts[fn.name] == own:
                break
            own = set(wrts[fn.name])
        if fn is root and wrts[func] != wrt:
            _extra_recursive_wrt(module, root, wrts[func] - wrt, problems)
    if problems:
        raise DiagnosticError(problems, module.source_lines)

    # The root is among them: a recursive function's gradient calls itself.
    names = gradient_names(module, func)
    signatures = {name: GradSignature.of(module, module.functions[name], w, names[name]) for name, w in wrts.items()}
    made = [
        _minimal_caching(module, fn, activities.of(fn, wrts[fn.name]), signatures, may_alias, checkpoint,
                         with_value and fn is root)
        for fn in order
        if fn.name in wrts
    ]
    grads = {t.fn.name: grad for t, grad in made}
    if reports is not None:  # what each gradient caches (s2sad grad --report)
        reports += [t.memory for t, _ in made]
    out = Module(source_file=module.source_file, source_lines=module.source_lines, primals=module)
    # Helpers the transforms added to the module (checkpoint.split_helper), then the primal
    # functions: callees first, since C needs definitions before use.
    ordered = {fn.name for fn in order}
    added = [fn for fn in module.functions.values() if fn.name not in ordered]
    called = _called_from(grads.values(), module)
    for fn in added + list(reversed(order)):
        if fn.name in called:
            out.add(fn)
    for fn in reversed(order):
        if fn.name in grads:
            out.add(grads[fn.name])
    return out


def _minimal_caching(module: Module, fn: Function, act: Activity, signatures, may_alias: bool,
                     checkpoint: Optional[Schedule], with_value: bool = False) -> tuple[GradientTransform, Function]:
    """The gradient of ``fn``, caching a minimum cut of what its loop bodies need, and the
    transform that made it (its memory report).

    What the reverse sweep asks of each loop body is known only once its derivative rules
    have run: a first transform records it (``requests``), and a second cuts. Where the first
    taped nothing, everything asked for was at hand or recomputed from what is: no value of a
    loop body is a source to cut, the cut is empty, and the second would make the same
    gradient; the first's is kept (a function without loops, whose values are never taped, most
    helpers).
    """
    first = GradientTransform(module, fn, act, signatures, may_alias, checkpoint, None, with_value)
    grad = first.run()
    if first.tapes.count == 0 or first.values.taped_as_cut():
        return first, grad
    second = GradientTransform(module, fn, act, signatures, may_alias, checkpoint, first.values.requests, with_value)
    return second, second.run()


def _check_with_value(module: Module, root: Function) -> None:
    """``--with-value`` needs a value to give back, and a gradient no other gradient calls (a
    recursive function's calls itself, and takes its adjoints alone)."""
    if not root.result_types:
        raise DiagnosticError([Diagnostic(f"--with-value: '{root.name}' returns no value", root.loc,
                                          hint="drop --with-value")], module.source_lines)
    if root.name in callees(root):
        raise DiagnosticError([Diagnostic(f"--with-value: '{root.name}' calls itself, and its gradient, which calls "
                                          "itself too, gives back the adjoints alone", root.loc,
                                          hint="drop --with-value, and compute the value with a call of "
                                          f"{root.name}")], module.source_lines)


def _called_from(grads, module: Module) -> set[str]:
    """The primal functions some forward sweep still calls (or a primal it keeps calls)."""
    return reachable(module, set().union(*(callees(g) for g in grads)))
