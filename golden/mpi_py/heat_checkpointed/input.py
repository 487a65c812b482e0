import numpy as np
from mpi4py import MPI


def heat(u, k, steps, comm=MPI.COMM_WORLD):
    """Steps of a 1-D heat equation with a cubic reaction, the halo exchanged before every step,
    the time loop checkpointed (binomial, 2 snapshots): its reverse re-runs steps, exchanges
    included. The result is the energy summed over the ranks."""
    n = len(u) - 2
    left = comm.rank - 1 if comm.rank > 0 else MPI.PROC_NULL
    right = comm.rank + 1 if comm.rank < comm.size - 1 else MPI.PROC_NULL
    nxt = np.zeros(n + 2)
    # s2sad: checkpoint binomial(snapshots=2)
    for t in range(steps):
        comm.Sendrecv(u[n : n + 1], dest=right, sendtag=0, recvbuf=u[0:1], source=left, recvtag=0)
        comm.Sendrecv(u[1:2], dest=left, sendtag=1, recvbuf=u[n + 1 : n + 2], source=right, recvtag=1)
        for i in range(1, n + 1):
            nxt[i] = u[i] + k[i] * (u[i - 1] - 2.0 * u[i] + u[i + 1]) - 0.1 * u[i] ** 3
        for i in range(1, n + 1):
            u[i] = nxt[i]
    e = np.zeros(1)
    e[0] = np.sum(u[1 : n + 1] ** 2)
    comm.Allreduce(MPI.IN_PLACE, e, op=MPI.SUM)
    return e[0]
