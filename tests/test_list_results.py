"""Lists built at their front and lists returned by helpers (parse/py_list_front.py,
parse/py_list_results.py): discounted returns built with ``insert(0, G)``, a trajectory returned
as lists and made arrays by the caller; each gradient checked against central differences."""

from __future__ import annotations

import textwrap

import pytest
from source_gradients import HEADER, arr, check_source, num

from s2sad import pipeline
from s2sad.diagnostics import DiagnosticError

CASES = {
    # a helper's trajectory as two lists, unpacked and made arrays by its caller
    "trajectory_lists_returned": ("""
        def simulate(k, y0, n_steps):
            dt = 2.0 / n_steps
            ts = [0.0]
            ys = [y0]
            y = y0
            t = 0.0
            for _ in range(n_steps):
                y = y + dt * (-k * y)
                t = t + dt
                ts.append(t)
                ys.append(y)
            return ys, ts

        def f(k, y0, obs):
            ys, ts = simulate(k, y0, 20)
            ys = np.array(ys)
            ts = np.asarray(ts)
            return np.sum((ys[:len(obs)] - obs) ** 2) + np.sum(ts * ys) * 0.01 + len(ys)
    """, ["k", "y0"], [num("k", 0.5, 1.5), num("y0", 0.5, 2.0), arr("obs", 6)]),
    # discounted returns built at the front, returned by a helper, normalized by the caller
    "front_built_returns": ("""
        def discounted(rewards, gamma):
            G = 0.0
            returns = []
            for r in reversed(rewards):
                G = r + gamma * G
                returns.insert(0, G)
            return returns

        def f(rewards, gamma, w: "f64[n]"):
            returns = np.array(discounted(rewards, gamma))
            returns = (returns - returns.mean()) / (returns.std() + 1e-8)
            return np.sum(w * returns)
    """, ["rewards", "gamma", "w"], [arr("rewards", 5), num("gamma", 0.8, 0.99), arr("w", 5)]),
    # a list built at its front read in every reversed spelling in its own function
    "front_built_reads": ("""
        def f(x: "f64[n]", c: float):
            v = []
            for a in x:
                v.insert(0, c * a * a)
            s = v[0] + 2.0 * v[-1] + v[len(v) - 2] * sum(v)
            for t in v:
                s = 0.5 * s + t
            for t in reversed(v):
                s = 0.5 * s + t * t
            return s + np.sum(np.asarray(v) * x)
    """, ["x", "c"], [arr("x", 4), num("c", 0.5, 1.5)]),
}


@pytest.mark.parametrize("target", ["py", "numba"])
@pytest.mark.parametrize("case", list(CASES))
def test_gradient_matches_finite_differences(case, target):
    source, wrt, params = CASES[case]
    check_source(HEADER + textwrap.dedent(source), wrt, params, target)


def test_a_list_result_read_as_a_list_stays_refused():
    src = HEADER + textwrap.dedent("""
        def collect(x):
            v = []
            for a in x:
                v.append(a * a)
            return v

        def f(x: "f64[n]"):
            v = collect(x)
            v.append(1.0)
            return np.sum(np.array(v))
    """)
    with pytest.raises(DiagnosticError) as e:
        pipeline.gradient_source(src, "prog.py", "f", ["x"], "py")
    text = e.value.render()
    assert "prog.py:" in text and "is a list" in text, text
