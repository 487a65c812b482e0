/* A void function writing an output array from an input array. */
void squash(double *out, const double *in, int n)
{
    for (int i = 0; i < n; i++) {
        out[i] = in[i] / (1.0 + in[i] * in[i]);
    }
}
