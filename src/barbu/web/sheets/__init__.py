"""The score keeper's sheets, free of any web framework: setup, checked changes, CSV and PDF."""
