"""Minimize the Rosenbrock function with SciPy, its gradient written by s2sad.

Run from a checkout: ``python examples/optimize_with_scipy.py`` (with s2sad importable, for
example ``PYTHONPATH=.``). ``s2sad.value_and_grad`` reads this file's source, translates
``rosenbrock`` once (the result is cached in ``~/.cache/s2sad``) and returns ``fun(x) ->
(value, gradient)``, which is what ``minimize(..., jac=True)`` takes.
"""

import numpy as np
import scipy.optimize

import s2sad


def rosenbrock(x):
    s = 0.0
    for i in range(x.shape[0] - 1):
        s += 100.0 * (x[i + 1] - x[i] * x[i]) ** 2 + (1.0 - x[i]) ** 2
    return s


def main() -> None:
    fun = s2sad.value_and_grad(rosenbrock, wrt="x")
    x0 = np.array([-1.2, 1.0, -0.5, 0.8, 1.5])
    result = scipy.optimize.minimize(fun, x0, jac=True, method="BFGS", options={"gtol": 1e-8})
    print(f"success: {result.success} after {result.nit} iterations")
    print(f"minimum at x = {np.round(result.x, 6)}, f(x) = {result.fun:.3e}")


if __name__ == "__main__":
    main()
