"""NumPy calls that are spellings of indexing and arithmetic, rewritten as such before typing.

``np.newaxis`` is ``None``, the index that adds an axis of extent 1 (``py_arrays.new_axes``).

``np.diff(x)`` is ``x[..., 1:] - x[..., :-1]`` (``axis=k``: the slices on axis k; ``n=2``: the
difference of the difference): written so, it is typed, lowered and differentiated by the slice
machinery already there (a slice's adjoint adds into part of the shadow), in every output
language that has it. The rewrite happens in the syntax tree of each function (in place:
``info.functions`` gets the rewritten functions), and the new nodes are given the position of the
call they stand for, so a located error points at the call as written.

Only where the rewrite means the same: a literal ``n`` and ``axis``, no ``prepend``/``append``,
and an argument that evaluating twice cannot change (names, attributes, subscripts, constants,
arithmetic and library calls of them: never a call of a function of the file, which may write an
array). Any other ``np.diff`` is left as it is, and refused where it is read.
"""

from __future__ import annotations

import math

from typing import Optional

import libcst as cst

from .py_flow import walk
from .py_module import ModuleInfo


def rewrite_spellings(info: ModuleInfo, positions) -> dict[cst.CSTNode, object]:
    """Rewrite the spellings in every function of ``info``; the positions of the new nodes."""
    new_positions: dict[cst.CSTNode, object] = {}
    for name, fn in list(info.functions.items()):
        if not any(isinstance(n, cst.Call) and (info.canonical_name(n.func) in _SPELLED or _axis_none(info, n)
                                                 or _positional_axis(info, n) is not None or _item_of(info, n)
                                                 or _float_dtype(info, n) is not None)
                   or isinstance(n, cst.Attribute) and info.canonical_name(n) == "numpy.newaxis"
                   or isinstance(n, cst.SubscriptElement) and _integer_list(n) for n in walk(fn)):
            continue  # nothing to rewrite: no transformer pass over the function (every parse runs this)
        rewriter = _Rewriter(info, positions, new_positions)
        out = fn.visit(rewriter)
        if rewriter.changed:
            info.functions[name] = out  # type: ignore[assignment]
    return new_positions


class PlacedRewriter(cst.CSTTransformer):
    """A rewrite of a function's syntax tree that keeps every node located: the nodes it makes are
    placed (``new_positions``) where the nodes they stand for were (``positions``)."""

    def __init__(self, positions, new_positions: dict):
        self.positions = positions
        self.new_positions = new_positions
        self.changed = False

    def on_leave(self, original_node, updated_node):
        out = super().on_leave(original_node, updated_node)
        # A node rebuilt around a rewritten one (its statement, the function) stands where it stood.
        if isinstance(out, cst.CSTNode) and out is not original_node and out not in self.new_positions:
            at = self.positions.get(original_node)
            if at is not None:
                self.new_positions[out] = at
        return out

    def place(self, new: cst.CSTNode, old: cst.CSTNode, whole: bool = False) -> cst.CSTNode:
        """``new`` (with ``whole``, every node in it) stands where ``old`` stands."""
        at = self.new_positions.get(old) or self.positions.get(old)
        if at is not None:
            for n in walk(new) if whole else [new]:
                self.new_positions[n] = at
        return new


class VariableRewriter(PlacedRewriter):
    """A rewrite of variables by name (``leave_Name``), in which an attribute (``x.i``) or a
    keyword (``np.roll(u, 1, axis=axis)``'s ``axis=``) of the same name is no variable."""

    def leave_Attribute(self, original: cst.Attribute, updated: cst.Attribute) -> cst.BaseExpression:
        return updated.with_changes(attr=original.attr)

    def leave_Arg(self, original: cst.Arg, updated: cst.Arg) -> cst.Arg:
        return updated.with_changes(keyword=original.keyword)


class _Rewriter(PlacedRewriter):
    def __init__(self, info: ModuleInfo, positions, new_positions: dict):
        super().__init__(positions, new_positions)
        self.info = info

    def leave_Attribute(self, original: cst.Attribute, updated: cst.Attribute) -> cst.BaseExpression:
        """``np.newaxis`` is ``None`` (an index that adds an axis of extent 1)."""
        if self.info.canonical_name(original) != "numpy.newaxis":
            return updated
        self.changed = True
        return self.place(cst.Name("None"), original)  # type: ignore[return-value]

    def leave_SubscriptElement(self, original: cst.SubscriptElement, updated: cst.SubscriptElement
                               ) -> cst.SubscriptElement:
        """``X[[0, 2]]``, ``X[:, [0, 2]]``: a list of integers as an index is the integer array of
        them (NumPy's fancy indexing), ``np.array([0, 2])``."""
        if not _integer_list(original):
            return updated
        index = updated.slice
        assert isinstance(index, cst.Index)
        self.changed = True
        made = self.place(_np(self.info, "array", index.value), index.value, whole=False)
        self.place(made, index.value, whole=True)
        return updated.with_changes(slice=index.with_changes(value=made))

    def leave_Call(self, original: cst.Call, updated: cst.Call) -> cst.BaseExpression:
        if _axis_none(self.info, original):  # np.sum(x, axis=None): NumPy's default, all the entries
            self.changed = True  # (then spelled as any such call: np.nansum(x, axis=None))
            kept = [a for a in updated.args if not (a.keyword is not None and a.keyword.value == "axis")]
            updated = updated.with_changes(args=[*kept[:-1], kept[-1].with_changes(comma=cst.MaybeSentinel.DEFAULT)]
                                           if kept else [])
        at_axis = _positional_axis(self.info, original)
        if at_axis is not None:  # np.sum(x, 1), X.mean(0): the axis, as a keyword
            args = list(updated.args)
            args[at_axis] = args[at_axis].with_changes(keyword=cst.Name("axis"), equal=cst.AssignEqual(
                whitespace_before=cst.SimpleWhitespace(""), whitespace_after=cst.SimpleWhitespace("")))
            self.changed = True
            return updated.with_changes(args=args)
        floats = _float_dtype(self.info, original)
        if floats is not None:  # np.zeros(n, dtype=float): NumPy's default; np.asarray(x, dtype=float)
            self.changed = True
            out = updated.with_changes(args=[a for k, a in enumerate(updated.args) if k != floats])
            if self.info.canonical_name(original.func) in _CONVERTING:  # (of integers too: converted)
                out = cst.Call(cst.Attribute(out, cst.Name("astype")), [cst.Arg(cst.Name("float"))])
                self.place(out, original, whole=True)
            return out
        if _item_of(self.info, original):  # np.sum(r ** 2).item(): the number itself
            self.changed = True
            return self.place(updated.func.value.with_changes(lpar=updated.lpar, rpar=updated.rpar),  # type: ignore
                              original)
        spell = _SPELLED.get(self.info.canonical_name(original.func) or "")
        out = spell(self.info, updated) if spell is not None else None
        if out is None:
            return updated
        at = self.positions.get(original)
        if at is not None:
            for n in walk(out):
                if n not in self.positions:
                    self.new_positions[n] = at
        self.changed = True
        return out


