"""Row pointers made by casting a flat array (``parse/c_row_casts.py``).

``const double (*u)[NX] = (const double (*)[NX])in;`` then ``u[j][i]`` is ``in[j * NX + i]``;
a pointer to planes likewise; a row ``u[j]`` handed to a helper is ``in + j * NX``. Each
gradient (C, Python, Numba) against central differences of the compiled primal (``s2sad
check``), the output written with the flat array's own accesses, and a pointer the function
moves staying a located error.
"""

from __future__ import annotations

import pytest

from cbuild import have_gcc

from s2sad import cli

pytestmark = pytest.mark.skipif(not have_gcc(), reason="gcc is not installed")

SOURCE = """\
#define NX 4
#define NY 3

static double row_energy(const double *r)
{
    double s = 0.0;
    for (int i = 0; i < NX; i++)
        s += r[i] * r[i];
    return s;
}

double grid(const double *x, int ny)
{
    const double (*g)[NX] = (const double (*)[NX])x;
    double s = 0.0;
    for (int j = 0; j < ny; j++)
        for (int i = 0; i < NX; i++)
            s += g[j][i] * g[j][i] * (i + 1);
    for (int j = 0; j < ny; j++)
        s += row_energy(g[j]) * j;
    return s;
}

void smooth(double *out, const double *in, int ny)
{
    double (*o)[NX] = (double (*)[NX])out;
    const double (*u)[NX] = (const double (*)[NX])in;
    for (int j = 1; j < ny - 1; j++)
        for (int i = 0; i < NX; i++)
            o[j][i] = 0.5 * u[j][i] + 0.25 * (u[j - 1][i] + u[j + 1][i]);
}

double planes(const double *v, int nz)
{
    const double (*p)[NY][NX] = (const double (*)[NY][NX])v;
    double s = 0.0;
    for (int k = 0; k < nz; k++)
        for (int j = 0; j < NY; j++)
            for (int i = 0; i < NX; i++)
                s += p[k][j][i] * p[k][j][i] * p[k][(j + 1) % NY][i];
    return s;
}
"""
CASES = {
    "grid": ("x", "x=12,ny=3"),
    "smooth": ("in", "out=20,in=20,ny=5"),
    "planes": ("v", "v=24,nz=2"),
}


@pytest.mark.parametrize("target", ["c", "py", "numba"])
@pytest.mark.parametrize("func", list(CASES))
def test_a_cast_to_rows_reads_the_flat_array(tmp_path, capsys, func, target):
    path = tmp_path / "rows.c"
    path.write_text(SOURCE)
    wrt, sizes = CASES[func]
    code = cli.main(["check", str(path), "--func", func, "--wrt", wrt, "--sizes", sizes, "--target", target])
    out = capsys.readouterr()
    assert code == 0 and "all adjoints match central differences" in out.out, out.out + out.err


def test_the_output_indexes_the_flat_array(tmp_path, capsys):
    path = tmp_path / "rows.c"
    path.write_text(SOURCE)
    assert cli.main(["grad", str(path), "--func", "smooth", "--wrt", "in", "-o", str(tmp_path / "g.c")]) == 0
    text = (tmp_path / "g.c").read_text()
    assert "in[(j - 1) * NX + i]" in text and "(*u)" not in text and "(*o)" not in text


def test_a_row_pointer_the_function_moves_stays_refused(tmp_path, capsys):
    path = tmp_path / "rows.c"
    path.write_text(SOURCE.replace("    for (int j = 0; j < ny; j++)\n        s += row_energy(g[j]) * j;\n",
                                   "    g = g + 1;\n    s += g[0][0];\n"))
    assert cli.main(["grad", str(path), "--func", "grid", "--wrt", "x"]) == 1
    err = capsys.readouterr().err
    assert "rows.c:14:29: error: a cast that reads the 1-D 'x' as rows of another shape is not supported yet" in err
