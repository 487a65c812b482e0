#!/usr/bin/env python
"""Re-run the probes_py2 campaign: every probe in probes/ through `s2sad grad`,
ruff on the output, the gradient against central differences, and a sample under
--target numba.  Prints a markdown table; writes results.json.

Usage: .venv/bin/python bench/probes/py/run_all.py [--only SUBSTR ...] [--no-numba]
"""

import argparse
import copy
import glob
import importlib.util
import inspect
import json
import os
import shutil
import subprocess
import sys
import time
import traceback
import warnings

import numpy as np

HERE = os.path.dirname(os.path.abspath(__file__))
PROBES = os.path.join(HERE, "probes")
OUT = os.path.join(HERE, "out")
ROOT = os.path.dirname(os.path.dirname(os.path.dirname(HERE)))
S2SAD = os.path.join(ROOT, "bin", "s2sad")
RUFF = os.path.join(ROOT, ".venv", "bin", "ruff")

# the sample also run with --target numba
NUMBA_SAMPLE = {
    "p01_softmax_xent", "p07_conv1d_loops", "p09_logreg", "p11_ridge_loss",
    "p20_rk4_pendulum", "p24_laplacian_1d", "p32_enumerate_zip", "p36_black_scholes",
    "p38_nbody_loops", "p43_poisson_glm", "p45_normal_loglik", "p47_rnn",
    "p35_listcomp", "p46_student_t",
}

RANK_WORDS = ("-D array", "must be a number", "must be a NumPy array", "may be a number or an array",
              "must be an array of the shape", "must equal", "must be an integer", "rank")


def load(path, name):
    spec = importlib.util.spec_from_file_location(name, path)
    mod = importlib.util.module_from_spec(spec)
    sys.modules[name] = mod  # numba looks the function's module up there
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        spec.loader.exec_module(mod)
    return mod


def as_float(v):
    return np.asarray(v, dtype=np.float64)


def primal_call(f, args, kwargs):
    with np.errstate(all="ignore"):
        return float(f(*copy.deepcopy(args), **copy.deepcopy(kwargs)))


def full_binding(f, args, kwargs):
    """name -> value for every parameter of f (defaults filled), plus which were given."""
    sig = inspect.signature(f)
    b = sig.bind(*args, **kwargs)
    given = dict(b.arguments)
    b.apply_defaults()
    return sig, dict(b.arguments), given


def central_diff(f, args, kwargs, wrt, h_rel):
    """d f / d p for p in wrt, by central differences (wrt may be a defaulted parameter)."""
    sig, allv, given = full_binding(f, args, kwargs)
    names = list(sig.parameters)
    pos_names = names[: len(args)]
    out = {}
    for p in wrt:
        base = allv[p]
        arr = as_float(base)
        g = np.zeros(arr.shape)
        for idx in np.ndindex(*arr.shape) if arr.shape else [()]:
            h = h_rel * max(1.0, abs(arr[idx]))
            vals = []
            for sgn in (1, -1):
                a2 = arr.copy()
                a2[idx] += sgn * h
                newv = a2 if isinstance(base, np.ndarray) else (
                    a2.tolist() if isinstance(base, (list, tuple)) else float(a2))
                cargs = list(copy.deepcopy(args))
                ckw = copy.deepcopy(kwargs)
                if p in pos_names:
                    cargs[pos_names.index(p)] = newv
                else:
                    ckw[p] = newv
                vals.append(primal_call(f, cargs, ckw))
            g[idx] = (vals[0] - vals[1]) / (2 * h)
        out[p] = g
    return out


