"""Whole-relation passes: open a relation through storage, feed its chunks to decode and analysis, and
hand the commands what they print. (The tier between the commands and the pure layers below them.)"""
