"""What a gradient function says about its own parameters: the contract's convention, in words.

The contract asks every gradient function to carry it (a Python docstring, a C comment), so
that a reader of the output needs no other document to call it. The text is built here from
the facts the gradient records (``ssa.attrs.grad_info``), in no output language; each emitter
wraps it (``docstring``, ``comment``).
"""

from __future__ import annotations

import textwrap
from dataclasses import dataclass
from typing import Optional

WIDTH = 80  # of the text itself: the emitters indent it and add their comment marks


@dataclass(frozen=True)
class Convention:
    """A gradient function's parameters, by name as the output spells them."""

    primal: str  # the function differentiated
    shadows: list[tuple[str, str]]  # (array, its shadow)
    scalars: list[str]  # the scalar parameters whose adjoints the gradient gives back
    scalar_cells: Optional[list[str]]  # C: where each adjoint is added (*d_a, d_w->gamma); Python: None (returned)
    seed: Optional[str]  # the seed of the primal's result, if it returns one
    seed_kind: str = "float"  # "float", "array" or "tuple" (one seed per returned value)
    with_value: bool = False  # --with-value: the primal's value is given back too
    calling: tuple[str, ...] = ()  # sentences on how it is called (defaults, keyword-only parameters)


def entry_text(c: Convention) -> list[str]:
    """The convention of the gradient its caller calls, as lines of text."""
    f = c.primal
    terms = []
    if c.seed is not None:
        terms.append({"float": f"{c.seed} * {f}(...)", "array": f"<{c.seed}, {f}(...)>",
                      "tuple": f"<{c.seed}, {f}(...)> (one seed per returned value)"}[c.seed_kind])
    terms += [f"<{shadow}, {array}>" for array, shadow in c.shadows]
    summary = f"The gradient of {f}, by s2sad's reverse mode."
    formula = f"J = {' + '.join(terms) or '0'}"
    after = [f"with the seeds as passed in and the arrays as {f} leaves them"
             + (", each <,> a sum of elementwise products." if any("<" in t for t in terms) else ".")]
    if c.shadows:
        arrays = _names([a for a, _ in c.shadows])
        shadows = _names([s for _, s in c.shadows])
        one = len(c.shadows) == 1
        after.append(
            f"On return, {shadows} {'holds' if one else 'hold'} the derivative{'' if one else 's'} of J with "
            f"respect to {arrays} as {'it was' if one else 'they were'} on entry to {f} (for an array that "
            f"{f} only reads, that is the value passed in plus the derivative).")
    derivatives = [f"dJ/d{x}" for x in c.scalars]
    if c.scalar_cells is None:
        said = (derivatives[0] if len(derivatives) == 1 else f"({', '.join(derivatives)})") if derivatives else ""
        if c.with_value:
            after.append(f"Returns ({f}(...), {said or 'None'}), the value as {f} returns it.")
        elif said:
            after.append(f"Returns {said}.")
    else:
        if derivatives:
            adds = [f"{d} to {cell}" for d, cell in zip(derivatives, c.scalar_cells)]
            after.append(f"Adds {_names(adds)}.")
        if c.with_value:
            after.append(f"Returns the value of {f}(...).")
    calling = [""] + _wrap(" ".join(c.calling)) if c.calling else []
    return [summary, "", *_wrap(f"It runs {f} (its effects on arrays included), then the reverse sweep, for"),
            "", f"    {formula}", "", *_wrap(" ".join(after)), *calling]


def calling_text(primal: str, defaults: list[str], keyword_only: list[str], spelled_keyword_only: bool,
                 seed_only: bool) -> list[str]:
    """How a gradient is called where the primal has default values or keyword-only parameters
    (the contract is silent there; the gradient is callable the way the primal is).
    ``seed_only``: the keyword-only parameter is the seed alone, which has no default and
    follows parameters that have one."""
    out = []
    if defaults:
        one = len(defaults) == 1
        out.append(f"{_names(defaults)} {'keeps its' if one else 'keep their'} default{'' if one else 's'}, as in "
                   f"{primal}.")
    verb = "is" if len(keyword_only) == 1 else "are"
    if keyword_only and seed_only:
        out.append(f"{_names(keyword_only)} {verb} keyword-only: it has no default and follows parameters that "
                   "have one.")
    elif keyword_only and spelled_keyword_only:
        out.append(f"{_names(keyword_only)} {verb} keyword-only, as what follows the * of {primal} is.")
    elif keyword_only:
        out.append(f"{_names(keyword_only)}, keyword-only in {primal}, may also be passed by position here: Numba "
                   "has no keyword-only parameters.")
    return out


def helper_text(primal: str, entry_primal: str) -> list[str]:
    """The convention of a gradient that another gradient calls (its seeds and shadows as in
    the entry's; arrays its callers never read again may be left with partial adjoints)."""
    return _wrap(f"The adjoint of {primal}, for the gradient of {entry_primal}: its parameters follow the same "
                 "convention, except that it may leave a shadow incomplete where its callers never read it again.")


def instance_text(attrs: dict, gradient: bool) -> Optional[str]:
    """For one of several copies of a helper typed from its calls (parse/py_specialize), the line
    that names the helper and what its calls pass; None for any other function."""
    source = attrs.get("specialized_from")
    if source is None:
        return None
    spelled = ", ".join(f"{p} as {what}" for p, what in (attrs.get("given") or {}).items())
    text = f"the adjoint of {source}" if gradient else source
    return f"{text}, for calls that pass {spelled}" if spelled else text


def _names(names: list[str]) -> str:
    return names[0] if len(names) == 1 else ", ".join(names[:-1]) + " and " + names[-1]


def _wrap(text: str) -> list[str]:
    return textwrap.wrap(text, WIDTH, break_on_hyphens=False, break_long_words=False)
