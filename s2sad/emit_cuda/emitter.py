"""The CUDA emitter: the C emitter's output, as kernels and device functions.

``emit_cuda(module, header, entry)`` writes one ``.cu`` file.
Everything C prints, CUDA prints the same way (``s2sad.emit_c``: names, loops,
declarations, expressions); what differs is said here:

* linkage: the entry ``grad_<kernel>`` is ``__global__`` (launched with the
  primal's grid and block); every other function, gradient helpers and the
  primal functions they call, is ``static __device__``. A gradient asked of a
  ``__device__`` function is itself a (non-static) ``__device__`` function;
* thread built-ins print as ``threadIdx.x``, ``blockIdx.y``, ...;
* adjoint accumulation into shadow memory follows ``analysis.accumulation``:
  ``PRIVATE`` is C's ``d_x[i] += g`` (an ``atomicAdd`` whose result is unused, a RED done in
  L2, saves a latency-bound kernel the wait for the load, but costs a bandwidth-bound one L2's
  atomic throughput: on an H200, tape_data_dependent's gradient took 0.025 ms with REDs and
  0.030 with ``+=``, daxpy_shared_scalar's 0.42 ms and 0.21, so ``+=`` it is); ``ATOMIC`` is
  ``atomicAdd(&d_x[i], g)``;
  ``BLOCK`` adds ``g`` to a register (``d_a_sum += g``) and, at the end of the
  kernel where every thread of the block arrives, ``block_sum_add(&d_a[0],
  d_a_sum)`` reduces the block's registers (warp shuffles, then shared memory)
  and adds the total with one ``atomicAdd``. ``WARP`` is ``warp_sum_add(&d_x[j], g)``:
  one ``atomicAdd`` per warp where the warp's lanes arrive together at one element,
  one per thread where they do not. The scalar adjoints a kernel returns
  (``*d_a += d_a_local`` in C) are ``BLOCK`` too: ``d_a`` is one cell for all
  threads. In a device function they stay ``+=``: its caller passes the address
  of its own register, or of a ``PRIVATE`` element (a callee may add straight
  into an element only when that element is the thread's own);
* memory: device code has ``malloc``, ``free``, ``memset`` and ``memcpy`` only, so a
  thread's heap memory is ``device_calloc`` and a growing tape ``device_grow`` (cast
  from ``void *``, as C++ wants); a kernel's tape or cache of a size every thread shares
  lives in ``TAPE_CELLS`` cells of the thread's local memory when that size fits there (known
  only at run time: ``local_or_block_tape``), else in one ``block_tape`` per thread block, the
  threads' elements interleaved (an H100 spent 0.9 of tape_in_kernel's 1.04 ms in the blocks'
  device ``malloc``; from local cells it took 0.13 ms on an H200). A tape that
  grows starts in ``LOCAL_CELLS`` cells of the thread's local memory and moves to the
  heap only past them: device ``malloc`` is slow, per thread slower still (on an H100, a
  million threads' one-step tapes took 460 ms from the heap, 0.06 ms from local memory).

``CudaFunctionEmitter`` is C's function emitter with these spellings overridden; C's
``emit_functions`` and ``c_file`` make the file, with the helpers the emitters report
needing (``_helpers``: the overloads of ``block_sum_add``, ``warp_sum_add`` and
``zero_shared``).

``atomicAdd`` on ``double`` needs compute capability 6.0 and ``warp_sum_add``'s
``__match_all_sync`` 7.0: compile with ``-arch=sm_70`` or newer.
"""

from __future__ import annotations

import math
import re
from typing import Optional

from ..analysis.accumulation import ATOMIC, BLOCK, PRIVATE, WARP, thread_uniform, update
from ..diagnostics import error
from ..emit_c.cexpr import Cast, address_of, ctype
from ..emit_c.cfile import ModuleContext, c_file, emit_functions
from ..emit_c.emitter import CFunctionEmitter
from ..emit_c.helpers import HELPERS
from ..emit_c.memory import STACK_LIMIT, tape_elem
from ..emit.builder import tape_new_op
from ..emit.expr import BinOp, Call, Expr, Lit, Name, Subscript, negate, number
from ..emit.stmt import Assign, AugAssign, ExprStmt, Stmt
from ..emit_c.cstmt import ArrayDecl, Decl
from ..parse.c_declarators import is_array_spelling, is_pointer_rows, row_pointer
from ..ssa.attrs import ACCUMULATE
from ..ssa.gpu import BUILTINS as GPU_BUILTINS
from ..ssa.gpu import AXES, SHARED_SPACE, SHUFFLE, SYNC, cuda_spelling
from ..ssa.build import const_int
from ..ssa.ir import Block, Function, Module, Op, Value
from ..ssa.opdefs import reads_global
from ..ssa.types import F32, F64, Type
from ..ssa.ops import COMPARE

