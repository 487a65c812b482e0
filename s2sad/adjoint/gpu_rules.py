"""The adjoints of CUDA's warp shuffles: a shuffle's adjoint is a shuffle the other way.

``r = __shfl_down_sync(mask, v, d)`` gives lane ``l`` the ``v`` of lane ``l + d``, or its own
``v`` where ``l + d`` is past the warp's end. So lane ``l``'s ``v`` went to lane ``l - d`` (where
``l >= d``) and, where ``l + d`` is past the end, to itself: its adjoint gathers the adjoint of
``r`` from lane ``l - d`` (``__shfl_up_sync(mask, g, d)``) where there is one, plus its own
where it kept its value. ``__shfl_up_sync`` is the mirror image; ``__shfl_xor_sync`` pairs
lanes, so its adjoint is the same exchange; ``__shfl_sync(mask, v, k)`` from a constant lane
``k`` broadcasts lane ``k``'s ``v``, whose adjoint is the sum of every lane's (a butterfly of
``__shfl_xor_sync``), added in lane ``k``.

Every lane of the warp runs each adjoint shuffle, as it ran the shuffle: the reverse sweep
reverses the same loops and branches, which the primal's shuffles required to be the same in
all lanes (``mask``, all of them, as CUDA asks). A lane's number is its thread's number in the
block modulo 32 (the ``.y`` and ``.z`` built-ins enter it only where the kernel reads them: an
axis it never reads has extent 1, as for the accumulations, ``analysis/accumulation``).
"""

from __future__ import annotations

from ..ssa import build
from ..ssa.gpu import SHUFFLE, WARP_SIZE
from ..ssa.ir import Builder, Function, Value
from ..ssa.types import I64


def shuffle_adjoint(b: Builder, fn: Function, mode: str, mask: Value, g: Value, lane: Value) -> Value:
    """What the adjoint ``g`` of a shuffle's result adds to the adjoint of the value shuffled."""
    zero = build.const(b, 0.0, g.type)
    if mode == "xor":
        return _shuffle(b, "xor", mask, g, lane)
    me = _lane(b, fn)
    size = build.const(b, WARP_SIZE, I64)
    if mode == "idx":
        total = g
        step = WARP_SIZE // 2
        while step:
            total = build.add(b, total, _shuffle(b, "xor", mask, total, build.const(b, step, I64)))
            step //= 2
        return build.select(b, build.cmp(b, "eq", me, lane), total, zero)
    # down: from lane me - d where me >= d; up: from lane me + d where me + d < 32
    back = "up" if mode == "down" else "down"
    moved = _shuffle(b, back, mask, g, lane)
    reached = (build.cmp(b, "ge", me, lane) if mode == "down"
               else build.cmp(b, "lt", build.add(b, me, lane), size))
    kept = (build.cmp(b, "ge", build.add(b, me, lane), size) if mode == "down"
            else build.cmp(b, "lt", me, lane))
    return build.add(b, build.select(b, reached, moved, zero), build.select(b, kept, g, zero))


def _shuffle(b: Builder, mode: str, mask: Value, v: Value, lane: Value) -> Value:
    return b.op1(SHUFFLE, [mask, v, lane], v.type, "", mode=mode)


def _lane(b: Builder, fn: Function) -> Value:
    """This thread's lane in its warp: its number in the block, modulo 32."""
    axes = {op.attrs.get("axis") for op in fn.walk() if op.name.startswith("gpu.") and "axis" in op.attrs}
    t = b.op1("gpu.thread_idx", [], I64, "", axis="x")
    if axes & {"y", "z"}:
        d = lambda axis: b.op1("gpu.block_dim", [], I64, "", axis=axis)  # noqa: E731
        yz = build.add(b, b.op1("gpu.thread_idx", [], I64, "", axis="y"),
                       build.mul(b, d("y"), b.op1("gpu.thread_idx", [], I64, "", axis="z")))
        t = build.add(b, t, build.mul(b, d("x"), yz))
    return b.op1("mod", [t, build.const(b, WARP_SIZE, I64)], I64, "lane")
