"""Predicted cells: what a TPU, a CUDA or a ROCm GPU would do, learned on this machine."""
