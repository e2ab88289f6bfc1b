"""Where a run's outputs go (a folder or URL and its mirror) and how they look."""