# NumPy's reductions, whose second positional parameter is ``axis`` (as a function, the array
# first; as a method of the array, the first).
_AXIS_SECOND = frozenset("numpy." + f for f in ("sum", "mean", "max", "amax", "min", "amin", "prod", "var", "std",
                                                "cumsum"))
_AXIS_METHODS = frozenset(("sum", "mean", "max", "min", "prod", "var", "std", "cumsum"))


# NumPy's spellings of a double as a dtype.
_FLOAT64 = frozenset({"builtins.float", "numpy.float64", "numpy.double", "numpy.float_"})
_FLOAT64_STRINGS = frozenset({"float", "float64", "f8", "d", "double"})
# The functions whose arrays are doubles unless a dtype says otherwise, and those that convert
# what they are given (np.array([1, 2], dtype=float): doubles of integers, x.astype(float)).
_DOUBLES_BY_DEFAULT = frozenset("numpy." + f for f in ("zeros", "ones", "empty", "eye", "identity", "linspace"))
_CONVERTING = frozenset({"numpy.array", "numpy.asarray"})


def _integer_list(element: cst.SubscriptElement) -> bool:
    """Whether the index ``element`` is a list literal of integers (``[0, 2]``, ``[-1, 0]``)."""
    index = element.slice
    if not isinstance(index, cst.Index) or not isinstance(index.value, cst.List) or not index.value.elements:
        return False
    return all(isinstance(e, cst.Element) and (
        isinstance(e.value, cst.Integer) or isinstance(e.value, cst.UnaryOperation)
        and isinstance(e.value.operator, cst.Minus) and isinstance(e.value.expression, cst.Integer))
        for e in index.value.elements)


def _float_dtype(info: ModuleInfo, call: cst.Call) -> Optional[int]:
    """The index of a ``dtype=`` argument that asks for doubles (``dtype=float``, ``np.float64``,
    ``"f8"``) of a NumPy function that makes doubles by default or converts to them (see
    ``_CONVERTING``); None where there is none (of np.sum or np.full it stays refused)."""
    if info.canonical_name(call.func) not in _DOUBLES_BY_DEFAULT | _CONVERTING:
        return None
    for k, a in enumerate(call.args):
        if a.keyword is not None and a.keyword.value == "dtype" and (
                info.canonical_name(a.value) in _FLOAT64 or isinstance(a.value, cst.SimpleString)
                and a.value.evaluated_value in _FLOAT64_STRINGS):
            return k
    return None


def _item_of(info: ModuleInfo, call: cst.Call) -> bool:
    """``E.item()`` of a value a call or arithmetic makes (``np.sum(r ** 2).item()``, ``(w @ x).item()``):
    the number ``E`` is, as a Python number. (Of a name, ``x.item()``, it stays unsupported: were
    ``x`` a one-element array, ``y = x`` would name its memory, which ``x.item()`` does not.)"""
    f = call.func
    return isinstance(f, cst.Attribute) and f.attr.value == "item" and not call.args \
        and info.canonical_name(f) is None and isinstance(f.value, (cst.Call, cst.BinaryOperation))


def _positional_axis(info: ModuleInfo, call: cst.Call) -> Optional[int]:
    """Where ``call`` passes a reduction's ``axis`` by position (``np.sum(x, 1)``, ``X.mean(0)``,
    an integer literal), the index of that argument; else None."""
    positional = [a for a in call.args if a.keyword is None]
    if any(a.star for a in call.args) or any(a.keyword is not None and a.keyword.value == "axis" for a in call.args):
        return None
    if info.canonical_name(call.func) in _AXIS_SECOND:
        k = 1
    elif isinstance(call.func, cst.Attribute) and call.func.attr.value in _AXIS_METHODS \
            and info.canonical_name(call.func) is None:
        k = 0
    else:
        return None
    if len(positional) != k + 1 or _literal_int(positional[k].value, 0) is None \
            or positional[k].value is not call.args[k].value:
        return None
    return k if isinstance(positional[k].value, (cst.Integer, cst.UnaryOperation)) else None


