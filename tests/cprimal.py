"""Call a C function and its C gradient through ctypes, the signatures read from the C source.

``CSignature.parse(source, func, directory)`` reads the function's parameters with pycparser
(after a small preprocessing of its own, independent of s2sad's C front end:
``#include "local.h"`` read from ``directory`` in place, once each, comments and other
``#`` lines dropped, simple ``#define NAME value`` constants substituted, ``size_t``,
``bool`` and the like declared). Struct types in the source become ``ctypes.Structure``
classes.

``primal(lib)`` calls ``func`` from a library compiled from the source (see
cbuild.build); ``gradient(lib, wrt, written)`` calls ``grad_<func>`` with the
contract's C signature: a shadow after every pointer parameter that is in
``wrt`` or ``written``, a ``double *d_a`` (``float *``) out-cell starting at 0
after every floating-point scalar in ``wrt``, ``d_return`` last when ``func``
returns a floating-point value. It is called the way tests/fd.py's
check_gradient calls a gradient: ``gradient(*args_with_shadows, d_return=...)``,
returning the scalar adjoints (one value, a tuple for several, None for none).

Pointer arguments are NumPy arrays of the pointee's type (float64 for
``double *``, float32 for ``float *``, int32 for ``int *``, int64 for
``long *``); an array parameter of more dimensions (``double A[n][m]``,
``double (*A)[M]``) takes a C-contiguous NumPy array of that shape; a struct
pointer takes a ctypes array of the structure or any contiguous NumPy array
holding the structs' bytes (``struct Body {double pos[3]; double m;}`` as a
float64 array of shape (n, 4)), so finite differences can perturb the fields
one by one.
"""

from __future__ import annotations

import ctypes
import re
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Callable, Optional

import numpy as np
from cbuild import Out, SanitizedLibrary
from pycparser import c_ast, c_parser
from s2sad.parse.c_derived_typedefs import expand_derived_typedefs

# The standard typedefs that kernels (and generated gradients) use, for the parser's sake.
PRELUDE = (
    "typedef unsigned long size_t; typedef long ptrdiff_t; typedef _Bool bool;\n"
    "typedef long int64_t; typedef int int32_t; typedef unsigned long uint64_t; typedef unsigned uint32_t;\n"
)

_COMMENT = re.compile(r"/\*.*?\*/|//[^\n]*", re.S)
_DEFINE = re.compile(r"^\s*#\s*define\s+([A-Za-z_]\w*)\s+(.+?)\s*$")
_INCLUDE = re.compile(r'^\s*#\s*include\s*"([^"]+)"', re.M)

_SCALARS = {
    "double": ctypes.c_double,
    "float": ctypes.c_float,
    "long double": ctypes.c_longdouble,
    "char": ctypes.c_char,
    "signed char": ctypes.c_byte,
    "unsigned char": ctypes.c_ubyte,
    "short": ctypes.c_short,
    "unsigned short": ctypes.c_ushort,
    "int": ctypes.c_int,
    "unsigned int": ctypes.c_uint,
    "long": ctypes.c_long,
    "unsigned long": ctypes.c_ulong,
    "long long": ctypes.c_longlong,
    "unsigned long long": ctypes.c_ulonglong,
    "_Bool": ctypes.c_bool,
}
_FLOATS = ("double", "float")


def _inline_headers(source: str, directory: Optional[Path], seen: set[str]) -> str:
    """``source`` with each ``#include "name"`` found in ``directory`` replaced by the header's
    text (the first time: guards are dropped with the other directives)."""
    if directory is None:
        return source

    def header(m: re.Match) -> str:
        path = directory / m.group(1)
        if not path.is_file() or str(path.resolve()) in seen:
            return ""
        seen.add(str(path.resolve()))
        return _inline_headers(path.read_text(), path.parent, seen)

    return _INCLUDE.sub(header, source)


def preprocess(source: str, directory: Optional[Path] = None) -> str:
    """``source`` as pycparser can read it: local headers read in, no comments, no directives,
    ``#define`` constants substituted."""
    source = _inline_headers(source, directory, set())
    text = re.sub(r"\\\n", "", source)  # continuation lines of a multi-line #define go with it
    text = _COMMENT.sub(lambda m: "\n" * m.group().count("\n") + " ", text)
    text = re.sub(r"\b__restrict(?:__)?\b", "restrict", text)  # GNU and CUDA spellings
    macros: dict[str, str] = {}
    lines = []
    for line in text.splitlines():
        if line.lstrip().startswith("#"):
            m = _DEFINE.match(line)
            if m:
                macros[m.group(1)] = _substitute(m.group(2), macros)
            lines.append("")
            continue
        lines.append(_substitute(line, macros))
    return PRELUDE + "\n".join(lines) + "\n"


