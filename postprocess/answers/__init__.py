"""Answers, in one room: one answer per item from several workers' labels, how far to trust it, how good each worker is,
and when an item has judgements enough. Pure models over DataFrames in crowd-kit's style."""
