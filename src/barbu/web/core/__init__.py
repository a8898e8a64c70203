"""What every room of the web server shares: its refusals and the pages' catalogues."""
