"""The card tables, free of any web framework: seats, tokens, computers, chat, rematch and their events."""
