"""What the emitters share, in no output language: trees, statement builder, inlining, out-of-SSA, names."""
