"""Binomial checkpointing (Griewank-Walther "revolve"): where to put snapshots, what it costs.

Reversing ``l`` loop iterations from a snapshot of the state at the first one,
with ``f`` further snapshot slots free, the schedule advances to an iteration
``m`` (``split``), stores a snapshot there, reverses ``[m, l)`` with ``f - 1``
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
least integer with ``C(s + r, s) >= l``, the minimum is
``r * l - C(s + r, r - 1)`` (Griewank & Walther, "Evaluating Derivatives", 2nd
ed. 2008, Prop. 12.6; Griewank & Walther, "Algorithm 799: revolve", ACM TOMS
26(1), 2000). ``split`` reaches it; the tests check it against the dynamic
program ``T(l, f) = min_m m + T(l - m, f - 1) + T(m, f)``.

The gradient's forward sweep runs all ``l`` iterations (the primal's side
effects must be complete before the reverse sweep) and keeps the state at the
last one, so of the formula's advances the first ``l - 1`` are that forward
sweep and the rest, ``recomputed(l, s)``, are the extra work of the schedule.
"""

from __future__ import annotations

from math import comb


def repetitions(l: int, free: int) -> tuple[int, int]:
    """``(r, C(free + 1 + r, r))``: the least ``r`` for which ``free + 1`` snapshots reverse ``l`` steps."""
    s = free + 1
    r, beta = 0, 1
    while beta < l:
        r += 1
        beta = beta * (s + r) // r
    return r, beta


def split(l: int, free: int) -> int:
    """How far to advance (1 <= m < l) before the next snapshot, for ``l`` steps and ``free`` slots.

    The optimal ``m`` is any in ``[max(C(f+r-1, f+1), l - C(f+r, f)), min(C(f+r, f+1), ...)]``;
    the schedule takes the least, so its snapshots sit as early as they may.
    """
    if free == 0 or l <= 1:
        return max(l - 1, 1)
    r, beta = repetitions(l, free)
    right = beta * (free + 1) // (free + 1 + r)  # C(f + r, f): steps the right part can take
    left_hi = beta * r // (free + 1 + r)  # C(f + r, f + 1)
    left_lo = left_hi * (r - 1) // (free + r)  # C(f + r - 1, f + 1)
    return max(1, left_lo, l - right)


def advances(l: int, snapshots: int) -> int:
    """The revolve formula: forward steps to reverse ``l`` steps with ``snapshots`` (>= 1) slots."""
    if l <= 1:
        return 0
    r, _ = repetitions(l, snapshots - 1)
    return r * l - comb(snapshots + r, r - 1)


def recomputed(l: int, snapshots: int) -> int:
    """Forward steps the reverse sweep re-runs: the formula less the forward sweep's ``l - 1``."""
    return advances(l, snapshots) - max(l - 1, 0)


def forward_positions(l: int, snapshots: int) -> list[int]:
    """The iterations at whose start the forward sweep stores a snapshot (slot by slot)."""
    out, k, depth = [0], 0, 1
    while depth < snapshots:
        k += split(l - k, snapshots - depth)
        if k >= l - 1:
            break
        out.append(k)
        depth += 1
    return out


def simulate(l: int, snapshots: int) -> int:
    """Run the generated driver's logic; return the forward steps its reverse sweep re-runs."""
    if l <= 0:
        return 0
    pos = forward_positions(l, snapshots)
    count = 0
    for k in range(l - 2, -1, -1):  # iteration l - 1 starts from the state the forward sweep kept
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
