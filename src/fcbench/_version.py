"""fcbench's version, on the ground floor: written into derived caches, manifests and
reports by layers that may not import the package root (which imports the public API)."""

__version__ = "0.1.0"
