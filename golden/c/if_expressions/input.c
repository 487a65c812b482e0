/* Conditional compilation with real #if conditions: defined(), arithmetic and
   comparisons of integer macros, an #elif chain, and a name no one defined, which
   counts as 0 (so its #error is never reached). */
#define ORDER 2
#define USE_DAMPING
#define VERSION_MAJOR 1
#define VERSION_MINOR 4

#if ORDER >= 2 && defined(USE_DAMPING)
#define DAMPING 0.9
#elif ORDER == 1
#define DAMPING 0.5
#else
#define DAMPING 1.0
#endif

#if (VERSION_MAJOR * 100 + VERSION_MINOR) > 103 && !defined NO_SCALE
#define SCALE 0.5
#else
#define SCALE 1.0
#endif

#if UNDEFINED_FEATURE
#error "an unknown name is 0: never reached"
#endif

double damped_sum(const double *x, int n)
{
    double s = 0.0;
    double w = 1.0;
    for (int i = 0; i < n; i++) {
#if ORDER == 2
        s += w * x[i] * x[i];
#else
        s += w * x[i];
#endif
        w *= DAMPING;
    }
    return SCALE * s;
}
