"""Test categories, the official data files and their loaders."""
