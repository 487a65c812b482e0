"""The checks of assumed parameter ranks at a gradient's entry, in Python and in Numba.

Type inference marks each rank of an unannotated NumPy parameter that it had to assume, and the
pipeline gives the entry gradient those the generated code depends on (``attrs["guards"]``, 0
for a number). The gradient checks them when it starts and raises ``ValueError`` naming the
parameter and the annotation that would settle it (README, "Assumptions a generated gradient
makes"). Python checks at run time, before the body runs: ``if np.ndim(W) != 2: raise ...``.
A parameter used the same way at every rank (``np.sum(W * W)``) but differentiated must still be
an array, of any rank: a number's shadow is a float the gradient cannot add into
(``if not isinstance(W, np.ndarray): raise TypeError(...)``: a check of the argument's type, so
a TypeError, as ruff's TRY004 asks).

Numba types a whole function for its argument types before any of it runs, so a body written
for the assumed rank that does not type at the caller's (the adjoint of ``np.dot(x, x)`` for a
vector ``x`` taken for a matrix) fails to compile, with a TypingError that names neither the
parameter nor the annotation, before a run-time check could raise (fuzzer seed 10200408). So
there the checks are decided when Numba compiles, from the argument types alone: ``hasattr``
of an argument types as a literal, ``W.ndim`` of an array argument is folded to a constant, and
Numba prunes the branches they decide before it types the rest. With a rank other than the one
assumed only the ``raise`` is compiled. A number has no ``ndim`` (``.ndim`` of one does not
type), hence ``hasattr`` first.

The checked Numba gradient is then two functions: ``grad_f`` holds only the checks and calls
``grad_f_unchecked``, the gradient itself, which is compiled only for the ranks it was written
for. One function cannot do it: ``hasattr`` makes Numba run its literal propagation over the
whole function, and that fails on a variable assigned more than once but not on every path that
reaches a use (Numba 0.68: "'UndefinedType' object has no attribute 'name'"), as gradients have
many (a value of the forward sweep that the reverse sweep recomputes under the same condition).
The function with the checks has none.
"""

from __future__ import annotations

from typing import Optional

from ..emit.stmt import LINE_LIMIT
from ..ssa.attrs import shadows_of
from ..ssa.ir import Function, Module, Value


def check_lines(fn: Function, names: dict, numba: bool) -> list[str]:
    """The checks of ``fn``'s assumed ranks (``fn.attrs["guards"]``), indented for its body;
    ``names`` spells each parameter (an IR value) as the function's signature does. Python's
    checks need ``np`` imported, Numba's nothing."""
    guards = fn.attrs.get("guards") or {}
    primal = fn.attrs.get("primal", fn.name)
    lines: list[str] = []
    seen: set[str] = set()
    for p in fn.params:
        source = p.name_hint
        if source not in guards or source in seen:
            continue
        seen.add(source)
        name = names.get(p) or source
        rank = guards[source]
        error = "ValueError"
        if rank < 0:  # an array of any rank (pipeline.ANY_RANK): its shadow is added into
            test = f'not hasattr({name}, "ndim")' if numba else f"not isinstance({name}, np.ndarray)"
            message = (f"{source} must be a NumPy array: its kind is not evident in {primal} "
                       f"(for a number, annotate {source}: float)")
            error = "TypeError"  # a check of the argument's type (ruff: TRY004)
        else:
            test, message = _rank_check(p, name, rank, primal, numba)
        lines += _raise_if(test, _quoted(message), LINE_LIMIT, error)
    return lines


def _rank_check(p: Value, name: str, rank: int, primal: str, numba: bool) -> tuple[str, str]:
    """The test that parameter ``p`` (spelled ``name``) has another rank than ``rank``, and the
    message naming the annotation that would settle it."""
    source = p.name_hint
    test = _numba_rank_differs(name, rank) if numba else f"np.ndim({name}) != {rank}"
    integer = p.type.is_int or (p.type.is_array and p.type.elem.is_int)  # type: ignore[attr-defined]
    kind = ("an integer" if integer else "a number") if rank == 0 else f"a {rank}-D array"
    elem = "i64" if integer else "f64"
    other = f'"{elem}[m, n]"' if rank == 1 else f'"{elem}[n]"'
    verb = "for an array, annotate" if rank == 0 else "else annotate"
    return test, f"{source} must be {kind}: its rank is not evident in {primal} ({verb} {source}: {other})"


def _quoted(message: str) -> str:
    return f"'{message}'" if '"' in message else f'"{message}"'  # as ruff format quotes it


def _raise_if(test: str, quoted: str, limit: int, error: str = "ValueError") -> list[str]:
    """``if test: raise ValueError(quoted)``, the raise wrapped as ruff format wraps it past ``limit``."""
    if len(f"        raise {error}({quoted})") > limit:
        return [f"    if {test}:", f"        raise {error}(", f"            {quoted}", "        )"]
    return [f"    if {test}:", f"        raise {error}({quoted})"]


