/* The kind of header a numerical code keeps beside its sources: an include guard, the
   number type, a struct, constants, a prototype and a static inline helper. */
#ifndef SPRING_H
#define SPRING_H

#include <math.h>

typedef double real;

#define REST_LENGTH 1.5
#define STIFFNESS 2.0

typedef struct {
    real x[2];
} Node;

static inline real sq(real v)
{
    return v * v;
}

real spring_energy(const Node *nodes, int n);

#endif
