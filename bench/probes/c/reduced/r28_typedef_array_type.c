/* linmath.h / Kalman-filter style: a typedef of a fixed-size array type */
typedef double vec2[2];
typedef double mat2[2][2];

static double quad(const mat2 A, const vec2 v)
{
    double s = 0.0;
    for (int i = 0; i < 2; i++)
        for (int j = 0; j < 2; j++)
            s += v[i] * A[i][j] * v[j];
    return s;
}

double f(const double *a)
{
    mat2 A = {{a[0], a[1]}, {a[2], a[3]}};
    vec2 v = {a[4], a[5]};
    return quad(A, v);
}
