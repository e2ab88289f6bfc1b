"""The command line (``hitflow``): the top layer, which may import every other."""
