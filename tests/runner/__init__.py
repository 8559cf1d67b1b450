"""Runner tests (a package: `test_preflight.py` is also a basename in tests/models)."""
