"""Framework releases as cells: a release named directly (``jax==0.6.2``), its lock made on
demand with uv for the newest Python the base images offer, its image, and the default
lists a sweep runs (docs/releases.md)."""
