"""The matrix across machines: nodes of a Ray cluster serve cells, the head lands them.

- :mod:`.resources` what a node advertises (accelerators, engines, profiles) and what a cell needs
- :mod:`.node`      ``portbench node start|stop|status``: joining a machine to the cluster
- :mod:`.serve`     what runs on a node for one cell (importable without Ray)
- :mod:`.archive`   a finished cell packed on the node, and checked on the head (untrusted)
- :mod:`.landing`   a checked cell written into the head's run directory, with provenance
- :mod:`.dispatch`  the head: submit cells, show progress, retry, time out, resume
- :mod:`.skypilot`  SkyPilot task files that bring nodes up on a cloud

Ray authenticates nobody: anyone who reaches the cluster's ports can run code on every
node. A cluster belongs on a private network (docs/cluster.md).
"""