BLOCK_SUM_ADD = """\
/* Adds the sum of v over the threads of this block to *dst with one atomicAdd: each warp
   sums by shuffles, warp 0's first thread adds the warps' sums. Every thread of the block
   must call it (it has barriers). */
static __device__ void block_sum_add({t} *dst, {t} v) {{
    __shared__ {t} warp_sums[32];
    unsigned t = threadIdx.x + blockDim.x * (threadIdx.y + blockDim.y * threadIdx.z);
    unsigned size = blockDim.x * blockDim.y * blockDim.z;
    unsigned lane = t % 32;
    unsigned width = size - (t - lane) < 32 ? size - (t - lane) : 32;  /* threads in this warp */
    unsigned mask = width == 32 ? 0xffffffffu : (1u << width) - 1u;
    for (unsigned offset = 16; offset > 0; offset /= 2) {{
        {t} other = __shfl_down_sync(mask, v, offset);
        if (lane + offset < width) {{
            v += other;
        }}
    }}
    if (lane == 0) {{
        warp_sums[t / 32] = v;
    }}
    __syncthreads();
    if (t == 0) {{
        {t} sum = warp_sums[0];
        for (unsigned w = 1; 32 * w < size; w++) {{
            sum += warp_sums[w];
        }}
        atomicAdd(dst, sum);
    }}
    __syncthreads();  /* warp_sums is reused by the next call */
}}"""

WARP_SUM_ADD = """\
/* Adds v to *dst: where every lane of this warp arrives together with the same dst, their
   values summed by shuffles and added with one atomicAdd, else each with its own. */
static __device__ void warp_sum_add({t} *dst, {t} v) {{
    unsigned mask = __activemask();
    int same = 0;
    __match_all_sync(mask, (unsigned long long)dst, &same);
    if (mask != 0xffffffffu || !same) {{
        atomicAdd(dst, v);
        return;
    }}
    for (unsigned offset = 16; offset > 0; offset /= 2) {{
        v += __shfl_xor_sync(mask, v, offset);
    }}
    if ((threadIdx.x + blockDim.x * (threadIdx.y + blockDim.y * threadIdx.z)) % 32 == 0) {{
        atomicAdd(dst, v);
    }}
}}"""

FULL_MASK = 0xFFFFFFFF  # every lane of a warp: a shuffle's mask, printed in hex

# The cells of local memory a growing tape starts in (see the module docstring).
LOCAL_CELLS = 16
# The cells of local memory a kernel's tape or cache of a thread-uniform size lives in when it
# fits (local_or_block_tape): 1 KiB of doubles per thread, reserved for every resident thread.
TAPE_CELLS = 128

