"""barbu as a PettingZoo environment: fixed action ids, encoded observations, rewards per hand or game."""
