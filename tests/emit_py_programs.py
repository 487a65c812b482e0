"""IR programs for the Python emitter's tests, in the IR's text form.

Each entry: the module text and a function that makes arguments for every
function of the module that the tests run (random floats, arrays, sizes).
Together they cover every op kind and every control-flow shape the adjoint
transform produces: carried ``for`` loops (forward, reversed, strided), ``while``
loops with a pure and an impure condition, ``if`` with and without results,
nested loops, calls with several results, 2-D arrays, tapes with and without
growth, comments, ``undef``, and values that must not move past a store.
"""

from __future__ import annotations

import numpy as np

N = 6


def _arr(rng, *shape):
    return rng.uniform(-1.0, 1.0, size=shape)


def _pos(rng, *shape):
    return rng.uniform(0.5, 1.5, size=shape)


DOT = """
module "dot.py"

func @dot(%a: array<f64,1>, %b: array<f64,1>, %n: i64) -> f64 @1:1 {
  %c0 = const() {value = 0} : i64
  %c1 = const() {value = 1} : i64
  %z = const() {value = 0.0} : f64
  %s = for(%c0, %n, %c1, %z) : f64 @3:5 {
  ^(%i: i64, %s.1: f64):
    %0 = load(%a, %i) : f64 @4:14
    %1 = load(%b, %i) : f64 @4:21
    %2 = mul(%0, %1) : f64 @4:14
    %s.2 = add(%s.1, %2) : f64 @4:9
    yield(%s.2)
  }
  return(%s) @5:5
}
"""

SWAP = """
module "swap.py"

func @fib(%x: f64, %n: i64) -> f64 {
  %c0 = const() {value = 0} : i64
  %c1 = const() {value = 1} : i64
  %one = const() {value = 1.0} : f64
  %a, %b = for(%c0, %n, %c1, %x, %one) : f64, f64 {
  ^(%i: i64, %a.1: f64, %b.1: f64):
    %0 = mul(%b.1, %x) : f64
    %b.2 = add(%a.1, %0) : f64
    yield(%b.1, %b.2)
  }
  return(%a)
}
"""

WHILE = """
module "wh.py"

func @wh(%x: array<f64,1>, %a: f64) -> f64 {
  %c0 = const() {value = 0} : i64
  %c1 = const() {value = 1} : i64
  %c3 = const() {value = 3} : i64
  %ten = const() {value = 10.0} : f64
  %q = const() {value = 0.25} : f64
  %a.1, %k = while(%a, %c0) : f64, i64 {
  ^(%a.2: f64, %k.1: i64):
    %0 = lt(%a.2, %ten) : bool
    condition(%0)
  } {
  ^(%a.3: f64, %k.2: i64):
    %1 = mod(%k.2, %c3) : i64
    %2 = load(%x, %1) : f64
    %3 = mul(%a.3, %2) : f64
    %a.4 = add(%3, %q) : f64
    %k.3 = add(%k.2, %c1) : i64
    yield(%a.4, %k.3)
  }
  return(%a.1)
}

func @wh2(%x: array<f64,1>, %n: i64) -> f64 {
  %c0 = const() {value = 0} : i64
  %c1 = const() {value = 1} : i64
  %z = const() {value = 0.0} : f64
  %lim = const() {value = 2.0} : f64
  %s, %k = while(%z, %c0) : f64, i64 {
  ^(%s.1: f64, %k.1: i64):
    %in = lt(%k.1, %n) : bool
    %room = sub(%lim, %s.1) : f64
    %0 = gt(%room, %z) : bool
    %go = and(%in, %0) : bool
    condition(%go)
  } {
  ^(%s.2: f64, %k.2: i64):
    %xk.1 = load(%x, %k.2) : f64
    %1 = mul(%xk.1, %xk.1) : f64
    %s.3 = add(%s.2, %1) : f64
    %k.3 = add(%k.2, %c1) : i64
    yield(%s.3, %k.3)
  }
  return(%s)
}
"""

