"""Lowering of Python statements and functions to structured SSA IR.

SSA construction follows the structure of the source: an environment maps each
variable to its current value; an ``if`` lowers both branches with copies of it
and yields, as results, every variable whose value differs between them; a
loop carries, as block arguments, the variables its body assigns that are
defined before the loop or read anywhere in the function (the only ones whose
value can be observed across iterations or after the loop; a variable first
defined inside the loop gets an ``undef`` initial value). Dead slots are swept
by DCE afterwards, so this choice can be generous without showing in the output.

Jumps are lowered into structured form (the IR has none), with flags that are
ordinary environment entries, hence carried and merged like variables:

* ``return`` stores the value in a ``result`` entry and sets ``returned``; the
  function's one ``return`` op returns ``result``;
* ``break`` sets the loop's ``done`` flag; ``continue`` sets the iteration's
  ``skip`` flag (reset at the top of each iteration);
* after a statement that may have exited (an ``if`` or loop containing a jump),
  the rest of the block is guarded by ``if not (flag or ...)``. When one branch
  of an ``if`` always exits and the other does not, the rest of the block is
  lowered into the branch that falls through instead: no flag test at all for
  the common ``if c: continue`` / ``if c: return x`` / ``if c: break`` shapes;
* a ``for`` whose body may ``break`` or ``return`` becomes a ``while`` over its
  index (``i < ub and not done and not returned``; ``i > ub`` for negative
  steps); other ``for`` loops stay ``for`` loops; a ``while`` tests its flags
  before its condition, so the condition is never evaluated after a jump.

Arrays are references: a local bound to an array is an alias of the same value
and is never carried or merged; an array variable whose referent would depend
on control flow is poisoned and reported when read.
"""

from __future__ import annotations

from collections import ChainMap
from dataclasses import dataclass
from typing import Callable, Optional, Sequence, Union

import libcst as cst

from ..diagnostics import Diagnostic
from ..ssa import build
from ..ssa.ir import Block, Builder, Function, SourceLoc, Value
from ..ssa.ops import view_base
from ..ssa.attrs import mark_whole_reduced
from ..ssa.types import BOOL, I64, ArrayType, Type
from . import py_arrays, py_comprehension, py_extents, py_linalg, py_lists
from . import py_intrinsics as lib
from .py_common import RESULT, RETURNED, Env, Fail, Poison, length_key
from .py_expr import AUG_OPS, ExprLowerer, FunctionContext
from .py_helper_shapes import REQUIRED_EXTENTS
from .py_lists import created_list
from .py_iter import Counter, Iter, IterError, Iteration, RangeIter, leaves, range_bounds, read_iter
from .py_flow import (
    BREAK,
    CONTINUE,
    RETURN,
    assigned_names,
    block_exits,
    else_statements,
    is_simple,
    is_true_constant,
    read_names,
    stmt_assigned,
    stmt_exits,
    subscript_chain,
    binds_here,
    suite_statements,
    walk,
)
from .py_module import dotted_source
from .py_params import parameters
from .py_types import appended_list
from .py_writers import written_in
from .structured import Exits, LoopFrame, StructuredLowering

# Compound statements are reported at their keyword, not over all their lines.
_KEYWORDS: dict[type, str] = {
    cst.Try: "try", cst.TryStar: "try", cst.With: "with", cst.FunctionDef: "def", cst.ClassDef: "class",
    cst.Match: "match", cst.Else: "else",
}

_UNSUPPORTED_STATEMENTS: dict[type, tuple[str, str]] = {
    cst.Try: ("try statements are not supported", "check conditions with if instead"),
    cst.TryStar: ("try statements are not supported", "check conditions with if instead"),
    cst.With: ("with statements are not supported", "move the code out of the with block"),
    cst.FunctionDef: ("a local function defined here (under an if, a loop, a with) is not supported",
                      "define it at the top level of the function's body, or of the file"),
    cst.ClassDef: ("class definitions inside functions are not supported", "use scalars and NumPy arrays"),
    cst.Global: ("'global' declarations are not supported", "pass the value as a parameter"),
    cst.Nonlocal: ("'nonlocal' declarations are not supported", "pass the value as a parameter"),
    cst.Import: ("imports inside functions are not supported", "import at the top of the file"),
    cst.ImportFrom: ("imports inside functions are not supported", "import at the top of the file"),
    cst.Del: ("del is not supported", "simply stop using the variable"),
    cst.Match: ("match statements are not supported", "use if/elif/else"),
}


# Python's exceptions a gradient raises by name where the primal raises them (others: RuntimeError).
_BUILTIN_EXCEPTIONS = frozenset({
    "Exception", "ArithmeticError", "AssertionError", "FloatingPointError", "IndexError", "KeyError",
    "LookupError", "NotImplementedError", "OverflowError", "RuntimeError", "TypeError", "ValueError",
    "ZeroDivisionError"})


def lib_pure(canonical: Optional[str]) -> bool:
    """Whether a call of the library function ``canonical`` has no effect but its value (the
    math and NumPy functions s2sad knows, and NumPy's others but its random generators, whose
    state a call moves, as long as no ``out=`` is given; a user function or a method may write an
    array)."""
    return canonical is not None and (lib.lookup(canonical) is not None or canonical in _PURE_BUILTINS or (
        canonical.startswith(("numpy.", "math.")) and not canonical.startswith("numpy.random.")))


_PURE_BUILTINS = frozenset({"builtins.len", "builtins.str", "builtins.repr", "builtins.format", "builtins.sum",
                            "builtins.max", "builtins.min", "builtins.abs", "builtins.round", "builtins.float",
                            "builtins.int"})