def _diff(info: ModuleInfo, call: cst.Call) -> Optional[cst.BaseExpression]:
    """``np.diff(x, n, axis)`` as slices of ``x``, or None where that would not mean the same."""
    positional = [a.value for a in call.args if a.keyword is None and not a.star]
    keywords = {a.keyword.value: a.value for a in call.args if a.keyword is not None}
    if any(a.star for a in call.args) or not positional or len(positional) > 3 \
            or set(keywords) - {"n", "axis"}:
        return None
    x = positional[0]
    n = _literal_int(positional[1] if len(positional) > 1 else keywords.get("n"), 1)
    axis = _literal_int(positional[2] if len(positional) > 2 else keywords.get("axis"), -1)
    if n is None or axis is None or n < 1 or not repeatable(info, x):
        return None
    out = x
    for _ in range(n):
        out = cst.BinaryOperation(_along(out, axis, cst.Slice(lower=cst.Integer("1"), upper=None)),
                                  cst.Subtract(),
                                  _along(out, axis, cst.Slice(lower=None, upper=_minus_one())))
    return out


def _logsumexp(info: ModuleInfo, call: cst.Call) -> Optional[cst.BaseExpression]:
    """``logsumexp(x)`` (``axis=`` a literal) as SciPy computes it, shifted by the largest entry:
    ``np.max(x) + np.log(np.sum(np.exp(x - np.max(x))))`` (with ``axis=k``, the inner maximum
    kept as a column). The shift cancels in the derivative, which is the softmax of ``x``."""
    positional = [a.value for a in call.args if a.keyword is None and not a.star]
    keywords = {a.keyword.value: a.value for a in call.args if a.keyword is not None}
    if any(a.star for a in call.args) or len(positional) != 1 or set(keywords) - {"axis"}:
        return None
    x = positional[0]
    axis = keywords.get("axis")
    if axis is not None and _literal_int(axis, 0) is None or not repeatable(info, x):
        return None

    def np_call(name: str, arg: cst.BaseExpression, keepdims: bool = False) -> cst.Call:
        args = [cst.Arg(arg)]
        if axis is not None and name in ("max", "sum"):
            args.append(cst.Arg(axis, keyword=cst.Name("axis"), equal=_EQUAL))
            if keepdims:
                args.append(cst.Arg(cst.Name("True"), keyword=cst.Name("keepdims"), equal=_EQUAL))
        return cst.Call(np_name(info, name), args)

    shifted = cst.BinaryOperation(_grouped(x), cst.Subtract(), np_call("max", x, keepdims=True))
    total = np_call("log", np_call("sum", np_call("exp", shifted)))
    return cst.BinaryOperation(np_call("max", x), cst.Add(), total)


# The reductions whose axis= defaults to None, all the entries (not np.sort, np.concatenate,
# np.diff: there None means another thing than the default, or nothing).
_REDUCED_BY_DEFAULT = frozenset({"sum", "mean", "max", "min", "amax", "amin", "prod", "std", "var", "all", "any",
                                 "argmax", "argmin", "median", "ptp", "average", "nansum", "nanmean", "nanmax",
                                 "nanmin", "nanprod", "count_nonzero"})


def _axis_none(info: ModuleInfo, call: cst.Call) -> bool:
    """``np.sum(x, axis=None)``, ``x.mean(axis=None)``: a reduction given its default axis (a
    helper's ``axis=None`` passed on: py_none_defaults)."""
    if not any(a.keyword is not None and a.keyword.value == "axis" and isinstance(a.value, cst.Name)
               and a.value.value == "None" for a in call.args):
        return False
    name = info.canonical_name(call.func) or ""
    if name.startswith("numpy."):
        return name.removeprefix("numpy.") in _REDUCED_BY_DEFAULT
    return isinstance(call.func, cst.Attribute) and not name and call.func.attr.value in _REDUCED_BY_DEFAULT


def _one_and_axis(info: ModuleInfo, call: cst.Call, others: tuple[str, ...] = ()
                  ) -> Optional[tuple[cst.BaseExpression, Optional[cst.BaseExpression], dict]]:
    """The one positional argument of ``call`` (evaluating it twice changes nothing), its literal
    ``axis=`` (None: all the entries) and its other keywords (among ``others``); None otherwise."""
    positional = [a.value for a in call.args if a.keyword is None and not a.star]
    keywords = {a.keyword.value: a.value for a in call.args if a.keyword is not None}
    if any(a.star for a in call.args) or len(positional) != 1 or set(keywords) - {"axis", *others}:
        return None
    axis = keywords.pop("axis", None)
    if axis is not None and _literal_int(axis, 0) is None or not repeatable(info, positional[0]):
        return None
    return positional[0], axis, keywords


def _reduced(info: ModuleInfo, name: str, x: cst.BaseExpression, axis: Optional[cst.BaseExpression]) -> cst.Call:
    """``np.<name>(x, axis=axis, keepdims=True)`` (of all the entries: ``np.<name>(x)``, a number)."""
    args = [cst.Arg(x)]
    if axis is not None:
        args += [cst.Arg(axis, keyword=cst.Name("axis"), equal=_EQUAL),
                 cst.Arg(cst.Name("True"), keyword=cst.Name("keepdims"), equal=_EQUAL)]
    return cst.Call(np_name(info, name), args)


def _np(info: ModuleInfo, name: str, *args: cst.BaseExpression) -> cst.Call:
    return cst.Call(np_name(info, name), [cst.Arg(a) for a in args])


def np_name(info: ModuleInfo, name: str) -> cst.Attribute:
    """``np.name`` (``np.sum``, ``np.inf``), NumPy spelled as the module binds it."""
    return cst.Attribute(cst.Name(_numpy_alias(info)), cst.Name(name))


