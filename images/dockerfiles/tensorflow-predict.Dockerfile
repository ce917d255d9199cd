# tensorflow for predicted cells (#30, docs/predictions.md): the CPU recipe with the profile's tensorflow-predict lock (the ordinary wheel, which declares its GPU kernels).
ARG BASE=python:3.11-slim-bookworm
FROM ${BASE}

# The build context holds the lock, pip's CA bundle (for TLS-intercepting proxies; may be
# empty) and an optional wheelhouse (--find-links), so builds work air-gapped.
COPY context/ /etc/portbench/
# PIP_CERT (not --cert) so the pip that builds an sdist's build requirements trusts it too.
RUN if [ -s /etc/portbench/ca-bundle.crt ]; then export PIP_CERT=/etc/portbench/ca-bundle.crt; fi \
    && python3 -m venv /opt/cell \
    && /opt/cell/bin/pip install --no-cache-dir --no-deps --disable-pip-version-check \
       $(cat /etc/portbench/pip-args) -r /etc/portbench/lock.txt
# Cells run as an unprivileged user; the host mounts the run directory writable for it.
RUN useradd --uid 10001 --user-group --home-dir /tmp cell 2>/dev/null || true
USER 10001:10001
ENV PATH=/opt/cell/bin:$PATH PYTHONDONTWRITEBYTECODE=1 HOME=/tmp
