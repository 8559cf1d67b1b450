"""The AST checker and its per-language type rules."""
