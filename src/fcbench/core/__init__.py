"""The ground floor: the records every stage passes on (test cases, decoded calls, verdicts)
and the category registry every stage reads. These modules import nothing of fcbench, so any
layer may import them (docs/design.md, "Layers")."""
