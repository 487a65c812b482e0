"""Binomial checkpointing (Griewank-Walther "revolve"): where to put snapshots, what it costs.

Reversing ``steps`` loop iterations from a snapshot of the state at the first one,
with ``f`` further snapshot slots free, the schedule advances to an iteration
``m`` (``split``), stores a snapshot there, reverses ``[m, steps)`` with ``f - 1``
free slots, then restores the first snapshot and reverses ``[0, m)`` with ``f``
free slots. With no free slot it re-runs from the snapshot for every iteration.

The generated code does not recurse: at each reversed iteration ``k`` it pops
the snapshots past ``k``, restores the last one (position ``c``) and advances
to ``k``, storing snapshots at the split points on the way. That visits the
same splits as the recursion, because the interval it works on is always
``[c, k + 1)`` with ``s - depth`` slots free. ``simulate`` runs exactly that
driver in Python (the tests compare it with the generated code and with the
formula).

Cost, counted in loop iterations run forward before each one's taping run
(*advances*): with ``s = f + 1`` snapshots (the first included) and ``r`` the
least integer with ``C(s + r, s) >= steps``, the minimum is
``r * steps - C(s + r, r - 1)`` (Griewank & Walther, "Evaluating Derivatives", 2nd
ed. 2008, Prop. 12.6; Griewank & Walther, "Algorithm 799: revolve", ACM TOMS
26(1), 2000). ``split`` reaches it; the tests check it against the dynamic
program ``T(steps, f) = min_m m + T(steps - m, f - 1) + T(m, f)``.

The gradient's forward sweep runs all ``steps`` iterations (the primal's side
effects must be complete before the reverse sweep) and keeps the state at the
last one, so of the formula's advances the first ``steps - 1`` are that forward
sweep and the rest, ``recomputed(steps, s)``, are the extra work of the schedule.
"""

from __future__ import annotations

from math import comb


def repetitions(steps: int, free: int) -> tuple[int, int]:
    """``(r, C(free + 1 + r, r))``: the least ``r`` for which ``free + 1`` snapshots reverse ``steps`` steps."""
    s = free + 1
    r, beta = 0, 1
    while beta < steps:
        r += 1
        beta = beta * (s + r) // r
    return r, beta


def split(steps: int, free: int) -> int:
    """How far to advance (1 <= m < steps) before the next snapshot, for ``steps`` steps and ``free`` slots.

    The optimal ``m`` is any in ``[max(C(f+r-1, f+1), steps - C(f+r, f)), min(C(f+r, f+1), ...)]``;
    the schedule takes the least, so its snapshots sit as early as they may.
    """
    if free == 0 or steps <= 1:
        return max(steps - 1, 1)
    r, beta = repetitions(steps, free)
    right = beta * (free + 1) // (free + 1 + r)  # C(f + r, f): steps the right part can take
    left_hi = beta * r // (free + 1 + r)  # C(f + r, f + 1)
    left_lo = left_hi * (r - 1) // (free + r)  # C(f + r - 1, f + 1)
    return max(1, left_lo, steps - right)


def advances(steps: int, snapshots: int) -> int:
    """The revolve formula: forward steps to reverse ``steps`` steps with ``snapshots`` (>= 1) slots."""
    if steps <= 1:
        return 0
    r, _ = repetitions(steps, snapshots - 1)
    return r * steps - comb(snapshots + r, r - 1)


def recomputed(steps: int, snapshots: int) -> int:
    """Forward steps the reverse sweep re-runs: the formula less the forward sweep's ``steps - 1``."""
    return advances(steps, snapshots) - max(steps - 1, 0)


def forward_positions(steps: int, snapshots: int) -> list[int]:
    """The iterations at whose start the forward sweep stores a snapshot (slot by slot)."""
    out, k, depth = [0], 0, 1
    while depth < snapshots:
        k += split(steps - k, snapshots - depth)
        if k >= steps - 1:
            break
        out.append(k)
        depth += 1
    return out


def simulate(steps: int, snapshots: int) -> int:
    """Run the generated driver's logic; return the forward steps its reverse sweep re-runs."""
    if steps <= 0:
        return 0
    pos = forward_positions(steps, snapshots)
    count = 0
    for k in range(steps - 2, -1, -1):  # iteration steps - 1 starts from the state the forward sweep kept
        if pos[-1] > k:
            pos.pop()
        c = pos[-1]
        while c < k:
            m = c + (split(k + 1 - c, snapshots - len(pos)) if snapshots > len(pos) else k - c)
            count += m - c
            if m < k:
                pos.append(m)
            c = m
    return count