DEVICE_MEMORY = {
    "device_malloc": """\
/* malloc for device code: stops the kernel, saying why, when the device heap is full. */
static __device__ void *device_malloc(size_t bytes) {
    void *p = malloc(bytes);
    if (p == NULL && bytes > 0) {
        printf("s2sad: %lu bytes do not fit in the device heap: raise cudaLimitMallocHeapSize\\n",
               (unsigned long)bytes);
        __trap();
    }
    return p;
}""",
    "device_calloc": """\
/* calloc for device code, which has malloc, free, memset and memcpy only. */
static __device__ void *device_calloc(size_t count, size_t size) {
    void *p = device_malloc(count * size);
    memset(p, 0, count * size);
    return p;
}""",
    "device_grow": """\
/* realloc for a tape of device code: room for count elements of the given size, the first
   used kept. The tape starts in local, the thread's own cells (never freed), or, where it
   has none (NULL), with no memory (p NULL). */
static __device__ void *device_grow(void *p, size_t used, size_t count, size_t size, void *local) {
    void *q = device_malloc(count * size);
    if (p != NULL) {
        memcpy(q, p, used * size);
        if (p != local) {
            free(p);
        }
    }
    return q;
}""",
    "device_tape_free": """\
/* Frees a tape that device_grow may have moved from the thread's local cells to the heap. */
static __device__ void device_tape_free(void *p, void *local) {
    if (p != local) {
        free(p);
    }
}""",
    "block_tape": """\
/* One device-heap allocation per thread block for a tape of count values per thread, laid out
   so that the k-th values of the block's threads are side by side (a warp's pushes coalesce):
   returns this thread's first cell; its k-th value is k * (threads in the block) further on.
   Every thread of the block must call it (it has barriers). */
static __device__ void *block_tape(size_t count, size_t size) {
    __shared__ char *base;
    unsigned t = threadIdx.x + blockDim.x * (threadIdx.y + blockDim.y * threadIdx.z);
    size_t threads = (size_t)blockDim.x * blockDim.y * blockDim.z;
    if (t == 0) {
        base = (char *)device_malloc(count * threads * size);
    }
    __syncthreads();
    char *mine = base + t * size;
    __syncthreads();  /* base is reused by the next call */
    return mine;
}""",
    "block_calloc": """\
/* block_tape, zero-filled: each thread zeroes its own cells (interleaved, so that a warp's
   stores coalesce). Every thread of the block must call it (block_tape has barriers). */
static __device__ void *block_calloc(size_t count, size_t size) {
    char *mine = (char *)block_tape(count, size);
    size_t threads = (size_t)blockDim.x * blockDim.y * blockDim.z;
    for (size_t k = 0; k < count; k++) {
        memset(mine + k * threads * size, 0, size);
    }
    return mine;
}""",
    "block_tape_free": """\
/* Frees a block_tape once every thread of the block is done with it (thread 0 holds its start).
   Every thread of the block must call it. */
static __device__ void block_tape_free(void *tape) {
    __syncthreads();
    if (threadIdx.x + threadIdx.y + threadIdx.z == 0) {
        free(tape);
    }
}""",
    "local_or_block_tape": """\
/* A tape of count values for each thread, zero-filled when zero is set: the thread's own cells
   (cell_count of them, in local memory) when count fits there, else one block_tape for the
   block (device malloc is slow). *step is how far apart a thread's consecutive values lie: 1 in
   its cells, the block's thread count in a block_tape. count is the same in every thread of
   the block, so all of them take the same way (block_tape has barriers they all must reach). */
static __device__ void *local_or_block_tape(size_t count, size_t size, int zero, void *cells, size_t cell_count,
                                            long *step) {
    if (count <= cell_count) {
        if (zero) {
            memset(cells, 0, count * size);
        }
        *step = 1;
        return cells;
    }
    *step = (long)blockDim.x * blockDim.y * blockDim.z;
    return zero ? block_calloc(count, size) : block_tape(count, size);
}""",
    "local_or_block_tape_free": """\
/* Frees a local_or_block_tape: nothing to free where it is the thread's cells. Every thread of
   the block must call it (block_tape_free has barriers). */
static __device__ void local_or_block_tape_free(void *tape, void *cells) {
    if (tape != cells) {
        block_tape_free(tape);
    }
}""",
}

# The helpers each device-memory helper calls (c_file defines them first).
DEVICE_MEMORY_CALLS: dict[str, tuple[str, ...]] = {
    "device_calloc": ("device_malloc",),
    "device_grow": ("device_malloc",),
    "block_tape": ("device_malloc",),
    "block_calloc": ("block_tape",),
    "local_or_block_tape": ("block_tape", "block_calloc"),
    "local_or_block_tape_free": ("block_tape_free",),
}

ZERO_SHARED = """\
/* Zeroes a __shared__ array, the threads of the block sharing the work, then waits for all. */
static __device__ void zero_shared({t} *a, long size) {{
    long t = threadIdx.x + blockDim.x * (threadIdx.y + blockDim.y * threadIdx.z);
    for (long k = t; k < size; k += blockDim.x * blockDim.y * blockDim.z) {{
        a[k] = {zero};
    }}
    __syncthreads();
}}"""

# C's helpers run on the device too.
_DEVICE_HELPERS = {name: text.replace("\nstatic ", "\nstatic __device__ ") for name, text in HELPERS.items()}
_DEVICE_HELPERS.update(DEVICE_MEMORY)


