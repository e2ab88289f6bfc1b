"""Answers, in one room: pure models over DataFrames in crowd-kit's style."""
