"""Benchmarks of portbench itself: timing fidelity, harness overhead, faults, scaling, images."""
