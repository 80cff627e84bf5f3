# The serai server image: `docker build -t serai .` then
# `docker run -p 50051:50051 -p 50052:50052 serai` (embedded Redis in /data) or add
# `--redis-url redis://...`. 50051: native gRPC; 50052: Connect, gRPC-Web and JSON over HTTP.
FROM python:3.11-slim
WORKDIR /app
COPY pyproject.toml README.md ./
COPY proto proto
COPY server server
COPY plugins plugins
COPY clients clients
RUN pip install --no-cache-dir . && useradd --create-home serai && mkdir -m 700 /data && chown serai /data
USER serai
EXPOSE 50051 50052
VOLUME /data
CMD ["serai", "serve", "--host", "0.0.0.0", "--port", "50051", "--http-port", "50052", "--data-dir", "/data"]