class FunctionLowerer(StructuredLowering):
    def __init__(self, fn: cst.FunctionDef, ctx: FunctionContext):
        super().__init__()
        self.fn = fn
        self.ctx = ctx
        self.types = ctx.types
        self.locator = ctx.locator
        self.ex = ExprLowerer(ctx)
        self.ex.require_extent = self.require_extent  # what a helper called assumes of its arguments
        self.ex.require_same = self.require_same
        self.read = read_names(fn.body)
        self.written_in_place = written_in(fn.body, ctx.info, self.ex.params_written())
        # Names passed whole to functions of the file, which may write into them.
        self.passed_names = {a.value.value for n in walk(fn.body) if isinstance(n, cst.Call)
                             and isinstance(n.func, cst.Name) and n.func.value in ctx.info.functions
                             for a in n.args if isinstance(a.value, cst.Name)}
        # Arrays rebound in the loops being lowered: the array each such name keeps naming, which a
        # rebinding fills (``rebound_arrays``).
        self.storage: dict[str, Value] = {}
        self.entry_values: dict[str, set[int]] = {}  # per such name, the values there before its loop
        # Extents of parameters assumed equal where a rebinding needs them so (``same_extent``):
        # the gradient checks them on entry (attrs "same_extents").
        self.same_extents: list[dict] = []
        # What this function, a helper, assumes of its parameters' extents: its callers show it
        # (py_helper_shapes.Required, as tuples in the attribute REQUIRED_EXTENTS).
        self.required: list[tuple] = []
        self.params: frozenset[Value] = frozenset()
        self.param_values: list[Value] = []
        # What the function returns: one key per returned value (several for ``return s, t``).
        types = ctx.types
        self.result_types: list[Type] = (list(types.tuple_result) if types.tuple_result is not None
                                         else [types.result] if types.result is not None else [])
        self.result_keys = [RESULT] if types.tuple_result is None else [f"<result{k}>" for k in
                                                                          range(len(self.result_types))]
        for k, (key, t) in enumerate(zip(self.result_keys, self.result_types)):
            self.key_types[key] = t
            self.hints[key] = "result" if key == RESULT else f"result{k}"
        # Lists (py_lists): where each is appended to, and each one's length, a variable of its own.
        self.depth = 0  # the loops and branches around the statement being lowered
        self.merged: set[Value] = set()  # the arrays made for names bound in each branch of an if
        self.returned_at: dict[tuple[str, Value], cst.CSTNode] = {}  # (result key, array) -> what returns it
        self.list_plans = py_lists.append_plans(fn.body, types.lists, lambda n: self.swapped_arrays(n) is not None)
        self.list_appends: dict[str, set[cst.Call]] = {}
        for name in types.lists:
            self.key_types[length_key(name)] = I64
            self.hints[length_key(name)] = f"{name}_len"

    def key_type(self, key: str) -> Type:
        return self.key_types.get(key) or self.types.vars[key]

    # -- the function ---------------------------------------------------------------------
    def marked(self, made: Function) -> Function:
        """``made`` with the numbers its source reduced as a whole marked (ssa.attrs.WHOLE_REDUCED)."""
        for v in self.ex.whole_reduced:
            mark_whole_reduced(made, v)
        return made

    def lower(self) -> Function:
        fn = self.fn
        self.check_parameters()
        names = [p.name.value for p in parameters(fn)]
        bound = frozenset(self.types.vars)  # the parameters and locals (Function.source_names)
        body = Block(list(self.types.params), names)
        for i, name in enumerate(names):  # ``a: "f64[n, 1]"``: the adjoint of what stretches a sums over it
            units = frozenset(k for k, extent in enumerate(self.types.shapes.get(name) or ()) if extent.strip() == "1")
            if units:
                body.arg_unit_axes[i] = units
        loc = self.locator.loc(fn, fn.name)
        b = Builder(body, loc)
        env: Env = dict(zip(names, body.args))
        self.params = frozenset(body.args)
        self.param_values = list(body.args)
        returns_array = any(isinstance(t, ArrayType) for t in self.result_types)
        for key, t in zip(self.result_keys, self.result_types):
            if not isinstance(t, ArrayType):
                env[key] = b.op1("undef", [], t, self.hint(key))
        env[RETURNED] = build.const(b, False, BOOL, "returned")
        stmts = suite_statements(fn.body)
        # An array is returned by the function's last statement only (return_stmt): never carried
        # out of a branch or a loop, where which array it is would depend on control flow.
        self.final_return = stmts[-1] if stmts and isinstance(stmts[-1], cst.Return) else None
        self.block(stmts, b, env, None)
        if returns_array:
            if not block_exits(stmts).always:
                self.diagnostics.append(Diagnostic(
                    f"function '{fn.name.value}' can reach its end without returning a value", loc,
                    hint="return an array on every path (Python would return None)"))
            results = self.returned(env, b)
            # the gradient's errors about it point here (a return elsewhere was reported: the function)
            b.loc = self.locator.loc(self.final_return) if self.final_return is not None else loc
            b.create("return", results, [])
            attrs = self.function_attrs()
            return self.marked(Function(fn.name.value, body, self.result_types, loc, attrs, source_names=bound))
        b.loc = loc
        attrs = self.function_attrs()
        if not self.result_types:
            b.create("return", [], [])
            return self.marked(Function(fn.name.value, body, [], loc, attrs, source_names=bound))
        if not block_exits(stmts).always:
            self.diagnostics.append(Diagnostic(
                f"function '{fn.name.value}' can reach its end without returning a value", loc,
                hint="return a number on every path (Python would return None)"))
        b.create("return", self.returned(env, b), [])
        return self.marked(Function(fn.name.value, body, self.result_types, loc, attrs, source_names=bound))

    def returned(self, env: Env, b: Builder) -> list[Value]:
        """The values the function's ``return`` op returns (a placeholder where a return was reported)."""
        out = []
        for key, t in zip(self.result_keys, self.result_types):
            v = env.get(key)
            out.append(v if isinstance(v, Value) else b.op1("undef", [], t, self.hint(key)))
        return out

    def function_attrs(self) -> dict:
        """What the signature's annotations and the assumptions about parameter kinds say: the
        shapes annotated, the kinds assumed (the pipeline checks them at the gradient's entry, or
        refuses them for C), and those of them no generated Python depends on."""
        attrs: dict = {"shapes": dict(self.types.shapes)} if self.types.shapes else {}
        if self.types.assumed:
            attrs["assumed"] = dict(self.types.assumed)
        if self.types.rank_free:
            attrs["rank_free"] = [n for n in self.types.assumed if n in self.types.rank_free]
        # Never shape-generic (FunctionTypes.reduced_numbers, FunctionTypes.read_by_item)
        never = self.types.reduced_numbers | self.types.read_by_item
        if never:
            attrs["not_shape_generic"] = [n for n in self.types.assumed if n in never]
        if self.same_extents:
            attrs["same_extents"] = self.same_extents
        if self.required:
            attrs[REQUIRED_EXTENTS] = list(dict.fromkeys(self.required))
        # How the function is called: its parameters' default values (numbers: what the call
        # sites of a helper fill in, and what the gradient of the function differentiated keeps)
        # and its keyword-only parameters.
        sig = self.ctx.sigs.get(self.fn.name.value)
        if sig is not None:
            defaults = {n: d for n, d in zip(sig.param_names, sig.defaults) if d is not None}
            if defaults:
                attrs["param_defaults"] = defaults
            if sig.positional is not None:
                attrs["keyword_only"] = sig.param_names[sig.positional:]
        return attrs

    def check_parameters(self) -> None:
        p = self.fn.params
        odd: list[tuple[cst.CSTNode, str]] = []
        if isinstance(p.star_arg, cst.Param):
            odd.append((p.star_arg, "*args parameters are not supported"))
        if p.star_kwarg is not None:
            odd.append((p.star_kwarg, "**kwargs parameters are not supported"))
        for q in p.posonly_params:
            odd.append((q, "positional-only parameters are not supported"))
        for node, msg in odd:
            self.diagnostics.append(self.locator.diagnostic(node, msg, hint="use plain positional parameters"))
        if self.fn.asynchronous is not None:
            self.diagnostics.append(self.locator.diagnostic(self.fn, "async functions are not supported"))

    def nested(self, lower: Callable[[], None]) -> None:
        """Lower a loop body or a branch (where rebinding an array would make which array a name
        names depend on control flow: ``swap``)."""
        self.depth += 1
        try:
            lower()
        finally:
            self.depth -= 1

    def branch(self, b: Builder, env: Env, cond: Value, then: Callable[[Builder, Env], None],
               other: Optional[Callable[[Builder, Env], None]]) -> None:
        self.depth += 1
        try:
            super().branch(b, env, cond, then, other)
        finally:
            self.depth -= 1

    def merge_arrays(self, names: list[str], b: Builder, sides: list[tuple[Builder, Env]]
                     ) -> dict[str, Union[Value, Poison, None]]:
        """An array name bound to another array in each branch of an if (``if kind == "elu":
        return np.where(...)`` ... ``else: return np.tanh(z)``; ``y = ...`` in each branch): one
        array, allocated before the if with the extents each branch's array evidently has, that
        each branch fills with its own (``py_arrays.copy_into``). Nothing tells that from naming
        each branch's array where each is an array no other name goes on naming or viewing (not a
        view itself). A branch that has returned binds only the result: no later code reads the
        other names there, so where one branch goes on, a name is what it binds there (an array made
        before the if, or one made in the branch, which is filled into one made before). A branch's
        array that is itself such a merged one, made in that branch, becomes this one (a chain of
        elifs fills one array). Where the result cannot be one array, a located error here."""
        out: dict[str, Union[Value, Poison, None]] = {}
        skip = object()  # a name no later code reads in this branch (it has returned)
        groups: dict[tuple, list[str]] = {}
        branches = [bb.block for bb, _ in sides]
        for n in names:
            if n in self.types.lists:
                continue
            values = [skip if self.dead(n, e) else e.get(n) for _, e in sides]
            going_on = [v for v in values if v is not skip]
            if not going_on:
                continue
            first = going_on[0]
            if all(v is first for v in going_on) and not (
                    isinstance(first, Value) and py_extents.made_in(first, branches)):
                out[n] = first  # type: ignore[assignment]
                continue
            groups.setdefault(tuple(id(v) for v in values), []).append(n)
        for group in groups.values():
            merged = self.merged_array(group, b, sides)
            if isinstance(merged, Value):
                out.update(dict.fromkeys(group, merged))
                continue
            why, hint, culprit = merged
            for n in group:
                if n.startswith(RESULT[:-1]):  # read by no statement, where a poison would be reported
                    node = self.returned_at.get((n, culprit)) if culprit is not None else None
                    self.diagnostics.append(Diagnostic(f"the array this function returns depends on the branch "
                                                       f"taken, and {why}",
                                                       self.locator.loc(node) if node is not None else b.loc,
                                                       hint=hint))
                    out[n] = Poison()
                else:
                    out[n] = Poison(f"'{self.hint(n)}' refers to a different array depending on the branch taken, "
                                    f"and {why}", hint)
        return out

    @staticmethod
    def dead(name: str, env: Env) -> bool:
        """Whether no code after the if reads ``name`` where the branch of ``env`` runs: it has
        returned, and ``name`` is not the result."""
        return build.const_value(env.get(RETURNED)) is True and not name.startswith(RESULT[:-1])  # type: ignore

    def merged_array(self, group: list[str], b: Builder, sides: list[tuple[Builder, Env]]
                     ) -> Union[Value, tuple[str, str, Optional[Value]]]:
        """The one array ``group`` (names bound alike in each branch) names after the if, filled in
        each branch (``merge_arrays``); else why not, a hint, and the branch's array at fault."""
        name = group[0]
        t = self.result_types[self.result_keys.index(name)] if name in self.result_keys else self.types.vars.get(name)
        filled = []
        for bb, e in sides:
            v = e.get(name)
            if v is None or self.dead(name, e):
                continue
            if not (isinstance(v, Value) and isinstance(v.type, ArrayType) and isinstance(t, ArrayType)
                    and v.type.rank == t.rank):
                return "a branch's value is not an array of its rank", "make it one kind of value on every path", None
            shared = [k for k, w in e.items() if w is v and k not in group and not self.dead(k, e)
                      and not k.startswith("<")]
            viewers = [k for k, w in e.items() if isinstance(w, Value) and py_arrays.viewed(w) is v]
            # An array the names had before the if is filled into the new one: the same, unless it is
            # a parameter's, which the caller sees written into through them after (in place, or in a
            # helper of the file).
            written = sorted(n for n in group if n in self.written_in_place or n in self.passed_names) \
                if v.is_block_arg else []
            why = ("a branch's array is a view of another (a slice, a transpose, a reshape)" if py_arrays.is_view(v)
                   else f"a branch's array is the parameter '{v.name_hint}' itself"
                   if v.is_block_arg and name.startswith(RESULT[:-1]) else
                   f"a branch's array is also named '{shared[0]}'" if shared else
                   f"a branch's array is viewed by '{viewers[0]}'" if viewers else
                   f"a branch keeps the parameter's array '{written[0]}' had before the if, which this function "
                   "writes into" if written else None)
            if why is not None:
                return (why, "make a new array in that branch (np.array(x) copies one), or assign the array once, "
                        "before the if", v)
            filled.append((bb, v))
        assert isinstance(t, ArrayType)
        branches = [bb.block for bb, _ in sides]
        keys = [py_extents.made_before(self.ex, [v for _, v in filled], axis, branches) for axis in range(t.rank)]
        if None in keys:
            return ("the branches' arrays do not evidently have one shape, made before the if",
                    "make them alike (np.zeros_like(x), elementwise arithmetic of one array), or assign the array "
                    "once, before the if", None)
        # One made for an if before, which the names had there: filled again (nothing else reads it).
        out = next((v for _, v in filled if v in self.merged and not py_extents.made_in(v, branches)), None)
        if out is None:
            dims = [py_extents.make(b, key) for key in keys]
            out = b.op1("alloc", dims, t, self.hint(name) if not self.hint(name).startswith("<") else "",
                        fill="empty", elem=t.elem.name)
        for bb, v in filled:
            if v is out:
                continue
            inner = v.defining_op
            if inner is not None and inner.name == "alloc" and v in self.merged and inner.parent is bb.block:
                v.replace_all_uses_with(out)  # an inner if's merged array, made in this branch: this one
                inner.erase()
                continue
            py_arrays.copy_into(bb, out, v)
        self.merged.add(out)
        return out

    # -- statement lists (the walk itself is StructuredLowering.block) --------------------
    def if_exits(self, st: cst.CSTNode) -> Optional[tuple[Exits, Exits]]:
        if not isinstance(st, cst.If):
            return None
        return block_exits(suite_statements(st.body)), block_exits(else_statements(st.orelse))

    @staticmethod
    def stmt_exits(st: cst.CSTNode) -> Exits:
        return stmt_exits(st)

    def stmt_loc(self, st: cst.CSTNode) -> SourceLoc:
        return self.locator.loc(st)

    def attempt(self, st: cst.CSTNode, env: Env, lower: Callable[[], None]) -> bool:
        """Lower one statement; on failure report it and poison what it would have assigned."""
        try:
            lower()
            return True
        except Fail as f:
            self.report(f)
            for name in stmt_assigned(st):
                env[name] = Poison()
            return False

    # -- statements ---------------------------------------------------------------------------
    def stmt(self, st: cst.CSTNode, b: Builder, env: Env, loop: Optional[LoopFrame]) -> None:
        b.loc = self.locator.loc(st)
        chosen = self.array_chosen(st)
        if chosen is not None:
            self.if_stmt(chosen, b, env, loop, [], into_then=False)
        elif isinstance(st, cst.Assign):
            self.assign(st, b, env)
        elif isinstance(st, cst.AugAssign):
            self.aug_assign(st, b, env)
        elif isinstance(st, cst.AnnAssign):
            if created_list(st, self.types.lists) is not None:
                self.create_list(st, b, env)
            elif st.value is not None:
                v = self.ex.value(st.value, b, env)
                self.store_to(st.target, v, b, env, st.value)
        elif isinstance(st, cst.Expr):
            self.expr_stmt(st, b, env)
        elif isinstance(st, cst.Return):
            self.return_stmt(st, b, env, loop is not None)
        elif isinstance(st, cst.Break):
            if loop is None:
                raise self.locator.fail(st, "'break' outside a loop")
            env[loop.done] = build.const(b, True, BOOL, "done")
        elif isinstance(st, cst.Continue):
            if loop is None:
                raise self.locator.fail(st, "'continue' outside a loop")
            env[loop.skip] = build.const(b, True, BOOL, "skip")
        elif isinstance(st, cst.If):
            self.if_stmt(st, b, env, loop, [], into_then=False)
        elif isinstance(st, (cst.For, cst.While)):
            outer, entry = dict(self.storage), dict(self.entry_values)
            try:
                self.for_stmt(st, b, env) if isinstance(st, cst.For) else self.while_stmt(st, b, env)
            finally:
                self.storage, self.entry_values = outer, entry
        elif isinstance(st, cst.Raise):
            self.raise_stmt(st, b)
        elif isinstance(st, (cst.Pass, cst.Assert)):
            pass  # asserts are checks, not computation: dropped as under `python -O`
        else:
            message, hint = _UNSUPPORTED_STATEMENTS.get(type(st), ("this statement is not supported", ""))
            raise self.fail_at_keyword(st, message, hint)

    def fail_at_keyword(self, st: cst.CSTNode, message: str, hint: str = "") -> Fail:
        keyword = _KEYWORDS.get(type(st))
        if isinstance(st, cst.FunctionDef) and st.asynchronous is not None:
            keyword = "async def"
        loc = self.locator.keyword(st, keyword) if keyword else self.locator.loc(st)
        return Fail(Diagnostic(message, loc, hint))

    def expr_stmt(self, st: cst.Expr, b: Builder, env: Env) -> None:
        v = st.value
        if isinstance(v, (cst.SimpleString, cst.ConcatenatedString, cst.Ellipsis)):
            return  # docstrings and other bare strings are comments
        if isinstance(v, cst.Call) and appended_list(v) in self.types.lists:
            self.append(v, appended_list(v), b, env)  # type: ignore[arg-type]
        elif isinstance(v, cst.Call) and appended_list(v) in self.types.vars:
            raise self.locator.fail(v, f"cannot append to '{appended_list(v)}': only to a list this function "
                                    "creates", hint="create the list here (v = []), or write into an array "
                                    "parameter with room for the items")
        elif isinstance(v, cst.Call) and self.only_reports(v):
            return  # print(...), logging: what they show is no part of the value differentiated
        elif isinstance(v, cst.Call):
            self.ex.call(v, b, env, want_value=False)
        else:
            self.ex.value(v, b, env)

    def only_reports(self, call: cst.Call) -> bool:
        """A call statement that only reports (``print(...)``, ``logging.info(...)``,
        ``logger.debug(...)`` of a module-level ``logger = logging.getLogger(...)``): the
        gradient leaves it out, as it leaves out ``assert`` (its arguments are not evaluated,
        so they need not be code s2sad differentiates)."""
        for n in walk(call):  # an argument that changes something must still run: lowered as a call
            if isinstance(n, cst.NamedExpr) or (n is not call and isinstance(n, cst.Call) and not (
                    lib_pure(self.ctx.info.canonical_name(n.func, self.ctx.locals))
                    and all(a.keyword is None or a.keyword.value != "out" for a in n.args))):
                return False
        canonical = self.ctx.info.canonical_name(call.func, self.ctx.locals)
        if canonical == "builtins.print" or (canonical or "").startswith("logging."):
            return True
        func = call.func
        return (isinstance(func, cst.Attribute) and isinstance(func.value, cst.Name)
                and func.value.value in self.ctx.info.loggers and func.value.value not in self.ctx.locals)

    def raise_stmt(self, st: cst.Raise, b: Builder) -> None:
        """``raise ValueError("n must be positive")``: where the primal raises, the gradient stops
        too (a ``stop`` op): Python output raises the same built-in exception (another class, the
        file's own or a library's, as RuntimeError) with the message where it is a literal, else the
        statement's text; C output exits with status 1. Its arguments are not computed: they only
        make the message."""
        exc = st.exc
        if exc is None:
            raise self.fail_at_keyword(st, "a bare 'raise' re-raises the exception being handled, and s2sad "
                                       "reads no try/except", "raise an exception of its own: raise ValueError(...)")
        call = exc if isinstance(exc, cst.Call) else None
        cls = call.func if call is not None else exc
        name = cls.value if isinstance(cls, cst.Name) and cls.value in _BUILTIN_EXCEPTIONS \
            and self.ctx.info.canonical_name(cls, self.ctx.locals) == f"builtins.{cls.value}" else "RuntimeError"
        first = call.args[0].value if call is not None and call.args and not call.args[0].keyword else None
        literal = first.evaluated_value if isinstance(first, cst.SimpleString) else None
        self.ex.raising(b, st, name, "raise " + cst.Module([]).code_for_node(exc),
                        literal if isinstance(literal, str) else None)

    def return_stmt(self, st: cst.Return, b: Builder, env: Env, in_loop: bool) -> None:
        if st.value is None:
            if self.result_types:
                raise self.locator.fail(st, "'return' without a value in a function that returns a value",
                                        hint="return a number on every path")
        else:
            # An array returned from a branch is one array the branches fill (merge_arrays); from a
            # loop, which array it is would depend on the iteration.
            if any(isinstance(t, ArrayType) for t in self.result_types) and in_loop:
                raise self.locator.fail(st, "a function that returns an array cannot return it from inside a "
                                        "loop", hint="break out of the loop, and return the array after it")
            values = self.return_values(st.value, b, env)
            if len(values) != len(self.result_types):
                raise Fail(None)  # another number of values than elsewhere: reported with the types
            several = len(values) > 1
            for key, t, (v, node) in zip(self.result_keys, self.result_types, values):
                if isinstance(t, ArrayType):
                    if not isinstance(v.type, ArrayType):
                        message = ("this value is a number, but the function returns an array in its place "
                                   "elsewhere" if several else "this function returns an array, but this value "
                                   "is a number")
                        raise self.locator.fail(node, message, hint="return an array on every path")
                    env[key] = v
                    self.returned_at[(key, v)] = node
                    continue
                if isinstance(v.type, ArrayType):  # an array where the code's types said a number
                    raise self.locator.fail(node, "this value is an array, but the function returns a "
                                            "number elsewhere", hint="return an array on every path")
                env[key] = self.ex.coerce(v, t, b, node, "the return value")
        b.loc = self.locator.loc(st)
        env[RETURNED] = build.const(b, True, BOOL, "returned")

    def return_values(self, value: cst.BaseExpression, b: Builder, env: Env) -> list[tuple[Value, cst.CSTNode]]:
        """What ``return value`` returns, each value with the node it comes from: the elements
        of a tuple (``return s, t``), the results of a call of a function that returns several,
        or one value."""
        if isinstance(value, cst.Tuple):
            for e in value.elements:
                if isinstance(e, cst.StarredElement):
                    raise self.locator.fail(e, "starred expressions are not supported")
            return [(self.ex.value(e.value, b, env), e.value) for e in value.elements]
        callee = self.ex.tuple_call(value)
        if callee is not None:
            return [(v, value) for v in self.ex.user_call_results(value, callee, b, env)]  # type: ignore[arg-type]
        return [(self.ex.value(value, b, env), value)]

    # -- assignment ---------------------------------------------------------------------------
    def array_chosen(self, st: cst.CSTNode) -> Optional[cst.If]:
        """``y = A if c else B`` of arrays as the ``if`` statement that assigns ``y`` in each
        branch, as written out by hand (an array variable is filled by the branch taken; a select
        would compute both), its nodes placed where the assignment's are; None for anything else
        (a number's conditional expression is a select)."""
        if not (isinstance(st, cst.Assign) and isinstance(st.value, cst.IfExp) and len(st.targets) == 1
                and isinstance(st.targets[0].target, cst.Name)
                and isinstance(self.types.vars.get(st.targets[0].target.value), ArrayType)):
            return None
        choice, target = st.value, st.targets[0].target
        at = self.locator.positions[st]
        placed: dict = {}

        def branch(value: cst.BaseExpression) -> cst.IndentedBlock:
            name = cst.Name(target.value)
            assign = cst.Assign(targets=[cst.AssignTarget(name)], value=value)
            line = cst.SimpleStatementLine([assign])
            placed.update({name: self.locator.positions[target], assign: at, line: at})
            return cst.IndentedBlock([line])
        chosen = cst.If(test=choice.test, body=branch(choice.body), orelse=cst.Else(branch(choice.orelse)))
        placed[chosen] = at
        placed[chosen.orelse] = self.locator.positions[choice.orelse]
        self.locator.positions = ChainMap(placed, self.locator.positions)  # type: ignore[assignment]
        return chosen

    def assign(self, st: cst.Assign, b: Builder, env: Env) -> None:
        if self.ex.mpi_request_list(st, b, env):  # reqs = [comm.Isend(...), comm.Irecv(...)]
            return
        if created_list(st, self.types.lists) is not None:
            self.create_list(st, b, env)
            return
        swapped = self.swapped_arrays(st)
        if swapped is not None and self.depth > 0:
            self.swap(st, swapped, b, env)
            return
        targets = [t.target for t in st.targets]
        if any(isinstance(t, (cst.Tuple, cst.List)) for t in targets):
            if len(targets) > 1:
                raise self.locator.fail(st, "chained assignment to tuples is not supported",
                                        hint="assign each variable separately")
            self.unpack(targets[0], st.value, b, env)  # type: ignore[arg-type]
            return
        v = self.ex.value(st.value, b, env)
        for t in targets:
            self.store_to(t, v, b, env, st.value)

    def swapped_arrays(self, st: cst.CSTNode) -> Optional[tuple[str, str]]:
        """``u, un = un, u`` of two array variables: their names."""
        if not (isinstance(st, cst.Assign) and len(st.targets) == 1):
            return None
        target, value = st.targets[0].target, st.value
        if not (isinstance(target, (cst.Tuple, cst.List)) and isinstance(value, (cst.Tuple, cst.List))):
            return None
        names = [e.value for e in target.elements] + [e.value for e in value.elements]
        if len(names) != 4 or not all(isinstance(n, cst.Name) for n in names):
            return None
        a, c, x, y = (n.value for n in names)  # type: ignore[attr-defined]
        arrays = all(isinstance(self.types.vars.get(n), ArrayType) for n in (a, c))
        return (a, c) if arrays and a != c and (x, y) == (c, a) else None

    def swap(self, st: cst.Assign, names: tuple[str, str], b: Builder, env: Env) -> None:
        """``u, un = un, u`` in a loop or a branch: the two arrays exchange their contents, so
        each name goes on naming one array (which array a name names never depends on control
        flow in the IR). That is the same as exchanging the references where nothing else can
        see the difference: both arrays are allocated by this function (np.zeros, np.empty,
        ...), no other name refers to either, and they have the same shape, evident from
        their allocations."""
        a, c = names
        target = st.targets[0].target
        x, y = (self.ex.value(e.value, b, env) for e in target.elements)  # type: ignore[attr-defined]
        for name, v in ((a, x), (c, y)):
            op = v.defining_op
            if op is None or op.name != "alloc":
                raise self.locator.fail(st, f"swapping arrays in a loop or a branch is supported for arrays this "
                                        f"function allocates, and '{name}' is not one",
                                        hint=f"allocate it (np.zeros(...)) and copy into it: {name} = np.zeros(n); "
                                        f"{name}[:] = ..., or swap the elements in a loop")
            others = [k for k, w in env.items() if w is v and k not in names and not k.startswith("<")]
            if others:
                raise self.locator.fail(st, f"'{others[0]}' refers to the same array as '{name}', so swapping "
                                        f"'{a}' and '{c}' in a loop or a branch is not supported",
                                        hint=f"use only '{name}' for that array")
        rank = x.type.rank  # type: ignore[attr-defined]
        for axis in range(rank):
            if not py_arrays.same_extent(x, y, axis):
                raise self.locator.fail(st, f"'{a}' and '{c}' must have the same shape, evident from how they are "
                                        "allocated, to be swapped in a loop or a branch",
                                        hint=f"allocate them alike: {c} = np.zeros_like({a})")
        b.loc = self.locator.loc(st)
        elem = x.type.elem  # type: ignore[attr-defined]

        def exchange(bb: Builder, index: list[Value]) -> None:
            t = bb.op1("load", [x, *index], elem)
            bb.create("store", [x, *index, bb.op1("load", [y, *index], elem)], [])
            bb.create("store", [y, *index, t], [])
        py_arrays.each_element(b, x, exchange)

    def unpack(self, target: cst.Tuple, value: cst.BaseExpression, b: Builder, env: Env) -> None:
        """``a, b = b, a + b`` (the whole right side first) and ``n, m = A.shape``."""
        elems = [e.value for e in target.elements]
        for e in target.elements:
            if isinstance(e, cst.StarredElement):
                raise self.locator.fail(e, "this starred assignment target is not supported",
                                        hint="a starred name nothing reads is supported where it unpacks a name, an "
                                        "attribute, a subscript or a tuple (first, *_ = x); else index what you "
                                        "need (first = x[0]; rest = x[1:])")
        if isinstance(value, (cst.Tuple, cst.List)):
            if any(isinstance(e, cst.StarredElement) for e in value.elements):
                raise self.locator.fail(value, "starred expressions are not supported")
            if len(value.elements) != len(elems):
                raise self.locator.fail(value, f"cannot unpack {len(value.elements)} values into {len(elems)} targets")
            values = [self.ex.value(e.value, b, env) for e in value.elements]
            nodes = [e.value for e in value.elements]
        elif isinstance(value, cst.Attribute) and value.attr.value == "shape":
            arr = self.ex.array(value.value, b, env)
            rank = arr.type.rank  # type: ignore[attr-defined]
            if rank != len(elems):
                raise self.locator.fail(value, f"'{dotted_source(value.value)}' has {rank} dimension(s), "
                                        f"not {len(elems)}")
            values = [self.ex.at(b, value).op1("dim", [arr], I64, axis=k) for k in range(rank)]
            nodes = [value] * rank
        elif (pair := py_linalg.pair_call(self.ex, value)) is not None and len(elems) == 2:
            op, call_node = pair  # sign, logdet = np.linalg.slogdet(K); w, V = np.linalg.eigh(A)
            values = [py_linalg.pair_part_value(self.ex, op, call_node, part, b, env) for part in lib.PAIRS[op]]
            nodes = [value, value]
        elif (callee := self.ex.tuple_call(value)) is not None:  # s, c = helper(x)
            values = self.ex.user_call_results(value, callee, b, env)  # type: ignore[arg-type]
            if len(values) != len(elems):
                raise self.locator.fail(value, f"'{callee}' returns {len(values)} values, not {len(elems)}",
                                        hint=f"unpack {len(values)} names: "
                                        f"{', '.join('abcdefgh'[:len(values)])} = {callee}(...)")
            nodes = [value] * len(values)
        elif (arr := self.unpacked_array(value, len(elems), b, env)) is not None:  # x, y = state
            values = self.items_of(arr, len(elems), value, b)
            nodes = [value] * len(values)
        else:
            raise self.locator.fail(value, "unpacking is only supported from a tuple (a, b = x, y), a shape "
                                    "(n, m = A.shape), an array of evident length or a call of a function of "
                                    "this file that returns several values", hint="assign each variable separately")
        targets = {e.value for e in elems if isinstance(e, cst.Name)}
        for k, (v, node) in enumerate(zip(values, nodes)):  # u_prev, u = u, u_next: u as it was
            if any(self.storage.get(t) is v for t in targets):
                values[k] = py_arrays.copied(self.ex, b, node, v)
        for t, v, node in zip(elems, values, nodes):
            self.store_to(t, v, b, env, node)

    def unpacked_array(self, value: cst.BaseExpression, count: int, b: Builder, env: Env) -> Optional[Value]:
        """``x, y = state``: the array ``state`` is, where Python's unpacking of it is certain to
        give ``count`` items (``require_extent``). None for a value that is no array."""
        if not isinstance(value, (cst.Name, cst.Attribute, cst.Subscript, cst.Call)) or self.ex.tuple_call(value):
            return None
        arr = self.ex.value(value, b, env)
        if not isinstance(arr.type, ArrayType):
            return None
        src = dotted_source(value) or "this array"
        loc = self.locator.loc(value)
        where = "" if self.ctx.entry else f" of '{self.ctx.name}'"
        found = self.require_extent(arr, 0, count, value, f"line {loc.line}{where} unpacks it into {count} names")
        if found is None:
            return arr
        if found != "unknown":
            raise self.locator.fail(value, f"cannot unpack {src!r}, of {found} items, into {count} names "
                                    "(Python raises ValueError)", hint=f"unpack {found} names")
        # Its length not evident: checked where it is unpacked, raising as Python does for another.
        self.ex.check_extent(arr, 0, count, value, f"{src} unpacked into {count} names (line {loc.line}{where}) has "
                             "another length", b)
        return arr

    def require_extent(self, arr: Value, axis: int, count: int, node: cst.CSTNode, why: str) -> Union[None, int, str]:
        """That ``arr`` is ``count`` long along ``axis``, as code here assumes (``why``, said of the
        array): None where it evidently is, or where it is a parameter's extent, which the
        gradient then checks on entry (in the function differentiated: the primal raises for
        another) or which this function's callers must show in turn (a helper:
        ``py_helper_shapes``); else the length it evidently has instead, or "unknown"."""
        keys = py_arrays.extent_keys(arr, axis)
        spelled = self.spelled_extent(next(iter(keys)) if keys is not None and len(keys) == 1 else None)
        if spelled == ("const", count):
            return None
        if spelled is not None and spelled[0] == "const":
            return spelled[1]
        if spelled is not None and spelled[0] == "dim":
            if self.ctx.entry:
                loc = self.locator.loc(node)
                self.same_extents.append({"sides": [(spelled[0], spelled[1], spelled[2]), ("const", count)],
                                          "name": spelled[1], "loc": [loc.line, loc.col, loc.end_line, loc.end_col],
                                          "why": why})
            else:
                param = next(k for k, p in enumerate(self.param_values) if p.name_hint == spelled[1])
                self.required.append((param, spelled[2], count, why))
            return None
        return "unknown"

    def require_same(self, arr: Value, axis: int, other: Value, other_axis: int, node: cst.CSTNode,
                     why: str) -> Optional[bool]:
        """That ``arr`` is as long along ``axis`` as ``other`` along ``other_axis``, as a callee's
        code assumes (``why``): True where it evidently is, or where both are parameters' extents
        or constants, which the gradient checks on entry (the function differentiated) or this
        function's callers must show in turn (a helper); None where nothing shows it (checked
        where the call runs); False where they are evidently different constants."""
        found = [py_arrays.extent_keys(v, k) for v, k in ((arr, axis), (other, other_axis))]
        if any(keys is None or len(keys) != 1 for keys in found):
            return None
        if found[0] == found[1]:
            return True
        sides = [self.spelled_extent(next(iter(keys))) for keys in found]
        if None in sides:
            return None
        if sides[0][0] == sides[1][0] == "const":  # type: ignore[index]
            return False
        first = next((side for side in sides if side[0] == "dim"), None)  # type: ignore[index]
        if first is None:
            return None
        loc = self.locator.loc(node)
        if self.ctx.entry:
            self.same_extents.append({"sides": sides, "name": first[1], "why": why, "alike": True,
                                      "loc": [loc.line, loc.col, loc.end_line, loc.end_col]})
            return True
        return True if self.require_of_callers(first, sides[1] if first is sides[0] else sides[0], why) else None

    def require_of_callers(self, first: tuple, other: tuple, why: str) -> bool:
        """In a helper: that the extent ``first`` (``("dim", parameter, axis)``) equals ``other``
        (a constant or another parameter's extent), as ``why`` says its code takes it, left to its
        callers to show (``py_helper_shapes.Required``); False for an integer parameter's value,
        which no such requirement spells."""
        if other[0] == "int":
            return False
        at = {p.name_hint: k for k, p in enumerate(self.param_values)}
        count = other[1] if other[0] == "const" else ("dim", at[other[1]], other[2])
        self.required.append((at[first[1]], first[2], count, why))
        return True

    def items_of(self, arr: Value, count: int, node: cst.CSTNode, b: Builder) -> list[Value]:
        """``arr[0]``, ..., ``arr[count - 1]``: numbers of a vector, rows of a matrix."""
        at = self.ex.at(b, node)
        rank = arr.type.rank  # type: ignore[attr-defined]
        out = []
        for k in range(count):
            index = build.const(at, k, I64)
            if rank == 1:
                out.append(at.op1("load", [arr, index], arr.type.elem))  # type: ignore[attr-defined]
                continue
            bounds: list[Value] = [index]
            for axis in range(1, rank):
                bounds += [build.const(at, 0, I64), at.op1("dim", [arr], I64, axis=axis)]
            axes = ["i"] + ["r"] * (rank - 1)
            out.append(py_arrays.arr_op(self.ex, b, node, "slice", [arr, *bounds], {"axes": axes}))
        return out

    def store_to(self, target: cst.BaseExpression, v: Value, b: Builder, env: Env, node: cst.CSTNode) -> None:
        if isinstance(target, cst.Subscript):
            self.into_array_itself(target, env)
        if isinstance(target, cst.Name):
            self.bind(target.value, v, b, env, node)
        elif isinstance(target, cst.Subscript) and self.part_target(target, v, env):
            self.assign_part(target, v, None, b, env, node)
        elif isinstance(target, cst.Subscript):
            self.written_check(subscript_chain(target)[0], target, b, env)
            arr, ivs = self.element_target(target, b, env)
            what = f"an element of '{dotted_source(subscript_chain(target)[0])}'"
            v = self.ex.coerce(v, arr.type.elem, b, node, what)  # type: ignore[attr-defined]
            self.ex.at(b, target).create("store", [arr, *ivs, v], [])
        elif isinstance(target, (cst.Tuple, cst.List)):
            raise self.locator.fail(target, "nested tuple assignment is not supported",
                                    hint="assign each variable separately")
        elif isinstance(target, cst.Attribute):
            raise self.locator.fail(target, "assigning to attributes is not supported")
        else:
            raise self.locator.fail(target, "this assignment target is not supported")

    def into_array_itself(self, target: cst.Subscript, env: Env) -> bool:
        """True, or a located error for a store into a part an index array picks (``X[idx][1] =
        v``): NumPy makes that part a copy, and the store changes neither array."""
        if subscript_chain(target, lambda i: self.ex.keeps_axis(i, env, stored=True))[0] \
                is not subscript_chain(target)[0]:
            raise self.locator.fail(target, "this stores into the part of an array that an index array picks: "
                                    "NumPy makes that part a copy, so the store changes neither array",
                                    hint="store into the array itself: X[idx[1]] = v for X[idx][1] = v")
        return True

    def part_target(self, target: cst.Subscript, v: Optional[Value], env: Env) -> bool:
        """``a[lo:hi] = ...``, ``A[i] = row`` (fewer indices than dimensions), or an array value
        stored through element indices: an assignment to a part of an array, not one element."""
        base, indices = subscript_chain(target)
        if isinstance(base, cst.Name) and py_lists.is_list(self.ex, base):
            return False
        if isinstance(base, cst.Subscript):  # a[1:][0] = v: through a view (refused by assign_part)
            return True
        if any(isinstance(i, (cst.Slice, cst.Ellipsis)) for i in indices) or (v is not None and v.type.is_array):
            return True
        if len(indices) == 1 and self.ex.may_be_mask(indices[0], env):
            return True  # y[x > 0.5] = 0.0: where a mask holds (py_arrays.assign_at_mask), or at index arrays
        if any(isinstance(i, cst.Call) or (isinstance(i, cst.Name) and isinstance(env.get(i.value), Value)
                                            and env[i.value].type.is_array) or self.ex.is_array_index(i, env)
               for i in indices):  # type: ignore
            return True  # m[np.arange(n), y] = 0, y[idx[:2]] = v: at index arrays (py_arrays.assign_at_indices)
        cur = env.get(base.value) if isinstance(base, cst.Name) else None
        return isinstance(cur, Value) and isinstance(cur.type, ArrayType) and len(indices) < cur.type.rank

    def assign_part(self, target: cst.Subscript, v: Value, op: Optional[str], b: Builder, env: Env,
                    node: cst.CSTNode) -> None:
        base, indices = subscript_chain(target)
        if isinstance(base, cst.Subscript) or isinstance(target.value, cst.Subscript) \
                and any(isinstance(i, cst.Slice) for i in indices):
            raise self.locator.fail(target, "chained subscripts with a slice are not supported",
                                    hint="write a[i, lo:hi]")
        self.written_check(base, target, b, env)
        b.loc = self.locator.loc(target)
        py_arrays.assign_slice(self.ex, target, base, indices, v, op, b, env, node)

    def written_check(self, base: cst.BaseExpression, target: cst.CSTNode, b: Builder, env: Env) -> None:
        """A write into an array that a name sees through a NumPy view (``t = u[:-1]``) would
        change what that name holds, which the IR, where a slice is a value, does not follow."""
        if isinstance(base, cst.Name) and py_lists.is_list(self.ex, base):
            return  # a list's buffer: no view of it can be made
        arr = self.ex.value(base, b, env)
        if py_arrays.is_view(arr):
            src = dotted_source(base) or "this array"
            raise self.locator.fail(target, f"'{src}' is a NumPy view of another array (a slice, a reshape or "
                                    "a transpose), and writing into it would write into that array, which is "
                                    "not supported", hint=f"write into the array it views, or copy it: "
                                    f"{src} = ....copy()")
        memory = view_base(arr)  # (a row view written, row = Z[i]: the writes reach Z)
        for k, w in env.items():
            if isinstance(w, Value) and not k.startswith("<") and py_arrays.viewed(w) is memory:
                raise self.locator.fail(target, f"'{k}' is a view of this array (NumPy shares their memory), and "
                                        f"this writes into the array while '{k}' may still be read",
                                        hint=f"make '{k}' a copy: {k} = ....copy()")

    def element_target(self, target: cst.Subscript, b: Builder, env: Env) -> tuple[Value, list[Value]]:
        if isinstance(target.value, cst.Attribute) and target.value.attr.value == "shape":
            raise self.locator.fail(target, "an array's shape cannot be assigned")
        return self.ex.element(target, b, env)

    def create_list(self, st: cst.CSTNode, b: Builder, env: Env) -> None:
        """``v = [...]`` or ``v = [... for ...]``: a buffer with room for its items and for every
        append after it (``py_lists``), and its length."""
        name = created_list(st, self.types.lists)
        assert name is not None
        value = st.value  # type: ignore[attr-defined]
        t = self.types.vars[name]
        assert isinstance(t, ArrayType)
        plan = self.list_plans.get(st) or py_lists.AppendPlan()
        extra = py_lists.capacity(self.ex, plan, b, env)
        if isinstance(value, cst.List):
            room = None
            if extra is not None:
                room = build.add(self.ex.at(b, value), build.const(b, len(value.elements), I64), extra)
            dims = py_lists.item_dims(self.ex, name, value, plan, t, b, env) if t.rank > 1 and not value.elements \
                else None
            buf, n = py_lists.literal(self.ex, value, t, room, b, env, dims)
            if t.rank > 1 and value.elements and plan.appends:  # its items' shape from the first: each append checks
                self.ex.checked_lists.add(name)
        else:
            buf, n = py_comprehension.fill(self.ex, value, t, extra, b, env)
        if buf.defining_op is not None:
            buf.name_hint = name
        env[name] = buf
        env[length_key(name)] = n
        self.list_appends[name] = {call for call, _ in plan.appends}

    def append(self, call: cst.Call, name: str, b: Builder, env: Env) -> None:
        if isinstance(env.get(name), Poison):  # its creation failed, or it is chosen by control flow
            self.ex.name(call.func.value, b, env, as_list=True)  # type: ignore[attr-defined]
        if call not in self.list_appends.get(name, ()):
            raise self.locator.fail(call, f"cannot append to '{name}' here: a list is appended to only after the "
                                    "assignment that creates it in this function, in the statements that follow it",
                                    hint=f"create it before the loops that append to it: {name} = []")
        py_lists.append(self.ex, call, self.types.vars[name], b, env)  # type: ignore[arg-type]

    def bind(self, name: str, v: Value, b: Builder, env: Env, node: cst.CSTNode) -> None:
        """``name = v``: converted to the variable's type, and named after it when new."""
        if name in self.types.lists:
            raise self.locator.fail(node, f"'{name}' is a list, which can only be assigned a new list of its own "
                                    f"({name} = [...])", hint=py_lists.HINT)
        v = self.ex.coerce(v, self.types.vars[name], b, node, f"'{name}'")
        if name in self.storage and v.type.is_array:
            self.refill(name, v, b, env, node)
            return
        if name in self.written_in_place and v.type.is_array:
            # row = Z[i], for row in Z: a NumPy view, and the function writes into it (row -= m):
            # the row of Z's memory itself, which the writes reach and which shows Z's changes.
            v = py_arrays.row_view(self.ex, b, node, v) or v
        if name in self.written_in_place and v.type.is_array and py_arrays.is_written_value(v):
            named = [k for k, w in env.items() if w is v and k != name and not k.startswith("<")]
            if named:  # f = e; f[0] = ... writes into the array e names too, in Python
                raise self.locator.fail(node, f"'{name}' would name the array '{named[0]}' names, which a "
                                        f"whole-array expression made, and this function writes into '{name}'",
                                        hint=f"write into '{named[0]}' itself, or make a copy: "
                                        f"{name} = {named[0]}.copy()")
            v = py_arrays.copied(self.ex, b, node, v)  # e = np.exp(x); e[0] = 1.0 writes into a copy
        if not v.name_hint and v.defining_op is not None:
            v.name_hint = name
        env[name] = v

    # -- arrays rebound in loops ------------------------------------------------------------
    def rebound_arrays(self, body: Sequence[cst.CSTNode], env: Env, b: Builder, loop: cst.CSTNode) -> list[str]:
        """The arrays a loop body binds anew that are not given an array of their own here (a
        name first bound in the body names an array of the iteration). A name bound before the
        loop (``u = u + dt * lap(u)``, ``y = y * x + c[k]``) names one array, allocated before the
        loop (the one it names, where this function allocated it and no other name shares it),
        that each rebinding fills (``refill``): the value the name has in an iteration is then
        that array's contents, which the reverse sweep finds as any overwritten array's."""
        rest = []
        for n in self.array_names(body):
            cur = env.get(n)
            if not (isinstance(cur, Value) and isinstance(cur.type, ArrayType)):
                rest.append(n)
                continue
            shared = [k for k, w in env.items() if w is cur and k != n and not k.startswith("<")]
            op = cur.defining_op
            if op is None or op.name != "alloc" or shared or any(
                    isinstance(w, Value) and py_arrays.viewed(w) is cur for w in env.values()):
                b.loc = self.locator.loc(loop)
                cur = py_arrays.copied(self.ex, b, loop, cur)
                cur.name_hint = n
            env[n] = cur
            self.storage[n] = cur
        entry = {id(w) for w in env.values() if isinstance(w, Value)}
        for n in self.storage:
            self.entry_values.setdefault(n, entry)
        return rest

    def refill(self, name: str, v: Value, b: Builder, env: Env, node: cst.CSTNode) -> None:
        """``name = v`` in a loop, ``name`` an array rebound there: ``v`` is copied into the array
        ``name`` keeps naming. That is the same as rebinding the name where nothing tells them
        apart: ``v`` has the array's shape (evident from how both are made; a rebinding that
        changes the shape is refused), no other name shares the array, and where ``v`` is an
        array other names go on naming, the names that share it go on naming the filled one."""
        dst = self.storage[name]
        if v is dst:
            return
        rank = dst.type.rank  # type: ignore[attr-defined]
        for axis in range(rank):
            if not self.same_extent(v, dst, axis, name, node):
                raise self.locator.fail(node, f"'{name}' is rebound in a loop, and this value's shape is not "
                                        f"evidently the shape '{name}' has before the loop",
                                        hint=f"make both from the same extents (np.zeros_like({name}), elementwise "
                                        f"arithmetic of arrays made alike), or give the new value another name")
        others = [k for k, w in env.items() if w is dst and k != name and not k.startswith("<")]
        viewers = [k for k, w in env.items() if isinstance(w, Value) and py_arrays.viewed(w) in (dst, v)]
        if others or viewers:
            k = (others or viewers)[0]
            raise self.locator.fail(node, f"'{k}' shares its array with '{name}' or with this value, so rebinding "
                                    f"'{name}' in a loop is not supported here",
                                    hint=f"copy it: {k} = {name}.copy()")
        names_of_v = [k for k, w in env.items() if w is v and not k.startswith("<")]
        # v's array made in this iteration (not one the names had before the loop, which the next
        # iteration starts from again): its names may go on naming the filled array instead.
        own = (v.defining_op is not None and v.defining_op.name == "alloc" and id(v) not in self.entry_values[name]
               and all(v is not w for w in self.storage.values()))
        if names_of_v and not own and ({name, *names_of_v} & self.written_in_place):
            raise self.locator.fail(node, f"'{name}' and '{names_of_v[0]}' would name the same array, which this "
                                    "function writes into, so rebinding it in a loop is not supported",
                                    hint=f"copy it: {name} = {names_of_v[0]}.copy()")
        b.loc = self.locator.loc(node)
        py_arrays.copy_into(b, dst, v)
        if own:  # the names of v's array (made in this iteration) now name the filled one, as in Python
            for k in names_of_v:
                env[k] = dst
        env[name] = dst

    def same_extent(self, v: Value, dst: Value, axis: int, name: str, node: cst.CSTNode) -> bool:
        """Whether ``v`` and ``dst`` have one extent along ``axis``: evidently (one key), or, in
        the function differentiated, where each is some parameter's extent, an integer parameter
        or a constant, by assumption (``Wh @ h`` and ``h0`` in ``h = h0``, then ``h = np.tanh(Wh @
        h + ...)`` in a loop: Wh.shape[0] == h0.shape[0]), which the gradient checks on entry
        (the primal would fail on the next iteration, or compute with another shape, otherwise)."""
        found, before = py_arrays.extent_keys(v, axis), py_arrays.extent_keys(dst, axis)
        if found is None or before is None:
            return False
        keys = sorted({self.spelled_extent(k) for k in found | before}, key=repr)
        if len(found | before) == 1 or py_extents.same_sum(self.ex, found | before):
            return True
        if len({self.annotated_extent(k) for k in keys}) == 1 and None not in keys \
                and self.annotated_extent(keys[0]) is not None:
            return True  # (a0: "f64[n]", b0: "f64[n]": one extent, n, checked where they enter)
        if None in keys or len(keys) < 2:
            return False
        loc = self.locator.loc(node)
        if not self.ctx.entry:  # a helper: its callers must show it, or require it in turn
            first = next((k for k in keys if k[0] == "dim"), None)
            if first is None or any(k[0] == "int" for k in keys):
                return False
            why = f"line {loc.line} of '{self.ctx.name}' rebinds '{name}' in a loop, which keeps its shape"
            for other in keys:
                if other != first:
                    self.require_of_callers(first, other, why)
            return True
        for other in keys[1:]:
            self.same_extents.append({"sides": [keys[0], other], "name": name,
                                      "loc": [loc.line, loc.col, loc.end_line, loc.end_col]})
        return True

    def annotated_extent(self, spelled: Optional[tuple]) -> Optional[str]:
        """The symbol an annotation gives the extent ``spelled`` (``spelled_extent``: a parameter's
        axis): ``n`` of ``a0: "f64[n]"``; None where none does."""
        if spelled is None or spelled[0] != "dim":
            return None
        shape = self.types.shapes.get(spelled[1]) or ()
        symbol = shape[spelled[2]].strip() if spelled[2] < len(shape) else ""
        return symbol if symbol.isidentifier() else None

    def spelled_extent(self, key: object) -> Optional[tuple]:
        """An extent key (``py_arrays.extent_key``) as the entry check reads it: ("dim", parameter,
        axis), ("int", parameter) or ("const", value); None for an extent computed in the body."""
        if isinstance(key, tuple) and len(key) == 2 and key[0] == "const" and isinstance(key[1], int):
            return ("const", key[1])
        if isinstance(key, tuple) and len(key) == 2 and key[0] in self.params:
            return ("dim", key[0].name_hint, key[1])
        if isinstance(key, Value) and key in self.params:
            return ("int", key.name_hint)
        return None

    def aug_assign(self, st: cst.AugAssign, b: Builder, env: Env) -> None:
        op = AUG_OPS.get(type(st.operator))
        if op is None:
            raise self.locator.fail(st, "this augmented assignment operator is not supported",
                                    hint="use += -= *= /= //= %= **=")
        target = st.target
        if isinstance(target, cst.Name) and isinstance(self.types.vars.get(target.value), ArrayType) \
                and target.value not in self.types.lists:
            # u *= decay, pos += dt * vel: NumPy writes into u's array (any other name of it, a
            # caller's included, sees the change), so each element is stored, as u[...] op= v
            rhs = self.ex.value(st.value, b, env)
            self.written_check(target, target, b, env)
            b.loc = self.locator.loc(target)
            py_arrays.assign_slice(self.ex, target, target, [], rhs, op, b, env, st.value)  # type: ignore[arg-type]
            return
        if isinstance(target, cst.Name):
            cur = self.ex.scalar(target, b, env)
            rhs = self.ex.scalar(st.value, b, env)
            self.bind(target.value, self.ex.arith(op, cur, rhs, b, st), b, env, st)
        elif isinstance(target, cst.Subscript) and self.into_array_itself(target, env) \
                and self.part_target(target, None, env):
            self.assign_part(target, self.ex.value(st.value, b, env), op, b, env, st.value)
        elif isinstance(target, cst.Subscript):
            self.written_check(subscript_chain(target)[0], target, b, env)
            arr, ivs = self.element_target(target, b, env)
            elem = arr.type.elem  # type: ignore[attr-defined]
            cur = self.ex.at(b, target).op1("load", [arr, *ivs], elem)
            rhs = self.ex.value(st.value, b, env)
            if rhs.type.is_array:  # x[i] += v of an array v: a part of x (the load above is dead)
                self.assign_part(target, rhs, op, b, env, st.value)
                return
            new = self.ex.coerce(self.ex.arith(op, cur, rhs, b, st), elem, b, st,
                                 f"an element of '{dotted_source(subscript_chain(target)[0])}'")
            self.ex.at(b, st).create("store", [arr, *ivs, new], [])
        else:
            raise self.locator.fail(target, "this assignment target is not supported")

    # -- if ---------------------------------------------------------------------------------
    def if_stmt(self, st: cst.If, b: Builder, env: Env, loop: Optional[LoopFrame],
                rest: list[cst.CSTNode], into_then: bool) -> None:
        cond = self.ex.condition(st.test, b, env)
        then_stmts = suite_statements(st.body)
        else_stmts = else_statements(st.orelse)
        if rest:
            if into_then:
                then_stmts = then_stmts + rest
            else:
                else_stmts = else_stmts + rest
        b.loc = self.locator.loc(st, st.test)
        self.branch(b, env, cond, lambda bb, e: self.block(then_stmts, bb, e, loop),
                    lambda bb, e: self.block(else_stmts, bb, e, loop))

    # -- loops -------------------------------------------------------------------------------
    def carried(self, body: Sequence[cst.CSTNode], env: Env, extra: list[str], returns: bool) -> list[str]:
        """Variables a loop must carry: assigned in it, and observable across iterations or after it."""
        appended = {appended_list(n) for s in body for n in walk(s) if isinstance(n, cst.Call)}
        lengths = [length_key(n) for n in sorted(appended & self.types.lists)]  # the lists it appends to
        names = list(dict.fromkeys(extra + assigned_names(body) + lengths))
        out = [n for n in names if not isinstance(self.types.vars.get(n), ArrayType)
               and (n in env or n in self.read or n in lengths)]
        if returns:
            out += [k for k in self.result_keys if k in env] + [RETURNED]
        return out

    def array_names(self, body: Sequence[cst.CSTNode]) -> list[str]:
        """The arrays a loop body binds anew (a swap exchanges contents instead: ``swap``; ``u +=
        v`` writes into u's array, whichever it is: a view's writes reach the array it views)."""
        binders = [n for s in body for n in walk(s)
                   if isinstance(n, (cst.Assign, cst.AugAssign, cst.AnnAssign, cst.For))]

        def only_swapped(name: str) -> bool:
            return all(self.swapped_arrays(n) is not None for n in binders if name in binds_here(n))

        def only_in_place(name: str) -> bool:
            return all(isinstance(n, cst.AugAssign) for n in binders if name in binds_here(n))
        return [n for n in assigned_names(body)
                if isinstance(self.types.vars.get(n), ArrayType) and not only_swapped(n) and not only_in_place(n)]

    def for_stmt(self, st: cst.For, b: Builder, env: Env) -> None:
        if st.orelse is not None:
            raise self.fail_at_keyword(st.orelse, "'for ... else' is not supported", hint="use a flag variable")
        if st.asynchronous is not None:
            raise self.locator.fail(st, "'async for' is not supported", hint="use a plain for loop")
        try:
            it = read_iter(st.iter, lambda f: self.ctx.info.canonical_name(f, self.ctx.locals))
            names = leaves(st.target, it)
        except IterError as e:
            raise self.locator.fail(e.node, e.message, e.hint) from None
        head = self.loop_head(st, it, names, b, env)

        body = suite_statements(st.body)
        exits = block_exits(body)
        frame = LoopFrame(self.new_key("done", BOOL), self.new_key("skip", BOOL))
        returns = RETURN in exits.may
        carried = self.carried(body, env, [n.value for n, _ in names], returns)
        arrays = self.rebound_arrays(body, env, b, st)
        loc = self.locator.loc(st, st.iter)
        if BREAK in exits.may or returns:
            if head.parallel:
                raise self.locator.fail(st.iter, "a prange loop cannot break or return",
                                        hint="use range(...) for a loop that stops early")
            self.for_as_while(st, b, env, frame, head, carried, arrays, exits.may, loc)
            return
        inits = self.init_values(carried, env, b)
        blk = Block([I64] + [self.key_type(k) for k in carried], [head.hint] + [self.hint(k) for k in carried])
        bb = Builder(blk, loc)
        inner = self.enter_body(env, carried, blk.args[1:], arrays)
        head.bind(bb, inner, blk.args[0])
        if CONTINUE in exits.may:
            inner[frame.skip] = build.const(bb, False, BOOL, "skip")
        self.nested(lambda: self.block(body, bb, inner, frame))
        bb.loc = loc
        bb.create("yield", self.exit_values(carried, inner, blk.args[1:]), [])
        b.loc = loc
        # numba.prange: Numba may run the iterations in parallel (its carried scalars are sums).
        attrs = {"parallel": "prange"} if head.parallel else {}
        op = b.create("for", [head.lb, head.ub, head.step, *inits], [a.type for a in blk.args[1:]], attrs,
                      regions=[blk], hints=[self.hint(k) for k in carried])
        self.leave_loop(env, carried, op.results, arrays)

    def loop_head(self, st: cst.For, it: Iter, names: list, b: Builder, env: Env) -> "LoopHead":
        """The counted loop ``st`` becomes: ``range(...)`` with a name is that very loop; anything
        else (``py_iter``) a loop over an index from 0 to its length that binds the names first."""
        if isinstance(it, RangeIter) and isinstance(st.target, cst.Name):
            lb, ub, step = range_bounds(self.ex, it, b, env)
            target = st.target
            s, low = build.const_int(step), self.ex.lower_bound(lb)
            if s is not None and s < 0:  # counting down: the index stays above ub
                low = self.ex.lower_bound(ub)
                low = low + 1 if low is not None else None

            def bind_index(bb: Builder, inner: Env, i: Value) -> None:
                if low is not None and s is not None:
                    self.ex.lower_bounds[i] = low  # (a list index from it needs no test for a negative)
                if s is not None:  # in the body, lb <= i <= ub - 1 (counting down: ub + 1 <= i <= lb)
                    self.ex.index_ranges[i] = ((lb, 0), (ub, -1)) if s > 0 else ((ub, 1), (lb, 0))
                self.bind(target.value, i, bb, inner, target)
            return LoopHead(lb, ub, step, it.parallel, target.value, bind_index)
        iteration = Iteration(self.ex, it, b, env)
        self.ex.at(b, st.iter)
        zero, one = build.const(b, 0, I64), build.const(b, 1, I64)
        # The index is the counter of `for i, v in enumerate(x)` (i is k); else a name of its own.
        counter = next((n.value for n, leaf in names if isinstance(leaf, Counter) and leaf.of is it
                        and it.start is None), None)
        hint = counter or next((h for h in ("i", "k", "j", "idx") if h not in self.ctx.locals), "idx")

        def bind_items(bb: Builder, inner: Env, k: Value) -> None:
            self.ex.lower_bounds[k] = 0
            for name, leaf in names:
                self.bind(name.value, iteration.value(leaf, bb, k), bb, inner, name)
        return LoopHead(zero, iteration.length, one, False, hint, bind_items)

    def for_as_while(self, st: cst.For, b: Builder, env: Env, frame: LoopFrame, head: "LoopHead",
                     carried: list[str], arrays: list[str], may: frozenset[str], loc: SourceLoc) -> None:
        """A ``for`` with a break or return inside: a while over its index."""
        lb, ub, step = head.lb, head.ub, head.step
        counter = self.new_key(head.hint, I64)
        has_break = BREAK in may
        keys = [counter] + ([frame.done] if has_break else []) + carried
        b.loc = loc
        inits = [lb] + ([build.const(b, False, BOOL, "done")] if has_break else []) + self.init_values(carried, env, b)
        types = [self.key_type(k) for k in keys]
        hints = [self.hint(k) for k in keys]

        cond = Block(types, hints)
        cb = Builder(cond, loc)
        cenv = dict(zip(keys, cond.args))
        i = cond.args[0]
        c = self.in_range(cb, i, ub, step)
        if has_break:
            c = cb.op1("and", [c, cb.op1("not", [cenv[frame.done]], BOOL)], BOOL)
        if RETURN in may:
            c = cb.op1("and", [c, cb.op1("not", [cenv[RETURNED]], BOOL)], BOOL)
        cb.create("condition", [c], [])

        blk = Block(types, hints)
        bb = Builder(blk, loc)
        inner = self.enter_body(env, keys, blk.args, arrays)
        head.bind(bb, inner, blk.args[0])
        if CONTINUE in may:
            inner[frame.skip] = build.const(bb, False, BOOL, "skip")
        self.nested(lambda: self.block(suite_statements(st.body), bb, inner, frame))
        bb.loc = loc
        inner[counter] = build.add(bb, blk.args[0], step, head.hint)
        bb.create("yield", self.exit_values(keys, inner, blk.args), [])
        b.loc = loc
        op = b.create("while", inits, types, regions=[cond, blk], hints=hints)
        n = len(keys) - len(carried)
        self.leave_loop(env, carried, op.results[n:], arrays)

    def while_stmt(self, st: cst.While, b: Builder, env: Env) -> None:
        if st.orelse is not None:
            raise self.fail_at_keyword(st.orelse, "'while ... else' is not supported", hint="use a flag variable")
        body = suite_statements(st.body)
        exits = block_exits(body)
        frame = LoopFrame(self.new_key("done", BOOL), self.new_key("skip", BOOL))
        has_break, returns = BREAK in exits.may, RETURN in exits.may
        carried = self.carried(body, env, [], returns)
        arrays = self.rebound_arrays(body, env, b, st)
        keys = ([frame.done] if has_break else []) + carried
        loc = self.locator.loc(st, st.test)
        b.loc = loc
        inits = ([build.const(b, False, BOOL, "done")] if has_break else []) + self.init_values(carried, env, b)
        types = [self.key_type(k) for k in keys]
        hints = [self.hint(k) for k in keys]

        cond = Block(types, hints)
        cb = Builder(cond, loc)
        cenv = self.enter_body(env, keys, cond.args, arrays)
        flags = ([cenv[frame.done]] if has_break else []) + ([cenv[RETURNED]] if returns else [])
        if not flags:
            c = self.ex.condition(st.test, cb, cenv)
        else:
            cb.loc = loc
            go_on = self.none_set(cb, flags)  # type: ignore[arg-type]
            if is_true_constant(st.test):
                c = go_on
            elif is_simple(st.test):
                test = self.ex.condition(st.test, cb, cenv)
                c = self.ex.at(cb, st.test).op1("and", [go_on, test], BOOL)
            else:  # the test may load or call: evaluate it only while no flag is set, as Python would
                c = self.ex.if_value(cb, st.test, go_on, lambda bb: self.ex.condition(st.test, bb, cenv),
                                     lambda bb: self.ex.const(bb, st.test, False, BOOL))
        cb.loc = loc
        cb.create("condition", [c], [])

        blk = Block(types, hints)
        bb = Builder(blk, loc)
        inner = self.enter_body(env, keys, blk.args, arrays)
        if CONTINUE in exits.may:
            inner[frame.skip] = build.const(bb, False, BOOL, "skip")
        self.nested(lambda: self.block(body, bb, inner, frame))
        bb.loc = loc
        bb.create("yield", self.exit_values(keys, inner, blk.args), [])
        b.loc = loc
        op = b.create("while", inits, types, regions=[cond, blk], hints=hints)
        n = len(keys) - len(carried)
        self.leave_loop(env, carried, op.results[n:], arrays)


@dataclass
class LoopHead:
    """How a ``for`` statement counts: ``range(lb, ub, step)`` (``parallel``: numba.prange),
    the index's name hint, and what binds the loop's names from the index in each iteration."""

    lb: Value
    ub: Value
    step: Value
    parallel: bool
    hint: str
    bind: Callable[[Builder, Env, Value], None]


def lower_function(fn: cst.FunctionDef, ctx: FunctionContext) -> tuple[Function, list[Diagnostic]]:
    lowerer = FunctionLowerer(fn, ctx)
    func = lowerer.lower()
    return func, lowerer.diagnostics
