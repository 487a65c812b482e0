"""GPU benchmark of the CUDA gradients: gradient time / primal time per golden kernel, and the
effect of classifying adjoint accumulation (classified versus every accumulation atomic).

    python bench/gpu.py [--build-only] [--repeat N]

Without a GPU (``nvidia-smi`` absent or failing) it prints ``skipped: no GPU`` and exits 0.
With one, each kernel of golden/cuda is run at a benchmark size (``SIZES``) from one
generated driver: the primal, ``grad_<kernel>`` as s2sad writes it, and the same gradient
with ``--all-atomic``, each timed with CUDA events over ``--repeat`` launches, after about
200 ms of warm-up (the clocks rise only under load), in 5 rounds that interleave the three
kernels, the median round reported; 256 threads per block (the shared-memory kernel's own block size where it has
one; 16 x 16 for the 2-D case), with a 1 GiB device heap for tapes. The table's columns are
milliseconds per launch and the two ratios the issue sets targets for: gradient / primal
(Enzyme's SC'21 bound is 10x) and all-atomic / classified.

``--build-only`` compiles every driver with nvcc and stops: the check that needs no GPU.
``--profile`` runs each driver once more under Nsight Compute (``ncu``) and prints, per kernel,
the counters that explain a ratio: time, DRAM bytes, registers per thread, achieved
occupancy, local-memory (spill and tape) traffic and atomic traffic at L2.
"""

from __future__ import annotations

import argparse
import csv
import io
import json
import re
import shutil
import subprocess
import sys
import tempfile
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from s2sad import pipeline  # noqa: E402
from s2sad.parse.c_frontend import parse_c  # noqa: E402

CASES = ROOT / "golden" / "cuda"

# Benchmark sizes: the integer parameters (the others follow from them, as below).
SIZES = {
    "daxpy_shared_scalar": {"n": 1 << 24},
    "stencil_1d": {"n": 1 << 24},
    "gather_index_list": {"n": 1 << 24},
    "device_function_call": {"n": 1 << 24},
    "matvec_row_loop": {"n": 1 << 16, "m": 256},
    "tape_in_kernel": {"n": 1 << 16, "m": 64},
    "shared_block_reduction": {"n": 1 << 24},
    "grid_2d": {"h": 4096, "w": 4096},
    "tape_fixed_steps": {"n": 1 << 24},
    "tape_data_dependent": {"n": 1 << 20},
    "grid_stride_loop": {"n": 1 << 24},
    "intrinsics": {"n": 1 << 24, "width": 3},
    "tiled_matmul": {"n": 1024},
    "atomic_add_in_primal": {"n": 1 << 24},
    "tiled_matmul_guarded": {"n": 1000},
    "block_strided_rows": {"n": 1 << 14, "m": 1024},
    "shared_tree_reduction": {"n": 1 << 24},
    "device_helper_fills_shared": {"n": 1 << 24},
    "warp_shuffles": {"n": 1 << 24},
}
# Cases launched with one block per row (n rows of m): the grid is n blocks.
ROW_BLOCKS = {"block_strided_rows"}
BLOCK = {"shared_block_reduction": 64, "shared_tree_reduction": 64, "device_helper_fills_shared": 32}
# Cases launched over two axes: (x extent, y extent) as parameter names, and the block.
GRID_2D = {"grid_2d": (("w", "h"), (16, 16)), "tiled_matmul": (("n", "n"), (4, 4)),  # its TILE
           "tiled_matmul_guarded": (("n", "n"), (16, 16))}
HEAP_BYTES = 1 << 30  # device heap for the kernels' tapes (CUDA's default is 8 MB)
GATHER_RANGE = 4096  # indices of the gather: many threads meet at each x element
WARMUP_MS = 200  # every kernel of a driver runs this long before the timed rounds
ROUNDS = 5  # timed rounds of --repeat launches per kernel, the kernels interleaved


RESTRICT = re.compile(r"\b(?:__restrict__|__restrict|restrict)\b")


def have_gpu() -> bool:
    smi = shutil.which("nvidia-smi")
    if smi is None:
        return False
    r = subprocess.run([smi, "-L"], capture_output=True, text=True)
    return r.returncode == 0 and "GPU" in r.stdout


