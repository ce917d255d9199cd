# torch for predicted cells (#30, docs/predictions.md): the CPU recipe with the profile's torch-predict lock (torch_xla on its CPU client, PJRT_DEVICE=CPU).
ARG BASE=python:3.11-slim-bookworm
FROM ${BASE}
# torch.compile (inductor) compiles C++ at run time: a compiler and Python headers.
RUN apt-get update && apt-get install -y --no-install-recommends gcc g++ libc6-dev python3-dev \
    && rm -rf /var/lib/apt/lists/*
# The build context holds the lock, the same lock as install steps under requirements/
# (packages of an index the lock names, such as PyTorch's CPU index, from that index only;
# the rest from PyPI: images/install.py), pip's CA bundle (for TLS-intercepting proxies;
# may be empty) and an optional wheelhouse (--find-links), so builds work air-gapped.
COPY context/ /etc/portbench/
# PIP_CERT (not --cert) so the pip that builds an sdist's build requirements trusts it too.
RUN if [ -s /etc/portbench/ca-bundle.crt ]; then export PIP_CERT=/etc/portbench/ca-bundle.crt; fi \
    && python3 -m venv /opt/cell \
    && for part in /etc/portbench/requirements/*.txt; do \
         /opt/cell/bin/pip install --no-cache-dir --no-deps --disable-pip-version-check \
           $(cat /etc/portbench/pip-args) -r "$part" || exit 1; \
       done
# Cells run as an unprivileged user; the host mounts the run directory writable for it.
RUN useradd --uid 10001 --user-group --home-dir /tmp cell 2>/dev/null || true
USER 10001:10001
ENV PATH=/opt/cell/bin:$PATH PYTHONDONTWRITEBYTECODE=1 HOME=/tmp
