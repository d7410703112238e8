"""One module per command: options -> settings -> one call -> an exit code."""