def _extent(name: str, case: str, shape: list[int], ints: dict[str, int]) -> str:
    """The benchmark length of an array parameter, as a C expression of the integer parameters."""
    n = ints.get("n", 1)
    if case == "gather_index_list" and name == "x":
        return str(GATHER_RANGE)
    if case == "atomic_add_in_primal" and name == "total":
        return "2"
    if case in ("shared_block_reduction", "shared_tree_reduction") and name == "partial":
        return f"({n} + 63) / 64"
    if case in ROW_BLOCKS:
        return f"{n} * {ints['m']}" if name == "x" else str(n)
    if "m" in ints and name in ("A", "x") and case in ("matvec_row_loop", "tape_in_kernel"):
        return f"{n} * {ints['m']}" if name == "A" or case == "tape_in_kernel" else str(ints["m"])
    if case in GRID_2D:
        return "1" if shape == [1] else " * ".join(str(ints[k]) for k in GRID_2D[case][0])
    return "1" if shape == [1] else str(n)


def driver(case: str, spec: dict, source: str) -> str:
    """A host program that times the primal and both gradients of one kernel."""
    fn = parse_c(source, "input.cu", spec["func"]).functions[spec["func"]]
    ints = SIZES[case]
    if case in GRID_2D:
        (nx, ny), (bx, by) = GRID_2D[case]
        grid = f"({ints[nx]} + {bx} - 1) / {bx}, ({ints[ny]} + {by} - 1) / {by}"
        block = f"{bx}, {by}"
    else:
        block = str(BLOCK.get(case, 256))
        grid = str(ints["n"]) if case in ROW_BLOCKS else f"({ints['n']} + {block} - 1) / {block}"
    decls, grad_decls, args, grad_args, setup = [], [], [], [], []
    for p, spelled in zip(spec["params"], fn.attrs["c_params"]):
        # restrict qualifies the parameter itself, not its type: the declarations here leave it out.
        spelled = " ".join(RESTRICT.sub(" ", spelled).split())
        name = p["name"]
        decls.append(f"{spelled} {name}")
        grad_decls.append(f"{spelled} {name}")
        args.append(name)
        grad_args.append(name)
        if p["kind"] == "int":
            setup.append(f"    int {name} = {ints[name]};")
            continue
        if p["kind"] == "float":
            setup.append(f"    double {name} = 0.5, *d_{name} = (double *)device_array(1, 0);")
            if name in spec["wrt"]:
                grad_decls.append(f"double *d_{name}")
                grad_args.append(f"d_{name}")
            continue
        elem = spelled.replace("const", "").replace("*", "").strip()
        count = _extent(name, case, p["shape"], ints)
        fill = f"{GATHER_RANGE}" if elem == "int" else "1"
        setup.append(f"    {elem} *{name} = ({elem} *)device_array({count}, {fill}, sizeof({elem}));")
        if name in spec["wrt"] or name in spec.get("written", []):
            setup.append(f"    {elem} *d_{name} = ({elem} *)device_array({count}, 1, sizeof({elem}));")
            grad_decls.append(f"{elem} *d_{name}")
            grad_args.append(f"d_{name}")
    kernel = spec["func"]
    return f"""#include <cstdio>
#include <cstdlib>
#include <cuda_runtime.h>

__global__ void {kernel}({", ".join(decls)});
__global__ void grad_{kernel}({", ".join(grad_decls)});
__global__ void atomic_grad_{kernel}({", ".join(grad_decls)});

/* count elements: ints uniform in [0, fill) when fill > 1 (indices), else values near 1. */
static void *device_array(long count, int fill, size_t size = sizeof(double)) {{
    void *host = malloc(count * size), *dev = 0;
    for (long k = 0; k < count; k++) {{
        if (size == sizeof(int)) ((int *)host)[k] = fill > 1 ? (int)((k * 2654435761u) % fill) : 1;
        else ((double *)host)[k] = 1.0 + 1e-3 * (double)(k % 97);
    }}
    cudaMalloc(&dev, count * size);
    cudaMemcpy(dev, host, count * size, cudaMemcpyHostToDevice);
    free(host);
    return dev;
}}

template <class F>
static float time_ms(F launch, int repeat) {{
    cudaEvent_t start, stop;
    cudaEventCreate(&start);
    cudaEventCreate(&stop);
    cudaEventRecord(start);
    for (int r = 0; r < repeat; r++) launch();
    cudaEventRecord(stop);
    cudaEventSynchronize(stop);
    float ms = 0;
    cudaEventElapsedTime(&ms, start, stop);
    cudaEventDestroy(start);
    cudaEventDestroy(stop);
    return ms / repeat;
}}

static float median(float *v, int count) {{
    for (int a = 1; a < count; a++)
        for (int b = a; b > 0 && v[b - 1] > v[b]; b--) {{ float t = v[b]; v[b] = v[b - 1]; v[b - 1] = t; }}
    return v[count / 2];
}}

int main(int argc, char **argv) {{
    int repeat = argc > 1 ? atoi(argv[1]) : 20;
    cudaDeviceSetLimit(cudaLimitMallocHeapSize, {HEAP_BYTES}ul);  /* the gradients' tapes */
{chr(10).join(setup)}
    dim3 grid({grid}), block({block});
    auto primal = [&] {{ {kernel}<<<grid, block>>>({", ".join(args)}); }};
    auto grad = [&] {{ grad_{kernel}<<<grid, block>>>({", ".join(grad_args)}); }};
    auto atomic = [&] {{ atomic_grad_{kernel}<<<grid, block>>>({", ".join(grad_args)}); }};
    if (argc > 2) {{  /* --profile: each kernel once, for Nsight Compute */
        primal();
        grad();
        atomic();
        cudaDeviceSynchronize();
        return 0;
    }}
    /* Warm-up: the clocks rise only under load, so every kernel runs for about {WARMUP_MS} ms first
       (else the first timed, short kernels run slower than the last). */
    float warm = 0;
    for (int w = 0; w < 1000 && warm < {WARMUP_MS}; w++)
        warm += time_ms(primal, 1) + time_ms(grad, 1) + time_ms(atomic, 1);
    /* {ROUNDS} rounds, the three kernels interleaved in each; the median round of each kernel. */
    float t[3][{ROUNDS}];
    for (int r = 0; r < {ROUNDS}; r++) {{
        t[0][r] = time_ms(primal, repeat);
        t[1][r] = time_ms(grad, repeat);
        t[2][r] = time_ms(atomic, repeat);
    }}
    cudaError_t e = cudaGetLastError();
    if (e != cudaSuccess) {{
        fprintf(stderr, "%s\\n", cudaGetErrorString(e));
        return 1;
    }}
    printf("%.4f %.4f %.4f\\n", median(t[0], {ROUNDS}), median(t[1], {ROUNDS}), median(t[2], {ROUNDS}));
    return 0;
}}
"""


