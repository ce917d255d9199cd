# jax on AMD GPUs (ROCm). BASE is the profile's AMD ROCm 7 image, whose /opt/rocm holds the
# user space jax's ROCm plugin loads (libamdhip64.so.7, rocBLAS, MIOpen, hipBLASLt, RCCL,
# hipFFT, rocprofiler-sdk): no Python index serves it. On a base without it (the local
# debootstrap base, where no registry answers) the image still builds, holds the Python
# side only, and says so: /etc/portbench/rocm-runtime-missing lists what it cannot find.
ARG BASE=rocm/dev-ubuntu-22.04:7.2-complete
FROM ${BASE}
# The profile's Python 3.11: Ubuntu 22.04 has it in universe; Debian bookworm's python3 is it.
RUN if ! command -v python3.11 >/dev/null; then apt-get update \
      && apt-get install -y --no-install-recommends python3.11 python3.11-venv ca-certificates \
      && rm -rf /var/lib/apt/lists/*; fi

# The build context holds the lock, pip's CA bundle (for TLS-intercepting proxies; may be
# empty) and an optional wheelhouse (--find-links), so builds work air-gapped.
COPY context/ /etc/portbench/
# PIP_CERT (not --cert) so the pip that builds an sdist's build requirements trusts it too.
RUN if [ -s /etc/portbench/ca-bundle.crt ]; then export PIP_CERT=/etc/portbench/ca-bundle.crt; fi \
    && python3.11 -m venv /opt/cell \
    && /opt/cell/bin/pip install --no-cache-dir --no-deps --disable-pip-version-check \
       $(cat /etc/portbench/pip-args) -r /etc/portbench/lock.txt
# What the plugin's native libraries cannot find in this image: nothing on AMD's base.
RUN find /opt/cell/lib/python3.11/site-packages/jax_plugins -name '*.so' -exec ldd {} + 2>/dev/null \
      | awk '/not found/ {print $1}' | sort -u > /etc/portbench/rocm-runtime-missing \
    && if [ -s /etc/portbench/rocm-runtime-missing ]; then \
         echo "portbench: this image holds the Python side only and cannot run on an AMD GPU: its base lacks ROCm's user space ($(tr '\n' ' ' < /etc/portbench/rocm-runtime-missing)); build it on AMD's ROCm 7 image (--base rocm/dev-ubuntu-22.04:7.2-complete)"; \
       fi
# Cells run as an unprivileged user; the host mounts the run directory writable for it.
RUN useradd --uid 10001 --user-group --home-dir /tmp cell 2>/dev/null || true
USER 10001:10001
ENV PATH=/opt/cell/bin:$PATH PYTHONDONTWRITEBYTECODE=1 HOME=/tmp
