"""A plugin module raising GeneratorExit while imported."""

raise GeneratorExit("closed")
