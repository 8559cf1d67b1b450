"""A plugin module that raises KeyboardInterrupt itself while imported: no Ctrl-C was
pressed, so fcbench leaves it out like any broken plugin."""

raise KeyboardInterrupt("raised by the plugin, not by a signal")
