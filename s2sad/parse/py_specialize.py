"""Helpers typed from their calls: one instance of a function of the file per signature its
callers give it.

``py_types`` types a function from its own body, which cannot tell what an unannotated parameter
is when the body uses it the same way for a number and an array (``def sigmoid(z): return 1.0 /
(1.0 + np.exp(-z))``). Its callers can: ``sigmoid(X @ w)`` passes a vector, ``sigmoid(t)`` a
number. So, interprocedurally, from the function differentiated down:

* every function is first typed from its own body, callees first (``py_types``, as before): its
  *own* signature, which tells a caller what the callee's code proves of its arguments (``x[i, j]``
  makes the caller's ``x`` a matrix) and what it only assumes;
* then each call gives its callee the types of its arguments: an array (of a rank and element
  type) for an unannotated parameter, or a number for one the callee's body would take for an
  array without proving it. A number passed to a parameter typed a number keeps the callee's kind
  (an int argument to a float parameter is converted, as before). Annotated parameters keep their
  annotation (a mismatch is the call's located error, as before);
* a function called with different types in different places becomes several instances, each
  typed with its parameters' given types (which are then facts, not guesses: no run-time check)
  and differentiated on its own. Typing a caller needs its callees' results and typing a callee
  needs its callers' arguments: the instances are typed again, from the function differentiated,
  until nothing changes. A function calling itself calls its own instance; the function
  differentiated keeps its own rules for its parameters.

Names: an instance is named like its function where the function has one; where it has several,
each is ``<name>_<suffix>``, the suffix spelling the given type of each parameter in which the
instances differ, in parameter order, joined by ``_``: ``f`` a float, ``i`` an int, ``b`` a bool,
``1d``/``2d`` an array of floats of that rank (``i1d`` of ints, ``b1d`` of bools). ``sigmoid``
called with a vector and with a number gives ``sigmoid_1d`` and ``sigmoid_f``. A name the file
already uses gets ``_`` appended until it is free. The IR function records its source function
(``specialized_from``), which the output names in a comment.
"""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass, field
from typing import Optional

import libcst as cst

from ..diagnostics import Diagnostic
from ..ssa.types import BOOL, F64, I64, ArrayType, Type
from .py_common import Locator
from .py_module import ModuleInfo
from .py_types import FunctionTypes, Signature, infer_types, signature

# Rounds of typing the instances again before giving up. A round types again only the instances
# whose callees' signatures changed; a chain of helpers settles in about as many rounds as it is deep.
MAX_ROUNDS = 200


@dataclass(frozen=True)
class Instance:
    """A function of the file with the parameter types its callers give (none: its own)."""

    source: str
    given: tuple[tuple[str, Type], ...] = ()


@dataclass
class _State:
    types: Optional[FunctionTypes] = None
    sig: Optional[Signature] = None
    targets: dict[cst.Call, Instance] = field(default_factory=dict)
    seen_sigs: Optional[dict[cst.Call, Signature]] = None  # the callee signatures it was typed with


@dataclass
class Program:
    """The instances reachable from the function differentiated, typed, by their names."""

    types: dict[str, FunctionTypes]
    sigs: dict[str, Signature]
    source_of: dict[str, str]  # instance name -> the function of the file it is an instance of
    call_sigs: dict[str, dict[cst.Call, Signature]]  # instance -> its calls -> their callee's signature
    # One of several instances of a function -> the types of the parameters in which they differ.
    given: dict[str, list[tuple[str, Type]]] = field(default_factory=dict)
    problems: list[Diagnostic] = field(default_factory=list)

    def instances_of(self, source: str) -> list[str]:
        return sorted(name for name, src in self.source_of.items() if src == source)


def specialize(root: str, info: ModuleInfo, locator: Locator, own_sigs: dict[str, Signature],
               int_results: set[str], recursive_calls: frozenset[cst.Call]) -> Program:
    """Type the instances reachable from ``root`` (``own_sigs``: each function's signature from
    its own body; ``int_results``: functions whose result a caller uses as an integer)."""
    states: dict[Instance, _State] = {}
    start = Instance(root)
    for _ in range(MAX_ROUNDS):
        changed = False
        reached: list[Instance] = [start]
        seen = {start}
        k = 0
        while k < len(reached):
            inst = reached[k]
            k += 1
            state = states.setdefault(inst, _State())
            call_sigs = {c: states[t].sig for c, t in state.targets.items()
                         if t in states and states[t].sig is not None}
            if state.seen_sigs != call_sigs:  # else typed with these callees already: nothing new
                changed |= _type_instance(inst, state, call_sigs, info, locator, own_sigs, int_results,
                                          recursive_calls)
            for t in state.targets.values():
                if t not in seen:
                    seen.add(t)
                    reached.append(t)
        if not changed:
            return _named(root, info, {i: states[i] for i in reached})
    problem = locator.diagnostic(
        info.functions[root].name, f"the types of the functions '{root}' calls do not settle: each typing of "
        "a helper from its calls changes what its callers pass it",
        hint="annotate the parameters of the helpers it calls (x: float, x: \"f64[n]\")")
    program = _named(root, info, {i: s for i, s in states.items() if s.types is not None})
    program.problems.append(problem)
    return program


