"""Bridges between parlour and other game frameworks (``openspiel``: both ways).

This package sits beside the games layer: it imports ``parlour.games`` and the other
framework, never the envs, baselines or training code, so the games it produces (an
OpenSpiel game wrapped as a parlour ``Game``) run everywhere a parlour game does.
"""
