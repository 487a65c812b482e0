"""How C reaches into arrays: elements, rows, struct members, extents and declared spellings.

An array parameter is a pointer to a flat, row-major buffer (``A[i * m + j]``), its extents found
by ``sizes``; one that C input declared with its extents (``double A[n][m]``, ``double (*A)[M]``),
and a local array C input declared so (``double t[3][3]`` on the stack, ``double (*w)[m]`` on the
heap), keeps them: ``A[i][j]``, a row ``A[i]``. A parameter declared ``struct Body *`` is indexed
by member (``bodies[i].pos[c]``, ``p->k``). An extent C needs and cannot tell is a diagnostic
that names the array and says what would tell it; the entry's comment lists what the caller
must pass (``// Array sizes: x: [n].``).
"""

from __future__ import annotations

import re
from typing import Optional

from ..diagnostics import Diagnostic, DiagnosticError, error
from ..emit.expr import BinOp, Call, Expr, Lit, Name, Subscript, binop, literal_value, negate, number
from ..emit.inline import InlinePlan
from ..emit.stmt import LINE_LIMIT, ExprStmt, Stmt
from ..languages import is_c
from ..parse.c_declarators import is_array_spelling, row_pointer
from ..ssa.attrs import shadows_of, struct_array
from ..ssa.build import const_int
from ..ssa.ir import Function, Module, Op, Value
from ..ssa.opdefs import is_pure
from ..ssa.ops import made_extent, points_into_member, struct_in_member, view_base
from ..ssa.types import ArrayType
from .aggregates import StructParam, cell_of, each_of
from .cexpr import CPrinter, C_TYPES, Cast, Member, address_of, ctype
from .cfile import ModuleContext
from ..analysis.extents import Affine, sizes_buffers_only, storage_of


