/* Two-layer perceptron whose activation is chosen per layer by a switch on
 * an enum; squared loss over a batch. */
#include <math.h>

typedef enum { ACT_IDENTITY, ACT_TANH, ACT_SIGMOID, ACT_SOFTPLUS, ACT_ELU } activation_t;

static inline double activate(activation_t a, double z)
{
    switch (a) {
    case ACT_TANH:
        return tanh(z);
    case ACT_SIGMOID:
        return 1.0 / (1.0 + exp(-z));
    case ACT_SOFTPLUS:
        return z > 30.0 ? z : log1p(exp(z));
    case ACT_ELU:
        if (z > 0.0) return z;
        return expm1(z);
    case ACT_IDENTITY:
    default:
        break;
    }
    return z;
}

#define HMAX 16

double mlp_loss(int n, int d, int h, const double *X, const double *t,
                const double *W1, const double *b1, const double *w2, double b2,
                activation_t act1, activation_t act2)
{
    double loss = 0.0;
    for (int i = 0; i < n; i++) {
        double hid[HMAX];
        for (int u = 0; u < h; u++) {
            double z = b1[u];
            for (int j = 0; j < d; j++)
                z += W1[u * d + j] * X[i * d + j];
            hid[u] = activate(act1, z);
        }
        double o = b2;
        for (int u = 0; u < h; u++)
            o += w2[u] * hid[u];
        o = activate(act2, o);
        double e = o - t[i];
        loss += e * e;
    }
    return loss / (2.0 * n);
}
