double f(double a, double p)
{
    double s = 0.0;
    for (int j = 1; j <= p; j++)
        s += a * j;
    return s;
}
