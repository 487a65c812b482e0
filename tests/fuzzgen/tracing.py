"""The runtime of the traced twin: the math it calls, each decision recorded.

A draw is kept only if every finite-difference evaluation makes exactly the decisions of the
unperturbed one (the same branches, the same sides of every kink, the same truncated
integers): central differences are then differences of one smooth function.
"""

from __future__ import annotations

import math

import numpy as np


# A value past this, summed with numbers of order one, loses them: ``h1 - (z + h1)`` is 0, not
# ``-z``, and the program is flat in ``z`` where its derivative is not (seed 13609153: d_z of
# 1e43 against central differences of 0, both right of their function). Such a draw says nothing.
HELD_LIMIT = 1e15


class Tracer:
    def __init__(self) -> None:
        self.log: list = []
        self.strict = False  # raise where a value held passes HELD_LIMIT (the checked run)

    def held(self, v):
        """``v`` as NumPy's float, kept in a variable or an array element."""
        v = np.float64(v)
        if self.strict and abs(v) > HELD_LIMIT:
            raise FloatingPointError(f"a value held overflows {HELD_LIMIT:g} ({v!r}), past which sums lose the "
                                     "numbers of order one they add")
        return v

    def _note(self, *decision) -> None:
        self.log.append(decision)

    def cmp(self, a, op, b):
        result = a < b if op == "<" else a > b
        self._note(bool(result))
        return result

    def trunc(self, scale, e):
        value = int(scale * abs(e))
        self._note(value)
        return value

    def _sign(self, x):
        self._note(x > 0, x == 0)

    def fabs(self, x):
        self._sign(x)
        return math.fabs(x)

    def abs(self, x):
        self._sign(x)
        return abs(x)

    def floor(self, x):
        value = math.floor(x)
        self._note(value)
        return value

    def ceil(self, x):
        value = math.ceil(x)
        self._note(value)
        return value

    def floor_float(self, x):
        self._note(math.floor(x))
        return np.floor(x)

    def ceil_float(self, x):
        self._note(math.ceil(x))
        return np.ceil(x)

    def _signs(self, a, b):
        self._note(a > 0, a == 0, b > 0, b == 0)

    def atan2(self, a, b):
        self._signs(a, b)
        if a == 0 and b == 0:
            # The angle of the zero vector: no derivative (the rules give NaN, README "Rules at
            # the edges of their domains"), even where both arguments stay zero under the step
            # (atan2(x - x, ...); seed 9101291). The draw is rejected like one that raises.
            raise ValueError("atan2(0, 0) is not differentiable")
        return math.atan2(a, b)

    def hypot(self, a, b):
        self._signs(a, b)
        return math.hypot(a, b)

    def copysign(self, a, b):
        self._signs(a, b)
        return math.copysign(a, b)

    def fmod(self, a, b):
        self._note(math.trunc(a / b))
        return math.fmod(a, b)

    def max(self, a, b):
        self._note(a < b, a == b)
        return max(a, b)

    def min(self, a, b):
        self._note(a < b, a == b)
        return min(a, b)

    def np_abs(self, x):
        x = np.asarray(x)
        self._note((x > 0).tobytes(), (x == 0).tobytes())
        return np.abs(x)

    def np_gt(self, a, b):
        mask = np.asarray(a > b)
        self._note(mask.tobytes(), np.asarray(a == b).tobytes())
        return mask

    def np_max(self, x, axis=None, keepdims=False):
        x = np.asarray(x)
        self._note(np.argmax(x, axis=axis).tobytes(), int(np.sum(x == np.max(x))))
        return np.max(x, axis=axis, keepdims=keepdims)

    def np_min(self, x, axis=None, keepdims=False):
        x = np.asarray(x)
        self._note(np.argmin(x, axis=axis).tobytes(), int(np.sum(x == np.min(x))))
        return np.min(x, axis=axis, keepdims=keepdims)
