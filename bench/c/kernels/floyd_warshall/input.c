/* All-pairs shortest paths: the gradient of each length with respect to the edges it uses. */
void floyd_warshall(int n, double path[n][n])
{
    for (int k = 0; k < n; k++)
        for (int i = 0; i < n; i++)
            for (int j = 0; j < n; j++)
                path[i][j] = path[i][j] < path[i][k] + path[k][j] ? path[i][j] : path[i][k] + path[k][j];
}
