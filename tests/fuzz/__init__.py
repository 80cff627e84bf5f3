"""Coverage-guided fuzzing (atheris) of what serai reads from clients and from its store."""
