import numpy as np
from mpi4py import MPI


def heat(u, k, steps, comm=MPI.COMM_WORLD):
    """The heat steps of heat_sendrecv, each halo exchange four non-blocking calls whose requests
    a list holds, completed together by MPI.Request.Waitall(reqs)."""
    n = len(u) - 2
    left = comm.rank - 1 if comm.rank > 0 else MPI.PROC_NULL
    right = comm.rank + 1 if comm.rank < comm.size - 1 else MPI.PROC_NULL
    nxt = np.zeros(n + 2)
    for t in range(steps):
        reqs = [comm.Irecv(u[0:1], source=left, tag=0), comm.Irecv(u[n + 1 : n + 2], source=right, tag=1),
                comm.Isend(u[n : n + 1], dest=right, tag=0), comm.Isend(u[1:2], dest=left, tag=1)]
        MPI.Request.Waitall(reqs)
        for i in range(1, n + 1):
            nxt[i] = u[i] + k[i] * (u[i - 1] - 2.0 * u[i] + u[i + 1])
        for i in range(1, n + 1):
            u[i] = nxt[i]
