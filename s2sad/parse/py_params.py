"""A Python function's parameters, and which argument of a call fills each one.

Shared by type inference (``py_types``), the rank-free analysis (``py_rank_free``) and lowering
(``py_expr``), which must all agree on the binding: a keyword argument fills the parameter it
names, a parameter no argument fills takes its default.
"""

from __future__ import annotations

from typing import Optional

import libcst as cst


def parameters(fn: cst.FunctionDef) -> list[cst.Param]:
    """A function's named parameters in Python's order: the positional ones, then the
    keyword-only ones (``*args``, ``**kwargs`` and positional-only ones are refused by lowering)."""
    return [*fn.params.params, *fn.params.kwonly_params]


def bind_arguments(call: cst.Call, name: str, names: list[str], positional: Optional[int]
                   ) -> tuple[list[Optional[cst.Arg]], Optional[tuple[cst.CSTNode, str]]]:
    """Which argument of ``call`` fills each parameter ``names`` of the function ``name`` (the
    first ``positional`` of them may be passed by position; None: all), as Python binds them
    (positions first, then keywords; None: the parameter's default), and the first problem
    Python would raise a TypeError for (the node and the message), if any."""
    n = len(names)
    positional = n if positional is None else positional
    bound: list[Optional[cst.Arg]] = [None] * n
    k = 0
    for a in call.args:
        if a.star:
            return bound, (a, "*args and **kwargs in calls are not supported")
        if a.keyword is None:
            if k >= positional:
                return bound, (call, f"'{name}' takes {positional} positional argument(s) but more were given")
            bound[k] = a
            k += 1
            continue
        keyword = a.keyword.value
        if keyword not in names:
            return bound, (a, f"'{name}' has no parameter named '{keyword}'")
        i = names.index(keyword)
        if bound[i] is not None:
            return bound, (a, f"'{name}' got several values for parameter '{keyword}'")
        bound[i] = a
    return bound, None