def _substitute(text: str, macros: dict[str, str]) -> str:
    for name, value in macros.items():
        text = re.sub(rf"\b{name}\b", f"({value})", text)
    return text


def _canonical(words: list[str]) -> str:
    """``['long', 'unsigned', 'int']`` -> ``'unsigned long'``."""
    ws = [w for w in words if w != "signed" or words == ["signed", "char"]]
    if len(ws) > 1 and "int" in ws:
        ws.remove("int")
    unsigned = "unsigned" in ws
    ws = [w for w in ws if w != "unsigned"]
    size = "long long" if ws.count("long") == 2 else " ".join(sorted(set(ws), key=ws.index))
    if size == "double long":
        size = "long double"
    size = size or "int"
    return f"unsigned {size}" if unsigned else size


@dataclass
class CParam:
    name: str
    base: str  # "double", "unsigned long", "struct Body", ...
    pointer: bool
    ctype: Any  # the ctypes type of the value (for a pointer: of the pointee)
    rows: bool = False  # double **A: a table of pointers to the rows of a 2-D NumPy array

    @property
    def is_float(self) -> bool:
        return self.base in _FLOATS

    @property
    def is_struct(self) -> bool:
        return self.base.startswith("struct ")

    @property
    def np_dtype(self) -> Optional[np.dtype]:
        return None if self.is_struct else np.dtype(self.ctype)


