"""Barbu without a server: a solo game whose engine and computers run in the browser (Pyodide)."""
