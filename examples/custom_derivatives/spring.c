/* The energy of a chain of springs whose stiffness law, stiffness(), comes from a library
 * s2sad cannot see (defined in stiffness.c, with its custom adjoint):
 *
 *     s2sad grad examples/custom_derivatives/spring.c --wrt x,k0 \
 *         --derivatives examples/custom_derivatives/stiffness.c
 */

double stiffness(double stretch, double k0);

double spring(const double *x, double k0, int n)
{
    double e = 0.0;
    for (int i = 0; i + 1 < n; i++) {
        double d = x[i + 1] - x[i] - 1.0;
        e += 0.5 * stiffness(d, k0) * d * d;
    }
    return e;
}
