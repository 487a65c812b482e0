#include <stdio.h>
#include <math.h>
void grad_sumsq(int n, const double *x, double *d_x, double d_return);
int main(void){ enum{n=1003}; static double x[n], d[n]; for(int i=0;i<n;i++){x[i]=i*0.001+0.5; d[i]=0;}
 grad_sumsq(n,x,d,1.0); double e=0; for(int i=0;i<n;i++) e=fmax(e,fabs(d[i]-2*x[i])); printf("max err vs 2x: %g\n", e); return 0;}
