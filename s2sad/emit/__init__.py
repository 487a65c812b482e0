"""The language-neutral core the emitters share: expression and statement trees, inlining, out-of-SSA, naming."""
