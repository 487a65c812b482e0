import math

from mpi4py import MPI

comm = MPI.COMM_WORLD


def dist_norm(x):
    """The norm of a vector spread over the ranks, with mpi4py's allreduce of a number and a
    module-level communicator; the largest magnitude by MPI.MAX scales it."""
    s = 0.0
    big = 0.0
    for i in range(len(x)):
        s += x[i] * x[i]
        big = max(big, abs(x[i]))
    total = comm.allreduce(s, op=MPI.SUM)
    top = comm.allreduce(big, op=MPI.MAX)
    return math.sqrt(total) / top
