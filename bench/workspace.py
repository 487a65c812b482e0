"""Page faults and time of a C gradient called many times, with and without a workspace.

A C gradient allocates its tapes on every call; large ones come fresh from the kernel, and
every page is faulted in when the forward sweep first writes it. ``s2sad grad --workspace``
also writes ``grad_f_ws``, whose tapes stay in a workspace the caller keeps from one call to the
next. The objective is an explicit 1-D stepper (the heat equation with a state-dependent
coefficient) whose gradient tapes two numbers per cell and step. A C driver (written here,
compiled with ``gcc -O2``) times the primal, ``grad_heat`` and ``grad_heat_ws`` in rounds, in
process CPU time (user and system: the faults' time is the kernel's), and counts the minor
page faults per call (``getrusage``). It prints the median of the rounds.

    .venv/bin/python bench/workspace.py [--sizes 10000x20,100000x20,400000x20] [--calls 20] [--rounds 5]
"""

from __future__ import annotations

import argparse
import statistics
import subprocess
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from s2sad import pipeline  # noqa: E402

HEAT = """\
double heat(double *u, int n, int steps, double c)
{
    for (int t = 0; t < steps; t++) {
        for (int i = 1; i < n - 1; i++) {
            u[i] = u[i] + c * (u[i - 1] - 2.0 * u[i] + u[i + 1]) * u[i];
        }
    }
    double s = 0.0;
    for (int i = 0; i < n; i++) {
        s += u[i] * u[i];
    }
    return s;
}
"""

# One line per round: primal, grad_heat and grad_heat_ws, seconds and page faults per call.
DRIVER = """\
#include <stdio.h>
#include <stdlib.h>
#include <time.h>
#include <sys/resource.h>

typedef struct grad_heat_workspace grad_heat_workspace;
grad_heat_workspace *grad_heat_workspace_new(void);
void grad_heat_workspace_free(grad_heat_workspace *ws);
double heat(double *u, int n, int steps, double c);
void grad_heat(double *u, double *d_u, int n, int steps, double c, double *d_c, double d_return);
void grad_heat_ws(grad_heat_workspace *ws, double *u, double *d_u, int n, int steps, double c, double *d_c,
                  double d_return);

static double cpu(void) {
    struct rusage r;
    getrusage(RUSAGE_SELF, &r);
    return r.ru_utime.tv_sec + r.ru_stime.tv_sec + 1e-6 * (r.ru_utime.tv_usec + r.ru_stime.tv_usec);
}

static long faults(void) {
    struct rusage r;
    getrusage(RUSAGE_SELF, &r);
    return r.ru_minflt;
}

int main(int argc, char **argv) {
    int n = atoi(argv[1]), steps = atoi(argv[2]), calls = atoi(argv[3]), rounds = atoi(argv[4]);
    double *u = malloc(n * sizeof(double)), *d_u = calloc(n, sizeof(double)), d_c = 0.0;
    grad_heat_workspace *ws = grad_heat_workspace_new();
    grad_heat_ws(ws, u, d_u, n, steps, 0.1, &d_c, 1.0);  /* its tapes made once */
    for (int round = 0; round < rounds; round++) {
        double t[3];
        long f[3];
        for (int which = 0; which < 3; which++) {
            for (int i = 0; i < n; i++) {
                u[i] = 0.1 + 0.001 * (i % 97);
            }
            double t0 = cpu();
            long f0 = faults();
            for (int k = 0; k < calls; k++) {
                if (which == 0) heat(u, n, steps, 0.1);
                else if (which == 1) grad_heat(u, d_u, n, steps, 0.1, &d_c, 1.0);
                else grad_heat_ws(ws, u, d_u, n, steps, 0.1, &d_c, 1.0);
            }
            t[which] = (cpu() - t0) / calls;
            f[which] = (faults() - f0) / calls;
        }
        printf("%g %ld %g %ld %g %ld\\n", t[0], f[0], t[1], f[1], t[2], f[2]);
    }
    grad_heat_workspace_free(ws);
    return 0;
}
"""


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--sizes", default="10000x20,100000x20,400000x20", help="cells x steps, comma-separated")
    ap.add_argument("--calls", type=int, default=20, help="calls per function per round")
    ap.add_argument("--rounds", type=int, default=5)
    args = ap.parse_args()
    gradient = pipeline.gradient_source(HEAT, "heat.c", "heat", ["u", "c"], "c", pipeline.Options(workspace=True))
    print("s2sad grad heat.c --wrt u,c --target c --workspace; gcc -O2; CPU time per call (median of rounds)")
    print(f"{'cells x steps':>14} {'primal':>10} {'grad_heat':>11} {'ratio':>6} {'faults':>7}"
          f" {'grad_heat_ws':>13} {'ratio':>6} {'faults':>7}")
    with tempfile.TemporaryDirectory(prefix="s2sad_ws_") as tmp:
        folder = Path(tmp)
        (folder / "heat.c").write_text(HEAT)
        (folder / "grad_heat.c").write_text(gradient)
        (folder / "driver.c").write_text(DRIVER)
        exe = folder / "driver"
        built = subprocess.run(["gcc", "-O2", "-std=gnu99", "-o", str(exe), str(folder / "driver.c"),
                                str(folder / "heat.c"), str(folder / "grad_heat.c"), "-lm"],
                               capture_output=True, text=True)
        if built.returncode != 0:
            print(built.stderr, file=sys.stderr)
            return 1
        for size in args.sizes.split(","):
            n, steps = (int(x) for x in size.split("x"))
            run = subprocess.run([str(exe), str(n), str(steps), str(args.calls), str(args.rounds)],
                                 capture_output=True, text=True, check=True)
            rows = [[float(x) for x in line.split()] for line in run.stdout.split("\n") if line.strip()]
            tp, fp, tg, fg, tw, fw = (statistics.median(r[k] for r in rows) for k in range(6))
            print(f"{size:>14} {tp * 1e3:8.3f}ms {tg * 1e3:9.3f}ms {tg / tp:6.2f} {fg:7.0f}"
                  f" {tw * 1e3:11.3f}ms {tw / tp:6.2f} {fw:7.0f}", flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