def extent_check_lines(fn: Function, names: dict, numba: bool) -> list[str]:
    """The checks of the parameter extents ``fn``'s lowering assumed equal (``fn.attrs
    ["same_extents"]``: an array rebound in a loop to a value made from other parameters' extents,
    ``h = np.tanh(Wh @ h + Wx @ x[t])`` after ``h = h0``). Where they differ the primal fails on
    the next iteration or computes with another shape; the gradient, which keeps one array for
    the name, would not, so it refuses them on entry, after the rank checks."""
    by_source = {p.name_hint: names.get(p) or p.name_hint for p in fn.params}
    primal = fn.attrs.get("primal", fn.name)
    generic = fn.attrs.get("shape_generic") or {}  # name -> the most axes it may have
    lines: list[str] = []
    seen: set[frozenset] = set()
    for fact in fn.attrs.get("same_extents") or []:
        a, b = (tuple(side) for side in fact["sides"])
        if frozenset((a, b)) in seen:  # (the same two extents, in either order)
            continue
        seen.add(frozenset((a, b)))
        code = [_extent_code(side, by_source, numba, generic) for side in (a, b)]
        text = [_extent_code(side, {}, False) for side in (a, b)]
        why = fact.get("why") or f"line {fact['loc'][0]} rebinds '{fact['name']}' in a loop, which keeps its shape"
        message = f"{text[0]} must equal {text[1]} in {primal} ({why})"
        test = f"{code[0]} != {code[1]}"
        stretched = [side for side in (a, b) if side[0] == "dim" and side[1] in generic]
        if stretched and len(stretched) < 2:
            # A shape-generic parameter's axis (a number's, a shorter array's: one long) stretches
            # to the other side's extent: only another length differs (probe p61: q * np.eye(2)
            # with q a number failed on the check itself, asking for np.shape(q)[0]).
            message = f"{text[0]} must equal {text[1]} (or be 1) in {primal} ({why})"
            test = f"{code[0]} not in (1, {code[1]})" if stretched[0] is a else f"{code[1]} not in (1, {code[0]})"
        lines += _raise_if(test, f'"{message}"', _RUFF_LINE)
    return lines


def sequence_lines(fn: Function, names: dict) -> list[str]:
    """Python output: each array parameter the function only reads (``fn.attrs["sequences"]``),
    passed as a list or a tuple of numbers (``pairwise_sum([0.1, 0.4], [1.0, 2.0])``, which the
    primal takes), made the array the gradient reads (``.shape``, whole-array arithmetic) first."""
    lines: list[str] = []
    for p in fn.params:
        if p.name_hint in (fn.attrs.get("sequences") or ()):
            name = names.get(p) or p.name_hint
            dtype = "np.int64" if p.type.elem.is_int else "np.float64"  # type: ignore[attr-defined]
            lines += [f"    if isinstance({name}, (list, tuple)):",
                      f"        {name} = np.asarray({name}, dtype={dtype})"]
    return lines


def unit_check_lines(fn: Function, names: dict, numba: bool) -> list[str]:
    """The checks of the axes the annotations say are one long (``a: "f64[n, 1]"``): the gradient
    sums the adjoint of what such an axis stretched over it (``array_ops.shape_unit_axes``), which
    an array as long as the others there would not undo. Python's test holds for any rank."""
    primal = fn.attrs.get("primal", fn.name)
    lines: list[str] = []
    for p in fn.params:
        for axis in sorted(fn.body.arg_unit_axes.get(p.index, ())):
            name = names.get(p) or p.name_hint
            test = f"{name}.shape[{axis}] != 1" if numba else f"np.shape({name})[{axis}:{axis + 1}] != (1,)"
            message = f"{p.name_hint}.shape[{axis}] must be 1 in {primal}, as its annotation says"
            lines += _raise_if(test, f'"{message}"', _RUFF_LINE)
    return lines


def _extent_code(side: tuple, names: dict, numba: bool, generic: Optional[dict] = None) -> str:
    """One side of an extent check: ``x.shape[0]``, an integer parameter, a constant; of a
    shape-generic parameter (``generic``: name -> its most axes), the extent NumPy aligns with that
    axis: 1 where the value has fewer axes (a number has none)."""
    if side[0] == "dim":
        name = names.get(side[1], side[1])
        if generic and side[1] in generic:
            ones = ", ".join("1" for _ in range(generic[side[1]]))
            return f"np.broadcast_shapes(np.shape({name}), ({ones},))[{side[2]}]"
        return f"{name}.shape[{side[2]}]" if numba or not names else f"np.shape({name})[{side[2]}]"
    if side[0] == "int":
        return names.get(side[1], side[1])
    return str(side[1])


_RUFF_LINE = 88  # ruff format's default line length