class CSignature:
    """The parameters and result type of one C function, and ctypes callers for it and its gradient."""

    def __init__(self, name: str, params: list[CParam], result: str, result_ctype: Any, structs: dict[str, Any]):
        self.name = name
        self.params = params
        self.result = result
        self.result_ctype = result_ctype
        self.structs = structs

    @property
    def returns_float(self) -> bool:
        return self.result in _FLOATS

    # -- parsing ---------------------------------------------------------------------------

    @staticmethod
    def parse(source: str, func: str, directory: Optional[Path] = None) -> "CSignature":
        ast = c_parser.CParser().parse(preprocess(source, directory), filename="input.c")
        expand_derived_typedefs(ast)  # const mat3 K: the array C reads (typedef vec3 mat3[3])
        typedefs: dict[str, c_ast.Node] = {}
        structs: dict[str, Any] = {}
        found = None
        for ext in ast.ext:
            if isinstance(ext, c_ast.Typedef):
                typedefs[ext.name] = ext.type.type
            decl = ext.decl if isinstance(ext, c_ast.FuncDef) else ext
            node = getattr(decl, "type", None)
            _collect_structs(node, typedefs, structs, ext.name if isinstance(ext, c_ast.Typedef) else None)
            if isinstance(ext, c_ast.FuncDef) and ext.decl.name == func:
                found = ext.decl
        if found is None:
            raise KeyError(f"no function {func!r} defined in the source")
        fdecl = found.type
        params = []
        for p in fdecl.args.params if fdecl.args else []:
            if isinstance(p, c_ast.Typename):  # (void)
                continue
            pointer = isinstance(p.type, (c_ast.PtrDecl, c_ast.ArrayDecl))
            rows = isinstance(p.type, c_ast.PtrDecl) and isinstance(p.type.type, c_ast.PtrDecl)
            base = _type_name(_element_type(p.type), typedefs)
            params.append(CParam(p.name, base, pointer, _ctype(base, structs), rows))
        result_ptr = isinstance(fdecl.type, c_ast.PtrDecl)
        assert not result_ptr, "functions returning pointers are not supported"
        result = _type_name(fdecl.type, typedefs)
        result_ctype = None if result == "void" else _ctype(result, structs)
        return CSignature(func, params, result, result_ctype, structs)

    # -- calling -----------------------------------------------------------------------------

    def primal(self, lib: ctypes.CDLL) -> Callable[..., Any]:
        """``func`` from ``lib``, called with NumPy arrays, ints and floats; returns its result."""
        return self._caller(lib, self.name, [(p, "value") for p in self.params], gradient=False)

    def gradient(self, lib: ctypes.CDLL, wrt: list[str], written: list[str]) -> Callable[..., Any]:
        """``grad_<func>`` from ``lib`` with the contract's C signature (see the module docstring)."""
        unknown = (set(wrt) | set(written)) - {p.name for p in self.params}
        assert not unknown, f"not parameters of {self.name}: {sorted(unknown)}"
        layout: list[tuple[CParam, str]] = []
        for p in self.params:
            layout.append((p, "value"))
            if p.pointer and (p.name in wrt or p.name in written):
                layout.append((p, "shadow"))
            elif not p.pointer and p.name in wrt:
                assert p.is_float, f"--wrt {p.name}: an integer parameter has no adjoint"
                layout.append((p, "cell"))
        return self._caller(lib, f"grad_{self.name}", layout, gradient=True)

    def _caller(
        self, lib: ctypes.CDLL, symbol: str, layout: list[tuple[CParam, str]], gradient: bool
    ) -> Callable[..., Any]:
        """A Python callable for ``symbol``: ``layout`` lists its parameters as (parameter, role)."""
        has_d_return = gradient and self.returns_float
        if isinstance(lib, SanitizedLibrary):
            return self._sanitized_caller(lib, symbol, layout, gradient)
        fn = getattr(lib, symbol)
        argtypes = [ctypes.POINTER(ctypes.POINTER(p.ctype)) if p.rows else
                    ctypes.POINTER(p.ctype) if p.pointer or role == "cell" else p.ctype for p, role in layout]
        fn.argtypes = argtypes + ([self.result_ctype] if has_d_return else [])
        fn.restype = None if gradient else self.result_ctype
        given = [(p, role) for p, role in layout if role != "cell"]

        def call(*args: Any, d_return: Optional[float] = None) -> Any:
            assert len(args) == len(given), f"{symbol} takes {len(given)} arguments, got {len(args)}"
            it = iter(args)
            c_args, cells = [], []
            for p, role in layout:
                if role == "cell":
                    cells.append(p.ctype(0.0))
                    c_args.append(ctypes.pointer(cells[-1]))
                elif p.pointer:
                    c_args.append(_pointer(p, next(it)))
                else:
                    c_args.append(next(it))
            if has_d_return:
                assert d_return is not None, f"{symbol} needs d_return"
                c_args.append(d_return)
            else:
                assert d_return is None, f"{symbol} takes no d_return: {self.name} returns {self.result}"
            result = fn(*c_args)
            if not gradient:
                return result
            values = [c.value for c in cells]
            if not values:
                return None
            return values[0] if len(values) == 1 else tuple(values)

        return call


    def _sanitized_caller(
        self, lib: SanitizedLibrary, symbol: str, layout: list[tuple[CParam, str]], gradient: bool
    ) -> Callable[..., Any]:
        """``_caller``'s twin for a library built by cbuild.build_sanitized (its own program)."""
        has_d_return = gradient and self.returns_float
        spelled = [p.base + " **" if p.rows else p.base + " *" if p.pointer or role == "cell" else p.base
                   for p, role in layout]
        kinds = [p.ctype for p, _ in layout]
        if has_d_return:
            spelled.append(self.result)
            kinds.append(self.result_ctype)
        given = [(p, role) for p, role in layout if role != "cell"]

        def call(*args: Any, d_return: Optional[float] = None) -> Any:
            assert len(args) == len(given), f"{symbol} takes {len(given)} arguments, got {len(args)}"
            it = iter(args)
            values: list[Any] = []
            cells = []
            for p, role in layout:
                if role == "cell":
                    cells.append(Out(0.0))
                    values.append(cells[-1])
                else:
                    a = next(it)
                    if p.pointer:
                        _pointer(p, a)  # the same checks as a ctypes call
                    values.append(a)
            if has_d_return:
                assert d_return is not None, f"{symbol} needs d_return"
                values.append(d_return)
            else:
                assert d_return is None, f"{symbol} takes no d_return: {self.name} returns {self.result}"
            result = lib.run(symbol, spelled, kinds, None if gradient else self.result_ctype, values)
            if not gradient:
                return result
            out = [c.value for c in cells]
            if not out:
                return None
            return out[0] if len(out) == 1 else tuple(out)

        return call


