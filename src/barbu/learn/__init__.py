"""Learning Barbu: the lessons of the tutorial and the practice drills, over the engine and the coach.

An adapter like the coach: the front ends (the terminal's `barbu learn`, the browser's Learn pages)
import it, the engine and the bots never do.
"""
