import math


def special(x, y, k: int):
    a = math.lgamma(x) * math.gamma(y) + math.erf(x) * math.erfc(y)
    b = math.log1p(x) + math.expm1(y) + math.asinh(x) + math.acosh(y) + math.atanh(x - 0.25)
    c = math.cbrt(y) + math.exp2(x) + math.copysign(x, y - 2.0) + math.ldexp(y, k)
    return a * b + c
