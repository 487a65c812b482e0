"""``opt/accum_modes``: how each accumulation is added where iterations or threads run at once,
decided once on the IR (``ssa.attrs.ACCUMULATE``, ``SERIAL``) and printed by the emitters.

Each case captures the module the target's pipeline leaves for the emitter, checks the modes
stamped on it, and checks that the printed source says the same: the attribute is the emitters'
only source for it. (tests/test_omp_races.py and tests/test_prange.py run such gradients against
central differences; the goldens hold their text.)"""

from __future__ import annotations

import pytest

from s2sad import pipeline
from s2sad.analysis.accumulation import ATOMIC, BLOCK, PRIVATE
from s2sad.ssa.attrs import ACCUMULATE, SERIAL
from s2sad.ssa.ir import Module
from s2sad.opt.passes import TARGET_PIPELINES, observing

STENCIL_OMP = """
void smooth(int n, const double *x, double *y, double *z) {
    #pragma omp parallel for
    for (int i = 1; i < n - 1; i++) {
        y[i] = x[i - 1] + 2.0 * x[i] + x[i + 1];
        z[i] = y[i] * y[i];
    }
}
"""

NESTED_OMP = """
void outer(int n, int m, const double *v, double *out) {
    #pragma omp parallel for
    for (int i = 0; i < n; i++) {
        #pragma omp parallel for
        for (int j = 0; j < m; j++) {
            out[i * m + j] = v[j] * v[j];
        }
    }
}
"""

STENCIL_PRANGE = """\
import numba


def smooth(x, y, n: int):
    for i in numba.prange(1, n - 1):
        y[i] = x[i - 1] * x[i + 1]
"""

KERNEL = """
__global__ void scale(int n, double a, const double *x, double *y) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) {
        y[i] = a * x[i] * x[i];
    }
}
"""


def _target_module(source: str, filename: str, func: str, wrt: list[str], target: str,
                   **options) -> tuple[Module, str]:
    """The module as the target's pipeline leaves it for the emitter, and the printed source."""
    seen: list[Module] = []

    def keep(ran, module):
        if ran.label == "target" and ran.name == TARGET_PIPELINES[target].split(",")[-1]:
            seen.append(module)

    opts = pipeline.Options(**options) if options else pipeline.DEFAULT
    with observing(keep):
        text = pipeline.gradient_source(source, filename, func, wrt, target, opts)
    assert len(seen) == 1
    return seen[0], text


def _modes(module: Module, fn: str) -> dict[str, list[str]]:
    """The modes stamped in ``fn``, by the accumulated array's name."""
    out: dict[str, list[str]] = {}
    for op in module.functions[fn].walk():
        if ACCUMULATE in op.attrs:
            out.setdefault(op.operands[0].name_hint, []).append(op.attrs[ACCUMULATE])
    return out


def test_the_accumulations_other_iterations_meet_are_atomic():
    module, text = _target_module(STENCIL_OMP, "s.c", "smooth", ["x"], "c")
    modes = _modes(module, "grad_smooth")
    assert set(modes["d_x"]) == {ATOMIC}  # d_x[i - 1] and d_x[i + 1] meet the neighbours' d_x[i]
    assert set(modes.get("d_y", [])) <= {PRIVATE}
    assert text.count("#pragma omp atomic") == len(modes["d_x"])


def test_an_element_the_inner_iteration_owns_is_shared_by_the_outer_ones():
    module, text = _target_module(NESTED_OMP, "n.c", "outer", ["v"], "c")
    assert set(_modes(module, "grad_outer")["d_v"]) == {ATOMIC}
    assert "#pragma omp atomic" in text


def test_a_prange_loop_whose_iterations_meet_is_serial_with_its_reason():
    module, text = _target_module(STENCIL_PRANGE, "s.py", "smooth", ["x"], "numba")
    reasons = [op.attrs[SERIAL] for op in module.functions["grad_smooth"].walk() if SERIAL in op.attrs]
    assert reasons == ["iterations may add to the same element (numba.prange has no atomic add)"]
    assert f"# serial: {reasons[0]}" in text


@pytest.mark.parametrize("all_atomic", [False, True])
def test_a_kernels_accumulations_and_returned_adjoints(all_atomic):
    module, text = _target_module(KERNEL, "k.cu", "scale", ["a", "x"], "cuda", all_atomic=all_atomic)
    fn = module.functions["grad_scale"]
    modes = _modes(module, "grad_scale")
    if all_atomic:
        assert set(modes["d_x"]) == {ATOMIC} and fn.attrs[ACCUMULATE] == ATOMIC
        assert "atomicAdd(&d_x[i]" in text and "atomicAdd(d_a" in text
    else:
        # Each thread's own d_x[i]; the scalar d_a, one for all threads, summed per block.
        assert set(modes["d_x"]) == {PRIVATE} and fn.attrs[ACCUMULATE] == BLOCK
        assert "atomicAdd(&d_x" not in text and "block_sum_add(d_a" in text