BRANCHES = """
module "br.py"

func @br(%x: f64, %y: f64) -> f64 {
  %z = const() {value = 0.0} : f64
  %two = const() {value = 2.0} : f64
  %s = mul(%x, %y) : f64
  %0 = gt(%x, %z) : bool
  %1 = gt(%y, %z) : bool
  %2 = and(%0, %1) : bool
  %s.1 = if(%2) : f64 {
    %s.2 = mul(%s, %two) : f64
    yield(%s.2)
  } {
    yield(%s)
  }
  %m = if(%0) : f64 {
    yield(%x)
  } {
    yield(%y)
  }
  %3 = lt(%x, %z) : bool
  %4 = if(%3) : f64 {
    %5 = mul(%x, %y) : f64
    yield(%5)
  } {
    %6 = mul(%two, %y) : f64
    yield(%6)
  }
  %7 = mul(%m, %m) : f64
  %8 = add(%7, %4) : f64
  %9 = add(%8, %s.1) : f64
  return(%9)
}

func @piecewise(%x: f64) -> f64 {
  %m1 = const() {value = -1.0} : f64
  %p1 = const() {value = 1.0} : f64
  %three = const() {value = 3.0} : f64
  %two = const() {value = 2.0} : f64
  %c = lt(%x, %m1) : bool
  %y = if(%c) : f64 {
    %0 = neg(%x) : f64
    %y.1 = mul(%0, %x) : f64
    yield(%y.1)
  } {
    %c2 = lt(%x, %p1) : bool
    %y.2 = if(%c2) : f64 {
      %y.3 = pow(%x, %three) : f64
      yield(%y.3)
    } {
      %1 = mul(%three, %x) : f64
      %y.4 = sub(%1, %two) : f64
      yield(%y.4)
    }
    yield(%y.2)
  }
  return(%y)
}

func @onlyelse(%x: array<f64,1>, %t: f64) -> () {
  %c0 = const() {value = 0} : i64
  %z = const() {value = 0.0} : f64
  %c = gt(%t, %z) : bool
  if(%c) {
    yield()
  } {
    store(%x, %c0, %t)
    yield()
  }
  return()
}
"""

NESTED = """
module "nested.py"

func @nested(%x: array<f64,1>, %n: i64) -> f64 {
  %c0 = const() {value = 0} : i64
  %c1 = const() {value = 1} : i64
  %z = const() {value = 0.0} : f64
  %one = const() {value = 1.0} : f64
  %half = const() {value = 0.5} : f64
  %total = for(%c0, %n, %c1, %z) : f64 {
  ^(%i: i64, %total.1: f64):
    %0 = add(%i, %c1) : i64
    %row = for(%c0, %0, %c1, %one) : f64 {
    ^(%j: i64, %row.1: f64):
      %1 = load(%x, %j) : f64
      %2 = mul(%row.1, %1) : f64
      %row.2 = add(%2, %half) : f64
      yield(%row.2)
    }
    %total.2 = add(%total.1, %row) : f64
    yield(%total.2)
  }
  return(%total)
}

func @matvec(%A: array<f64,2>, %x: array<f64,1>, %y: array<f64,1>) -> () {
  %c0 = const() {value = 0} : i64
  %c1 = const() {value = 1} : i64
  %z = const() {value = 0.0} : f64
  %n = dim(%A) {axis = 0} : i64
  %m = dim(%A) {axis = 1} : i64
  %tmp = alloc(%n, %m) {elem = "f64", fill = "zeros"} : array<f64,2>
  for(%c0, %n, %c1) {
  ^(%i: i64):
    %acc = for(%c0, %m, %c1, %z) : f64 {
    ^(%j: i64, %acc.1: f64):
      %0 = load(%A, %i, %j) : f64
      %1 = load(%x, %j) : f64
      %2 = mul(%0, %1) : f64
      store(%tmp, %i, %j, %2)
      %acc.2 = add(%acc.1, %2) : f64
      yield(%acc.2)
    }
    %3 = load(%tmp, %i, %c0) : f64
    %4 = sub(%acc, %3) : f64
    store(%y, %i, %4)
    yield()
  }
  return()
}
"""