def write(case: str, workdir: Path) -> list[str]:
    """Writes one case's driver, primal and gradients under ``workdir``; returns the nvcc command."""
    spec = json.loads((CASES / case / "case.json").read_text())
    source = (CASES / case / "input.cu").read_text()
    d = workdir / case
    d.mkdir()
    (d / "primal.cu").write_text(source)
    classified = pipeline.gradient_source(source, "input.cu", spec["func"], spec["wrt"], "cuda")
    (d / "grad.cu").write_text(classified)
    atomic = pipeline.gradient_source(source, "input.cu", spec["func"], spec["wrt"], "cuda",
                                      pipeline.Options(all_atomic=True))
    # The all-atomic gradient beside the classified one: its kernel renamed, its helpers are static.
    (d / "atomic.cu").write_text(atomic.replace(f"void grad_{spec['func']}(", f"void atomic_grad_{spec['func']}("))
    (d / "driver.cu").write_text(driver(case, spec, source))
    exe = d / "bench"
    arch = ["-arch=native"] if have_gpu() else []  # built for the GPU it runs on, where there is one
    sources = (str(d / f) for f in ("driver.cu", "primal.cu", "grad.cu", "atomic.cu"))
    return ["nvcc", "-O3", "-std=c++17", *arch, *sources, "-o", str(exe)]


def compile_driver(cmd: list[str]) -> Path:
    r = subprocess.run(cmd, capture_output=True, text=True)
    if r.returncode != 0:
        raise SystemExit(f"{cmd[-1]}: nvcc failed:\n{r.stderr}")
    return Path(cmd[-1])