def call_gradient(gf, f, args, kwargs, wrt):
    """Call grad_f the way its docstring says; return {p: derivative}."""
    fsig, allv, given = full_binding(f, args, kwargs)
    fnames = list(fsig.parameters)
    pos_given = fnames[: len(args)]
    gsig = inspect.signature(gf)
    pos, kw = [], {}
    shadows = {}
    positional_ok = True
    for name, prm in gsig.parameters.items():
        if name == "d_return":
            continue
        if name in fnames:
            if name in given:
                val = copy.deepcopy(given[name])
                if positional_ok and name in pos_given and prm.kind != prm.KEYWORD_ONLY:
                    pos.append(val)
                else:
                    positional_ok = False
                    kw[name] = val
            else:
                positional_ok = False  # left to its default
            continue
        if name.startswith("d_") and name[2:] in fnames:
            p = name[2:]
            sh = np.zeros(np.shape(as_float(allv[p])))
            shadows[p] = sh
            if positional_ok and p in pos_given and prm.kind != prm.KEYWORD_ONLY:
                pos.append(sh)
            else:
                positional_ok = False
                kw[name] = sh
            continue
        raise RuntimeError(f"harness: cannot map gradient parameter {name!r}")
    with np.errstate(all="ignore"):
        ret = gf(*pos, **kw)
    returned = [p for p in fnames if p in wrt and p not in shadows]
    res = {}
    if len(returned) == 1:
        res[returned[0]] = as_float(ret)
    elif returned:
        if not isinstance(ret, tuple) or len(ret) != len(returned):
            raise RuntimeError(f"harness: expected {len(returned)} returned adjoints, got {ret!r}")
        for p, v in zip(returned, ret):
            res[p] = as_float(v)
    for p in wrt:
        if p in shadows:
            res[p] = shadows[p]
        elif p not in res:
            raise RuntimeError(f"harness: no adjoint for {p}")
    return res


def compare(g, fd, rtol=1e-5):
    scale = max([1e-12] + [float(np.max(np.abs(v))) if v.size else 0.0 for v in fd.values()])
    worst, bad = 0.0, {}
    for p in fd:
        gp = np.broadcast_to(g[p], fd[p].shape) if g[p].shape != fd[p].shape else g[p]
        if g[p].shape != fd[p].shape and g[p].size != fd[p].size:
            bad[p] = f"shape {g[p].shape} vs {fd[p].shape}"
            worst = np.inf
            continue
        gp = np.reshape(g[p], fd[p].shape)
        err = np.abs(gp - fd[p]) / (rtol * np.abs(fd[p]) + 1e-6 * scale)
        e = float(np.max(err)) if err.size else 0.0
        worst = max(worst, e)
        if e > 1.0:
            bad[p] = (gp, fd[p])
    return worst, bad


def fmt_bad(bad):
    parts = []
    for p, v in bad.items():
        if isinstance(v, str):
            parts.append(f"{p}: {v}")
            continue
        gp, fdp = v
        i = np.unravel_index(np.argmax(np.abs(gp - fdp)), fdp.shape) if fdp.shape else ()
        parts.append(f"{p}{list(i) if i else ''}: grad={np.asarray(gp)[i]:.10g} fd={np.asarray(fdp)[i]:.10g}")
    return "; ".join(parts)


def run_target(stem, mod, spec, target):
    func, wrt = spec["func"], spec["wrt"]
    os.makedirs(os.path.join(OUT, target), exist_ok=True)
    outpath = os.path.join(OUT, target, f"{stem}_grad.py")
    if os.path.exists(outpath):
        os.remove(outpath)
    cmd = ["nice", "-n", "10", S2SAD, "grad", f"{stem}.py", "--func", func, "--wrt", ",".join(wrt),
           "-o", outpath]
    if target != "py":
        cmd += ["--target", target]
    # a numba on-disk cache written by an earlier load under another module name would be
    # read back here (ModuleNotFoundError: No module named '<dynamic>'): start clean
    shutil.rmtree(os.path.join(OUT, target, "__pycache__"), ignore_errors=True)
    for stale in [k for k in sys.modules if k == f"{stem}_{target}_grad"]:
        del sys.modules[stale]
    r = subprocess.run(cmd, cwd=PROBES, capture_output=True, text=True, timeout=600)
    rec = {"cmd": " ".join(cmd[3:]), "rc": r.returncode}
    if r.returncode != 0:
        msg = (r.stderr or r.stdout).strip()
        rec["message"] = msg
        rec["result"] = "REFUSED" if r.returncode == 1 and "Traceback" not in msg else "CRASH"
        return rec
    notes = []
    # lint
    rc1 = subprocess.run([RUFF, "check", "--isolated", "--no-cache", outpath], capture_output=True, text=True)
    rc2 = subprocess.run([RUFF, "format", "--isolated", "--check", outpath], capture_output=True, text=True)
    lint = []
    if rc1.returncode != 0:
        lint.append("ruff check: " + rc1.stdout.strip())
    if rc2.returncode != 0:
        lint.append("ruff format --check: " + (rc2.stdout + rc2.stderr).strip())
    # gradient
    try:
        gmod = load(outpath, f"{stem}_{target}_grad")
        gf = getattr(gmod, "grad_" + func)
    except Exception as e:
        rec["result"] = "CRASH"
        rec["message"] = "import of output failed: " + "".join(traceback.format_exception_only(type(e), e)).strip()
        return rec
    f = getattr(mod, func)
    try:
        g = call_gradient(gf, f, spec["args"], spec["kwargs"], wrt)
    except Exception as e:
        m = "".join(traceback.format_exception_only(type(e), e)).strip()
        rec["message"] = m
        if isinstance(e, (ValueError, TypeError)) and any(w in m for w in RANK_WORDS):
            rec["result"] = "GUESSED-RANK"
        else:
            rec["result"] = "CRASH"
            rec["traceback"] = traceback.format_exc()[-3000:]
        return rec
    fd = central_diff(f, spec["args"], spec["kwargs"], wrt, 1e-6)
    worst, bad = compare(g, fd)
    rec["worst_err_ratio"] = worst
    if bad:
        fd2 = central_diff(f, spec["args"], spec["kwargs"], wrt, 1e-5)
        worst2, bad2 = compare(g, fd2)
        fd3 = central_diff(f, spec["args"], spec["kwargs"], wrt, 1e-4)
        worst3, bad3 = compare(g, fd3, rtol=1e-4)
        if bad2 and bad3:
            rec["result"] = "MISMATCH"
            rec["message"] = "h=1e-6: " + fmt_bad(bad) + " | h=1e-5: " + fmt_bad(bad2)
            return rec
        notes.append(f"fd noisy at h=1e-6 (ratio {worst:.3g}), agrees at h=1e-5 or 1e-4")
    if lint:
        rec["result"] = "LINT"
        rec["message"] = "\n".join(lint)
    else:
        rec["result"] = "OK"
    if notes:
        rec["notes"] = notes
    return rec


