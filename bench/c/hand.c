/*
 * A hand-tracking-style objective: a skinned mesh posed by a chain of bones, written as such code
 * usually is, with a small matrix library (a Matrix struct of its sizes and a pointer to its
 * row-major numbers) whose products are called inside the bone loop.
 *
 * Sizes: bones B (bone 0 the root, bone b's parent parents[b] < b), vertices V.
 *   theta[3 B]         per bone: a rotation about z, then about x (radians), then a scale
 *   base[B][16]        each bone's rest transform relative to its parent (4 x 4, row-major)
 *   inv_base[B][16]    the inverse of each bone's rest transform in world space
 *   points[V][4]       rest positions (homogeneous, last coordinate 1)
 *   weights[V][B]      skinning weights
 *   targets[V][3]      observed positions
 * loss = sum_v || sum_b weights[v][b] (A_b inv_base_b points_v)[0:3] - targets_v ||^2, where
 * A_b = A_parent(b) base_b R(theta_b), A_root = base_0 R(theta_0).
 */
#include <math.h>
#include <stdlib.h>

typedef struct {
    int rows, cols;
    double *data; /* row-major */
} Matrix;

/* C = A B. */
static void mat_mult(const Matrix *A, const Matrix *B, Matrix *C)
{
    C->rows = A->rows;
    C->cols = B->cols;
    for (int i = 0; i < A->rows; i++)
        for (int j = 0; j < B->cols; j++) {
            double s = 0.0;
            for (int k = 0; k < A->cols; k++)
                s += A->data[i * A->cols + k] * B->data[k * B->cols + j];
            C->data[i * C->cols + j] = s;
        }
}

/* The 4 x 4 transform of a bone's pose: a rotation about z by a, then about x by b, scaled by s. */
static void pose_matrix(double a, double b, double s, Matrix *R)
{
    double ca = cos(a), sa = sin(a), cb = cos(b), sb = sin(b);
    double m[16] = {s * ca, -s * sa * cb, s * sa * sb, 0.0,
                    s * sa, s * ca * cb, -s * ca * sb, 0.0,
                    0.0, s * sb, s * cb, 0.0,
                    0.0, 0.0, 0.0, 1.0};
    R->rows = 4;
    R->cols = 4;
    for (int i = 0; i < 16; i++)
        R->data[i] = m[i];
}

double hand_objective(int nbones, int nverts, const int *parents, const double *theta, const double *base,
                      const double *inv_base, const double *points, const double *weights, const double *targets)
{
    double *absolutes = malloc(nbones * 16 * sizeof(double));
    double *skin = malloc(nbones * 16 * sizeof(double));
    double rot_data[16], local_data[16];
    Matrix rot = {4, 4, rot_data};
    Matrix local = {4, 4, local_data};

    for (int b = 0; b < nbones; b++) {
        Matrix rest = {4, 4, (double *)&base[b * 16]};
        Matrix absolute = {4, 4, &absolutes[b * 16]};
        pose_matrix(theta[3 * b], theta[3 * b + 1], theta[3 * b + 2], &rot);
        if (b == 0) {
            mat_mult(&rest, &rot, &absolute);
        } else {
            Matrix parent = {4, 4, &absolutes[parents[b] * 16]};
            mat_mult(&rest, &rot, &local);
            mat_mult(&parent, &local, &absolute);
        }
        Matrix inverse = {4, 4, (double *)&inv_base[b * 16]};
        Matrix bone = {4, 4, &skin[b * 16]};
        mat_mult(&absolute, &inverse, &bone);
    }

    double loss = 0.0;
    for (int v = 0; v < nverts; v++) {
        for (int c = 0; c < 3; c++) {
            double p = 0.0;
            for (int b = 0; b < nbones; b++) {
                double moved = 0.0;
                for (int k = 0; k < 4; k++)
                    moved += skin[b * 16 + c * 4 + k] * points[v * 4 + k];
                p += weights[v * nbones + b] * moved;
            }
            double e = p - targets[v * 3 + c];
            loss += e * e;
        }
    }
    free(skin);
    free(absolutes);
    return loss;
}
