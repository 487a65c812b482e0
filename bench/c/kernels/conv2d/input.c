/* A valid 2-D convolution followed by a sum of squares. */
double conv2d(int h, int w, int kh, int kw, const double img[h][w], const double ker[kh][kw],
              double out[h - kh + 1][w - kw + 1])
{
    double s = 0.0;
    for (int i = 0; i + kh <= h; i++)
        for (int j = 0; j + kw <= w; j++) {
            double acc = 0.0;
            for (int a = 0; a < kh; a++)
                for (int b = 0; b < kw; b++)
                    acc += img[i + a][j + b] * ker[a][b];
            out[i][j] = acc;
            s += acc * acc;
        }
    return s;
}
