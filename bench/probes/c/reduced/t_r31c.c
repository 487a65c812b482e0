/* gcc -std=c99 -O0 -w reduced/t_r31c.c reduced/r31c_memset_sizeof_deref_struct.c gen/grad_r31c_memset_sizeof_deref_struct.c */
#include <stdio.h>
#include <stdlib.h>
double f(int n, const double *a);
void grad_f(int n, const double *a, double *d_a, double d_return);
int main(void){
  double *junk = malloc(6 * sizeof(double)); for (int i = 0; i < 6; i++) junk[i] = 1000.0; free(junk);
  double a[3]={1,2,3}, d[3]={0}; grad_f(3,a,d,1.0);
  printf("d_a = %g %g %g (expect %g %g %g)\n",d[0],d[1],d[2],3.,12.,27.);
  junk = malloc(6 * sizeof(double)); for (int i = 0; i < 6; i++) junk[i] = 1000.0; free(junk);
  printf("f = %g (expect 36)\n", f(3,a)); return 0; }
