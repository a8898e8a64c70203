"""Research and developer tools built on the engine and the bots: arena, analyze, bench."""
