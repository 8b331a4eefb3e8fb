# fairpair: one image for the API, the batch worker and the demo sim-judge.
# Build stage: a virtualenv with the dependencies, built where compilers may be needed.
FROM python:3.11-slim AS build
ENV PIP_NO_CACHE_DIR=1 PIP_DISABLE_PIP_VERSION_CHECK=1
WORKDIR /srv/fairpair
RUN python -m venv /opt/venv
ENV PATH=/opt/venv/bin:$PATH
# The same install commands CI runs outside a container (.ci/dockerfile-commands). Every file pip
# fetches must match a sha256 in requirements.lock, and only wheels are taken, so nothing but
# fairpair itself is built; the dependencies' layer is rebuilt only when the lock changes.
COPY requirements.lock ./
RUN pip install --require-hashes --no-deps --only-binary :all: -r requirements.lock
COPY pyproject.toml README.md alembic.ini ./
COPY app ./app
COPY migrations ./migrations
# No resolution and no build environment: the dependencies and setuptools come from the lock.
# Not editable: fairpair and its migrations (under /opt/venv/share/fairpair) go into the venv.
RUN pip install --no-deps --no-build-isolation .

# Run stage: the virtualenv alone (no source tree, tests or fixtures), as a non-root user.
FROM python:3.11-slim
ENV PATH=/opt/venv/bin:$PATH PYTHONUNBUFFERED=1
WORKDIR /srv/fairpair
COPY --from=build /opt/venv /opt/venv
RUN useradd --system --uid 10001 --home /srv/fairpair fairpair
USER fairpair
EXPOSE 8000
HEALTHCHECK --interval=10s --timeout=3s --start-period=10s --retries=3 \
  CMD ["python", "-c", "import urllib.request; urllib.request.urlopen('http://127.0.0.1:8000/readyz', timeout=2)"]
CMD ["fairpair", "serve", "--host", "0.0.0.0", "--port", "8000"]