def _type_instance(inst: Instance, state: _State, call_sigs: dict[cst.Call, Signature], info: ModuleInfo,
                   locator: Locator, own_sigs: dict[str, Signature], int_results: set[str],
                   recursive_calls: frozenset[cst.Call]) -> bool:
    """Types ``inst`` with its callees' signatures ``call_sigs``; whether anything changed."""
    node = info.functions[inst.source]
    types = infer_types(node, info, own_sigs, locator, inst.source in int_results, dict(inst.given),
                        call_sigs)  # type: ignore[arg-type]
    sig = signature(node, types, info)
    state.seen_sigs = call_sigs  # type: ignore[assignment]
    targets = {}
    for call, arg_types in types.call_args.items():
        callee = call.func.value  # type: ignore[attr-defined]
        if call in recursive_calls:
            continue  # mutual recursion: reported at this call
        if callee == inst.source:
            targets[call] = inst  # a function calling itself calls its own instance
        else:
            targets[call] = Instance(callee, _given(info.functions[callee], own_sigs[callee], arg_types))
    changed = state.sig != sig or state.targets != targets or (
        state.types is None or state.types.vars != types.vars)
    state.types, state.sig, state.targets = types, sig, targets
    return changed


def _given(fn: cst.FunctionDef, own: Signature, arg_types: list[Optional[Type]]) -> tuple[tuple[str, Type], ...]:
    """The parameter types a call with arguments of ``arg_types`` gives ``fn`` (whose own
    signature is ``own``): those that differ from what its body says."""
    out = []
    for i, p in enumerate(fn.params.params):
        if p.annotation is not None or i >= len(arg_types) or arg_types[i] is None:
            continue
        name, t, body = p.name.value, arg_types[i], own.param_types[i]
        if not isinstance(t, ArrayType) and not (isinstance(body, ArrayType) and name in own.assumed):
            continue  # a number for a number keeps the body's kind; one for a proven array is refused
        if t != body:
            out.append((name, t))
    return tuple(out)


def _suffix_code(t: Type) -> str:
    if isinstance(t, ArrayType):
        return {F64: "", I64: "i", BOOL: "b"}.get(t.elem, "x") + f"{t.rank}d"
    return {F64: "f", I64: "i", BOOL: "b"}.get(t, "x")  # type: ignore[call-overload]


def _named(root: str, info: ModuleInfo, states: dict[Instance, _State]) -> Program:
    """Names every instance (module docstring) and keys everything by those names."""
    by_source: dict[str, list[Instance]] = {}
    for inst in states:
        by_source.setdefault(inst.source, []).append(inst)
    taken: set[str] = set(info.functions)
    names: dict[Instance, str] = {}
    differing: dict[Instance, list[tuple[str, Type]]] = {}
    for source in sorted(by_source):
        insts = by_source[source]
        if len(insts) == 1:
            names[insts[0]] = source
            continue
        fn = info.functions[source]
        params = [p.name.value for p in fn.params.params]
        own = {inst: dict(inst.given) for inst in insts}
        typed = {inst: [own[inst].get(p, states[inst].sig.param_types[k])  # type: ignore[union-attr]
                        for k, p in enumerate(params)] for inst in insts}
        differ = [k for k in range(len(params)) if len({repr(typed[i][k]) for i in insts}) > 1]
        spelled = {}
        for inst in insts:
            differing[inst] = [(params[k], typed[inst][k]) for k in differ]
            spelled[inst] = "_".join([source] + [_suffix_code(typed[inst][k]) for k in differ])
        for inst in sorted(insts, key=lambda i: spelled[i]):
            name = spelled[inst]
            while name in taken:
                name += "_"
            taken.add(name)
            names[inst] = name
    sigs = {names[i]: dataclasses.replace(s.sig, name=names[i]) for i, s in states.items()}  # type: ignore[type-var]
    return Program(
        types={names[i]: s.types for i, s in states.items()},  # type: ignore[misc]
        sigs=sigs,
        source_of={names[i]: i.source for i in states},
        given={names[i]: g for i, g in differing.items()},
        call_sigs={names[i]: {c: sigs[names[t]] for c, t in s.targets.items() if t in names}
                   for i, s in states.items()},
    )

