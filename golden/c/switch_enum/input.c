/* A switch on an enum parameter: a typedef'd enum with implicit and explicit values, and a
   tagged enum with a negative enumerator compared in a condition. The gradient's signature
   keeps both types, and its file defines them. */
typedef enum { LINEAR, SQUARE, CUBE = 4, QUART } Shape;
enum Side { LEFT = -1, RIGHT = 1 };

double shaped_sum(const double *x, int n, Shape shape, enum Side side)
{
    double s = 0.0;
    for (int i = 0; i < n; i++) {
        double v = x[i];
        switch (shape) {
        case LINEAR:
            s += v;
            break;
        case SQUARE:
            s += v * v;
            break;
        case CUBE:
        case QUART:
            s += v * v * v;
            break;
        }
        s *= side == LEFT ? 0.9 : 1.1;
    }
    return s;
}
