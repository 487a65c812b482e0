"""Reads ``--derivatives`` files: the custom adjoints (``custom_adjoints``) a user writes for
functions s2sad cannot see (a library call, a solver, a black box).

The generated gradient calls ``grad_f`` by name: Python output imports it from the file's module
(the file's stem: it must be importable where the gradient runs), C output declares it and the
caller links the file, as it links ``f``'s own definition.
"""

from __future__ import annotations

import ast
from pathlib import Path
from typing import Sequence

from pycparser import c_ast
from pycparser.c_generator import CGenerator

from ..diagnostics import Diagnostic, DiagnosticError, error
from ..languages import is_c
from ..ssa.ir import SourceLoc
from ..source_files import source_lines
from .c_frontend import CFile
from .c_types import TypeProblem, ctype_of
from .custom_adjoints import PREFIX, CustomAdjoint, Derivatives


def read_derivatives(paths: Sequence[str]) -> Derivatives:
    """The custom adjoints the files at ``paths`` define (a located error for a file that cannot
    be read, has none, or defines one a second time)."""
    found: list[CustomAdjoint] = []
    for path in paths:
        try:
            text = Path(path).read_text(encoding="utf-8")
        except (OSError, UnicodeDecodeError) as e:
            raise error(f"--derivatives {path}: cannot read it ({getattr(e, 'strerror', None) or e})") from None
        lines = source_lines(text)
        adjoints = _read_c(text, path) if is_c(path) else _read_python(text, path, lines)
        if not adjoints:
            raise error(f"--derivatives {path}: it defines no custom adjoint",
                        hint="name the adjoint of a function f grad_f (see README, Custom derivatives)")
        for a in adjoints:
            first = next((b for b in found if b.primal == a.primal), None)
            if first is not None:
                raise DiagnosticError([Diagnostic(
                    f"a second custom adjoint of '{a.primal}' ({first.path} defines one)", a.loc,
                    hint="keep one of them")], lines)
        found += adjoints
    return Derivatives(tuple(found))


def _read_python(text: str, path: str, lines: list[str]) -> list[CustomAdjoint]:
    name = Path(path).name
    if Path(path).suffix != ".py":
        raise error(f"--derivatives {path}: not a Python (.py) or C (.c, .h, .cu) file")
    try:
        tree = ast.parse(text, filename=name)
    except SyntaxError as e:
        raise DiagnosticError([Diagnostic(f"invalid syntax: {e.msg}", SourceLoc(name, e.lineno or 1, e.offset or 1),
                                          hint="the derivatives file must be valid Python")], lines) from None
    defined = {d.name for d in tree.body if isinstance(d, ast.FunctionDef)}
    out = []
    for d in tree.body:
        if not isinstance(d, ast.FunctionDef) or not d.name.startswith(PREFIX) or d.name == PREFIX:
            continue
        args = d.args
        loc = SourceLoc(name, d.lineno, d.col_offset + 1, d.lineno, d.col_offset + 1 + len("def " + d.name))
        if args.vararg or args.kwarg or args.kwonlyargs or args.posonlyargs:
            raise DiagnosticError([Diagnostic(f"custom adjoint '{d.name}' takes *args, **kwargs or keyword-only "
                                              "parameters", loc, hint="list its parameters one by one")], lines)
        primal = d.name[len(PREFIX):]
        out.append(CustomAdjoint(primal, path, loc, tuple(a.arg for a in args.args), module=Path(path).stem,
                                 defines_primal=primal in defined))
    return out


def _read_c(text: str, path: str) -> list[CustomAdjoint]:
    cfile = CFile(text, Path(path).name, path)
    decls = {name: fn.decl for name, fn in cfile.functions.items()}
    decls.update(cfile.prototypes)
    out = []
    for name, decl in decls.items():
        if not name.startswith(PREFIX) or name == PREFIX or not isinstance(decl.type, c_ast.FuncDecl):
            continue
        if decl.coord is not None and cfile.sources.where(decl.coord.line)[0] != cfile.filename:
            continue  # a header's
        loc = cfile.loc(decl)
        params = decl.type.args.params if decl.type.args is not None else []
        texts, pointers = [], []
        for p in params:
            if isinstance(p, c_ast.EllipsisParam):
                raise DiagnosticError([Diagnostic(f"custom adjoint '{name}' takes '...'", loc,
                                                  hint="declare each parameter")], cfile.lines)
            try:
                t = ctype_of(p.type, cfile.typedefs, True)
            except TypeProblem as e:
                raise DiagnosticError([Diagnostic(f"custom adjoint '{name}': {e.message}", loc, e.hint)],
                                      cfile.lines) from None
            if t.kind == "void":
                continue  # grad_f(void)
            texts.append(CGenerator().visit(p))
            pointers.append(t.kind == "pointer")
        result = ctype_of(decl.type.type, cfile.typedefs, True)
        if result.kind != "void":
            raise DiagnosticError([Diagnostic(f"custom adjoint '{name}' returns '{result.spelling}'", loc,
                                              hint="a C adjoint returns void: it adds each adjoint through the "
                                              "pointer after its argument")], cfile.lines)
        prototype = f"void {name}({', '.join(texts) or 'void'})"
        out.append(CustomAdjoint(name[len(PREFIX):], path, loc, tuple(texts), tuple(pointers), prototype))
    return out
