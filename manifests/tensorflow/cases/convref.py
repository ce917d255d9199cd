"""NumPy float64 references for the convolution cases (not a case file)."""

import itertools

import numpy as np


def same_pads(size, kernel, stride, dilation=1):
    """(before, after) padding TensorFlow's SAME uses for one spatial dimension."""
    out = -(-size // stride)
    total = max((out - 1) * stride + (kernel - 1) * dilation + 1 - size, 0)
    return total // 2, total - total // 2


def conv_nd(x, w, strides, padding, dilations=None):
    """Channels-last convolution (cross-correlation), x [N, *S, Cin], w [*K, Cin, Cout]."""
    m = x.ndim - 2
    dilations = dilations or [1] * m
    kernel = w.shape[:m]
    if padding == "SAME":
        pads = [same_pads(x.shape[1 + i], kernel[i], strides[i], dilations[i]) for i in range(m)]
    else:
        pads = [(0, 0)] * m
    xp = np.pad(x, [(0, 0), *pads, (0, 0)])
    out_sizes = [
        (xp.shape[1 + i] - (kernel[i] - 1) * dilations[i] - 1) // strides[i] + 1 for i in range(m)
    ]
    out = np.zeros([x.shape[0], *out_sizes, w.shape[-1]])
    for offset in itertools.product(*[range(k) for k in kernel]):
        index = [slice(None)]
        for i in range(m):
            start = offset[i] * dilations[i]
            index.append(slice(start, start + (out_sizes[i] - 1) * strides[i] + 1, strides[i]))
        out += np.einsum("...c,co->...o", xp[tuple(index)], w[offset])
    return out


def conv2d_transpose(x, w, out_hw, stride, padding):
    """The transpose of conv_nd: x [N, H, W, Cin], w [KH, KW, Cout, Cin] as tf.nn.conv2d_transpose."""
    n, h, wd, _ = x.shape
    kh, kw, cout, _ = w.shape
    full = np.zeros((n, (h - 1) * stride + kh, (wd - 1) * stride + kw, cout))
    for i in range(h):
        for j in range(wd):
            full[:, i * stride : i * stride + kh, j * stride : j * stride + kw, :] += np.einsum(
                "nc,hwoc->nhwo", x[:, i, j, :], w
            )
    if padding == "SAME":
        top = same_pads(out_hw[0], kh, stride)[0]
        left = same_pads(out_hw[1], kw, stride)[0]
    else:
        top = left = 0
    full = np.pad(full, [(0, 0), (0, out_hw[0] + top), (0, out_hw[1] + left), (0, 0)])
    return full[:, top : top + out_hw[0], left : left + out_hw[1], :]
