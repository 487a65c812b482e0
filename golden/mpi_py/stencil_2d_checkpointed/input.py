import numpy as np
from mpi4py import MPI


def stencil(u, c, steps, comm=MPI.COMM_WORLD):
    """Time steps of a 2-D diffusion-reaction stencil on a grid cut into bands of rows, one band
    per rank: rows 1..rows of u are this rank's, rows 0 and rows + 1 copies of the neighbours'
    edge rows, exchanged (row buffers) before every step; the time loop is checkpointed."""
    rows = u.shape[0] - 2
    m = u.shape[1]
    up = comm.rank - 1 if comm.rank > 0 else MPI.PROC_NULL
    down = comm.rank + 1 if comm.rank < comm.size - 1 else MPI.PROC_NULL
    v = np.zeros((rows + 2, m))
    # s2sad: checkpoint binomial(snapshots=3)
    for t in range(steps):
        comm.Sendrecv(u[rows], dest=down, sendtag=0, recvbuf=u[0], source=up, recvtag=0)
        comm.Sendrecv(u[1], dest=up, sendtag=1, recvbuf=u[rows + 1], source=down, recvtag=1)
        for i in range(1, rows + 1):
            for j in range(1, m - 1):
                lap = u[i - 1, j] + u[i + 1, j] + u[i, j - 1] + u[i, j + 1] - 4.0 * u[i, j]
                v[i, j] = u[i, j] + c * lap - 0.1 * u[i, j] ** 3
        for i in range(1, rows + 1):
            for j in range(1, m - 1):
                u[i, j] = v[i, j]
    s = 0.0
    for i in range(1, rows + 1):
        for j in range(m):
            s += u[i, j] * u[i, j]
    return comm.allreduce(s, op=MPI.SUM)