def emit_cuda(module: Module, header: str, entry: str) -> str:
    """The module as one .cu file, its accumulations added as ``opt/accum_modes`` stamped them."""
    emitted = emit_functions(module, entry, CudaFunctionEmitter)
    return c_file(header, emitted, _helpers(emitted.emitters), DEVICE_MEMORY_CALLS)


def _helpers(emitters: list["CudaFunctionEmitter"]) -> dict[str, str]:
    """The helpers device code may call: C's, device memory, and the overloads of block_sum_add
    and zero_shared for the float types the functions sum and zero (known once all are emitted)."""
    sums = sorted(set().union(*(e.sum_types for e in emitters)))
    warp_sums = sorted(set().union(*(e.warp_sum_types for e in emitters)))
    zeroed = sorted(set().union(*(e.zeroed_types for e in emitters)))
    return {
        **_DEVICE_HELPERS,
        "block_sum_add": "\n\n".join(BLOCK_SUM_ADD.format(t=t) for t in sums),
        "warp_sum_add": "\n\n".join(WARP_SUM_ADD.format(t=t) for t in warp_sums),
        "zero_shared": "\n\n".join(ZERO_SHARED.format(t=t, zero="0.0f" if t == "float" else "0.0") for t in zeroed),
    }


class CudaFunctionEmitter(CFunctionEmitter):
    """C's emitter, with CUDA's linkage, thread built-ins, accumulations and device memory."""

    rows_declared = False  # flat arrays (see _param_spelling)
    slot_helpers = False  # structs with integer members are reached by member only (indexing._refuse_mixed)

    def _size_guard(self) -> list[str]:
        return []  # CUDA output: no fprintf(stderr, ...) and abort() in device code

    def __init__(self, ctx: ModuleContext, fn: Function, atomic: bool = False):
        super().__init__(ctx, fn, atomic)
        self.kernel = fn.name == ctx.entry and fn.attrs.get("cuda") == "global"
        self.sums: dict[object, tuple[str, Expr]] = {}  # shadow -> (register, the element it flushes to)
        self.sum_types: set[str] = set()  # the float types block_sum_add is called for
        self.warp_sum_types: set[str] = set()  # and warp_sum_add
        self.local_first: dict[str, str] = {}  # a growing tape -> the local cells it starts in
        self.zeroed_types: set[str] = set()  # and zero_shared
        # tapes made by block_tape (freed by block_tape_free), each with the variable holding the
        # distance between a thread's consecutive values, and its local cells where it has some
        self.block_tapes: dict[str, tuple[str, Optional[str]]] = {}
        self.stride: Optional[str] = None  # the variable holding the number of threads in a block
        self.printing: list[Op] = []  # the operations being printed, innermost last (op_expr)
        for spelled, p in zip(self.declared or [], fn.params):
            if is_pointer_rows(spelled):
                raise error(f"CUDA output: '{p.name_hint}' is declared {spelled.strip()}, rows that each lie "
                            "anywhere, and CUDA output takes every array as one block", fn.loc,
                            hint=f"declare it {row_pointer(spelled)}{p.name_hint} and index it "
                            f"{p.name_hint}[i * m + j], or with its extents: double {p.name_hint}[n][m]")

    @staticmethod
    def _param_spelling(declared: str) -> str:
        """CUDA output drops ``restrict`` (C++ spells it ``__restrict__``; kernels read through
        ``__ldg`` where it matters), and passes arrays as flat pointers (C++ has no
        variable-length ``double A[n][m]``): ``const double *A``, indexed ``A[i * m + j]``."""
        if is_array_spelling(declared):
            declared = row_pointer(declared)
        return re.sub(r"\s*\brestrict\b", "", declared)

    def _linkage(self) -> str:
        if self.fn.name == self.ctx.entry:
            return "__global__ " if self.kernel else "__device__ "
        return "static __device__ "

    def _may_fuse_into(self, store: Op) -> bool:
        return store.attrs.get(ACCUMULATE) in (None, PRIVATE)

    def spell_expr(self, op: Op) -> Expr:
        if op.name in GPU_BUILTINS:
            return Name(cuda_spelling(op.name, op.attrs["axis"]))
        if op.name == SHUFFLE:
            mask, value, lane = op.operands
            full = const_int(mask) == FULL_MASK
            mode = op.attrs["mode"]
            return Call(Name("__shfl_sync" if mode == "idx" else f"__shfl_{mode}_sync"),
                        (Lit("0xffffffff") if full else self.expr(mask), self.expr(value), self.expr(lane)))
        if reads_global(op):
            raise error(f"--target cuda: '{op.attrs['callee']}' is a global variable of the host program, which "
                        "device code cannot read", op.loc,
                        hint="pass it as a parameter, or make it a const or a #define")
        if op.name == "extern":
            callee = op.attrs["callee"]
            raise error(f"--target cuda: '{callee}' is defined outside the input, and a kernel can call only the "
                        "__device__ functions of its own file", op.loc,
                        hint=f"define {callee} in this file (it becomes a __device__ function), or use --target c")
        return super().spell_expr(op)

    def gen_block(self, block: Block) -> list[Stmt]:
        out = super().gen_block(block)
        if block is self.fn.body and self.sums:
            zero = [Assign([Name(name)], self._lit(0, self._sum_type(name))) for name, _ in self.sums.values()]
            out = zero + out
        return out

    # -- thread built-ins: unsigned in C ---------------------------------------------------
    # threadIdx.x and its kin are 32-bit unsigned in CUDA, where the IR's integers are signed:
    # `j > threadIdx.x - 1` is never true for thread 0 (0u - 1 wraps), and a strided loop reversed
    # that way skipped thread 0's iterations (a wrong gradient). The sums and products of
    # non-negative values that index arrays come out right as they are (`blockIdx.x * blockDim.x
    # + threadIdx.x` stored into a long), so a built-in, or such a sum of one, is read as a
    # `long` only where the sign matters: an operand of an operation that may meet a negative
    # integer (an operand or its result: `threadIdx.x - 1`, `threadIdx.x > k - 1`).
    def op_expr(self, op: Op) -> Expr:
        self.printing.append(op)  # the operation whose operands _int_operand reads
        try:
            if op.name == "neg" and op.result.type.is_int and self._unsigned_builtin(op.operands[0]):
                return negate(Cast("long", self.expr(op.operands[0])))  # -blockDim.x would be 2^32 - blockDim.x
            return super().op_expr(op)
        finally:
            self.printing.pop()

    def _int_operand(self, v: Value) -> Expr:
        e = super()._int_operand(v)
        if self.printing and self._unsigned_builtin(v) and self._sign_matters(self.printing[-1], v):
            return Cast("long", e)
        return e

    def _signed_operand(self, v: Value) -> Expr:
        e = super()._signed_operand(v)
        if self.printing and self._unsigned_builtin(v) and not isinstance(e, Cast) \
                and self._sign_matters(self.printing[-1], v):
            return Cast("long", e)
        return e

    def _unsigned_builtin(self, v: Value) -> bool:
        """Whether C types ``v``'s printed expression ``unsigned``: a thread built-in, or an inline
        sum or product of one that no operand cast made signed."""
        op = v.defining_op
        if op is None or v in self.var or v in self.aliases:
            return False
        if op.name in GPU_BUILTINS:
            return True
        return op.name in ("add", "mul") and self.plan.is_expr(v) and not self._c_long(v) \
            and any(self._unsigned_builtin(o) and not self._sign_matters(op, o) for o in op.operands)

    def _sign_matters(self, op: Op, operand: Value) -> bool:
        """Whether ``operand``, unsigned in C, may give ``op`` another value than the IR's: not where
        C widens it to a ``long`` (beside a ``long`` variable), nor in a sum, product or comparison
        whose other operands are built-ins or constants that are not negative (all the values
        then are, and unsigned arithmetic is exact); elsewhere, a difference, a division, a
        negation, or a value that may be negative (an ``int`` parameter too: C's comparison
        ``threadIdx.x < n`` is true for n = -1) could wrap."""
        others = [o for o in op.operands if o is not operand]
        if others and all(self._c_long(o) for o in others):
            return False
        if op.name in ("add", "mul") or op.name in COMPARE:
            return not all(self._unsigned_builtin(o) or (const_int(o) or 0) >= 0 and const_int(o) is not None
                           for o in others)
        return True

    def _c_long(self, v: Value) -> bool:
        """Whether C types ``v``'s printed expression ``long``: a variable (integer variables are
        declared long), or an inline sum, difference or product with one."""
        if v in self.var:
            return self.types.get(self.var[v]) == "long"
        op = v.defining_op
        return op is not None and op.name in ("add", "sub", "mul") and self.plan.is_expr(v) \
            and any(self._c_long(o) for o in op.operands)

    def _sum_type(self, name: str) -> Type:
        return F32 if self.types[name] == "float" else F64

    def gen_op(self, op: Op) -> list[Stmt]:
        g = op.operands[-1] if op.name == "accum" and op not in self.skip else None
        mode = op.attrs.get(ACCUMULATE) if g is not None else None  # (opt/accum_modes)
        if mode in (ATOMIC, WARP):
            arr, *idx, _ = op.operands
            add = "atomicAdd"
            if mode == WARP:
                add = "warp_sum_add"
                self.warp_sum_types.add(ctype(g.type))
            return [ExprStmt(Call(Name(add), (address_of(self._element(arr, idx, op)), self.expr(g))))]
        if mode == BLOCK:
            return [AugAssign(Name(self._sum_register(op)), "+", self.expr(g))]
        if op.name == "store" and op.attrs.get("atomic"):  # the input's '#pragma omp atomic' update
            upd = update(op)
            if upd is None:
                raise error("CUDA output: this '#pragma omp atomic' update lost its form 'y[k] += e'", op.loc,
                            hint="write the update as 'y[k] += e;' on its own line")
            arr, *idx, _ = op.operands
            amount = self.expr(upd[1]) if upd[0] > 0 else negate(self.expr(upd[1]))
            return [ExprStmt(Call(Name("atomicAdd"), (address_of(self._element(arr, idx, op)), amount)))]
        if op.name == SYNC:
            return [ExprStmt(Call(Name("__syncthreads")))]
        if op.name == "stop":
            raise error(f"CUDA output: '{op.attrs.get('text', op.attrs['call'])}' stops the program, which device "
                        "code cannot do", op.loc, hint="check the inputs on the host, before the kernel is launched")
        return super().gen_op(op)

    # -- memory ------------------------------------------------------------------------
    # Per thread (local arrays, copies, tapes that grow): C's code, with the allocation calls
    # device code has (device_calloc, device_grow) and the casts from ``void *`` C++ wants.
    def _malloc(self, var: str, nbytes: Expr) -> Expr:
        return self._typed(var, Call(Name("device_malloc"), (nbytes,)))

    def _calloc(self, var: str, count: Expr, elem: str) -> Expr:
        return self._typed(var, Call(Name("device_calloc"), (count, Lit(f"sizeof({elem})"))))

    def _grown(self, var: str, used: Expr, count: Expr, elem: str) -> Expr:
        # A tape made in a loop or branch has no local cells (_local_first_tape): NULL.
        local = Name(self.local_first[var]) if var in self.local_first else Lit("NULL")
        grown = Call(Name("device_grow"), (Name(var), used, count, Lit(f"sizeof({elem})"), local))
        return self._typed(var, grown)

    def _typed(self, var: str, memory: Expr) -> Expr:
        pointer = self.types.get(var, "")
        return Cast(pointer, memory) if pointer.endswith("*") else memory

    def _free(self, var: str) -> Stmt:
        if var in self.block_tapes:
            cells = self.block_tapes[var][1]
            if cells is not None:
                return ExprStmt(Call(Name("local_or_block_tape_free"), (Name(var), Name(cells))))
            return ExprStmt(Call(Name("block_tape_free"), (Name(var),)))
        if var in self.local_first:
            return ExprStmt(Call(Name("device_tape_free"), (Name(var), Name(self.local_first[var]))))
        return super()._free(var)

    def _alloc(self, op: Op) -> list[Stmt]:
        if op.attrs.get("space") == SHARED_SPACE:
            return self._shared(op)
        if self._block_array(op):
            # A cache the reverse sweep reads back (tape_x[t * 16 + k]): one allocation per
            # block, like a block_tape, its elements interleaved the same way; zeroed as C's
            # caches are (emit_c's CMemory._alloc says why), by block_calloc.
            count = self.expr(op.operands[0])
            for d in op.operands[1:]:
                count = BinOp("*", count, self.expr(d))
            zero = bool(op.attrs.get("cache"))
            return self._block_tape(op, self.var[op.result], count, self._elem(op.result.type), zero)
        return super()._alloc(op)  # per thread: C's stack array, or heap memory

    def _block_tape(self, op: Op, name: str, count: Expr, elem: str, zero: bool = False) -> list[Stmt]:
        """A tape or cache of ``count`` values per thread, zero-filled when ``zero``: in TAPE_CELLS
        local cells where it fits, ``name = (elem *)local_or_block_tape(count, ..., name_cells,
        TAPE_CELLS, &name_step);``; where it never fits (a constant count over TAPE_CELLS),
        ``name = (elem *)block_tape(count, sizeof(elem));`` (``block_calloc`` when ``zero``).
        Freed at the end; ``tape[k]`` is ``tape[name_step * k]`` (``_interleave``)."""
        self.hold(op, name)
        size = Lit(f"sizeof({elem})")
        fixed = const_int(op.operands[0]) if op.name == "tape_new" or len(op.operands) == 1 else None
        if fixed is not None and fixed > TAPE_CELLS:
            pre = self._stride()
            self.block_tapes[name] = (self.stride, None)  # type: ignore[assignment]
            alloc = Call(Name("block_calloc" if zero else "block_tape"), (count, size))
            return pre + [Assign([Name(name)], Cast(f"{elem} *", alloc))]
        cells, step = self.namer.fresh(f"{name}_cells"), self.namer.fresh(f"{name}_step")
        self.stack.add(cells)
        self.block_tapes[name] = (step, cells)
        alloc = Call(Name("local_or_block_tape"), (count, size, Lit("1" if zero else "0"), Name(cells),
                                                   number(TAPE_CELLS), address_of(Name(step))))
        return [ArrayDecl(elem, cells, TAPE_CELLS, False), Decl("long", step),
                Assign([Name(name)], Cast(f"{elem} *", alloc))]

    def _interleave(self, e: Subscript) -> Subscript:
        """``tape[k]`` -> ``tape[tape_step * k]``: a block tape's layout."""
        step = self.block_tapes[e.value.id][0]  # type: ignore[attr-defined]
        return Subscript(e.value, (BinOp("*", Name(step), e.index[0]),))  # type: ignore[arg-type]

    def _block_array(self, op: Op) -> bool:
        """An uninitialized array of a kernel, made at its top level, of a size every thread
        shares (not small enough for the stack), that only this function's loads and stores use."""
        v = op.result
        if not (self.kernel and v in self.var and op.parent is self.fn.body and op.attrs.get("fill") == "empty"):
            return False
        size = [const_int(d) for d in op.operands]
        if all(c is not None for c in size) and 0 < math.prod(size) <= STACK_LIMIT:  # type: ignore[arg-type]
            return False  # C's stack array: local memory
        return (all(thread_uniform(d) for d in op.operands)
                and all(use.name in ("load", "store", "accum") and use.operands[0] is v for use, _ in v.uses))

    def _element(self, arr: Value, idx: list[Value], op: Op) -> Expr:
        e = super()._element(arr, idx, op)
        if self.var.get(arr) in self.block_tapes and isinstance(e, Subscript):
            return self._interleave(e)
        return e

    def _stride(self) -> list[Stmt]:
        """``long threads_in_block = blockDim.x * blockDim.y * blockDim.z;`` the first time."""
        if self.stride is not None:
            return []
        self.stride = self.namer.fresh("threads_in_block")
        self.types[self.stride] = "long"
        dims = [Name(cuda_spelling("gpu.block_dim", a)) for a in AXES]
        return [Assign([Name(self.stride)], BinOp("*", BinOp("*", dims[0], dims[1]), dims[2]))]

    def _shared(self, op: Op) -> list[Stmt]:
        """``__shared__ double buf[64];``, zeroed by the whole block when the IR asks (a shadow)."""
        v = op.result
        if v not in self.var:
            return []
        name = self.var[v]
        size = 1
        for d in op.operands:
            size *= const_int(d)  # type: ignore[operator]  # constant: the front end checks
        self.stack.add(name)
        elem = self._elem(v.type)
        out: list[Stmt] = [ArrayDecl(f"__shared__ {elem}", name, size, False)]
        if op.attrs.get("fill") == "zeros":
            self.zeroed_types.add(elem)
            out.append(ExprStmt(Call(Name("zero_shared"), (Name(name), number(size)))))
        return out

    # Tapes: in registers / local memory when their size is a small constant; else, for a
    # kernel whose tape size is the same in every thread, one allocation per thread block
    # (block_calloc), the block's threads interleaved; else (a tape that grows, a tape in a
    # device function) per-thread device-heap memory (device_calloc). Zero-filled, as C's are.
    def _tape_memory(self, new: Op) -> str:
        """Where the tape ``new`` makes lives: ``local``, ``block`` or ``thread`` (see above)."""
        if new.attrs.get("grow") or new.parent is not self.fn.body:
            return "thread"
        size = const_int(new.operands[0])
        if size is not None and 0 < size <= STACK_LIMIT:
            return "local"
        return "block" if self.kernel and thread_uniform(new.operands[0]) else "thread"

    def _tape_new(self, op: Op, tape: Name, top: Name) -> list[Stmt]:
        where = self._tape_memory(op)
        if where == "thread" and op.attrs.get("grow") and op.parent is self.fn.body:
            return self._local_first_tape(op, tape, top)
        if where == "thread":
            return super()._tape_new(op, tape, top)
        start = Assign([top], Lit("0"))
        if where == "local":
            self.stack.add(tape.id)
            return [ArrayDecl(tape_elem(op), tape.id, const_int(op.operands[0]), True), start]  # type: ignore[arg-type]
        return self._block_tape(op, tape.id, self.expr(op.operands[0]), tape_elem(op), zero=True) + [start]

    def _local_first_tape(self, op: Op, tape: Name, top: Name) -> list[Stmt]:
        """A growing tape that starts in LOCAL_CELLS cells of local memory (device_grow moves it
        to the heap past them). Made at the kernel's top level only, so that the cells live as
        long as the function: a tape made in a loop or branch starts on the heap (C's way)."""
        pre = self._register_buffer(op, tape.id)  # frees the variable's earlier tape, if any
        local = self.namer.fresh(f"{tape.id}_local")
        self.local_first[tape.id] = local
        self.stack.add(local)
        cap = Name(self.tape_caps[tape.id])
        return pre + [ArrayDecl(tape_elem(op), local, LOCAL_CELLS, False), Assign([cap], number(LOCAL_CELLS)),
                      Assign([tape], Name(local)), Assign([top], Lit("0"))]

    def _tape_slot(self, op: Op, tape: Name, index: Expr) -> Expr:
        slot = super()._tape_slot(op, tape, index)
        if self._tape_memory(tape_new_op(op)) == "block":
            return self._interleave(slot)  # type: ignore[arg-type]
        return slot

    # -- accumulation ------------------------------------------------------------------
    def _sum_register(self, op: Op) -> str:
        arr, *idx, value = op.operands
        if arr not in self.sums:
            name = self.namer.fresh(f"{arr.name_hint or 'adjoint'}_sum")
            self.types[name] = ctype(value.type)
            self.sum_types.add(self.types[name])
            self.sums[arr] = (name, self._element(arr, idx, op))
        return self.sums[arr][0]

    def _return(self, op: Op) -> list[Stmt]:
        # The block's registers are added where every thread of the block arrives (block_sum_add
        # has barriers).
        flush: list[Stmt] = [ExprStmt(Call(Name("block_sum_add"), (address_of(target), Name(name))))
                             for name, target in self.sums.values()]
        return flush + super()._return(op)

    def _add_returned(self, pointer: str, value: Expr, t: Type) -> Stmt:
        """A kernel's scalar adjoint is one cell for all threads: added atomically, or once per
        block; a device function's caller passes its own register or element (C's ``+=``)."""
        if self.kernel and self.fn.attrs.get(ACCUMULATE) == ATOMIC:
            return ExprStmt(Call(Name("atomicAdd"), (Name(pointer), value)))
        if self.kernel and self.fn.attrs.get(ACCUMULATE) == BLOCK:
            self.sum_types.add(ctype(t))
            return ExprStmt(Call(Name("block_sum_add"), (Name(pointer), value)))
        return super()._add_returned(pointer, value, t)
