"""A run's files, for everyone who writes or reads them: result files of every official
layout (`read`), the crash-safe result store (`store`) and the folder's manifest
(`manifest`). The runner writes them; evaluation, the reports and the API read them; one
package so that none of those readers depends on the runner (docs/design.md, "Layers")."""
