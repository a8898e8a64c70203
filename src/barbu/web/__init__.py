"""Barbu in the browser: a real-time card table served over HTTP and WebSockets (``barbu serve``)."""