def _softmax(info: ModuleInfo, call: cst.Call) -> Optional[cst.BaseExpression]:
    """``softmax(x, axis=k)`` as SciPy computes it, shifted by the largest entry: ``np.exp(x -
    m) / np.sum(np.exp(x - m), axis=k, keepdims=True)`` with ``m = np.max(x, axis=k,
    keepdims=True)`` (all the entries without ``axis``)."""
    found = _one_and_axis(info, call)
    if found is None:
        return None
    x, axis, _ = found
    shifted = _np(info, "exp", cst.BinaryOperation(_grouped(x), cst.Subtract(), _reduced(info, "max", x, axis)))
    return cst.BinaryOperation(shifted, cst.Divide(), _reduced(info, "sum", shifted, axis))


def _log_softmax(info: ModuleInfo, call: cst.Call) -> Optional[cst.BaseExpression]:
    """``log_softmax(x, axis=k)``: ``x - m - np.log(np.sum(np.exp(x - m), axis=k, keepdims=True))``,
    ``m`` the largest entry (along the axis, kept), as SciPy computes it."""
    found = _one_and_axis(info, call)
    if found is None:
        return None
    x, axis, _ = found
    shifted = cst.BinaryOperation(_grouped(x), cst.Subtract(), _reduced(info, "max", x, axis))
    total = _np(info, "log", _reduced(info, "sum", _np(info, "exp", shifted), axis))
    return cst.BinaryOperation(shifted, cst.Subtract(), total)


def _all_or_any(info: ModuleInfo, call: cst.Call) -> Optional[cst.BaseExpression]:
    """``np.all(c)`` and ``np.any(c)`` of all the entries (conditions, no derivative): how many
    entries are not 0, against ``c.size`` or 0 (``np.count_nonzero``)."""
    found = _one_and_axis(info, call)
    if found is None or found[1] is not None:
        return None
    c = found[0]
    counted = _np(info, "count_nonzero", c)
    if info.canonical_name(call.func) == "numpy.all":
        size = cst.Attribute(_grouped(c), cst.Name("size"))
        return cst.Comparison(counted, [cst.ComparisonTarget(cst.Equal(), size)])
    return cst.Comparison(counted, [cst.ComparisonTarget(cst.GreaterThan(), cst.Integer("0"))])


def _trapezoid(info: ModuleInfo, call: cst.Call) -> Optional[cst.BaseExpression]:
    """``np.trapezoid(y, x)`` (``np.trapz``; ``dx=``, or spacing 1) along the last axis, as NumPy
    computes it: ``np.sum((y[..., 1:] + y[..., :-1]) * (x[..., 1:] - x[..., :-1]) / 2.0, axis=-1)``,
    ``dx * np.sum(... / 2.0, axis=-1)`` for an even spacing."""
    positional = [a.value for a in call.args if a.keyword is None and not a.star]
    keywords = {a.keyword.value: a.value for a in call.args if a.keyword is not None}
    if any(a.star for a in call.args) or not 1 <= len(positional) <= 2 or set(keywords) - {"x", "dx"} \
            or (len(positional) == 2 and keywords) or len(keywords) > 1:
        return None
    y = positional[0]
    x = positional[1] if len(positional) == 2 else keywords.get("x")
    dx = keywords.get("dx")
    if not all(repeatable(info, e) for e in (y, x) if e is not None):
        return None
    ends = cst.BinaryOperation(_along(y, -1, cst.Slice(lower=cst.Integer("1"), upper=None)), cst.Add(),
                               _along(y, -1, cst.Slice(lower=None, upper=_minus_one())))
    if x is not None:
        steps = cst.BinaryOperation(_along(x, -1, cst.Slice(lower=cst.Integer("1"), upper=None)), cst.Subtract(),
                                    _along(x, -1, cst.Slice(lower=None, upper=_minus_one())))
        ends = cst.BinaryOperation(_grouped(ends), cst.Multiply(), _grouped(steps))
    halves = cst.BinaryOperation(_grouped(ends), cst.Divide(), cst.Float("2.0"))
    total = cst.Call(np_name(info, "sum"),
                     [cst.Arg(halves), cst.Arg(_minus_one(), keyword=cst.Name("axis"), equal=_EQUAL)])
    return total if dx is None else cst.BinaryOperation(_grouped(dx), cst.Multiply(), total)


_EQUAL = cst.AssignEqual(whitespace_before=cst.SimpleWhitespace(""), whitespace_after=cst.SimpleWhitespace(""))


def _numpy_alias(info: ModuleInfo) -> str:
    """A name the module binds to NumPy (``np``), for the calls a spelling writes."""
    for name, target in info.imports.items():
        if target == "numpy":
            return name
    return "np"


# The calls rewritten, by library name.
def _norm_kept(info: ModuleInfo, call: cst.Call) -> Optional[cst.BaseExpression]:
    """``np.linalg.norm(x, axis=k, keepdims=True)`` (the 2-norm along an axis, kept to divide by:
    ``x / np.linalg.norm(x, axis=1, keepdims=True)``) as NumPy defines it,
    ``np.sqrt(np.sum(x * x, axis=k, keepdims=True))``. Without ``keepdims`` (or with ``ord``) the
    call stays as written."""
    positional = [a.value for a in call.args if a.keyword is None and not a.star]
    keywords = {a.keyword.value: a.value for a in call.args if a.keyword is not None}
    keep = keywords.get("keepdims")
    if any(a.star for a in call.args) or len(positional) != 1 or set(keywords) != {"axis", "keepdims"} \
            or not (isinstance(keep, cst.Name) and keep.value == "True") or not repeatable(info, positional[0]):
        return None
    x = _grouped(positional[0])
    np_ = cst.Name(_numpy_alias(info))
    total = cst.Call(cst.Attribute(np_, cst.Name("sum")), [
        cst.Arg(cst.BinaryOperation(x, cst.Multiply(), x)),
        cst.Arg(keywords["axis"], keyword=cst.Name("axis"), equal=_EQUAL),
        cst.Arg(cst.Name("True"), keyword=cst.Name("keepdims"), equal=_EQUAL)])
    return cst.Call(cst.Attribute(np_, cst.Name("sqrt")), [cst.Arg(total)])


