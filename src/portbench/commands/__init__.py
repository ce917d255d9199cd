"""Command families of the ``portbench`` CLI (each module exposes ``register``)."""
