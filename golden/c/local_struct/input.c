typedef struct { int rows, cols; double *data; } Matrix;

static double trace_sq(const double *a, int n)
{
    double s = 0.0;
    for (int i = 0; i < n; i++)
        s += a[i * n + i] * a[i * n + i];
    return s;
}

double gram_trace(const double *x, int n, int m)
{
    double tmp[16];
    Matrix C;
    C.rows = n;
    C.cols = n;
    C.data = tmp;
    for (int i = 0; i < C.rows; i++)
        for (int j = 0; j < C.cols; j++) {
            double s = 0.0;
            for (int k = 0; k < m; k++)
                s += x[i * m + k] * x[j * m + k];
            C.data[i * C.cols + j] = s;
        }
    return trace_sq(C.data, C.rows);
}