def cell(d, n=160):
    """A table cell: the result and the first line of its message."""
    if d is None:
        return ""
    if d["result"] == "OK":
        return "OK"
    m = d.get("message", "")
    first = m.strip().splitlines()[0] if m else ""
    if d["result"] == "LINT":
        first = first.split("-->")[0].strip()
    first = first.replace("|", "/")
    if len(first) > n:
        first = first[: n - 3] + "..."
    return f"{d['result']}: `{first}`" if first else d["result"]


def short(msg, n=300):
    if not msg:
        return ""
    m = " ".join(msg.split())
    return m if len(m) <= n else m[: n - 3] + "..."


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--only", nargs="*")
    ap.add_argument("--no-numba", action="store_true")
    ap.add_argument("--full", action="store_true", help="print full messages after the table")
    a = ap.parse_args()
    files = sorted(glob.glob(os.path.join(PROBES, "p*.py")))
    results = []
    for path in files:
        stem = os.path.basename(path)[:-3]
        if a.only and not any(s in stem for s in a.only):
            continue
        mod = load(path, stem)
        spec = mod.probe_spec()
        t0 = time.time()
        row = {"stem": stem, "func": spec["func"], "idioms": spec["idioms"], "wrt": spec["wrt"]}
        try:
            row["py"] = run_target(stem, mod, spec, "py")
        except Exception:
            row["py"] = {"result": "HARNESS-ERROR", "message": traceback.format_exc()[-2000:]}
        sampled = row["py"]["result"] in ("OK", "LINT", "MISMATCH", "GUESSED-RANK")
        if not a.no_numba and stem in NUMBA_SAMPLE and sampled:
            try:
                row["numba"] = run_target(stem, mod, spec, "numba")
            except Exception:
                row["numba"] = {"result": "HARNESS-ERROR", "message": traceback.format_exc()[-2000:]}
        row["seconds"] = round(time.time() - t0, 1)
        results.append(row)
        print(f"# {stem}: py={row['py']['result']}" + (f" numba={row['numba']['result']}" if "numba" in row else ""),
              file=sys.stderr, flush=True)
    with open(os.path.join(HERE, "results.json" if not a.only else "results_partial.json"), "w") as fh:
        json.dump(results, fh, indent=1, default=str)
    print("| # | function | idioms | --target py | --target numba (sample) |")
    print("| --- | --- | --- | --- | --- |")
    for r in results:
        print(f"| {r['stem'][:3]} | `{r['func']}` | {r['idioms']} | {cell(r['py'])} | {cell(r.get('numba'))} |")
    if a.full:
        for r in results:
            for t in ("py", "numba"):
                if t in r and r[t]["result"] != "OK":
                    print(f"\n## {r['stem']} [{t}] {r[t]['result']}\n{r[t].get('message', '')}")
                    if "traceback" in r[t]:
                        print(r[t]["traceback"])


if __name__ == "__main__":
    main()
