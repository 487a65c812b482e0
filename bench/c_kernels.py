"""The loop-kernel suite (bench/c/kernels): gradient / primal time of each kernel, as written.

Each kernel folder holds ``input.c`` and ``case.json`` (golden/c's format, small sizes: those
are what tests/test_c_kernels.py checks against central differences). Here every integer
parameter is scaled up (``--size``: each extent times the factor, time-step counts kept), array
shapes are read from the kernel's own variable-length declarators (``double A[ni][nk]``), the
kernel and its gradient (``s2sad.pipeline.gradient_source(..., target="c")``, -O2 unless
``-O``) are built with ``gcc -O2 -shared -fPIC`` and called through ctypes on random data, and
the best time per call and the ratio are printed. Usage::

    .venv/bin/python bench/c_kernels.py [--size 20] [--only gemm,lu] [--time 0.3] [-O 2]

Quote ratios from one run: the machine is noisy. A kernel s2sad refuses prints its diagnostic
and the script exits with status 1.
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from pathlib import Path

import numpy as np
from pycparser import c_ast, c_generator, c_parser

ROOT = Path(__file__).resolve().parent.parent
sys.path[:0] = [str(ROOT), str(ROOT / "tests")]

from cbuild import build  # noqa: E402  (tests/ holds the ctypes harness the tests use)
from cprimal import CSignature, preprocess  # noqa: E402
from s2sad import pipeline  # noqa: E402
from s2sad.diagnostics import DiagnosticError  # noqa: E402

KERNELS = ROOT / "bench" / "c" / "kernels"
# Integer parameters that count steps, not points: kept as case.json has them.
STEP_COUNTS = {"tsteps", "tmax"}


def extents(source: str, func: str) -> dict[str, list[str]]:
    """Each array parameter's declared extents, as C expressions (``["ni", "nk"]``)."""
    ast = c_parser.CParser().parse(preprocess(source, None), filename="input.c")
    fn = next(e for e in ast.ext if isinstance(e, c_ast.FuncDef) and e.decl.name == func)
    out: dict[str, list[str]] = {}
    for p in fn.decl.type.args.params:
        dims, t = [], p.type
        while isinstance(t, c_ast.ArrayDecl):
            dims.append(c_generator.CGenerator().visit(t.dim))
            t = t.type
        if dims:
            out[p.name] = dims
    return out


def scaled_inputs(folder: Path, factor: int, rng: np.random.Generator) -> tuple[CSignature, dict, list]:
    spec = json.loads((folder / "case.json").read_text())
    source = (folder / "input.c").read_text()
    sig = CSignature.parse(source, spec["func"])
    ints = {p["name"]: p["value"] * (1 if p["name"] in STEP_COUNTS else factor)
            for p in spec["params"] if p["kind"] == "int"}
    dims = extents(source, spec["func"])
    values = []
    for p in spec["params"]:
        if p["kind"] == "int":
            values.append(ints[p["name"]])
        elif p["kind"] == "float":
            values.append(float(rng.uniform(p.get("low", -1.0), p.get("high", 1.0))))
        else:
            shape = [eval(d, {}, dict(ints)) for d in dims[p["name"]]]  # noqa: S307 - C extents of ints
            values.append(rng.uniform(p.get("low", -1.0), p.get("high", 1.0), size=shape))
    return sig, spec, values


def best(fn, make_args, budget: float) -> float:
    """The best time of one call, each call on fresh copies of its arguments (in-place kernels)."""
    times: list[float] = []
    start = time.perf_counter()
    while len(times) < 3 or time.perf_counter() - start < budget:
        args = make_args()
        t = time.perf_counter()
        fn(*args[0], **args[1])
        times.append(time.perf_counter() - t)
    return min(times)


def run(name: str, factor: int, level: int, budget: float) -> str:
    folder = KERNELS / name
    rng = np.random.default_rng(0)
    sig, spec, values = scaled_inputs(folder, factor, rng)
    source = (folder / "input.c").read_text()
    text = pipeline.gradient_source(source, str(folder / "input.c"), spec["func"], spec["wrt"], "c",
                                    pipeline.Options(level=level))
    primal = sig.primal(build(source, ("-Wno-unknown-pragmas",)))
    gradient = sig.gradient(build(text), spec["wrt"], spec.get("written", []))
    shadowed = [p["name"] for p in spec["params"] if p["kind"] == "array"
                and (p["name"] in spec["wrt"] or p["name"] in spec.get("written", []))]
    by_name = {p["name"]: v for p, v in zip(spec["params"], values)}

    def primal_args():
        return [[np.copy(v) if isinstance(v, np.ndarray) else v for v in values], {}]

    def gradient_args():
        args = []
        for p in spec["params"]:
            v = by_name[p["name"]]
            args.append(np.copy(v) if isinstance(v, np.ndarray) else v)
            if p["name"] in shadowed:
                args.append(np.ones_like(v))
        return [args, {"d_return": 1.0} if sig.returns_float else {}]

    tp, tg = best(primal, primal_args, budget), best(gradient, gradient_args, budget)
    sizes = ", ".join(f"{k}={v}" for k, v in zip([p["name"] for p in spec["params"]], values) if isinstance(v, int))
    return f"| {name} | {sizes} | {tp * 1e6:,.1f} | {tg * 1e6:,.1f} | {tg / tp:.2f} |"


def kernel_names(only: str, script: str) -> list[str] | None:
    """The kernels ``--only`` names (comma-separated; all of them for none), or None, said on
    stdout, where one is not a kernel of the suite."""
    names = sorted(p.name for p in KERNELS.iterdir() if (p / "case.json").exists())
    if not only:
        return names
    unknown = set(only.split(",")) - set(names)
    if unknown:
        print(f"{script}: no kernel named {', '.join(sorted(unknown))}; kernels: {', '.join(names)}")
        return None
    return only.split(",")


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--size", type=int, default=20, help="factor on every extent (default 20)")
    ap.add_argument("--only", default="", help="comma-separated kernel names")
    ap.add_argument("--time", type=float, default=0.3, help="seconds of timing per function")
    ap.add_argument("-O", dest="level", type=int, default=2, choices=(0, 1, 2))
    args = ap.parse_args(argv)
    names = kernel_names(args.only, "c_kernels")
    if names is None:
        return 2
    print("| kernel | sizes | primal (us) | gradient (us) | gradient / primal |\n| --- | --- | ---: | ---: | ---: |")
    failed = False
    for name in names:
        try:
            print(run(name, args.size, args.level, args.time), flush=True)
        except DiagnosticError as e:
            print(f"| {name} | refused: {e} | | | |")
            failed = True
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
