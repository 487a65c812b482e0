from mpi4py import MPI


def heat(u, k, steps, comm=MPI.COMM_WORLD):
    """Explicit steps of the 1-D heat equation on a rod cut into one piece per rank: u[1:-1] are
    this rank's cells, u[0] and u[-1] copies of the neighbours' edge cells, exchanged before
    every step with Sendrecv (the rod's ends keep their values)."""
    n = len(u) - 2
    left = comm.rank - 1 if comm.rank > 0 else MPI.PROC_NULL
    right = comm.rank + 1 if comm.rank < comm.size - 1 else MPI.PROC_NULL
    for t in range(steps):
        comm.Sendrecv(u[n : n + 1], dest=right, sendtag=0, recvbuf=u[0:1], source=left, recvtag=0)
        comm.Sendrecv(u[1:2], dest=left, sendtag=1, recvbuf=u[n + 1 : n + 2], source=right, recvtag=1)
        nxt = u.copy()
        for i in range(1, n + 1):
            nxt[i] = u[i] + k[i] * (u[i - 1] - 2.0 * u[i] + u[i + 1])
        for i in range(1, n + 1):
            u[i] = nxt[i]
