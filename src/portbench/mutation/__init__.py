"""``portbench mutate``: a mutation check of the manifests' checks (issue 33)."""

__all__: list[str] = []
