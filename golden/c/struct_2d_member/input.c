/* A struct member of two dimensions: frames[k].rot[i][j]. */
typedef struct {
    double rot[3][3];
    double scale;
} Frame;

double transformed_norm(const Frame *frames, int n, const double *v)
{
    double s = 0.0;
    for (int k = 0; k < n; k++) {
        for (int i = 0; i < 3; i++) {
            double w = 0.0;
            for (int j = 0; j < 3; j++)
                w += frames[k].rot[i][j] * v[j];
            s += frames[k].scale * w * w;
        }
    }
    return s;
}
