/* A chain of springs between 2-D nodes. The types, the constants and the helper come
   from spring.h beside this file (included twice: its guard keeps the second one out);
   the gradient file carries what it needs of them and includes no header of the user's. */
#include "spring.h"
#include "spring.h"

real spring_energy(const Node *nodes, int n)
{
    real e = 0.0;
    for (int i = 0; i + 1 < n; i++) {
        real len = sqrt(sq(nodes[i + 1].x[0] - nodes[i].x[0]) + sq(nodes[i + 1].x[1] - nodes[i].x[1]));
        e += 0.5 * STIFFNESS * sq(len - REST_LENGTH);
    }
    return e;
}
