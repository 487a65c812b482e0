/* G = (A B)(C D). */
void three_mm(int ni, int nj, int nk, int nl, int nm, double E[ni][nj], const double A[ni][nk],
              const double B[nk][nj], double F[nj][nl], const double C[nj][nm], const double D[nm][nl],
              double G[ni][nl])
{
    for (int i = 0; i < ni; i++)
        for (int j = 0; j < nj; j++) {
            E[i][j] = 0.0;
            for (int k = 0; k < nk; ++k)
                E[i][j] += A[i][k] * B[k][j];
        }
    for (int i = 0; i < nj; i++)
        for (int j = 0; j < nl; j++) {
            F[i][j] = 0.0;
            for (int k = 0; k < nm; ++k)
                F[i][j] += C[i][k] * D[k][j];
        }
    for (int i = 0; i < ni; i++)
        for (int j = 0; j < nl; j++) {
            G[i][j] = 0.0;
            for (int k = 0; k < nj; ++k)
                G[i][j] += E[i][k] * F[k][j];
        }
}