class CArrayAccess:
    """Elements, rows, members, extents and parameter spellings for ``CFunctionEmitter``.

    Needs from the host: the attributes below, and ``expr`` (a value's C expression)."""

    ctx: ModuleContext
    module: Module
    fn: Function
    slot_helpers: bool  # whether the output defines slot_get_<struct>/slot_set_<struct> (C, not CUDA)
    declared: Optional[list[str]]  # each parameter's declared C type (signature.declared_params)
    var: dict[Value, str]
    plan: InlinePlan
    printer: CPrinter
    extents: list
    rows_declared: bool
    struct_leaves: dict[Value, StructParam]
    stack_rows: set[str]  # filled by the memory mixin (CMemory._alloc)
    heap_rows: set[str]
    fixed_extents: dict[tuple[Op, int], str]  # filled by the memory mixin (CMemory._fixed_extents)
    types: dict[str, str]  # each local variable's C type, declared where the body is finished
    _var_count: dict[str, int]

    def _local_ctype(self, v: Value) -> str:
        """The C type of a local variable; a view of a parameter keeps its declared pointer
        type, so a view of a ``const double *`` is one too (assigning it to ``double *`` warns)."""
        base = view_base(v)
        if base is not v and base.owner is self.fn.body and self.declared:
            declared = _unrestricted(self.declared[self.fn.params.index(base)])  # a second pointer to x
            inside = struct_in_member(v)
            if inside is not None:  # &net->layers[l] of a const Net *net: a const Layer *
                return f"{'const ' if declared.lstrip().startswith('const ') else ''}{inside} *"
            if points_into_member(v):  # &cam->r[0] of a const Camera *cam: a const double *
                const = "const " if declared.lstrip().startswith("const ") else ""
                return f"{const}{ctype(v.type.elem)} *"  # type: ignore[attr-defined]
            if is_array_spelling(declared) and v.type.rank == 1:  # type: ignore[attr-defined]
                return row_pointer(declared)  # a row of const double A[n][m]: const double *
            if declared.rstrip().endswith("*"):
                return declared
        made = v.defining_op
        struct = self._struct_of(v) if made is not None and made.name in ("copy", "alloc") else None
        if struct is not None:
            return f"{struct} *"  # an array of structs, or a copy of one: the same structs
        declared = self._declared_elem(v) if made is not None and made.name == "copy" else None
        return f"{declared} *" if declared else ctype(v.type)

    @staticmethod
    def _declared_elem(v: Value) -> Optional[str]:
        """The C element type the input declares for the local array ``v`` is made from, where it
        is not the IR's (``size_t v_n_cell[1]``, the cell of a size_t member), through copies of it."""
        made = view_base(v).defining_op
        while made is not None and made.name == "copy":
            made = view_base(made.operands[0]).defining_op
        return made.attrs.get("c_elem") if made is not None and made.name == "alloc" else None

    def _error(self, message: str, loc=None, hint: str = "") -> DiagnosticError:
        return DiagnosticError([Diagnostic(message, loc, hint)], self.module.source_lines)

    def _check_sizes(self) -> None:
        """Report every array parameter whose extent the C code needs but cannot tell, at once."""
        missing: dict[Value, Op] = {}
        shadows = shadows_of(self.fn)
        exact = self.ctx.sizes.exact_axes(self.fn)
        for op in self.fn.walk():
            # (array, axes it needs, whether an upper bound of the elements touched will do)
            needed: list[tuple[Value, list[int], bool]] = []
            if op.name == "dim":
                needed.append((storage_of(op.operands[0]), [op.attrs["axis"]], sizes_buffers_only(op.result)))
            elif op.name in ("load", "store", "accum") and storage_of(op.operands[0]).type.rank > 1 \
                    and not self._declared_rows(op.operands[0]):  # type: ignore[attr-defined]
                arr = storage_of(op.operands[0])  # its row length: A[i * m + j]
                needed.append((arr, list(range(1, arr.type.rank)), False))  # type: ignore[attr-defined]
            elif op.name == "copy":
                src = storage_of(op.operands[0])
                if len(op.operands) == 1:  # copy(x, n) says how many rows itself
                    needed.append((src, [0], True))
                needed.append((src, list(range(1, src.type.rank)), False))  # type: ignore[attr-defined]
            for arr, axes, cover in needed:
                if arr.owner is not self.fn.body:
                    continue
                index = self.fn.params.index(arr)
                owner = self.fn.params[shadows.get(index, index)]  # d_x is reported as x
                ext = self.extents[index]
                unknown = ext is None or any(ext[a] is None or (not cover and (index, a) not in exact) for a in axes)
                if owner not in missing and unknown:
                    missing[owner] = op
        if missing:
            problems = [self._size_error(arr, op) for arr, op in missing.items()]
            raise DiagnosticError([d for p in problems for d in p.diagnostics], self.module.source_lines)

    def _sizes_comment(self) -> list[str]:
        """What the caller must pass: the extents of the array parameters (C pointers carry none)."""
        groups: dict[str, list[str]] = {}
        spelled = self.declared or []
        for i, p in enumerate(self.fn.params):
            ext = self.extents[i]
            if ext is None or any(e is None for e in ext):
                continue
            if each_of(p, self.struct_leaves) is not None:
                continue  # a member across an array of structs: the caller's array says how many
            if i < len(spelled) and is_array_spelling(spelled[i]) and "[]" not in spelled[i] \
                    and "(*" not in spelled[i]:
                continue  # double A[n][m]: the signature says it
            struct = self._struct_of(p)
            if struct is not None:  # counted in structs: the ones the members read lie in
                size = self._struct_size(struct)
                if all(c % size == 0 for _, c in ext[0].terms):  # type: ignore[union-attr]
                    whole = -(-ext[0].const // size)  # type: ignore[union-attr]
                    ext = [Affine(tuple((k, c // size) for k, c in ext[0].terms), whole)]  # type: ignore
                    groups.setdefault(f"[{self.printer(self._affine_expr(ext[0]))}] ({struct})", []).append(
                        self.var.get(p, p.name_hint))
                    continue
            text = "".join(f"[{self._cover_text(i, axis, e)}]" for axis, e in enumerate(ext))  # type: ignore
            if len(ext) > 1:
                text += " (row-major)"
            groups.setdefault(text, []).append(self.var.get(p, p.name_hint))
        if not groups:
            return []
        parts = [f"{', '.join(names)}: {text}" for text, names in groups.items()]
        words = ("// Array sizes: " + "; ".join(parts) + ".").split(" ")
        out, cur = [], ""
        for w in words:
            if cur and len(cur) + 1 + len(w) > LINE_LIMIT:
                out.append(cur)
                cur = "//" + " " * 4 + w
            else:
                cur = f"{cur} {w}" if cur else w
        return out + [cur]

    def _cover_text(self, index: int, axis: int, a: Affine) -> str:
        """An extent as the sizes comment says it: ``n`` or, raised by a constant index, ``max(n - 1, 4)``."""
        floor = self.ctx.sizes.cover_floor(self.fn, index, axis)
        text = self.printer(self._affine_expr(a))
        return f"max({text}, {floor})" if floor else text

    def _affine_expr(self, a: Affine) -> Expr:
        e: Optional[Expr] = None
        for k, c in a.terms:
            name: Expr = Name(self.var.get(self.fn.params[k[0]], self.fn.params[k[0]].name_hint))
            for i in k[1:]:  # a product of parameters: rows * cols
                name = BinOp("*", name, Name(self.var.get(self.fn.params[i], self.fn.params[i].name_hint)))
            term: Expr = name if abs(c) == 1 else BinOp("*", number(abs(c)), name)
            if e is None:
                e = term if c > 0 else negate(term)
            else:
                e = binop("+" if c > 0 else "-", e, term)
        if e is None:
            return number(a.const)
        return binop("+", e, number(a.const)) if a.const else e

    def _extent(self, arr: Value, axis: int, op: Op, cover: bool = False) -> Expr:
        """The extent of ``arr`` along ``axis`` as an expression valid at ``op``, or a diagnostic.

        ``cover``: an upper bound on the elements the code touches will do (the size of
        a copy); else the array's own extent, which only an annotation (or a size
        parameter made for it) gives, never the loops that index it.
        """
        d = arr.defining_op
        if arr.owner is self.fn.body:  # a parameter
            index = self.fn.params.index(arr)
            ext = self.extents[index]
            a = ext[axis] if ext is not None else None
            if not cover and (index, axis) not in self.ctx.sizes.exact_axes(self.fn):
                a = None
            if a is not None and all(self._stable(self.fn.params[k]) for k in a.params):
                floor = self.ctx.sizes.cover_floor(self.fn, index, axis)
                if floor:  # a constant index past what the loops reach (z[3] beside z[i], i < n - 1)
                    return Call(Name("max_l"), (self._affine_expr(a), number(floor)))
                return self._affine_expr(a)
            raise self._size_error(arr, op)
        if d is not None and d.name == "alloc":
            dim = d.operands[axis]
            if (d, axis) in self.fixed_extents:  # kept where it was made (memory._fixed_extents)
                return Name(self.fixed_extents[(d, axis)])
            if self._stable(dim):
                return self.expr(dim)
            f = dim.defining_op
            if self._stable_expr(dim):
                # Its variable holds other values too (a slice's length, max_l(n - i, 0), in each
                # loop that copies one): the expression again, from operands that do not change.
                return self.op_expr(f)  # type: ignore[arg-type]
            raise error(
                "C output: the size of this local array changes after it is made",
                d.loc,
                hint="compute the size once, in a variable of its own",
            )
        if d is not None and d.name == "copy" and axis == 0 and len(d.operands) == 2 and self._stable(d.operands[1]):
            return self.expr(d.operands[1])  # copy(x, n): its first n rows
        if d is not None and d.name == "copy":
            return self._extent(d.operands[0], axis, op, cover)
        if d is not None and d.name == "view" and d.result.type.rank < d.operands[0].type.rank:  # type: ignore
            return self._extent(d.operands[0], axis + 1, op, cover)  # a row: the extents after the first
        if d is not None and d.name == "view":
            offset = d.operands[1]
            if not self._stable(offset):
                raise error(
                    "C output: the offset of this sub-array changes after it is made",
                    d.loc,
                    hint="compute the offset once, in a variable of its own",
                )
            return binop("-", self._extent(d.operands[0], axis, op, cover), self.expr(offset))
        if d is not None and d.name == "if":
            carried = _carried_extent(d, arr, axis)
            if carried is not None:
                return self.expr(carried)
            constant = self._constant_branch_extent(d, arr, axis, op, cover)
            if constant is not None:
                return constant
        raise self._size_error(arr, op)

    def _constant_branch_extent(self, if_op: Op, arr: Value, axis: int, op: Op, cover: bool) -> Optional[Expr]:
        """The extent of the array result ``arr`` of ``if_op`` where every branch that makes one
        makes it of one constant extent (a copy of a ``double E[M][M]``, taken in a reversed
        ``while``); None otherwise."""
        extents = set()
        for region in if_op.regions:
            made = region.terminator.operands[arr.index]
            if made.defining_op is not None and made.defining_op.name == "undef":
                continue
            try:
                extent = literal_value(self._extent(made, axis, op, cover))
            except DiagnosticError:
                return None
            if not isinstance(extent, int) or isinstance(extent, bool):
                return None
            extents.add(extent)
        return number(extents.pop()) if len(extents) == 1 else None

    def _size_error(self, arr: Value, op: Op) -> DiagnosticError:
        fn = self.fn
        name = arr.name_hint
        shadows = shadows_of(fn)
        if arr.owner is fn.body and fn.params.index(arr) in shadows:
            name = fn.params[shadows[fn.params.index(arr)]].name_hint
        ints = [p.name_hint for p in fn.params if p.type.is_int and p.name_hint]
        ints += [n for n in ("n", "m", "k", "l") if n not in ints]
        rank = arr.type.rank if isinstance(arr.type, ArrayType) else 1
        elem = arr.type.elem.name if isinstance(arr.type, ArrayType) else "f64"
        made = arr.defining_op
        if made is not None and made.name in ("if", "for", "while"):
            # A local array (the adjoint's too: what the reverse sweep keeps of a branch).
            what = f"array '{name}'" if name else "an array"
            kind = "an if" if made.name == "if" else "a loop"
            make = "(malloc)" if is_c(self.ctx.module.source_file) else "(np.empty)"
            rest = "" if is_c(self.ctx.module.source_file) else ", or use --target py or numba"
            return self._error(f"cannot tell the size of {what} made in {kind} in C output", op.loc or fn.loc,
                               hint=f"C output follows an array's extents from the operation that makes it, not "
                                    f"out of {kind} that makes it anew; make it once before the {made.name} "
                                    f"{make} and write into it there{rest}")
        primal = self.ctx.module.functions.get(fn.attrs.get("primal", ""), fn)
        annotated = (fn.attrs.get("shapes") or primal.attrs.get("shapes") or {}).get(name)
        # A shape symbol made a size parameter (opt.lower_arrays.add_size_params) that also names a
        # value of the function: the user's own variable of that name.
        assigned = {v.name_hint for o in fn.walk() for v in o.results}
        sizes = {p.name_hint for p in fn.params if p.type.is_int}
        clash = [e for e in annotated or [] if isinstance(e, str) and e.strip() in assigned & sizes]
        if clash:  # f(x: "f64[n]") with n = len(x) in the body: the symbol names a variable too
            spelled = ", ".join(str(e) for e in annotated)  # type: ignore[union-attr]
            return self._error(f"cannot tell the size of array '{name}' in C output", op.loc or fn.loc,
                               hint=f"its annotation \"{elem}[{spelled}]\" names an extent '{clash[0].strip()}' that "
                                    f"the function also assigns as a variable: give the shape symbol another name")
        missing = [str(e).strip() for e in annotated or [] if isinstance(e, str) and str(e).strip().isidentifier()
                   and str(e).strip() not in sizes]
        if missing and not is_c(self.ctx.module.source_file):
            # a helper's f(u: "f64[n]") without n among its parameters: the symbol is no value C output has
            spelled = ", ".join(str(e) for e in annotated)  # type: ignore[union-attr]
            return self._error(f"cannot tell the size of array '{name}' in C output", op.loc or fn.loc,
                               hint=f"its annotation \"{elem}[{spelled}]\" names '{missing[0]}', which is no integer "
                                    f"parameter of '{primal.name}': add {missing[0]}: int to its parameters (and "
                                    f"pass it, len({name}))")
        if is_c(self.ctx.module.source_file):
            # C input has no annotations: the extent can only come from the loops that index it.
            hint = (f"C pointers carry no size, so s2sad bounds '{name}' by the loops that index it, and "
                    f"found no one bound for all its accesses (indices of different forms, such as "
                    f"{name}[i] beside {name}[n - 1 - i], or an index no loop bounds); declare its size "
                    f"where the function takes it, as C99 allows: double {name}[n] (with the parameters "
                    f"that give n)")
        else:
            hint = (f"C pointers carry no shape: annotate the parameter, {name}: \"{elem}[{', '.join(ints[:rank])}]\" "
                    f"(with integer parameters for its extents), or index it in a loop over range({ints[0]})")
        return self._error(f"cannot tell the size of array '{name}' in C output", op.loc or fn.loc, hint=hint)

    def _stable_expr(self, v: Value) -> bool:
        """Whether the op making ``v`` can be printed again later from operands that do not change."""
        f = v.defining_op
        return f is not None and is_pure(f) and all(self._stable(o) for o in f.operands)

    def _stable(self, v: Value) -> bool:
        """Whether ``v`` can be printed again later with the same value (its variable is never reused)."""
        if const_int(v) is not None:
            return True
        if v in self.var:
            return self._var_count.get(self.var[v], 0) == 1
        op = v.defining_op
        if op is None or not is_pure(op) or not self.plan.is_expr(v):
            return False
        return all(self._stable(o) for o in op.operands)

    def _element(self, arr: Value, idx: list[Value], op: Op) -> Expr:
        """``arr[i]``, ``arr[i * n + j]``, ``A[i][j]`` (a parameter C declares with its extents),
        or a struct member: ``bodies[i].pos[c]``, ``p->k``."""
        cell = cell_of(arr, self.struct_leaves)
        if cell is not None:  # p->x of a struct the function may write; (&p->x)[k] by a loop's k
            return Name(cell.member) if const_int(idx[0]) == 0 else Subscript(address_of(Name(cell.member)),
                                                                               (self.expr(idx[0]),))
        each = each_of(arr, self.struct_leaves)
        if each is not None:  # Ms[i].rows, Ms[i].data[j] of an array of structs
            out = each.of(self.expr(idx[0]))
            for i in idx[1:]:
                out = Subscript(out, (self.expr(i),))
            return out
        struct = self._struct_of(arr)
        if struct is None and self._declared_rows(arr):
            out = self.expr(arr)
            for i in idx:
                out = Subscript(out, (self.expr(i),))
            return out
        if struct is None:
            return Subscript(self.expr(arr), (self._flat(arr, idx, op),))
        f = idx[0].defining_op
        if f is not None and f.name == "field" and f.attrs["struct"] == struct:
            return self._member(self.expr(arr), f)
        # An index that lost its path (an element loop over the whole array: a copy kept for the
        # reverse sweep): the structs as the scalars they are; those with integer members through
        # the function that reads slot k by its member (slot_helpers).
        if self._mixed(struct):
            self._refuse_mixed(struct, op)
            return Call(Name(slot_helper("get", struct)), (self.expr(arr), self.expr(idx[0])))  # type: ignore
        elem = C_TYPES[arr.type.elem.name]  # type: ignore[attr-defined]
        return Subscript(Cast(f"{elem} *", self.expr(arr)), (self.expr(idx[0]),))

    def _slot_store(self, arr: Value, idx: list[Value], value: Expr, op: Op) -> Optional[Stmt]:
        """``set_Point(a, k, v)``: a store into slot ``k`` of an array of structs with integer
        members by an index that names no member (see ``_element``); None for any other store."""
        struct = self._struct_of(arr)
        f = idx[0].defining_op if len(idx) == 1 else None
        if not self._mixed(struct) or (f is not None and f.name == "field" and f.attrs["struct"] == struct):
            return None
        self._refuse_mixed(struct, op)
        return ExprStmt(Call(Name(slot_helper("set", struct)), (self.expr(arr), self.expr(idx[0]), value)))  # type: ignore

    def _mixed(self, struct: Optional[str]) -> bool:
        """Whether ``struct`` has integer members (``c_structs``: its slots are not its bytes)."""
        return struct is not None and any(name == struct for name, _ in self.fn.attrs.get("c_mixed", ()))

    def _refuse_mixed(self, struct: Optional[str], op: Op) -> None:
        """Where the output has no functions reaching a slot by its member (CUDA's device code,
        a view into the run of slots): a located error."""
        if self._mixed(struct) and (not self.slot_helpers or op.name == "view"):
            raise error(f"C output: the gradient needs the array of {struct} element by element here, and "
                        f"{struct} has integer members, so its elements are not all numbers of one type", op.loc,
                        hint=f"keep the numbers the loop changes in an array of their own, beside the {struct} array")

    def _structs_holding(self, struct: str, slots: Expr) -> Expr:
        """How many structs ``slots`` of their numbers (a count in slots) lie in, rounded up."""
        per = self._struct_size(struct)
        if per == 1:
            return slots
        if isinstance(slots, BinOp) and slots.op == "*":  # 3 * n: n
            for whole, other in ((slots.left, slots.right), (slots.right, slots.left)):
                if literal_value(whole) == per:
                    return other
        return binop("/", binop("+", slots, Lit(str(per - 1))), Lit(str(per)))

    def _member(self, base: Expr, f: Op) -> Expr:
        """The access a ``field`` op spells: ``base[i].pos[c]``; ``base->k`` for struct 0."""
        struct_index, *subs = f.operands
        steps = re.findall(r"\.(\w+)|(\[\])", f.attrs["path"])
        out: Expr
        if const_int(struct_index) == 0 and steps and steps[0][0]:
            out = Member(base, steps[0][0], arrow=True)
            steps = steps[1:]
        else:
            out = Subscript(base, (self.expr(struct_index),))
        subscripts = iter(subs)
        for name, _ in steps:
            out = Member(out, name) if name else Subscript(out, (self.expr(next(subscripts)),))
        return out

    def _declared_spelling(self, arr: Value) -> Optional[str]:
        """How the signature declares the parameter ``arr`` is, or is a view into (C input)."""
        base = view_base(arr)
        if base.owner is not self.fn.body or not self.declared:
            return None
        return self.declared[self.fn.params.index(base)]

    def _declared_rows(self, arr: Value) -> bool:
        """Whether ``arr`` is (a row of) an array C knows the rows of: a parameter declared with
        its extents (``double A[n][m]``, ``double (*A)[M]``), or a local array made so
        (``double tmp[3][3]``, ``double (*w)[m]``). C indexes it ``A[i][j]``; ``A[i]`` is a row."""
        base = view_base(arr)
        if not self.rows_declared or base.type.rank < 2:  # type: ignore[attr-defined]
            return False
        if self.var.get(base) in self.stack_rows | self.heap_rows:
            return True
        declared = self._declared_spelling(arr)
        return declared is not None and is_array_spelling(declared)

    def _row(self, arr: Value, i: Value, op: Op) -> Expr:
        """The sub-array ``arr[i]`` of an array of rank 2 or more: ``A[i]`` where C knows the
        rows, else the address of the row's first element, ``A + i * m``."""
        each = each_of(arr, self.struct_leaves)
        if each is not None:  # Ms[i].data: a pointer member of one struct of an array of them
            self._name_rows(arr, op)
            return each.of(self.expr(i))
        if self._declared_rows(arr):
            self._name_rows(arr, op)
            return Subscript(self.expr(arr), (self.expr(i),))
        step: Expr = self.expr(i)
        for axis in range(1, arr.type.rank):  # type: ignore[attr-defined]
            step = times(step, self._extent(arr, axis, op))
        return binop("+", self.expr(arr), step)

    def _name_rows(self, arr: Value, op: Op) -> None:
        """A sub-array of two or more dimensions held in a variable (``T[b]`` of a ``double
        T[n][2][2]`` given to an inlined helper's ``const double P[2][2]``) is a pointer to its
        rows, ``const double (*P)[2]``, not to numbers: its type is set here, where its extents
        are known as C spells them."""
        rank = op.result.type.rank  # type: ignore[attr-defined]
        name = self.var.get(op.result)
        if rank < 2 or name is None or name not in self.types:
            return
        base = view_base(arr)
        declared = self._declared_spelling(arr)
        elem = row_pointer(declared)[:-1].rstrip() if declared is not None and base.owner is self.fn.body \
            else C_TYPES[arr.type.elem.name]  # type: ignore[attr-defined]
        brackets = re.findall(r"\[([^\]]*)\]", declared or "")
        if base.owner is self.fn.body and len(brackets) >= rank - 1:  # as the parameter declares them
            extents = brackets[len(brackets) - rank + 1:]
        else:
            outer = arr.type.rank  # type: ignore[attr-defined]
            extents = [self.printer(self._extent(arr, axis, op)) for axis in range(outer - rank + 1, outer)]
        self.types[name] = f"{elem} (*){''.join(f'[{x}]' for x in extents)}"

    def _struct_of(self, arr: Value) -> Optional[str]:
        """The struct type ``arr`` points to (C input: a parameter declared ``struct Body *``, a
        local array of structs, or a view or copy of one), or None for an array of numbers."""
        if not self.fn.attrs.get("c_structs"):
            return None
        return struct_array(self.fn, arr, self.declared or [])

    def _struct_size(self, struct: str) -> int:
        return next(size for name, _, size in self.fn.attrs["c_structs"] if name == struct)

    def _flat(self, arr: Value, idx: list[Value], op: Op) -> Expr:
        """The row-major index of ``arr[i0, ..., ik]``: ``(i0 * n1 + i1) * n2 + i2``."""
        flat = self.expr(idx[0])
        for axis in range(1, len(idx)):
            flat = _plus(times(flat, self._extent(arr, axis, op)), self.expr(idx[axis]))
        return flat

    def _count(self, arr: Value, op: Op) -> Expr:
        rank = arr.type.rank  # type: ignore[attr-defined]
        total = self._extent(arr, 0, op, cover=True)  # a copy needs the elements touched
        for axis in range(1, rank):
            total = binop("*", total, self._extent(arr, axis, op))
        return total


def times(a: Expr, b: Expr) -> Expr:
    """``a * b``, except by an extent of 1 (a ``keepdims`` axis), which C needs no more than NumPy."""
    return a if literal_value(b) == 1 else binop("*", a, b)


def _plus(a: Expr, b: Expr) -> Expr:
    return a if literal_value(b) == 0 else binop("+", a, b)


def _unrestricted(declared: str) -> str:
    """``double *restrict`` as ``double *``: a second pointer into the same array must not
    promise to be the only one."""
    return re.sub(r"\s*\brestrict\b", "", declared)


def slot_helper(kind: str, struct: str) -> str:
    """The name of the function that reads (``get``) or writes (``set``) slot k of an array of
    ``struct``: ``slot_get_Particle``."""
    return f"slot_{kind}_{struct.replace('struct ', '')}"


def slot_helpers(module: Module) -> dict[str, str]:
    """For each struct with integer members the module's functions reach (``c_mixed``: its name
    and each slot's member), the two functions that read and write its k-th slot by member, as
    the IR counts the slots: what a copy of such an array, made number by number, calls."""
    out: dict[str, str] = {}
    for fn in module.functions.values():
        for struct, paths in fn.attrs.get("c_mixed", ()):
            n = len(paths)
            cases = [(k, f"a[k / {n}]{path}") for k, path in enumerate(paths)]
            get = "\n".join(f"    case {k}:\n        return {access};" for k, access in cases)
            put = "\n".join(f"    case {k}:\n        {access} = v;\n        break;" for k, access in cases)
            out[slot_helper("get", struct)] = (
                f"/* Number k of an array of {struct}, counting its members' numbers (integers too) in\n"
                f"   order, {n} per struct: a copy of the array made number by number reads it so. */\n"
                f"static double {slot_helper('get', struct)}(const {struct} *a, long k) {{\n"
                f"    switch (k % {n}) {{\n{get}\n    }}\n    return 0.0;\n}}")
            out[slot_helper("set", struct)] = (
                f"/* Sets number k of an array of {struct} (see {slot_helper('get', struct)}). */\n"
                f"static void {slot_helper('set', struct)}({struct} *a, long k, double v) {{\n"
                f"    switch (k % {n}) {{\n{put}\n    }}\n}}")
    return out


def _carried_extent(if_op: Op, arr: Value, axis: int) -> Optional[Value]:
    """The result of ``if_op`` that carries the extent of its array result ``arr`` along ``axis``
    out of it (``adjoint.sweep.extent_at``): in every branch, that array's extent, or 0 where the
    branch makes no array."""
    for r in if_op.results:
        if not r.type.is_int:
            continue
        for region in if_op.regions:
            extent, made = (region.terminator.operands[k] for k in (r.index, arr.index))
            e, m = extent.defining_op, made.defining_op
            if m is not None and m.name == "undef":
                if e is None or e.name != "const" or e.attrs["value"] != 0:
                    break
            elif not (e is not None and e.name == "dim" and e.operands[0] is made and e.attrs["axis"] == axis
                      or extent is made_extent(made, axis)
                      or m is not None and m.name == "if" and _carried_extent(m, made, axis) is extent):
                break  # (an if in the branch made it: its extent carried out of that if too)
        else:
            return r
    return None
