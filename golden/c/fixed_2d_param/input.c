#define N 3

/* The determinant of a 3 x 3 matrix declared with #define'd extents, by cofactors along its
   first row (the cyclic column pairs carry the signs). */
double det3(const double A[N][N])
{
    double d = 0.0;
    for (int j = 0; j < N; j++) {
        int a = (j + 1) % N;
        int b = (j + 2) % N;
        d += A[0][j] * (A[1][a] * A[2][b] - A[1][b] * A[2][a]);
    }
    return d;
}