CALLS = """
module "calls.py"

func @mag(%v: array<f64,1>, %n: i64) -> f64 {
  %c0 = const() {value = 0} : i64
  %c1 = const() {value = 1} : i64
  %z = const() {value = 0.0} : f64
  %s = for(%c0, %n, %c1, %z) : f64 {
  ^(%i: i64, %s.1: f64):
    %0 = load(%v, %i) : f64
    %1 = mul(%0, %0) : f64
    %s.2 = add(%s.1, %1) : f64
    yield(%s.2)
  }
  %r = math.sqrt(%s) : f64
  return(%r)
}

func @norm(%out: array<f64,1>, %in_: array<f64,1>, %n: i64) -> () {
  %c0 = const() {value = 0} : i64
  %c1 = const() {value = 1} : i64
  for(%c0, %n, %c1) {
  ^(%i: i64):
    %0 = load(%in_, %i) : f64
    %1 = call(%in_, %n) {callee = "mag"} : f64
    %2 = div(%0, %1) : f64
    store(%out, %i, %2)
    yield()
  }
  return()
}

func @two(%a: f64, %b: f64) -> f64, f64 {
  %0 = add(%a, %b) : f64
  %1 = mul(%a, %b) : f64
  return(%0, %1)
}

func @user(%x: f64, %y: f64) -> f64 {
  %p, %q = call(%x, %y) {callee = "two"} : f64, f64
  %u, %v = call(%p, %y) {callee = "two"} : f64, f64
  %0 = mul(%p, %q) : f64
  %1 = add(%0, %u) : f64
  return(%1)
}
"""

OPS = """
module "ops.py"

func @ops(%a: f64, %b: f64, %c: f64, %n: i64, %x: array<f64,1>) -> f64, i64, bool {
  %two = const() {value = 2.0} : f64
  %eps = const() {value = 1e-08} : f64
  %c2 = const() {value = 2} : i64
  %c3 = const() {value = 3} : i64
  %0 = sub(%b, %c) : f64
  %1 = sub(%a, %0) : f64
  %2 = sub(%a, %b) : f64
  %3 = sub(%2, %c) : f64
  %4 = neg(%a) : f64
  %5 = pow(%4, %two) : f64
  %6 = pow(%a, %two) : f64
  %7 = neg(%6) : f64
  %8 = neg(%b) : f64
  %9 = pow(%c, %8) : f64
  %10 = mul(%b, %c) : f64
  %11 = div(%a, %10) : f64
  %12 = mul(%a, %b) : f64
  %13 = div(%12, %c) : f64
  %14 = math.exp2(%a) : f64
  %15 = math.pow(%c, %a) : f64
  %16 = math.abs(%b) : f64
  %17 = math.max(%a, %b) : f64
  %18 = math.min(%16, %eps) : f64
  %19 = math.cbrt(%b) : f64
  %20 = math.atan2(%a, %b) : f64
  %21 = math.hypot(%a, %b) : f64
  %22 = math.floor(%b) : f64
  %23 = math.sin(%a) : f64
  %24 = math.erf(%b) : f64
  %25 = math.log1p(%c) : f64
  %26 = add(%1, %3) : f64
  %27 = add(%26, %5) : f64
  %28 = add(%27, %7) : f64
  %29 = add(%28, %9) : f64
  %30 = add(%29, %11) : f64
  %31 = add(%30, %13) : f64
  %32 = mul(%14, %15) : f64
  %33 = add(%31, %32) : f64
  %34 = sub(%33, %17) : f64
  %35 = add(%34, %18) : f64
  %36 = add(%35, %19) : f64
  %37 = add(%36, %20) : f64
  %38 = mul(%21, %22) : f64
  %39 = sub(%37, %38) : f64
  %40 = add(%39, %23) : f64
  %41 = add(%40, %24) : f64
  %42 = add(%41, %25) : f64
  %fn = cast(%n) : f64
  %43 = div(%42, %fn) : f64
  %i1 = floordiv(%n, %c2) : i64
  %i2 = mod(%n, %c3) : i64
  %i3 = mul(%i1, %i2) : i64
  %i4 = cast(%a) : i64
  %i5 = sub(%i3, %i4) : i64
  %lt = lt(%a, %b) : bool
  %ge = ge(%b, %c) : bool
  %or = or(%lt, %ge) : bool
  %nt = not(%or) : bool
  %eq = eq(%i1, %i2) : bool
  %an = and(%nt, %eq) : bool
  %ne = ne(%a, %c) : bool
  %o2 = or(%an, %ne) : bool
  %bi = cast(%o2) : i64
  %i6 = add(%i5, %bi) : i64
  %sel = select(%lt, %a, %c) : f64
  %44 = load(%x, %i2) : f64
  %45 = mul(%sel, %44) : f64
  %46 = add(%43, %45) : f64
  return(%46, %i6, %o2)
}
"""

