# torch on AMD GPUs (ROCm): PyTorch's ROCm wheels bundle ROCm's user space, so any base with
# the profile's Python serves; only the host's amdgpu driver is needed. The lock's torch and
# triton come from PyTorch's rocm7.2 index (images/install.py installs them from it alone).
ARG BASE=rocm/dev-ubuntu-22.04:7.2-complete
FROM ${BASE}
COPY context/ /etc/portbench/
# A lock written from the index's published pins, never resolved against it, is refused:
# it is unhashed and lists none of what those packages depend on.
RUN if head -n 1 /etc/portbench/lock.txt | grep -q 'verified=false'; then \
      echo "portbench: this lock was not resolved against PyTorch's rocm index (unhashed, incomplete): resolve it where that index answers (docs/accelerators.md, 'Locks from PyTorch's indexes') and build again" >&2; \
      exit 1; fi
# The profile's Python 3.11: Ubuntu 22.04 has it in universe; Debian bookworm's python3 is it;
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
# Cells run as an unprivileged user; the host mounts the run directory writable for it.
RUN useradd --uid 10001 --user-group --home-dir /tmp cell 2>/dev/null || true
USER 10001:10001
ENV PATH=/opt/cell/bin:$PATH PYTHONDONTWRITEBYTECODE=1 HOME=/tmp