def _meshgrid(info: ModuleInfo, call: cst.Call) -> Optional[cst.BaseExpression]:
    """``np.meshgrid(x, y, ...)`` as the tuple NumPy returns, each array written with broadcasting:
    with the default ``indexing="xy"``, ``np.ones_like(np.ravel(y))[:, None] * np.ravel(x)[None, :]``
    and ``np.ravel(y)[:, None] * np.ones_like(np.ravel(x))[None, :]`` (``"ij"``: ``x`` along the
    first axis); ``sparse=True``: each input alone, placed on its axis. Multiplying by ones is
    exact, and an input reaches no other output than its own. Literal keywords only."""
    positional = [a.value for a in call.args if a.keyword is None and not a.star]
    keywords = {a.keyword.value: a.value for a in call.args if a.keyword is not None}
    if any(a.star for a in call.args) or not positional or set(keywords) - {"indexing", "sparse", "copy"}:
        return None
    indexing = keywords.get("indexing")
    spelled = indexing.evaluated_value if isinstance(indexing, cst.SimpleString) else "xy" if indexing is None else None
    sparse = _literal_bool(keywords.get("sparse"), False)
    if spelled not in ("xy", "ij") or sparse is None or _literal_bool(keywords.get("copy"), True) is None \
            or not all(repeatable(info, e) for e in positional):
        return None
    n = len(positional)
    axis = list(range(n))
    if spelled == "xy" and n >= 2:  # the first two inputs vary along the columns and the rows
        axis[0], axis[1] = 1, 0
    flat = [_np(info, "ravel", e) for e in positional]

    def placed(e: cst.BaseExpression, at: int) -> cst.BaseExpression:
        index = [cst.SubscriptElement(cst.Slice(lower=None, upper=None)) if k == at
                 else cst.SubscriptElement(cst.Index(cst.Name("None"))) for k in range(n)]
        return cst.Subscript(value=e, slice=index) if n > 1 else e

    outputs: list[cst.BaseExpression] = []
    for k in range(n):
        if sparse or n == 1:
            outputs.append(placed(flat[k], axis[k]))
            continue
        factors = [placed(flat[m] if m == k else _np(info, "ones_like", flat[m]), axis[m]) for m in range(n)]
        product = factors[0]
        for f in factors[1:]:
            product = cst.BinaryOperation(product, cst.Multiply(), f)
        outputs.append(product)
    return cst.Tuple([cst.Element(o) for o in outputs])


def _vander(info: ModuleInfo, call: cst.Call) -> Optional[cst.BaseExpression]:
    """``np.vander(x, N)`` (a literal ``N``; ``increasing=``) as the columns NumPy makes, each a
    power of ``x`` with a literal exponent: ``np.stack([x ** 2, x, np.ones_like(x)], axis=1)``
    (the powers' rules are exact at ``x = 0``, where ``x ** 0`` has no derivative to take)."""
    positional = [a.value for a in call.args if a.keyword is None and not a.star]
    keywords = {a.keyword.value: a.value for a in call.args if a.keyword is not None}
    if "N" in keywords and len(positional) == 1:
        positional.append(keywords.pop("N"))
    columns = _literal_int(positional[1], -1) if len(positional) == 2 else None
    increasing = _literal_bool(keywords.get("increasing"), False)
    if any(a.star for a in call.args) or columns is None or columns < 1 or increasing is None \
            or set(keywords) - {"increasing"} or not repeatable(info, positional[0]):
        return None
    x = positional[0]

    def power(k: int) -> cst.BaseExpression:
        if k == 0:
            return _np(info, "ones_like", x)
        return _grouped(x) if k == 1 else cst.BinaryOperation(_grouped(x), cst.Power(), cst.Integer(str(k)))

    exponents = range(columns) if increasing else range(columns - 1, -1, -1)
    stacked = cst.List([cst.Element(power(k)) for k in exponents])
    return cst.Call(np_name(info, "stack"),
                    [cst.Arg(stacked), cst.Arg(cst.Integer("1"), keyword=cst.Name("axis"), equal=_EQUAL)])


def _literal_bool(node: Optional[cst.BaseExpression], default: bool) -> Optional[bool]:
    """A literal ``True`` or ``False`` (``default`` where there is none); None for anything else."""
    if node is None:
        return default
    return {"True": True, "False": False}.get(node.value) if isinstance(node, cst.Name) else None


