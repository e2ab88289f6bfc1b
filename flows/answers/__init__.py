"""The answers' files for ``hitflow aggregate`` and every campaign's answers step (the models: postprocess/answers/)."""
