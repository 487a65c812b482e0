"""Minimal caching: a loop body caches a minimum cut of what its reverse sweep needs.

The golden cases golden/caching_smaller_cut, golden/caching_recompute_not_cache and
golden/caching_keeps_costly check the output and its numerics in every target; here, the planner
on small graphs (the issue's ``x[i] + y[i]`` example among them) and the --report of those cases.
"""

from __future__ import annotations

import numpy as np
import pytest
from fd import ParamSpec, check_gradient
from golden_cases import GOLDEN

from s2sad import pipeline
from s2sad.adjoint.mincut import INF, plan_cache
from s2sad.cli import main


def _plan(graph: dict[str, list[str]], kinds: dict[str, str], needed: list[str], cost=None):
    """plan_cache on a graph of names: value -> operands; kinds default to "pure"."""
    return plan_cache(
        needed,
        lambda v: kinds.get(v, "pure"),
        lambda v: graph.get(v, []),
        cost or (lambda v: 8.0),
    )


def test_the_sum_is_cached_not_both_loads():
    # x[i] and y[i] (overwritten later: sources) are needed only through sum = x[i] + y[i].
    graph = {"sum": ["xi", "yi"], "sin": ["sum"], "cos": ["sum"]}
    kinds = {"xi": "source", "yi": "source", "i": "free"}
    plan = _plan(graph, kinds, ["sin", "cos", "sum"])
    assert plan.cached == {"sum"} and plan.recomputed == {"sin", "cos"}


def test_one_cached_value_replaces_three():
    graph = {"uu": ["u", "u"], "sin": ["uu"], "e": ["w"], "prod": ["u", "sin"]}
    kinds = {"u": "source", "w": "free"}
    plan = _plan(graph, kinds, ["uu", "sin", "e", "u", "prod"])
    assert plan.cached == {"u"} and plan.recomputed == {"uu", "sin", "prod"}


def test_a_needed_value_is_cached_itself_when_that_costs_no_more():
    # t = a + b from two sources: caching t (8 B) beats caching a and b (16 B), and a tie
    # between t and one source (a unary op) keeps t, so nothing is recomputed for nothing.
    assert _plan({"t": ["a", "b"]}, {"a": "source", "b": "source"}, ["t"]).cached == {"t"}
    plan = _plan({"t": ["a"]}, {"a": "source"}, ["t"])
    assert plan.cached == {"t"} and plan.recomputed == set()


def test_the_cheaper_type_wins_and_values_of_free_operands_are_free():
    # A bool (1 B) decided from a float (8 B): cache the bool.
    plan = _plan({"cond": ["s"]}, {"s": "source"}, ["cond"], lambda v: 1.0 if v == "cond" else 8.0)
    assert plan.cached == {"cond"}
    assert _plan({"t": ["i"]}, {"i": "free"}, ["t"]).cached == set()


def test_a_costly_value_is_kept_rather_than_computed_again():
    # e = exp(w) of a free w: computing it again costs 16 (recompute), its tape 8: kept. With
    # sin and cos of one source p, keeping both (16) beats keeping p and computing both (8 + 32).
    def plan(graph, kinds, needed):
        return plan_cache(needed, lambda v: kinds.get(v, "pure"), lambda v: graph.get(v, []), lambda v: 8.0,
                          lambda v: 16.0 if v in ("e", "sin", "cos") else 0.0)

    assert plan({"e": ["w"]}, {"w": "free"}, ["e"]).cached == {"e"}
    kept = plan({"sin": ["p"], "cos": ["p"]}, {"p": "source"}, ["sin", "cos"])
    assert kept.cached == {"sin", "cos"} and kept.recomputed == set()
    # A cheap value of the same graph is still computed again from the one cached.
    cheap = _plan({"sq": ["p"], "half": ["p"]}, {"p": "source"}, ["sq", "half"])
    assert cheap.cached == {"p"} and cheap.recomputed == {"sq", "half"}


def test_no_finite_cut_leaves_the_choice_to_the_caller():
    plan = _plan({"t": ["arr"]}, {"arr": "source"}, ["t"], lambda v: INF)
    assert plan.cached == set() and plan.recomputed == set()


@pytest.mark.parametrize("case, wrt, tapes", [
    ("caching_smaller_cut", "x,y", ["    tape_p: p f64, 8 B x iterations of line 5"]),
    ("caching_recompute_not_cache", "x", ["    tape_u: u f64, 8 B x iterations of line 10"]),
    ("caching_keeps_costly", "x", ["    tape_p: p f64, 8 B x iterations of line 10",
                                   "    tape: f64, 8 B x iterations of line 10",
                                   "    tape: f64, 8 B x iterations of line 10"]),
])
def test_report_shows_the_smaller_cache(capsys, case, wrt, tapes):
    assert main(["grad", str(GOLDEN / case / "input.py"), "--wrt", wrt, "--report"]) == 0
    report = capsys.readouterr().err.splitlines()
    assert [r for r in report if r.startswith("    tape")] == tapes


_HALVES = """\
def halves(x, t: int, n: int):
    s = n
    while s > 0:
        if t < s:
            x[t] += x[t + s] * x[t + s]
        s = s // 2
"""


def test_a_value_needed_inside_a_branch_counts_for_the_loop_cut(tmp_path, capsys):
    # The reversed iteration needs s for `x[t + s]` under `if t < s:` (a nested region): s is
    # taped, so the condition is recomputed from it, not taped beside it (golden/cuda/
    # shared_block_reduction).
    path = tmp_path / "halves.py"
    path.write_text(_HALVES)
    assert main(["grad", str(path), "--wrt", "x", "--report"]) == 0
    report = capsys.readouterr().err.splitlines()
    assert [r for r in report if r.startswith("    tape")] == [
        "    tape_s: s i64, 8 B x iterations of line 3",
        "    tape: f64, 8 B x iterations of line 3",
    ]
    ns: dict = {}
    exec(pipeline.gradient_source(_HALVES, "halves.py", "halves", ["x"]), ns)
    exec(_HALVES, ns)
    params = [ParamSpec("x", "array", shape=(12,)), ParamSpec("t", "int", value=1),
              ParamSpec("n", "int", value=9)]
    check_gradient(ns["halves"], ns["grad_halves"], params, ["x"], {"x"}, np.random.default_rng(0))