def generic_check_lines(fn: Function, names: dict, numba: bool) -> list[str]:
    """The entry checks of ``fn``'s shape-generic parameters (``fn.attrs["shape_generic"]``: name ->
    the most axes it may have; ``adjoint.shape_generic``): not more axes than the arrays it meets
    (more would make NumPy's result bigger than the gradient takes it to be), and a differentiated
    one's shadow an array of its shape (``fn.attrs["generic_shadows"]``), which the gradient adds
    into in place. Numba decides the tests from the argument types as it compiles (``np.shape`` of
    a number is ``()`` there too) and raises messages it can build without formatting."""
    generic = fn.attrs.get("shape_generic") or {}
    shadows = dict(fn.attrs.get("generic_shadows") or {})
    for j, i in generic_array_shadows(fn):  # an array's shadow, of its shape (a 0-d array for a number)
        shadow = fn.params[i]
        shadows[fn.params[j].name_hint] = names.get(shadow) or shadow.name_hint
    primal = fn.attrs.get("primal", fn.name)
    lines: list[str] = []
    for p in fn.params:
        source = p.name_hint
        if source not in generic:
            continue
        name = names.get(p) or source
        most = generic[source]
        fewest = (fn.attrs.get("generic_fewest") or {}).get(source, 0)
        if fewest and fewest == most:  # one rank only: the check of an assumed rank
            test, message = _rank_check(p, name, most, primal, numba)
            lines += _raise_if(test, _quoted(message), LINE_LIMIT)
            continue
        axes = "axis" if most == 1 else "axes"
        if fewest:  # its extent read (len(x)): an array
            at_least = f"at least {fewest} {'axis' if fewest == 1 else 'axes'}"
            allowed = f"{source} must be an array of " + (
                f"{fewest} to {most} axes" if most > fewest else f"{most} {axes}" if most >= 0 else at_least
            ) + f" in {primal}"
        else:
            allowed = f"{source} may be a number or an array of up to {most} {axes} in {primal}"
        ndim = f"{name}.ndim" if numba else f"np.ndim({name})"
        tests = ([f"{ndim} > {most}"] if most >= 0 else []) + ([f"{ndim} < {fewest}"] if fewest else [])
        if numba and tests:  # spelled so that Numba decides it from the argument's type as it compiles
            # (without fewest, the only test is of the most axes)
            tests = [f'not hasattr({name}, "ndim")', *tests] if fewest else [f'hasattr({name}, "ndim") and {tests[0]}']
        checks = [(" or ".join(tests), allowed if numba else f"{allowed}, not {{np.ndim({name})}}")] if tests else []
        if source in shadows:
            d = shadows[source]
            not_array = f'not hasattr({d}, "ndim")' if numba else f"not isinstance({d}, np.ndarray)"
            checks.append((f"{not_array} or np.shape({d}) != np.shape({name})",
                           f"{d} must be an array of the shape of {source} (a 0-d array for a number)"))
        for test, message in checks:
            lines += _raise_if(test, f'f"{message}"' if "{" in message else f'"{message}"', _RUFF_LINE)
    return lines


def generic_array_shadows(fn: Function) -> list[tuple[int, int]]:
    """(parameter, its shadow), by index, of ``fn``'s shape-generic parameters that are arrays in
    the IR (a number's shadow is ``fn.attrs["generic_shadows"]``'s)."""
    generic = fn.attrs.get("shape_generic") or {}
    return [(j, i) for i, j in sorted(shadows_of(fn).items()) if fn.params[j].name_hint in generic]


def generic_text(primal: str, generic: list[tuple[str, str]]) -> list[str]:
    """The docstring's sentence on shape-generic parameters and their shadows."""
    if not generic:
        return []
    pairs = ", ".join(f"{shadow} for {name}" for name, shadow in generic)
    return [f"Each shape-generic parameter (a number or an array of any shape that broadcasts where {primal} "
            f"uses it) takes a shadow array of its own shape, a 0-d array (np.zeros(())) for a number: {pairs}."]


def _numba_rank_differs(name: str, rank: int) -> str:
    """The test that Numba decides from the argument's type as it compiles (see the module)."""
    if rank == 0:
        return f'hasattr({name}, "ndim") and {name}.ndim != 0'
    return f'not hasattr({name}, "ndim") or {name}.ndim != {rank}'


def unchecked_names(module: Module) -> dict[str, str]:
    """For Numba output: the name of the gradient without its checks, for each function that has
    checks. Calls between the module's functions go to it (a recursive gradient's self-calls
    included): only the caller's call needs checking, and a call back to the checks would make
    the recursion mutual, which Numba types less readily."""
    taken = set(module.functions)
    out: dict[str, str] = {}
    for name, fn in module.functions.items():
        if fn.attrs.get("guards"):
            unchecked = f"{name}_unchecked"
            while unchecked in taken:
                unchecked += "_"
            taken.add(unchecked)
            out[name] = unchecked
    return out
