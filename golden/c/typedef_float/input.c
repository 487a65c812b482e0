/* A typedef of float: the signature keeps the name, the code stays single precision. */
typedef float Real;
typedef unsigned int uint;

Real weighted_norm(const Real *v, const Real *wt, uint n)
{
    Real s = 0.0f;
    for (uint i = 0; i < n; i++) {
        Real t = wt[i] * v[i];
        s += t * t;
    }
    return s;
}
