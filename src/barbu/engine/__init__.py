"""The rules engine of Barbu: pure standard-library Python that imports nothing outside itself."""
# Deliberately empty: barbu._compiled puts the compiled modules on this package's __path__
# after importing it and before any engine module loads, so nothing here may import them.
