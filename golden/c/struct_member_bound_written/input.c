/* A loop bounded by an integer member of a struct the function writes (s->n of Sys *s): the
   body writes other members of s, never n, so the loop stays counted (its bound read once);
   n is written after the loop, which the reverse sweep must not read back. */
typedef struct {
    int n;
    double scale;
    double acc;
} Sys;

double relax(Sys *s, const double *x)
{
    s->acc = 0.0;
    for (int i = 0; i < s->n; i++) {
        s->acc += s->scale * x[i] * x[i];
        s->scale *= 0.9;
    }
    int m = s->n;
    s->n = 0;
    return s->acc * m;
}
