/* VARIANT of p22: nrerror() and its calls removed.
 * Natural/clamped cubic spline, Numerical Recipes spline()/splint() with
 * 1-based arrays and nrutil vectors; objective: least squares at queries. */
#include <stdio.h>
#include <stdlib.h>

#define NR_END 1
#define FREE_ARG char*

static double *vector(long nl, long nh)
{
    double *v = (double *)malloc((size_t)((nh - nl + 1 + NR_END) * sizeof(double)));
    return v - nl + NR_END;
}

static void free_vector(double *v, long nl, long nh)
{
    free((FREE_ARG)(v + nl - NR_END));
}

void spline(double x[], double y[], int n, double yp1, double ypn, double y2[])
{
    int i, k;
    double p, qn, sig, un, *u;

    u = vector(1, n - 1);
    if (yp1 > 0.99e30)
        y2[1] = u[1] = 0.0;
    else {
        y2[1] = -0.5;
        u[1] = (3.0 / (x[2] - x[1])) * ((y[2] - y[1]) / (x[2] - x[1]) - yp1);
    }
    for (i = 2; i <= n - 1; i++) {
        sig = (x[i] - x[i - 1]) / (x[i + 1] - x[i - 1]);
        p = sig * y2[i - 1] + 2.0;
        y2[i] = (sig - 1.0) / p;
        u[i] = (y[i + 1] - y[i]) / (x[i + 1] - x[i]) - (y[i] - y[i - 1]) / (x[i] - x[i - 1]);
        u[i] = (6.0 * u[i] / (x[i + 1] - x[i - 1]) - sig * u[i - 1]) / p;
    }
    if (ypn > 0.99e30)
        qn = un = 0.0;
    else {
        qn = 0.5;
        un = (3.0 / (x[n] - x[n - 1])) * (ypn - (y[n] - y[n - 1]) / (x[n] - x[n - 1]));
    }
    y2[n] = (un - qn * u[n - 1]) / (qn * y2[n - 1] + 1.0);
    for (k = n - 1; k >= 1; k--)
        y2[k] = y2[k] * y2[k + 1] + u[k];
    free_vector(u, 1, n - 1);
}

void splint(double xa[], double ya[], double y2a[], int n, double x, double *y)
{
    int klo, khi, k;
    double h, b, a;

    klo = 1;
    khi = n;
    while (khi - klo > 1) {
        k = (khi + klo) >> 1;
        if (xa[k] > x) khi = k;
        else klo = k;
    }
    h = xa[khi] - xa[klo];
    a = (xa[khi] - x) / h;
    b = (x - xa[klo]) / h;
    *y = a * ya[klo] + b * ya[khi] + ((a * a * a - a) * y2a[klo] + (b * b * b - b) * y2a[khi]) * (h * h) / 6.0;
}

double spline_fit(double xa[], double ya[], int n, double yp1, const double *xq,
                  const double *tq, int m)
{
    double *y2 = vector(1, n);
    double s = 0.0, yv;
    spline(xa, ya, n, yp1, 1.0e30, y2);
    for (int i = 0; i < m; i++) {
        splint(xa, ya, y2, n, xq[i], &yv);
        s += (yv - tq[i]) * (yv - tq[i]);
    }
    free_vector(y2, 1, n);
    return s;
}
