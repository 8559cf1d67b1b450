"""`fcbench data validate`: whether every case of a dataset can be loaded and passed.

Above checking in the layer order (docs/design.md, "Layers"): its question is whether the
checker can pass a case, so it reads the checker's type tables (`check.ast`) and loads initial
configs into the environments (`envs.multi_turn`); the data layer below knows neither."""
