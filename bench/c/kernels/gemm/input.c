/* C = alpha A B + beta C. */
void gemm(int ni, int nj, int nk, double alpha, double beta, double C[ni][nj],
          const double A[ni][nk], const double B[nk][nj])
{
    for (int i = 0; i < ni; i++) {
        for (int j = 0; j < nj; j++)
            C[i][j] *= beta;
        for (int k = 0; k < nk; k++)
            for (int j = 0; j < nj; j++)
                C[i][j] += alpha * A[i][k] * B[k][j];
    }
}