def _average(info: ModuleInfo, call: cst.Call) -> Optional[cst.BaseExpression]:
    """``np.average(a)`` (``axis=`` a literal) is ``np.mean(a, axis=k)``; with ``weights=w`` and no
    axis, ``np.sum(a * w) / np.sum(w)``, as NumPy computes it (which wants ``w`` of ``a``'s shape
    there). Weights along an axis (``w`` broadcast along it) and ``returned=`` are left as they
    are, refused where read."""
    positional = [a.value for a in call.args if a.keyword is None and not a.star]
    keywords = {a.keyword.value: a.value for a in call.args if a.keyword is not None}
    if any(a.star for a in call.args) or not 1 <= len(positional) <= 2 or set(keywords) - {"axis", "weights"}:
        return None
    if len(positional) == 2:
        if "axis" in keywords:
            return None
        keywords["axis"] = positional[1]
    a, axis, weights = positional[0], keywords.get("axis"), keywords.get("weights")
    if isinstance(axis, cst.Name) and axis.value == "None":
        axis = None  # (all the entries, as without it)
    if axis is not None and _literal_int(axis, 0) is None:
        return None
    if weights is None:
        args = [cst.Arg(a)] + ([cst.Arg(axis, keyword=cst.Name("axis"), equal=_EQUAL)] if axis is not None else [])
        return cst.Call(np_name(info, "mean"), args)
    if axis is not None or not repeatable(info, weights):
        return None
    weighted = _np(info, "sum", cst.BinaryOperation(_grouped(a), cst.Multiply(), _grouped(weights)))
    return cst.BinaryOperation(weighted, cst.Divide(), _np(info, "sum", weights))


def _flip(info: ModuleInfo, call: cst.Call) -> Optional[cst.BaseExpression]:
    """``np.flip(x, axis=0)``, ``np.flipud(x)``: ``x[::-1]``; ``axis=1``, ``np.fliplr(x)``: ``x[:,
    ::-1]``; ``axis=-1``: ``x[..., ::-1]``. (``np.flip(x)`` reverses every axis: ``py_arrays.flipped``.)"""
    found = _one_and_axis(info, call)
    if found is None:
        return None
    x, axis = found[0], found[1]
    if axis is None and info.canonical_name(call.func) == "numpy.flip":
        return None  # every axis: its rank decides (py_arrays.flipped)
    k = {"numpy.flipud": 0, "numpy.fliplr": 1}.get(info.canonical_name(call.func) or "")
    k = _literal_int(axis, None) if axis is not None else k
    if k not in (0, 1, -1):
        return None
    return _along(x, k, cst.Slice(lower=None, upper=None, step=_minus_one()))  # type: ignore[arg-type]


def _round(info: ModuleInfo, call: cst.Call) -> Optional[cst.BaseExpression]:
    """``np.round(x, d)`` (``np.around``; ``d`` a literal) as NumPy computes it for floats:
    ``np.rint(x)``, ``np.rint(x * 10.0 ** d) / 10.0 ** d`` (``d < 0``: ``np.rint(x / 10.0 ** -d)
    * 10.0 ** -d``); a step, whose derivative is 0 wherever it has one."""
    positional = [a.value for a in call.args if a.keyword is None and not a.star]
    keywords = {a.keyword.value: a.value for a in call.args if a.keyword is not None}
    if any(a.star for a in call.args) or not 1 <= len(positional) <= 2 or set(keywords) - {"decimals"}:
        return None
    digits = _literal_int(positional[1] if len(positional) > 1 else keywords.get("decimals"), 0)
    if digits is None:
        return None
    x = positional[0]
    if digits == 0:
        return _np(info, "rint", x)
    scale = cst.Float(repr(10.0 ** abs(digits)))
    inward, outward = (cst.Multiply(), cst.Divide()) if digits > 0 else (cst.Divide(), cst.Multiply())
    return cst.BinaryOperation(_np(info, "rint", cst.BinaryOperation(_grouped(x), inward, scale)), outward, scale)


def _take(info: ModuleInfo, call: cst.Call) -> Optional[cst.BaseExpression]:
    """``np.take(x, idx)``: ``np.ravel(x)[idx]`` (NumPy takes from the flattened array); with
    ``axis=0``, ``x[idx]`` (a list of integers as the integer array of them)."""
    positional = [a.value for a in call.args if a.keyword is None and not a.star]
    keywords = {a.keyword.value: a.value for a in call.args if a.keyword is not None}
    if any(a.star for a in call.args) or len(positional) != 2 or set(keywords) - {"axis"}:
        return None
    axis = keywords.get("axis")
    if axis is not None and _literal_int(axis, -1) != 0:
        return None
    x, idx = positional
    if isinstance(idx, (cst.List, cst.Tuple)):
        idx = _np(info, "array", idx.with_changes(lpar=[], rpar=[]) if isinstance(idx, cst.List) else cst.List(
            [cst.Element(e.value) for e in idx.elements]))
    source = _grouped(x) if axis is not None else _np(info, "ravel", x)
    return cst.Subscript(value=source, slice=[cst.SubscriptElement(cst.Index(idx))])


def _tile_or_repeat(info: ModuleInfo, call: cst.Call) -> Optional[cst.BaseExpression]:
    """``np.tile(x, k)``: ``k`` copies of ``x`` joined along its last axis,
    ``np.concatenate([x, x], axis=-1)``; ``np.repeat(x, k)``: each entry of the flattened ``x``
    ``k`` times, ``np.ravel(np.stack([np.ravel(x), np.ravel(x)], axis=1))``; ``k`` a literal."""
    positional = [a.value for a in call.args if a.keyword is None and not a.star]
    if any(a.star or a.keyword is not None for a in call.args) or len(positional) != 2:
        return None
    x, count = positional[0], _literal_int(positional[1], -1)
    if count is None or count < 1 or not repeatable(info, x):
        return None
    minus_one = cst.Arg(_minus_one(), keyword=cst.Name("axis"), equal=_EQUAL)
    if info.canonical_name(call.func) == "numpy.tile":
        return cst.Call(np_name(info, "concatenate"),
                        [cst.Arg(cst.List([cst.Element(x) for _ in range(count)])), minus_one])
    copies = cst.List([cst.Element(_np(info, "ravel", x)) for _ in range(count)])
    stacked = cst.Call(np_name(info, "stack"),
                       [cst.Arg(copies), cst.Arg(cst.Integer("1"), keyword=cst.Name("axis"), equal=_EQUAL)])
    return _np(info, "ravel", stacked)


