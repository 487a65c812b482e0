/* gcc -std=c99 -w reduced/t_r31b.c gen/grad_r31b_memcpy_sizeof_deref_struct.c reduced/r31b_memcpy_sizeof_deref_struct.c */
#include <stdio.h>
double f(int n, const double *a);
void grad_f(int n, const double *a, double *d_a, double d_return);
int main(void)
{
    double a[6] = {1, 2, 3, 4, 5, 6}, d[6] = {0};
    grad_f(3, a, d, 1.0);
    printf("f=%g  d_a = %g %g %g %g %g %g  (expected 2 1 4 3 6 5)\n", f(3, a), d[0], d[1], d[2], d[3], d[4], d[5]);
    return 0;
}