LOOPS = """
module "loops.py"

func @down(%x: array<f64,1>, %n: i64) -> f64 {
  %c1 = const() {value = 1} : i64
  %m1 = const() {value = -1} : i64
  %half = const() {value = 0.5} : f64
  %z = const() {value = 0.0} : f64
  %0 = sub(%n, %c1) : i64
  %s = for(%0, %m1, %m1, %z) : f64 {
  ^(%i: i64, %s.1: f64):
    %1 = mul(%half, %s.1) : f64
    %2 = load(%x, %i) : f64
    %3 = mul(%2, %2) : f64
    %s.2 = add(%1, %3) : f64
    yield(%s.2)
  }
  return(%s)
}

func @stride(%x: array<f64,1>, %n: i64) -> f64 {
  %c1 = const() {value = 1} : i64
  %c2 = const() {value = 2} : i64
  %one = const() {value = 1.0} : f64
  %s = for(%c1, %n, %c2, %one) : f64 {
  ^(%i: i64, %s.1: f64):
    %0 = load(%x, %i) : f64
    %1 = mul(%s.1, %0) : f64
    %2 = sub(%i, %c1) : i64
    %3 = load(%x, %2) : f64
    %s.2 = add(%1, %3) : f64
    yield(%s.2)
  }
  return(%s)
}

func @overwrite(%x: array<f64,1>, %n: i64) -> () {
  %c1 = const() {value = 1} : i64
  for(%c1, %n, %c1) {
  ^(%i: i64):
    %0 = load(%x, %i) : f64
    %1 = sub(%i, %c1) : i64
    %2 = load(%x, %1) : f64
    %3 = mul(%0, %2) : f64
    store(%x, %i, %3)
    yield()
  }
  return()
}

func @keep_init(%x: array<f64,1>, %n: i64, %a: f64) -> f64 {
  %c0 = const() {value = 0} : i64
  %c1 = const() {value = 1} : i64
  %two = const() {value = 2.0} : f64
  %s0 = mul(%a, %two) : f64
  %s = for(%c0, %n, %c1, %s0) : f64 {
  ^(%i: i64, %s.1: f64):
    %0 = load(%x, %i) : f64
    %s.2 = mul(%s.1, %0) : f64
    yield(%s.2)
  }
  %1 = add(%s, %s0) : f64
  return(%1)
}

func @late_read(%x: array<f64,1>, %v: f64) -> f64 {
  %c0 = const() {value = 0} : i64
  %c1 = const() {value = 1} : i64
  %0 = load(%x, %c0) : f64
  %1 = load(%x, %c1) : f64
  store(%x, %c0, %v)
  %2 = mul(%0, %1) : f64
  %3 = load(%x, %c0) : f64
  %4 = add(%2, %3) : f64
  return(%4)
}

func @undef_init(%x: array<f64,1>, %n: i64) -> f64 {
  %c0 = const() {value = 0} : i64
  %c1 = const() {value = 1} : i64
  %u = undef() : f64
  %z = const() {value = 0.0} : f64
  %t, %s = for(%c0, %n, %c1, %u, %z) : f64, f64 {
  ^(%i: i64, %t.1: f64, %s.1: f64):
    %0 = load(%x, %i) : f64
    %t.2 = mul(%0, %0) : f64
    %s.2 = add(%s.1, %t.2) : f64
    yield(%t.2, %s.2)
  }
  %1 = add(%t, %s) : f64
  return(%1)
}
"""

