import numpy as np


def lotka_volterra(state, alpha, beta, delta, gamma):
    x, y = state
    return np.array([alpha * x - beta * x * y, delta * x * y - gamma * y])


def rk4_step(f, state, dt, *args):
    k1 = f(state, *args)
    k2 = f(state + 0.5 * dt * k1, *args)
    k3 = f(state + 0.5 * dt * k2, *args)
    k4 = f(state + dt * k3, *args)
    return state + dt / 6.0 * (k1 + 2 * k2 + 2 * k3 + k4)


def lv_loss(alpha, beta, delta, gamma, x0, y0, obs):
    state = np.array([x0, y0])
    dt = 0.1
    traj = [state]
    for i in range(len(obs) - 1):
        state = rk4_step(lotka_volterra, state, dt, alpha, beta, delta, gamma)
        traj.append(state)
    traj = np.array(traj)
    return np.sum((traj - obs) ** 2)


def probe_spec():
    obs = np.array([[1.0, 0.5], [1.05, 0.52], [1.1, 0.53], [1.14, 0.55], [1.17, 0.57]])
    return dict(func="lv_loss", wrt=["alpha", "beta", "delta", "gamma", "x0", "y0"],
                args=[1.1, 0.4, 0.1, 0.4, 1.0, 0.5, obs], kwargs={},
                idioms="RK4 with function passed as argument and *args, state unpack, traj list of arrays")
