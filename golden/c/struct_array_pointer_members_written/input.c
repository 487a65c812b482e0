/* An array of structs with a pointer member that the function writes: each vector is scaled in
   place (vs[i].data[k]), and a number member of each (vs[i].s) is overwritten. */
typedef struct {
    int n;
    double *data;
    double s;
} Vec;

double scale_all(Vec *vs, int m, const double *x)
{
    double t = 0.0;
    for (int i = 0; i < m; i++) {
        vs[i].s = x[i] * x[i];
        for (int k = 0; k < vs[i].n; k++)
            vs[i].data[k] = vs[i].data[k] * x[i];
    }
    for (int i = 0; i < m; i++)
        t += vs[i].s * vs[i].data[0];
    return t;
}
