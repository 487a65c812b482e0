import math


def spring_energy(a, b, c):
    lengths = [a, b, a + b * c]
    rest = [1.0, 0.5, 2.0]
    e = 0.0
    for i in range(3):
        e += (lengths[i] - rest[i]) ** 2
    return e + math.exp(lengths[0] * lengths[2])
