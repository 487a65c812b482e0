"""CUDA thread built-ins in the IR: which thread of which block an op runs in.

A kernel is one function run by every thread of a launch; what tells the threads
apart are four read-only vectors, each an op here (text form as in ``ops``):

  gpu.thread_idx   () {axis: "x"|"y"|"z"}           -> i64     CUDA's threadIdx.<axis>
  gpu.block_idx    () {axis: "x"|"y"|"z"}           -> i64     blockIdx.<axis>
  gpu.block_dim    () {axis: "x"|"y"|"z"}           -> i64     blockDim.<axis>
  gpu.grid_dim     () {axis: "x"|"y"|"z"}           -> i64     gridDim.<axis>

and one barrier, and block-shared memory is an ``alloc`` attribute:

  gpu.sync         ()                               -> ()      __syncthreads(): every thread of
                                                               the block arrives before any goes on
  alloc ... {space: "shared"}                       -> array   a __shared__ array: one per block,
                                                               constant size, declared at the
                                                               kernel's top level

The four built-ins are pure: within one thread each is a constant, so CSE may merge them, LICM
may hoist them and the reverse sweep recomputes them instead of taping them.
What varies from thread to thread is what the accumulation analysis
(``s2sad.analysis.accumulation``) reasons about.

The interpreter runs one thread at a time: ``Launch`` holds the grid and block
shapes, and ``Thread`` the indices of the thread being run. It refuses
``gpu.sync`` (sequential threads cannot meet at a barrier); kernels with
barriers run in the tests' emulation (tests/cuda_emu.h).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING, Iterator

if TYPE_CHECKING:
    from .ir import Value

# op name -> the CUDA spelling of the vector it reads
BUILTINS: dict[str, str] = {
    "gpu.thread_idx": "threadIdx",
    "gpu.block_idx": "blockIdx",
    "gpu.block_dim": "blockDim",
    "gpu.grid_dim": "gridDim",
}
OP_OF_VECTOR = {spelling: name for name, spelling in BUILTINS.items()}
SYNC = "gpu.sync"
# A warp shuffle, ``__shfl_<mode>_sync(mask, value, arg)``: the value another lane of the warp
# holds (``mode``: down, up, xor, or idx for ``__shfl_sync``'s lane number).
SHUFFLE = "gpu.shfl"
SHUFFLE_CALLS = {"__shfl_down_sync": "down", "__shfl_up_sync": "up", "__shfl_xor_sync": "xor", "__shfl_sync": "idx"}
WARP_SIZE = 32
SHARED_SPACE = "shared"  # the ``space`` attribute of an alloc of __shared__ memory
AXES = ("x", "y", "z")


def launch_extent(v: "Value") -> bool:
    """``v`` is a product of launch dimensions (``blockDim``, ``gridDim``) and positive integer
    constants, so at least 1: ``blockDim.x * gridDim.x``, the stride of a grid-stride loop."""
    op = v.defining_op
    if op is None:
        return False
    if op.name in ("gpu.block_dim", "gpu.grid_dim"):
        return True
    if op.name == "const":
        c = op.attrs.get("value")
        return isinstance(c, int) and not isinstance(c, bool) and c > 0
    if op.name == "cast" and op.operands[0].type.is_int:
        return launch_extent(op.operands[0])
    return op.name == "mul" and all(launch_extent(o) for o in op.operands)


def cuda_spelling(name: str, axis: str) -> str:
    """``threadIdx.x`` for ``gpu.thread_idx {axis = "x"}``."""
    return f"{BUILTINS[name]}.{axis}"


@dataclass(frozen=True)
class Launch:
    """A launch configuration: the grid (blocks) and the block (threads), x/y/z each."""

    grid: tuple[int, int, int] = (1, 1, 1)
    block: tuple[int, int, int] = (1, 1, 1)

    def threads(self) -> Iterator["Thread"]:
        """Every thread of the launch, block by block, x fastest (CUDA's linear order)."""
        gx, gy, gz = self.grid
        bx, by, bz = self.block
        for k in range(gz):
            for j in range(gy):
                for i in range(gx):
                    for z in range(bz):
                        for y in range(by):
                            for x in range(bx):
                                yield Thread(self, (x, y, z), (i, j, k))


@dataclass(frozen=True)
class Thread:
    """The thread an interpreted kernel runs as."""

    launch: Launch
    thread_idx: tuple[int, int, int]
    block_idx: tuple[int, int, int]

    def value(self, name: str, axis: str) -> int:
        k = AXES.index(axis)
        vector = {
            "gpu.thread_idx": self.thread_idx,
            "gpu.block_idx": self.block_idx,
            "gpu.block_dim": self.launch.block,
            "gpu.grid_dim": self.launch.grid,
        }[name]
        return vector[k]
