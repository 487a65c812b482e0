"""Run CUDA kernels on a GPU: compile them with nvcc into a library, call them through ctypes.

The device twin of tests/cudaemu.py: ``DeviceKernel(source, func, launch)`` has
EmulatedKernel's ``primal()`` and ``gradient(text, wrt, written)``, but the library
it builds launches ``func`` on the GPU with ``<<<grid, block>>>``. Its ``extern "C"``
launcher takes host pointers, as the emulated one does: it copies each array to the
device, launches, waits, copies every array back (the kernel may write any of them)
and frees them. An array's size is not in its C type, so the caller registers each
NumPy argument's address and byte count first (``dev_register``); a pointer that is
not registered is a ``double *d_a`` out-cell of one element (tests/cprimal.py's
``cell``). A launch or kernel error (an out-of-bounds access, a trap, a tape the
device heap could not hold) is raised as a Python exception with CUDA's message.

Every library links CUDA's shared runtime, so that all of them use one context, and
sets a 256 MiB device heap for the gradients' tapes before its first launch.
"""

from __future__ import annotations

import ctypes
import shutil
import subprocess
import tempfile
from pathlib import Path
from typing import Any, Callable

import numpy as np
from cprimal import CParam
from cudaemu import EmulatedKernel, _declaration, _dim3

NVCCFLAGS = ["-std=c++17", "-O2", "-shared", "-Xcompiler", "-fPIC", "-cudart", "shared", "-arch=native",
             "-Werror", "all-warnings"]
HEAP_BYTES = 256 << 20

_KEEP: list[Any] = []  # temporary directories live as long as the libraries loaded from them


def have_gpu() -> bool:
    """nvcc is installed and ``nvidia-smi -L`` lists a GPU."""
    smi = shutil.which("nvidia-smi")
    if smi is None or shutil.which("nvcc") is None:
        return False
    r = subprocess.run([smi, "-L"], capture_output=True, text=True)
    return r.returncode == 0 and "GPU" in r.stdout


# The registry of host arrays and the copies in and out, shared by every launcher.
_RUNTIME = r"""#include <cstdio>
#include <cuda_runtime.h>

namespace dev {
struct Array { void *host; long bytes; void *device; };
static Array arrays[64];
static int count = 0;
static char error[1024] = "";

static bool fail(const char *what, cudaError_t e) {
    snprintf(error, sizeof error, "%s: %s", what, cudaGetErrorString(e));
    return false;
}

/* A device copy of host (bytes registered, or one T: an out-cell); null after a failure. */
template <class T> static T *copy_in(T *host) {
    long bytes = sizeof(T);
    Array *a = nullptr;
    for (int k = 0; k < count; k++)
        if (arrays[k].host == (void *)host) a = &arrays[k];
    if (!a) {
        if (count == 64) { snprintf(error, sizeof error, "more than 64 arrays"); return nullptr; }
        a = &arrays[count++];
        *a = Array{(void *)host, bytes, nullptr};
    }
    if (!a->device) {
        cudaError_t e = cudaMalloc(&a->device, a->bytes > 0 ? a->bytes : 1);
        if (e == cudaSuccess) e = cudaMemcpy(a->device, host, a->bytes, cudaMemcpyHostToDevice);
        if (e != cudaSuccess) { fail("copy in", e); return nullptr; }
    }
    return (T *)a->device;
}

/* A device heap for the tapes: set once per process, before a kernel that allocates has run (later
   CUDA refuses to change it, and an earlier library's setting then stands). */
static bool heap() {
    size_t size = 0;
    if (cudaDeviceGetLimit(&size, cudaLimitMallocHeapSize) != cudaSuccess || size < (size_t)HEAP_BYTES) {
        cudaDeviceSetLimit(cudaLimitMallocHeapSize, (size_t)HEAP_BYTES);
        cudaGetLastError();  /* not an error of this launch: a tape too large fails the kernel itself */
    }
    return true;
}

/* Wait for the launch, copy every array back, free them; false (and error set) on any failure. */
static bool finish(bool ok) {
    cudaError_t e = cudaGetLastError();
    if (ok && e != cudaSuccess) ok = fail("launch", e);
    e = cudaDeviceSynchronize();
    if (ok && e != cudaSuccess) ok = fail("kernel", e);
    for (int k = 0; k < count; k++) {
        if (!arrays[k].device) continue;
        if (ok) {
            e = cudaMemcpy(arrays[k].host, arrays[k].device, arrays[k].bytes, cudaMemcpyDeviceToHost);
            if (e != cudaSuccess) ok = fail("copy out", e);
        }
        cudaFree(arrays[k].device);
        arrays[k].device = nullptr;
    }
    count = 0;
    return ok;
}
}  // namespace dev

extern "C" void dev_reset(void) { dev::count = 0; }
extern "C" void dev_register(void *host, long bytes) {
    if (dev::count < 64) dev::arrays[dev::count++] = dev::Array{host, bytes, nullptr};
}
extern "C" const char *dev_error(void) { return dev::error; }
""".replace("HEAP_BYTES", str(HEAP_BYTES))


