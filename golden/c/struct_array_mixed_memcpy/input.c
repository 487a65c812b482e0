#include <string.h>

/* memcpy of an array of structs with an integer member, counted in whole structs
   (sizeof(Cell), padding included): the copy goes number by number through the members. */
typedef struct {
    int weight;
    double u, w;
} Cell;

double smooth(const Cell *cells, double a)
{
    Cell work[4];
    memcpy(work, cells, 4 * sizeof(Cell));
    for (int i = 1; i < 4; i++)
        work[i].u += a * work[i - 1].u * work[i].w;
    double s = 0.0;
    for (int i = 0; i < 4; i++)
        s += work[i].weight * work[i].u * work[i].u + cells[i].w;
    return s;
}
