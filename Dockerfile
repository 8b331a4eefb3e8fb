# fairpair API and worker image. Minimal for now: the ecosystem issue adds multi-stage builds.
FROM python:3.11-slim
WORKDIR /srv/fairpair
COPY pyproject.toml README.md alembic.ini ./
COPY app ./app
COPY migrations ./migrations
RUN pip install --no-cache-dir -e . && useradd --system --uid 10001 fairpair
USER fairpair
EXPOSE 8000
HEALTHCHECK --interval=10s --timeout=3s --retries=3 \
  CMD python -c "import urllib.request; urllib.request.urlopen('http://127.0.0.1:8000/readyz')"
CMD ["fairpair", "serve", "--host", "0.0.0.0", "--port", "8000"]