# Nsight Compute counters for --profile: (metric, column heading, scale to the unit shown).
PROFILE = [
    ("gpu__time_duration.sum", "us", 1e-3),
    ("dram__bytes.sum", "DRAM MB", 1e-6),
    ("launch__registers_per_thread", "regs", 1),
    ("sm__warps_active.avg.pct_of_peak_sustained_active", "occ %", 1),
    ("l1tex__t_sectors_pipe_lsu_mem_local_op_ld.sum", "local ld k", 1e-3),
    ("l1tex__t_sectors_pipe_lsu_mem_local_op_st.sum", "local st k", 1e-3),
    ("lts__t_sectors_op_red.sum", "red k", 1e-3),
    ("lts__t_sectors_op_atom.sum", "atom k", 1e-3),
    ("smsp__inst_executed.sum", "inst M", 1e-6),
]


def profile(case: str, exe: Path) -> None:
    """Prints the PROFILE counters of the first launch of each kernel of one driver (see --profile)."""
    metrics = ",".join(m for m, _, _ in PROFILE)
    r = subprocess.run(["ncu", "--csv", "--metrics", metrics, str(exe), "1", "profile"], capture_output=True,
                       text=True)
    rows = [line for line in r.stdout.splitlines() if line.startswith('"')]
    if r.returncode != 0 or not rows:
        print(f"{case}: ncu failed: {(r.stderr or r.stdout).strip()[-500:]}")
        return
    values: dict[str, dict[str, float]] = {}
    for row in csv.DictReader(io.StringIO("\n".join(rows))):
        kernel = row["Kernel Name"].split("(")[0]
        if row["ID"] != values.setdefault(kernel, {}).setdefault("id", row["ID"]):
            continue  # a later launch of the same kernel
        values[kernel][row["Metric Name"]] = float(row["Metric Value"].replace(",", "") or "nan")
    for kernel, got in values.items():
        cells = " ".join(f"{got.get(m, float('nan')) * scale:>11.1f}" for m, _, scale in PROFILE)
        print(f"{kernel:28} {cells}")


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--build-only", action="store_true", help="compile the drivers with nvcc and stop")
    ap.add_argument("--repeat", type=int, default=20, help="timed launches per kernel (default 20)")
    ap.add_argument("--only", help="comma-separated case names")
    ap.add_argument("--profile", action="store_true", help="also print Nsight Compute counters per kernel")
    args = ap.parse_args(argv)
    gpu = have_gpu()
    if not gpu and not args.build_only:
        print("skipped: no GPU")
        return 0
    if shutil.which("nvcc") is None:
        print("skipped: nvcc is not installed")
        return 0
    cases = [c for c in SIZES if (CASES / c / "case.json").exists()]
    if args.only:
        cases = [c for c in cases if c in args.only.split(",")]
    with tempfile.TemporaryDirectory(prefix="s2sad_gpu_") as tmp:
        commands = [write(case, Path(tmp)) for case in cases]
        with ThreadPoolExecutor() as pool:  # nvcc is slow and single-threaded
            exes = dict(zip(cases, pool.map(compile_driver, commands)))
        if args.build_only:
            print(f"built {len(exes)} drivers: {', '.join(exes)}")
            return 0
        print(f"{'kernel':24} {'primal ms':>10} {'grad ms':>10} {'atomic ms':>10} {'grad/primal':>12} "
              f"{'atomic/classified':>18}")
        for case, exe in exes.items():
            r = subprocess.run([str(exe), str(args.repeat)], capture_output=True, text=True)
            if r.returncode != 0:
                print(f"{case:24} failed: {r.stderr.strip()}")
                continue
            primal, grad, atomic = (float(x) for x in r.stdout.split())
            print(f"{case:24} {primal:10.4f} {grad:10.4f} {atomic:10.4f} {grad / primal:12.2f} "
                  f"{atomic / grad:18.2f}")
        if args.profile:
            print(f"\n{'kernel':28} " + " ".join(f"{h:>11}" for _, h, _ in PROFILE))
            for case, exe in exes.items():
                profile(case, exe)
    return 0


if __name__ == "__main__":
    sys.exit(main())
