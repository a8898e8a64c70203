"""The HTTP and WebSocket application: its routes by area, the guards before them, the costly reads."""
