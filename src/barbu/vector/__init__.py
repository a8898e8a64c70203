"""barbu.vector: many games of Barbu stepped together on arrays, with barbu.env's ids, masks, views."""

from __future__ import annotations

from barbu.vector.env import VectorEnv

__all__ = ["VectorEnv"]
