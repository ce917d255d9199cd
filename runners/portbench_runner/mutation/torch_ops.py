"""Mutants of torch tensors, made with torch's own operations: on the tensor's device, and
joined to its autograd graph (the move is added as a detached constant), so a case that
differentiates the output still can."""

from __future__ import annotations

from typing import Any, Optional

from .ops import LeafOps, middle

__all__ = ["TorchOps"]


class TorchOps(LeafOps):
    def __init__(self) -> None:
        import torch

        self.torch = torch

    def is_leaf(self, value: Any) -> bool:
        return isinstance(value, self.torch.Tensor)

    def family(self, leaf: Any) -> Optional[str]:
        if leaf.layout != self.torch.strided or getattr(leaf, "is_quantized", False):
            return None  # sparse and quantized tensors: no elementwise mutant here
        dtype = leaf.dtype
        if dtype == self.torch.bool:
            return "bool"
        if dtype.is_complex:
            return "complex"
        if dtype.is_floating_point:
            return "float"
        return "int"

    def dtype_name(self, leaf: Any) -> str:
        return str(leaf.dtype).rsplit(".", 1)[-1]

    def size(self, leaf: Any) -> int:
        return int(leaf.numel())

    def move(self, leaf: Any, rtol: float, atol: float) -> Any:
        size = leaf.detach().abs()
        # Infinities stay as they are (-inf + inf would be NaN, another mutant's change).
        delta = self.torch.where(size.isfinite(), rtol * size + atol, 0.0).to(leaf.dtype)
        return leaf + delta

    def add_one(self, leaf: Any) -> Any:
        return leaf + 1

    def _mask(self, leaf: Any) -> Any:
        mask = self.torch.zeros(leaf.shape, dtype=self.torch.bool, device=leaf.device)
        mask.view(-1)[middle(leaf.numel())] = True
        return mask

    def flip_one(self, leaf: Any) -> Any:
        return self.torch.logical_xor(leaf, self._mask(leaf))

    def cast(self, leaf: Any, dtype: str) -> Any:
        return leaf.to(getattr(self.torch, dtype))

    def expand(self, leaf: Any) -> Any:
        return leaf.unsqueeze(-1)

    def set_nan(self, leaf: Any) -> Any:
        nan = self.torch.full((), float("nan"), dtype=leaf.dtype, device=leaf.device)
        return self.torch.where(self._mask(leaf), nan, leaf)

    def to_numpy(self, leaf: Any) -> Any:
        value = leaf.detach().cpu()
        if value.dtype == self.torch.bfloat16:
            value = value.float()
        return value.resolve_conj().resolve_neg().numpy()

    # -- state ---------------------------------------------------------------------------
    def state_of(self, fn: Any, args: Any, kwargs: Any) -> list:  # type: ignore[type-arg]
        """The float tensors a stateful call may have changed: those it was given or bound
        to, a module's parameters and buffers, an optimizer's parameters."""
        torch = self.torch
        found = []
        owner = getattr(fn, "__self__", None)
        candidates = [owner, *args, *kwargs.values()]
        for item in candidates:
            if isinstance(item, torch.Tensor):
                found.append(item)
            elif isinstance(item, torch.nn.Module):
                found.extend(item.parameters())
                found.extend(item.buffers())
            elif isinstance(item, torch.optim.Optimizer):
                for group in item.param_groups:
                    found.extend(group["params"])
            elif isinstance(item, (list, tuple)):
                found.extend(x for x in item if isinstance(x, torch.Tensor))
        return [t for t in found if t.dtype.is_floating_point and t.numel() > 0]

    def move_in_place(self, tensor: Any, rtol: float, atol: float) -> None:
        with self.torch.no_grad():
            tensor.add_((rtol * tensor.abs() + atol).to(tensor.dtype))
