"""A NumPy reference for one post-norm TransformerEncoderLayer (eval mode, no dropout)."""

import numpy as np


def layer_norm(x, weight, bias, eps=1e-5):
    mean = x.mean(axis=-1, keepdims=True)
    var = x.var(axis=-1, keepdims=True)
    return (x - mean) / np.sqrt(var + eps) * weight + bias


def attention(x, p, heads, prefix="self_attn."):
    """Multi-head self-attention of x shaped (S, N, E)."""
    s, n, e = x.shape
    d = e // heads
    qkv = x @ p[prefix + "in_proj_weight"].T + p[prefix + "in_proj_bias"]
    q, k, v = np.split(qkv, 3, axis=-1)

    def heads_first(t):
        return t.reshape(s, n, heads, d).transpose(1, 2, 0, 3)

    q, k, v = heads_first(q), heads_first(k), heads_first(v)
    scores = q @ k.transpose(0, 1, 3, 2) / np.sqrt(d)
    scores = np.exp(scores - scores.max(axis=-1, keepdims=True))
    weights = scores / scores.sum(axis=-1, keepdims=True)
    out = (weights @ v).transpose(2, 0, 1, 3).reshape(s, n, e)
    return out @ p[prefix + "out_proj.weight"].T + p[prefix + "out_proj.bias"]


def encoder_layer(x, p, heads, activation=lambda z: np.maximum(z, 0)):
    x = layer_norm(x + attention(x, p, heads), p["norm1.weight"], p["norm1.bias"])
    ff = (
        activation(x @ p["linear1.weight"].T + p["linear1.bias"]) @ p["linear2.weight"].T
        + p["linear2.bias"]
    )
    return layer_norm(x + ff, p["norm2.weight"], p["norm2.bias"])