def launcher(func: str, params: list[CParam], launch: dict, name: str) -> str:
    """An ``extern "C"`` function ``name`` with ``func``'s parameters (host pointers) that runs it on the GPU."""
    decls = ", ".join(_declaration(p) for p in params)
    lines = [f'extern "C" void {name}({decls}) {{', "    dev::error[0] = 0;", "    bool ok = dev::heap();"]
    args = []
    for p in params:
        if p.pointer:
            lines.append(f"    {p.base} *dev_{p.name} = ok ? dev::copy_in({p.name}) : nullptr;")
            lines.append(f"    if (!dev_{p.name}) ok = false;")
            args.append(f"dev_{p.name}")
        else:
            args.append(p.name)
    lines.append(f"    if (ok) {func}<<<{_dim3(launch['grid'])}, {_dim3(launch['block'])}>>>({', '.join(args)});")
    lines += ["    dev::finish(ok);", "}"]
    return "\n".join(lines) + "\n"


def compile_device(kernel: str, wrapper: str) -> ctypes.CDLL:
    """``kernel`` (a .cu text) and ``wrapper`` compiled by nvcc into a library for this machine's GPU."""
    tmp = tempfile.TemporaryDirectory(prefix="s2sad_gpu_")
    _KEEP.append(tmp)
    d = Path(tmp.name)
    (d / "kernel.cu").write_text(kernel)
    (d / "main.cu").write_text(_RUNTIME + '#include "kernel.cu"\n\n' + wrapper)
    lib = d / "libkernel.so"
    r = subprocess.run(["nvcc", *NVCCFLAGS, str(d / "main.cu"), "-o", str(lib)], capture_output=True, text=True)
    if r.returncode != 0:
        numbered = "\n".join(f"{k + 1:4} {line}" for k, line in enumerate(kernel.splitlines()))
        raise AssertionError(f"nvcc failed:\n{r.stderr}\n--- kernel ---\n{numbered}")
    built = ctypes.CDLL(str(lib))
    built.dev_register.argtypes = [ctypes.c_void_p, ctypes.c_long]
    built.dev_error.restype = ctypes.c_char_p
    return built


class DeviceKernel(EmulatedKernel):
    """A kernel launched on the GPU (see the module docstring)."""

    def library(self, kernel: str, func: str, params: list[CParam], name: str) -> ctypes.CDLL:
        return compile_device(kernel, launcher(func, params, self.launch, name))

    def checked(self, lib: ctypes.CDLL, call: Callable[..., Any]) -> Callable[..., Any]:
        """``call`` with its arrays' sizes registered first and CUDA's errors raised after."""

        def run(*args: Any, **kw: Any) -> Any:
            lib.dev_reset()
            for a in args:
                if isinstance(a, np.ndarray):
                    lib.dev_register(a.ctypes.data, a.nbytes)
            result = call(*args, **kw)
            error = lib.dev_error().decode()
            if error:
                raise RuntimeError(f"on the GPU: {error}")
            return result

        return run