TAPES = """
module "tapes.py"

func @tapes(%x: array<f64,1>, %n: i64) -> f64 {
  comment() {text = "forward sweep"}
  %c0 = const() {value = 0} : i64
  %c1 = const() {value = 1} : i64
  %c2 = const() {value = 2} : i64
  %z = const() {value = 0.0} : f64
  %tape_t = tape.new(%n) {elem = "f64", grow = false} : array<f64,1>
  %tape_k = tape.new(%c2) {elem = "i64", grow = true} : array<i64,1>
  %tape_b = tape.new(%c1) {elem = "bool", grow = true} : array<bool,1>
  for(%c0, %n, %c1) {
  ^(%i: i64):
    %t = load(%x, %i) : f64
    tape.push(%tape_t, %t)
    tape.push(%tape_k, %i)
    %pos = gt(%t, %z) : bool
    tape.push(%tape_b, %pos)
    yield()
  }
  comment() {text = "reverse sweep"}
  comment() {text = "line 3: this comment has nothing to annotate"}
  %s = for(%c0, %n, %c1, %z) : f64 {
  ^(%i.1: i64, %s.1: f64):
    comment() {text = "line 4: s += ..."}
    %t.1 = tape.pop(%tape_t) : f64
    %k = tape.pop(%tape_k) : i64
    %b = tape.pop(%tape_b) : bool
    %0 = cast(%k) : f64
    %1 = mul(%t.1, %0) : f64
    %2 = select(%b, %1, %t.1) : f64
    %s.2 = add(%s.1, %2) : f64
    yield(%s.2)
  }
  return(%s)
}
"""

LONG = """
module "long.py"

func @long(%alpha_coefficient: f64, %beta_coefficient: f64, %gamma_coefficient: f64) -> f64 {
  %0 = mul(%alpha_coefficient, %beta_coefficient) : f64
  %1 = mul(%beta_coefficient, %gamma_coefficient) : f64
  %2 = add(%0, %1) : f64
  %3 = math.sin(%2) : f64
  %4 = mul(%gamma_coefficient, %alpha_coefficient) : f64
  %5 = math.cos(%4) : f64
  %6 = add(%3, %5) : f64
  %7 = mul(%alpha_coefficient, %alpha_coefficient) : f64
  %8 = mul(%beta_coefficient, %beta_coefficient) : f64
  %9 = add(%7, %8) : f64
  %10 = math.sqrt(%9) : f64
  %11 = div(%6, %10) : f64
  %12 = math.exp(%gamma_coefficient) : f64
  %13 = mul(%11, %12) : f64
  return(%13)
}
"""

REWRITES = """
module "rewrites.py"

func @clamp(%x: array<f64,1>, %lo: f64, %hi: f64, %n: i64) -> f64 {
  %c0 = const() {value = 0} : i64
  %c1 = const() {value = 1} : i64
  %c2 = const() {value = 2} : i64
  %m0 = load(%x, %c0) : f64
  %m = for(%c0, %n, %c1, %m0) : f64 {
  ^(%i: i64, %m.1: f64):
    %xi = load(%x, %i) : f64
    %0 = gt(%xi, %m.1) : bool
    %m.2 = if(%0) : f64 {
      yield(%xi)
    } {
      yield(%m.1)
    }
    yield(%m.2)
  }
  %1 = lt(%lo, %m) : bool
  %2 = lt(%m, %hi) : bool
  %3 = and(%1, %2) : bool
  %4 = gt(%c2, %c0) : bool
  %5 = and(%3, %4) : bool
  %6 = select(%1, %m, %lo) : f64
  %7 = ge(%m, %hi) : bool
  %8 = select(%7, %hi, %m) : f64
  %9 = eq(%6, %8) : bool
  %10 = not(%9) : bool
  %r = if(%5) : f64 {
    %inner = if(%10) : f64 {
      %11 = sub(%6, %8) : f64
      yield(%11)
    } {
      yield(%m)
    }
    yield(%inner)
  } {
    yield(%8)
  }
  %i1 = sub(%n, %c1) : i64
  %i2 = add(%i1, %c1) : i64
  %12 = load(%x, %i2) : f64
  %13 = neg(%12) : f64
  %14 = mul(%13, %lo) : f64
  %15 = sub(%r, %14) : f64
  return(%15)
}

func @nest(%x: f64, %y: f64) -> f64 {
  %z = const() {value = 0.0} : f64
  %0 = gt(%x, %z) : bool
  %1 = gt(%y, %z) : bool
  %r = if(%0) : f64 {
    %s = if(%1) : f64 {
      %s.1 = mul(%x, %y) : f64
      yield(%s.1)
    } {
      yield(%x)
    }
    yield(%s)
  } {
    yield(%x)
  }
  %a, %b = if(%1) : f64, f64 {
    %2 = mul(%x, %x) : f64
    yield(%y, %2)
  } {
    yield(%y, %z)
  }
  %3 = add(%r, %a) : f64
  %4 = add(%3, %b) : f64
  return(%4)
}
"""

