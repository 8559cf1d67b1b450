"""The built-in checker kinds, one module each (registered in `check.registry`)."""
