import numpy as np


def trajectory_energy(u0, n, steps, dt):
    u = np.zeros(n)
    for i in range(n):
        u[i] = u0[i]
    traj = []
    for t in range(steps):
        for i in range(n):
            u[i] = u[i] + dt * np.sin(u[(i + 1) % n])
        traj.append(np.array(u))
    e = 0.0
    for k, state in enumerate(traj):
        e += np.sum(state * state) * (k + 1)
    return e + traj[-1][0]