def _append(info: ModuleInfo, call: cst.Call) -> Optional[cst.BaseExpression]:
    """``np.append(x, v)`` (no ``axis``): both flattened and joined, ``np.concatenate((np.ravel(x),
    np.ravel(v)))``, a number ``v`` written as the list ``[v]``."""
    positional = [a.value for a in call.args if a.keyword is None and not a.star]
    if any(a.star or a.keyword is not None for a in call.args) or len(positional) != 2:
        return None
    parts = [cst.List([cst.Element(v)]) if isinstance(v, (cst.Integer, cst.Float)) or isinstance(
        v, cst.UnaryOperation) and isinstance(v.expression, (cst.Integer, cst.Float)) else _np(info, "ravel", v)
        for v in positional]
    return _np(info, "concatenate", cst.Tuple([cst.Element(p) for p in parts]))


def _peak_to_peak(info: ModuleInfo, call: cst.Call) -> Optional[cst.BaseExpression]:
    """``np.ptp(x, axis=k)``: ``np.max(x, axis=k) - np.min(x, axis=k)``."""
    found = _one_and_axis(info, call)
    if found is None:
        return None
    x, axis, _ = found

    def extreme(name: str) -> cst.Call:
        args = [cst.Arg(x)] + ([cst.Arg(axis, keyword=cst.Name("axis"), equal=_EQUAL)] if axis is not None else [])
        return cst.Call(np_name(info, name), args)
    return cst.BinaryOperation(extreme("max"), cst.Subtract(), extreme("min"))


def _angle(info: ModuleInfo, call: cst.Call) -> Optional[cst.BaseExpression]:
    """``np.deg2rad(x)`` (``np.radians``) as NumPy computes it, ``x * (pi / 180)``; ``np.rad2deg(x)``
    (``np.degrees``) ``x * (180 / pi)``."""
    positional = [a.value for a in call.args if a.keyword is None and not a.star]
    if any(a.star or a.keyword is not None for a in call.args) or len(positional) != 1:
        return None
    to_radians = info.canonical_name(call.func) in ("numpy.deg2rad", "numpy.radians")
    factor = math.pi / 180.0 if to_radians else 180.0 / math.pi
    return cst.BinaryOperation(_grouped(positional[0]), cst.Multiply(), cst.Float(repr(factor)))


def _ediff1d(info: ModuleInfo, call: cst.Call) -> Optional[cst.BaseExpression]:
    """``np.ediff1d(x)``: the differences of the flattened ``x``, ``np.diff(np.ravel(x))``."""
    positional = [a.value for a in call.args if a.keyword is None and not a.star]
    if any(a.star or a.keyword is not None for a in call.args) or len(positional) != 1:
        return None
    return _diff(info, _np(info, "diff", _np(info, "ravel", positional[0])))


def _nan_reduction(info: ModuleInfo, call: cst.Call) -> Optional[cst.BaseExpression]:
    """``np.nansum(x)``, ``nanprod``, ``nanmax``, ``nanmin`` (``axis=``, ``keepdims=`` as given):
    the reduction of ``x`` with each NaN (``x != x``) the entry that leaves it unchanged,
    ``np.sum(np.where(x != x, 0.0, x))``, so a NaN entry has derivative 0; ``np.nanmean(x)``: that
    sum over the count of the other entries. (Of NaN entries only, nanmax gives -inf, where NumPy
    gives NaN and warns.)"""
    found = _one_and_axis(info, call, ("keepdims",))
    if found is None:
        return None
    x = found[0]
    kept = [a.with_changes(comma=cst.MaybeSentinel.DEFAULT) for a in call.args if a.keyword is not None]
    name = (info.canonical_name(call.func) or "").removeprefix("numpy.nan")
    fill = {"sum": cst.Float("0.0"), "mean": cst.Float("0.0"), "prod": cst.Float("1.0"),
            "max": cst.UnaryOperation(cst.Minus(), np_name(info, "inf")),
            "min": np_name(info, "inf")}[name]

    def reduced(how: str, value: cst.BaseExpression) -> cst.Call:
        return cst.Call(np_name(info, how),
                        [cst.Arg(value), *(a.deep_clone() for a in kept)])

    def cleaned(value: cst.BaseExpression, other: cst.BaseExpression) -> cst.Call:
        return _np(info, "where", _is_nan(x.deep_clone()), value, other)
    if name != "mean":
        return reduced(name, cleaned(fill, x))
    count = reduced("sum", cleaned(cst.Float("0.0"), cst.Float("1.0")))
    return cst.BinaryOperation(reduced("sum", cleaned(fill, x)), cst.Divide(), count)


def _is_nan(x: cst.BaseExpression) -> cst.BaseExpression:
    """``x != x``: True where ``x`` is NaN (of a number or an array)."""
    return cst.Comparison(_grouped(x), [cst.ComparisonTarget(cst.NotEqual(), _grouped(x.deep_clone()))],
                          lpar=[cst.LeftParen()], rpar=[cst.RightParen()])


def _repeatable_sole_argument(info: ModuleInfo, call: cst.Call) -> Optional[cst.BaseExpression]:
    """The one argument of ``call``, by position, none by keyword, where evaluating it twice
    changes nothing (a spelling that reads it twice); else None."""
    if len(call.args) != 1 or call.args[0].star or call.args[0].keyword is not None \
            or not repeatable(info, call.args[0].value):
        return None
    return call.args[0].value


