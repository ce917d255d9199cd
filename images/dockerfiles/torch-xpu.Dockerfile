# torch on Intel GPUs (XPU). The lock's torch and triton come from PyTorch's xpu index, its
# SYCL and oneMKL runtimes from PyPI; Intel's GPU user-mode driver (Level Zero's GPU driver,
# libze_intel_gpu, matching the host's kernel driver) is in no wheel: build on a base that
# has it (--base). /etc/portbench/xpu-runtime-missing says when this one does not.
ARG BASE=python:3.11-slim-bookworm
FROM ${BASE}
COPY context/ /etc/portbench/
# A lock written from the index's published pins, never resolved against it, is refused:
# it is unhashed and lists none of what those packages depend on.
RUN if head -n 1 /etc/portbench/lock.txt | grep -q 'verified=false'; then \
      echo "portbench: this lock was not resolved against PyTorch's xpu index (unhashed, incomplete): resolve it where that index answers (docs/accelerators.md, 'Locks from PyTorch's indexes') and build again" >&2; \
      exit 1; fi
# torch.compile (inductor) compiles C++ at run time: a compiler and Python headers.
RUN apt-get update && apt-get install -y --no-install-recommends gcc g++ libc6-dev ca-certificates \
      $(command -v python3.11 >/dev/null || echo python3.11 python3.11-venv) python3.11-dev \
    && rm -rf /var/lib/apt/lists/*
# Each index's packages from that index only, the rest from PyPI (images/install.py).
RUN if [ -s /etc/portbench/ca-bundle.crt ]; then export PIP_CERT=/etc/portbench/ca-bundle.crt; fi \
    && python3.11 -m venv /opt/cell \
    && for part in /etc/portbench/requirements/*.txt; do \
         /opt/cell/bin/pip install --no-cache-dir --no-deps --disable-pip-version-check \
           $(cat /etc/portbench/pip-args) -r "$part" || exit 1; \
       done
RUN (ldconfig -p | grep -q 'libze_intel_gpu\.so' || echo "libze_intel_gpu.so.1 (Intel's compute runtime)") \
      > /etc/portbench/xpu-runtime-missing \
    && if [ -s /etc/portbench/xpu-runtime-missing ]; then \
         echo "portbench: this image cannot run on an Intel GPU: its base lacks $(cat /etc/portbench/xpu-runtime-missing); build it on a base with Intel's GPU user-mode driver (--base)"; \
       fi
# Cells run as an unprivileged user; the host mounts the run directory writable for it.
RUN useradd --uid 10001 --user-group --home-dir /tmp cell 2>/dev/null || true
USER 10001:10001
ENV PATH=/opt/cell/bin:$PATH PYTHONDONTWRITEBYTECODE=1 HOME=/tmp
