import numpy as np
from mpi4py import MPI


def dist_dot(x, y, comm=MPI.COMM_WORLD):
    """The dot product of two vectors spread over the ranks (each rank holds a part of each)."""
    local = np.array([np.dot(x, y)])
    total = np.zeros(1)
    comm.Allreduce(local, total, op=MPI.SUM)
    return total[0]