def _nan_test(info: ModuleInfo, call: cst.Call) -> Optional[cst.BaseExpression]:
    """``np.isnan(x)``: ``x != x``; ``np.isinf(x)``: ``np.abs(x) == np.inf``; ``np.isfinite(x)``:
    ``np.abs(x) < np.inf`` (False for NaN, as NumPy)."""
    x = _repeatable_sole_argument(info, call)
    if x is None:
        return None
    name = info.canonical_name(call.func)
    if name == "numpy.isnan":
        return _is_nan(x)
    inf = np_name(info, "inf")
    operator = cst.Equal() if name == "numpy.isinf" else cst.LessThan()
    return cst.Comparison(_np(info, "abs", x), [cst.ComparisonTarget(operator, inf)],
                          lpar=[cst.LeftParen()], rpar=[cst.RightParen()])


def _sinc(info: ModuleInfo, call: cst.Call) -> Optional[cst.BaseExpression]:
    """``np.sinc(x)``: ``sin(pi x) / (pi x)``, 1 at 0, ``np.where(x == 0.0, 1.0, np.sin(np.pi * x)
    / (np.pi * x))`` (its derivative there 0, the masked branch's division kept finite by
    opt/masked_where)."""
    x = _repeatable_sole_argument(info, call)
    if x is None:
        return None

    def scaled() -> cst.BaseExpression:
        pi = np_name(info, "pi")
        return cst.BinaryOperation(pi, cst.Multiply(), _grouped(x.deep_clone()))
    ratio = cst.BinaryOperation(_np(info, "sin", scaled()), cst.Divide(), scaled().with_changes(
        lpar=[cst.LeftParen()], rpar=[cst.RightParen()]))
    zero = cst.Comparison(_grouped(x.deep_clone()), [cst.ComparisonTarget(cst.Equal(), cst.Float("0.0"))])
    return _np(info, "where", zero, cst.Float("1.0"), ratio)


_SPELLED = {"numpy.diff": _diff, "numpy.average": _average, "scipy.special.logsumexp": _logsumexp,
            "numpy.trapezoid": _trapezoid, "numpy.trapz": _trapezoid, "numpy.linalg.norm": _norm_kept,
            "scipy.special.softmax": _softmax, "scipy.special.log_softmax": _log_softmax,
            "numpy.all": _all_or_any, "numpy.any": _all_or_any, "numpy.meshgrid": _meshgrid,
            "numpy.vander": _vander, "numpy.flip": _flip, "numpy.flipud": _flip, "numpy.fliplr": _flip,
            "numpy.round": _round,
            "numpy.around": _round, "numpy.take": _take, "numpy.tile": _tile_or_repeat,
            "numpy.repeat": _tile_or_repeat, "numpy.append": _append, "numpy.ptp": _peak_to_peak,
            "numpy.deg2rad": _angle, "numpy.radians": _angle, "numpy.rad2deg": _angle, "numpy.degrees": _angle,
            "numpy.ediff1d": _ediff1d, "numpy.nansum": _nan_reduction, "numpy.nanprod": _nan_reduction,
            "numpy.nanmax": _nan_reduction, "numpy.nanmin": _nan_reduction, "numpy.nanmean": _nan_reduction,
            "numpy.isnan": _nan_test, "numpy.isinf": _nan_test, "numpy.isfinite": _nan_test, "numpy.sinc": _sinc}


def _along(x: cst.BaseExpression, axis: int, part: cst.Slice) -> cst.Subscript:
    """``x[..., part]`` (axis -1), ``x[part]`` (axis 0), ``x[:, part]`` (axis 1), ..."""
    full = cst.SubscriptElement(cst.Slice(lower=None, upper=None))
    if axis < 0:
        rest = [cst.SubscriptElement(cst.Slice(lower=None, upper=None)) for _ in range(-axis - 1)]
        elements = [cst.SubscriptElement(cst.Index(cst.Ellipsis())), cst.SubscriptElement(part), *rest]
    else:
        elements = [full] * axis + [cst.SubscriptElement(part)]
    return cst.Subscript(value=_grouped(x), slice=elements)


def _grouped(x: cst.BaseExpression) -> cst.BaseExpression:
    """``x`` as the value of a subscript: parenthesized unless it is a name, subscript, call or
    attribute (``(a - b)[1:]``)."""
    if isinstance(x, (cst.Name, cst.Subscript, cst.Call, cst.Attribute)):
        return x
    return x.with_changes(lpar=[cst.LeftParen()], rpar=[cst.RightParen()])


def _minus_one() -> cst.BaseExpression:
    return cst.UnaryOperation(cst.Minus(), cst.Integer("1"))


def _literal_int(node: Optional[cst.BaseExpression], default: int) -> Optional[int]:
    if node is None:
        return default
    if isinstance(node, cst.Integer):
        return int(node.value)
    if isinstance(node, cst.UnaryOperation) and isinstance(node.operator, cst.Minus) \
            and isinstance(node.expression, cst.Integer):
        return -int(node.expression.value)
    return None


def repeatable(info: ModuleInfo, x: cst.BaseExpression) -> bool:
    """Evaluating ``x`` twice gives the same and changes nothing: no call of a function of the
    file (which may write an array), no assignment expression."""
    for n in walk(x):
        if isinstance(n, cst.NamedExpr):
            return False
        if isinstance(n, cst.Call):
            canonical = info.canonical_name(n.func)
            if canonical is None or not canonical.startswith(("numpy.", "math.")):
                return False
    return True
