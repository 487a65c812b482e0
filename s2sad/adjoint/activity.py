"""Activity analysis: which values and arrays need adjoints.

A value is *active* iff it is a float that depends on a ``--wrt`` input (it is
*varied*) and influences an output (it is *useful*): the return value or the
memory of an array parameter at exit. Inactive ops get no adjoint code at all,
which keeps index arithmetic, integer counters and dead values out of the
gradient (Hascoet & Pascual, "The Tapenade AD tool", activity analysis).

The analysis builds one data-dependence graph per function whose nodes are SSA
values and array roots (memory), then takes forward reachability from the
inputs and backward reachability from the outputs (``analysis/dataflow.reach``;
loops and branches pass values on through their slots, ``slot_edges``). A ``view`` is no node of its
own: loads, stores and calls through it act on its base's memory, so a view of
an active array is active. Control dependence carries
no derivative, so conditions do not create edges. Calls are summarised
conservatively: every float argument and argument array flows into every result
and into every array the callee writes.

MPI communication (``ssa/mpi``) moves numbers between ranks, all of which run this function:
what one rank receives another sent, from whatever buffer its branch of the code names. So
every buffer of floats a function sends flows into one node, the *network*, and the network
into every buffer it receives (a call of a function that communicates counts as both): a
received buffer is varied where anything sent is, and what is sent is useful where anything
received is. Every rank thus reaches one verdict for the whole function, which the reverse
sweep's communication needs (a rank that sends adjoints back must find one that receives them).
"""

from __future__ import annotations

from collections import defaultdict
from dataclasses import dataclass, field
from typing import Hashable

from ..ssa.callgraph import reachable
from ..ssa.ir import Block, Function, Module, Value
from ..ssa.mpi import VALUE_CALLS, communicates, mpi_reads, mpi_writes
from ..analysis.dataflow import reach, slot_edges
from ..analysis.effects import known_root, written_params
from ..ssa.array_ops import SCATTER_ADD


def _mem(root: Value) -> tuple[str, Value]:
    return ("mem", root)


def talks(module: Module, name: str) -> bool:
    """Whether the function ``name``, or one it calls, communicates over MPI."""
    return any(communicates(op.name) for callee in reachable(module, [name])
               for op in module.functions[callee].walk())


def _carries_derivative(v: Value) -> bool:
    t = v.type
    return t.is_float or (t.is_array and t.elem.is_float)


NETWORK = ("network",)  # what MPI communication carries between ranks


@dataclass
class Activity:
    varied: set[Hashable] = field(default_factory=set)
    useful: set[Hashable] = field(default_factory=set)

    def is_active(self, v: Value) -> bool:
        return v.type.is_float and v in self.varied and v in self.useful

    def is_active_memory(self, root: Value) -> bool:
        # (an array of integers or booleans carries no derivative, however it was computed:
        # np.sum(X > 0, axis=1) counts)
        key = _mem(root)
        return _carries_derivative(root) and key in self.varied and key in self.useful

    def array_active(self, arr: Value) -> bool:
        return self.is_active_memory(known_root(arr))

    @property
    def network_active(self) -> bool:
        """Whether MPI communication carries derivatives in this function (see the module
        docstring): then every op that moves floats between ranks is reversed, on every rank."""
        return NETWORK in self.varied and NETWORK in self.useful


def _edges(fn: Function, module: Module) -> dict[Hashable, set[Hashable]]:
    """dep[x] = the nodes x's value is computed from (derivative-carrying only)."""
    dep: dict[Hashable, set[Hashable]] = defaultdict(set)

    def link(dst: Value | tuple, src: Value | tuple) -> None:
        dep[dst].add(src)

    def node(v: Value) -> Hashable:
        return _mem(known_root(v)) if v.type.is_array else v

    talking: dict[str, bool] = {}  # callee -> whether it (or one it calls) communicates: asked once

    def visit(block: Block) -> None:
        for op in block.ops:
            n = op.name
            if n == "load":
                link(op.result, _mem(known_root(op.operands[0])))
            elif n == "store":
                link(_mem(known_root(op.operands[0])), op.operands[-1])
            elif n == "call":
                callee = module.functions[op.attrs["callee"]]
                srcs = [node(a) for a in op.operands if _carries_derivative(a)]
                dsts = [node(r) for r in op.results] + [
                    _mem(known_root(op.operands[i])) for i in written_params(module, callee)
                ]
                if callee.name not in talking:
                    talking[callee.name] = talks(module, callee.name)
                if talking[callee.name]:
                    dsts.append(NETWORK)
                    srcs.append(NETWORK)
                for d in dsts:
                    for s in srcs:
                        link(d, s)
            elif communicates(n):
                for v in mpi_reads(op):
                    if _carries_derivative(v):
                        link(NETWORK, _mem(known_root(v)))
                for v in mpi_writes(op):
                    if _carries_derivative(v):
                        link(_mem(known_root(v)), NETWORK)
                if n in VALUE_CALLS and _carries_derivative(op.result):  # comm.allreduce(s): a number
                    link(NETWORK, op.operands[1])
                    link(op.result, NETWORK)
            elif n in ("for", "while", "if"):
                for dst, src in slot_edges(op):
                    link(dst, src)
            elif n == "copy":
                link(_mem(op.result), _mem(known_root(op.operands[0])))
            elif n == SCATTER_ADD:  # np.add.at(a, idx, v): a's memory takes v's values
                link(_mem(known_root(op.operands[0])), node(op.operands[-1]))
            elif op.results and not op.regions and n not in ("alloc", "dim", "view"):
                # Whole-array ops link memory nodes: an ``arr.`` result is a root of its own.
                for r in op.results:
                    for a in op.operands:
                        link(node(r), node(a))
            for region in op.regions:
                visit(region)

    visit(fn.body)
    return dep


def unreached_inputs(module: Module, fn: Function, wrt: list[int]) -> list[int]:
    """The parameters at ``wrt`` that reach no output through arithmetic (only through
    comparisons, branches or integers: a bisection's bounds): their adjoints are 0."""
    act = analyze_activity(module, fn, set(wrt))
    return [i for i in wrt if (_mem(fn.params[i]) if fn.params[i].type.is_array else fn.params[i]) not in act.useful]


def analyze_activity(module: Module, fn: Function, wrt: set[int]) -> Activity:
    """Activity of every value in ``fn`` when the parameters at ``wrt`` are the inputs."""
    dep = _edges(fn, module)
    users: dict[Hashable, set[Hashable]] = defaultdict(set)
    for dst, srcs in dep.items():
        for s in srcs:
            users[s].add(dst)

    def keep(x: Hashable) -> bool:
        # Integers and booleans never carry a derivative, in a value or in memory.
        if isinstance(x, tuple):
            return x[0] != "mem" or _carries_derivative(x[1])
        return _carries_derivative(x)  # type: ignore[arg-type]

    inputs = set()
    for i in wrt:
        p = fn.params[i]
        inputs.add(_mem(p) if p.type.is_array else p)
    varied = {x for x in reach(inputs, {k: {u for u in v if keep(u)} for k, v in users.items()})}

    outputs: set[Hashable] = {_mem(p) for p in fn.params if p.type.is_array}
    ret = fn.body.terminator
    outputs |= {v for v in ret.operands if v.type.is_float}
    # A returned array: its memory is an output (J holds <d_return, f(...)>).
    outputs |= {_mem(known_root(v)) for v in ret.operands if v.type.is_array and v.type.elem.is_float}
    useful = reach(outputs, {k: {s for s in v if keep(s)} for k, v in dep.items()})
    return Activity(varied, useful)
