"""The people who play: profiles, devices, sign-in throttling, ratings and the ladder."""
