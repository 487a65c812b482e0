/* A stiffening spring law, k0 * (1 + s^2), and its custom adjoint for s2sad: it takes each
 * argument, followed by a pointer for each floating-point one (where the adjoint is added),
 * and the adjoint of the result last. */

double stiffness(double stretch, double k0)
{
    return k0 * (1.0 + stretch * stretch);
}

void grad_stiffness(double stretch, double *d_stretch, double k0, double *d_k0, double d_return)
{
    *d_stretch += d_return * 2.0 * k0 * stretch;
    *d_k0 += d_return * (1.0 + stretch * stretch);
}
