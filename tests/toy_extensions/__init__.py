"""Toy extensions, one module each, that tests add to fcbench at run time or install through
a fake distribution's entry points (tests/test_plugins.py)."""
