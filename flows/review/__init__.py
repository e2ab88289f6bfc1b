"""A person in the loop: the review page, decisions and the pause while a batch waits."""