def _pointer(p: CParam, a: Any) -> Any:
    """A ctypes pointer to the data of ``a`` for the pointer parameter ``p`` (no copy: writes show)."""
    target = ctypes.POINTER(p.ctype)
    if p.rows:  # double **A: a table of pointers to the rows of a 2-D array (no copy: writes show)
        assert isinstance(a, np.ndarray) and a.ndim == 2 and a.flags.c_contiguous and a.dtype == p.np_dtype, \
            f"{p.name}: {p.base} ** needs a contiguous 2-D array of {p.np_dtype}"
        return (target * a.shape[0])(*[row.ctypes.data_as(target) for row in a])
    if isinstance(a, ctypes.Array):
        assert a._type_ is p.ctype, f"{p.name}: expected an array of {p.base}, got one of {a._type_.__name__}"
        return ctypes.cast(a, target)
    assert isinstance(a, np.ndarray) and a.flags.c_contiguous, f"{p.name}: expected a contiguous NumPy array"
    if p.is_struct:
        size = ctypes.sizeof(p.ctype)
        assert a.nbytes % size == 0 and a.nbytes > 0, f"{p.name}: {a.nbytes} bytes is not a whole number of {p.base}"
    else:
        assert a.dtype == p.np_dtype, f"{p.name}: {p.base} * needs {p.np_dtype}, got {a.dtype}"
    return a.ctypes.data_as(target)


# -- types ----------------------------------------------------------------------------------------


def _element_type(node: c_ast.Node) -> c_ast.Node:
    """The element type of a parameter: under ``*p``, ``p[]``, ``A[n][m]`` and ``(*A)[M]`` alike
    (an array of more dimensions is passed as a pointer to its first element, like the rest)."""
    while isinstance(node, (c_ast.PtrDecl, c_ast.ArrayDecl)):
        node = node.type
    return node


def _type_name(node: c_ast.Node, typedefs: dict[str, c_ast.Node]) -> str:
    """The base type under a TypeDecl: ``double``, ``unsigned long``, ``struct Body``."""
    inner = node.type if isinstance(node, c_ast.TypeDecl) else node
    if isinstance(inner, c_ast.Struct):
        return f"struct {inner.name}"
    if isinstance(inner, c_ast.Enum):
        return "int"
    assert isinstance(inner, c_ast.IdentifierType), f"unsupported type {inner!r}"
    if len(inner.names) == 1 and inner.names[0] in typedefs:
        return _type_name(typedefs[inner.names[0]], typedefs)
    return _canonical(inner.names)


def _ctype(base: str, structs: dict[str, Any]) -> Any:
    if base.startswith("struct "):
        return structs[base.removeprefix("struct ")]
    return _SCALARS[base]


def _collect_structs(node: Optional[c_ast.Node], typedefs: dict[str, c_ast.Node], structs: dict[str, Any],
                     typedef: Optional[str] = None) -> None:
    """Define a ctypes.Structure for each struct with a body under ``node`` (an untagged one
    named after ``typedef``, the name it is defined as, so two sources agree on it)."""
    while isinstance(node, (c_ast.TypeDecl, c_ast.PtrDecl, c_ast.ArrayDecl)):
        node = node.type
    if not isinstance(node, c_ast.Struct) or node.decls is None:
        return
    if node.name is None:  # typedef struct { ... } Name;
        node.name = f"anonymous_{typedef or id(node)}"
    fields = []
    for d in node.decls:
        _collect_structs(d.type, typedefs, structs)
        t, dims = d.type, []
        while isinstance(t, c_ast.ArrayDecl):
            dims.append(_int_constant(t.dim))
            t = t.type
        ctype = ctypes.c_void_p if isinstance(t, c_ast.PtrDecl) else _ctype(_type_name(t, typedefs), structs)
        for n in reversed(dims):
            ctype = ctype * n
        fields.append((d.name, ctype))
    structs[node.name] = type(node.name, (ctypes.Structure,), {"_fields_": fields})


def _int_constant(node: c_ast.Node) -> int:
    """An array dimension: an integer constant expression (``3``, ``(3)``, ``(N) * 2``)."""
    if isinstance(node, c_ast.Constant):
        return int(node.value.rstrip("uUlL"), 0)
    if isinstance(node, c_ast.BinaryOp):
        a, b = _int_constant(node.left), _int_constant(node.right)
        return {"+": a + b, "-": a - b, "*": a * b, "/": a // b}[node.op]
    raise ValueError(f"array dimension is not an integer constant: {node!r}")
