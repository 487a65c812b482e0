#define NTHETA 9
#include "struct_fd.h"

typedef struct {
    int weight;
    double u, w;
} Cell;
double smooth(const Cell *cells, double a);
void grad_smooth(const Cell *cells, Cell *d_cells, double a, double *d_a, double d_return);

static void fill(Cell *cells, const double *theta) {
    for (int i = 0; i < 4; i++) {
        cells[i].weight = i + 1;
        cells[i].u = theta[2 * i];
        cells[i].w = theta[2 * i + 1];
    }
}

static double J(const double *theta) {
    Cell cells[4];
    fill(cells, theta);
    return 1.2 * smooth(cells, theta[8]);
}

static void G(const double *theta, double *grad) {
    Cell cells[4], d_cells[4] = {{0}};
    fill(cells, theta);
    double d_a = 0.0;
    grad_smooth(cells, d_cells, theta[8], &d_a, 1.2);
    for (int i = 0; i < 4; i++) {
        grad[2 * i] = d_cells[i].u;
        grad[2 * i + 1] = d_cells[i].w;
    }
    grad[8] = d_a;
}
