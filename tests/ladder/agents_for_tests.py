"""Agents from outside parlour, for the tests of ``python:`` players (imported by name)."""

import numpy as np


def first_legal(observation, action_mask):
    return int(np.flatnonzero(action_mask)[0])


def illegal(observation, action_mask):
    return len(action_mask)