PROGRAMS = {
    "dot": (DOT, {"dot": lambda r: [_arr(r, N), _arr(r, N), N]}),
    "swap": (SWAP, {"fib": lambda r: [float(r.uniform(-1, 1)), N]}),
    "while": (
        WHILE,
        {
            "wh": lambda r: [_pos(r, 3) + 1.0, float(r.uniform(0.5, 1.0))],
            "wh2": lambda r: [_arr(r, N), N],
        },
    ),
    "branches": (
        BRANCHES,
        {
            "br": lambda r: [float(r.uniform(-1, 1)), float(r.uniform(-1, 1))],
            "piecewise": lambda r: [float(r.uniform(-2, 2))],
            "onlyelse": lambda r: [_arr(r, 3), float(r.uniform(-1, 1))],
        },
    ),
    "nested": (
        NESTED,
        {"nested": lambda r: [_arr(r, N), N], "matvec": lambda r: [_arr(r, 3, 4), _arr(r, 4), _arr(r, 3)]},
    ),
    "calls": (
        CALLS,
        {"norm": lambda r: [_arr(r, N), _arr(r, N), N], "user": lambda r: [float(r.uniform(-1, 1)), 0.5]},
    ),
    "ops": (
        OPS,
        {"ops": lambda r: [float(r.uniform(0.2, 1)), float(r.uniform(-1, 1)), float(r.uniform(0.2, 1)), 7, _arr(r, N)]},
    ),
    "loops": (
        LOOPS,
        {
            "down": lambda r: [_arr(r, 7), 7],
            "stride": lambda r: [_arr(r, 7), 7],
            "overwrite": lambda r: [_pos(r, N), N],
            "keep_init": lambda r: [_arr(r, N), N, float(r.uniform(-1, 1))],
            "late_read": lambda r: [_arr(r, 3), float(r.uniform(-1, 1))],
            "undef_init": lambda r: [_arr(r, N), N],
        },
    ),
    "tapes": (TAPES, {"tapes": lambda r: [_arr(r, 9), 9]}),
    "long": (LONG, {"long": lambda r: [float(r.uniform(-1, 1)) for _ in range(3)]}),
    "rewrites": (
        REWRITES,
        {
            "clamp": lambda r: [_arr(r, N), -0.2, float(r.uniform(0.0, 1.0)), N - 1],
            "nest": lambda r: [float(r.uniform(-1, 1)), float(r.uniform(-1, 1))],
        },
    ),
}

# Functions differentiated in the gradient tests: (program, function, wrt parameter indices).
GRADIENTS = [
    ("dot", "dot", {0, 1}),
    ("swap", "fib", {0}),
    ("while", "wh", {0, 1}),
    ("while", "wh2", {0}),
    ("branches", "br", {0, 1}),
    ("branches", "piecewise", {0}),
    ("nested", "nested", {0}),
    ("nested", "matvec", {0, 1}),
    ("calls", "norm", {1}),
    ("calls", "user", {0, 1}),
    ("loops", "down", {0}),
    ("loops", "stride", {0}),
    ("loops", "overwrite", {0}),
    ("loops", "keep_init", {0, 2}),
    ("loops", "undef_init", {0}),
    ("long", "long", {0, 1, 2}),
    ("rewrites", "clamp", {0, 1, 2}),
    ("rewrites", "nest", {0, 1}),
]


def grad_args(args: list, fn, sig_shadowed: list[int], has_d_return: bool, rng) -> list:
    """Arguments for ``grad_<fn>``: each shadowed array followed by a random seed of its shape."""
    out = []
    for i, a in enumerate(args):
        out.append(a)
        if i in sig_shadowed:
            out.append(rng.uniform(-1.0, 1.0, size=np.shape(a)))
    if has_d_return:
        out.append(float(rng.uniform(0.5, 1.5)))
    return out
